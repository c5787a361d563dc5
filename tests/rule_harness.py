"""What tests/test_rule_tables.py proves for each exercise, and the shape an exercise's
entry takes (one ``tests/rules_NN.py`` per chapter lists its ``EXERCISES``).

For an exercise: its rule table names only visible cases that exist; the library's
reference passes every visible and hidden case; and for EVERY rule there is a mutant, an
answer that breaks only that rule, which fails the rule's visible case (so the learner's
report points at the rule) and fails the hidden cases too (so an autograder sees it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tutorial_lib.course.checks import Case, run_cases
from tutorial_lib.course.rules import Rule, rules_without_cases
from tutorial_lib.language import source_text


@dataclass(frozen=True)
class Exercise:
    """One exercise function (``name``: "NN.function", e.g. "06.may_run"): its rules, its
    visible and hidden cases, the reference, and one mutant per rule (rule name -> a wrong
    answer breaking only that rule)."""

    name: str
    rules: Sequence[Rule]
    visible: Sequence[Case]
    hidden: Callable[[], Sequence[Case]]
    reference: Callable[..., Any]
    mutants: Mapping[str, Callable[..., Any]]
    key: Callable[[Any], Any] | None = None
    time_limit_s: float = 2.0
    extra: Mapping[str, Any] = field(default_factory=dict)


def failing(function: Callable[..., Any], cases: Sequence[Case], exercise: Exercise) -> list[str]:
    """The names (Chinese source) of the cases ``function`` does not pass."""
    report = run_cases(function, cases, key=exercise.key, time_limit_s=exercise.time_limit_s)
    return [source_text(r.case.name) for r in report.results if not r.passed]


def fails_some(function: Callable[..., Any], cases: Sequence[Case], exercise: Exercise) -> bool:
    """Whether ``function`` fails at least one of ``cases``: the cases run in order, and
    the first failure ends the search (a mutant that fails the third of 80 hidden cases
    need not run the other 77; each may serve a tool over MCP)."""
    return any(failing(function, [case], exercise) for case in cases)


def problems(exercise: Exercise) -> list[str]:
    """Everything wrong with ``exercise``'s rule table and cases (empty when sound)."""
    found = [
        f"rule {name}: its visible case is missing"
        for name in rules_without_cases(exercise.rules, exercise.visible)
    ]
    hidden = list(exercise.hidden())
    wrong_visible = failing(exercise.reference, exercise.visible, exercise)
    if wrong_visible:
        found.append(f"the reference fails visible cases {wrong_visible}")
    wrong_hidden = failing(exercise.reference, hidden, exercise)
    if wrong_hidden:
        found.append(f"the reference fails hidden cases {wrong_hidden[:3]}")
    names = [source_text(rule.name) for rule in exercise.rules]
    for name in names:
        if name not in exercise.mutants:
            found.append(f"rule {name}: no mutant breaks it")
    for name, mutant in exercise.mutants.items():
        if name not in names:
            found.append(f"mutant {name}: no rule of that name")
            continue
        rule = next(r for r in exercise.rules if source_text(r.name) == name)
        visible = source_text(rule.visible)
        if visible not in failing(mutant, exercise.visible, exercise):
            found.append(f"rule {name}: the mutant passes its visible case {visible!r}")
        if not fails_some(mutant, hidden, exercise):
            found.append(f"rule {name}: the mutant passes every hidden case")
    return found


def languages(text: object) -> tuple[str, ...]:
    """Every language version of a hint: (zh, en) for a ``Text``, else the string itself."""
    from tutorial_lib.language import Text

    return (text.zh, text.en) if isinstance(text, Text) else (str(text),)
