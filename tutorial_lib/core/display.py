"""Untrusted text made safe to show a person: what would hide or reorder is made visible.

Text that others wrote (a file name, a comment, a PR title) can carry characters a person
does not see but a terminal, a browser or a model acts on. Four classes (chapter 06):

- ``control``: C0 and C1 control characters (an ESC starts a terminal escape that can
  rewrite what was printed before; a carriage return goes back over the line), DEL, and
  the Unicode line and paragraph separators;
- ``direction``: bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F,
  U+061C): ``"report\u202etxt.exe"`` displays as ``reportexe.txt``, so a listing reads in
  another order than it is;
- ``invisible``: zero-width and other format characters (U+200B-U+200D, U+2060-U+2064,
  U+FEFF, U+00AD...) and blank fillers (U+3164...): two names that look the same differ;
- ``tag``: Unicode tag characters (U+E0000-U+E007F), ASCII written invisibly, which a
  model reads.

:func:`visible` replaces each such character by its code point in brackets
(``[U+202E]``): nothing is dropped, so what was there is still there to see; the text
cannot reorder or hide anything. :func:`hidden_class` names a character's class and
:func:`hidden_characters` lists what a text holds. The reports, tables, confirmation
widgets and the MCP server's text content show untrusted text through them (the MCP
server writes ``\\u202e`` JSON escapes instead: the same data for a parser).

One cost, accepted: an emoji sequence joined by U+200D (a family, a flag) shows its
joiners. A person reviewing untrusted text is better served by seeing every character.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

__all__ = [
    "HIDDEN_CLASSES",
    "HiddenClass",
    "escape_json_hidden",
    "hidden_characters",
    "hidden_class",
    "visible",
]

HiddenClass = Literal["control", "direction", "invisible", "tag"]
#: The four classes, in the order the module describes them.
HIDDEN_CLASSES: tuple[HiddenClass, ...] = ("control", "direction", "invisible", "tag")

_DIRECTION = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Letters (category Lo) that render as nothing: Hangul fillers, the Braille blank.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def hidden_class(char: str) -> HiddenClass | None:
    """The class of one character that hides or reorders text (see the module), or None
    for a character that shows as itself."""
    code = ord(char)
    if 0xE0000 <= code <= 0xE007F:
        return "tag"
    if char in _DIRECTION:
        return "direction"
    category = unicodedata.category(char)
    if category == "Cc" or char in "\u2028\u2029":
        return "control"
    if category == "Cf" or char in _BLANK_LETTERS:
        return "invisible"
    return None


def hidden_characters(text: str, keep: str = "") -> list[tuple[int, str, HiddenClass]]:
    """Every hidden character of ``text`` (not counting those in ``keep``): its index, its
    code point as ``U+XXXX`` and its class."""
    found: list[tuple[int, str, HiddenClass]] = []
    for index, char in enumerate(text):
        kind = hidden_class(char)
        if kind is not None and char not in keep:
            found.append((index, f"U+{ord(char):04X}", kind))
    return found


def visible(text: str, keep: str = "\n") -> str:
    """``text`` with every hidden character (see the module) shown as ``[U+XXXX]``.

    ``keep`` lists characters left as they are: by default the newline, for text shown
    over several lines; ``keep=""`` for a one-line field (a name, a table cell), where a
    newline would also break the layout.
    """
    if text.isascii() and text.isprintable():
        return text  # the common case, at no cost
    return "".join(
        f"[U+{ord(char):04X}]" if char not in keep and hidden_class(char) else char for char in text
    )


def escape_json_hidden(json_text: str) -> str:
    """JSON text (as ``json.dumps(..., ensure_ascii=False)`` writes it) with every hidden
    character written as a ``\\uXXXX`` escape: a JSON parser reads the same data, a person
    or a terminal shown the text sees the escape, not its effect. Inside JSON strings
    every control character is already escaped; these are the others."""
    if json_text.isascii() and "\x7f" not in json_text:
        return json_text  # json.dumps escapes every other ASCII control character
    out: list[str] = []
    for char in json_text:
        if hidden_class(char) is None:
            out.append(char)
        elif ord(char) > 0xFFFF:  # a surrogate pair, as JSON writes characters beyond BMP
            high, low = divmod(ord(char) - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
        else:
            out.append(f"\\u{ord(char):04x}")
    return "".join(out)
