"""read_lines' argument contract: one JSON Schema, two validators, one table of examples.

The schema is the single source for the model-facing description, for validation and for
the tests. It is validated twice, to teach the difference:

- :func:`validate_manually`: hand-written checks of this limited contract (chapter 01
  builds it; ``type(x) is int`` on purpose, because ``bool`` is a subclass of ``int``);
- :func:`validate_with_schema`: the same schema through ``jsonschema``, its errors
  translated into contract errors with ``field``, ``received`` and ``expected``.

Both must give the same answer for every row of :data:`READ_LINES_EXAMPLES`, the table of
normal and counter examples that tests, exercise checks and the description all share.
What no schema can see (inside the workspace? exists? a regular text file?) is checked in
code by :mod:`tutorial_lib.workspace.sandbox` and :mod:`tutorial_lib.workspace.read`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator

from tutorial_lib.core.contracts import ContractError, json_safe
from tutorial_lib.course.checks import Case

__all__ = [
    "MAX_COUNT",
    "MAX_PATH_CHARS",
    "READ_LINES_DESCRIPTION",
    "READ_LINES_EXAMPLES",
    "READ_LINES_SCHEMA",
    "ArgumentContract",
    "ArgumentExample",
    "StrictValidator",
    "missing_field_error",
    "out_of_range_error",
    "unknown_field_error",
    "wrong_type_error",
    "validate_manually",
    "validator_cases",
    "verdict_of",
    "validate_with_schema",
]

MAX_COUNT = 20
#: The largest integer every JSON implementation reads exactly (JavaScript's MAX_SAFE_INTEGER).
MAX_START = 2**53 - 1
MAX_PATH_CHARS = 4096
FIELDS = ("path", "start", "count")

READ_LINES_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_PATH_CHARS,
            "pattern": "\\S",
            "description": (
                "Path of a UTF-8 text file, relative to the workspace root, with '/' between"
                " parts, e.g. 'src/auth/session.ts'. No absolute paths; '..' may not leave"
                " the workspace. Binary files, directories and special files are refused."
            ),
        },
        "start": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_START,
            "description": (
                "Number of the first line to return, counted from 1 (the first line of the"
                " file is 1, not 0). Past the end of the file is allowed: no lines come back,"
                " and total_lines says how many there are."
            ),
        },
        "count": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_COUNT,
            "description": (
                f"How many lines to return, from 1 to {MAX_COUNT}. Fewer come back at the end"
                " of the file; has_more says whether lines follow the returned ones."
            ),
        },
    },
    "required": list(FIELDS),
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ArgumentExample:
    """One row of the shared table: arguments and the contract's verdict on them.

    ``code`` is None for a valid call, else the error code; ``field`` names the argument
    at fault (omitted when the whole object is wrong). ``in_description`` marks the rows
    the model-facing description quotes.
    """

    name: str
    args: Any
    code: str | None = None
    field: str | None = None
    in_description: bool = False
    note: str = ""

    @property
    def verdict(self) -> tuple[str, str | None] | None:
        """``None`` for valid arguments, else ``(code, field)``: what validators must return."""
        return None if self.code is None else (self.code, self.field)


def _ok(name: str, args: Any, **kw: Any) -> ArgumentExample:
    return ArgumentExample(name, args, **kw)


def _bad(name: str, args: Any, code: str, field: str | None, **kw: Any) -> ArgumentExample:
    return ArgumentExample(name, args, code, field, **kw)


_P = "notes.txt"

#: Normal and counter examples of read_lines' arguments (schema-level checks only).
READ_LINES_EXAMPLES: tuple[ArgumentExample, ...] = (
    _ok("first two lines", {"path": _P, "start": 1, "count": 2}, in_description=True),
    _ok("a nested path", {"path": "src/auth/session.ts", "start": 40, "count": 5}),
    _ok("the largest page", {"path": _P, "start": 1, "count": MAX_COUNT}),
    _ok("past the end is still a valid call", {"path": _P, "start": 10_000, "count": 1}),
    _bad("not an object", ["notes.txt", 1, 2], "invalid_type", None),
    _bad("count missing", {"path": _P, "start": 1}, "missing_field", "count"),
    _bad("everything missing", {}, "missing_field", "path"),
    _bad(
        "a misspelt field",
        {"path": _P, "start": 1, "count": 2, "lenght": 5},
        "unknown_field",
        "lenght",
    ),
    _bad(
        "line 0 (0-based thinking)",
        {"path": _P, "start": 0, "count": 2},
        "invalid_range",
        "start",
        in_description=True,
        note="lines are numbered from 1",
    ),
    _bad("a negative line", {"path": _P, "start": -3, "count": 2}, "invalid_range", "start"),
    _bad(
        "a line beyond JSON's exact integers",
        {"path": _P, "start": MAX_START + 1, "count": 2},
        "invalid_range",
        "start",
    ),
    _bad("count 0", {"path": _P, "start": 1, "count": 0}, "invalid_range", "count"),
    _bad(
        "count above the cap",
        {"path": _P, "start": 1, "count": MAX_COUNT + 1},
        "invalid_range",
        "count",
        in_description=True,
        note=f"at most {MAX_COUNT} lines per call",
    ),
    _bad(
        "an integer written as a string",
        {"path": _P, "start": "1", "count": 2},
        "invalid_type",
        "start",
        in_description=True,
        note="numbers are JSON numbers, not strings",
    ),
    _bad("true as an integer", {"path": _P, "start": True, "count": 2}, "invalid_type", "start"),
    _bad("false as an integer", {"path": _P, "start": 1, "count": False}, "invalid_type", "count"),
    _bad("a float", {"path": _P, "start": 1.5, "count": 2}, "invalid_type", "start"),
    _bad("a whole float", {"path": _P, "start": 2.0, "count": 2}, "invalid_type", "start"),
    _bad("null for a line", {"path": _P, "start": None, "count": 2}, "invalid_type", "start"),
    _bad("a path that is a number", {"path": 7, "start": 1, "count": 2}, "invalid_type", "path"),
    _bad("an empty path", {"path": "", "start": 1, "count": 2}, "invalid_path", "path"),
    _bad("a whitespace path", {"path": "  \t", "start": 1, "count": 2}, "invalid_path", "path"),
    _bad(
        "a path longer than the cap",
        {"path": "a" * (MAX_PATH_CHARS + 1), "start": 1, "count": 2},
        "invalid_path",
        "path",
    ),
    _bad(
        "missing beats wrong type",
        {"start": "1", "count": 2},
        "missing_field",
        "path",
        note="errors are reported in a fixed order: object, missing, unknown, then each field",
    ),
)


def validate_manually(args: Any) -> ContractError | None:
    """Check ``args`` against the limited contract by hand; return the first error or None.

    Order (the same as :func:`validate_with_schema`): the whole object, missing fields,
    unknown fields, then each field in schema order, type before range.
    """
    if not isinstance(args, dict):
        return ContractError(
            "invalid_type",
            "arguments must be a JSON object with path, start and count",
            received=args,
            expected="object",
        )
    for name in FIELDS:
        if name not in args:
            return _missing(name)
    for name in sorted(args):
        if name not in FIELDS:
            return _unknown(name, args[name])
    path = args["path"]
    if not isinstance(path, str):
        return _wrong_type("path", path, "string")
    if not path.strip() or len(path) > MAX_PATH_CHARS:
        return _bad_path(path)
    for name, low, high in (("start", 1, MAX_START), ("count", 1, MAX_COUNT)):
        value = args[name]
        if type(value) is not int:  # not isinstance: True and False are ints in Python
            return _wrong_type(name, value, "integer")
        if not low <= value <= high:
            return _out_of_range(name, value, low, high)
    return None


# jsonschema follows JSON Schema: 2.0 *is* an integer there, and Python's True passes an
# isinstance(int) check. The contract says integer means a JSON integer: 1, not 1.0, not true.
_STRICT_TYPES = Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _checker, value: type(value) is int
)
StrictValidator = jsonschema.validators.extend(Draft202012Validator, type_checker=_STRICT_TYPES)

#: Translates a schema error on one field (anything but a wrong type) into a contract error:
#: ``(field name, received value, the jsonschema error) -> ContractError``.
ValueErrorTranslator = Callable[[str, Any, jsonschema.ValidationError], ContractError]


class ArgumentContract:
    """One tool's argument schema, checked by :data:`StrictValidator`, errors translated.

    Every tool validates its arguments the same way: the first error, in a fixed order
    (the whole object, missing fields, unknown fields, then each field in schema order,
    type before value), becomes one :class:`ContractError` with ``field``, ``received``
    and ``expected``. What is shared (object, missing, unknown, wrong type) is built here;
    ``value_error`` translates what is specific to the tool (ranges, lengths, enums...).

    ``fallback`` answers when jsonschema itself cannot: it formats messages with
    ``repr()``, which refuses ints of more than 4300 digits. Without a fallback such ints
    are replaced by a stand-in of the same sign (far outside any range a schema here
    allows) and the original value is put back into ``received``.
    """

    def __init__(
        self,
        tool: str,
        schema: dict[str, Any],
        value_error: ValueErrorTranslator,
        *,
        object_message: str | None = None,
        fallback: Callable[[Any], ContractError | None] | None = None,
    ) -> None:
        self.tool = tool
        self.schema = schema
        self.fields: tuple[str, ...] = tuple(schema["properties"])
        self.required: tuple[str, ...] = tuple(schema.get("required", ()))
        self.value_error = value_error
        self.object_message = object_message or _object_message(self.fields, self.required)
        self.fallback = fallback
        self.validator = StrictValidator(schema)

    def validate(self, args: Any) -> ContractError | None:
        """The first contract error of ``args`` (see the class docstring), or None."""
        try:
            errors = list(self.validator.iter_errors(args))
        except ValueError:
            if self.fallback is not None:
                return self.fallback(args)
            error = self.validate(_tame_huge_ints(args))
            if error is not None and error.fields.get("field") in _as_dict(args):
                error.fields["received"] = args[error.fields["field"]]
            return error
        if not errors:
            return None
        return self.translate(min(errors, key=self.rank), args)

    def rank(self, error: jsonschema.ValidationError) -> tuple[int, int, int]:
        """Sort key giving the fixed order of the class docstring."""
        if not error.path:
            order = {"type": 0, "required": 1, "additionalProperties": 2}
            return (order.get(error.validator, 3), 0, 0)
        name = str(error.path[0])
        fields = self.fields
        field_order = fields.index(name) if name in fields else len(fields)
        return (4, field_order, 0 if error.validator == "type" else 1)

    def translate(self, error: jsonschema.ValidationError, args: Any) -> ContractError:
        """One jsonschema error as a contract error."""
        if not error.path:
            if error.validator == "type":
                return ContractError(
                    "invalid_type", self.object_message, received=args, expected="object"
                )
            if error.validator == "required":
                name = next(name for name in self.required if name not in args)
                return missing_field_error(name, self.expected_type(name))
            if error.validator == "additionalProperties":
                name = min(k for k in args if k not in self.fields)
                return unknown_field_error(self.tool, self.fields, name, args[name])
        name = str(error.path[0])
        value = error.instance
        if error.validator == "type":
            return wrong_type_error(name, value, str(error.validator_value))
        return self.value_error(name, value, error)

    def expected_type(self, name: str) -> str:
        """The JSON type a field must have, as ``expected`` says it."""
        return str(self.schema["properties"][name].get("type", "value"))


def _object_message(fields: tuple[str, ...], required: tuple[str, ...]) -> str:
    def listed(names: list[str]) -> str:
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

    optional = [name for name in fields if name not in required]
    text = "arguments must be a JSON object"
    if required:
        text += " with " + listed(list(required))
    if optional:
        text += (" and optionally " if required else " with optional ") + listed(optional)
    return text


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tame_huge_ints(value: Any, _depth: int = 0) -> Any:
    """``value`` with ints too long for ``repr()`` replaced by +-2**64 (same verdicts)."""
    if isinstance(value, bool) or _depth > 50:
        return value
    if isinstance(value, int):
        return value if value.bit_length() < 10_000 else (2**64 if value > 0 else -(2**64))
    if isinstance(value, list):
        return [_tame_huge_ints(v, _depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _tame_huge_ints(v, _depth + 1) for k, v in value.items()}
    return value


def missing_field_error(name: str, expected: str) -> ContractError:
    """``missing_field`` for the required argument ``name``."""
    return ContractError(
        "missing_field",
        f"the argument '{name}' is required",
        field=name,
        expected=expected,
    )


def unknown_field_error(tool: str, fields: tuple[str, ...], name: str, value: Any) -> ContractError:
    """``unknown_field`` for an argument ``tool`` does not accept, listing what it accepts."""
    return ContractError(
        "unknown_field",
        f"{tool} has no argument '{name}'; it accepts only {', '.join(fields)}",
        field=name,
        received=value,
        allowed_values=list(fields),
    )


def wrong_type_error(name: str, value: Any, expected: str) -> ContractError:
    """``invalid_type``: ``name`` is not a JSON ``expected``."""
    shown = _shown(value)
    return ContractError(
        "invalid_type",
        f"'{name}' must be a JSON {expected}, got {shown}",
        field=name,
        received=value,
        expected=expected,
    )


def out_of_range_error(
    name: str, value: int, low: int, high: int | None, hint: str = ""
) -> ContractError:
    """``invalid_range``: the integer ``name`` is outside ``low .. high``."""
    expected = f"integer >= {low}" if high is None else f"integer from {low} to {high}"
    return ContractError(
        "invalid_range",
        f"'{name}' must be an {expected}, got {_shown(value)}{hint}",
        field=name,
        received=value,
        expected=expected,
    )


def _read_lines_value_error(
    name: str, value: Any, error: jsonschema.ValidationError
) -> ContractError:
    if name == "path":
        return _bad_path(value)
    if error.validator in ("minimum", "maximum"):
        schema = READ_LINES_SCHEMA["properties"][name]
        return _out_of_range(name, value, schema["minimum"], schema.get("maximum"))
    raise AssertionError(
        f"untranslated schema error: {error.validator} on {name}"
    )  # pragma: no cover


_READ_LINES_CONTRACT = ArgumentContract(
    "read_lines",
    READ_LINES_SCHEMA,
    _read_lines_value_error,
    object_message="arguments must be a JSON object with path, start and count",
    # jsonschema formats each message with repr(), which refuses ints of more than 4300
    # digits. JSON parsers refuse them too, so no model sends one; the hand-written
    # validator (same verdicts, safe messages) answers instead of an exception.
    fallback=validate_manually,
)
_VALIDATOR = _READ_LINES_CONTRACT.validator


def validate_with_schema(args: Any) -> ContractError | None:
    """Check ``args`` with ``jsonschema`` and translate the first error into a contract error."""
    return _READ_LINES_CONTRACT.validate(args)


def _missing(name: str) -> ContractError:
    return missing_field_error(name, _describe_field(name))


def _unknown(name: str, value: Any) -> ContractError:
    return unknown_field_error("read_lines", FIELDS, name, value)


def _wrong_type(name: str, value: Any, expected: str) -> ContractError:
    return wrong_type_error(name, value, expected)


def _bad_path(value: str) -> ContractError:
    return ContractError(
        "invalid_path",
        "'path' must name a file relative to the workspace root, e.g. 'src/app.py'",
        field="path",
        received=value,
        expected=f"non-blank string of at most {MAX_PATH_CHARS} characters",
    )


def _out_of_range(name: str, value: int, low: int, high: int | None) -> ContractError:
    hint = " (line numbers start at 1)" if name == "start" else ""
    return out_of_range_error(name, value, low, high, hint)


def _describe_field(name: str) -> str:
    spec = READ_LINES_SCHEMA["properties"][name]
    return str(spec["type"])


def _shown(value: Any) -> str:
    """``value`` for a message: its JSON text, else a safe stand-in (never raises)."""
    safe = json_safe(value)
    try:
        return json.dumps(safe, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return str(safe)


def description_with_examples(summary: str, examples: tuple[ArgumentExample, ...]) -> str:
    """A model-facing description: ``summary``, then the table's rows marked for it.

    Valid rows become ``Example:`` lines, invalid ones ``Not: ... (note)``, so the
    description, the validators and the tests all quote the same examples.
    """
    good = [e for e in examples if e.in_description and e.code is None]
    bad = [e for e in examples if e.in_description and e.code is not None]
    lines = [summary, "Example: " + ", ".join(json.dumps(e.args) for e in good)]
    lines += [f"Not: {json.dumps(e.args)} ({e.note})" for e in bad]
    return "\n".join(lines)


#: The model-facing description, built from the same table the tests use.
READ_LINES_DESCRIPTION = description_with_examples(
    f"Read up to {MAX_COUNT} consecutive lines of one UTF-8 text file in the workspace."
    " Returns each line with its real 1-based number, total_lines of the file, and"
    " has_more. Read-only. Use a search tool first if you do not know the path.",
    READ_LINES_EXAMPLES,
)


# What a learner whose validator gets a row wrong should think about (learner-facing, Chinese).
_LEARNER_HINTS: dict[str, str] = {
    "not an object": "先确认 args 是 dict；整体不是对象时不写 field。",
    "count missing": "三个字段都必填：缺哪个就报哪个，code 为 missing_field。",
    "everything missing": "缺多个字段时，按 path、start、count 的顺序报第一个。",
    "a misspelt field": "additionalProperties: false：多出的字段（多半是拼错的）报 unknown_field。",
    "line 0 (0-based thinking)": "行号从 1 开始：start 为 0 是 invalid_range。",
    "a negative line": "start 的下限是 1：负数也是 invalid_range。",
    "a line beyond JSON's exact integers": (
        "start 最大是 2**53 - 1：更大的整数在很多 JSON 实现里不精确。"
    ),
    "count 0": "count 的范围是 1 到 20。",
    "count above the cap": "count 最多 20：maximum 防止一次读入太多。",
    "an integer written as a string": "'1' 是字符串：不要悄悄转换成整数，报 invalid_type。",
    "true as an integer": (
        "bool 是 int 的子类：isinstance(True, int) 为 True，要用 type(x) is int。"
    ),
    "false as an integer": "False 同样是 int 的子类，也要拒绝。",
    "a float": "浮点数不是整数：type(1.5) is int 为 False。",
    "a whole float": "2.0 == 2，但契约要的是 JSON 整数：看类型，不看值。",
    "null for a line": "null（None）也不是整数。",
    "a path that is a number": "path 必须是字符串：先查类型，再查内容。",
    "an empty path": "空字符串不是路径：code 为 invalid_path。",
    "a whitespace path": "只有空白的路径也无效：用 path.strip() 判断。",
    "a path longer than the cap": "路径最长 4096 个字符。",
    "missing beats wrong type": (
        "固定顺序：整体、缺失字段、多余字段，再按 path、start、count 查类型和范围。"
    ),
}


def verdict_of(result: Any) -> dict[str, str] | None:
    """The comparable part of a validator's answer: ``None`` or ``{"code", "field"?}``.

    Accepts a :class:`ContractError`, an error dict (extra keys such as ``message`` are
    ignored) or ``None``, so library validators and learners' validators compare alike.
    """
    if result is None:
        return None
    if isinstance(result, ContractError):
        result = {"code": result.code, **result.fields}
    verdict = {"code": result["code"]}
    if result.get("field") is not None:
        verdict["field"] = result["field"]
    return verdict


def validator_cases() -> tuple[Case, ...]:
    """The shared table as learner check cases: ``validate(args)`` -> None or an error dict."""
    cases = []
    for example in READ_LINES_EXAMPLES:
        expected = verdict_of(
            None if example.code is None else {"code": example.code, "field": example.field}
        )
        hint = _LEARNER_HINTS.get(example.name, "这是合法的调用：返回 None。")
        cases.append(Case(example.name, (example.args,), expected, hint))
    return tuple(cases)
