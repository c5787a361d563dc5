"""Project-wide pytest setup: deterministic kernels and nbval's sanitize file.

This file sits at the project root, so pytest also puts the root on ``sys.path``
(tests import the instructor tools as ``tools.*``).
"""

from __future__ import annotations

import os

import pytest

# Kernels started by nbval and by the tests inherit this: set and dict orders stay stable.
os.environ["PYTHONHASHSEED"] = "0"

SANITIZE_FILE = "tests/nbval_sanitize.cfg"


def pytest_configure(config: pytest.Config) -> None:
    # nbval resolves --nbval-sanitize-with against the directory pytest runs from;
    # anchor it to the project root so `cd tests && pytest` works the same.
    if getattr(config.option, "nbval_sanitize_with", "absent") is None:
        config.option.nbval_sanitize_with = str(config.rootpath / SANITIZE_FILE)
