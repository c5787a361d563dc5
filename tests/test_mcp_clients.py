"""``python -m tutorial_lib.mcp_server`` with the MCP clients people use, on real pipes.

- the official TypeScript SDK client (``@modelcontextprotocol/sdk`` 1.32.2, driven by
  ``tests/mcp_ts_client.mjs``): every one of the 12 tools called with valid and invalid
  arguments (wrong types, out of range, unknown and missing fields, paths outside the root,
  a missing file, a tampered cursor, writes without a grant, writes the user declines,
  cancels or accepts by elicitation), and the paging tool paged to its end. The SDK's
  ``callTool`` checks every ``structuredContent`` against the tool's ``outputSchema``
  whatever ``isError`` says: no result may be refused, every error is the course's
  envelope as JSON text, every success's structured content is valid;
- the MCP Inspector CLI 0.15.0: ``tools/list``, a ``tools/call`` that succeeds and one that
  fails with a tool error (an ``isError`` result, exit status 0), unlike an unknown tool (a
  protocol error the Inspector reports as "Failed to call tool", exit status 1);
- the Python SDK's client (``mcp``) on both protocol revisions: 2026-07-28 (its default,
  questions ride the result) and 2025-11-25 (the initialize handshake, the revision the
  TypeScript client negotiates; questions are requests in the middle of a call).

Each Node run starts one server and makes all its calls (a plan), so the module costs a
few server starts. Tests decide by counts and states; ``HANG_S`` only stops a hang.
"""

from __future__ import annotations

import concurrent.futures
import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from jsonschema import Draft202012Validator
from mcp import Client, StdioServerParameters

from tests.pieces import HANG_S, need_node
from tests.test_mcp_server import ENVELOPE, MODES, SPECS, TOOLS
from tools.prepare import NODE_MODULES, ROOT
from tutorial_lib.design.exports import to_mcp
from tutorial_lib.emulator.fixtures import DOUBLE_ROUNDING_COMMENT_ID, build_store
from tutorial_lib.mcp_server.results import error_envelope

SERVER = [sys.executable, "-m", "tutorial_lib.mcp_server"]
TS_CLIENT = ROOT / "tests" / "mcp_ts_client.mjs"
#: The control: the course's server with its errors in structuredContent too (see
#: :func:`serve_with_structured_errors`), as before the errors became text only.
CONTROL_SERVER = [
    sys.executable,
    "-c",
    "from tests.test_mcp_clients import serve_with_structured_errors as serve; serve()",
]
INSPECTOR = NODE_MODULES / "@modelcontextprotocol" / "inspector-cli" / "build" / "index.js"
#: The TypeScript SDK 1.32.2 asks for its LATEST_PROTOCOL_VERSION, which the server accepts.
TS_PROTOCOL = "2025-11-25"
REPO, PR = "example/shop", 128
#: The TypeScript client's plans against the course's server (``control`` is the control).
COURSE_PLANS = ("read", "write", "unasked")
ALL_GRANTS = ("--grant", "read", "--grant", "write", "--grant", "delete", "--grant", "send")
#: The write tools, in the order the write plan calls them.
WRITES = (
    "github_pr_create_comment",
    "github_pr_edit_comment",
    "github_pr_delete_comment",
    "github_pr_merge",
)
#: Conversation comments of the emulator's PR 128 (its fixtures, as every server builds them).
CONVERSATION = [comment.id for comment in build_store().issue_comments(REPO, PR)]
VALID: dict[str, dict[str, Any]] = {
    "read_lines": {"path": "docs/a.txt", "start": 1, "count": 2},
    "search_files": {"query": "beta", "path": "docs"},
    "github_pr_get": {"repository": REPO, "pr": PR},
    "github_pr_list_comments": {"repository": REPO, "pr": PR, "page_size": 10},
    "github_pr_get_comment": {"repository": REPO, "pr": PR, "comment_id": 1700000042},
    "github_pr_get_review_snapshot": {"repository": REPO, "pr": PR},
    "github_pr_list_conversation": {"repository": REPO, "pr": PR},
    "github_pr_create_comment": {
        "repository": REPO,
        "pr": PR,
        "body": "Two blocking issues.",
        "idempotency_key": "ts-client-key-0001",
    },
    "github_pr_get_comment_status": {
        "repository": REPO,
        "pr": PR,
        "idempotency_key": "ts-client-key-0001",
    },
    "github_pr_merge": {"repository": REPO, "pr": PR},
    "github_pr_delete_comment": {
        "repository": REPO,
        "pr": PR,
        "comment_id": CONVERSATION[0],
        "kind": "conversation",
    },
    "github_pr_edit_comment": {
        "repository": REPO,
        "pr": PR,
        "comment_id": DOUBLE_ROUNDING_COMMENT_ID,
        "kind": "review",
        "body": "Edited.",
    },
}
#: A wrong-typed value for each JSON Schema type the tools use.
WRONG_TYPE = {"integer": "1", "string": 12345, "boolean": "yes"}


