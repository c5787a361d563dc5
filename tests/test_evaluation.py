"""Chapter 08's evaluation harness: metrics, task checks, the figures of a real run.

The figures asserted here come from one real :func:`evaluate` run (a module fixture):
nothing is hard-coded but the relations the chapter claims (v2 against v1, and which fix
removes which failure).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from tutorial_lib.agent.loop import FinalAnswer, Step, Transcript, zero_based_lines
from tutorial_lib.design.exports import tool_list_json
from tutorial_lib.worlds.evaluation import (
    TASKS,
    EvalTask,
    EvaluationReport,
    Habit,
    JobIntent,
    PostIntent,
    ReadIntent,
    ReviewIntent,
    StatusIntent,
    evaluate,
    first_call_invalid_ratio,
    open_comment_ids,
    transcript_view,
)
from tutorial_lib.worlds.interfaces import (
    ABLATIONS,
    FIX_NAMES,
    V1,
    V2,
    VERSIONS,
    Fixes,
    ablation,
    open_world,
    tool_list_chars,
)

PACKAGE = Path(__file__).resolve().parents[1] / "tutorial_lib"


@pytest.fixture(scope="module")
def report() -> EvaluationReport:
    return evaluate()


# --------------------------------------------------------------------------- metrics


def step(number: int, ok: bool) -> Step:
    result: dict[str, Any] = {"ok": True, "data": {}} if ok else {"error": "INVALID_ARGUMENT"}
    code = None if ok else "INVALID_ARGUMENT"
    return Step(number, "read_lines", {"path": "a"}, result, 10, code, ok)


DONE = FinalAnswer("done")


def transcript(*oks: bool, final: FinalAnswer | None = DONE) -> Transcript:
    return Transcript([step(n, ok) for n, ok in enumerate(oks, 1)], final)


def test_first_call_invalid_ratio_counts_first_attempts_only() -> None:
    retried_then_valid = transcript(False, True)
    assert retried_then_valid.final == FinalAnswer("done")  # it succeeded in the end...
    assert first_call_invalid_ratio([retried_then_valid]) == 1.0  # ...its first call did not
    assert first_call_invalid_ratio([retried_then_valid, transcript(True)]) == 0.5
    assert first_call_invalid_ratio([transcript(True, False, False)]) == 0.0
    assert first_call_invalid_ratio([transcript(False), transcript(False, False)]) == 1.0


def test_first_call_invalid_ratio_ignores_runs_without_calls() -> None:
    asked = transcript(final=FinalAnswer("question: which repository?"))
    assert first_call_invalid_ratio([]) is None
    assert first_call_invalid_ratio([asked, Transcript()]) is None
    assert first_call_invalid_ratio([asked, transcript(False, True), transcript(True)]) == 0.5


def test_habits_fire_unless_the_named_fix_is_in() -> None:
    prevented = Habit(zero_based_lines(None), "declarations")
    stubborn = Habit(zero_based_lines(None))
    assert not prevented.fires(V2) and prevented.fires(V1)
    assert prevented.fires(ablation("declarations")) and not prevented.fires(ablation("units"))
    assert stubborn.fires(V2) and stubborn.fires(V1)


def test_versions_take_out_exactly_one_fix_each() -> None:
    assert V2.fixes == Fixes() and V1.fixes.missing() == list(FIX_NAMES)
    assert [v.fixes.missing() for v in ABLATIONS] == [[name] for name in FIX_NAMES]
    assert [v.name for v in VERSIONS][:2] == ["v1", "v2"]
    assert all(v.name.startswith("v2 - ") for v in ABLATIONS)
    with pytest.raises(KeyError):
        Fixes().without("speed")


def test_tool_list_chars_is_the_anthropic_tool_list() -> None:
    for version in VERSIONS:
        with open_world() as world:
            specs = version.specs(world)
        assert tool_list_chars(specs) == len(tool_list_json(specs, "anthropic"))


# --------------------------------------------------------------------------- the task checks


def answered(text: str, *, gave_up: bool = False) -> Transcript:
    return Transcript([], FinalAnswer(text, gave_up))


def test_read_check_uses_the_files_real_length() -> None:
    intent = ReadIntent("long.txt")
    with open_world() as world:
        assert intent.succeeded(world, answered("long.txt: read all 45 lines"))
        assert not intent.succeeded(world, answered("long.txt: read all 20 lines"))
        assert not intent.succeeded(world, answered("long.txt: read all 45 lines", gave_up=True))


def test_status_check_reads_the_store_and_the_answer() -> None:
    intent = StatusIntent("T-1", "in_progress")
    with open_world() as world:
        claim = answered("T-1 is now in_progress")
        assert not intent.succeeded(world, claim)  # the store still says todo
        world.tasks.tasks["T-1"] = "in_progress"
        assert intent.succeeded(world, claim)
        assert not intent.succeeded(world, answered("T-1 is now doing"))
    ticket = StatusIntent("SUP-7", "solved")
    with open_world() as world:
        world.desk.tickets["SUP-7"] = "closed"
        assert not ticket.succeeded(world, answered("SUP-7 is now closed"))
        world.desk.tickets["SUP-7"] = "solved"
        assert ticket.succeeded(world, answered("SUP-7 is now solved"))


def test_job_check_knows_when_the_job_finishes() -> None:
    with open_world() as world:
        assert JobIntent("J-1", 30).succeeded(world, answered("job J-1: succeeded"))
        assert not JobIntent("J-1", 30).succeeded(world, answered("job J-1: running"))
        assert not JobIntent("J-2", 30).succeeded(world, answered("job J-2: succeeded"))


def test_review_check_compares_with_the_emulators_open_comments() -> None:
    intent = ReviewIntent("example/shop", 128, 30)
    with open_world() as world:
        truth = open_comment_ids(world, "example/shop", 128)
        assert len(truth) == 33 and 1700000042 in truth
        assert len(open_comment_ids(world, "example/shop", 128, skip_bots=True)) == 15
        head = "example/shop#128: read 69 comments on 3 page(s), coverage complete"
        right = answered(f"{head}; unresolved: {', '.join(map(str, truth))}")
        missing = answered(f"{head}; unresolved: {', '.join(map(str, truth[:-1]))}")
        other = answered(f"other/shop#128: read 3; unresolved: {', '.join(map(str, truth))}")
        assert intent.succeeded(world, right)
        assert not intent.succeeded(world, missing)
        assert not intent.succeeded(world, other)


def test_clarification_check_wants_a_question_and_no_reading() -> None:
    intent = ReviewIntent(None, 128, clarify=True)
    with open_world() as world:
        assert intent.succeeded(world, answered("question: which repository do you mean?"))
        assert not intent.succeeded(world, answered("example/shop#128: ...; unresolved: none"))
        read_then_asked = Transcript([step(1, True)], FinalAnswer("question: which one?"))
        assert not intent.succeeded(world, read_then_asked)


def test_write_check_wants_exactly_one_comment() -> None:
    intent = PostIntent("example/shop", 128, "Summary for the check test.")
    done = answered("comment on example/shop#128: posted")
    with open_world() as world:
        assert not intent.succeeded(world, done)  # nothing posted yet
        world.client.create_issue_comment("example/shop", 128, intent.body)
        assert intent.succeeded(world, done)
        assert not intent.succeeded(world, answered("unknown", gave_up=True))
        world.client.create_issue_comment("example/shop", 128, intent.body)
        assert not intent.succeeded(world, done)  # posted twice


def test_the_task_set() -> None:
    assert len(TASKS) >= 20
    assert len({t.name for t in TASKS}) == len(TASKS)
    roles = {t.intent.role for t in TASKS}
    assert roles == {"read", "status", "job", "comments", "write", "ticket"}
    tags = set().union(*(t.tags for t in TASKS))
    assert {"paging", "listing", "units", "write", "clarify", "stubborn", "habit"} <= tags
    assert any(t.faults == ("commit_then_timeout",) for t in TASKS)


# --------------------------------------------------------------------------- the figures


def test_v2_against_v1_on_the_same_tasks(report: EvaluationReport) -> None:
    v1, v2 = report.of("v1"), report.of("v2")
    assert v1.tasks == v2.tasks == len(TASKS)
    assert v1.first_call_invalid is not None and v2.first_call_invalid is not None
    assert v2.first_call_invalid <= v1.first_call_invalid / 2
    assert v2.mean_steps < v1.mean_steps
    assert v2.result_chars < v1.result_chars
    assert v2.success_rate >= v1.success_rate
    assert v2.invalid_calls < v1.invalid_calls
    assert v2.tool_list_chars > v1.tool_list_chars  # the price of v2: a longer tool list


def tags_of(names: list[str]) -> list[frozenset[str]]:
    by_name: dict[str, EvalTask] = {t.name: t for t in TASKS}
    return [by_name[name].tags for name in names]


def test_each_ablation_loses_something_v2_has(report: EvaluationReport) -> None:
    v2 = report.of("v2")
    for version in ABLATIONS:
        figures = report.of(version.name)
        assert report.lost(version.name), version.name
        assert figures.success_rate < v2.success_rate, version.name


def test_which_fix_removes_which_failure(report: EvaluationReport) -> None:
    lost = {fix: report.lost(ablation(fix).name) for fix in FIX_NAMES}
    # bare errors: a habit the declaration does not prevent can no longer be corrected,
    # and a refused repository can no longer be asked about
    assert all(tags & {"stubborn", "clarify"} for tags in tags_of(lost["rich_errors"]))
    assert all("units" in tags for tags in tags_of(lost["units"]))
    assert {"job within 30 s", "job within 2 min"} <= set(lost["units"])
    assert all(tags & {"paging", "listing"} for tags in tags_of(lost["coverage"]))
    assert "open comments, page 10" in lost["coverage"]
    assert all("clarify" in tags for tags in tags_of(lost["declarations"]))
    assert lost["safe_write"] == ["summary under a timeout"]
    # vague declarations also let the habits fire: more invalid first calls, more steps
    vague, v2 = report.of(ablation("declarations").name), report.of("v2")
    assert vague.first_call_invalid is not None and v2.first_call_invalid is not None
    assert vague.first_call_invalid > v2.first_call_invalid
    assert vague.mean_steps > v2.mean_steps
    # rich errors do not change the first call: they change what follows it
    bare = report.of(ablation("rich_errors").name)
    assert bare.first_call_invalid == v2.first_call_invalid
    assert bare.invalid_calls > v2.invalid_calls


def test_the_write_behind_a_timeout(report: EvaluationReport) -> None:
    safe = report.run("v2", "summary under a timeout").transcript
    plain = report.run("v1", "summary under a timeout").transcript
    assert safe.calls == 1 and safe.steps[0].ok
    assert plain.calls == 2 and not plain.steps[0].ok  # resent after the timeout: twice


def test_clarification_v2_asks_v1_picks_the_first(report: EvaluationReport) -> None:
    asked = report.run("v2", "which PR 128?").transcript
    assert asked.calls == 0 and asked.final is not None
    assert asked.final.text.startswith("question: which repository")
    refused = report.run("v2", "PR 128 of 'shop'").transcript
    assert refused.calls == 1 and refused.steps[0].error_code == "invalid_value"
    for task in ("which PR 128?", "PR 128 of 'shop'"):
        picked = report.run("v1", task).transcript
        assert picked.calls == 1 and picked.steps[0].ok
        assert picked.steps[0].result["data"]["repository"] == "example/shop"


def test_tables_and_views_fit_96_characters(report: EvaluationReport) -> None:
    table = report.table()
    assert len(table) == len(VERSIONS) + 1
    assert [line.split()[0] for line in table[1:3]] == ["v1", "v2"]
    lines = table + report.ablation_table()
    for result in report.runs:
        view = transcript_view(result.transcript)
        assert len(view) >= 1
        lines += view
    assert max(len(line) for line in lines) <= 96


def test_transcript_view_says_what_happened_next(report: EvaluationReport) -> None:
    view = transcript_view(report.run("v2", "read report, strings").transcript)
    assert view[0] == '1. read_lines path="report.md" start="1" count="20"'
    assert view[1].startswith("   -> invalid_type on start; expected integer")
    assert view[2] == '   next: changes start "1"->1'
    assert view[-1] == "answers: report.md: read all 33 lines"
    bare = transcript_view(report.run("v1", "task started").transcript)
    assert bare[1] == "   -> bare INVALID_ARGUMENT (28 chars)"
    assert bare[-1].startswith("gives up: gave up after 5 failed calls")
    asked = transcript_view(report.run("v2", "which PR 128?").transcript)
    assert asked == ["asks the user: which repository do you mean? It is required"]


def test_two_runs_give_identical_reports(report: EvaluationReport) -> None:
    again = evaluate()
    assert again == report
    assert again.table() == report.table()


# --------------------------------------------------------------------------- layers


@pytest.mark.parametrize("module", ["evaluation.py", "interfaces.py"])
def test_the_harness_stays_off_the_course(module: str) -> None:
    allowed = {"core", "workspace", "github", "examples", "emulator", "agent", "worlds"}
    tree = ast.parse((PACKAGE / "worlds" / module).read_text(encoding="utf-8"))
    found = [
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    ] + [a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names]
    ours = [name for name in found if name.startswith("tutorial_lib")]
    assert ours, module
    assert {name.split(".")[1] for name in ours} <= allowed
    assert not any(name.split(".")[1] in ("course", "design") for name in ours)
