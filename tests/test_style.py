"""ruff lints and checks formatting of the whole project, notebooks included; mypy checks
the library as Python 3.10 (the oldest version the package claims) sees it."""

from __future__ import annotations

import subprocess
import sys

from tools.notebooks import ROOT


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_lint():
    result = ruff("check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format():
    result = ruff("format", "--no-cache", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_no_type_error():
    # Settings (python_version = "3.10", files = tutorial_lib) live in pyproject.toml.
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
