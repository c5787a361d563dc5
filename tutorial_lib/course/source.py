"""Show library source inside a notebook, so lessons never keep a second copy of it."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

__all__ = ["SourceView", "show_source"]


@dataclass(frozen=True)
class SourceView:
    """Source code of a library object: highlighted in JupyterLab, plain text elsewhere."""

    qualified_name: str
    code: str

    def __repr__(self) -> str:
        return f"# {self.qualified_name}\n{self.code}"

    def _repr_markdown_(self) -> str:
        return f"`{self.qualified_name}`\n\n```python\n{self.code}\n```"


def show_source(obj: Any) -> SourceView:
    """Return the source of a ``tutorial_lib`` function, class or module for display.

    Display it as the last expression of a cell: ``show_source(check)``.
    """
    module = inspect.getmodule(obj)
    if module is None or not module.__name__.startswith("tutorial_lib"):
        raise ValueError("show_source shows tutorial_lib code only")
    name = getattr(obj, "__qualname__", getattr(obj, "__name__", module.__name__))
    qualified = name if name == module.__name__ else f"{module.__name__}.{name}"
    return SourceView(qualified, inspect.getsource(obj).rstrip("\n"))
