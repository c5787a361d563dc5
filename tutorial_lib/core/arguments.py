"""Argument contracts: one JSON Schema per tool, checked strictly, errors translated.

The road's schema check (:mod:`tutorial_lib.core.road`) validates a tool's raw arguments
against the tool's own ``input_schema`` with :class:`ArgumentContract`: the first error,
in a fixed order, becomes one :class:`~tutorial_lib.core.contracts.ContractError` with
``field``, ``received`` and ``expected``. What every tool shares (not an object, missing,
unknown, wrong type) is worded here; a tool words its own value errors (ranges, lengths,
enums...) with a :data:`ValueErrorTranslator`.

:class:`ArgumentExample` rows are the normal and counter examples a tool's description,
its tests and the learners' checks all share (:func:`description_with_examples`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tutorial_lib.core.contracts import ContractError, json_safe, safe_text

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "ArgumentContract",
    "ArgumentExample",
    "ValueErrorTranslator",
    "description_with_examples",
    "malformed_json_error",
    "missing_field_error",
    "out_of_range_error",
    "shown",
    "strict_validator_class",
    "unicode_text_error",
    "unknown_field_error",
    "wrong_type_error",
]


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


@functools.cache
def strict_validator_class() -> type[Validator]:
    """Draft 2020-12 with a strict ``integer``: a JSON integer, not 1.0, not true.

    jsonschema follows JSON Schema, where 2.0 *is* an integer, and Python's True passes an
    ``isinstance(int)`` check. Built on first use: importing jsonschema takes about 1.4 s
    where Jupyter's optional format checkers are installed, and ``import`` of the core
    must stay light.
    """
    from jsonschema import Draft202012Validator, ValidationError, validators

    strict_types = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: type(value) is int
    )

    def pattern(validator: Any, regex: str, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "string") and not _ecma_search(regex, instance):
            yield ValidationError(f"{shown(instance)} does not match {regex!r}")

    return validators.extend(
        Draft202012Validator, validators={"pattern": pattern}, type_checker=strict_types
    )


def _ecma_search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches ``text`` as JSON Schema says: with ECMA-262's ``$``.

    In Python's ``re``, ``$`` also matches before a final newline, so ``"^[a-z]+$"`` would
    accept ``"shop\n"``; in ECMA-262 (the dialect of JSON Schema, and of every client the
    schema is exported to) it matches at the very end only: Python's ``\\Z``.
    """
    return _compiled_ecma(pattern).search(text) is not None


