"""How long the course's MCP server takes to start, as a ratio to a minimal server on the
same SDK: process start to the first ``tools/list`` answer, and to the first ``tools/call``.

    python benchmarks/mcp_start_benchmark.py [--runs 7]

Each run starts a server as a real process on real pipes, speaks JSON-RPC lines to it (the
initialize handshake on protocol 2025-11-25, as the TypeScript SDK's client negotiates,
``tools/list``, then one ``read_lines`` call) and records, from the moment the process is
spawned:

- ``tools/list``: when the answer listing the tools arrives (what a desktop or IDE client
  waits for before it can offer the tools);
- ``first call``: when the answer to the first ``tools/call`` arrives, sent right after the
  listing (the schema check of that tool is built and run then).

The two servers are started alternately, so a change of load weighs on both: the course's
(``python -m tutorial_lib.mcp_server --root DIR``, 12 tools, in this environment with the
full course installed, JupyterLab included) and a minimal one written by this script: the
same SDK's ``MCPServer`` with one ``read_lines`` tool that reads the file plainly (no
schema check of its own, no host, no emulator). Targets: the median of each within 1.5x of
the minimal server's. Exit 1 if a target is missed. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _request(number: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": number, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode("utf-8") + b"\n"


MINIMAL_SERVER = """
import sys
from pathlib import Path

from mcp.server import MCPServer

root = Path(sys.argv[1])
server = MCPServer("minimal")


@server.tool()
def read_lines(path: str, start: int, count: int) -> str:
    \"\"\"Read lines of a file.\"\"\"
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    return "\\n".join(lines[start - 1 : start - 1 + count])


server.run("stdio")
"""
TARGET_RATIO = 1.5


def one_run(command: list[str]) -> tuple[float, float, int]:
    """(seconds to the tools/list answer, seconds to the first call's answer, tools)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT
    )
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    assert process.stdin is not None and process.stdout is not None
    try:
        hello = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        }
        process.stdin.write(_request(1, "initialize", hello))
        process.stdin.flush()
        json.loads(process.stdout.readline())
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        process.stdin.write(_request(2, "tools/list"))
        process.stdin.flush()
        tools = len(json.loads(process.stdout.readline())["result"]["tools"])
        listed = time.perf_counter() - started
        read = {"path": "probe.txt", "start": 1, "count": 1}
        process.stdin.write(_request(3, "tools/call", {"name": "read_lines", "arguments": read}))
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())
        assert answer["result"]["isError"] is False, answer
        called = time.perf_counter() - started
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        watchdog.cancel()
    return listed, called, tools


def _figure(values: list[float]) -> str:
    return (
        f"median {statistics.median(values):.3f} s (min {min(values):.3f}, max {max(values):.3f})"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="how many starts of each (default 7)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    commands = {}
    results: dict[str, list[tuple[float, float, int]]] = {"course": [], "minimal": []}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "probe.txt").write_text("probe\n", encoding="utf-8")
        (root / "minimal_server.py").write_text(MINIMAL_SERVER, encoding="utf-8")
        commands["course"] = [sys.executable, "-m", "tutorial_lib.mcp_server", "--root", str(root)]
        commands["minimal"] = [sys.executable, str(root / "minimal_server.py"), str(root)]
        for run in range(args.runs):  # alternately: a change of load weighs on both
            print(f"run {run + 1}/{args.runs}", file=sys.stderr)
            for name, command in commands.items():
                results[name].append(one_run(command))
    print(f"MCP servers over stdio, protocol 2025-11-25, {args.runs} starts each\n")
    print("| server | tools | start -> tools/list | start -> first tools/call |")
    print("|---|---:|---|---|")
    medians = {}
    for name, runs in results.items():
        listed, called, tools = zip(*runs, strict=True)
        medians[name] = (statistics.median(listed), statistics.median(called))
        print(f"| {name} | {tools[0]} | {_figure(list(listed))} | {_figure(list(called))} |")
    ratios = [c / m for c, m in zip(medians["course"], medians["minimal"], strict=True)]
    verdicts = ["PASS" if ratio <= TARGET_RATIO else "FAIL" for ratio in ratios]
    print("\n| ratio of the medians, course / minimal | tools/list | first tools/call |")
    print("|---|---:|---:|")
    print(f"| ratio (target {TARGET_RATIO}x) | {ratios[0]:.2f}x | {ratios[1]:.2f}x |")
    print(f"| verdict | {verdicts[0]} | {verdicts[1]} |")
    return 0 if verdicts == ["PASS", "PASS"] else 1


if __name__ == "__main__":
    sys.exit(main())
