"""How long a whole nbgrader class takes, as a ratio to running one notebook.

    python benchmarks/class_workflow_benchmark.py          # one class, chapter 00

Runs the class workflow that ``tests/test_instructor.py`` checks (``run_class_workflow``: the
course built from ``solutions/``, release, nine students fetching and submitting, collect,
autograde with the course's grading, the grades CSV, feedback) in a temporary folder and
prints the seconds of each step. The baseline, measured in the same run just before: chapter
00's solution notebook executed once in a fresh kernel, the unit of work autograding
repeats for each submission (there in a sandboxed kernel, plus a fresh judging process).

Target: the whole class within 60x one execution of the notebook (set for six submissions, each
executed in a sandboxed kernel and judged in a fresh process, plus nbgrader's own steps;
the test that used to time it allowed 90 s, about 117x the baseline on the 2-core
development machine). Exit 1 if it is over. The test checks what
the class produces (grades, feedback, refusals); how fast is this measurement. Needs the
``instructor`` extra (nbgrader), as the test does.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `tests` and `tools` importable
    sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from tests.test_instructor import ASSIGNMENT, run_class_workflow  # noqa: E402
from tools import notebooks  # noqa: E402

TARGET_RATIO = 60.0


def one_execution_s() -> float:
    """Seconds to execute chapter 00's solution once in a fresh kernel."""
    path = ROOT / "solutions" / f"{ASSIGNMENT}_solution.ipynb"
    nb = nbformat.read(path, as_version=4)
    started = time.monotonic()
    notebooks.execute(nb, path.parent, timeout_s=120)
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    os.environ.setdefault("PYTHONHASHSEED", "0")
    print("executing the baseline notebook ...", file=sys.stderr)
    baseline = one_execution_s()
    print("running the class ...", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="class-bench-") as folder:
        times = run_class_workflow(Path(folder))["times"]
    ratio = times["total"] / baseline
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Python {sys.version.split()[0]}, load average {load:.2f} at the end\n")
    print("| step | s |")
    print("|---|---:|")
    for step, seconds in times.items():
        print(f"| {step} | {seconds:.2f} |")
    print()
    print("| one notebook execution s | class total s | ratio | target | verdict |")
    print("|---:|---:|---:|---:|---|")
    print(f"| {baseline:.2f} | {times['total']:.2f} | {ratio:.1f}x | {TARGET_RATIO:.0f}x |"
          f" {verdict} |")  # fmt: skip
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