@functools.lru_cache(maxsize=256)
def _compiled_ecma(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            out.append(r"\Z")
            continue
        out.append(char)
    return re.compile("".join(out))


#: Translates a schema error on one field (anything but a wrong type) into a contract error:
#: ``(field name, received value, the jsonschema error) -> ContractError``.
ValueErrorTranslator = Callable[[str, Any, "ValidationError"], ContractError]


class ArgumentContract:
    """One tool's argument schema, checked strictly (:func:`strict_validator_class`), errors
    translated.

    Every tool validates its arguments the same way: the first error, in a fixed order
    (the whole object, missing fields, unknown fields, then each field in schema order,
    type before value), becomes one :class:`ContractError` with ``field``, ``received``
    and ``expected``. What is shared (object, missing, unknown, wrong type) is built here;
    ``value_error`` translates what is specific to the tool (ranges, lengths, enums...).

    jsonschema formats its messages with ``repr()``, which refuses ints of more than 4300
    digits (JSON parsers refuse them too, so no model sends one): such ints are replaced
    by a stand-in of the same sign, far outside any range a schema here allows, and the
    original value is put back into ``received``.
    """

    def __init__(
        self,
        tool: str,
        schema: dict[str, Any],
        value_error: ValueErrorTranslator,
    ) -> None:
        self.tool = tool
        self.schema = schema
        # a schema may declare no properties ({"type": "object"}: any object)
        self.fields: tuple[str, ...] = tuple(schema.get("properties", {}))
        self.required: tuple[str, ...] = tuple(schema.get("required", ()))
        self.value_error = value_error
        self.object_message = _object_message(self.fields, self.required)

    @functools.cached_property
    def validator(self) -> Validator:
        """The strict jsonschema validator of :attr:`schema`, built on first use."""
        return strict_validator_class()(self.schema)

    def validate(self, args: Any) -> ContractError | None:
        """The first contract error of ``args`` (see the class docstring), or None.

        Before the schema: arguments that are not an object, or that no JSON text of a
        sane tool call holds (nested deeper than :data:`MAX_ARGUMENT_DEPTH`, a lone
        surrogate in a name, a name that is not a string) are refused here,
        so that no later step (the validator's messages, the log's digest) meets them. A
        lone surrogate in a string *value* is left to the tool, which knows what the value
        is (read_lines: ``invalid_path``); every echo of it is escaped
        (:func:`~tutorial_lib.core.contracts.json_safe`).
        """
        if not isinstance(args, dict):
            return ContractError(
                "invalid_type", self.object_message, received=args, expected="object"
            )
        shape = malformed_json_error(args)
        if shape is not None:
            return shape
        try:
            errors = list(self.validator.iter_errors(args))
        except ValueError:
            error = self.validate(_tame_huge_ints(args))
            if error is not None and error.fields.get("field") in _as_dict(args):
                error.fields["received"] = args[error.fields["field"]]
            return error
        if not errors:
            return None
        return self.translate(min(errors, key=self.rank), args)

    def rank(self, error: ValidationError) -> tuple[int, int, int]:
        """Sort key giving the fixed order of the class docstring."""
        if not error.path:
            order = {"type": 0, "required": 1, "additionalProperties": 2}
            return (order.get(str(error.validator), 3), 0, 0)
        name = str(error.path[0])
        fields = self.fields
        field_order = fields.index(name) if name in fields else len(fields)
        return (4, field_order, 0 if error.validator == "type" else 1)

    def translate(self, error: ValidationError, args: Any) -> ContractError:
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


#: Arguments nested deeper than this are refused (no tool here takes more than 3 levels;
#: Python's recursion limit is 1000, and JSON parsers accept far deeper texts).
MAX_ARGUMENT_DEPTH = 32


def malformed_json_error(args: dict[Any, Any]) -> ContractError | None:
    """``invalid_value`` (or ``invalid_type`` for a name that is not a string) when ``args``
    holds what no well-formed tool call does; None otherwise. Iterative: any depth is safe.

    ``field`` names the top-level argument the problem is in (escaped, cut if need be).
    """
    stack: list[tuple[Any, int, Any]] = [(args, 0, None)]
    while stack:
        value, depth, top = stack.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            return _malformed(top, f"nested deeper than {MAX_ARGUMENT_DEPTH} levels")
        if isinstance(value, list):
            stack.extend((item, depth + 1, top) for item in value)
        elif isinstance(value, dict):
            for key, item in value.items():
                here = key if top is None else top
                if not isinstance(key, str):
                    return ContractError(
                        "invalid_type",
                        f"argument names must be strings, got {type(key).__name__}",
                        received=key,
                        expected="string",
                    )
                if _has_lone_surrogate(key):
                    return _malformed(here, "a name holds a lone surrogate: not valid Unicode text")
                stack.append((item, depth + 1, here))
    return None


def unicode_text_error(name: str, value: str) -> ContractError | None:
    """``invalid_value`` if the string argument ``name`` cannot be written as UTF-8, else None.

    JSON can carry a lone surrogate (``"\\ud800"``), which no UTF-8 request body can: a
    tool that sends a value on refuses it before any request, not half-way through a write.
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return ContractError(
            "invalid_value",
            f"'{name}' holds a lone surrogate at position {exc.start}: not valid Unicode text",
            field=name,
            received=value,
            expected="text that can be written as UTF-8",
        )
    return None


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _malformed(field: Any, problem: str) -> ContractError:
    if field is None:
        return ContractError("invalid_value", f"the arguments are not accepted: {problem}")
    return ContractError(
        "invalid_value", f"'{safe_text(field, 80)}' is not accepted: {problem}", field=field
    )


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
        f"{tool} has no argument '{safe_text(name, 80)}'; it accepts only {', '.join(fields)}",
        field=name,
        received=value,
        allowed_values=list(fields),
    )


def wrong_type_error(name: str, value: Any, expected: str) -> ContractError:
    """``invalid_type``: ``name`` is not a JSON ``expected``."""
    return ContractError(
        "invalid_type",
        f"'{name}' must be a JSON {expected}, got {shown(value)}",
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
        f"'{name}' must be an {expected}, got {shown(value)}{hint}",
        field=name,
        received=value,
        expected=expected,
    )


def shown(value: Any) -> str:
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
