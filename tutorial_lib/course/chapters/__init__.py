"""Each chapter's home: one folder per chapter, ``chNN_topic``, holding what the chapter
teaches with beyond the library it builds:

- ``cases.py``: its case tables (visible cases, rule tables, hidden-case generators and
  the references they compare with), shared by the solution notebook, the exercise and
  the tests;
- ``demos.py`` (where the lesson shows something the library does not: a widget, a
  table, a demo world);
- ``quiz.json``: its self-check quiz (:func:`tutorial_lib.course.quiz.load_quiz`).

A new chapter is a new folder here with those files, its lesson and solution notebooks,
its translations, and its rule-table entry in ``tests/rules_NN.py``.
"""

from __future__ import annotations

import sys
from importlib import resources

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:  # Python 3.10
    from importlib.abc import Traversable

__all__ = ["homes", "quiz_file"]


def homes() -> dict[str, Traversable]:
    """Every chapter's home folder by its two-digit number (``"06"``), in order."""
    root = resources.files(__name__)
    found = {
        entry.name[2:4]: entry
        for entry in root.iterdir()
        if entry.is_dir() and entry.name.startswith("ch") and entry.name[2:4].isdigit()
    }
    return dict(sorted(found.items()))


def quiz_file(chapter: str) -> Traversable:
    """The quiz of ``chapter`` (two digits), in its home: ``chNN_topic/quiz.json``."""
    home = homes().get(chapter)
    if home is None:
        raise ValueError(f"no chapter {chapter!r}; chapters: {', '.join(homes())}")
    return home.joinpath("quiz.json")
