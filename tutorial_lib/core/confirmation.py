"""Chapter 07's confirmation station: ask the user, get a scoped answer, then act once.

Some calls need the user's decision before they run: the target is undecided (two
environments, two repositories), or the action has a high impact (posting to a PR,
merging, deleting). The decision travels an explicit state machine, one per question
(:class:`ConfirmationRequest`)::

    prepared --ask--> asked --answer--> accepted --run once--> executed
                                  |            \\--too late---> expired
                                  +--> declined | cancelled         (nothing runs)

:class:`ConfirmationFlow` owns the requests of one session and records every transition
in an audit log (:class:`AuditRecord`, one JSON line each: what was asked, what was
shown, who answered, when, the decision, the digest of the exact arguments).

An approval is **bound and single use**: to one tool, the SHA-256 digest of its exact
arguments (:func:`approval_digest`), this flow's session, and an expiry. It lets one call
through the road; a replay, a second click, a changed argument or an expired approval is
refused with ``approval_invalid``. An argument the model fills in (``confirm: true``) is
never an approval: approvals come only from :meth:`ConfirmationFlow.answer`, which a
front end calls with the user's answer. Three front ends share the flow: the widgets of
:mod:`tutorial_lib.course.confirm_widgets`, :func:`ask_in_terminal`, and a direct call
of :meth:`~ConfirmationFlow.answer` (tests, nbval). :func:`elicitation_request` and
:func:`answer_from_elicitation` map a question onto MCP elicitation (accept / decline /
cancel), one to one.

:func:`confirmation_station` puts the flow on the road, in the ``"confirmation"`` slot
(after authorization); the host (:class:`tutorial_lib.core.host.Host`) builds it, with a
policy by action class: every write, delete or send asks, with the tool's own ``preview``
or :func:`plain_question`. A call the policy lets through (approved in advance for the
task) runs directly; a call whose target needs *formal* approval (a rollout to every
host) is refused outright: no click is enough there. A ``confirmation_required`` error
carries ``error.confirmation`` (request id, question, options) for the front end.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal, get_args

from tutorial_lib.core.contracts import ConfirmationAsk, ContractError, TutorialLibError
from tutorial_lib.core.display import visible
from tutorial_lib.core.road import PendingCall, Station

__all__ = [
    "APPROVAL_PROBLEMS",
    "DECISIONS",
    "REQUEST_STATES",
    "AuditRecord",
    "ConfirmationError",
    "ConfirmationFlow",
    "ConfirmationPolicy",
    "ConfirmationRequest",
    "Decision",
    "Question",
    "RequestState",
    "answer_from_elicitation",
    "approval_digest",
    "approval_problem",
    "ask_in_terminal",
    "choose_target",
    "confirmation_station",
    "elicitation_request",
    "plain_question",
    "thawed",
]

Decision = Literal["accept", "decline", "cancel"]
DECISIONS: tuple[Decision, ...] = get_args(Decision)
RequestState = Literal[
    "prepared", "asked", "accepted", "declined", "cancelled", "executed", "expired"
]
REQUEST_STATES: tuple[RequestState, ...] = get_args(RequestState)

_WAIT = (
    "the host is asking the user; wait for the answer. Do not call again with a confirm"
    " or approved argument: only the user's answer approves a call"
)


class ConfirmationError(TutorialLibError, ValueError):
    """A front end tried a transition the state machine does not allow (answering twice,
    a choice that is not a candidate, an unknown request)."""


def approval_digest(tool: str, arguments: Mapping[str, Any]) -> str:
    """SHA-256 of the tool name and its exact arguments (canonical JSON): what an
    approval is bound to. Any change of any argument changes it."""
    text = json.dumps(
        {"tool": tool, "arguments": _plain(arguments)},
        sort_keys=True,
        ensure_ascii=True,
        separators=(",", ":"),
        default=str,
    )
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def _frozen(value: Any) -> Any:
    """``value`` read-only all the way down: mappings become read-only views, lists
    tuples. What a question shows and what its approval runs cannot drift apart."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): _frozen(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def thawed(value: Any) -> Any:
    """A fresh, mutable copy of frozen arguments (dicts and lists again): what the host
    sends along the road when it runs an approved call."""
    return _plain(value)


