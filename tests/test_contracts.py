"""The error contract: the catalogue and ContractError's fields, internal log vs
model-facing envelope, the decision table, and chapter 03's task-status example in its two
error styles (both on the road)."""

from __future__ import annotations

import errno
import itertools
import json
import os
import re
from pathlib import Path
from typing import Any, get_args

import pytest
from jsonschema import Draft202012Validator

from tutorial_lib.core import contracts
from tutorial_lib.core.authorization import TaskScope, local_access
from tutorial_lib.core.contracts import (
    CATALOGUE,
    DECISION_TABLE,
    ENVELOPE_SCHEMA,
    RETRY_VALUES,
    STEPS,
    CodeInfo,
    ContractError,
    LogRecord,
    NextStep,
    digest_arguments,
    failure,
    log_details,
    next_step,
)
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import StepClock
from tutorial_lib.core.tools import Registry
from tutorial_lib.examples.tasks import (
    BARE_INVALID,
    STARTED_WORDS,
    TASK_SET_STATUS_SPEC,
    TASK_STATUSES,
    TaskStore,
    task_set_status,
    task_set_status_spec,
    with_bare_errors,
)
from tutorial_lib.workspace import read as files
from tutorial_lib.workspace.read import READ_LINES_SPEC, ReadLimits, read_lines_tool

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


def test_log_details_are_the_errors_own_plus_the_exception_it_came_from() -> None:
    error = ContractError("permission_denied", "denied", log={"errno": errno.EACCES})
    envelope = failure("read_lines", error)
    assert log_details(error) == {"errno": errno.EACCES}
    assert "errno" not in json.dumps(envelope)
    try:
        try:
            raise TimeoutError("no reply")
        except TimeoutError as exc:
            raise ContractError("outcome_unknown", "lost", operation_state="unknown") from exc
    except ContractError as caught:
        assert log_details(caught) == {"exception_class": "TimeoutError"}
    try:
        try:
            raise FileNotFoundError(errno.ENOENT, "gone")
        except FileNotFoundError:
            raise ContractError("not_found", "gone", log={"exception_class": "Named"}) from None
    except ContractError as caught:
        assert log_details(caught) == {"exception_class": "Named"}  # its own log wins
    # a copy: what the road does with the details never changes the error
    details = log_details(error)
    details["extra"] = 1
    assert error.log == {"errno": errno.EACCES}


def test_next_tool_is_part_of_the_envelope_schema() -> None:
    error = ContractError(
        "not_found",
        "gone",
        field="path",
        next_tool={"name": "search_files", "arguments": {"query": "pricing.rb"}},
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
        "station": "execution",  # the default: a call that ran
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


def _call_read(root: Path, args: Any, handler_kw: dict[str, Any]) -> tuple[Any, LogRecord]:
    spec = read_lines_tool(root, **handler_kw)
    host = Host(Registry([spec]), clock=StepClock())  # read-only: no guards needed
    result = host.call("read_lines", args)
    assert len(host.log) == 1
    return result, host.log[0]


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
    other_tools |= {"unknown_tool"}  # the road (test_road.py)
    other_tools |= {"invalid_value"}  # search_files (test_search.py)
    other_tools |= {"invalid_cursor"}  # the paginated GitHub tools (test_pagination.py)
    other_tools |= {"confirmation_required", "approval_invalid"}  # test_confirmation.py
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
    "confirmation_required": "check_authorization",
    "approval_invalid": "check_authorization",
}


def test_decision_table_covers_every_code_and_every_step() -> None:
    assert [row.code for row in DECISION_TABLE] == list(CATALOGUE)
    assert {row.code: row.step for row in DECISION_TABLE} == EXPECTED_STEPS
    # every step but the retry policy's own stop_unknown (see the test below)
    assert {row.step for row in DECISION_TABLE} == set(STEPS) - {"stop_unknown"}
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


# --------------------------------------------------------------------------- the catalogue


