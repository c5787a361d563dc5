"""Chapter 08's evaluation harness: the reader's rules, the task checks, the figures.

The figures asserted here come from real :func:`evaluate` runs (module fixtures): nothing
is hard-coded but the relations the chapter claims (v2 against v1, which fix removes which
failure, and how the figures move when only the text the reader is shown moves).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from tutorial_lib.agent.loop import FinalAnswer, Step, Transcript
from tutorial_lib.agent.reader import NeedPost, NeedRead, NeedReview, NeedStatus, NeedWait
from tutorial_lib.design.exports import tool_list_json
from tutorial_lib.worlds.evaluation import (
    TASKS,
    Estimate,
    EvalTask,
    EvaluationReport,
    RunSetup,
    blank_descriptions,
    drop_enums,
    drop_minimum,
    evaluate,
    first_call_invalid_ratio,
    open_comment_ids,
    shown_as,
    state_wrong_base,
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

BLANK = shown_as(V2, "blank", blank_descriptions)
BLANK_NO_MINIMUM = shown_as(V2, "blank, no minimum", blank_descriptions, drop_minimum)
BLANK_NO_ENUM = shown_as(V2, "blank, no enum", blank_descriptions, drop_enums)
WRONG_BASE = shown_as(V2, "wrong base", state_wrong_base)


@pytest.fixture(scope="module")
def report() -> EvaluationReport:
    return evaluate()


@pytest.fixture(scope="module")
def shown() -> EvaluationReport:
    return evaluate((V2, BLANK, BLANK_NO_MINIMUM, BLANK_NO_ENUM, WRONG_BASE))


# --------------------------------------------------------------------------- metrics


def step(number: int, ok: bool, name: str = "read_lines") -> Step:
    result: dict[str, Any] = {"ok": True, "data": {}} if ok else {"error": "INVALID_ARGUMENT"}
    code = None if ok else "INVALID_ARGUMENT"
    return Step(number, name, {"path": "a"}, result, 10, code, ok)


DONE = FinalAnswer("done")


def transcript(*oks: bool, final: FinalAnswer | None = DONE) -> Transcript:
    return Transcript([step(n, ok) for n, ok in enumerate(oks, 1)], final)


def test_first_call_invalid_ratio_counts_first_attempts_only() -> None:
    runs = [transcript(False, True), transcript(True, False), transcript(True)]
    assert first_call_invalid_ratio(runs) == pytest.approx(1 / 3)


def test_first_call_invalid_ratio_ignores_runs_without_calls() -> None:
    assert first_call_invalid_ratio([transcript(), transcript(False)]) == 1.0
    assert first_call_invalid_ratio([transcript()]) is None


def test_estimate_is_a_mean_with_a_t_interval() -> None:
    flat = Estimate.of([0.5] * 30)
    assert (flat.mean, flat.low, flat.high, flat.n) == (0.5, 0.5, 0.5, 30)
    spread = Estimate.of([0.0, 1.0] * 15)
    assert spread.mean == 0.5 and spread.low == pytest.approx(0.5 - 2.05 * 0.5085 / 30**0.5, 1e-3)
    assert not flat.overlaps(Estimate.of([0.9] * 30)) and flat.overlaps(spread)


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


def test_a_vaguer_declaration_refuses_the_same_values() -> None:
    # the shown schema loses its minimum; the real one still checks what runs
    with open_world() as world:
        loose = ablation("constraints").registry(world).get("read_lines")
        assert "minimum" not in loose.input_schema["properties"]["start"]
        from tutorial_lib.core.host import Host

        host = Host(ablation("constraints").registry(world), unguarded=True)
        refused = host.call("read_lines", {"path": "notes.txt", "start": 0, "count": 2})
        assert refused["ok"] is False and refused["error"]["field"] == "start"


# --------------------------------------------------------------------------- the task checks


def submitted(world: Any, kind: str, values: dict[str, Any] | None = None) -> None:
    entry: dict[str, Any] = {"kind": kind, "text": "..."}
    if values is not None:
        entry["values"] = values
    world.answers.submitted.append(entry)


NONE = Transcript([], DONE)


@pytest.mark.parametrize("said", [45, "45", "45 lines", 45.0])
def test_read_check_takes_the_count_in_any_plain_format(said: Any) -> None:
    task = EvalTask("t", "How many lines has long.txt?", NeedRead("long.txt"))
    with open_world() as world:
        assert not task.succeeded(world, NONE)  # nothing submitted
        submitted(world, "answer", {"line_count": said})
        assert task.succeeded(world, NONE)


@pytest.mark.parametrize("said", [20, "20 of 45 lines", True, "about 40-45"])
def test_read_check_refuses_a_wrong_or_unreadable_count(said: Any) -> None:
    task = EvalTask("t", "How many lines has long.txt?", NeedRead("long.txt"))
    with open_world() as world:
        submitted(world, "answer", {"line_count": said})
        assert not task.succeeded(world, NONE)


def test_status_check_reads_the_store_not_the_answer() -> None:
    task = EvalTask("t", "T-1 started", NeedStatus("T-1", "started"), target="active")
    with open_world() as world:
        submitted(world, "answer", {"status": "active"})
        assert not task.succeeded(world, NONE)  # the store still says backlog
        world.tasks.tasks["T-1"] = "active"
        assert task.succeeded(world, NONE)
        submitted(world, "cannot_complete")
        assert not task.succeeded(world, NONE)
    ticket = EvalTask("t", "SUP-7", NeedStatus("SUP-7", "resolved"), target="solved")
    with open_world() as world:
        world.desk.tickets["SUP-7"] = "closed"  # valid, but not what the user meant
        submitted(world, "answer", {"status": "closed"})
        assert not ticket.succeeded(world, NONE)


def test_job_check_knows_when_the_job_finishes() -> None:
    within = EvalTask("t", "J-1 30 s", NeedWait("J-1", 30))
    too_short = EvalTask("t", "J-2 30 s", NeedWait("J-2", 30))
    with open_world() as world:
        submitted(world, "answer", {"status": " Succeeded "})
        assert within.succeeded(world, NONE) and not too_short.succeeded(world, NONE)
        submitted(world, "answer", {"status": "running"})
        assert too_short.succeeded(world, NONE) and not within.succeeded(world, NONE)


def test_review_check_takes_ids_in_any_order_and_form() -> None:
    task = EvalTask("t", "open comments", NeedReview("example/shop", 128, 30))
    with open_world() as world:
        truth = open_comment_ids(world, "example/shop", 128)
        assert len(truth) == 33 and 1700000042 in truth
        assert len(open_comment_ids(world, "example/shop", 128, skip_bots=True)) == 15
        for said in (truth, [str(i) for i in reversed(truth)], ", ".join(map(str, truth))):
            submitted(world, "answer", {"comment_ids": said})
            assert task.succeeded(world, NONE)
        for wrong in (truth[:-1], [*truth, 1700000999], "none"):
            submitted(world, "answer", {"comment_ids": wrong})
            assert not task.succeeded(world, NONE)


def test_clarification_check_wants_a_question_and_no_reading() -> None:
    task = EvalTask("t", "PR 128?", NeedReview(None, 128), clarify=True)
    with open_world() as world:
        submitted(world, "question")
        assert task.succeeded(world, NONE)
        read_then_asked = Transcript([step(1, True, "github_pr_list_comments")], DONE)
        assert not task.succeeded(world, read_then_asked)
        submitted(world, "answer", {"comment_ids": []})
        assert not task.succeeded(world, NONE)


def test_write_check_wants_exactly_one_comment() -> None:
    task = EvalTask("t", "post", NeedPost("example/shop", 128, "Summary for the check test."))
    with open_world() as world:
        submitted(world, "answer", {"posted": True})
        assert not task.succeeded(world, NONE)  # nothing posted yet
        world.client.create_issue_comment("example/shop", 128, task.need.body)  # type: ignore[union-attr]
        assert task.succeeded(world, NONE)
        world.client.create_issue_comment("example/shop", 128, task.need.body)  # type: ignore[union-attr]
        assert not task.succeeded(world, NONE)  # posted twice


def test_the_task_set() -> None:
    assert len(TASKS) >= 20
    assert len({t.name for t in TASKS}) == len(TASKS)
    assert {t.role for t in TASKS} == {"read", "status", "job", "comments", "write", "ticket"}
    tags = set().union(*(t.tags for t in TASKS))
    assert {"paging", "units", "write", "clarify", "vocabulary"} <= tags
    assert any(t.faults == ("commit_then_timeout",) for t in TASKS)
    for task in TASKS:  # a real model is told how to answer
        assert "submit_answer" in task.request()


# --------------------------------------------------------------------------- the figures


def test_v2_against_v1_on_the_same_tasks(report: EvaluationReport) -> None:
    v1, v2 = report.of("v1"), report.of("v2")
    assert v1.seeds == v2.seeds == 30 and v1.tasks == v2.tasks == len(TASKS)
    assert v2.success.low > v1.success.high
    assert v2.first_invalid.high < v1.first_invalid.low
    assert v2.totals["invalid_calls"].mean < v1.totals["invalid_calls"].mean
    assert v2.shares["wrong_tool"].mean == 0 < v1.shares["wrong_tool"].mean
    assert v2.tool_list_chars > 2 * v1.tool_list_chars


def test_each_ablation_but_rich_errors_moves_a_figure_v2_has(report: EvaluationReport) -> None:
    v2 = report.of("v2")

    def moved(name: str) -> bool:
        figures = report.of(name)
        return bool(
            report.lost(name)
            or figures.first_invalid.mean > v2.first_invalid.mean
            or figures.totals["invalid_calls"].mean > v2.totals["invalid_calls"].mean
            or figures.tool_list_chars != v2.tool_list_chars
        )

    assert [v.name for v in ABLATIONS if not moved(v.name)] == [ablation("rich_errors").name]


def test_rich_errors_matter_where_a_first_call_fails() -> None:
    # in v2 no call fails, so taking rich errors out changes nothing; with the
    # descriptions blanked, calls fail and bare errors leave the reader guessing
    blank = shown_as(V2, "blank", blank_descriptions)
    bare = shown_as(ablation("rich_errors"), "blank", blank_descriptions)
    found = evaluate((blank, bare))
    assert (
        found.of(bare.name).totals["invalid_calls"].mean
        > 3 * found.of(blank.name).totals["invalid_calls"].mean
    )
    assert found.of(bare.name).totals["calls"].mean > found.of(blank.name).totals["calls"].mean


def test_which_fix_removes_which_failure(report: EvaluationReport) -> None:
    def lost(fix: str) -> set[str]:
        return {task for task, _, _ in report.lost(ablation(fix).name)}

    assert {"read long file", "read log", "open comments, page 10"} <= lost("paging")
    assert {"job within 30 s", "job within 2 min"} <= lost("units")
    assert lost("required_scope") == {"which PR 128?"}
    assert lost("safe_write") == {"summary under a timeout"}
    assert {"ticket solved", "ticket waiting"} <= lost("descriptions")
    # a unit left to the prior: only the readers that assume milliseconds succeed
    share = report.success_share(ablation("units").name, "job within 30 s")
    assert 0.2 < share < 0.8


def test_units_silently_accepted_are_valid_and_wrong(report: EvaluationReport) -> None:
    # valid is not correct: seconds sent as a bare timeout pass the schema and give a
    # wrong answer, so first-call validity does not move while success falls
    name = ablation("units").name
    runs = [r for r in report.runs if r.version == name and r.task == "job within 30 s"]
    wrong = [r for r in runs if not r.success]
    assert wrong and all(r.counts.first_invalid is False for r in wrong)


def test_the_write_behind_a_timeout(report: EvaluationReport) -> None:
    task = "summary under a timeout"
    plain = [r for r in report.runs if r.version == ablation("safe_write").name and r.task == task]
    assert all(r.counts.unknown_outcomes == 1 and r.counts.calls == 1 for r in plain)
    assert all(r.answer and r.answer["kind"] == "cannot_complete" for r in plain)
    v1 = [r for r in report.runs if r.version == "v1" and r.task == task]
    resent = [r for r in v1 if r.counts.duplicates == 1]
    assert resent and all(r.counts.unknown_outcomes == 1 for r in v1)
    assert all(report.run("v2", task, s).success for s in range(30))


def test_clarification_v2_asks_v1_picks_the_first(report: EvaluationReport) -> None:
    for task in ("which PR 128?", "PR 128 of 'shop'"):
        assert report.success_share("v2", task) == 1.0
        assert report.success_share("v1", task) == 0.0
        assert report.run("v2", task).counts.calls == 0


def test_tables_and_views_fit_96_characters_and_say_simulated(report: EvaluationReport) -> None:
    for lines in (report.table(), report.ablation_table()):
        assert lines[0].startswith("simulated reader:")
        assert all(len(line) <= 96 for line in lines)
    for run in report.runs[:: len(report.runs) // 40]:
        assert all(len(line) <= 96 for line in transcript_view(run.transcript))


def test_transcript_view_says_what_happened_next(report: EvaluationReport) -> None:
    view = transcript_view(report.run("v2", "task finished").transcript)
    assert view[0].startswith("1. task_set_status")
    assert any("submits answer" in line for line in view)


def test_sharing_runs_gives_the_figures_of_running_every_seed() -> None:
    versions, tasks = (V1, ablation("units")), TASKS[:3] + TASKS[14:19]
    shared = evaluate(versions, tasks, seeds=range(8))
    every = evaluate(versions, tasks, seeds=range(8), share_runs=False)
    assert shared.figures == every.figures
    assert [r.success for r in shared.runs] == [r.success for r in every.runs]


def test_two_runs_give_identical_reports() -> None:
    versions, tasks = (V1, V2), TASKS[::3]
    assert evaluate(versions, tasks, seeds=range(5)) == evaluate(versions, tasks, seeds=range(5))


# --------------------------------------------------------------------------- text moves figures


def test_blank_descriptions_cost_validity_and_success(shown: EvaluationReport) -> None:
    v2, blank = shown.of("v2"), shown.of(BLANK.name)
    assert blank.first_invalid.low > v2.first_invalid.high
    assert blank.success.high < v2.success.low
    assert blank.tool_list_chars < v2.tool_list_chars / 2
    assert {"ticket solved", "ticket waiting"} <= {t for t, _, _ in shown.lost(BLANK.name)}


def test_dropping_minimum_leaves_the_base_to_the_prior(shown: EvaluationReport) -> None:
    blank, no_min = shown.of(BLANK.name), shown.of(BLANK_NO_MINIMUM.name)
    assert no_min.first_invalid.low > blank.first_invalid.high
    # only the zero-based readers fail, so the interval is wide but clear of the rule's
    zero = [r for r in shown.runs if r.version == BLANK_NO_MINIMUM.name and r.task == "read notes"]
    share = sum(bool(r.counts.first_invalid) for r in zero) / len(zero)
    assert 0.2 < share < 0.8


def test_dropping_enums_costs_a_first_call(shown: EvaluationReport) -> None:
    blank, no_enum = shown.of(BLANK.name), shown.of(BLANK_NO_ENUM.name)
    assert no_enum.first_invalid.low > blank.first_invalid.high
    run = shown.run(BLANK_NO_ENUM.name, "task started")
    assert run.counts.first_invalid and run.success  # the rich error's allowed values fix it


def test_a_wrong_base_in_the_description_misleads_every_reader(shown: EvaluationReport) -> None:
    for task in ("read notes", "read config", "read log"):
        runs = [r for r in shown.runs if r.version == WRONG_BASE.name and r.task == task]
        assert len(runs) == 30 and all(r.counts.first_invalid for r in runs)
        assert all(r.transcript.steps[0].arguments["start"] == 0 for r in runs)


# --------------------------------------------------------------------------- other models


def test_any_model_can_take_the_readers_place() -> None:
    from tutorial_lib.agent.reader import Priors, ReaderModel

    seen: list[RunSetup] = []

    def factory(setup: RunSetup) -> ReaderModel:
        seen.append(setup)
        return ReaderModel(setup.task.need, setup.tools, Priors.draw(setup.seed))

    tasks = TASKS[:4]
    given = evaluate((V2,), tasks, seeds=range(3), model_factory=factory)
    default = evaluate((V2,), tasks, seeds=range(3))
    assert len(seen) == 12 and not given.simulated and default.simulated
    assert given.figures == default.figures
    assert given.table()[0].startswith("the models given:")
    assert seen[0].tools[0]["name"] == "read_lines" and "submit_answer" in seen[0].registry


def test_a_recorded_evaluation_replays_to_the_same_figures(tmp_path: Path) -> None:
    from tutorial_lib.agent.recording import ReplayMismatch, TranscriptLog
    from tutorial_lib.worlds.evaluation import recording, replaying

    versions, tasks = (V1, V2), TASKS[:2] + TASKS[10:12] + TASKS[18:19]
    log = TranscriptLog()
    recorded = evaluate(
        versions, tasks, seeds=range(3), model_factory=recording(log, date="2026-12-02")
    )
    assert recorded.figures == evaluate(versions, tasks, seeds=range(3)).figures
    path = tmp_path / "runs.jsonl"
    log.write(path)
    again = TranscriptLog.read(path)
    assert len(again.run_ids) == 2 * 5 * 3
    assert again.meta(again.run_ids[0])["model"] == "simulated-reader"
    replayed = evaluate(versions, tasks, seeds=range(3), model_factory=replaying(again))
    assert replayed.figures == recorded.figures
    assert [r.transcript for r in replayed.runs] == [r.transcript for r in recorded.runs]
    # another interface answers otherwise: the replay says where, instead of guessing
    with pytest.raises(ReplayMismatch):
        evaluate((ablation("paging"),), tasks[:1], seeds=range(1), model_factory=_renamed(again))


def _renamed(log: Any) -> Any:
    from tutorial_lib.agent.recording import ReplayModel

    return lambda setup: ReplayModel.from_log(log, f"v2 | {setup.task.name} | seed {setup.seed}")


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
