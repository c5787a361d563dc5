"""The result envelope every tool returns, and the one catalogue of error codes.

    success: {"schema_version": 1, "ok": true,  "tool": "read_lines", "data": {...}}
    failure: {"schema_version": 1, "ok": false, "tool": "read_lines",
              "error": {"code", "message", "field"?, "received"?, "expected"?,
                        "allowed_values"?, "operation_state", "retry", "suggestion"?}}

Each code has a fixed default ``retry`` advice, so the model can decide its next step from
the code alone; ``operation_state`` is always the real state of the operation. Fields that
do not apply are omitted, never null. Chapter 03 sharpens this module (log records, next
tools); chapter 01 already returns every result through it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "CATALOGUE",
    "ENVELOPE_SCHEMA",
    "SCHEMA_VERSION",
    "ContractError",
    "failure",
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
    "not_found": CodeInfo("after_input_correction", "nothing exists at this path: search first"),
    "not_a_file": CodeInfo("after_input_correction", "a directory, FIFO, device or socket"),
    "file_too_large": CodeInfo("never", "the file is larger than this tool reads"),
    "binary_file": CodeInfo("never", "the file is not text"),
    "undecodable_text": CodeInfo("never", "the requested lines are not valid UTF-8"),
    "permission_denied": CodeInfo("after_authorization", "the workspace denies access"),
    "temporary_unavailable": CodeInfo("with_backoff", "a transient failure: retry, bounded"),
}


class ContractError(Exception):
    """A contract violation or failure, carried as a value and turned into an envelope.

    Raised inside a tool's stations and caught at the end of the road, so a station can
    stop the call with one line; it never escapes the tool.
    """

    def __init__(self, code: str, message: str, **fields: Any) -> None:
        if code not in CATALOGUE:
            raise ValueError(f"unknown error code {code!r}: add it to CATALOGUE first")
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields = fields

    def to_dict(self, operation_state: OperationState = "not_applied") -> dict[str, Any]:
        """The ``error`` object of a failure envelope."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        for key in ("field", "received", "expected", "allowed_values", "suggestion"):
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
    """A failure envelope; ``operation_state`` must be the real state of the operation."""
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
