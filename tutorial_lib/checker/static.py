"""The static checks: what the tool list says, before any call.

:func:`static_findings` reads the tools as the server lists them (MCP wire form,
``{"name", "description", "inputSchema", "annotations", ...}``) and reports:

- the course's linter (:func:`tutorial_lib.design.lint.lint`): names, descriptions,
  near-duplicates, units in names, closed argument objects. Each tool is first made a
  :class:`~tutorial_lib.core.tools.ToolSpec` (:func:`to_spec`); one that cannot be (a
  name outside MCP's rule, no description, a non-object schema) gets a finding instead;
- schema strictness, on every property at any depth: ``required`` declared and naming
  declared properties, a description and a type for each property, bounds (minimum and
  maximum, maxLength, maxItems), an ``enum`` where the description lists the values, and
  a schema valid in its own dialect;
- annotations: present (at least ``readOnlyHint``), every hint that matters written out,
  and consistent (not read-only and destructive at once; a delete is destructive);
- exports: the tool as an Anthropic tool, an OpenAI strict function and an MCP tool
  (:mod:`tutorial_lib.design.exports`), each validated with the SDK's own types where
  they are installed (``mcp`` always; ``anthropic`` and ``openai`` are the course's test
  extras) and with JSON Schema's meta-schema; what strict mode cannot enforce is listed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import mcp_types
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

from tutorial_lib.checker.report import Finding
from tutorial_lib.checker.rules import RULES, severity_of
from tutorial_lib.core.tools import NAME_PATTERN, Annotations, ToolSpec
from tutorial_lib.design import exports
from tutorial_lib.design.lint import describes_side_effect, iter_subschemas, lint, name_tokens

__all__ = [
    "DESTRUCTIVE_WORDS",
    "describe_orders",
    "hints_of",
    "instructs_model",
    "lists_choices",
    "model_orders",
    "pattern_bounds_length",
    "reachable_definitions",
    "static_findings",
    "suspected_write",
    "to_spec",
]

#: Words of a tool name that mean a destructive write.
DESTRUCTIVE_WORDS = frozenset(
    ["delete", "remove", "destroy", "erase", "drop", "purge", "overwrite", "wipe", "truncate"]
)
#: Two or more quoted words joined by commas, "or" or "|": 'open', 'closed' or 'all'.
_QUOTED_CHOICES = re.compile(
    r"(['\"])[A-Za-z][\w-]{1,30}\1(?:\s*(?:,|\bor\b|\|)\s*(['\"])[A-Za-z][\w-]{1,30}\2)+"
)
#: The end of a sentence or clause (not the dots of "e.g." or "i.e.").
_SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)\.\s|;\s|\n")
#: Words that present what follows as examples, not as the allowed values.
_EXAMPLE_CUE = re.compile(
    r"\be\.g\.|\bfor (?:example|instance)\b|\bsuch as\b|\blike\b|\bexamples?\b"
    r"|\b(?:good|bad)\b[^:.]{0,30}:",
    re.IGNORECASE,
)


def pattern_bounds_length(pattern: object) -> bool:
    """Whether a ``pattern`` caps the length of what it matches: anchored at both ends
    (``^...$``) with no unbounded repetition (``*``, ``+``, ``{n,}``)."""
    if not isinstance(pattern, str) or not pattern.startswith("^") or not pattern.endswith("$"):
        return False
    if pattern.endswith("\\$"):
        return False
    bare = re.sub(r"\\.", "", pattern)
    return not re.search(r"[*+]|\{\d*,\}", bare)


def lists_choices(description: str) -> bool:
    """Whether a description lists allowed values: quoted words joined by commas, "or" or
    "|" (``'open' or 'closed'``), not given as examples anywhere in their sentence
    (``e.g. 'lib' or 'src'``, ``Good: 'x' or 'y'``)."""
    for match in _QUOTED_CHOICES.finditer(description):
        before = description[: match.start()]
        ends = [m.end() for m in _SENTENCE_END.finditer(before)]
        if not _EXAMPLE_CUE.search(before[ends[-1] if ends else 0 :]):
            return True
    return False


def _finding(tool: str, rule: str, message: str, fix: str = "", **case: bool) -> Finding:
    return Finding(
        tool=tool,
        rule=rule,
        severity=severity_of(rule, **case),
        message=message,
        chapter=RULES[rule].chapter,
        fix=fix,
    )


def hints_of(tool: Mapping[str, Any]) -> dict[str, bool]:
    """The annotation hints the tool declares (only those it declares)."""
    annotations = tool.get("annotations") or {}
    keys = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    return {k: annotations[k] for k in keys if isinstance(annotations.get(k), bool)}


def to_spec(tool: Mapping[str, Any]) -> ToolSpec:
    """``tool`` (MCP wire form) as a :class:`ToolSpec`, MCP's defaults for missing hints;
    raises ``ValueError`` for what a ToolSpec refuses (name, description, schema)."""
    hints = hints_of(tool)
    annotations = tool.get("annotations") or {}
    return ToolSpec(
        name=str(tool.get("name", "")),
        title=str(tool.get("title") or annotations.get("title") or tool.get("name", "")),
        description=str(tool.get("description") or ""),
        input_schema=dict(tool.get("inputSchema") or {}),
        annotations=Annotations(
            read_only=hints.get("readOnlyHint", False),
            destructive=hints.get("destructiveHint", True),
            idempotent=hints.get("idempotentHint", False),
            open_world=hints.get("openWorldHint", True),
        ),
        output_schema=tool.get("outputSchema"),
    )


def suspected_write(findings: Iterable[Finding], tool: str) -> bool:
    """Whether the static findings say ``tool`` is annotated read-only but reads as a
    write (``write_not_marked`` at ``error``): the checker then calls it only as a write."""
    return any(
        f.tool == tool and f.rule == "write_not_marked" and f.severity == "error" for f in findings
    )


# -- the tool itself -------------------------------------------------------------------


def _basics(tool: Mapping[str, Any]) -> list[Finding]:
    name = str(tool.get("name", ""))
    found = []
    if not NAME_PATTERN.fullmatch(name):
        found.append(
            _finding(
                name,
                "tool_name_invalid",
                f"the name {name!r} is not 1-128 characters of A-Za-z0-9_.-; no client can"
                " rely on it and the course's ToolSpec refuses it, so the linter and exports"
                " were skipped",
                "Rename it, e.g. 'files_read', 'github_pr_get'.",
            )
        )
    if not str(tool.get("description") or "").strip():
        found.append(
            _finding(
                name,
                "description_missing",
                "the tool has no description: a model picks a tool and fills its"
                " arguments from the description",
                "Say what it does, on what, how much, and what it returns.",
            )
        )
    found += _instructions(name, tool)
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict) or schema.get("type") != "object":
        found.append(
            _finding(
                name,
                "input_schema_not_object",
                "inputSchema is not a JSON Schema of type 'object' (MCP requires one)",
                'Declare {"type": "object", "properties": {...}, "required": [...],'
                ' "additionalProperties": false}.',
            )
        )
    for label in ("inputSchema", "outputSchema"):
        value = tool.get(label)
        if not isinstance(value, dict):
            continue
        try:
            validator_for(value, default=Draft202012Validator).check_schema(value)
        except SchemaError as error:
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            found.append(
                _finding(
                    name,
                    "schema_invalid",
                    f"{label} is not a valid JSON Schema at {where}: {error.message}",
                    "Fix the schema; validators and SDKs may refuse or misread it.",
                )
            )
    return found


# -- tool poisoning ----------------------------------------------------------------------

#: Phrases that give the model orders instead of describing the tool (chapter 06: content
#: is data): override its instructions, hide things from the user, reach its prompt.
_ORDERS = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+)?"
    r"(?:previous|prior|earlier|above|other|system)\s+(?:instructions|prompts?|rules)\b"
    r"|\bdo\s+not\s+(?:tell|inform|mention\s+(?:this|it)\s+to|show\s+(?:this|it)\s+to)"
    r"\s+the\s+user\b"
    r"|\bwithout\s+(?:telling|informing)\s+the\s+user\b"
    r"|\b(?:reveal|send|include)\s+(?:your|the)\s+(?:system\s+prompt|instructions)\b"
    r"|</?(?:system|instructions?|secret|important)>",
    re.IGNORECASE,
)
#: Characters a person does not see but a model reads: zero-width, direction controls,
#: Unicode tags (U+E0000 block: ASCII written invisibly).
_INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)


def model_orders(text: str) -> list[str]:
    """The pieces of ``text`` that address the model instead of describing or answering:
    each invisible character, then each order, as written; [] when nothing does."""
    return _INVISIBLE.findall(text) + [m.group(0) for m in _ORDERS.finditer(text)]


def describe_orders(pieces: list[str]) -> str:
    """:func:`model_orders`' pieces for a report: invisible characters as code points
    (a person sees nothing otherwise), the first order quoted."""
    invisible = [p for p in pieces if _INVISIBLE.fullmatch(p)]
    if invisible:
        codes = ", ".join(dict.fromkeys(f"U+{ord(c):04X}" for c in invisible))
        return f"{len(invisible)} invisible character(s) ({codes[:80]})"
    return f"'{pieces[0]}'"


def instructs_model(text: str) -> str | None:
    """What in ``text`` addresses the model instead of describing or answering: the
    invisible characters (as code points) or the order, quoted; None when nothing does."""
    pieces = model_orders(text)
    return describe_orders(pieces) if pieces else None


def _texts(tool: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    """Every text of a tool a model reads: its description and each property's."""
    yield "the description", str(tool.get("description") or "")
    schema = tool.get("inputSchema")
    if isinstance(schema, dict):
        for path, node in iter_subschemas(schema):
            text = node.get("description")
            if isinstance(text, str) and path:
                yield f"the description of '{_label(path)}'", text


