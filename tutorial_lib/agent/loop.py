"""A minimal agent loop and a scripted stand-in for a model, to count what interfaces cost.

:func:`run_agent` asks a :class:`Model` for its next action, sends each tool call through
its :class:`~tutorial_lib.core.host.Host` (``host.call``), and records a
:class:`Transcript`: every call's arguments as sent, the size of the result the model
received, its error code, and the final answer. Chapter 08 builds its evaluation on these numbers.

The model here is NOT a language model. :class:`ScriptedModel` is a fixed, deterministic
policy: it pursues one goal (:class:`ReadWholeFile`, :class:`SetTaskStatus`,
:class:`ReviewPullRequest`) and makes the
mistakes it is told to make (:func:`zero_based_lines`, :func:`integers_as_strings`,
:func:`guess_enum`, :func:`stop_on_first_page`), mistakes real models are known to make.
How it reacts to an error is scripted too, and that is the point of the comparison:

- a *rich* error (a ``field`` plus ``expected`` or ``allowed_values``, and retry advice
  that :func:`tutorial_lib.core.contracts.next_step` maps to ``fix_input``) tells it which
  habit was wrong: it drops that habit for that field and sends the call again;
- a *bare* error (``{"error": "INVALID_ARGUMENT"}``) names nothing, so it can only guess:
  it cycles through a fixed list of plausible guesses, which here are all wrong (a script
  cannot be lucky; a real model might be, after some calls), until it gives up.

So the numbers it produces are illustrations of a mechanism, not measurements of any real
model: they show how many calls each error style costs *if* the caller reads errors the
way the script does.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from tutorial_lib.core.contracts import dumps, next_step
from tutorial_lib.core.host import Host
from tutorial_lib.workspace.read_schema import MAX_COUNT

__all__ = [
    "FinalAnswer",
    "Goal",
    "Mistake",
    "Model",
    "ReadWholeFile",
    "ReviewPullRequest",
    "ScriptedModel",
    "SetTaskStatus",
    "Step",
    "ToolCall",
    "Transcript",
    "guess_enum",
    "integers_as_strings",
    "run_agent",
    "stop_on_first_page",
    "zero_based_lines",
]


# --------------------------------------------------------------------------- actions, transcript


@dataclass(frozen=True)
class ToolCall:
    """The model asks to call tool ``name`` with ``arguments`` (its raw JSON object)."""

    name: str
    arguments: Any


@dataclass(frozen=True)
class FinalAnswer:
    """The model stops and answers. ``gave_up`` marks an answer that admits failure."""

    text: str
    gave_up: bool = False


@dataclass(frozen=True)
class Step:
    """One tool call as the transcript records it.

    ``arguments`` as sent (a deep copy), ``result`` as received, ``result_chars`` the length
    of the compact JSON the model reads (:func:`tutorial_lib.core.contracts.dumps`),
    ``error_code`` the contract code, the bare error word, or None for a success.
    ``outside_text``: the tool declares fields that carry text written by others (its
    spec's ``untrusted_fields``), so its data is untrusted
    (:func:`tutorial_lib.agent.provenance.model_input`).
    """

    number: int
    name: str
    arguments: Any
    result: dict[str, Any]
    result_chars: int
    error_code: str | None
    ok: bool
    outside_text: bool = False


@dataclass
class Transcript:
    """Everything that happened in one run: the steps, then the final answer (if any).

    ``final`` is None when the run hit ``max_steps`` before the model answered.
    """

    steps: list[Step] = field(default_factory=list)
    final: FinalAnswer | None = None

    @property
    def calls(self) -> int:
        """How many tool calls were made."""
        return len(self.steps)

    @property
    def invalid_calls(self) -> int:
        """How many calls failed (any error, bare or rich)."""
        return sum(not step.ok for step in self.steps)

    @property
    def first_call_valid(self) -> bool | None:
        """Whether the FIRST call succeeded (None if there was none): usability is measured
        on the first attempt, not on the retried one."""
        return self.steps[0].ok if self.steps else None

    @property
    def steps_to_answer(self) -> int | None:
        """Tool calls made before a final answer that does not give up; None otherwise."""
        if self.final is None or self.final.gave_up:
            return None
        return self.calls

    @property
    def total_result_chars(self) -> int:
        """Characters of all results the model read: its context cost."""
        return sum(step.result_chars for step in self.steps)

    def summary(self) -> dict[str, Any]:
        """The figures in one dict (for a table row)."""
        return {
            "calls": self.calls,
            "invalid_calls": self.invalid_calls,
            "first_call_valid": self.first_call_valid,
            "steps_to_answer": self.steps_to_answer,
            "total_result_chars": self.total_result_chars,
        }

    def lines(self) -> list[str]:
        """One deterministic line per call, then the answer: for printing in a notebook."""
        out = []
        for step in self.steps:
            outcome = "ok" if step.ok else step.error_code
            arguments = json.dumps(step.arguments, ensure_ascii=False, default=repr)
            out.append(
                f"{step.number}. {step.name} {arguments} -> {outcome} ({step.result_chars} chars)"
            )
        if self.final is None:
            out.append("(stopped: max_steps reached without an answer)")
        else:
            out.append(("gave up: " if self.final.gave_up else "answer: ") + self.final.text)
        return out


class Model(Protocol):
    """Anything that picks the next action from the transcript so far."""

    def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
        """Return the next tool call, or the final answer."""
        ...


def run_agent(model: Model, host: Host, *, max_steps: int = 20) -> Transcript:
    """Let ``model`` act until it answers or has made ``max_steps`` tool calls.

    Every call goes through ``host.call`` (the road, the host's guards, its log and clock;
    a question for the user goes to the host's answerer, if it has one); the tools'
    context (workspace root, client, store) was bound when the registry was built. After
    the last allowed call the model may still answer; otherwise ``transcript.final``
    stays None.
    """
    transcript = Transcript()
    while True:
        action = model.next_action(transcript)
        if isinstance(action, FinalAnswer):
            transcript.final = action
            return transcript
        if len(transcript.steps) >= max_steps:
            return transcript
        sent = copy.deepcopy(action.arguments)
        result: dict[str, Any] = dict(host.call(action.name, action.arguments))
        ok = result.get("ok") is True
        error = result.get("error")
        code = None if ok else (error.get("code") if isinstance(error, dict) else str(error))
        # what the tool declares, not its name: does its data carry others' words?
        named = isinstance(action.name, str) and action.name in host.registry
        outside = named and bool(host.registry.get(action.name).untrusted_fields)
        number = len(transcript.steps) + 1
        transcript.steps.append(
            Step(number, action.name, sent, result, len(dumps(result)), code, ok, outside)
        )


# --------------------------------------------------------------------------- goals


@dataclass(frozen=True)
class ReadWholeFile:
    """Goal: read every line of ``path`` with read_lines, page by page, then say how many.

    The answer claims what the model believes it read: a model that stops on the first
    page claims the first page is the whole file.
    """

    path: str
    count: int = MAX_COUNT
    tool: ClassVar[str] = "read_lines"

    def first_arguments(self) -> dict[str, Any]:
        """The call the model means to make first."""
        return {"path": self.path, "start": 1, "count": self.count}

    def after_success(
        self, pages: list[dict[str, Any]], *, follow_pages: bool
    ) -> dict[str, Any] | FinalAnswer:
        """The next intended call, or the answer, given every successful result's data."""
        last = pages[-1]
        if last["has_more"] and follow_pages:
            return {
                "path": self.path,
                "start": last["start"] + len(last["lines"]),
                "count": self.count,
            }
        seen = sum(len(page["lines"]) for page in pages)
        return FinalAnswer(f"{self.path}: read all {seen} lines")


@dataclass(frozen=True)
class SetTaskStatus:
    """Goal: set task ``task_id`` to ``status``, the value the model *means* (in the
    tool's vocabulary, e.g. ``active``); :func:`guess_enum` makes it say it otherwise."""

    task_id: str
    status: str
    tool: ClassVar[str] = "task_set_status"

    def first_arguments(self) -> dict[str, Any]:
        """The call the model means to make first."""
        return {"task_id": self.task_id, "status": self.status}

    def after_success(
        self, pages: list[dict[str, Any]], *, follow_pages: bool
    ) -> dict[str, Any] | FinalAnswer:
        """One success is enough: answer with the status the tool reports."""
        return FinalAnswer(f"task {self.task_id} is now {pages[-1]['status']}")


@dataclass(frozen=True)
class ReviewPullRequest:
    """Goal: read the review comments of ``repository#pr`` with github_pr_list_comments,
    following ``next_cursor`` until ``coverage`` is ``complete``, then name what is open.

    The answer, exactly: ``"{repository}#{pr}: read {n} comments on {pages} page(s),
    coverage {coverage}; unresolved: {ids or 'none'}"`` where ``coverage`` is that of the
    last page read and the ids are the ``comment_id`` of comments with ``resolved`` and
    ``outdated`` both false, in the order seen. With :func:`stop_on_first_page` it answers
    from page 1 and reports ``coverage partial``: what it did not read, it cannot list.
    ``skip_bots``: also leave out comments whose summary starts with ``Bot:`` (bot noise).
    """

    repository: str
    pr: int
    page_size: int = 10
    skip_bots: bool = False
    tool: ClassVar[str] = "github_pr_list_comments"

    def first_arguments(self) -> dict[str, Any]:
        """The call the model means to make first."""
        return {"repository": self.repository, "pr": self.pr, "page_size": self.page_size}

    def after_success(
        self, pages: list[dict[str, Any]], *, follow_pages: bool
    ) -> dict[str, Any] | FinalAnswer:
        """The next page (same arguments + ``cursor``) or the answer."""
        last = pages[-1]
        if last["coverage"] != "complete" and follow_pages:
            return {**self.first_arguments(), "cursor": last["next_cursor"]}
        comments = [c for page in pages for c in page["comments"]]
        ids = [
            c["comment_id"]
            for c in comments
            if c["resolved"] is False
            and c["outdated"] is False
            and not (self.skip_bots and str(c.get("summary", "")).startswith("Bot:"))
        ]
        listed = ", ".join(map(str, ids)) or "none"
        return FinalAnswer(
            f"{self.repository}#{self.pr}: read {len(comments)} comments on {len(pages)}"
            f" page(s), coverage {last['coverage']}; unresolved: {listed}"
        )


Goal = ReadWholeFile | SetTaskStatus | ReviewPullRequest


# --------------------------------------------------------------------------- mistakes


@dataclass(frozen=True)
class Mistake:
    """A habit that distorts what the model sends, and what it tries after a bare error.

    - ``distort(tool, field, value)`` returns the value the habit sends instead of the
      intended one (the value itself when the habit does not apply);
    - ``corrected_by``: error codes that, as a rich error on a field this habit distorts,
      make the model drop the habit for that field;
    - ``bare_guesses``: argument patches tried, in order and cyclically, after bare errors;
    - ``ignores_has_more``: the habit of stopping after the first page.
    """

    name: str
    description: str
    distort: Callable[[str, str, Any], Any] = lambda tool, name, value: value
    corrected_by: frozenset[str] = frozenset()
    bare_guesses: tuple[Mapping[str, Any], ...] = ()
    ignores_has_more: bool = False


def zero_based_lines(tool_name: str | None = "read_lines") -> Mistake:
    """Counts lines from 0: it asks for line N as ``N - 1``, so the first read is ``start: 0``.

    The habit applies to the ``start`` of ``tool_name`` (of any tool with ``start`` when
    None: an interface may name its read tool otherwise). After a bare error it suspects
    the page size, never the line number.
    """

    def distort(tool: str, name: str, value: Any) -> Any:
        if tool_name in (None, tool) and name == "start" and type(value) is int:
            return value - 1
        return value

    return Mistake(
        "zero_based_lines",
        "line numbers counted from 0",
        distort,
        frozenset({"invalid_range"}),
        ({"count": 10}, {"count": 5}, {"count": 1}),
    )


def integers_as_strings() -> Mistake:
    """Sends every integer as a JSON string (``"1"`` for ``1``).

    After a bare error it tries smaller page sizes, still written as strings.
    """

    def distort(tool: str, name: str, value: Any) -> Any:
        return str(value) if type(value) is int else value

    return Mistake(
        "integers_as_strings",
        "integers sent as strings",
        distort,
        frozenset({"invalid_type"}),
        ({"count": "10"}, {"count": "5"}, {"count": "1"}),
    )


def guess_enum(
    word: str = "started",
    guesses: tuple[str, ...] = ("in-progress", "working", "wip", "doing", "underway"),
) -> Mistake:
    """Says the status in its own words (``word``) instead of the tool's allowed value.

    After a bare error it tries other everyday words for the same meaning (``guesses``).
    The defaults are words for "work has started", none of them chapter 03's ``active``.
    """

    def distort(tool: str, name: str, value: Any) -> Any:
        return word if name == "status" else value

    return Mistake(
        "guess_enum",
        f"an enum value guessed as {word!r}",
        distort,
        frozenset({"invalid_status", "invalid_value"}),
        tuple({"status": guess} for guess in guesses),
    )


def stop_on_first_page() -> Mistake:
    """Ignores ``has_more`` (and ``total_lines``, or ``coverage``/``next_cursor``): answers
    from the first page."""
    return Mistake("stop_on_first_page", "stops after the first page", ignores_has_more=True)


# --------------------------------------------------------------------------- the scripted model


class ScriptedModel:
    """A deterministic stand-in for a model: a goal, some habits, scripted reactions.

    It is stateless between calls: :meth:`next_action` replays the whole transcript to
    decide, so the same transcript always gives the same action. Reactions, in order:

    - a success: go on with the goal (next page, unless a habit stops it), or answer;
    - a rich error whose :func:`~tutorial_lib.core.contracts.next_step` is ``fix_input`` and
      that names a field distorted by one of its habits (and says what is expected, or
      lists ``allowed_values`` that contain what the model means): drop that habit for
      that field, resend;
    - ``retry_with_backoff``: resend the same call, at most ``max_retries`` times in a row
      (a script has no clock: the backoff is not simulated);
    - any other contract error: give up, naming the code and the step;
    - a bare error: apply the next of its habits' ``bare_guesses`` and resend.

    It gives up after ``give_up_after`` failed calls in total.
    """

    def __init__(
        self,
        goal: Goal,
        mistakes: Sequence[Mistake] = (),
        *,
        give_up_after: int = 5,
        max_retries: int = 2,
    ) -> None:
        self.goal = goal
        self.mistakes = tuple(mistakes)
        self.give_up_after = give_up_after
        self.max_retries = max_retries

    def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
        """Replay ``transcript`` and return the next call or the answer."""
        tool = self.goal.tool
        follow_pages = not any(m.ignores_has_more for m in self.mistakes)
        learned: set[tuple[str, str]] = set()  # (mistake, field) pairs dropped
        intended = self.goal.first_arguments()
        sending = self._sent(intended, learned)
        pages: list[dict[str, Any]] = []
        failures = guesses = retries = 0
        for step in transcript.steps:
            if step.ok:
                retries = 0
                pages.append(step.result["data"])
                following = self.goal.after_success(pages, follow_pages=follow_pages)
                if isinstance(following, FinalAnswer):
                    return following
                intended = following
                sending = self._sent(intended, learned)
                continue
            failures += 1
            if failures >= self.give_up_after:
                return FinalAnswer(
                    f"gave up after {failures} failed calls; the last error was {step.error_code}",
                    gave_up=True,
                )
            error = step.result.get("error")
            if not isinstance(error, dict):  # bare: nothing to go on but guessing
                patches = [p for m in self.mistakes for p in m.bare_guesses]
                guesses += 1
                sending = self._sent(intended, learned)
                if patches:
                    sending.update(patches[(guesses - 1) % len(patches)])
                continue
            decision = next_step(error)
            if decision == "fix_input":
                fixed = self._habits_disproved(error, intended, learned)
                if not fixed:
                    return FinalAnswer(
                        f"cannot correct {error['code']} on {error.get('field', 'the call')}",
                        gave_up=True,
                    )
                learned.update(fixed)
                sending = self._sent(intended, learned)
            elif decision == "retry_with_backoff" and retries < self.max_retries:
                retries += 1  # same call again
            else:
                return FinalAnswer(
                    f"stopped on {error['code']}: next step {decision}", gave_up=True
                )
        return ToolCall(tool, sending)

    def _sent(self, intended: Mapping[str, Any], learned: set[tuple[str, str]]) -> dict[str, Any]:
        """What the habits make of the intended arguments (habits applied in order)."""
        sent = {}
        for name, value in intended.items():
            for mistake in self.mistakes:
                if (mistake.name, name) not in learned:
                    value = mistake.distort(self.goal.tool, name, value)
            sent[name] = value
        return sent

    def _habits_disproved(
        self, error: Mapping[str, Any], intended: Mapping[str, Any], learned: set[tuple[str, str]]
    ) -> set[tuple[str, str]]:
        """The (habit, field) pairs this rich error shows to be wrong; empty if none."""
        name = error.get("field")
        if not isinstance(name, str) or name not in intended:
            return set()
        if not ("expected" in error or "allowed_values" in error):
            return set()
        if "allowed_values" in error and intended[name] not in error["allowed_values"]:
            return set()  # the list does not hold what the model means
        value = intended[name]
        return {
            (m.name, name)
            for m in self.mistakes
            if error["code"] in m.corrected_by
            and (m.name, name) not in learned
            and _differs(m.distort(self.goal.tool, name, value), value)
        }


def _differs(a: Any, b: Any) -> bool:
    return type(a) is not type(b) or a != b
