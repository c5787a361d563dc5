"""read_lines' argument contract: one JSON Schema, two validators, one table of examples.

The schema is the single source for the model-facing description, for validation and for
the tests. It is validated twice, to teach the difference:

- :func:`validate_manually`: hand-written checks of this limited contract (chapter 01
  builds it; ``type(x) is int`` on purpose, because ``bool`` is a subclass of ``int``);
- :func:`tutorial_lib.workspace.read.validate_with_schema`: the same schema through
  ``jsonschema``, its errors translated into contract errors with ``field``, ``received``
  and ``expected``: exactly the schema check the road runs for ``read_lines``.

Both must give the same answer for every row of :data:`READ_LINES_EXAMPLES`, the table of
normal and counter examples that tests, exercise checks and the description all share.
What no schema can see (inside the workspace? exists? a regular text file?) is checked in
code by :mod:`tutorial_lib.workspace.sandbox` and :mod:`tutorial_lib.workspace.read`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tutorial_lib.core.arguments import (
    ArgumentExample,
    description_with_examples,
    missing_field_error,
    out_of_range_error,
    unknown_field_error,
    wrong_type_error,
)
from tutorial_lib.core.contracts import ContractError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = [
    "FIELDS",
    "MAX_COUNT",
    "MAX_PATH_CHARS",
    "MAX_START",
    "READ_LINES_DESCRIPTION",
    "READ_LINES_EXAMPLES",
    "READ_LINES_SCHEMA",
    "read_lines_value_error",
    "validate_manually",
]

MAX_COUNT = 20
#: The top of the interoperable integer range (RFC 8259 §6): JSON itself has no limit, but
#: parsers that read numbers as IEEE-754 doubles (JavaScript's, among others) are exact only
#: up to 2**53 - 1, so a larger line number could arrive changed.
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
                " parts, e.g. 'lib/cart/pricing.rb'. No absolute paths; '..' may not leave"
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


def _ok(name: str, args: Any, **kw: Any) -> ArgumentExample:
    return ArgumentExample(name, args, **kw)


def _bad(name: str, args: Any, code: str, field: str | None, **kw: Any) -> ArgumentExample:
    return ArgumentExample(name, args, code, field, **kw)


_P = "notes.txt"

#: Normal and counter examples of read_lines' arguments (schema-level checks only).
READ_LINES_EXAMPLES: tuple[ArgumentExample, ...] = (
    _ok("first two lines", {"path": _P, "start": 1, "count": 2}, in_description=True),
    _ok("a nested path", {"path": "lib/cart/pricing.rb", "start": 56, "count": 5}),
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
        "a line beyond the interoperable integer range",
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

    Order (the same as the schema check): the whole object, missing fields,
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


def read_lines_value_error(name: str, value: Any, error: ValidationError) -> ContractError:
    """How read_lines words a schema error on a value (path shape, line ranges)."""
    if name == "path":
        return _bad_path(value)
    if error.validator in ("minimum", "maximum"):
        schema = READ_LINES_SCHEMA["properties"][name]
        return _out_of_range(name, value, schema["minimum"], schema.get("maximum"))
    raise AssertionError(
        f"untranslated schema error: {error.validator} on {name}"
    )  # pragma: no cover


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


#: The model-facing description, built from the same table the tests use.
READ_LINES_DESCRIPTION = description_with_examples(
    f"Read up to {MAX_COUNT} consecutive lines of one UTF-8 text file in the workspace."
    " Returns each line with its real 1-based number, total_lines of the file, and"
    " has_more. Read-only. Use a search tool first if you do not know the path.",
    READ_LINES_EXAMPLES,
)