@dataclass
class Case:
    """One planned call and what it must come to: ``"ok"`` or an error code (``None``: a
    protocol error the client throws, as for an unknown tool)."""

    label: str
    tool: str
    arguments: dict[str, Any]
    expect: str | None
    elicit: dict[str, Any] | None = None
    paginate: dict[str, Any] | None = None

    def step(self) -> dict[str, Any]:
        step: dict[str, Any] = {"label": self.label, "tool": self.tool, "arguments": self.arguments}
        if self.elicit is not None:
            step["elicit"] = self.elicit
        if self.paginate is not None:
            step["paginate"] = self.paginate
        return step


@dataclass
class Run:
    """A Node process's outcome: its exit status, what it wrote, and the plan's cases."""

    returncode: int
    stdout: str
    stderr: str
    cases: list[Case] = field(default_factory=list)

    @property
    def report(self) -> dict[str, Any]:
        assert self.returncode == 0, self.stderr
        report = json.loads(self.stdout)
        assert isinstance(report, dict)
        return report


def schema_variants(tool: str) -> Iterator[tuple[str, dict[str, Any], str]]:
    """What every tool's input schema refuses, as (what, arguments, the host's error code):
    each required field missing, each field of the wrong type, below its minimum, above
    its maximum, out of its enum, not matching its pattern, and an unknown field."""
    valid = VALID[tool]
    schema = SPECS[tool].input_schema
    for name in schema["required"]:
        yield f"missing {name}", {k: v for k, v in valid.items() if k != name}, "missing_field"
    for name, prop in schema["properties"].items():
        yield f"{name} of the wrong type", {**valid, name: WRONG_TYPE[prop["type"]]}, "invalid_type"
        if "minimum" in prop:
            yield f"{name} below its minimum", {**valid, name: prop["minimum"] - 1}, "invalid_range"
            yield f"{name} above its maximum", {**valid, name: prop["maximum"] + 1}, "invalid_range"
        if "enum" in prop:
            yield f"{name} not in its enum", {**valid, name: "nope"}, "invalid_value"
        if prop.get("pattern", r"\S") != r"\S":  # (any non-blank path is a path)
            yield f"{name} not matching its pattern", {**valid, name: "no such!"}, "invalid_value"
    yield "an unknown field", {**valid, "extra": 1}, "unknown_field"


def scope_variants(tool: str) -> Iterator[tuple[str, dict[str, Any], str]]:
    """Valid arguments the server refuses or finds nothing for, as :func:`schema_variants`:
    paths outside the root and a missing file; another repository and a missing PR (a
    write without a grant is refused before either is looked at)."""
    valid = VALID[tool]
    if "path" in valid:
        for path in ("../outside.txt", "/etc/passwd", "docs/../../outside.txt"):
            yield f"{path} outside the root", {**valid, "path": path}, "permission_denied"
        yield "a missing file", {**valid, "path": "docs/missing.txt"}, "not_found"
    if "repository" in valid:
        missing = "permission_denied" if tool in WRITES else "not_found"
        yield "another repository", {**valid, "repository": "other/shop"}, "permission_denied"
        yield "a missing PR", {**valid, "pr": 999999}, missing


