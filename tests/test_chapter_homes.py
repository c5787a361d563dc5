"""Each chapter has one home (issue 37): ``tutorial_lib/course/chapters/chNN_topic/`` with
its cases, its rule tables as data, its demos and its quiz; nothing of a chapter lives
elsewhere in ``course/``, and every text a learner reads there is in both languages."""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path

import pytest

from tutorial_lib.course.chapters import homes, quiz_file
from tutorial_lib.course.rules import Rule

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "tutorial_lib" / "course"
HAN = re.compile(r"[\u4e00-\u9fff]")
CHAPTERS = sorted(path.name[:2] for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_every_chapter_has_one_home_with_its_files() -> None:
    assert list(homes()) == CHAPTERS
    for number, home in homes().items():
        names = {entry.name for entry in home.iterdir()}
        assert {"__init__.py", "cases.py", "rules.json", "quiz.json"} <= names, number
        assert json.loads(quiz_file(number).read_text("utf-8"))["chapter"] == number


def test_nothing_of_a_chapter_lives_outside_its_home() -> None:
    for gone in ("cases", "demos", "quiz_bank"):
        assert not (COURSE / gone).exists(), f"course/{gone}/ should be in the homes"
    data = sorted(p.relative_to(COURSE).as_posix() for p in COURSE.rglob("*.json"))
    assert all(re.fullmatch(r"chapters/ch\d\d_[a-z0-9_]+/(rules|quiz)\.json", p) for p in data)


@pytest.mark.parametrize("number", CHAPTERS)
def test_rule_tables_are_data_and_every_text_is_bilingual(number: str) -> None:
    home = Path(str(homes()[number]))
    tables = json.loads((home / "rules.json").read_text("utf-8"))
    source = (home / "cases.py").read_text("utf-8")
    # no rule is written as code any more: each table is loaded from the data
    calls = {
        getattr(node.func, "id", getattr(node.func, "attr", ""))
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
    }
    assert "Rule" not in calls
    module = importlib.import_module(f"tutorial_lib.course.chapters.{home.name}.cases")
    for table, rows in tables.items():
        loaded = getattr(module, table)
        assert len(loaded) == len(rows) and all(isinstance(r, Rule) for r in loaded), table
        for row in rows:
            for part in ("name", "statement", "visible", "hidden"):
                value = row[part]
                if isinstance(value, dict) and "case" in value:
                    continue  # a case's name, bilingual on the case (case_named)
                if isinstance(value, dict):
                    assert value["zh"].strip() and value["en"].strip(), (table, part)
                    assert not HAN.search(value["en"]), (table, part, value["en"])
                else:  # an identifier or a shared English name: never Chinese alone
                    assert not HAN.search(value), (table, part, value)
