"""What a teacher should look at in a submission: an answer that leans on the library.

Grading compares each learner's function with the library's reference on generated
inputs (:mod:`tutorial_lib.course.grading`). An answer that calls that reference, or any
other code of ``tutorial_lib``, passes without being the learner's work, and no test can
tell it from a correct answer. So the learner's own cells (nbgrader's solution cells) are
read, never run, for the ways into the library's code:

- an ``import`` or ``from ... import`` of ``tutorial_lib`` (none of the exercises needs
  one: everything an answer may use is imported by the locked cells);
- the import machinery: ``__import__``, ``importlib``, ``sys.modules``;
- attributes that reach another function's module or code: ``__globals__``,
  ``__module__``, ``__code__``, ``__closure__``, ``__dict__``, ``__builtins__``,
  ``__subclasses__``, ``__self__``, ``__wrapped__``, ``func_globals``;
- reading source: ``inspect``, ``getsource``;
- a string that names ``tutorial_lib`` or a ``reference_`` function (for ``getattr``,
  ``eval`` or ``exec``).

:func:`library_use` returns the evidence, one line per finding (``line N: ...``). It is a
flag for the teacher to read, not a verdict: a determined learner can hide the way in
(an encoded string, a file the sandbox lets them read), and a flagged answer may be
innocent (a learner who imported ``inspect`` to look around). The grades CSV shows it
next to the score (``tools/instructor.py grades``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

__all__ = ["LIBRARY", "library_use"]

#: The package whose code an answer should not call.
LIBRARY = "tutorial_lib"

_IMPORT_MACHINERY = frozenset({"__import__", "importlib", "inspect", "getsource"})
_MODULES = frozenset({"importlib", "inspect"})
_REACHING_ATTRIBUTES = frozenset(
    {
        "__globals__",
        "__module__",
        "__code__",
        "__closure__",
        "__dict__",
        "__builtins__",
        "__subclasses__",
        "__self__",
        "__wrapped__",
        "func_globals",
        "modules",  # sys.modules
        "getsource",
    }
)


def library_use(source: str) -> list[str]:
    """The ways into the library's code that the learner's ``source`` contains, as
    evidence lines (``"line 3: import tutorial_lib.course.chapters.ch00_tool_contracts.cases"``);
    ``[]`` when
    there is none or the source does not parse (it then fails its tests anyway)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    lines = source.splitlines()
    found: dict[int, str] = {}
    for node in _findings(tree):
        line = getattr(node, "lineno", 1)
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        found.setdefault(line, f"line {line}: {text}")
    return [found[line] for line in sorted(found)]


def _findings(tree: ast.AST) -> Iterator[ast.AST]:
    return (node for node in ast.walk(tree) if _reaches_library(node))


def _reaches_library(node: ast.AST) -> bool:
    """Whether one syntax node is a way into the library's code (see the module)."""
    if isinstance(node, ast.Import):
        return any(_is_library(a.name) or a.name in _MODULES for a in node.names)
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        return (
            _is_library(module)
            or module in _MODULES
            or any(a.name in _IMPORT_MACHINERY for a in node.names)
        )
    if isinstance(node, ast.Name):
        return node.id in _IMPORT_MACHINERY
    if isinstance(node, ast.Attribute):
        return node.attr in _REACHING_ATTRIBUTES
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return LIBRARY in node.value or "reference_" in node.value
    return False


def _is_library(module: str) -> bool:
    return module == LIBRARY or module.startswith(LIBRARY + ".")
