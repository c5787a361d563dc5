"""The MCP contract checker (``python -m tutorial_lib.checker``) against real servers.

- tests/mcp_flawed_server.py plants one flaw per tool (``PLANTED``: tool -> rule) next to
  one clean tool: every flaw is reported against its tool, with its rule's severity and
  chapter, and with the call and answer that showed it; the clean tool has nothing at
  ``error``; writes run only with ``--allow-writes`` and only with the given arguments;
- protocol revisions (``--protocol``): by default the full check on 2026-07-28 and a light
  one on 2025-11-25; an error whose structuredContent breaks the outputSchema is
  ``error_output_schema_violation`` on either, and a flaw of one revision only says which;
- exit codes: 0 (clean), 1 (findings at or above ``--fail-on``), 2 (a command that exits
  at once, one that is not an MCP server, one that does not exist);
- the report is deterministic for the same server (timings in the JSON only, unless
  ``--timings``);
- the course's own server (``python -m tutorial_lib.mcp_server``) checked with
  ``--workspace``: its read-only tools leave the workspace byte-identical;
- the reference filesystem server (``@modelcontextprotocol/server-filesystem``, Node),
  pinned in .ci/node/package.json and installed by ``python tools/prepare.py``, which the test
  command runs first. Without Node the test skips with one line naming what to install; with
  ``CI=true`` it fails instead (:mod:`tests.pieces`).

The checker runs in process (``main(argv)``), so jsonschema and the MCP SDK are imported
once per worker; each run starts its server as a real process on real pipes. Time limits
are short (:data:`TIMEOUT`), and the slow hostile kinds (a lone surrogate and deep nesting,
which the Python SDK's reader drops, so each costs a whole time limit) run in one test.
"""

from __future__ import annotations

import io
import json
import runpy
import shutil
import sys
from pathlib import Path

import pytest

from tutorial_lib.checker import (
    CHAPTERS,
    KINDS,
    RULES,
    SERVER,
    SEVERITIES,
    Evidence,
    Finding,
    Report,
    ToolCoverage,
    hostile_calls,
    render_markdown,
    snapshot,
    valid_candidates,
)
from tutorial_lib.checker.__main__ import ProgressBar, main
from tutorial_lib.checker.report import UNTESTED_RULES
from tutorial_lib.checker.run import (
    LEGACY,
    MODERN,
    CheckOptions,
    _merge,
    _Run,
    check_server,
    proposals,
)
from tutorial_lib.checker.static import lists_choices, pattern_bounds_length, static_findings
from tutorial_lib.checker.workspace import destroyed
from tutorial_lib.course.chapters.ch09_mcp_server.demos import (
    FILESYSTEM_SERVER_INSTALL,
    FILESYSTEM_SERVER_PACKAGE,
    FILESYSTEM_SERVER_VERSION,
    filesystem_server_script,
)

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
import mcp_flawed_server as flawed  # noqa: E402 - the server module sits next to the tests

from tests.pieces import need_node  # noqa: E402
from tools.prepare import PREPARE_COMMAND, pinned  # noqa: E402

FLAWED = [sys.executable, str(TESTS / "mcp_flawed_server.py")]
TIMEOUT = "1.5"  # a call takes milliseconds; a planted hang costs one limit
WIRE = "lone_surrogate,deep_nesting"

FS_SERVER = filesystem_server_script(ROOT)


def check(
    tmp: Path, *args: str, command: list[str] | None = None, progress: bool = False
) -> tuple[int, str, dict]:
    """Run the checker in process; (exit code, Markdown, JSON report)."""
    markdown, report = tmp / "report.md", tmp / "report.json"
    code = main(
        [*(["--no-progress"] * (not progress)), "--timeout", TIMEOUT, "--markdown",
         str(markdown), "--json", str(report), *args, "--", *(command or FLAWED)]
    )  # fmt: skip
    if code == 2:
        return code, "", {}
    return code, markdown.read_text(encoding="utf-8"), json.loads(report.read_text("utf-8"))


def sdk_server(tmp_path: Path, source: str) -> list[str]:
    """The command that runs ``source``, a server on the official Python SDK, written to
    ``tmp_path``."""
    script = tmp_path / "server.py"
    script.write_text(source, encoding="utf-8")
    return [sys.executable, str(script)]


