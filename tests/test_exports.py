"""Exports to Anthropic, OpenAI (strict) and MCP, checked against the SDKs' own types, offline.

The SDKs are test dependencies: ``anthropic.types.ToolParam``,
``openai.types.chat.ChatCompletionToolParam`` (with ``FunctionDefinition``) are TypedDicts,
validated with pydantic's ``TypeAdapter`` in strict mode; ``mcp.types.Tool`` is a pydantic
model. TypedDicts and MCP models ignore unknown keys, so every test also checks that the
validated value equals the export: a misspelt key would vanish and fail that comparison.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from typing import Any

import pytest
from anthropic.types import ToolParam
from anthropic.types.tool_param import InputSchemaTyped
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from mcp.types import Tool
from openai.types.chat import ChatCompletionToolParam
from openai.types.shared_params import FunctionDefinition
from pydantic import TypeAdapter

from tutorial_lib.core.tools import NAME_PATTERN, Annotations, ToolSpec
from tutorial_lib.course.chapters.ch02_tool_set.demos import GOOD_TOOLSET
from tutorial_lib.design.exports import (
    TARGETS,
    ExportError,
    compare_exports,
    format_comparison,
    from_strict_arguments,
    make_strict,
    strict_mode_problems,
    to_anthropic,
    to_mcp,
    to_openai,
    tool_list_json,
)
from tutorial_lib.workspace.read import READ_LINES_SPEC
from tutorial_lib.workspace.read_schema import (
    MAX_COUNT,
    MAX_PATH_CHARS,
    MAX_START,
    READ_LINES_SCHEMA,
)

ANTHROPIC_TOOL = TypeAdapter(ToolParam)
ANTHROPIC_SCHEMA = TypeAdapter(InputSchemaTyped)
OPENAI_TOOL = TypeAdapter(ChatCompletionToolParam)
OPENAI_FUNCTION = TypeAdapter(FunctionDefinition)
IDS = [spec.name for spec in GOOD_TOOLSET]


def check_anthropic(tool: dict[str, Any]) -> None:
    assert ANTHROPIC_TOOL.validate_python(tool, strict=True) == tool
    # ToolParam.input_schema is Union[InputSchemaTyped, Dict[str, object]]: any dict would
    # pass, so check the typed branch (type "object" at the root) explicitly.
    ANTHROPIC_SCHEMA.validate_python(tool["input_schema"], strict=True)
    Draft202012Validator.check_schema(tool["input_schema"])


def check_openai(tool: dict[str, Any]) -> None:
    assert OPENAI_TOOL.validate_python(tool, strict=True) == tool
    assert OPENAI_FUNCTION.validate_python(tool["function"], strict=True) == tool["function"]
    Draft202012Validator.check_schema(tool["function"]["parameters"])


def check_mcp(tool: dict[str, Any]) -> Tool:
    model = Tool.model_validate(tool, strict=True)
    assert model.model_dump(mode="json", by_alias=True, exclude_none=True) == tool
    Draft202012Validator.check_schema(tool["inputSchema"])
    return model


def spec_with(schema: dict[str, Any], name: str = "files_stat") -> ToolSpec:
    return ToolSpec(name=name, title="t", description="d", input_schema=schema)


# ------------------------------------------------------------------ each format, each spec


@pytest.mark.parametrize("spec", GOOD_TOOLSET, ids=IDS)
def test_anthropic_export_validates(spec):
    tool = to_anthropic(spec)
    check_anthropic(tool)
    assert set(tool) == {"name", "description", "input_schema"}
    assert tool["input_schema"] == spec.input_schema  # as written


@pytest.mark.parametrize("spec", GOOD_TOOLSET, ids=IDS)
def test_openai_strict_export_validates(spec):
    tool = to_openai(spec)
    check_openai(tool)
    assert tool["type"] == "function" and tool["function"]["strict"] is True
    assert set(tool["function"]) == {"name", "description", "parameters", "strict"}
    assert strict_mode_problems(tool["function"]["parameters"]) == []


@pytest.mark.parametrize("spec", GOOD_TOOLSET, ids=IDS)
def test_openai_non_strict_export_keeps_the_schema(spec):
    tool = to_openai(spec, strict=False)
    check_openai(tool)
    assert tool["function"]["strict"] is False
    assert tool["function"]["parameters"] == spec.input_schema


@pytest.mark.parametrize("spec", GOOD_TOOLSET, ids=IDS)
def test_mcp_export_validates(spec):
    tool = to_mcp(spec)
    model = check_mcp(tool)
    assert model.title == spec.title
    assert model.annotations is not None
    hints = model.annotations
    assert (
        hints.read_only_hint,
        hints.destructive_hint,
        hints.idempotent_hint,
        hints.open_world_hint,
    ) == (
        spec.annotations.read_only,
        spec.annotations.destructive,
        spec.annotations.idempotent,
        spec.annotations.open_world,
    )
    assert model.output_schema == spec.output_schema


def test_exports_never_share_or_mutate_the_spec():
    before = copy.deepcopy(READ_LINES_SPEC.input_schema)
    for tool in (to_anthropic(READ_LINES_SPEC), to_mcp(READ_LINES_SPEC)):
        schema = tool.get("input_schema") or tool["inputSchema"]
        schema["properties"]["path"]["minLength"] = 99
    to_openai(READ_LINES_SPEC)["function"]["parameters"]["required"].clear()
    make_strict(READ_LINES_SCHEMA)
    assert READ_LINES_SPEC.input_schema == before == READ_LINES_SCHEMA


def test_mcp_validation_would_catch_a_wrong_key():
    tool = to_mcp(READ_LINES_SPEC)
    tool["input_schema"] = tool.pop("inputSchema")  # snake_case is not the wire form
    model = Tool.model_validate(tool, strict=True)  # accepted by name...
    with pytest.raises(AssertionError):  # ...but the round trip shows the difference
        assert model.model_dump(mode="json", by_alias=True, exclude_none=True) == tool


# ------------------------------------------------------------------ strict mode


def test_strict_mode_on_read_lines_exactly():
    """What strict mode does to read_lines' schema, in full."""
    props = READ_LINES_SCHEMA["properties"]
    conversion = make_strict(READ_LINES_SCHEMA)
    assert conversion.schema == {
        # "$schema" is gone: schema metadata, not in the subset
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                # minLength 1 and maxLength 4096 leave the schema for the description
                "pattern": "\\S",  # kept: pattern is documented as supported
                "description": props["path"]["description"]
                + f" Must also satisfy: minLength=1, maxLength={MAX_PATH_CHARS}.",
            },
            "start": {  # unchanged: integer bounds are in the subset
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_START,
                "description": props["start"]["description"],
            },
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_COUNT,
                "description": props["count"]["description"],
            },
        },
        "required": ["path", "start", "count"],  # already all required
        "additionalProperties": False,  # already closed
    }
    assert conversion.changes == (
        "(root): '$schema' (schema metadata) is not in the strict subset -> dropped",
        "properties.path: minLength, maxLength not in the strict subset"
        " -> moved into the description",
    )
    assert strict_mode_problems(READ_LINES_SCHEMA) == list(conversion.changes)
    assert strict_mode_problems(conversion.schema) == []
    assert to_openai(READ_LINES_SPEC)["function"]["parameters"] == conversion.schema


