"""The static checks' fixes found on real servers (issue 35, tests/data/mcp_corpus): each
with the real shape that was misjudged and a case the rule must still catch."""

from __future__ import annotations

from tutorial_lib.checker.static import lists_choices, reachable_definitions, static_findings

TEXT = {"type": "string", "maxLength": 20, "description": "A word."}


def rules_of(tool: dict) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in static_findings([tool]):
        found.setdefault(finding.rule, []).append(finding.message)
    return found


def tool(schema: dict, description: str = "Get one word of the glossary.", **extra) -> dict:
    annotations = {"readOnlyHint": True, "openWorldHint": False}
    return {"name": "words_get", "description": description, "inputSchema": schema,
            "annotations": annotations, **extra}  # fmt: skip


def test_only_the_definitions_a_tool_uses_are_checked() -> None:
    shared = {
        "used": {"type": "object", "properties": {"text": {"type": "string"}}},
        "unused": {"type": "object", "properties": {"body": {"type": "string"}}},
        "nested": {"type": "array", "items": {"$ref": "#/$defs/used"}},
    }
    schema = {"type": "object", "additionalProperties": False, "required": ["words"],
              "properties": {"words": {"$ref": "#/$defs/nested", "description": "Words."}},
              "$defs": shared}  # fmt: skip
    assert set(reachable_definitions(schema)["$defs"]) == {"nested", "used"}
    found = rules_of(tool(schema))
    everything = " ".join(m for ms in found.values() for m in ms)
    assert "body" not in everything and "unused" not in everything
    assert "'text'" in " ".join(found["string_unbounded"])  # the used one is still checked


def test_a_map_is_not_asked_to_close_but_an_open_object_with_properties_is() -> None:
    maps = {"type": "object", "additionalProperties": {"type": "string"}}
    schema = {"type": "object", "additionalProperties": False, "required": [],
              "properties": {"labels": {**maps, "description": "Labels."},
                             "free": {"type": "object", "description": "Any JSON object."},
                             "filter": {"type": "object", "properties": {"word": TEXT},
                                        "required": [], "description": "A filter."}}}  # fmt: skip
    found = rules_of(tool(schema))
    (message,) = found["additional_properties_allowed"]
    assert "'filter'" in message and "labels" not in message and "free" not in message


def test_a_declared_destructive_write_has_its_annotations() -> None:
    write = tool(TEXT_SCHEMA, description="Delete one word of the glossary.")
    write["annotations"] = {"destructiveHint": True}
    assert "annotations_missing" not in rules_of(write)
    write["annotations"] = {"title": "Delete"}
    assert "annotations_missing" in rules_of(write)


def test_an_argument_the_description_explains_by_name_is_described() -> None:
    schema = {"type": "object", "additionalProperties": False, "required": ["searchTerm"],
              "properties": {"searchTerm": {"type": "string", "maxLength": 9},
                             "limit": {"type": "integer", "minimum": 1, "maximum": 9}}}  # fmt: skip
    found = rules_of(tool(schema, "List words; an optional `search term` narrows them."))
    assert found["property_undescribed"] == [
        "'limit' has no description: the model guesses what to send from the name alone"
    ]


def test_values_given_as_examples_are_not_an_enum() -> None:
    assert lists_choices("State: 'open', 'closed' or 'all'.")
    assert not lists_choices("Country (e.g., 'United States', 'Japan', 'Germany').")
    assert not lists_choices("Good: 'how to log in' or 'jwt'. Bad (too vague): 'auth' or 'hooks'.")
    assert lists_choices("E.g. a word. Sort: 'asc' or 'desc'.")  # a new sentence lists values


def test_a_name_verb_alone_does_not_overrule_a_read_only_annotation() -> None:
    lookup = tool(TEXT_SCHEMA, description="Find the library ids that match a name.")
    lookup["name"] = "resolve_library_id"
    assert "write_not_marked" not in rules_of(lookup)
    delete = tool(TEXT_SCHEMA, description="Deletes one word of the glossary.")
    delete["name"] = "words_delete"
    assert "write_not_marked" in rules_of(delete)


TEXT_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["word"],
               "properties": {"word": TEXT}}  # fmt: skip
