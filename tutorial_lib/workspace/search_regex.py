"""search_files' regex engine: ``re`` judges the pattern, the ``regex`` module runs it.

``re`` decides what is valid (its messages and positions are the error's); ``re``'s parser
(``sre_parse``) gives the tree, and the tree, written back in the syntax of the
`regex <https://pypi.org/project/regex/>`_ module with every construct spelt out
(:func:`regex_pattern`), is what runs (:func:`compile_regex` does both). Why not ``re``
itself: a backtracking pattern (``(a+)+b`` on a line of a's) runs for minutes, holding the
GIL, and the only interruption, SIGALRM, exists in the main thread alone; in an MCP server,
a web app or a thread pool it froze every thread of the process. Measured (Python 3.11,
regex 2026.11.19, google-re2 1.1; ``benchmarks/regex_engines.py``: 10 M characters of
site-packages' ``.py`` files, each engine run the way search_files runs it):

- ``regex`` (VERSION0, re-compatible; ``timeout=`` checked inside the match, in any
  thread; ``concurrent=True`` releases the GIL): from 0.08x to 2.2x re's time over ten
  patterns (``def \\w+\\(`` 1.5x, ``(\\w)\\1{3}`` 2.2x; faster where re had to go line by
  line, now that every pattern runs over chunks), full ``re`` syntax. ``(a+)+b`` on
  1000 a's in a worker thread returns at its 0.5 s timeout while the main thread never
  pauses more than its 5 ms tick; ``re`` takes 0.64 s on only 22 a's (x2 per a: 22
  minutes on 33), the main thread frozen all along. On the tool itself (search_files, all
  of a 781 MB site-packages, every match counted): 0.5x to 1.5x of the time with ``re``
  over nine patterns (two interleaved runs on a shared machine), identical results;
- ``google-re2`` (linear time, so nothing to bound): 0.8x to 9.7x re's time (``def
  \\w+\\(`` 4.6x), and it refuses backreferences and lookarounds (``(\\w)\\1``,
  ``foo(?=bar)``, ``(?<!x)y``): the documented "a Python re pattern" would stop being true.

So ``regex``, pinned to re's meaning. The translation makes three differences vanish: text
that re reads literally and regex would not (``a{e<=1}`` is fuzzy matching there,
``[[:alpha:]]`` a POSIX class); re's ``\\s`` (``str.isspace``: it includes \\x1c-\\x1f)
is written out; under IGNORECASE re makes ``i``, ``I``, ``İ`` and ``ı`` one letter, so
the translation does too. One remains: ``\\w``, ``\\d`` and ``\\b`` use the regex
module's Unicode tables, identical on ASCII and on letters, different on combining marks
(word characters there, not in re), on numerals like ``²`` or ``½`` (word characters in re
only) and on characters newer than Python's Unicode database. Nothing in the translation
matches ``\\n`` and its anchors are the line's (``\\A`` and ``^`` are ``(?m:^)``...): a
line alone holds no ``\\n`` and its edges are the string's, so it sees no change, and
any pattern (``\\s``, ``[^a]``, ``\\A``...) can run over chunks of lines
(:func:`is_line_local`).

How the time budget bounds a match (the engine's timeout, which counts CPU time of the
process, turned into a wall-clock bound) is the scanner's business:
:mod:`tutorial_lib.workspace.search_match`.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
import warnings
from typing import Any

import regex  # type: ignore[import-untyped]  # no type information published

from tutorial_lib.core.contracts import ContractError

try:  # the parser of the re module: Python 3.11+, then 3.10
    from re import _constants as _sre_constants  # type: ignore[attr-defined]
    from re import _parser as _sre_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sre_constants
    import sre_parse as _sre_parser

__all__ = ["compile_regex", "is_line_local", "parse", "regex_pattern"]


def parse(pattern: str, flags: int) -> Any:
    """``pattern`` parsed by re's own parser (``sre_parse``): the tree :func:`regex_pattern`
    writes back."""
    return _sre_parser.parse(pattern, flags)


def compile_regex(query: str, case_sensitive: bool) -> tuple[Any, bool]:
    """The ``regex.Pattern`` that runs ``query`` (a Python ``re`` pattern, matched per
    line), and whether it is line-local (:func:`is_line_local`: it may run over whole
    chunks of lines). An invalid pattern is ``invalid_value``, with re's message and
    position."""
    flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
    try:
        # The warning filters are process-wide and catch_warnings is not thread-safe:
        # one lock keeps two searches from leaving each other's filters behind.
        with _WARNING_FILTERS, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # FutureWarning: "possible nested set"
            # Python 3.10 only warns about a global flag after the start ('a(?i)b');
            # 3.11 refuses it: refused on both. (Atomic groups and possessive
            # quantifiers are syntax 3.10's re does not have: there they stay refused.)
            warnings.simplefilter("error", DeprecationWarning)
            re.compile(query, flags)  # re's verdict and messages decide what is valid
            tree = parse(query, flags)  # parses again: inside the guard
            line_local = is_line_local(query, flags)
        compiled = regex.compile(regex_pattern(tree), regex.VERSION0)
    except (
        re.error,
        regex.error,
        RecursionError,
        OverflowError,
        ValueError,
        DeprecationWarning,
    ) as exc:
        # re.error knows where; the others do not (regex.error's position would be in the
        # translation, not in the query)
        position = getattr(exc, "pos", None) if isinstance(exc, re.error) else None
        where = f" at position {position}" if position is not None else ""
        detail = getattr(exc, "msg", None) or (
            str(exc) if isinstance(exc, DeprecationWarning) else type(exc).__name__
        )
        raise ContractError(
            "invalid_value",
            f"'query' is not a valid Python regular expression: {detail}{where}",
            field="query",
            received=query,
            expected="a Python re pattern",
            suggestion=(
                "escape special characters with a backslash (e.g. '\\(' for '('), or use"
                " mode 'literal' to search for the text as written"
            ),
        ) from None
    return compiled, line_local


_C = _sre_constants
_NEWLINE_CATEGORIES = {
    _C.CATEGORY_SPACE,
    _C.CATEGORY_NOT_DIGIT,
    _C.CATEGORY_NOT_WORD,
    _C.CATEGORY_LINEBREAK,
}
_ATOMIC_GROUP = getattr(_C, "ATOMIC_GROUP", None)
#: Held while the process-wide warning filters are changed (see compile_regex).
_WARNING_FILTERS = threading.Lock()
_POSSESSIVE_REPEAT = getattr(_C, "POSSESSIVE_REPEAT", None)


def is_line_local(pattern: str, flags: int) -> bool:
    """Whether ``pattern`` sees only the line it matches in, so it can run on many lines.

    The pattern actually run (:func:`regex_pattern`) matches ``\\n`` nowhere and anchors
    at the line's edges (``\\A`` and ``^`` as ``(?m:^)``...): on a line alone that changes
    nothing (a line holds no ``\\n``). So a match inside a chunk of lines lies in one line,
    and every anchor, ``\\b`` and lookaround at a line's edge sees the newline (which
    nothing matches) as it would see the end of the line alone. Every construct re knows
    qualifies; anything unknown is False (and is refused by the translation anyway).
    """
    try:
        return _local(list(_sre_parser.parse(pattern, flags)))
    except (RecursionError, re.error, AttributeError, TypeError, ValueError):
        return False


def _local(items: list[tuple[Any, Any]]) -> bool:
    for op, av in items:
        if op in (_C.LITERAL, _C.NOT_LITERAL, _C.ANY, _C.IN, _C.GROUPREF, _C.AT):
            ok = True  # none matches \n, or looks past the line's edge, once translated
        elif op is _C.SUBPATTERN:
            ok = _local(list(av[3]))
        elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _POSSESSIVE_REPEAT):
            ok = _local(list(av[2]))
        elif op is _C.BRANCH:
            ok = all(_local(list(alt)) for alt in av[1])
        elif op is _ATOMIC_GROUP:
            ok = _local(list(av))
        elif op in (_C.ASSERT, _C.ASSERT_NOT):
            ok = _local(list(av[1]))
        elif op is _C.GROUPREF_EXISTS:
            _group, yes, no = av
            ok = _local(list(yes)) and (no is None or _local(list(no)))
        else:
            ok = False
        if not ok:
            return False
    return True


# --------------------------------------------------------------------------- translation
#
# The pattern that runs is the tree re parsed, written back in the regex module's syntax
# with every construct spelt unambiguously: the regex module gives meaning to text re
# reads literally ('a{e<=1}' is fuzzy matching there, '[[:alpha:]]' a POSIX class),
# and re's \s also matches \x1c-\x1f, which regex's does not. Nothing in the translation
# matches \n (see is_line_local).

_ANY_BUT_NEWLINE = "[^\\n]"
_NEVER = "(?!)"
# On one line, the string's edges are the line's: \A and ^ (with or without MULTILINE)
# are its start, \Z and $ its end, which (?m:^) and (?m:$) also are inside a chunk.
_AT_CODES = {
    _C.AT_BEGINNING: "(?m:^)",
    _C.AT_BEGINNING_STRING: "(?m:^)",
    _C.AT_END: "(?m:$)",
    _C.AT_END_STRING: "(?m:$)",
    _C.AT_BOUNDARY: "\\b",
    # re's \B fails on an empty string (an empty line), regex's matches there
    _C.AT_NON_BOUNDARY: "(?:(?<=[^\\n])|(?=[^\\n]))\\B",
}
_FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.ASCII, "a"), (re.UNICODE, "u"))
_I_FAMILY = frozenset((0x49, 0x69, 0x130, 0x131))  # I, i, İ, ı
_DOTTED_I = "Ii\\u0130\\u0131"


def regex_pattern(tree: Any) -> str:
    """The parsed pattern ``tree`` (sre_parse's) as regex-module syntax, ``\\n`` excluded.

    DOTALL and VERBOSE are not carried over: ``.`` is always written ``[^\\n]`` and the
    parser has already dropped verbose whitespace and comments.
    """
    flags = tree.state.flags
    letters = "".join(letter for flag, letter in _FLAG_LETTERS if flags & flag)
    return (f"(?{letters})" if letters else "") + _emit(list(tree), flags)


def _emit(items: list[tuple[Any, Any]], flags: int) -> str:
    """``items`` as regex syntax; ``flags``: the re flags in force where they stand."""
    return "".join(_emit_one(op, av, flags) for op, av in items)


def _emit_one(op: Any, av: Any, flags: int) -> str:
    if op is _C.LITERAL:
        if av == 10:
            return _NEVER
        return f"[{_DOTTED_I}]" if av in _I_FAMILY and _i_family(flags) else _char(av)
    if op is _C.NOT_LITERAL:
        if av == 10:
            return _ANY_BUT_NEWLINE
        return f"[^{_DOTTED_I if av in _I_FAMILY and _i_family(flags) else _char(av)}\\n]"
    if op is _C.ANY:
        return _ANY_BUT_NEWLINE
    if op is _C.IN:
        return _emit_set(av, flags)
    if op is _C.AT:
        return _AT_CODES[av]
    if op is _C.SUBPATTERN:
        group, add, remove, sub = av
        inner_flags = (flags | add) & ~remove & ~(re.ASCII if add & re.UNICODE else 0)
        inner = _emit(list(sub), inner_flags)
        on = "".join(letter for flag, letter in _FLAG_LETTERS if add & flag)
        off = "".join(letter for flag, letter in _FLAG_LETTERS if remove & flag)
        scoped = f"(?{on}-{off}:{inner})" if off else f"(?{on}:{inner})"
        if group is None:
            return scoped
        return f"({scoped})" if on or off else f"({inner})"
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _POSSESSIVE_REPEAT):
        low, high, sub = av
        bounds = f"{{{low},}}" if high == _C.MAXREPEAT else f"{{{low},{high}}}"
        lazy = {_C.MAX_REPEAT: "", _C.MIN_REPEAT: "?"}.get(op, "+")
        return f"(?:{_emit(list(sub), flags)}){bounds}{lazy}"
    if op is _C.BRANCH:
        return "(?:" + "|".join(_emit(list(alt), flags) for alt in av[1]) + ")"
    if op is _ATOMIC_GROUP:
        return f"(?>{_emit(list(av), flags)})"
    if op in (_C.ASSERT, _C.ASSERT_NOT):
        direction, sub = av
        kind = ("" if direction == 1 else "<") + ("=" if op is _C.ASSERT else "!")
        return f"(?{kind}{_emit(list(sub), flags)})"
    if op is _C.GROUPREF:
        return f"(?:\\g<{av}>)"
    if op is _C.GROUPREF_EXISTS:
        group, yes, no = av
        otherwise = "" if no is None else "|" + _emit(list(no), flags)
        return f"(?({group}){_emit(list(yes), flags)}{otherwise})"
    raise ValueError(f"unsupported construct {op}")  # a newer re: refused, never guessed


def _i_family(flags: int) -> bool:
    """Whether i, I, İ and ı are one letter here: re's Unicode IGNORECASE says so (its
    case table adds i <-> ı), the regex module's simple case folding pairs them apart."""
    return bool(flags & re.IGNORECASE) and not flags & re.ASCII


