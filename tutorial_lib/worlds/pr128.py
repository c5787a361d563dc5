"""An agent's answer to "which review comments of this PR need handling?": judged, and cited.

A list of unresolved comment ids is what a reading produces; it is not yet an answer.
"Unresolved" only says that nobody clicked "Resolve conversation": a nit the author may
ignore is unresolved, and so is a bug that blocks the merge. The answer sorts what it
read into three classes, with what each class asks the reader to do:

- ``"confirmed"``: a defect the reviewer states AND that something beyond the statement
  backs: a reproduction reported in the comment, or the PR's author acknowledging it in
  the thread. Fix before merging;
- ``"to_verify"``: a possible defect nobody has shown yet: the reviewer hedges it ("I
  think", "might", "maybe"...) or states it with nothing that backs it. Check it (in the
  code, or with the author) before deciding; *to verify* is not *less serious*;
- ``"opinion"``: a preference or suggestion (a nit, "consider", "up to you", "not a
  blocker"). The author may take it or leave it.

The class is a JUDGEMENT, the agent's: no tool returns it, and a summary that keeps the
reviewer's hedging is what makes the judgement possible
(:func:`tutorial_lib.github.reads.summarize_comment`). What keeps a judgement honest is
what it cites. A :class:`Finding` copies the listing entry it judges (``comment_id``,
``file``, ``line``, the tool's own ``summary``, the callable ``details`` entry) and rests on
the summary's own words (``cue``, checked against the summary) or on :class:`Evidence`:
words copied from another tool result together with the call that returned them.
:func:`cite` makes that call along the road and refuses a quote the result does not hold.

Chapter 04 builds the answer for PR 128 by hand, playing the agent; the module lives with
the course instruments because it renders for the course's (Chinese-reading) users.

:func:`build_answer` refuses an answer that drops a comment it read: every unresolved
comment of the listing is either judged or set aside with a reason (bots and outdated
comments by :func:`routine_set_aside`; anything else by the agent, e.g. a reply that
belongs to a thread already judged). A ``"confirmed"`` finding must cite the full comment
(``github_pr_get_comment``), not only its 140-character summary.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tutorial_lib.core.host import Host
from tutorial_lib.course.table import display_width
from tutorial_lib.github.reads import GET_COMMENT

__all__ = [
    "BOT_REASON",
    "CATEGORIES",
    "CATEGORY_SHORT",
    "CATEGORY_TITLES",
    "Evidence",
    "Finding",
    "Judgement",
    "OUTDATED_REASON",
    "PullRequestAnswer",
    "build_answer",
    "cite",
    "routine_set_aside",
]

#: The three classes, in the order an answer lists them.
CATEGORIES = ("confirmed", "to_verify", "opinion")
#: How the answer names each class to the user (the course's users read Chinese).
CATEGORY_TITLES = {
    "confirmed": "已确认的问题（合并前要修）",
    "to_verify": "待验证的风险（先核实，再决定）",
    "opinion": "审查者的意见（作者可以自行取舍）",
}
#: The same, short (the headline's counts).
CATEGORY_SHORT = {"confirmed": "已确认", "to_verify": "待验证", "opinion": "意见"}
#: Reasons of :func:`routine_set_aside`.
BOT_REASON = "机器人提示"
OUTDATED_REASON = "已过时：评论所在的行不在当前 diff 里"


@dataclass(frozen=True)
class Evidence:
    """Words copied from one tool result: ``data[field]`` of the envelope ``call`` returned.

    ``call`` is ``{"name": ..., "arguments": {...}}`` as sent, so anyone can repeat it.
    Make it with :func:`cite`, which checks the words are really there.
    """

    quote: str
    field: str
    call: Mapping[str, Any]

    def line(self) -> str:
        """``name(comment_id=...).field: "quote"``, the short form an answer prints."""
        arguments = self.call["arguments"]
        key = "comment_id" if "comment_id" in arguments else "pr"
        return f'{self.call["name"]}({key}={arguments.get(key)}).{self.field}: "{self.quote}"'


def cite(host: Host, name: str, arguments: Mapping[str, Any], field: str, quote: str) -> Evidence:
    """Call ``name`` through ``host`` and return :class:`Evidence` of ``quote`` in ``data[field]``.

    A text field must contain ``quote``; any other value must print as ``quote`` exactly
    (``in_reply_to_id`` 1700000035 is cited as ``"1700000035"``). Raises ``ValueError`` when
    the call fails or the words are not there: a judgement cannot cite what the tools did
    not return.
    """
    sent = json.loads(json.dumps(arguments))  # a copy, as sent
    envelope = host.call(name, arguments)
    if envelope["ok"] is False:
        raise ValueError(f"{name} failed ({envelope['error']['code']}): nothing to cite")
    data = envelope["data"]
    if field not in data:
        raise ValueError(f"{name} returned no field {field!r}")
    value = data[field]
    found = quote in value if isinstance(value, str) else str(value) == quote
    if not quote or not found:
        raise ValueError(f"{name}: {field} does not contain {quote!r}")
    return Evidence(quote, field, {"name": name, "arguments": sent})


@dataclass(frozen=True)
class Judgement:
    """The agent's verdict on one comment: a class, why (in its own words), what it cites.

    ``cue``: the words of the listing's summary the verdict rests on ("Up to you", "possible
    race condition (unconfirmed)"); :func:`build_answer` checks the summary holds them.
    ``evidence``: what other tool results it rests on (see :func:`cite`).
    """

    category: str
    reason: str
    cue: str = ""
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class Finding:
    """One judged comment: the listing entry (copied, not reworded) plus the judgement."""

    category: str
    comment_id: int
    file: str
    line: int | None
    summary: str
    details: Mapping[str, Any]
    reason: str
    cue: str = ""
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class PullRequestAnswer:
    """What the agent tells the user about ``repository#pr``.

    ``coverage`` and ``comments_read`` describe the reading (``"complete"``: every page of
    the agreed scope was read); ``findings`` are in :data:`CATEGORIES` order; ``set_aside``
    is ``((comment_id, reason), ...)`` for unresolved comments that are not findings;
    ``judged_by`` says whose judgement the classes are: always the agent's.
    """

    repository: str
    pr: int
    coverage: str
    comments_read: int
    findings: tuple[Finding, ...]
    set_aside: tuple[tuple[int, str], ...] = ()
    judged_by: str = field(default="agent", init=False)

    def by_category(self) -> dict[str, list[Finding]]:
        """``{category: [findings]}`` for every class (empty lists included)."""
        return {c: [f for f in self.findings if f.category == c] for c in CATEGORIES}

    def ids(self) -> dict[str, list[int]]:
        """``{category: [comment ids]}``: the answer at a glance."""
        return {c: [f.comment_id for f in found] for c, found in self.by_category().items()}

    def headline(self, *, width: int = 100) -> str:
        """What was read, how many of each class, and that the classes are a judgement."""
        counts = "，".join(
            f"{CATEGORY_SHORT[c]} {len(v)} 条" for c, v in self.by_category().items()
        )
        partial = "" if self.coverage == "complete" else "只读了一部分，没读到的不在其中；"
        text = (
            f"{self.repository}#{self.pr}：读了 {self.comments_read} 条评论"
            f"（coverage {self.coverage}）；{partial}{counts}；另有 {len(self.set_aside)} 条"
            "未解决的评论不算发现。分类是 Agent 的判断，工具不返回它。"
        )
        return "\n".join(_wrapped(text, width, ""))

    def text(self, categories: Iterable[str] = CATEGORIES, *, width: int = 100) -> str:
        """The findings of ``categories``, for a person, at most ``width`` columns a line.

        A confirmed problem or a risk: location, the tool's summary (hedging kept), the
        agent's reason, what it cites, and the details entry. An opinion: one line
        (location and the words that make it one); its entry stays in :attr:`findings`.
        """
        out: list[str] = []
        for category in categories:
            found = self.by_category()[category]
            out.append(f"{CATEGORY_TITLES[category]}：{len(found)} 条")
            for finding in found:
                where = f"- {finding.comment_id}  {finding.file}:{finding.line}"
                if category == "opinion":
                    out += _wrapped(f'{where}  "{finding.cue or finding.reason}"', width, "")
                    continue
                out.append(where)
                out += _wrapped(finding.summary, width, "    ")
                out += _wrapped("判断：" + finding.reason, width, "    ")
                if finding.cue:
                    out += _wrapped(f'依据：摘要里的 "{finding.cue}"', width, "    ")
                for evidence in finding.evidence:
                    out += _wrapped("依据：" + evidence.line(), width, "    ")
                entry = json.dumps(finding.details["arguments"], ensure_ascii=False)
                out += _wrapped(f"详情：{finding.details['name']} {entry}", width, "    ")
        return "\n".join(out)


_WIDE = "\u2e80-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef"
#: A wide character alone, a run of spaces, or a run of anything else (a word).
_TOKEN = re.compile(f"[{_WIDE}]| +|[^ {_WIDE}]+")


def _wrapped(text: str, width: int, indent: str) -> list[str]:
    """``text`` in lines of at most ``width`` display columns (a Chinese character: 2).

    Breaks at spaces, or between two Chinese characters; later lines are indented two
    more columns than ``indent``.
    """
    tokens = _TOKEN.findall(text)
    lines, line = [], indent
    for token in tokens:
        if display_width(line) + display_width(token) > width and line.strip():
            lines.append(line.rstrip())
            line = indent + "  "
            if token.isspace():
                continue
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


def routine_set_aside(entries: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    """The unresolved entries set aside by rule: bots' remarks, comments on outdated lines."""
    aside = {}
    for entry in entries:
        if entry["resolved"]:
            continue
        if str(entry["summary"]).startswith("Bot:"):
            aside[entry["comment_id"]] = BOT_REASON
        elif entry["outdated"]:
            aside[entry["comment_id"]] = OUTDATED_REASON
    return aside


