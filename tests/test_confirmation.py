"""Chapter 07's confirmation station: the user's answer approves one exact call, once.

What these tests prove about :mod:`tutorial_lib.core.confirmation`:

1. **The state machine** (prepared -> asked -> accepted | declined | cancelled, then
   executed or expired) allows only its own transitions, writes one audit record per
   transition (what was asked and shown, who answered, when, the decision, the digest of
   the arguments) that parses back from JSON Lines, and raises ConfirmationError for a
   second answer, an unknown request, a choice that is not a candidate, or an accept
   without a choice. :func:`approval_digest` changes with every argument and ignores key
   order and the kind of mapping.
2. **On the road**, with ``deploy_release``: the first call ends ``confirmation_required``
   (``not_applied``, nothing deployed, ``error.confirmation`` naming the request); the
   user's choice fills the open argument; :meth:`Host.run_approved` runs the approved call
   once, and a replay, a changed argument, an expired approval or another session's host
   is refused with ``approval_invalid`` (or a question of its own). An argument the model
   adds (``confirm: true``) never reaches the station, a policy returning None lets the
   call run directly, and a question that needs formal approval (a rollout to all hosts) is
   refused and audited without a request.
3. **As a property** (a hypothesis state machine over asks, answers, runs with approved
   or altered arguments and clock jumps): no request executes more than once, every
   deploy belongs to exactly one executed request, and a declined, cancelled or expired
   request never executes.
4. **The other front ends**: :func:`ask_in_terminal` with a scripted terminal (silence
   and nonsense are never consent), and the MCP elicitation mapping (a flat schema,
   nothing preselected; accept / decline / cancel one to one).
5. **With the real emulator**: chapter 05's ``github_pr_create_comment`` behind the
   station, its POST committed and then timed out: after the user accepts, one
   :meth:`Host.run_approved` leaves exactly one comment (the read-back finds it), and a
   second one stores nothing more.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from jsonschema import Draft202012Validator

from tutorial_lib.core.authorization import TaskScope, github_access, local_access
from tutorial_lib.core.confirmation import (
    APPROVAL_PROBLEMS,
    DECISIONS,
    REQUEST_STATES,
    ConfirmationError,
    ConfirmationFlow,
    ConfirmationPolicy,
    ConfirmationRequest,
    Decision,
    Question,
    answer_from_elicitation,
    approval_digest,
    approval_problem,
    ask_in_terminal,
    elicitation_request,
)
from tutorial_lib.core.contracts import ENVELOPE_SCHEMA, ContractError, Envelope, LogRecord
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import PendingCall
from tutorial_lib.core.tools import Registry
from tutorial_lib.emulator.faults import FaultPlan
from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import serve_in_process
from tutorial_lib.examples.deploy import HOST_GROUPS, Deployments, deploy_spec
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.writes import (
    WriteContext,
    find_marked,
    write_status,
    write_tool_specs,
)

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
DEPLOY = "deploy_release"
CANARY = {"group": "canary", "version": "v2.4.1"}
ALL_HOSTS = {"group": "all-hosts", "version": "v2.4.1"}
TTL_S = 60.0
ROLLOUT_PLAN = "a rollout plan signed off by the on-call lead"


# --------------------------------------------------------------------------- helpers


@dataclass
class ManualClock:
    """A clock that stands still until a test moves it (seconds)."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def deploy_policy(*, formal_all_hosts: bool = True) -> ConfirmationPolicy:
    """Every deploy asks which host group (both candidates, none preselected); with
    ``formal_all_hosts`` a rollout to all hosts needs a signed rollout plan instead."""

    def policy(call: PendingCall) -> Question | None:
        group, version = call.arguments["group"], call.arguments["version"]
        if formal_all_hosts and group == "all-hosts":
            return Question(
                f"Deploy {version} to all hosts?",
                shown={"where": "all-hosts", "version": version},
                formal=ROLLOUT_PLAN,
            )
        return Question(
            f"Which hosts should run {version}?",
            shown={"version": version, "impact": "the hosts of that group run it"},
            choose="group",
            candidates=HOST_GROUPS,
        )

    return policy


#: deploy_release as the operator declares it: it takes effect for others (``send``), on
#: the tool's own store of deployments (no repository, path or host to scope).
DEPLOY_ACCESS = {DEPLOY: local_access("send", "deployments")}


@dataclass
class DeployWorld:
    """One session: its host (flow, stations, log), the deploy tool and what it deployed."""

    host: Host
    clock: ManualClock
    deployments: Deployments

    @property
    def flow(self) -> ConfirmationFlow:
        return self.host.flow

    @property
    def log(self) -> list[LogRecord]:
        return self.host.log

    def call(self, args: Any) -> Envelope:
        """The model's call of ``deploy_release``, through this session's host."""
        result = self.host.call(DEPLOY, args)
        ENVELOPE.validate(result)
        return result

    def run(self, request_id: str) -> Envelope:
        """The host runs what ``request_id`` approved (through the whole road again)."""
        result = self.host.run_approved(request_id)
        ENVELOPE.validate(result)
        return result

    def asked(self) -> ConfirmationRequest:
        """The newest request (the one the last call asked)."""
        return self.flow.requests[-1]


