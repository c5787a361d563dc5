"""Chapter 08's evaluation harness: the same tasks, every interface version, many readers.

:func:`evaluate` runs every :class:`EvalTask` of :data:`TASKS` with every
:class:`~tutorial_lib.worlds.interfaces.InterfaceVersion` (v1, v2 and the one-fix-out
ablations), for several seeds, each run in a fresh
:class:`~tutorial_lib.worlds.interfaces.World`.

**Who acts.** By default a **simulated reader**
(:class:`~tutorial_lib.agent.reader.ReaderModel`): every choice it makes is a function of
the exported tool list it is shown, the results it reads back and its priors, which are
drawn per seed (:class:`~tutorial_lib.agent.reader.Priors`), so each seed is another
reader. It is not a language model, and every table here says "simulated reader". Any
other model of the loop's protocol can take its place: ``model_factory`` (a real model,
or a :class:`~tutorial_lib.agent.recording.ReplayModel` of a recorded run).

**How a run is judged: by the world, never by strings.** Every run answers through the
``submit_answer`` tool (``kind`` and ``values``); :meth:`EvalTask.succeeded` compares the
world's state after the run (the task tracker, the ticket desk, the comments on the PR)
and the submitted values, read leniently (``"20"``, ``20`` and ``"20 lines"`` are the same
count; comment ids in any order, as numbers or strings), with ground truth computed from
the world (the file's real length, the PR's open comments read straight from the
emulator, the job's finishing time). The same check would judge a real model.

**What is counted, separately** (:class:`RunCounts`): whether the first call was refused
for its arguments (schema or business check), whether it went to the wrong tool, invalid
calls in all, unknown outcomes (a timeout after which nobody knows whether the write
happened: not an invalid argument), authorization refusals, clarifying questions, calls,
and characters in (the tool list resent with every request, plus the results) and out
(the arguments). Per version, each figure is a mean over the seeds with a 95% interval
(:class:`Estimate`).

Deterministic: the same arguments give an equal report. The reader's choices depend only
on the priors it consulted (``ReaderModel.consulted``), so a run is made once per distinct
set of consulted priors and shared by the seeds that agree on them: the same figures as
running every seed, in a fraction of the time (a test checks it).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tutorial_lib.agent.loop import Model, Transcript, run_agent
from tutorial_lib.agent.reader import (
    ANSWER_TOOL,
    Need,
    NeedPost,
    NeedRead,
    NeedReview,
    NeedStatus,
    NeedWait,
    Priors,
    ReaderModel,
)
from tutorial_lib.agent.real_models import anthropic_tools
from tutorial_lib.agent.recording import RecordingModel, ReplayModel, TranscriptLog
from tutorial_lib.core.contracts import CATALOGUE
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import StepClock
from tutorial_lib.core.tools import Registry
from tutorial_lib.emulator.faults import FaultKind
from tutorial_lib.github.reads import summarize_comment
from tutorial_lib.worlds.interfaces import (
    JOBS,
    VERSIONS,
    InterfaceVersion,
    World,
    open_world,
)

__all__ = [
    "SEEDS",
    "TASKS",
    "EvalTask",
    "EvaluationReport",
    "Estimate",
    "RunCounts",
    "RunResult",
    "RunSetup",
    "VersionFigures",
    "blank_descriptions",
    "drop_enums",
    "drop_examples",
    "drop_minimum",
    "evaluate",
    "first_call_invalid_ratio",
    "open_comment_ids",
    "reader_factory",
    "recording",
    "replaying",
    "run_id",
    "shown_as",
    "state_wrong_base",
    "transcript_view",
]

#: How many simulated readers (seeds) :func:`evaluate` runs by default.
SEEDS = 30
#: Longest line :func:`transcript_view` and the tables produce.
MAX_VIEW_CHARS = 96
#: Student's t for a two-sided 95% interval, by degrees of freedom (larger: 1.96).
_T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 9: 2.26, 19: 2.09, 29: 2.05}


# --------------------------------------------------------------------------- reading answers


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        found = re.findall(r"-?\d+", value)
        return int(found[0]) if len(found) == 1 else None
    return None


def _as_ids(value: Any) -> set[int] | None:
    if isinstance(value, str):
        value = re.findall(r"\d+", value)
    if not isinstance(value, list | tuple):
        return None
    ids = {_as_int(v) for v in value}
    return None if None in ids else {i for i in ids if i is not None}


def _as_word(value: Any) -> str | None:
    return re.sub(r"[\s-]+", "_", value.strip().lower()) if isinstance(value, str) else None


def _answer(world: World) -> tuple[str | None, dict[str, Any]]:
    """The kind and values of the run's last submitted answer."""
    last = world.answers.last
    if last is None:
        return None, {}
    values = last.get("values")
    return str(last.get("kind")), values if isinstance(values, dict) else {}


