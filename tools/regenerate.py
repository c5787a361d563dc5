"""Regenerate the course's committed outputs: the one script instructors run after an edit.

    python tools/regenerate.py            # every chapter, solution and exercise
    python tools/regenerate.py 00         # only chapter 00's notebook, solution and exercise
    python tools/regenerate.py --check    # change nothing; exit 1 if a file is out of date

For each chapter notebook and solution: format its code with ruff, execute it in a fresh
kernel of this interpreter (PYTHONHASHSEED=0, no timing metadata), normalize volatile parts
(tools/notebooks.py) and write it back. ``--check`` does exactly the same work, formatting
included, and only compares. Then every exercise is generated from its solution
(tools/exercises.py).
Re-running on unchanged notebooks changes no byte.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `tools` importable
    sys.path.insert(0, str(ROOT))

from tools import exercises, notebooks  # noqa: E402


def executed_notebooks(chapters: list[str]) -> list[Path]:
    """Chapter notebooks and solutions, optionally only those of ``chapters`` ("00", ...)."""
    paths = notebooks.chapter_notebooks() + notebooks.solution_notebooks()
    return [p for p in paths if not chapters or p.name[:2] in chapters]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("chapters", nargs="*", help="two-digit chapter numbers (default: all)")
    parser.add_argument("--check", action="store_true", help="report stale files, write nothing")
    args = parser.parse_args(argv)

    stale: list[str] = []
    targets = executed_notebooks(args.chapters)
    for number, path in enumerate(targets, start=1):
        started = time.monotonic()
        print(f"[{number}/{len(targets)}] executing {path.relative_to(ROOT)} ...", flush=True)
        text = notebooks.regenerate_text(path)  # formatted, then executed
        if path.read_text(encoding="utf-8") != text:
            stale.append(str(path.relative_to(ROOT)))
            if not args.check:
                path.write_text(text, encoding="utf-8")
        print(f"      done in {time.monotonic() - started:.1f} s", flush=True)

    for solution in targets:
        if solution.parent.name != "solutions":
            continue
        target, text = exercises.generate(solution)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            stale.append(str(target.relative_to(ROOT)))
            if not args.check:
                target.parent.mkdir(exist_ok=True)
                target.write_text(text, encoding="utf-8")

    verb = "out of date" if args.check else "rewritten"
    print(f"{len(stale)} file(s) {verb}" + "".join(f"\n  {s}" for s in stale))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