def test_strict_schema_accepts_what_the_original_accepts_for_read_lines():
    strict = Draft202012Validator(make_strict(READ_LINES_SCHEMA).schema)
    original = Draft202012Validator(READ_LINES_SCHEMA)
    for args in [
        {"path": "notes.txt", "start": 1, "count": 2},
        {"path": "notes.txt", "start": 0, "count": 2},
        {"path": "notes.txt", "start": 1, "count": 2, "extra": 1},
    ]:
        assert strict.is_valid(args) == original.is_valid(args)
    # what moved into the description is no longer enforced by the schema
    assert not original.is_valid({"path": "", "start": 1, "count": 2})
    assert not strict.is_valid({"path": "", "start": 1, "count": 2})  # pattern \S still holds
    long_path = {"path": "a" * (MAX_PATH_CHARS + 1), "start": 1, "count": 2}
    assert not original.is_valid(long_path) and strict.is_valid(long_path)


def test_optional_fields_become_required_and_nullable():
    spec = next(s for s in GOOD_TOOLSET if s.name == "github_pr_list_comments")
    strict = to_openai(spec)["function"]["parameters"]
    assert spec.input_schema["required"] == ["repository", "pr"]
    assert strict["required"] == [
        "repository",
        "pr",
        "cursor",
        "page_size",
        "response_format",
        "filter",
    ]
    page_size = strict["properties"]["page_size"]
    assert page_size["type"] == ["integer", "null"]
    assert "default" not in page_size
    assert page_size["description"].endswith(
        "Default: 10. Null means not given: the default applies."
    )
    assert strict["properties"]["cursor"]["description"].endswith("Null means not given.")
    problems = strict_mode_problems(spec.input_schema)
    assert (
        "properties.page_size: optional, but strict mode requires every property in 'required'"
        " -> now required and nullable (null means 'not given')"
    ) in problems
    assert (
        "properties.filter: default is not in the strict subset -> moved into the description"
        in problems
    )
    # a call as a strict model makes it, and back
    strict_validator = Draft202012Validator(strict)
    original_validator = Draft202012Validator(spec.input_schema)
    sent = {
        "repository": "example/shop",
        "pr": 128,
        "cursor": None,
        "page_size": None,
        "response_format": None,
        "filter": "unresolved",
    }
    assert strict_validator.is_valid(sent)
    assert not original_validator.is_valid(sent)  # the tool itself refuses the nulls...
    restored = from_strict_arguments(spec, sent)
    assert restored == {"repository": "example/shop", "pr": 128, "filter": "unresolved"}
    assert original_validator.is_valid(restored)  # ...until they are dropped again
    assert not strict_validator.is_valid({"repository": "example/shop", "pr": 128})