#: More valid calls (and refusals) of some tools, as :func:`schema_variants`.
MORE: dict[str, list[tuple[str, dict[str, Any], str]]] = {
    "read_lines": [("past the end", {"path": "docs/a.txt", "start": 99, "count": 5}, "ok")],
    "search_files": [
        ("a regex, whole workspace", {"query": "a|b", "mode": "regex", "max_results": 3}, "ok"),
        ("the .env file", {"query": "TOKEN", "path": ".env"}, "permission_denied"),
    ],
    "github_pr_get": [
        ("detailed", {**VALID["github_pr_get"], "response_format": "detailed"}, "ok")
    ],
    "github_pr_get_comment": [
        ("a missing comment", {**VALID["github_pr_get_comment"], "comment_id": 5}, "not_found")
    ],
    "github_pr_list_comments": [
        (
            "a garbage cursor",
            {**VALID["github_pr_list_comments"], "cursor": "not-a-cursor"},
            "invalid_cursor",
        ),
    ],
}


def read_only_cases() -> list[Case]:
    """The plan for a read-only server: every tool valid and invalid (its schema's
    refusals, its scope's), every write refused for want of a grant, the paging tool to its
    end and then with a tampered cursor, and an unknown tool (a protocol error)."""
    cases: list[Case] = []
    for tool in TOOLS:
        valid = ("valid", VALID[tool], "permission_denied" if tool in WRITES else "ok")
        variants = [valid, *schema_variants(tool), *scope_variants(tool), *MORE.get(tool, [])]
        cases += [Case(f"{tool}: {what}", tool, args, expect) for what, args, expect in variants]
    paged = {"max_pages": 50, "tamper": True}
    tool = "github_pr_list_comments"
    cases.append(Case(f"{tool}: paged", tool, VALID[tool], "ok", paginate=paged))
    cases.append(Case("an unknown tool", "no_such_tool", {}, None))
    return cases


def write_cases() -> list[Case]:
    """The plan for a server granting every class: each write tool asked by elicitation
    and declined, cancelled, then accepted (each answer on other arguments: a declined call
    is not asked again), the comment status telling what was posted, and a model-set
    ``confirm`` refused as an unknown field before anything is asked."""
    create, edit, delete, merge = (VALID[tool] for tool in WRITES)
    # per answer: the arguments of each write (never the same twice)
    answered = {
        "decline": (
            {**create, "idempotency_key": "declined-key-01"},
            {**edit, "body": "Declined edit."},
            {**delete, "comment_id": CONVERSATION[1]},
            {**merge, "merge_method": "squash"},
        ),
        "cancel": (
            {**create, "idempotency_key": "cancelled-key-01"},
            {**edit, "body": "Cancelled edit."},
            {**delete, "comment_id": CONVERSATION[2]},
            {**merge, "merge_method": "rebase"},
        ),
        "accept": (
            {**create, "idempotency_key": "accepted-key-01"},
            {**edit, "body": "Accepted edit."},
            {**delete, "comment_id": CONVERSATION[3]},
            {**merge, "merge_method": "merge"},
        ),
    }
    cases: list[Case] = []
    for action, calls in answered.items():
        expect = "ok" if action == "accept" else "approval_invalid"
        for tool, args in zip(WRITES, calls, strict=True):
            cases.append(Case(f"{tool}: {action}", tool, args, expect, {"action": action}))
    # the accepted post made again (a retry after a lost reply): asked again, and the key
    # returns the comment already posted
    again = answered["accept"][0]
    cases.append(Case(f"{WRITES[0]}: accept again", WRITES[0], again, "ok", {"action": "accept"}))
    status = "github_pr_get_comment_status"
    for action, state in (("decline", "absent"), ("cancel", "absent"), ("accept", "posted")):
        key = answered[action][0]["idempotency_key"]
        args = {**VALID[status], "idempotency_key": key}
        cases.append(Case(f"{status} after {action}: {state}", status, args, "ok"))
    confirm = {**create, "confirm": True}  # accepted if asked: it must not be asked
    cases.append(
        Case("a model-set confirm", WRITES[0], confirm, "unknown_field", {"action": "accept"})
    )
    return cases


