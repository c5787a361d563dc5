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
import subprocess
import sys
import tempfile
from pathlib import Path

import ipykernel.kernelspec
import nbformat
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
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


class _CurrentEnvironment(KernelSpecManager):  # type: ignore[misc]
    """Kernel specs where ``python3`` is always THIS interpreter (``sys.executable``).

    A machine may have a ``python3`` kernelspec pointing at another Python (a user-wide
    install): outputs must come from the environment the tests and the library run in.
    """

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        if kernel_name == KERNEL_NAME:
            spec = ipykernel.kernelspec.get_kernel_dict()  # argv[0] is sys.executable
            return KernelSpec(resource_dir=ipykernel.kernelspec.RESOURCES, **spec)
        return super().get_kernel_spec(kernel_name)


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout_s: int = 600) -> None:
    """Run every cell of ``nb`` in a fresh kernel of this interpreter, in ``cwd`` (in place).

    Stops at the first error, except in cells tagged ``raises-exception``.
    """
    os.environ["PYTHONHASHSEED"] = "0"  # the kernel inherits it: set and dict order stable
    manager = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=_CurrentEnvironment())
    client = NotebookClient(
        nb,
        km=manager,
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


def formatted(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``nb`` with its code cells formatted by ``ruff format`` (the project's settings).

    ruff formats a notebook file; the text goes through a temporary copy beside the
    project's pyproject.toml, so the same settings apply and the original is untouched.
    """
    handle, name = tempfile.mkstemp(prefix=".regenerate-", suffix=".ipynb", dir=ROOT)
    os.close(handle)
    scratch = Path(name)  # unique: regenerations may run in parallel
    try:
        scratch.write_text(nbformat.writes(nb), encoding="utf-8")
        subprocess.run(
            [sys.executable, "-m", "ruff", "format", "--quiet", "--no-cache", str(scratch)],
            check=True,
            cwd=ROOT,
        )
        return nbformat.reads(scratch.read_text(encoding="utf-8"), as_version=4)
    finally:
        scratch.unlink(missing_ok=True)


def regenerate(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path``, formatted and executed (writes nothing)."""
    nb = formatted(nbformat.read(path, as_version=4))
    execute(nb, path.parent)
    return nb


def regenerate_text(path: Path) -> str:
    """The file text :func:`regenerate` gives for ``path``, normalized (writes nothing)."""
    return normalize(regenerate(path), path.name)
