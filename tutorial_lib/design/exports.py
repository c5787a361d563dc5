"""Export a ToolSpec to the tool formats of three model APIs, and show where they differ.

One :class:`~tutorial_lib.core.tools.ToolSpec`, three wire formats:

- :func:`to_anthropic`: a tool of the Anthropic Messages API,
  ``{"name", "description", "input_schema"}`` (``anthropic.types.ToolParam``);
- :func:`to_openai`: an OpenAI Chat Completions function tool,
  ``{"type": "function", "function": {"name", "description", "parameters", "strict"}}``
  (``openai.types.chat.ChatCompletionFunctionToolParam``), in strict mode by default;
- :func:`to_mcp`: an MCP ``Tool``, ``{"name", "title", "description", "inputSchema",
  "outputSchema"?, "annotations"}`` (``mcp.types.Tool``, camelCase on the wire).

What does not survive: the two model APIs have no field for the title, the result schema
or the behaviour annotations; only MCP carries them (annotations since MCP revision
2025-03-26, ``title`` and ``outputSchema`` since 2025-06-18). Tool names are narrower there
too: MCP's guidance on tool names (revision 2025-11-25, "Tool Names", SEP-986; SHOULD, not
MUST) allows 1-128 characters of ``A-Za-z0-9_.-``, the model APIs 1-64 of ``A-Za-z0-9_-``
(no dot), so a longer or dotted name is refused with :class:`ExportError` rather than
silently renamed (a renamed tool no longer routes back to its declaration).

What it costs: the tool list goes to the model with every request, so its size is paid on
every turn of an agent loop. :func:`tool_list_json` is that list as one request carries it
(compact JSON), to be measured in characters or UTF-8 bytes.

OpenAI's strict mode (Structured Outputs for function calls) constrains decoding to the
schema, but only for a subset of JSON Schema. From OpenAI's Structured Outputs guide
("Supported schemas"; the installed ``openai`` SDK says only "a subset"):

- types: string, number, integer, boolean, object, array, null, ``enum``, ``anyOf``; the
  root must be an object, not ``anyOf``; ``$defs``/``$ref`` (also recursive) are allowed;
- every object needs ``additionalProperties: false``;
- every property must be listed in ``required``; an optional field is written as a union
  with null (``"type": ["integer", "null"]``) and the model sends ``null`` for "not given";
- documented as supported: strings ``pattern`` and ``format`` (date-time, time, date,
  duration, email, hostname, ipv4, ipv6, uuid); numbers ``multipleOf``, ``minimum``,
  ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum``; arrays ``minItems``,
  ``maxItems``;
- documented as unsupported: ``allOf``, ``not``, ``dependentRequired``,
  ``dependentSchemas``, ``if``, ``then``, ``else``; fine-tuned models additionally lack
  ``minLength``, ``maxLength``, ``pattern``, ``format``, ``minimum``, ``maximum``,
  ``multipleOf``, ``patternProperties``, ``minItems``, ``maxItems``. (Earlier versions of
  the guide listed those as unsupported for every model.)
- limits: at most 5000 object properties, 10 levels of nesting, 1000 enum values.

This module keeps to what is documented as supported. :func:`make_strict` transforms what
it can without changing what the schema accepts (closing objects, optional fields made
required and nullable) and moves every other keyword (``minLength``, ``maxLength``,
``default``, ...) into the description, where the model still reads it but the API does
not enforce it. Anything it cannot express faithfully (``allOf``, ``not``, conditionals,
``patternProperties``, open maps) makes :func:`to_openai` refuse. Your own validator must
still run on every call: a strict schema is a smaller contract, not a replacement for it.
:func:`strict_mode_problems` explains each incompatibility; :func:`from_strict_arguments`
turns the nulls a strict model sends back into omitted arguments.
"""

from __future__ import annotations

import copy
import json
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tutorial_lib.core.contracts import TutorialLibError
from tutorial_lib.core.tools import ToolSpec

__all__ = [
    "ANTHROPIC_NAME_PATTERN",
    "OPENAI_NAME_PATTERN",
    "STRICT_LIMITS",
    "STRICT_STRING_FORMATS",
    "STRICT_UNSUPPORTED",
    "TARGETS",
    "ExportError",
    "StrictConversion",
    "compare_exports",
    "format_comparison",
    "from_strict_arguments",
    "make_strict",
    "strict_mode_problems",
    "to_anthropic",
    "to_mcp",
    "to_openai",
    "tool_list_json",
]

