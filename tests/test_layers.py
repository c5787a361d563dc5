"""The package layout is an architecture: which side of the wire may import which.

- the emulator (the outside world) imports nothing agent-side;
- the core of the road imports only itself: no tool, no course instrument, no UI library;
- only the course instruments import IPython, ipywidgets or matplotlib;
- no module imports another module's private name;
- the package root imports nothing when it is imported (a lazy PEP 562 export may name any
  layer, through a literal table, but never a UI library itself);
- importing every module of the core loads none of the heavy libraries and no other layer
  (checked in a fresh interpreter), and takes less than 0.3 s.

What counts as an import: every ``import`` / ``from ... import`` statement anywhere in the
file (function bodies and ``if TYPE_CHECKING:`` blocks included), relative ones resolved
against the file's package (``from ..course import table`` in ``core`` is
``tutorial_lib.course``; ``from . import x`` and ``from tutorial_lib import course`` name
subpackages), and every dynamic import: a call to (or a reference to) one of
:data:`DYNAMIC_IMPORTERS` (``importlib.import_module``, ``__import__``,
``importlib.util.find_spec``, ...), however it was imported. A dynamic import with a literal
module name is checked like a statement; one whose name the test cannot read is an error,
unless its file is on :data:`DYNAMIC_ALLOWED` with the reason (there, every module name
written as a string in the file is checked instead). Loading a file by its path
(``spec_from_file_location``, ...) always needs the allow-list.

Adding a layer (a new subpackage such as ``tutorial_lib/chapters/``) is one line in
:data:`ALLOWED`: what it may import; ``EVERY_LAYER`` and ``UI`` are the two wildcards.
A new module in an existing layer (``tutorial_lib/core/host.py``) needs no change: files are
found by walking the package, and the import-time check imports every file under ``core/``.

The checks are functions of a package root (the ``tutorial_lib`` folder), so the meta-tests
run them on a planted copy in ``tmp_path`` and prove that each violation is reported.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.pieces import HANG_S

PACKAGE = Path(__file__).resolve().parents[1] / "tutorial_lib"

EVERY_LAYER = "<every layer>"  # wildcard: may import any layer (and the package root)
UI = "<UI libraries>"  # may import IPython, ipywidgets, matplotlib

#: Which layers each layer (a subpackage of tutorial_lib) may import, itself included.
#: One line per layer: adding a subpackage is adding its line here.
ALLOWED: dict[str, frozenset[str]] = {
    "core": frozenset({"core"}),
    "language": frozenset({"language"}),
    "workspace": frozenset({"core", "workspace"}),
    "github": frozenset({"core", "github"}),
    "emulator": frozenset({"emulator"}),
    "design": frozenset({"core", "design"}),
    "examples": frozenset({"core", "examples"}),
    "agent": frozenset({"core", "workspace", "github", "examples", "emulator", "agent"}),
    "worlds": frozenset(
        {
            "core",
            "language",
            "workspace",
            "github",
            "emulator",
            "examples",
            "agent",
            "design",
            "worlds",
        }
    ),
    "mcp_server": frozenset({"core", "workspace", "github", "emulator", "design", "mcp_server"}),
    "checker": frozenset({"core", "design", "checker"}),
    "course": frozenset({EVERY_LAYER, UI}),
}
LAYERS = tuple(ALLOWED)

ROOT = "root"  # tutorial_lib/__init__.py: the learner-facing facade
#: The root imports nothing when imported ("import tutorial_lib.core.road stays light") ...
ROOT_ALLOWED: frozenset[str] = frozenset()
#: ... but a lazy export (a dynamic import, or an import inside a function such as the
#: PEP 562 ``__getattr__``) may load any layer, a course name included.
ROOT_ALLOWED_LAZILY = frozenset({EVERY_LAYER})

UI_LIBRARIES = frozenset({"IPython", "ipywidgets", "matplotlib"})
#: Not one of these may be in sys.modules after importing every module of the core.
HEAVY_LIBRARIES = UI_LIBRARIES | {
    "numpy",
    "jsonschema",  # core.road and core.arguments import it on first use, not on import
    "httpx",
    "regex",
    "nbformat",
    "anthropic",
    "openai",
    "mcp",
}

#: The functions that import (or find, or load) a module named at run time, by the name
#: they are reached through once aliases are resolved, and how their arguments read:
#: "name+package": (name, package=None); "__import__": (name, globals, locals, fromlist,
#: level); "name": (name, ...); "path": the module comes from a file path, which the layer
#: rules cannot see, so the call always needs the allow-list.
DYNAMIC_IMPORTERS: dict[str, str] = {
    "importlib.import_module": "name+package",
    "importlib.util.find_spec": "name+package",  # imports the parent packages of a.b.c
    "importlib.__import__": "__import__",
    "builtins.__import__": "__import__",
    "runpy.run_module": "name",
    "importlib.util.spec_from_file_location": "path",
    "importlib.machinery.SourceFileLoader": "path",
    "runpy.run_path": "path",
}


@dataclass(frozen=True)
class Allowance:
    reason: str
    #: Planned: the file has no such import yet (the entry may stay while it is unused).
    planned: bool = False


#: The files that may import a module whose name the test cannot read, and why. Keep it
#: short: every entry is a hole the layer rules check only through the module names written
#: as strings in the file (e.g. the table a lazy ``__getattr__`` reads).
DYNAMIC_ALLOWED: dict[str, Allowance] = {
    "agent/real_models.py": Allowance(
        "the optional provider SDKs named in PROVIDERS (anthropic, openai): find_spec says"
        " whether one is installed, import_module loads it only when a real client is made"
        " (test_real_models_reaches_only_the_provider_sdks keeps PROVIDERS to those two)"
    ),
    "__init__.py": Allowance(
        "PEP 562 __getattr__: learner-facing names exported lazily from a literal table of"
        " tutorial_lib modules (each one checked as a lazy import of the root)",
        planned=True,
    ),
}


# -- finding the files and their names --------------------------------------------------------


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def layer_of(root: Path, path: Path) -> str:
    parts = path.relative_to(root).parts
    return parts[0] if len(parts) > 1 else ROOT


def module_name(root: Path, path: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(root: Path, path: Path) -> str:
    name = module_name(root, path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def resolve(name: str, level: int, package: str) -> str | None:
    """``name`` imported ``level`` dots up from ``package``; None beyond the top package."""
    if level == 0:
        return name
    parts = package.split(".")
    if level - 1 >= len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join(base + [name] if name else base)


# -- reading the imports of one file ----------------------------------------------------------


@dataclass(frozen=True)
class Import:
    line: int
    source: str  # the statement or call as written
    module: str | None  # absolute module name; None when the test cannot read it
    names: tuple[str, ...] = ()  # the names of `from module import names` (or a fromlist)
    lazy: bool = False  # dynamic, or inside a function: runs after the file is imported
    dynamic: str = ""  # the dynamic importer's name ("" for a statement)
    why_unreadable: str = ""


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _walk(node: ast.AST, lazy: bool = False) -> Iterator[tuple[ast.AST, bool]]:
    """Every node with whether it is inside a function (runs after the file is imported)."""
    yield node, lazy
    lazy = lazy or isinstance(node, _FUNCTIONS)
    for child in ast.iter_child_nodes(node):
        yield from _walk(child, lazy)


def _aliases(nodes: list[ast.AST], package: str) -> dict[str, str]:
    """Local name -> the dotted name it stands for, from every import of the file."""
    aliases: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom):
            module = resolve(node.module or "", node.level, package)
            for alias in node.names:
                if module and alias.name != "*":
                    aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
    return aliases


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        if node.id in aliases:
            return aliases[node.id]
        return f"builtins.{node.id}" if node.id == "__import__" else node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return f"{base}.{node.attr}" if base else None
    return None


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _literal_str(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _anchor(node: ast.expr | None, module: str, package: str) -> str | None:
    """The package a relative name is resolved against, if the test can read it."""
    if isinstance(node, ast.Name) and node.id == "__package__":
        return package
    if isinstance(node, ast.Name) and node.id == "__name__":
        return module
    if (
        isinstance(node, ast.Attribute)
        and node.attr == "parent"
        and isinstance(node.value, ast.Name)
        and node.value.id == "__spec__"
    ):
        return package
    return _literal_str(node)


def _read_dynamic(
    call: ast.Call, kind: str, module: str, package: str
) -> tuple[str | None, tuple[str, ...], str]:
    """(absolute module, fromlist names, why unreadable) of one dynamic import call."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None, (), "its arguments are unpacked (*args / **kwargs)"
    if kind == "path":
        return None, (), "it loads a module from a file path"
    name = _literal_str(_argument(call, 0, "name" if kind != "name" else "mod_name"))
    if name is None:
        return None, (), "its module name is not a string literal"
    names: tuple[str, ...] = ()
    level = len(name) - len(name.lstrip("."))
    anchor: str | None = package
    if kind == "name+package" and level:
        anchor = _anchor(_argument(call, 1, "package"), module, package)
    elif kind == "__import__":
        level_node = _argument(call, 4, "level")
        if level_node is not None:
            if not (isinstance(level_node, ast.Constant) and isinstance(level_node.value, int)):
                return None, (), "its level is not an integer literal"
            level = level_node.value
        fromlist = _argument(call, 3, "fromlist")
        if fromlist is not None and not (
            isinstance(fromlist, ast.Constant) and fromlist.value is None
        ):
            if not isinstance(fromlist, (ast.List, ast.Tuple, ast.Set)) or any(
                _literal_str(e) is None for e in fromlist.elts
            ):
                return None, (), "its fromlist is not a literal list of strings"
            names = tuple(_literal_str(e) or "" for e in fromlist.elts)
    if anchor is None:
        return None, (), "its relative name has no package the test can read"
    resolved = resolve(name.lstrip(".") if level else name, level, anchor)
    if resolved is None:
        return None, (), "its relative name goes beyond the top-level package"
    return resolved, names, ""


