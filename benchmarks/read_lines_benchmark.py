"""Benchmark read_lines: 20 lines from the start, middle and end of 1, 10 and 100 MB files.

Run it from the project root, with the project's venv active::

    python benchmarks/read_lines_benchmark.py              # 1, 10 and 100 MB, best of 3
    python benchmarks/read_lines_benchmark.py --sizes 1,10 --repeat 5

It takes about a minute and needs ~0.5 GB of RAM (for the whole-file baseline) and ~120 MB
of temporary disk space, removed at the end. It is a script, not a test: timings depend on
the machine, so they are printed and compared with the targets of issue 3, not asserted
in the test suite.

What it measures (see benchmarks/README.md):

- wall time, best of N, and peak memory of ``read_lines`` and of a read-the-whole-file
  baseline (``Path.read_text().splitlines()[start-1:start+19]``). Each (approach, file,
  position) runs in a FRESH child process (this script re-invoked with ``--child``): its
  ``ru_maxrss`` at the end minus its RSS right after the imports is the memory that case
  added, comparable across sizes;
- counting: ``wc -l`` (a subprocess, wall time) against a full read_lines call at the end
  of the file (it counts every newline) and against the raw chunked ``bytes.count`` loop.

Targets (issue 3): read_lines' peak memory grows by less than 16 MiB from the 1 MB to the
100 MB file; counting is within 3x of ``wc -l``. Prints PASS/FAIL per target and exits 1
if one fails.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MB = 1_000_000
MIB = 1 << 20
COUNT = 20
CHUNK = 1 << 20
MEMORY_GROWTH_LIMIT_MIB = 16.0
COUNTING_LIMIT_RATIO = 3.0
# Words of log and source comments: lines look like text, not like random bytes.
WORDS = (
    "the",
    "request",
    "handler",
    "returns",
    "a",
    "session",
    "token",
    "after",
    "user",
    "logs",
    "in",
    "and",
    "cache",
    "stores",
    "every",
    "response",
    "for",
    "later",
    "lookups",
    "while",
    "workers",
    "retry",
    "failed",
    "jobs",
    "with",
    "exponential",
    "backoff",
    "until",
    "queue",
    "drains",
    "config",
    "parser",
    "reads",
    "values",
    "from",
    "environment",
    "module",
    "imports",
    "helper",
    "function",
    "raises",
)


# --------------------------------------------------------------------------- the child


def current_rss_kib() -> int:
    """This process's resident set size now (VmRSS), in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")  # pragma: no cover - Linux only


def child(approach: str, path: str, start: int, repeat: int) -> None:
    """Run one case ``repeat`` times in this fresh process; print one JSON line.

    Peak = ``ru_maxrss`` at the end minus the RSS right after the imports. The parent
    imports nothing heavy on purpose: a child's ``ru_maxrss`` starts at the RSS of the
    process it was spawned from (the kernel carries the old address space's peak over
    exec), and a fat parent would hide the child's own growth.
    """
    from tutorial_lib.workspace.read import read_lines  # both approaches import it: equal baselines

    baseline_kib = current_rss_kib()
    file = Path(path)
    best = float("inf")
    texts: list[str] = []
    for _ in range(repeat):
        began = time.perf_counter()
        if approach == "read_lines":
            result = read_lines(file.parent, {"path": file.name, "start": start, "count": COUNT})
            if not result["ok"]:
                raise SystemExit(f"read_lines failed: {result['error']}")
            texts = [line["text"] for line in result["data"]["lines"]]
        else:  # the whole-file baseline
            texts = file.read_text(encoding="utf-8").splitlines()[start - 1 : start - 1 + COUNT]
        best = min(best, time.perf_counter() - began)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(
        json.dumps(
            {
                "seconds": best,
                "growth_kib": peak_kib - baseline_kib,
                "baseline_kib": baseline_kib,
                "texts": texts,
            }
        )
    )


# --------------------------------------------------------------------------- the parent


