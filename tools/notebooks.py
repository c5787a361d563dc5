"""Execute a notebook and normalize it so that an unchanged notebook re-runs byte-identically.

What varies between two runs of the same notebook, and what we do about it:

- per-cell timing metadata: not recorded (``record_timing=False``), stale keys dropped;
- random widget model ids: renamed to ids derived from the notebook name and position;
- ``language_info.version`` (the Python patch release): dropped;
- stream outputs split differently by flush timing: adjacent streams of one name merged;
- dict ordering: nbformat writes with sorted keys.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
KERNEL_NAME = "python3"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# Also inside "IPY_MODEL_<id>" references, so no \b: "_" counts as a word character.
MODEL_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")
_VOLATILE_CELL_METADATA = ("execution", "ExecuteTime", "collapsed", "scrolled")


def chapter_notebooks() -> list[Path]:
    """``notebooks/NN_topic.ipynb``, in chapter order."""
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def solution_notebooks() -> list[Path]:
    """``solutions/NN_topic_solution.ipynb``, in chapter order."""
    return sorted((ROOT / "solutions").glob("[0-9][0-9]_*_solution.ipynb"))


def exercise_notebooks() -> list[Path]:
    """``exercises/NN_topic_exercise.ipynb``, in chapter order."""
    return sorted((ROOT / "exercises").glob("[0-9][0-9]_*_exercise.ipynb"))


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout_s: int = 600) -> None:
    """Run every cell of ``nb`` in a fresh ``python3`` kernel started in ``cwd`` (in place).

    Stops at the first error, except in cells tagged ``raises-exception``.
    """
    os.environ["PYTHONHASHSEED"] = "0"  # the kernel inherits it: set and dict order stable
    client = NotebookClient(
        nb,
        timeout=timeout_s,
        kernel_name=KERNEL_NAME,
        record_timing=False,
        resources={"metadata": {"path": str(cwd)}},
    )
    client.execute()


def normalize(nb: nbformat.NotebookNode, name: str) -> str:
    """Return the file text of ``nb`` with everything run-dependent made deterministic."""
    nb.metadata.get("language_info", {}).pop("version", None)
    for cell in nb.cells:
        for key in _VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type == "code":
            cell.outputs = _merge_streams(cell.outputs)
    text = nbformat.writes(nb) + "\n"
    return _rename_widget_ids(text, nb, name)


def _merge_streams(outputs: list) -> list:
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and output.output_type == "stream"
            and previous.output_type == "stream"
            and previous.name == output.name
        ):
            previous.text += output.text
        else:
            merged.append(output)
    return merged


def _rename_widget_ids(text: str, nb: nbformat.NotebookNode, name: str) -> str:
    """Replace random widget model ids by stable ones, in creation order."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    renames = {
        old: hashlib.sha256(f"{name}:{index}".encode()).hexdigest()[:32]
        for index, old in enumerate(state)
    }
    if not renames:
        return text
    text = MODEL_ID.sub(lambda m: renames.get(m.group(0), m.group(0)), text)
    # Keys were sorted under their old names: write once more so they sort under the new ones.
    return nbformat.writes(nbformat.reads(text, as_version=4)) + "\n"


def regenerate_text(path: Path) -> str:
    """Execute the notebook at ``path`` and return its normalized file text (writes nothing)."""
    nb = nbformat.read(path, as_version=4)
    execute(nb, path.parent)
    return normalize(nb, path.name)