def _emit_set(items: list[tuple[Any, Any]], flags: int) -> str:
    """A character set of re's tree, never matching ``\\n``.

    re's ``\\s`` is written out (:func:`_spaces`), so its complement ``\\S`` has no spelling
    inside a larger regex set: such a set becomes an alternative (or, negated, a lookahead
    in front of the spaces). ``\\S``, ``\\D``, ``\\W`` alone, the usual case, stay one set.
    """
    spaces = _spaces(bool(flags & re.ASCII))
    if len(items) == 1 and items[0][0] is _C.CATEGORY and items[0][1] in _COMPLEMENTS:
        positive = _COMPLEMENTS[items[0][1]]
        return f"[^{spaces if positive is None else positive}\\n]"
    negate, not_space, guard, parts = False, False, False, []
    for op, av in items:
        if op is _C.NEGATE:
            negate = True
        elif op is _C.LITERAL:
            parts.append(_char(av) if av != 10 else "")
            if av in _I_FAMILY and _i_family(flags):
                parts.append(_DOTTED_I)
        elif op is _C.RANGE:
            low, high = av
            pieces = [(low, min(high, 9)), (max(low, 11), high)]
            parts.extend(f"{_char(a)}-{_char(b)}" for a, b in pieces if a <= b)
            if _i_family(flags) and any(low <= code <= high for code in _I_FAMILY):
                parts.append(_DOTTED_I)
        elif op is _C.CATEGORY and av is _C.CATEGORY_NOT_SPACE:
            not_space = True
        elif op is _C.CATEGORY and av is _C.CATEGORY_SPACE:
            parts.append(spaces)
        elif op is _C.CATEGORY and av in _CATEGORY_CODES:
            parts.append(_CATEGORY_CODES[av])
            guard = guard or av in _NEWLINE_CATEGORIES  # \D and \W match \n
        else:
            raise ValueError(f"unsupported set item {op}")
    plain = "".join(parts)
    if negate:
        return f"(?:(?![{plain}\\n])[{spaces}])" if not_space else f"[^{plain}\\n]"
    choices = ([f"[{plain}]"] if plain else []) + ([f"[^{spaces}\\n]"] if not_space else [])
    if not choices:  # the set held only \n
        return _NEVER
    either = choices[0] if len(choices) == 1 else "(?:" + "|".join(choices) + ")"
    return f"(?:(?!\\n){either})" if guard else either