def unasked_cases() -> list[Case]:
    """The plan for a client that declared no elicitation: every write tool gets the
    host's ``confirmation_required`` and nothing runs."""
    return [
        Case(f"{tool}: cannot be asked", tool, VALID[tool], "confirmation_required")
        for tool in WRITES
    ]


def control_cases() -> list[Case]:
    """The control plan (for :data:`CONTROL_SERVER`): read_lines, which has an
    outputSchema, valid and twice invalid; github_pr_get, which has none, invalid."""
    tool = "read_lines"
    return [
        Case(f"{tool}: valid", tool, VALID[tool], "ok"),
        Case(f"{tool}: start 0", tool, {**VALID[tool], "start": 0}, None),
        Case(f"{tool}: a missing file", tool, {**VALID[tool], "path": "docs/missing.txt"}, None),
        Case(
            "github_pr_get: a missing PR",
            "github_pr_get",
            {"repository": REPO, "pr": 999999},
            "not_found",
        ),
    ]


def serve_with_structured_errors() -> None:
    """Not a test: the control server's entry point (``python -c``, the server's flags in
    ``sys.argv[1:]``). The course's server, with every tool error carrying its envelope as
    ``structuredContent`` as well as text, as the server did before errors became text
    only: :func:`tool_result` is replaced wherever the server's modules bound it."""
    from tutorial_lib.mcp_server import __main__ as entry
    from tutorial_lib.mcp_server import results, server

    assert server.CourseServer is not None  # every module that binds tool_result is loaded
    plain = results.tool_result

    def structured_errors(envelope: Any) -> types.CallToolResult:
        result = plain(envelope)
        if not result.is_error:
            return result
        return result.model_copy(update={"structured_content": dict(envelope)})

    bound = [
        module
        for name, module in list(sys.modules.items())
        if name.startswith("tutorial_lib.mcp_server")
        and getattr(module, "tool_result", None) is plain
    ]
    for module in bound:
        module.tool_result = structured_errors  # type: ignore[attr-defined]
    assert len(bound) >= 2, bound  # where it is defined, and where the tools call it
    sys.exit(entry.main(sys.argv[1:]))


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with docs/, src/ and a secret-bearing .env, and a file beside it (out
    of its root)."""
    base = tmp_path_factory.mktemp("clients")
    root = base / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "docs" / "a.txt").write_text("alpha\nbeta\ngamma\n", encoding="utf-8")
    (root / "docs" / "guide.md").write_text("# Guide\nstep one\n", encoding="utf-8")
    (root / "src" / "app.py").write_text("print('beta')\n", encoding="utf-8")
    (root / ".env").write_text("TOKEN=not-a-real-secret\n", encoding="utf-8")
    (base / "outside.txt").write_text("outside\n", encoding="utf-8")
    return root


def server_args(workspace: Path, *flags: str, server: list[str] = SERVER) -> list[str]:
    """The command of ``server`` over ``workspace``, repository example/shop in scope."""
    return [*server, "--root", str(workspace), "--repo", REPO, *flags]


def run_node(args: list[str]) -> Run:
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run(
        [node, *args], capture_output=True, text=True, cwd=ROOT, timeout=HANG_S, check=False
    )
    return Run(done.returncode, done.stdout, done.stderr)


def run_concurrently(jobs: dict[str, list[str]]) -> dict[str, Run]:
    """Every Node command of ``jobs`` at once (each starts a server: they overlap)."""
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        futures = {name: pool.submit(run_node, args) for name, args in jobs.items()}
        return {name: future.result() for name, future in futures.items()}


@pytest.fixture(scope="module")
def ts_runs(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The TypeScript client's plans, each one Node process and one server, run at once:
    read only (``read``), every grant (``write``), every grant without the elicitation
    capability (``unasked``); and ``control``, the server as it was with structured
    errors (:func:`serve_with_structured_errors`)."""
    need_node("the official TypeScript SDK client against the course's server")
    plans = {  # name: (cases, server, whether the client declares elicitation)
        "read": (read_only_cases(), server_args(workspace), True),
        "write": (write_cases(), server_args(workspace, *ALL_GRANTS), True),
        "unasked": (unasked_cases(), server_args(workspace, *ALL_GRANTS), False),
        "control": (control_cases(), server_args(workspace, server=CONTROL_SERVER), True),
    }
    folder = tmp_path_factory.mktemp("plans")
    jobs = {}
    for name, (cases, server, elicitation) in plans.items():
        labels = [case.label for case in cases]
        assert len(labels) == len(set(labels)), "a plan's labels name one case each"
        plan = {"elicitation": elicitation, "calls": [case.step() for case in cases]}
        path = folder / f"{name}.json"
        path.write_text(json.dumps(plan), encoding="utf-8")
        jobs[name] = [str(TS_CLIENT), "--plan", str(path), "--", *server]
    runs = run_concurrently(jobs)
    for name, (cases, _, _) in plans.items():
        runs[name].cases = cases
    return runs