def test_nullable_forms():
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "kind": {"enum": ["a", "b"]},
            "flag": {"const": True},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "ref": {"$ref": "#/$defs/point"},
            "maybe": {"type": ["string", "null"]},
        },
        "$defs": {
            "point": {
                "type": "object",
                "properties": {"x": {"type": "number"}},
                "required": ["x"],
                "additionalProperties": False,
            }
        },
        "additionalProperties": False,
    }
    strict = make_strict(schema).schema
    props = strict["properties"]
    assert props["kind"]["enum"] == ["a", "b", None]
    assert props["flag"]["enum"] == [True, None]
    assert props["either"]["anyOf"][-1] == {"type": "null"}
    assert props["ref"]["anyOf"] == [{"$ref": "#/$defs/point"}, {"type": "null"}]
    assert props["maybe"]["type"] == ["string", "null"]
    assert strict["required"] == list(schema["properties"])
    assert strict_mode_problems(strict) == []
    validator = Draft202012Validator(strict)
    assert validator.is_valid({k: None for k in props})
    assert validator.is_valid(
        {"kind": "a", "flag": True, "either": 3, "ref": {"x": 1}, "maybe": "m"}
    )
    spec = spec_with(schema)
    sent = {"kind": None, "flag": None, "either": None, "ref": None, "maybe": None}
    assert from_strict_arguments(spec, sent) == {"maybe": None}  # null was allowed there


def test_transformations_that_keep_meaning():
    schema = {
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "site": {"type": "string", "format": "uri"},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "shape": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "options": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
        },
        "required": ["when", "site", "tags", "shape", "options"],
    }
    conversion = make_strict(schema)
    props = conversion.schema["properties"]
    assert props["when"]["format"] == "date-time"
    assert "format" not in props["site"]
    assert props["site"]["description"] == 'Must also satisfy: format="uri".'
    assert "uniqueItems" not in props["tags"]
    assert "anyOf" in props["shape"] and "oneOf" not in props["shape"]
    assert conversion.schema["additionalProperties"] is False
    assert props["options"]["additionalProperties"] is False
    assert props["options"]["required"] == ["deep"]
    assert props["options"]["properties"]["deep"]["type"] == ["boolean", "null"]
    assert strict_mode_problems(conversion.schema) == []
    assert len(conversion.changes) == len(strict_mode_problems(schema)) == 6