#: Anthropic tool names. Anthropic's tool-use guide: "Must match the regex
#: ^[a-zA-Z0-9_-]{1,64}$" (the SDK's ``ToolParam`` types it only as ``str``).
ANTHROPIC_NAME_PATTERN = re.compile(r"[a-zA-Z0-9_-]{1,64}")
#: OpenAI function names. ``FunctionDefinition.name`` in the openai SDK: "Must be a-z,
#: A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64."
OPENAI_NAME_PATTERN = re.compile(r"[a-zA-Z0-9_-]{1,64}")

#: String formats strict mode supports.
STRICT_STRING_FORMATS = frozenset(
    ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]
)
#: Keywords OpenAI documents as unsupported in strict mode (plus ``patternProperties``,
#: which no closed object can express); a schema using any of them is refused.
STRICT_UNSUPPORTED = frozenset(
    ["allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else"]
    + ["patternProperties"]
)
#: Size limits of a strict schema.
STRICT_LIMITS = {"object_properties": 5000, "nesting_depth": 10, "enum_values": 1000}

_COMMON = frozenset(["type", "description", "title", "enum", "const", "anyOf", "$ref"])
_BY_TYPE = {
    "string": frozenset(["pattern", "format"]),
    "number": frozenset(
        ["multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
    ),
    "array": frozenset(["items", "minItems", "maxItems"]),
    "object": frozenset(["properties", "required", "additionalProperties"]),
}
_BY_TYPE["integer"] = _BY_TYPE["number"]
# Schema metadata with no meaning for the model: dropped, not moved into the description.
_METADATA = frozenset(["$schema", "$id", "$comment", "$anchor"])
_MISSING: Any = object()


class ExportError(TutorialLibError, ValueError):
    """A spec the target format cannot express; ``problems`` says why, one line each."""

    def __init__(self, target: str, tool: str, problems: list[str]) -> None:
        self.target = target
        self.tool = tool
        self.problems = list(problems)
        super().__init__(f"{target} cannot express tool '{tool}': " + "; ".join(problems))


@dataclass(frozen=True)
class StrictConversion:
    """The result of :func:`make_strict`: the strict schema and what was changed to get it."""

    schema: dict[str, Any]
    changes: tuple[str, ...]


@dataclass
class _Walk:
    problems: list[tuple[str, str, bool]] = field(default_factory=list)  # path, message, fatal
    properties: int = 0
    enum_values: int = 0
    depth: int = 0

    def fix(self, path: str, message: str) -> None:
        self.problems.append((path, message, False))

    def refuse(self, path: str, message: str) -> None:
        self.problems.append((path, message + "; strict mode cannot express it: refused", True))

    def lines(self) -> list[str]:
        return [f"{path or '(root)'}: {message}" for path, message, _ in self.problems]

    @property
    def fatal(self) -> list[str]:
        return [f"{p or '(root)'}: {m}" for p, m, fatal in self.problems if fatal]


def _types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    return []


def _join(path: str, *parts: str) -> str:
    return ".".join([path, *parts] if path else parts)


def _allows_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return schema is True
    if "null" in _types(schema) or schema.get("const", _MISSING) is None:
        return True
    if None in schema.get("enum", ()):
        return True
    return any(_allows_null(branch) for branch in schema.get("anyOf", ()))


def _nullable(schema: dict[str, Any], note: str) -> dict[str, Any]:
    """``schema`` also accepting null, with ``note`` appended to its description."""
    if set(schema) == {"$ref"}:
        result: dict[str, Any] = {"anyOf": [schema, {"type": "null"}]}
    elif "anyOf" in schema:
        result = dict(schema)
        if not _allows_null(schema):
            result["anyOf"] = [*schema["anyOf"], {"type": "null"}]
    else:
        result = {}
        for key, value in schema.items():
            if key == "const":
                key, value = "enum", [value]
            result[key] = value
        types = _types(result)
        if types and "null" not in types:
            result["type"] = [*types, "null"]
        if "enum" in result and None not in result["enum"]:
            result["enum"] = [*result["enum"], None]
    description = result.get("description", "")
    result["description"] = f"{description} {note}".strip()
    return result


def _strict(node: Any, path: str, walk: _Walk, *, root: bool = False) -> Any:
    """Transform one subschema, recording every change and refusal in ``walk``."""
    if not isinstance(node, dict):
        walk.refuse(path, f"a boolean schema ({json.dumps(node)})")
        return node
    types = _types(node)
    for keyword in node:
        if keyword in STRICT_UNSUPPORTED:
            walk.refuse(path, f"'{keyword}' is not supported in strict mode")
    if not types and not any(k in node for k in ("enum", "const", "anyOf", "oneOf", "$ref")):
        walk.refuse(path, "no 'type' (strict mode needs a type, enum, const, anyOf or $ref)")
    if "$ref" in node and len(node) > 1:
        siblings = ", ".join(sorted(set(node) - {"$ref"}))
        walk.refuse(path, f"'$ref' with sibling keywords ({siblings})")
    if root and ("anyOf" in node or "oneOf" in node):
        walk.refuse(path, "the root must be an object, not a union")
    allowed = set(_COMMON)
    for t in types:
        allowed |= _BY_TYPE.get(t, frozenset())
    is_object = "object" in types or "properties" in node
    if is_object:
        allowed |= _BY_TYPE["object"]
        walk.depth += 1
        if walk.depth > STRICT_LIMITS["nesting_depth"]:
            walk.refuse(path, f"nesting deeper than {STRICT_LIMITS['nesting_depth']} objects")

    out: dict[str, Any] = {}
    moved: dict[str, Any] = {}
    default = _MISSING
    for key, value in node.items():
        if key in STRICT_UNSUPPORTED:
            continue
        if key == "properties" and isinstance(value, dict):
            walk.properties += len(value)
            out[key] = {
                name: _strict(sub, _join(path, "properties", name), walk)
                for name, sub in value.items()
            }
        elif key == "prefixItems" or (key == "items" and isinstance(value, list)):
            walk.refuse(path, f"'{key}' as a list (tuple validation)")
        elif key == "items":
            out[key] = _strict(value, _join(path, "items"), walk)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            if key == "oneOf":
                walk.fix(path, "'oneOf' is not in the strict subset -> rewritten as anyOf")
            out["anyOf"] = [
                _strict(sub, _join(path, key, str(i)), walk) for i, sub in enumerate(value)
            ]
        elif key in ("$defs", "definitions") and isinstance(value, dict):
            out[key] = {
                name: _strict(sub, _join(path, key, name), walk) for name, sub in value.items()
            }
        elif key in ("required", "additionalProperties") and is_object:
            out[key] = None  # placeholder: keeps the author's key order; filled in below
        elif key == "format":
            if "string" in types and value in STRICT_STRING_FORMATS:
                out[key] = value
            else:
                moved[key] = value
        elif key in _METADATA:
            walk.fix(path, f"'{key}' (schema metadata) is not in the strict subset -> dropped")
        elif key == "default":
            default = value
        elif key in allowed:
            out[key] = copy.deepcopy(value)
        else:
            moved[key] = value
    if "enum" in out:
        walk.enum_values += len(out["enum"])

    if is_object:
        extra = node.get("additionalProperties", _MISSING)
        if extra is _MISSING:
            walk.fix(
                path,
                "additionalProperties is missing; strict mode requires false on every object"
                " -> set to false (undeclared keys were allowed before)",
            )
        elif extra is not False:
            walk.refuse(
                path,
                f"additionalProperties is {json.dumps(extra)}, but strict mode requires false"
                " and closing this object would change what it accepts",
            )
        properties = out.get("properties", {})
        required = node.get("required", [])
        for name in properties:
            if name in required:
                continue
            walk.fix(
                _join(path, "properties", name),
                "optional, but strict mode requires every property in 'required'"
                " -> now required and nullable (null means 'not given')",
            )
            original = node["properties"][name]
            has_default = isinstance(original, dict) and "default" in original
            note = (
                "Null means not given: the default applies."
                if has_default
                else "Null means not given."
            )
            properties[name] = _nullable(properties[name], note)
        out["required"] = list(properties)
        out["additionalProperties"] = False
        walk.depth -= 1

    notes = []
    if moved:
        walk.fix(
            path,
            f"{', '.join(moved)} not in the strict subset -> moved into the description",
        )
        constraints = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in moved.items()
        )
        notes.append(f"Must also satisfy: {constraints}.")
    if default is not _MISSING:
        walk.fix(path, "default is not in the strict subset -> moved into the description")
        notes.append(f"Default: {json.dumps(default, ensure_ascii=False)}.")
    if notes:
        out["description"] = " ".join([out.get("description", ""), *notes]).strip()
    return out


