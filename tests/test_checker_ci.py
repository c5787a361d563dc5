"""The checker's controls for a CI job: the server's environment, rule selection, a
baseline of accepted findings, SARIF (tutorial_lib.checker.ci and the command line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import mcp_flawed_server as flawed
from tests.test_checker import WIRE, check, sdk_server
from tutorial_lib.checker import ci
from tutorial_lib.checker.report import Evidence, Finding, Report
from tutorial_lib.checker.rules import RULES

ENV_SERVER = """
import os
from mcp.server import MCPServer

server = MCPServer("env-reader")


@server.tool(name="env_show_mode", description=os.environ.get("TOOL_TEXT", ""))
def env_show_mode() -> str:
    return os.environ.get("TOOL_TEXT", "")


server.run("stdio")
"""


def finding(tool: str, rule: str, message: str = "m") -> Finding:
    return Finding(tool, rule, RULES[rule].severity, message, RULES[rule].chapter)


FINDINGS = [
    finding("a", "vague_name"),
    finding("a", "description_missing_scope"),
    finding("b", "string_unbounded"),
    finding("b", "protocol_error"),
    finding("c", "page_gap"),
]


def test_env_pairs_and_passed_names_reach_the_server_and_bad_ones_are_refused() -> None:
    env = ci.server_environment(["A=1", "B=x=y"], ["HOME_X"], {"HOME_X": "h"})
    assert env == {"A": "1", "B": "x=y", "HOME_X": "h"}
    assert ci.server_environment([], [], {}) is None
    with pytest.raises(ValueError, match="NAME=VALUE"):
        ci.server_environment(["A"], [], {})
    with pytest.raises(ValueError, match="not set"):
        ci.server_environment([], ["MISSING"], {})


@pytest.mark.parametrize(
    ("select", "ignore", "kept"),
    [
        ((), (), ["vague_name", "description_missing_scope", "string_unbounded",
                  "protocol_error", "page_gap"]),
        (("description_missing",), (), ["description_missing_scope"]),
        (("static",), (), ["vague_name", "description_missing_scope", "string_unbounded"]),
        (("error",), (), ["protocol_error", "page_gap"]),
        ((), ("static", "paging"), ["protocol_error"]),
        (("behaviour", "vague_name"), (), ["vague_name", "protocol_error"]),
    ],
)  # fmt: skip
def test_selection_by_id_prefix_family_and_severity(select, ignore, kept) -> None:
    assert [f.rule for f in ci.select_findings(FINDINGS, select, ignore)] == kept


def test_a_selector_that_matches_nothing_is_named() -> None:
    assert ci.selector_problems(["static", "vague", "warning", "vagueness"]) == ["vagueness"]


def test_a_baseline_accepts_exactly_the_findings_it_lists(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(ci.baseline_entries(FINDINGS[:3])), encoding="utf-8")
    accepted = ci.read_baseline(path)
    changed = finding("a", "vague_name", "another message")
    new, known = ci.split_by_baseline([*FINDINGS, changed], accepted)
    assert [f.rule for f in known] == [
        "vague_name",
        "description_missing_scope",
        "string_unbounded",
    ]
    assert new == [FINDINGS[3], FINDINGS[4], changed]
    path.write_text('{"format": "other"}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a baseline file"):
        ci.read_baseline(path)


def test_sarif_has_every_used_rule_and_a_result_per_finding() -> None:
    evidence = Evidence("b", {"x": 1}, "hostile", "isError: ...")
    findings = [*FINDINGS[:3], Finding("b", "protocol_error", "error", "boom", "chapter 03",
                                       evidence)]  # fmt: skip
    report = Report(["python", "server.py"], {}, {}, [], findings)
    sarif = json.loads(ci.render_sarif(report))
    assert sarif["version"] == "2.1.0"
    (run,) = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted({f.rule for f in findings})
    assert all("chapter" in r["help"]["text"] for r in rules)
    results = run["results"]
    assert len(results) == 4
    levels = {r["ruleId"]: r["level"] for r in results}
    assert levels["protocol_error"] == "error" and levels["string_unbounded"] == "warning"
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        (location,) = result["locations"]
        assert location["logicalLocations"][0]["name"] in {"a", "b"}
    assert (
        "Evidence:"
        in next(r for r in results if r["ruleId"] == "protocol_error")["message"]["text"]
    )


def test_the_command_line_selects_writes_and_applies_a_baseline(tmp_path: Path) -> None:
    base = ("--skip-kinds", WIRE, "--max-calls", "4", "--tool", flawed.CLEAN, "--tool",
            "ticket_handle")  # fmt: skip
    code, _, report = check(tmp_path, *base)
    assert [(f["tool"], f["rule"]) for f in report["findings"]] == [("ticket_handle", "vague_name")]
    code, _, report = check(tmp_path, *base, "--ignore", "vague_name")
    assert report["findings"] == [] and "ignore vague_name" in report["options"]["rules"]
    baseline, sarif = tmp_path / "baseline.json", tmp_path / "report.sarif"
    check(tmp_path, *base, "--write-baseline", str(baseline), "--sarif", str(sarif))
    assert json.loads(baseline.read_text("utf-8"))["findings"][0]["rule"] == "vague_name"
    assert json.loads(sarif.read_text("utf-8"))["runs"][0]["results"][0]["ruleId"] == "vague_name"
    code, _, report = check(tmp_path, *base, "--baseline", str(baseline), "--fail-on", "warning")
    assert code == 0 and report["findings"] == []
    assert report["options"]["baseline"].endswith("1 known finding(s) accepted")
    with pytest.raises(SystemExit):
        check(tmp_path, *base, "--select", "no_such_rule")


def test_env_reaches_a_server_the_sdk_would_start_without_it(tmp_path: Path) -> None:
    command = sdk_server(tmp_path, ENV_SERVER)
    args = ("--kinds", "", "--protocol", "2026-07-28", "--select", "description_missing")
    _, _, without = check(tmp_path, *args, command=command)
    assert [f["rule"] for f in without["findings"]] == ["description_missing"]
    _, _, given = check(tmp_path, *args, "--env", "TOOL_TEXT=Show the mode.", command=command)
    assert "description_missing" not in [f["rule"] for f in given["findings"]]
    assert given["options"]["env"] == ["TOOL_TEXT"]
    monkey_env = {"TOOL_TEXT": "Show the mode, passed."}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in monkey_env.items():
            patch.setenv(name, value)
        _, _, passed = check(tmp_path, *args, "--env-pass", "TOOL_TEXT", command=command)
    assert "description_missing" not in [f["rule"] for f in passed["findings"]]
