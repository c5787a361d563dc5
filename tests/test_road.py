"""The road (tutorial_lib.core.road): the order of its stations, what each one may see, how
a call ends (envelope, operation_state, retry, log record and the station named in it), bugs
reported as bugs, and any arguments to read_lines through a Host giving a valid envelope.

These are tests of the road itself, so the hosts here carry no access map and therefore
none of their own stations: a test's stations go in ``extra_stations``, and ``unguarded``
says that these hosts hold tools that are not read-only on purpose (see :func:`road`)."""

from __future__ import annotations

import contextlib
import copy
import json
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
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
    TutorialLibError,
    success,
)
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import (
    ROAD,
    UNNAMED_TOOL,
    MalformedEnvelope,
    PendingCall,
    RoadBug,
    Station,
    StationBug,
    StationSlot,
    StepClock,
    bare_error,
)
from tutorial_lib.core.tools import Registry, ToolSpec
from tutorial_lib.examples.tasks import TaskStore, task_set_status_spec, with_bare_errors
from tutorial_lib.workspace.read import READ_LINES_SPEC, read_lines_tool

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
ARGS = {"path": "notes.txt", "start": 1, "count": 2}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("road") / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "notes.txt").write_text("first\nsecond\nthird\n", encoding="utf-8")
    (ws / "src" / "app.py").write_text("print('hello')\n", encoding="utf-8")
    return ws


@pytest.fixture()
def registry(root: Path) -> Registry:
    return Registry([read_lines_tool(root), task_set_status_spec(TaskStore({"T-1": "backlog"}))])


# A schema with one required integer, for the tools written below.
N_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}},
    "required": ["n"],
    "additionalProperties": False,
}


def fake_tool(
    execute: Callable[[Any, Mapping[str, Any], Any], Any],
    check: Callable[[Any, Mapping[str, Any]], Any] | None = None,
    *,
    schema: dict[str, Any] | None = None,
) -> ToolSpec:
    """A tool named fake_tool with the given steps (schema: anything goes, by default)."""
    steps: dict[str, Any] = {"execute": execute}
    if check is not None:
        steps["check"] = check
    return ToolSpec(
        "fake_tool", "Fake", "A fake tool for tests.", schema or {"type": "object"}, **steps
    )


def returning(data: Any) -> ToolSpec:
    """A tool whose execute returns ``data`` whatever it is asked (or raises it)."""

    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> Any:
        if isinstance(data, BaseException):
            raise data
        return data

    return fake_tool(execute)


