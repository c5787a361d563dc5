"""Chapter 07's exercise table: ``approval_allows`` (the approval check).

- the library's reference passes every visible and hidden case; the visible table has a
  case for every problem and for every priority between two problems that can meet;
- the exercise's plain data is a real flow's request: :func:`approval_record` of a
  :class:`ConfirmationFlow` request gets the answers the flow itself gives;
- a learner-style solution in plain code passes every case, and each of its wrong
  variants fails a visible case whose name names its rule; a solution fitted to the
  visible rows fails the hidden ones.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from tests.rule_harness import languages
from tutorial_lib.core.confirmation import (
    APPROVAL_PROBLEMS,
    ConfirmationFlow,
    Question,
    approval_digest,
)
from tutorial_lib.course.chapters.ch07_user_confirmation.cases import (
    APPROVAL_CASES,
    approval_hidden_cases,
    approval_record,
    library_approval_allows,
)
from tutorial_lib.course.checks import Case, check_hidden, run_cases
from tutorial_lib.language import source_text

ALLOWED = {"allowed": True}


def refused(problem: str) -> dict[str, Any]:
    return {"allowed": False, "problem": problem}


def failing(function: Callable[..., Any], cases: tuple[Case, ...]) -> list[str]:
    """The names (Chinese source) of the cases ``function`` does not pass."""
    return [source_text(r.case.name) for r in run_cases(function, cases).results if not r.passed]


def outcome(case: Case) -> str:
    return str(case.expected.get("problem", "allowed"))


# --------------------------------------------------------------------------- the reference


def test_the_library_passes_every_visible_case() -> None:
    report = run_cases(library_approval_allows, APPROVAL_CASES)
    assert report.all_passed, "\n".join(report.lines())


def test_the_library_passes_every_hidden_case(capsys: pytest.CaptureFixture[str]) -> None:
    hidden = approval_hidden_cases()
    assert len(hidden) == 200
    check_hidden(library_approval_allows, hidden)
    out = capsys.readouterr().out
    assert out.startswith("隐藏测试 library_approval_allows：200 个生成的输入")
    assert hidden == approval_hidden_cases()  # seeded: the same on every run
    assert hidden != approval_hidden_cases(seed=1)
    assert len(approval_hidden_cases(n=17)) == 17


def test_the_hidden_cases_meet_every_problem_and_let_some_through() -> None:
    outcomes = Counter(outcome(case) for case in approval_hidden_cases())
    assert set(outcomes) == {*APPROVAL_PROBLEMS, "allowed"}
    assert min(outcomes.values()) >= 10, outcomes
    states = Counter(case.args[0]["state"] for case in approval_hidden_cases())
    assert set(states) == {"accepted", "executed", "declined", "cancelled", "asked", "expired"}


def test_the_visible_table_has_a_case_for_every_problem() -> None:
    outcomes = Counter(outcome(case) for case in APPROVAL_CASES)
    assert set(outcomes) == {*APPROVAL_PROBLEMS, "allowed"}
    assert all(case.expected["allowed"] is (case.expected == ALLOWED) for case in APPROVAL_CASES)
    assert len(APPROVAL_CASES) <= 40  # one printed line each: the check fits a notebook cell
    states = {case.args[0]["state"] for case in APPROVAL_CASES}
    assert states == {"accepted", "executed", "declined", "cancelled", "asked", "expired"}


def test_names_are_distinct_and_hints_name_the_rule() -> None:
    names = [source_text(case.name) for case in APPROVAL_CASES]
    assert len(set(names)) == len(names), names
    for case in APPROVAL_CASES:
        assert all(text.strip() for text in languages(case.hint)), case.name
        if not case.expected["allowed"]:
            assert all(case.expected["problem"] in text for text in languages(case.hint)), case.name
            problem = case.expected["problem"]
            assert all(problem in text for text in languages(case.name)), case.name


def problems_present(case: Case) -> set[str]:
    """Every problem the case's input has, each judged on its own (no order)."""
    approval, call = case.args
    present = set()
    if approval["session"] != case.kwargs["session"]:
        present.add("other_session")
    if approval["tool"] != call["tool"]:
        present.add("other_tool")
    if approval["state"] == "executed":
        present.add("used")
    elif approval["state"] != "accepted":
        present.add("not_accepted")
    if case.kwargs["now"] > approval["expires_at"]:
        present.add("expired")
    if approval["digest"] != approval_digest(call["tool"], call["arguments"]):
        present.add("other_arguments")
    return present


