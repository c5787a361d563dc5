"""Scripted, deterministic faults for the GitHub emulator (chapter 05).

A :class:`FaultPlan` is a script: the n-th request that matches the plan (by default every
``POST .../issues/{n}/comments``, the comment write) gets the n-th step. A step is a
:class:`Fault` or ``None`` (no fault: the request is served normally); after the last step
every request is served normally. Nothing is random, so a test or a notebook replays the
same story every time::

    plan = FaultPlan.parse("commit_then_timeout, ok")
    with serve(build_store(), faults=plan) as handle:
        client = GitHubClient(handle.base_url, timeout_s=0.2, transport=handle.transport())
        ...

The fault kinds, and what the server has done when the client sees the failure:

==========================  ===================================  ==========================
kind                        what the client sees                 the comment was stored?
==========================  ===================================  ==========================
``refuse``                  connection refused (no server saw    no, provably
                            the request)
``unavailable``             503 with ``Retry-After``, before     no (but a 5xx on a write
                            anything is stored                   does not say so)
``rate_limited``            429 with ``Retry-After``             no
``commit_then_timeout``     stored, then the answer is held      yes (if the request was
                                                                 valid: an invalid one is
                                                                 refused, and that answer
                                                                 is held or cut instead)
                            ``delay_s`` (longer than the
                            client's timeout): a real timeout
``commit_then_reset``       stored, then the TCP connection is   yes
                            reset with no answer
``slow_commit``             the server waits ``delay_s``, THEN   yes, but only after the
                            stores and answers                   client has given up
==========================  ===================================  ==========================

A refused connection happens before any server reads a byte, so the emulator cannot refuse
one request and serve the next on the same port. :meth:`FaultPlan.transport` (also
``handle.transport()``) gives an ``httpx`` transport that, for a ``refuse`` step, dials a
local port that is bound but not listening: the kernel answers with a real RST, and the
transport raises ``httpx.ConnectError`` as httpx does for a refused connection. Without
that transport a ``refuse`` step cannot be honoured, and the server answers 500 with a
message that says so.

:attr:`FaultPlan.history` records every matching request: its ordinal, method, path and the
step it got.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

import httpx

__all__ = [
    "COMMENT_WRITE_PATH",
    "FAULT_KINDS",
    "Fault",
    "FaultKind",
    "FaultPlan",
    "FaultStep",
    "RefusingTransport",
]

FaultKind = Literal[
    "refuse",
    "unavailable",
    "rate_limited",
    "commit_then_timeout",
    "commit_then_reset",
    "slow_commit",
]
FAULT_KINDS: tuple[FaultKind, ...] = get_args(FaultKind)
#: The kinds after which the write has happened (or will happen) on the server.
STORING_KINDS = frozenset({"commit_then_timeout", "commit_then_reset", "slow_commit"})
#: The path of the comment write, ``/repos/{owner}/{name}/issues/{n}/comments`` (or
#: ``/repositories/{id}/...``): the default target of a plan.
COMMENT_WRITE_PATH = r"/issues/\d+/comments$"


@dataclass(frozen=True)
class Fault:
    """One scripted fault.

    - ``kind``: see the module table;
    - ``retry_after_s``: the ``Retry-After`` header (whole seconds) of ``unavailable`` and
      ``rate_limited``;
    - ``delay_s``: how long ``commit_then_timeout`` holds the answer and ``slow_commit``
      waits before storing; make it longer than the client's timeout.
    """

    kind: FaultKind
    retry_after_s: int = 1
    delay_s: float = 0.5

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; known: {', '.join(FAULT_KINDS)}")
        if isinstance(self.retry_after_s, bool) or not isinstance(self.retry_after_s, int):
            raise ValueError(f"retry_after_s must be whole seconds, got {self.retry_after_s!r}")
        if self.retry_after_s < 0:
            raise ValueError(f"retry_after_s must be >= 0, got {self.retry_after_s}")
        if isinstance(self.delay_s, bool) or not isinstance(self.delay_s, (int, float)):
            raise ValueError(f"delay_s must be a number of seconds, got {self.delay_s!r}")
        if not 0 <= self.delay_s <= 60:
            raise ValueError(f"delay_s must be between 0 and 60 seconds, got {self.delay_s!r}")

    @property
    def stores(self) -> bool:
        """Whether the server stores a valid write despite the failure the client sees."""
        return self.kind in STORING_KINDS


FaultStep = Fault | None


@dataclass(frozen=True)
class Hit:
    """One matching request: its ordinal (1-based), method, path and the step it got."""

    ordinal: int
    method: str
    path: str
    fault: FaultKind | None


_STEP = re.compile(r"(?P<kind>[a-z_]+)(?::(?P<value>[0-9]+(?:\.[0-9]+)?))?")
#: The kinds that take a number in a plan's text, and what it sets.
_NUMBER_OF = {
    "unavailable": "retry_after_s",
    "rate_limited": "retry_after_s",
    "commit_then_timeout": "delay_s",
    "slow_commit": "delay_s",
}


class FaultPlan:
    """A script of faults for successive matching requests; safe to share between threads.

    ``steps``: each a :class:`Fault`, a kind name (``"refuse"``), or ``None``/``"ok"`` for a
    request served normally. ``method`` and ``path`` (a regular expression searched in the
    URL path) choose which requests consume steps; others are never touched.
    """

    def __init__(
        self,
        steps: Iterable[Fault | str | None] = (),
        *,
        method: str = "POST",
        path: str = COMMENT_WRITE_PATH,
    ) -> None:
        self._steps: list[FaultStep] = [_as_step(step) for step in steps]
        self.method = method.upper()
        self.path = re.compile(path)
        self._lock = threading.Lock()
        self._next = 0
        self.history: list[Hit] = []

    @classmethod
    def parse(cls, text: str, **kwargs: str) -> FaultPlan:
        """A plan from text: steps separated by commas, e.g. ``"unavailable:2, ok, refuse"``.

        ``kind:N`` sets ``retry_after_s`` for ``unavailable``/``rate_limited`` and ``delay_s``
        for ``commit_then_timeout``/``slow_commit``.
        """
        steps: list[Fault | None] = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            match = _STEP.fullmatch(part)
            if match is None:
                raise ValueError(f"cannot read fault step {part!r}: write e.g. 'unavailable:2'")
            kind, value = match["kind"], match["value"]
            if kind != "ok" and kind not in FAULT_KINDS:
                known = ", ".join(("ok", *FAULT_KINDS))
                raise ValueError(f"unknown fault kind {kind!r}; known: {known}")
            if value is not None and kind not in _NUMBER_OF:
                raise ValueError(f"fault step {part!r}: {kind!r} takes no number")
            if kind == "ok":
                steps.append(None)
            elif value is None:
                steps.append(Fault(kind))  # type: ignore[arg-type]
            elif _NUMBER_OF[kind] == "retry_after_s":
                if "." in value:
                    raise ValueError(f"fault step {part!r}: Retry-After is whole seconds")
                steps.append(Fault(kind, retry_after_s=int(value)))  # type: ignore[arg-type]
            else:
                steps.append(Fault(kind, delay_s=float(value)))  # type: ignore[arg-type]
        return cls(steps, **kwargs)

    @property
    def steps(self) -> tuple[FaultStep, ...]:
        """The whole script."""
        return tuple(self._steps)

    @property
    def remaining(self) -> int:
        """Steps not yet consumed."""
        with self._lock:
            return len(self._steps) - self._next

    def pending(self, kind: FaultKind) -> bool:
        """Whether a step of ``kind`` is still to come (steps are only ever consumed, so
        False stays False)."""
        with self._lock:
            return any(step is not None and step.kind == kind for step in self._steps[self._next :])

    def matches(self, method: str, path: str) -> bool:
        """Whether a request consumes a step."""
        return method.upper() == self.method and self.path.search(path) is not None

    def take(self, method: str, path: str) -> FaultStep:
        """The step for this request (server side); ``None`` when not matching or exhausted."""
        if not self.matches(method, path):
            return None
        with self._lock:
            return self._consume(method, path)

    def take_refusal(self, method: str, path: str) -> bool:
        """Consume the next step if it is ``refuse`` (client side); else leave it."""
        if not self.matches(method, path):
            return False
        with self._lock:
            step = self._peek()
            if step is None or step.kind != "refuse":
                return False
            self._consume(method, path)
            return True

    def _peek(self) -> FaultStep:
        return self._steps[self._next] if self._next < len(self._steps) else None

    def _consume(self, method: str, path: str) -> FaultStep:
        """Take the next step (``None`` once exhausted) and record the hit; lock held."""
        step = self._peek()
        self._next = min(self._next + 1, len(self._steps))
        kind = step.kind if step is not None else None
        self.history.append(Hit(len(self.history) + 1, method.upper(), path, kind))
        return step

    def transport(self) -> RefusingTransport:
        """An httpx transport that honours this plan's ``refuse`` steps (see module doc)."""
        return RefusingTransport(self)

    def __repr__(self) -> str:
        names = ", ".join(step.kind if step else "ok" for step in self._steps)
        return f"FaultPlan([{names}], next={self._next})"


