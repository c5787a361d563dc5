"""The pipeline: unknown tools, stations, envelope checks, log records, a deterministic clock,
and any arguments to read_lines through call_tool giving a valid envelope."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tutorial_lib.core.contracts import (
    CATALOGUE,
    ENVELOPE_SCHEMA,
    ContractError,
    LogRecord,
    success,
)
from tutorial_lib.core.road import UNNAMED_TOOL, MalformedEnvelope, StepClock, call_tool
from tutorial_lib.core.tools import Registry, ToolSpec
from tutorial_lib.examples.tasks import TaskStore, task_set_status_spec, with_bare_errors
from tutorial_lib.workspace.read import READ_LINES_SPEC

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
ARGS = {"path": "notes.txt", "start": 1, "count": 2}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("pipeline") / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "notes.txt").write_text("first\nsecond\nthird\n", encoding="utf-8")
    (ws / "src" / "app.py").write_text("print('hello')\n", encoding="utf-8")
    return ws


@pytest.fixture()
def registry() -> Registry:
    return Registry([READ_LINES_SPEC, task_set_status_spec(TaskStore({"T-1": "todo"}))])


def fake_tool(result: Any) -> ToolSpec:
    """A tool whose handler returns ``result`` whatever it is asked (or raises it)."""

    def handler(root: Any, args: Any) -> Any:
        if isinstance(result, BaseException):
            raise result
        return result

    return ToolSpec(
        "fake_tool", "Fake", "A fake tool for tests.", {"type": "object"}, handler=handler
    )


# --------------------------------------------------------------------------- unknown tools


def test_unknown_tool_lists_known_names_and_suggests_a_close_one(
    registry: Registry, root: Path
) -> None:
    result = call_tool(registry, "read_line", ARGS, root=root)
    ENVELOPE.validate(result)
    error = result["error"]
    assert result["tool"] == "read_line"
    assert error["code"] == "unknown_tool" and error["received"] == "read_line"
    assert error["allowed_values"] == ["read_lines", "task_set_status"]
    assert error["suggestion"] == "did you mean 'read_lines'?"
    assert error["retry"] == "after_input_correction"
    assert error["operation_state"] == "not_applied"


@pytest.mark.parametrize("name", ["getData", "delete everything!", "", None, 42, ["read_lines"]])
def test_unknown_tool_without_a_close_match_or_a_valid_name(
    registry: Registry, root: Path, name: Any
) -> None:
    log: list[LogRecord] = []
    result = call_tool(registry, name, ARGS, root=root, log=log)
    ENVELOPE.validate(result)
    assert result["error"]["code"] == "unknown_tool" and "suggestion" not in result["error"]
    assert result["tool"] == (name if name == "getData" else UNNAMED_TOOL)
    assert log[0].outcome == "unknown_tool"


def test_a_name_with_a_trailing_newline_is_not_a_tool_name(registry: Registry, root: Path) -> None:
    result = call_tool(registry, "read_lines\n", ARGS, root=root)
    ENVELOPE.validate(result)
    assert (result["tool"], result["error"]["code"]) == (UNNAMED_TOOL, "unknown_tool")
    assert result["error"]["suggestion"] == "did you mean 'read_lines'?"


# --------------------------------------------------------------------------- envelope checks


@pytest.mark.parametrize(
    "bad",
    [
        None,
        "ok",
        {"ok": True, "tool": "fake_tool", "data": {}},  # no schema_version
        {"schema_version": 1, "ok": True, "tool": "fake_tool", "data": {}, "error": {}},
        {"schema_version": 1, "ok": False, "tool": "fake_tool", "error": {"code": "oops"}},
        {"schema_version": 1, "ok": True, "tool": "fake_tool", "data": {"x": math.nan}},
        {"schema_version": 1, "ok": True, "tool": "fake_tool", "data": {"x": {1, 2}}},
        {"schema_version": 1, "ok": True, "tool": "another_tool", "data": {}},
        {"error": "INVALID_ARGUMENT"},
    ],
)
def test_a_malformed_envelope_is_a_bug_and_raises(root: Path, bad: Any) -> None:
    log: list[LogRecord] = []
    with pytest.raises(MalformedEnvelope):
        call_tool(Registry([fake_tool(bad)]), "fake_tool", {}, root=root, log=log)
    assert [r.outcome for r in log] == ["bug"]
    assert log[0].exception_class == "MalformedEnvelope"


def test_a_handler_that_raises_is_logged_and_not_hidden(root: Path) -> None:
    log: list[LogRecord] = []
    with pytest.raises(ZeroDivisionError):
        call_tool(Registry([fake_tool(ZeroDivisionError())]), "fake_tool", {}, root=root, log=log)
    assert (log[0].outcome, log[0].exception_class) == ("bug", "ZeroDivisionError")


def test_a_spec_without_handler_cannot_be_called(root: Path) -> None:
    spec = replace(READ_LINES_SPEC, handler=None)
    with pytest.raises(MalformedEnvelope, match="no handler"):
        call_tool(Registry([spec]), "read_lines", ARGS, root=root)


def test_bare_tools_pass_only_when_the_check_is_switched_off(root: Path) -> None:
    registry = Registry([with_bare_errors(READ_LINES_SPEC)])
    bad = {**ARGS, "start": 0}
    with pytest.raises(MalformedEnvelope):
        call_tool(registry, "read_lines", bad, root=root)
    log: list[LogRecord] = []
    result = call_tool(registry, "read_lines", bad, root=root, log=log, check_envelope=False)
    assert result == {"error": "INVALID_ARGUMENT"}
    assert (log[0].outcome, log[0].operation_state) == ("nonconforming", None)


# --------------------------------------------------------------------------- stations


def test_no_stations_by_default_and_a_station_can_stop_a_call(root: Path) -> None:
    seen: list[tuple[str, Any]] = []

    def record(spec: ToolSpec, args: Any, where: Any) -> None:
        seen.append((spec.name, args))

    def deny_src(spec: ToolSpec, args: Any, where: Any) -> None:
        if isinstance(args, dict) and str(args.get("path", "")).startswith("src/"):
            raise ContractError(
                "permission_denied",
                "this task may not read src/",
                field="path",
                received=args["path"],
                log={"rule": "no-src"},
            )

    registry = Registry([READ_LINES_SPEC])
    stations = [record, deny_src]
    assert call_tool(registry, "read_lines", ARGS, root=root, stations=stations)["ok"]
    log: list[LogRecord] = []
    denied = call_tool(
        registry,
        "read_lines",
        {"path": "src/app.py", "start": 1, "count": 1},
        root=root,
        stations=stations,
        log=log,
    )
    ENVELOPE.validate(denied)
    assert denied["error"]["code"] == "permission_denied"
    assert denied["error"]["operation_state"] == "not_applied"
    assert [name for name, _ in seen] == ["read_lines", "read_lines"]
    assert log[0].details == {"rule": "no-src"} and "no-src" not in json.dumps(denied)


# --------------------------------------------------------------------------- log records


def test_log_records_are_deterministic_with_a_step_clock(registry: Registry, root: Path) -> None:
    def run() -> list[dict[str, Any]]:
        log: list[LogRecord] = []
        clock = StepClock(step_ms=2.5)
        call_tool(registry, "read_lines", ARGS, root=root, log=log, clock=clock)
        call_tool(registry, "read_lines", {**ARGS, "start": 0}, root=root, log=log, clock=clock)
        call_tool(
            registry,
            "task_set_status",
            {"task_id": "T-1", "status": "done"},
            root=root,
            log=log,
            clock=clock,
        )
        return [r.to_dict() for r in log]

    first = run()
    assert first == run()
    assert [(r["tool"], r["outcome"], r["operation_state"], r["elapsed_ms"]) for r in first] == [
        ("read_lines", "ok", "applied", 2.5),
        ("read_lines", "invalid_range", "not_applied", 2.5),
        ("task_set_status", "ok", "applied", 2.5),
    ]
    assert first[0]["argument_names"] == ["count", "path", "start"]
    assert first[0]["arguments_digest"] != first[1]["arguments_digest"]


def test_log_records_hold_no_argument_values(root: Path) -> None:
    secret = "sk-live-0123456789"
    log: list[LogRecord] = []
    call_tool(
        Registry([READ_LINES_SPEC]), "read_lines", {**ARGS, "token": secret}, root=root, log=log
    )
    assert secret not in repr(log[0]) and secret not in json.dumps(log[0].to_dict())
    assert log[0].outcome == "unknown_field"


def test_without_a_log_nothing_is_recorded_and_the_result_is_the_same(
    registry: Registry, root: Path
) -> None:
    log: list[LogRecord] = []
    with_log = call_tool(registry, "read_lines", ARGS, root=root, log=log)
    assert call_tool(registry, "read_lines", ARGS, root=root) == with_log
    assert with_log == success(
        "read_lines",
        {
            "path": "notes.txt",
            "start": 1,
            "lines": [{"number": 1, "text": "first"}, {"number": 2, "text": "second"}],
            "total_lines": 3,
            "has_more": True,
        },
    )


# --------------------------------------------------------------------------- any arguments

TEXT = st.text(max_size=10)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    TEXT,
    st.sampled_from(["notes.txt", "src/app.py", "../x", "/etc/passwd"]),
)
JSON_LIKE = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(
            st.one_of(st.sampled_from(["path", "start", "count"]), TEXT), children, max_size=4
        ),
    ),
    max_leaves=10,
)
NEAR_VALID = st.fixed_dictionaries(
    {
        "path": st.one_of(SCALARS, JSON_LIKE),
        "start": st.one_of(st.integers(-2, 5), SCALARS),
        "count": st.one_of(st.integers(-2, 25), SCALARS),
    },
    optional={"extra": SCALARS},
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.one_of(st.just("read_lines"), st.just("read_lines"), SCALARS),
    args=st.one_of(JSON_LIKE, NEAR_VALID),
)
def test_any_call_gives_a_valid_envelope_and_one_log_record(
    root: Path, name: Any, args: Any
) -> None:
    log: list[LogRecord] = []
    result = call_tool(
        Registry([READ_LINES_SPEC]), name, args, root=root, log=log, clock=StepClock()
    )
    ENVELOPE.validate(result)  # call_tool checked it too: it would have raised
    json.dumps(result, allow_nan=False)
    assert len(log) == 1 and log[0].elapsed_ms == 1.0
    if result["ok"]:
        assert log[0].outcome == "ok"
    else:
        assert log[0].outcome == result["error"]["code"] in CATALOGUE
        assert result["error"]["operation_state"] == log[0].operation_state == "not_applied"
