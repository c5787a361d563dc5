"""The simulated reader: each rule of READER_RULES reads the interface text, and only it."""

from __future__ import annotations

from typing import Any

import pytest

from tutorial_lib.agent.loop import Step, ToolCall, Transcript
from tutorial_lib.agent.reader import (
    ANSWER_TOOL,
    PRIOR_RATES,
    READER_RULES,
    NeedRead,
    NeedReview,
    NeedStatus,
    NeedWait,
    Priors,
    ReaderModel,
    tokens,
)
from tutorial_lib.worlds.evaluation import drop_examples

ZERO = Priors(zero_based=True, seconds=True, large_pages=True, resend_blind=True)
ONE = Priors()


def tool(name: str, description: str, **properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "input_schema": {"type": "object", "properties": properties, "required": list(properties)},
    }


def first(need: Any, tools: list[dict[str, Any]], priors: Priors = ONE) -> ToolCall:
    action = ReaderModel(need, tools, priors).next_action(Transcript())
    assert isinstance(action, ToolCall)
    return action


READ = NeedRead("notes.txt")
INT = {"type": "integer"}


def reader_tool(description: str, start: dict[str, Any] | None = None) -> dict[str, Any]:
    return tool("read_lines", description, path={"type": "string"}, start=start or INT, count=INT)


def test_tokens_split_names_and_drop_plurals() -> None:
    assert tokens("getComments") == {"get", "comment"}
    assert tokens("github_pr_list_comments") == {"github", "pr", "list", "comment"}
    assert tokens("Reads the files.") == {"read", "the", "file"}


def test_the_rule_table_and_the_priors_are_stated() -> None:
    assert [rule for rule, _, _ in READER_RULES][:2] == ["tool", "line base"]
    assert set(PRIOR_RATES) == {f for f in Priors.__dataclass_fields__}
    drawn = [Priors.draw(seed) for seed in range(30)]
    assert drawn == [Priors.draw(seed) for seed in range(30)]
    for name, rate in PRIOR_RATES.items():
        share = sum(getattr(p, name) for p in drawn) / 30
        assert abs(share - rate) < 0.25, name


def test_the_tool_is_chosen_by_its_words_and_effect() -> None:
    tools = [
        tool("postData", "Posts the data.", path={"type": "string"}),
        tool("getFile", "Gets the file.", path={"type": "string"}),
    ]
    assert first(READ, tools).name == "getFile"
    writes = [tool("read_file", "Writes a file.", path={"type": "string"}), tools[1]]
    assert first(READ, writes).name == "getFile"  # the opposite effect loses


@pytest.mark.parametrize(
    ("description", "start", "expected"),
    [
        ("Reads lines.", {"type": "integer", "minimum": 1}, 1),
        ("Reads lines, counted from 1.", INT, 1),
        ("Reads lines, 0-based.", INT, 0),
        ('Reads lines.\nExample: {"path": "a.txt", "start": 1, "count": 5}', INT, 1),
    ],
)
def test_the_line_base_is_read_from_the_declaration(
    description: str, start: dict[str, Any], expected: int
) -> None:
    for priors in (ZERO, ONE):  # the declaration decides, whatever the prior
        assert first(READ, [reader_tool(description, start)], priors).arguments["start"] == expected


def test_a_silent_declaration_leaves_the_base_to_the_prior() -> None:
    silent = [reader_tool("Reads lines.")]
    assert first(READ, silent, ZERO).arguments["start"] == 0
    assert first(READ, silent, ONE).arguments["start"] == 1
    reader = ReaderModel(READ, silent, ZERO)
    reader.next_action(Transcript())
    assert reader.consulted == {"zero_based": True, "large_pages": True}


def test_removing_the_example_removes_the_only_evidence_of_the_base() -> None:
    shown = [reader_tool('Reads lines.\nExample: {"path": "a.txt", "start": 1, "count": 5}')]
    readers = [Priors.draw(seed) for seed in range(30)]
    with_example = [first(READ, shown, p).arguments["start"] for p in readers]
    without = [first(READ, drop_examples(shown), p).arguments["start"] for p in readers]
    assert with_example == [1] * 30
    assert 0 < without.count(0) < 30  # now the zero-based readers send 0


def test_the_page_size_comes_from_the_maximum_or_the_words() -> None:
    capped = tool(
        "read_lines", "Reads.", path={}, start=INT, count={"type": "integer", "maximum": 20}
    )
    assert first(READ, [capped], ZERO).arguments["count"] == 20
    said = tool("read_lines", "Reads at most 25 lines.", path={}, start=INT, count=INT)
    assert first(READ, [said], ZERO).arguments["count"] == 25
    silent = tool("read_lines", "Reads.", path={}, start=INT, count=INT)
    assert first(READ, [silent], ZERO).arguments["count"] == 100
    assert first(READ, [silent], ONE).arguments["count"] == 10


