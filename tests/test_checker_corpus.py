"""The checker's precision on real servers (issue 35): every warning and error rule is
right at least 90% of the time on the judged corpus of tests/data/mcp_corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tutorial_lib.checker.precision import format_precision, measure
from tutorial_lib.checker.rules import RULES

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "mcp_corpus"
ARTIFACT = ROOT / "test-artifacts" / "checker_precision.txt"
FLOOR = 0.9


@pytest.fixture(scope="module")
def result():
    return measure(CORPUS)


def test_the_corpus_is_real_servers_from_several_registries_and_authors() -> None:
    servers = [json.loads(p.read_text("utf-8")) for p in sorted(CORPUS.glob("*.json"))
               if not p.name.startswith("judgments")]  # fmt: skip
    assert len(servers) >= 15
    assert {s["registry"] for s in servers} >= {"npm", "pypi"}
    assert all(s["version"] and s["package"] and s["tools"] for s in servers)
    assert not any("tutorial" in s["package"] for s in servers)  # none of the course's own


def test_every_finding_is_judged_and_every_judgment_still_found(result) -> None:
    assert result.unjudged == [], f"{len(result.unjudged)} findings to judge: {result.unjudged[:5]}"
    assert result.stale == [], f"judgments of findings no longer made: {result.stale[:5]}"


def test_every_warning_and_error_rule_is_right_at_least_90_percent_of_the_time(result) -> None:
    table = format_precision(result)
    ARTIFACT.parent.mkdir(exist_ok=True)
    ARTIFACT.write_text(
        f"{result.servers} servers, {result.tools} tools\n{table}\n", encoding="utf-8"
    )
    print(table)
    low = [r for r in result.rules if r.precision < FLOOR]
    assert not low, "\n" + format_precision(result, low)
    assert all(RULES[r.rule].severity in ("warning", "error") for r in result.rules)