def text_of(result: dict[str, Any]) -> Any:
    """The JSON of a result's one text block."""
    (block,) = result["content"]
    assert block["type"] == "text"
    return json.loads(block["text"])


def check_ts_result(record: dict[str, Any], output_schemas: dict[str, Any]) -> str:
    """A result as the TypeScript client returned it, checked as every client needs it: an
    error is ``isError`` with the whole envelope as JSON text and no structured content (and
    the project's own reader reads the same envelope back); a success is structured content
    equal to its text and valid against the outputSchema the client listed. Returns
    ``"ok"`` or the error's code."""
    assert record["outcome"] == "result", record
    result = record["result"]
    carried = text_of(result)
    if result.get("isError") is True:
        assert "structuredContent" not in result, record
        ENVELOPE.validate(carried)
        assert carried["ok"] is False and carried["tool"] == record["tool"]
        assert isinstance(carried["error"]["code"], str) and carried["error"]["code"]
        assert error_envelope(types.CallToolResult.model_validate(result)) == carried
        return str(carried["error"]["code"])
    assert result["structuredContent"] == carried, record
    schema = output_schemas.get(record["tool"])
    if schema is not None:
        Draft202012Validator(schema).validate(carried)
    return "ok"


def refusals(run: Run) -> list[dict[str, Any]]:
    """The calls whose result the TypeScript client refused: its outputSchema check threw
    (-32602, "Structured content does not match the tool's output schema")."""
    return [
        record
        for record in run.report["calls"]
        if record["outcome"] == "thrown"
        and record["error"]["code"] == -32602
        and "Structured content does not match" in record["error"]["message"]
    ]


def checked(run: Run) -> list[tuple[dict[str, Any], str | None]]:
    """Every record of ``run``'s report with its outcome (``"ok"``, an error code, or None
    for a thrown protocol error), each result checked by :func:`check_ts_result`."""
    report = run.report
    schemas = {tool["name"]: tool.get("outputSchema") for tool in report["tools"]}
    outcomes: list[tuple[dict[str, Any], str | None]] = []
    for record in report["calls"]:
        if record["outcome"] == "thrown":
            outcomes.append((record, None))
        else:
            outcomes.append((record, check_ts_result(record, schemas)))
    return outcomes


def test_the_typescript_client_negotiates_2025_11_25_and_lists_the_12_tools(
    ts_runs: dict[str, Run],
) -> None:
    """The official TypeScript SDK client connects over stdio on protocol 2025-11-25 (the
    newest it knows) and lists the 12 tools in their order, each with the input and output
    schemas its spec declares."""
    for name in COURSE_PLANS:
        report = ts_runs[name].report
        assert report["protocolVersion"] == TS_PROTOCOL
        assert report["serverInfo"]["name"] == "tutorial-lib"
        assert [tool["name"] for tool in report["tools"]] == TOOLS
        for tool in report["tools"]:
            declared = to_mcp(SPECS[tool["name"]])
            assert tool["inputSchema"] == declared["inputSchema"]
            assert tool.get("outputSchema") == declared.get("outputSchema")


