"""The error contract: internal log vs model-facing envelope, the decision table, and
chapter 03's task-status example in its two error styles."""

from __future__ import annotations

import errno
import functools
import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tutorial_lib.core import contracts
from tutorial_lib.core.contracts import (
    CATALOGUE,
    DECISION_TABLE,
    ENVELOPE_SCHEMA,
    STEPS,
    ContractError,
    LogRecord,
    capture_log_details,
    digest_arguments,
    failure,
    next_step,
)
from tutorial_lib.core.road import StepClock, call_tool
from tutorial_lib.core.tools import Registry
from tutorial_lib.examples.tasks import (
    BARE_INVALID,
    TASK_STATUSES,
    TaskStore,
    task_set_status,
    task_set_status_spec,
    with_bare_errors,
)
from tutorial_lib.workspace import read as files
from tutorial_lib.workspace.read import READ_LINES_SPEC, ReadLimits, read_lines

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)

# --------------------------------------------------------------------------- ContractError.log


def test_log_details_stay_out_of_the_error_object() -> None:
    error = ContractError(
        "not_found",
        "no file at 'a.txt' in the workspace",
        field="path",
        received="a.txt",
        log={"errno": 2, "resolved_path": "/srv/ws/a.txt"},
    )
    assert error.log == {"errno": 2, "resolved_path": "/srv/ws/a.txt"}
    assert "log" not in error.fields
    as_text = json.dumps(failure("read_lines", error))
    assert "/srv/ws" not in as_text and "errno" not in as_text


def test_failure_reports_details_only_inside_a_capture() -> None:
    error = ContractError("permission_denied", "denied", log={"errno": errno.EACCES})
    failure("read_lines", error)  # no channel open: dropped, no error
    with capture_log_details() as details:
        envelope = failure("read_lines", error)
        with capture_log_details() as inner:  # channels nest
            failure("read_lines", ContractError("not_found", "gone"))
    assert details == [{"code": "permission_denied", "errno": errno.EACCES}]
    assert inner == [{"code": "not_found"}]
    assert "errno" not in json.dumps(envelope)


def test_next_tool_is_part_of_the_envelope_schema() -> None:
    error = ContractError(
        "not_found",
        "gone",
        field="path",
        next_tool={"name": "search_files", "arguments": {"query": "session.ts"}},
    )
    envelope = failure("read_lines", error)
    ENVELOPE.validate(envelope)
    assert envelope["error"]["next_tool"]["name"] == "search_files"


def test_digest_hides_values_and_is_stable() -> None:
    secret = "token-7f3a9c"
    first = digest_arguments({"path": "a.txt", "token": secret})
    assert first == digest_arguments({"token": secret, "path": "a.txt"})  # key order ignored
    assert first != digest_arguments({"path": "a.txt", "token": secret + "x"})
    assert secret not in first and re.fullmatch(r"sha256:[0-9a-f]{16}", first)
    # whatever a model sends, the digest does not raise
    for odd in (float("nan"), {1: 2}, 10**5000, {"\ud800": b"x"}, object()):
        assert digest_arguments(odd).startswith("sha256:")


def test_log_record_to_dict_omits_what_is_unknown() -> None:
    record = LogRecord("read_lines", "sha256:0", ("path",), "ok", "applied", 1.0)
    assert record.to_dict() == {
        "tool": "read_lines",
        "arguments_digest": "sha256:0",
        "argument_names": ["path"],
        "outcome": "ok",
        "operation_state": "applied",
        "elapsed_ms": 1.0,
    }


# ------------------------------------------------------- every read_lines code: log, not envelope


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    """A workspace with one example of each failure read_lines can report."""
    root = tmp_path / "ws"
    (root / "dir").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("outside\n", encoding="utf-8")
    (root / "notes.txt").write_text("first\nsecond\nthird\n", encoding="utf-8")
    (root / "blob").write_bytes(b"\x00\x01")
    (root / "bad.txt").write_bytes(b"caf\xe9\n")
    (root / "locked.txt").write_text("x\n", encoding="utf-8")
    (root / "broken.txt").write_text("x\n", encoding="utf-8")
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink(str(tmp_path / "secret.txt"), root / "out_abs")
    os.mkfifo(root / "pipe")
    return root


