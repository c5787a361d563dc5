"""Every stated rule of every exercise has a visible case and hidden cases that fail an
answer breaking only that rule (see tests/rule_harness.py)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tests.rule_harness import Exercise, problems

MODULES = sorted(p.stem for p in Path(__file__).parent.glob("rules_[0-9][0-9].py"))


def exercises() -> list[Exercise]:
    found: list[Exercise] = []
    for module in MODULES:
        found += importlib.import_module(f"tests.{module}").EXERCISES
    return found


@pytest.mark.parametrize("exercise", exercises(), ids=lambda e: e.name)
def test_every_rule_has_a_case_that_fails_an_answer_breaking_only_it(exercise: Exercise) -> None:
    assert not problems(exercise), "\n".join(problems(exercise))


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