def deploy_world(
    policy: ConfirmationPolicy | None = None,
    *,
    session: str = "s1",
    ttl_s: float = TTL_S,
    deployments: Deployments | None = None,
) -> DeployWorld:
    clock = ManualClock()
    deployments = Deployments() if deployments is None else deployments
    host = Host(
        Registry([deploy_spec(deployments)]),
        access=DEPLOY_ACCESS,
        scope=TaskScope(grants=frozenset({"send"})),
        confirm={DEPLOY: deploy_policy() if policy is None else policy},
        clock=clock,
        session=session,
        ttl_s=ttl_s,
    )
    return DeployWorld(host, clock, deployments)


def asked_flow(question: Question | None = None) -> tuple[ConfirmationFlow, ManualClock, str]:
    """A flow with one request in state ``asked`` (a deploy question with candidates)."""
    clock = ManualClock()
    flow = ConfirmationFlow("s1", clock=clock, ttl_s=TTL_S)
    question = question or Question(
        "Which hosts should run v2.4.1?",
        shown={"version": "v2.4.1"},
        choose="group",
        candidates=HOST_GROUPS,
    )
    request = flow.prepare(DEPLOY, CANARY, question)
    flow.ask(request.request_id)
    return flow, clock, request.request_id


def error_of(result: Envelope) -> Mapping[str, Any]:
    assert result["ok"] is False, result
    return result["error"]


def events(flow: ConfirmationFlow) -> list[tuple[str, str]]:
    return [(record.request_id, record.event) for record in flow.audit]


# --------------------------------------------------------------------------- 1. state machine


def test_an_accepted_question_walks_every_state_with_one_record_per_transition() -> None:
    flow, clock, rid = asked_flow()
    assert flow.request(rid).state == "asked"
    clock.advance(5)
    accepted = flow.answer(rid, "accept", choice="all-hosts", by="alice")
    assert accepted.state == "accepted" and accepted.decision == "accept"
    assert accepted.choice == "all-hosts" and accepted.answered_by == "alice"
    assert accepted.expires_at == clock.now + TTL_S
    assert dict(accepted.approved_arguments or {}) == CANARY | {"group": "all-hosts"}
    assert accepted.digest == approval_digest(DEPLOY, ALL_HOSTS)
    assert dict(accepted.arguments) == CANARY  # the model's call is kept as it was made
    clock.advance(1)
    executed = flow.consume(DEPLOY, ALL_HOSTS)
    assert executed is not None and executed.state == "executed"
    assert [r.event for r in flow.audit] == ["prepared", "asked", "accepted", "executed"]
    assert [r.state for r in flow.audit] == ["prepared", "asked", "accepted", "executed"]
    assert [r.seq for r in flow.audit] == [1, 2, 3, 4]
    assert all(r.state in REQUEST_STATES for r in flow.audit)
    prepared, asked, answered, ran = flow.audit
    assert prepared.at == asked.at == 1000.0 and answered.at == 1005.0 and ran.at == 1006.0
    assert prepared.arguments_digest == approval_digest(DEPLOY, CANARY)
    assert answered.arguments_digest == ran.arguments_digest == accepted.digest
    assert (answered.by, answered.decision, answered.choice) == ("alice", "accept", "all-hosts")
    assert prepared.by is None and prepared.decision is None
    assert all(r.question == "Which hosts should run v2.4.1?" for r in flow.audit)
    assert all(dict(r.shown) == {"version": "v2.4.1"} for r in flow.audit)
    assert {r.session for r in flow.audit} == {"s1"}


def test_the_audit_log_is_json_lines_that_parse_back() -> None:
    flow, clock, rid = asked_flow()
    flow.answer(rid, "decline", by="bob")
    lines = flow.audit_jsonl().splitlines()
    assert len(lines) == len(flow.audit) == 3
    parsed = [json.loads(line) for line in lines]
    for record, back in zip(flow.audit, parsed, strict=True):
        assert back == {**record.__dict__, "shown": dict(record.shown)}
        assert list(back) == sorted(back)  # keys sorted
    last = parsed[-1]
    assert last["event"] == "declined" and last["decision"] == "decline" and last["by"] == "bob"
    assert last["question"] == "Which hosts should run v2.4.1?"
    assert last["shown"] == {"version": "v2.4.1"} and last["at"] == clock.now
    assert last["arguments_digest"] == approval_digest(DEPLOY, CANARY)
    assert flow.audit_jsonl().endswith("\n")


def test_a_declined_call_stays_refused_and_never_executes() -> None:
    flow, _, rid = asked_flow()
    answered = flow.answer(rid, "decline", choice="canary")
    assert (answered.state, answered.decision) == ("declined", "decline")
    assert answered.approved_arguments is None and answered.digest is None
    assert answered.expires_at is None
    for _ in range(2):  # the declined call stays refused: it is not asked again
        with pytest.raises(ContractError) as caught:
            flow.consume(DEPLOY, CANARY)
        assert caught.value.code == "approval_invalid"
    assert flow.consume(DEPLOY, ALL_HOSTS) is None  # other arguments: no approval at all
    assert flow.request(rid).state == "declined"
    assert "executed" not in [r.event for r in flow.audit]
    with pytest.raises(ConfirmationError):
        flow.answer(rid, "accept", choice="canary")


def test_a_cancelled_question_approves_nothing_and_may_be_asked_again() -> None:
    flow, _, rid = asked_flow()
    answered = flow.answer(rid, "cancel", choice="canary")
    assert (answered.state, answered.decision) == ("cancelled", "cancel")
    assert answered.approved_arguments is None and answered.digest is None
    for arguments in (CANARY, ALL_HOSTS):
        assert flow.consume(DEPLOY, arguments) is None  # nothing covers it: ask again
    assert flow.request(rid).state == "cancelled"
    assert "executed" not in [r.event for r in flow.audit]
    with pytest.raises(ConfirmationError):
        flow.answer(rid, "accept", choice="canary")


