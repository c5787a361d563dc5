"""Rule tables: every rule an exercise states, and the cases that hold a solution to it.

A check that passes a wrong answer is a defect. So each exercise lists the rules its task
text states, one :class:`Rule` each, and for every rule:

- ``visible``: the name of a case of the exercise's visible table that fails an answer
  breaking ONLY this rule (the learner sees which rule their answer broke);
- ``hidden``: what the hidden generator varies for this rule (the dimension: case,
  whitespace, order, encodings, look-alike hosts, every tool that can reach a secret,
  every approval state...), so code fitted to the visible cases still fails.

A solution notebook prints its table with :func:`rule_table`; ``tests/test_rule_tables.py``
proves each row: the named visible case exists, and an answer that breaks only that rule
(a "mutant" kept with the tests) fails it, while the reference passes every case.

Names are bilingual (:class:`~tutorial_lib.language.Text`) and identified by their
Chinese source: a rule points at its visible case with :func:`case_named`, which finds the
case by that source and returns its name, so the English is written once, on the case.

The tables are data: each chapter's home keeps them in ``rules.json`` (table name -> rows of
``name``, ``statement``, ``visible``, ``hidden``, each ``{"zh": ..., "en": ...}`` or a
string; a ``visible`` of ``{"case": source}`` names the visible case by its Chinese
source), and
:func:`load_rules` builds the :class:`Rule` objects.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from tutorial_lib.course.chapters import homes
from tutorial_lib.course.checks import Case
from tutorial_lib.course.table import wrap
from tutorial_lib.language import Text, source_text, tr

__all__ = ["Rule", "case_named", "load_rules", "rule_table", "rules_without_cases"]


@dataclass(frozen=True)
class Rule:
    """One rule an exercise states: its name, the sentence that states it (as the task
    text words it), the visible case that catches an answer breaking only this rule, and
    what the hidden cases vary for it."""

    name: str | Text
    statement: str | Text
    visible: str | Text
    hidden: str | Text

    def __post_init__(self) -> None:
        for field_name in ("name", "statement", "visible", "hidden"):
            if not str(getattr(self, field_name)).strip():
                raise ValueError(f"a Rule needs a non-empty {field_name}")


def case_named(cases: Sequence[Case], source: str) -> str | Text:
    """The name of the case of ``cases`` whose Chinese source is ``source`` (what a rule's
    ``visible`` holds); a ``ValueError`` listing the table's names when there is none."""
    for case in cases:
        if source_text(case.name) == source:
            return case.name
    known = ", ".join(source_text(case.name) for case in cases)
    raise ValueError(f"no case named {source!r} in this table; its cases: {known}")


def rules_without_cases(rules: Sequence[Rule], cases: Sequence[Case]) -> list[str]:
    """The rules whose ``visible`` case is not in ``cases`` (by the names' Chinese source),
    as the rules' source names: each one a defect of the exercise's table."""
    names = {source_text(case.name) for case in cases}
    return [source_text(rule.name) for rule in rules if source_text(rule.visible) not in names]


def rule_table(rules: Sequence[Rule], width: int = 92) -> str:
    """The rules as text a notebook prints: per rule, what it says, the visible case that
    catches an answer breaking it, and what the hidden cases vary (wrapped to ``width``
    display columns)."""
    lines: list[str] = []
    for number, rule in enumerate(rules, 1):
        name, statement, visible, hidden = rule.name, rule.statement, rule.visible, rule.hidden
        lines += wrap(
            tr(f"{number}. {name}：{statement}", f"{number}. {name}: {statement}"), width, "   "
        )
        lines += wrap(tr(f"   可见用例：{visible}", f"   Visible case: {visible}"), width, "     ")
        lines += wrap(
            tr(f"   隐藏用例变化：{hidden}", f"   Hidden cases vary: {hidden}"), width, "     "
        )
    return "\n".join(lines)


def _text(value: Any) -> str | Text:
    if isinstance(value, Mapping):
        return Text(zh=str(value["zh"]), en=str(value["en"]))
    return str(value)


@cache
def _rules_data(chapter: str) -> Mapping[str, Any]:
    home = homes().get(chapter)
    if home is None:
        raise ValueError(f"no chapter {chapter!r}")
    data: Mapping[str, Any] = json.loads(home.joinpath("rules.json").read_text("utf-8"))
    return data


def _visible(value: Any, cases: Sequence[Case]) -> str | Text:
    if isinstance(value, Mapping) and "case" in value:
        return case_named(cases, str(value["case"]))
    return _text(value)


def load_rules(chapter: str, table: str, cases: Sequence[Case] = ()) -> tuple[Rule, ...]:
    """The rule table ``table`` of ``chapter`` (two digits), from its home's ``rules.json``:
    a row's ``visible`` is ``{"case": source}`` for the case of ``cases`` whose name has
    that Chinese source (:func:`case_named`), or a name of its own (a string, or
    ``{"zh", "en"}``)."""
    rows = _rules_data(chapter).get(table)
    if rows is None:
        raise ValueError(f"chapter {chapter} has no rule table {table!r}")
    return tuple(
        Rule(
            _text(row["name"]),
            _text(row["statement"]),
            _visible(row["visible"], cases),
            _text(row["hidden"]),
        )
        for row in rows
    )
