"""The one road every tool call travels, written out in one function: :func:`call_tool`.

    name -> find the tool (unknown_tool)
         -> stations: authorization (chapter 06), confirmation (chapter 07); none yet
         -> the tool's handler: schema check -> business check -> execution -> envelope
         -> check the envelope against contracts.ENVELOPE_SCHEMA (a bad one is a bug)
         -> one LogRecord for the operator (never shown to the model)

A *station* is a callable ``station(spec, args, root)`` that returns None to let the call
through or raises :class:`~tutorial_lib.core.contracts.ContractError` to stop it; the call then
ends with that error's failure envelope (``operation_state: "not_applied"``: the handler
never ran). The list is empty until later chapters add stations.

Timing uses an injectable ``clock`` (seconds, like :func:`time.perf_counter`), so the log
of a test or a notebook is the same on every run: pass a :class:`StepClock`.
"""

from __future__ import annotations

import difflib
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from jsonschema import Draft202012Validator

from tutorial_lib.core.contracts import (
    ENVELOPE_SCHEMA,
    ContractError,
    LogRecord,
    capture_log_details,
    digest_arguments,
    failure,
)
from tutorial_lib.core.tools import NAME_PATTERN, Registry, ToolSpec

__all__ = ["MalformedEnvelope", "Station", "StepClock", "call_tool"]

#: A station between finding the tool and running it: return None, or raise ContractError.
Station = Callable[[ToolSpec, Any, Any], None]

#: The ``tool`` field of an unknown_tool failure when the requested name is not even a
#: valid tool name (the envelope's ``tool`` must match the naming rule).
UNNAMED_TOOL = "unknown"

_ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)


class MalformedEnvelope(RuntimeError):
    """A handler returned something that is not a valid result envelope: a bug to fix."""


class StepClock:
    """A fake clock for deterministic logs: each reading advances by ``step_ms``.

    The pipeline reads the clock twice per call, so every call lasts exactly ``step_ms``.
    """

    def __init__(self, step_ms: float = 1.0) -> None:
        self.step_ms = step_ms
        self.now_s = 0.0

    def __call__(self) -> float:
        now = self.now_s
        self.now_s += self.step_ms / 1000
        return now


def call_tool(
    registry: Registry,
    name: Any,
    args: Any,
    *,
    root: Any,
    log: list[LogRecord] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    stations: Sequence[Station] = (),
    check_envelope: bool = True,
) -> dict[str, Any]:
    """Call tool ``name`` with the model's raw ``args``; return the envelope the model sees.

    ``root`` is passed to the handler (the workspace of file tools). ``log``, if given,
    receives one :class:`LogRecord` per call. ``stations`` run in order before the handler.
    ``check_envelope=False`` is only for chapter 03's deliberately bare tools, whose
    failures are not envelopes; everything else is checked, and a handler that raises or
    returns a malformed envelope is a bug: the call is logged as ``"bug"`` and the error
    raised (:class:`MalformedEnvelope`), never turned into a polite result.
    """
    started = clock()
    with capture_log_details() as details:
        try:
            result = _road(registry, name, args, root, stations)
            if check_envelope:
                _check(result, name)
        except Exception as exc:
            if log is not None:
                log.append(_record(name, args, "bug", None, clock() - started, details, type(exc)))
            raise
    if log is not None:
        outcome, state = _outcome(result)
        log.append(_record(name, args, outcome, state, clock() - started, details, None))
    return result


def _road(
    registry: Registry, name: Any, args: Any, root: Any, stations: Sequence[Station]
) -> dict[str, Any]:
    """Find the tool, pass the stations, run the handler."""
    # 1. the tool: a name the registry does not know is the model's mistake, not a crash
    if not (isinstance(name, str) and name in registry):
        return failure(_tool_field(name), _unknown_tool(registry, name))
    spec = registry.get(name)
    # 2. the stations: authorization (chapter 06), confirmation (chapter 07)
    for station in stations:
        try:
            station(spec, args, root)
        except ContractError as exc:
            return failure(spec.name, exc)  # the handler never ran: not_applied is true
    # 3. the handler: schema check -> business check -> execution -> envelope
    if spec.handler is None:
        raise MalformedEnvelope(f"{spec.name} has no handler: it cannot be called")
    return spec.handler(root, args)


def _unknown_tool(registry: Registry, name: Any) -> ContractError:
    names = registry.names
    fields: dict[str, Any] = {"received": name, "allowed_values": names}
    close = difflib.get_close_matches(name, names, n=1) if isinstance(name, str) else []
    if close:  # a suggestion only when one name is clearly meant
        fields["suggestion"] = f"did you mean {close[0]!r}?"
    return ContractError(
        "unknown_tool", "no tool of this name; call one of the listed tools", **fields
    )


def _tool_field(name: Any) -> str:
    return name if isinstance(name, str) and NAME_PATTERN.fullmatch(name) else UNNAMED_TOOL


def _check(result: Any, name: str) -> None:
    """The envelope must validate, serialize as strict JSON and name the tool called."""
    if not isinstance(result, dict):
        raise MalformedEnvelope(f"{name} returned {type(result).__name__}, not an envelope")
    errors = sorted(_ENVELOPE.iter_errors(result), key=lambda e: list(e.path))
    if errors:
        raise MalformedEnvelope(f"{name} returned a malformed envelope: {errors[0].message}")
    try:
        json.dumps(result, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise MalformedEnvelope(f"{name} returned an envelope that is not JSON: {exc}") from None
    if result["tool"] != _tool_field(name):
        raise MalformedEnvelope(f"{name} returned an envelope of tool {result['tool']!r}")


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
    details: list[dict[str, Any]],
    raised: type[BaseException] | None,
) -> LogRecord:
    last = dict(details[-1]) if details else {}  # the failure that became the result
    last.pop("code", None)
    known = {key: last.pop(key) for key in _KNOWN_DETAILS if key in last}
    if raised is not None:
        known["exception_class"] = raised.__name__
    return LogRecord(
        tool=name if isinstance(name, str) else repr(name)[:128],
        arguments_digest=digest_arguments(args),
        argument_names=tuple(sorted(str(k) for k in args)) if isinstance(args, dict) else (),
        outcome=outcome,
        operation_state=state,
        elapsed_ms=round(elapsed_s * 1000, 3),
        details=last,
        **known,
    )
