"""Compare regex engines for search_files: speed as the tool runs patterns, and backtracking.

Run it from the project root, with the project's venv active::

    python benchmarks/regex_engines.py                  # ~10 MB of site-packages' .py files
    python benchmarks/regex_engines.py --megabytes 5 --repeat 3

It takes about a minute and writes nothing. It is a script, not a test: timings depend on
the machine. ``google-re2`` is measured if it is importable (it is not a dependency:
``pip install google-re2`` to include it).

What it measures (the choice is argued in :mod:`tutorial_lib.workspace.search`):

- speed: each pattern over the same text, the way search_files runs it, counting each
  line's first match. ``re`` as search_files ran it before: over chunks of lines in
  windows of 8 K characters, ``search`` per match, where the pattern cannot match ``\\n``
  nor see the string's edges (no ``\\s``, ``\\A``, ``\\B``...), otherwise line by line.
  ``regex`` as it runs now: the translated pattern (:func:`search_regex.regex_pattern`, which
  makes every pattern line-local), one ``finditer`` per chunk, ``concurrent=True`` and a
  timeout. ``re2``: the query as written (it refuses backreferences and lookarounds),
  ``finditer`` per chunk or line by line, as ``re``;
- backtracking: ``(a+)+b`` over ``"a" * N + "!"`` in a worker thread while the main
  thread ticks every 5 ms: when the call returns, and the longest pause of the ticker
  (an engine holding the GIL freezes it for the whole call). ``re`` runs on N=22
  (each a doubles its time); the others on N=1000 with a 0.5 s timeout.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from typing import Any

import regex

from tutorial_lib.workspace import search_regex

PATTERNS = (
    "TODO|FIXME",
    r"def \w+\(",
    r"compute\(a, b\)$",
    r"def [a-z_]+json\(",
    r"def\s+\w+\(self",
    r"\s+$",
    r"(\w)\1{3}",
    r"foo(?=bar)",
    r"\Aimport",
    r"\Bport\b",
)
CHUNK_CHARS = 1 << 20
WINDOW_CHARS = 8192


def corpus(megabytes: float) -> list[str]:
    """Chunks of whole lines (about 1 M characters each) from site-packages' .py files."""
    root = sysconfig.get_paths()["purelib"]
    texts, size = [], 0
    for directory, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".py") and size < megabytes * 1e6:
                with open(os.path.join(directory, name), "rb") as stream:
                    text = stream.read().decode("utf-8", "surrogateescape")
                texts.append(text if text.endswith("\n") else text + "\n")
                size += len(text)
    whole = "".join(texts)
    chunks, start = [], 0
    while start < len(whole):
        end = whole.find("\n", min(start + CHUNK_CHARS, len(whole) - 1)) + 1 or len(whole)
        chunks.append(whole[start:end])
        start = end
    return chunks


def re_windows(pattern: re.Pattern[str], text: str) -> int:
    """Stdlib re as search_files ran it: ``search`` per match, in windows of 8 K."""
    lines = position = 0
    size = len(text)
    while position < size:
        window_end = text.find("\n", min(position + WINDOW_CHARS, size - 1)) + 1 or size
        while position < window_end:
            found = pattern.search(text, position, window_end)
            if found is None:
                break
            lines += 1
            line_end = text.find("\n", found.start(), window_end)
            if line_end == -1:
                break
            position = line_end + 1
        position = window_end
    return lines


def iterated(matches: Callable[[str], Any], text: str) -> int:
    """One ``finditer`` over the chunk, the first match of each line counted."""
    lines = next_line = 0
    for found in matches(text):
        start = found.start()
        if start < next_line:
            continue
        lines += 1
        line_end = text.find("\n", start)
        if line_end == -1:
            break
        next_line = line_end + 1
    return lines


def line_by_line(search_one: Callable[[str], Any], text: str) -> int:
    return sum(1 for line in text.split("\n")[:-1] if search_one(line) is not None)


def _old_local(query: str) -> bool:
    """search_files' rule with re (no \\s, \\A, \\B...): enough for these patterns."""
    return not any(code in query for code in ("\\s", "\\A", "\\B"))