def test_a_used_approval_refuses_a_replay_until_a_front_end_says_the_call_is_new() -> None:
    flow, _, rid = asked_flow()
    flow.answer(rid, "accept", choice="all-hosts")
    assert flow.consume(DEPLOY, ALL_HOSTS) is not None
    with pytest.raises(ContractError) as caught:  # the same call again: a replay
        flow.consume(DEPLOY, ALL_HOSTS)
    assert caught.value.code == "approval_invalid" and "executed already" in str(caught.value)
    assert flow.new_call(DEPLOY, CANARY) == ()  # other arguments: nothing set aside
    assert flow.new_call(DEPLOY, ALL_HOSTS) == (rid,)
    assert flow.new_call(DEPLOY, ALL_HOSTS) == ()  # once
    assert flow.consume(DEPLOY, ALL_HOSTS) is None  # nothing covers it: ask the user again
    assert flow.request(rid).state == "executed"  # the request itself stays as it was
    assert events(flow)[-1] == (rid, "set_aside")
    assert flow.audit[-1].state == "executed"


def test_a_new_call_sets_aside_only_used_approvals_of_that_exact_call() -> None:
    flow, _, rid = asked_flow()
    flow.answer(rid, "decline", choice="canary")
    assert flow.new_call(DEPLOY, CANARY) == ()  # declined stays declined
    with pytest.raises(ContractError) as caught:
        flow.consume(DEPLOY, CANARY)
    assert caught.value.code == "approval_invalid"
    accepted, _, rid2 = asked_flow()
    accepted.answer(rid2, "accept", choice="canary")
    assert accepted.new_call(DEPLOY, CANARY | {"group": "canary"}) == ()  # not used yet
    assert accepted.consume(DEPLOY, CANARY | {"group": "canary"}) is not None


def test_the_machine_refuses_every_transition_it_does_not_allow() -> None:
    flow, _, rid = asked_flow()
    audit_before = flow.audit
    with pytest.raises(ConfirmationError, match="choose one of"):
        flow.answer(rid, "accept")  # candidates exist: no choice is no answer
    with pytest.raises(ConfirmationError, match="choose one of"):
        flow.answer(rid, "accept", choice="qa")  # not a candidate
    with pytest.raises(ConfirmationError, match="unknown decision"):
        flow.answer(rid, "yes")  # type: ignore[arg-type]
    with pytest.raises(ConfirmationError, match="no confirmation request"):
        flow.answer("s1-99", "accept", choice="canary")
    with pytest.raises(ConfirmationError):
        flow.request("s2-1")
    with pytest.raises(ConfirmationError):
        flow.ask(rid)  # asked already
    assert flow.audit == audit_before and flow.request(rid).state == "asked"
    flow.answer(rid, "accept", choice="canary")
    for decision in DECISIONS:  # answering twice, whatever the second answer
        with pytest.raises(ConfirmationError, match="answered already"):
            flow.answer(rid, decision, choice="all-hosts")
    assert flow.request(rid).choice == "canary"
    assert len(flow.audit) == len(audit_before) + 1


def test_a_request_that_was_never_asked_cannot_be_answered() -> None:
    flow = ConfirmationFlow("s1", clock=ManualClock())
    request = flow.prepare(DEPLOY, CANARY, Question("Deploy?"))
    assert request.state == "prepared"
    with pytest.raises(ConfirmationError, match="never asked"):
        flow.answer(request.request_id, "accept")


def test_a_question_without_candidates_is_accepted_without_a_choice() -> None:
    flow, _, rid = asked_flow(Question("Deploy v2.4.1 to the canary group?"))
    accepted = flow.answer(rid, "accept")
    assert accepted.choice is None and dict(accepted.approved_arguments or {}) == CANARY
    assert accepted.digest == approval_digest(DEPLOY, CANARY)


def test_request_ids_are_unique_and_the_ttl_must_be_positive() -> None:
    flow = ConfirmationFlow("s7", clock=ManualClock())
    ids = [flow.prepare(DEPLOY, CANARY, Question("q")).request_id for _ in range(3)]
    assert ids == ["s7-1", "s7-2", "s7-3"]
    assert [r.request_id for r in flow.requests] == ids
    for ttl in (0.0, -1.0):
        with pytest.raises(ValueError):
            ConfirmationFlow("s", clock=ManualClock(), ttl_s=ttl)


def test_the_prepared_arguments_are_a_read_only_copy() -> None:
    arguments = {"group": "canary", "version": "v2.4.1"}
    flow = ConfirmationFlow("s1", clock=ManualClock())
    request = flow.prepare(DEPLOY, arguments, Question("q"))
    arguments["version"] = "v9.9.9"  # the caller's dict changes afterwards
    assert request.arguments["version"] == "v2.4.1"
    with pytest.raises(TypeError):
        request.arguments["version"] = "v9.9.9"  # type: ignore[index]


