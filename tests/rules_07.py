"""Rule tables of chapter 07's exercise (see tests/rule_harness.py): one mutant per rule,
each the solution's answer with exactly that rule broken the way a learner might."""

from __future__ import annotations

from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.core.confirmation import approval_digest
from tutorial_lib.course.chapters.ch07_user_confirmation.cases import (
    APPROVAL_ALLOWS_RULES,
    APPROVAL_CASES,
    approval_hidden_cases,
    library_approval_allows,
)
from tutorial_lib.language import source_text

_FLAGS = ("approved", "confirm", "user_confirmed")


def make_approval_allows(flaw: str = "") -> Any:
    """The solution's approval_allows, with the one rule ``flaw`` names broken."""

    def approval_allows(
        approval: dict[str, Any], call: dict[str, Any], *, session: str, now: float
    ) -> dict[str, Any]:
        def refused(problem: str) -> dict[str, Any]:
            return {"allowed": False, "problem": problem}

        state = approval["state"]
        arguments = call["arguments"]
        if approval["session"] != session and flaw != "other_session":
            return refused("other_session")
        same_tool = approval["tool"] == call["tool"]
        if flaw == "工具名区分大小写":
            same_tool = approval["tool"].casefold() == call["tool"].casefold()
        if not same_tool and flaw != "other_tool":
            return refused("other_tool")
        if state == "executed" and flaw != "used":
            return refused("used")
        late = (
            now >= approval["expires_at"]
            if flaw == "恰好等于截止时刻还有效"
            else (now > approval["expires_at"])
        )
        if flaw == "按顺序检查" and late:
            return refused("expired")  # the time before the state
        accepted = state == "accepted"
        if flaw == "not_accepted":
            accepted = state not in ("declined", "asked")
        if flaw == "参数里的标志不是回答":
            accepted = accepted or any(arguments.get(f) is True for f in _FLAGS)
        if not accepted:
            return refused("not_accepted")
        if late and flaw != "expired":
            return refused("expired")
        if flaw == "多了 confirm 也是另一组参数":
            arguments = {k: v for k, v in arguments.items() if k not in _FLAGS}
        if flaw != "other_arguments" and approval["digest"] != approval_digest(
            call["tool"], arguments
        ):
            return refused("other_arguments")
        return {"allowed": True}

    return approval_allows


EXERCISES = [
    Exercise(
        name="07.approval_allows",
        rules=APPROVAL_ALLOWS_RULES,
        visible=APPROVAL_CASES,
        hidden=lambda: approval_hidden_cases(),
        reference=library_approval_allows,
        mutants={
            source_text(rule.name): make_approval_allows(source_text(rule.name))
            for rule in APPROVAL_ALLOWS_RULES
        },
    ),
]
