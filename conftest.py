"""Project-wide pytest setup: deterministic kernels, nbval's sanitize file, and one execution
per notebook.

This file sits at the project root, so pytest also puts the root on ``sys.path``
(tests import the instructor tools as ``tools.*``).

**Each notebook is executed once per test run.** nbval collects the cells of
``notebooks/`` and ``solutions/``, applies its tags and the sanitize file, compares every
cell's outputs and reports the differences; the one thing replaced is its kernel runner.
The notebook is executed, once, by the project's regeneration path
(:func:`tools.notebooks.regenerate`: ruff-formatted, fresh kernel of this interpreter), and
each cell item compares *those* outputs with the committed ones. One more item per
notebook then compares the whole regenerated file with the committed file, byte for byte
(plots, widget state, metadata: what nbval never compares).

**The test command is the whole set-up.** Before any test starts, the controlling process
installs the pinned npm packages if they are missing (:func:`tools.prepare.prepare_node`:
``npm ci`` into ``.ci/node``, once per clone). Where Node.js is missing, a notebook's cells
tagged ``needs-node`` and its regeneration item are skipped with one line saying what to
install (:mod:`tests.pieces`); under ``CI=true`` they fail.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

# Kernels started by the tests inherit this: set and dict orders stay stable.
os.environ["PYTHONHASHSEED"] = "0"

SANITIZE_FILE = "tests/nbval_sanitize.cfg"


def pytest_configure(config: pytest.Config) -> None:
    # nbval resolves --nbval-sanitize-with against the directory pytest runs from;
    # anchor it to the project root so `cd tests && pytest` works the same.
    if getattr(config.option, "nbval_sanitize_with", "absent") is None:
        config.option.nbval_sanitize_with = str(config.rootpath / SANITIZE_FILE)
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist) only
        _prepare_node_packages()


def _prepare_node_packages() -> None:
    """Install the pinned npm packages once, before xdist starts its workers (they inherit
    the environment variable that says why an install failed)."""
    from tests.pieces import PREPARE_FAILURE_ENV
    from tools.prepare import prepare_node

    result = prepare_node()
    if result.installed:
        print(f"tools/prepare.py: {result.message} into .ci/node", file=sys.stderr)
    if not result.ready:
        os.environ[PREPARE_FAILURE_ENV] = result.message


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> Iterator[Any]:
    collected = yield
    try:
        from nbval.plugin import IPyNbFile
    except ImportError:  # nbval not installed: nothing to replace
        return collected
    executed_once = _classes()[2]
    return [
        executed_once.from_parent(parent, path=file_path) if type(item) is IPyNbFile else item
        for item in collected
    ]


@functools.cache
def _classes() -> tuple[type, type, type]:
    """nbval's collector and cell classes, extended (imported late: nbval is a test extra)."""
    from nbval.plugin import IPyNbCell, IPyNbFile, NbCellError, coalesce_streams

    from tests.pieces import NODE_CELL_TAG, need_node

    class ExecutedCell(IPyNbCell):  # type: ignore[misc]
        """A cell compared like nbval compares it, against the one execution's outputs."""

        def runtest(self) -> None:
            if self.options["skip"]:
                pytest.skip()
            if NODE_CELL_TAG in self.cell.metadata.get("tags", []):
                need_node(f"{self.path.name}'s cells that run Node.js")
            notebook = self.parent
            if notebook.execution_error is not None and self.cell_num >= notebook.failed_at:
                if self.cell_num == notebook.failed_at:
                    self.raise_cell_error(
                        "Cell execution caused an exception", str(notebook.execution_error)
                    )
                self.raise_cell_error("not run: an earlier cell failed")
            outs = coalesce_streams(notebook.executed_cells[self.cell_num].outputs)
            self.test_outputs = outs
            unrun = self.cell.execution_count is None
            if unrun and self.cell.outputs:
                self.raise_cell_error("Unrun reference cell has outputs")
            if (
                self.options["check"]
                and not unrun
                and not self.compare_outputs(outs, coalesce_streams(self.cell.outputs))
            ):
                self.raise_cell_error("Cell outputs differ", "\n".join(self.comparison_traceback))

    class Regeneration(pytest.Item):
        """The committed file equals a fresh regeneration, byte for byte."""

        def runtest(self) -> None:
            notebook = self.parent
            if any(NODE_CELL_TAG in c.metadata.get("tags", []) for c in notebook.nb.cells):
                need_node(f"{self.path.name}'s cells that run Node.js")
            if notebook.execution_error is not None:
                pytest.fail(f"the notebook did not run: {notebook.execution_error}")
            committed = notebook.path.read_text(encoding="utf-8")
            if notebook.regenerated_text != committed:
                raise NbCellError(
                    -1,
                    f"{notebook.path.name} differs from a fresh regeneration: run"
                    f" `python tools/regenerate.py {notebook.path.name[:2]}`",
                    "",
                )

        def reportinfo(self) -> tuple[Any, int, str]:
            return self.path, 0, f"{self.path.name}::regeneration"

        def repr_failure(self, excinfo: Any, style: Any = None) -> str:
            return str(excinfo.value)

    class ExecutedOnce(IPyNbFile):  # type: ignore[misc]
        """nbval's notebook collector, with the notebook executed once, in :meth:`setup`."""

        execution_error: BaseException | None = None
        failed_at = -1

        def setup(self) -> None:
            from nbclient.exceptions import CellExecutionError

            from tools import notebooks

            self.setup_sanitize_files()
            nb = notebooks.formatted(self.nb)
            try:
                # nbval's per-cell limit (--nbval-cell-timeout) bounds each cell here too
                timeout_s = self.config.option.nbval_cell_timeout
                notebooks.execute(nb, self.path.parent, timeout_s=timeout_s)
            except CellExecutionError as exc:
                self.execution_error = exc
            self.executed_cells = [c for c in nb.cells if c.cell_type == "code"]
            if self.execution_error is not None:
                self.failed_at = next(
                    (
                        i
                        for i, c in enumerate(self.executed_cells)
                        if any(o.output_type == "error" for o in c.outputs)
                        and "raises-exception" not in c.metadata.get("tags", [])
                    ),
                    len(self.executed_cells),
                )
            self.regenerated_text = notebooks.normalize(nb, self.path.name)

        def collect(self) -> Iterator[pytest.Item]:
            for item in super().collect():
                yield ExecutedCell.from_parent(
                    self,
                    name=item.name,
                    cell_num=item.cell_num,
                    cell=item.cell,
                    options=item.options,
                )
            yield Regeneration.from_parent(self, name="regeneration")

        def teardown(self) -> None:  # no kernel of nbval's to stop
            pass

    return ExecutedCell, Regeneration, ExecutedOnce


