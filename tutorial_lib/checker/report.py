"""What a check found, as data, as Markdown for people and as JSON for machines.

A :class:`Finding` is one broken promise of one tool: which ``tool`` (or ``"(server)"``
for what the whole server does), which ``rule`` (:data:`~tutorial_lib.checker.rules.RULES`),
how serious (``severity``), what is wrong (``message``), the course ``chapter`` that
teaches the fix, and the evidence: the ``call`` that showed it and the ``answer`` it got,
both trimmed. A :class:`Report` holds every finding of one run, what was checked of each
tool (:class:`ToolCoverage`) and the run's timings.

Both renderings are deterministic for the same server: findings are sorted (tools in
the server's listing order, then severity, most serious first, then rule and message),
clock readings in answers are masked, and timings appear only in the JSON
(``"timings"``) and, with ``timings=True``, at the end of the Markdown.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tutorial_lib.checker.rules import CHAPTERS, RULES, SEVERITIES, severity_at_least
from tutorial_lib.core.display import visible

__all__ = [
    "SERVER",
    "Evidence",
    "Finding",
    "ProtocolPass",
    "Report",
    "UNTESTED_RULES",
    "ToolCoverage",
    "exit_code",
    "render_findings",
    "render_json",
    "render_markdown",
    "summary_rows",
]

#: The ``tool`` of a finding about the whole server (its JSON reader, its process).
SERVER = "(server)"

#: Evidence is trimmed to about this many characters (arguments and answers alike).
EVIDENCE_CHARS = 400


@dataclass(frozen=True)
class Evidence:
    """One call and its answer, as the report shows them.

    ``tool`` and ``arguments`` are the call (``arguments`` already made printable: long
    strings cut, a lone surrogate shown escaped, deep nesting summarised); ``kind`` says
    what the call tried (``"valid"``, ``"wrong_type"``, ``"tampered_cursor"``, ...);
    ``answer`` is the answer in short (``"isError: ..."``, ``"success: ..."``,
    ``"protocol error -32602: ..."``, ``"no answer within 5 s"``).
    """

    tool: str
    arguments: Any
    kind: str
    answer: str

    def call_text(self) -> str:
        """The call as one line: ``tool {"a": 1}``, trimmed."""
        return f"{self.tool} {trim(compact(self.arguments))}"

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "kind": self.kind,
            "arguments": self.arguments,
            "answer": self.answer,
        }


@dataclass(frozen=True)
class Finding:
    """One problem of one tool, with the chapter that teaches the fix (see the module).

    ``fix`` is an optional sentence on how to fix it; ``evidence`` is None for static
    findings (the tool list is the evidence) and the call and answer otherwise.
    ``only_on`` names the one protocol revision the finding showed on, when the same calls
    made on the other revision did not show it ("" otherwise: on the revision of the full
    check, and wherever else it was looked for).
    """

    tool: str
    rule: str
    severity: str
    message: str
    chapter: str
    evidence: Evidence | None = None
    fix: str = ""
    only_on: str = ""

    def sort_key(self, order: dict[str, int] | None = None) -> tuple[Any, ...]:
        """Tools in ``order`` (the server's listing) first, then by name; the server's own
        findings last; within a tool, the most serious first, then rule and message."""
        position = (order or {}).get(self.tool, len(order or {}))
        return (
            self.tool == SERVER,
            position,
            self.tool,
            -SEVERITIES.index(self.severity),
            self.rule,
            self.message,
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tool": self.tool,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "chapter": self.chapter,
            "call": None,
            "answer": None,
        }
        if self.evidence is not None:
            call = self.evidence.to_json()
            out["answer"] = call.pop("answer")
            out["call"] = call
        if self.fix:
            out["fix"] = self.fix
        if self.only_on:
            out["only_on"] = self.only_on
        return out


@dataclass
class ToolCoverage:
    """What the checker did with one tool: ``status`` is ``"checked"`` (called),
    ``"static only"`` (not called; ``reason`` says why), and ``calls`` counts the calls
    made to it; ``elapsed_s`` (JSON only) is the time spent on it."""

    name: str
    read_only: bool
    status: str = "static only"
    reason: str = ""
    calls: int = 0
    valid_arguments: str = ""  # where the valid arguments came from
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0


@dataclass
class ProtocolPass:
    """One protocol revision of a check: the ``revision`` asked for (``"2026-07-28"``,
    ``"2025-11-25"``), the ``check`` run on it (``"full"``; ``"light"``: handshake,
    ``tools/list``, one valid and one invalid call per called tool; ``"none"``),
    whether it ``connected``, the revision the server ``negotiated``, the ``tools`` it
    listed, the ``calls`` made and a ``note`` (why it did not connect, what differed)."""

    revision: str
    check: str
    connected: bool
    negotiated: str | None = None
    tools: int | None = None
    calls: int = 0
    note: str = ""

    def describe(self) -> str:
        """One line: ``2025-11-25: light check, connected (negotiated 2025-11-25), 16 calls``."""
        if not self.connected:
            return f"{self.revision}: not connected: {self.note or 'no reason given'}"
        text = f"{self.revision}: {self.check} check, connected"
        if self.negotiated and self.negotiated != self.revision:
            text += f" (negotiated {self.negotiated})"
        text += f", {self.calls} calls"
        return text + (f"; {self.note}" if self.note else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "revision": self.revision,
            "check": self.check,
            "connected": self.connected,
            "negotiated": self.negotiated,
            "tools": self.tools,
            "calls": self.calls,
            "note": self.note,
        }


@dataclass
class Report:
    """Every finding of one run, the coverage of each tool, and the run's context.

    ``server`` is what the server said of itself (name, version, protocol) and the
    command; ``options`` the options that shape the result (kinds, time limit...);
    ``timings`` the seconds spent (start, listing, per tool, total): JSON only.
    ``protocols`` says, per protocol revision asked for, what was checked on it and
    whether it connected (:class:`ProtocolPass`).
    """

    command: list[str]
    server: dict[str, Any]
    options: dict[str, Any]
    tools: list[ToolCoverage]
    findings: list[Finding]
    fail_on: str = "error"
    timings: dict[str, Any] = field(default_factory=dict)
    protocols: list[ProtocolPass] = field(default_factory=list)

    def sorted_findings(self) -> list[Finding]:
        """The findings in report order: by tool as the server lists them, the server's
        own last; within a tool the most serious first, then by rule and message."""
        order = {tool.name: index for index, tool in enumerate(self.tools)}
        return sorted(self.findings, key=lambda f: f.sort_key(order))

    def counts(self, tool: str | None = None) -> Counter[str]:
        """Findings per severity (of one tool, or of the whole run)."""
        return Counter(f.severity for f in self.findings if tool is None or f.tool == tool)

    def failing(self) -> list[Finding]:
        """The findings at or above ``fail_on``."""
        return [f for f in self.sorted_findings() if severity_at_least(f.severity, self.fail_on)]

    def exit_code(self) -> int:
        """0 when nothing is at or above ``fail_on``, else 1."""
        return 1 if self.failing() else 0


def exit_code(report: Report) -> int:
    """The command's exit status for ``report``: 0 clean, 1 findings at or above its
    ``fail_on`` (2, could not start or talk to the server, never has a report)."""
    return report.exit_code()


# -- printable values ---------------------------------------------------------------------


def compact(value: Any) -> str:
    """``value`` as compact JSON (non-ASCII kept; anything unserialisable as its repr)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


#: Clock readings in answers (ISO 8601, JavaScript's Date strings): masked as ``<time>``
#: in evidence, so that the same server gives the same report.
TIMESTAMP = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"
    r"|\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r" \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT[+-]\d{4}( \([^)]*\))?"
)


