"""The search tool ``search_files``: finds candidate locations, read_lines reads them.

Search gives candidates, read gives text: each result is a ``{path, line, preview}`` with
the exact read_lines call that shows the lines around it (``next_call``). The tool is
declared once (:data:`SEARCH_FILES_SPEC`) and travels the same road as every tool::

    find the tool -> schema check (SEARCH_FILES_SCHEMA) -> business check (_check)
                  -> authorization -> confirmation -> execution (_execute) -> envelope

- schema check: the road validates against :data:`SEARCH_FILES_SCHEMA` (strict types, one
  error in a fixed order), the tool wording its own value errors
  (``SEARCH_FILES_SPEC.arguments.validate`` is the same check, callable alone);
- business check: the query is one line of valid text and, in regex mode, a valid Python
  ``re`` pattern; ``path`` stays inside the workspace and exists (the same kernel-checked
  resolution as read_lines: :mod:`tutorial_lib.workspace.sandbox`), and is a directory or
  a regular file. Execution receives the compiled query and the opened scope;
- execution: a walk beneath the scope and a streaming scan of each file (below).

:func:`search_files` ``(root, args)`` is the direct call the chapters teach: the same tool
on the same road (a registry of one tool and :func:`tutorial_lib.core.road.call_tool`).

**The walk never leaves the root.** ``path`` is opened as read_lines opens a file
(``openat2(RESOLVE_BENEATH)`` or the ``dir_fd`` walk): symlinks inside the workspace are
followed, links leading out are refused (``outside_workspace``). Beneath it, every
directory is listed from a descriptor we hold (``os.scandir(fd)``) and every entry is
opened relative to it with ``O_NOFOLLOW``: symlinks met during the walk are never followed,
to files or to directories, inside or outside (``grep -r`` does the same): they are counted
in ``files_skipped.symlink``. A link swapped in between listing and opening makes the open
fail (``ELOOP``), so no check-then-open race exists. Only regular files are read (FIFOs
and devices are opened non-blocking and refused after ``fstat``). A regular file with more
than one hard link may be a file outside under a second name: the ``fstat`` of its opened
descriptor says so, and it is skipped (``files_skipped.hard_link``) unless
:attr:`SearchLimits.allow_hard_links`. What no check can stop: a directory moved out of
the workspace while it is being searched (the walk finishes it from the descriptor it holds).

**Matching is per line**, as ``grep`` does it: lines end at ``\\n``; a ``\\r`` before it
belongs to the line; a last line without a newline counts. A line with several matches is
one candidate. Files are read in chunks of 1 MiB, never whole:

- literal, case-sensitive: ``bytes.find`` on the raw chunk (the query as UTF-8); lines
  are located only around matches, and newlines are counted only up to them;
- literal, case-insensitive: a bytes pattern where each character of the query also
  matches its one-character upper- and lower-case forms (``str.upper``/``str.lower``);
- regex: a Python ``re`` pattern, matched on text (UTF-8, undecodable bytes kept as lone
  surrogates), so ``.`` is one character and ``\\w`` knows CJK. Every pattern runs over
  whole chunks of lines, each line's first match kept (see the translation below, which
  makes that give what each line alone gives). Lines longer than
  :attr:`SearchLimits.max_regex_line_bytes` are not searched in regex mode
  (``long_lines_skipped``), and a time budget ends the search, in every thread.

**The regex engine.** ``re`` decides what is valid (its messages and positions are the
error's); ``re``'s parser (``sre_parse``) gives the tree, and the tree, written back in
the syntax of the `regex <https://pypi.org/project/regex/>`_ module with every construct
spelt out (:func:`_regex_pattern`), is what runs. Why not ``re`` itself: a backtracking
pattern (``(a+)+b`` on a line of a's) runs for minutes, holding the GIL, and the only
interruption, SIGALRM, exists in the main thread alone; in an MCP server, a web app or a
thread pool it froze every thread of the process. Measured (Python 3.11, regex
2026.11.19, google-re2 1.1; ``benchmarks/regex_engines.py``: 10 M characters of
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
any pattern (``\\s``, ``[^a]``, ``\\A``...) can run over chunks of lines. The budget is the engine's
timeout; the engine counts it in CPU time of the process (C ``clock()``): with other
threads busy it runs out sooner than the wall clock, on a machine too loaded to run the
process it may end later.

A file is binary, and skipped, if its first chunk (1 MiB) holds a NUL byte; a NUL later
ends the search of that file (matches before it are kept). Files larger than read_lines
reads are skipped (``too_large``), so every candidate's ``next_call`` is a valid call.

**Secret-bearing files need their own grant**, as for read_lines behind the authorization
station: an entry whose workspace path is secret
(:func:`tutorial_lib.core.authorization.is_secret_path`: ``.env``, ``*.key``, anything
under ``credentials/``..., plus :attr:`SearchLimits.secret_patterns`) is judged by its name
in the listing and never opened, so none of its bytes is read, matched or previewed; it is
counted in ``files_skipped.secret``. A ``path`` that is itself secret is refused
(``permission_denied``). The check is by name, as the station's: a symlink is never
followed in the walk, but a ``path`` through an inside link (``notes.txt -> .env``) is
judged by the name given.
"""

from __future__ import annotations

import functools
import gc
import os
import re
import stat
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy
import regex  # type: ignore[import-untyped]  # no type information published

from tutorial_lib.core.arguments import (
    ArgumentExample,
    description_with_examples,
    out_of_range_error,
)
from tutorial_lib.core.authorization import is_secret_path
from tutorial_lib.core.contracts import ContractError, Envelope, Source, oserror_details
from tutorial_lib.core.road import call_tool
from tutorial_lib.core.tools import READ_ONLY_LOCAL, Registry, ToolSpec
from tutorial_lib.workspace.read import READ_LINES_SPEC, ReadLimits
from tutorial_lib.workspace.read_schema import MAX_PATH_CHARS
from tutorial_lib.workspace.sandbox import (
    Method,
    check_relative_path,
    describe_file_type,
    hard_link_error,
    is_hard_linked,
    open_relative,
    open_root,
)

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

try:  # the parser of the re module: Python 3.11+, then 3.10
    from re import _constants as _sre_constants  # type: ignore[attr-defined]
    from re import _parser as _sre_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sre_constants
    import sre_parse as _sre_parser

