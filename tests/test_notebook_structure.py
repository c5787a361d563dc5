"""Structure checks for every committed notebook: executed in order, clean, portable, complete."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from tools import notebooks

CHAPTERS = notebooks.chapter_notebooks()
SOLUTIONS = notebooks.solution_notebooks()
EXERCISES = notebooks.exercise_notebooks()
EXECUTED = CHAPTERS + SOLUTIONS
ALL = EXECUTED + EXERCISES

ABSOLUTE_PATH = re.compile(
    r"(?<![\w.])(/home/|/root/|/tmp/|/work/|/Users/|/var/folders/|[A-Za-z]:\\\\Users\\\\)"
)
SECRET = re.compile(
    r"(sk-[A-Za-z0-9_-]{20,}|sk-ant-[A-Za-z0-9_-]{10,}|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|github_pat_[A-Za-z0-9_]{20,}|AKIA[0-9A-Z]{16}|xox[abpr]-[A-Za-z0-9-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----)"
)
QUIZ_HEADING = re.compile(r"^## 自测", re.MULTILINE)
READING_HEADING = re.compile(r"^## 延伸阅读", re.MULTILINE)


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def ids(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def test_the_course_has_notebooks():
    assert CHAPTERS and SOLUTIONS and EXERCISES


@pytest.mark.parametrize("path", ALL, ids=ids)
def test_valid_notebook_with_python3_kernelspec(path):
    nb = read(path)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    assert nb.metadata.kernelspec.language == "python"


@pytest.mark.parametrize("path", EXECUTED, ids=ids)
def test_code_cells_executed_in_order_from_one(path):
    counts = [c.execution_count for c in read(path).cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), (
        f"execution counts {counts}: regenerate with `python tools/regenerate.py`"
    )


@pytest.mark.parametrize("path", EXECUTED, ids=ids)
def test_no_error_output_except_where_tagged(path):
    for index, cell in enumerate(read(path).cells):
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        for output in cell.outputs:
            if output.output_type == "error":
                assert "raises-exception" in tags, f"cell {index}: {output.ename}"


@pytest.mark.parametrize("path", EXECUTED, ids=ids)
def test_no_nbval_tag_that_breaks_run_all(path):
    for index, cell in enumerate(read(path).cells):
        # nbval-raises-exception stops nbconvert and JupyterLab's Run All: use raises-exception
        assert "nbval-raises-exception" not in cell.metadata.get("tags", []), f"cell {index}"


@pytest.mark.parametrize("path", ALL, ids=ids)
def test_no_absolute_machine_paths(path):
    text = path.read_text(encoding="utf-8")
    found = ABSOLUTE_PATH.findall(text)
    assert not found, f"absolute paths in {path.name}: {found[:3]}"


@pytest.mark.parametrize("path", ALL, ids=ids)
def test_no_api_keys_or_tokens(path):
    found = SECRET.findall(path.read_text(encoding="utf-8"))
    assert not found, f"something that looks like a secret in {path.name}"


@pytest.mark.parametrize("path", ALL, ids=ids)
def test_no_volatile_metadata(path):
    nb = read(path)
    assert "version" not in nb.metadata.get("language_info", {})
    for cell in nb.cells:
        assert not {"execution", "ExecuteTime"} & set(cell.metadata)


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_chapter_ends_with_quiz_then_further_reading(path):
    cells = read(path).cells
    markdown = [(i, c.source) for i, c in enumerate(cells) if c.cell_type == "markdown"]
    quiz_at = [i for i, source in markdown if QUIZ_HEADING.search(source)]
    reading_at = [i for i, source in markdown if READING_HEADING.search(source)]
    assert quiz_at, "no '## 自测' section"
    assert reading_at, "no '## 延伸阅读' section"
    assert reading_at[-1] == len(cells) - 1, "further reading must be the last cell"
    assert quiz_at[-1] < reading_at[-1]
    quiz_code = [c for c in cells[quiz_at[-1] : reading_at[-1]] if c.cell_type == "code"]
    chapter = path.name[:2]
    assert any(f'load_quiz("{chapter}")' in c.source for c in quiz_code), (
        f"the quiz section must show load_quiz({chapter!r})"
    )
    assert re.search(r"\]\(https?://", cells[-1].source), "further reading without links"


@pytest.mark.parametrize("path", CHAPTERS, ids=ids)
def test_chapter_starts_with_a_title(path):
    first = read(path).cells[0]
    assert first.cell_type == "markdown"
    assert first.source.startswith(f"# 第 {path.name[:2]} 章")


@pytest.mark.parametrize("path", EXERCISES, ids=ids)
def test_exercises_have_no_outputs_and_no_solutions(path):
    for index, cell in enumerate(read(path).cells):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"cell {index}"
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS"):
            assert marker not in cell.source, f"cell {index} still holds {marker}"


def test_the_course_stands_alone_without_its_source_articles():
    # Learners do not have the articles the course was written from: never point at them.
    from tools.notebooks import ROOT

    texts = [ROOT / "README.md", *sorted(ROOT.glob("notebooks/*.ipynb"))]
    texts += sorted(ROOT.glob("solutions/*.ipynb")) + sorted(ROOT.glob("exercises/*.ipynb"))
    for path in texts:
        assert "源文章" not in path.read_text(encoding="utf-8"), path.name


def test_every_section_heading_starts_its_own_markdown_cell():
    # A "##" heading buried mid-cell hides a section from JupyterLab's table of contents
    # and from a teacher collapsing sections; each one opens a cell.
    import re

    import nbformat

    from tools.notebooks import ROOT

    for path in sorted(ROOT.glob("notebooks/*.ipynb")) + sorted(ROOT.glob("solutions/*.ipynb")):
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type != "markdown":
                continue
            fenced = False
            for number, line in enumerate(cell.source.split("\n")):
                fenced ^= line.startswith("```")
                if number and not fenced and re.match(r"##\s", line):
                    raise AssertionError(f"{path.name} cell {index}: '{line}' is mid-cell")


MAX_OUTPUT_CHARS = 1_500
MAX_OUTPUT_COLUMNS = 100


def output_texts(path: Path) -> list[tuple[int, str, bool]]:
    """(cell index, text of one output, whether the cell shows a quiz) of every output."""
    found = []
    for index, cell in enumerate(read(path).cells):
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            found.append((index, "".join(text), "load_quiz(" in cell.source))
    return found


@pytest.mark.parametrize("path", EXECUTED, ids=ids)
def test_outputs_fit_a_notebook_and_are_short(path):
    # A reader sees an output whole: no sideways scrolling, nothing a reader must skim.
    # The quiz's plain-text fallback is the quiz itself, the one long output allowed.
    from tutorial_lib.course.table import display_width

    problems = []
    for index, text, is_quiz in output_texts(path):
        widest = max((display_width(line) for line in text.splitlines()), default=0)
        if widest > MAX_OUTPUT_COLUMNS:
            problems.append(f"cell {index}: a line of {widest} columns")
        if len(text) > MAX_OUTPUT_CHARS and not is_quiz:
            problems.append(f"cell {index}: {len(text)} characters")
    assert not problems, problems
