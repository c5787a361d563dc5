"""How often the checker's static findings are right, on servers nobody in the course wrote.

A corpus folder holds real servers' tool lists, one JSON file per server (``{"server",
"package", "version", "registry", "licence", "tools": [...]}``, recorded by
``tools/mcp_corpus.py``), and judgments, files named ``judgments_*.json``: one entry per
server, tool and rule the checker reported at ``warning`` or ``error``, ``{"server",
"tool", "rule", "messages", "verdict": "right" | "wrong", "why"}``, each made once by a
person reading the tool. A judgment holds for the messages it read: when a change of the
checker changes what a finding says, the finding must be judged again.

:func:`measure` runs the static checks (:func:`~tutorial_lib.checker.static.static_findings`)
on every server and compares them with the judgments: per rule, how many findings, how
many right, the precision (right / judged); findings nobody judged, and judgments the
checker no longer produces, are listed so that the measure cannot drift from the rules.
The course's corpus is ``tests/data/mcp_corpus`` (21 servers, 220 tools);
``tests/test_checker_corpus.py`` holds every ``warning`` and ``error`` rule at 90% or more.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tutorial_lib.checker.rules import RULES
from tutorial_lib.checker.static import static_findings

__all__ = [
    "COURSE_CORPUS",
    "JUDGED_SEVERITIES",
    "Measure",
    "RulePrecision",
    "format_precision",
    "measure",
]

#: The course's corpus, in a checkout of the repository (an installed package has none).
COURSE_CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "mcp_corpus"
#: The severities whose findings are judged (``info`` is a hint, not a verdict).
JUDGED_SEVERITIES = ("warning", "error")

Key = tuple[str, str, str]  # (server, tool, rule)


@dataclass(frozen=True)
class RulePrecision:
    """One rule on the corpus: findings judged right and wrong."""

    rule: str
    severity: str
    right: int
    wrong: int

    @property
    def findings(self) -> int:
        return self.right + self.wrong

    @property
    def precision(self) -> float:
        return self.right / self.findings if self.findings else 1.0


@dataclass
class Measure:
    """The corpus, measured: per-rule precision, and what does not match the judgments."""

    servers: int
    tools: int
    rules: list[RulePrecision]
    unjudged: list[Key] = field(default_factory=list)
    stale: list[Key] = field(default_factory=list)

    @property
    def right(self) -> int:
        return sum(r.right for r in self.rules)

    @property
    def findings(self) -> int:
        return sum(r.findings for r in self.rules)


def _servers(corpus: Path) -> list[dict[str, Any]]:
    return [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(corpus.glob("*.json"))
        if not path.name.startswith("judgments")
    ]


def _judgments(corpus: Path) -> dict[Key, tuple[str, tuple[str, ...]]]:
    """``{(server, tool, rule): (verdict, messages judged)}``."""
    verdicts: dict[Key, tuple[str, tuple[str, ...]]] = {}
    for path in sorted(corpus.glob("judgments*.json")):
        for entry in json.loads(path.read_text(encoding="utf-8")):
            key = (entry["server"], entry["tool"], entry["rule"])
            if key in verdicts:
                raise ValueError(f"{path.name}: {key} is judged twice")
            if entry["verdict"] not in ("right", "wrong"):
                raise ValueError(f"{path.name}: {key}: verdict {entry['verdict']!r}")
            verdicts[key] = (entry["verdict"], tuple(sorted(entry["messages"])))
    return verdicts


def measure(corpus: Path) -> Measure:
    """The static checks on every server of ``corpus``, against its judgments."""
    servers = _servers(corpus)
    verdicts = _judgments(corpus)
    said: dict[Key, list[str]] = {}
    for server in servers:
        for finding in static_findings(server["tools"]):
            if finding.severity in JUDGED_SEVERITIES:
                key = (server["server"], finding.tool, finding.rule)
                said.setdefault(key, []).append(finding.message)
    found = set(said)
    judged = {
        key for key in found if key in verdicts and verdicts[key][1] == tuple(sorted(said[key]))
    }
    counts: dict[str, list[int]] = {}
    for key in judged:
        counts.setdefault(key[2], [0, 0])[verdicts[key][0] == "wrong"] += 1
    rules = [
        RulePrecision(rule, RULES[rule].severity, right, wrong)
        for rule, (right, wrong) in sorted(counts.items())
    ]
    return Measure(
        servers=len(servers),
        tools=sum(len(s["tools"]) for s in servers),
        rules=rules,
        unjudged=sorted(found - judged),
        stale=sorted(set(verdicts) - judged),
    )


def format_precision(result: Measure, rules: Sequence[RulePrecision] | None = None) -> str:
    """The per-rule table: rule, severity, findings, right, precision; and the total."""
    rows = sorted(rules if rules is not None else result.rules, key=lambda r: -r.findings)
    width = max([len(r.rule) for r in rows] + [4])
    lines = [
        f"{'rule':<{width}}  severity  findings  right  precision",
        f"{'-' * width}  --------  --------  -----  ---------",
    ]
    for row in rows:
        lines.append(
            f"{row.rule:<{width}}  {row.severity:<8}  {row.findings:>8}  {row.right:>5}"
            f"  {row.precision:>9.0%}"
        )
    total = result.right / result.findings if result.findings else 1.0
    lines.append(
        f"{'all':<{width}}  {'':<8}  {result.findings:>8}  {result.right:>5}  {total:>9.0%}"
    )
    return "\n".join(lines)
