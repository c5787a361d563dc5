"""How long importing the core road takes, as a ratio to what it cannot avoid.

    python benchmarks/core_import_benchmark.py            # best of 7
    python benchmarks/core_import_benchmark.py --repeat 15

Every module of ``tutorial_lib.core`` (the road, the host, contracts, authorization, ...) is
imported in a fresh interpreter (``python -I``), timed inside it. The baseline, measured in
the same run and in the same way, interleaved: a fresh interpreter importing exactly the
standard-library modules the core ends up loading (read from the core run's
``sys.modules``), which the core cannot import faster than. The ratio is the price of the
core's own code. The property that the core loads no heavy or UI library is a test
(``tests/test_layers.py``); how fast it imports is this measurement.

Target: the core imports within 4x its standard-library baseline (the core is what every
learner's first cell, the MCP server and the checker's grading process import). Exit 1
if it does not.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tutorial_lib"
TARGET_RATIO = 4.0

_PROBE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
names = json.loads(sys.argv[2])
start = time.perf_counter()
for name in names:
    __import__(name)
elapsed = time.perf_counter() - start
print(json.dumps({"elapsed_s": elapsed, "modules": sorted(sys.modules)}))
"""


def core_modules() -> list[str]:
    """``tutorial_lib.core.*``: every module of the core, by import name."""
    names = []
    for path in sorted((PACKAGE / "core").glob("*.py")):
        stem = path.stem
        names.append("tutorial_lib.core" if stem == "__init__" else f"tutorial_lib.core.{stem}")
    return names


def timed_import(names: list[str]) -> dict:
    """Import ``names`` in a fresh isolated interpreter: seconds and the modules loaded."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_PROCESS_")}
    done = subprocess.run(
        [sys.executable, "-I", "-c", _PROBE, str(ROOT), json.dumps(names)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout)


def standard_library_of(modules: list[str]) -> list[str]:
    """The top-level standard-library modules in ``modules`` (importable by name)."""
    stdlib = sys.stdlib_module_names
    return sorted({m.split(".")[0] for m in modules if m.split(".")[0] in stdlib} - {"__main__"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs of each (best is kept)")
    args = parser.parse_args(argv)
    core = core_modules()
    first = timed_import(core)
    baseline_names = standard_library_of(first["modules"])
    core_s, base_s = [], []
    for run in range(args.repeat):  # interleaved: a change of load weighs on both
        print(f"run {run + 1}/{args.repeat}", file=sys.stderr)
        core_s.append(timed_import(core)["elapsed_s"])
        base_s.append(timed_import(baseline_names)["elapsed_s"])
    best_core, best_base = min(core_s), min(base_s)
    ratio = best_core / best_base
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Python {sys.version.split()[0]}, best of {args.repeat}, load average {load:.2f}\n")
    print("| import | modules | best s | ratio | target | verdict |")
    print("|---|---:|---:|---:|---:|---|")
    print(f"| the standard library the core loads | {len(baseline_names)} | {best_base:.4f} |"
          " 1.00x | | |")  # fmt: skip
    print(
        f"| `tutorial_lib.core` (all {len(core)} modules) | {len(core)} | {best_core:.4f} |"
        f" {ratio:.2f}x | {TARGET_RATIO:.0f}x | {verdict} |"
    )
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