def _nest(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {
            "type": "object",
            "properties": {"x": schema},
            "required": ["x"],
            "additionalProperties": False,
        }
    return schema


REFUSED = {
    "allOf": {"allOf": [{"type": "string"}, {"minLength": 1}]},
    "not": {"not": {"type": "string"}},
    "if": {"type": "string", "if": {"minLength": 2}, "then": {"pattern": "a"}},
    "open map": {"type": "object", "additionalProperties": {"type": "string"}},
    "explicitly open": {"type": "object", "properties": {}, "additionalProperties": True},
    "patternProperties": {
        "type": "object",
        "patternProperties": {"^x": {"type": "string"}},
        "additionalProperties": False,
    },
    "tuple": {"type": "array", "prefixItems": [{"type": "string"}]},
    "no type": {"description": "anything"},
    "ref with siblings": {"$ref": "#/$defs/a", "description": "d"},
    "boolean schema": True,
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_strict_mode_refuses_what_it_cannot_express(case):
    schema = {
        "type": "object",
        "properties": {"field": REFUSED[case]},
        "required": ["field"],
        "additionalProperties": False,
        "$defs": {"a": {"type": "string"}},
    }
    spec = spec_with(schema)
    with pytest.raises(ExportError) as caught:
        to_openai(spec)
    assert caught.value.problems and all(p.endswith("refused") for p in caught.value.problems)
    assert any(p.endswith("refused") for p in strict_mode_problems(schema))
    with pytest.raises(ExportError):
        make_strict(schema)
    check_openai(to_openai(spec, strict=False))  # non-strict sends it as written
    check_anthropic(to_anthropic(spec))
    check_mcp(to_mcp(spec))


def test_strict_mode_refuses_a_union_at_the_root_and_deep_nesting():
    root_union = {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert any("root must be an object" in p for p in strict_mode_problems(root_union))
    assert strict_mode_problems(_nest(10)) == []
    assert any("nesting deeper than 10" in p for p in strict_mode_problems(_nest(11)))


# ------------------------------------------------------------------ names


@pytest.mark.parametrize("name", ["github.pr.get", "a" * 65, "files.read-lines"])
def test_model_apis_refuse_names_mcp_accepts(name):
    spec = spec_with({"type": "object", "additionalProperties": False}, name=name)
    check_mcp(to_mcp(spec))
    for export in (to_anthropic, to_openai):
        with pytest.raises(ExportError, match="1-64 characters"):
            export(spec)
    rows = {row["aspect"]: row for row in compare_exports(spec)}
    assert rows["this name"]["anthropic"].startswith("refused")
    assert rows["this name"]["openai_strict"].startswith("refused")
    assert rows["this name"]["mcp"] == "accepted"
    assert rows["argument schema"]["openai_strict"] == "not exported (name refused)"


def test_sixty_four_characters_are_fine_everywhere():
    spec = spec_with({"type": "object", "additionalProperties": False}, name="a" * 64)
    check_anthropic(to_anthropic(spec))
    check_openai(to_openai(spec))
    check_mcp(to_mcp(spec))


# ------------------------------------------------------------------ comparison table


def test_compare_exports_for_read_lines():
    rows = compare_exports(READ_LINES_SPEC)
    assert [row["aspect"] for row in rows] == [
        "tool object",
        "name rule",
        "this name",
        "title",
        "argument schema at",
        "argument schema",
        "result schema",
        "annotations",
        "decoding",
    ]
    table = {row["aspect"]: row for row in rows}
    assert table["argument schema at"] == {
        "aspect": "argument schema at",
        "anthropic": "input_schema",
        "openai_strict": "function.parameters",
        "mcp": "inputSchema",
    }
    assert table["argument schema"]["anthropic"] == "as written"
    assert table["argument schema"]["openai_strict"].startswith("changed (2): ")
    assert table["annotations"]["anthropic"] == "dropped (no field)"
    assert table["annotations"]["mcp"] == "kept (4 hints)"
    assert table["argument schema"]["openai_strict"] == (
        "changed (2): (root): '$schema' -> dropped;"
        " path: minLength, maxLength -> moved into the description"
    )
    assert table["result schema"]["mcp"] == "outputSchema"
    assert table["title"]["mcp"] == "title"
    text = format_comparison(rows)
    assert text == format_comparison(compare_exports(READ_LINES_SPEC))
    assert text.splitlines()[0].split(" | ")[0].strip() == "aspect"
    assert "inputSchema" in text


@pytest.mark.parametrize("max_width", [100, 80])
def test_format_comparison_fits_its_width(max_width):
    for spec in GOOD_TOOLSET:
        text = format_comparison(compare_exports(spec), max_width=max_width)
        assert max(len(line) for line in text.splitlines()) <= max_width
        if max_width < 100:
            continue  # narrower columns may split a long word such as function.parameters
        # every word of every cell is still there, only wrapped
        for row in compare_exports(spec):
            for cell in row.values():
                assert all(word in text for word in cell.split())


def test_short_changes_keep_path_keywords_and_action():
    spec = next(s for s in GOOD_TOOLSET if s.name == "github_pr_list_comments")
    cell = {r["aspect"]: r for r in compare_exports(spec)}["argument schema"]["openai_strict"]
    changes = cell.removeprefix("changed (10): ").split("; ")
    assert len(changes) == len(strict_mode_problems(spec.input_schema)) == 10
    assert "page_size: default -> moved into the description" in changes
    assert "cursor: optional -> now required and nullable" in changes
    assert "(root): '$schema' -> dropped" in changes
    closing = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    row = {r["aspect"]: r for r in compare_exports(spec_with(closing))}["argument schema"]
    assert row["openai_strict"] == "changed (1): (root): additionalProperties -> set to false"


# ------------------------------------------------------------------ what the tool list costs


def test_tool_list_json_is_the_compact_list_each_request_carries():
    for target, export in TARGETS.items():
        text = tool_list_json(GOOD_TOOLSET, target)
        assert json.loads(text) == [export(spec) for spec in GOOD_TOOLSET]
        assert text == json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))
    assert tool_list_json(GOOD_TOOLSET) == tool_list_json(GOOD_TOOLSET, "anthropic")
    assert tool_list_json([]) == "[]"
    with pytest.raises(KeyError, match="no target"):
        tool_list_json(GOOD_TOOLSET, "gemini")


def test_a_longer_description_costs_exactly_its_characters_on_every_request():
    spec = READ_LINES_SPEC
    longer = dataclasses.replace(spec, description=spec.description + " " + "x" * 100)
    for target in TARGETS:
        base = len(tool_list_json([spec], target))
        assert len(tool_list_json([longer], target)) == base + 101
    chinese = dataclasses.replace(spec, description="只读。")
    text = tool_list_json([chinese])
    assert len(text.encode()) - len(text) == 2 * 3  # 3 characters, 3 UTF-8 bytes each


def test_compare_exports_when_nothing_changes():
    spec = next(s for s in GOOD_TOOLSET if s.name == "github_pr_get")
    strict_clean = ToolSpec(
        name="files_stat",
        title="Stat",
        description="d",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    )
    assert {r["aspect"]: r for r in compare_exports(strict_clean)}["argument schema"][
        "openai_strict"
    ] == "as written"
    assert {r["aspect"]: r for r in compare_exports(strict_clean)}["result schema"][
        "mcp"
    ] == "none declared"
    assert len(compare_exports(spec)) == 9


# ------------------------------------------------------------------ property test

PORTABLE = re.compile(r"[a-zA-Z0-9_-]{1,64}")
NAME_CHARS = "abcXYZ019_-."
PROPERTY_SCHEMAS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "string", "minLength": 1, "maxLength": 10, "description": "text"},
        {"type": "string", "format": "date"},
        {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
        {"type": "number", "exclusiveMinimum": 0},
        {"type": "boolean"},
        {"type": ["string", "null"]},
        {"enum": ["a", "b"]},
        {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        {
            "type": "object",
            "properties": {"x": {"type": "integer"}},
            "additionalProperties": False,
        },
    ]
)


