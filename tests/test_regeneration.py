"""The regeneration script is deterministic, formats what it executes, and uses this Python.

The byte-for-byte comparison of every committed chapter and solution with a fresh
regeneration is not here: it is the ``regeneration`` item the root ``conftest.py`` adds to
each notebook nbval collects, so each notebook is executed once per test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

from tools import notebooks


def test_regeneration_formats_then_executes_with_this_interpreter(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(f"import sys\nprint( sys.executable=={sys.executable!r} )")
    cell.id = "only"
    nb.cells = [cell]
    path = tmp_path / "tiny.ipynb"
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    first = notebooks.regenerate_text(path)
    regenerated = nbformat.reads(first, as_version=4).cells[0]
    assert regenerated.source == f'import sys\n\nprint(sys.executable == "{sys.executable}")'
    assert [o.text for o in regenerated.outputs] == ["True\n"]
    path.write_text(first, encoding="utf-8")
    assert notebooks.regenerate_text(path) == first  # a re-run changes no byte


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
