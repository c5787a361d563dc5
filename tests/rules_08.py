"""Rule tables of chapter 08's exercises (see tests/rule_harness.py): one mutant per rule,
each the solution's answer with exactly that rule broken the way a learner might."""

from __future__ import annotations

from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.course.chapters.ch08_walkthrough_and_evaluation.cases import (
    FIRST_CALL_CASES,
    FIRST_CALL_INVALID_RATIO_RULES,
    FIX_CASES,
    FIX_FOR_RULES,
    first_call_hidden_cases,
    library_first_call_invalid_ratio,
    library_fix_for,
)
from tutorial_lib.language import source_text


def make_first_call_invalid_ratio(flaw: str = "") -> Any:
    """The solution's first_call_invalid_ratio, with the one rule ``flaw`` names broken."""

    def first_call_invalid_ratio(runs: list[list[dict[str, Any]]]) -> Any:
        made = [run for run in runs if run]
        if not made:
            return 0.0 if flaw == "没有可衡量的运行返回 None" else None
        if flaw == "按运行计数":
            calls = [step for run in made for step in run]
            return sum(not step["ok"] for step in calls) / len(calls)
        if flaw == "第一次失败就算无效":
            bad = sum(not run[-1]["ok"] for run in made)
        elif flaw == "后面的失败不算":
            bad = sum(not all(step["ok"] for step in run) for run in made)
        else:
            bad = sum(not run[0]["ok"] for run in made)
        if flaw == "空运行不进分母":
            return bad / len(runs)
        if flaw == "返回一个数":
            return f"{bad}/{len(made)}"
        if flaw == "不要四舍五入":
            return round(bad / len(made), 2)
        return bad / len(made)

    return first_call_invalid_ratio


_FIX_MUTANTS = {
    "返回上表的改进名": lambda failure: library_fix_for(failure).upper(),
    "每段失败单独判断": lambda failure: "rich_errors",  # the most frequent fix, for all
}

EXERCISES = [
    Exercise(
        name="08.first_call_invalid_ratio",
        rules=FIRST_CALL_INVALID_RATIO_RULES,
        visible=FIRST_CALL_CASES,
        hidden=lambda: first_call_hidden_cases(),
        reference=library_first_call_invalid_ratio,
        mutants={
            source_text(rule.name): make_first_call_invalid_ratio(source_text(rule.name))
            for rule in FIRST_CALL_INVALID_RATIO_RULES
        },
    ),
    Exercise(
        name="08.fix_for",
        rules=FIX_FOR_RULES,
        visible=FIX_CASES,
        # no hidden cases by design: the ten failures are the whole table (the visible
        # cases), so the "hidden" run is the visible one again
        hidden=lambda: FIX_CASES,
        reference=library_fix_for,
        mutants=_FIX_MUTANTS,
    ),
]
