"""A GitHub REST (and minimal GraphQL) emulator over real HTTP on 127.0.0.1.

    with serve(build_store(), token="t0ken") as handle:
        httpx.get(f"{handle.base_url}/repos/example/shop/pulls/128/comments",
                  headers={"Authorization": "Bearer t0ken"})

Standard library only (``http.server.ThreadingHTTPServer`` in a daemon thread), one free port
per :func:`serve`, no logging to stderr, clean shutdown when the ``with`` block ends. The
shapes follow GitHub's REST API version 2022-11-28: every object has each field GitHub's
published description requires (tests/test_emulator_conformance.py validates every shape
against schemas extracted from it by tools/extract_github_schemas.py), so strict clients
such as githubkit work unchanged, and so does PyGithub.

REST endpoints (``{repo}`` is ``repos/{owner}/{name}`` or ``repositories/{id}``, as in the
``Link`` headers of real GitHub)::

    GET  /{repo}                              a repository
    GET  /{repo}/pulls/{n}                    a pull request
    GET  /{repo}/pulls/{n}/comments           review comments, paged
    GET  /{repo}/pulls/comments/{id}          one review comment
    PATCH /{repo}/pulls/comments/{id}         {"body": ...} -> 200, the edited comment
    DELETE /{repo}/pulls/comments/{id}        -> 204 (leaves its thread; id never reused)
    PUT  /{repo}/pulls/{n}/merge              -> 200 {"sha", "merged", "message"}; 405 if
                                              not mergeable (merged, closed), 409 if "sha"
                                              is not the head, 422 bad "merge_method"
    GET  /{repo}/issues/{n}                   the PR as an issue
    GET  /{repo}/issues/{n}/comments          conversation comments, paged
    POST /{repo}/issues/{n}/comments          {"body": ...} -> 201 + Location
    GET  /{repo}/issues/comments/{id}         one conversation comment
    PATCH /{repo}/issues/comments/{id}        {"body": ...} -> 200, the edited comment
    DELETE /{repo}/issues/comments/{id}       -> 204
    GET  /users/{login}                       an account of the store (else 404)
    GET  /{owner}/{name}/pull/{n}, /{login}   tiny HTML pages (the ``html_url`` fields)
    POST /graphql                             review threads of a PR (below)

Chapter 05 adds two switches to :func:`serve`, both off by default (GitHub-faithful):

- ``faults=FaultPlan(...)``: scripted failures of chosen requests (connection refused, 503
  or 429 with ``Retry-After``, commit-then-timeout, commit-then-reset, slow commit); see
  :mod:`tutorial_lib.emulator.faults`. Use ``handle.transport()`` in the client so that ``refuse``
  steps are real refused connections.
- ``idempotency="optional"`` (or ``"required"``): the comment write honours an
  ``Idempotency-Key`` header (replay, 409 while in flight, 422 on another payload; see
  :mod:`tutorial_lib.emulator.idempotency`). Real GitHub has no such header: with the default
  ``"off"`` the header is ignored and a retried POST makes a second comment, as on GitHub.
  The key table belongs to the store, as a real service keeps it with its data: a second
  :func:`serve` on the same store replays the keys the first one completed.

``handle.requests`` lists every request the server answered (method, path, status, fault).

Lists take ``page`` (default 1) and ``per_page`` (default 30, capped at 100), are ordered by
ascending id and carry a ``Link`` header (``next``/``prev``/``first``/``last``, every other
query parameter kept); a page past the end is ``[]``. Both lists take ``since`` (ISO 8601:
only comments updated at or after it). Review comments also take ``sort`` (``created`` or
``updated``, ties by id) and ``direction`` (``asc`` or ``desc``; ignored without ``sort``,
as documented; ``asc`` when absent, the emulator's choice: the description names no
default). An invalid ``since``, ``sort`` or ``direction`` is a 422.

Where GitHub's description and the real service disagree, the emulator does what the
service does. Every such choice is a row of this table, and the conformance test accepts
exactly these departures from the description (each row must still be needed)::

    | schema                      | field    | description | GitHub and the emulator       |
    |-----------------------------|----------|-------------|-------------------------------|
    | pull-request-review-comment | line     | integer     | null on an outdated comment   |
    | pull-request-review-comment | position | integer     | null on an outdated comment   |

Every response carries ``X-RateLimit-*`` headers; the count is per server, and a limit is
enforced (403) only when ``serve(..., rate_limit=N)`` is given.

GraphQL: REST has no "resolved" flag; GitHub serves it through GraphQL, and so does this
emulator. It understands exactly one query shape, :data:`REVIEW_THREADS_QUERY_SHAPE` (review
threads of one PR), and any query of that shape asking for fewer of its fields; anything else
gets a GraphQL ``{"errors": [...]}`` answer.

**Without sockets.** :func:`serve_in_process` is the same emulator with no server at all:
its :class:`InProcessTransport` hands each request of an ``httpx`` client straight to the
request handling above, fault plan included (a refused connection, a 503, a commit whose
answer never comes...), in the calling process. It is for tests that run thousands of
scripted writes; the notebooks and the real-HTTP tests use :func:`serve`.

This module is the emulator's public face: :func:`serve`, :func:`serve_in_process`, their
handles and every name in ``__all__`` are imported from here. The work is done by its
modules, one concern each: :mod:`~tutorial_lib.emulator.wire` (the socket server, HTTP
framing, the answers to malformed requests, the in-process transport),
:mod:`~tutorial_lib.emulator.app` (counting, authentication, fault steps, the served
requests), :mod:`~tutorial_lib.emulator.rest` (the routes and their handlers, the
idempotency keys of the comment write), :mod:`~tutorial_lib.emulator.graphql` (review
threads), :mod:`~tutorial_lib.emulator.shapes` (GitHub's JSON) and
:mod:`~tutorial_lib.emulator.protocol` (the request, the answer and the refusals they
share).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from tutorial_lib.emulator.app import Emulator, ServedRequest, check_settings
from tutorial_lib.emulator.faults import FaultPlan, RefusingTransport
from tutorial_lib.emulator.fixtures import GitHubStore
from tutorial_lib.emulator.graphql import REVIEW_THREADS_QUERY_SHAPE
from tutorial_lib.emulator.idempotency import DEFAULT_WINDOW_S, IdempotencyMode
from tutorial_lib.emulator.wire import (
    DEFAULT_DRAIN_TIMEOUT_S,
    DEFAULT_IDLE_TIMEOUT_S,
    LATE_REQUEST_TIMEOUT_S,
    InProcessServer,
    InProcessTransport,
    Server,
)

__all__ = [
    "IN_PROCESS_BASE_URL",
    "REVIEW_THREADS_QUERY_SHAPE",
    "InProcessHandle",
    "InProcessTransport",
    "ServedRequest",
    "ServiceHandle",
    "serve",
    "serve_in_process",
]

#: Where :func:`serve_in_process` says it lives: the ``.invalid`` top-level domain never
#: resolves, so a client given this URL without the in-process transport fails at once.
IN_PROCESS_BASE_URL = "http://github-emulator.invalid"


@dataclass(frozen=True)
class ServiceHandle:
    """What :func:`serve` yields: where the emulator listens and what it serves."""

    base_url: str
    port: int
    store: GitHubStore
    thread: threading.Thread
    faults: FaultPlan | None = None
    requests: list[ServedRequest] = field(default_factory=list)

    def transport(self) -> RefusingTransport | None:
        """The httpx transport a client needs for the plan's ``refuse`` steps (or None)."""
        return self.faults.transport() if self.faults is not None else None


