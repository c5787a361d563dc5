"""Every registered tool, every error code: the course-wide guarantees of the error contract.

- arbitrary arguments to every registered tool, through the one road (pipeline.call_tool),
  give a valid result envelope;
- every code in the catalogue is produced by at least one real call below, and every code is
  named in chapter 03 (the lesson that teaches the decision table).
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tools.notebooks import ROOT
from tutorial_lib.core.contracts import CATALOGUE, ENVELOPE_SCHEMA
from tutorial_lib.core.road import call_tool
from tutorial_lib.core.tools import Registry
from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import serve
from tutorial_lib.examples.tasks import TaskStore, task_set_status, task_set_status_spec
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import GitHubToolContext, github_tool_specs
from tutorial_lib.workspace.read import READ_LINES_SPEC, ReadLimits, read_lines
from tutorial_lib.workspace.search import SEARCH_FILES_SPEC, search_files

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "notes.txt").write_text("first\nsecond\nthird\n", encoding="utf-8")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02")
    (root / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    (root / "big.txt").write_text("x" * 5000 + "\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("secret\n", encoding="utf-8")
    return root


def registry() -> Registry:
    return Registry(
        [READ_LINES_SPEC, SEARCH_FILES_SPEC, task_set_status_spec(TaskStore({"T-1": "todo"}))]
    )


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=True)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=8,
)
field_names = st.sampled_from(
    [
        "path",
        "start",
        "count",
        "query",
        "mode",
        "max_results",
        "case_sensitive",
        "task_id",
        "status",
    ]
)
arguments = json_values | st.dictionaries(field_names, json_values, max_size=5)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.sampled_from(registry().names), args=arguments)
def test_arbitrary_arguments_to_every_registered_tool_give_a_valid_envelope(
    workspace: Path, name: str, args: Any
) -> None:
    result = call_tool(registry(), name, args, root=workspace)
    ENVELOPE.validate(result)
    json.dumps(result, allow_nan=False)
    assert result["tool"] == name


def list_comments_with_a_forged_cursor() -> dict[str, Any]:
    """github_pr_list_comments against the emulator, given a cursor that was altered."""
    with serve(build_store()) as service, GitHubClient(service.base_url) as client:
        context = GitHubToolContext(client, CursorCodec(b"k" * 32))
        specs = {spec.name: spec for spec in github_tool_specs(context)}
        tool = specs["github_pr_list_comments"]
        args = {"repository": "example/shop", "pr": 128}
        first = tool.handler(None, args)
        cursor = first["data"]["next_cursor"]
        forged = cursor[:-1] + ("A" if cursor[-1] != "A" else "B")
        return tool.handler(None, args | {"cursor": forged})


def produce_every_code(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    """One real call per catalogue code; returns code -> the envelope that call produced."""

    def read(path: str, start: Any = 1, count: Any = 1, **kw: Any) -> dict[str, Any]:
        return read_lines(root, {"path": path, "start": start, "count": count}, **kw)

    results = {
        "invalid_type": read("notes.txt", start="1"),
        "missing_field": read_lines(root, {"path": "notes.txt", "start": 1}),
        "unknown_field": read_lines(root, {"path": "notes.txt", "start": 1, "count": 1, "x": 1}),
        "invalid_range": read("notes.txt", start=0),
        "invalid_path": read("   "),
        "absolute_path_not_allowed": read("/etc/passwd"),
        "outside_workspace": read("../secret.txt"),
        "not_found": read("nope.txt"),
        "not_a_file": read("src"),
        "file_too_large": read("big.txt", limits=ReadLimits(max_file_bytes=100)),
        "binary_file": read("blob.bin"),
        "undecodable_text": read("latin1.txt"),
        "temporary_unavailable": read_lines(
            root / "missing-root", {"path": "notes.txt", "start": 1, "count": 1}
        ),
        "invalid_value": search_files(root, {"query": "x", "mode": "fuzzy"}),
        "invalid_status": task_set_status(
            {"task_id": "T-1", "status": "doing"}, store=TaskStore({"T-1": "todo"})
        ),
        "outcome_unknown": task_set_status(
            {"task_id": "T-1", "status": "done"},
            store=TaskStore({"T-1": "todo"}, lose_next_reply=True),
        ),
        "unknown_tool": call_tool(registry(), "github_pr_merge", {}, root=root),
        "invalid_cursor": list_comments_with_a_forged_cursor(),
    }
    # Root reads files whatever their mode: inject the kernel's answer for one file instead.
    real_open = os.open

    def denying_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fsdecode(path) == "notes.txt":
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", denying_open)
        results["permission_denied"] = read("notes.txt", method="walk")
    return results


def test_every_catalogue_code_is_reachable(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = produce_every_code(workspace, monkeypatch)
    assert set(results) == set(CATALOGUE), "add a call for each new code above"
    for code, envelope in results.items():
        ENVELOPE.validate(envelope)
        assert envelope["ok"] is False
        assert envelope["error"]["code"] == code, (code, envelope["error"])
        assert envelope["error"]["retry"] == CATALOGUE[code].retry


def test_every_catalogue_code_is_named_in_chapter_03() -> None:
    chapter = nbformat.read(ROOT / "notebooks" / "03_error_contracts.ipynb", as_version=4)
    text = "\n".join(
        [cell.source for cell in chapter.cells]
        + [
            output.get("text", "")
            for cell in chapter.cells
            if cell.cell_type == "code"
            for output in cell.outputs
        ]
    )
    missing = [code for code in CATALOGUE if code not in text]
    assert not missing, f"chapter 03 never names: {missing}"
