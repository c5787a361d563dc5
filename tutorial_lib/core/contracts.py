"""The result envelope every tool returns, and the one catalogue of error codes.

    success: {"schema_version": 1, "ok": true,  "tool": "read_lines", "data": {...}}
    failure: {"schema_version": 1, "ok": false, "tool": "read_lines",
              "error": {"code", "message", "field"?, "received"?, "expected"?,
                        "allowed_values"?, "operation_state", "retry", "suggestion"?,
                        "next_tool"?, "confirmation"?}}

Each code has a fixed default ``retry`` advice, so the model can decide its next step from
the code alone; ``operation_state`` is always the real state of the operation. Fields that
do not apply are omitted, never null. Chapter 01 already returns every result through it;
chapter 03 sharpens it:

- two audiences, two records: the envelope is what the MODEL reads (concise, no machine
  details); a :class:`LogRecord` is what the OPERATOR reads (exception class, errno,
  resolved path, timing). A station attaches internal details with
  ``ContractError(..., log={...})``; the road (:mod:`tutorial_lib.core.road`) copies the
  details of the one error that became the result into the log record
  (:func:`log_details`), never into the envelope;
- :data:`NextStep`, :func:`next_step` and :data:`DECISION_TABLE`: the one vocabulary for
  "what next" after a failure (fix the input, search first, retry with backoff, check
  authorization, verify the state, stop with an unknown outcome, or stop), shared by the
  error contract and the retry policy (:mod:`tutorial_lib.core.retry`).

The catalogue is immutable and is the only place codes are declared: the envelope schema's
``code`` enum and the decision table are derived from it.
"""

from __future__ import annotations

import errno as errno_module
import functools
import hashlib
import json
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from operator import is_
from types import FrameType, MappingProxyType
from typing import Any, Literal, TypedDict

__all__ = [
    "CATALOGUE",
    "DECISION_TABLE",
    "ENVELOPE_SCHEMA",
    "OPERATION_STATES",
    "RETRY_VALUES",
    "SCHEMA_VERSION",
    "Source",
    "TOOL_NAME_REGEX",
    "STEPS",
    "CodeInfo",
    "ConfirmationAsk",
    "ContractError",
    "DecisionRow",
    "Envelope",
    "ErrorObject",
    "FailureEnvelope",
    "LogRecord",
    "NextStep",
    "NextTool",
    "OperationState",
    "Retry",
    "HostConfigError",
    "TutorialLibError",
    "SuccessEnvelope",
    "digest_arguments",
    "dumps",
    "exception_details",
    "failure",
    "json_safe",
    "log_details",
    "next_step",
    "oserror_details",
    "safe_text",
    "success",
    "surely_json",
]

SCHEMA_VERSION = 1

#: MCP's rule for tool names, as a JSON Schema / ``re`` pattern (the envelope's ``tool``
#: and ``next_tool.name`` follow it; :data:`tutorial_lib.core.tools.NAME_PATTERN` too).
TOOL_NAME_REGEX = "^[A-Za-z0-9_.-]{1,128}$"

Retry = Literal[
    "never", "after_input_correction", "with_backoff", "after_status_check", "after_authorization"
]
OperationState = Literal["not_applied", "applied", "unknown"]


@dataclass(frozen=True)
class CodeInfo:
    """What a code means, what the caller should do next by default, and the state an
    operation that failed with it is in unless the error says otherwise."""

    retry: Retry
    meaning: str
    operation_state: OperationState = "not_applied"


#: Every error code a tool may return, with its default retry advice. Read-only: a chapter
#: that needs a new code adds it here, in the source, so the schema and table agree.
CATALOGUE: Mapping[str, CodeInfo] = MappingProxyType(
    {
        "invalid_type": CodeInfo("after_input_correction", "a value has the wrong JSON type"),
        "missing_field": CodeInfo("after_input_correction", "a required argument is missing"),
        "unknown_field": CodeInfo("after_input_correction", "an argument the tool does not accept"),
        "invalid_range": CodeInfo(
            "after_input_correction", "a number is outside its allowed range"
        ),
        "invalid_path": CodeInfo(
            "after_input_correction", "the path is empty, malformed or a loop"
        ),
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
            operation_state="unknown",
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
        # chapter 07 (confirmation)
        "confirmation_required": CodeInfo(
            "after_authorization",
            "the user must answer a question about this call before it runs: wait for the"
            " answer, never set a confirm argument yourself",
        ),
        "approval_invalid": CodeInfo(
            "after_authorization",
            "the user's approval cannot run this call: used already, expired, declined, or"
            " given for other arguments",
        ),
    }
)

