"""The result envelope every tool returns, and the one catalogue of error codes.

    success: {"schema_version": 1, "ok": true,  "tool": "read_lines", "data": {...}}
    failure: {"schema_version": 1, "ok": false, "tool": "read_lines",
              "error": {"code", "message", "field"?, "received"?, "expected"?,
                        "allowed_values"?, "operation_state", "retry", "suggestion"?,
                        "next_tool"?}}

Each code has a fixed default ``retry`` advice, so the model can decide its next step from
the code alone; ``operation_state`` is always the real state of the operation. Fields that
do not apply are omitted, never null. Chapter 01 already returns every result through it;
chapter 03 sharpens it:

- two audiences, two records: the envelope is what the MODEL reads (concise, no machine
  details); a :class:`LogRecord` is what the OPERATOR reads (exception class, errno,
  resolved path, timing). A station attaches internal details with
  ``ContractError(..., log={...})``; :func:`failure` hands them to the log channel
  (:func:`capture_log_details`) and never to the envelope;
- :func:`next_step` and :data:`DECISION_TABLE`: what a caller should do after each code
  (fix the input, search first, retry with backoff, check authorization, verify the state,
  or stop).
"""

from __future__ import annotations

import contextvars
import errno as errno_module
import hashlib
import json
import math
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "CATALOGUE",
    "DECISION_TABLE",
    "ENVELOPE_SCHEMA",
    "SCHEMA_VERSION",
    "STEPS",
    "ContractError",
    "DecisionRow",
    "LogRecord",
    "capture_log_details",
    "digest_arguments",
    "exception_details",
    "failure",
    "next_step",
    "oserror_details",
    "success",
]

SCHEMA_VERSION = 1

Retry = Literal[
    "never", "after_input_correction", "with_backoff", "after_status_check", "after_authorization"
]
OperationState = Literal["not_applied", "applied", "unknown"]


@dataclass(frozen=True)
class CodeInfo:
    """What a code means and what the caller should do next by default."""

    retry: Retry
    meaning: str


#: Every error code a tool may return, with its default retry advice.
CATALOGUE: dict[str, CodeInfo] = {
    "invalid_type": CodeInfo("after_input_correction", "a value has the wrong JSON type"),
    "missing_field": CodeInfo("after_input_correction", "a required argument is missing"),
    "unknown_field": CodeInfo("after_input_correction", "an argument the tool does not accept"),
    "invalid_range": CodeInfo("after_input_correction", "a number is outside its allowed range"),
    "invalid_path": CodeInfo("after_input_correction", "the path is empty, malformed or a loop"),
    "absolute_path_not_allowed": CodeInfo(
        "after_input_correction", "paths are relative to the workspace root"
    ),
    "outside_workspace": CodeInfo("never", "the path leads outside the workspace"),
    "not_found": CodeInfo(
        "after_input_correction", "nothing exists at this path or id: search first"
    ),
    "not_a_file": CodeInfo("after_input_correction", "a directory, FIFO, device or socket"),
    "file_too_large": CodeInfo("never", "the file is larger than this tool reads"),
    "binary_file": CodeInfo("never", "the file is not text"),
    "undecodable_text": CodeInfo("never", "the requested lines are not valid UTF-8"),
    "permission_denied": CodeInfo("after_authorization", "the workspace denies access"),
    "temporary_unavailable": CodeInfo("with_backoff", "a transient failure: retry, bounded"),
    # chapter 03
    "invalid_status": CodeInfo(
        "after_input_correction", "a status outside the tool's allowed values"
    ),
    "unknown_tool": CodeInfo("after_input_correction", "no tool of this name is registered"),
    "outcome_unknown": CodeInfo(
        "after_status_check",
        "the operation may or may not have happened: check its state before anything else",
    ),
    # chapter 02 (search_files)
    "invalid_value": CodeInfo(
        "after_input_correction",
        "a value of the right type that is not accepted: not one of allowed_values, empty,"
        " or not a valid pattern",
    ),
    # chapter 04 (paged GitHub tools)
    "invalid_cursor": CodeInfo(
        "after_input_correction",
        "the cursor was altered, expired, or issued for another query: call again without"
        " cursor to restart from the first page",
    ),
}


