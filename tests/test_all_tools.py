"""Every registered tool, every error code: the course-wide guarantees of the error contract.

- arbitrary arguments to every tool of the library (the workspace tools, chapter 03's task
  tool, the GitHub read and write tools against the emulator), through the one road
  (a :class:`tutorial_lib.core.host.Host`'s ``call``), give a valid result envelope;
- every code in the catalogue is produced by at least one real call below, and every code is
  named in chapter 03 (the lesson that teaches the decision table).
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tools.notebooks import ROOT
from tutorial_lib.core.authorization import TaskScope, workspace_access
from tutorial_lib.core.confirmation import Question
from tutorial_lib.core.contracts import CATALOGUE, ENVELOPE_SCHEMA, Envelope, LogRecord
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry, ToolSpec
from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import serve
from tutorial_lib.examples.outbound import HTTP_SEND_SPEC, OutboundGateway, http_send_spec
from tutorial_lib.examples.tasks import (
    TASK_SET_STATUS_SPEC,
    TaskStore,
    task_set_status,
    task_set_status_spec,
)
from tutorial_lib.examples.units import JOB_GET_RESULT_SPEC, JobRunner, job_get_result_spec
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.composite import REVIEW_SNAPSHOT_SPEC, composite_tool_specs
from tutorial_lib.github.dangerous import (
    DANGEROUS_SPECS,
    DangerousContext,
    PendingActions,
    Settings,
    dangerous_tool_specs,
)
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import READ_SPECS, GitHubToolContext, github_tool_specs
from tutorial_lib.github.writes import WRITE_SPECS, WriteContext, write_tool_specs
from tutorial_lib.workspace.read import READ_LINES_SPEC, ReadLimits, read_lines, read_lines_tool
from tutorial_lib.workspace.search import SEARCH_FILES_SPEC, search_files, search_files_tool

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


#: Every tool the library declares, unbound.
ALL_SPECS: tuple[ToolSpec, ...] = (
    READ_LINES_SPEC,
    SEARCH_FILES_SPEC,
    TASK_SET_STATUS_SPEC,
    *READ_SPECS,
    *WRITE_SPECS,
    JOB_GET_RESULT_SPEC,
    *DANGEROUS_SPECS,
    HTTP_SEND_SPEC,
    REVIEW_SNAPSHOT_SPEC,
)


@pytest.fixture(scope="module")
def github() -> Iterator[GitHubClient]:
    """A client of a fresh emulator (no faults), for the module's GitHub tools."""
    with serve(build_store()) as service, GitHubClient(service.base_url) as client:
        yield client


def registry(root: Path, client: GitHubClient) -> Registry:
    """Every tool of the library, bound: the workspace ``root``, a task store, ``client``."""
    return Registry(
        [
            read_lines_tool(root),
            search_files_tool(root),
            task_set_status_spec(TaskStore({"T-1": "backlog"})),
            *github_tool_specs(GitHubToolContext(client, CursorCodec(b"k" * 32))),
            # no real waiting between write attempts: the schedule is not what is tested here
            *write_tool_specs(WriteContext(client, sleep=lambda seconds: None)),
            job_get_result_spec(JobRunner({"J-1": 12_000})),
            *dangerous_tool_specs(
                DangerousContext(client, Settings({"review.auto_merge": False}), PendingActions())
            ),
            http_send_spec(OutboundGateway()),
            *composite_tool_specs(GitHubToolContext(client, CursorCodec(b"k" * 32))),
        ]
    )


def unguarded(tools: Registry, log: list[LogRecord] | None = None) -> Host:
    """A host without guards, on purpose: these tests are about each tool's own handling
    of its arguments (schema, business check, envelope), which guards would cut short
    (the write, delete and send tools would stop at the confirmation station)."""
    return Host(tools, log=log, unguarded=True)


def call(tools: Registry, name: Any, args: Any) -> Envelope:
    """One call of ``name`` on the road of an unguarded host of ``tools``."""
    return unguarded(tools).call(name, args)


def test_the_registry_holds_every_tool_of_the_library(
    workspace: Path, github: GitHubClient
) -> None:
    assert registry(workspace, github).names == [spec.name for spec in ALL_SPECS]


# any code point, lone surrogates included: valid in a JSON text, never UTF-8-encodable
any_text = st.text(st.characters(exclude_categories=()), max_size=12)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=True)
    | any_text,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(any_text, children, max_size=4)
    ),
    max_leaves=8,
)
# every argument name of every tool, so that generated objects often come close
field_names = st.sampled_from(
    sorted({name for spec in ALL_SPECS for name in spec.input_schema["properties"]})
)
arguments = json_values | st.dictionaries(field_names, json_values, max_size=5)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=st.sampled_from([spec.name for spec in ALL_SPECS]), args=arguments)
def test_arbitrary_arguments_to_every_registered_tool_give_a_valid_envelope(
    workspace: Path, github: GitHubClient, name: str, args: Any
) -> None:
    result = call(registry(workspace, github), name, args)
    assert_final_form(result, name)