def _as_step(step: Fault | str | None) -> FaultStep:
    if step is None or isinstance(step, Fault):
        return step
    if step == "ok":
        return None
    return Fault(step)  # type: ignore[arg-type]


class RefusingTransport(httpx.BaseTransport):
    """Sends requests through ``httpx.HTTPTransport``, except that a request whose plan step
    is ``refuse`` is dialled to a bound, non-listening local port: a real refused connection,
    raised as ``httpx.ConnectError`` exactly as httpx reports one.

    For the emulator only: it speaks plain HTTP on loopback, so an ``https`` URL is refused
    (no certificates are loaded, which also keeps creating a transport cheap).
    """

    def __init__(self, plan: FaultPlan, inner: httpx.BaseTransport | None = None) -> None:
        self.plan = plan
        self.inner = inner or httpx.HTTPTransport(verify=False)
        # Bound but never listening: the kernel refuses every connection to it, and keeping
        # it bound stops anyone else from taking the port meanwhile.
        self._closed_port = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._closed_port.bind(("127.0.0.1", 0))
        self.refused_port: int = self._closed_port.getsockname()[1]

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Refuse or forward one request."""
        if request.url.scheme != "http":
            raise ValueError("RefusingTransport is for the plain-HTTP loopback emulator only")
        if self.plan.take_refusal(request.method, request.url.path):
            try:
                socket.create_connection(("127.0.0.1", self.refused_port), timeout=5).close()
            except OSError as exc:  # ECONNREFUSED, from the kernel
                raise httpx.ConnectError(str(exc), request=request) from exc
            raise AssertionError("a bound, non-listening port accepted a connection")
        return self.inner.handle_request(request)

    def close(self) -> None:
        """Close the forwarding transport and release the refusing port."""
        self.inner.close()
        self._closed_port.close()