__all__ = [
    "SEARCH_FILES_DATA_SCHEMA",
    "SEARCH_FILES_DESCRIPTION",
    "SEARCH_FILES_EXAMPLES",
    "SEARCH_FILES_SCHEMA",
    "SEARCH_FILES_SPEC",
    "SearchContext",
    "SearchLimits",
    "search_files",
    "search_files_tool",
]

TOOL_NAME = "search_files"
DEFAULT_MAX_RESULTS = 20
MAX_RESULTS = 50
MAX_QUERY_CHARS = 1000
PREVIEW_CHARS = 160
#: read_lines arguments of a candidate's next_call: from 2 lines before the match, 5 lines.
CONTEXT_BEFORE = 2
CONTEXT_COUNT = 5
MODES = ("literal", "regex")
SKIP_REASONS = ("binary", "too_large", "symlink", "hard_link", "secret", "other")

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | os.O_NOFOLLOW
_PREVIEW_WINDOW_BYTES = 4 * PREVIEW_CHARS  # a character has at most 4 UTF-8 bytes
_PATH_MAX_BYTES = 4096
_DENSE_SKIPS = 16  # regex: matches passed over on one line before searching anew
_NEXT_TOOL = READ_LINES_SPEC.name


@dataclass(frozen=True)
class SearchLimits:
    """Server-side limits (not the model's to choose).

    - ``max_file_bytes``: larger files are skipped (``too_large``); the same limit as
      read_lines, so every candidate can be read;
    - ``max_regex_line_bytes``: in regex mode, longer lines are not searched (a
      backtracking pattern costs a power of the line length); counted in
      ``long_lines_skipped``;
    - ``time_budget_ms``: the search stops after this long with ``truncated: true`` and
      ``stopped_by: "time_budget"`` (None: no budget). It is checked between files and
      chunks, and a regex match is bounded by it from inside, in any thread (the regex
      module's timeout, in process CPU time), without stalling the other threads;
    - ``max_depth``: directories nested deeper are not entered (``other``);
    - ``chunk_bytes``: the read size, and how much of a file decides "binary";
    - ``max_results_override``: replaces the argument ``max_results`` (benchmarks and
      tests count every match with it; the model's limit stays 1 to 50);
    - ``allow_hard_links``: False (the default, as read_lines) skips regular files with
      more than one hard link (``hard_link``; a ``path`` naming one is
      ``permission_denied``): their other names may lie outside the workspace. Set it
      together with ``ReadLimits(allow_hard_links=True)``, or candidates in such files
      would point to reads that are refused;
    - ``search_secrets``: False (the default) skips secret-bearing files (``secret``):
      every file whose workspace path has a part matching
      :data:`tutorial_lib.core.authorization.SECRET_PATTERNS` or ``secret_patterns``
      (:func:`~tutorial_lib.core.authorization.is_secret_path`: ``.env``, ``*.key``,
      anything under ``credentials/``...). They are never opened, so no match, preview or
      byte of them leaves; a ``path`` naming one (or a secret directory) is
      ``permission_denied``. True only when the user granted secrets for the task (the
      same grant as ``TaskScope.secrets_granted``);
    - ``secret_patterns``: the workspace's own secret patterns (``fnmatch``, ignoring
      case), on top of ``SECRET_PATTERNS``; pass the same as ``TaskScope.secret_patterns``.
    """

    max_file_bytes: int = ReadLimits().max_file_bytes
    max_regex_line_bytes: int = 4096
    time_budget_ms: int | None = 10_000
    max_depth: int = 64
    chunk_bytes: int = 1 << 20
    max_results_override: int | None = None
    allow_hard_links: bool = ReadLimits().allow_hard_links
    search_secrets: bool = False
    secret_patterns: tuple[str, ...] = ()


# --------------------------------------------------------------------------- the contract

SEARCH_FILES_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_QUERY_CHARS,
            "description": (
                "What to find inside the lines of text files, 1 to"
                f" {MAX_QUERY_CHARS} characters. Each line is matched on its own: a query"
                " never spans a line break. In mode 'literal' the exact characters, e.g."
                " 'def read_lines'; in mode 'regex' a Python re pattern, e.g."
                " 'TODO|FIXME'."
            ),
        },
        "mode": {
            "type": "string",
            "enum": list(MODES),
            "default": "literal",
            "description": (
                "How query is matched. 'literal' (default): plain text, no character is"
                " special. 'regex': Python re syntax; lines longer than 4096 bytes are"
                " not searched in this mode (long_lines_skipped counts them)."
            ),
        },
        "path": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_PATH_CHARS,
            "pattern": "\\S",
            "description": (
                "Directory or file to search, relative to the workspace root, with '/'"
                " between parts, e.g. 'src' or 'src/auth/session.ts'. Omit it to search"
                " the whole workspace. No absolute paths; '..' may not leave the"
                " workspace."
            ),
        },
        "max_results": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_RESULTS,
            "default": DEFAULT_MAX_RESULTS,
            "description": (
                f"How many matching lines to return, from 1 to {MAX_RESULTS} (default"
                f" {DEFAULT_MAX_RESULTS}). If more lines match, the search stops early,"
                " truncated is true and total_matches_at_least replaces total_matches."
            ),
        },
        "case_sensitive": {
            "type": "boolean",
            "default": True,
            "description": (
                "true (default): 'Error' does not match 'error'. false: letters match in"
                " upper or lower case."
            ),
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}


def _value_error(name: str, value: Any, error: ValidationError) -> ContractError:
    """A schema error on one field (not its type) as a contract error."""
    if name == "query":
        if error.validator == "minLength":
            return ContractError(
                "invalid_value",
                "'query' is empty: give the text (or pattern) to find",
                field="query",
                received=value,
                expected=f"string of 1 to {MAX_QUERY_CHARS} characters",
            )
        return ContractError(
            "invalid_value",
            f"'query' has {len(value)} characters; at most {MAX_QUERY_CHARS} are allowed",
            field="query",
            received=value,
            expected=f"string of 1 to {MAX_QUERY_CHARS} characters",
            suggestion="search for a short, distinctive part of the text",
        )
    if name == "mode":
        return ContractError(
            "invalid_value",
            f"'mode' must be one of {', '.join(MODES)}",
            field="mode",
            received=value,
            allowed_values=list(MODES),
        )
    if name == "path":
        return _bad_path(value)
    if name == "max_results":
        return out_of_range_error(name, value, 1, MAX_RESULTS)
    raise AssertionError(
        f"untranslated schema error: {error.validator} on {name}"
    )  # pragma: no cover