def by_tool(report: dict) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for finding in report["findings"]:
        found.setdefault(finding["tool"], []).append(finding)
    return found


def coverage(report: dict, tool: str) -> dict:
    return next(t for t in report["tools"] if t["name"] == tool)


def passes(report: dict) -> list[tuple[str, str, bool]]:
    """Per protocol revision: (revision, check, connected)."""
    return [(p["revision"], p["check"], p["connected"]) for p in report["protocols"]]


# -- the flawed server, every flaw --------------------------------------------------------


@pytest.fixture(scope="module")
def flawed_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, dict, Path]:
    """One full check of the flawed server: writes allowed for the two note writers."""
    tmp = tmp_path_factory.mktemp("flawed")
    workspace = tmp / "ws"
    (workspace / "notes").mkdir(parents=True)
    (workspace / "notes" / "todo.txt").write_text("buy milk\n", encoding="utf-8")
    (workspace / "notes" / "log.txt").write_text("first\n", encoding="utf-8")
    calls = tmp / "calls.json"
    calls.write_text(
        json.dumps(
            {
                "note_write": [{"note": "todo.txt", "text": "replaced"}],
                "note_add_line": [{"note": "log.txt", "text": "line"}],
            }
        ),
        encoding="utf-8",
    )
    code, markdown, report = check(
        tmp, "--workspace", str(workspace), "--allow-writes", "--calls", str(calls),
        "--skip-kinds", WIRE, command=[*FLAWED, "--root", str(workspace)],
    )  # fmt: skip
    return code, markdown, report, workspace


def test_a_refusal_reported_as_success_is_not_an_accepted_hostile_input(flawed_run) -> None:
    _, _, report, _ = flawed_run
    rules = {f["rule"] for f in report["findings"] if f["tool"] == "ticket_get_headline"}
    assert "refusal_reported_as_success" in rules and "hostile_input_accepted" not in rules


def test_a_tool_that_refuses_every_call_is_not_judged_on_its_error_messages(flawed_run) -> None:
    _, _, report, _ = flawed_run
    rules = {f["rule"] for f in report["findings"] if f["tool"] == "ticket_get_secret"}
    assert "valid_call_refused" in rules
    assert not rules & {"error_names_no_field", "error_without_next_step", "error_empty"}


@pytest.mark.parametrize("tool", sorted(flawed.PLANTED))
def test_every_planted_flaw_is_reported_with_its_tool(flawed_run, tool: str) -> None:
    _, markdown, report, _ = flawed_run
    rule = flawed.PLANTED[tool]
    found = [f for f in by_tool(report).get(tool, []) if f["rule"] == rule]
    assert found, f"{tool}: no {rule}; got {[f['rule'] for f in by_tool(report).get(tool, [])]}"
    finding = found[0]
    assert finding["chapter"] == RULES[rule].chapter
    expected = RULES[rule].severity
    if rule == "write_not_marked":
        expected = "error"  # annotated read-only: a write would run unconfirmed
    assert finding["severity"] == expected
    if RULES[rule].family != "static":
        call, answer = finding["call"], finding["answer"]
        assert call["tool"] and call["kind"] and isinstance(call["arguments"], dict), finding
        assert isinstance(answer, str) and answer, finding
    if rule in UNTESTED_RULES:  # listed apart: not a defect, a limit of the check
        untested = markdown.split("## Could not be tested", 1)[1].split("\n## ", 1)[0]
        assert f"- `{tool}`: " in untested
    else:
        assert f"`{rule}`" in markdown.split(f"### `{tool}`", 1)[1].split("\n### ", 1)[0]


def test_the_clean_tool_has_no_finding_at_error(flawed_run) -> None:
    _, _, report, _ = flawed_run
    clean = by_tool(report).get(flawed.CLEAN, [])
    assert [f for f in clean if f["severity"] == "error"] == []
    assert clean == []  # not even a warning: it is the model the flawed tools deviate from
    tool = coverage(report, flawed.CLEAN)
    assert tool["status"] == "checked" and tool["valid_arguments"] == "description example"
    assert tool["calls"] >= 7  # the valid call and every applicable hostile kind