@st.composite
def specs(draw: st.DrawFn) -> ToolSpec:
    name = draw(st.text(NAME_CHARS, min_size=1, max_size=128))
    properties = draw(
        st.dictionaries(
            st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True), PROPERTY_SCHEMAS, max_size=5
        )
    )
    required = [k for k in properties if draw(st.booleans())]
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    description = draw(st.text(min_size=1, max_size=40).filter(lambda s: s.strip()))
    annotations = Annotations(*draw(st.tuples(*[st.booleans()] * 4)))
    return ToolSpec(name, draw(st.text(max_size=20)), description, schema, annotations)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs())
def test_random_valid_specs_export(spec):
    assert NAME_PATTERN.fullmatch(spec.name)
    check_mcp(to_mcp(spec))
    if PORTABLE.fullmatch(spec.name):
        check_anthropic(to_anthropic(spec))
        for strict in (True, False):
            tool = to_openai(spec, strict=strict)
            check_openai(tool)
        parameters = to_openai(spec)["function"]["parameters"]
        assert strict_mode_problems(parameters) == []
        assert parameters["required"] == list(spec.input_schema["properties"])
        json.dumps(parameters, allow_nan=False)
    else:
        for export in (to_anthropic, to_openai):
            with pytest.raises(ExportError):
                export(spec)
    assert len(compare_exports(spec)) == 9
