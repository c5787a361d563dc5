"""The course's one language switch: Chinese by default, English for the English edition.

Everything a learner reads from the library (quiz text, a check's report and hints, widget
labels, confirmation questions) is written in both languages. Which one is shown is decided
when the text is shown, by one environment variable, :data:`LANGUAGE_VARIABLE`:

    >>> from tutorial_lib.language import Text, use_language
    >>> hint = Text(zh="行号从 1 开始。", en="Line numbers start at 1.")
    >>> use_language("en"); str(hint)
    'Line numbers start at 1.'
    >>> use_language("zh"); str(hint)
    '行号从 1 开始。'

Why an environment variable and not a module setting: the judging process that grades a
hidden test (``tutorial_lib.course.grading``) is a fresh interpreter started from the
learner's kernel; it inherits the variable, so its verdicts speak the learner's language.
A notebook that calls :func:`use_language` at its top gives the same output on every re-run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "LANGUAGES",
    "LANGUAGE_VARIABLE",
    "Language",
    "Text",
    "checked_language",
    "current_language",
    "source_text",
    "tr",
    "use_language",
]

Language = Literal["zh", "en"]

#: The languages the course is written in; the first is the default.
LANGUAGES: tuple[Language, ...] = ("zh", "en")

#: The environment variable holding the language (``zh`` or ``en``); unset means ``zh``.
LANGUAGE_VARIABLE = "TUTORIAL_LIB_LANGUAGE"


def checked_language(language: str) -> Language:
    """``language`` if the course is written in it; otherwise a ``ValueError`` naming both."""
    if language not in LANGUAGES:
        raise ValueError(
            f"unknown language {language!r}: language must be one of {', '.join(LANGUAGES)}"
            f" (set {LANGUAGE_VARIABLE} to one of them, or leave it unset for zh)"
        )
    return "en" if language == "en" else "zh"


def use_language(language: Language) -> None:
    """Show the course's text in ``language`` (``"zh"`` or ``"en"``) from now on.

    Sets :data:`LANGUAGE_VARIABLE` for this process and the processes it starts.
    """
    os.environ[LANGUAGE_VARIABLE] = checked_language(language)


def current_language() -> Language:
    """The language text is shown in now: :data:`LANGUAGE_VARIABLE`, or ``"zh"`` when unset."""
    return checked_language(os.environ.get(LANGUAGE_VARIABLE, "") or LANGUAGES[0])


def tr(zh: str, en: str) -> str:
    """Pick ``zh`` or ``en`` by :func:`current_language`, now (for text built at call time)."""
    return en if current_language() == "en" else zh


@dataclass(frozen=True)
class Text:
    """A piece of text in both languages, shown in the current language when it is shown.

    Use it for text defined ahead of time (a case's hint, a widget label); ``str(text)``,
    an f-string or :meth:`format` picks the language at that moment.
    """

    zh: str
    en: str

    def in_language(self, language: Language) -> str:
        """The text in ``language``, whatever the current language is."""
        return self.en if language == "en" else self.zh

    def __str__(self) -> str:
        return self.in_language(current_language())

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def format(self, *args: Any, **kwargs: Any) -> str:
        """``str.format`` on the text in the current language."""
        return str(self).format(*args, **kwargs)

    def __add__(self, other: object) -> str:
        return str(self) + str(other)

    def __radd__(self, other: object) -> str:
        return str(other) + str(self)


def source_text(text: str | Text) -> str:
    """The Chinese source of ``text`` (a plain string is its own source).

    A bilingual *name* (a case's, a rule's) is identified by its source text, whatever
    language it is shown in: rule tables point at a case by it, and grading records store
    it, so a class graded in English matches the same cases as one graded in Chinese.
    """
    return text.zh if isinstance(text, Text) else text
