"""Arguments for a tool, made from its ``inputSchema``: valid ones, and hostile ones.

Valid arguments (:func:`valid_candidates`), in the order they are tried:

1. the operator's own, from ``--calls FILE`` (``{"tool": [{...arguments...}, ...]}``);
2. the JSON objects a description gives as examples (``Example: {"path": "a.txt"}``;
   an object right after ``Not:`` is a counter-example and skipped);
3. the schema's own ``examples``;
4. values built from the schema (:func:`example_value`): ``const``, ``enum``,
   ``examples``, ``default``, a value the property's description quotes as an example or
   a default (``e.g. 'Europe/Berlin'``, ``Defaults to 'local'``: :func:`described_value`),
   else the smallest value the type and bounds allow; with
   ``--workspace DIR``, a path-like argument (``path``, ``file``, ``dir``...) is first
   given a file of DIR, relative, then absolute, then DIR itself. The required
   properties first, then every property (for a schema that forgot ``required``).

Every candidate is checked against the schema; one the schema refuses is dropped. The
checker uses the first candidate the tool accepts as the base of every hostile call.

Hostile arguments (:func:`hostile_calls`) change ONE thing of the base, one kind each
(:data:`KINDS`): ``missing_required``, ``wrong_type``, ``bool_as_integer`` (``true`` for
an integer), ``integer_as_string`` (``"5"``), ``extra_field``, ``out_of_range``,
``not_in_enum``, ``huge_string`` (a million characters), ``lone_surrogate``
(``"\\ud800"``) and ``deep_nesting`` (1000 nested arrays). Each :class:`HostileCall`
knows whether the declared schema refuses it (``schema_refuses``): only then must the
tool refuse it too.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match
from jsonschema.validators import validator_for

__all__ = [
    "HUGE_STRING_CHARS",
    "KINDS",
    "NESTING_DEPTH",
    "QUICK_KINDS",
    "WIRE_KINDS",
    "Candidate",
    "HostileCall",
    "described_value",
    "example_value",
    "hostile_calls",
    "printable",
    "schema_accepts",
    "schema_failure",
    "valid_candidates",
]

#: Every hostile kind, in the order they are tried.
KINDS: tuple[str, ...] = (
    "missing_required",
    "wrong_type",
    "bool_as_integer",
    "integer_as_string",
    "extra_field",
    "out_of_range",
    "not_in_enum",
    "huge_string",
    "lone_surrogate",
    "deep_nesting",
)
#: The kinds of ``--quick``: the cheapest ones that still find most schema gaps.
QUICK_KINDS: tuple[str, ...] = (
    "missing_required",
    "wrong_type",
    "bool_as_integer",
    "extra_field",
    "out_of_range",
)
#: The kinds the SDK cannot serialize: sent as raw JSON text (see ``connection``).
WIRE_KINDS = frozenset({"lone_surrogate", "deep_nesting"})

HUGE_STRING_CHARS = 1_000_000
NESTING_DEPTH = 1000
EXTRA_FIELD = "checker_unexpected_field"
NOT_ALLOWED = "checker-not-an-allowed-value"

_PATH_LIKE = re.compile(
    r"(^|_)(paths?|files?|filenames?|filepaths?|dirs?|directory|directories|folders?)$", re.I
)
_MISSING: Any = object()


@dataclass(frozen=True)
class Candidate:
    """Valid arguments and where they came from (``source``)."""

    arguments: dict[str, Any]
    source: str


@dataclass(frozen=True)
class HostileCall:
    """One hostile call: its ``kind``, the ``argument`` it targets (None for the whole
    object), the ``arguments`` as Python values, what goes on the wire (``wire`` with
    placeholders, ``raw``: placeholder -> JSON text), and whether the declared schema
    refuses these arguments (``schema_refuses``)."""

    kind: str
    argument: str | None
    arguments: dict[str, Any]
    schema_refuses: bool
    wire: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)


# -- schemas ------------------------------------------------------------------------------


def _validator(schema: Mapping[str, Any]) -> Any:
    cls = validator_for(schema, default=Draft202012Validator)
    return cls(schema)


def schema_accepts(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether ``schema`` (its own dialect, 2020-12 by default) accepts ``value``; a
    schema that cannot be used accepts nothing."""
    try:
        return bool(_validator(schema).is_valid(value))
    except (SchemaError, RecursionError, TypeError, ValueError, LookupError):
        return False
    except Exception:  # a $ref that does not resolve, a broken regex...
        return False