def test_the_typescript_client_refuses_no_result_of_any_tool(ts_runs: dict[str, Run]) -> None:
    """Every call of the three plans, valid or not, comes back as a result the TypeScript
    client accepts: nothing is refused by its outputSchema check (the -32602 "Structured
    content does not match" of a structured error), the only thrown error is the unknown
    tool's protocol error; every call ends as its case says."""
    thrown = []
    calls = 0
    for run in (ts_runs[name] for name in COURSE_PLANS):
        assert refusals(run) == []
        expected = {case.label: case.expect for case in run.cases}
        outcomes = checked(run)
        calls += len(outcomes)
        assert {record["label"] for record, _ in outcomes} == set(expected)
        for record, outcome in outcomes:
            if outcome is None:
                thrown.append(record)
            elif not record["tampered"]:
                assert outcome == expected[record["label"]], record
    (unknown,) = thrown
    assert unknown["tool"] == "no_such_tool" and unknown["error"]["code"] == -32602
    assert "Unknown tool: no_such_tool" in unknown["error"]["message"]
    assert calls > 200


def test_the_typescript_client_refuses_an_error_given_as_structured_content(
    ts_runs: dict[str, Run],
) -> None:
    """The control: the same driver against the course's server with its tool errors in
    ``structuredContent`` too (as before they became text only) sees the success accepted,
    both errors of read_lines (which has an outputSchema) refused by the client's check,
    and the error of github_pr_get (no outputSchema) accepted: the refusals the other
    tests count would not go unnoticed."""
    run = ts_runs["control"]
    assert run.report["protocolVersion"] == TS_PROTOCOL
    assert [r["label"] for r in refusals(run)] == [
        "read_lines: start 0",
        "read_lines: a missing file",
    ]
    accepted = [r for r in run.report["calls"] if r["outcome"] == "result"]
    assert [r["label"] for r in accepted] == ["read_lines: valid", "github_pr_get: a missing PR"]
    assert accepted[1]["result"]["isError"] is True
    assert accepted[1]["result"]["structuredContent"] == text_of(accepted[1]["result"])


def test_the_typescript_client_calls_every_tool_both_ways(ts_runs: dict[str, Run]) -> None:
    """Each of the 12 tools has a success and several tool errors through the TypeScript
    client, and the errors cover the contract's codes (wrong type, range, value, missing
    and unknown fields, scope, missing things, cursors, grants, declined confirmations)."""
    outcomes = [pair for name in COURSE_PLANS for pair in checked(ts_runs[name])]
    by_tool: dict[str, Counter[str]] = {tool: Counter() for tool in TOOLS}
    for record, outcome in outcomes:
        if outcome is not None:
            by_tool[record["tool"]]["ok" if outcome == "ok" else "error"] += 1
    for tool, counts in by_tool.items():
        assert counts["ok"] >= 1 and counts["error"] >= 5, (tool, counts)
    codes = {outcome for _, outcome in outcomes}
    assert codes >= {
        "ok",
        "invalid_type",
        "invalid_range",
        "invalid_value",
        "missing_field",
        "unknown_field",
        "permission_denied",
        "not_found",
        "invalid_cursor",
        "approval_invalid",
        "confirmation_required",
    }