def _walk(schema: dict[str, Any]) -> tuple[dict[str, Any], _Walk]:
    walk = _Walk()
    strict = _strict(schema, "", walk, root=True)
    if walk.properties > STRICT_LIMITS["object_properties"]:
        walk.refuse("", f"{walk.properties} object properties (at most 5000)")
    if walk.enum_values > STRICT_LIMITS["enum_values"]:
        walk.refuse("", f"{walk.enum_values} enum values (at most 1000)")
    return strict, walk


def strict_mode_problems(schema: dict[str, Any]) -> list[str]:
    """Every way ``schema`` falls outside OpenAI's strict subset, one line each.

    Each line is ``"<path>: <what is wrong> -> <what make_strict does>"`` or ends with
    ``"refused"`` when the schema cannot be made strict without changing what it accepts.
    An empty list means the schema can be sent with ``strict: true`` as it is.
    """
    return _walk(copy.deepcopy(schema))[1].lines()


def make_strict(schema: dict[str, Any]) -> StrictConversion:
    """Transform ``schema`` into OpenAI's strict subset, or raise :class:`ExportError`.

    Never mutates ``schema``. Transformations (each recorded in ``changes``):

    - a missing ``additionalProperties`` becomes ``false``;
    - every optional property is added to ``required`` and made nullable (``type`` gets
      ``"null"``, ``enum`` gets ``None``, ``const`` becomes a two-value enum, ``$ref``
      and ``anyOf`` get a null branch), with "Null means not given." in its description;
    - ``oneOf`` becomes ``anyOf``;
    - ``$schema``, ``$id``, ``$comment`` and ``$anchor`` are dropped;
    - ``default`` and every keyword not documented as supported (``minLength``,
      ``maxLength``, ``uniqueItems``, unlisted formats, ...) move into the description,
      e.g. "Must also satisfy: minLength=1, maxLength=4096." and "Default: 30.".

    Refused: :data:`STRICT_UNSUPPORTED` keywords, ``additionalProperties`` other than
    false, tuples (``prefixItems``), a union at the root, ``$ref`` with siblings, a subschema with
    no type, and schemas over :data:`STRICT_LIMITS`.
    """
    strict, walk = _walk(copy.deepcopy(schema))
    if walk.fatal:
        raise ExportError("OpenAI strict mode", "(schema)", walk.fatal)
    return StrictConversion(strict, tuple(walk.lines()))