_CATEGORY_CODES = {
    _C.CATEGORY_DIGIT: "\\d",
    _C.CATEGORY_NOT_DIGIT: "\\D",
    _C.CATEGORY_WORD: "\\w",
    _C.CATEGORY_NOT_WORD: "\\W",
}
#: \S, \D, \W: the complement of (None: re's spaces, see _spaces)
_COMPLEMENTS = {
    _C.CATEGORY_NOT_SPACE: None,
    _C.CATEGORY_NOT_DIGIT: "\\d",
    _C.CATEGORY_NOT_WORD: "\\w",
}


@functools.cache
def _spaces(ascii_only: bool) -> str:
    """re's ``\\s`` but ``\\n``, as the inside of a set: str.isspace, as sre tests it (with
    \\x1c-\\x1f, which the regex module's ``\\s`` lacks); under ASCII, `` \\t\\v\\f\\r``."""
    limit = 128 if ascii_only else sys.maxunicode + 1
    codes = [code for code in range(limit) if chr(code).isspace() and code != 10]
    if ascii_only:
        codes = [code for code in codes if code not in range(0x1C, 0x20)]
    return "".join(_char(code) for code in codes)


def _char(code: int) -> str:
    """One code point as regex syntax: itself if an ASCII letter or digit, else escaped."""
    if code < 128 and chr(code).isalnum():
        return chr(code)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