def test_approval_problem_names_each_reason_an_approval_cannot_run() -> None:
    flow, clock, rid = asked_flow()
    asked = flow.request(rid)
    assert approval_problem(asked, DEPLOY, CANARY, session="s1", now=clock.now) == "not_accepted"
    accepted = flow.answer(rid, "accept", choice="canary")
    end = accepted.expires_at
    assert end is not None

    def problem(
        tool: str = DEPLOY,
        args: Mapping[str, Any] = CANARY,
        *,
        request: ConfirmationRequest = accepted,
        session: str = "s1",
        now: float = clock.now,
    ) -> str | None:
        return approval_problem(request, tool, args, session=session, now=now)

    assert problem() is None
    assert problem(now=end) is None  # up to and including expires_at is in time
    assert problem(now=end + 0.001) == "expired"
    assert problem(session="s2") == "other_session"
    assert problem(tool="http_send") == "other_tool"
    assert problem(args=CANARY | {"version": "v2.4.2"}) == "other_arguments"
    executed = flow.consume(DEPLOY, CANARY)
    assert executed is not None
    assert problem(request=executed) == "used"
    reasons = {
        problem(session="s2"),
        problem(tool="other"),
        problem(request=asked),
        problem(request=executed),
        problem(now=end + 1),
        problem(args=ALL_HOSTS),
    }
    assert reasons == set(APPROVAL_PROBLEMS)


# --------------------------------------------------------------------------- 1b. the digest

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
argument_maps = st.dictionaries(st.text(min_size=1, max_size=6), json_values, max_size=5)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@settings(max_examples=150, deadline=None)
@given(arguments=argument_maps, key=st.text(min_size=1, max_size=6), value=json_values)
def test_any_change_of_any_argument_changes_the_digest(
    arguments: dict[str, Any], key: str, value: Any
) -> None:
    digest = approval_digest(DEPLOY, arguments)
    assert digest.startswith("sha256:") and len(digest) == len("sha256:") + 64
    changed = arguments | {key: value}
    if _canonical(changed) != _canonical(arguments):
        assert approval_digest(DEPLOY, changed) != digest
    if arguments:
        first = next(iter(arguments))
        fewer = {k: v for k, v in arguments.items() if k != first}
        assert approval_digest(DEPLOY, fewer) != digest
    assert approval_digest("deploy_release_v2", arguments) != digest


@settings(max_examples=150, deadline=None)
@given(arguments=argument_maps)
def test_the_digest_ignores_key_order_and_the_kind_of_mapping(arguments: dict[str, Any]) -> None:
    digest = approval_digest(DEPLOY, arguments)
    reordered = dict(reversed(list(arguments.items())))
    assert approval_digest(DEPLOY, reordered) == digest
    assert approval_digest(DEPLOY, MappingProxyType(arguments)) == digest
    deep = MappingProxyType(
        {k: MappingProxyType(v) if isinstance(v, dict) else v for k, v in reordered.items()}
    )
    assert approval_digest(DEPLOY, deep) == digest


def test_a_tuple_and_a_list_give_one_digest_and_validated_arguments_match() -> None:
    assert approval_digest("t", {"ids": (1, 2)}) == approval_digest("t", {"ids": [1, 2]})
    assert approval_digest(DEPLOY, MappingProxyType(dict(CANARY))) == approval_digest(
        DEPLOY, CANARY
    )
    assert approval_digest(DEPLOY, CANARY) != approval_digest(DEPLOY, ALL_HOSTS)
    assert approval_digest("t", {"n": 1}) != approval_digest("t", {"n": True})
    assert approval_digest("t", {"n": 1}) != approval_digest("t", {"n": "1"})


# --------------------------------------------------------------------------- 2. on the road


def test_the_first_call_asks_the_user_and_deploys_nothing() -> None:
    world = deploy_world()
    result = world.call(CANARY)
    error = error_of(result)
    assert error["code"] == "confirmation_required"
    assert error["retry"] == "after_authorization"
    assert error["operation_state"] == "not_applied"
    assert world.deployments.done == []
    (request,) = world.flow.requests
    assert request.state == "asked" and request.request_id in error["message"]
    assert request.choice is None and request.approved_arguments is None  # nothing chosen
    assert request.question.candidates == HOST_GROUPS
    record = world.log[-1]
    assert (record.station, record.outcome, record.operation_state) == (
        "confirmation",
        "confirmation_required",
        "not_applied",
    )
    assert record.details == {"request_id": request.request_id}
    # the front end learns the request from a structured field, never from the message
    assert error["confirmation"] == {
        "request_id": request.request_id,
        "question": "Which hosts should run v2.4.1?",
        "options": ["accept", "decline", "cancel"],
        "choose": "group",
        "candidates": list(HOST_GROUPS),
    }
    # calling again while the user decides asks nothing new and runs nothing
    again = world.call(CANARY)
    assert error_of(again)["code"] == "confirmation_required"
    assert len(world.flow.requests) == 1 and world.deployments.done == []
    assert [e for _, e in events(world.flow)] == ["prepared", "asked"]


def test_the_users_choice_fills_the_argument_and_runs_exactly_once() -> None:
    world = deploy_world(deploy_policy(formal_all_hosts=False))
    world.call(CANARY)  # the model guessed canary; the user decides
    rid = world.asked().request_id
    world.flow.answer(rid, "accept", choice="all-hosts")
    result = world.run(rid)
    assert result["ok"] is True
    assert result["data"] == {"group": "all-hosts", "version": "v2.4.1", "deploy": 1}
    assert world.deployments.done == [("all-hosts", "v2.4.1")]
    assert world.flow.request(rid).state == "executed"
    replay = world.run(rid)  # a second click, a replay
    error = error_of(replay)
    assert (error["code"], error["operation_state"]) == ("approval_invalid", "not_applied")
    assert error["retry"] == "after_authorization"
    assert world.deployments.done == [("all-hosts", "v2.4.1")]
    assert world.log[-1].station == "confirmation"
    assert [e for _, e in events(world.flow)] == ["prepared", "asked", "accepted", "executed"]


