"""What a CI job needs from the checker: the server's environment, rule selection, a
baseline of accepted findings, and SARIF for code-scanning pages.

- :func:`server_environment`: ``--env K=V`` and ``--env-pass NAME``. The SDK starts a
  stdio server with a *safe* environment (``PATH``, ``HOME``... but not the variables
  exported to the checker), so a server configured by environment would otherwise be
  checked in another configuration, silently;
- :func:`select_findings`: ``--select`` / ``--ignore``, as ruff does: a rule id, a prefix
  of rule ids (``description_missing``), a family (``static``, ``behaviour``,
  ``paging``, ``side_effects``) or a severity (``error``, ``warning``, ``info``);
- :func:`baseline_entries` / :func:`split_by_baseline`: a JSON file of findings a team
  has accepted (``--write-baseline``), so that CI fails only on new ones
  (``--baseline``). A finding is known by its tool, rule and message: a changed message
  is a new finding;
- :func:`render_sarif`: SARIF 2.1.0, one result per finding, every rule described with
  the chapter that teaches the fix.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tutorial_lib.checker.report import Finding, Report
from tutorial_lib.checker.rules import CHAPTERS, RULES, SEVERITIES
from tutorial_lib.core.display import escape_json_hidden

__all__ = [
    "BASELINE_FORMAT",
    "baseline_entries",
    "read_baseline",
    "render_sarif",
    "select_findings",
    "selector_problems",
    "server_environment",
    "split_by_baseline",
]

#: The ``format`` of a baseline file.
BASELINE_FORMAT = "tutorial-lib-check-baseline/1"
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def server_environment(
    pairs: Sequence[str], passed: Sequence[str], environ: Mapping[str, str]
) -> dict[str, str] | None:
    """The variables to give the server: ``K=V`` pairs, then ``passed`` names copied from
    ``environ``. None when there are none (the SDK's safe environment alone). Raises
    ValueError for a pair without ``=`` or a name that is not set."""
    env: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--env {pair!r}: write NAME=VALUE")
        env[name] = value
    for name in passed:
        if name not in environ:
            raise ValueError(f"--env-pass {name}: the variable is not set here")
        env[name] = environ[name]
    return env or None


def _matches(finding: Finding, selector: str) -> bool:
    rule = RULES.get(finding.rule)
    return (
        finding.rule.startswith(selector)
        or (rule is not None and rule.family == selector)
        or finding.severity == selector
    )


def selector_problems(selectors: Iterable[str]) -> list[str]:
    """The selectors that match no rule, family or severity (a typo selects nothing)."""
    families = {rule.family for rule in RULES.values()}
    return [
        s
        for s in selectors
        if s not in families and s not in SEVERITIES and not any(r.startswith(s) for r in RULES)
    ]


def select_findings(
    findings: Iterable[Finding], select: Sequence[str] = (), ignore: Sequence[str] = ()
) -> list[Finding]:
    """The findings ``select`` keeps (all when empty) and ``ignore`` does not drop."""
    return [
        f
        for f in findings
        if (not select or any(_matches(f, s) for s in select))
        and not any(_matches(f, s) for s in ignore)
    ]


def _key(finding: Finding) -> tuple[str, str, str]:
    return (finding.tool, finding.rule, finding.message)


def baseline_entries(findings: Iterable[Finding]) -> dict[str, Any]:
    """The baseline file's content for ``findings`` (sorted, one entry per finding)."""
    entries = sorted({_key(f) for f in findings})
    return {
        "format": BASELINE_FORMAT,
        "findings": [{"tool": t, "rule": r, "message": m} for t, r, m in entries],
    }


def read_baseline(path: Path) -> set[tuple[str, str, str]]:
    """The accepted findings of a baseline file; ValueError if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"--baseline {path}: not readable ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != BASELINE_FORMAT:
        raise ValueError(f"--baseline {path}: not a baseline file (format {BASELINE_FORMAT})")
    try:
        return {(e["tool"], e["rule"], e["message"]) for e in data["findings"]}
    except (KeyError, TypeError):
        raise ValueError(f"--baseline {path}: an entry lacks tool, rule or message") from None


def split_by_baseline(
    findings: Iterable[Finding], accepted: set[tuple[str, str, str]]
) -> tuple[list[Finding], list[Finding]]:
    """``(new, known)``: the findings not in the baseline, and those it accepts."""
    new: list[Finding] = []
    known: list[Finding] = []
    for finding in findings:
        (known if _key(finding) in accepted else new).append(finding)
    return new, known


def render_sarif(report: Report) -> str:
    """The report as SARIF 2.1.0 (a code-scanning page's input): every rule, and a result
    per finding whose logical location is the tool."""
    used = sorted({f.rule for f in report.findings})
    rules = []
    for rule_id in used:
        rule = RULES.get(rule_id)
        if rule is None:
            continue
        rules.append(
            {
                "id": rule.id,
                "shortDescription": {"text": rule.checks},
                "help": {"text": f"The fix is taught in {rule.chapter}: {CHAPTERS[rule.chapter]}."},
                "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
                "properties": {"family": rule.family, "chapter": rule.chapter},
            }
        )
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    command = " ".join(report.command)
    results = []
    for finding in report.sorted_findings():
        message = finding.message + (f" Fix: {finding.fix}" if finding.fix else "")
        if finding.evidence is not None:
            message += f" Evidence: {finding.evidence.call_text()} -> {finding.evidence.answer}"
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "level": _SARIF_LEVEL.get(finding.severity, "note"),
            "message": {"text": message},
            "locations": [
                {
                    "physicalLocation": {"artifactLocation": {"uri": "mcp-server"}},
                    "logicalLocations": [{"name": finding.tool, "kind": "function"}],
                }
            ],
        }
        if finding.rule in index:
            result["ruleIndex"] = index[finding.rule]
        results.append(result)
    sarif = {
        "$schema": _SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tutorial-lib-check",
                        "rules": rules,
                    }
                },
                "invocations": [{"commandLine": command, "executionSuccessful": True}],
                "results": results,
            }
        ],
    }
    return escape_json_hidden(json.dumps(sarif, indent=1, ensure_ascii=False)) + "\n"
