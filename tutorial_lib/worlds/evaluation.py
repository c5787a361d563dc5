"""Chapter 08's evaluation harness: the same tasks, every interface version, fresh worlds.

:func:`evaluate` runs every :class:`EvalTask` of :data:`TASKS` with every
:class:`~tutorial_lib.worlds.interfaces.InterfaceVersion` (v1, v2 and the one-fix-out
ablations of :mod:`tutorial_lib.worlds.interfaces`), each run in a fresh
:class:`~tutorial_lib.worlds.interfaces.World`, and judges each run from what is observable:
the world's state after the run (a task's status, the comments on the PR) or the answer
against ground truth computed from the world (the file's real length, the PR's open
comments read straight from the emulator, the job's finishing time). Per version it
reports (:class:`VersionFigures`): task success rate, the share of runs whose FIRST call
was invalid (A9: the first attempt, not the retries), invalid calls in all, mean steps,
characters returned to the model and characters of the tool list (A13).

**The model is a script, not a language model.** Each run is driven by the course's
:class:`~tutorial_lib.agent.loop.ScriptedModel` (habits, scripted reactions to rich and
bare errors), wrapped by :class:`EvalModel`, which adds two scripted behaviours:

- *declarations prevent some habits*: a task lists its habits as :class:`Habit` s; one
  with ``prevented_by="declarations"`` (a zero-based line number, an enum word of its
  own) does not fire when the tool's declaration states the convention, one with
  ``prevented_by="units"`` (seconds for milliseconds) does not fire when the argument's
  name carries the unit; a habit with ``prevented_by=None`` fires whatever the
  declaration says (strings for integers: a schema type does not stop it). This is an
  ASSUMPTION of the script, stated here so the figures can be read for what they are;
- *asking*: when the tool's schema requires an argument only the user can give (the
  repository of "PR 128", which exists in two repositories), or a rich error names such
  an argument, the script asks the user instead of calling or guessing; when nothing
  says the argument matters (a vague tool that silently takes the first repository
  holding that PR), it goes on.

So the numbers illustrate mechanisms under a fixed policy; they measure no real model.
Everything is deterministic: the same call gives the same :class:`EvaluationReport`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from tutorial_lib.agent.loop import (
    FinalAnswer,
    Goal,
    Mistake,
    ScriptedModel,
    ToolCall,
    Transcript,
    guess_enum,
    integers_as_strings,
    run_agent,
    zero_based_lines,
)
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import StepClock
from tutorial_lib.core.tools import Registry
from tutorial_lib.emulator.faults import FaultKind
from tutorial_lib.github.reads import summarize_comment
from tutorial_lib.workspace.read_schema import MAX_COUNT
from tutorial_lib.worlds.interfaces import (
    JOBS,
    VERSIONS,
    InterfaceVersion,
    World,
    open_world,
    tool_list_chars,
)

__all__ = [
    "TASKS",
    "EvalModel",
    "EvalTask",
    "EvaluationReport",
    "Habit",
    "JobIntent",
    "PostIntent",
    "ReadIntent",
    "ReviewIntent",
    "RunResult",
    "ScriptGoal",
    "StatusIntent",
    "VersionFigures",
    "evaluate",
    "first_call_invalid_ratio",
    "open_comment_ids",
    "seconds_for_milliseconds",
    "transcript_view",
]

#: Longest line :func:`transcript_view` and the tables produce.
MAX_VIEW_CHARS = 96


# --------------------------------------------------------------------------- habits


def seconds_for_milliseconds() -> Mistake:
    """Thinks a timeout is in seconds: sends ``30`` where ``30000`` milliseconds are meant.

    A rich ``invalid_range`` (which states the unit and the bounds) corrects it; after a
    bare error it tries longer waits, still in seconds.
    """

    def distort(tool: str, name: str, value: Any) -> Any:
        if name in ("timeout_ms", "timeout") and type(value) is int:
            return value // 1000
        return value

    return Mistake(
        "seconds_for_milliseconds",
        "a timeout sent in seconds",
        distort,
        frozenset({"invalid_range"}),
        ({"timeout_ms": 60}, {"timeout_ms": 120}, {"timeout_ms": 300}),
    )


@dataclass(frozen=True)
class Habit:
    """A mistake the scripted model makes, and the fix whose declaration prevents it
    (``None``: it fires under every interface). See the module docstring."""

    mistake: Mistake
    prevented_by: str | None = None

    def fires(self, version: InterfaceVersion) -> bool:
        """Whether the habit distorts the calls made with ``version``'s tools."""
        return self.prevented_by is None or not getattr(version.fixes, self.prevented_by)