def test_the_flawed_server_fails_the_run_and_every_finding_is_complete(flawed_run) -> None:
    code, _, report, _ = flawed_run
    assert code == 1 and report["summary"]["exit_code"] == 1
    assert report["server"]["name"] == "flawed-tracker"
    for finding in report["findings"]:
        assert set(finding) >= {"tool", "rule", "severity", "message", "chapter", "call", "answer"}
        assert finding["rule"] in RULES and finding["severity"] in SEVERITIES
        assert finding["chapter"] in CHAPTERS and finding["message"]
    # the crash cost one restart, and checking went on with the next tools
    assert report["timings"]["restarts"] == 1
    assert coverage(report, "ticket_get_stats")["calls"] > 0


def test_writes_run_only_when_allowed_and_only_with_the_given_arguments(flawed_run) -> None:
    _, _, report, workspace = flawed_run
    for tool in ("ticket_close", "ticket_remove_label", "ticket_delete"):
        assert coverage(report, tool)["calls"] == 0, tool  # no --calls for them
    assert "reads as a write" in coverage(report, "ticket_delete")["reason"]
    assert coverage(report, "note_write")["calls"] == 2  # the given call, then once more
    assert (workspace / "notes" / "todo.txt").read_text(encoding="utf-8") == "replaced"
    assert (workspace / "notes" / "log.txt").read_text(encoding="utf-8") == "first\nline\nline\n"


# -- errors whose structuredContent breaks the outputSchema, on each protocol revision ----

STRUCTURED = "error_output_schema_violation"


def test_an_error_envelope_in_structured_content_is_reported_with_what_clients_do(
    flawed_run,
) -> None:
    _, markdown, report, _ = flawed_run
    assert passes(report) == [(MODERN, "full", True), (LEGACY, "light", True)]
    light = report["protocols"][1]
    assert light["negotiated"] == LEGACY and light["tools"] == len(flawed.tools())
    assert light["calls"] > 0 and light["note"] == ""
    found = [f for f in report["findings"] if f["rule"] == STRUCTURED]
    # the old behaviour on every revision, and on the handshake era only; no other tool
    # (the clean one has an outputSchema too, and sends its errors as text)
    assert sorted(f["tool"] for f in found) == ["ticket_get_deadline", "ticket_get_estimate"]
    always = next(f for f in found if f["tool"] == "ticket_get_estimate")
    assert (always["severity"], always["chapter"]) == ("error", "chapter 09")
    assert "TypeScript SDK" in always["message"] and "Inspector" in always["message"]
    assert "McpError -32602" in always["message"] and "whatever isError says" in always["message"]
    assert "'ticket_id' is a required property" in always["message"]  # the validation failure
    assert always["fix"] == RULES[STRUCTURED].fix and "Omit structuredContent" in always["fix"]
    assert always["call"]["kind"] == "missing_required" and always["call"]["arguments"] == {}
    assert always["answer"].startswith("structuredContent fails the outputSchema: ")
    assert "isError: " in always["answer"]
    assert "only_on" not in always  # the light check's invalid call showed it again
    # one finding per tool, naming every hostile kind it was seen for
    assert "(seen for " in always["message"]
    legacy_only = next(f for f in found if f["tool"] == "ticket_get_deadline")
    assert legacy_only["only_on"] == LEGACY and legacy_only["severity"] == "error"
    section = markdown.split("### `ticket_get_deadline`", 1)[1].split("\n### ", 1)[0]
    assert f"`{STRUCTURED}` (chapter 09) (only on protocol {LEGACY}):" in section
    assert f"Protocols: {MODERN}: full check, connected" in markdown
    assert f"{LEGACY}: light check, connected" in markdown
    # the success check is the other rule's: a success that breaks the schema, on both
    assert [f["rule"] for f in by_tool(report)["ticket_get_stats"] if f["severity"] == "error"] == [
        "output_schema_violation"
    ]
    assert "only_on" not in by_tool(report)["ticket_get_stats"][0]


