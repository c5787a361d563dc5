"""How long the course's MCP server takes to start: process start to first ``tools/list``.

    python tools/bench_mcp_start.py [--runs 7]

Each run starts ``python -m tutorial_lib.mcp_server --root DIR`` (a temporary workspace
with one file) as a real process on real pipes, speaks JSON-RPC lines to it (the
initialize handshake, ``tools/list``, then one ``read_lines`` call) and records, from the
moment the process is spawned:

- ``tools/list``: when the answer listing the tools arrives (what a desktop or IDE client
  waits for before it can offer the tools);
- ``first call``: when the answer to the first ``tools/call`` arrives, sent right after the
  listing (it waits for the schema checks the server builds in the background).

It prints the median (and min / max) of each over the runs, and the number of tools. A
measurement, not a test: the figure depends on the machine and its load.
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


def one_run(root: Path) -> tuple[float, float, int]:
    """(seconds to the tools/list answer, seconds to the first call's answer, tools)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "tutorial_lib.mcp_server", "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
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
    parser.add_argument("--runs", type=int, default=7, help="how many starts (default 7)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "probe.txt").write_text("probe\n", encoding="utf-8")
        runs = [one_run(root) for _ in range(args.runs)]
    listed, called, tools = zip(*runs, strict=True)
    print(f"tutorial_lib.mcp_server over stdio, {args.runs} runs, {tools[0]} tools")
    print(f"  start -> first tools/list answer: {_figure(list(listed))}")
    print(f"  start -> first tools/call answer: {_figure(list(called))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
