"""System pieces some tests need (Node.js and the pinned npm packages, Chromium, the source
articles): one rule for when one is missing.

On a learner's machine a test that needs a missing piece is skipped with one line naming
what to install; under ``CI=true`` it fails, because a silently skipped test proves nothing
where ``.ci/run`` provides every piece. The root ``conftest.py`` applies the same rule to
notebook cells tagged :data:`NODE_CELL_TAG`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

import pytest

from tools.prepare import node_unavailable

#: A notebook cell with this tag needs Node.js and the pinned npm packages: where they are
#: missing, nbval's comparison of that cell (and the notebook's regeneration item) is
#: skipped with the reason instead of failing.
NODE_CELL_TAG = "needs-node"
#: When a test calls a wait a hang: minutes, not seconds, so that a loaded machine (a shared
#: CI box, a laptop compiling something) never reaches it and only a real hang does. Tests
#: decide by counts and states; how fast something is belongs in ``benchmarks/``.
HANG_S = 120.0
#: Set by the root conftest when its ``npm ci`` failed: why, for the skip line.
PREPARE_FAILURE_ENV = "TUTORIAL_LIB_NPM_PREPARE_FAILED"


def unavailable(message: str) -> NoReturn:
    """Skip with ``message``; under ``CI=true`` fail with it instead."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message} (CI=true: .ci/run provides it, so its absence is a failure)")
    pytest.skip(message)


def need_node(what: str) -> None:
    """Skip (or, under CI, fail) ``what`` unless Node.js and every pinned npm package are
    installed; the line says what is missing and the command that installs it."""
    reason = node_unavailable()
    if reason is None:
        return
    failure = os.environ.get(PREPARE_FAILURE_ENV)
    unavailable(f"{what} not run: {reason}" + (f"; the test run's {failure}" if failure else ""))


def descriptors_into(root: Path) -> list[str]:
    """What this process's open descriptors point at inside ``root`` (Linux ``/proc``).

    A leak test counts only these: the worker's other descriptors (a kernel client of an
    earlier test, whose background thread may close its sockets at any moment) are no
    business of the test, and counting all of them made a clean clone's run fail."""
    inside = []
    top = os.path.realpath(root)
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # closed meanwhile (it was the listing's own descriptor)
            continue
        if target == top or target.startswith(top + os.sep):
            inside.append(target)
    return sorted(inside)