#: A string that names a module of the package (absolute or relative) or a UI library.
_MODULE_STRING = re.compile(
    r"(tutorial_lib|\.+[A-Za-z_]\w*|" + "|".join(sorted(UI_LIBRARIES)) + r")(\.[A-Za-z_]\w*)*"
)


def imports(root: Path, path: Path) -> list[Import]:
    """Every import of the file: statements, relative ones resolved, and dynamic imports."""
    source = path.read_text(encoding="utf-8")
    walked = list(_walk(ast.parse(source)))
    nodes = [node for node, _ in walked]
    module, package = module_name(root, path), package_of(root, path)
    lines = [line.encode() for line in source.splitlines()]

    def written(node: ast.expr | ast.stmt) -> str:
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        chunk = lines[first : last + 1]
        end = node.end_col_offset if node.end_col_offset is not None else len(chunk[-1])
        chunk = [*chunk[:-1], chunk[-1][:end]]
        chunk[0] = chunk[0][node.col_offset :]
        text = " ".join(b" ".join(chunk).decode(errors="replace").split())
        return text if len(text) <= 70 else text[:67] + "..."

    found: list[Import] = []
    for node, lazy in walked:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(node.lineno, written(node), alias.name, lazy=lazy))
        elif isinstance(node, ast.ImportFrom):
            target = resolve(node.module or "", node.level, package)
            names = tuple(a.name for a in node.names)
            why = "" if target else "its relative name goes beyond the top-level package"
            found.append(Import(node.lineno, written(node), target, names, lazy, "", why))

    aliases = _aliases(nodes, package)
    called = {id(n.func): n for n in nodes if isinstance(n, ast.Call)}
    for node in nodes:
        if not isinstance(node, (ast.Name, ast.Attribute)) or isinstance(node.ctx, ast.Store):
            continue
        importer = _dotted(node, aliases)
        if importer not in DYNAMIC_IMPORTERS:
            continue
        call = called.get(id(node))
        if call is None:
            found.append(
                Import(node.lineno, written(node), None, (), True, importer, "it is not called")
            )
            continue
        target, names, why = _read_dynamic(call, DYNAMIC_IMPORTERS[importer], module, package)
        found.append(Import(call.lineno, written(call), target, names, True, importer, why))

    if relative(root, path) in DYNAMIC_ALLOWED:
        # Names it reaches at run time are read from strings (a table): check those instead.
        for node in nodes:
            text = _literal_str(node) if isinstance(node, ast.Constant) else None
            if text and _MODULE_STRING.fullmatch(text):
                level = len(text) - len(text.lstrip("."))
                target = resolve(text.lstrip(".") if level else text, level, package)
                found.append(Import(node.lineno, repr(text), target, (), True, "module string"))
    return sorted(found, key=lambda i: i.line)