def test_the_catalogue_cannot_be_changed_at_run_time() -> None:
    with pytest.raises(TypeError):
        CATALOGUE["made_up"] = CodeInfo("never", "x")  # type: ignore[index]
    with pytest.raises(TypeError):
        del CATALOGUE["not_found"]  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):  # frozen: a code's advice cannot be rewritten either
        CATALOGUE["not_found"].retry = "never"  # type: ignore[misc]
    with pytest.raises(ValueError, match="add it to CATALOGUE first"):
        ContractError("made_up", "x")


def test_the_schema_and_the_decision_table_list_exactly_the_catalogues_codes() -> None:
    error_schema = ENVELOPE_SCHEMA["properties"]["error"]["properties"]
    assert sorted(error_schema["code"]["enum"]) == sorted(CATALOGUE)
    assert len(error_schema["code"]["enum"]) == len(CATALOGUE)  # no duplicates
    assert [row.code for row in DECISION_TABLE] == list(CATALOGUE)
    assert set(error_schema["retry"]["enum"]) == set(RETRY_VALUES)
    assert {info.retry for info in CATALOGUE.values()} <= set(RETRY_VALUES)


@pytest.mark.parametrize(
    "misspelt", [{"sugestion": "x"}, {"feild": "path"}, {"recieved": 1}, {"allowed": []}]
)
def test_a_misspelt_field_is_a_type_error_not_a_lost_hint(misspelt: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        ContractError("not_found", "gone", **misspelt)


def test_received_none_is_kept_and_an_absent_received_is_omitted() -> None:
    sent_null = ContractError("invalid_type", "'path' must be a JSON string", received=None)
    assert "received" in sent_null.fields and sent_null.to_dict()["received"] is None
    ENVELOPE.validate(failure("read_lines", sent_null))
    nothing = ContractError("missing_field", "the argument 'path' is required", field="path")
    assert "received" not in nothing.fields and "received" not in nothing.to_dict()
    # the other optional fields: None means "does not apply", and is omitted
    error = ContractError("not_found", "gone", field=None, suggestion=None, next_tool=None)
    assert set(error.to_dict()) == {"code", "message", "operation_state", "retry"}


def test_next_step_vocabulary_covers_every_step_it_can_return() -> None:
    assert set(get_args(NextStep)) == set(STEPS)
    assert all(text.strip() for text in STEPS.values())
    returned = set()
    for code, retry, state in itertools.product(
        [*CATALOGUE, "not_in_the_catalogue"],
        [None, *RETRY_VALUES],
        ["not_applied", "unknown", None],
    ):
        error: dict[str, Any] = {"code": code}
        if retry is not None:
            error["retry"] = retry
        if state is not None:
            error["operation_state"] = state
        try:
            returned.add(next_step(error))
        except ValueError:
            assert code == "not_in_the_catalogue" and retry is None
    assert returned <= set(STEPS)
    # only the retry policy, which knows whether the state can still be checked, says this
    assert set(STEPS) - returned == {"stop_unknown"}


# --------------------------------------------------------------------------- tasks_example


def store() -> TaskStore:
    return TaskStore({"T-1": "backlog", "T-2": "on_hold"})


def test_bare_style_says_nothing_but_the_word() -> None:
    tasks = store()
    result = task_set_status({"task_id": "T-1", "status": "started"}, store=tasks, style="bare")
    assert result == {"error": "INVALID_ARGUMENT"}
    assert tasks.tasks["T-1"] == "backlog" and tasks.writes == 0


def test_rich_style_fills_every_field_from_the_real_call() -> None:
    tasks = store()
    result = task_set_status({"task_id": "T-1", "status": "started"}, store=tasks)
    ENVELOPE.validate(result)
    error = result["error"]
    assert error == {
        "code": "invalid_status",
        "message": error["message"],
        "field": "status",
        "received": "started",
        "allowed_values": list(TASK_STATUSES),
        "suggestion": error["suggestion"],
        "operation_state": "not_applied",
        "retry": "after_input_correction",
    }
    # The schema check words it before the store is read: it says what is certain.
    assert "'started'" in error["message"] and "no status was changed" in error["message"]
    assert tasks.tasks["T-1"] == "backlog" and tasks.writes == 0
    assert next_step(error) == "fix_input"


def test_no_word_meaning_started_is_an_allowed_status() -> None:
    assert TASK_STATUSES == ("backlog", "active", "on_hold", "shipped")
    assert not STARTED_WORDS & set(TASK_STATUSES)


@pytest.mark.parametrize(
    "word", ["started", "Working", "WIP", "doing", "in-progress", "in progress", "Active"]
)
def test_suggestion_names_active_only_for_words_meaning_started(word: str) -> None:
    error = task_set_status({"task_id": "T-1", "status": word}, store=store())["error"]
    assert error["suggestion"] == (
        "if work on the task has really begun, send status 'active';"
        " if not, choose another allowed value"
    )
    assert error["received"] == word


@pytest.mark.parametrize("word", ["finished", "later", "closed", "", "SHIPPED", "done", "todo"])
def test_other_wrong_values_get_the_allowed_list_not_a_guess(word: str) -> None:
    error = task_set_status({"task_id": "T-1", "status": word}, store=store())["error"]
    assert error["suggestion"] == "send one of: backlog, active, on_hold, shipped"


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [
        (["T-1", "shipped"], "invalid_type", None),
        ("T-1 shipped", "invalid_type", None),
        ({"status": "shipped"}, "missing_field", "task_id"),
        ({"task_id": "T-1"}, "missing_field", "status"),
        ({}, "missing_field", "task_id"),
        ({"task_id": "T-1", "status": "shipped", "note": "x"}, "unknown_field", "note"),
        ({"task_id": 1, "status": "shipped"}, "invalid_type", "task_id"),
        ({"task_id": 1, "status": 3}, "invalid_type", "task_id"),
        ({"task_id": "T-1", "status": 3}, "invalid_type", "status"),
        ({"task_id": "T-1", "status": None}, "invalid_type", "status"),
        ({"task_id": "T-1", "status": ["shipped"]}, "invalid_type", "status"),
        ({"task_id": "", "status": "shipped"}, "invalid_value", "task_id"),
        ({"task_id": "T-9", "status": "shipped"}, "not_found", "task_id"),
        ({"task_id": "T-9", "status": "started"}, "invalid_status", "status"),
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


def test_the_schema_check_words_types_and_the_object_itself() -> None:
    error = task_set_status({"task_id": "T-1", "status": 3}, store=store())["error"]
    assert (error["received"], error["expected"]) == (3, "string")
    error = task_set_status(["T-1", "shipped"], store=store())["error"]
    assert error["message"] == "arguments must be a JSON object with task_id and status"
    assert (error["received"], error["expected"]) == (["T-1", "shipped"], "object")
    error = task_set_status({"task_id": "T-1", "status": "shipped", "note": "x"}, store=store())
    assert error["error"]["allowed_values"] == ["task_id", "status"]
    assert error["error"]["received"] == "x"


def test_success_and_idempotent_repeat() -> None:
    tasks = store()
    first = task_set_status({"task_id": "T-1", "status": "active"}, store=tasks)
    again = task_set_status({"task_id": "T-1", "status": "active"}, store=tasks)
    ENVELOPE.validate(first)
    assert first["data"] == {
        "task_id": "T-1",
        "status": "active",
        "previous_status": "backlog",
        "changed": True,
    }
    assert again["data"]["changed"] is False and tasks.tasks["T-1"] == "active"


def test_a_lost_reply_is_reported_as_unknown_not_as_failed() -> None:
    tasks = store()
    tasks.lose_next_reply = True
    log: list[LogRecord] = []
    registry = Registry([task_set_status_spec(tasks)])
    host = Host(  # a write: declared, granted, and approved in advance by the user
        registry,
        access={"task_set_status": local_access("write", "tasks")},
        scope=TaskScope(grants=frozenset({"write"})),
        confirm={"task_set_status": None},
        log=log,
    )
    result = host.call("task_set_status", {"task_id": "T-2", "status": "shipped"})
    ENVELOPE.validate(result)
    error = result["error"]
    assert error["code"] == "outcome_unknown" and error["operation_state"] == "unknown"
    assert error["retry"] == "after_status_check" and next_step(error) == "verify_state"
    assert tasks.tasks["T-2"] == "shipped" and tasks.writes == 1  # it did happen
    assert (log[0].outcome, log[0].operation_state, log[0].station) == (
        "outcome_unknown",
        "unknown",
        "execution",
    )
    assert log[0].exception_class == "TimeoutError" and dict(log[0].details) == {}
    assert "TimeoutError" not in json.dumps(result)
    assert task_set_status({"task_id": "T-1", "status": "shipped"}, store=tasks)["ok"]  # reply back
    tasks.lose_next_reply = True
    bare = task_set_status({"task_id": "T-1", "status": "backlog"}, store=tasks, style="bare")
    assert bare == {"error": "INTERNAL_ERROR"}
    assert tasks.tasks["T-1"] == "backlog"  # the bare style hides that the write happened


def test_specs_and_the_bare_twin() -> None:
    tasks = store()
    rich = task_set_status_spec(tasks)
    assert rich.name == "task_set_status" and not rich.annotations.read_only
    assert rich.context is tasks and rich.error_style == "rich"
    assert rich == TASK_SET_STATUS_SPEC  # the same declaration, bound
    assert task_set_status_spec(tasks, style="bare").error_style == "bare"
    twin = with_bare_errors(READ_LINES_SPEC)
    assert twin.name == READ_LINES_SPEC.name and twin.error_style == "bare"
    assert READ_LINES_SPEC.error_style == "rich"  # the original is untouched
    assert twin.execute is READ_LINES_SPEC.execute and twin.check is READ_LINES_SPEC.check
    bare = Registry([with_bare_errors(read_lines_tool("/nonexistent-root"))])
    assert Host(bare).call("read_lines", {"path": "a", "start": 0, "count": 1}) == BARE_INVALID
    assert Host(bare).call("read_lines", {"path": "a", "start": 1, "count": 1}) == {
        "error": "INTERNAL_ERROR"
    }


def test_an_error_takes_its_codes_operation_state_unless_told() -> None:
    # outcome_unknown is the one code whose operation may have happened: saying so is the
    # catalogue's job, so no raise site can forget it (the GitHub client relies on this).
    assert ContractError("outcome_unknown", "no answer").operation_state == "unknown"
    assert ContractError("not_found", "gone").operation_state == "not_applied"
    assert ContractError("outcome_unknown", "x", operation_state="applied").operation_state == (
        "applied"
    )
    assert {code for code, info in CATALOGUE.items() if info.operation_state != "not_applied"} == {
        "outcome_unknown"
    }
    for row in DECISION_TABLE:
        assert row.operation_state == CATALOGUE[row.code].operation_state


def test_json_safe_makes_every_key_and_string_writable_as_small_utf8() -> None:
    from tutorial_lib.core.contracts import json_safe, safe_text

    safe = json_safe({"\ud800": "a\udfffb", 1: "one", "k" * 1000: None})
    assert safe == {"\\ud800": "a\\udfffb", "1": "one", "k" * 79 + "…": None}
    json.dumps(safe, ensure_ascii=False).encode("utf-8")
    assert safe_text("x" * 500, 10) == "x" * 9 + "…"
    assert safe_text("short") == "short"


def test_the_schema_check_reads_dollar_as_json_schema_does() -> None:
    from tutorial_lib.core.arguments import ArgumentContract, strict_validator_class

    schema = {"type": "object", "properties": {"k": {"type": "string", "pattern": "^[a-z]+$"}}}
    validator = strict_validator_class()(schema)
    assert validator.is_valid({"k": "shop"})
    assert not validator.is_valid({"k": "shop\n"})  # Python's `$` alone would accept it
    # escaped dollars and dollars in a class are characters, not anchors
    literal = strict_validator_class()(
        {"type": "object", "properties": {"k": {"type": "string", "pattern": r"^\$[$]$"}}}
    )
    assert literal.is_valid({"k": "$$"}) and not literal.is_valid({"k": "$$\n"})
    assert ArgumentContract("t", schema, lambda n, v, e: None).validate({"k": "ok"}) is None  # type: ignore[arg-type,return-value]
