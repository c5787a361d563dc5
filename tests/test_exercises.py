"""Exercises come from solutions: nbgrader's rules, no drift, failing only as stubs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tools import exercises, notebooks
from tutorial_lib.course.checks import NOT_IMPLEMENTED_VERDICT

SOLUTION_META = {"nbgrader": {"solution": True, "grade": False, "grade_id": "s", "locked": False}}
GRADE_META = {"nbgrader": {"solution": False, "grade": True, "grade_id": "g", "locked": True}}


def one_cell_notebook(cell) -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.cells = [cell]
    return nb


def code(source: str, meta: dict | None = None):
    cell = new_code_cell(source, metadata=dict(meta or {}))
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="old output")]
    cell.execution_count = 7
    return cell


def test_code_region_becomes_nbgraders_stub_indented_like_the_marker():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION\n\nprint(f)"
    exercise = exercises.make_exercise(one_cell_notebook(code(source, SOLUTION_META)))
    cell = exercise.cells[0]
    assert cell.source == (
        "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n\nprint(f)"
    )
    assert cell.outputs == [] and cell.execution_count is None


def test_markdown_region_becomes_your_answer_here():
    source = "Intro\n### BEGIN SOLUTION\nThe answer.\n### END SOLUTION\nOutro"
    cell = new_markdown_cell(source, metadata=dict(SOLUTION_META))
    exercise = exercises.make_exercise(one_cell_notebook(cell))
    assert exercise.cells[0].source == "Intro\nYOUR ANSWER HERE\nOutro"


def test_hidden_tests_are_removed_with_their_markers():
    source = "assert f(1) == 2\n### BEGIN HIDDEN TESTS\nassert f(2) == 3\n### END HIDDEN TESTS\n"
    exercise = exercises.make_exercise(one_cell_notebook(code(source, GRADE_META)))
    assert exercise.cells[0].source == "assert f(1) == 2\n"


def test_whole_cell_solution_without_markers_is_replaced():
    exercise = exercises.make_exercise(one_cell_notebook(code("x = 42", SOLUTION_META)))
    assert exercise.cells[0].source == exercises.CODE_STUB


def test_solution_is_not_modified_and_widget_state_is_dropped():
    solution = one_cell_notebook(code("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", SOLUTION_META))
    solution.metadata["widgets"] = {"state": "..."}
    exercises.make_exercise(solution)
    assert "x = 1" in solution.cells[0].source and "widgets" in solution.metadata
    assert "widgets" not in exercises.make_exercise(solution).metadata


@pytest.mark.parametrize(
    ("source", "meta", "message"),
    [
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", SOLUTION_META, "nested"),
        ("### BEGIN SOLUTION\nx = 1", SOLUTION_META, "without ### END SOLUTION"),
        ("x = 1\n### END SOLUTION", SOLUTION_META, "without ### BEGIN SOLUTION"),
        ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", {}, "needs nbgrader solution metadata"),
        ("### BEGIN HIDDEN TESTS\nassert x\n### END HIDDEN TESTS", {}, "grade metadata"),
        ("### BEGIN HIDDEN TESTS\nassert x", GRADE_META, "without END HIDDEN TESTS"),
    ],
)
def test_markers_nbgrader_would_refuse_are_refused(source, meta, message):
    with pytest.raises(exercises.MarkerError, match=message):
        exercises.make_exercise(one_cell_notebook(code(source, meta)), "demo.ipynb")


plain_lines = st.lists(
    st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=30
    ).filter(lambda line: "SOLUTION" not in line and "HIDDEN TESTS" not in line),
    max_size=5,
)


@given(
    before=plain_lines,
    inside=plain_lines,
    after=plain_lines,
    indent=st.sampled_from(["", "    ", "        ", "\t"]),
)
def test_only_the_marked_region_changes(before, inside, after, indent):
    source = "\n".join(
        [
            *before,
            indent + exercises.BEGIN_SOLUTION,
            *inside,
            indent + exercises.END_SOLUTION,
            *after,
        ]
    )
    cell = code(source, SOLUTION_META)
    result = exercises.make_exercise(one_cell_notebook(cell)).cells[0].source
    stub = [indent + line for line in exercises.CODE_STUB.split("\n")]
    assert result == "\n".join([*before, *stub, *after])


def test_exercise_path_naming():
    solution = Path("/course/solutions/03_errors_solution.ipynb")
    assert exercises.exercise_path(solution) == Path("/course/exercises/03_errors_exercise.ipynb")
    with pytest.raises(exercises.MarkerError, match="NN_topic_solution"):
        exercises.exercise_path(Path("/course/solutions/errors.ipynb"))


SOLUTIONS = notebooks.solution_notebooks()


def test_every_solution_has_an_exercise_and_a_chapter():
    assert SOLUTIONS, "no solution notebooks found"
    chapters = {p.stem for p in notebooks.chapter_notebooks()}
    for solution in SOLUTIONS:
        stem = solution.name.removesuffix("_solution.ipynb")
        assert stem in chapters, f"{solution.name} has no notebooks/{stem}.ipynb"
        assert exercises.exercise_path(solution).exists(), f"{solution.name} has no exercise"
    expected = {exercises.exercise_path(s).name for s in SOLUTIONS}
    assert {p.name for p in notebooks.exercise_notebooks()} == expected, "orphan exercise"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.name)
def test_committed_exercise_equals_the_generated_one(solution):
    target, text = exercises.generate(solution)
    assert target.read_text(encoding="utf-8") == text, (
        f"{target.name} is out of date: run `python tools/regenerate.py {solution.name[:2]}`"
    )


@pytest.mark.slow
@pytest.mark.parametrize("exercise", notebooks.exercise_notebooks(), ids=lambda p: p.name)
def test_running_an_untouched_exercise_fails_only_as_not_implemented(exercise):
    nb = nbformat.read(exercise, as_version=4)
    NotebookClient(
        nb,
        timeout=120,
        kernel_name=notebooks.KERNEL_NAME,
        allow_errors=True,
        resources={"metadata": {"path": str(exercise.parent)}},
    ).execute()
    check_cells = 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            if output.output_type == "error":
                assert output.ename == "NotImplementedError", (
                    f"cell {index} failed with {output.ename}: {output.evalue}"
                )
        if "check(" in cell.source:
            check_cells += 1
            stdout = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            assert str(NOT_IMPLEMENTED_VERDICT) in stdout, f"cell {index}: {stdout!r}"
            assert "✗" not in stdout, f"cell {index} reports a failure before any work: {stdout!r}"
    assert check_cells, "an exercise without a single check cell"