def nested(depth: int, in_object: bool = False) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value} if in_object else [value]
    return value


#: Valid arguments of every tool: each hostile case below spoils one part of them.
VALID_ARGUMENTS: dict[str, dict[str, Any]] = {
    "read_lines": {"path": "notes.txt", "start": 1, "count": 1},
    "search_files": {"query": "first"},
    "task_set_status": {"task_id": "T-1", "status": "shipped"},
    "github_pr_get": {"repository": "example/shop", "pr": 128},
    "github_pr_list_comments": {"repository": "example/shop", "pr": 128},
    "github_pr_get_comment": {"repository": "example/shop", "pr": 128, "comment_id": 1},
    "github_pr_create_comment": {
        "repository": "example/shop",
        "pr": 128,
        "body": "A summary.",
        "idempotency_key": "hostile-key-0001",
    },
    "github_pr_get_comment_status": {
        "repository": "example/shop",
        "pr": 128,
        "idempotency_key": "hostile-key-0001",
    },
    "job_get_result": {"job_id": "J-1", "timeout_ms": 30_000},
    # the shared emulator must not change: the PR and the comments named here do not exist
    "github_pr_merge": {"repository": "example/shop", "pr": 4242},
    "github_pr_delete_comment": {
        "repository": "example/shop",
        "pr": 128,
        "comment_id": 1,
        "kind": "review",
    },
    "github_pr_edit_comment": {
        "repository": "example/shop",
        "pr": 128,
        "comment_id": 1,
        "kind": "conversation",
        "body": "An edit.",
    },
    "github_pr_list_conversation": {"repository": "example/shop", "pr": 128},
    "settings_update": {"key": "review.auto_merge", "value": True},
    "pending_action_approve": {"action_id": "A-1"},
    "http_send": {"method": "POST", "url": "https://example.com/hook", "body": "hi"},
    "github_pr_get_review_snapshot": {"repository": "example/shop", "pr": 128},
}
#: Values that are valid JSON (or a Python caller's mistake) and must never break a tool.
HOSTILE_VALUES: list[Any] = [
    nested(990),
    nested(990, in_object=True),
    nested(5000),
    "\ud800",
    "text with a lone \udfff surrogate",
    "x" * 1_000_000,
    "ok\n",
    "example/shop\n",
    10**5000,
    -(2**63),
    float("inf"),
    float("nan"),
    {"\ud800": 1},
    {"k" * 100_000: 1},
    {1: "a non-string key"},
    [None] * 10_000,
    "\x00",
]
HOSTILE_NAMES: list[Any] = ["\ud800", "k" * 1_000_000, "", "\x00", "a\nb", 1, None]


def hostile_cases() -> Iterator[tuple[str, Any]]:
    for name, valid in VALID_ARGUMENTS.items():
        for field in valid:
            for value in HOSTILE_VALUES:
                yield name, {**valid, field: value}
        for key in HOSTILE_NAMES:
            yield name, {**valid, key: 1}
        yield name, nested(990)
        yield name, {**valid, "extra": nested(990, in_object=True)}


def assert_final_form(result: Any, name: str) -> None:
    """The envelope as it leaves for the model: valid, strict JSON, UTF-8, not huge."""
    ENVELOPE.validate(result)
    text = json.dumps(result, ensure_ascii=False, allow_nan=False)
    text.encode("utf-8")  # a lone surrogate anywhere would raise here
    assert len(text) < 20_000, f"{name}: an envelope of {len(text)} characters"
    assert result["tool"] == name


def test_hostile_arguments_to_every_tool_give_a_small_valid_envelope(
    workspace: Path, github: GitHubClient
) -> None:
    tools = registry(workspace, github)
    assert set(VALID_ARGUMENTS) == set(tools.names)
    cases = list(hostile_cases())
    for name, args in cases:
        log: list[LogRecord] = []
        result = unguarded(tools, log).call(name, args)
        assert_final_form(result, name)
        for record in log:  # the log too (a composite's inner calls included)
            json.dumps(record.to_dict(), ensure_ascii=False).encode("utf-8")
    assert len(cases) > 8 * 30


def test_hostile_arguments_give_a_valid_envelope_from_a_worker_thread(
    workspace: Path, github: GitHubClient
) -> None:
    # An MCP server or a web app calls tools from threads: no step may rely on the main one.
    host = unguarded(registry(workspace, github))
    cases = [case for i, case in enumerate(hostile_cases()) if i % 7 == 0]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda case: host.call(*case), cases))
    for (name, _), result in zip(cases, results, strict=True):
        assert_final_form(result, name)