# --------------------------------------------------------------------------- goals


class ScriptGoal(Protocol):
    """What :class:`~tutorial_lib.agent.loop.ScriptedModel` needs of a goal: the ``tool``
    to call, the first arguments it means, and what follows a success (the next
    arguments, or the answer)."""

    @property
    def tool(self) -> str:
        """The name of the tool the goal is pursued with."""
        ...

    def first_arguments(self) -> dict[str, Any]:
        """The call the model means to make first."""
        ...

    def after_success(
        self, pages: list[dict[str, Any]], *, follow_pages: bool
    ) -> dict[str, Any] | FinalAnswer:
        """The next intended call, or the answer, given every successful result's data."""
        ...


@dataclass(frozen=True)
class _Read:
    tool: str
    path: str

    def first_arguments(self) -> dict[str, Any]:
        return {"path": self.path, "start": 1, "count": MAX_COUNT}

    def after_success(
        self, pages: list[dict[str, Any]], *, follow_pages: bool
    ) -> dict[str, Any] | FinalAnswer:
        last = pages[-1]
        if last.get("has_more", False) and follow_pages:  # a raw page says nothing: stop
            return {**self.first_arguments(), "start": last["start"] + len(last["lines"])}
        seen = sum(len(page["lines"]) for page in pages)
        return FinalAnswer(f"{self.path}: read all {seen} lines")


@dataclass(frozen=True)
class _SetStatus:
    tool: str
    id_field: str
    item: str
    status: str

    def first_arguments(self) -> dict[str, Any]:
        return {self.id_field: self.item, "status": self.status}

    def after_success(
        self, pages: list[dict[str, Any]], *, follow_pages: bool
    ) -> dict[str, Any] | FinalAnswer:
        return FinalAnswer(f"{self.item} is now {pages[-1]['status']}")


@dataclass(frozen=True)
class _WaitForJob:
    tool: str
    job_id: str
    timeout_field: str
    wait_ms: int

    def first_arguments(self) -> dict[str, Any]:
        return {"job_id": self.job_id, self.timeout_field: self.wait_ms}

    def after_success(
        self, pages: list[dict[str, Any]], *, follow_pages: bool
    ) -> dict[str, Any] | FinalAnswer:
        return FinalAnswer(f"job {self.job_id}: {pages[-1]['status']}")


@dataclass(frozen=True)
class _Review:
    tool: str
    repository: str | None
    pr: int
    page_size: int | None
    skip_bots: bool

    def first_arguments(self) -> dict[str, Any]:
        args: dict[str, Any] = {} if self.repository is None else {"repository": self.repository}
        args["pr"] = self.pr
        if self.page_size is not None:
            args["page_size"] = self.page_size
        return args

    def after_success(
        self, pages: list[dict[str, Any]], *, follow_pages: bool
    ) -> dict[str, Any] | FinalAnswer:
        last = pages[-1]
        coverage = last.get("coverage", "unknown")
        if coverage == "partial" and follow_pages:
            return {**self.first_arguments(), "cursor": last["next_cursor"]}
        comments = [c for page in pages for c in page["comments"]]
        ids = [
            c.get("comment_id", c.get("id"))
            for c in comments
            if c.get("resolved", False) is False  # raw REST comments do not say
            and c.get("outdated", c.get("line") is None) is False
            and not (self.skip_bots and _is_bot(c))
        ]
        listed = ", ".join(map(str, ids)) or "none"
        return FinalAnswer(
            f"{last['repository']}#{last['pr']}: read {len(comments)} comments on"
            f" {len(pages)} page(s), coverage {coverage}; unresolved: {listed}"
        )


