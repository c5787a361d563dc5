"""The one road every tool call travels, written out in one function: :func:`travel`.

    1. find_tool         the registry knows the name?            (unknown_tool)
    2. schema_check      the arguments match the tool's own input_schema (and, for a tool
                         that adapts them, the adapted ones match its adapted_schema)
    3. authorization     stations of that slot, on what the arguments NAME (tool, resource,
                         action class, lexical path, secret names): before any I/O
    4. resolution        stations of that slot, on the name the call really touches, found
                         by the tool's ``resolve`` step without opening anything (a path
                         after its symlinks): an in-scope link to an out-of-scope file is
                         refused before anything about that file is looked at
    5. business_check    the tool's check: what no schema can see (it may open the file)
    6. recheck           the resolution stations again, on what the business check really
                         opened (its name after symlinks: a link swapped in between is seen)
    7. confirmation      stations of that slot (chapter 07)
    8. execution         the tool's execute: data (and where it came from), or a ContractError
    9. envelope_check    the result validates against ENVELOPE_SCHEMA (else: a bug)

Nobody calls :func:`travel` but the host (:class:`tutorial_lib.core.host.Host`), which
owns the stations, the log and the clock and adds one :class:`LogRecord` per call naming
the station where the call ended. Authorization comes before the business check so a
refused call learns nothing (does the file exist? is it a FIFO? how large?) and touches
nothing outside its scope: every out-of-scope request gets the same refusal.

Every station after the schema check sees *validated* arguments, deep-copied from what
the caller passed (a nested list the caller changes afterwards cannot change what runs)
and read-only at the top: a station can never be handed ``'not-an-object'``. A
:class:`Station` returns None to let the call through or raises
:class:`~tutorial_lib.core.contracts.ContractError` to stop it; the call then ends with
that error's failure envelope and ``operation_state: "not_applied"``: execution never ran.
A station that raises anything else is a bug: the road raises :class:`StationBug`. A
result that is not a valid envelope raises :class:`MalformedEnvelope`. A tool's own step
(value translator, business check, execution) that raises anything but a ContractError is
a bug too: its exception goes up unchanged, after the log record.

Timing uses an injectable ``clock`` (seconds, like :func:`time.perf_counter`), so the log
of a test or a notebook is the same on every run: pass a :class:`StepClock`.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from tutorial_lib.core.contracts import (
    CATALOGUE,
    ENVELOPE_SCHEMA,
    ContractError,
    Envelope,
    LogRecord,
    OperationState,
    TutorialLibError,
    digest_arguments,
    failure,
    log_details,
    safe_text,
    success,
    surely_json,
)
from tutorial_lib.core.tools import NAME_PATTERN, Registry, ToolSpec

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "ROAD",
    "Arrival",
    "MalformedEnvelope",
    "PendingCall",
    "RoadBug",
    "Station",
    "StationBug",
    "StationSlot",
    "StepClock",
    "bare_error",
    "log_arrival",
    "log_bug",
    "travel",
]

#: The stations of the road, in the order a call passes them.
ROAD: tuple[str, ...] = (
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

#: The slots where a chapter plugs in its own stations, in road order.
StationSlot = Literal["authorization", "resolution", "confirmation"]
SLOTS: tuple[StationSlot, ...] = ("authorization", "resolution", "confirmation")

#: The ``tool`` field of an unknown_tool failure when the requested name is not even a
#: valid tool name (the envelope's ``tool`` must match the naming rule).
UNNAMED_TOOL = "unknown"


class RoadBug(TutorialLibError, RuntimeError):
    """A tool or station broke the contract: a bug, never a polite result.
    ``station`` names where on the road it was found."""

    def __init__(self, message: str, *, station: str) -> None:
        super().__init__(message)
        self.station = station


class StationBug(RoadBug):
    """A station raised something other than a ContractError (or a tool cannot be called)."""


class MalformedEnvelope(RoadBug):
    """A result is not a valid envelope (schema, strict JSON, or the tool's name)."""


@dataclass(frozen=True)
class PendingCall:
    """What a station sees: the tool, its validated arguments, the name the call really
    touches (``resolved``: from the tool's ``resolve`` step, None if it has none), and what
    the business check returned (``checked``: None before the business check).
    ``arguments`` is read-only and the road's own deep copy."""

    tool: ToolSpec
    arguments: Mapping[str, Any]
    checked: Any = None
    resolved: str | None = None


@dataclass(frozen=True)
class Station:
    """A named station of the road: ``check(call)`` returns None or raises ContractError.

    ``slot`` says where on the road it stands: ``"authorization"`` (before any I/O, on what
    the arguments name), ``"resolution"`` (after the business check, on what it resolved),
    ``"confirmation"``; within a slot, stations run in the order the host was given them.
    """

    name: str
    slot: StationSlot
    check: Callable[[PendingCall], None]

    def __post_init__(self) -> None:
        if self.slot not in SLOTS:
            raise ValueError(f"unknown station slot {self.slot!r}; one of {SLOTS}")


class StepClock:
    """A fake clock for deterministic logs: each reading advances by ``step_ms``.

    The host reads the clock twice per call, so every call lasts exactly ``step_ms``.
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


def travel(
    registry: Registry,
    name: Any,
    args: Any,
    stations: Sequence[Station] = (),
    *,
    reached: list[str] | None = None,
) -> Arrival:
    """The road itself, station by station: where and how the call ``name(args)`` ends.

    The host calls it (with its stations) and logs the arrival. ``reached``, if given,
    receives the name of each station as the call arrives there (the last one is where a
    bug struck). Raises :class:`RoadBug` (or what a tool's step raised) for a bug.
    """
    reached = [] if reached is None else reached
    # 1. find the tool: a name the registry does not know is the model's mistake
    reached.append("find_tool")
    if not (isinstance(name, str) and name in registry):
        error = _unknown_tool(registry, name)
        return Arrival(failure(_tool_field(name), error), "find_tool", error)
    tool = registry.get(name)
    if tool.execute is None:
        raise StationBug(
            f"{tool.name} has no execute step: it cannot be called", station="find_tool"
        )
    # 2. schema check: the tool's own input_schema; nothing after it sees raw arguments
    reached.append("schema_check")
    invalid = tool.arguments.validate(args)
    if invalid is not None:
        return _ended(tool, invalid, "schema_check")
    if tool.adapt is not None and tool.adapted_arguments is not None:
        # a model-facing schema over another one: adapt, then check again, before any
        # station, so every station sees (and every approval binds) what really runs
        try:
            args = tool.adapt(copy.deepcopy(args))
        except ContractError as exc:
            return _ended(tool, exc, "schema_check")
        invalid = tool.adapted_arguments.validate(args)
        if invalid is not None:
            return _ended(tool, invalid, "schema_check")
    # the road's own copy: what the caller holds can no longer change what runs
    arguments: Mapping[str, Any] = MappingProxyType(copy.deepcopy(args))
    by_slot = {slot: [s for s in stations if s.slot == slot] for slot in SLOTS}
    # 3. authorization on what the arguments name, before the tool touches anything
    reached.append("authorization")
    ended = _pass(by_slot["authorization"], PendingCall(tool, arguments), tool, "authorization")
    if ended is not None:
        return ended
    # 4. resolution: the name the call really touches, found without opening anything
    reached.append("resolution")
    # only when a station will read it: resolving costs a lookup per path component
    wanted = tool.resolve is not None and bool(by_slot["resolution"])
    resolved = tool.resolve(tool.context, arguments) if wanted and tool.resolve else None
    ended = _pass(
        by_slot["resolution"], PendingCall(tool, arguments, None, resolved), tool, "resolution"
    )
    if ended is not None:
        return ended
    with contextlib.ExitStack() as cleanup:
        # 5. business check: what no schema can see; it may hand over what it opened
        reached.append("business_check")
        try:
            checked = tool.check(tool.context, arguments)
        except ContractError as exc:
            return _ended(tool, exc, "business_check")
        if isinstance(checked, contextlib.AbstractContextManager):
            cleanup.enter_context(checked)  # closed whatever happens next
        call = PendingCall(tool, arguments, checked, resolved)
        # 6. the resolution stations again, on what was really opened
        reached.append("recheck")
        ended = _pass(by_slot["resolution"], call, tool, "recheck")
        if ended is not None:
            return ended
        # 7. confirmation
        reached.append("confirmation")
        ended = _pass(by_slot["confirmation"], call, tool, "confirmation")
        if ended is not None:
            return ended
        # 8. execution
        reached.append("execution")
        try:
            data = tool.execute(tool.context, arguments, checked)
        except ContractError as exc:
            return _ended(tool, exc, "execution")
        source = None if tool.source is None else tool.source(tool.context, arguments, data)
    # 9. envelope check
    reached.append("envelope_check")
    result = success(tool.name, data, source)
    _check(result, tool.name)
    return Arrival(result, "execution")


def _pass(
    stations: Sequence[Station], call: PendingCall, tool: ToolSpec, slot: str
) -> Arrival | None:
    """Run the stations of one slot; the arrival of the first that stops the call."""
    for station in stations:
        try:
            station.check(call)
        except ContractError as exc:
            return _ended(tool, exc, slot, "not_applied")  # execution never ran
        except Exception as exc:
            raise StationBug(f"station {station.name!r} raised {exc!r}", station=slot) from exc
    return None


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
    # Strict JSON, found without writing it (surely_json: a fraction of json.dumps' time
    # on a large result); only a result it is not sure of is written, and then json.dumps
    # decides, with its own words for what it refuses.
    if not surely_json(result):
        try:
            # no circular-reference bookkeeping: a circular structure still fails, as a
            # RecursionError
            json.dumps(result, allow_nan=False, check_circular=False)
        except (TypeError, ValueError, RecursionError) as exc:
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


def log_arrival(name: Any, args: Any, arrival: Arrival, elapsed_s: float) -> LogRecord:
    """The operator's record of a call that left the road at ``arrival.station``."""
    outcome, state = _outcome(arrival.result)
    return _record(name, args, outcome, state, elapsed_s, arrival.station, arrival.error, None)


def log_bug(
    name: Any, args: Any, exc: BaseException, reached: Sequence[str], elapsed_s: float
) -> LogRecord:
    """The operator's record of a call a bug ended (``reached``: the stations it reached)."""
    station = exc.station if isinstance(exc, RoadBug) else reached[-1]
    return _record(name, args, "bug", None, elapsed_s, station, None, type(exc))


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
