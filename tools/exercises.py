"""Turn a solution notebook into its exercise notebook, the way nbgrader's assign step does.

Markers (nbgrader's defaults, so instructors can still run nbgrader on ``solutions/``):

- code: ``### BEGIN SOLUTION`` / ``### END SOLUTION`` -> ``# YOUR CODE HERE`` and
  ``raise NotImplementedError()``, indented like the BEGIN marker;
- markdown: the same markers -> ``YOUR ANSWER HERE``;
- ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS`` -> removed, markers included.

Outputs and execution counts are cleared, widget state dropped. A cell with a solution
region must carry nbgrader's solution metadata, a cell with hidden tests its grade
metadata, exactly as nbgrader enforces.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
BEGIN_HIDDEN_TESTS = "BEGIN HIDDEN TESTS"
END_HIDDEN_TESTS = "END HIDDEN TESTS"

SOLUTION_NAME = re.compile(r"^(?P<stem>\d\d_[a-z0-9_]+)_solution\.ipynb$")


class MarkerError(ValueError):
    """A solution notebook whose markers nbgrader would refuse."""


def exercise_path(solution: Path) -> Path:
    """``solutions/NN_topic_solution.ipynb`` -> ``exercises/NN_topic_exercise.ipynb``."""
    match = SOLUTION_NAME.match(solution.name)
    if not match:
        raise MarkerError(f"{solution.name}: solution notebooks are named NN_topic_solution.ipynb")
    return solution.parent.parent / "exercises" / f"{match['stem']}_exercise.ipynb"


def _replace_solution_regions(source: str, stub: str, where: str) -> tuple[str, bool]:
    new_lines: list[str] = []
    in_solution = replaced = False
    for line in source.split("\n"):
        if line.strip() == BEGIN_SOLUTION:
            if in_solution:
                raise MarkerError(f"{where}: nested {BEGIN_SOLUTION}")
            in_solution = replaced = True
            indent = line[: line.find(BEGIN_SOLUTION)]
            new_lines += [indent + stub_line for stub_line in stub.split("\n")]
        elif line.strip() == END_SOLUTION:
            if not in_solution:
                raise MarkerError(f"{where}: {END_SOLUTION} without {BEGIN_SOLUTION}")
            in_solution = False
        elif not in_solution:
            new_lines.append(line)
    if in_solution:
        raise MarkerError(f"{where}: {BEGIN_SOLUTION} without {END_SOLUTION}")
    return "\n".join(new_lines), replaced


def _remove_hidden_tests(source: str, where: str) -> tuple[str, bool]:
    new_lines: list[str] = []
    in_tests = removed = False
    for line in source.split("\n"):
        if BEGIN_HIDDEN_TESTS in line:
            if in_tests:
                raise MarkerError(f"{where}: nested {BEGIN_HIDDEN_TESTS}")
            in_tests = removed = True
        elif END_HIDDEN_TESTS in line:
            in_tests = False
        elif not in_tests:
            new_lines.append(line)
    if in_tests:
        raise MarkerError(f"{where}: {BEGIN_HIDDEN_TESTS} without {END_HIDDEN_TESTS}")
    return "\n".join(new_lines), removed


def make_exercise(solution: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """Return the exercise version of ``solution`` (the input is not modified)."""
    exercise = nbformat.from_dict(solution)  # a deep copy
    exercise.metadata.pop("widgets", None)
    exercise.metadata.pop("celltoolbar", None)
    for index, cell in enumerate(exercise.cells):
        where = f"{name} cell {index}"
        nbgrader = cell.metadata.get("nbgrader", {})
        stub = CODE_STUB if cell.cell_type == "code" else TEXT_STUB
        cell.source, replaced = _replace_solution_regions(cell.source, stub, where)
        if replaced and not nbgrader.get("solution"):
            raise MarkerError(f"{where}: a solution region needs nbgrader solution metadata")
        if nbgrader.get("solution") and not replaced:
            cell.source = stub  # a whole-cell solution, as nbgrader treats it
        cell.source, removed = _remove_hidden_tests(cell.source, where)
        if removed and not nbgrader.get("grade"):
            raise MarkerError(f"{where}: hidden tests need nbgrader grade metadata")
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            for volatile in ("collapsed", "scrolled", "execution", "ExecuteTime"):
                cell.metadata.pop(volatile, None)
    return exercise


def generate(solution_path: Path) -> tuple[Path, str]:
    """Return ``(exercise path, exercise file text)`` for one solution notebook."""
    solution = nbformat.read(solution_path, as_version=4)
    exercise = make_exercise(solution, solution_path.name)
    return exercise_path(solution_path), nbformat.writes(exercise) + "\n"
