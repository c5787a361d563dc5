"""Server-side idempotency keys, as Stripe and the IETF draft describe them (chapter 05).

The client sends ``Idempotency-Key: <key>`` with a write. The server remembers, per key,
a fingerprint of the request and, once the write is done, the response it sent:

- a new key: the request runs; its response is stored with the key;
- the same key and the same payload again: the stored response is **replayed** (same status
  and body, plus ``Idempotent-Replayed: true``); nothing is written twice;
- the same key with a different payload: 422 as the IETF draft says (Stripe answers 400
  with an ``idempotency_error``), nothing runs (a key names one business request, never
  two);
- the same key while the first request is still running: 409, nothing runs; retry later;
- a request that failed validation stores nothing (Stripe), so fixing it and resending with
  the same key is allowed;
- keys are kept :attr:`IdempotencyKeys.window_s` seconds after completion (Stripe: at least
  24 hours), then forgotten.

The real GitHub REST API has **no** idempotency keys (a retried POST makes a second
comment), so the emulator enables this only when asked (``serve(..., idempotency=...)``,
one of :data:`IDEMPOTENCY_MODES`).

A real service keeps its key table with its data, so a restart forgets no key: the
emulator's table belongs to the store it serves
(:meth:`~tutorial_lib.emulator.fixtures.GitHubStore.idempotency_keys`), and a keyed retry
sent to a new emulator on the same store is still replayed.

"Idempotent" is not "always succeeds": a replayed error is still an error, a 409 is a
refusal, and a key reused for another payload is a mistake of the caller.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "DEFAULT_WINDOW_S",
    "ACCEPTED_KEY_HEADER_PATTERN",
    "IDEMPOTENCY_MODES",
    "Begin",
    "IdempotencyKeys",
    "IdempotencyMode",
    "StoredResponse",
    "check_idempotency_mode",
    "fingerprint",
]

#: How a server treats the ``Idempotency-Key`` header of the comment write: ``"off"`` (as
#: GitHub: ignored), ``"optional"`` (honoured when sent) or ``"required"`` (400 without it).
IdempotencyMode = Literal["off", "optional", "required"]
IDEMPOTENCY_MODES: tuple[IdempotencyMode, ...] = ("off", "optional", "required")

#: Keys are kept this long after their request completed (24 hours, as Stripe).
DEFAULT_WINDOW_S = 24 * 3600.0
#: The ``Idempotency-Key`` header values this server accepts: 1 to 255 visible ASCII
#: characters (Stripe allows up to 255); any other value is refused with 400. A client may
#: be stricter about the keys it makes.
ACCEPTED_KEY_HEADER_PATTERN = r"^[\x21-\x7e]{1,255}$"


def check_idempotency_mode(idempotency: str) -> None:
    """ValueError unless ``idempotency`` is one of :data:`IDEMPOTENCY_MODES`."""
    if idempotency not in IDEMPOTENCY_MODES:
        raise ValueError(f"idempotency must be 'off', 'optional' or 'required': {idempotency!r}")


@dataclass(frozen=True)
class StoredResponse:
    """The response kept for a completed key, replayed to duplicates."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Begin:
    """What :meth:`IdempotencyKeys.begin` decided for one request.

    ``outcome``: ``"run"`` (new key: run the request, then :meth:`~IdempotencyKeys.complete`
    or :meth:`~IdempotencyKeys.abandon`), ``"replay"`` (send ``response``),
    ``"in_progress"`` (409) or ``"mismatch"`` (422).
    """

    outcome: Literal["run", "replay", "in_progress", "mismatch"]
    response: StoredResponse | None = None


def fingerprint(method: str, path: str, payload: Any) -> str:
    """A digest of what makes two requests "the same": method, path and the JSON payload
    (canonical: sorted keys, no whitespace), so key order in the JSON does not matter."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{method.upper()} {path}\n{canonical}".encode()).hexdigest()


@dataclass
class _Entry:
    fingerprint: str
    response: StoredResponse | None = None  # None while the first request runs
    completed_at: float | None = None


class IdempotencyKeys:
    """A key table (the emulator keeps one per store); thread-safe. ``clock`` is
    injectable for tests."""

    def __init__(
        self, window_s: float = DEFAULT_WINDOW_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not window_s > 0:
            raise ValueError(f"window_s must be > 0, got {window_s!r}")
        self.window_s = window_s
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}

    def begin(self, key: str, request_fingerprint: str) -> Begin:
        """Claim ``key`` for a request, or say why it must not run."""
        with self._lock:
            self._forget_expired()
            entry = self._entries.get(key)
            if entry is None:
                self._entries[key] = _Entry(request_fingerprint)
                return Begin("run")
            if entry.fingerprint != request_fingerprint:
                return Begin("mismatch")
            if entry.response is None:
                return Begin("in_progress")
            return Begin("replay", entry.response)

    def complete(self, key: str, response: StoredResponse) -> None:
        """The request of ``key`` is done: keep its response for the window."""
        with self._lock:
            entry = self._entries[key]
            entry.response = response
            entry.completed_at = self._clock()

    def abandon(self, key: str) -> None:
        """The request of ``key`` stored nothing (e.g. validation failed): forget the key."""
        with self._lock:
            self._entries.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            self._forget_expired()
            return len(self._entries)

    def _forget_expired(self) -> None:
        now = self._clock()
        expired = [
            key
            for key, entry in self._entries.items()
            if entry.completed_at is not None and now - entry.completed_at >= self.window_s
        ]
        for key in expired:
            del self._entries[key]