def _plain(value: Any) -> Any:
    """``value`` with every mapping a dict and every tuple a list (read-only views of
    validated arguments included), so equal arguments always give equal JSON."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class Question:
    """What the user is asked about one call.

    - ``text``: the question, in the user's words;
    - ``shown``: what the user must see to decide (label -> text): where, the diff (the
      comment to be posted), the impact (who sees it, whether it can be undone);
    - ``choose`` and ``candidates``: for an undecided target, the argument the user
      chooses and its candidates (the front end selects none of them);
    - ``formal``: when set, the target needs formal approval (e.g. a signed-off rollout
      plan for a release to every host): the call is refused and no question is asked.
    """

    text: str
    shown: Mapping[str, str] = field(default_factory=dict)
    choose: str | None = None
    candidates: tuple[str, ...] = ()
    formal: str | None = None


#: Which calls need a question: ``policy(call)`` returns the :class:`Question`, or None
#: for a call that runs directly (no confirmation needed, or approved by the task).
ConfirmationPolicy = Callable[[PendingCall], Question | None]

_ACTION_WORDS = {
    "write": "change something that others see",
    "delete": "destroy something; it cannot be brought back",
    "send": "send something out or make it take effect for others",
}


def plain_question(tool: str, arguments: Mapping[str, Any], action: str) -> Question:
    """The question for a call of a tool that declares no preview of its own: the tool,
    what its class does, and every argument as it will run."""
    shown = {name: _shown(value) for name, value in arguments.items()}
    shown["impact"] = _ACTION_WORDS.get(action, action)
    return Question(text=f"Run {tool} with these arguments?", shown=shown)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value), ensure_ascii=False, sort_keys=True)


def choose_target(argument: str, candidates: Sequence[str]) -> ConfirmationPolicy:
    """A policy for an undecided target: ask with the tool's own preview (or a plain
    question), and let the user choose ``argument`` among ``candidates`` (none chosen in
    advance; the approval runs the call with the choice filled in)."""
    options = tuple(candidates)
    if not options:
        raise ValueError("choose_target needs at least one candidate")

    def policy(call: PendingCall) -> Question:
        preview = call.tool.preview
        base = (
            preview(call.tool.context, call.arguments)
            if preview is not None
            else plain_question(call.tool.name, call.arguments, "write")
        )
        shown = {k: v for k, v in base.shown.items() if k != argument}
        return replace(base, shown=shown, choose=argument, candidates=options)

    return policy


def _ask(request: ConfirmationRequest) -> ConfirmationAsk:
    ask: ConfirmationAsk = {
        "request_id": request.request_id,
        "question": request.question.text,
        "options": list(DECISIONS),
    }
    if request.question.choose is not None:
        ask["choose"] = request.question.choose
        ask["candidates"] = list(request.question.candidates)
    return ask


@dataclass(frozen=True)
class ConfirmationRequest:
    """One question and its answer: a state of the machine (immutable; the flow replaces it).

    ``arguments`` are the call as the model made it; ``approved_arguments`` the call the
    approval runs (the chosen candidate filled in), and ``digest`` their
    :func:`approval_digest` (None until accepted).
    """

    request_id: str
    tool: str
    arguments: Mapping[str, Any]
    question: Question
    session: str
    state: RequestState = "prepared"
    created_at: float = 0.0
    expires_at: float | None = None
    decision: Decision | None = None
    choice: str | None = None
    answered_by: str | None = None
    approved_arguments: Mapping[str, Any] | None = None
    digest: str | None = None


@dataclass(frozen=True)
class AuditRecord:
    """One transition, as one JSON line of the audit log."""

    seq: int
    at: float
    session: str
    request_id: str
    event: str
    state: str
    tool: str
    arguments_digest: str
    question: str
    shown: Mapping[str, str]
    by: str | None = None
    decision: str | None = None
    choice: str | None = None
    detail: str | None = None

    def to_json(self) -> str:
        """The record as one line of JSON (keys sorted)."""
        record = {**self.__dict__, "shown": dict(self.shown)}
        return json.dumps(record, ensure_ascii=False, sort_keys=True)


class ConfirmationFlow:
    """The requests of one session, their state machine, and its audit log.

    ``clock`` gives seconds (inject a fake one for deterministic notebooks and tests);
    an approval expires ``ttl_s`` seconds after the answer.
    """

    def __init__(self, session: str, *, clock: Callable[[], float], ttl_s: float = 300.0) -> None:
        if ttl_s <= 0:
            raise ValueError("ttl_s must be positive")
        self.session = session
        self.clock = clock
        self.ttl_s = ttl_s
        self._requests: dict[str, ConfirmationRequest] = {}
        self._audit: list[AuditRecord] = []
        self._set_aside: set[str] = set()  # used approvals a new call no longer meets

    # -- reading

    def request(self, request_id: str) -> ConfirmationRequest:
        """The request of that id (ConfirmationError if unknown)."""
        try:
            return self._requests[request_id]
        except KeyError:
            raise ConfirmationError(f"no confirmation request {request_id!r}") from None

    @property
    def requests(self) -> tuple[ConfirmationRequest, ...]:
        """Every request, oldest first."""
        return tuple(self._requests.values())

    @property
    def audit(self) -> tuple[AuditRecord, ...]:
        """The audit log, one record per transition."""
        return tuple(self._audit)

    def audit_jsonl(self) -> str:
        """The audit log as JSON Lines."""
        return "".join(record.to_json() + "\n" for record in self._audit)

    # -- transitions

    def prepare(
        self, tool: str, arguments: Mapping[str, Any], question: Question
    ) -> ConfirmationRequest:
        """A new request in state ``prepared`` (nothing shown to the user yet)."""
        request_id = f"{self.session}-{len(self._requests) + 1}"
        frozen = _frozen(arguments)
        request = ConfirmationRequest(
            request_id, tool, frozen, question, self.session, created_at=self.clock()
        )
        self._requests[request_id] = request
        self._record(request, "prepared")
        return request

    def ask(self, request_id: str) -> ConfirmationRequest:
        """``prepared`` -> ``asked``: the question is now in front of the user."""
        return self._move(self.request(request_id), "asked", "asked", expect=("prepared",))

    def answer(
        self,
        request_id: str,
        decision: Decision,
        *,
        choice: str | None = None,
        by: str = "user",
    ) -> ConfirmationRequest:
        """``asked`` -> ``accepted`` | ``declined`` | ``cancelled``, once.

        Accepting a question with candidates needs a ``choice`` among them; the approval
        is then bound to the arguments with that choice filled in. A second answer, an
        unknown decision or a choice that is not a candidate raises ConfirmationError.
        """
        request = self.request(request_id)
        if decision not in DECISIONS:
            raise ConfirmationError(f"unknown decision {decision!r}; one of {DECISIONS}")
        if request.state != "asked":
            raise ConfirmationError(
                f"{request_id} is {request.state}: it was answered already or never asked"
            )
        question = request.question
        if decision != "accept":
            state: RequestState = "declined" if decision == "decline" else "cancelled"
            answered = replace(request, state=state, decision=decision, answered_by=by)
            return self._store(answered, state)
        if question.candidates and choice not in question.candidates:
            raise ConfirmationError(
                f"choose one of {list(question.candidates)} before accepting (got {choice!r})"
            )
        approved = thawed(request.arguments)
        if question.choose is not None and choice is not None:
            approved[question.choose] = choice
        now = self.clock()
        answered = replace(
            request,
            state="accepted",
            decision="accept",
            choice=choice,
            answered_by=by,
            expires_at=now + self.ttl_s,
            approved_arguments=_frozen(approved),
            digest=approval_digest(request.tool, approved),
        )
        return self._store(answered, "accepted", at=now)

    def consume(self, tool: str, arguments: Mapping[str, Any]) -> ConfirmationRequest | None:
        """Use the approval for exactly this call, once: ``accepted`` -> ``executed``.

        Returns None when no approval covers this call and nothing stops a new question
        (a cancelled question may be asked again; an approval for *other* arguments
        covers nothing). Raises ``approval_invalid`` for an approval that was used or has
        expired and for a call the user declined, ``confirmation_required`` while the
        same call's question is still unanswered.
        """
        digest = approval_digest(tool, arguments)
        related = [
            r
            for r in self._requests.values()
            if r.tool == tool and r.request_id not in self._set_aside
        ]
        now = self.clock()
        for request in related:
            if request.digest != digest:
                continue
            problem = approval_problem(request, tool, arguments, session=self.session, now=now)
            if problem is None:
                return self._store(replace(request, state="executed"), "executed")
            if problem == "expired" and request.state == "accepted":
                self._store(replace(request, state="expired"), "expired")
                raise _invalid(f"the approval {request.request_id} has expired")
        matching = [r for r in related if r.digest == digest]
        if matching:
            raise _invalid(
                f"the approval {matching[-1].request_id} was {matching[-1].state} already:"
                " one approval runs one call"
            )
        # the same call as asked (before any choice was filled in)
        asked = [r for r in related if approval_digest(tool, r.arguments) == digest]
        pending = [r for r in asked if r.state in ("prepared", "asked")]
        if pending:
            raise ContractError(
                "confirmation_required",
                f"'{tool}' waits for the user's answer to {pending[-1].request_id}",
                suggestion=_WAIT,
                confirmation=_ask(pending[-1]),
                log={"request_id": pending[-1].request_id},
            )
        if asked and asked[-1].state == "declined":
            raise _invalid(f"the user declined this call ({asked[-1].request_id})")
        return None

    def new_call(self, tool: str, arguments: Mapping[str, Any]) -> tuple[str, ...]:
        """Say that this exact call arrives anew from the client, carrying no answer: the
        approvals it used before are spent, and no longer refuse it. When the road meets
        the call again, the user is asked again.

        Why: a write whose reply was lost (a timeout) is retried with the same arguments,
        idempotency key included, which is safe (the service applies a key once). Refusing
        that retry with ``approval_invalid`` would leave the model no way to learn the
        outcome; asking the user again costs one question and runs nothing unasked.

        Only a front end that can tell a new call from a replay of an answered round calls
        this (the MCP bridge: a call without input responses). A replay still carries the
        old answer and still meets ``approval_invalid``; the host alone cannot tell the
        two apart, so without this a repeated call is refused. A declined call stays
        declined. Returns the ids of the approvals set aside (audited as ``set_aside``).
        """
        digest = approval_digest(tool, arguments)
        spent = [
            r
            for r in self._requests.values()
            if r.tool == tool
            and r.state == "executed"
            and r.digest == digest
            and r.request_id not in self._set_aside
        ]
        for request in spent:
            self._set_aside.add(request.request_id)
            self._record(request, "set_aside", "the same call came again: the user is asked again")
        return tuple(r.request_id for r in spent)

    def _move(
        self,
        request: ConfirmationRequest,
        state: RequestState,
        event: str,
        *,
        expect: Sequence[str],
    ) -> ConfirmationRequest:
        if request.state not in expect:
            raise ConfirmationError(f"{request.request_id} is {request.state}, not {expect[0]}")
        return self._store(replace(request, state=state), event)

    def _store(
        self, request: ConfirmationRequest, event: str, *, at: float | None = None
    ) -> ConfirmationRequest:
        self._requests[request.request_id] = request
        self._record(request, event, at=at)
        return request

    def _record(
        self,
        request: ConfirmationRequest,
        event: str,
        detail: str | None = None,
        *,
        state: str | None = None,
        at: float | None = None,
    ) -> None:
        self._audit.append(
            AuditRecord(
                seq=len(self._audit) + 1,
                at=self.clock() if at is None else at,
                session=self.session,
                request_id=request.request_id,
                event=event,
                state=state or request.state,
                tool=request.tool,
                arguments_digest=request.digest or approval_digest(request.tool, request.arguments),
                question=request.question.text,
                shown=MappingProxyType(dict(request.question.shown)),
                by=request.answered_by,
                decision=request.decision,
                choice=request.choice,
                detail=detail,
            )
        )

    def record_refusal(self, tool: str, arguments: Mapping[str, Any], question: Question) -> None:
        """Audit a call refused for formal approval (no request is created for it)."""
        number = sum(record.event == "refused_formal" for record in self._audit) + 1
        request = ConfirmationRequest(
            f"{self.session}-formal-{number}",
            tool,
            _frozen(arguments),
            question,
            self.session,
        )
        self._record(request, "refused_formal", question.formal, state="refused")


#: Why an approval cannot run a call, in the order :func:`approval_problem` checks.
APPROVAL_PROBLEMS: tuple[str, ...] = (
    "other_session",
    "other_tool",
    "used",
    "not_accepted",
    "expired",
    "other_arguments",
)


def approval_problem(
    request: ConfirmationRequest,
    tool: str,
    arguments: Mapping[str, Any],
    *,
    session: str,
    now: float,
) -> str | None:
    """Why ``request`` cannot approve this call now (one of :data:`APPROVAL_PROBLEMS`),
    or None when it can: same session, same tool, accepted and not used, not expired
    (``now`` up to and including ``expires_at`` is in time), the exact approved arguments.
    """
    if request.session != session:
        return "other_session"
    if request.tool != tool:
        return "other_tool"
    if request.state == "executed":
        return "used"
    if request.state != "accepted":
        return "not_accepted"
    if request.expires_at is None or now > request.expires_at:
        return "expired"
    if request.digest != approval_digest(tool, arguments):
        return "other_arguments"
    return None


def _invalid(message: str) -> ContractError:
    return ContractError(
        "approval_invalid",
        message,
        suggestion="do not call again on your own: the host asks the user again if needed",
    )


def confirmation_station(
    flow: ConfirmationFlow, policy: ConfirmationPolicy, *, name: str = "user_confirmation"
) -> Station:
    """The ``"confirmation"`` :class:`~tutorial_lib.core.road.Station` of ``flow``.

    For a call the policy asks about: an approval for exactly this call lets it through
    (once); otherwise a new question is prepared and asked, and the call ends with
    ``confirmation_required`` naming the request. A question with ``formal`` set is never
    asked: the call is refused and the refusal audited.
    """

    def check(call: PendingCall) -> None:
        question = policy(call)
        if question is None:
            return
        tool, arguments = call.tool.name, call.arguments
        if question.formal is not None:
            flow.record_refusal(tool, arguments, question)
            raise ContractError(
                "confirmation_required",
                f"'{tool}' here needs formal approval ({question.formal}); a confirmation"
                " in this session is not enough",
                suggestion="tell the user which approval process this needs; do not retry",
            )
        if flow.consume(tool, arguments) is not None:
            return
        request = flow.ask(flow.prepare(tool, arguments, question).request_id)
        other = [r for r in flow.requests if r.tool == tool and r.state == "accepted"]
        if other:
            raise ContractError(
                "approval_invalid",
                f"the approval {other[-1].request_id} is for other arguments: the user did"
                f" not approve these; they are asked as question {request.request_id}",
                suggestion=_WAIT,
                confirmation=_ask(request),
                log={"request_id": request.request_id},
            )
        raise ContractError(
            "confirmation_required",
            f"'{tool}' needs the user's answer first: question {request.request_id}",
            suggestion=_WAIT,
            confirmation=_ask(request),
            log={"request_id": request.request_id},
        )

    return Station(name, "confirmation", check)


# --------------------------------------------------------------------------- other front ends


def ask_in_terminal(
    flow: ConfirmationFlow,
    request_id: str,
    *,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    attempts: int = 3,
) -> ConfirmationRequest:
    """Ask the question of ``request_id`` in a terminal and answer it with what is typed.

    Candidates are numbered (none is chosen by default); the answer is ``a`` (accept),
    ``d`` (decline) or ``c`` (cancel). After ``attempts`` unreadable replies the question
    is cancelled: silence is never consent.
    """
    request = flow.request(request_id)
    question = request.question
    # what is shown may quote untrusted text: an ESC or a U+202E must not rewrite the screen
    write(visible(question.text))
    for label, text in question.shown.items():
        write(f"  {label}: {visible(text)}")
    choice: str | None = None
    if question.candidates:
        for number, candidate in enumerate(question.candidates, 1):
            write(f"  {number}) {visible(candidate, keep='')}")
        for _ in range(attempts):
            reply = read("choose a number: ").strip()
            if reply.isdigit() and 1 <= int(reply) <= len(question.candidates):
                choice = question.candidates[int(reply) - 1]
                break
            write("  not one of the numbers above")
        else:
            return flow.answer(request_id, "cancel", by="terminal")
    words: dict[str, Decision] = {"a": "accept", "d": "decline", "c": "cancel"}
    for _ in range(attempts):
        reply = read("accept, decline or cancel? [a/d/c]: ").strip().lower()
        if reply[:1] in words and reply in (reply[:1], words[reply[:1]]):
            return flow.answer(request_id, words[reply[:1]], choice=choice, by="terminal")
        write("  type a, d or c")
    return flow.answer(request_id, "cancel", by="terminal")


def elicitation_request(request: ConfirmationRequest) -> dict[str, Any]:
    """The question as an MCP ``elicitation/create`` form request: a message and a flat
    schema (one string field with the candidates as an enum, when the target is open)."""
    question = request.question
    lines = [question.text, *(f"{label}: {text}" for label, text in question.shown.items())]
    # the client shows the message to the user: nothing in it may hide or reorder text
    properties: dict[str, Any] = {}
    required: list[str] = []
    if question.choose is not None and question.candidates:
        properties[question.choose] = {"type": "string", "enum": list(question.candidates)}
        required.append(question.choose)
    return {
        "message": visible("\n".join(lines)),
        "requestedSchema": {"type": "object", "properties": properties, "required": required},
    }


def answer_from_elicitation(
    flow: ConfirmationFlow, request_id: str, result: Mapping[str, Any]
) -> ConfirmationRequest:
    """Answer ``request_id`` with an MCP elicitation result: ``action`` ``accept`` (with
    ``content``), ``decline`` or ``cancel`` map one to one onto the flow's decisions."""
    action = result.get("action")
    if action not in DECISIONS:
        raise ConfirmationError(f"unknown elicitation action {action!r}")
    choice = None
    choose = flow.request(request_id).question.choose
    if action == "accept" and choose is not None:
        content = result.get("content") or {}
        choice = content.get(choose) if isinstance(content, Mapping) else None
    return flow.answer(request_id, action, choice=choice, by="mcp_elicitation")