def _is_bot(comment: Mapping[str, Any]) -> bool:
    if "summary" in comment:
        return str(comment["summary"]).startswith("Bot:")
    user = comment.get("user") or {}  # a raw REST comment
    return user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]")


@dataclass(frozen=True)
class _Post:
    tool: str
    repository: str
    pr: int
    body: str
    key: str | None

    def first_arguments(self) -> dict[str, Any]:
        args: dict[str, Any] = {"repository": self.repository, "pr": self.pr, "body": self.body}
        if self.key is not None:
            args["idempotency_key"] = self.key
        return args

    def after_success(
        self, pages: list[dict[str, Any]], *, follow_pages: bool
    ) -> dict[str, Any] | FinalAnswer:
        return FinalAnswer(f"comment on {self.repository}#{self.pr}: {pages[-1]['status']}")


# --------------------------------------------------------------------------- intents


def _answer(transcript: Transcript) -> str | None:
    """The final answer's text, None if the run gave up or never answered."""
    final = transcript.final
    return None if final is None or final.gave_up else final.text


@dataclass(frozen=True)
class ReadIntent:
    """Read the whole of workspace file ``path`` and say how many lines it has."""

    path: str
    role = "read"

    def goal(self, version: InterfaceVersion) -> ScriptGoal:
        """The scripted goal, in ``version``'s vocabulary."""
        return _Read(version.tool_name("read"), self.path)

    def succeeded(self, world: World, transcript: Transcript) -> bool:
        """Right iff the answer gives the file's real number of lines."""
        lines = len((world.root / self.path).read_text(encoding="utf-8").splitlines())
        return _answer(transcript) == f"{self.path}: read all {lines} lines"


@dataclass(frozen=True)
class StatusIntent:
    """Set ``item`` to ``status`` in the task tracker (``T-..``) or the ticket desk (``SUP-..``)."""

    item: str
    status: str

    @property
    def role(self) -> str:
        """``ticket`` for a ticket id, else ``status``."""
        return "ticket" if self.item.startswith("SUP-") else "status"

    def goal(self, version: InterfaceVersion) -> ScriptGoal:
        """The scripted goal, in ``version``'s vocabulary."""
        id_field = "ticket_id" if self.role == "ticket" else "task_id"
        return _SetStatus(version.tool_name(self.role), id_field, self.item, self.status)

    def succeeded(self, world: World, transcript: Transcript) -> bool:
        """Right iff the store holds ``status`` and the answer says so."""
        store = world.desk.tickets if self.role == "ticket" else world.tasks.tasks
        return (
            store[self.item] == self.status
            and _answer(transcript) == f"{self.item} is now {self.status}"
        )


@dataclass(frozen=True)
class JobIntent:
    """Wait up to ``wait_s`` seconds for job ``job_id`` and report how it ended."""

    job_id: str
    wait_s: int
    role = "job"

    def goal(self, version: InterfaceVersion) -> ScriptGoal:
        """The scripted goal, in ``version``'s vocabulary."""
        timeout = "timeout_ms" if version.fixes.units else "timeout"
        return _WaitForJob(version.tool_name("job"), self.job_id, timeout, self.wait_s * 1000)

    def succeeded(self, world: World, transcript: Transcript) -> bool:
        """Right iff the answer gives the status the job has after ``wait_s`` seconds."""
        truth = "succeeded" if JOBS[self.job_id] <= self.wait_s * 1000 else "running"
        return _answer(transcript) == f"job {self.job_id}: {truth}"


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