def _bad_path(value: Any) -> ContractError:
    return ContractError(
        "invalid_path",
        "'path' must name a directory or file relative to the workspace root, e.g. 'src'",
        field="path",
        received=value,
        expected=f"non-blank string of at most {MAX_PATH_CHARS} characters",
        suggestion="omit 'path' to search the whole workspace",
    )


_Q = {"query": "def read_lines"}

#: Normal and counter examples of search_files' arguments (schema and query checks).
SEARCH_FILES_EXAMPLES: tuple[ArgumentExample, ...] = (
    ArgumentExample("a literal anywhere", _Q, in_description=True),
    ArgumentExample(
        "a regex in a directory",
        {"query": "TODO|FIXME", "mode": "regex", "path": "src", "max_results": 10},
        in_description=True,
    ),
    ArgumentExample("case-insensitive", {"query": "error", "case_sensitive": False}),
    ArgumentExample("one file", {"query": "import", "path": "src/app.py"}),
    ArgumentExample("not an object", "def read_lines", "invalid_type", None),
    ArgumentExample("query missing", {"path": "src"}, "missing_field", "query"),
    ArgumentExample("a misspelt field", {**_Q, "max_result": 5}, "unknown_field", "max_result"),
    ArgumentExample("an empty query", {"query": ""}, "invalid_value", "query"),
    ArgumentExample(
        "a query over the cap", {"query": "x" * (MAX_QUERY_CHARS + 1)}, "invalid_value", "query"
    ),
    ArgumentExample("a query that is a number", {"query": 42}, "invalid_type", "query"),
    ArgumentExample(
        "a query across lines", {"query": "a\nb"}, "invalid_value", "query", note="one line"
    ),
    ArgumentExample(
        "an invalid regex",
        {"query": "read_lines(", "mode": "regex"},
        "invalid_value",
        "query",
        in_description=True,
        note="escape ( as \\( or use mode 'literal'",
    ),
    ArgumentExample(
        "a guessed mode",
        {**_Q, "mode": "glob"},
        "invalid_value",
        "mode",
        in_description=True,
        note="mode is 'literal' or 'regex'",
    ),
    ArgumentExample("max_results 0", {**_Q, "max_results": 0}, "invalid_range", "max_results"),
    ArgumentExample(
        "max_results above the cap",
        {**_Q, "max_results": MAX_RESULTS + 1},
        "invalid_range",
        "max_results",
        in_description=True,
        note=f"at most {MAX_RESULTS} results per call",
    ),
    ArgumentExample(
        "max_results as a string", {**_Q, "max_results": "5"}, "invalid_type", "max_results"
    ),
    ArgumentExample(
        "case_sensitive as a string",
        {**_Q, "case_sensitive": "false"},
        "invalid_type",
        "case_sensitive",
    ),
    ArgumentExample("an empty path", {**_Q, "path": ""}, "invalid_path", "path"),
    ArgumentExample(
        "a path over the cap", {**_Q, "path": "a" * (MAX_PATH_CHARS + 1)}, "invalid_path", "path"
    ),
)


#: The model-facing description, built from the same table the tests use.
SEARCH_FILES_DESCRIPTION = description_with_examples(
    "\n".join(
        [
            "Find the lines of the workspace's text files that contain a query, and return"
            " candidate locations: path (relative to the workspace root), 1-based line,"
            " a short preview, and next_call: the exact read_lines call that shows the lines"
            " around it. Read-only. Searches every file beneath 'path' (default: the whole"
            " workspace) in path order, then line order; binary files, files over 256 MiB,"
            " symlinks, files with several hard links and secret-bearing files (.env, keys,"
            " credentials...) are skipped and counted in files_skipped; a 'path' naming a"
            " secret-bearing file is refused.",
            f"Returns at most max_results lines (default {DEFAULT_MAX_RESULTS}, up to"
            f" {MAX_RESULTS}). total_matches is the exact number of matching lines; if more"
            " lines match than returned, truncated is true and total_matches_at_least replaces"
            " it. No match is a success with no candidates, not an error.",
        ]
    ),
    SEARCH_FILES_EXAMPLES,
)


# --------------------------------------------------------------------------- the tool


@dataclass(frozen=True)
class SearchContext:
    """What search_files needs, bound when the registry is built: the workspace root, the
    limits, and (for tests and the chapters' comparisons) a forced resolution ``method``."""

    root: str | os.PathLike[str]
    limits: SearchLimits = SearchLimits()
    method: Method | None = None


@dataclass
class _Scope:
    """What the business check verified and opened: the matcher and the scope's descriptor.

    A context manager: the road closes it whatever happens next.
    """

    matcher: _Matcher
    parts: tuple[str, ...]  # the normalized scope; () for the whole workspace
    fd: int
    info: os.stat_result
    closed: bool = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.fd)

    def __enter__(self) -> _Scope:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _check(context: SearchContext, args: Mapping[str, Any]) -> _Scope:
    """The business check: a one-line query (a valid pattern in regex mode), and a scope
    inside the workspace that exists and is a directory or a regular file."""
    matcher = _compile(args["query"], args.get("mode", "literal"), args.get("case_sensitive", True))
    path = args.get("path")
    parts = _scope_parts(path) if path is not None else ()
    # Before anything is opened, and whether it exists or not (the answer tells nothing).
    limits = context.limits
    secret = is_secret_path("/".join(parts), limits.secret_patterns)
    if path is not None and secret and not limits.search_secrets:
        raise _secret_error(path)
    root_fd = open_root(context.root)
    try:
        fd = _open_scope(root_fd, parts, path, context.method)
    finally:
        os.close(root_fd)
    try:
        info = os.fstat(fd)
    except OSError:  # pragma: no cover - fstat on a fresh descriptor does not fail
        os.close(fd)
        raise
    scope = _Scope(matcher, parts, fd, info)
    mode = scope.info.st_mode
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        scope.close()
        raise ContractError(
            "not_a_file",
            f"'{path}' is a {describe_file_type(mode)}; search_files searches directories"
            " and regular files",
            field="path",
            received=path,
        )
    return scope


def _secret_error(path: str) -> ContractError:
    """The refusal of a ``path`` that names a secret-bearing file or directory."""
    return ContractError(
        "permission_denied",
        f"'{_cut(path)}' is a secret-bearing path (.env, keys, credentials...): searching it"
        " needs the user's grant for secrets, which this task does not have",
        field="path",
        received=path,
        retry="after_authorization",
        suggestion=(
            "ask the user to grant access to secret-bearing files for this task, or search"
            " without this path (secret files are skipped and counted in"
            " files_skipped.secret)"
        ),
    )