def from_strict_arguments(spec: ToolSpec, args: Any) -> Any:
    """Undo strict mode's nulls: drop ``null`` where the original schema had an optional field.

    A strict model must send every property, with ``null`` for "not given"; the tool's own
    schema (``additionalProperties: false``, ``"type": "integer"``) would refuse that null.
    Nested objects and arrays of objects are handled; anything else is returned as is.
    """
    return _undo_nulls(spec.input_schema, args)


def _undo_nulls(schema: Any, value: Any) -> Any:
    if not isinstance(schema, dict):
        return value
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_undo_nulls(schema["items"], item) for item in value]
    if not isinstance(value, dict):
        return value
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    result = {}
    for key, item in value.items():
        sub = properties.get(key)
        if item is None and key not in required and sub is not None and not _allows_null(sub):
            continue
        result[key] = _undo_nulls(sub, item)
    return result


def _check_name(spec: ToolSpec, pattern: re.Pattern[str], target: str) -> None:
    if pattern.fullmatch(spec.name):
        return
    suggestion = re.sub(r"[^a-zA-Z0-9_-]", "_", spec.name)[:64]
    raise ExportError(
        target,
        spec.name,
        [
            f"tool names there are 1-64 characters of a-z, A-Z, 0-9, '_' and '-' (no '.');"
            f" rename the tool everywhere, e.g. to '{suggestion}'"
        ],
    )