@dataclass(frozen=True)
class ReviewIntent:
    """List every unresolved, current review comment of ``repository#pr``.

    ``repository`` None: the user said only "PR 128". ``clarify=True``: the repository
    the user gave is ambiguous or absent, and the right outcome is a question.
    """

    repository: str | None
    pr: int
    page_size: int = 10
    skip_bots: bool = False
    clarify: bool = False
    role = "comments"

    def goal(self, version: InterfaceVersion) -> ScriptGoal:
        """The scripted goal, in ``version``'s vocabulary (no page size on a raw list)."""
        page_size = self.page_size if version.fixes.coverage else None
        return _Review(
            version.tool_name("comments"), self.repository, self.pr, page_size, self.skip_bots
        )

    def succeeded(self, world: World, transcript: Transcript) -> bool:
        """A clarification task: right iff the model asked and read no comments. Otherwise
        right iff the answer lists exactly the open comments (ground truth)."""
        answer = _answer(transcript)
        if answer is None:
            return False
        if self.clarify:
            return answer.startswith("question:") and not any(s.ok for s in transcript.steps)
        assert self.repository is not None
        expected = open_comment_ids(world, self.repository, self.pr, skip_bots=self.skip_bots)
        head, _, listed = answer.partition("; unresolved: ")
        if not head.startswith(f"{self.repository}#{self.pr}:"):
            return False
        got = [] if listed == "none" else [int(i) for i in listed.split(", ")]
        return got == expected


@dataclass(frozen=True)
class PostIntent:
    """Post ``body`` once on ``repository#pr`` (the write behind a fault)."""

    repository: str
    pr: int
    body: str
    key: str = "eval-summary-0001"
    role = "write"

    def goal(self, version: InterfaceVersion) -> ScriptGoal:
        """The scripted goal: with the safe write, one idempotency key for this comment."""
        key = self.key if version.fixes.safe_write else None
        return _Post(version.tool_name("write"), self.repository, self.pr, self.body, key)

    def succeeded(self, world: World, transcript: Transcript) -> bool:
        """Right iff exactly one comment with the body is on the PR and the model knows it
        was posted (an answer, not a give-up)."""
        bodies = [c.body for c in world.store.issue_comments(self.repository, self.pr)]
        return sum(self.body in b for b in bodies) == 1 and _answer(transcript) is not None


Intent = ReadIntent | StatusIntent | JobIntent | ReviewIntent | PostIntent


# --------------------------------------------------------------------------- the model


class EvalModel:
    """The course's :class:`ScriptedModel`, plus asking (see the module docstring).

    ``tools``: the declarations the model was shown (it reads the required arguments of
    its goal's tool); ``user_fields``: arguments only the user can supply.
    """

    def __init__(
        self,
        goal: ScriptGoal,
        mistakes: Sequence[Mistake],
        tools: Registry,
        user_fields: frozenset[str] = frozenset(),
    ) -> None:
        self.goal = goal
        self.scripted = ScriptedModel(cast(Goal, goal), mistakes)
        self.user_fields = user_fields
        schema = tools.get(goal.tool).input_schema if goal.tool in tools else {}
        self.required = frozenset(schema.get("required", ()))

    def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
        """Ask if an argument only the user knows is needed; else what the script does."""
        if not transcript.steps:
            missing = sorted((self.required & self.user_fields) - set(self.goal.first_arguments()))
            if missing:
                return FinalAnswer(f"question: which {missing[0]} do you mean? It is required")
        else:
            error = transcript.steps[-1].result.get("error")
            if isinstance(error, dict) and error.get("field") in self.user_fields:
                expected = error.get("expected", "a value only you can give")
                return FinalAnswer(f"question: which {error['field']} do you mean ({expected})?")
        return self.scripted.next_action(transcript)


# --------------------------------------------------------------------------- tasks


@dataclass(frozen=True)
class EvalTask:
    """One task: what the user asked, what the model means to do (``intent``), the habits
    it brings, the faults the emulator injects, and ``tags`` naming what it exercises."""

    name: str
    prompt: str
    intent: Intent
    habits: tuple[Habit, ...] = ()
    faults: tuple[FaultKind, ...] = ()
    tags: frozenset[str] = frozenset()

    def model(self, version: InterfaceVersion, registry: Registry) -> EvalModel:
        """The scripted model for this task under ``version`` (only the habits that fire)."""
        mistakes = [h.mistake for h in self.habits if h.fires(version)]
        user = frozenset({"repository"}) if isinstance(self.intent, ReviewIntent) else frozenset()
        return EvalModel(self.intent.goal(version), mistakes, registry, user)


