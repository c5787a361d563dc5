"""The package layout is an architecture: which side of the wire may import which.

- the emulator (the outside world) imports nothing agent-side;
- the core of the road imports only itself: no tool, no course instrument, no UI library;
- only the course instruments import IPython, ipywidgets or matplotlib;
- no module imports another module's private name;
- ``import`` of the core loads none of the heavy libraries (checked in a fresh interpreter).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tutorial_lib"
LAYERS = ("core", "workspace", "github", "emulator", "design", "examples", "agent", "course")

#: Which subpackages each subpackage may import (itself included).
ALLOWED: dict[str, set[str]] = {
    "core": {"core"},
    "workspace": {"core", "workspace"},
    "github": {"core", "github"},
    "emulator": {"emulator"},
    "design": {"core", "design"},
    "examples": {"core", "examples"},
    "agent": {"core", "workspace", "github", "examples", "emulator", "agent"},
    "course": set(LAYERS),
}
UI_LIBRARIES = {"IPython", "ipywidgets", "matplotlib"}


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def layer_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else "root"


def imports(path: Path) -> list[tuple[str, list[str], int]]:
    """(module, names imported from it, line) for every import in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [a.name for a in node.names], node.lineno))
    return found


def test_every_module_sits_in_a_layer() -> None:
    strays = [p.name for p in modules() if layer_of(p) not in LAYERS and p.name != "__init__.py"]
    assert not strays, f"modules outside the layers {LAYERS}: {strays}"
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} == set(
        LAYERS
    )


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path: Path) -> None:
    layer = layer_of(path)
    problems = []
    for module, names, line in imports(path):
        top, _, rest = module.partition(".")
        if top == "tutorial_lib":
            # `from tutorial_lib import x`: x is a subpackage
            targets = names if not rest else [rest.split(".")[0]]
            for target in targets:
                if layer == "root" or target not in ALLOWED[layer]:
                    problems.append(f"line {line}: {layer} imports {target} ({module})")
            private = [n for n in names if n.startswith("_")]
            if private:
                problems.append(f"line {line}: private names {private} from {module}")
        elif top in UI_LIBRARIES and layer != "course":
            problems.append(f"line {line}: {layer} imports the UI library {top}")
    assert not problems, "\n".join(problems)


def test_importing_the_core_loads_no_heavy_library() -> None:
    code = (
        "import sys, json, time; t = time.perf_counter();"
        "import tutorial_lib.core.road, tutorial_lib.core.retry;"
        "elapsed = time.perf_counter() - t;"
        "print(json.dumps({'elapsed_s': elapsed, 'modules': sorted(sys.modules)}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(result.stdout)["modules"])
    heavy = {"IPython", "ipywidgets", "matplotlib", "numpy", "jsonschema", "httpx"}
    assert not heavy & loaded, f"the core loaded {sorted(heavy & loaded)}"
    assert not {m for m in loaded if m.startswith("tutorial_lib.course")}