def test_a_changed_argument_is_not_what_the_user_approved() -> None:
    world = deploy_world()
    world.call(CANARY)
    rid = world.asked().request_id
    world.flow.answer(rid, "accept", choice="canary")
    for altered in (CANARY | {"version": "v2.4.2"}, CANARY | {"version": "v2.4.10"}):
        error = error_of(world.call(altered))
        assert (error["code"], error["operation_state"]) == ("approval_invalid", "not_applied")
        # the altered call is not approved: it becomes a question of its own
        question = world.asked()
        assert question.state == "asked" and dict(question.arguments) == altered
        assert question.request_id in error["message"]
        assert error["confirmation"]["request_id"] == question.request_id
        assert world.log[-1].details == {"request_id": question.request_id}
    assert world.deployments.done == []
    assert world.flow.request(rid).state == "accepted"  # the approval is untouched
    assert world.run(rid)["ok"] is True  # the approved call itself is still good, once
    assert world.deployments.done == [("canary", "v2.4.1")]


def test_an_approval_is_good_until_its_expiry_and_not_a_moment_later() -> None:
    world = deploy_world()
    world.call(CANARY)
    rid = world.asked().request_id
    world.flow.answer(rid, "accept", choice="canary")
    world.clock.advance(TTL_S)
    assert world.run(rid)["ok"] is True  # exactly at expires_at: in time

    late = deploy_world()
    late.call(CANARY)
    rid = late.asked().request_id
    late.flow.answer(rid, "accept", choice="canary")
    late.clock.advance(TTL_S + 0.5)
    error = error_of(late.run(rid))
    assert (error["code"], error["operation_state"]) == ("approval_invalid", "not_applied")
    assert "expired" in error["message"]
    assert late.flow.request(rid).state == "expired"
    assert late.flow.audit[-1].event == "expired"
    assert error_of(late.run(rid))["code"] == "approval_invalid"  # and stays refused
    assert late.deployments.done == []


def test_another_sessions_flow_cannot_use_the_approval() -> None:
    mine = deploy_world(session="s1")
    theirs = deploy_world(session="s2", deployments=mine.deployments)  # one set of deployments
    mine.call(CANARY)
    rid = mine.asked().request_id
    accepted = mine.flow.answer(rid, "accept", choice="canary")
    # the other session's host knows no such request...
    with pytest.raises(ConfirmationError, match="no confirmation request"):
        theirs.run(rid)
    # ...and the approved call, made through ITS host, is a question of its own
    result = theirs.call(dict(accepted.approved_arguments or {}))
    assert error_of(result)["code"] == "confirmation_required"
    assert mine.deployments.done == []
    assert mine.flow.request(rid).state == "accepted"  # untouched, still single use
    (other,) = theirs.flow.requests
    assert other.session == "s2" and other.state == "asked"
    with pytest.raises(ConfirmationError):
        theirs.flow.request(rid)
    assert approval_problem(accepted, DEPLOY, CANARY, session="s2", now=0.0) == "other_session"
    assert mine.run(rid)["ok"] is True and mine.deployments.done == [("canary", "v2.4.1")]


@pytest.mark.parametrize("extra", [{"confirm": True}, {"approved": True}, {"confirm": "yes"}])
def test_a_confirm_argument_from_the_model_is_refused_and_approves_nothing(
    extra: dict[str, Any],
) -> None:
    world = deploy_world()
    error = error_of(world.call(CANARY | extra))
    assert error["code"] == "unknown_field" and error["field"] == next(iter(extra))
    assert world.log[-1].station == "schema_check"
    assert world.flow.requests == () and world.flow.audit == ()
    assert world.deployments.done == []
    # and it does not turn the question that follows into an approval either
    assert error_of(world.call(CANARY))["code"] == "confirmation_required"
    assert world.asked().state == "asked" and world.deployments.done == []


def test_a_call_the_policy_lets_through_runs_directly() -> None:
    world = deploy_world(lambda call: None)
    result = world.call(CANARY)
    assert result["ok"] is True and world.deployments.done == [("canary", "v2.4.1")]
    assert world.flow.requests == () and world.flow.audit == ()
    assert world.log[-1].station == "execution"


def test_a_formal_question_is_refused_without_a_request_and_audited() -> None:
    world = deploy_world()
    for attempt in (1, 2):
        error = error_of(world.call(ALL_HOSTS))
        assert (error["code"], error["operation_state"]) == ("confirmation_required", "not_applied")
        assert error["retry"] == "after_authorization"
        assert ROLLOUT_PLAN in error["message"]
        assert world.flow.requests == ()  # nothing the user could click
        assert len(world.flow.audit) == attempt
    assert world.deployments.done == []
    record = world.flow.audit[-1]
    assert record.event == "refused_formal" and record.detail == ROLLOUT_PLAN
    assert record.tool == DEPLOY and record.question == "Deploy v2.4.1 to all hosts?"
    assert dict(record.shown) == {"where": "all-hosts", "version": "v2.4.1"}
    assert record.arguments_digest == approval_digest(DEPLOY, ALL_HOSTS)
    assert json.loads(record.to_json())["event"] == "refused_formal"


def test_choosing_all_hosts_in_a_question_still_meets_the_formal_gate() -> None:
    world = deploy_world()
    world.call(CANARY)
    rid = world.asked().request_id
    world.flow.answer(rid, "accept", choice="all-hosts")
    error = error_of(world.run(rid))
    assert error["code"] == "confirmation_required" and ROLLOUT_PLAN in error["message"]
    assert world.deployments.done == [] and world.flow.request(rid).state == "accepted"
    assert world.flow.audit[-1].event == "refused_formal"