_DECL = "declarations"


def _h(mistake: Mistake, prevented_by: str | None = None) -> tuple[Habit, ...]:
    return (Habit(mistake, prevented_by),)


#: The evaluation's tasks (23), over every tool family of the course and one B14 ticket tool.
TASKS: tuple[EvalTask, ...] = (
    EvalTask("read notes", "How many lines has notes.txt?", ReadIntent("notes.txt")),
    EvalTask(
        "read config, 0-based",
        "Read config.toml in full.",
        ReadIntent("config.toml"),
        _h(zero_based_lines(None), _DECL),
        tags=frozenset({"habit"}),
    ),
    EvalTask(
        "read report, strings",
        "Read report.md in full.",
        ReadIntent("report.md"),
        _h(integers_as_strings()),
        tags=frozenset({"stubborn", "paging"}),
    ),
    EvalTask(
        "read long file",
        "How many lines has long.txt?",
        ReadIntent("long.txt"),
        tags=frozenset({"paging"}),
    ),
    EvalTask(
        "read log, 0-based",
        "Read all of app.log.",
        ReadIntent("app.log"),
        _h(zero_based_lines(None), _DECL),
        tags=frozenset({"habit", "paging"}),
    ),
    EvalTask(
        "open comments, page 10",
        "List every unresolved comment of example/shop PR 128.",
        ReviewIntent("example/shop", 128, 10),
        tags=frozenset({"paging"}),
    ),
    EvalTask(
        "open comments, page 30",
        "List every unresolved comment of example/shop PR 128 (30 a page).",
        ReviewIntent("example/shop", 128, 30),
        tags=frozenset({"paging"}),
    ),
    EvalTask(
        "open comments, page 50",
        "List every unresolved comment of example/shop PR 128 (50 a page).",
        ReviewIntent("example/shop", 128, 50),
        tags=frozenset({"paging"}),
    ),
    EvalTask(
        "human comments, page 25",
        "Which human review remarks on example/shop PR 128 are still open?",
        ReviewIntent("example/shop", 128, 25, skip_bots=True),
        tags=frozenset({"paging"}),
    ),
    EvalTask(
        "small PR comments",
        "List the unresolved comments of other/shop PR 128.",
        ReviewIntent("other/shop", 128, 10),
        tags=frozenset({"listing"}),
    ),
    EvalTask(
        "task started",
        "I've started on T-1, mark it.",
        StatusIntent("T-1", "in_progress"),
        _h(guess_enum("doing"), _DECL),
        tags=frozenset({"habit"}),
    ),
    EvalTask(
        "task finished",
        "T-3 is finished.",
        StatusIntent("T-3", "done"),
        _h(guess_enum("finished", ("complete", "closed", "resolved")), _DECL),
        tags=frozenset({"habit"}),
    ),
    EvalTask(
        "task blocked",
        "T-2 is on hold until the vendor answers.",
        StatusIntent("T-2", "blocked"),
        _h(guess_enum("on-hold", ("paused", "waiting", "stalled")), _DECL),
        tags=frozenset({"habit"}),
    ),
    EvalTask("task reopened", "Move T-4 back to todo.", StatusIntent("T-4", "todo")),
    EvalTask(
        "job within 30 s",
        "Wait up to 30 s for J-1 and tell me how it ended.",
        JobIntent("J-1", 30),
        _h(seconds_for_milliseconds(), "units"),
        tags=frozenset({"units"}),
    ),
    EvalTask(
        "job within 2 min",
        "Give J-2 two minutes to finish.",
        JobIntent("J-2", 120),
        _h(seconds_for_milliseconds(), "units"),
        tags=frozenset({"units"}),
    ),
    EvalTask(
        "job, seconds anyway",
        "Wait up to 45 s for J-4.",
        JobIntent("J-4", 45),
        _h(seconds_for_milliseconds()),
        tags=frozenset({"stubborn", "units"}),
    ),
    EvalTask("quick job", "Is J-3 done? Wait 5 s at most.", JobIntent("J-3", 5)),
    EvalTask(
        "summary under a timeout",
        "Post the review summary on example/shop PR 128.",
        PostIntent("example/shop", 128, "Review summary: 3 blocking remarks remain."),
        faults=("commit_then_timeout",),
        tags=frozenset({"write"}),
    ),
    EvalTask(
        "which PR 128?",
        "What is still open on PR 128?",
        ReviewIntent(None, 128, clarify=True),
        tags=frozenset({"clarify"}),
    ),
    EvalTask(
        "PR 128 of 'shop'",
        "What is still open on PR 128 of shop?",
        ReviewIntent("shop", 128, clarify=True),
        tags=frozenset({"clarify"}),
    ),
    EvalTask(
        "ticket solved",
        "SUP-7 is resolved, update the ticket.",
        StatusIntent("SUP-7", "solved"),
        _h(guess_enum("resolved", ("fixed", "closed", "done")), _DECL),
        tags=frozenset({"habit", "ticket"}),
    ),
    EvalTask(
        "ticket waiting",
        "We're waiting on the customer for SUP-9.",
        StatusIntent("SUP-9", "pending"),
        _h(guess_enum("waiting", ("on-hold", "paused", "awaiting"))),
        tags=frozenset({"stubborn", "ticket"}),
    ),
)