# -- the rules --------------------------------------------------------------------------------


def may_import(layer: str, target: str, *, lazy: bool) -> bool:
    if layer == ROOT:
        allowed = ROOT_ALLOWED | (ROOT_ALLOWED_LAZILY if lazy else frozenset())
    else:
        allowed = ALLOWED.get(layer, frozenset())
    return target in allowed or (EVERY_LAYER in allowed and target != UI)


def targets(root: Path, imp: Import) -> list[str]:
    """The layers an import reaches: a subpackage, or ROOT for the package's own facade."""
    assert imp.module is not None
    top, *rest = imp.module.split(".")
    if top in UI_LIBRARIES:
        return [UI]
    if top != root.name:
        return []
    if rest:
        return [rest[0] if rest[0] in ALLOWED else ROOT]
    # `import tutorial_lib`, `from tutorial_lib import course, __version__`
    return [n if n in ALLOWED else ROOT for n in imp.names] or [ROOT]


def problems(root: Path, path: Path) -> list[str]:
    layer, here = layer_of(root, path), module_name(root, path)
    found = []
    for imp in imports(root, path):
        where = f"line {imp.line}: `{imp.source}`"
        if imp.module is None:
            if imp.dynamic and relative(root, path) in DYNAMIC_ALLOWED:
                continue
            what = f"dynamic import ({imp.dynamic})" if imp.dynamic else "import"
            found.append(
                f"{where}: {what} the layer rules cannot check: {imp.why_unreadable}"
                + ("; use a literal name, or put the file on DYNAMIC_ALLOWED" * bool(imp.dynamic))
            )
            continue
        for target in targets(root, imp):
            if not may_import(layer, target, lazy=imp.lazy):
                reached = "the UI library " + imp.module.split(".")[0] if target == UI else target
                kind = "lazily " if layer == ROOT and imp.lazy else ""
                found.append(f"{where}: {layer} {kind}imports {reached} ({imp.module})")
        if imp.module.split(".")[0] == root.name:
            parts = imp.module.split(".")
            private = [n for n in imp.names if n.startswith("_")]
            private += [
                ".".join(parts[: i + 1])
                for i, part in enumerate(parts)
                if part.startswith("_") and not here.startswith(".".join(parts[:i]) + ".")
            ]
            if private:
                found.append(f"{where}: private names {private} from {imp.module}")
    return found


