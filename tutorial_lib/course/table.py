"""Plain-text tables that line up in a notebook even when cells hold Chinese.

A Chinese character takes two columns of a monospaced font, an ASCII character one:
``str.ljust`` counts characters, so a column holding ``"情形"`` ends two columns early.
:func:`display_width` counts columns the way a terminal does (East Asian Wide and
Fullwidth characters: 2; combining marks: 0), and :func:`text_table` pads by it.

    >>> print(text_table([["情形", "code"], ["超时", "outcome_unknown"]]))
    情形  code
    超时  outcome_unknown
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from tutorial_lib.core.display import visible
from tutorial_lib.language import Text

__all__ = ["display_width", "pad", "text_table", "wrap"]


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font (wide and fullwidth characters: 2)."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def pad(text: str, width: int, align: str = "<") -> str:
    """``text`` padded with spaces to ``width`` columns (``align``: ``"<"`` or ``">"``)."""
    if align not in ("<", ">"):
        raise ValueError(f"align must be '<' or '>', not {align!r}")
    fill = " " * max(0, width - display_width(text))
    return text + fill if align == "<" else fill + text


def text_table(
    rows: Sequence[Sequence[object]], *, align: str = "", gap: int = 2, rule: bool = False
) -> str:
    """The ``rows`` (the first one being the header) as aligned columns of text.

    ``align`` gives one ``"<"`` (left) or ``">"`` (right) per column, left by default;
    ``rule`` draws a line of ``-`` under the header. Trailing spaces are dropped. A
    character that would hide or reorder a cell (a control, bidi or zero-width character,
    a newline too) is shown as ``[U+XXXX]`` (:func:`~tutorial_lib.core.display.visible`).
    """
    if not rows:
        return ""
    # a cell may hold text others wrote (a file name): nothing in it may hide or reorder
    cells = [[visible(str(cell), keep="") for cell in row] for row in rows]
    columns = max(len(row) for row in cells)
    if align and len(align) != columns:
        raise ValueError(f"align has {len(align)} characters for {columns} columns")
    alignment = align or "<" * columns
    widths = [max(display_width(row[c]) for row in cells if c < len(row)) for c in range(columns)]
    lines = [
        (" " * gap).join(pad(cell, widths[c], alignment[c]) for c, cell in enumerate(row)).rstrip()
        for row in cells
    ]
    if rule:
        lines.insert(1, "-" * (sum(widths) + gap * (columns - 1)))
    return "\n".join(lines)


def wrap(text: str | Text, width: int = 96, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` display columns, later lines after ``indent``.

    Chinese text may break between any two characters; a run of other characters (an
    English word, an identifier, a number) is kept whole unless it alone is too wide.
    A :class:`~tutorial_lib.language.Text` is wrapped in the current language.
    """
    tokens = [t for t in _tokens(str(text)) if t]
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and display_width(line + token.rstrip()) > width:
            lines.append(line.rstrip())
            line = indent + token.lstrip()
        else:
            line += token
    lines.append(line.rstrip())
    return lines


def _tokens(text: str) -> list[str]:
    """Wide characters one by one; other runs split after their spaces."""
    out: list[str] = []
    run = ""
    for char in text:
        if unicodedata.east_asian_width(char) in ("W", "F"):
            out += [run, char]
            run = ""
        else:
            run += char
            if char == " ":
                out.append(run)
                run = ""
    out.append(run)
    return out
