"""A progress bar for a notebook's long loops (a widget in Jupyter, silence elsewhere).

    from tutorial_lib.course.progress import progress
    results = [run(case) for case in progress(cases, "注入测试")]

In a running kernel it displays an ``ipywidgets.IntProgress`` with a label ``3/396``,
updated as the loop advances; outside a kernel (a script, a test) it yields the items
unchanged and displays nothing. The cell that shows it should carry the tag
``nbval-ignore-output`` (a widget's repr is compared by nbval).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

from tutorial_lib.language import Text

__all__ = ["progress"]

T = TypeVar("T")


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of the course
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def progress(items: Sequence[T], description: str | Text = "") -> Iterator[T]:
    """Yield ``items`` in order, showing how many are done (in a notebook only)."""
    if not _in_kernel():
        yield from items
        return
    description = str(description)
    import ipywidgets as widgets
    from IPython.display import display

    total = len(items)
    bar = widgets.IntProgress(value=0, min=0, max=max(total, 1), description=description)
    label = widgets.Label(f"0/{total}")
    bar.add_class("tl-progress")
    box = widgets.HBox([bar, label])
    # The widget's own text/plain repr is a long constructor call: say what it is instead.
    bundle = dict(box._repr_mimebundle_())
    bundle["text/plain"] = f"{description or 'progress'}: {total} items"
    display(bundle, raw=True)
    for done, item in enumerate(items, 1):
        yield item
        bar.value = done
        label.value = f"{done}/{total}"
    bar.bar_style = "success"