def build_answer(
    repository: str,
    pr: int,
    coverage: str,
    entries: Iterable[Mapping[str, Any]],
    judgements: Mapping[int, Judgement],
    set_aside: Mapping[int, str],
) -> PullRequestAnswer:
    """The answer for ``repository#pr`` from every entry the listing returned.

    ``entries`` are the ``comments`` of every page read (``github_pr_list_comments``, any
    filter); ``coverage`` that of the last page. Raises ``ValueError`` when:

    - an unresolved entry is neither judged nor set aside, or is both (nothing dropped,
      nothing counted twice), or an id judged or set aside is not an unresolved entry;
    - a category is not one of :data:`CATEGORIES`, or a reason is empty;
    - evidence comes from another repository or PR;
    - a ``"confirmed"`` finding does not cite the full comment (``github_pr_get_comment``).
    """
    if coverage not in ("partial", "complete"):
        raise ValueError(f"coverage must be 'partial' or 'complete', not {coverage!r}")
    entries = list(entries)
    open_entries = {e["comment_id"]: e for e in entries if not e["resolved"]}
    both = set(judgements) & set(set_aside)
    if both:
        raise ValueError(f"judged and set aside at once: {sorted(both)}")
    unknown = (set(judgements) | set(set_aside)) - set(open_entries)
    if unknown:
        raise ValueError(f"not unresolved comments of this reading: {sorted(unknown)}")
    missing = set(open_entries) - set(judgements) - set(set_aside)
    if missing:
        raise ValueError(f"unresolved comments neither judged nor set aside: {sorted(missing)}")
    findings = []
    for comment_id, judgement in judgements.items():
        entry = open_entries[comment_id]
        _check_judgement(comment_id, judgement, repository, pr)
        if judgement.cue and judgement.cue not in entry["summary"]:
            raise ValueError(f"comment {comment_id}: the summary does not say {judgement.cue!r}")
        findings.append(
            Finding(
                judgement.category,
                comment_id,
                entry["file"],
                entry["line"],
                entry["summary"],
                entry["details"],
                judgement.reason,
                judgement.cue,
                judgement.evidence,
            )
        )
    order = {comment_id: index for index, comment_id in enumerate(open_entries)}
    findings.sort(key=lambda f: (CATEGORIES.index(f.category), order[f.comment_id]))
    aside = tuple(sorted((cid, reason) for cid, reason in set_aside.items()))
    for comment_id, reason in aside:
        if not reason.strip():
            raise ValueError(f"comment {comment_id} is set aside without a reason")
    return PullRequestAnswer(repository, pr, coverage, len(entries), tuple(findings), aside)


def _check_judgement(comment_id: int, judgement: Judgement, repository: str, pr: int) -> None:
    if judgement.category not in CATEGORIES:
        raise ValueError(
            f"comment {comment_id}: category {judgement.category!r} is not one of"
            f" {list(CATEGORIES)}"
        )
    if not judgement.reason.strip():
        raise ValueError(f"comment {comment_id}: a judgement needs a reason")
    if not judgement.cue and not judgement.evidence:
        raise ValueError(f"comment {comment_id}: a judgement must cite the summary or a result")
    for evidence in judgement.evidence:
        arguments = evidence.call["arguments"]
        if (arguments.get("repository"), arguments.get("pr")) != (repository, pr):
            raise ValueError(f"comment {comment_id}: evidence from another repository or PR")
    if judgement.category == "confirmed" and not any(
        e.call["name"] == GET_COMMENT and e.field == "body" for e in judgement.evidence
    ):
        raise ValueError(
            f"comment {comment_id}: 'confirmed' must cite the full comment"
            f" ({GET_COMMENT}, field body), not only its summary"
        )
