"""The minimal agent loop and the scripted model: exact, deterministic call counts.

Rich errors (the contract's) let each scripted habit be corrected in a fixed number of
calls; bare errors (``{"error": "INVALID_ARGUMENT"}``) leave the model guessing until it
gives up. Workspace: ``notes.txt`` (3 lines: one page) and ``long.txt`` (45 lines: pages of
20, 20 and 5).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tutorial_lib.agent.loop import (
    FinalAnswer,
    Mistake,
    ReadWholeFile,
    ReviewPullRequest,
    ScriptedModel,
    SetTaskStatus,
    ToolCall,
    Transcript,
    guess_enum,
    integers_as_strings,
    run_agent,
    stop_on_first_page,
    zero_based_lines,
)
from tutorial_lib.core.authorization import TaskScope, local_access
from tutorial_lib.core.contracts import ContractError, LogRecord, dumps
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import StepClock
from tutorial_lib.core.tools import Registry, ToolSpec
from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import serve
from tutorial_lib.examples.tasks import (
    TASK_STATUSES,
    TaskStore,
    task_set_status_spec,
    with_bare_errors,
)
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import GitHubToolContext, github_tool_specs
from tutorial_lib.workspace.read import read_lines_tool


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("agent") / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("first\nsecond\nthird\n", encoding="utf-8")
    (ws / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 46)), encoding="utf-8")
    return ws


def rich(root: Path) -> Registry:
    return Registry([read_lines_tool(root)])


def bare(root: Path) -> Registry:
    return Registry([with_bare_errors(read_lines_tool(root))])


def read(
    root: Path, path: str, mistakes: list[Mistake], *, bare_errors: bool = False
) -> Transcript:
    model = ScriptedModel(ReadWholeFile(path), mistakes)
    return run_agent(model, Host(bare(root) if bare_errors else rich(root)))


def figures(t: Transcript) -> tuple[Any, ...]:
    """(calls, invalid_calls, first_call_valid, steps_to_answer, total_result_chars)."""
    s = t.summary()
    return (
        s["calls"],
        s["invalid_calls"],
        s["first_call_valid"],
        s["steps_to_answer"],
        s["total_result_chars"],
    )


# --------------------------------------------------------------------------- read_lines, rich


@pytest.mark.parametrize(
    ("mistakes", "expected"),
    [
        ([], (1, 0, True, 1, 271)),
        ([zero_based_lines()], (2, 1, False, 2, 596)),
        ([integers_as_strings()], (3, 2, False, 3, 781)),
        ([zero_based_lines(), integers_as_strings()], (4, 3, False, 4, 1106)),
    ],
    ids=["careful", "zero_based", "strings", "both"],
)
def test_rich_errors_correct_each_habit_in_an_exact_number_of_calls(
    root: Path, mistakes: list[Mistake], expected: tuple[Any, ...]
) -> None:
    t = read(root, "notes.txt", mistakes)
    assert figures(t) == expected
    assert t.final == FinalAnswer("notes.txt: read all 3 lines")
    assert t.steps[-1].arguments == {"path": "notes.txt", "start": 1, "count": 20}


def test_the_rich_transcript_shows_one_correction_per_error(root: Path) -> None:
    t = read(root, "notes.txt", [zero_based_lines(), integers_as_strings()])
    assert [(s.arguments["start"], s.arguments["count"], s.error_code) for s in t.steps] == [
        ("0", "20", "invalid_type"),  # the string is reported first...
        (0, "20", "invalid_range"),  # ...then the 0-based start...
        (1, "20", "invalid_type"),  # ...then the string count
        (1, 20, None),
    ]
    assert [s.result["error"]["field"] for s in t.steps[:3]] == ["start", "start", "count"]


def test_habits_once_corrected_stay_corrected_on_later_pages(root: Path) -> None:
    t = read(root, "long.txt", [zero_based_lines(), integers_as_strings()])
    assert figures(t) == (6, 3, False, 6, 2767)
    assert [s.arguments["start"] for s in t.steps[3:]] == [1, 21, 41]
    assert t.final == FinalAnswer("long.txt: read all 45 lines")


# --------------------------------------------------------------------------- read_lines, bare


@pytest.mark.parametrize(
    "mistakes",
    [[zero_based_lines()], [integers_as_strings()], [zero_based_lines(), integers_as_strings()]],
    ids=["zero_based", "strings", "both"],
)
def test_bare_errors_flounder_until_the_limit(root: Path, mistakes: list[Mistake]) -> None:
    t = read(root, "notes.txt", mistakes, bare_errors=True)
    assert figures(t) == (5, 5, False, None, 5 * 28)
    assert {s.error_code for s in t.steps} == {"INVALID_ARGUMENT"}
    assert t.final == FinalAnswer(
        "gave up after 5 failed calls; the last error was INVALID_ARGUMENT", gave_up=True
    )


def test_bare_guesses_are_fixed_and_never_touch_the_real_fault(root: Path) -> None:
    t = read(root, "notes.txt", [zero_based_lines()], bare_errors=True)
    assert [(s.arguments["start"], s.arguments["count"]) for s in t.steps] == [
        (0, 20),
        (0, 10),
        (0, 5),
        (0, 1),
        (0, 10),  # the guesses cycle
    ]
    t = read(root, "notes.txt", [integers_as_strings()], bare_errors=True)
    assert [s.arguments["count"] for s in t.steps] == ["20", "10", "5", "1", "10"]


def test_give_up_limit_and_max_steps(root: Path) -> None:
    model = ScriptedModel(ReadWholeFile("notes.txt"), [zero_based_lines()], give_up_after=3)
    t = run_agent(model, Host(bare(root)))
    assert (t.calls, t.final.gave_up if t.final else None) == (3, True)
    model = ScriptedModel(ReadWholeFile("notes.txt"), [zero_based_lines()])
    t = run_agent(model, Host(bare(root)), max_steps=2)
    assert t.calls == 2 and t.final is None and t.steps_to_answer is None
    assert t.lines()[-1] == "(stopped: max_steps reached without an answer)"


# --------------------------------------------------------------------------- pages


def test_stop_on_first_page_claims_the_first_page_is_everything(root: Path) -> None:
    careful = read(root, "long.txt", [])
    hasty = read(root, "long.txt", [stop_on_first_page()])
    assert figures(careful) == (3, 0, True, 3, 1932)
    assert careful.final == FinalAnswer("long.txt: read all 45 lines")
    assert figures(hasty) == (1, 0, True, 1, 786)
    assert hasty.final == FinalAnswer("long.txt: read all 20 lines")  # "I saw 20" != "there are 45"
    data = hasty.steps[0].result["data"]
    assert (data["has_more"], data["total_lines"]) == (True, 45)  # the result said so
    # the error style does not matter here: no call fails
    assert figures(read(root, "long.txt", [stop_on_first_page()], bare_errors=True)) == figures(
        hasty
    )


# --------------------------------------------------------------------------- examples.tasks


def set_status(style: str, mistakes: list[Mistake], status: str = "active") -> Transcript:
    store = TaskStore({"T-1": "backlog"})
    registry = Registry([task_set_status_spec(store, style=style)])  # type: ignore[arg-type]
    model = ScriptedModel(SetTaskStatus("T-1", status), mistakes)
    # a write: declared, granted, and approved in advance by the user (the figures are
    # about error styles, not confirmation)
    host = Host(
        registry,
        access={"task_set_status": local_access("write", "tasks")},
        scope=TaskScope(grants=frozenset({"write"})),
        confirm={"task_set_status": None},
    )
    return run_agent(model, host)


def test_guess_enum_recovers_in_two_calls_with_the_rich_error() -> None:
    t = set_status("rich", [guess_enum()])
    # 655 characters: the invalid_status error (456, worded by the schema check before the
    # store is read: "no status was changed") and the success (199)
    assert figures(t) == (2, 1, False, 2, 655)
    assert [s.arguments["status"] for s in t.steps] == ["started", "active"]
    assert t.steps[0].error_code == "invalid_status"
    assert t.final == FinalAnswer("task T-1 is now active")


def test_guess_enum_flounders_with_the_bare_error() -> None:
    t = set_status("bare", [guess_enum()])
    assert figures(t) == (5, 5, False, None, 140)
    assert [s.arguments["status"] for s in t.steps] == [
        "started",
        "in-progress",
        "working",
        "wip",
        "doing",
    ]


def test_guess_enums_default_words_all_mean_started_and_none_is_allowed() -> None:
    mistake = guess_enum()
    said = {mistake.distort("task_set_status", "status", "active")}
    said |= {guess["status"] for guess in mistake.bare_guesses}
    assert said == {"started", "in-progress", "working", "wip", "doing", "underway"}
    assert not said & set(TASK_STATUSES)


def test_a_meaning_outside_the_allowed_values_cannot_be_corrected() -> None:
    t = set_status("rich", [guess_enum("dropped")], status="cancelled")
    assert t.calls == 1
    assert t.final == FinalAnswer("cannot correct invalid_status on status", gave_up=True)


def test_the_transcript_lines_are_deterministic() -> None:
    first, second = set_status("rich", [guess_enum()]), set_status("rich", [guess_enum()])
    assert (
        first.lines()
        == second.lines()
        == [
            '1. task_set_status {"task_id": "T-1", "status": "started"}'
            " -> invalid_status (456 chars)",
            '2. task_set_status {"task_id": "T-1", "status": "active"} -> ok (199 chars)',
            "answer: task T-1 is now active",
        ]
    )


# --------------------------------------------------------------------------- the loop itself


def test_steps_record_arguments_as_sent_and_result_sizes(root: Path) -> None:
    log: list[LogRecord] = []
    model = ScriptedModel(ReadWholeFile("notes.txt"), [zero_based_lines()])
    t = run_agent(model, Host(rich(root), log=log, clock=StepClock()))
    for number, step in enumerate(t.steps, 1):
        assert step.number == number and step.name == "read_lines"
        assert step.result_chars == len(dumps(step.result))
    assert t.total_result_chars == sum(s.result_chars for s in t.steps)
    assert [(r.outcome, r.elapsed_ms) for r in log] == [("invalid_range", 1.0), ("ok", 1.0)]


def test_the_model_is_a_pure_function_of_the_transcript(root: Path) -> None:
    model = ScriptedModel(ReadWholeFile("long.txt"), [integers_as_strings()])
    t = run_agent(model, Host(rich(root)))
    replay = Transcript()
    for step in t.steps:
        action = model.next_action(replay)
        assert action == ToolCall(step.name, step.arguments)
        replay.steps.append(step)
    assert model.next_action(replay) == t.final


def flaky_tool(root: Path, failures: int) -> ToolSpec:
    """read_lines on ``root``, temporarily unavailable ``failures`` times, then answering."""
    tool = read_lines_tool(root)
    calls = {"n": 0}
    execute = tool.execute
    assert execute is not None

    def flaky(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] <= failures:
            raise ContractError("temporary_unavailable", "busy; retry")
        return execute(context, args, checked)

    return replace(tool, execute=flaky)


def test_with_backoff_is_retried_a_bounded_number_of_times(root: Path) -> None:
    t = run_agent(ScriptedModel(ReadWholeFile("notes.txt")), Host(Registry([flaky_tool(root, 2)])))
    assert (t.calls, t.invalid_calls, t.steps_to_answer) == (3, 2, 3)
    assert len({str(s.arguments) for s in t.steps}) == 1  # the same call each time
    t = run_agent(ScriptedModel(ReadWholeFile("notes.txt")), Host(Registry([flaky_tool(root, 3)])))
    assert t.calls == 3
    assert t.final == FinalAnswer(
        "stopped on temporary_unavailable: next step retry_with_backoff", gave_up=True
    )


@pytest.mark.parametrize(
    ("path", "answer"),
    [
        ("missing.txt", "stopped on not_found: next step search_first"),
        ("../outside.txt", "stopped on outside_workspace: next step stop"),
    ],
)
def test_other_steps_of_the_decision_table_stop_the_script(
    root: Path, path: str, answer: str
) -> None:
    t = read(root, path, [])
    assert t.calls == 1 and t.final == FinalAnswer(answer, gave_up=True)


def test_an_unknown_tool_is_not_guessed_around(root: Path) -> None:
    class Typo:
        def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
            if transcript.steps:
                return FinalAnswer(
                    f"tools are {transcript.steps[-1].result['error']['allowed_values']}"
                )
            return ToolCall("readLines", {"path": "notes.txt", "start": 1, "count": 1})

    t = run_agent(Typo(), Host(rich(root)))
    assert (t.calls, t.steps[0].error_code, t.final) == (
        1,
        "unknown_tool",
        FinalAnswer("tools are ['read_lines']"),
    )


# --------------------------------------------------------------------------- ReviewPullRequest

FIRST_PAGE_BOTS = "1700000001, 1700000002, 1700000003, 1700000013, 1700000014, 1700000019, 1700000020, 1700000025, 1700000030"  # noqa: E501
OPEN_HUMAN = "1700000031, 1700000032, 1700000034, 1700000035, 1700000036, 1700000039, 1700000042, 1700000048, 1700000054, 1700000055, 1700000059, 1700000062, 1700000063, 1700000067, 1700000069"  # noqa: E501


@pytest.fixture(scope="module")
def github_registry() -> Iterator[Registry]:
    with serve(build_store()) as handle, GitHubClient(handle.base_url) as client:
        yield Registry(github_tool_specs(GitHubToolContext(client, CursorCodec(b"a" * 32))))


def review(registry: Registry, mistakes: list[Mistake], **goal: Any) -> Transcript:
    model = ScriptedModel(ReviewPullRequest("example/shop", 128, **goal), mistakes)
    return run_agent(model, Host(registry))


def test_review_pull_request_stopping_on_page_one_misses_the_open_remarks(
    github_registry: Registry,
) -> None:
    hasty = review(github_registry, [stop_on_first_page()], page_size=30)
    assert hasty.calls == 1
    assert hasty.final == FinalAnswer(
        "example/shop#128: read 30 comments on 1 page(s), coverage partial;"
        f" unresolved: {FIRST_PAGE_BOTS}"
    )
    assert hasty.steps[0].arguments == {"repository": "example/shop", "pr": 128, "page_size": 30}
    quiet = review(github_registry, [stop_on_first_page()], page_size=30, skip_bots=True)
    assert quiet.final is not None
    assert quiet.final.text == (
        "example/shop#128: read 30 comments on 1 page(s), coverage partial; unresolved: none"
    )


def test_review_pull_request_following_cursors_finds_the_double_rounding(
    github_registry: Registry,
) -> None:
    full = review(github_registry, [], page_size=30)
    assert full.calls == 3 and full.invalid_calls == 0
    assert [s.arguments.get("cursor") is None for s in full.steps] == [True, False, False]
    assert full.final is not None
    text = full.final.text
    assert text.startswith("example/shop#128: read 69 comments on 3 page(s), coverage complete;")
    assert "1700000042" in text.split("unresolved: ")[1].split(", ")
    assert len(text.split("unresolved: ")[1].split(", ")) == 33
    human = review(github_registry, [], page_size=30, skip_bots=True)
    assert human.final == FinalAnswer(
        "example/shop#128: read 69 comments on 3 page(s), coverage complete;"
        f" unresolved: {OPEN_HUMAN}"
    )
    default = review(github_registry, [])  # page_size 10: 7 pages, same comments
    assert default.calls == 7 and default.final is not None
    assert default.final.text.split("; ")[1] == text.split("; ")[1]