def tree_problems(root: Path) -> dict[str, list[str]]:
    """Every layer problem of every module under ``root``, by path; clean files left out."""
    found = {relative(root, p): problems(root, p) for p in python_files(root)}
    return {path: lines for path, lines in found.items() if lines}


def strays(root: Path) -> list[str]:
    """Modules outside the layers, and layers (folders) that ALLOWED does not know."""
    found = [
        relative(root, p)
        for p in python_files(root)
        if layer_of(root, p) not in (*LAYERS, ROOT)
        or (layer_of(root, p) == ROOT and p.name != "__init__.py")
    ]
    folders = {p.name for p in root.iterdir() if p.is_dir() and p.name != "__pycache__"}
    found += [f"{name}/ (not in ALLOWED)" for name in sorted(folders - set(LAYERS))]
    return found


# -- importing the core in a fresh interpreter ------------------------------------------------

_PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
names = json.loads(sys.argv[2])
for name in names:
    __import__(name)
root = sys.modules[names[0].split(".")[0]]
print(json.dumps({"root": root.__file__, "modules": sorted(sys.modules)}))
"""


def core_modules(root: Path) -> list[str]:
    return [module_name(root, p) for p in python_files(root / "core")]


def import_core(root: Path) -> dict:
    """Import every module of ``root``'s core in a fresh interpreter: its sys.modules.

    ``-I`` keeps the environment's PYTHONPATH out, and coverage's subprocess hook is
    switched off: what is measured is the library, not a tracer.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_PROCESS_")}
    result = subprocess.run(
        [sys.executable, "-I", "-c", _PROBE, str(root.parent), json.dumps(core_modules(root))],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=HANG_S,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert Path(report["root"]).resolve() == (root / "__init__.py").resolve(), report["root"]
    return report


def loaded_by_core(root: Path, report: dict) -> list[str]:
    """The heavy libraries (by top-level name) and the package's non-core modules loaded."""
    heavy = {m.split(".")[0] for m in report["modules"]} & HEAVY_LIBRARIES
    layers = {
        m
        for m in report["modules"]
        if m.split(".")[:2] not in ([root.name], [root.name, "core"])
        and m.split(".")[0] == root.name
    }
    return sorted(heavy | layers)


# -- the tests on the real tree ---------------------------------------------------------------


def test_every_module_sits_in_a_layer() -> None:
    assert not strays(PACKAGE), f"modules outside the layers {LAYERS}: {strays(PACKAGE)}"


@pytest.mark.parametrize("path", python_files(PACKAGE), ids=lambda p: relative(PACKAGE, p))
def test_imports_follow_the_layers(path: Path) -> None:
    found = problems(PACKAGE, path)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", sorted(DYNAMIC_ALLOWED))
def test_the_dynamic_import_allow_list_is_current(path: str) -> None:
    file = PACKAGE / path
    assert file.is_file(), f"{path} is on DYNAMIC_ALLOWED but does not exist"
    unreadable = [i for i in imports(PACKAGE, file) if i.dynamic and i.module is None]
    if not DYNAMIC_ALLOWED[path].planned:
        assert unreadable, f"{path} has no dynamic import left: take it off DYNAMIC_ALLOWED"


def test_real_models_reaches_only_the_provider_sdks() -> None:
    from tutorial_lib.agent import real_models

    packages = {provider.package for provider in real_models.PROVIDERS.values()}
    assert packages <= {"anthropic", "openai"}, packages


def test_importing_the_core_loads_no_heavy_library() -> None:
    # What the core loads is a test; how fast it imports is a measurement
    # (benchmarks/core_import_benchmark.py: a ratio to the standard library it loads).
    report = import_core(PACKAGE)
    assert not loaded_by_core(PACKAGE, report), (
        f"importing {core_modules(PACKAGE)} loaded {loaded_by_core(PACKAGE, report)}"
    )


# -- the meta-tests: a planted tree whose every violation must be reported --------------------

#: What is appended to a copy of each real file, and the fragment its report must contain.
PLANTED: dict[str, list[tuple[str, str]]] = {
    "core/authorization.py": [
        ("from ..course import table", "core imports course (tutorial_lib.course)"),
        ('importlib.import_module("IPython")', "core imports the UI library IPython"),
        ("from .road import _bug", "private names ['_bug'] from tutorial_lib.core.road"),
        ('__import__("matplotlib")', "core imports the UI library matplotlib"),
        ("from tutorial_lib import course", "core imports course (tutorial_lib)"),
        ("from importlib import import_module as load", ""),
        ("load(table.__name__)", "dynamic import (importlib.import_module)"),
        ('load("..workspace.read", __package__)', "core imports workspace"),
        ("import tutorial_lib", "core imports root (tutorial_lib)"),
    ],
    "emulator/service.py": [
        ("from ..agent import loop", "emulator imports agent (tutorial_lib.agent)"),
        ("from ..core.road import call_tool", "emulator imports core (tutorial_lib.core.road)"),
    ],
    "__init__.py": [
        ("from .core import road", "root imports core (tutorial_lib.core)"),
        ('def __getattr__(name): return __import__("IPython")', "root lazily imports the UI"),
    ],
}


def plant(tmp_path: Path) -> tuple[Path, dict[str, list[tuple[int, str]]]]:
    """A copy of the planted files under tmp_path/tutorial_lib; (root, expected problems)."""
    root = tmp_path / PACKAGE.name
    expected: dict[str, list[tuple[int, str]]] = {}
    for path, lines in PLANTED.items():
        text = (PACKAGE / path).read_text(encoding="utf-8")
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        first = text.count("\n") + 2  # one blank line, then the planted ones
        (root / path).write_text(text + "\n" + "".join(f"{line}\n" for line, _ in lines))
        expected[path] = [(first + i, fragment) for i, (_, fragment) in enumerate(lines)]
    return root, expected


def test_the_copies_are_clean_before_planting(tmp_path: Path) -> None:
    root = tmp_path / PACKAGE.name
    for path in PLANTED:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PACKAGE / path, root / path)
    assert tree_problems(root) == {}


