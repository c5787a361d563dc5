"""The tool-set linter: every rule fires on a minimal bad tool and not on its fix."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tutorial_lib.core.tools import READ_ONLY_LOCAL, Annotations, Registry, ToolSpec
from tutorial_lib.course.chapters.ch02_tool_set.demos import BAD_TOOLSET, GOOD_TOOLSET
from tutorial_lib.design.lint import (
    NEAR_DUPLICATE_THRESHOLD,
    RULES,
    Finding,
    explain,
    format_findings,
    iter_subschemas,
    lint,
    name_tokens,
)
from tutorial_lib.workspace.read import READ_LINES_SPEC


def closed(properties: dict[str, Any] | None = None) -> dict[str, Any]:
    properties = properties or {"path": {"type": "string"}}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def tool(name: str = "files_stat", description: str | None = None, **kw: Any) -> ToolSpec:
    """A tool that passes clean unless an argument breaks it."""
    kw.setdefault("input_schema", closed())
    kw.setdefault("annotations", READ_ONLY_LOCAL)
    description = description or (
        "Get the size and modification time of one file in the workspace. Read-only."
    )
    return ToolSpec(name=name, title=name, description=description, **kw)


def rules(specs: list[ToolSpec]) -> list[str]:
    return [f.rule for f in lint(specs)]


def test_the_base_tool_passes_clean():
    assert lint([tool()]) == []


# ------------------------------------------------------------------ the example tool sets


def test_good_toolset_passes_clean():
    assert lint(GOOD_TOOLSET) == []
    assert READ_LINES_SPEC in GOOD_TOOLSET
    assert [s.name for s in GOOD_TOOLSET[:3]] == [
        "github_pr_get",
        "github_pr_list_comments",
        "github_pr_create_review",
    ]
    assert format_findings([]) == "No findings: the tool set passes clean."


def test_good_toolset_uses_the_real_github_tools():
    # One contract per tool across the course: chapter 02 shows the very specs chapter 04
    # calls (cursor / next_cursor / coverage), not a second declaration with pages.
    from tutorial_lib.github.reads import LIST_COMMENTS_SPEC, PR_GET_SPEC

    assert GOOD_TOOLSET[0] is PR_GET_SPEC
    assert GOOD_TOOLSET[1] is LIST_COMMENTS_SPEC
    properties = LIST_COMMENTS_SPEC.input_schema["properties"]
    assert {"cursor", "page_size", "filter"} <= set(properties)
    assert not {"page", "per_page"} & set(properties)
    assert {"coverage", "next_cursor"} <= set(LIST_COMMENTS_SPEC.output_schema["properties"])
    # only the review tool is a declaration, with the arguments of the real tools
    declarations = [s.name for s in GOOD_TOOLSET if s.execute is None]
    assert declarations == ["github_pr_create_review"]
    review = GOOD_TOOLSET[2].input_schema
    assert review["required"][:2] == ["repository", "pr"]
    assert review["properties"]["repository"] == properties["repository"]


def test_the_library_tool_sets_pass_clean():
    from tutorial_lib.github.reads import READ_SPECS
    from tutorial_lib.github.writes import WRITE_SPECS
    from tutorial_lib.worlds.readonly import RESOLVE_THREAD_SPEC

    assert lint([*READ_SPECS, *WRITE_SPECS, READ_LINES_SPEC, RESOLVE_THREAD_SPEC]) == []


def test_bad_toolset_hits_every_rule():
    assert set(rules(list(BAD_TOOLSET))) == set(RULES)
    assert all(s.execute is None for s in BAD_TOOLSET)
    flagged = {f.tool for f in lint(BAD_TOOLSET) if f.rule == "vague_name"}
    assert {"getData", "runAction", "sync"} <= flagged


def test_findings_are_deterministic_and_ordered():
    first = lint(BAD_TOOLSET)
    assert first == lint(BAD_TOOLSET) == lint(Registry(list(BAD_TOOLSET)))
    assert format_findings(first) == format_findings(lint(BAD_TOOLSET))
    order = [s.name for s in BAD_TOOLSET]
    rule_order = list(RULES)
    keys = [(order.index(f.tool), rule_order.index(f.rule)) for f in first]
    assert keys == sorted(keys)
    for finding in first:
        assert isinstance(finding, Finding)
        assert finding.message and finding.fix
        assert finding.rule.isidentifier() and finding.rule == finding.rule.lower()
    with pytest.raises(dataclasses.FrozenInstanceError):
        first[0].rule = "x"  # type: ignore[misc]


def test_format_findings_gives_one_block_per_finding():
    findings = lint(BAD_TOOLSET)
    text = format_findings(findings, width=None)
    assert text.startswith(f"{len(findings)} findings in ")
    blocks = text.split("\n\n")[1:]
    assert len(blocks) == len(findings)
    for block, finding in zip(blocks, findings, strict=True):
        assert block == (
            f"{finding.tool} [{finding.rule}]\n  problem: {finding.message}\n  fix: {finding.fix}"
        )


def test_format_findings_wraps_at_100_columns_by_default():
    findings = lint(BAD_TOOLSET)
    text = format_findings(findings)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert " ".join(text.split()) == " ".join(format_findings(findings, width=None).split())
    narrow = format_findings(findings, width=60)
    assert all(len(line) <= 60 or " " not in line.strip() for line in narrow.splitlines())
    continued = [line for line in text.splitlines() if line.startswith("    ")]
    assert continued, "some problem or fix must have been wrapped"


def test_every_rule_explains_itself():
    for rule in RULES:
        text = explain(rule)
        assert text.startswith(f"{rule}:")
        assert "Why" in text and "Check" in text
    with pytest.raises(KeyError, match="no rule"):
        explain("nope")


# ------------------------------------------------------------------ vague_name


@pytest.mark.parametrize(
    "name",
    [
        "getData",
        "runAction",
        "sync",
        "process",
        "handle",
        "do_it",
        "execute",
        "manage",
        "tool1",
        "github_pr",  # no verb
        "get_all",  # no resource
    ],
)
def test_vague_names_are_flagged(name):
    assert "vague_name" in rules([tool(name)])


@pytest.mark.parametrize(
    "name",
    [
        "files_stat",
        "github_pr_get",
        "github_pr_list_comments",
        "github_pr_create_review",
        "read_lines",
        "search_files",
        "listUsers",
        "calendar.events.import",
    ],
)
def test_specific_names_pass(name):
    assert "vague_name" not in rules([tool(name)])


def test_vague_name_message_says_why():
    (finding,) = [f for f in lint([tool("runAction")]) if f.rule == "vague_name"]
    assert "'run' is a verb that fits almost any tool" in finding.message
    assert "'action' could be anything" in finding.message
    (finding,) = [f for f in lint([tool("tool1")]) if f.rule == "vague_name"]
    assert "a number" in finding.message


def test_name_tokens():
    assert name_tokens("getData") == ["get", "data"]
    assert name_tokens("github_pr_list_comments") == ["github", "pr", "list", "comments"]
    assert name_tokens("tool1") == ["tool", "1"]
    assert name_tokens("HTTPRequest") == ["http", "request"]
    assert name_tokens("calendar.events-import") == ["calendar", "events", "import"]


# ------------------------------------------------------------------ near_duplicate


def test_near_duplicate_by_description():
    a = tool("files_read_text", "Read the text of one file in the workspace. Read-only.")
    b = tool("files_get_content", "Get the text of one file in the workspace. Read-only.")
    findings = [f for f in lint([a, b]) if f.rule == "near_duplicate"]
    assert [f.tool for f in findings] == ["files_get_content"]  # the later one
    assert "files_read_text" in findings[0].message
    fixed = tool(
        "files_get_content",
        "Get size, owner and modification time of one file in the workspace, not its text."
        " Read-only.",
    )
    assert lint([a, fixed]) == []


@pytest.mark.parametrize(
    ("first", "second"),
    [("read_file", "fetch_file"), ("list_users", "get_all_users"), ("users_add", "create_user")],
)
def test_near_duplicate_by_synonymous_names(first, second):
    a = tool(first, "Return the text of one file in the workspace. Read-only.")
    b = tool(second, "Show which accounts exist in the organization, at most 50. Read-only.")
    findings = [f for f in lint([a, b]) if f.rule == "near_duplicate"]
    assert len(findings) == 1
    assert "names mean the same" in findings[0].message


def test_threshold_is_documented():
    assert NEAR_DUPLICATE_THRESHOLD == 0.6
    assert "0.6" in explain("near_duplicate")


# ------------------------------------------------------------------ descriptions


def test_description_missing_target():
    bad = tool(
        "files_delete", "Deletes one item in the workspace permanently.", annotations=Annotations()
    )
    assert rules([bad]) == ["description_missing_target"]
    fixed = dataclasses.replace(bad, description="Deletes one file in the workspace permanently.")
    assert lint([fixed]) == []


def test_target_accepts_spelled_out_abbreviations():
    spec = tool("github_pr_get", "Get one pull request of a repository. Read-only.")
    assert lint([spec]) == []


def test_description_missing_scope():
    bad = tool(description="Get the size and modification time of a file. Read-only.")
    assert rules([bad]) == ["description_missing_scope"]
    assert lint([tool()]) == []


def test_description_missing_paging_by_name():
    bad = tool("files_list", "List the files of the workspace. Read-only.")
    assert rules([bad]) == ["description_missing_paging"]
    fixed = tool("files_list", "List the files of the workspace, at most 100 per call. Read-only.")
    assert lint([fixed]) == []


def test_description_missing_paging_by_output_array():
    output = closed({"entries": {"type": "array", "items": {"type": "string"}}})
    bad = tool("files_stat", output_schema=output)
    assert rules([bad]) == ["description_missing_paging"]
    assert "array at 'entries'" in lint([bad])[0].message
    fixed = tool(
        "files_stat",
        "Get the size and modification time of one file in the workspace; entries is"
        " truncated after 50. Read-only.",
        output_schema=output,
    )
    assert lint([fixed]) == []


def test_description_missing_side_effects():
    bad = tool(
        "files_touch_create",
        "Make one empty file in the workspace at the given path.",
        annotations=Annotations(),
    )
    assert rules([bad]) == ["description_missing_side_effects"]
    fixed = dataclasses.replace(
        bad, description="Creates one empty file in the workspace; fails if it exists."
    )
    assert lint([fixed]) == []


def test_write_marked_read_only():
    bad = tool("tickets_delete", "Delete one ticket of the support project.")
    assert rules([bad]) == ["write_not_marked"]
    fixed = dataclasses.replace(bad, annotations=Annotations(destructive=True))
    assert lint([fixed]) == []


def test_write_verb_in_description_of_a_read_only_tool():
    bad = tool("projects_snapshot_get", "Creates a snapshot of one support project.")
    assert rules([bad]) == ["write_not_marked"]
    assert "'create'" in lint([bad])[0].message


def test_read_only_claim_without_annotation():
    bad = tool(annotations=Annotations())
    assert rules([bad]) == ["write_not_marked"]
    assert "read_only=False" in lint([bad])[0].message
    assert lint([tool()]) == []


def test_not_read_only_is_not_a_claim():
    spec = tool(
        "files_remove",
        "Remove one file of the workspace; this tool is not read-only.",
        annotations=Annotations(),
    )
    assert lint([spec]) == []


# ------------------------------------------------------------------ schemas


@pytest.mark.parametrize(
    ("name", "fixed"),
    [
        ("timeout", "timeout_ms"),
        ("delay", "delay_seconds"),
        ("waitTime", "waitTimeMs"),
        ("max_size", "max_size_bytes"),
        ("cache_ttl", "cache_ttl_s"),
        ("poll_interval", "poll_interval_minutes"),
    ],
)
def test_number_without_unit(name, fixed):
    bad = tool(input_schema=closed({"path": {"type": "string"}, name: {"type": "integer"}}))
    findings = lint([bad])
    assert [f.rule for f in findings] == ["number_without_unit"]
    assert f"'{name}'" in findings[0].message
    good = tool(input_schema=closed({"path": {"type": "string"}, fixed: {"type": "number"}}))
    assert lint([good]) == []


def test_number_without_unit_nested_and_in_output():
    nested = closed({"options": closed({"timeout": {"type": "integer"}})})
    output = closed({"age": {"type": "number"}})
    findings = lint([tool(input_schema=nested, output_schema=output)])
    assert [f.message.split("'")[1] for f in findings] == ["options.timeout", "age"]
    assert lint([tool(input_schema=closed({"timeout": {"type": "string"}}))]) == []


@pytest.mark.parametrize("name", ["page_size", "batchSize", "max_page_size"])
def test_a_page_or_batch_size_counts_items(name):
    counted = tool(input_schema=closed({"path": {"type": "string"}, name: {"type": "integer"}}))
    assert lint([counted]) == []


@pytest.mark.parametrize("name", ["size", "chunk_size", "file_size"])
def test_other_sizes_still_need_a_unit(name):
    bad = tool(input_schema=closed({"path": {"type": "string"}, name: {"type": "integer"}}))
    (finding,) = lint([bad])
    assert finding.rule == "number_without_unit"
    assert "30 could be bytes, kilobytes or items" in finding.message


def test_resolving_is_a_write():
    resolve = tool("github_pr_resolve_thread", description="Resolve one review thread. Read-only.")
    assert "write_not_marked" in rules([resolve])


def test_timeout_suggestion():
    (finding,) = lint([tool(input_schema=closed({"timeout": {"type": "integer"}}))])
    assert "'timeout_ms'" in finding.fix


def test_additional_properties_allowed():
    open_schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    assert rules([tool(input_schema=open_schema)]) == ["additional_properties_allowed"]
    true_schema = {**open_schema, "additionalProperties": True}
    assert rules([tool(input_schema=true_schema)]) == ["additional_properties_allowed"]
    assert lint([tool(input_schema={**open_schema, "additionalProperties": False})]) == []


def test_additional_properties_in_nested_objects():
    inner = {"type": "object", "properties": {"x": {"type": "string"}}}
    schema = closed({"filter": inner, "list": {"type": "array", "items": inner}})
    findings = lint([tool(input_schema=schema)])
    assert [f.rule for f in findings] == ["additional_properties_allowed"] * 2
    assert "'filter'" in findings[0].message


def test_iter_subschemas_visits_everything():
    schema = {
        "type": "object",
        "properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "$defs": {"d": {"type": "array", "items": {"type": "integer"}}},
    }
    assert [p for p, _ in iter_subschemas(schema)] == [
        "",
        "properties.a",
        "properties.a.anyOf.0",
        "properties.a.anyOf.1",
        "$defs.d",
        "$defs.d.items",
    ]


# ------------------------------------------------------------------ name rules of ToolSpec


@pytest.mark.parametrize(
    "name",
    ["", "a" * 129, "read lines", "café", "名前", "read_lines\n", "files/read", "a:b", "x\u200b"],
)
def test_toolspec_refuses_bad_names(name):
    with pytest.raises(ValueError, match="must be 1-128 characters"):
        tool(name)


@pytest.mark.parametrize("name", ["a", "a" * 128, "github.pr.get", "files-read_v2", "X"])
def test_toolspec_accepts_valid_names(name):
    assert tool(name).name == name


def test_registry_refuses_duplicates():
    registry = Registry([tool("files_stat")])
    with pytest.raises(ValueError, match="already registered"):
        registry.register(tool("files_stat"))
    with pytest.raises(ValueError, match="already registered"):
        Registry(list(GOOD_TOOLSET) + [GOOD_TOOLSET[0]])
    assert lint(Registry(list(GOOD_TOOLSET))) == []