@pytest.mark.parametrize(
    ("protocol", "reported"), [(LEGACY, ["ticket_get_deadline"]), (MODERN, [])]
)
def test_one_protocol_revision_gets_the_full_check(
    tmp_path: Path, protocol: str, reported: list[str]
) -> None:
    code, markdown, report = check(
        tmp_path, "--protocol", protocol, "--quick", "--tool", "ticket_get_deadline",
        "--tool", flawed.CLEAN,
    )  # fmt: skip
    assert report["server"]["protocol"] == protocol
    assert passes(report) == [(protocol, "full", True)]
    found = [f for f in report["findings"] if f["rule"] == STRUCTURED]
    assert [f["tool"] for f in found] == reported
    assert all("only_on" not in f for f in report["findings"])  # one revision: nothing to say
    assert code == (1 if reported else 0)
    assert coverage(report, "ticket_get_deadline")["calls"] == 7  # valid, 5 quick kinds, again


def test_the_merge_marks_what_one_revision_showed_and_the_other_did_not() -> None:
    def run(raised: dict[tuple[str, str], set[str]], made: set[str], rules: list[str]) -> _Run:
        done = _Run(None, CheckOptions(), [], [])  # type: ignore[arg-type]
        done.raised, done.made = raised, made
        done.findings = [Finding("t", rule, "error", rule, "chapter 01") for rule in rules]
        return done

    full = run(
        {("t", "protocol_error"): {"a"}, ("t", "call_timeout"): {"a", "b"},
         ("t", "result_malformed"): {"a"}},
        {"a", "b", "c"},
        ["protocol_error", "call_timeout", "result_malformed", "vague_name"],
    )  # fmt: skip
    light = run(
        {("t", "result_malformed"): {"a"}, ("t", "server_crashed"): {"a"},
         ("t", "error_output_schema_violation"): {"a"}},
        {"a"},
        ["result_malformed", "server_crashed", "error_output_schema_violation"],
    )  # fmt: skip
    _merge(full, light, MODERN, LEGACY)
    only = {f.rule: f.only_on for f in full.findings}
    assert only == {
        "protocol_error": MODERN,  # its one call made again on LEGACY: not seen there
        "call_timeout": "",  # call "b" was not made again: nothing to say
        "result_malformed": "",  # seen on both
        "vague_name": "",  # static: one tool list
        "server_crashed": LEGACY,  # seen on LEGACY only
        STRUCTURED: LEGACY,
    }


# -- exit codes, the slow hostile kinds, determinism -------------------------------------


def test_a_run_with_nothing_at_error_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, markdown, report = check(
        tmp_path, "--skip-kinds", WIRE, "--max-calls", "4", "--tool", flawed.CLEAN,
        "--tool", "ticket_handle", progress=True,
    )  # fmt: skip
    assert code == 0 and report["summary"]["exit_code"] == 0  # fail on error, by default
    assert [(f["tool"], f["rule"]) for f in report["findings"]] == [("ticket_handle", "vague_name")]
    assert "### `ticket_get`" not in markdown  # no finding, no section
    assert [t["calls"] for t in report["tools"]] == [4, 4]  # --max-calls
    err = capsys.readouterr().err  # not a terminal: a summary line, no progress bar
    assert "\r" not in err and "2 tools, 0 errors, 0 warnings, 1 info (exit 0" in err


def test_the_progress_bar_draws_and_clears_one_line() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream)
    bar(0, 2, "ticket_get")
    bar(2, 2, "")
    drawn = stream.getvalue()
    assert drawn.startswith("\r[" + "." * 20 + "] 0/2 ticket_get")
    assert "\r[" + "#" * 20 + "] 2/2" in drawn and drawn.endswith("\r")