def schema_failure(schema: Mapping[str, Any], value: Any) -> str | None:
    """Why ``schema`` refuses ``value``, in one line (the error jsonschema's ``best_match``
    picks, as the Python SDK's client words it, and where: ``$.views``); None when it
    accepts it, or when the schema cannot be used (``schema_invalid``'s business)."""
    try:
        error = best_match(_validator(schema).iter_errors(value))
    except Exception:  # a broken schema, a $ref that does not resolve, a broken regex...
        return None
    if error is None:
        return None
    return f"{error.message} (at {error.json_path})"


def _resolve(schema: Any, root: Mapping[str, Any]) -> Any:
    """``schema`` with a local ``$ref`` (``#/$defs/x``, ``#/definitions/x``) followed."""
    for _ in range(10):
        if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
            return schema
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            return schema
        node: Any = root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            return schema
        schema = node
    return schema


def _types(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return []
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    return []


def properties_of(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The root's properties, each with its local ``$ref`` followed."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    return {name: _resolve(sub, schema) for name, sub in props.items()}


def required_of(schema: Mapping[str, Any]) -> list[str]:
    required = schema.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


# -- building values ---------------------------------------------------------------------

_FORMATS = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00Z",
    "email": "user@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "duration": "P1D",
}
_STRING_GUESSES = ("example", "example/shop", "a", "abc", "x1", "1", "A", "example.txt")


def _fits(schema: dict[str, Any], text: str) -> bool:
    if len(text) < int(schema.get("minLength", 0) or 0):
        return False
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and len(text) > max_length:
        return False
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            return re.search(pattern, text) is not None
        except re.error:
            return True  # a dialect Python cannot read: let the schema check decide
    return True


#: Where a description starts quoting examples or a default: "e.g. 'Europe/Berlin'",
#: "Defaults to 'local'", "such as `main`" (the quoted values follow, to the clause's end).
_EXAMPLES_START = re.compile(
    r"\be\.g\.|\bfor (?:example|instance)\b|\bsuch as\b|\blike\b|\bexamples?\b"
    r"|\bdefaults? (?:to|is)\b|\bdefault\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"(['\"`])([^'\"`\n]{1,100})\1")
_CLAUSE_END = re.compile(r"[.;)](?:\s|$)|$")


def described_value(schema: Mapping[str, Any]) -> str | None:
    """The first value the property's description quotes as an example or a default that
    the property's schema accepts (``'Europe/Berlin'`` for a time zone), or None."""
    description = schema.get("description")
    if not isinstance(description, str):
        return None
    for start in _EXAMPLES_START.finditer(description):
        rest = description[start.end() :]
        clause = rest[: _CLAUSE_END.search(rest).start()]  # type: ignore[union-attr]
        for quoted in _QUOTED.finditer(clause):
            if _fits(dict(schema), quoted[2]):
                return quoted[2]
    return None


def _string(schema: dict[str, Any]) -> str:
    described = described_value(schema)
    if described is not None:
        return described
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in _FORMATS and _fits(schema, _FORMATS[fmt]):
        return _FORMATS[fmt]
    minimum = int(schema.get("minLength", 0) or 0)
    for guess in _STRING_GUESSES:
        padded = guess + "x" * max(0, minimum - len(guess))
        if _fits(schema, padded):
            return padded
    return "x" * max(1, minimum)


def _bound(schema: Mapping[str, Any], key: str) -> float | None:
    value = schema.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _number(schema: dict[str, Any], integer: bool) -> int | float:
    low, high = _bound(schema, "minimum"), _bound(schema, "maximum")
    exclusive_low = _bound(schema, "exclusiveMinimum")
    exclusive_high = _bound(schema, "exclusiveMaximum")
    value: float = 1
    if low is not None:
        value = max(value, low)
    if exclusive_low is not None:
        value = max(value, exclusive_low + 1)
    if high is not None and value > high:
        value = high
    if exclusive_high is not None and value >= exclusive_high:
        value = exclusive_high - 1
    step = _bound(schema, "multipleOf")
    if step is not None and step > 0:
        value = step * max(1, round(value / step))
    return int(value) if integer or float(value).is_integer() else value


def example_value(schema: Any, root: Mapping[str, Any] | None = None, depth: int = 0) -> Any:
    """A value ``schema`` is likely to accept (see the module); ``root`` resolves ``$ref``."""
    root = root if root is not None else (schema if isinstance(schema, dict) else {})
    schema = _resolve(schema, root)
    if not isinstance(schema, dict) or depth > 8:
        return "example"
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return copy.deepcopy(next((v for v in enum if v is not None), enum[0]))
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        return copy.deepcopy(examples[0])
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            usable = [b for b in branches if "null" not in _types(_resolve(b, root))]
            return example_value((usable or branches)[0], root, depth + 1)
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and all_of and not _types(schema):
        return example_value(all_of[0], root, depth + 1)
    types = [t for t in _types(schema) if t != "null"] or _types(schema)
    kind = types[0] if types else ("object" if "properties" in schema else "string")
    if kind == "string":
        return _string(schema)
    if kind in ("integer", "number"):
        return _number(schema, kind == "integer")
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    if kind == "array":
        count = int(schema.get("minItems", 0) or 0)
        items = schema.get("items")
        if count == 0:
            return []
        return [example_value(items, root, depth + 1) for _ in range(count)]
    if kind == "object":
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        return {
            name: example_value(props.get(name, {}), root, depth + 1)
            for name in required_of(schema)
        }
    return "example"


# -- valid candidates -------------------------------------------------------------------


def _description_examples(description: str) -> Iterator[dict[str, Any]]:
    decoder = json.JSONDecoder()
    index = description.find("{")
    while index != -1:
        try:
            value, end = decoder.raw_decode(description, index)
        except ValueError:
            index = description.find("{", index + 1)
            continue
        before = description[max(0, index - 12) : index]
        if isinstance(value, dict) and not re.search(r"\bnot\b\s*:?\s*$", before, re.I):
            yield value
        index = description.find("{", end)


def _workspace_paths(workspace: Path) -> list[str]:
    """A file of the workspace (relative, then absolute), then the workspace itself."""
    first: Path | None = None
    for folder, dirs, files in os.walk(workspace):
        dirs.sort()
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in sorted(files):
            path = Path(folder) / name
            if not name.startswith(".") and path.is_file() and not path.is_symlink():
                first = path
                break
        if first is not None:
            break
    paths = []
    if first is not None:
        paths += [first.relative_to(workspace).as_posix(), str(first)]
    return [*paths, str(workspace), "."]


def valid_candidates(
    tool: Mapping[str, Any],
    *,
    configured: Iterable[Mapping[str, Any]] = (),
    workspace: Path | None = None,
    limit: int = 4,
) -> list[Candidate]:
    """Valid arguments for ``tool`` (an MCP tool in wire form), best first (see the module)."""
    schema = tool.get("inputSchema") or {}
    found: list[Candidate] = []
    seen: set[str] = set()

    def add(arguments: Any, source: str, check: bool = True) -> None:
        if not isinstance(arguments, dict):
            return
        key = json.dumps(arguments, sort_keys=True, default=repr)
        if key in seen or (check and not schema_accepts(schema, arguments)):
            return
        seen.add(key)
        found.append(Candidate(dict(arguments), source))

    for arguments in configured:
        add(arguments, "--calls", check=False)  # the operator's word: sent as given
    for example in _description_examples(str(tool.get("description") or "")):
        add(example, "description example")
    examples = schema.get("examples")
    if isinstance(examples, list):
        for example in examples:
            add(example, "schema examples")
    generated = example_value(schema)
    if isinstance(generated, dict):
        props = properties_of(schema)
        path_like = {
            name: "array" in _types(sub)
            for name, sub in props.items()
            if _PATH_LIKE.search(name) and set(_types(sub) or ["string"]) & {"string", "array"}
        }
        if workspace is not None and path_like:
            for path in _workspace_paths(workspace):
                variant = dict(generated)
                for name, is_array in path_like.items():
                    if name in variant or name in required_of(schema):
                        variant[name] = [path] if is_array else path
                add(variant, "schema + workspace path")
        add(generated, "schema")
        everything = {
            name: generated.get(name, example_value(sub, schema))
            for name, sub in properties_of(schema).items()
        }
        add(everything, "schema (every property)")
    return found[:limit]


# -- hostile calls ---------------------------------------------------------------------------


def _first(props: Mapping[str, Any], required: list[str], test: Any) -> str | None:
    ordered = [n for n in props if n in required] + [n for n in props if n not in required]
    return next((name for name in ordered if test(props[name])), None)


def _wrong_type_value(schema: dict[str, Any]) -> Any:
    kind = _types(schema)[0]
    return {
        "string": 12345,
        "integer": "not a number",
        "number": "not a number",
        "boolean": "yes",
        "array": "not an array",
        "object": "not an object",
        "null": "not null",
    }.get(kind, 12345)


def _out_of_range(schema: dict[str, Any]) -> Any:
    for key, delta in (("maximum", 1), ("exclusiveMaximum", 0)):
        bound = schema.get(key)
        if isinstance(bound, (int, float)) and not isinstance(bound, bool):
            return bound + delta
    for key, delta in (("minimum", -1), ("exclusiveMinimum", 0)):
        bound = schema.get(key)
        if isinstance(bound, (int, float)) and not isinstance(bound, bool):
            return bound + delta
    return _MISSING


def _numeric(schema: Any) -> bool:
    return bool(set(_types(schema)) & {"integer", "number"})


def printable(value: Any, depth: int = 0) -> Any:
    """``value`` made short for a report: a long string is cut and its length given, deep
    nesting is summarised (a lone surrogate stays: the renderings escape it)."""
    if depth > 6:
        inner, levels = value, 0
        while isinstance(inner, list) and len(inner) == 1:
            inner, levels = inner[0], levels + 1
        return f"<{levels} more nested arrays>" if levels else "…"
    if isinstance(value, str):
        return value if len(value) <= 80 else f"{value[:40]}…<{len(value)} characters>"
    if isinstance(value, list):
        return [printable(v, depth + 1) for v in value[:10]]
    if isinstance(value, dict):
        return {str(k): printable(v, depth + 1) for k, v in list(value.items())[:20]}
    return value


def hostile_calls(
    schema: Mapping[str, Any], base: Mapping[str, Any], kinds: Iterable[str] = KINDS
) -> list[HostileCall]:
    """One :class:`HostileCall` per applicable kind (see the module), built from ``base``."""
    props = properties_of(schema)
    required = required_of(schema)
    calls: list[HostileCall] = []
    for kind in kinds:
        built = _build(kind, props, required, dict(base))
        if built is None:
            continue
        target, arguments, wire, raw = built
        refuses = not schema_accepts(schema, arguments)
        calls.append(HostileCall(kind, target, arguments, refuses, wire, raw))
    return calls


def _build(
    kind: str, props: Mapping[str, Any], required: list[str], base: dict[str, Any]
) -> tuple[str | None, dict[str, Any], dict[str, Any], dict[str, str]] | None:
    def change(name: str, value: Any) -> tuple[str, dict[str, Any], dict[str, Any], dict]:
        arguments = {**base, name: value}
        return name, arguments, arguments, {}

    def typed(test: Any) -> str | None:
        return _first(props, required, lambda s: bool(_types(s)) and test(s))

    if kind == "missing_required":
        name = next((r for r in required if r in base), None)
        if name is None:
            return None
        arguments = {k: v for k, v in base.items() if k != name}
        return name, arguments, arguments, {}
    if kind == "wrong_type":
        name = typed(lambda s: len([t for t in _types(s) if t != "null"]) == 1)
        return None if name is None else change(name, _wrong_type_value(props[name]))
    if kind == "bool_as_integer":
        name = typed(lambda s: "integer" in _types(s) and "boolean" not in _types(s))
        return None if name is None else change(name, True)
    if kind == "integer_as_string":
        name = typed(lambda s: "integer" in _types(s) and "string" not in _types(s))
        if name is None:
            return None
        value = base.get(name)
        return change(name, str(value if isinstance(value, int) else 1))
    if kind == "extra_field":
        if EXTRA_FIELD in props:
            return None
        return change(EXTRA_FIELD, "x")
    if kind == "out_of_range":
        name = typed(lambda s: _numeric(s) and _out_of_range(s) is not _MISSING)
        return None if name is None else change(name, _out_of_range(props[name]))
    if kind == "not_in_enum":
        name = _first(
            props,
            required,
            lambda s: isinstance(s.get("enum"), list) and NOT_ALLOWED not in s["enum"],
        )
        return None if name is None else change(name, NOT_ALLOWED)
    if kind == "huge_string":
        name = typed(lambda s: "string" in _types(s))
        return None if name is None else change(name, "x" * HUGE_STRING_CHARS)
    if kind == "lone_surrogate":
        name = typed(lambda s: "string" in _types(s))
        if name is None:
            return None
        start = base.get(name)
        value = (start if isinstance(start, str) else "abc") + "\ud800"
        placeholder = "__tutorial_lib_checker_raw_surrogate__"
        arguments = {**base, name: value}
        return name, arguments, {**base, name: placeholder}, {placeholder: json.dumps(value)}
    if kind == "deep_nesting":
        name = typed(lambda s: not ({"array"} & set(_types(s))))
        if name is None:
            return None
        nested: Any = 1
        for _ in range(NESTING_DEPTH):
            nested = [nested]
        placeholder = "__tutorial_lib_checker_raw_nesting__"
        text = "[" * NESTING_DEPTH + "1" + "]" * NESTING_DEPTH
        arguments = {**base, name: nested}
        return name, arguments, {**base, name: placeholder}, {placeholder: text}
    raise ValueError(f"no hostile kind {kind!r}; kinds: {', '.join(KINDS)}")
