"""Every stated rule of every exercise has a visible case and hidden cases that fail an
answer breaking only that rule (see tests/rule_harness.py)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tests.rule_harness import Exercise, problems
from tests.test_language import CJK
from tutorial_lib.course.rules import rule_table
from tutorial_lib.language import LANGUAGE_VARIABLE, source_text

MODULES = sorted(p.stem for p in Path(__file__).parent.glob("rules_[0-9][0-9].py"))


def exercises() -> list[Exercise]:
    found: list[Exercise] = []
    for module in MODULES:
        found += importlib.import_module(f"tests.{module}").EXERCISES
    return found


@pytest.mark.parametrize("exercise", exercises(), ids=lambda e: e.name)
def test_every_rule_has_a_case_that_fails_an_answer_breaking_only_it(exercise: Exercise) -> None:
    assert not problems(exercise), "\n".join(problems(exercise))


@pytest.mark.parametrize("exercise", exercises(), ids=lambda e: e.name)
def test_an_english_learner_reads_every_case_name_hint_and_rule_in_english(
    exercise: Exercise, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a check prints about a case (its name, its hint) and the printed rule table
    have no Chinese left in the English edition; the visible names stay unique in both
    languages (a report line must say which case it is)."""
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    chinese = [
        f"case {source_text(case.name)!r}: its {part} {str(text)!r}"
        for case in [*exercise.visible, *exercise.hidden()]
        for part, text in (("name", case.name), ("hint", case.hint))
        if CJK.search(str(text))
    ]
    chinese += [
        f"rule table: {line.strip()}"
        for line in rule_table(exercise.rules).splitlines()
        if CJK.search(line)
    ]
    assert not chinese, "Chinese in the English edition:\n" + "\n".join(chinese)
    for shown in (str, source_text):
        names = [shown(case.name) for case in exercise.visible]
        assert len(names) == len(set(names)), f"two visible cases share a name: {names}"


def test_every_exercise_function_has_a_rule_table() -> None:
    """The exercises of solutions/ (their functions, as "NN.name") all have an entry."""
    import json
    import re

    root = Path(__file__).resolve().parents[1]
    functions = set()
    for solution in sorted((root / "solutions").glob("*_solution.ipynb")):
        chapter = solution.name[:2]
        for cell in json.loads(solution.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if "### BEGIN SOLUTION" in source:
                found = re.findall(r"^def (\w+)\(", source, re.M)
                functions |= {f"{chapter}.{name}" for name in found}
    covered = {exercise.name for exercise in exercises()}
    assert functions <= covered, f"exercises without a rule table: {sorted(functions - covered)}"