def _instructions(name: str, tool: Mapping[str, Any]) -> list[Finding]:
    for where, text in _texts(tool):
        found = instructs_model(text)
        if found is not None:
            return [
                _finding(
                    name,
                    "description_instructs_model",
                    f"{where} addresses the model instead of describing the tool: {found}"
                    " (tool poisoning: a client shows the user the name, the model reads"
                    " every word and character)",
                    "Describe what the tool does, on what, and what it returns, in plain"
                    " text a person can review; never address the model's other"
                    " instructions or the user.",
                )
            ]
    return []


# -- schema strictness -------------------------------------------------------------------


def _types(schema: Mapping[str, Any]) -> set[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared}
    if isinstance(declared, list):
        return {t for t in declared if isinstance(t, str)}
    return set()


def _label(path: str) -> str:
    parts = path.split(".")
    names = []
    for index, part in enumerate(parts[:-1]):
        if part == "properties":
            names.append(parts[index + 1])
        elif part == "items" and index and parts[index - 1] != "properties":
            names.append("[]")
    if parts[-1] == "items":
        names.append("[]")
    return ".".join(names).replace(".[]", "[]") or "(root)"


def _properties(schema: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(path, label, schema) of every property at any depth, and every array's items."""
    found = []
    for path, node in iter_subschemas(schema):
        parts = path.split(".")
        if len(parts) >= 2 and parts[-2] == "properties" or parts[-1] == "items":
            found.append((path, _label(path), node))
    return found


def _has_description(node: Mapping[str, Any]) -> bool:
    """A description of its own, or on a branch of its ``anyOf`` / ``oneOf`` / ``allOf``
    (the model reads it there)."""
    if str(node.get("description") or "").strip():
        return True
    for key in ("anyOf", "oneOf", "allOf"):
        branches = node.get(key)
        if isinstance(branches, list) and any(
            isinstance(b, dict) and str(b.get("description") or "").strip() for b in branches
        ):
            return True
    return False


def _described_by_parent(path: str, label: str, nodes: Mapping[str, dict[str, Any]]) -> bool:
    """Whether the object holding the property at ``path`` describes it by name."""
    if path.split(".")[-2:-1] != ["properties"]:
        return False  # an array's items: no parent object
    parent = nodes.get(path.rsplit(".properties.", 1)[0] if ".properties." in path else "", {})
    text = str(parent.get("description") or "")
    return bool(text) and _described_in_tool(label, text)


def _joined(labels: Sequence[str | tuple[str, str]]) -> str:
    shown = ", ".join(
        f"'{label[0]}' ({label[1]})" if isinstance(label, tuple) else f"'{label}'"
        for label in labels[:8]
    )
    return shown + (f" and {len(labels) - 8} more" if len(labels) > 8 else "")


def _strictness(name: str, schema: Mapping[str, Any], tool_description: str = "") -> list[Finding]:
    found: list[Finding] = []
    for path, node in iter_subschemas(schema):
        props = node.get("properties")
        if not isinstance(props, dict):
            continue
        where = "the root object" if not path else f"the object at '{_label(path)}'"
        if "required" not in node and props:
            found.append(
                _finding(
                    name,
                    "required_not_declared",
                    f"{where} declares {len(props)} properties but no 'required': a model"
                    " cannot tell which arguments it must send",
                    'List the required ones: "required": ["path"] (or [] when none is).',
                )
            )
        required = node.get("required")
        required = required if isinstance(required, list) else []
        unknown = [r for r in required if r not in props]
        if unknown:
            found.append(
                _finding(
                    name,
                    "required_names_undeclared",
                    f"{where} requires {_joined(unknown)}, which it does not declare: no"
                    " call can both satisfy 'required' and be understood",
                    "Declare those properties, or take them out of 'required'.",
                )
            )
    undescribed: list[str] = []
    untyped: list[str] = []
    numbers: list[tuple[str, str]] = []
    strings: list[str] = []
    arrays: list[str] = []
    enums: list[str] = []
    nodes = dict(iter_subschemas(schema))
    for path, label, node in _properties(schema):
        types = _types(node)
        is_item = label.endswith("[]")
        if (
            not is_item
            and not _has_description(node)
            and "$ref" not in node
            and not _described_in_tool(label, tool_description)
            and not _described_by_parent(path, label, nodes)
        ):
            undescribed.append(label)
        typing_keys = ("enum", "const", "anyOf", "oneOf", "$ref", "allOf", "not", "if")
        if not types and not any(k in node for k in typing_keys):
            untyped.append(label)
        closed = "enum" in node or "const" in node
        if types & {"integer", "number"} and not closed:
            low = "minimum" in node or "exclusiveMinimum" in node
            high = "maximum" in node or "exclusiveMaximum" in node
            if not (low and high):
                missing = [word for word, ok in (("minimum", low), ("maximum", high)) if not ok]
                numbers.append((label, "no " + " and no ".join(missing)))
        bounded = node.get("format") in ("date-time", "date", "time", "uuid", "email") or (
            pattern_bounds_length(node.get("pattern"))
        )
        if "string" in types and not closed and "maxLength" not in node and not bounded:
            strings.append(label)
        if "array" in types and "maxItems" not in node:
            arrays.append(label)
        description = str(node.get("description") or "")
        if "string" in types and not closed and lists_choices(description):
            enums.append(label)
    rows = (
        ("property_undescribed", undescribed, "{labels} {verb} no description: the model"
         " guesses what to send from the name alone", "Describe each argument: meaning,"
         " unit, an example value."),
        ("property_type_missing", untyped, "{labels} {verb} no type: any JSON value passes"
         " the schema", 'Give each argument a type: "type": "string", "integer", ...'),
        ("number_unbounded", numbers, "the numbers {labels} accept values a model should"
         " not send (0, -1, 10**9) and the tool sees them",
         'Bound them: "minimum": 1, "maximum": 100.'),
        ("string_unbounded", strings, "the strings {labels} have no maxLength: a megabyte of"
         " text reaches the tool", 'Bound them: "maxLength": 4096 (or an enum or a format).'),
        ("array_unbounded", arrays, "the arrays {labels} have no maxItems: one call can"
         " carry any number of items", 'Bound them: "maxItems": 50.'),
        ("enum_missing", enums, "the descriptions of {labels} list allowed values, but the"
         " schema does not: any string passes", 'Declare them: "enum": ["open", "closed"].'),
    )  # fmt: skip
    for rule, labels, text, fix in rows:
        if labels:
            verb = "has" if len(labels) == 1 else "have"
            found.append(_finding(name, rule, text.format(labels=_joined(labels), verb=verb), fix))
    return found


# -- annotations --------------------------------------------------------------------------


def _annotations(tool: Mapping[str, Any]) -> list[Finding]:
    name = str(tool.get("name", ""))
    hints = hints_of(tool)
    found: list[Finding] = []
    if "readOnlyHint" not in hints and hints.get("destructiveHint") is not True:
        found.append(
            _finding(
                name,
                "annotations_missing",
                "no readOnlyHint: clients assume MCP's defaults (it may write, destroy, and"
                " reach the outside world), and the checker calls it only as a write",
                'Declare all four: {"readOnlyHint": ..., "destructiveHint": ...,'
                ' "idempotentHint": ..., "openWorldHint": ...}.',
            )
        )
        return found
    read_only = hints.get("readOnlyHint", False)  # destructiveHint true: a declared write
    needed = ["openWorldHint"] if read_only else [
        "destructiveHint", "idempotentHint", "openWorldHint"
    ]  # fmt: skip
    missing = [h for h in needed if h not in hints]
    if missing:
        defaults = {"destructiveHint": "true", "idempotentHint": "false", "openWorldHint": "true"}
        shown = ", ".join(f"{h} (default {defaults[h]})" for h in missing)
        found.append(
            _finding(
                name,
                "annotation_hints_incomplete",
                f"the hints {shown} are not written out: clients assume the pessimistic defaults",
                "Write out every hint that applies to the tool.",
            )
        )
    words = set(name_tokens(name))
    if read_only and hints.get("destructiveHint") is True:
        found.append(
            _finding(
                name,
                "annotations_contradict",
                "readOnlyHint is true and destructiveHint is true: a read cannot destroy",
                "Decide: a read (destructiveHint false) or a write (readOnlyHint false).",
            )
        )
    destructive = sorted(words & DESTRUCTIVE_WORDS)
    if not read_only and destructive and hints.get("destructiveHint") is False:
        found.append(
            _finding(
                name,
                "annotations_contradict",
                f"the name says '{destructive[0]}', but destructiveHint is false: clients"
                " may run it without the confirmation a destructive write needs",
                "Mark it destructiveHint: true.",
            )
        )
    return found


# -- exports -------------------------------------------------------------------------------


@functools.cache
def _sdk_adapters() -> dict[str, Any]:
    """Pydantic adapters of the model SDKs' tool types, for those that are installed
    (built once per process: importing the two SDKs takes seconds)."""
    adapters: dict[str, Any] = {}
    try:
        from pydantic import TypeAdapter
    except ImportError:  # pragma: no cover - pydantic comes with mcp
        return adapters
    try:
        from anthropic.types import ToolParam

        adapters["anthropic"] = TypeAdapter(ToolParam)
    except ImportError:
        pass
    try:
        from openai.types.chat import ChatCompletionToolParam

        adapters["openai_strict"] = TypeAdapter(ChatCompletionToolParam)
    except ImportError:
        pass
    return adapters


def _exports(spec: ToolSpec, adapters: Mapping[str, Any]) -> list[Finding]:
    found: list[Finding] = []
    targets = {
        "anthropic": ("the Anthropic Messages API", exports.to_anthropic, "input_schema"),
        "openai_strict": ("OpenAI strict mode", exports.to_openai, "parameters"),
        "mcp": ("MCP", exports.to_mcp, "inputSchema"),
    }
    for target, (label, export, schema_key) in targets.items():
        try:
            tool = export(spec)
        except exports.ExportError as error:
            found.append(
                _finding(
                    spec.name,
                    "export_refused",
                    f"{label} cannot take this tool: " + "; ".join(error.problems),
                    "Keep names to 1-64 of A-Za-z0-9_- and schemas inside strict mode's"
                    " subset (no allOf/not/if, closed objects).",
                )
            )
            continue
        problems = []
        if target == "mcp":
            try:
                model = mcp_types.Tool.model_validate(tool, strict=True)
                if model.model_dump(mode="json", by_alias=True, exclude_none=True) != tool:
                    problems.append("the SDK's Tool model does not give the export back")
            except Exception as error:
                problems.append(f"mcp_types.Tool refuses it: {str(error).splitlines()[0]}")
        elif target in adapters:
            try:
                if adapters[target].validate_python(tool, strict=True) != tool:
                    problems.append("the SDK's type does not give the export back")
            except Exception as error:
                problems.append(f"the SDK's type refuses it: {str(error).splitlines()[0]}")
        schema = (
            tool.get("function", {}).get(schema_key)
            if target == "openai_strict"
            else (tool.get(schema_key))
        )
        try:
            Draft202012Validator.check_schema(schema if isinstance(schema, dict) else {})
        except SchemaError as error:
            problems.append(f"its schema fails the 2020-12 meta-schema: {error.message}")
        if problems:
            found.append(
                _finding(
                    spec.name,
                    "export_invalid",
                    f"the {label} export is not valid: " + "; ".join(problems),
                    "Fix the declaration so that every format can carry it unchanged.",
                )
            )
    try:
        changes = exports.strict_mode_problems(spec.input_schema)
    except Exception:  # a schema the walk cannot read: export_refused says enough
        changes = []
    moved = sorted(
        {
            keyword.strip()
            for line in changes
            if "moved into the description" in line
            for keyword in line.split(": ", 1)[1].split(" not in the strict subset")[0].split(",")
            if not keyword.strip().startswith("default")
        }
    )
    if moved:
        found.append(
            _finding(
                spec.name,
                "export_constraints_moved",
                f"OpenAI strict mode cannot enforce {', '.join(moved)}: the export moves them"
                " into the description, so the tool's own validation must still check them",
                "Nothing to change if the tool validates every call itself.",
            )
        )
    return found


# -- all of it ----------------------------------------------------------------------------


def reachable_definitions(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with only the ``$defs`` / ``definitions`` its arguments reach by ``$ref``
    (transitively): a server that ships one block of definitions with every tool asks no
    model to send the ones a tool never uses."""
    pruned = dict(schema)
    keys = [k for k in ("$defs", "definitions") if isinstance(schema.get(k), dict)]
    if not keys:
        return pruned
    for key in keys:
        pruned.pop(key)
    wanted: dict[str, set[str]] = {key: set() for key in keys}
    todo: list[Any] = [pruned]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                for key in keys:
                    prefix = f"#/{key}/"
                    if ref.startswith(prefix):
                        name = ref[len(prefix) :].split("/")[0]
                        if name not in wanted[key] and name in schema[key]:
                            wanted[key].add(name)
                            todo.append(schema[key][name])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    for key in keys:
        if wanted[key]:
            pruned[key] = {name: schema[key][name] for name in sorted(wanted[key])}
    return pruned


def _described_in_tool(name: str, description: str) -> bool:
    """Whether the tool's description names the argument ``name`` (``scrapeId`` as a
    word, in backticks, or ``scrape id``): the model is told about it there."""
    last = name.split(".")[-1].removesuffix("[]")
    if not last:
        return False
    words = " ".join(name_tokens(last))
    pattern = rf"(?<![\w]){re.escape(last)}(?![\w])|\b{re.escape(words)}\b"
    return re.search(pattern, description, re.IGNORECASE) is not None


def static_findings(tools: Sequence[Mapping[str, Any]]) -> list[Finding]:
    """Every static finding of the tool list (see the module), unsorted."""
    found: list[Finding] = []
    specs: list[ToolSpec] = []
    tools = [
        {**tool, "inputSchema": reachable_definitions(tool["inputSchema"])}
        if isinstance(tool.get("inputSchema"), dict)
        else tool
        for tool in tools
    ]
    for tool in tools:
        basics = _basics(tool)
        found += basics
        schema = tool.get("inputSchema")
        if isinstance(schema, dict):
            found += _strictness(
                str(tool.get("name", "")), schema, str(tool.get("description") or "")
            )
        found += _annotations(tool)
        if any(f.rule in ("tool_name_invalid", "description_missing") for f in basics):
            continue
        if any(f.rule == "input_schema_not_object" for f in basics):
            continue
        try:
            specs.append(to_spec(tool))
        except ValueError as error:
            found.append(
                _finding(
                    str(tool.get("name", "")),
                    "input_schema_not_object",
                    f"the course's ToolSpec refuses the tool: {error}",
                )
            )
    annotated = {spec.name: spec.annotations.read_only for spec in specs}
    descriptions = {spec.name: spec.description for spec in specs}
    for item in lint(specs):
        if (
            item.rule == "write_not_marked"
            and annotated.get(item.tool)
            and not describes_side_effect(descriptions.get(item.tool, ""))
        ):
            # annotated read-only, a description that writes nothing: only a verb of the
            # name says otherwise, and names mislead ('resolve' a library id reads)
            continue
        found.append(
            _finding(
                item.tool,
                item.rule,
                item.message,
                item.fix,
                annotated_read_only=annotated.get(item.tool, False),
            )
        )
    adapters = _sdk_adapters()
    for spec in specs:
        found += _exports(spec, adapters)
    return found