def trim(text: str, limit: int = EVIDENCE_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters (``…`` marks the cut), clock
    readings masked (:data:`TIMESTAMP`), lone surrogates escaped so that it can always be
    written as UTF-8."""
    text = TIMESTAMP.sub("<time>", " ".join(text.split()))
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell or list item."""
    return text.replace("|", "\\|")


def _code(text: str) -> str:
    ticks = "``" if "`" in text else "`"
    pad = " " if "`" in text else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


# -- renderings ---------------------------------------------------------------------------


def summary_rows(report: Report) -> list[list[str]]:
    """The summary table: a header row, then per tool (in the server's order) whether it
    is read-only, whether it was called (and why not), its calls and findings per severity;
    a last row for the server's own findings, if any."""
    rows = [["tool", "read-only", "checked", "calls", "errors", "warnings", "info"]]
    for tool in report.tools:
        c = report.counts(tool.name)
        checked = tool.status if not tool.reason else f"{tool.status}: {tool.reason}"
        rows.append(
            [tool.name, "yes" if tool.read_only else "no", checked, str(tool.calls),
             str(c["error"]), str(c["warning"]), str(c["info"])]
        )  # fmt: skip
    server_counts = report.counts(SERVER)
    if sum(server_counts.values()):
        counts = [str(server_counts[s]) for s in ("error", "warning", "info")]
        rows.append([SERVER, "", "", "", *counts])
    return rows


def render_findings(
    report: Report,
    tools: Sequence[str] | None = None,
    rules: Sequence[str] | None = None,
    width: int | None = None,
) -> str:
    """The findings as Markdown, per tool in report order: severity, rule, chapter,
    message, the fix and, for a behavioural finding, the call and the answer (trimmed).
    ``tools`` and ``rules`` keep only those tools' or rules' findings; ``width`` wraps
    each line to that many characters (continuations indented), for a terminal."""
    findings = [
        f
        for f in report.sorted_findings()
        if (tools is None or f.tool in tools) and (rules is None or f.rule in rules)
    ]
    if not findings:
        return "No findings.\n"
    lines: list[str] = []
    current = None
    for index, finding in enumerate(findings):
        if finding.tool != current:
            current = finding.tool
            lines += [f"### {_code(finding.tool) if finding.tool != SERVER else SERVER}", ""]
        only = f" (only on protocol {finding.only_on})" if finding.only_on else ""
        lines.append(
            f"- **{finding.severity}** `{finding.rule}` ({finding.chapter}){only}:"
            f" {_md(finding.message)}"
        )
        if finding.fix:
            lines.append(f"  - fix: {_md(finding.fix)}")
        if finding.evidence is not None:
            ev = finding.evidence
            lines.append(f"  - call ({ev.kind}): {_code(trim(ev.call_text()))}")
            lines.append(f"  - answer: {_code(trim(ev.answer))}")
        if index + 1 == len(findings) or findings[index + 1].tool != current:
            lines.append("")
    if width is not None:
        lines = [wrapped for line in lines for wrapped in _wrap(line, width)]
    # the server's words (answers, names) may hide or reorder text: show every character
    return visible("\n".join(lines).rstrip() + "\n")


def _wrap(line: str, width: int) -> list[str]:
    indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
    return textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False) or [""]