def _value(values: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in values:
            return values[name]
    return None


# --------------------------------------------------------------------------- ground truth


def open_comment_ids(
    world: World, repository: str, pr: int, *, skip_bots: bool = False
) -> list[int]:
    """Ground truth, read straight from the emulator (not through any tool under test):
    the ids of ``repository#pr``'s review comments that are neither resolved nor
    outdated, ascending; with ``skip_bots`` without the bots' ones."""
    states = world.client.review_threads(repository, pr)
    first = world.client.list_review_comments_page(repository, pr, per_page=100)
    comments = [c for page in world.client.iter_pages(first) for c in page.comments]
    ids = []
    for comment in comments:
        state = states.get(comment["id"])
        resolved = state.resolved if state else False
        outdated = state.outdated if state else comment.get("line") is None
        user = comment.get("user") or {}
        summary = summarize_comment(
            str(comment.get("body") or ""),
            str(user.get("login") or ""),
            author_type=user.get("type"),
        )
        if resolved or outdated or (skip_bots and summary.startswith("Bot:")):
            continue
        ids.append(comment["id"])
    return sorted(ids)


# --------------------------------------------------------------------------- tasks


@dataclass(frozen=True)
class EvalTask:
    """One task: what the user asked (``prompt``, what a real model reads), what the
    simulated reader understood of it (``need``), the value a status task must end with
    (``target``), the faults the emulator injects, and ``tags`` naming what it exercises.
    ``clarify``: the request is ambiguous and the right outcome is a question."""

    name: str
    prompt: str
    need: Need
    target: str | None = None
    clarify: bool = False
    faults: tuple[FaultKind, ...] = ()
    tags: frozenset[str] = frozenset()

    @property
    def role(self) -> str:
        """The role (a key of :data:`~tutorial_lib.worlds.interfaces.ROLES`) of the tool
        the task needs."""
        need = self.need
        if isinstance(need, NeedStatus):
            return "ticket" if need.item.startswith("SUP-") else "status"
        return {"read": "read", "wait": "job", "review": "comments", "post": "write"}[need.kind]

    def request(self) -> str:
        """The user's request as a real model is given it: the prompt, and how to answer."""
        fields = {
            "read": '{"line_count": <number of lines>}',
            "status": '{"status": <the status now set>}',
            "wait": '{"status": <the job status when the wait ended>}',
            "review": '{"comment_ids": [<ids of the unresolved, current comments>]}',
            "post": '{"posted": true}',
        }[self.need.kind]
        return (
            f"{self.prompt}\nWhen you are done, call submit_answer with kind 'answer' and"
            f" values {fields}; if the request is ambiguous, kind 'question' and the question"
            " in text; if it cannot be done, kind 'cannot_complete'."
        )

    def succeeded(self, world: World, transcript: Transcript) -> bool:
        """Judged by the world's state and the submitted answer, read leniently (see the
        module docstring); never by the answer's wording."""
        kind, values = _answer(world)
        need = self.need
        if self.clarify:
            read_any = any(s.ok and s.name != ANSWER_TOOL for s in transcript.steps)
            return kind == "question" and not read_any
        if kind != "answer":
            return False
        if isinstance(need, NeedRead):
            lines = len((world.root / need.path).read_text(encoding="utf-8").splitlines())
            return _as_int(_value(values, "line_count", "lines", "count")) == lines
        if isinstance(need, NeedStatus):
            store = world.desk.tickets if need.item.startswith("SUP-") else world.tasks.tasks
            return store.get(need.item) == self.target
        if isinstance(need, NeedWait):
            truth = "succeeded" if JOBS[need.job_id] <= need.seconds * 1000 else "running"
            return _as_word(_value(values, "status", "state")) == truth
        if isinstance(need, NeedReview):
            assert need.repository is not None
            expected = open_comment_ids(world, need.repository, need.pr, skip_bots=need.humans_only)
            return _as_ids(_value(values, "comment_ids", "ids", "comments")) == set(expected)
        assert isinstance(need, NeedPost)
        bodies = [c.body for c in world.store.issue_comments(need.repository, need.pr)]
        return sum(need.body in b for b in bodies) == 1 and bool(_value(values, "posted"))


#: The evaluation's tasks (23), over every tool family of the course and one ticket tool.
TASKS: tuple[EvalTask, ...] = (
    EvalTask("read notes", "How many lines has notes.txt?", NeedRead("notes.txt")),
    EvalTask("read config", "Read config.toml in full.", NeedRead("config.toml")),
    EvalTask(
        "read report", "How long is report.md?", NeedRead("report.md"), tags=frozenset({"paging"})
    ),
    EvalTask(
        "read long file",
        "How many lines has long.txt?",
        NeedRead("long.txt"),
        tags=frozenset({"paging"}),
    ),
    EvalTask("read log", "Read all of app.log.", NeedRead("app.log"), tags=frozenset({"paging"})),
    EvalTask(
        "open comments, page 10",
        "List every unresolved comment of example/shop PR 128.",
        NeedReview("example/shop", 128, 10),
        tags=frozenset({"paging"}),
    ),
    EvalTask(
        "open comments, page 30",
        "List every unresolved comment of example/shop PR 128 (30 a page).",
        NeedReview("example/shop", 128, 30),
        tags=frozenset({"paging"}),
    ),
    EvalTask(
        "open comments, page 80",
        "List every unresolved comment of example/shop PR 128, 80 a page.",
        NeedReview("example/shop", 128, 80),
        tags=frozenset({"paging"}),
    ),
    EvalTask(
        "human comments, page 25",
        "Which human review remarks on example/shop PR 128 are still open?",
        NeedReview("example/shop", 128, 25, humans_only=True),
        tags=frozenset({"paging"}),
    ),
    EvalTask(
        "small PR comments",
        "List the unresolved comments of other/shop PR 128.",
        NeedReview("other/shop", 128, 10),
    ),
    EvalTask(
        "task started",
        "I've started on T-1, mark it.",
        NeedStatus("T-1", "started"),
        target="active",
        tags=frozenset({"vocabulary"}),
    ),
    EvalTask(
        "task finished",
        "T-3 is finished.",
        NeedStatus("T-3", "finished"),
        target="shipped",
        tags=frozenset({"vocabulary"}),
    ),
    EvalTask(
        "task on hold",
        "T-2 is on hold until the vendor answers.",
        NeedStatus("T-2", "paused"),
        target="on_hold",
        tags=frozenset({"vocabulary"}),
    ),
    EvalTask(
        "task back to backlog",
        "Move T-4 back to the backlog.",
        NeedStatus("T-4", "not_started"),
        target="backlog",
    ),
    EvalTask(
        "job within 30 s",
        "Wait up to 30 s for J-1 and tell me how it ended.",
        NeedWait("J-1", 30),
        tags=frozenset({"units"}),
    ),
    EvalTask(
        "job within 2 min",
        "Give J-2 two minutes to finish.",
        NeedWait("J-2", 120),
        tags=frozenset({"units"}),
    ),
    EvalTask(
        "job within 45 s",
        "Wait up to 45 s for J-4.",
        NeedWait("J-4", 45),
        tags=frozenset({"units"}),
    ),
    EvalTask("quick job", "Is J-3 done? Wait 5 s at most.", NeedWait("J-3", 5)),
    EvalTask(
        "summary under a timeout",
        "Post the review summary on example/shop PR 128.",
        NeedPost("example/shop", 128, "Review summary: 3 blocking remarks remain."),
        faults=("commit_then_timeout",),
        tags=frozenset({"write"}),
    ),
    EvalTask(
        "which PR 128?",
        "What is still open on PR 128?",
        NeedReview(None, 128),
        clarify=True,
        tags=frozenset({"clarify"}),
    ),
    EvalTask(
        "PR 128 of 'shop'",
        "What is still open on PR 128 of shop?",
        NeedReview("shop", 128),
        clarify=True,
        tags=frozenset({"clarify"}),
    ),
    EvalTask(
        "ticket solved",
        "SUP-7 is resolved, update the ticket.",
        NeedStatus("SUP-7", "resolved"),
        target="solved",
        tags=frozenset({"vocabulary"}),
    ),
    EvalTask(
        "ticket waiting",
        "We're waiting on the customer for SUP-9.",
        NeedStatus("SUP-9", "waiting_on_customer"),
        target="pending",
        tags=frozenset({"vocabulary"}),
    ),
)


# --------------------------------------------------------------------------- shown text


Tools = list[dict[str, Any]]


def _each_property(
    tools: Sequence[Mapping[str, Any]], change: Callable[[dict[str, Any]], None]
) -> Tools:
    out = json.loads(json.dumps(list(tools)))
    for tool in out:
        for prop in ((tool.get("input_schema") or {}).get("properties") or {}).values():
            if isinstance(prop, dict):
                change(prop)
    return out


def blank_descriptions(tools: Sequence[Mapping[str, Any]]) -> Tools:
    """The tool list with every tool description replaced by "Does it." and every
    property description deleted (examples in them go too)."""
    out = _each_property(tools, lambda prop: prop.pop("description", None))
    for tool in out:
        tool["description"] = "Does it."
    return out


def drop_minimum(tools: Sequence[Mapping[str, Any]]) -> Tools:
    """The tool list without any ``minimum`` / ``exclusiveMinimum``."""

    def change(prop: dict[str, Any]) -> None:
        prop.pop("minimum", None)
        prop.pop("exclusiveMinimum", None)

    return _each_property(tools, change)


def drop_enums(tools: Sequence[Mapping[str, Any]]) -> Tools:
    """The tool list without any ``enum``."""
    return _each_property(tools, lambda prop: prop.pop("enum", None))


def drop_examples(tools: Sequence[Mapping[str, Any]]) -> Tools:
    """The tool list without examples: ``Example:``/``Not:`` lines of descriptions,
    ``e.g. ...`` asides and the schemas' ``examples``."""

    def plain(text: str) -> str:
        text = re.sub(r"\n?(Example|Not):[^\n]*", "", text)
        return re.sub(r",? e\.g\. [^.;)]*", "", text)

    def change(prop: dict[str, Any]) -> None:
        prop.pop("examples", None)
        if isinstance(prop.get("description"), str):
            prop["description"] = plain(prop["description"])

    out = _each_property(tools, change)
    for tool in out:
        tool["description"] = plain(str(tool.get("description", "")))
        (tool.get("input_schema") or {}).pop("examples", None)
    return out


def state_wrong_base(tools: Sequence[Mapping[str, Any]]) -> Tools:
    """The tool list with ``minimum`` dropped and every "from 1" statement of the line
    base turned into "from 0": a declaration that states the wrong base."""
    out = drop_minimum(tools)

    def wrong(text: str) -> str:
        text = text.replace("1-based", "0-based").replace("counted from 1", "counted from 0")
        text = text.replace("the first line of the file is 1, not 0", "the first line is 0")
        text = text.replace("numbered from 1", "numbered from 0")
        return re.sub(r'"start": 1\b', '"start": 0', text)

    for tool in out:
        tool["description"] = wrong(str(tool.get("description", "")))
        for prop in ((tool.get("input_schema") or {}).get("properties") or {}).values():
            if isinstance(prop, dict) and isinstance(prop.get("description"), str):
                prop["description"] = wrong(prop["description"])
    return out


def shown_as(
    version: InterfaceVersion, label: str, *changes: Callable[[Sequence[Mapping[str, Any]]], Tools]
) -> InterfaceVersion:
    """``version`` whose tools behave as before but are SHOWN changed by ``changes``
    (e.g. :func:`blank_descriptions`): a counterfactual of the text alone."""
    return replace(version, name=f"{version.name} ({label})", shown=tuple(changes))


# --------------------------------------------------------------------------- counting


def _is_invalid(result: Mapping[str, Any]) -> bool:
    """Refused for its arguments (schema or business check), bare or rich."""
    error = result.get("error")
    if not isinstance(error, Mapping):
        return error == "INVALID_ARGUMENT"
    code = str(error.get("code"))
    if error.get("operation_state") == "unknown" or code not in CATALOGUE:
        return False
    return CATALOGUE[code].retry == "after_input_correction" or code == "not_found"


@dataclass(frozen=True)
class RunCounts:
    """What one run cost, counted separately (the answer call is not a work call).

    ``first_invalid`` / ``wrong_tool``: of the first work call (None: no work call);
    ``unknown_outcomes``: calls whose outcome was unknown to the caller: the operator's
    log says so, or (a bare tool's log cannot) the emulator's timeouts that fired;
    ``questions``: clarifying questions submitted; ``chars_in``: the tool list once per
    request plus every result; ``chars_out``: the arguments of every call.
    """

    first_invalid: bool | None
    wrong_tool: bool | None
    invalid_calls: int
    unknown_outcomes: int
    authorization_refusals: int
    questions: int
    calls: int
    chars_in: int
    chars_out: int
    duplicates: int


def _counts(
    task: EvalTask,
    version: InterfaceVersion,
    transcript: Transcript,
    host: Host,
    world: World,
    tool_chars: int,
) -> RunCounts:
    work = [s for s in transcript.steps if s.name != ANSWER_TOOL]
    expected = version.tool_name(task.role)
    executed = [r for r in host.log if r.station != "find_tool"]
    # a bare tool's log cannot say "unknown": count the emulator's timeouts that fired too
    steps = world.faults.steps
    taken = steps[: len(steps) - world.faults.remaining]
    timeouts = sum(step is not None and "timeout" in step.kind for step in taken)
    unknown = max(timeouts, sum(r.operation_state == "unknown" for r in executed))
    refused = sum(r.station == "authorization" for r in executed)
    questions = sum(
        s.ok and isinstance(s.arguments, dict) and s.arguments.get("kind") == "question"
        for s in transcript.steps
    )
    requests = len(transcript.steps) + (1 if transcript.final is not None else 0)
    duplicates = 0
    if isinstance(task.need, NeedPost):
        bodies = [c.body for c in world.store.issue_comments(task.need.repository, task.need.pr)]
        duplicates = max(0, sum(task.need.body in b for b in bodies) - 1)
    return RunCounts(
        first_invalid=_is_invalid(work[0].result) if work else None,
        wrong_tool=(work[0].name != expected) if work else None,
        invalid_calls=sum(_is_invalid(s.result) for s in work),
        unknown_outcomes=unknown,
        authorization_refusals=refused,
        questions=questions,
        calls=len(work),
        chars_in=tool_chars * requests + transcript.total_result_chars,
        chars_out=sum(
            len(json.dumps(s.arguments, ensure_ascii=False, separators=(",", ":")))
            for s in transcript.steps
        ),
        duplicates=duplicates,
    )


def first_call_invalid_ratio(transcripts: Sequence[Transcript]) -> float | None:
    """Runs whose FIRST call failed / runs that made a call (None if none made one).

    A run that failed first and then succeeded on a retry still counts as invalid: the
    figure measures how usable the interface is on the first attempt (A9).
    """
    made = [t for t in transcripts if t.steps]
    if not made:
        return None
    return sum(not t.steps[0].ok for t in made) / len(made)


# --------------------------------------------------------------------------- figures


@dataclass(frozen=True)
class Estimate:
    """A mean over seeds and its two-sided 95% interval (Student's t); ``n`` seeds."""

    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Estimate:
        """The estimate of ``values`` (one per seed)."""
        n = len(values)
        if n == 0:
            return cls(math.nan, math.nan, math.nan, 0)
        mean = sum(values) / n
        if n == 1:
            return cls(mean, mean, mean, 1)
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        t = _T95.get(n - 1) or next((v for k, v in sorted(_T95.items()) if k >= n - 1), 1.96)
        half = t * sd / math.sqrt(n)
        return cls(mean, mean - half, mean + half, n)

    def overlaps(self, other: Estimate) -> bool:
        """Whether the two intervals share a point."""
        return self.low <= other.high and other.low <= self.high

    def percent(self) -> str:
        """``"42% [38-46]"``."""
        return f"{self.mean:.0%} [{max(self.low, 0):.0%}-{min(self.high, 1):.0%}]".replace(
            "%-", "-"
        )


@dataclass(frozen=True)
class RunResult:
    """One task run with one version and one seed: its transcript, counts and success."""

    task: str
    version: str
    seed: int
    transcript: Transcript
    success: bool
    counts: RunCounts
    answer: dict[str, Any] | None


_SHARES = ("success", "first_invalid", "wrong_tool")
_TOTALS = (
    "invalid_calls",
    "unknown_outcomes",
    "authorization_refusals",
    "questions",
    "calls",
    "chars_in",
    "chars_out",
    "duplicates",
)


@dataclass(frozen=True)
class VersionFigures:
    """One version's figures: per seed over all tasks, then an :class:`Estimate` over seeds.

    Shares: ``success`` (tasks that succeeded), ``first_invalid`` (runs whose first work
    call was refused for its arguments, among runs that made one), ``wrong_tool``.
    Per run means: every name of ``totals`` (invalid calls, unknown outcomes, questions,
    calls, characters in and out...). ``tool_list_chars``: the tool list's size.
    """

    version: str
    tasks: int
    seeds: int
    shares: Mapping[str, Estimate]
    totals: Mapping[str, Estimate]
    tool_list_chars: int

    @classmethod
    def of(cls, version: str, runs: Sequence[RunResult], tool_chars: int) -> VersionFigures:
        """The figures of ``runs`` (all of one version, every seed)."""
        by_seed: dict[int, list[RunResult]] = {}
        for run in runs:
            by_seed.setdefault(run.seed, []).append(run)
        shares: dict[str, list[float]] = {name: [] for name in _SHARES}
        totals: dict[str, list[float]] = {name: [] for name in _TOTALS}
        for seed_runs in by_seed.values():
            made = [r for r in seed_runs if r.counts.first_invalid is not None]
            shares["success"].append(sum(r.success for r in seed_runs) / len(seed_runs))
            shares["first_invalid"].append(
                sum(bool(r.counts.first_invalid) for r in made) / len(made) if made else 0.0
            )
            shares["wrong_tool"].append(
                sum(bool(r.counts.wrong_tool) for r in made) / len(made) if made else 0.0
            )
            for name in _TOTALS:
                totals[name].append(
                    sum(getattr(r.counts, name) for r in seed_runs) / len(seed_runs)
                )
        tasks = len(runs) // max(1, len(by_seed))
        return cls(
            version,
            tasks,
            len(by_seed),
            {k: Estimate.of(v) for k, v in shares.items()},
            {k: Estimate.of(v) for k, v in totals.items()},
            tool_chars,
        )

    @property
    def success(self) -> Estimate:
        """The share of tasks that succeeded."""
        return self.shares["success"]

    @property
    def first_invalid(self) -> Estimate:
        """The share of runs whose first work call was refused for its arguments."""
        return self.shares["first_invalid"]

    def row(self) -> str:
        """One line of :meth:`EvaluationReport.table`."""
        t = self.totals
        return (
            f"{self.version:<24} {self.success.percent():>15} {self.first_invalid.percent():>13}"
            f" {self.shares['wrong_tool'].mean:>5.0%} {t['invalid_calls'].mean:>5.2f}"
            f" {t['unknown_outcomes'].mean:>5.2f} {t['questions'].mean:>5.2f}"
            f" {t['calls'].mean:>5.2f} {t['chars_in'].mean:>7.0f}"
        )


_HEADER = (
    f"{'version':<24} {'success':>15} {'1st invalid':>13} {'wrong':>5} {'inv':>5}"
    f" {'unkn':>5} {'ask':>5} {'calls':>5} {'in':>7}"
)


@dataclass(frozen=True)
class EvaluationReport:
    """What :func:`evaluate` found: per-version figures, and every run."""

    figures: tuple[VersionFigures, ...]
    runs: tuple[RunResult, ...]
    simulated: bool = True

    def of(self, version: str) -> VersionFigures:
        """The figures of the version named ``version``."""
        for figures in self.figures:
            if figures.version == version:
                return figures
        raise KeyError(version)

    def run(self, version: str, task: str, seed: int = 0) -> RunResult:
        """The run of ``task`` with ``version`` by reader ``seed``."""
        for result in self.runs:
            if (result.version, result.task, result.seed) == (version, task, seed):
                return result
        raise KeyError((version, task, seed))

    def success_share(self, version: str, task: str) -> float:
        """In how many seeds' runs ``task`` succeeded with ``version``, as a share."""
        mine = [r.success for r in self.runs if (r.version, r.task) == (version, task)]
        return sum(mine) / len(mine) if mine else math.nan

    def lost(self, version: str, baseline: str = "v2") -> list[tuple[str, float, float]]:
        """Tasks whose success share is lower with ``version`` than with ``baseline``:
        (task, baseline share, version share), in task order."""
        tasks = dict.fromkeys(r.task for r in self.runs)
        out = []
        for task in tasks:
            base, mine = self.success_share(baseline, task), self.success_share(version, task)
            if mine < base:
                out.append((task, base, mine))
        return out

    def caption(self) -> str:
        """What produced the numbers, said every time they are shown."""
        who = "simulated reader" if self.simulated else "the models given"
        seeds = self.figures[0].seeds if self.figures else 0
        tasks = self.figures[0].tasks if self.figures else 0
        return f"{who}: {tasks} tasks x {seeds} seeds per version; mean [95% interval] over seeds"

    def table(self) -> list[str]:
        """The figures, one line per version, under :meth:`caption` (``wrong``: share of
        first calls to the wrong tool; ``inv``, ``unkn``, ``ask``, ``calls``: per run
        means of invalid calls, unknown outcomes, questions, work calls; ``in``:
        characters the model read per run)."""
        return [self.caption(), _HEADER, *(f.row() for f in self.figures)]

    def ablation_table(self, baseline: str = "v2") -> list[str]:
        """For each ``v2 - <fix>`` version: how success and first-call validity move, and
        which tasks it loses (with the share of readers that still succeed)."""
        base = self.of(baseline)
        lines = [self.caption()]
        for figures in self.figures:
            if not figures.version.startswith(f"{baseline} - "):
                continue
            lost = self.lost(figures.version, baseline)
            lines.append(
                f"{figures.version}: success {base.success.mean:.0%} -> "
                f"{figures.success.percent()}; 1st invalid {base.first_invalid.mean:.0%} -> "
                f"{figures.first_invalid.percent()}"
            )
            shown = [f"{task} ({mine:.0%})" for task, _, mine in lost]
            for start in range(0, len(shown), 3):
                lines.append("    lost: " + "; ".join(shown[start : start + 3]))
        return [_fit(line) for line in lines]


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class RunSetup:
    """What a ``model_factory`` is given for one run: the task (its ``request()`` is the
    user's message), the version's name, the seed, the registry and the tool list exactly
    as the model is shown it."""

    task: EvalTask
    version: str
    seed: int
    registry: Registry
    tools: list[dict[str, Any]]


def reader_factory(setup: RunSetup) -> Model:
    """The default model: the simulated reader of ``setup.seed``, shown ``setup.tools``."""
    return ReaderModel(setup.task.need, setup.tools, Priors.draw(setup.seed))


def run_id(setup: RunSetup) -> str:
    """The id of a run in a recording: ``"<version> | <task> | seed <n>"``."""
    return f"{setup.version} | {setup.task.name} | seed {setup.seed}"


def recording(
    log: TranscriptLog,
    factory: Callable[[RunSetup], Model] = reader_factory,
    *,
    model: str = "simulated-reader",
    date: str,
    settings: Mapping[str, Any] | None = None,
) -> Callable[[RunSetup], Model]:
    """A ``model_factory`` that records every run of ``factory``'s models into ``log``
    (:class:`~tutorial_lib.agent.recording.RecordingModel`), with ``model``, ``date``
    (ISO 8601, given: nothing here reads a clock), ``settings``, the task's name and
    request and the version's name as each run's metadata."""

    def make(setup: RunSetup) -> Model:
        meta = {
            "model": model,
            "date": date,
            "settings": dict(settings or {}),
            "task": setup.task.name,
            "interface": setup.version,
            "seed": setup.seed,
            "request": setup.task.request(),
        }
        return RecordingModel(factory(setup), log, run_id=run_id(setup), meta=meta)

    return make


def replaying(log: TranscriptLog) -> Callable[[RunSetup], Model]:
    """A ``model_factory`` that replays the runs of ``log`` (recorded by :func:`recording`)
    without the model: :class:`~tutorial_lib.agent.recording.ReplayModel` raises
    ``ReplayMismatch`` as soon as a tool answers otherwise than when it was recorded."""
    return lambda setup: ReplayModel.from_log(log, run_id(setup))


def _shown(version: InterfaceVersion, registry: Registry) -> list[dict[str, Any]]:
    tools = anthropic_tools(registry)
    for change in version.shown:
        tools = change(tools)
    return tools


def _run(
    task: EvalTask,
    version: InterfaceVersion,
    seed: int,
    model_factory: Callable[[RunSetup], Model] | None,
    max_steps: int,
) -> tuple[RunResult, dict[str, bool] | None]:
    with open_world(task.faults) as world:
        registry = version.registry(world)
        tools = _shown(version, registry)
        tool_chars = _chars(tools)
        reader: ReaderModel | None = None
        if model_factory is None:
            reader = ReaderModel(task.need, tools, Priors.draw(seed))
            model: Model = reader
        else:
            model = model_factory(RunSetup(task, version.name, seed, registry, tools))
        # The harness measures the interface (names, schemas, errors), not the guards: an
        # unguarded host, on purpose, so no version is refused for them.
        host = Host(registry, unguarded=True, clock=StepClock())
        transcript = run_agent(model, host, max_steps=max_steps)
        success = task.succeeded(world, transcript)
        counts = _counts(task, version, transcript, host, world, tool_chars)
        answer = world.answers.last
    result = RunResult(task.name, version.name, seed, transcript, success, counts, answer)
    return result, (dict(reader.consulted) if reader is not None else None)


def evaluate(
    versions: Sequence[InterfaceVersion] = VERSIONS,
    tasks: Sequence[EvalTask] = TASKS,
    *,
    seeds: Iterable[int] = range(SEEDS),
    max_steps: int = 20,
    model_factory: Callable[[RunSetup], Model] | None = None,
    share_runs: bool = True,
    progress: Callable[[Iterable[Any]], Iterable[Any]] | None = None,
) -> EvaluationReport:
    """Run every task with every version for every seed, each run in a fresh world.

    ``model_factory``: who acts (default: the simulated reader of each seed); a factory
    gets a :class:`RunSetup` and returns any model of the loop's protocol. With the
    reader and ``share_runs``, a run is made once per distinct set of consulted priors
    (see the module docstring). ``progress``: wraps the loop over versions (e.g.
    ``tqdm``). Deterministic for the reader: the same arguments give an equal report.
    """
    seed_list = list(seeds)
    figures = []
    runs: list[RunResult] = []
    loop: Iterable[InterfaceVersion] = progress(versions) if progress else versions
    for version in loop:
        mine: list[RunResult] = []
        for task in tasks:
            made: list[tuple[dict[str, bool], RunResult]] = []
            for seed in seed_list:
                priors = Priors.draw(seed)
                reuse = None
                if model_factory is None and share_runs:
                    reuse = next(
                        (
                            r
                            for consulted, r in made
                            if all(getattr(priors, k) == v for k, v in consulted.items())
                        ),
                        None,
                    )
                if reuse is not None:
                    mine.append(replace(reuse, seed=seed))
                    continue
                result, consulted = _run(task, version, seed, model_factory, max_steps)
                if consulted is not None:
                    made.append((consulted, result))
                mine.append(result)
        figures.append(VersionFigures.of(version.name, mine, _tool_chars(version)))
        runs += mine
    return EvaluationReport(tuple(figures), tuple(runs), simulated=model_factory is None)


def _chars(tools: Sequence[Mapping[str, Any]]) -> int:
    """Characters of a tool list as a request carries it (compact JSON)."""
    return len(json.dumps(list(tools), ensure_ascii=False, separators=(",", ":")))


def _tool_chars(version: InterfaceVersion) -> int:
    """The size of ``version``'s shown tool list (the same for every task: one world)."""
    with open_world() as world:
        tools = _shown(version, version.registry(world))
    return _chars(tools)


# --------------------------------------------------------------------------- the view


def _fit(line: str, width: int = MAX_VIEW_CHARS) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"


def _short(value: Any, width: int = 14) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= width else text[: width - 1] + "…"


def _arguments(arguments: Any) -> str:
    if not isinstance(arguments, Mapping):
        return _short(arguments)
    return " ".join(f"{k}={_short(v)}" for k, v in arguments.items())


def _result(step_result: Mapping[str, Any], chars: int) -> str:
    error = step_result.get("error")
    if isinstance(error, Mapping):
        said = [f"{error.get('code')} on {error.get('field', '?')}"]
        if "allowed_values" in error:
            said.append("allowed " + "/".join(map(str, error["allowed_values"])))
        elif "expected" in error:
            said.append(f"expected {error['expected']}")
        if error.get("operation_state"):
            said.append(f"state {error['operation_state']}")
        return f"{'; '.join(said)} ({chars} chars)"
    if error is not None:
        return f"bare {error} ({chars} chars)"
    data = step_result.get("data")
    parts = []
    if isinstance(data, Mapping):
        for key, value in data.items():
            if isinstance(value, list):
                parts.append(f"{key}[{len(value)}]")
            elif isinstance(value, bool | int) or (isinstance(value, str) and len(value) <= 16):
                parts.append(f"{key}={value}")
    return f"ok {' '.join(parts[:5])} ({chars} chars)"


def _changes(before: Any, after: Any) -> str:
    if not (isinstance(before, Mapping) and isinstance(after, Mapping)):
        return "sends another call"
    changed = [
        f"{k} {_short(before.get(k), 10)}->{_short(after.get(k), 10)}"
        for k in sorted(set(before) | set(after), key=str)
        if before.get(k, ...) != after.get(k, ...)
    ]
    return ("changes " + ", ".join(changed)) if changed else "sends the same call again"


def transcript_view(transcript: Transcript) -> list[str]:
    """A readable view of a run, lines of at most 96 characters: for each call, its key
    arguments, a summary of its result, then what the model did next (its next call's
    changes, or its answer)."""
    lines = []
    steps = transcript.steps
    for index, step in enumerate(steps):
        if step.name == ANSWER_TOOL and isinstance(step.arguments, Mapping):
            kind = step.arguments.get("kind")
            values = step.arguments.get("values")
            said = (
                _short(values, 60) if values is not None else _short(step.arguments.get("text"), 60)
            )
            lines.append(f"{step.number}. submits {kind}: {said}")
            continue
        lines.append(f"{step.number}. {step.name} {_arguments(step.arguments)}")
        lines.append(f"   -> {_result(step.result, step.result_chars)}")
        if index + 1 < len(steps):
            following = steps[index + 1]
            if following.name == ANSWER_TOOL:
                continue
            if following.name != step.name:
                lines.append(f"   next: calls {following.name}")
            else:
                lines.append(f"   next: {_changes(step.arguments, following.arguments)}")
    if transcript.final is None:
        lines.append("stopped: max_steps reached without an answer")
    return [_fit(line) for line in lines]