@dataclass(frozen=True)
class Case:
    """One measured case: which approach, which file, which position."""

    approach: str
    size_mb: int
    position: str
    start: int


def make_file(path: Path, size_bytes: int, seed: int) -> int:
    """Write deterministic text lines of ~70 bytes (40 to 100) up to ``size_bytes``.

    Returns the number of lines. Bodies come from a small pool (fast to write); the
    line number prefix makes every line unique.
    """
    rng = random.Random(seed)
    pool = []
    for _ in range(4096):
        target = rng.randint(30, 90)
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < target:
            words.append(rng.choice(WORDS))
        pool.append(" ".join(words))
    lines = 0
    written = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        batch: list[str] = []
        while written < size_bytes:
            lines += 1
            line = f"{lines:08d}  {pool[(lines * 2654435761) % 4096]}\n"
            batch.append(line)
            written += len(line)
            if len(batch) == 10_000:
                out.write("".join(batch))
                batch = []
        out.write("".join(batch))
    return lines


def run_child(case: Case, path: Path, repeat: int) -> dict[str, Any]:
    """Measure ``case`` in a fresh interpreter (fresh ``ru_maxrss``)."""
    command = [
        sys.executable,
        __file__,
        "--child",
        case.approach,
        str(path),
        str(case.start),
        str(repeat),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child failed for {case}: {done.stderr.strip()}")
    return json.loads(done.stdout.splitlines()[-1])


def best_of(repeat: int, call: Any) -> float:
    """Smallest wall time of ``repeat`` calls, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - began)
    return best


def count_chunked(path: Path) -> int:
    """The raw chunked newline count: what read_lines does, without the rest of it."""
    total = 0
    with path.open("rb") as stream:
        while chunk := stream.read(CHUNK):
            total += chunk.count(b"\n")
    return total


def wc_lines(path: Path) -> int:
    """``wc -l``, as a subprocess."""
    done = subprocess.run(["wc", "-l", str(path)], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[0])


def progress(message: str) -> None:
    """One line per step on stderr, so the Markdown on stdout stays clean."""
    print(message, file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,10,100", help="file sizes in MB, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="N of best-of-N (default 3)")
    options = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("Linux only: ru_maxrss is in KiB and RSS comes from /proc/self/status")
    sizes = [int(s) for s in options.sizes.split(",")]
    repeat = options.repeat

    results: dict[Case, dict[str, Any]] = {}
    counting: dict[int, dict[str, float]] = {}
    total_lines: dict[int, int] = {}
    with tempfile.TemporaryDirectory(prefix="read_lines_bench_") as tmp:
        for size in sizes:
            path = Path(tmp) / f"file_{size}mb.txt"
            progress(f"writing {path.name} ({size} MB) ...")
            lines = total_lines[size] = make_file(path, size * MB, seed=size)
            positions = {"start": 1, "middle": lines // 2, "end": max(1, lines - COUNT + 1)}
            for position, start in positions.items():
                texts = {}
                for approach in ("read_lines", "whole_file"):
                    case = Case(approach, size, position, start)
                    progress(f"  {size:>4} MB  {position:<6}  {approach:<10} (fresh process) ...")
                    results[case] = run_child(case, path, repeat)
                    texts[approach] = results[case]["texts"]
                if texts["read_lines"] != texts["whole_file"]:  # else the comparison is void
                    raise SystemExit(f"the approaches disagree on {size} MB {position}")
            progress(f"  {size:>4} MB  counting: wc -l and the raw bytes.count loop ...")
            if not wc_lines(path) == count_chunked(path) == lines:
                raise SystemExit(f"the line counts of {path.name} disagree")
            counting[size] = {
                "wc": best_of(repeat, lambda p=path: wc_lines(p)),
                "raw": best_of(repeat, lambda p=path: count_chunked(p)),
                "read_lines": results[Case("read_lines", size, "end", positions["end"])]["seconds"],
            }

    print(report(sizes, results, counting, total_lines, repeat))
    verdicts = targets(sizes, results, counting)
    for line in verdicts:
        print(line)
    return 0 if all(line.startswith("PASS") for line in verdicts) else 1


def mib(kib: float) -> float:
    return kib / 1024


def report(
    sizes: list[int],
    results: dict[Case, dict[str, Any]],
    counting: dict[int, dict[str, float]],
    total_lines: dict[int, int],
    repeat: int,
) -> str:
    """The two Markdown tables."""
    rows = [
        f"## 20 lines with read_lines vs the whole-file baseline (best of {repeat};"
        " peak = a fresh process's ru_maxrss minus its RSS after the imports)",
        "",
        "| file | position | read_lines ms | read_lines peak MiB | whole-file ms"
        " | whole-file peak MiB | memory whole/read_lines |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for case in (c for c in results if c.approach == "read_lines"):
        ours = results[case]
        theirs = results[Case("whole_file", case.size_mb, case.position, case.start)]
        ratio = theirs["growth_kib"] / max(ours["growth_kib"], 64)  # 64 KiB: rusage noise
        rows.append(
            f"| {case.size_mb} MB | {case.position} (line {case.start:,})"
            f" | {ours['seconds'] * 1000:.1f} | {mib(ours['growth_kib']):.1f}"
            f" | {theirs['seconds'] * 1000:.1f} | {mib(theirs['growth_kib']):.1f}"
            f" | {ratio:.1f}x |"
        )
    baseline = next(iter(results.values()))["baseline_kib"]
    rows += [
        "",
        f"(RSS of a child after its imports: {mib(baseline):.1f} MiB; the parent's:"
        f" {mib(current_rss_kib()):.1f} MiB)",
        "",
        f"## Counting every newline (best of {repeat})",
        "",
        "| file | lines | wc -l ms | read_lines full pass ms | raw bytes.count ms"
        " | read_lines / wc | raw / wc |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size in sizes:
        c = counting[size]
        rows.append(
            f"| {size} MB | {total_lines[size]:,} | {c['wc'] * 1000:.1f}"
            f" | {c['read_lines'] * 1000:.1f} | {c['raw'] * 1000:.1f}"
            f" | {c['read_lines'] / c['wc']:.2f}x | {c['raw'] / c['wc']:.2f}x |"
        )
    return "\n".join(rows) + "\n"


def targets(
    sizes: list[int], results: dict[Case, dict[str, Any]], counting: dict[int, dict[str, float]]
) -> list[str]:
    """PASS/FAIL lines for the issue's two targets, on the smallest and largest sizes."""
    small, large = min(sizes), max(sizes)
    growth = max(
        mib(results[c]["growth_kib"])
        - mib(
            results[Case("read_lines", small, c.position, _start(results, small, c.position))][
                "growth_kib"
            ]
        )
        for c in results
        if c.approach == "read_lines" and c.size_mb == large
    )
    memory_ok = growth < MEMORY_GROWTH_LIMIT_MIB
    ratio = counting[large]["read_lines"] / counting[large]["wc"]
    raw_ratio = counting[large]["raw"] / counting[large]["wc"]
    counting_ok = ratio <= COUNTING_LIMIT_RATIO
    return [
        f"{'PASS' if memory_ok else 'FAIL'}: read_lines peak memory grows {growth:.1f} MiB"
        f" from {small} MB to {large} MB (target: under {MEMORY_GROWTH_LIMIT_MIB:.0f} MiB)",
        f"{'PASS' if counting_ok else 'FAIL'}: counting {large} MB with read_lines takes"
        f" {ratio:.2f}x the time of wc -l (target: within {COUNTING_LIMIT_RATIO:.0f}x;"
        f" the raw bytes.count loop alone: {raw_ratio:.2f}x)",
    ]


def _start(results: dict[Case, dict[str, Any]], size: int, position: str) -> int:
    """The start line used for (size, position)."""
    return next(c.start for c in results if c.size_mb == size and c.position == position)


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(main())
