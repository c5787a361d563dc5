"""The emulator as an application: one request in, one answer out, whatever carries them.

:class:`Emulator` is what one running emulator knows and counts: its store, its switches
(token, rate limit, fault plan, idempotency mode), the requests it served. Its
:meth:`Emulator.answer` runs every request through the same steps, in this order::

    count it (403 beyond a rate limit) -> authenticate (401) -> take its fault step
    (``refuse`` / ``unavailable`` / ``rate_limited`` stop it here) -> the REST route

and returns an :class:`~tutorial_lib.emulator.protocol.Answer` (a refusal is answered
GitHub-style; a bug of the emulator is raised). The carrier (the socket server or the
in-process transport of :mod:`tutorial_lib.emulator.wire`) reads the request, writes the
answer with :meth:`Emulator.response_headers`, applies the fault step's effect on the
connection (a reset, an answer held back) and :meth:`Emulator.record`\\ s what it did.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from tutorial_lib.emulator.faults import Fault, FaultPlan
from tutorial_lib.emulator.fixtures import GitHubStore
from tutorial_lib.emulator.idempotency import IdempotencyMode, check_idempotency_mode
from tutorial_lib.emulator.protocol import DOCS, Answer, ApiError, Request
from tutorial_lib.emulator.rest import CommitGate, Rest

__all__ = ["DEFAULT_RATE_LIMIT", "Emulator", "ServedRequest", "check_settings"]

#: The ``X-RateLimit-Limit`` a server without a rate limit announces (GitHub's, per hour).
DEFAULT_RATE_LIMIT = 5000


@dataclass(frozen=True)
class ServedRequest:
    """One request the server answered (or cut off): for counting and for the notebooks."""

    method: str
    path: str
    status: int | None  # None: no answer was sent (the connection was reset)
    fault: str | None
    idempotency_key: str | None
    replayed: bool


def check_settings(store: GitHubStore, idempotency: str, idempotency_window_s: float) -> None:
    """Refuse settings no emulator can run with (ValueError), before any socket is opened.

    With keys honoured, this also takes the store's key table with this window (see
    :meth:`~tutorial_lib.emulator.fixtures.GitHubStore.idempotency_keys`): a store whose
    table keeps keys for another window is refused here.
    """
    check_idempotency_mode(idempotency)
    if not idempotency_window_s > 0:
        raise ValueError(f"idempotency_window_s must be > 0 seconds, got {idempotency_window_s!r}")
    if idempotency != "off":
        store.idempotency_keys(idempotency_window_s)


class Emulator:
    """What the emulator knows and counts, whatever carries its requests (a socket server
    or the in-process transport): the store, the switches, the served requests."""

    def __init__(
        self,
        store: GitHubStore,
        *,
        token: str | None,
        rate_limit: int | None,
        faults: FaultPlan | None,
        idempotency: IdempotencyMode,
        idempotency_window_s: float,
        base_url: str,
    ) -> None:
        check_settings(store, idempotency, idempotency_window_s)
        self.store = store
        self.token = token
        self.rate_limit = rate_limit
        self.faults = faults
        self.idempotency = idempotency
        self.served: list[ServedRequest] = []
        self.base_url = base_url
        #: Closed when the server stops: no write lands after it.
        self.commits = CommitGate()
        self.rest = Rest(store, base_url, idempotency, idempotency_window_s, self.commits)
        self.reset_at = int(time.time()) + 3600
        self.used = 0
        self.counter_lock = threading.Lock()

    def answer(self, request: Request) -> Answer:
        """The answer to ``request`` (whose body has been read); see the module docstring."""
        try:
            self._count(request)
            self._authenticate(request)
            if self.faults is not None:
                request.fault = self.faults.take(request.method, request.path)
                _refuse_for(request.fault)
            return self.rest.handle(request)
        except ApiError as error:
            return error.answer()

    def response_headers(self, request: Request) -> dict[str, str]:
        """The headers every answer carries: GitHub's rate-limit headers and API version."""
        limit = self.rate_limit or DEFAULT_RATE_LIMIT
        return {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(max(0, limit - request.used)),
            "X-RateLimit-Reset": str(self.reset_at),
            "X-RateLimit-Used": str(min(request.used, limit)),
            "X-RateLimit-Resource": request.resource,
            "X-GitHub-Api-Version-Selected": "2022-11-28",
        }

    def record(self, request: Request, status: int | None) -> None:
        """Note that ``request`` was answered with ``status`` (None: cut off, no answer)."""
        fault = request.fault.kind if request.fault is not None else None
        served = ServedRequest(
            request.method, request.path, status, fault, request.idempotency_key, request.replayed
        )
        with self.counter_lock:
            self.served.append(served)

    def _count(self, request: Request) -> None:
        with self.counter_lock:
            self.used += 1
            request.used = self.used
        limit = self.rate_limit
        if limit is not None and request.used > limit:
            viewer_id = self.store.viewer.id
            raise ApiError(
                403,
                {
                    "message": f"API rate limit exceeded for user ID {viewer_id}.",
                    "documentation_url": DOCS + "/overview/rate-limits-for-the-rest-api",
                    "status": "403",
                },
            )

    def _authenticate(self, request: Request) -> None:
        expected = self.token
        if expected is None:
            return
        header = request.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() in ("token", "bearer") and value.strip() == expected:
            return
        message = "Bad credentials" if header else "Requires authentication"
        raise ApiError(401, {"message": message, "documentation_url": DOCS, "status": "401"})


def _refuse_for(fault: Fault | None) -> None:
    """Faults that stop a request before anything is done."""
    if fault is None:
        return
    if fault.kind == "refuse":
        raise ApiError(
            500,
            {
                "message": "fault plan: a 'refuse' step can only be injected by the"
                " client transport (GitHubClient(..., transport=handle.transport()))",
                "status": "500",
            },
        )
    if fault.kind == "unavailable":
        raise ApiError(
            503,
            {"message": "Service Unavailable", "status": "503"},
            {"Retry-After": str(fault.retry_after_s)},
        )
    if fault.kind == "rate_limited":
        raise ApiError(
            429,
            {
                "message": "You have exceeded a secondary rate limit. Please wait a few"
                " minutes before you try again.",
                "documentation_url": DOCS + "/overview/rate-limits-for-the-rest-api",
                "status": "429",
            },
            {"Retry-After": str(fault.retry_after_s)},
        )
