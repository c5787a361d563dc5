"""The one road every tool call travels, written out in one function: :func:`travel`
(:func:`call_tool` is the road plus the operator's log record).

    1. find_tool        the registry knows the name?            (unknown_tool)
    2. schema_check     the arguments match the tool's own input_schema
    3. business_check   the tool's check: what no schema can see
    4. authorization    stations of that slot (chapter 06)
    5. confirmation     stations of that slot (chapter 07)
    6. execution        the tool's execute: data (and where it came from), or a ContractError
    7. envelope_check   the result validates against ENVELOPE_SCHEMA (else: a bug)
    +  one LogRecord for the operator, naming the station where the call ended

Every station after the schema check sees *validated* arguments, as a read-only mapping:
a station can never be handed ``'not-an-object'``. A :class:`Station` (authorization,
confirmation) returns None to let the call through or raises
:class:`~tutorial_lib.core.contracts.ContractError` to stop it; the call then ends with
that error's failure envelope and ``operation_state: "not_applied"``: execution never ran.
A station that raises anything else is a bug: the road raises :class:`MalformedEnvelope`.
A tool's own step (value translator, business check, execution) that raises anything but
a ContractError is a bug too: its exception goes up unchanged, after the log record.

Timing uses an injectable ``clock`` (seconds, like :func:`time.perf_counter`), so the log
of a test or a notebook is the same on every run: pass a :class:`StepClock`.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, cast

from tutorial_lib.core.contracts import (
    CATALOGUE,
    ENVELOPE_SCHEMA,
    ContractError,
    Envelope,
    LogRecord,
    OperationState,
    digest_arguments,
    failure,
    log_details,
    safe_text,
    success,
)
from tutorial_lib.core.tools import NAME_PATTERN, Registry, ToolSpec

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "ROAD",
    "Arrival",
    "MalformedEnvelope",
    "Station",
    "StationSlot",
    "StepClock",
    "PendingCall",
    "bare_error",
    "call_tool",
    "travel",
]

#: The stations of the road, in the order a call passes them.
ROAD: tuple[str, ...] = (
    "find_tool",
    "schema_check",
    "business_check",
    "authorization",
    "confirmation",
    "execution",
    "envelope_check",
)

#: The slots where a chapter plugs in its own stations.
StationSlot = Literal["authorization", "confirmation"]

#: The ``tool`` field of an unknown_tool failure when the requested name is not even a
#: valid tool name (the envelope's ``tool`` must match the naming rule).
UNNAMED_TOOL = "unknown"


class MalformedEnvelope(RuntimeError):
    """A tool or station broke the contract (a station raised, or a result is not a valid
    envelope): a bug. ``station`` names where on the road it was found."""

    def __init__(self, message: str, *, station: str) -> None:
        super().__init__(message)
        self.station = station


@dataclass(frozen=True)
class PendingCall:
    """What a station sees: the tool, its validated arguments, what the business check
    returned (``checked``). ``arguments`` is read-only."""

    tool: ToolSpec
    arguments: Mapping[str, Any]
    checked: Any = None


@dataclass(frozen=True)
class Station:
    """A named station of the road: ``check(call)`` returns None or raises ContractError.

    ``slot`` says where on the road it stands (``"authorization"`` before
    ``"confirmation"``); within a slot, stations run in the order given to
    :func:`call_tool`.
    """

    name: str
    slot: StationSlot
    check: Callable[[PendingCall], None]


class StepClock:
    """A fake clock for deterministic logs: each reading advances by ``step_ms``.

    The road reads the clock twice per call, so every call lasts exactly ``step_ms``.
    """

    def __init__(self, step_ms: float = 1.0) -> None:
        self.step_ms = step_ms
        self.now_s = 0.0

    def __call__(self) -> float:
        now = self.now_s
        self.now_s += self.step_ms / 1000
        return now


@dataclass(frozen=True)
class Arrival:
    """How a call left the road: its result, the station where it ended, and the contract
    error that ended it (None for a success). A bare-style failure (chapter 03's
    counter-example) is the one ``result`` that is not an envelope."""

    result: Envelope | dict[str, str]
    station: str
    error: ContractError | None = None


def call_tool(
    registry: Registry,
    name: Any,
    args: Any,
    *,
    log: list[LogRecord] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    stations: Sequence[Station] = (),
) -> Envelope:
    """Call tool ``name`` with the model's raw ``args``; return the envelope the model sees.

    The call passes the stations of :data:`ROAD` in order (see the module docstring).
    ``log``, if given, receives one :class:`LogRecord` per call. ``stations`` are sorted
    into their slots. A bug (a station that raises anything but ``ContractError``, a
    malformed envelope: :class:`MalformedEnvelope`; a tool's step that raises anything
    but ``ContractError``: that exception) is logged as ``"bug"`` at its station and
    raised, never turned into a polite result.
    """
    started = clock()
    reached: list[str] = []
    try:
        ended = travel(registry, name, args, stations, reached=reached)
    except Exception as exc:
        if log is not None:
            station = exc.station if isinstance(exc, MalformedEnvelope) else reached[-1]
            log.append(
                _record(name, args, "bug", None, clock() - started, station, None, type(exc))
            )
        raise
    if log is not None:
        outcome, state = _outcome(ended.result)
        log.append(
            _record(name, args, outcome, state, clock() - started, ended.station, ended.error, None)
        )
    # A bare-style tool (chapter 03's counter-example) breaks the contract on purpose: its
    # failures are the one result typed as an envelope that is not one.
    return cast(Envelope, ended.result)


def travel(
    registry: Registry,
    name: Any,
    args: Any,
    stations: Sequence[Station] = (),
    *,
    reached: list[str] | None = None,
) -> Arrival:
    """The road itself, station by station: where and how the call ``name(args)`` ends.

    :func:`call_tool` is this plus the log record. ``reached``, if given, receives the name
    of each station as the call arrives there (the last one is where a bug struck).
    Raises :class:`MalformedEnvelope` (or what a tool's step raised) for a bug.
    """
    reached = [] if reached is None else reached
    # 1. find the tool: a name the registry does not know is the model's mistake
    reached.append("find_tool")
    if not (isinstance(name, str) and name in registry):
        error = _unknown_tool(registry, name)
        return Arrival(failure(_tool_field(name), error), "find_tool", error)
    tool = registry.get(name)
    if tool.execute is None:
        raise _bug("find_tool", f"{tool.name} has no execute step: it cannot be called")
    # 2. schema check: the tool's own input_schema; nothing after it sees raw arguments
    reached.append("schema_check")
    invalid = tool.arguments.validate(args)
    if invalid is not None:
        return _ended(tool, invalid, "schema_check")
    arguments: Mapping[str, Any] = MappingProxyType(args)
    with contextlib.ExitStack() as cleanup:
        # 3. business check: what no schema can see; it may hand over what it opened
        reached.append("business_check")
        try:
            checked = tool.check(tool.context, arguments)
        except ContractError as exc:
            return _ended(tool, exc, "business_check")
        if isinstance(checked, contextlib.AbstractContextManager):
            cleanup.enter_context(checked)  # closed whatever happens next
        call = PendingCall(tool, arguments, checked)
        # 4-5. authorization, then confirmation (chapters 06 and 07 add the stations)
        for slot in ("authorization", "confirmation"):
            reached.append(slot)
            for station in (s for s in stations if s.slot == slot):
                try:
                    station.check(call)
                except ContractError as exc:
                    return _ended(tool, exc, slot, "not_applied")  # execution never ran
                except Exception as exc:
                    raise _bug(slot, f"station {station.name!r} raised {exc!r}") from exc
        # 6. execution
        reached.append("execution")
        try:
            data = tool.execute(tool.context, arguments, checked)
        except ContractError as exc:
            return _ended(tool, exc, "execution")
        source = None if tool.source is None else tool.source(tool.context, arguments, data)
    # 7. envelope check
    reached.append("envelope_check")
    result = success(tool.name, data, source)
    _check(result, tool.name)
    return Arrival(result, "execution")


def _ended(
    tool: ToolSpec, error: ContractError, station: str, state: OperationState | None = None
) -> Arrival:
    envelope = failure(tool.name, error, state)
    if tool.error_style == "bare":
        return Arrival(bare_error(error.code), station, error)
    _check(envelope, tool.name)
    return Arrival(envelope, station, error)


def bare_error(code: str) -> dict[str, str]:
    """Chapter 03's bare style of a failure: one upper-case word, nothing else.

    Argument problems (codes whose advice is ``after_input_correction``) all become
    ``INVALID_ARGUMENT``; everything else becomes ``INTERNAL_ERROR``.
    """
    if CATALOGUE[code].retry == "after_input_correction":
        return {"error": "INVALID_ARGUMENT"}
    return {"error": "INTERNAL_ERROR"}


def _bug(station: str, message: str) -> MalformedEnvelope:
    return MalformedEnvelope(message, station=station)


def _unknown_tool(registry: Registry, name: Any) -> ContractError:
    names = registry.names
    close = difflib.get_close_matches(name, names, n=1) if isinstance(name, str) else []
    return ContractError(
        "unknown_tool",
        "no tool of this name; call one of the listed tools",
        received=name,
        allowed_values=names,
        # a suggestion only when one name is clearly meant
        suggestion=f"did you mean {close[0]!r}?" if close else None,
    )


def _tool_field(name: Any) -> str:
    return name if isinstance(name, str) and NAME_PATTERN.fullmatch(name) else UNNAMED_TOOL


@functools.cache
def _envelope_validator() -> Validator:
    from jsonschema import Draft202012Validator  # on first use: keeps `import` light

    return Draft202012Validator(ENVELOPE_SCHEMA)


def _check(result: Any, name: str) -> None:
    """The envelope must validate, serialize as strict JSON and name the tool called."""
    if not isinstance(result, dict):
        raise _bug("envelope_check", f"{name} returned {type(result).__name__}, not an envelope")
    errors = sorted(_envelope_validator().iter_errors(result), key=lambda e: list(e.path))
    if errors:
        raise _bug("envelope_check", f"{name} returned a malformed envelope: {errors[0].message}")
    try:
        json.dumps(result, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _bug(
            "envelope_check", f"{name} returned an envelope that is not JSON: {exc}"
        ) from None
    if result["tool"] != _tool_field(name):
        raise _bug("envelope_check", f"{name} returned an envelope of tool {result['tool']!r}")


def _outcome(result: Any) -> tuple[str, Any]:
    """(outcome, operation_state) for the log."""
    if isinstance(result, dict) and result.get("ok") is True:
        return "ok", "applied"
    error = result.get("error") if isinstance(result, dict) else None
    if isinstance(error, dict) and "code" in error and "operation_state" in error:
        return str(error["code"]), error["operation_state"]
    return "nonconforming", None


_KNOWN_DETAILS = ("exception_class", "errno", "errno_name", "resolved_path")


def _record(
    name: Any,
    args: Any,
    outcome: str,
    state: Any,
    elapsed_s: float,
    station: str,
    error: ContractError | None,
    raised: type[BaseException] | None,
) -> LogRecord:
    # Only the error that became the result speaks in the log: a failure a tool
    # recovered from (it tried one file, then another) leaves no trace here.
    details = log_details(error) if error is not None else {}
    known = {key: details.pop(key) for key in _KNOWN_DETAILS if key in details}
    if raised is not None:
        known["exception_class"] = raised.__name__
    return LogRecord(
        tool=safe_text(name if isinstance(name, str) else repr(name), 128),
        arguments_digest=digest_arguments(args),
        argument_names=tuple(sorted(safe_text(str(k), 80) for k in args))
        if isinstance(args, dict)
        else (),
        outcome=outcome,
        operation_state=state,
        elapsed_ms=round(elapsed_s * 1000, 3),
        station=station,
        details=details,
        **known,
    )
