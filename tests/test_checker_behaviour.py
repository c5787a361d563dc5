"""The checker's behaviour verdicts on servers it did not write (issue 35): an error is
judged only against a call that succeeded, and a timeout is not a refusal."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.test_checker import check

SERVER = """
import time

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

server = MCPServer("unconfigured")
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)


@server.tool(name="needs_token", description="Look up one word in the account's glossary.",
             annotations=READ)
def needs_token(word: str) -> str:
    raise ToolError("no token configured")


@server.tool(name="slow_lookup", description="Look up one word in the local glossary.",
             annotations=READ)
def slow_lookup(word: str) -> str:
    time.sleep(3)
    return word


server.run("stdio")
"""


def test_errors_are_judged_only_after_a_call_succeeded_and_a_timeout_is_no_refusal(
    tmp_path: Path,
) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    _, _, report = check(
        tmp_path, "--protocol", "2026-07-28", "--kinds", "wrong_type,missing_required",
        "--timeout", "1", "--select", "behaviour", command=[sys.executable, str(script)],
    )  # fmt: skip
    rules = {(f["tool"], f["rule"]) for f in report["findings"]}
    # every call of needs_token fails for a reason of its own: its errors are not judged
    # against arguments that were never the problem
    assert ("needs_token", "valid_call_refused") in rules
    assert not {r for t, r in rules if t == "needs_token"} & {
        "error_names_no_field",
        "error_without_next_step",
    }
    refused = next(
        f for f in report["findings"] if f["rule"] == "valid_call_refused"
    )  # one tool only
    assert "judgement of error messages were skipped" in refused["message"]
    # slow_lookup answers, late: a timeout, not a refusal of valid arguments
    assert ("slow_lookup", "call_timeout") in rules
    assert ("slow_lookup", "valid_call_refused") not in rules