def _open_scope(root_fd: int, parts: tuple[str, ...], shown: Any, method: Method | None) -> int:
    """A descriptor for the scope: the root, or ``path`` resolved as read_lines would."""
    if not parts:
        return os.dup(root_fd)
    try:
        # The resolver refuses to leave the root and follows inside links; its last step
        # opens with O_RDONLY | O_NONBLOCK, so a directory opens as well as a file.
        # (The walk answers not_a_file for a link whose target ends in '.' or '..'.)
        return open_relative(root_fd, parts, shown, method=method)
    except ContractError as exc:
        if exc.code == "not_found":
            raise ContractError(
                "not_found",
                f"nothing at '{_cut(shown)}' in the workspace",
                field="path",
                received=shown,
                suggestion=(
                    "omit 'path' to search the whole workspace; paths are relative to"
                    " the workspace root, e.g. 'src'"
                ),
                log=exc.log,
            ) from None
        raise


def _execute(context: SearchContext, args: Mapping[str, Any], scope: _Scope) -> dict[str, Any]:
    """Execution: walk the scope the business check opened; the road closes it afterwards."""
    max_results: int = args.get("max_results", DEFAULT_MAX_RESULTS)
    run = _Run(
        limit=context.limits.max_results_override or max_results,
        limits=context.limits,
        matcher=scope.matcher,
    )
    run.search(scope)
    return run.data(
        args["query"],
        scope.matcher.mode,
        args.get("case_sensitive", True),
        max_results,
        "/".join(scope.parts) or ".",
    )


def _scope_parts(path: str) -> tuple[str, ...]:
    """The normalized parts of ``path``; ``()`` for the root itself (``"."``, ``"a/.."``)."""
    try:
        return check_relative_path(path).parts
    except ContractError as exc:
        if exc.code == "not_a_file":  # check_relative_path's answer for the root itself
            return ()
        raise


# --------------------------------------------------------------------------- matchers


@dataclass(frozen=True)
class _Matcher:
    """How one query is matched: on bytes (``find``) or on text, line by line (``pattern``)."""

    mode: Literal["literal", "regex"]
    needle: bytes | None = None  # literal, case-sensitive: bytes.find
    bytes_pattern: re.Pattern[bytes] | None = None  # literal, case-insensitive
    overlap: int = 1  # the longest match in bytes: what a chunk boundary may split
    pattern: Any = None  # regex mode: a regex.Pattern (see _regex_pattern)
    line_local: bool = False  # regex: may run over whole chunks of lines


def _compile(query: str, mode: str, case_sensitive: bool) -> _Matcher:
    if "\n" in query:
        raise ContractError(
            "invalid_value",
            "'query' contains a line break, but lines are matched one at a time",
            field="query",
            received=query,
            suggestion="search for one line of the text, e.g. its most distinctive line",
        )
    try:
        encoded = query.encode("utf-8")
    except UnicodeEncodeError:
        raise ContractError(
            "invalid_value",
            "'query' is not valid Unicode text (it holds a lone surrogate)",
            field="query",
            received=query,
        ) from None
    if mode == "literal":
        if case_sensitive:
            return _Matcher("literal", needle=encoded, overlap=len(encoded))
        pattern, overlap = _caseless_bytes_pattern(query)
        return _Matcher("literal", bytes_pattern=pattern, overlap=overlap)
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
            tree = _sre_parser.parse(query, flags)  # parses again: inside the guard
            line_local = _is_line_local(query, flags)
        compiled = regex.compile(_regex_pattern(tree), regex.VERSION0)
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
    return _Matcher("regex", pattern=compiled, line_local=line_local)


def _caseless_bytes_pattern(query: str) -> tuple[re.Pattern[bytes], int]:
    """A bytes pattern matching ``query`` with each character in any of its case forms."""
    parts: list[bytes] = []
    longest = 0
    for char in query:
        forms = sorted({f for f in (char, char.lower(), char.upper()) if len(f) == 1})
        encoded = [f.encode("utf-8") for f in forms]
        longest += max(len(e) for e in encoded)
        if len(encoded) == 1:
            parts.append(re.escape(encoded[0]))
        else:
            parts.append(b"(?:" + b"|".join(re.escape(e) for e in encoded) + b")")
    return re.compile(b"".join(parts)), longest


_C = _sre_constants
_NEWLINE_CATEGORIES = {
    _C.CATEGORY_SPACE,
    _C.CATEGORY_NOT_DIGIT,
    _C.CATEGORY_NOT_WORD,
    _C.CATEGORY_LINEBREAK,
}
_ATOMIC_GROUP = getattr(_C, "ATOMIC_GROUP", None)
#: Held while the process-wide warning filters are changed (see _compile).
_WARNING_FILTERS = threading.Lock()
_POSSESSIVE_REPEAT = getattr(_C, "POSSESSIVE_REPEAT", None)


