"""Opaque, signed, query-bound page cursors that carry a keyset position.

A paged tool hands the model a ``next_cursor`` and accepts it back on the next call. The
model must not be able to edit it, reuse it for another query, or keep it forever, and the
tool must be able to continue exactly where it stopped even if the list changed meanwhile.

**What a cursor holds** (:class:`CursorState`):

- the QUERY it belongs to: repository, pull request, filter and page size;
- the KEYSET position: ``after_id``, the id of the last item the tool looked at (returned
  or filtered out). The next page starts with the first item whose id is greater, so items
  added between calls are neither skipped nor repeated (offset paging "page 3" would be);
- an ``offset_hint``: roughly how many items came before the position. It only saves work
  (where to start looking upstream); correctness never depends on it;
- optionally an expiry (seconds since the epoch).

**The format**: ``urlsafe_b64(payload || tag)`` without padding, where ``payload`` is
compact JSON with short keys (``v`` version, ``r`` repository, ``p`` pr, ``f`` filter,
``n`` page size, ``k`` keyset id, ``o`` offset hint, ``x`` expiry) and ``tag`` is the first
16 bytes of HMAC-SHA256(key, payload). The key is passed in explicitly
(``CursorCodec(key)``): there is no global secret. The cursor is *opaque* to the model (it
should not read or build it) but not secret: it grants nothing the query does not already
grant (Google AIP-158).

**Decoding refuses**, with the contract code ``invalid_cursor`` and a suggestion to call
again without ``cursor``: anything not made of the URL-safe alphabet, a non-canonical
base64 text (so no two texts decode to the same cursor), a wrong tag (tampered, truncated,
or signed with another key), an unknown version, a cursor issued for another query, and an
expired one. Any single changed character is therefore rejected.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tutorial_lib.core.contracts import ContractError

__all__ = [
    "CURSOR_VERSION",
    "MAX_CURSOR_CHARS",
    "CursorCodec",
    "CursorQuery",
    "CursorState",
]

CURSOR_VERSION = 1
#: Longer texts are refused before any decoding (a real cursor is about 120 characters).
MAX_CURSOR_CHARS = 1024
TAG_BYTES = 16
MIN_KEY_BYTES = 16
_ALPHABET = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class CursorQuery:
    """The query a cursor is bound to: changing any of these between pages is refused."""

    repository: str
    pr: int
    filter: str
    page_size: int


@dataclass(frozen=True)
class CursorState:
    """A decoded cursor: its query, the keyset position and the (advisory) offset hint."""

    query: CursorQuery
    after_id: int
    offset_hint: int = 0
    expires_at: int | None = None


class CursorCodec:
    """Encode and verify cursors with one HMAC key.

    ``key``: at least 16 random bytes (e.g. ``secrets.token_bytes(32)``), held by the
    server. ``ttl_s``: lifetime of a cursor in seconds (None: cursors do not expire).
    ``clock``: seconds since the epoch, injectable for tests. ``restart_hint``: the
    sentence the suggestion of every refusal starts with.
    """

    def __init__(
        self,
        key: bytes,
        *,
        ttl_s: float | None = None,
        clock: Callable[[], float] = time.time,
        restart_hint: str = "call the tool again with the same arguments and without 'cursor'"
        " to restart from the first page",
    ) -> None:
        if not isinstance(key, bytes) or len(key) < MIN_KEY_BYTES:
            raise ValueError(f"the cursor key must be at least {MIN_KEY_BYTES} bytes")
        self._key = key
        self.ttl_s = ttl_s
        self.clock = clock
        self.restart_hint = restart_hint

    # ------------------------------------------------------------------ encode

    def encode(self, query: CursorQuery, after_id: int, offset_hint: int = 0) -> str:
        """The opaque cursor continuing ``query`` after the item ``after_id``."""
        payload: dict[str, Any] = {
            "v": CURSOR_VERSION,
            "r": query.repository,
            "p": query.pr,
            "f": query.filter,
            "n": query.page_size,
            "k": after_id,
            "o": max(0, offset_hint),
        }
        if self.ttl_s is not None:
            payload["x"] = int(self.clock() + self.ttl_s)
        raw = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode("utf-8")
        return _b64encode(raw + self._tag(raw))

    # ------------------------------------------------------------------ decode

    def decode(self, token: Any, query: CursorQuery) -> CursorState:
        """Verify ``token`` for ``query``; raise ``ContractError("invalid_cursor")`` if not."""
        if not isinstance(token, str) or not token:
            raise self._refuse(token, "the cursor is empty or not a string", "not_a_string")
        if len(token) > MAX_CURSOR_CHARS or not _ALPHABET.fullmatch(token):
            raise self._refuse(token, "the cursor is not one this tool issued", "alphabet")
        try:
            blob = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise self._refuse(token, "the cursor is not one this tool issued", "base64") from None
        if _b64encode(blob) != token:  # non-canonical: unused bits or length changed
            raise self._refuse(token, "the cursor was altered", "non_canonical")
        raw, tag = blob[:-TAG_BYTES], blob[-TAG_BYTES:]
        if len(blob) <= TAG_BYTES or not hmac.compare_digest(tag, self._tag(raw)):
            raise self._refuse(
                token, "the cursor was altered, truncated or issued by another server", "tag"
            )
        state = self._parse(raw, token)
        expected = {
            "repository": query.repository,
            "pr": query.pr,
            "filter": query.filter,
            "page_size": query.page_size,
        }
        issued = {
            "repository": state.query.repository,
            "pr": state.query.pr,
            "filter": state.query.filter,
            "page_size": state.query.page_size,
        }
        changed = [name for name in expected if expected[name] != issued[name]]
        if changed:
            listed = ", ".join(f"{name} {issued[name]!r}" for name in changed)
            raise self._refuse(
                token,
                f"the cursor belongs to another query (it was issued for {listed});"
                " a cursor continues only the query that produced it",
                "query_mismatch",
                suggestion=f"{self.restart_hint}, or repeat the original arguments with it",
            )
        if state.expires_at is not None and self.clock() >= state.expires_at:
            raise self._refuse(token, "the cursor has expired", "expired")
        return state

    # ------------------------------------------------------------------ internals

    def _tag(self, raw: bytes) -> bytes:
        return hmac.new(self._key, raw, hashlib.sha256).digest()[:TAG_BYTES]

    def _parse(self, raw: bytes, token: str) -> CursorState:
        """The payload of an authentic cursor (still checked: keys may rotate formats)."""
        try:
            payload = json.loads(raw.decode("utf-8"))
            if payload.get("v") != CURSOR_VERSION:
                raise ValueError("version")
            query = CursorQuery(
                _typed(payload["r"], str),
                _typed(payload["p"], int),
                _typed(payload["f"], str),
                _typed(payload["n"], int),
            )
            expiry = payload.get("x")
            return CursorState(
                query,
                _typed(payload["k"], int),
                _typed(payload.get("o", 0), int),
                None if expiry is None else _typed(expiry, int),
            )
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
            raise self._refuse(token, "the cursor has an unknown format", "format") from None

    def _refuse(
        self, token: Any, why: str, reason: str, *, suggestion: str | None = None
    ) -> ContractError:
        return ContractError(
            "invalid_cursor",
            f"{why}; {self.restart_hint}",
            log={"cursor_reason": reason},
            field="cursor",
            received=token,
            suggestion=suggestion or self.restart_hint,
        )


def _typed(value: Any, kind: type) -> Any:
    if type(value) is not kind:
        raise TypeError(f"expected {kind.__name__}")
    return value


def _b64encode(blob: bytes) -> str:
    return base64.urlsafe_b64encode(blob).rstrip(b"=").decode("ascii")
