"""The platform check: where the course runs, and a clear refusal elsewhere.

- on this machine (Linux) nothing is missing, and the sandbox imports;
- a missing feature (``dir_fd`` support in ``os.open``, a flag, the alarm signal) is named
  in :func:`supported`'s reason, with what to do, and :func:`require_supported` raises
  :class:`UnsupportedPlatform` (a :class:`TutorialLibError`) with that text;
- importing the sandbox on such a platform fails at import, with the same reason.
"""

from __future__ import annotations

import importlib
import os
import platform
import signal
import subprocess
import sys

import pytest

from tutorial_lib.core.contracts import TutorialLibError
from tutorial_lib.workspace import platform_check
from tutorial_lib.workspace.platform_check import (
    UnsupportedPlatform,
    missing_features,
    require_supported,
    supported,
)


def test_this_machine_is_supported() -> None:
    assert missing_features() == []
    assert supported() is None
    assert require_supported() == platform.system()


def test_the_sandbox_imports_here() -> None:
    sandbox = importlib.import_module("tutorial_lib.workspace.sandbox")
    assert callable(sandbox.open_beneath)


def test_os_open_without_dir_fd_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "supports_dir_fd", os.supports_dir_fd - {os.open})
    reason = supported()
    assert reason is not None
    assert "os.open without dir_fd support" in reason
    assert "Linux" in reason and "WSL" in reason and "macOS" in reason
    with pytest.raises(UnsupportedPlatform) as raised:
        require_supported()
    assert str(raised.value) == reason
    assert isinstance(raised.value, TutorialLibError)


@pytest.mark.parametrize("flag", ["O_NOFOLLOW", "O_DIRECTORY"])
def test_a_missing_flag_is_named(monkeypatch: pytest.MonkeyPatch, flag: str) -> None:
    monkeypatch.delattr(os, flag)
    assert missing_features() == [f"os.{flag}"]
    with pytest.raises(UnsupportedPlatform, match=f"os.{flag}"):
        require_supported()


def test_no_alarm_signal_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(signal, "SIGALRM")
    reason = supported()
    assert reason is not None and "signal.SIGALRM" in reason and "time limits" in reason


def test_windows_like_platform_lists_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """What native Windows lacks, all at once: every feature is in the one reason."""
    monkeypatch.setattr(os, "supports_dir_fd", set())
    monkeypatch.setattr(os, "supports_fd", set())
    for flag in ("O_NOFOLLOW", "O_DIRECTORY", "O_NONBLOCK", "O_NOCTTY"):
        monkeypatch.delattr(os, flag)
    monkeypatch.delattr(signal, "SIGALRM")
    monkeypatch.setattr(platform_check.platform, "system", lambda: "Windows")
    reason = supported()
    assert reason is not None
    assert reason.startswith("tutorial_lib does not run on this platform (Windows)")
    assert len(missing_features()) == 8


def test_importing_the_sandbox_on_an_unsupported_platform_fails_with_the_reason() -> None:
    """In a fresh interpreter, with ``os.open`` taken out of ``supports_dir_fd``."""
    code = (
        "import os\n"
        "os.supports_dir_fd = os.supports_dir_fd - {os.open}\n"
        "try:\n"
        "    import tutorial_lib.workspace.sandbox\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
        "else:\n"
        "    print('imported')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.startswith("UnsupportedPlatform tutorial_lib does not run on this platform"), out
    assert "os.open without dir_fd support" in out