def test_every_planted_violation_is_reported_with_its_line(tmp_path: Path) -> None:
    root, expected = plant(tmp_path)
    reported = tree_problems(root)
    for path, wanted in expected.items():
        for line, fragment in wanted:
            if fragment:
                hits = [p for p in reported.get(path, []) if p.startswith(f"line {line}: ")]
                assert any(fragment in p for p in hits), (path, line, fragment, hits)
        planted_lines = {f"line {line}: " for line, _ in wanted}
        extra = [p for p in reported.get(path, []) if not p.startswith(tuple(planted_lines))]
        assert not extra, f"{path}: reported beyond the planted lines: {extra}"
    assert set(reported) == set(expected)


def test_a_core_module_that_loads_a_heavy_library_or_another_layer_is_caught(
    tmp_path: Path,
) -> None:
    root = tmp_path / PACKAGE.name
    for folder in ("core", "course"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "course" / "table.py").write_text("")
    (root / "core" / "leak.py").write_text(
        "def later():\n    import numpy  # on first use: not loaded by the import\n"
        "import regex\nimport tutorial_lib.course.table\n"
    )
    report = import_core(root)
    assert loaded_by_core(root, report) == [
        "regex",
        "tutorial_lib.course",
        "tutorial_lib.course.table",
    ]