# --------------------------------------------------------------------------- metrics


def first_call_invalid_ratio(transcripts: Sequence[Transcript]) -> float | None:
    """Runs whose FIRST call failed / runs that made a call (None if none made one).

    A run that failed first and then succeeded on a retry still counts as invalid: the
    figure measures how usable the interface is on the first attempt (A9).
    """
    made = [t for t in transcripts if t.steps]
    if not made:
        return None
    return sum(not t.steps[0].ok for t in made) / len(made)


@dataclass(frozen=True)
class RunResult:
    """One task run with one version: its transcript and whether it succeeded."""

    task: str
    version: str
    transcript: Transcript
    success: bool


@dataclass(frozen=True)
class VersionFigures:
    """One version's figures over all tasks.

    ``mean_steps``: tool calls per run, every run counted (a run that gives up is charged
    the calls it spent); ``result_chars``: characters of every result the model read;
    ``tool_list_chars``: characters of the tool list sent with each request (A13).
    """

    version: str
    tasks: int
    successes: int
    first_call_invalid: float | None
    invalid_calls: int
    calls: int
    mean_steps: float
    result_chars: int
    tool_list_chars: int

    @property
    def success_rate(self) -> float:
        """Successes / tasks."""
        return self.successes / self.tasks if self.tasks else 0.0

    @classmethod
    def of(cls, version: str, runs: Sequence[RunResult], tool_chars: int) -> VersionFigures:
        """The figures of ``runs`` (all of one version)."""
        transcripts = [r.transcript for r in runs]
        calls = sum(t.calls for t in transcripts)
        return cls(
            version,
            len(runs),
            sum(r.success for r in runs),
            first_call_invalid_ratio(transcripts),
            sum(t.invalid_calls for t in transcripts),
            calls,
            calls / len(runs) if runs else 0.0,
            sum(t.total_result_chars for t in transcripts),
            tool_chars,
        )

    def row(self) -> str:
        """One line of :meth:`EvaluationReport.table`."""
        first = "-" if self.first_call_invalid is None else f"{self.first_call_invalid:.0%}"
        return (
            f"{self.version:<26} {self.successes:>2}/{self.tasks:<2} {self.success_rate:>5.0%}"
            f" {first:>6} {self.invalid_calls:>4} {self.mean_steps:>5.2f}"
            f" {self.result_chars:>8} {self.tool_list_chars:>6}"
        )


_HEADER = (
    f"{'version':<26} {'ok':>5} {'rate':>5} {'1st!':>6} {'inv':>4} {'steps':>5}"
    f" {'returned':>8} {'tools':>6}"
)