@pytest.mark.parametrize(
    ("decision", "code", "questions"),
    [
        (None, "confirmation_required", 1),  # still waiting: the same question
        ("decline", "approval_invalid", 1),  # declined: refused, never asked again
        ("cancel", "confirmation_required", 2),  # cancelled: asked once more, no more
    ],
)
def test_run_approved_of_a_request_not_accepted_runs_nothing(
    decision: Decision | None, code: str, questions: int
) -> None:
    world = deploy_world()
    world.call(CANARY)
    rid = world.asked().request_id
    if decision is not None:
        world.flow.answer(rid, decision)
    for _ in range(2):
        assert error_of(world.run(rid))["code"] == code
        assert error_of(world.call(CANARY))["code"] == code
    assert world.deployments.done == [] and len(world.flow.requests) == questions
    final = {None: "asked", "decline": "declined", "cancel": "cancelled"}[decision]
    assert world.flow.request(rid).state == final
    assert "executed" not in [r.event for r in world.flow.audit]


def test_after_an_executed_approval_a_new_call_gets_a_new_question() -> None:
    world = deploy_world()
    world.call(CANARY)
    first = world.asked().request_id
    world.flow.answer(first, "accept", choice="canary")
    assert world.run(first)["ok"] is True
    newer = CANARY | {"version": "v2.5.0"}
    assert error_of(world.call(newer))["code"] == "confirmation_required"
    second = world.asked()
    assert second.request_id != first and dict(second.arguments) == newer
    assert error_of(world.call(CANARY))["code"] == "approval_invalid"  # one approval, one run
    assert world.deployments.done == [("canary", "v2.4.1")]


# --------------------------------------------------------------------------- 3. property

VERSIONS = ("v2.4.1", "v2.4.2", "v3.0.0")
CHOICES = (*HOST_GROUPS, "qa", None)


class ConfirmationMachine(RuleBasedStateMachine):
    """Any interleaving of the model's calls, the user's answers, the host's runs (with the
    approved or altered arguments) and clock jumps, checked against the audit log."""

    def __init__(self) -> None:
        super().__init__()
        self.world = deploy_world()

    @property
    def flow(self) -> ConfirmationFlow:
        return self.world.flow

    def pick(self, index: int) -> ConfirmationRequest:
        return self.flow.requests[index % len(self.flow.requests)]

    def _ran_at_most_once(self, before: int, result: Envelope) -> None:
        after = len(self.world.deployments.done)
        assert after - before == (1 if result["ok"] else 0)

    @rule(group=st.sampled_from(HOST_GROUPS), version=st.sampled_from(VERSIONS))
    def model_calls(self, group: str, version: str) -> None:
        before = len(self.world.deployments.done)
        self._ran_at_most_once(before, self.world.call({"group": group, "version": version}))

    @precondition(lambda self: bool(self.flow.requests))
    @rule(
        index=st.integers(0, 20),
        decision=st.sampled_from(DECISIONS),
        choice=st.sampled_from(CHOICES),
    )
    def user_answers(self, index: int, decision: Decision, choice: str | None) -> None:
        request = self.pick(index)
        audit = len(self.flow.audit)
        try:
            answered = self.flow.answer(request.request_id, decision, choice=choice)
        except ConfirmationError:
            assert self.flow.request(request.request_id) == request  # nothing changed
            assert len(self.flow.audit) == audit
            return
        assert request.state == "asked" and answered.decision == decision
        assert len(self.flow.audit) == audit + 1

    @precondition(lambda self: any(r.state == "asked" for r in self.flow.requests))
    @rule(index=st.integers(0, 20), choice=st.sampled_from(HOST_GROUPS))
    def user_accepts_an_open_question(self, index: int, choice: str) -> None:
        # the common, well-formed answer (user_answers covers every other one)
        waiting = [r for r in self.flow.requests if r.state == "asked"]
        open_request = waiting[index % len(waiting)]
        accepted = self.flow.answer(open_request.request_id, "accept", choice=choice)
        assert accepted.state == "accepted" and accepted.expires_at is not None

    @precondition(lambda self: bool(self.flow.requests))
    @rule(index=st.integers(0, 20))
    def host_runs_the_approval(self, index: int) -> None:
        before = len(self.world.deployments.done)
        self._ran_at_most_once(before, self.world.run(self.pick(index).request_id))

    @precondition(lambda self: bool(self.flow.requests))
    @rule(index=st.integers(0, 20), version=st.sampled_from(VERSIONS))
    def someone_alters_the_arguments(self, index: int, version: str) -> None:
        request = self.pick(index)
        arguments = dict(request.approved_arguments or request.arguments) | {"version": version}
        before = len(self.world.deployments.done)
        self._ran_at_most_once(before, self.world.call(arguments))

    @rule(seconds=st.sampled_from([0.0, 1.0, TTL_S / 2, TTL_S, TTL_S + 0.001, 10 * TTL_S]))
    def clock_jumps(self, seconds: float) -> None:
        self.world.clock.advance(seconds)

    @invariant()
    def each_request_executes_at_most_once_and_never_after_a_refusal(self) -> None:
        history: dict[str, list[str]] = {}
        for record in self.flow.audit:
            history.setdefault(record.request_id, []).append(record.event)
        for request_id, seen in history.items():
            assert seen.count("executed") <= 1, (request_id, seen)
            if {"declined", "cancelled", "expired"} & set(seen):
                assert "executed" not in seen, (request_id, seen)
            if "executed" in seen:
                assert seen.index("accepted") < seen.index("executed")
        for request in self.flow.requests:
            if request.state in ("declined", "cancelled", "expired"):
                assert "executed" not in history[request.request_id]

    @invariant()
    def every_deploy_is_one_executed_approval_in_time(self) -> None:
        executed = [r for r in self.flow.audit if r.event == "executed"]
        approved = []
        for record in executed:
            request = self.flow.request(record.request_id)
            assert request.expires_at is not None and record.at <= request.expires_at
            args = request.approved_arguments or {}
            approved.append((args["group"], args["version"]))
        assert self.world.deployments.done == approved
        assert all(env != "all-hosts" for env, _ in approved)  # the formal gate holds


