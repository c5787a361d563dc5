"""The host: the one object that owns the road, and the only way to call a tool.

An agent framework sits between the model and the tools: it receives the model's tool
call, runs it, and hands the result back. Here that is a :class:`Host`, built once per
task from:

- the **registry** (the tools, each declared once, context bound);
- the operator's **access declarations** (:data:`~tutorial_lib.core.authorization.AccessMap`:
  each tool's action class and resource) and the user's **task scope**
  (:class:`~tutorial_lib.core.authorization.TaskScope`);
- the **confirmation** rules: every tool the operator declared as ``write``, ``delete`` or
  ``send`` needs the user's approval before it runs, asked with the tool's own
  ``preview`` (or a plain question listing the arguments); ``confirm`` overrides that per
  tool (another question, or ``None``: approved in advance for this task);
- an **answerer** (optional): who answers a question on the spot (a script, a terminal);
  without one, the call ends with ``confirmation_required`` and its ``error.confirmation``
  names the request, for a front end (a widget) that answers later and then asks the host
  to :meth:`~Host.run_approved`;
- **composite tools** (``ToolSpec.composes``): their inner calls are calls of this host,
  authorized and logged like the model's;
- the **log** (one :class:`~tutorial_lib.core.contracts.LogRecord` per trip along the
  road: a call answered on the spot makes two, the question and the approved run; a
  composite's inner calls make their own) and the **clock**.

:meth:`Host.call` sends a call along :func:`~tutorial_lib.core.road.travel` with the
host's stations, in the road's order (find the tool, schema, authorization on what the
arguments name, business check, re-check of what it resolved, confirmation, execution,
envelope), and logs it. Nothing else assembles stations. An error never proposes a next
call the host would refuse (:meth:`Host.refusal_of`): a ``next_tool`` outside the task's
grants or scope is taken out and the suggestion says why, so no error leads into a refusal.

Guards are not optional: a host whose registry holds a tool that is not read-only needs
an access map and a scope, or it refuses to be built. A chapter that shows what goes
wrong without them says so with ``unguarded=True`` (easy to find with grep). An access
map that names a tool the registry does not have is refused too (a misspelt name would
otherwise leave the real tool undeclared, hence refused, with nobody noticing):
:attr:`Host.undeclared` lists the registered tools it leaves out.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeVar, cast

from tutorial_lib.core.authorization import (
    AccessMap,
    TaskScope,
    authorization_stations,
    authorize,
)
from tutorial_lib.core.confirmation import (
    ConfirmationFlow,
    ConfirmationPolicy,
    Question,
    confirmation_station,
    plain_question,
    thawed,
)
from tutorial_lib.core.contracts import (
    ContractError,
    Envelope,
    HostConfigError,
    LogRecord,
    failure,
)
from tutorial_lib.core.road import (
    Arrival,
    PendingCall,
    Station,
    log_arrival,
    log_bug,
    travel,
)
from tutorial_lib.core.tools import Registry

__all__ = ["CONFIRMED_CLASSES", "Answerer", "Host", "HostState"]

#: The action classes whose calls need the user's approval by default.
CONFIRMED_CLASSES: frozenset[str] = frozenset({"write", "delete", "send"})

#: ``answerer(flow, request_id)``: answer the question (``flow.answer(...)``) now, or leave
#: it unanswered. :func:`~tutorial_lib.core.confirmation.ask_in_terminal` is one.
Answerer = Callable[[ConfirmationFlow, str], object]

T = TypeVar("T")


class HostState:
    """What the tools of one host share for the host's lifetime, by name: e.g. the one
    write ledger of every GitHub write context (single flight across them). Thread-safe.

    A tool's context takes part by offering ``with_host_state(state) -> context``; the
    host calls it once, when it is built, and binds the context it returns.
    """

    def __init__(self, scope: TaskScope | None = None) -> None:
        #: The user's task scope (None for a host without one): a tool's context may take
        #: from it what the scope decides for every tool (e.g. the one secret policy).
        self.scope = scope
        self._lock = threading.Lock()
        self._values: dict[str, Any] = {}

    def get(self, name: str, factory: Callable[[], T]) -> T:
        """The value called ``name``, made with ``factory()`` the first time."""
        with self._lock:
            if name not in self._values:
                self._values[name] = factory()
            return cast(T, self._values[name])


class Host:
    """The road's owner for one task: registry, guards, confirmation, log and clock.

    >>> host = Host(registry)                       # doctest: +SKIP
    >>> host.call("read_lines", {"path": "notes.txt", "start": 1, "count": 5})  # doctest: +SKIP

    - ``access`` and ``scope``: the operator's declarations and the user's task scope;
      both or neither. Required when any registered tool is not read-only, unless
      ``unguarded=True`` (a lesson showing the failure on purpose);
    - ``confirm``: per-tool overrides of the confirmation rule (tool name -> policy, or
      ``None`` for "approved in advance for this task"); names must be registered;
    - ``answerer``: answers questions on the spot (see :data:`Answerer`);
    - ``extra_stations``: further checks of the operator's (e.g. an output check on text
      a tool posts), placed in their slots after the host's own;
    - ``log``: the list that receives one record per call (a new one by default);
    - ``clock``: seconds (inject a :class:`~tutorial_lib.core.road.StepClock` or a manual
      clock for deterministic outputs); ``session``: the confirmation flow's session id;
      ``ttl_s``: how long an approval stays valid;
    - ``observer(name, args)``: told of every call as its log record is written (the
      model's, the host's own, a composite's inner calls), e.g. for an audit that needs
      the arguments the log keeps only as a digest.
    """

    def __init__(
        self,
        registry: Registry,
        *,
        access: AccessMap | None = None,
        scope: TaskScope | None = None,
        confirm: Mapping[str, ConfirmationPolicy | None] | None = None,
        answerer: Answerer | None = None,
        extra_stations: Sequence[Station] = (),
        log: list[LogRecord] | None = None,
        clock: Callable[[], float] = time.perf_counter,
        session: str = "session",
        ttl_s: float = 300.0,
        unguarded: bool = False,
        observer: Callable[[Any, Any], object] | None = None,
    ) -> None:
        if (access is None) != (scope is None):
            raise HostConfigError("give both access and scope, or neither")
        writers = [spec.name for spec in registry if not spec.annotations.read_only]
        if access is None and writers and not unguarded:
            raise HostConfigError(
                f"tools that are not read-only ({', '.join(writers)}) need an authorization"
                " policy: pass access= and scope= (or unguarded=True to show the failure)"
            )
        if access is not None:
            unknown = sorted(set(access) - set(registry.names))
            if unknown:
                raise HostConfigError(
                    f"the access map names tools the registry does not have: {unknown};"
                    f" registered: {registry.names}"
                )
        overrides = dict(confirm or {})
        unknown_overrides = sorted(set(overrides) - set(registry.names))
        if unknown_overrides:
            raise HostConfigError(f"confirm names unregistered tools: {unknown_overrides}")
        #: What the tools of this host share (the write ledger, for one).
        self.shared = HostState(scope)
        self.registry = self._wire(registry)
        self.access: AccessMap | None = None if access is None else MappingProxyType(dict(access))
        self.scope = scope
        self.unguarded = unguarded
        self.log: list[LogRecord] = [] if log is None else log
        self.clock = clock
        self.answerer = answerer
        self._observer = observer
        self.flow = ConfirmationFlow(session, clock=clock, ttl_s=ttl_s)
        self._confirm: Mapping[str, ConfirmationPolicy | None] = MappingProxyType(overrides)
        self._stations = self._assemble(extra_stations)

    # -- what the host knows

    @property
    def undeclared(self) -> tuple[str, ...]:
        """Registered tools the access map leaves out (every call to them is refused)."""
        if self.access is None:
            return ()
        return tuple(name for name in self.registry.names if name not in self.access)

    @property
    def stations(self) -> tuple[Station, ...]:
        """The host's stations, in road order (read-only: built once, with the host)."""
        return self._stations

    def action_class(self, name: str) -> str | None:
        """The action class the operator declared for tool ``name`` (None: undeclared)."""
        if self.access is None or name not in self.access:
            return None
        return self.access[name].action

    # -- calling

    def call(self, name: Any, args: Any, *, answerer: Answerer | None = None) -> Envelope:
        """Call tool ``name`` with the model's raw ``args``; return the envelope it sees.

        With an answerer (``answerer`` for this call, else the host's own), a question is
        answered on the spot: an accepted call then runs once (the user's choice filled
        in); a declined or cancelled one does not, and the result says so. A front end
        that holds the user's answer to one question (an MCP elicitation) passes it as
        this call's ``answerer``. Bugs (:class:`~tutorial_lib.core.road.RoadBug`, or what
        a tool's step raised) are logged as ``"bug"`` and raised, never turned into results.
        """
        arrival = self._travel(name, args)
        request_id = _pending_request(arrival)
        answer = answerer or self.answerer
        if request_id is None or answer is None:
            return self._no_dead_end(_result(arrival))
        answer(self.flow, request_id)
        request = self.flow.request(request_id)
        if request.state == "accepted":
            return self.run_approved(request_id)
        return self._unanswered(name, args, request_id, request.state)

    def run_approved(self, request_id: str) -> Envelope:
        """Run the call the user accepted in ``request_id``, through the whole road (the
        approval is used once: a second run is ``approval_invalid``)."""
        request = self.flow.request(request_id)
        arguments = thawed(request.approved_arguments or request.arguments)
        return self._no_dead_end(_result(self._travel(request.tool, arguments)))

    def refusal_of(self, name: str, arguments: Mapping[str, Any]) -> ContractError | None:
        """The ``permission_denied`` this host's authorization would give a call of ``name``
        with ``arguments`` (on what they name, no I/O), or None when it would let it pass."""
        if self.access is None or self.scope is None or name not in self.registry:
            return None
        call = PendingCall(self.registry.get(name), MappingProxyType(dict(arguments)))
        try:
            authorize(self.scope, self.access, call)
        except ContractError as refused:
            return refused
        return None

    def _no_dead_end(self, envelope: Envelope) -> Envelope:
        """An error never proposes a next call this host would refuse: a ``next_tool`` the
        task's grants or scope do not allow is taken out, and the suggestion says why, so
        the model asks the user instead of walking into a refusal."""
        error: Any = envelope.get("error") if isinstance(envelope, dict) else None
        if not isinstance(error, dict):
            return envelope
        proposed = error.get("next_tool")
        if not isinstance(proposed, dict):
            return envelope
        refused = self.refusal_of(proposed["name"], proposed.get("arguments", {}))
        if refused is None:
            return envelope
        kept = {key: value for key, value in error.items() if key != "next_tool"}
        before = kept.get("suggestion", "")
        kept["suggestion"] = (
            f"{before}{' ' if before else ''}(The next step, {proposed['name']}, is not allowed"
            f" in this task: {refused.message}. Tell the user; do not call it.)"
        )
        return cast(Envelope, {**envelope, "error": kept})

    # -- inside

    def _wire(self, registry: Registry) -> Registry:
        """The registry with every composite's context given this host as its caller, and
        every context that shares host state given this host's."""
        wired = []
        for spec in registry:
            share = getattr(spec.context, "with_host_state", None)
            if callable(share):
                spec = spec.bind(share(self.shared))
            if spec.composes:
                missing = [n for n in spec.composes if n not in registry]
                if missing:
                    raise HostConfigError(f"{spec.name} composes unregistered tools: {missing}")
                spec = spec.bind(spec.context.with_caller(self.call))
            wired.append(spec)
        return Registry(wired)

    def _travel(self, name: Any, args: Any) -> Arrival:
        started = self.clock()
        reached: list[str] = []
        try:
            arrival = travel(self.registry, name, args, self._stations, reached=reached)
        except Exception as exc:
            self._append(name, args, log_bug(name, args, exc, reached, self.clock() - started))
            raise
        self._append(name, args, log_arrival(name, args, arrival, self.clock() - started))
        return arrival

    def _append(self, name: Any, args: Any, record: LogRecord) -> None:
        self.log.append(record)
        if self._observer is not None:
            self._observer(name, args)

    def _assemble(self, extra: Sequence[Station]) -> tuple[Station, ...]:
        own: list[Station] = []
        if self.access is not None and self.scope is not None:
            own.extend(authorization_stations(self.scope, self.access))
            own.append(confirmation_station(self.flow, self._question))
        return (*own, *extra)

    def _question(self, call: PendingCall) -> Question | None:
        """The confirmation rule: overrides first, then the declared class."""
        name = call.tool.name
        if name in self._confirm:
            policy = self._confirm[name]
            if policy is not None:
                return policy(call)
            # approved in advance for this task, but never past a formal approval the
            # tool's own preview requires (a rollout to every host): no setting skips that
            own = self._preview(call)
            return own if own is not None and own.formal is not None else None
        if self.action_class(name) not in CONFIRMED_CLASSES:
            return None
        own = self._preview(call)
        if own is not None:
            return own
        return plain_question(name, call.arguments, self.action_class(name) or "write")

    @staticmethod
    def _preview(call: PendingCall) -> Question | None:
        preview = call.tool.preview
        if preview is None:
            return None
        question = preview(call.tool.context, call.arguments)
        if not isinstance(question, Question):
            raise TypeError(f"{call.tool.name}'s preview returned {type(question).__name__}")
        return question

    def _unanswered(self, name: Any, args: Any, request_id: str, state: str) -> Envelope:
        """The result of a call whose question was declined, cancelled or left open."""
        words = {"declined": "declined", "cancelled": "cancelled"}.get(state, "did not answer")
        error = ContractError(
            "approval_invalid",
            f"the user {words} question {request_id}: '{name}' did not run",
            suggestion="tell the user it was not done; do not call it again on your own",
        )
        started = self.clock()
        envelope = failure(self.registry.get(name).name, error, "not_applied")
        arrival = Arrival(envelope, "confirmation", error)
        self._append(name, args, log_arrival(name, args, arrival, self.clock() - started))
        return envelope


def _pending_request(arrival: Arrival) -> str | None:
    error = arrival.error
    if error is None:
        return None
    ask = error.fields.get("confirmation")
    return ask.get("request_id") if isinstance(ask, dict) else None


def _result(arrival: Arrival) -> Envelope:
    # A bare-style tool (chapter 03's counter-example) breaks the contract on purpose: its
    # failures are the one result typed as an envelope that is not one.
    return arrival.result  # type: ignore[return-value]