def test_the_typescript_client_pages_to_the_end_and_a_tampered_cursor_is_refused(
    ts_runs: dict[str, Run],
) -> None:
    """Following next_cursor from the first page to a null one lists every review comment
    of the PR exactly once (complete on the last page only); the first page's cursor with
    one character changed is refused as ``invalid_cursor``."""
    records = [r for r in ts_runs["read"].report["calls"] if r["label"].endswith(": paged")]
    pages = [r for r in records if not r["tampered"]]
    (tampered,) = [r for r in records if r["tampered"]]
    data = [r["result"]["structuredContent"] for r in pages]
    assert [r["page"] for r in pages] == list(range(1, len(pages) + 1))
    assert [d["coverage"] for d in data] == ["partial"] * (len(data) - 1) + ["complete"]
    assert data[-1]["next_cursor"] is None
    ids = [comment["comment_id"] for d in data for comment in d["comments"]]
    expected = [comment.id for comment in build_store().review_comments(REPO, PR)]
    assert len(ids) == len(set(ids)) and set(ids) == set(expected)
    assert tampered["arguments"]["cursor"] != data[0]["next_cursor"]
    assert text_of(tampered["result"])["error"]["code"] == "invalid_cursor"


def test_the_typescript_client_answers_elicitations_and_only_accept_runs(
    ts_runs: dict[str, Run],
) -> None:
    """With every grant, each write asks the TypeScript client's user exactly once, by a
    form with no field; decline and cancel run nothing (``approval_invalid``,
    ``not_applied``; the declined and cancelled comments are absent), accept runs the call
    once, and the accepted post made again is asked anew and answered by its idempotency
    key (``already_posted``, 0 POSTs); a model-set ``confirm`` is refused before anyone is
    asked. Without a grant, or to
    a client without the elicitation capability, nothing is asked."""
    asked = 0
    for record, outcome in checked(ts_runs["write"]):
        assert record["unexpected"] == 0, record
        if record["tool"] == "github_pr_get_comment_status":
            state = record["label"].rsplit(" ", 1)[1]
            assert record["result"]["structuredContent"]["state"] == state, record
            assert record["asked"] == []
            continue
        if outcome == "unknown_field":
            assert record["asked"] == []
            continue
        (question,) = record["asked"]
        asked += 1
        if record["label"].endswith("accept again"):  # asked anew; the key finds the comment
            data = record["result"]["structuredContent"]
            assert (data["status"], data["attempts"]) == ("already_posted", 0), record
        assert question["requestedSchema"]["properties"] == {}
        assert question["message"].endswith(")") and "(question mcp-" in question["message"]
        if outcome != "ok":
            error = text_of(record["result"])["error"]
            assert error["operation_state"] == "not_applied", record
            word = {"decline": "declined", "cancel": "cancelled"}[record["label"].split()[-1]]
            assert f"the user {word} question" in error["message"], record
    assert asked == 13  # 4 writes x 3 answers, and the accepted post again
    for name in ("read", "unasked"):
        for record in ts_runs[name].report["calls"]:
            assert record["asked"] == [] and record["unexpected"] == 0, record


# --------------------------------------------------------------------------- the Inspector


@pytest.fixture(scope="module")
def inspector_runs(workspace: Path) -> dict[str, Run]:
    """The MCP Inspector CLI's four commands, one server each, run at once."""
    need_node("the MCP Inspector CLI against the course's server")
    command, *args = server_args(workspace)
    target = [str(INSPECTOR), command]  # the command, then the Inspector's flags
    server = ["--", *args]  # then the command's arguments
    read = ["--tool-name", "read_lines", "--tool-arg", "path=docs/a.txt", "--tool-arg", "count=2"]
    return run_concurrently(
        {
            "list": [*target, "--method", "tools/list", *server],
            "call": [*target, "--method", "tools/call", *read, "--tool-arg", "start=1", *server],
            "invalid": [*target, "--method", "tools/call", *read, "--tool-arg", "start=0", *server],
            "unknown": [*target, "--method", "tools/call", "--tool-name", "no_such_tool", *server],
        }
    )


def test_the_inspector_lists_the_12_tools(inspector_runs: dict[str, Run]) -> None:
    """``--method tools/list`` exits 0 with the 12 tools in their order."""
    listed = inspector_runs["list"]
    assert listed.returncode == 0, listed.stderr
    assert [tool["name"] for tool in json.loads(listed.stdout)["tools"]] == TOOLS