def engines(query: str) -> dict[str, Callable[[str], int] | str]:
    """For each engine, how to count the matching lines of one chunk (or why it cannot)."""
    flags = re.MULTILINE
    local = search_regex.is_line_local(query, flags)
    old_local = _old_local(query)
    stdlib = re.compile(query, flags)
    ours = regex.compile(search_regex.regex_pattern(search_regex.parse(query, flags)))
    out: dict[str, Callable[[str], int] | str] = {
        "re": (lambda t: re_windows(stdlib, t))
        if old_local
        else (lambda t: line_by_line(stdlib.search, t)),
        "regex": (lambda t: iterated(lambda s: ours.finditer(s, concurrent=True, timeout=60.0), t))
        if local
        else (lambda t: line_by_line(lambda s: ours.search(s, concurrent=True, timeout=60.0), t)),
    }
    try:
        import re2  # type: ignore[import-not-found]
    except ImportError:
        out["re2"] = "not installed"
        return out
    try:
        theirs = re2.compile("(?m)" + query)
    except re2.error as exc:
        out["re2"] = f"refused ({str(exc)[:40]})"
        return out
    out["re2"] = (  # the query as written: over chunks only where it cannot match \n
        (lambda t: iterated(theirs.finditer, t))
        if old_local
        else (lambda t: line_by_line(theirs.search, t))
    )
    return out


def speed(chunks: list[str], repeat: int) -> None:
    print("| pattern | re, re2 / regex | re s | regex s | regex/re | re2 s | re2/re | lines |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for query in PATTERNS:
        times: dict[str, str] = {}
        counts: set[int] = set()
        base = 0.0
        for name, run in engines(query).items():
            if isinstance(run, str):
                times[name] = run
                continue
            best = float("inf")
            for _ in range(repeat):
                started = time.perf_counter()
                count = sum(run(chunk) for chunk in chunks)
                best = min(best, time.perf_counter() - started)
            counts.add(count)
            base = base or best
            times[name] = f"{best:.3f} | {best / base:.2f}x" if name != "re" else f"{best:.3f}"
        how = f"{'chunk' if _old_local(query) else 'lines'} / chunk"
        agree = "/".join(map(str, sorted(counts)))
        re2 = times.get("re2", "")
        re2 = re2 if "|" in re2 else f"{re2} | -"
        print(f"| `{query}` | {how} | {times['re']} | {times['regex']} | {re2} | {agree} |")


class Ticker:
    """The main thread's progress while a worker matches: the longest pause between ticks."""

    def __init__(self) -> None:
        self.ticks: list[float] = []

    def run_while(self, worker: threading.Thread) -> float:
        self.ticks.append(time.monotonic())
        worker.start()
        while worker.is_alive():
            self.ticks.append(time.monotonic())
            time.sleep(0.005)
        worker.join()
        self.ticks.append(time.monotonic())
        return max(b - a for a, b in zip(self.ticks, self.ticks[1:], strict=False))


def backtracking() -> None:
    cases: list[tuple[str, int, Callable[[str], Any]]] = [
        ("re", 22, re.compile(r"(a+)+b").search),
        ("regex (timeout 0.5 s)", 1000, lambda s: _regex_timeout(regex.compile(r"(a+)+b"), s)),
    ]
    try:
        import re2

        cases.append(("re2", 1000, re2.compile(r"(a+)+b").search))
    except ImportError:
        pass
    print("\n| engine | N | call returns after s | main thread's longest pause s |")
    print("|---|---:|---:|---:|")
    for name, n, run in cases:
        text = "a" * n + "!"
        box: list[float] = []

        def target(run: Callable[[str], Any], text: str, box: list[float]) -> None:
            started = time.monotonic()
            run(text)
            box.append(time.monotonic() - started)

        worker = threading.Thread(target=target, args=(run, text, box))
        pause = Ticker().run_while(worker)
        print(f"| {name} | {n} | {box[0]:.3f} | {pause:.3f} |")


def _regex_timeout(pattern: Any, text: str) -> None:
    with contextlib.suppress(TimeoutError):
        pattern.search(text, concurrent=True, timeout=0.5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--repeat", type=int, default=3, help="N of best-of-N (default 3)")
    options = parser.parse_args()
    chunks = corpus(options.megabytes)
    size = sum(map(len, chunks))
    print(f"{size / 1e6:.1f} M characters in {len(chunks)} chunks, best of {options.repeat},")
    print(f"Python {sys.version.split()[0]}, regex {regex.__version__}\n")
    speed(chunks, options.repeat)
    backtracking()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
