"""The English edition keeps its translation contract (tools/translate.py).

- every markdown cell of notebooks/ and solutions/ has an English entry that translates its
  current Chinese source (a changed cell is *stale*, a new one *missing*: both fail here,
  naming each cell and the command that lists them), and a planted change proves it;
- the committed English edition (en/) is exactly what the build writes;
- code cells and their outputs are the Chinese edition's, cell for cell, so the English
  notebooks need no execution of their own; the only added code cell is the language switch;
- an English exercise's check cell, executed, speaks English.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from tools import notebooks, translate

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_markdown_cell_has_a_current_english_entry() -> None:
    found = [p for nb in translate.translated_notebooks() for p in translate.problems(nb)]
    listed = "\n".join(str(p) for p in found)
    assert not found, (
        f"{len(found)} English entries are missing, stale or orphaned:\n{listed}\n"
        "list them with: python tools/translate.py status; add placeholders with:"
        " python tools/translate.py stub PATH"
    )


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of chapter 00's notebook and translation under a temporary project root."""
    source = notebooks.chapter_notebooks()[0]
    copy = tmp_path / "notebooks" / source.name
    copy.parent.mkdir()
    shutil.copyfile(source, copy)
    translation = tmp_path / "translations" / "en" / "notebooks" / f"{source.stem}.md"
    translation.parent.mkdir(parents=True)
    shutil.copyfile(translate.translation_path(source), translation)
    monkeypatch.setattr(translate, "ROOT", tmp_path)
    monkeypatch.setattr(translate, "TRANSLATIONS", tmp_path / "translations" / "en")
    return copy


def test_a_changed_chinese_cell_makes_its_entry_stale(planted: Path) -> None:
    assert translate.problems(planted) == []
    nb = nbformat.read(planted, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "markdown")
    cell.source += "\n\n多了一句话。"
    nbformat.write(nb, planted)
    problems = translate.problems(planted)
    assert [(p.cell_id, p.kind) for p in problems] == [(cell.id, "stale")]
    assert "changed after its English entry was written" in str(problems[0])
    with pytest.raises(ValueError, match=rf"(?s)cell {cell.id} changed.*translate.py status"):
        translate.english_notebook(planted)
    marked = translate.english_notebook(planted, release=True)
    first = next(c for c in marked.cells if c.cell_type == "markdown")
    assert first.source.startswith(translate.STALE_NOTE)


def test_a_new_chinese_cell_is_missing_and_a_removed_one_orphaned(planted: Path) -> None:
    nb = nbformat.read(planted, as_version=4)
    removed = next(c for c in nb.cells if c.cell_type == "markdown")
    nb.cells.remove(removed)
    added = nbformat.v4.new_markdown_cell("新的一节。")
    added.id = "ch00-new"
    nb.cells.append(added)
    nbformat.write(nb, planted)
    kinds = {(p.cell_id, p.kind) for p in translate.problems(planted)}
    assert kinds == {("ch00-new", "missing"), (removed.id, "orphan")}
    assert translate.stub(planted) == 1
    kinds = {(p.cell_id, p.kind) for p in translate.problems(planted)}
    assert ("ch00-new", "missing") in kinds  # a placeholder is still missing until translated


def test_the_committed_english_edition_is_what_the_build_writes() -> None:
    files = translate.built_files()
    committed = sorted(translate.EDITION.rglob("*.ipynb"))
    assert sorted(files) == committed, "run: python tools/translate.py build"
    stale = [str(p) for p, text in files.items() if p.read_text(encoding="utf-8") != text]
    assert not stale, f"out of date (run python tools/translate.py build): {stale}"


@pytest.mark.parametrize(
    "source", translate.translated_notebooks(), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_english_code_cells_and_outputs_are_the_chinese_ones(source: Path) -> None:
    chinese = nbformat.read(source, as_version=4)
    english = nbformat.read(translate.edition_path(source), as_version=4)
    switch = [c for c in english.cells if c.get("id") == translate.LANGUAGE_CELL_ID]
    assert len(switch) == 1 and switch[0].source == translate.LANGUAGE_CELL
    code_en = [c for c in english.cells if c.cell_type == "code" and c not in switch]
    code_zh = [c for c in chinese.cells if c.cell_type == "code"]
    assert [(c.id, c.source, c.outputs) for c in code_en] == [
        (c.id, c.source, c.outputs) for c in code_zh
    ]
    assert english.metadata.get("widgets") == chinese.metadata.get("widgets")
    prose = [c.source for c in english.cells if c.cell_type == "markdown"]
    assert len(prose) == len([c for c in chinese.cells if c.cell_type == "markdown"]) + 1
    assert not any(translate.STALE_NOTE in p or translate.MISSING_NOTE in p for p in prose)


@pytest.mark.slow
def test_an_english_exercise_check_cell_gives_english_feedback() -> None:
    """Chapter 01's exercise, English edition: its unfilled stub, checked, in English."""
    path = translate.EDITION / "exercises" / "01_read_tool_exercise.ipynb"
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    check_at = next(
        i for i, c in enumerate(code) if "check(" in c.source and "import" not in c.source
    )
    nb.cells = code[: check_at + 1]  # switch, imports, the stub, its check
    notebooks.execute(nb, path.parent, timeout_s=120)
    out = "".join(
        o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream"
    )
    assert "not implemented" in out.lower() or "NotImplementedError" in out, out
    assert not CJK.search(out), f"Chinese in the English edition's feedback:\n{out}"