def test_the_expected_problem_is_the_first_present_in_the_librarys_order() -> None:
    for case in (*APPROVAL_CASES, *approval_hidden_cases()):
        present = [p for p in APPROVAL_PROBLEMS if p in problems_present(case)]
        assert outcome(case) == (present[0] if present else "allowed"), case.name


def test_the_visible_table_shows_every_priority_between_two_problems() -> None:
    """For each pair of problems that can meet (all but not_accepted with used, two
    states), a case that has both and expects the first."""
    shown = set()
    for case in APPROVAL_CASES:
        present = problems_present(case)
        first = outcome(case)
        shown |= {(first, other) for other in present - {first}}
    impossible = {("not_accepted", "used"), ("used", "not_accepted")}  # two states, never both
    pairs = set(itertools.combinations(APPROVAL_PROBLEMS, 2)) - impossible
    assert pairs <= shown, sorted(pairs - shown)


def test_the_boundary_and_the_moment_after_are_both_in_the_table() -> None:
    at = [c for c in APPROVAL_CASES if c.kwargs["now"] == c.args[0]["expires_at"]]
    assert [outcome(c) for c in at] == ["allowed"]
    late = [c for c in APPROVAL_CASES if 0 < c.kwargs["now"] - c.args[0]["expires_at"] <= 0.01]
    assert "expired" in {outcome(c) for c in late}


def test_a_model_made_confirm_flag_changes_the_digest() -> None:
    (case,) = [c for c in APPROVAL_CASES if "confirm" in c.args[1]["arguments"]]
    assert case.args[1]["arguments"]["confirm"] is True
    assert outcome(case) == "other_arguments"
    without = {k: v for k, v in case.args[1]["arguments"].items() if k != "confirm"}
    assert approval_digest(case.args[1]["tool"], without) == case.args[0]["digest"]


def test_an_unknown_state_is_not_an_exercise_input() -> None:
    approval = {**APPROVAL_CASES[0].args[0], "state": "approved"}
    with pytest.raises(ValueError, match="unknown approval state"):
        library_approval_allows(approval, APPROVAL_CASES[0].args[1], session="review-1", now=0.0)


# --------------------------------------------------------------------------- a real flow


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_plain_data_of_a_real_flow_gets_the_flows_answers() -> None:
    clock = FakeClock()
    flow = ConfirmationFlow("review-1", clock=clock, ttl_s=300.0)
    arguments: dict[str, Any] = {"service": "shop", "version": "2.4.1", "group": None}
    question = Question(
        "Which hosts should run shop 2.4.1?", choose="group", candidates=("canary", "all-hosts")
    )
    request = flow.ask(flow.prepare("deploy_release", arguments, question).request_id)
    chosen: dict[str, Any] = {**arguments, "group": "canary"}
    call = {"tool": "deploy_release", "arguments": chosen}
    asked = approval_record(request)
    assert asked["expires_at"] is None and asked["digest"] is None
    assert library_approval_allows(asked, call, session="review-1", now=1000.0) == refused(
        "not_accepted"
    )

    accepted = approval_record(flow.answer(request.request_id, "accept", choice="canary"))
    assert accepted["expires_at"] == 1300.0
    answers = {
        "chosen": library_approval_allows(accepted, call, session="review-1", now=1300.0),
        "other": library_approval_allows(
            accepted,
            {**call, "arguments": {**arguments, "group": "all-hosts"}},
            session="review-1",
            now=1100.0,
        ),
        "late": library_approval_allows(accepted, call, session="review-1", now=1300.001),
        "elsewhere": library_approval_allows(accepted, call, session="review-2", now=1100.0),
    }
    assert answers == {
        "chosen": ALLOWED,
        "other": refused("other_arguments"),
        "late": refused("expired"),
        "elsewhere": refused("other_session"),
    }
    clock.now = 1100.0
    used = flow.consume("deploy_release", chosen)
    assert used is not None
    assert library_approval_allows(
        approval_record(used), call, session="review-1", now=1100.0
    ) == refused("used")


# --------------------------------------------------------------------------- learner solutions