def _failing_open(real_open: Any) -> Any:
    """os.open that fails like a storage or permission problem for two names."""

    def fake(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if path == "locked.txt":
            raise PermissionError(errno.EACCES, "Permission denied", path)
        if path == "broken.txt":
            raise OSError(errno.EIO, "Input/output error", path)
        return real_open(path, flags, *args, **kwargs)

    return fake


# (expected code, arguments, keywords for read_lines: limits or a forced open method)
READ_CASES = [
    ("invalid_type", {"path": "notes.txt", "start": "1", "count": 2}, {}),
    ("missing_field", {"path": "notes.txt", "start": 1}, {}),
    ("unknown_field", {"path": "notes.txt", "start": 1, "count": 2, "lines": 3}, {}),
    ("invalid_range", {"path": "notes.txt", "start": 0, "count": 2}, {}),
    ("invalid_path", {"path": "loop_a", "start": 1, "count": 2}, {}),
    ("absolute_path_not_allowed", {"path": "/etc/passwd", "start": 1, "count": 2}, {}),
    ("outside_workspace", {"path": "out_abs", "start": 1, "count": 2}, {}),
    ("not_found", {"path": "missing/notes.txt", "start": 1, "count": 2}, {}),
    ("not_a_file", {"path": "pipe", "start": 1, "count": 2}, {}),
    ("file_too_large", {"path": "notes.txt", "start": 1, "count": 2}, {"limits": ReadLimits(4)}),
    ("binary_file", {"path": "blob", "start": 1, "count": 2}, {}),
    ("undecodable_text", {"path": "bad.txt", "start": 1, "count": 2}, {}),
    ("permission_denied", {"path": "locked.txt", "start": 1, "count": 2}, {"method": "walk"}),
    ("temporary_unavailable", {"path": "broken.txt", "start": 1, "count": 2}, {"method": "walk"}),
]
# The two temporary_unavailable messages of chapter 01 name the errno symbolically
# ("... failed (EIO)", "the workspace cannot be opened (ENOENT)"): the log has it now.
ERRNO_NAME_IN_MESSAGE = {"temporary_unavailable"}


def _call_read(root: Path, args: Any, handler_kw: dict[str, Any]) -> tuple[dict, LogRecord]:
    spec = READ_LINES_SPEC
    if handler_kw:
        spec = replace(READ_LINES_SPEC, handler=functools.partial(read_lines, **handler_kw))
    log: list[LogRecord] = []
    result = call_tool(Registry([spec]), "read_lines", args, root=root, log=log, clock=StepClock())
    assert len(log) == 1
    return result, log[0]


def _assert_no_internals(envelope: dict[str, Any], record: LogRecord, base: Path) -> None:
    text = contracts.dumps(envelope)
    assert str(base) not in text, text  # no absolute path of the machine
    assert "errno" not in text.lower() and "Traceback" not in text
    for name in ("OSError", "Error(", "FileNotFoundError", "PermissionError", "TimeoutError"):
        assert name not in text
    if record.exception_class:
        assert record.exception_class not in text
    if record.errno is not None:
        assert not re.search(rf"\b{record.errno}\b", json.dumps(envelope["error"]["message"]))
    if record.resolved_path:
        assert record.resolved_path not in text


@pytest.mark.parametrize(("code", "args", "handler_kw"), READ_CASES, ids=[c[0] for c in READ_CASES])
def test_every_read_lines_code_keeps_internals_in_the_log(
    ws: Path, monkeypatch: pytest.MonkeyPatch, code: str, args: Any, handler_kw: dict[str, Any]
) -> None:
    monkeypatch.setattr(os, "open", _failing_open(os.open))
    envelope, record = _call_read(ws, args, handler_kw)
    assert envelope["ok"] is False and envelope["error"]["code"] == code, envelope
    assert record.outcome == code and record.operation_state == "not_applied"
    assert record.elapsed_ms == 1.0
    _assert_no_internals(envelope, record, ws.parent)
    if record.errno_name is not None and code not in ERRNO_NAME_IN_MESSAGE:
        assert record.errno_name not in contracts.dumps(envelope)


def test_every_read_lines_code_is_covered() -> None:
    reachable = {c[0] for c in READ_CASES}
    other_tools = {"invalid_status", "outcome_unknown"}  # task_set_status (tests below)
    other_tools |= {"unknown_tool"}  # the pipeline (test_pipeline.py)
    other_tools |= {"invalid_value"}  # search_files (test_search.py)
    other_tools |= {"invalid_cursor"}  # the paginated GitHub tools (test_pagination.py)
    assert reachable == set(CATALOGUE) - other_tools


@pytest.mark.parametrize(
    ("args", "handler_kw", "expected"),
    [
        (
            {"path": "missing/notes.txt", "start": 1, "count": 1},
            {},
            {
                "exception_class": "FileNotFoundError",
                "errno": errno.ENOENT,
                "tail": "missing/notes.txt",
            },
        ),
        (
            {"path": "locked.txt", "start": 1, "count": 1},
            {"method": "walk"},
            {"exception_class": "PermissionError", "errno": errno.EACCES, "tail": "locked.txt"},
        ),
        (
            {"path": "broken.txt", "start": 1, "count": 1},
            {"method": "walk"},
            {"exception_class": "OSError", "errno": errno.EIO, "tail": "broken.txt"},
        ),
    ],
    ids=["not_found", "permission_denied", "eio"],
)
def test_translated_oserrors_leave_class_errno_and_path_in_the_log(
    ws: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: Any,
    handler_kw: dict[str, Any],
    expected: dict[str, Any],
) -> None:
    monkeypatch.setattr(os, "open", _failing_open(os.open))
    _, record = _call_read(ws, args, handler_kw)
    assert record.exception_class == expected["exception_class"]
    assert record.errno == expected["errno"]
    assert record.errno_name == errno.errorcode[expected["errno"]]
    assert record.resolved_path == os.path.join(os.path.realpath(ws), expected["tail"])


def test_a_storage_failure_mid_read_is_logged_with_its_errno(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_scan(*args: Any) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(files, "_scan", broken_scan)
    envelope, record = _call_read(ws, {"path": "notes.txt", "start": 1, "count": 1}, {})
    assert envelope["error"]["code"] == "temporary_unavailable"
    assert (record.exception_class, record.errno, record.errno_name) == ("OSError", 5, "EIO")
    _assert_no_internals(envelope, record, ws.parent)


def test_a_missing_workspace_is_logged_with_its_path(tmp_path: Path) -> None:
    envelope, record = _call_read(tmp_path / "gone", {"path": "a", "start": 1, "count": 1}, {})
    assert envelope["error"]["code"] == "temporary_unavailable"
    assert record.errno == errno.ENOENT and record.resolved_path == str(tmp_path / "gone")
    assert str(tmp_path) not in contracts.dumps(envelope)


# --------------------------------------------------------------------------- the decision table

EXPECTED_STEPS = {
    "invalid_type": "fix_input",
    "missing_field": "fix_input",
    "unknown_field": "fix_input",
    "invalid_range": "fix_input",
    "invalid_path": "fix_input",
    "absolute_path_not_allowed": "fix_input",
    "outside_workspace": "stop",
    "not_found": "search_first",
    "not_a_file": "fix_input",
    "file_too_large": "stop",
    "binary_file": "stop",
    "undecodable_text": "stop",
    "permission_denied": "check_authorization",
    "temporary_unavailable": "retry_with_backoff",
    "invalid_status": "fix_input",
    "unknown_tool": "fix_input",
    "outcome_unknown": "verify_state",
    "invalid_value": "fix_input",
    "invalid_cursor": "fix_input",
}


def test_decision_table_covers_every_code_and_every_step() -> None:
    assert [row.code for row in DECISION_TABLE] == list(CATALOGUE)
    assert {row.code: row.step for row in DECISION_TABLE} == EXPECTED_STEPS
    assert {row.step for row in DECISION_TABLE} == set(STEPS)
    for row in DECISION_TABLE:
        assert row.retry == CATALOGUE[row.code].retry
        error = {"code": row.code, "retry": row.retry, "operation_state": row.operation_state}
        assert next_step(error) == row.step


def test_unknown_operation_state_means_verify_first_whatever_the_code() -> None:
    for code in CATALOGUE:
        assert next_step({"code": code, "operation_state": "unknown"}) == "verify_state"


def test_the_errors_own_retry_advice_wins_over_the_default() -> None:
    error = {"code": "invalid_path", "retry": "never", "operation_state": "not_applied"}
    assert next_step(error) == "stop"
    assert next_step({"code": "not_found", "retry": "never"}) == "stop"
    assert next_step({"code": "not_found"}) == "search_first"  # default advice


def test_next_step_reads_whole_envelopes_and_refuses_non_contract_errors() -> None:
    envelope = failure("read_lines", ContractError("permission_denied", "denied"))
    assert next_step(envelope) == "check_authorization"
    for not_an_error in (
        BARE_INVALID,
        {"schema_version": 1, "ok": True, "tool": "t", "data": {}},
        {"code": "made_up"},
        {"code": "invalid_type", "retry": "sometimes"},
    ):
        with pytest.raises(ValueError):
            next_step(not_an_error)


# --------------------------------------------------------------------------- tasks_example


def store() -> TaskStore:
    return TaskStore({"T-1": "todo", "T-2": "blocked"})


def test_bare_style_says_nothing_but_the_word() -> None:
    tasks = store()
    result = task_set_status({"task_id": "T-1", "status": "doing"}, store=tasks, style="bare")
    assert result == {"error": "INVALID_ARGUMENT"}
    assert tasks.tasks["T-1"] == "todo" and tasks.writes == 0


def test_rich_style_fills_every_field_from_the_real_call() -> None:
    tasks = store()
    result = task_set_status({"task_id": "T-1", "status": "doing"}, store=tasks)
    ENVELOPE.validate(result)
    error = result["error"]
    assert error == {
        "code": "invalid_status",
        "message": error["message"],
        "field": "status",
        "received": "doing",
        "allowed_values": list(TASK_STATUSES),
        "suggestion": error["suggestion"],
        "operation_state": "not_applied",
        "retry": "after_input_correction",
    }
    assert "'todo'" in error["message"]  # the real current status, unchanged
    assert tasks.tasks["T-1"] == "todo" and tasks.writes == 0
    assert next_step(error) == "fix_input"


@pytest.mark.parametrize("word", ["doing", "Started", "WIP", "in-progress", "in progress"])
def test_suggestion_names_in_progress_only_for_words_meaning_started(word: str) -> None:
    error = task_set_status({"task_id": "T-1", "status": word}, store=store())["error"]
    assert "in_progress" in error["suggestion"] and "if" in error["suggestion"]
    assert error["received"] == word


@pytest.mark.parametrize("word", ["finished", "later", "closed", "", "TODO"])
def test_other_wrong_values_get_the_allowed_list_not_a_guess(word: str) -> None:
    error = task_set_status({"task_id": "T-1", "status": word}, store=store())["error"]
    assert error["suggestion"] == "send one of: todo, in_progress, blocked, done"


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [
        (["T-1", "done"], "invalid_type", None),
        ({"status": "done"}, "missing_field", "task_id"),
        ({"task_id": "T-1"}, "missing_field", "status"),
        ({"task_id": "T-1", "status": "done", "note": "x"}, "unknown_field", "note"),
        ({"task_id": 1, "status": "done"}, "invalid_type", "task_id"),
        ({"task_id": "T-1", "status": 3}, "invalid_type", "status"),
        ({"task_id": "T-9", "status": "done"}, "not_found", "task_id"),
    ],
)
def test_other_failures_are_rich_too_and_change_nothing(
    args: Any, code: str, field: str | None
) -> None:
    tasks = store()
    result = task_set_status(args, store=tasks)
    ENVELOPE.validate(result)
    assert (result["error"]["code"], result["error"].get("field")) == (code, field)
    assert result["error"]["operation_state"] == "not_applied"
    assert tasks.tasks == store().tasks and tasks.writes == 0
    assert task_set_status(args, store=tasks, style="bare") == BARE_INVALID


def test_success_and_idempotent_repeat() -> None:
    tasks = store()
    first = task_set_status({"task_id": "T-1", "status": "in_progress"}, store=tasks)
    again = task_set_status({"task_id": "T-1", "status": "in_progress"}, store=tasks)
    ENVELOPE.validate(first)
    assert first["data"] == {
        "task_id": "T-1",
        "status": "in_progress",
        "previous_status": "todo",
        "changed": True,
    }
    assert again["data"]["changed"] is False and tasks.tasks["T-1"] == "in_progress"


def test_a_lost_reply_is_reported_as_unknown_not_as_failed() -> None:
    tasks = store()
    tasks.lose_next_reply = True
    with capture_log_details() as details:
        result = task_set_status({"task_id": "T-2", "status": "done"}, store=tasks)
    ENVELOPE.validate(result)
    error = result["error"]
    assert error["code"] == "outcome_unknown" and error["operation_state"] == "unknown"
    assert error["retry"] == "after_status_check" and next_step(error) == "verify_state"
    assert tasks.tasks["T-2"] == "done" and tasks.writes == 1  # it did happen
    assert details == [{"code": "outcome_unknown", "exception_class": "TimeoutError"}]
    assert "TimeoutError" not in json.dumps(result)
    tasks.lose_next_reply = True
    bare = task_set_status({"task_id": "T-1", "status": "done"}, store=tasks, style="bare")
    assert bare == {"error": "INTERNAL_ERROR"}


def test_specs_and_the_bare_twin() -> None:
    tasks = store()
    rich = task_set_status_spec(tasks)
    assert rich.name == "task_set_status" and not rich.annotations.read_only
    twin = with_bare_errors(READ_LINES_SPEC)
    assert twin.name == READ_LINES_SPEC.name and twin.handler is not READ_LINES_SPEC.handler
    assert twin.handler is not None
    assert twin.handler("/nonexistent-root", {"path": "a", "start": 0, "count": 1}) == BARE_INVALID
    assert twin.handler("/nonexistent-root", {"path": "a", "start": 1, "count": 1}) == {
        "error": "INTERNAL_ERROR"
    }