#: The values of ``retry`` and ``operation_state``, in the order the schema lists them.
RETRY_VALUES: tuple[Retry, ...] = (
    "never",
    "after_input_correction",
    "with_backoff",
    "after_status_check",
    "after_authorization",
)
OPERATION_STATES: tuple[OperationState, ...] = ("not_applied", "applied", "unknown")


class NextTool(TypedDict):
    """A callable entry: the exact tool call that comes next."""

    name: str
    arguments: dict[str, Any]


class _ErrorRequired(TypedDict):
    code: str
    message: str
    operation_state: OperationState
    retry: Retry


class ErrorObject(_ErrorRequired, total=False):
    """The ``error`` of a failure envelope; fields that do not apply are absent."""

    field: str
    received: Any
    expected: Any
    allowed_values: list[Any]
    suggestion: str
    next_tool: NextTool
    confirmation: ConfirmationAsk


class Source(TypedDict):
    """Where a success's data came from: the ``system`` (``"workspace"``, ``"github"``...)
    and the ``resource`` read in it (a workspace path, a REST path). The model and the
    operator can check a claim against it; chapter 06 decides from it what is untrusted."""

    system: str
    resource: str


class _SuccessRequired(TypedDict):
    schema_version: int
    ok: Literal[True]
    tool: str
    data: dict[str, Any]


class SuccessEnvelope(_SuccessRequired, total=False):
    """``{"schema_version": 1, "ok": True, "tool": ..., "source": {...}, "data": {...}}``;
    ``source`` is absent when a tool declares none (a pure computation)."""

    source: Source


class FailureEnvelope(TypedDict):
    """``{"schema_version": 1, "ok": False, "tool": ..., "error": {...}}``."""

    schema_version: int
    ok: Literal[False]
    tool: str
    error: ErrorObject


#: What every tool returns.
Envelope = SuccessEnvelope | FailureEnvelope

_UNSET: Any = object()


class TutorialLibError(Exception):
    """The root of every exception this library raises on purpose.

    ``except TutorialLibError`` catches them all: a :class:`ContractError` (a value the
    road turns into a failure envelope), a bug the road found (``RoadBug`` in
    :mod:`tutorial_lib.core.road`), a host built wrongly (``HostConfigError``), a front
    end's misuse of a confirmation flow (``ConfirmationError``), an export that would lose
    meaning (``ExportError``), a server configuration refused (``ConfigError``), an MCP
    server the checker cannot reach (``ServerUnavailable``), a replay that differs from
    its recording (``ReplayMismatch``), a grading record without an outcome
    (``RecordMissing``), a platform the workspace cannot sandbox on
    (``UnsupportedPlatform``). The emulator, which stands for the outside world, keeps
    its own exceptions. ``tests/test_layers.py`` keeps every public exception under it.
    """


class HostConfigError(TutorialLibError, ValueError):
    """A host or an access map built wrongly (a bug in the caller's set-up, never a
    tool's failure): an access map without a scope, writers without a policy, names the
    registry lacks."""


class ConfirmationAsk(TypedDict, total=False):
    """What a ``confirmation_required`` error carries, so a host or a client can answer
    without reading the message: the request, the question, the answers it takes, and
    (for an undecided target) the argument to choose and its candidates."""

    request_id: str
    question: str
    options: list[str]
    choose: str
    candidates: list[str]