def to_anthropic(spec: ToolSpec) -> dict[str, Any]:
    """``spec`` as an Anthropic Messages API tool (``anthropic.types.ToolParam``).

    ``{"name", "description", "input_schema"}``: the schema is sent as written (JSON Schema
    2020-12). Title, result schema and annotations have no field and are left out.
    ``ToolParam`` also has optional ``strict``, ``input_examples``, ``cache_control``,
    ``defer_loading``, ``eager_input_streaming``, ``allowed_callers`` and ``type``, none
    used here. Raises :class:`ExportError` for a name outside ``^[a-zA-Z0-9_-]{1,64}$``.
    """
    _check_name(spec, ANTHROPIC_NAME_PATTERN, "the Anthropic Messages API")
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": copy.deepcopy(spec.input_schema),
    }


def to_openai(spec: ToolSpec, strict: bool = True) -> dict[str, Any]:
    """``spec`` as an OpenAI Chat Completions function tool (``ChatCompletionFunctionToolParam``).

    ``{"type": "function", "function": {"name", "description", "parameters", "strict"}}``.
    With ``strict=True`` (the default) ``parameters`` is :func:`make_strict` of the input
    schema, and a schema outside the strict subset raises :class:`ExportError` listing
    every problem; with ``strict=False`` the schema is sent as written and is only a hint
    to the model. Title, result schema and annotations are left out. (The Responses API
    uses a flat ``{"type": "function", "name", ...}`` shape instead.)
    """
    _check_name(spec, OPENAI_NAME_PATTERN, "OpenAI function calling")
    if strict:
        strict_schema, walk = _walk(copy.deepcopy(spec.input_schema))
        if walk.fatal:
            raise ExportError("OpenAI strict mode", spec.name, walk.fatal)
        parameters = strict_schema
    else:
        parameters = copy.deepcopy(spec.input_schema)
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": parameters,
            "strict": strict,
        },
    }


def to_mcp(spec: ToolSpec) -> dict[str, Any]:
    """``spec`` as an MCP ``Tool`` in wire form (camelCase keys, as in ``tools/list``).

    ``{"name", "title", "description", "inputSchema", "outputSchema"?, "annotations"}``.
    All four annotation hints are written out, because MCP's defaults for missing ones are
    the pessimistic ``readOnlyHint: false`` and ``destructiveHint: true``. ``outputSchema``
    is the spec's result schema, i.e. ``data`` of a success envelope: an MCP adapter
    returns ``data`` as ``structuredContent`` on success and the error envelope as text
    with ``isError: true`` on failure. MCP accepts every valid ToolSpec name.
    """
    tool: dict[str, Any] = {
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "inputSchema": copy.deepcopy(spec.input_schema),
    }
    if spec.output_schema is not None:
        tool["outputSchema"] = copy.deepcopy(spec.output_schema)
    tool["annotations"] = spec.annotations.to_mcp()
    return tool


_SUBJECT_END = re.compile(r" is not in the strict subset| not in the strict subset|, but |; | is ")


def _short_change(line: str) -> str:
    """One line of :func:`strict_mode_problems` in short: ``"path: keywords -> action"``."""
    where, _, rest = line.partition(": ")
    problem, _, action = rest.partition(" -> ")
    subject = _SUBJECT_END.split(problem, maxsplit=1)[0]
    subject = re.sub(r" \(.*?\)", "", subject)
    action = re.sub(r" \(.*?\)", "", action)
    where = where.replace("properties.", "") if where != "(root)" else where
    return f"{where}: {subject} -> {action}"


TARGETS = {"anthropic": to_anthropic, "openai_strict": to_openai, "mcp": to_mcp}


def tool_list_json(specs: Iterable[ToolSpec], target: str = "anthropic") -> str:
    """The tool list of one request to ``target`` (a key of :data:`TARGETS`) as compact JSON.

    This is the text an API receives, and resends with every turn of the conversation:
    ``len(tool_list_json(specs))`` characters, ``len(tool_list_json(specs).encode())`` UTF-8
    bytes. Tokens depend on each model's tokenizer and are not counted here.
    """
    try:
        export = TARGETS[target]
    except KeyError:
        raise KeyError(f"no target {target!r}; targets: {', '.join(TARGETS)}") from None
    tools = [export(spec) for spec in specs]
    return json.dumps(tools, ensure_ascii=False, separators=(",", ":"))