def _public_exceptions() -> list[tuple[str, str, list[str]]]:
    """(module, class, base names) of every public exception class the library defines,
    read from the source (no import: the emulator and the UI stay unloaded)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE.parent).with_suffix("").as_posix().replace("/", ".")
        module = module.removesuffix(".__init__")
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.ClassDef) or node.name.startswith("_"):
                continue
            bases = [ast.unparse(base) for base in node.bases]
            if any(re.search(r"(Error|Exception|Mismatch|Missing|Unavailable|Stop)$", b)
                   for b in bases) or re.search(r"(Error|Exception)$", node.name):  # fmt: skip
                found.append((module, node.name, bases))
    return found


def test_every_public_exception_but_the_emulators_has_the_one_root() -> None:
    """One root for what the library raises on purpose (issue 37): every public exception
    class outside the emulator (which stands for the outside world) derives from
    TutorialLibError, directly or through another of the library's exceptions."""
    import tutorial_lib.core.contracts as contracts

    found = _public_exceptions()
    assert len(found) >= 10  # the scan sees them
    outside = []
    for module, name, _bases in found:
        if module.startswith("tutorial_lib.emulator"):
            continue
        cls = getattr(__import__(module, fromlist=[name]), name)
        if not issubclass(cls, contracts.TutorialLibError):
            outside.append(f"{module}.{name}")
    assert outside == []