@contextmanager
def serve(
    store: GitHubStore,
    *,
    token: str | None = None,
    rate_limit: int | None = None,
    faults: FaultPlan | None = None,
    idempotency: IdempotencyMode = "off",
    idempotency_window_s: float = DEFAULT_WINDOW_S,
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    drain_timeout_s: float = DEFAULT_DRAIN_TIMEOUT_S,
) -> Iterator[ServiceHandle]:
    """Serve ``store`` on a free port of 127.0.0.1 until the ``with`` block ends.

    ``token``: when given, every request needs ``Authorization: token <token>`` (or
    ``Bearer``), else 401. ``rate_limit``: when given, requests beyond it get GitHub's 403;
    otherwise the headers count down from 5000 and nothing is refused.

    ``faults``: a :class:`~tutorial_lib.emulator.faults.FaultPlan` applied to matching requests
    (clients pass ``transport=handle.transport()``). ``idempotency``: ``"off"`` (GitHub:
    the ``Idempotency-Key`` header is ignored), ``"optional"`` (honoured when sent) or
    ``"required"`` (a comment write without it gets 400); keys are kept
    ``idempotency_window_s`` seconds after completion, in the store's key table
    (:meth:`~tutorial_lib.emulator.fixtures.GitHubStore.idempotency_keys`): a later serve
    of the same store replays them. That table has one window, set by the first emulator
    that honoured keys on the store; another ``idempotency_window_s`` on the same store is
    a ValueError (with ``"off"`` the window is not used, and not checked against it).

    ``idle_timeout_s``: each request must arrive in full within this many seconds of the
    connection's previous answer (or of its opening); else the connection is closed (a body
    cut short gets 408), so a slow or silent client never holds a thread for long.

    Bad requests get GitHub-shaped 4xx answers, never a dropped connection: a broken
    ``Content-Length`` or chunked framing 400, a body over 1 MiB 413, JSON nested deeper
    than 100 or with a lone surrogate 400, a comment over 65,536 characters 422.

    On exit the listening socket is closed, open connections are cut (a keep-alive one, a
    client still sending), requests still running get up to ``drain_timeout_s`` seconds to
    finish (a slow commit lands, as at the end of :func:`serve_in_process`), and any write
    still running then is cancelled: nothing is stored after the block is over.
    """
    check_settings(store, idempotency, idempotency_window_s)  # before any socket is opened
    for name, value in (("idle_timeout_s", idle_timeout_s), ("drain_timeout_s", drain_timeout_s)):
        if not value > 0:
            raise ValueError(f"{name} must be > 0 seconds, got {value!r}")

    def emulator_at(base_url: str) -> Emulator:
        return Emulator(
            store,
            token=token,
            rate_limit=rate_limit,
            faults=faults,
            idempotency=idempotency,
            idempotency_window_s=idempotency_window_s,
            base_url=base_url,
        )

    server = Server(emulator_at, idle_timeout_s)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    emulator = server.emulator
    try:
        yield ServiceHandle(
            emulator.base_url, server.server_address[1], store, thread, faults, emulator.served
        )
    finally:
        server.stop(drain_timeout_s)
        thread.join(timeout=5)