#: Rules that say what could not be tested, not what is wrong: listed apart in the report.
UNTESTED_RULES = frozenset({"no_valid_arguments", "valid_call_refused"})


def render_markdown(report: Report, *, timings: bool = False) -> str:
    """The report for people: server, summary table, findings per tool, chapters.

    Deterministic for the same server: no timings unless ``timings=True``.
    """
    findings = report.sorted_findings()
    counts = report.counts()
    lines = [f"# MCP tool check: {_code(' '.join(report.command))}", ""]
    server = report.server
    lines.append(
        f"Server: {_md(str(server.get('name') or '(unnamed)'))} "
        f"{_md(str(server.get('version') or ''))}".rstrip()
        + f", protocol {server.get('protocol', '?')}, {len(report.tools)} tools."
    )
    if report.protocols:
        passes = "; ".join(_md(p.describe()) for p in report.protocols)
        lines.append(f"Protocols: {passes}.")
    options = ", ".join(f"{k}: {_md(str(v))}" for k, v in report.options.items())
    lines += [f"Options: {options}.", ""]
    verdict = (
        "clean"
        if not report.failing()
        else f"{len(report.failing())} findings at or above {report.fail_on}"
    )
    lines.append(
        f"**{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info**"
        f" (fail on {report.fail_on}: {verdict})."
    )
    lines += ["", "## Summary", ""]
    rows = summary_rows(report)
    lines += ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    for row in rows[1:]:
        cells = [f"`{row[0]}`" if row[0] != SERVER else SERVER, *map(_md, row[1:])]
        lines.append("| " + " | ".join(cells) + " |")
    misleading = sorted({f.rule for f in findings} - UNTESTED_RULES)
    lines += ["", "## Findings: what misleads a model or breaks a client", ""]
    lines += render_findings(report, rules=misleading).splitlines() if misleading else ["None."]
    lines.append("")
    untested = [(t.name, t.reason) for t in report.tools if t.calls == 0 and t.reason]
    untested += [(f.tool, f.message) for f in findings if f.rule in UNTESTED_RULES]
    if untested:
        lines += [
            "## Could not be tested",
            "",
            "Not defects: what the checker could not call, or could not call successfully,"
            " so its behaviour checks did not run there.",
            "",
        ]
        lines += [f"- `{name}`: {_md(reason)}" for name, reason in untested]
        lines.append("")
    notes = [(t.name, n) for t in report.tools for n in t.notes]
    if notes:
        lines += ["## Notes", ""]
        lines += [f"- `{name}`: {_md(note)}" for name, note in notes]
        lines.append("")
    used = sorted({f.chapter for f in findings})
    if used:
        lines += ["## Where the course teaches the fixes", ""]
        lines += [f"- {chapter}: {CHAPTERS.get(chapter, '')}" for chapter in used]
        lines.append("")
    if timings and report.timings:
        lines += ["## Timings", ""]
        lines += [
            f"- {key}: {value:.2f} s" if key.endswith("_s") else f"- {key}: {value}"
            for key, value in report.timings.items()
            if isinstance(value, (int, float))
        ]
        per_tool = report.timings.get("per_tool_s", {})
        lines += [f"- `{name}`: {seconds:.2f} s" for name, seconds in per_tool.items()]
        lines.append("")
    # the server's words (answers, names) may hide or reorder text: show every character
    return visible("\n".join(lines).rstrip() + "\n")


