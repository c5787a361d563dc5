"""One language switch for everything a learner reads (tutorial_lib.language).

- ``Text`` and ``tr`` pick Chinese by default and English after ``use_language("en")``; a
  language the course is not written in is refused with the variable's name;
- the switch is an environment variable, so a fresh process started from the kernel (the
  grading process) speaks the same language;
- no learner-facing module keeps a Chinese string outside ``Text``/``tr``: the scan below
  reads every string literal of the course instruments and the confirmation questions
  (docstrings skipped; a line marked ``# data, not learner text`` is data, e.g. a Chinese
  file name in a test world). Each failure names the file, the line and the text.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tutorial_lib import language
from tutorial_lib.language import LANGUAGE_VARIABLE, Text, current_language, tr

PACKAGE = Path(__file__).resolve().parents[1] / "tutorial_lib"
CJK = re.compile(r"[\u4e00-\u9fff]")
DATA_MARK = "data, not learner text"
#: Modules whose strings a learner reads: the course instruments and the confirmation
#: questions the desk asks.
LEARNER_FACING = sorted((PACKAGE / "course").rglob("*.py")) + [PACKAGE / "worlds" / "desk.py"]
BILINGUAL_CALLS = {"Text", "tr"}
#: Arguments that are not learner text: ``case_named(cases, source)`` finds a case by the
#: Chinese source of its name (the name itself, shown to the learner, is a ``Text``).
IDENTIFIER_ARGUMENTS = {"case_named": (("source", 1),)}


def test_chinese_by_default_and_english_after_the_switch(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")  # recorded, so teardown restores it
    monkeypatch.delenv(LANGUAGE_VARIABLE)
    hint = Text(zh="行号从 1 开始。", en="Line numbers start at 1.")
    assert current_language() == "zh" and str(hint) == "行号从 1 开始。"
    assert f"提示：{hint}" == "提示：行号从 1 开始。"
    language.use_language("en")
    assert current_language() == "en" and str(hint) == "Line numbers start at 1."
    assert tr("是", "yes") == "yes" and f"[{hint:>26}]" == "[  Line numbers start at 1.]"
    assert Text("第 {n} 行", "line {n}").format(n=3) == "line 3"
    assert "hint: " + hint == "hint: Line numbers start at 1."


def test_an_unknown_language_is_refused_with_the_variable_name(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")
    with pytest.raises(ValueError, match="unknown language 'fr'.*zh, en"):
        language.use_language("fr")  # type: ignore[arg-type]
    monkeypatch.setenv(LANGUAGE_VARIABLE, "english")
    with pytest.raises(ValueError, match=LANGUAGE_VARIABLE):
        current_language()


def test_a_process_started_after_the_switch_speaks_the_same_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")  # recorded, so teardown restores it
    monkeypatch.delenv(LANGUAGE_VARIABLE)
    language.use_language("en")
    code = "from tutorial_lib.language import tr; print(tr('中文', 'English'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "English"


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _identifier_arguments(tree: ast.AST) -> set[int]:
    """The string nodes that look a case up by its source name: see
    :data:`IDENTIFIER_ARGUMENTS`."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", ""))
        for keyword, index in IDENTIFIER_ARGUMENTS.get(name, ()):
            values = [k.value for k in node.keywords if k.arg == keyword]
            if len(node.args) > index:
                values.append(node.args[index])
            for value in values:
                found.update(id(n) for n in ast.walk(value))
    return found


def _marked_statements(tree: ast.AST, lines: list[str]) -> set[int]:
    """Every node of a statement whose comment lines just above it say it is data."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        above = node.lineno - 2
        comments = []
        while above >= 0 and lines[above].strip().startswith("#"):
            comments.append(lines[above])
            above -= 1
        if any(DATA_MARK in line for line in comments):
            found.update(id(n) for n in ast.walk(node))
    return found


def _bilingual_arguments(tree: ast.AST) -> set[int]:
    """The string nodes written as Text(zh, en) / tr(zh, en) arguments (f-strings included)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in BILINGUAL_CALLS:
                for value in [*node.args, *(k.value for k in node.keywords)]:
                    found.update(id(n) for n in ast.walk(value))
    return found


def chinese_outside_text(path: Path) -> list[str]:
    """Each Chinese string literal of ``path`` not inside Text/tr, a docstring or data."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    skip = _docstrings(tree) | _bilingual_arguments(tree) | _identifier_arguments(tree)
    skip |= _marked_statements(tree, lines)
    inside_fstrings = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in skip or id(node) in inside_fstrings:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = ast.unparse(node)
        else:
            continue
        if not CJK.search(text):
            continue
        span = lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
        above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
        if any(DATA_MARK in line for line in span) or (
            above.startswith("#") and DATA_MARK in above
        ):
            continue
        found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {text[:60]!r}")
    return found


@pytest.mark.parametrize("path", LEARNER_FACING, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_learner_facing_text_is_written_in_both_languages(path: Path) -> None:
    found = chinese_outside_text(path)
    assert not found, "Chinese text outside Text(zh=, en=) / tr(zh, en):\n" + "\n".join(found)


def test_the_scan_finds_a_plain_chinese_string_and_accepts_the_bilingual_forms(tmp_path: Path):
    module = PACKAGE / "course" / "_scan_probe.py"
    module.write_text(
        '"""文档字符串不算。"""\n'
        "from tutorial_lib.language import Text, tr\n"
        'A = Text(zh="提示", en="hint")\n'
        'B = tr(f"第 {1} 行", "line 1")\n'
        'C = "仓库"  # data, not learner text\n'
        'D = "漏掉的"\n'
        'E = f"也漏掉了 {A}"\n'
        'F = Case("只有中文的用例名")\n'
        'G = case_named(CASES, "按中文源文找用例")\n',
        encoding="utf-8",
    )
    try:
        found = chinese_outside_text(module)
    finally:
        module.unlink()
    assert [line.split(": ", 1)[0].rsplit(":", 1)[1] for line in found] == ["6", "7", "8"]