TestConfirmationMachine = ConfirmationMachine.TestCase
TestConfirmationMachine.settings = settings(max_examples=120, stateful_step_count=30, deadline=None)


# --------------------------------------------------------------------------- 4. front ends


def scripted(replies: list[str]) -> tuple[Callable[[str], str], list[str], list[str]]:
    """A terminal: ``read`` returns the replies in order; prompts and output are kept."""
    queue = list(replies)
    prompts: list[str] = []
    written: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return queue.pop(0)

    return read, prompts, written


@pytest.mark.parametrize(
    ("replies", "choice"),
    [(["1", "a"], "canary"), (["2", "accept"], "all-hosts"), ([" 2 ", " A "], "all-hosts")],
)
def test_the_terminal_accepts_a_numbered_choice(replies: list[str], choice: str) -> None:
    flow, _, rid = asked_flow()
    read, prompts, written = scripted(replies)
    answered = ask_in_terminal(flow, rid, read=read, write=written.append)
    assert (answered.state, answered.choice, answered.answered_by) == (
        "accepted",
        choice,
        "terminal",
    )
    assert written[0] == "Which hosts should run v2.4.1?"
    assert "  version: v2.4.1" in written
    assert written[-2:] == ["  1) canary", "  2) all-hosts"]  # numbered, none marked
    assert prompts == ["choose a number: ", "accept, decline or cancel? [a/d/c]: "]


def test_bad_numbers_three_times_cancel_the_question() -> None:
    flow, _, rid = asked_flow()
    read, prompts, written = scripted(["", "0", "3"])
    answered = ask_in_terminal(flow, rid, read=read, write=written.append)
    assert answered.state == "cancelled" and answered.choice is None
    assert prompts == ["choose a number: "] * 3
    assert written.count("  not one of the numbers above") == 3


def test_unreadable_answers_are_never_consent() -> None:
    flow, _, rid = asked_flow()
    read, prompts, written = scripted(["1", "yes", "", "ad"])
    answered = ask_in_terminal(flow, rid, read=read, write=written.append)
    assert answered.state == "cancelled" and answered.decision == "cancel"
    assert written.count("  type a, d or c") == 3 and len(prompts) == 4


def test_bad_inputs_then_an_explicit_cancel() -> None:
    flow, _, rid = asked_flow()
    read, _, written = scripted(["x", "1", "maybe", "c"])
    answered = ask_in_terminal(flow, rid, read=read, write=written.append)
    assert answered.state == "cancelled" and answered.answered_by == "terminal"


@pytest.mark.parametrize(
    ("reply", "state"),
    [("d", "declined"), ("Decline", "declined"), ("c", "cancelled"), ("a", "accepted")],
)
def test_a_question_without_candidates_asks_only_for_the_decision(reply: str, state: str) -> None:
    flow, _, rid = asked_flow(
        Question("Deploy v2.4.1 to the canary group?", shown={"where": "canary"})
    )
    read, prompts, written = scripted([reply])
    answered = ask_in_terminal(flow, rid, read=read, write=written.append, attempts=1)
    assert answered.state == state
    assert prompts == ["accept, decline or cancel? [a/d/c]: "]
    assert written == ["Deploy v2.4.1 to the canary group?", "  where: canary"]


def test_the_terminal_cannot_answer_a_question_twice() -> None:
    flow, _, rid = asked_flow()
    flow.answer(rid, "decline")
    read, _, written = scripted(["1", "a"])
    with pytest.raises(ConfirmationError):
        ask_in_terminal(flow, rid, read=read, write=written.append)
    assert flow.request(rid).state == "declined"