@pytest.mark.parametrize(
    ("name", "description", "expected"),
    [
        ("timeout_ms", "How long to wait.", 30_000),
        ("timeout_s", "How long to wait.", 30),
        ("timeout", "How long to wait, in milliseconds.", 30_000),
        ("timeout", "How long to wait, in seconds.", 30),
    ],
)
def test_the_unit_is_read_from_the_name_or_the_description(
    name: str, description: str, expected: int
) -> None:
    job = tool("job_get_result", "Get the result of a job.", job_id={"type": "string"})
    job["input_schema"]["properties"][name] = {"type": "integer", "description": description}
    for priors in (ZERO, ONE):
        assert first(NeedWait("J-1", 30), [job], priors).arguments[name] == expected


def test_a_unitless_timeout_is_left_to_the_prior() -> None:
    job = tool("job_get_result", "Get a job.", job_id={"type": "string"}, timeout=INT)
    assert first(NeedWait("J-1", 30), [job], ZERO).arguments["timeout"] == 30
    assert first(NeedWait("J-1", 30), [job], ONE).arguments["timeout"] == 30_000


def status_tool(description: str, enum: list[str] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"type": "string"}
    if enum is not None:
        status["enum"] = enum
    return tool("tickets_set_status", description, ticket_id={"type": "string"}, status=status)


SOLVED = NeedStatus("SUP-7", "resolved")
STATUSES = ["open", "pending", "solved", "closed"]


def test_the_vocabulary_comes_from_the_enum_and_its_glosses() -> None:
    glossed = status_tool("Set a ticket. solved (resolved: answered), closed (archived).", STATUSES)
    assert first(SOLVED, [glossed]).arguments["status"] == "solved"
    # without glosses the user's words match 'closed' only: valid, and not what is meant
    assert first(SOLVED, [status_tool("Set a ticket.", STATUSES)]).arguments["status"] == "closed"
    listed = status_tool("Set a ticket. status is one of open, pending, solved (resolved), closed.")
    assert first(SOLVED, [listed]).arguments["status"] == "solved"
    assert first(SOLVED, [status_tool("Set a ticket.")]).arguments["status"] == "resolved"


def test_a_rich_error_with_allowed_values_corrects_the_word() -> None:
    model = ReaderModel(NeedStatus("T-1", "started"), [status_tool("Set a task.")])
    call = model.next_action(Transcript())
    assert isinstance(call, ToolCall) and call.arguments["status"] == "started"
    refused = {
        "ok": False,
        "error": {
            "code": "invalid_status",
            "field": "status",
            "allowed_values": ["backlog", "active", "shipped"],
        },
    }
    step = Step(1, call.name, call.arguments, refused, 10, "invalid_status", False)
    again = model.next_action(Transcript([step]))
    assert isinstance(again, ToolCall) and again.arguments["status"] == "active"


REPO = {"type": "string", "pattern": "^[^/]+/[^/]+$"}


def comments_tool(required: list[str], repository: dict[str, Any] = REPO) -> dict[str, Any]:
    listing = tool("list_comments", "List review comments.", repository=repository, pr=INT)
    listing["input_schema"]["required"] = required
    return listing


def test_a_required_scope_not_given_is_asked_for() -> None:
    asked = ReaderModel(NeedReview(None, 128), [comments_tool(["repository", "pr"])])
    action = asked.next_action(Transcript())
    assert isinstance(action, ToolCall) and action.name == ANSWER_TOOL
    assert action.arguments["kind"] == "question"
    optional = first(NeedReview(None, 128), [comments_tool(["pr"])])
    assert optional.name == "list_comments" and "repository" not in optional.arguments


def test_a_scope_the_interface_shows_incomplete_is_asked_for() -> None:
    shop = NeedReview("shop", 128)
    for shown in (REPO, {"type": "string", "description": "as owner/name"}):
        action = first(shop, [comments_tool(["repository", "pr"], shown)])
        assert action.name == ANSWER_TOOL and action.arguments["kind"] == "question"
    silent = first(shop, [comments_tool(["repository", "pr"], {"type": "string"})])
    assert silent.arguments["repository"] == "shop"


def test_has_more_leads_to_the_next_page_and_its_absence_to_an_answer() -> None:
    shown = [reader_tool("Reads lines, counted from 1.")]
    model = ReaderModel(READ, shown, ONE)
    call = model.next_action(Transcript())
    assert isinstance(call, ToolCall)
    page = {"ok": True, "data": {"start": 1, "lines": ["a"] * 10, "has_more": True}}
    step = Step(1, call.name, call.arguments, page, 10, None, True)
    following = model.next_action(Transcript([step]))
    assert isinstance(following, ToolCall) and following.arguments["start"] == 11
    bare = {"ok": True, "data": {"start": 1, "lines": ["a"] * 10}}
    answer = model.next_action(
        Transcript([Step(1, call.name, call.arguments, bare, 10, None, True)])
    )
    assert isinstance(answer, ToolCall) and answer.name == ANSWER_TOOL
    assert answer.arguments["values"] == {"line_count": 10}


def test_a_negated_gloss_is_no_match() -> None:
    shown = status_tool(
        "status is one of backlog (not started), active (work has started), shipped.",
        ["backlog", "active", "shipped"],
    )
    assert first(NeedStatus("T-1", "started"), [shown]).arguments["status"] == "active"
