"""``python -m tutorial_lib.mcp_server`` as a real process on real pipes.

- the SDK's own stdio client starts the server, lists its tools and calls them (the
  default protocol negotiation, on the wire);
- raw JSON-RPC lines (the legacy handshake): a malformed ``tools/call`` and an unknown tool
  are protocol errors (-32602); a line the SDK cannot parse (bad JSON, a lone surrogate
  escape, nesting deeper than its parser's limit) is dropped without an answer (the SDK's
  stdio reader, not this server), and the server goes on serving;
- a bad flag stops the process at once with argparse's usage (exit status 2).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from tools.notebooks import ROOT

SERVER = [sys.executable, "-m", "tutorial_lib.mcp_server"]
READ = {"path": "docs/guide.md", "start": 1, "count": 1}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Guide\nstep one\n", encoding="utf-8")
    (tmp_path / "src" / "app.py").write_text("print('app')\n", encoding="utf-8")
    return tmp_path


def envelope(result: types.CallToolResult) -> dict[str, Any]:
    """What a result carries: a success's structured content (equal to its text), or an
    error's whole envelope (text only: no structured content on an error)."""
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    carried = json.loads(block.text)
    assert isinstance(carried, dict)
    assert result.structured_content == (None if result.is_error else carried)
    return carried


def test_the_sdk_stdio_client_lists_and_calls_the_tools(workspace: Path) -> None:
    params = StdioServerParameters(
        command=SERVER[0], args=[*SERVER[1:], "--root", str(workspace), "--path", "docs"],
        cwd=ROOT,
    )  # fmt: skip

    async def main() -> None:
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            assert len(tools) == 12
            assert {t.name for t in tools} >= {"read_lines", "search_files", "github_pr_get"}
            ok = await client.call_tool("read_lines", READ)
            assert not ok.is_error
            assert envelope(ok)["lines"] == [{"number": 1, "text": "# Guide"}]
            refused = await client.call_tool("read_lines", {**READ, "path": "src/app.py"})
            assert refused.is_error and envelope(refused)["error"]["code"] == "permission_denied"
            write = {"repository": "example/shop", "pr": 128, "body": "x", "idempotency_key":
                     "stdio-key-0001"}  # fmt: skip
            refused = await client.call_tool("github_pr_create_comment", write)
            assert envelope(refused)["error"]["code"] == "permission_denied"
            with pytest.raises(MCPError) as raised:
                await client.call_tool("no_such_tool", {})
            assert raised.value.code == types.INVALID_PARAMS

    anyio.run(main)


class RawPipe:
    """The server process, spoken to in JSON lines (killed after 30 s whatever happens)."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [*SERVER, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        self.watchdog = threading.Timer(30, self.process.kill)
        self.watchdog.start()

    def send(self, message: dict[str, Any] | str) -> None:
        line = message if isinstance(message, str) else json.dumps(message)
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the server closed its output"
        return json.loads(line)

    def close(self) -> tuple[int, str]:
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=20)
        self.watchdog.cancel()
        return code, self.process.stderr.read().decode("utf-8", "replace")


def call(number: int, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}


def test_malformed_requests_are_protocol_errors_and_the_server_survives(workspace: Path) -> None:
    pipe = RawPipe("--root", str(workspace), "--path", "docs")
    try:
        pipe.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw-test", "version": "0"},
                },
            }
        )
        assert pipe.receive()["result"]["protocolVersion"] == "2025-11-25"
        pipe.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for number, params in (
            (2, {"name": "read_lines", "arguments": "not an object"}),
            (3, {"arguments": READ}),  # no name
            (4, {"name": "no_such_tool", "arguments": {}}),
            (5, {"name": 7, "arguments": READ}),
        ):
            pipe.send(call(number, params))
            answer = pipe.receive()
            assert answer["id"] == number and answer["error"]["code"] == -32602, answer
        # lines the SDK's parser refuses get no answer (no id can be read); the next does
        deep = "[" * 990 + "1" + "]" * 990
        pipe.send("{not json")
        pipe.send('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_lines",'
                  '"arguments":{"path":"\\ud800","start":1,"count":1}}}')  # fmt: skip
        pipe.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_lines",'
                  f'"arguments":{{"path":{deep},"start":1,"count":1}}}}}}')  # fmt: skip
        pipe.send({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
        answer = pipe.receive()
        assert answer["id"] == 8 and len(answer["result"]["tools"]) == 12
    finally:
        code, stderr = pipe.close()
    assert code == 0, stderr
    assert "grants: read; repositories: none; paths: docs" in stderr


def test_a_bad_flag_stops_the_process_with_its_usage(workspace: Path) -> None:
    done = subprocess.run(
        [*SERVER, "--root", str(workspace), "--grant", "admin"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "usage: tutorial-lib-mcp" in done.stderr
    assert "argument --grant: invalid choice: 'admin'" in done.stderr