class ContractError(TutorialLibError):
    """A contract violation or failure, carried as a value and turned into an envelope.

    Raised by a tool's business check or execution (or by a station) and caught by the
    road, so any step can stop the call with one line; it never escapes the road.

    The keyword arguments are the model-facing error fields (see :meth:`to_dict`); a
    misspelt one (``sugestion=``) is a ``TypeError``, not a silently lost hint.
    ``received`` may be None (the model sent null); leave it out when nothing was received.
    ``retry`` overrides the code's default advice. ``operation_state`` is the real state of
    the operation when this error ended it; by default the code's own (``"unknown"`` for
    ``outcome_unknown``, ``"not_applied"`` for every other code).
    ``confirmation`` (``confirmation_required`` only) names the pending question, its
    request id and the answers it takes, so a front end never parses the message.
    ``log`` holds internal details for the operator (exception class, errno, resolved
    path, sizes...): the road copies them into the :class:`LogRecord`, never into the
    envelope. A step that knows more may add to ``error.log`` before re-raising.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        field: str | None = None,
        received: Any = _UNSET,
        expected: Any = _UNSET,
        allowed_values: list[Any] | None = None,
        suggestion: str | None = None,
        next_tool: NextTool | None = None,
        retry: Retry | None = None,
        operation_state: OperationState | None = None,
        confirmation: ConfirmationAsk | None = None,
        log: Mapping[str, Any] | None = None,
    ) -> None:
        if code not in CATALOGUE:
            raise ValueError(f"unknown error code {code!r}: add it to CATALOGUE first")
        if retry is not None and retry not in RETRY_VALUES:
            raise ValueError(f"unknown retry advice {retry!r}; one of {RETRY_VALUES}")
        if operation_state is None:
            operation_state = CATALOGUE[code].operation_state
        if operation_state not in OPERATION_STATES:
            raise ValueError(f"unknown operation_state {operation_state!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.operation_state: OperationState = operation_state
        given = {
            "field": field,
            "received": received,
            "expected": expected,
            "allowed_values": allowed_values,
            "suggestion": suggestion,
            "next_tool": next_tool,
            "retry": retry,
            "confirmation": dict(confirmation) if confirmation is not None else None,
        }
        #: The model-facing fields that were given, by name (``received`` even when None).
        self.fields: dict[str, Any] = {
            key: value
            for key, value in given.items()
            if value is not _UNSET and (value is not None or key == "received")
        }
        self.log: dict[str, Any] = dict(log or {})

    def to_dict(self, operation_state: OperationState | None = None) -> ErrorObject:
        """The ``error`` object of a failure envelope (state: this error's, unless given)."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        for key in (
            "field",
            "received",
            "expected",
            "allowed_values",
            "suggestion",
            "next_tool",
            "confirmation",
        ):
            if key in self.fields:
                value = self.fields[key]
                if key == "received":
                    value = json_safe(value)
                elif key == "field":
                    value = safe_text(value, 80)  # an unknown name may be anything
                error[key] = value
        error["message"] = safe_text(self.message, 1000)
        error["operation_state"] = operation_state or self.operation_state
        error["retry"] = self.fields.get("retry", CATALOGUE[self.code].retry)
        return error  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"ContractError({self.code!r}, {self.message!r})"


def success(tool: str, data: dict[str, Any], source: Source | None = None) -> SuccessEnvelope:
    """A success envelope; ``source`` (where ``data`` came from) only when known."""
    envelope: SuccessEnvelope = {"schema_version": SCHEMA_VERSION, "ok": True, "tool": tool}  # type: ignore[typeddict-item]
    if source is not None:
        envelope["source"] = source
    envelope["data"] = data
    return envelope


def failure(
    tool: str, error: ContractError, operation_state: OperationState | None = None
) -> FailureEnvelope:
    """A failure envelope; the state is the error's own unless ``operation_state`` is given.

    The error's internal ``log`` never enters the envelope (see :func:`log_details`).
    """
    return {
        "schema_version": SCHEMA_VERSION,
        "ok": False,
        "tool": tool,
        "error": error.to_dict(operation_state),
    }


def log_details(error: ContractError) -> dict[str, Any]:
    """What the operator's log keeps of the error that became a call's result.

    The error's own ``log``, plus the class (and errno) of the exception it was raised
    from (``raise ... from exc``) or while handling, unless the ``log`` already names one.
    As in Python's tracebacks, ``raise ... from None`` hides the handled exception; a
    contract error restated as another passes on what matters through ``log=``.
    """
    details = dict(error.log)
    cause = error.__cause__
    if cause is None and not error.__suppress_context__:
        cause = error.__context__
    if (
        cause is not None
        and not isinstance(cause, ContractError)
        and "exception_class" not in details
    ):
        details.update(exception_details(cause))
    return details