def make_approval_allows(flaw: str | None = None) -> Callable[..., dict[str, Any]]:
    """A learner's ``approval_allows`` in plain code; ``flaw`` breaks one rule or order."""

    def digest_of(call: dict[str, Any]) -> str:
        arguments = dict(call["arguments"])
        if flaw == "strip_confirm":  # wrong: "the model's flag is harmless, ignore it"
            arguments.pop("confirm", None)
        if flaw == "own_unsorted_digest":  # wrong: JSON without sorted keys
            text = json.dumps(
                {"arguments": arguments, "tool": call["tool"]},
                ensure_ascii=True,
                separators=(",", ":"),
            )
            return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()
        return approval_digest(call["tool"], arguments)

    def state_problem(approval: dict[str, Any]) -> str | None:
        state = approval["state"]
        if flaw == "expired_state_is_expired" and state == "expired":
            return "expired"
        if flaw == "executed_as_accepted" and state == "executed":
            return None
        if flaw == "executed_as_not_accepted" and state == "executed":
            return "not_accepted"
        if flaw == "only_executed_refused" and state != "executed":
            return None
        if state == "executed":
            return "used"
        if state != "accepted":
            return "not_accepted"
        return None

    def time_problem(approval: dict[str, Any], now: float) -> str | None:
        if flaw == "lt_expiry":
            return None if now < approval["expires_at"] else "expired"
        return None if now <= approval["expires_at"] else "expired"

    def arguments_problem(approval: dict[str, Any], call: dict[str, Any]) -> str | None:
        if flaw == "tool_only":
            return None
        return None if digest_of(call) == approval["digest"] else "other_arguments"

    def approval_allows(
        approval: dict[str, Any], call: dict[str, Any], *, session: str, now: float
    ) -> dict[str, Any]:
        if flaw == "confirm_approves" and call["arguments"].get("confirm") is True:
            return {"allowed": True}
        checks: list[Callable[[], str | None]] = [
            lambda: (
                None
                if flaw == "ignore_session" or approval["session"] == session
                else "other_session"
            ),
            lambda: None if approval["tool"] == call["tool"] else "other_tool",
            lambda: state_problem(approval),
            lambda: time_problem(approval, now),
            lambda: arguments_problem(approval, call),
        ]
        if flaw == "tool_before_session":
            checks[0], checks[1] = checks[1], checks[0]
        if flaw == "expiry_before_state":
            checks[2], checks[3] = checks[3], checks[2]
        if flaw == "digest_before_state":
            checks.insert(2, checks.pop(4))
        for check in checks:
            problem = check()
            if problem is not None:
                return {"allowed": False, "problem": problem}
        return {"allowed": True}

    return approval_allows


#: Each wrong solution, and a word that the name of a visible case it fails contains.
FLAWS = {
    "lt_expiry": "恰好等于 expires_at",
    "ignore_session": "other_session：另一个会话",
    "tool_before_session": "other_session 先于 other_tool",
    "digest_before_state": "先于 other_arguments",
    "executed_as_accepted": "used：第二次点击",
    "executed_as_not_accepted": "used：第二次点击",
    "only_executed_refused": "declined",
    "expired_state_is_expired": "状态是 expired",
    "expiry_before_state": "先于 expired",
    "tool_only": "改了一个字符",
    "strip_confirm": "confirm: true",
    "confirm_approves": "confirm: true",
    "own_unsorted_digest": "键换了顺序",
}


def test_a_learner_solution_in_plain_code_passes_every_case() -> None:
    approval_allows = make_approval_allows()
    report = run_cases(approval_allows, APPROVAL_CASES)
    assert report.all_passed, "\n".join(report.lines())
    hidden = run_cases(approval_allows, approval_hidden_cases())
    assert hidden.all_passed, "\n".join(hidden.lines())


@pytest.mark.parametrize(("flaw", "marker"), FLAWS.items())
def test_each_wrong_solution_fails_a_case_that_names_its_rule(flaw: str, marker: str) -> None:
    failed = failing(make_approval_allows(flaw), APPROVAL_CASES)
    assert failed, f"{flaw} passes every visible case"
    assert any(marker in name for name in failed), (flaw, failed)


def test_every_wrong_solution_fails_the_hidden_cases_too() -> None:
    hidden = approval_hidden_cases()
    missed = [flaw for flaw in FLAWS if not failing(make_approval_allows(flaw), hidden)]
    assert missed == []


def test_a_solution_fitted_to_the_visible_cases_fails_the_hidden_ones() -> None:
    visible = {repr((case.args, dict(case.kwargs))): case.expected for case in APPROVAL_CASES}

    def approval_allows(
        approval: dict[str, Any], call: dict[str, Any], *, session: str, now: float
    ) -> Any:
        key = repr(((approval, call), {"session": session, "now": now}))
        return visible.get(key, ALLOWED)

    assert run_cases(approval_allows, APPROVAL_CASES).all_passed
    hidden = approval_hidden_cases()
    assert run_cases(approval_allows, hidden).passed < 0.4 * len(hidden)
    with pytest.raises(AssertionError, match="differ from the reference"):
        check_hidden(approval_allows, hidden)
