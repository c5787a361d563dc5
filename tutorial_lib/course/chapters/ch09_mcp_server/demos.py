"""The reference MCP filesystem server that chapter 09 runs the checker on.

The course does not ship it: the project pins it in ``.ci/node/package.json`` (with the other
npm packages the tests use) and ``python tools/prepare.py`` installs it into the ignored
``.ci/node/node_modules`` folder with ``npm ci`` (the test command does this by itself), and
Node.js runs it. :func:`filesystem_server_command` is the command that starts it over a
workspace, or ``None`` when Node or the package is missing; :func:`filesystem_server_missing`
then says, in the learner's language, what is missing and how to get it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tutorial_lib.language import tr

__all__ = [
    "FILESYSTEM_SERVER_INSTALL",
    "FILESYSTEM_SERVER_PACKAGE",
    "FILESYSTEM_SERVER_VERSION",
    "filesystem_server_command",
    "filesystem_server_missing",
    "filesystem_server_script",
]

#: The npm package of the official reference filesystem server, and the version pinned
#: (``.ci/node/package.json`` pins the same; a test keeps the two equal).
FILESYSTEM_SERVER_PACKAGE = "@modelcontextprotocol/server-filesystem"
FILESYSTEM_SERVER_VERSION = "2026.8.31"
#: How to install it where :func:`filesystem_server_script` looks (run in the project root).
FILESYSTEM_SERVER_INSTALL = "python tools/prepare.py"
#: How to get Node.js and npm where they are missing (Debian, as the course's CI).
NODE_INSTALL = "sudo apt-get install nodejs npm"
_PROJECT = Path(__file__).resolve().parents[4]


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


def filesystem_server_missing(project: Path = _PROJECT) -> str | None:
    """One line, in the current language, naming what is missing to run the server and the
    command that gets it; ``None`` when it can run."""
    if shutil.which("node") is None:
        return tr(
            "没有运行参考服务器：没有找到 Node.js。先安装 Node.js 和 npm"
            f"（Debian：{NODE_INSTALL}），再在项目根目录运行 {FILESYSTEM_SERVER_INSTALL}",
            f"The reference server did not run: Node.js is not installed. Install Node.js and"
            f" npm (Debian: {NODE_INSTALL}), then run {FILESYSTEM_SERVER_INSTALL} in the project"
            " folder",
        )
    if not filesystem_server_script(project).is_file():
        return tr(
            f"没有运行参考服务器：{FILESYSTEM_SERVER_PACKAGE} 还没有安装。在项目根目录运行"
            f" {FILESYSTEM_SERVER_INSTALL}（用 npm 装进 .ci/node）",
            f"The reference server did not run: {FILESYSTEM_SERVER_PACKAGE} is not installed."
            f" Run {FILESYSTEM_SERVER_INSTALL} in the project folder (npm installs it into"
            " .ci/node)",
        )
    return None
