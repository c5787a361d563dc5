"""Helpers shared by several test modules, offered as fixtures (test modules do not import
``conftest``: the project root has a ``conftest.py`` of its own)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.pieces import HANG_S

#: The uid/gid an unprivileged child runs as (Debian's ``nobody``).
NOBODY = 65534
#: How long a forked child may take before the test calls it a hang (never a busy machine).
CHILD_SECONDS = HANG_S


def _run_unprivileged(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` in a forked child that dropped to ``nobody``, if root.

    Root ignores permission bits, so a test about ``permission_denied`` must not run as
    root: instead of skipping, it runs the code under test in a child without privileges.
    A fork rather than a new interpreter: this venv's Python may live under /root, which
    an unprivileged user cannot execute. The result travels back as JSON, so it must be
    JSON-serializable; an exception in the child is raised here as AssertionError. Not
    root: the function simply runs in this process.
    """
    if os.geteuid() != 0:
        return function(*args, **kwargs)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        status = 0
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            payload = json.dumps({"result": function(*args, **kwargs)})
        except BaseException as exc:  # noqa: BLE001 - report anything to the parent
            payload = json.dumps({"child_exception": repr(exc)})
            status = 1
        with os.fdopen(write_end, "w") as out:
            out.write(payload)
        os._exit(status)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + CHILD_SECONDS
    with os.fdopen(read_end, "rb") as inp:
        os.set_blocking(inp.fileno(), False)
        while True:  # read while waiting: a large result must not fill the pipe and block
            try:
                chunk = inp.read()
            except BlockingIOError:
                chunk = None
            if chunk:
                chunks.append(chunk)
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                rest = inp.read()
                if rest:
                    chunks.append(rest)
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                raise AssertionError("HANG: the unprivileged child did not finish")
            time.sleep(0.005)
    answer = json.loads(b"".join(chunks).decode("utf-8"))
    if "child_exception" in answer:
        raise AssertionError(f"the unprivileged child failed: {answer['child_exception']}")
    return answer["result"]


@pytest.fixture
def unprivileged() -> Callable[..., Any]:
    """The runner of :func:`_run_unprivileged`: ``unprivileged(function, *args, **kwargs)``."""
    return _run_unprivileged