@dataclass(frozen=True)
class EvaluationReport:
    """What :func:`evaluate` found: per-version figures, and every run."""

    figures: tuple[VersionFigures, ...]
    runs: tuple[RunResult, ...]

    def of(self, version: str) -> VersionFigures:
        """The figures of the version named ``version``."""
        for figures in self.figures:
            if figures.version == version:
                return figures
        raise KeyError(version)

    def run(self, version: str, task: str) -> RunResult:
        """The run of ``task`` with ``version``."""
        for result in self.runs:
            if (result.version, result.task) == (version, task):
                return result
        raise KeyError((version, task))

    def failed(self, version: str) -> list[str]:
        """The tasks ``version`` failed, in task order."""
        return [r.task for r in self.runs if r.version == version and not r.success]

    def lost(self, version: str, baseline: str = "v2") -> list[str]:
        """Tasks ``baseline`` succeeds at and ``version`` fails."""
        kept = set(self.failed(baseline))
        return [t for t in self.failed(version) if t not in kept]

    def table(self) -> list[str]:
        """The figures, one line per version (``1st!``: share of invalid first calls;
        ``inv``: invalid calls; ``returned``/``tools``: characters)."""
        return [_HEADER, *(f.row() for f in self.figures)]

    def ablation_table(self, baseline: str = "v2") -> list[str]:
        """For each ``v2 - <fix>`` version in the report: which tasks it loses and how its
        first-call and step figures move: which fix removes which failure."""
        base = self.of(baseline)
        lines = []
        for figures in self.figures:
            if not figures.version.startswith(f"{baseline} - "):
                continue
            lost = self.lost(figures.version, baseline)
            first = figures.first_call_invalid or 0.0
            lines.append(
                f"{figures.version}: loses {len(lost)} task(s); invalid 1st calls"
                f" {base.first_call_invalid or 0.0:.0%} -> {first:.0%}; steps"
                f" {base.mean_steps:.2f} -> {figures.mean_steps:.2f}"
            )
            for start in range(0, len(lost), 3):
                lines.append("    lost: " + "; ".join(lost[start : start + 3]))
        return [_fit(line) for line in lines]


def evaluate(
    versions: Sequence[InterfaceVersion] = VERSIONS,
    tasks: Sequence[EvalTask] = TASKS,
    *,
    max_steps: int = 20,
) -> EvaluationReport:
    """Run every task with every version, each run in a fresh world; judge and count.

    Deterministic: the same versions and tasks give an equal report.
    """
    figures = []
    runs: list[RunResult] = []
    for version in versions:
        mine: list[RunResult] = []
        tool_chars = 0
        for task in tasks:
            with open_world(task.faults) as world:
                registry = version.registry(world)
                tool_chars = tool_list_chars(list(registry))
                model = task.model(version, registry)
                # The harness measures the interface (names, schemas, errors), not the
                # guards: an unguarded host, on purpose, so no version is refused for them.
                host = Host(registry, unguarded=True, clock=StepClock())
                transcript = run_agent(model, host, max_steps=max_steps)
                success = task.intent.succeeded(world, transcript)
            mine.append(RunResult(task.name, version.name, transcript, success))
        figures.append(VersionFigures.of(version.name, mine, tool_chars))
        runs += mine
    return EvaluationReport(tuple(figures), tuple(runs))


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
        lines.append(f"{step.number}. {step.name} {_arguments(step.arguments)}")
        lines.append(f"   -> {_result(step.result, step.result_chars)}")
        if index + 1 < len(steps):
            following = steps[index + 1]
            if following.name != step.name:
                lines.append(f"   next: calls {following.name}")
            else:
                lines.append(f"   next: {_changes(step.arguments, following.arguments)}")
    final = transcript.final
    if final is None:
        lines.append("stopped: max_steps reached without an answer")
    elif final.text.startswith("question:"):
        lines.append("asks the user: " + final.text.removeprefix("question: "))
    else:
        lines.append(("gives up: " if final.gave_up else "answers: ") + final.text)
    return [_fit(line) for line in lines]
