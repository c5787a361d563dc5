"""tools/prepare.py: the pinned npm packages the test command installs, and the one line a
test skips with when something is missing (no network here: npm is never run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests import pieces
from tools import prepare
from tutorial_lib.course.chapters.ch09_mcp_server import demos as reference_server
from tutorial_lib.language import LANGUAGE_VARIABLE


def _node_dir(tmp_path: Path, installed: dict[str, str]) -> Path:
    """A copy of the project's package.json with ``installed`` packages at those versions."""
    node_dir = tmp_path / "node"
    node_dir.mkdir(parents=True)
    shutil.copyfile(prepare.NODE_DIR / "package.json", node_dir / "package.json")
    for name, version in installed.items():
        package = node_dir / "node_modules" / name
        package.mkdir(parents=True)
        (package / "package.json").write_text(json.dumps({"name": name, "version": version}))
    return node_dir


def test_every_pin_is_exact_and_locked() -> None:
    pins = prepare.pinned()
    assert set(pins) == {
        "@jupyter-widgets/html-manager",
        "@modelcontextprotocol/inspector-cli",
        "@modelcontextprotocol/sdk",
        "@modelcontextprotocol/server-filesystem",
        "requirejs",
    }
    assert all(version[0].isdigit() for version in pins.values()), pins  # no ranges
    lock = json.loads((prepare.NODE_DIR / "package-lock.json").read_text(encoding="utf-8"))
    for name, version in pins.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version


def test_a_package_at_another_version_counts_as_not_installed(tmp_path: Path) -> None:
    pins = prepare.pinned()
    (first, version), *rest = pins.items()
    node_dir = _node_dir(tmp_path, {first: version, rest[0][0]: "0.0.1"})
    assert prepare.not_installed(node_dir) == [f"{name}@{v}" for name, v in rest]
    assert prepare.not_installed(_node_dir(tmp_path / "all", pins)) == []


def test_without_node_the_line_names_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert prepare.node_unavailable(_node_dir(tmp_path, {})) == (
        "Node.js is not installed (sudo apt-get install nodejs npm, then python tools/prepare.py)"
    )
    result = prepare.prepare_node(_node_dir(tmp_path / "again", {}))
    assert (result.ready, result.installed) == (False, False)
    assert "sudo apt-get install nodejs npm" in result.message


def test_with_node_but_no_packages_the_line_names_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    reason = prepare.node_unavailable(_node_dir(tmp_path, {}))
    assert reason is not None and reason.startswith("npm packages not installed: ")
    assert reason.endswith("(run python tools/prepare.py)")


def test_a_ready_folder_is_not_installed_again(tmp_path: Path) -> None:
    result = prepare.prepare_node(_node_dir(tmp_path, prepare.pinned()))
    assert (result.ready, result.installed) == (True, False)


def test_a_missing_piece_skips_locally_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="^the widget is gone$"):
        pieces.unavailable("the widget is gone")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="the widget is gone .CI=true"):
        pieces.unavailable("the widget is gone")


def test_the_chapter_says_what_is_missing_in_the_learners_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")
    chinese = reference_server.filesystem_server_missing(tmp_path)
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    english = reference_server.filesystem_server_missing(tmp_path)
    assert english is not None and english.startswith("The reference server did not run: Node")
    assert chinese is not None and chinese.startswith("没有运行参考服务器：没有找到 Node.js")
    for line in (english, chinese):
        assert "sudo apt-get install nodejs npm" in line and prepare.PREPARE_COMMAND in line
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    missing = reference_server.filesystem_server_missing(tmp_path)
    assert missing is not None and "is not installed. Run python tools/prepare.py" in missing