def test_lone_surrogates_and_deep_nesting_the_sdk_drops_are_one_server_finding_each(
    tmp_path: Path,
) -> None:
    code, _, report = check(
        tmp_path, "--kinds", WIRE, "--tool", "ticket_search", "--tool", "ticket_get_body",
        "--timeout", "1", "--fail-on", "warning",
    )  # fmt: skip
    dropped = [f for f in report["findings"] if f["rule"] == "request_dropped"]
    assert [f["tool"] for f in dropped] == [SERVER, SERVER]
    assert sorted(f["call"]["kind"] for f in dropped) == ["deep_nesting", "lone_surrogate"]
    assert all(f["call"]["tool"] == "ticket_search" for f in dropped)
    # checked once: the second tool was not sent them (each costs a whole time limit)
    assert coverage(report, "ticket_get_body")["calls"] == 2  # its valid call, made again
    assert "\\ud800" in next(f for f in dropped if f["call"]["kind"] == "lone_surrogate")["message"]
    assert code == 1  # two warnings, at --fail-on warning: the threshold is the option's


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-c", "pass"],  # exits at once
        [sys.executable, "-c", "print('hello, I am not an MCP server')"],
        [str(ROOT / "no-such-server")],
    ],
    ids=["exits-at-once", "not-mcp", "missing"],
)
def test_a_server_that_cannot_be_talked_to_exits_2(
    tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert check(tmp_path, command=command)[0] == 2
    err = capsys.readouterr().err
    assert "could not start or talk to the server" in err


def test_the_module_entry_point_exits_2_with_its_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # ``python -m tutorial_lib.checker`` runs __main__ as a script: in process, via runpy
    monkeypatch.setattr(sys, "argv", ["tutorial-lib-check", "--", sys.executable, "-c", "pass"])
    monkeypatch.delitem(sys.modules, "tutorial_lib.checker.__main__")  # imported above
    with pytest.raises(SystemExit) as raised:
        runpy.run_module("tutorial_lib.checker", run_name="__main__", alter_sys=False)
    assert raised.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and "tutorial-lib-check: could not start or talk to the server" in err
    assert "not an MCP stdio server" in err


def test_a_command_line_without_a_server_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["--quick"])
    assert raised.value.code == 2 and "give the server's command after --" in (
        capsys.readouterr().err
    )
    assert main(["--list-rules"]) == 0
    table = capsys.readouterr().out
    assert all(f"`{rule}`" in table for rule in RULES)
    assert f"| `{STRUCTURED}` | error | chapter 09 | a tool error (isError) carries no" in table
    assert all(rule.chapter in CHAPTERS for rule in RULES.values())  # the chapter map
    assert RULES[STRUCTURED].family == "behaviour"
    with pytest.raises(SystemExit):
        main(["--help"])
    usage = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal
    assert "--protocol {2026-07-28,2025-11-25,both}" in usage and "both (default)" in usage
    with pytest.raises(ValueError, match="no protocol 'auto'"):
        check_server(FLAWED, CheckOptions(protocol="auto"))


def test_the_report_is_deterministic_and_a_read_only_run_calls_no_write(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "notes").mkdir(parents=True)
    (workspace / "notes" / "todo.txt").write_text("buy milk\n", encoding="utf-8")
    before = snapshot(workspace)
    command = [*FLAWED, "--root", str(workspace)]
    args = ["--quick", "--workspace", str(workspace), "--tool", flawed.CLEAN, "--tool",
            "ticket_list", "--tool", "ticket_get_owner", "--tool", "note_write"]  # fmt: skip
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    code, markdown_a, json_a = check(first, *args, command=command)
    _, markdown_b, json_b = check(second, *args, "--timings", command=command)
    assert markdown_a == markdown_b.split("## Timings")[0].rstrip() + "\n"
    assert "Timings" not in markdown_a and "- total_s:" in markdown_b.split("## Timings")[1]
    assert json_a.pop("timings")["calls"] > 0 and json_b.pop("timings")
    assert json_a == json_b  # the JSON has timings (set aside), the rest is the same
    assert code == 1  # ticket_get_owner takes true for an integer
    # without --allow-writes the write was never called: the workspace is as it was
    assert coverage(json_a, "note_write")["calls"] == 0
    assert "needs --allow-writes" in coverage(json_a, "note_write")["reason"]
    assert snapshot(workspace) == before


# -- the course's own server and the reference filesystem server ------------------------