@pytest.mark.parametrize(
    ("name", "field", "value"),
    [
        ("github_pr_get", "repository", "example/shop\n"),
        ("github_pr_create_comment", "idempotency_key", "hostile-key-0002\n"),
        ("github_pr_get_comment_status", "idempotency_key", "hostile-key-0001\n"),
    ],
)
def test_a_trailing_newline_never_passes_a_pattern(
    workspace: Path, github: GitHubClient, name: str, field: str, value: str
) -> None:
    # Python's `$` matches before a final newline; JSON Schema's (ECMA-262) does not.
    result = call(registry(workspace, github), name, {**VALID_ARGUMENTS[name], field: value})
    assert result["ok"] is False, result
    assert result["error"]["field"] == field
    assert result["error"]["code"] in ("invalid_value", "invalid_range"), result["error"]


def test_a_body_with_a_lone_surrogate_is_refused_before_any_request(
    workspace: Path, github: GitHubClient
) -> None:
    args = {**VALID_ARGUMENTS["github_pr_create_comment"], "body": "half \ud83d of an emoji"}
    result = call(registry(workspace, github), "github_pr_create_comment", args)
    assert result["ok"] is False
    error = result["error"]
    assert (error["code"], error["field"], error["operation_state"]) == (
        "invalid_value",
        "body",
        "not_applied",
    )
    assert error["received"] == "half \\ud83d of an emoji"  # escaped, not lost


def test_deep_nesting_is_refused_by_name_and_echoed_small(
    workspace: Path, github: GitHubClient
) -> None:
    args = {**VALID_ARGUMENTS["read_lines"], "path": nested(990)}
    error = call(registry(workspace, github), "read_lines", args)["error"]
    assert (error["code"], error["field"]) == ("invalid_value", "path")
    assert "nested deeper than 32 levels" in error["message"]


def test_a_huge_unknown_name_is_cut_in_every_echo(workspace: Path, github: GitHubClient) -> None:
    args = {**VALID_ARGUMENTS["read_lines"], "k" * 10_000_000: 1}
    result = call(registry(workspace, github), "read_lines", args)
    error = result["error"]
    assert error["code"] == "unknown_field"
    assert len(error["field"]) == 80 and error["field"].endswith("…")
    assert len(json.dumps(result)) < 2_000


def list_comments_with_a_forged_cursor(tools: Registry) -> Any:
    """github_pr_list_comments against the emulator, given a cursor that was altered."""
    args = {"repository": "example/shop", "pr": 128}
    first = call(tools, "github_pr_list_comments", args)
    ENVELOPE.validate(first)
    cursor = first["data"]["next_cursor"]
    forged = cursor[:-1] + ("A" if cursor[-1] != "A" else "B")
    return call(tools, "github_pr_list_comments", args | {"cursor": forged})


def confirmation_codes(tools: Registry) -> dict[str, Any]:
    """read_lines behind chapter 07's confirmation station (the host's, with a question of
    its own for read_lines): the first call asks the user (confirmation_required); once the
    approval was used, running it again is refused (approval_invalid)."""
    host = Host(
        tools,
        access={"read_lines": workspace_access("read")},
        scope=TaskScope(workspace_paths=(".",), grants=frozenset({"read"})),
        confirm={"read_lines": lambda call: Question("Read notes.txt?")},
        session="all-tools",
        clock=lambda: 0.0,
    )
    args = {"path": "notes.txt", "start": 1, "count": 1}
    asked = host.call("read_lines", args)
    request_id = host.flow.requests[-1].request_id
    assert asked["error"]["confirmation"]["request_id"] == request_id
    host.flow.answer(request_id, "accept")
    assert host.run_approved(request_id)["ok"] is True
    replayed = host.run_approved(request_id)
    return {"confirmation_required": asked, "approval_invalid": replayed}


def produce_every_code(
    root: Path, client: GitHubClient, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    """One real call per catalogue code; returns code -> the envelope that call produced."""

    tools = registry(root, client)

    def read(path: str, start: Any = 1, count: Any = 1, **kw: Any) -> Any:
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
            {"task_id": "T-1", "status": "started"}, store=TaskStore({"T-1": "backlog"})
        ),
        "outcome_unknown": task_set_status(
            {"task_id": "T-1", "status": "shipped"},
            store=TaskStore({"T-1": "backlog"}, lose_next_reply=True),
        ),
        "unknown_tool": call(tools, "github_repo_delete", {}),
        "invalid_cursor": list_comments_with_a_forged_cursor(tools),
        **confirmation_codes(tools),
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
    workspace: Path, github: GitHubClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = produce_every_code(workspace, github, monkeypatch)
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