class ContractError(Exception):
    """A contract violation or failure, carried as a value and turned into an envelope.

    Raised inside a tool's stations and caught at the end of the road, so a station can
    stop the call with one line; it never escapes the tool.

    ``fields`` become the model-facing error (see :meth:`to_dict`). ``log`` holds internal
    details for the operator (exception class, errno, resolved path, sizes...): they go to
    the :class:`LogRecord` through :func:`failure`, never into :meth:`to_dict`. A station
    that knows more may add to ``error.log`` before re-raising.
    """

    def __init__(
        self, code: str, message: str, *, log: Mapping[str, Any] | None = None, **fields: Any
    ) -> None:
        if code not in CATALOGUE:
            raise ValueError(f"unknown error code {code!r}: add it to CATALOGUE first")
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields = fields
        self.log: dict[str, Any] = dict(log or {})

    def to_dict(self, operation_state: OperationState = "not_applied") -> dict[str, Any]:
        """The ``error`` object of a failure envelope."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        for key in ("field", "received", "expected", "allowed_values", "suggestion", "next_tool"):
            if key in self.fields:
                value = self.fields[key]
                error[key] = json_safe(value) if key == "received" else value
        error["operation_state"] = operation_state
        error["retry"] = self.fields.get("retry", CATALOGUE[self.code].retry)
        return error

    def __repr__(self) -> str:
        return f"ContractError({self.code!r}, {self.message!r})"


def success(tool: str, data: dict[str, Any]) -> dict[str, Any]:
    """A success envelope."""
    return {"schema_version": SCHEMA_VERSION, "ok": True, "tool": tool, "data": data}


def failure(
    tool: str, error: ContractError, operation_state: OperationState = "not_applied"
) -> dict[str, Any]:
    """A failure envelope; ``operation_state`` must be the real state of the operation.

    The error's internal ``log`` details go to the active log channel (see
    :func:`capture_log_details`), if any; the envelope never contains them. Called inside
    an ``except`` block, it also logs the exception being handled (class, errno), unless
    the error's log already names one.
    """
    sink = _LOG_DETAILS.get()
    if sink is not None:
        details = {"code": error.code, **error.log}
        handled = sys.exc_info()[1]
        if handled is not None and handled is not error and "exception_class" not in details:
            details.update(exception_details(handled))
        sink.append(details)
    return {
        "schema_version": SCHEMA_VERSION,
        "ok": False,
        "tool": tool,
        "error": error.to_dict(operation_state),
    }


def json_safe(value: Any, _depth: int = 0) -> Any:
    """``value`` if it survives a JSON round trip unchanged in meaning, else a short repr.

    ``received`` echoes what the model sent; it must never make the envelope unserializable
    (NaN, infinities, sets, bytes) or huge (long strings are cut).
    """
    if _depth > 4:
        return "…"
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        # Python refuses to print ints of more than 4300 digits (sys.int_info); JSON would too.
        return (
            value if value.bit_length() < 10_000 else f"<an integer of {value.bit_length()} bits>"
        )
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, str):
        # A lone surrogate ("\ud800" is valid JSON) cannot be written as UTF-8: escape it.
        value = value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value if len(value) <= 200 else value[:199] + "…"
    if isinstance(value, list):
        return [json_safe(v, _depth + 1) for v in value[:20]]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: json_safe(v, _depth + 1) for k, v in list(value.items())[:20]}
    try:
        return repr(value)[:200]
    except ValueError:  # e.g. a huge int inside a tuple
        return f"<{type(value).__name__}>"


def _error_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["code", "message", "operation_state", "retry"],
        "additionalProperties": False,
        "properties": {
            "code": {"enum": sorted(CATALOGUE)},
            "message": {"type": "string", "minLength": 1},
            "field": {"type": "string"},
            "received": {},
            "expected": {},
            "allowed_values": {"type": "array"},
            "operation_state": {"enum": ["not_applied", "applied", "unknown"]},
            "retry": {
                "enum": [
                    "never",
                    "after_input_correction",
                    "with_backoff",
                    "after_status_check",
                    "after_authorization",
                ]
            },
            "suggestion": {"type": "string"},
            "next_tool": {
                "type": "object",
                "required": ["name", "arguments"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,128}$"},
                    "arguments": {"type": "object"},
                },
            },
        },
    }


#: JSON Schema (draft 2020-12) of the envelope itself: tests validate every result with it.
ENVELOPE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["schema_version", "ok", "tool"],
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION},
        "ok": {"type": "boolean"},
        "tool": {"type": "string", "pattern": "^[A-Za-z0-9_.-]{1,128}$"},
        "data": {"type": "object"},
        "error": _error_schema(),
    },
    "oneOf": [
        {
            "properties": {"ok": {"const": True}},
            "required": ["data"],
            "not": {"required": ["error"]},
        },
        {
            "properties": {"ok": {"const": False}},
            "required": ["error"],
            "not": {"required": ["data"]},
        },
    ],
    "additionalProperties": False,
}


def dumps(envelope: dict[str, Any]) -> str:
    """The envelope as the model receives it: compact JSON, non-ASCII kept readable."""
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- the internal log

_LOG_DETAILS: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "tutorial_lib_log_details", default=None
)


@contextmanager
def capture_log_details() -> Iterator[list[dict[str, Any]]]:
    """Collect the internal details of every :func:`failure` built inside the block.

    The pipeline opens this channel around a tool's handler; each failure envelope built
    inside appends ``{"code": ..., **error.log}``. Outside such a block, details are dropped
    (a tool called directly has no operator log).
    """
    sink: list[dict[str, Any]] = []
    token = _LOG_DETAILS.set(sink)
    try:
        yield sink
    finally:
        _LOG_DETAILS.reset(token)


def exception_details(exc: BaseException) -> dict[str, Any]:
    """What the log keeps of an exception: its class, and for an OSError its errno."""
    if isinstance(exc, OSError):
        return oserror_details(exc)
    return {"exception_class": type(exc).__name__}


def oserror_details(exc: OSError) -> dict[str, Any]:
    """What the log keeps of an OSError: its class, errno and errno's symbolic name."""
    details: dict[str, Any] = {"exception_class": type(exc).__name__}
    if exc.errno is not None:
        details["errno"] = exc.errno
        details["errno_name"] = errno_module.errorcode.get(exc.errno, str(exc.errno))
    return details