def test_the_course_server_is_clean_at_error_and_its_reads_leave_the_workspace_alone(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "docs").mkdir(parents=True)
    (workspace / "docs" / "guide.md").write_text("# Guide\nstep one\n", encoding="utf-8")
    before = snapshot(workspace)
    code, markdown, report = check(
        # --timeout 10: its first call may wait for the schema checks it builds at start
        tmp_path, "--workspace", str(workspace), "--allow-open-world", "--skip-kinds", WIRE,
        "--timeout", "10",
        command=[sys.executable, "-m", "tutorial_lib.mcp_server", "--root", str(workspace),
                 "--repo", "example/shop"],
    )  # fmt: skip
    assert code == 0, markdown
    assert snapshot(workspace) == before
    assert not [f for f in report["findings"] if f["rule"] == "read_only_changed_workspace"]
    # its errors are text only: nothing a TypeScript client or the Inspector refuses, on
    # the full check (2026-07-28) and on the light one (2025-11-25)
    assert passes(report) == [(MODERN, "full", True), (LEGACY, "light", True)]
    assert report["protocols"][1]["calls"] == 16  # a valid and an invalid call per read
    assert not [f for f in report["findings"] if f["rule"] == STRUCTURED or "only_on" in f]
    tools = {t["name"]: t for t in report["tools"]}
    assert len(tools) == 12
    reads = [name for name, t in tools.items() if t["read_only"]]
    assert len(reads) == 8 and all(tools[name]["status"] == "checked" for name in reads)
    assert all(tools[name]["calls"] == 0 for name in tools if name not in reads)
    # paging ran: small pages, one large page, an invalid and a tampered cursor
    assert tools["github_pr_list_comments"]["calls"] > 10
    assert not [f for f in report["findings"] if RULES[f["rule"]].family == "paging"]


def test_prepare_installs_the_reference_server_version_the_course_pins() -> None:
    assert pinned()[FILESYSTEM_SERVER_PACKAGE] == FILESYSTEM_SERVER_VERSION
    assert FILESYSTEM_SERVER_INSTALL == PREPARE_COMMAND


@pytest.fixture
def filesystem_server() -> list[str]:
    need_node("the checker on the reference filesystem server")
    node = shutil.which("node")
    assert node is not None and FS_SERVER.is_file()
    return [node, str(FS_SERVER)]


def test_the_reference_filesystem_server(tmp_path: Path, filesystem_server: list[str]) -> None:
    workspace = tmp_path / "ws"
    (workspace / "docs").mkdir(parents=True)
    (workspace / "docs" / "a.txt").write_text("hello\nworld\n", encoding="utf-8")
    before = snapshot(workspace)
    code, markdown, report = check(
        tmp_path, "--workspace", str(workspace),
        command=[*filesystem_server, str(workspace)],
    )  # fmt: skip
    assert report["server"]["name"] == "secure-filesystem-server", markdown
    assert snapshot(workspace) == before  # its read-only tools wrote nothing
    # no server/discover: the full check ran on the handshake the TypeScript SDK speaks
    assert report["server"]["protocol"] == LEGACY
    assert passes(report) == [(MODERN, "none", False), (LEGACY, "full", True)]
    assert "fell back to the initialize handshake" in report["protocols"][0]["note"]
    assert not [f for f in report["findings"] if f["rule"] == STRUCTURED]
    tools = {t["name"]: t for t in report["tools"]}
    assert tools["write_file"]["calls"] == 0 and tools["read_text_file"]["status"] == "checked"
    found = {(f["tool"], f["rule"]) for f in report["findings"]}
    # what the pinned version is known to do: open argument objects, undocumented
    # arguments, and an echo of a lone surrogate the SDK's client cannot parse
    assert ("read_text_file", "additional_properties_allowed") in found
    assert ("read_text_file", "extra_field_ignored") in found
    assert ("write_file", "property_undescribed") in found
    assert ("list_directory", "answer_unreadable") in found
    assert code == (1 if any(f["severity"] == "error" for f in report["findings"]) else 0)


def test_a_server_without_the_modern_revision_cannot_be_checked_on_it_alone(
    tmp_path: Path, filesystem_server: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    command = [*filesystem_server, str(tmp_path)]
    assert check(tmp_path, "--protocol", MODERN, command=command)[0] == 2
    err = capsys.readouterr().err
    assert f"does not speak protocol {MODERN}" in err and f"--protocol {LEGACY}" in err


# -- the pieces, without a server ---------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "maxLength": 100, "description": "A file."},
        "count": {"type": "integer", "minimum": 1, "maximum": 20, "description": "Lines."},
        "mode": {"type": "string", "enum": ["a", "b"], "description": "How."},
    },
    "required": ["path", "count"],
    "additionalProperties": False,
}


