"""Where the course runs: the operating-system features the workspace and the checks need.

The sandbox (:mod:`tutorial_lib.workspace.sandbox`) opens every file relative to a
directory it holds open: ``openat2`` on Linux, elsewhere a walk of ``os.open(...,
dir_fd=...)`` with ``O_NOFOLLOW`` and ``O_DIRECTORY``, reading links with
``os.readlink(..., dir_fd=...)``; search_files lists directories by descriptor
(``os.scandir(fd)``). The learners' checks stop a function that never returns with
``SIGALRM`` and ``signal.setitimer`` (:mod:`tutorial_lib.course.time_limit`). Native Windows
has none of the ``dir_fd`` support and no ``SIGALRM``: without this check a learner there
would fail deep inside chapter 01 with an ``AttributeError``.

- :func:`supported`: ``None`` when every feature is there, else the reason (what is
  missing and what to do);
- :func:`require_supported`: raise :class:`UnsupportedPlatform` with that reason, else
  return ``platform.system()``. The sandbox calls it when it is imported, and chapter 00's
  first code cell prints the result.

Tested on Linux (CI: Debian). macOS has these features and is expected to work through the
``dir_fd`` walk, untested. On Windows, use WSL. The check only reads attributes of ``os``,
``signal`` and ``platform``: cheap, and without side effects.
"""

from __future__ import annotations

import os
import platform
import signal

from tutorial_lib.core.contracts import TutorialLibError

__all__ = ["UnsupportedPlatform", "missing_features", "require_supported", "supported"]

#: What to do instead, named in every refusal.
ADVICE = (
    "Run the course on Linux (tested; CI runs Debian), or on Windows inside WSL; macOS is "
    "expected to work through the dir_fd walk when it has these features (untested)."
)


class UnsupportedPlatform(TutorialLibError):
    """This operating system lacks a feature the workspace sandbox or the checks need."""


def missing_features() -> list[str]:
    """The features this process lacks, each named as it is spelled in Python (``[]``: none)."""
    missing = []
    if os.open not in os.supports_dir_fd:
        missing.append("os.open without dir_fd support (os.open not in os.supports_dir_fd)")
    if os.readlink not in os.supports_dir_fd:
        missing.append("os.readlink without dir_fd support")
    if os.scandir not in os.supports_fd:
        missing.append("os.scandir of a directory descriptor (os.scandir not in os.supports_fd)")
    for flag in ("O_NOFOLLOW", "O_DIRECTORY", "O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC"):
        if not hasattr(os, flag):
            missing.append(f"os.{flag}")
    if not (hasattr(signal, "SIGALRM") and hasattr(signal, "setitimer")):
        missing.append("signal.SIGALRM and signal.setitimer (the checks' time limits)")
    return missing


def supported() -> str | None:
    """None if this platform has what the course needs; otherwise the reason, as one text."""
    missing = missing_features()
    if not missing:
        return None
    return (
        f"tutorial_lib does not run on this platform ({platform.system() or 'unknown'}): "
        f"it lacks {'; '.join(missing)}. {ADVICE}"
    )


def require_supported() -> str:
    """Raise :class:`UnsupportedPlatform` with the reason, or return ``platform.system()``."""
    reason = supported()
    if reason is not None:
        raise UnsupportedPlatform(reason)
    return platform.system()
