"""Hard links: a file with more than one name cannot be proved to belong to the workspace.

A hard link inside the workspace to a file outside is, to every path check, an ordinary
file inside. The sandbox refuses a regular file whose opened descriptor says ``st_nlink >
1`` (read_lines: ``permission_denied``; search_files: skipped, ``files_skipped.hard_link``)
unless the operator allows hard links. Every test builds::

    tmp_path/secret.txt      outside: holds SECRET, which no refused result may contain
    tmp_path/ws/...          the root
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.pieces import descriptors_into
from tutorial_lib.core.contracts import ENVELOPE_SCHEMA, next_step
from tutorial_lib.workspace import sandbox
from tutorial_lib.workspace.read import ReadLimits, read_lines
from tutorial_lib.workspace.sandbox import Method, open_beneath, openat2_available
from tutorial_lib.workspace.search import SEARCH_FILES_DATA_SCHEMA, SearchLimits, search_files

SECRET = "SECRET-MARKER-hard-link-7c2e-never-in-a-refusal"
WORD = "needle"
METHODS = [
    pytest.param(
        "openat2",
        marks=pytest.mark.skipif(not openat2_available(), reason="kernel without openat2"),
    ),
    "walk",
]
ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
DATA = Draft202012Validator(SEARCH_FILES_DATA_SCHEMA)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """``ws/`` with one ordinary file and ``alias.txt``, a hard link to the outside secret."""
    (tmp_path / "secret.txt").write_text(f"{SECRET} {WORD}\n", encoding="utf-8")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text(f"first {WORD}\nsecond\n", encoding="utf-8")
    os.link(tmp_path / "secret.txt", ws / "alias.txt")
    return ws


def read(root: Path, path: str, **options: Any) -> dict[str, Any]:
    result: dict[str, Any] = dict(
        read_lines(root, {"path": path, "start": 1, "count": 5}, **options)
    )
    ENVELOPE.validate(result)
    return result


def search(root: Path, args: dict[str, Any], **options: Any) -> dict[str, Any]:
    result: dict[str, Any] = dict(search_files(root, args, **options))
    ENVELOPE.validate(result)
    if result["ok"]:
        DATA.validate(result["data"])
    return result


def assert_hard_link_refusal(result: dict[str, Any], path: str, links: int = 2) -> None:
    """The refusal a model sees: the code, the field, what to do next, and no content."""
    assert not result["ok"], result
    error = result["error"]
    assert error["code"] == "permission_denied"
    assert error["field"] == "path" and error["received"] == path
    assert error["operation_state"] == "not_applied"
    assert error["retry"] == "after_authorization"
    assert next_step(error) == "check_authorization"  # ask; other arguments will not help
    assert f"has {links} hard links" in error["message"]
    assert "plain copy" in error["suggestion"]
    assert SECRET not in json.dumps(result, ensure_ascii=False)


# --------------------------------------------------------------------------- read_lines


@pytest.mark.parametrize("method", METHODS)
def test_read_lines_refuses_a_hard_link_to_an_outside_file(root: Path, method: Method) -> None:
    assert_hard_link_refusal(read(root, "alias.txt", method=method), "alias.txt")
    assert read(root, "notes.txt", method=method)["ok"]  # a file with one name is read


@pytest.mark.parametrize("method", METHODS)
def test_two_names_inside_are_refused_too(root: Path, method: Method) -> None:
    # Both names are inside, but nothing on the descriptor says so: the cost of the rule.
    os.link(root / "notes.txt", root / "notes_again.txt")
    for path in ("notes.txt", "notes_again.txt"):
        assert_hard_link_refusal(read(root, path, method=method), path)


@pytest.mark.parametrize("method", METHODS)
def test_allow_hard_links_reads_the_linked_file(root: Path, method: Method) -> None:
    result = read(root, "alias.txt", method=method, limits=ReadLimits(allow_hard_links=True))
    # The operator accepted the risk: this is the outside file's content.
    assert result["ok"] and result["data"]["lines"][0]["text"] == f"{SECRET} {WORD}"


def test_the_count_is_read_at_call_time(root: Path) -> None:
    assert_hard_link_refusal(read(root, "alias.txt"), "alias.txt")
    (root.parent / "secret.txt").unlink()  # the outside name is gone: one name is left
    assert read(root, "alias.txt")["ok"]


@pytest.mark.parametrize("method", METHODS)
def test_a_symlink_to_a_one_name_file_is_read(root: Path, method: Method) -> None:
    os.symlink("notes.txt", root / "link_in")  # a symlink is a file of its own: no new name
    result = read(root, "link_in", method=method)
    assert result["ok"] and result["data"]["lines"][0]["text"] == f"first {WORD}"


@pytest.mark.parametrize("method", METHODS)
def test_a_symlink_to_a_hard_link_is_refused(root: Path, method: Method) -> None:
    os.symlink("alias.txt", root / "link_to_alias")
    assert_hard_link_refusal(read(root, "link_to_alias", method=method), "link_to_alias")


def test_the_check_reads_the_descriptor_not_the_path(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_path_stat(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a path was stat'ed: the link count must come from the fd")

    monkeypatch.setattr(sandbox.os, "stat", no_path_stat)
    monkeypatch.setattr(sandbox.os, "lstat", no_path_stat)
    for method in ("walk", "openat2") if openat2_available() else ("walk",):
        with pytest.raises(sandbox.ContractError) as refused:
            open_beneath(root, "alias.txt", method=method)
        assert refused.value.code == "permission_denied"
        assert refused.value.log["st_nlink"] == 2  # the operator's log, never the envelope


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd")
def test_a_refusal_closes_the_descriptor(root: Path) -> None:
    # Objects of earlier tests may still hold descriptors into other folders: counted are
    # only the descriptors into this workspace, with the collector kept from closing any.
    gc.collect()
    gc.disable()
    try:
        assert descriptors_into(root) == []
        for _ in range(50):
            read(root, "alias.txt")
            search(root, {"query": WORD})
            search(root, {"query": WORD, "path": "alias.txt"})
        left_open = descriptors_into(root)
    finally:
        gc.enable()
    assert left_open == []


def test_the_refusal_comes_before_the_size_is_told(root: Path) -> None:
    small = ReadLimits(max_file_bytes=4)  # alias.txt is larger: the size must not leak
    assert_hard_link_refusal(read(root, "alias.txt", limits=small), "alias.txt")


# --------------------------------------------------------------------------- search_files


@pytest.mark.parametrize("method", METHODS)
def test_search_skips_hard_links_and_counts_them(root: Path, method: Method) -> None:
    result = search(root, {"query": WORD}, method=method)
    data = result["data"]
    assert [c["path"] for c in data["candidates"]] == ["notes.txt"]
    assert data["files_searched"] == 1
    assert data["files_skipped"] == {
        "binary": 0,
        "too_large": 0,
        "symlink": 0,
        "hard_link": 1,
        "secret": 0,
        "other": 0,
    }
    assert SECRET not in json.dumps(result, ensure_ascii=False)


@pytest.mark.parametrize("method", METHODS)
def test_search_of_a_hard_linked_path_is_the_read_refusal(root: Path, method: Method) -> None:
    refused = search(root, {"query": WORD, "path": "alias.txt"}, method=method)
    assert_hard_link_refusal(refused, "alias.txt")
    assert refused["error"]["message"] == read(root, "alias.txt")["error"]["message"]
    small = SearchLimits(max_file_bytes=4)  # the link is refused before the size is told
    assert_hard_link_refusal(
        search(root, {"query": WORD, "path": "alias.txt"}, limits=small), "alias.txt"
    )


def test_search_with_allow_hard_links_searches_them(root: Path) -> None:
    os.link(root / "notes.txt", root / "notes_again.txt")
    data = search(root, {"query": WORD}, limits=SearchLimits(allow_hard_links=True))["data"]
    paths = [c["path"] for c in data["candidates"]]
    assert paths == ["alias.txt", "notes.txt", "notes_again.txt"]
    assert data["files_skipped"]["hard_link"] == 0
    # Each candidate's next_call is readable only when read_lines allows hard links too.
    both = ReadLimits(allow_hard_links=True)
    for candidate in data["candidates"]:
        call = candidate["next_call"]["arguments"]
        assert_hard_link_refusal(read(root, call["path"]), call["path"])
        assert read_lines(root, call, limits=both)["ok"]


# --------------------------------------------------------------------------- who makes them


@pytest.mark.skipif(shutil.which("cp") is None, reason="needs cp")
def test_cp_al_makes_every_file_a_hard_link(tmp_path: Path) -> None:
    source = tmp_path / "project"
    (source / "src").mkdir(parents=True)
    (source / "src" / "app.py").write_text(f"# {WORD}\n", encoding="utf-8")
    subprocess.run(["cp", "-al", str(source), str(tmp_path / "copy")], check=True)
    assert_hard_link_refusal(read(tmp_path / "copy", "src/app.py"), "src/app.py")
    data = search(tmp_path / "copy", {"query": WORD})["data"]
    assert data["files_searched"] == 0 and data["files_skipped"]["hard_link"] == 1


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_git_checkout_has_one_name_per_work_tree_file(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    (origin / "src").mkdir(parents=True)
    (origin / "src" / "app.py").write_text(f"# {WORD}\n", encoding="utf-8")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    for command in (
        ["git", "init", "-q", "-b", "main", str(origin)],
        ["git", "-C", str(origin), "add", "."],
        ["git", *identity, "-C", str(origin), "commit", "-q", "-m", "one"],
        ["git", "clone", "-q", str(origin), str(tmp_path / "clone")],  # a local clone
    ):
        subprocess.run(command, check=True, env=env, capture_output=True)
    clone = tmp_path / "clone"
    # The work tree is written afresh by the checkout: one name per file, so it is read.
    assert read(clone, "src/app.py")["ok"]
    # A local clone hard-links its object files to the origin's: those are skipped.
    data = search(clone, {"query": WORD})["data"]
    assert [c["path"] for c in data["candidates"]] == ["src/app.py"]
    assert data["files_skipped"]["hard_link"] >= 3  # commit, tree(s) and blob objects