def digest_arguments(args: Any) -> str:
    """A short, stable fingerprint of the arguments: the log can match calls without
    storing what they contained (file contents, tokens, personal data)."""
    try:
        text = json.dumps(args, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError):  # non-string keys, huge ints, unserializable values
        text = json.dumps(json_safe(args), sort_keys=True, ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


@dataclass(frozen=True)
class LogRecord:
    """One line of the operator's log for one tool call. It NEVER goes to the model.

    - ``tool``: the name that was called (as requested, even if unknown);
    - ``arguments_digest``: :func:`digest_arguments` of the arguments, and
      ``argument_names`` their keys: enough to group and match calls, without the values;
    - ``outcome``: ``"ok"``, the error code, or for a result outside the contract
      ``"nonconforming"`` (chapter 03's bare tools) or ``"bug"`` (a handler that raised or
      returned a malformed envelope: the pipeline re-raises after logging);
    - ``operation_state``: the real state: ``"applied"`` for a success (the call ran;
      for a read: the read was done), the envelope's value for a failure, None if unknown
      to the pipeline;
    - ``elapsed_ms``: wall time of the call, measured by the pipeline's clock;
    - ``exception_class``, ``errno``, ``errno_name``, ``resolved_path``: what the station
      that translated a failure knew (None where it did not apply or was not known);
    - ``details``: any other internal detail a station attached.
    """

    tool: str
    arguments_digest: str
    argument_names: tuple[str, ...]
    outcome: str
    operation_state: OperationState | None
    elapsed_ms: float
    exception_class: str | None = None
    errno: int | None = None
    errno_name: str | None = None
    resolved_path: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record as a flat dict (fields that are None are omitted), e.g. for JSON lines."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if value is None or (name == "details" and not value):
                continue
            out[name] = dict(value) if name == "details" else value
        if "argument_names" in out:
            out["argument_names"] = list(out["argument_names"])
        return out


# --------------------------------------------------------------------------- next steps

NextStep = Literal[
    "fix_input", "search_first", "retry_with_backoff", "check_authorization", "verify_state", "stop"
]

#: The six next steps, each with what the caller does.
STEPS: dict[str, str] = {
    "fix_input": "correct the named argument (see field, expected/allowed_values), then call again",
    "search_first": "the target does not exist: search for the right one, then call again",
    "retry_with_backoff": "transient: retry the same call after a pause, a bounded number of times",
    "check_authorization": "access was refused: ask for permission; other arguments will not help",
    "verify_state": "the outcome is unknown: check the real state before doing anything else",
    "stop": "retrying cannot help: report the failure to the user and stop",
}

_STEP_OF_RETRY: dict[str, NextStep] = {
    "after_input_correction": "fix_input",
    "with_backoff": "retry_with_backoff",
    "after_authorization": "check_authorization",
    "after_status_check": "verify_state",
    "never": "stop",
}


def next_step(error: Mapping[str, Any]) -> NextStep:
    """The caller's next step after a failure, decided from the contract fields alone.

    ``error`` is the ``error`` object of a failure envelope (a whole failure envelope is
    accepted too). The rules, in order:

    1. ``operation_state == "unknown"``: ``verify_state``, whatever the code: the call may
       have taken effect, so sending it again could do it twice;
    2. ``not_found`` (with its default advice): ``search_first``;
    3. otherwise the ``retry`` advice (the error's own, else the code's default in
       :data:`CATALOGUE`) decides: see :data:`DECISION_TABLE`.

    Raises ValueError for anything that is not a contract error (a success envelope, a bare
    ``{"error": "INVALID_ARGUMENT"}``): such a result does not say what to do next.
    """
    if "ok" in error:  # a whole envelope
        if error["ok"] is not False:
            raise ValueError("a success has no next step in the error table")
        error = error.get("error")
    if not isinstance(error, Mapping) or not isinstance(error.get("code"), str):
        raise ValueError(f"not a contract error (no code to decide from): {error!r}")
    code = error["code"]
    retry = error.get("retry")
    if retry is None:
        if code not in CATALOGUE:
            raise ValueError(f"unknown code {code!r} and no retry advice: cannot decide")
        retry = CATALOGUE[code].retry
    if retry not in _STEP_OF_RETRY:
        raise ValueError(f"unknown retry advice {retry!r}")
    if error.get("operation_state") == "unknown":
        return "verify_state"
    if code == "not_found" and retry == "after_input_correction":
        return "search_first"
    return _STEP_OF_RETRY[retry]


@dataclass(frozen=True)
class DecisionRow:
    """One row of the decision table: a code, its default retry advice and the next step."""

    code: str
    retry: Retry
    operation_state: OperationState
    step: NextStep
    meaning: str


def _decision_table() -> tuple[DecisionRow, ...]:
    rows = []
    for code, info in CATALOGUE.items():
        state: OperationState = "unknown" if info.retry == "after_status_check" else "not_applied"
        error = {"code": code, "retry": info.retry, "operation_state": state}
        rows.append(DecisionRow(code, info.retry, state, next_step(error), info.meaning))
    return tuple(rows)


#: Every catalogue code with its default advice and the step :func:`next_step` chooses.
DECISION_TABLE: tuple[DecisionRow, ...] = _decision_table()