def compare_exports(spec: ToolSpec) -> list[dict[str, str]]:
    """A small table of how ``spec`` fares in each format, for a chapter to print.

    One row per aspect, with the keys ``aspect``, ``anthropic``, ``openai_strict`` and
    ``mcp``: where name and schema go, whether the name is accepted, what happens to the
    title, the result schema and the annotations, and what strict mode changed (each
    change in short, ``"path: keywords -> action"``; :func:`strict_mode_problems` has the
    full sentences). Refusals appear as cells, never as exceptions. See
    :func:`format_comparison`.
    """

    def attempt(export: Any) -> tuple[dict[str, Any] | None, str]:
        try:
            return export(spec), "accepted"
        except ExportError as error:
            return None, "refused: " + "; ".join(error.problems)

    anthropic, anthropic_name = attempt(to_anthropic)
    openai, openai_verdict = attempt(to_openai)
    name_ok = bool(OPENAI_NAME_PATTERN.fullmatch(spec.name))
    if openai is not None:
        changes = [_short_change(line) for line in strict_mode_problems(spec.input_schema)]
        schema_cell = (
            f"changed ({len(changes)}): " + "; ".join(changes) if changes else "as written"
        )
    elif name_ok:
        schema_cell = openai_verdict
    else:
        schema_cell = "not exported (name refused)"
    hints = f"kept ({len(spec.annotations.to_mcp())} hints)"
    has_output = spec.output_schema is not None
    rows = [
        ("tool object", "name, description, input_schema",
         "type: function; function: name, description, parameters, strict",
         "name, title, description, inputSchema, outputSchema?, annotations"),
        ("name rule", "1-64 of A-Za-z0-9_-", "1-64 of A-Za-z0-9_-", "1-128 of A-Za-z0-9_.-"),
        ("this name", anthropic_name,
         "accepted" if name_ok else "refused: not 1-64 of A-Za-z0-9_-", "accepted"),
        ("title", "dropped (no field)", "dropped (no field)", "title"),
        ("argument schema at", "input_schema", "function.parameters", "inputSchema"),
        ("argument schema", "as written" if anthropic is not None else "not exported",
         schema_cell, "as written"),
        ("result schema", "dropped (no field)" if has_output else "none declared",
         "dropped (no field)" if has_output else "none declared",
         "outputSchema" if has_output else "none declared"),
        ("annotations", "dropped (no field)", "dropped (no field)", hints),
        ("decoding", "free (ToolParam.strict not set)", "strict: true (schema enforced)",
         "decided by the client's model API"),
    ]  # fmt: skip
    return [{"aspect": a, "anthropic": b, "openai_strict": c, "mcp": d} for a, b, c, d in rows]


def format_comparison(rows: list[dict[str, str]], max_width: int = 100) -> str:
    """``rows`` of :func:`compare_exports` as a plain-text table at most ``max_width``
    columns wide; long cells are wrapped (the cells are ASCII: one character, one column)."""
    columns = ["aspect", "anthropic", "openai_strict", "mcp"]
    aspect = max(len("aspect"), *(len(r["aspect"]) for r in rows))
    width = max(12, (max_width - aspect - 3 * len(" | ")) // 3)
    widths = {c: min(width, max(len(c), *(len(r[c]) for r in rows))) for c in columns}
    widths["aspect"] = aspect

    def render(cells: dict[str, str]) -> list[str]:
        wrapped = {c: textwrap.wrap(cells[c], widths[c]) or [""] for c in columns}
        height = max(len(w) for w in wrapped.values())
        return [
            " | ".join(
                (wrapped[c][i] if i < len(wrapped[c]) else "").ljust(widths[c]) for c in columns
            ).rstrip()
            for i in range(height)
        ]

    header = render({c: c for c in columns})
    rule = "-+-".join("-" * widths[c] for c in columns)
    lines = [*header, rule]
    for row in rows:
        lines += render(row)
    return "\n".join(lines)