def test_the_inspector_calls_a_tool(inspector_runs: dict[str, Run]) -> None:
    """``--method tools/call`` of read_lines (its string arguments converted by the tool's
    input schema) exits 0 with the two lines as structured content and as text."""
    call = inspector_runs["call"]
    assert call.returncode == 0, call.stderr
    result = json.loads(call.stdout)
    assert result["isError"] is False
    assert result["structuredContent"] == text_of(result)
    assert result["structuredContent"]["lines"] == [
        {"number": 1, "text": "alpha"},
        {"number": 2, "text": "beta"},
    ]


def test_the_inspector_shows_a_tool_error_as_the_envelope(inspector_runs: dict[str, Run]) -> None:
    """An invalid call (start=0) is a result, not a refusal: exit status 0, ``isError``,
    no structured content, the envelope as text (``invalid_range`` on ``start``). Only a
    protocol error (an unknown tool) is the Inspector's "Failed to call tool", exit 1."""
    invalid = inspector_runs["invalid"]
    assert invalid.returncode == 0, invalid.stderr
    assert "Failed to call tool" not in invalid.stderr
    result = json.loads(invalid.stdout)
    assert result["isError"] is True and "structuredContent" not in result
    envelope = text_of(result)
    ENVELOPE.validate(envelope)
    assert envelope["ok"] is False and envelope["tool"] == "read_lines"
    assert (envelope["error"]["code"], envelope["error"]["field"]) == ("invalid_range", "start")
    unknown = inspector_runs["unknown"]
    assert unknown.returncode == 1 and unknown.stdout == ""
    assert "Failed to call tool no_such_tool: MCP error -32602: Unknown tool" in unknown.stderr


# --------------------------------------------------------------------------- the Python SDK


class Answers:
    """An elicitation callback answering ``action`` to every question, recording each."""

    def __init__(self, action: str) -> None:
        self.action = action
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        content: dict[str, Any] | None = {} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
def test_the_python_client_on_both_protocol_revisions(workspace: Path, mode: str) -> None:
    """The Python SDK's stdio client negotiates 2026-07-28 (``auto``) or 2025-11-25
    (``legacy``, the TypeScript client's revision) and on each: lists the 12 tools, gets a
    success as structured content, an error as the envelope in text with no structured
    content, and a write the user accepts by elicitation posted once."""
    command = server_args(workspace, "--grant", "read", "--grant", "write")
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=ROOT)
    answers = Answers("accept")
    create = {**VALID["github_pr_create_comment"], "idempotency_key": f"python-{mode}-0001"}

    async def main() -> None:
        with anyio.fail_after(HANG_S):
            await scenario()

    async def scenario() -> None:
        async with Client(params, mode=mode, elicitation_callback=answers) as client:
            assert client.protocol_version == MODES[mode]
            assert [tool.name for tool in (await client.list_tools()).tools] == TOOLS
            ok = await client.call_tool("read_lines", VALID["read_lines"])
            assert not ok.is_error and ok.structured_content is not None
            (block,) = ok.content
            assert isinstance(block, types.TextContent)
            assert json.loads(block.text) == ok.structured_content
            assert [line["text"] for line in ok.structured_content["lines"]] == ["alpha", "beta"]
            bad = await client.call_tool("read_lines", {**VALID["read_lines"], "start": 0})
            assert bad.is_error and bad.structured_content is None
            envelope = error_envelope(bad)
            assert envelope is not None
            ENVELOPE.validate(envelope)
            assert envelope["error"]["code"] == "invalid_range"
            posted = await client.call_tool("github_pr_create_comment", create)
            assert not posted.is_error, posted.content
            assert posted.structured_content is not None
            assert posted.structured_content["status"] == "posted"
            status = await client.call_tool(
                "github_pr_get_comment_status",
                {"repository": REPO, "pr": PR, "idempotency_key": create["idempotency_key"]},
            )
            assert status.structured_content is not None
            assert status.structured_content["state"] == "posted"

    anyio.run(main)
    (question,) = answers.asked
    assert question.message.startswith("Run github_pr_create_comment with these arguments?")