def render_json(report: Report) -> str:
    """The report for machines (see the module); keys are stable, findings sorted."""
    findings = report.sorted_findings()
    document = {
        "checker": "tutorial_lib.checker",
        "report_version": 1,
        "command": report.command,
        "server": report.server,
        "protocols": [p.to_json() for p in report.protocols],
        "options": report.options,
        "summary": {
            "tools": len(report.tools),
            "findings": {s: report.counts()[s] for s in reversed(SEVERITIES)},
            "fail_on": report.fail_on,
            "exit_code": report.exit_code(),
        },
        "tools": [
            {
                "name": t.name,
                "read_only": t.read_only,
                "status": t.status,
                "reason": t.reason,
                "calls": t.calls,
                "valid_arguments": t.valid_arguments,
                "notes": t.notes,
                "findings": {s: report.counts(t.name)[s] for s in reversed(SEVERITIES)},
            }
            for t in report.tools
        ],
        "findings": [f.to_json() for f in findings],
        "rules": {
            rule: {"severity": RULES[rule].severity, "chapter": RULES[rule].chapter}
            for rule in sorted({f.rule for f in findings})
        },
        "timings": report.timings,
    }
    # ASCII: a lone surrogate the checker sent (or a server echoed) stays valid JSON.
    return json.dumps(document, ensure_ascii=True, indent=2) + "\n"