def _is_line_local(pattern: str, flags: int) -> bool:
    """Whether ``pattern`` sees only the line it matches in, so it can run on many lines.

    The pattern actually run (:func:`_regex_pattern`) matches ``\\n`` nowhere and anchors
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
# matches \n (see _is_line_local).

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


def _regex_pattern(tree: Any) -> str:
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


# --------------------------------------------------------------------------- the run


def _read_chunk(fd: int, size: int) -> bytes:
    """One read of a file being searched (a seam: tests count the reads through it)."""
    return os.read(fd, size)


class _Stop(Exception):
    """Unwinds the walk once the search has stopped (results full or time up)."""


@dataclass
class _Run:
    """The state of one search: results, counters, and why it stopped."""

    limit: int
    limits: SearchLimits
    matcher: _Matcher
    found: list[tuple[str, int, str, bool]] = field(default_factory=list)
    matches: int = 0
    files_searched: int = 0
    skipped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SKIP_REASONS, 0))
    long_lines_skipped: int = 0
    stopped_by: str | None = None
    deadline: float | None = None

    # ----------------------------------------------------------------- the walk

    def search(self, scope: _Scope) -> None:
        """Search the opened ``scope`` until it is done, the results are full or time is up."""
        if self.limits.time_budget_ms is not None:
            self.deadline = time.monotonic() + self.limits.time_budget_ms / 1000
        try:
            prefix = "/".join(scope.parts)
            if stat.S_ISDIR(scope.info.st_mode):
                self._walk(scope.fd, prefix + "/" if prefix else "", 0)
            else:
                self._search_named_file(scope.fd, scope.info, prefix)
        except _Stop:
            pass
        except OSError as exc:  # the storage failed mid-way (EIO and the like)
            raise ContractError(
                "temporary_unavailable",
                "the search failed mid-way while reading the workspace; retry shortly",
                log=oserror_details(exc),
            ) from None

    def _walk(self, dir_fd: int, prefix: str, depth: int, in_secret: bool = False) -> None:
        """Search the directory ``dir_fd`` (shown as ``prefix``), entries in name order.

        ``in_secret``: ``prefix`` has a secret-bearing part, so every entry beneath is one.
        """
        try:
            with os.scandir(dir_fd) as listing:
                entries = sorted((entry.name, _entry_kind(entry)) for entry in listing)
        except OSError:
            self.skipped["other"] += 1
            return
        for name, kind in entries:
            self._check_time()
            if kind == "symlink":
                self.skipped["symlink"] += 1
                continue
            # is_secret_path on the new part only: the parts of prefix were checked on the
            # way down (in_secret), so this is is_secret_path(relative) at one part's cost.
            limits = self.limits
            secret = in_secret or (
                not limits.search_secrets and is_secret_path(name, limits.secret_patterns)
            )
            if secret and kind != "dir":  # never opened: no byte of it is read
                self.skipped["secret"] += 1
                continue
            relative = prefix + name
            if kind == "other" or not _readable_path(relative):
                self.skipped["other"] += 1
                continue
            flags = _DIR_FLAGS if kind == "dir" else _FILE_FLAGS
            if kind == "dir" and depth >= self.limits.max_depth:
                self.skipped["other"] += 1
                continue
            try:
                fd = os.open(name, flags, dir_fd=dir_fd)  # O_NOFOLLOW: a swapped-in link fails
            except OSError:
                self.skipped["other"] += 1
                continue
            try:
                if kind == "dir":
                    # A secret directory is listed (to count its files), never read from.
                    self._walk(fd, relative + "/", depth + 1, secret)
                else:
                    self._search_file(fd, relative)
            finally:
                os.close(fd)

    def _search_named_file(self, fd: int, info: os.stat_result, path: str) -> None:
        """``path`` named one file: hard-linked, binary or too large is an error, not a
        silent skip."""
        verdict = self._search_file(fd, path, info)
        if verdict == "hard_link":
            raise hard_link_error(path, info)  # the same refusal as read_lines
        if verdict == "too_large":
            raise ContractError(
                "file_too_large",
                f"'{path}' has {info.st_size} bytes; search_files searches files up to"
                f" {self.limits.max_file_bytes} bytes",
                field="path",
                received=path,
            )
        if verdict == "binary":
            raise ContractError(
                "binary_file",
                f"'{path}' contains NUL bytes: it is a binary file, not text",
                field="path",
                received=path,
                suggestion="search a directory or a text file",
            )

    def _search_file(self, fd: int, path: str, info: os.stat_result | None = None) -> str:
        """Search one opened file; returns ``"searched"`` or why it was skipped."""
        info = info or os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            self.skipped["other"] += 1
            return "other"
        # Before the size (a message would tell it) and the first read: the link count of
        # the descriptor itself, so a name swapped since the listing changes nothing.
        if not self.limits.allow_hard_links and is_hard_linked(info):
            self.skipped["hard_link"] += 1
            return "hard_link"
        if info.st_size > self.limits.max_file_bytes:
            self.skipped["too_large"] += 1
            return "too_large"
        # A file that fits in one chunk is read with one call (size + 1 proves the end).
        requested = min(self.limits.chunk_bytes, info.st_size + 1)
        first = _read_chunk(fd, requested)
        if b"\x00" in first:
            self.skipped["binary"] += 1
            return "binary"
        self.files_searched += 1
        if self.matcher.mode == "regex":
            self._scan_text(fd, path, first, requested)
        else:
            self._scan_bytes(fd, path, first, requested)
        return "searched"

    # ----------------------------------------------------------------- literal mode

    def _scan_bytes(self, fd: int, path: str, chunk: bytes, requested: int) -> None:
        """Scan a file for a literal, chunk by chunk, counting newlines only up to matches."""
        matcher = self.matcher
        needle, pattern = matcher.needle, matcher.bytes_pattern
        keep = matcher.overlap - 1  # bytes a match may need from the previous chunk
        line = 1  # number of the line data[0] belongs to
        starts_line = True  # data[0] is the first byte of a line
        line_done = False  # the line running at data[0] already matched
        carry = b""
        while True:
            more = len(chunk) == requested  # a full read: the file may go on
            data = carry + chunk if carry else chunk
            counted = 0  # newlines of data[:counted] are included in `line`
            tail_matched = False
            position = 0
            while True:
                if needle is not None:
                    start = data.find(needle, position)
                    if start == -1:
                        break
                else:
                    found = pattern.search(data, position)  # type: ignore[union-attr]
                    if found is None:
                        break
                    start = found.start()
                line_start = data.rfind(b"\n", 0, start) + 1
                line_end = data.find(b"\n", start)
                if line_start == 0 and line_done:  # that line was reported from a chunk before
                    if line_end == -1:
                        break
                    position = line_end + 1
                    continue
                line += data.count(b"\n", counted, line_start)
                counted = line_start
                cut_left = line_start == 0 and not starts_line
                self._record_bytes(path, line, data, line_start, start, line_end, cut_left, more)
                if line_end == -1:
                    tail_matched = True
                    break
                position = line_end + 1
            if not more:
                return
            self._check_time()
            last_newline = data.rfind(b"\n")
            line += _count_newlines(data, counted)
            # the line running at the next chunk's start: the tail line, or still the same
            line_done = tail_matched if last_newline != -1 else line_done or tail_matched
            cut = len(data) if line_done else max(last_newline + 1, len(data) - keep)
            carry = data[cut:]
            starts_line = (
                cut == last_newline + 1 if last_newline != -1 else starts_line and cut == 0
            )
            chunk = _read_chunk(fd, self.limits.chunk_bytes)
            requested = self.limits.chunk_bytes
            if not chunk or b"\x00" in chunk:  # the end, or binary from here on: stop here
                return

    def _record_bytes(
        self,
        path: str,
        line: int,
        data: bytes,
        line_start: int,
        start: int,
        line_end: int,
        cut_left: bool,
        more: bool,
    ) -> None:
        end = len(data) if line_end == -1 else line_end
        cut_right = line_end == -1 and more
        if self.matches >= self.limit:  # the first match over the limit: no preview needed
            return self._record(path, line, "", False)
        if end - line_start <= PREVIEW_CHARS and not (cut_left or cut_right):
            # the common case, a short line: no window, no offsets (bytes >= characters)
            text = data[line_start:end].decode("utf-8", "replace").strip()
            if line == 1 and text.startswith("\ufeff"):
                text = text[1:].lstrip()  # a byte order mark is not text
            return self._record(path, line, text, False)
        low = max(line_start, start - _PREVIEW_WINDOW_BYTES)
        high = min(end, start + _PREVIEW_WINDOW_BYTES)
        for _ in range(3):  # move the window's edges off UTF-8 continuation bytes
            if low > line_start and data[low] & 0xC0 == 0x80:
                low += 1
            if high < end and data[high] & 0xC0 == 0x80:
                high -= 1
        text = data[low:high].decode("utf-8", "replace")
        offset = len(data[low:start].decode("utf-8", "replace"))
        if line == 1 and low == 0 and not cut_left and text.startswith("\ufeff"):
            text, offset = text[1:], max(0, offset - 1)  # a byte order mark is not text
        preview, cut = _shape_preview(
            text, offset, cut_left or low > line_start, cut_right or high < end
        )
        self._record(path, line, preview, cut)

    # ----------------------------------------------------------------- regex mode

    def _scan_text(self, fd: int, path: str, chunk: bytes, requested: int) -> None:
        """Scan a file with a regex, in chunks of whole lines; long lines are skipped."""
        cap = self.limits.max_regex_line_bytes
        line = 1  # number of the first line in `carry + chunk`
        carry = b""
        skipping = False  # inside a line longer than the cap: drop bytes up to its end
        while True:
            more = len(chunk) == requested
            data = carry + chunk if carry else chunk
            carry = b""
            if skipping:
                newline = data.find(b"\n")
                if newline == -1:
                    data = b""
                else:
                    data, skipping, line = data[newline + 1 :], False, line + 1
            if more and data:
                last_newline = data.rfind(b"\n")
                data, carry = data[: last_newline + 1], data[last_newline + 1 :]
                if len(carry) > cap:
                    carry, skipping = b"", True
                    self.long_lines_skipped += 1
            if data:
                self._search_lines(path, line, data)
                line += data.count(b"\n")
            if not more:
                return
            self._check_time()
            chunk = _read_chunk(fd, self.limits.chunk_bytes)
            requested = self.limits.chunk_bytes
            if not chunk:  # the end came exactly after a full read: carry is the last line
                if carry:
                    self._search_lines(path, line, carry)
                return
            if b"\x00" in chunk:  # binary from here on: stop here
                return

    def _search_lines(self, path: str, first_line: int, raw: bytes) -> None:
        """Search whole lines ``raw`` (each ends with ``\\n``, but the file's last may not)."""
        cap = self.limits.max_regex_line_bytes
        if self.matcher.line_local:
            if len(raw) <= cap or _longest_line(raw) <= cap:
                self._search_chunk_of_lines(path, first_line, raw)
            else:
                self._search_around_long_lines(path, first_line, raw)
            return
        lines = raw.split(b"\n")
        if raw.endswith(b"\n"):
            lines.pop()  # nothing after the last newline: not a line
        search = self._regex_search
        for index, raw_line in enumerate(lines):
            if len(raw_line) > cap:
                self.long_lines_skipped += 1
                continue
            text = raw_line.decode("utf-8", "surrogateescape")
            found = search(text)
            if found is not None:
                self._record_text(path, first_line + index, text, found.start())

    def _search_around_long_lines(self, path: str, first_line: int, raw: bytes) -> None:
        """Search the runs of lines between the long lines of ``raw`` as chunks; count those.

        (Line by line, the regex module's ~4 us a call made a minified file's chunk cost
        more than the rest of site-packages.)
        """
        newlines = numpy.flatnonzero(numpy.frombuffer(raw, numpy.uint8) == 10)
        starts = numpy.concatenate(([0], newlines + 1))
        ends = numpy.concatenate((newlines, [len(raw)]))
        if raw.endswith(b"\n"):  # nothing after the last newline: not a line
            starts, ends = starts[:-1], ends[:-1]
        run = 0  # the index of the first line of the run not yet searched
        for index in numpy.flatnonzero(ends - starts > self.limits.max_regex_line_bytes):
            if index > run:
                segment = raw[int(starts[run]) : int(starts[index])]
                self._search_chunk_of_lines(path, first_line + run, segment)
            self.long_lines_skipped += 1
            run = int(index) + 1
        if run < len(starts):
            self._search_chunk_of_lines(path, first_line + run, raw[int(starts[run]) :])

    def _search_chunk_of_lines(self, path: str, first_line: int, raw: bytes) -> None:
        """Run a line-local pattern over whole lines at once: each line's first match.

        One ``finditer`` over the chunk: a call per match cost the regex module ~4 us
        (timeout and GIL release included), its iterator ~0.3 us. Further matches on a
        line already reported are passed over; after :data:`_DENSE_SKIPS` of them the
        iteration restarts at the next line (``x?`` matches at every character).
        """
        text = raw.decode("utf-8", "surrogateescape")
        size = len(text)
        line, counted, next_line, position = first_line, 0, 0, 0
        while True:
            skipped = 0
            for found in self._regex_matches(text, position):
                start = found.start()
                if start < next_line:
                    skipped += 1
                    if skipped > _DENSE_SKIPS:
                        break
                    continue
                skipped = 0
                if start == size and text.endswith("\n"):
                    return  # an empty match after the last newline: not a line
                line_start = text.rfind("\n", 0, start) + 1
                line += text.count("\n", counted, line_start)
                counted = line_start
                line_end = text.find("\n", start)
                content = text[line_start:] if line_end == -1 else text[line_start:line_end]
                self._record_text(path, line, content, start - line_start)
                if line_end == -1:
                    return
                next_line = line_end + 1
            else:
                return
            position = next_line

    def _record_text(self, path: str, line: int, text: str, offset: int) -> None:
        if self.matches >= self.limit:  # the first match over the limit: no preview needed
            return self._record(path, line, "", False)
        # lone surrogates stand for undecodable bytes: show them as U+FFFD
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        if line == 1 and text.startswith("\ufeff"):
            text, offset = text[1:], max(0, offset - 1)
        preview, cut = _shape_preview(text, offset, False, False)
        self._record(path, line, preview, cut)

    # ----------------------------------------------------------------- results

    def _record(self, path: str, line: int, preview: str, cut: bool) -> None:
        self.matches += 1
        if self.matches > self.limit:  # one more than asked: there ARE more, stop now
            self.stopped_by = "max_results"
            raise _Stop
        # A tuple of strings and ints, which the garbage collector soon stops tracking; the
        # candidate dicts are built once, at the end (see _candidates).
        self.found.append((path, line, preview, cut))

    def _check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.stopped_by = "time_budget"
            raise _Stop

    def _regex_search(self, text: str) -> Any:
        """The pattern's first match in ``text``, within what is left of the budget.

        The regex module checks the timeout inside the match itself, in any thread, and
        ``concurrent=True`` releases the GIL while it matches: a backtracking pattern ends
        at the deadline and never stalls the process's other threads.
        """
        timeout = self._regex_timeout()
        try:
            return self.matcher.pattern.search(text, concurrent=True, timeout=timeout)
        except TimeoutError:
            self.stopped_by = "time_budget"
            raise _Stop from None

    def _regex_matches(self, text: str, start: int) -> Iterator[Any]:
        """The pattern's matches in ``text[start:]``; the budget bounds the whole iteration
        (the regex module's timeout runs from the iterator's creation)."""
        timeout = self._regex_timeout()
        try:
            yield from self.matcher.pattern.finditer(text, start, concurrent=True, timeout=timeout)
        except TimeoutError:
            self.stopped_by = "time_budget"
            raise _Stop from None

    def _regex_timeout(self) -> float | None:
        """What is left of the budget, in seconds (None: no budget); stops when nothing is.

        The regex module measures it in CPU time of the process (C ``clock()``): while
        other threads of the process compute, it runs out sooner than the wall clock.
        """
        if self.deadline is None:
            return None
        timeout = self.deadline - time.monotonic()
        if timeout <= 0:
            self.stopped_by = "time_budget"
            raise _Stop
        return timeout

    def data(
        self, query: str, mode: str, case_sensitive: bool, max_results: int, scope: str
    ) -> dict[str, Any]:
        """``data`` of the success envelope (see :func:`search_files`)."""
        out: dict[str, Any] = {
            "query": query,
            "mode": mode,
            "case_sensitive": case_sensitive,
            "scope": scope,
            "max_results": max_results,
            "candidates": _candidates(self.found),
            "truncated": self.stopped_by is not None,
        }
        if self.stopped_by is None:
            out["total_matches"] = self.matches
        else:
            out["total_matches_at_least"] = self.matches
            out["stopped_by"] = self.stopped_by
        out["files_searched"] = self.files_searched
        out["files_skipped"] = dict(self.skipped)
        if mode == "regex":
            out["long_lines_skipped"] = self.long_lines_skipped
        suggestion = self._suggestion(case_sensitive)
        if suggestion:
            out["suggestion"] = suggestion
        return out

    def _suggestion(self, case_sensitive: bool) -> str | None:
        if self.stopped_by == "max_results":
            return (
                f"more than {self.limit} lines match: use a more specific query or set 'path'"
                f" to a smaller directory (max_results allows up to {MAX_RESULTS})"
            )
        if self.stopped_by == "time_budget":
            return (
                "the search ran out of time before covering the scope: set 'path' to a"
                " smaller directory, or simplify a regex that backtracks (e.g. '.*.*')"
            )
        if self.matches == 0:
            if self.files_searched == 0:
                return "no text file was searched in this scope (see files_skipped)"
            hint = ", or case_sensitive false" if case_sensitive else ""
            return f"no line matches: check the spelling, try a shorter query{hint}"
        return None


# --------------------------------------------------------------------------- helpers


def _cut(text: str, chars: int = 80) -> str:
    """``text`` for a message: long input is not echoed in full."""
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _candidates(found: list[tuple[str, int, str, bool]]) -> list[dict[str, Any]]:
    """The candidates of the result, built with the garbage collector paused.

    Building only allocates (no reference cycles can form), yet each nested dict counts
    toward the next collection: 100k candidates (a benchmark's limit, not a model's) cost
    three full collections of the whole heap, about 0.3 s, for nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return [_candidate(*one) for one in found]
    finally:
        if was_enabled:
            gc.enable()


def _candidate(path: str, line: int, preview: str, cut: bool) -> dict[str, Any]:
    """One candidate of the result, with the read_lines call that shows its context."""
    candidate: dict[str, Any] = {"path": path, "line": line, "preview": preview}
    if cut:
        candidate["preview_truncated"] = True
    start = line - CONTEXT_BEFORE if line > CONTEXT_BEFORE else 1
    candidate["next_call"] = {
        "name": _NEXT_TOOL,
        "arguments": {"path": path, "start": start, "count": CONTEXT_COUNT},
    }
    return candidate


def _entry_kind(entry: os.DirEntry[str]) -> str:
    """``dir``, ``file``, ``symlink`` or ``other``, from the listing (never following links)."""
    try:
        if entry.is_symlink():
            return "symlink"
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if entry.is_file(follow_symlinks=False):
            return "file"
    except OSError:  # vanished while we looked
        pass
    return "other"


def _readable_path(relative: str) -> bool:
    """Whether read_lines accepts ``relative``: valid UTF-8, not blank, not too long."""
    if len(relative) > MAX_PATH_CHARS or not relative.strip():
        return False
    try:
        return len(relative.encode("utf-8")) < _PATH_MAX_BYTES
    except UnicodeEncodeError:  # a name that is not UTF-8 (kept as lone surrogates)
        return False


def _count_newlines(data: bytes, start: int) -> int:
    """Newlines in ``data[start:]``: numpy's vectorized count (``bytes.count`` is ~4x slower)."""
    if len(data) - start < 4096:
        return data.count(b"\n", start)
    return int(numpy.count_nonzero(numpy.frombuffer(data, numpy.uint8, offset=start) == 10))


def _longest_line(raw: bytes) -> int:
    """The length in bytes of the longest line in ``raw``."""
    newlines = numpy.flatnonzero(numpy.frombuffer(raw, numpy.uint8) == 10)
    if newlines.size == 0:
        return len(raw)
    edges = numpy.concatenate(([-1], newlines, [len(raw)]))
    return int((numpy.diff(edges) - 1).max())


def _shape_preview(text: str, offset: int, cut_left: bool, cut_right: bool) -> tuple[str, bool]:
    """The line for a preview: stripped, at most PREVIEW_CHARS around ``offset``, cuts marked."""
    stripped = text.lstrip()
    offset = max(0, offset - (len(text) - len(stripped)))
    stripped = stripped.rstrip()
    if len(stripped) > PREVIEW_CHARS:
        begin = max(0, min(offset - PREVIEW_CHARS // 4, len(stripped) - PREVIEW_CHARS))
        cut_left = cut_left or begin > 0
        cut_right = cut_right or begin + PREVIEW_CHARS < len(stripped)
        stripped = stripped[begin : begin + PREVIEW_CHARS]
    if not (cut_left or cut_right):
        return stripped, False
    return ("…" if cut_left else "") + stripped + ("…" if cut_right else ""), True


#: JSON Schema of ``data`` in a successful search_files result.
SEARCH_FILES_DATA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "query",
        "mode",
        "case_sensitive",
        "scope",
        "max_results",
        "candidates",
        "truncated",
        "files_searched",
        "files_skipped",
    ],
    "additionalProperties": False,
    "properties": {
        "query": {"type": "string"},
        "mode": {"enum": list(MODES)},
        "case_sensitive": {"type": "boolean"},
        "scope": {"type": "string", "minLength": 1},
        "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS},
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "line", "preview", "next_call"],
                "additionalProperties": False,
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "line": {"type": "integer", "minimum": 1},
                    "preview": {"type": "string"},
                    "preview_truncated": {"const": True},
                    "next_call": {
                        "type": "object",
                        "required": ["name", "arguments"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"const": "read_lines"},
                            "arguments": {
                                "type": "object",
                                "required": ["path", "start", "count"],
                                "additionalProperties": False,
                                "properties": {
                                    "path": {"type": "string", "minLength": 1},
                                    "start": {"type": "integer", "minimum": 1},
                                    "count": {"const": CONTEXT_COUNT},
                                },
                            },
                        },
                    },
                },
            },
        },
        "truncated": {"type": "boolean"},
        "total_matches": {"type": "integer", "minimum": 0},
        "total_matches_at_least": {"type": "integer", "minimum": 0},
        "stopped_by": {"enum": ["max_results", "time_budget"]},
        "files_searched": {"type": "integer", "minimum": 0},
        "files_skipped": {
            "type": "object",
            "required": list(SKIP_REASONS),
            "additionalProperties": False,
            "properties": {reason: {"type": "integer", "minimum": 0} for reason in SKIP_REASONS},
        },
        "long_lines_skipped": {"type": "integer", "minimum": 0},
        "suggestion": {"type": "string", "minLength": 1},
    },
    "oneOf": [
        {
            "properties": {"truncated": {"const": False}},
            "required": ["total_matches"],
            "not": {
                "anyOf": [{"required": ["total_matches_at_least"]}, {"required": ["stopped_by"]}]
            },
        },
        {
            "properties": {"truncated": {"const": True}},
            "required": ["total_matches_at_least", "stopped_by"],
            "not": {"required": ["total_matches"]},
        },
    ],
}