@dataclass(frozen=True)
class InProcessHandle:
    """What :func:`serve_in_process` yields: the same view as :class:`ServiceHandle`
    (``base_url``, ``store``, ``faults``, ``requests``), without a port or a thread."""

    base_url: str
    store: GitHubStore
    faults: FaultPlan | None
    requests: list[ServedRequest]
    server: InProcessServer = field(repr=False)

    def transport(self) -> InProcessTransport:
        """The transport every client of this emulator needs (it is the only way in)."""
        return InProcessTransport(self.server)

    def finish_late_requests(self, timeout_s: float = LATE_REQUEST_TIMEOUT_S) -> None:
        """Wait until every request still running (a slow commit the client gave up on)
        has landed, as the end of :func:`serve_in_process` does; re-raise a late error."""
        self.server.finish_running(timeout_s)

    def forget_idempotency_keys(self) -> None:
        """Lose the key table, as a service that loses it does (a wiped key store, a
        failover to a replica without it): every key is forgotten, the store keeps its
        comments, and a keyed resend after this is a new request to the server. (A restart
        alone forgets nothing: the table lives with the store; see
        :meth:`~tutorial_lib.emulator.fixtures.GitHubStore.forget_idempotency_keys`.)"""
        self.store.forget_idempotency_keys()


@contextmanager
def serve_in_process(
    store: GitHubStore,
    *,
    token: str | None = None,
    rate_limit: int | None = None,
    faults: FaultPlan | None = None,
    idempotency: IdempotencyMode = "off",
    idempotency_window_s: float = DEFAULT_WINDOW_S,
    base_url: str = IN_PROCESS_BASE_URL,
) -> Iterator[InProcessHandle]:
    """The emulator of :func:`serve`, same options, reached without sockets.

    Clients pass ``transport=handle.transport()`` (an :class:`InProcessTransport`) and
    ``handle.base_url``. Every request runs the same handling as over HTTP; what differs is
    listed in :class:`InProcessTransport`.
    """
    emulator = Emulator(
        store,
        token=token,
        rate_limit=rate_limit,
        faults=faults,
        idempotency=idempotency,
        idempotency_window_s=idempotency_window_s,
        base_url=base_url,
    )
    server = InProcessServer(emulator)
    try:
        yield InProcessHandle(emulator.base_url, store, faults, emulator.served, server)
    finally:
        # A slow commit still running lands (or fails loudly) before the block is over:
        # nothing changes the store after it, and a late emulator bug is not lost.
        try:
            server.finish_running(timeout_s=LATE_REQUEST_TIMEOUT_S)
        finally:
            emulator.commits.close()  # even one that did not finish in time never stores
