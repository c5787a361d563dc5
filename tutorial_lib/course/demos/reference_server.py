"""The reference MCP filesystem server that chapter 09 runs the checker on.

The course does not ship it: ``.ci/run`` installs the pinned version from npm into the
project's ignored ``.ci/node`` folder (:data:`FILESYSTEM_SERVER_INSTALL` is the command), and
Node.js runs it. :func:`filesystem_server_command` is the command that starts it over a
workspace, or ``None`` when Node or the package is missing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = [
    "FILESYSTEM_SERVER_INSTALL",
    "FILESYSTEM_SERVER_PACKAGE",
    "FILESYSTEM_SERVER_VERSION",
    "filesystem_server_command",
    "filesystem_server_script",
]

#: The npm package of the official reference filesystem server, and the version pinned.
FILESYSTEM_SERVER_PACKAGE = "@modelcontextprotocol/server-filesystem"
FILESYSTEM_SERVER_VERSION = "2026.8.31"
#: How to install it where :func:`filesystem_server_script` looks (run in the project root).
FILESYSTEM_SERVER_INSTALL = (
    "npm install --no-audit --no-fund --save-exact --prefix .ci/node"
    f" {FILESYSTEM_SERVER_PACKAGE}@{FILESYSTEM_SERVER_VERSION}"
)
_PROJECT = Path(__file__).resolve().parents[3]


def filesystem_server_script(project: Path = _PROJECT) -> Path:
    """Where the installed server's entry script is (it may not exist)."""
    package = project / ".ci" / "node" / "node_modules" / FILESYSTEM_SERVER_PACKAGE
    return package / "dist" / "index.js"


def filesystem_server_command(workspace: Path, project: Path = _PROJECT) -> list[str] | None:
    """``[node, script, workspace]``: the server allowed to work in ``workspace`` only;
    ``None`` when Node.js is not on PATH or the package is not installed."""
    node = shutil.which("node")
    script = filesystem_server_script(project)
    if node is None or not script.is_file():
        return None
    return [node, str(script), str(workspace)]