def _source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "workspace", "resource": data["scope"]}


#: search_files, declared once: for registries (bound with :func:`search_files_tool`),
#: linters and exports.
SEARCH_FILES_SPEC = ToolSpec(
    name=TOOL_NAME,
    title="Search the workspace's text files",
    description=SEARCH_FILES_DESCRIPTION,
    input_schema=SEARCH_FILES_SCHEMA,
    annotations=READ_ONLY_LOCAL,
    output_schema=SEARCH_FILES_DATA_SCHEMA,
    check=_check,
    execute=_execute,
    source=_source,
    value_error=_value_error,
)


def search_files_tool(
    root: str | os.PathLike[str],
    *,
    limits: SearchLimits = SearchLimits(),
    method: Method | None = None,
) -> ToolSpec:
    """search_files bound to the workspace ``root``: ready for a :class:`Registry`."""
    return SEARCH_FILES_SPEC.bind(SearchContext(root, limits, method))


def search_files(
    root: str | os.PathLike[str],
    args: Any,
    *,
    limits: SearchLimits = SearchLimits(),
    method: Method | None = None,
) -> Envelope:
    """Find the lines matching ``args["query"]`` in the text files beneath ``root``.

    ``args`` is the raw argument object a model sent (see :data:`SEARCH_FILES_SCHEMA`):
    ``query`` and optionally ``mode``, ``path``, ``max_results``, ``case_sensitive``.
    ``method`` forces how ``path`` is resolved (``"openat2"`` or ``"walk"``, as for
    read_lines). Returns the result envelope; on success ``data`` holds:

    - ``query``, ``mode``, ``case_sensitive``, ``max_results``: the call as understood
      (defaults filled in); ``scope``: the searched path, normalized (``"."``: everything);
    - ``candidates``: up to ``max_results`` ``{"path", "line", "preview", "next_call"}`` in
      path order (compared part by part), then line order. ``path`` is relative to the
      workspace root, ``line`` counts from 1, ``preview`` is the line stripped of
      surrounding whitespace, cut to about 160 characters around the match (cut ends are
      marked ``…`` and ``"preview_truncated": true`` is added); ``next_call`` is the
      read_lines call for 5 lines from 2 before the match;
    - ``truncated``: false when the whole scope was searched; then ``total_matches`` is the
      exact number of matching lines. True when the search stopped early, either because
      more than ``max_results`` lines match (``stopped_by: "max_results"``) or because of
      the time budget (``"time_budget"``); then ``total_matches_at_least`` is the number of
      matching lines seen before stopping, a lower bound, and ``total_matches`` is absent;
    - ``files_searched``: text files searched (when truncated: until the stop);
      ``files_skipped``: ``{"binary", "too_large", "symlink", "hard_link", "secret",
      "other"}`` counts (hard_link: regular files with more than one name; secret:
      secret-bearing files, never opened, unless ``SearchLimits.search_secrets``; see
      :class:`SearchLimits`; other: FIFOs, sockets, devices, unreadable or vanished
      entries, names that are not UTF-8, paths too long for read_lines, directories
      nested too deep);
    - ``long_lines_skipped`` (regex mode only): lines not searched for their length;
    - ``suggestion`` (when nothing matched or the search stopped early): what to try next.

    Bad input of any kind returns a failure envelope with one code from
    :data:`tutorial_lib.core.contracts.CATALOGUE`; nothing raises.

    A direct call is the same tool on the same road: a registry of one tool and
    :func:`tutorial_lib.core.road.call_tool`.
    """
    tool = search_files_tool(root, limits=limits, method=method)
    return call_tool(Registry([tool]), TOOL_NAME, args)