class Recorder:
    """A tool and stations that write down, in order, every step of the road they run."""

    def __init__(self, *, refuse_at: str | None = None, fail_execution: bool = False) -> None:
        self.seen: list[str] = []
        self.refuse_at = refuse_at
        self.fail_execution = fail_execution

    def step(self, where: str) -> None:
        self.seen.append(where)
        if where == self.refuse_at:
            raise ContractError("permission_denied", f"refused at {where}")

    def tool(self) -> ToolSpec:
        def check(context: Any, args: Mapping[str, Any]) -> str:
            self.step("business_check")
            return "checked"

        def execute(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
            self.step("execution")
            if self.fail_execution:
                raise ContractError("temporary_unavailable", "busy")
            return {"n": args["n"]}

        return fake_tool(execute, check, schema=N_SCHEMA)

    def station(self, name: str, slot: StationSlot) -> Station:
        return Station(name, slot, lambda call: self.step(f"{slot}:{name}"))


def road(
    registry: Registry,
    *,
    stations: Sequence[Station] = (),
    log: list[LogRecord] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Host:
    """A host of the bare road: no access map (so no authorization or confirmation of its
    own), the test's ``stations`` as its extra stations, and ``unguarded`` because the fake
    tools and task_set_status are not read-only."""
    return Host(registry, extra_stations=stations, log=log, clock=clock, unguarded=True)


def call(
    tool: ToolSpec, args: Any, stations: tuple[Station, ...] = ()
) -> tuple[Any, list[LogRecord]]:
    host = road(Registry([tool]), stations=stations)
    result = host.call(tool.name, args)
    assert len(host.log) == 1
    return result, host.log


# --------------------------------------------------------------------------- the order


def test_the_road_is_the_documented_sequence_of_stations() -> None:
    assert ROAD == (
        "find_tool",
        "schema_check",
        "authorization",
        "resolution",
        "business_check",
        "recheck",
        "confirmation",
        "execution",
        "envelope_check",
    )


def test_stations_run_in_road_order_and_in_the_order_given_within_a_slot() -> None:
    recorder = Recorder()
    stations = (  # given out of order on purpose: the slot decides, not the position
        recorder.station("confirm", "confirmation"),
        recorder.station("resolved", "resolution"),
        recorder.station("scope", "authorization"),
        recorder.station("second_confirm", "confirmation"),
        recorder.station("budget", "authorization"),
    )
    result, log = call(recorder.tool(), {"n": 1}, stations)
    assert result == success("fake_tool", {"n": 1})
    assert recorder.seen == [  # authorization first: before the business check touches anything
        "authorization:scope",
        "authorization:budget",
        "resolution:resolved",  # on the name the call touches, before the business check
        "business_check",
        "resolution:resolved",  # again at the recheck, on what the business check opened
        "confirmation:confirm",
        "confirmation:second_confirm",
        "execution",
    ]
    assert (log[0].outcome, log[0].station) == ("ok", "execution")


def test_a_station_of_an_unknown_slot_is_refused_when_declared() -> None:
    with pytest.raises(ValueError, match="unknown station slot"):
        Station("late", "after_execution", lambda call: None)  # type: ignore[arg-type]


def test_find_tool_comes_before_the_schema_check(registry: Registry) -> None:
    result = road(registry).call("read_line", "not-an-object")
    assert result["error"]["code"] == "unknown_tool"  # not invalid_type: no schema to check


def test_the_envelope_check_comes_after_execution() -> None:
    ran: list[str] = []

    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> Any:
        ran.append("execution")
        return {"x": math.nan}

    log: list[LogRecord] = []
    with pytest.raises(MalformedEnvelope):
        road(Registry([fake_tool(execute)]), log=log).call("fake_tool", {})
    assert ran == ["execution"]
    assert (log[0].outcome, log[0].station) == ("bug", "envelope_check")


# ------------------------------------------------------- after the schema check: validated only


@pytest.mark.parametrize(
    ("args", "code", "field"),
    [
        ("not-an-object", "invalid_type", None),
        (["n", 1], "invalid_type", None),
        (None, "invalid_type", None),
        ({}, "missing_field", "n"),
        ({"n": 1, "m": 2}, "unknown_field", "m"),
        ({"n": "1"}, "invalid_type", "n"),
        ({"n": 1.0}, "invalid_type", "n"),
        ({"n": True}, "invalid_type", "n"),
        ({"n": -1}, "invalid_range", "n"),
    ],
)
def test_no_later_station_sees_arguments_that_fail_the_schema(
    args: Any, code: str, field: str | None
) -> None:
    recorder = Recorder()
    stations = (
        recorder.station("a", "authorization"),
        recorder.station("r", "resolution"),
        recorder.station("c", "confirmation"),
    )
    result, log = call(recorder.tool(), args, stations)
    ENVELOPE.validate(result)
    assert (result["error"]["code"], result["error"].get("field")) == (code, field)
    assert result["error"]["operation_state"] == "not_applied"
    assert recorder.seen == []  # neither the business check, nor a station, nor execution
    assert (log[0].outcome, log[0].station) == (code, "schema_check")


def test_stations_and_steps_receive_read_only_validated_arguments() -> None:
    received: list[Mapping[str, Any]] = []

    def grab(call: PendingCall) -> None:  # authorization: before the business check
        received.append(call.arguments)
        assert call.tool.name == "fake_tool" and call.checked is None

    def grab_resolved(call: PendingCall) -> None:  # resolution: before it, then at the recheck
        received.append(call.arguments)
        assert call.tool.name == "fake_tool" and call.checked in (None, "checked")

    def grab_checked(call: PendingCall) -> None:  # confirmation: after it
        received.append(call.arguments)
        assert call.tool.name == "fake_tool" and call.checked == "checked"

    def check(context: Any, args: Mapping[str, Any]) -> str:
        received.append(args)
        return "checked"

    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        received.append(args)
        return {}

    tool = fake_tool(execute, check, schema=N_SCHEMA)
    stations = (
        Station("grab", "authorization", grab),
        Station("grab_resolved", "resolution", grab_resolved),
        Station("grab_confirmed", "confirmation", grab_checked),
    )
    call(tool, {"n": 3}, stations)
    assert [dict(a) for a in received] == [{"n": 3}] * 6
    for arguments in received:
        with pytest.raises(TypeError):
            arguments["n"] = 4  # type: ignore[index]


def test_the_road_runs_its_own_deep_copy_of_the_arguments() -> None:
    """A nested value the caller changes after the call started cannot change what runs."""
    caller_args: dict[str, Any] = {"labels": ["a", "b"], "meta": {"k": ["v"]}}
    executed: list[Any] = []

    def meddle(call: PendingCall) -> None:  # the caller's objects change mid-call
        caller_args["labels"].append("injected")
        caller_args["meta"]["k"].append("injected")

    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        executed.append(copy.deepcopy(dict(args)))
        assert args["labels"] is not caller_args["labels"]
        return {}

    result, _ = call(fake_tool(execute), caller_args, (Station("meddle", "confirmation", meddle),))
    assert result["ok"] is True
    assert executed == [{"labels": ["a", "b"], "meta": {"k": ["v"]}}]
    assert caller_args["labels"] == ["a", "b", "injected"]  # the caller's own list did change


# --------------------------------------------------------------------------- a station refuses


@pytest.mark.parametrize("slot", ["authorization", "resolution", "confirmation"])
def test_a_station_that_refuses_stops_the_call_before_execution(slot: StationSlot) -> None:
    recorder = Recorder(refuse_at=f"{slot}:gate")
    stations = (recorder.station("gate", slot), recorder.station("after", "confirmation"))
    result, log = call(recorder.tool(), {"n": 1}, stations)
    ENVELOPE.validate(result)
    error = result["error"]
    assert error["code"] == "permission_denied" and error["message"] == f"refused at {slot}:gate"
    assert error["operation_state"] == "not_applied"
    assert error["retry"] == "after_authorization"  # the code's default advice
    assert "execution" not in recorder.seen and recorder.seen[-1] == f"{slot}:gate"
    # authorization and resolution refuse before the business check: the tool touched nothing
    assert ("business_check" in recorder.seen) == (slot == "confirmation")
    assert (log[0].outcome, log[0].operation_state, log[0].station) == (
        "permission_denied",
        "not_applied",
        slot,
    )


def test_a_refusal_is_not_applied_whatever_the_station_claims_and_keeps_its_retry() -> None:
    ran: list[str] = []

    def refuse(call: PendingCall) -> None:
        raise ContractError(
            "temporary_unavailable", "approver away", retry="never", operation_state="unknown"
        )

    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        ran.append("execution")
        return {}

    result, log = call(fake_tool(execute), {}, (Station("approve", "confirmation", refuse),))
    ENVELOPE.validate(result)
    assert (result["error"]["operation_state"], result["error"]["retry"]) == (
        "not_applied",
        "never",
    )
    assert ran == [] and log[0].operation_state == "not_applied"


def test_no_stations_by_default_and_a_station_can_stop_a_call(root: Path) -> None:
    seen: list[tuple[str, Any]] = []

    def record(call: PendingCall) -> None:
        seen.append((call.tool.name, dict(call.arguments)))

    def deny_src(call: PendingCall) -> None:
        if str(call.arguments["path"]).startswith("src/"):
            raise ContractError(
                "permission_denied",
                "this task may not read src/",
                field="path",
                received=call.arguments["path"],
                log={"rule": "no-src"},
            )

    registry = Registry([read_lines_tool(root)])
    assert Host(registry).stations == ()  # a read-only registry needs no guards: no stations
    assert Host(registry).call("read_lines", {"path": "src/app.py", "start": 1, "count": 1})["ok"]
    stations = [
        Station("record", "authorization", record),
        Station("deny_src", "authorization", deny_src),
    ]
    assert road(registry, stations=stations).call("read_lines", ARGS)["ok"]
    log: list[LogRecord] = []
    denied = road(registry, stations=stations, log=log).call(
        "read_lines", {"path": "src/app.py", "start": 1, "count": 1}
    )
    ENVELOPE.validate(denied)
    assert denied["error"]["code"] == "permission_denied"
    assert denied["error"]["operation_state"] == "not_applied"
    assert [name for name, _ in seen] == ["read_lines", "read_lines"]
    assert log[0].details == {"rule": "no-src"} and "no-src" not in json.dumps(denied)
    assert log[0].station == "authorization"


# --------------------------------------------------------------------------- bugs


@pytest.mark.parametrize("slot", ["authorization", "resolution", "confirmation"])
def test_a_station_that_raises_anything_else_is_a_bug(slot: StationSlot) -> None:
    recorder = Recorder()

    def broken(call: PendingCall) -> None:
        raise KeyError("no such rule")

    stations = (Station("broken", slot, broken), recorder.station("after", "confirmation"))
    log: list[LogRecord] = []
    with pytest.raises(StationBug, match="station 'broken' raised KeyError") as caught:
        road(Registry([recorder.tool()]), log=log, stations=stations).call("fake_tool", {"n": 1})
    assert isinstance(caught.value.__cause__, KeyError)
    assert caught.value.station == slot
    assert isinstance(caught.value, RoadBug) and isinstance(caught.value, TutorialLibError)
    assert not isinstance(caught.value, MalformedEnvelope)  # the envelope was never built
    # nothing after the broken station ran (authorization and resolution run before the check)
    assert recorder.seen == ([] if slot in ("authorization", "resolution") else ["business_check"])
    assert (log[0].outcome, log[0].operation_state, log[0].station) == ("bug", None, slot)
    assert log[0].exception_class == "StationBug"


def test_a_business_check_that_raises_anything_else_is_a_bug_logged_at_its_station() -> None:
    def check(context: Any, args: Mapping[str, Any]) -> None:
        raise KeyError("T-1")

    log: list[LogRecord] = []
    tool = fake_tool(lambda context, args, checked: {}, check)
    with pytest.raises(KeyError):
        road(Registry([tool]), log=log).call("fake_tool", {})
    assert (log[0].outcome, log[0].station, log[0].exception_class) == (
        "bug",
        "business_check",
        "KeyError",
    )


def test_a_value_translator_that_raises_is_a_bug_logged_at_the_schema_check() -> None:
    def broken(name: str, value: Any, error: Any) -> ContractError:
        raise LookupError(name)

    tool = ToolSpec(
        "fake_tool",
        "Fake",
        "A fake tool.",
        N_SCHEMA,
        execute=lambda c, a, k: {},
        value_error=broken,
    )
    log: list[LogRecord] = []
    with pytest.raises(LookupError):
        road(Registry([tool]), log=log).call("fake_tool", {"n": -1})
    assert (log[0].outcome, log[0].station) == ("bug", "schema_check")


def test_an_execute_that_raises_is_logged_and_not_hidden() -> None:
    log: list[LogRecord] = []
    with pytest.raises(ZeroDivisionError):
        road(Registry([returning(ZeroDivisionError())]), log=log).call("fake_tool", {})
    assert (log[0].outcome, log[0].exception_class) == ("bug", "ZeroDivisionError")
    assert log[0].station == "execution"


@pytest.mark.parametrize(
    "bad_data",
    [
        None,
        "ok",
        ["a", "list"],
        {"x": math.nan},
        {"x": math.inf},
        {"x": {1, 2}},
        {"x": b"bytes"},
    ],
)
def test_data_that_makes_a_malformed_envelope_is_a_bug_and_raises(bad_data: Any) -> None:
    log: list[LogRecord] = []
    with pytest.raises(MalformedEnvelope):
        road(Registry([returning(bad_data)]), log=log).call("fake_tool", {})
    assert [r.outcome for r in log] == ["bug"]
    assert log[0].exception_class == "MalformedEnvelope" and log[0].station == "envelope_check"


@pytest.mark.parametrize(
    "bad_error",
    [
        ContractError("not_found", ""),  # an empty message
        ContractError("not_found", "gone", next_tool={"name": "no spaces!", "arguments": {}}),
        ContractError("not_found", "gone", allowed_values="a,b"),  # type: ignore[arg-type]
    ],
    ids=["empty_message", "bad_next_tool", "allowed_values_not_a_list"],
)
def test_a_failure_that_makes_a_malformed_envelope_is_a_bug_too(bad_error: ContractError) -> None:
    log: list[LogRecord] = []
    with pytest.raises(MalformedEnvelope):
        road(Registry([returning(bad_error)]), log=log).call("fake_tool", {})
    assert (log[0].outcome, log[0].station) == ("bug", "envelope_check")


def test_a_spec_without_execute_cannot_be_called(root: Path) -> None:
    spec = ToolSpec("no_steps", "No steps", "Declared, never runnable.", {"type": "object"})
    log: list[LogRecord] = []
    with pytest.raises(StationBug, match="no execute step"):
        road(Registry([spec]), log=log).call("no_steps", {})
    assert (log[0].outcome, log[0].station) == ("bug", "find_tool")


# --------------------------------------------------------------------------- bare style


def test_bare_failures_are_not_envelopes_and_are_logged_as_nonconforming(root: Path) -> None:
    registry = Registry([with_bare_errors(read_lines_tool(root))])
    log: list[LogRecord] = []
    result = road(registry, log=log).call("read_lines", {**ARGS, "start": 0})
    assert result == {"error": "INVALID_ARGUMENT"} == bare_error("invalid_range")
    assert (log[0].outcome, log[0].operation_state, log[0].station) == (
        "nonconforming",
        None,
        "schema_check",
    )
    missing = road(registry).call("read_lines", {**ARGS, "path": "nope.txt"})
    assert missing == {"error": "INVALID_ARGUMENT"}  # not_found: also "fix the input"
    # successes are unchanged, and still checked
    assert road(registry).call("read_lines", ARGS)["ok"] is True
    with pytest.raises(MalformedEnvelope):
        road(Registry([with_bare_errors(returning({"x": math.nan}))])).call("fake_tool", {})


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_bare_error_is_one_word_per_kind_of_advice(code: str) -> None:
    word = (
        "INVALID_ARGUMENT"
        if CATALOGUE[code].retry == "after_input_correction"
        else "INTERNAL_ERROR"
    )
    assert bare_error(code) == {"error": word}


# --------------------------------------------------------------------------- the log record


def test_the_log_record_names_the_station_where_the_call_ended(
    registry: Registry, root: Path
) -> None:
    def refuse(call: PendingCall) -> None:
        if call.arguments.get("status") == "on_hold":
            raise ContractError("permission_denied", "not yours to put on hold")

    stations = [Station("owner", "authorization", refuse)]
    calls = [
        ("read_line", ARGS),
        ("read_lines", {**ARGS, "start": "1"}),
        ("read_lines", {**ARGS, "path": "nope.txt"}),
        ("task_set_status", {"task_id": "T-1", "status": "on_hold"}),
        ("read_lines", ARGS),
    ]
    host = road(registry, stations=stations)
    for name, args in calls:
        host.call(name, args)
    log = host.log
    assert [(r.outcome, r.station) for r in log] == [
        ("unknown_tool", "find_tool"),
        ("invalid_type", "schema_check"),
        ("not_found", "business_check"),
        ("permission_denied", "authorization"),
        ("ok", "execution"),
    ]
    on_hold = {"task_id": "T-1", "status": "on_hold"}
    log.clear()
    road(registry, log=log, stations=[Station("resolved", "resolution", refuse)]).call(
        "task_set_status", on_hold
    )
    road(registry, log=log, stations=[Station("confirm", "confirmation", refuse)]).call(
        "task_set_status", on_hold
    )
    store = TaskStore({"T-1": "backlog"}, lose_next_reply=True)
    road(Registry([task_set_status_spec(store)]), log=log).call(
        "task_set_status", {"task_id": "T-1", "status": "shipped"}
    )
    assert [(r.outcome, r.operation_state, r.station) for r in log] == [
        ("permission_denied", "not_applied", "resolution"),
        ("permission_denied", "not_applied", "confirmation"),
        ("outcome_unknown", "unknown", "execution"),
    ]
    assert log[2].exception_class == "TimeoutError"


def test_only_the_failure_that_became_the_result_speaks_in_the_log(tmp_path: Path) -> None:
    def recovered(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        # a tool that tries one place, fails, tries another and succeeds
        with contextlib.suppress(FileNotFoundError):
            (tmp_path / "first-choice.txt").read_text()
        try:
            raise ContractError("not_found", "first choice gone", log={"resolved_path": "/x"})
        except ContractError:
            pass
        return {"found": "second choice"}

    result, log = call(fake_tool(recovered), {})
    assert result["ok"] is True
    record = log[0]
    assert (record.outcome, record.station) == ("ok", "execution")
    assert record.exception_class is None and record.errno is None
    assert record.resolved_path is None and dict(record.details) == {}

    def replaced(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        try:
            raise ContractError("not_found", "gone", log={"resolved_path": "/x", "first": 1})
        except ContractError:
            raise ContractError("temporary_unavailable", "busy", log={"attempt": 2}) from None

    result, log = call(fake_tool(replaced), {})
    assert result["error"]["code"] == "temporary_unavailable"
    assert dict(log[0].details) == {"attempt": 2}  # not the first error's
    assert log[0].resolved_path is None


def test_log_records_are_deterministic_with_a_step_clock(registry: Registry) -> None:
    def run() -> list[dict[str, Any]]:
        host = road(registry, clock=StepClock(step_ms=2.5))
        host.call("read_lines", ARGS)
        host.call("read_lines", {**ARGS, "start": 0})
        host.call("task_set_status", {"task_id": "T-1", "status": "shipped"})
        return [r.to_dict() for r in host.log]

    first = run()
    assert first == run()
    assert [
        (r["tool"], r["outcome"], r["operation_state"], r["elapsed_ms"], r["station"])
        for r in first
    ] == [
        ("read_lines", "ok", "applied", 2.5, "execution"),
        ("read_lines", "invalid_range", "not_applied", 2.5, "schema_check"),
        ("task_set_status", "ok", "applied", 2.5, "execution"),
    ]
    assert first[0]["argument_names"] == ["count", "path", "start"]
    assert first[0]["arguments_digest"] != first[1]["arguments_digest"]


def test_log_records_hold_no_argument_values(root: Path) -> None:
    secret = "sk-live-0123456789"
    log: list[LogRecord] = []
    road(Registry([read_lines_tool(root)]), log=log).call("read_lines", {**ARGS, "token": secret})
    assert secret not in repr(log[0]) and secret not in json.dumps(log[0].to_dict())
    assert log[0].outcome == "unknown_field"


def test_a_shared_log_receives_the_records_and_the_result_is_the_same(
    registry: Registry,
) -> None:
    log: list[LogRecord] = []
    shared = road(registry, log=log)
    with_log = shared.call("read_lines", ARGS)
    assert shared.log is log and len(log) == 1  # the given list, not a copy
    own = road(registry)
    assert own.call("read_lines", ARGS) == with_log
    assert len(own.log) == 1 and len(log) == 1  # a host's own log; the shared one untouched
    assert with_log == success(
        "read_lines",
        {
            "path": "notes.txt",
            "start": 1,
            "lines": [{"number": 1, "text": "first"}, {"number": 2, "text": "second"}],
            "total_lines": 3,
            "has_more": True,
        },
        {"system": "workspace", "resource": "notes.txt"},
    )


# --------------------------------------------------------------------------- checked


class Resource:
    """What a business check may open: execution uses it, the road closes it."""

    def __init__(self) -> None:
        self.events: list[str] = []

    @contextlib.contextmanager
    def opened(self) -> Iterator[None]:
        self.events.append("open")
        try:
            yield
        finally:
            self.events.append("closed")


class Opened(contextlib.AbstractContextManager["Opened"]):
    def __init__(self, resource: Resource) -> None:
        self.resource = resource
        self._cm = resource.opened()
        self._cm.__enter__()

    def __exit__(self, *exc: object) -> None:
        self._cm.__exit__(None, None, None)


@pytest.mark.parametrize(
    "ending",
    [
        "success",
        "authorization",
        "resolution",
        "recheck",
        "confirmation",
        "execution_failure",
        "execution_bug",
    ],
)
def test_what_the_business_check_returns_reaches_execute_and_is_always_closed(
    ending: str,
) -> None:
    resource = Resource()
    received: list[Any] = []

    def check(context: Any, args: Mapping[str, Any]) -> Opened:
        return Opened(resource)

    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        received.append(checked)
        assert resource.events == ["open"]  # still open while execution runs
        if ending == "execution_failure":
            raise ContractError("temporary_unavailable", "busy")
        if ending == "execution_bug":
            raise RuntimeError("bug")
        return {"used": checked.resource is resource}

    def station(slot: str) -> Station:
        def look(call: PendingCall) -> None:
            before_check = call.checked is None
            if slot == "authorization" or (slot == "resolution" and before_check):
                assert before_check and resource.events == []  # before the check
            else:
                assert isinstance(call.checked, Opened)  # later stations see it too
            point = "recheck" if slot == "resolution" and not before_check else slot
            if ending == point:
                raise ContractError("permission_denied", "no")

        return Station(slot[0], slot, look)  # type: ignore[arg-type]

    stations = tuple(station(slot) for slot in ("authorization", "resolution", "confirmation"))
    tool = fake_tool(execute, check)
    log: list[LogRecord] = []
    try:
        result = road(Registry([tool]), log=log, stations=stations).call("fake_tool", {})
    except RuntimeError as exc:
        assert not isinstance(exc, RoadBug)  # the tool's own bug, not a station's
        result = None
    if ending in ("authorization", "resolution"):
        assert resource.events == []  # refused before the business check: nothing opened
    else:
        assert resource.events == ["open", "closed"]  # exactly once, on every path
    if ending == "success":
        assert result == success("fake_tool", {"used": True})
        assert len(received) == 1 and isinstance(received[0], Opened)
    elif ending in ("authorization", "resolution", "recheck", "confirmation"):
        assert received == [] and log[0].station == ending
    else:
        assert len(received) == 1 and log[0].station == "execution"


def test_what_the_business_check_returns_is_passed_on_as_is() -> None:
    token = object()
    received: list[Any] = []

    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        received.append(checked)
        return {}

    call(fake_tool(execute, lambda context, args: token), {})
    assert received == [token]


def test_the_bound_context_reaches_both_steps() -> None:
    seen: list[Any] = []

    def check(context: Any, args: Mapping[str, Any]) -> None:
        seen.append(context)

    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        seen.append(context)
        return {}

    tool = fake_tool(execute, check).bind("the context")
    call(tool, {})
    assert seen == ["the context", "the context"]


# --------------------------------------------------------------------------- unknown tools


def test_unknown_tool_lists_known_names_and_suggests_a_close_one(registry: Registry) -> None:
    result = road(registry).call("read_line", ARGS)
    ENVELOPE.validate(result)
    error = result["error"]
    assert result["tool"] == "read_line"
    assert error["code"] == "unknown_tool" and error["received"] == "read_line"
    assert error["allowed_values"] == ["read_lines", "task_set_status"]
    assert error["suggestion"] == "did you mean 'read_lines'?"
    assert error["retry"] == "after_input_correction"
    assert error["operation_state"] == "not_applied"


@pytest.mark.parametrize("name", ["getData", "delete everything!", "", None, 42, ["read_lines"]])
def test_unknown_tool_without_a_close_match_or_a_valid_name(registry: Registry, name: Any) -> None:
    log: list[LogRecord] = []
    result = road(registry, log=log).call(name, ARGS)
    ENVELOPE.validate(result)
    assert result["error"]["code"] == "unknown_tool" and "suggestion" not in result["error"]
    assert result["tool"] == (name if name == "getData" else UNNAMED_TOOL)
    assert (log[0].outcome, log[0].station) == ("unknown_tool", "find_tool")


def test_a_name_with_a_trailing_newline_is_not_a_tool_name(registry: Registry) -> None:
    result = road(registry).call("read_lines\n", ARGS)
    ENVELOPE.validate(result)
    assert (result["tool"], result["error"]["code"]) == (UNNAMED_TOOL, "unknown_tool")
    assert result["error"]["suggestion"] == "did you mean 'read_lines'?"


def test_an_unbound_spec_is_the_same_declaration_as_the_bound_one(root: Path) -> None:
    assert read_lines_tool(root) == READ_LINES_SPEC  # the context is not part of the identity


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
    host = Host(Registry([read_lines_tool(root)]), clock=StepClock())  # read-only: no guards
    result = host.call(name, args)
    log = host.log
    ENVELOPE.validate(result)  # the road checked it too: it would have raised
    json.dumps(result, allow_nan=False)
    assert len(log) == 1 and log[0].elapsed_ms == 1.0
    assert log[0].station in ROAD
    if result["ok"]:
        assert log[0].outcome == "ok"
    else:
        assert log[0].outcome == result["error"]["code"] in CATALOGUE
        assert result["error"]["operation_state"] == log[0].operation_state == "not_applied"


# --------------------------------------------------------------------------- source


def test_a_success_says_where_its_data_came_from_and_a_failure_says_nothing(
    registry: Registry,
) -> None:
    read = road(registry).call("read_lines", {"path": "notes.txt", "start": 1, "count": 1})
    assert read["source"] == {"system": "workspace", "resource": "notes.txt"}  # type: ignore[typeddict-item]
    assert list(read) == ["schema_version", "ok", "tool", "source", "data"]
    task = road(registry).call("task_set_status", {"task_id": "T-1", "status": "shipped"})
    assert task["source"] == {"system": "task_tracker", "resource": "tasks/T-1"}  # type: ignore[typeddict-item]
    failed = road(registry).call("read_lines", {"path": "missing.txt", "start": 1, "count": 1})
    assert failed["ok"] is False and "source" not in failed


def test_a_tool_without_a_source_has_none_in_its_envelope() -> None:
    tool = fake_tool(lambda context, args, checked: {"n": 1})
    assert road(Registry([tool])).call("fake_tool", {}) == success("fake_tool", {"n": 1})


def test_the_envelope_schema_refuses_a_source_on_a_failure_or_an_empty_one() -> None:
    error = {
        "code": "not_found",
        "message": "m",
        "operation_state": "not_applied",
        "retry": "never",
    }
    source = {"system": "workspace", "resource": "notes.txt"}
    base = {"schema_version": 1, "tool": "read_lines"}
    assert ENVELOPE.is_valid({**base, "ok": True, "source": source, "data": {}})
    assert not ENVELOPE.is_valid({**base, "ok": False, "source": source, "error": error})
    assert not ENVELOPE.is_valid({**base, "ok": True, "source": {"system": ""}, "data": {}})


def test_a_source_step_that_raises_is_a_bug_not_a_result() -> None:
    def broken(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Any:
        raise KeyError("path")

    tool = ToolSpec(
        "fake_tool",
        "Fake",
        "A fake tool for tests.",
        {"type": "object"},
        execute=lambda context, args, checked: {},
        source=broken,
    )
    log: list[LogRecord] = []
    with pytest.raises(KeyError):
        road(Registry([tool]), log=log).call("fake_tool", {})
    assert (log[0].outcome, log[0].station) == ("bug", "execution")