#: The files that take longest (measured with ``--durations``, on 2 cores), longest first.
#: xdist's ``--dist loadfile --no-loadscope-reorder`` hands files to workers in collection
#: order: a long file collected last leaves one worker running alone at the end. Collected
#: first, the long files run side by side while the many short ones fill the gaps (what
#: runs is unchanged).
LONGEST_FIRST: tuple[str, ...] = (
    "tests/test_instructor.py",
    "tests/test_site.py",
    "notebooks/06_authorization_and_injection.ipynb",
    "tests/test_browser.py",
    "tests/test_read_lines.py",
    "tests/test_style.py",
    "tests/test_injection_suite.py",
    "tests/test_write_fault_matrix.py",
    "tests/test_checker.py",
    "tests/test_checker_behaviour.py",
    "notebooks/09_mcp_server.ipynb",
    "tests/test_exercises.py",
    "notebooks/05_writes_and_retries.ipynb",
    "tests/test_mcp_clients.py",
    "tests/test_mcp_cases.py",
    "tests/test_rule_tables.py",
    "tests/test_evaluation.py",
    "tests/test_checker_ci.py",
    "solutions/09_mcp_server_solution.ipynb",
    "tests/test_writes.py",
    "notebooks/08_walkthrough_and_evaluation.ipynb",
    "tests/test_search_files.py",
)


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    root = config.rootpath
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}

    def key(item: pytest.Item) -> int:
        try:
            name = item.path.relative_to(root).as_posix()
        except ValueError:
            return len(rank)
        return rank.get(name, len(rank))

    items.sort(key=key)  # stable: the order within a file, and of the others, is kept