def _no_defaults(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "default" not in schema and all(_no_defaults(v) for v in schema.values())
    if isinstance(schema, list):
        return all(_no_defaults(v) for v in schema)
    return True


def test_elicitation_gives_a_flat_schema_with_the_candidates_and_no_default() -> None:
    flow, _, rid = asked_flow()
    form = elicitation_request(flow.request(rid))
    assert form["message"].splitlines() == ["Which hosts should run v2.4.1?", "version: v2.4.1"]
    schema = form["requestedSchema"]
    assert schema == {
        "type": "object",
        "properties": {"group": {"type": "string", "enum": list(HOST_GROUPS)}},
        "required": ["group"],
    }
    Draft202012Validator.check_schema(schema)
    assert all(
        p["type"] in ("string", "number", "integer", "boolean")
        for p in schema["properties"].values()
    )
    assert _no_defaults(form)  # nothing preselected
    json.dumps(form)


def test_elicitation_of_a_plain_yes_no_question_has_no_fields() -> None:
    flow, _, rid = asked_flow(Question("Post this comment?", shown={"comment": "Looks good."}))
    form = elicitation_request(flow.request(rid))
    assert form["requestedSchema"] == {"type": "object", "properties": {}, "required": []}
    assert form["message"] == "Post this comment?\ncomment: Looks good."


@pytest.mark.parametrize(
    ("result", "state", "choice"),
    [
        ({"action": "accept", "content": {"group": "canary"}}, "accepted", "canary"),
        ({"action": "accept", "content": {"group": "all-hosts"}}, "accepted", "all-hosts"),
        ({"action": "decline"}, "declined", None),
        ({"action": "decline", "content": {"group": "canary"}}, "declined", None),
        ({"action": "cancel"}, "cancelled", None),
    ],
)
def test_elicitation_results_map_one_to_one(
    result: dict[str, Any], state: str, choice: str | None
) -> None:
    flow, _, rid = asked_flow()
    answered = answer_from_elicitation(flow, rid, result)
    assert (answered.state, answered.choice, answered.answered_by) == (
        state,
        choice,
        "mcp_elicitation",
    )
    assert answered.decision == result["action"]


@pytest.mark.parametrize(
    "result",
    [
        {"action": "dismiss"},
        {"action": "ACCEPT", "content": {"group": "canary"}},
        {},
        {"action": None},
        {"action": "accept"},  # no content: no choice among the candidates
        {"action": "accept", "content": {"group": "qa"}},
        {"action": "accept", "content": "canary"},
    ],
)
def test_unknown_or_incomplete_elicitation_results_are_refused(result: dict[str, Any]) -> None:
    flow, _, rid = asked_flow()
    with pytest.raises(ConfirmationError):
        answer_from_elicitation(flow, rid, result)
    assert flow.request(rid).state == "asked" and len(flow.audit) == 2


# --------------------------------------------------------------------------- 5. emulator

REPO, PR = "example/shop", 128
CREATE, STATUS = "github_pr_create_comment", "github_pr_get_comment_status"
KEY = "review-128-confirmed-1"
COMMENT = {
    "repository": REPO,
    "pr": PR,
    "body": "Summary: the retry loop never stops on a 4xx.",
    "idempotency_key": KEY,
}


def comment_policy(call: PendingCall) -> Question | None:
    """Ask before every post (where, and the exact body); reads run directly."""
    if call.tool.name != CREATE:
        return None
    where = f"{call.arguments['repository']} PR #{call.arguments['pr']}"
    return Question(
        f"Post this comment on {where}?",
        shown={"where": where, "comment": call.arguments["body"]},
    )


@pytest.fixture
def review() -> Iterator[tuple[Any, WriteContext, Registry]]:
    plan = FaultPlan.parse("commit_then_timeout:0.5")  # stored, then the answer is lost
    with (
        serve_in_process(build_store(), faults=plan) as handle,
        GitHubClient(handle.base_url, timeout_s=0.25, transport=handle.transport()) as client,
    ):
        context = WriteContext(client, sleep=lambda seconds: None)
        yield handle, context, Registry(write_tool_specs(context))


def test_a_confirmed_comment_lands_once_although_its_answer_was_lost(
    review: tuple[Any, WriteContext, Registry],
) -> None:
    handle, context, registry = review
    host = Host(
        registry,
        access={CREATE: github_access("write"), STATUS: github_access("read")},
        scope=TaskScope(repositories=frozenset({REPO}), grants=frozenset({"read", "write"})),
        confirm={CREATE: comment_policy},
        clock=ManualClock(),
        session="review-1",
    )
    flow = host.flow

    def marked() -> list[Mapping[str, Any]]:
        comments = [{"id": c.id, "body": c.body} for c in handle.store.issue_comments(REPO, PR)]
        return find_marked(comments, KEY)

    first = host.call(CREATE, COMMENT)
    assert error_of(first)["code"] == "confirmation_required"
    assert write_status(first) == "not_posted"
    assert handle.requests == [] and context.events == []  # GitHub not even read
    (request,) = flow.requests
    assert dict(request.question.shown) == {
        "where": "example/shop PR #128",
        "comment": COMMENT["body"],
    }
    flow.answer(request.request_id, "accept", by="reviewer")

    result = host.run_approved(request.request_id)
    ENVELOPE.validate(result)
    assert result["ok"] is True
    assert write_status(result) == "already_posted"  # the lost answer, settled by read-back
    assert result["data"]["evidence"] == "found_by_marker"
    assert [r.method for r in handle.requests].count("POST") == 1
    assert [e.step for e in context.events if e.step in ("post", "failure", "read_back")] == [
        "post",
        "failure",
        "read_back",
    ]
    (comment,) = marked()
    assert comment["id"] == result["data"]["comment_id"]
    check = host.call(STATUS, {"repository": REPO, "pr": PR, "idempotency_key": KEY})
    assert check["ok"] is True and check["data"]["state"] == "posted"
    assert check["data"]["comment_id"] == comment["id"]
    assert flow.request(request.request_id).state == "executed"

    requests_before = len(handle.requests)
    comments_before = len(handle.store.issue_comments(REPO, PR))
    again = host.run_approved(request.request_id)
    assert error_of(again)["code"] == "approval_invalid"
    assert write_status(again) == "not_posted"
    assert len(handle.requests) == requests_before  # refused before GitHub
    assert len(handle.store.issue_comments(REPO, PR)) == comments_before
    assert len(marked()) == 1
    assert [r.event for r in flow.audit] == ["prepared", "asked", "accepted", "executed"]
    assert flow.audit[2].by == "reviewer"
    assert all(dict(r.shown)["comment"] == COMMENT["body"] for r in flow.audit)