def json_safe(value: Any, _depth: int = 0) -> Any:
    """``value`` if it survives a JSON round trip unchanged in meaning, else a short repr.

    ``received`` echoes what the model sent; it must never make the envelope unserializable
    (NaN, infinities, sets, bytes, lone surrogates, non-string keys) or huge (long strings
    and keys are cut, lists and objects keep 20 items, nesting stops at 5 levels).
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
        return safe_text(value)
    if isinstance(value, list):
        return [json_safe(v, _depth + 1) for v in value[:20]]
    if isinstance(value, dict):
        return {
            safe_text(k if isinstance(k, str) else _short_repr(k), 80): json_safe(v, _depth + 1)
            for k, v in list(value.items())[:20]
        }
    return _short_repr(value)


def safe_text(text: str, limit: int = 200) -> str:
    """``text`` cut to about ``limit`` characters (``…`` marks a cut), lone surrogates
    escaped (``"\\ud800"``): it can always be written as UTF-8."""
    cut = text[: limit + 1]
    # A lone surrogate ("\ud800" is valid JSON) cannot be written as UTF-8: escape it.
    cut = cut.encode("utf-8", "backslashreplace").decode("utf-8")
    return cut if len(cut) <= limit and len(text) <= limit else cut[: limit - 1] + "…"


def _short_repr(value: Any) -> str:
    try:
        return safe_text(repr(value))
    except (ValueError, RecursionError):  # a huge int inside a tuple; a deep structure
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
            "operation_state": {"enum": list(OPERATION_STATES)},
            "retry": {"enum": list(RETRY_VALUES)},
            "suggestion": {"type": "string"},
            "next_tool": {
                "type": "object",
                "required": ["name", "arguments"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "pattern": TOOL_NAME_REGEX},
                    "arguments": {"type": "object"},
                },
            },
            "confirmation": {
                "type": "object",
                "required": ["request_id", "question", "options"],
                "additionalProperties": False,
                "properties": {
                    "request_id": {"type": "string", "minLength": 1},
                    "question": {"type": "string"},
                    "options": {
                        "type": "array",
                        "items": {"enum": ["accept", "decline", "cancel"]},
                    },
                    "choose": {"type": "string"},
                    "candidates": {"type": "array", "items": {"type": "string"}},
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
        "tool": {"type": "string", "pattern": TOOL_NAME_REGEX},
        "source": {
            "type": "object",
            "required": ["system", "resource"],
            "additionalProperties": False,
            "properties": {
                "system": {"type": "string", "minLength": 1},
                "resource": {"type": "string", "minLength": 1},
            },
        },
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
            # a failure read nothing: it has no data, and so no source of data
            "not": {"anyOf": [{"required": ["data"]}, {"required": ["source"]}]},
        },
    ],
    "additionalProperties": False,
}


def dumps(envelope: dict[str, Any]) -> str:
    """The envelope as the model receives it: compact JSON, non-ASCII kept readable."""
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- strict JSON

#: The deepest nesting :func:`surely_json` answers for (an envelope nests about 7 deep).
SURELY_JSON_DEPTH = 100
#: Frames kept free below the recursion limit: json.dumps recurses once per nesting level.
_STACK_MARGIN = 50
_NONE_TYPE = type(None)
#: Exact types that need no look inside (json.dumps writes any str, even a lone surrogate).
_ATOMS = frozenset({str, bool, _NONE_TYPE})
_KINDS = frozenset({str, bool, _NONE_TYPE, int, float, list, dict})
_CONTAINERS = frozenset({list, dict})
_STR_ONLY = frozenset({str})
#: Past this many containers looked into, the look asks how many there can be.
_MANY_CONTAINERS = 100_000
#: Dicts this many or more are checked key by key (a column per key), see surely_json,
#: always when they have this few keys in all (a column costs a look per dict).
_COLUMNS_FROM = 8
_FEW_KEYS = 8


def surely_json(value: Any) -> bool:
    """Whether ``json.dumps(value, allow_nan=False)`` is sure to succeed, decided without
    writing any JSON. False means "not sure": the caller asks json.dumps itself.

    True only for a value made of these types: dicts whose keys are all ``str``, lists,
    ``str``, ``bool``, None, ``int`` that Python can print (see
    :func:`sys.get_int_max_str_digits`) and finite ``float``, nested at most
    :data:`SURELY_JSON_DEPTH` deep and shallow enough for json.dumps' recursion from here;
    the types exactly, but for a subclass of ``str`` or ``int`` among strings or ints
    (json.dumps writes it as one of them). Anything else, though json.dumps may accept
    some of it (a tuple, an ``int`` key, a subclass of ``dict``), is "not sure", and so is
    anything it refuses: a set, bytes, NaN, a circular structure. Every True is therefore a
    value json.dumps writes.

    Why not json.dumps: the road checks every result, and writing a result of 200,000
    search candidates (~55 MB of JSON) cost about as much as finding them. This look
    costs about 60% of it: it checks the values by groups with C-level passes (``map(type, ...)``,
    one ``set``, ``max``/``min`` of the ints; ``str.join`` for a group of strings), never
    one Python step per value; a group of similar dicts (the candidates) is taken a key at
    a time, so each column is of one type.
    """
    too_large = _unprintable_from(_int_digits_limit())
    # an int of at most this many bits is below too_large (0: no limit at all)
    int_bits = too_large.bit_length() - 1 if too_large else sys.maxsize
    deepest = min(SURELY_JSON_DEPTH, sys.getrecursionlimit() - _stack_depth() - _STACK_MARGIN)
    groups: list[tuple[int, list[Any]]] = [(0, [value])]  # (depth, values to look at)
    containers = 0  # looked into so far
    most_containers: int | None = None  # how many there can be, asked when they are many
    while groups:
        depth, group = groups.pop()
        if _plain_column(group, int_bits):
            continue
        for kind, values in _by_type(group):
            if kind in _ATOMS:
                continue
            if kind is int or kind is float:
                if not _writable_numbers(kind, values, too_large):
                    return False
                continue
            if kind not in _CONTAINERS or depth >= deepest:
                return False  # another type, or too deep
            containers += len(values)
            if containers > _MANY_CONTAINERS:
                if most_containers is None:
                    most_containers = _allocated_blocks()
                if containers > most_containers:
                    return False  # containers met more than once: shared, or circular
            inside = _inside(kind, values)
            if inside is None:
                return False  # a key json.dumps would convert or refuse
            groups.extend((depth + 1, inner) for inner in inside)
    return True


def _plain_column(group: list[Any], int_bits: int) -> bool:
    """Whether ``group`` is all strings, or all ints of at most ``int_bits`` bits, found
    in one C-level pass that stops at the first other value (False: look closer).

    The usual column of records (the paths, the previews, the line numbers): ``"".join``
    and ``int.bit_length`` refuse anything but a str, an int, a subclass of one, which
    json.dumps writes all the same (as a string, as a number), at a third of the cost of
    telling the types apart."""
    if not group:
        return True
    first = type(group[0])
    try:
        if first is str:
            "".join(group)
            return True
        if first is int:
            return max(map(int.bit_length, group)) <= int_bits
    except TypeError:  # another type among them
        pass
    return False


def _writable_numbers(kind: type, numbers: list[Any], too_large: int) -> bool:
    """Whether json.dumps writes ``numbers`` (all ints or all floats): finite floats,
    ints below ``too_large`` in size (0: any size)."""
    if kind is float:
        return all(map(math.isfinite, numbers))
    return not too_large or (max(numbers) < too_large and min(numbers) > -too_large)


def _allocated_blocks() -> int:
    """The memory blocks Python has allocated: every dict and list is one (or more), so
    a look into more containers than this has met some twice (0 where it is not known).

    A value with shared containers grows at each level it is looked into (``[x, x]`` with
    ``x = [y, y]``...), without end if circular: this bounds the look, without the cost of
    remembering every container met (a set of 640,000 ids cost a third of the look)."""
    return sys.getallocatedblocks()


def _by_type(group: list[Any]) -> list[tuple[type, list[Any]]]:
    """``group`` split by exact type, ``[(type, values of that type)]``; an unknown type
    alone, unsplit (the caller refuses it). Usually one type: no split at all."""
    kinds = set(map(type, group))
    if len(kinds) == 1:
        return [(kinds.pop(), group)]
    if not kinds <= _KINDS:
        return [(next(iter(kinds - _KINDS)), [])]
    types = list(map(type, group))
    return [
        (kind, list(compress(group, map(is_, types, repeat(kind)))))
        for kind in kinds
        if kind not in _ATOMS
    ]


def _inside(kind: type, containers: list[Any]) -> list[list[Any]] | None:
    """What ``containers`` (all lists or all dicts) hold, in groups; None if a dict has a
    key that is not a ``str``."""
    if kind is list:
        return [list(chain.from_iterable(containers))]
    return _dict_values(containers)


def _dict_values(dicts: list[dict[Any, Any]]) -> list[list[Any]] | None:
    """The values of ``dicts`` in groups, or None if a key is not a ``str``.

    One column per key when most dicts have most keys (a missing key reads as None, which
    is JSON anyway), else all values together. Columns keep each group to one type (the
    lines, the previews...), so checking it needs no split; with keys that differ from
    dict to dict they would cost more than the values.
    """
    keys = set(chain.from_iterable(dicts))
    if not set(map(type, keys)) <= _STR_ONLY:
        return None
    if len(dicts) >= _COLUMNS_FROM and (
        len(keys) <= _FEW_KEYS or len(keys) * len(dicts) <= 2 * sum(map(len, dicts))
    ):
        return [list(map(dict.get, dicts, repeat(key))) for key in keys]
    return [list(chain.from_iterable(map(dict.values, dicts)))]


@functools.cache
def _unprintable_from(digits_limit: int) -> int:
    """The smallest int Python cannot print with ``digits_limit`` (0: no limit, so 0)."""
    return 10**digits_limit if digits_limit else 0  # 27 us for 4300 digits: computed once


def _int_digits_limit() -> int:
    """Python's limit on the digits of a printed int (0: none; Python 3.10.7+ has one)."""
    get_limit = getattr(sys, "get_int_max_str_digits", None)
    return int(get_limit()) if get_limit is not None else 0