def test_hostile_calls_change_one_thing_and_know_what_the_schema_refuses() -> None:
    base = {"path": "a.txt", "count": 2}
    calls = {c.kind: c for c in hostile_calls(SCHEMA, base)}
    assert list(calls) == list(KINDS)
    assert calls["missing_required"].arguments == {"count": 2}
    assert calls["bool_as_integer"].arguments == {"path": "a.txt", "count": True}
    assert calls["integer_as_string"].arguments == {"path": "a.txt", "count": "2"}
    assert calls["out_of_range"].arguments["count"] == 21
    assert calls["not_in_enum"].argument == "mode"
    assert all(c.schema_refuses for k, c in calls.items() if k != "lone_surrogate")
    assert not calls["lone_surrogate"].schema_refuses  # a string is a string
    raw = calls["lone_surrogate"]
    assert raw.wire["path"] in raw.raw and raw.raw[raw.wire["path"]] == '"a.txt\\ud800"'
    open_schema = {**SCHEMA, "additionalProperties": True}
    extra = hostile_calls(open_schema, base, ["extra_field"])[0]
    assert extra.argument == "checker_unexpected_field" and not extra.schema_refuses


def test_valid_candidates_read_examples_but_not_counter_examples(tmp_path: Path) -> None:
    tool = {
        "name": "files_read",
        "description": 'Example: {"path": "x.txt", "count": 3}. Not: {"path": "y", "count": 0}'
        ' Not: {"path": "z.txt", "count": 2}',
        "inputSchema": SCHEMA,
    }
    sources = [(c.source, c.arguments) for c in valid_candidates(tool)]
    assert sources[0] == ("description example", {"path": "x.txt", "count": 3})
    assert all(args.get("path") != "z.txt" for _, args in sources)  # after "Not:"
    (tmp_path / "b.txt").write_text("b", encoding="utf-8")
    spaced = valid_candidates({**tool, "description": "Reads."}, workspace=tmp_path)
    assert [c.arguments["path"] for c in spaced][:2] == ["b.txt", str(tmp_path / "b.txt")]


def test_static_heuristics() -> None:
    assert pattern_bounds_length("^[0-9a-f]{40}$") and not pattern_bounds_length("^a+$")
    assert not pattern_bounds_length("\\S")
    assert lists_choices("How to merge: 'merge' (default), 'squash' or 'rebase'.")
    assert not lists_choices("Directory, e.g. 'lib' or 'src'.")
    assert not lists_choices("letters, digits, '_' or '-'")
    tool = {"name": "files_delete", "description": "Delete one file of the workspace.",
            "inputSchema": SCHEMA, "annotations": {"readOnlyHint": True}}  # fmt: skip
    rules = {(f.rule, f.severity) for f in static_findings([tool])}
    assert ("write_not_marked", "error") in rules
    assert ("annotation_hints_incomplete", "info") in rules


def test_proposed_calls_and_additive_writes() -> None:
    payload = {"error": {"next_tool": {"name": "files_search", "arguments": {"q": "x"}}},
               "items": [{"name": "read", "arguments": {"path": "a"}}]}  # fmt: skip
    assert proposals(payload) == [
        ("files_search", {"q": "x"}, True),
        ("read", {"path": "a"}, False),
    ]
    before = {"a": ("file", 2, "h1", b"ab"), "b": ("file", 1, "h2", b"x"), "d": ("dir",)}
    after = {"a": ("file", 3, "h3", b"abc"), "b": ("file", 1, "h4", b"y"), "d": ("dir",)}
    assert destroyed(before, after) == ["b"]  # "a" was appended to: additive
    assert destroyed(before, {}) == ["a", "b", "d"]


def test_the_markdown_escapes_what_it_quotes() -> None:
    evidence = Evidence("t", {"q": "a\ud800|b"}, "lone_surrogate", "isError: x|y `z`")
    finding = Finding("t", "error_empty", "error", "m|n", "chapter 03", evidence)
    report = Report(["srv"], {"name": "s"}, {}, [ToolCoverage("t", True, "checked")], [finding])
    text = render_markdown(report)
    assert '{"q":"a\\ud800|b"}' in text  # the surrogate escaped
    assert "- **error** `error_empty` (chapter 03): m\\|n" in text
    text.encode("utf-8")  # a lone surrogate never reaches the output unescaped
