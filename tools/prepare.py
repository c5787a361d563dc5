"""What the test run needs beyond ``pip install -e ".[test]"``, prepared in one place.

    python tools/prepare.py            # install the pinned npm packages (npm ci), if needed
    python tools/prepare.py --check    # say what is missing; install nothing

The test command (``python -m pytest``) calls :func:`prepare_node` once per run, before any
test starts (the root ``conftest.py``), so a fresh clone needs no other step; ``.ci/run``
only installs system packages and then runs that same command.

The npm packages are pinned in ``.ci/node/package.json`` and locked in
``.ci/node/package-lock.json`` (both committed); ``npm ci`` installs exactly the lock into
``.ci/node/node_modules`` (ignored by git): the reference MCP filesystem server that chapter
09 and the checker's tests run, and the widget renderer and its loader that the offline
site (``tools/site.py``) copies. A second run finds every package at its pinned version
and does nothing. Where Node.js or npm is missing, or the registry cannot be reached,
nothing is installed and :func:`node_unavailable` says in one line what is missing and how
to get it: the tests that need a package skip with that line (and fail under ``CI=true``).
A learner's ``jupyter lab`` needs none of this.

The site itself is not prepared here: ``tests/test_site.py`` builds it from the committed
notebooks into a temporary folder, so it can never be stale.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE_DIR = ROOT / ".ci" / "node"
NODE_MODULES = NODE_DIR / "node_modules"
#: The command that installs the pinned packages, for messages (run in the project root).
PREPARE_COMMAND = "python tools/prepare.py"
#: How to get Node.js and npm where they are missing (Debian, as on CI).
NODE_INSTALL = "sudo apt-get install nodejs npm"
#: Quiet, and a dead network fails in about a minute, not npm's default five per fetch.
NPM_CI_OPTIONS = (
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    "--fetch-timeout=60000",
    "--fetch-retries=1",
)
NPM_CI_TIMEOUT_S = 900  # a first install downloads about 250 MB; only a dead registry waits this


def pinned(node_dir: Path = NODE_DIR) -> dict[str, str]:
    """The npm packages the tests use and their exact versions (``package.json``)."""
    manifest = json.loads((node_dir / "package.json").read_text(encoding="utf-8"))
    return dict(manifest["dependencies"])


def installed_version(package: str, node_dir: Path = NODE_DIR) -> str | None:
    """The version of ``package`` installed under ``node_dir``, or ``None``."""
    manifest = node_dir / "node_modules" / package / "package.json"
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError):
        return None


def not_installed(node_dir: Path = NODE_DIR) -> list[str]:
    """The pinned packages missing or installed at another version, as ``name@version``."""
    return [
        f"{name}@{version}"
        for name, version in pinned(node_dir).items()
        if installed_version(name, node_dir) != version
    ]


def node_unavailable(node_dir: Path = NODE_DIR) -> str | None:
    """One line saying what is missing for the tests that run Node.js packages (``None``
    when Node.js and every pinned package are there)."""
    if shutil.which("node") is None:
        return f"Node.js is not installed ({NODE_INSTALL}, then {PREPARE_COMMAND})"
    missing = not_installed(node_dir)
    if missing:
        return f"npm packages not installed: {', '.join(missing)} (run {PREPARE_COMMAND})"
    return None


@dataclass(frozen=True)
class Prepared:
    """What :func:`prepare_node` did: ``installed`` is True only when it ran ``npm ci``."""

    ready: bool
    installed: bool
    message: str


def prepare_node(node_dir: Path = NODE_DIR) -> Prepared:
    """Install the pinned npm packages with ``npm ci`` unless they are all there already.

    A lock file serializes concurrent runs (two pytest sessions on one clone). Never raises
    for a missing tool or a failed install: the result says what happened.
    """
    if not not_installed(node_dir):
        return Prepared(ready=True, installed=False, message="npm packages ready")
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return Prepared(False, False, f"Node.js or npm is not installed ({NODE_INSTALL})")
    with (node_dir / ".prepare.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run may be installing: wait for it
        if not not_installed(node_dir):
            return Prepared(ready=True, installed=False, message="npm packages ready")
        try:
            done = subprocess.run(
                [npm, "ci", *NPM_CI_OPTIONS],
                cwd=node_dir,
                capture_output=True,
                text=True,
                check=False,
                timeout=NPM_CI_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return Prepared(False, False, f"npm ci did not finish in {NPM_CI_TIMEOUT_S} s")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Prepared(False, False, f"npm ci failed (exit {done.returncode}): {last}")
    missing = not_installed(node_dir)
    if missing:
        return Prepared(False, True, f"npm ci left out: {', '.join(missing)}")
    return Prepared(
        ready=True, installed=True, message=f"installed {len(pinned(node_dir))} npm packages"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report only; install nothing")
    args = parser.parse_args(argv)
    if args.check:
        reason = node_unavailable()
        print(reason or "ready: Node.js and every pinned npm package")
        return 0 if reason is None else 1
    result = prepare_node()
    print(result.message)
    return 0 if result.ready else 1


if __name__ == "__main__":
    sys.exit(main())