def _stack_depth() -> int:
    """Frames on the stack: json.dumps recurses once per level, within the same limit."""
    frame: FrameType | None = sys._getframe()
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


# --------------------------------------------------------------------------- the internal log


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
    except (TypeError, ValueError, RecursionError):  # odd keys, huge ints, deep nesting
        text = json.dumps(json_safe(args), sort_keys=True, ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()[:16]


@dataclass(frozen=True)
class LogRecord:
    """One line of the operator's log for one tool call. It NEVER goes to the model.

    - ``tool``: the name that was called (as requested, even if unknown);
    - ``arguments_digest``: :func:`digest_arguments` of the arguments, and
      ``argument_names`` their keys: enough to group and match calls, without the values;
    - ``outcome``: ``"ok"``, the error code, or for a result outside the contract
      ``"nonconforming"`` (chapter 03's bare tools) or ``"bug"`` (a step or station that
      raised, or a malformed envelope: the road re-raises after logging);
    - ``station``: the station of the road where the call ended (``"find_tool"``,
      ``"schema_check"``, ``"business_check"``, ``"authorization"``, ``"confirmation"``,
      ``"execution"`` for a call that ran, ``"envelope_check"``), for a bug the station
      where it struck;
    - ``operation_state``: the real state: ``"applied"`` for a success (the call ran;
      for a read: the read was done), the envelope's value for a failure, None if unknown
      to the road;
    - ``elapsed_ms``: wall time of the call, measured by the road's clock;
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
    station: str = "execution"
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
    "fix_input",
    "search_first",
    "retry_with_backoff",
    "check_authorization",
    "verify_state",
    "stop_unknown",
    "stop",
]

#: The next steps, each with what the caller does. :func:`next_step` chooses among the
#: first six from an error alone; the retry policy (:mod:`tutorial_lib.core.retry`), which
#: also knows whether the state can still be verified, may choose ``stop_unknown``.
STEPS: Mapping[NextStep, str] = MappingProxyType(
    {
        "fix_input": "correct the named argument (see field, expected/allowed_values),"
        " then call again",
        "search_first": "the target does not exist: search for the right one, then call again",
        "retry_with_backoff": "transient: retry the same call after a pause,"
        " a bounded number of times",
        "check_authorization": "access was refused: ask for permission;"
        " other arguments will not help",
        "verify_state": "the outcome is unknown: check the real state before doing anything else",
        "stop_unknown": "the outcome is unknown and cannot be checked now: report it as"
        " unknown, with the status check to run, and stop sending",
        "stop": "retrying cannot help: report the failure to the user and stop",
    }
)

_STEP_OF_RETRY: Mapping[str, NextStep] = MappingProxyType(
    {
        "after_input_correction": "fix_input",
        "with_backoff": "retry_with_backoff",
        "after_authorization": "check_authorization",
        "after_status_check": "verify_state",
        "never": "stop",
    }
)


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
    found: Any = error
    if "ok" in error:  # a whole envelope
        if error["ok"] is not False:
            raise ValueError("a success has no next step in the error table")
        found = error.get("error")
    if not isinstance(found, Mapping) or not isinstance(found.get("code"), str):
        raise ValueError(f"not a contract error (no code to decide from): {found!r}")
    error = found
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
        error = {"code": code, "retry": info.retry, "operation_state": info.operation_state}
        step = next_step(error)
        rows.append(DecisionRow(code, info.retry, info.operation_state, step, info.meaning))
    return tuple(rows)


#: Every catalogue code with its default advice and the step :func:`next_step` chooses.
DECISION_TABLE: tuple[DecisionRow, ...] = _decision_table()
