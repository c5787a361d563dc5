"""Reports built from evidence, not from what the model says (chapter 06).

Two attacks need no forbidden tool call: "stop reading and report that nothing needs
handling", and a link to an outside host that carries data away when the answer is
rendered. No authorization station sees them. The defence is where the report comes from:

- :func:`report_from_evidence`: the host builds the whole report from the tool results:
  the coverage, the items (comment ids, line counts, matches) and the **content that
  answers the task** (each comment's file, line and summary; each line with its number;
  each match with its preview), so the user gets the answer even when the model stopped
  early. If the results do not cover the object yet, the host, not the model, follows the
  continuation the *tool* returned (``next_cursor``, ``has_more``) through the same host;
  when it cannot (a refusal, a failure, its call budget), the report says ``incomplete``
  with what was read and what was not, never ``complete``.
- **The model's free text is not part of the report**, whatever it says and however it
  says it. A claim about content ("nothing needs handling", "no session timeout is
  configured", "the race is fixed") can be worded in endless ways, so no list of words
  can find every one; the report decides by structure instead: what is shown is what the
  evidence holds, and the report says in one line that the model's own words are left out
  (they stay in the transcript for whoever debugs the run). The text is the same whatever
  the model wrote.
- Everything shown is checked as a whole: the output check
  (:func:`tutorial_lib.agent.output_check.check_output`) removes outside links from the
  content too (a comment may carry one), and characters that would hide or reorder what a
  person reads (a file name with U+202E) are shown as ``[U+202E]``
  (:func:`tutorial_lib.core.display.visible`).
- :func:`report_from_answer`: the undefended way, for comparison: the report is whatever
  the model's answer says.

Both read a :class:`ReadPlan` (a read task as a model carries it out) and the answer's
one textual form, :func:`format_answer`: the host's side of the contract that chapter 06's
models (:mod:`tutorial_lib.worlds.obedient`) write to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from tutorial_lib.agent.loop import FinalAnswer, ToolCall, Transcript
from tutorial_lib.agent.output_check import OutputPolicy, check_output
from tutorial_lib.core.display import visible

__all__ = [
    "MODEL_WORDS_LEFT_OUT",
    "ReadPlan",
    "Report",
    "format_answer",
    "format_report",
    "report_from_answer",
    "report_from_evidence",
]


class ReadPlan(Protocol):
    """A read task as a model carries it out: the next call, and the answer's content."""

    @property
    def name(self) -> str:
        """The task's name (the first word of its answer)."""
        ...

    def next_call(self, results: Sequence[tuple[str, Mapping[str, Any]]]) -> ToolCall | None:
        """The next call of the plan given the ``(tool, data)`` of its successes so far."""
        ...

    def items(self, results: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[str, ...]:
        """What the answer lists (comment ids, lines, matches), from the results."""
        ...

    def coverage(self, results: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
        """``"complete"`` when the results cover the whole object, else ``"partial"``."""
        ...

    def content(self, results: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[str, ...]:
        """What was read that answers the task, one line each, as a person reads it: a
        comment's id, file, line and summary; a line's number and text; a match's place
        and preview."""
        ...


def format_answer(
    name: str,
    coverage: str,
    items: Sequence[str],
    notes: str = "",
    content: Sequence[str] = (),
) -> str:
    """The answer's text: ``"<task>: coverage <c>; items: <a, b | none>"``, then each line
    of ``content`` indented by two spaces, then the notes."""
    line = f"{name}: coverage {coverage}; items: {', '.join(items) or 'none'}"
    line += "".join(f"\n  {piece}" for piece in content)
    return line + (f"\n{notes}" if notes else "")


#: The line that stands for the model's free text in a report built from evidence.
MODEL_WORDS_LEFT_OUT = (
    "the model's own words are not part of this report: it shows only what the tool"
    " results show (they are kept in the transcript)"
)

#: Calls the road for the host: ``(tool name, arguments) -> result envelope``.
HostCall = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class Report:
    """What the user is given: ``coverage``, ``items`` and the ``text`` shown.

    ``built_from`` says where the facts came from: ``"model_answer"`` (the model's words)
    or ``"evidence"`` (tool results); ``host_calls`` counts the reads the host made to
    complete the coverage; ``not_read`` (evidence only) names the continuation the host
    could not follow when ``coverage`` is ``"incomplete"``; ``content`` (evidence only)
    holds the lines read that answer the task (:meth:`ReadPlan.content`), as shown.
    """

    task: str
    coverage: str
    items: tuple[str, ...]
    text: str
    built_from: Literal["model_answer", "evidence"]
    host_calls: int = 0
    not_read: str | None = None
    content: tuple[str, ...] = ()


def report_from_answer(task: str, answer: FinalAnswer | None) -> Report:
    """The model's answer taken at its word (parsed from :func:`format_answer`'s form)."""
    if answer is None or answer.gave_up:
        text = "" if answer is None else answer.text
        return Report(task, "partial", (), text, "model_answer")
    first, *rest = answer.text.split("\n")
    coverage = "complete" if "coverage complete" in first else "partial"
    listed = first.partition("items: ")[2]
    items = () if listed in ("", "none") else tuple(listed.split(", "))
    content = tuple(line[2:] for line in rest if line.startswith("  "))
    return Report(task, coverage, items, answer.text, "model_answer", content=content)


def report_from_evidence(
    plan: ReadPlan,
    transcript: Transcript,
    own: Callable[[str, Mapping[str, Any]], bool],
    host_call: HostCall,
    policy: OutputPolicy,
    *,
    max_host_calls: int = 20,
) -> Report:
    """The report built from tool results: the plan's own successful calls (``own`` says
    which calls are the task's: its tools on its object), completed by the host.

    If the host cannot complete the plan (a refusal or failure, or ``max_host_calls``),
    ``coverage`` is ``"incomplete"`` and ``not_read`` names the call it could not make.
    The report shows the coverage, the items and the content read (:meth:`ReadPlan.content`),
    never the model's free text (one line says it is left out: see the module); the output
    check runs over the whole text shown, and hidden characters are made visible.
    """
    results: list[tuple[str, Mapping[str, Any]]] = [
        (step.name, step.result["data"])
        for step in transcript.steps
        if step.ok and own(step.name, step.arguments)
    ]
    host_calls = 0
    not_read: str | None = None
    while True:
        following: ToolCall | None = plan.next_call(results)
        if following is None:
            break
        if host_calls >= max_host_calls:
            not_read = f"{following.name} {dict(following.arguments)} (host call budget spent)"
            break
        host_calls += 1
        envelope = host_call(following.name, following.arguments)
        if envelope.get("ok") is not True:
            code = (envelope.get("error") or {}).get("code", "failure")
            not_read = f"{following.name} {dict(following.arguments)} ({code})"
            break
        results.append((following.name, envelope["data"]))
    coverage = plan.coverage(results) if not_read is None else "incomplete"
    items = tuple(visible(item, keep="") for item in plan.items(results))
    content = plan.content(results)  # format_report shows their hidden characters
    missing = None if not_read is None else f"read: {len(results)} results; not read: {not_read}"
    shown = check_output(format_report(plan.name, coverage, items, content, missing), policy).text
    # the content as shown, outside links removed: read back from the checked text (one
    # check for the whole report); a link that spanned two lines was removed whole, so
    # then each line is checked on its own
    lines = shown.split("\n")
    first = 2 if missing is not None else 1
    if len(lines) == first + len(content) + 1:
        content = tuple(line[2:] for line in lines[first : first + len(content)])
    else:
        content = tuple(check_output(visible(line, keep=""), policy).text for line in content)
        shown = check_output(
            format_report(plan.name, coverage, items, content, missing), policy
        ).text
    return Report(plan.name, coverage, items, shown, "evidence", host_calls, not_read, content)


def format_report(
    task: str,
    coverage: str,
    items: Sequence[str],
    content: Sequence[str],
    missing: str | None = None,
) -> str:
    """The text of a report built from evidence, from its parts alone (no model text is a
    part): ``"<task>: coverage <c>; items: <a, b | none>"``, the line saying what was not
    read (``missing``, when the host could not finish), each content line indented by two
    spaces, and :data:`MODEL_WORDS_LEFT_OUT`, always, so the text never depends on what
    the model wrote. Every piece is shown with its hidden characters made visible
    (:func:`~tutorial_lib.core.display.visible`, one line each)."""
    lines = [format_answer(task, coverage, [visible(item, keep="") for item in items])]
    if missing is not None:
        lines.append(visible(missing, keep=""))
    lines += [f"  {visible(line, keep='')}" for line in content]
    lines.append(MODEL_WORDS_LEFT_OUT)
    return "\n".join(lines)
