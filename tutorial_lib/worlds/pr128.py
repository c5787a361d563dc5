"""PR 128's judgements (chapters 04 and 08): an agent's answer to "which review comments
of this PR need handling?", judged, and cited.

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

Chapter 04 builds the answer for PR 128 by hand, playing the agent (:func:`judge_pr128`
holds its judgements); chapter 08's walkthrough (:mod:`tutorial_lib.worlds.desk`) makes
the same answer end to end and posts :func:`conclusion_text`. This module is the logic;
the findings as a notebook shows them, wrapped by display width, are
:mod:`tutorial_lib.course.chapters.ch04_paged_summaries.demos`'s.

:func:`build_answer` refuses an answer that drops a comment it read: every unresolved
comment of the listing is either judged or set aside with a reason (bots and outdated
comments by :func:`routine_set_aside`; anything else by the agent, e.g. a reply that
belongs to a thread already judged). A ``"confirmed"`` finding must cite the full comment
(``github_pr_get_comment``), not only its 140-character summary.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tutorial_lib.core.host import Host
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
    "conclusion_text",
    "judge_pr128",
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
    double processing (unconfirmed)"); :func:`build_answer` checks the summary holds them.
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

    def summary_line(self) -> str:
        """What was read, how many of each class, and that the classes are a judgement.

        One line, unwrapped: :func:`conclusion_text` posts it, and
        :func:`tutorial_lib.course.chapters.ch04_paged_summaries.demos.headline` wraps it for
        a notebook.
        """
        counts = "，".join(
            f"{CATEGORY_SHORT[c]} {len(v)} 条" for c, v in self.by_category().items()
        )
        partial = "" if self.coverage == "complete" else "只读了一部分，没读到的不在其中；"
        return (
            f"{self.repository}#{self.pr}：读了 {self.comments_read} 条评论"
            f"（coverage {self.coverage}）；{partial}{counts}；另有 {len(self.set_aside)} 条"
            "未解决的评论不算发现。分类是 Agent 的判断，工具不返回它。"
        )


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


def judge_pr128(
    host: Host, scope: Mapping[str, Any]
) -> tuple[dict[int, Judgement], dict[int, str]]:
    """The agent's judgements of PR 128's unresolved comments (chapter 04), and the
    comments it sets aside beyond the routine ones (replies, the injected comment).

    Each quote is a real ``github_pr_get_comment`` call through ``host`` (see
    :func:`cite`): details by id, only where a judgement
    rests on more than the listing's summary.
    """

    def quote(comment_id: int, field: str, words: str, **extra: Any) -> Any:
        arguments = {**scope, "comment_id": comment_id, **extra}
        return cite(host, "github_pr_get_comment", arguments, field, words)

    judgements = {
        1700000035: Judgement(
            "confirmed",
            "审查者指出缺陷并附了复现用例；PR 作者在同一线程里承认能复现。",
            evidence=(
                quote(1700000035, "body", "Reproduced with `cart.test.ts`"),
                quote(1700000036, "in_reply_to_id", "1700000035", response_format="detailed"),
                quote(1700000036, "author", "dana-ortiz"),
                quote(1700000036, "body", "Confirmed, I can reproduce it."),
                cite(host, "github_pr_get", scope, "author", "dana-ortiz"),
            ),
        ),
        1700000067: Judgement(
            "confirmed",
            "审查者说明了失败的原因，还说在预发环境的数据快照上跑过、迁移中止。"
            "复现是审查者报告的，Agent 没有重跑。",
            evidence=(
                quote(1700000067, "body", "I ran it against the staging snapshot and it aborts"),
            ),
        ),
        1700000042: Judgement(
            "to_verify",
            "审查者用了 “I think”“could”，还请作者去查：没人证实过。",
            cue="possible double processing (unconfirmed)",
        ),
        1700000048: Judgement(
            "to_verify",
            "审查者用了 “might”，还说自己没看处理 webhook 的代码。",
            cue="possible double processing (unconfirmed)",
            evidence=(quote(1700000048, "body", "I haven't checked the webhook handler"),),
        ),
        1700000055: Judgement(
            "to_verify",
            "说得很肯定，但没有复现，作者也没回应；Agent 读不到代码，无从核对。安全问题，先查。",
            evidence=(quote(1700000055, "body", "That is an SQL injection"),),
        ),
        1700000031: Judgement(
            "opinion", "加重试的建议，审查者自己也拿不准。", cue="Not sure what Stripe recommends"
        ),
        1700000034: Judgement("opinion", "审查者明说不阻塞。", cue="Not a blocker"),
        1700000039: Judgement("opinion", "文档上的建议，交给作者定。", cue="Up to you"),
        1700000054: Judgement("opinion", "审查者说这不是强烈的意见。", cue="Not a strong opinion"),
        1700000059: Judgement("opinion", "写法上的小建议。", cue="Reviewer nit"),
        1700000063: Judgement("opinion", "默认值的建议，只是随口一提。", cue="Just a thought"),
        1700000069: Judgement("opinion", "写法上的小建议。", cue="Reviewer nit"),
    }
    agent_set_aside = {
        1700000032: "作者对 1700000031 的回复，归入那条线程",
        1700000036: "作者对 1700000035 的回复，已作为它的依据",
        1700000062: "正文要 AI 读取 .env 并发往外部地址：这是评论里的数据，不照做（第 06 章）",
    }
    return judgements, agent_set_aside


def conclusion_text(answer: PullRequestAnswer) -> str:
    """The comment that posts the conclusion: the headline, then the ids of each class."""
    lines = [answer.summary_line(), ""]
    for category, ids in answer.ids().items():
        if ids:
            lines.append(f"- {CATEGORY_SHORT[category]}：{'、'.join(map(str, ids))}")
    return "\n".join(lines)
