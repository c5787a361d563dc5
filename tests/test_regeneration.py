"""Committed outputs are exactly what the regeneration script produces, byte for byte.

This re-executes every chapter and solution with tools/notebooks.py and compares the file
text: it proves both that the committed notebooks are up to date and that a re-run of an
unchanged notebook changes no byte (timing, widget ids, Python version all normalized).
"""

from __future__ import annotations

import nbformat
import pytest

from tools import notebooks

EXECUTED = notebooks.chapter_notebooks() + notebooks.solution_notebooks()


@pytest.mark.slow
@pytest.mark.parametrize("path", EXECUTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_regenerating_an_unchanged_notebook_changes_no_byte(path):
    committed = path.read_text(encoding="utf-8")
    regenerated = notebooks.regenerate_text(path)
    assert regenerated == committed, (
        f"{path.name} differs from a fresh regeneration: "
        f"run `python tools/regenerate.py {path.name[:2]}`"
    )


def notebook_with_widgets(parent: str, child: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("quiz.show()")
    cell.id = "quiz"  # new cells get random ids
    view = {"model_id": parent, "version_major": 2, "version_minor": 0}
    cell.outputs = [nbformat.v4.new_output("display_data", data={notebooks.WIDGET_VIEW: view})]
    nb.cells = [cell]
    state = {  # creation order: the child model first, as ipywidgets does
        child: {"state": {}},
        parent: {"state": {"children": [f"IPY_MODEL_{child}"]}},
    }
    nb.metadata["widgets"] = {
        notebooks.WIDGET_STATE: {"state": state, "version_major": 2, "version_minor": 0}
    }
    return nb


def test_random_widget_ids_give_the_same_file():
    first = notebooks.normalize(notebook_with_widgets("a" * 32, "b" * 32), "demo.ipynb")
    second = notebooks.normalize(notebook_with_widgets("c" * 32, "d" * 32), "demo.ipynb")
    assert first == second
    for old in ("a" * 32, "b" * 32):
        assert old not in first
    nb = nbformat.reads(first, as_version=4)
    state = nb.metadata["widgets"][notebooks.WIDGET_STATE]["state"]
    view_id = nb.cells[0].outputs[0].data[notebooks.WIDGET_VIEW]["model_id"]
    assert view_id in state, "the output must point at a model in the saved state"
    (child_ref,) = state[view_id]["state"]["children"]
    assert child_ref.removeprefix("IPY_MODEL_") in state


def test_adjacent_streams_are_merged():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(1); print(2)")
    cell.outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="1\n"),
        nbformat.v4.new_output("stream", name="stdout", text="2\n"),
        nbformat.v4.new_output("stream", name="stderr", text="w\n"),
    ]
    nb.cells = [cell]
    merged = nbformat.reads(notebooks.normalize(nb, "demo.ipynb"), as_version=4).cells[0].outputs
    assert [(o.name, o.text) for o in merged] == [("stdout", "1\n2\n"), ("stderr", "w\n")]
