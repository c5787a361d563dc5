"""PR 128's answer as chapters 04 and 08 show it: wrapped by display width.

The judgements and the answer are library logic (:mod:`tutorial_lib.worlds.pr128`); this
module only lays them out for a person reading a notebook, at most ``width`` columns a line
(a Chinese character takes two: :func:`tutorial_lib.course.table.display_width`).

- :func:`headline`: what was read, how many of each class, that the classes are a judgement;
- :func:`findings_text`: the findings of some classes, with what each one cites.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from tutorial_lib.course.table import display_width
from tutorial_lib.language import tr
from tutorial_lib.worlds.pr128 import CATEGORIES, CATEGORY_TITLES, PullRequestAnswer

__all__ = ["findings_text", "headline"]


def headline(answer: PullRequestAnswer, *, width: int = 100) -> str:
    """:meth:`~tutorial_lib.worlds.pr128.PullRequestAnswer.summary_line`, wrapped."""
    return "\n".join(_wrapped(answer.summary_line(), width, ""))


def findings_text(
    answer: PullRequestAnswer, categories: Iterable[str] = CATEGORIES, *, width: int = 100
) -> str:
    """The findings of ``categories``, for a person, at most ``width`` columns a line.

    A confirmed problem or a risk: location, the tool's summary (hedging kept), the
    agent's reason, what it cites, and the details entry. An opinion: one line
    (location and the words that make it one); its entry stays in ``answer.findings``.
    """
    out: list[str] = []
    for category in categories:
        found = answer.by_category()[category]
        title = CATEGORY_TITLES[category]
        out.append(tr(f"{title}：{len(found)} 条", f"{title}: {len(found)}"))
        for finding in found:
            where = f"- {finding.comment_id}  {finding.file}:{finding.line}"
            if category == "opinion":
                out += _wrapped(f'{where}  "{finding.cue or finding.reason}"', width, "")
                continue
            out.append(where)
            out += _wrapped(finding.summary, width, "    ")
            out += _wrapped(tr("判断：", "Judgement: ") + finding.reason, width, "    ")
            if finding.cue:
                out += _wrapped(
                    tr(
                        f'依据：摘要里的 "{finding.cue}"',
                        f'Evidence: "{finding.cue}" in the summary',
                    ),
                    width,
                    "    ",
                )
            for evidence in finding.evidence:
                out += _wrapped(tr("依据：", "Evidence: ") + evidence.line(), width, "    ")
            entry = json.dumps(finding.details["arguments"], ensure_ascii=False)
            call = f"{finding.details['name']} {entry}"
            out += _wrapped(tr(f"详情：{call}", f"Details: {call}"), width, "    ")
    return "\n".join(out)


# data, not learner text: the code points a terminal draws two columns wide
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
