"""The search tool ``search_files``: finds candidate locations, read_lines reads them.

Search gives candidates, read gives text: each result is a ``{path, line, preview}`` with
the exact read_lines call that shows the lines around it (``next_call``). The tool is
declared once (:data:`SEARCH_FILES_SPEC`) and travels the same road as every tool::

    find the tool -> schema check (SEARCH_FILES_SCHEMA) -> authorization
      -> resolution (the path after its symlinks, by name) -> business check (_check)
      -> recheck (what _check opened) -> confirmation -> execution (_execute) -> envelope

- schema check: the road validates against :data:`SEARCH_FILES_SCHEMA` (strict types, one
  error in a fixed order), the tool wording its own value errors
  (``SEARCH_FILES_SPEC.arguments.validate`` is the same check, callable alone);
- business check: the query is one line of valid text and, in regex mode, a valid Python
  ``re`` pattern; ``path`` is not secret-bearing (without the grant), stays inside the
  workspace and exists (the same kernel-checked resolution as read_lines:
  :mod:`tutorial_lib.workspace.sandbox`), and is a directory or a regular file. Execution
  receives the compiled query and the opened scope;
- execution: a walk beneath the scope and a streaming scan of each file.

:func:`search_files` ``(root, args)`` is the direct call the chapters teach: the same tool
on the same road (a host of one tool, :class:`tutorial_lib.core.host.Host`).

This module is the tool: its contract, its limits, its checks and its result. The work is
done by three modules beside it, one concern each:

- :mod:`tutorial_lib.workspace.search_walk`: the walk. It never leaves the root (every
  directory listed from a descriptor we hold, every entry opened relative to it with
  ``O_NOFOLLOW``; symlinks met in the walk are never followed, as with ``grep -r``), reads
  only regular files, skips files with several hard links, binary files (a NUL in the
  first chunk) and files larger than read_lines reads, and counts each skip in
  ``files_skipped``;
- :mod:`tutorial_lib.workspace.search_match`: the matching, per line as ``grep`` does it,
  on chunks of 1 MiB, never whole files: ``bytes.find`` for a literal, a caseless bytes
  pattern, or the regex; and the time budget, wall-clock time even for a regex match
  (whose engine counts CPU time);
- :mod:`tutorial_lib.workspace.search_regex`: the regex engine. ``re`` judges the pattern
  (its messages and positions are the error's), the ``regex`` module runs re's parsed
  tree, translated so that it means what ``re`` means and never matches a newline: a
  backtracking pattern then ends at its timeout in any thread without freezing the
  others, which ``re`` cannot do.

**Secret-bearing files need their own grant**, as for read_lines behind the authorization
station: the policy is :attr:`SearchLimits.secrets`, a
:class:`~tutorial_lib.core.secrets.SecretPolicy` (``.env``, private keys, credential
stores..., but not ``.env.example`` nor ``secrets.py``), the same object the task scope
uses. Without the grant (:attr:`SearchLimits.search_secrets`), an entry with a secret name
is judged in the listing and never opened, so none of its bytes is read, matched or
previewed; it is counted in ``files_skipped.secret``. A ``path`` that is itself secret is
refused (``permission_denied``). The check is by name, as the station's: a symlink is never
followed in the walk, but a ``path`` through an inside link (``notes.txt -> .env``) is
judged by the name given.
"""

from __future__ import annotations

import gc
import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from tutorial_lib.core.arguments import (
    ArgumentExample,
    description_with_examples,
    out_of_range_error,
)
from tutorial_lib.core.authorization import workspace_access
from tutorial_lib.core.contracts import ContractError, Envelope, Source
from tutorial_lib.core.host import Host, HostState
from tutorial_lib.core.secrets import DEFAULT_SECRET_POLICY, SecretPolicy
from tutorial_lib.core.tools import READ_ONLY_LOCAL, Registry, ToolSpec
from tutorial_lib.workspace.read import READ_LINES_SPEC, ReadLimits
from tutorial_lib.workspace.read_schema import MAX_PATH_CHARS
from tutorial_lib.workspace.sandbox import (
    Method,
    check_relative_path,
    describe_file_type,
    name_beneath,
    open_relative,
    open_root,
    resolve_name_beneath,
)
from tutorial_lib.workspace.search_match import PREVIEW_CHARS as PREVIEW_CHARS
from tutorial_lib.workspace.search_match import Matcher, Scanner, compile_matcher
from tutorial_lib.workspace.search_walk import SKIP_REASONS as SKIP_REASONS
from tutorial_lib.workspace.search_walk import Walk

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

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
#: read_lines arguments of a candidate's next_call: from 2 lines before the match, 5 lines.
CONTEXT_BEFORE = 2
CONTEXT_COUNT = 5
MODES = ("literal", "regex")
_NEXT_TOOL = READ_LINES_SPEC.name


@dataclass(frozen=True)
class SearchLimits:
    """Server-side limits (not the model's to choose).

    - ``max_file_bytes``: larger files are skipped (``too_large``); the same limit as
      read_lines, so every candidate can be read;
    - ``max_regex_line_bytes``: in regex mode, longer lines are not searched (a
      backtracking pattern costs a power of the line length); counted in
      ``long_lines_skipped``;
    - ``time_budget_ms``: the search stops after this long, in wall-clock time, with
      ``truncated: true`` and ``stopped_by: "time_budget"`` (None: no budget). It is
      checked between files and chunks, and a regex match is bounded by it from inside,
      in any thread, without stalling the other threads (the regex module's timeout,
      which counts CPU time of the process, given what is left of the wall budget at the
      CPU rate the process was measured to get: see
      :mod:`tutorial_lib.workspace.search_match`);
    - ``max_depth``: directories nested deeper are not entered (``other``);
    - ``chunk_bytes``: the read size, and how much of a file decides "binary";
    - ``max_results_override``: replaces the argument ``max_results`` (benchmarks and
      tests count every match with it; the model's limit stays 1 to 50);
    - ``allow_hard_links``: False (the default, as read_lines) skips regular files with
      more than one hard link (``hard_link``; a ``path`` naming one is
      ``permission_denied``): their other names may lie outside the workspace. Set it
      together with ``ReadLimits(allow_hard_links=True)``, or candidates in such files
      would point to reads that are refused;
    - ``secrets``: which files bear secrets, a
      :class:`~tutorial_lib.core.secrets.SecretPolicy` (default
      :data:`~tutorial_lib.core.secrets.DEFAULT_SECRET_POLICY`: ``.env``, ``*.key``,
      anything under ``credentials/``..., not ``.env.example``); pass the task scope's
      own, so that the search and the authorization station agree;
    - ``search_secrets``: False (the default) skips secret-bearing files (``secret``):
      they are never opened, so no match, preview or byte of them leaves; a ``path``
      naming one (or a secret directory) is ``permission_denied``. True only when the
      user granted secrets for the task (the same grant as the task scope's).
    """

    max_file_bytes: int = ReadLimits().max_file_bytes
    max_regex_line_bytes: int = 4096
    time_budget_ms: int | None = 10_000
    max_depth: int = 64
    chunk_bytes: int = 1 << 20
    max_results_override: int | None = None
    allow_hard_links: bool = ReadLimits().allow_hard_links
    search_secrets: bool = False
    secrets: SecretPolicy = DEFAULT_SECRET_POLICY

    def __post_init__(self) -> None:
        if not isinstance(self.secrets, SecretPolicy):
            raise ValueError(
                "SearchLimits.secrets must be a SecretPolicy (from"
                " tutorial_lib.core.secrets), e.g. SecretPolicy(deny=('*.vault',)),"
                f" not {type(self.secrets).__name__}"
            )


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
                " between parts, e.g. 'lib' or 'lib/cart/pricing.rb'. Omit it to search"
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

    def with_host_state(self, state: HostState) -> SearchContext:
        """This context under a host with a task scope: the scope's one secret policy and
        its secrets grant replace the limits' own (the host calls it once, when built),
        so the station and the walk can never disagree about which files bear secrets."""
        if state.scope is None:
            return self
        limits = replace(
            self.limits,
            secrets=state.scope.secrets,
            search_secrets=state.scope.secrets_granted,
        )
        return replace(self, limits=limits)


@dataclass
class _Scope:
    """What the business check verified and opened: the matcher and the scope's descriptor.

    A context manager: the road closes it whatever happens next.
    """

    matcher: Matcher
    parts: tuple[str, ...]  # the normalized scope; () for the whole workspace
    fd: int
    info: os.stat_result
    closed: bool = False
    #: The name of the opened scope after symlinks, for the host's recheck (None: the root).
    resolved_name: str | None = None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            os.close(self.fd)

    def __enter__(self) -> _Scope:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _resolve(context: SearchContext, args: Mapping[str, Any]) -> str | None:
    """The resolve step: the workspace name ``args["path"]`` leads to after its symlinks,
    by name (nothing opened), for the authorization's resolution station."""
    path = args.get("path")
    return None if path is None else resolve_name_beneath(context.root, path)


def _check(context: SearchContext, args: Mapping[str, Any]) -> _Scope:
    """The business check: a one-line query (a valid pattern in regex mode), and a scope
    inside the workspace that exists and is a directory or a regular file."""
    matcher = compile_matcher(
        args["query"], args.get("mode", "literal"), args.get("case_sensitive", True)
    )
    path = args.get("path")
    parts = _scope_parts(path) if path is not None else ()
    # Before anything is opened, and whether it exists or not (the answer tells nothing).
    limits = context.limits
    if path is not None and not limits.search_secrets:
        why = limits.secrets.explain("/".join(parts))
        if why is not None:
            raise _secret_error(path, why)
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
    opened = name_beneath(context.root, fd) if path is not None else None
    scope = _Scope(matcher, parts, fd, info, resolved_name=opened)
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


def _secret_error(path: str, why: str) -> ContractError:
    """The refusal of a ``path`` that names a secret-bearing file or directory (``why``:
    the policy's explanation)."""
    return ContractError(
        "permission_denied",
        f"'{_cut(path)}' is a secret-bearing path ({_cut(why, 300)}): searching it needs the"
        " user's grant for secrets, which this task does not have",
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
    limits = context.limits
    scanner = Scanner(
        limit=limits.max_results_override or max_results, limits=limits, matcher=scope.matcher
    )
    walk = Walk(limits, scanner)
    walk.search(scope.fd, scope.info, scope.parts)
    return _data(
        walk,
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


# --------------------------------------------------------------------------- the result


def _data(
    walk: Walk, query: str, mode: str, case_sensitive: bool, max_results: int, scope: str
) -> dict[str, Any]:
    """``data`` of the success envelope (see :func:`search_files`)."""
    run = walk.scanner
    out: dict[str, Any] = {
        "query": query,
        "mode": mode,
        "case_sensitive": case_sensitive,
        "scope": scope,
        "max_results": max_results,
        "candidates": _candidates(run.found),
        "truncated": run.stopped_by is not None,
    }
    if run.stopped_by is None:
        out["total_matches"] = run.matches
    else:
        out["total_matches_at_least"] = run.matches
        out["stopped_by"] = run.stopped_by
    out["files_searched"] = walk.files_searched
    out["files_skipped"] = dict(walk.skipped)
    if mode == "regex":
        out["long_lines_skipped"] = run.long_lines_skipped
    suggestion = _suggestion(walk, case_sensitive)
    if suggestion:
        out["suggestion"] = suggestion
    return out


def _suggestion(walk: Walk, case_sensitive: bool) -> str | None:
    run = walk.scanner
    if run.stopped_by == "max_results":
        return (
            f"more than {run.limit} lines match: use a more specific query or set 'path'"
            f" to a smaller directory (max_results allows up to {MAX_RESULTS})"
        )
    if run.stopped_by == "time_budget":
        return (
            "the search ran out of time before covering the scope: set 'path' to a"
            " smaller directory, or simplify a regex that backtracks (e.g. '.*.*')"
        )
    if run.matches == 0:
        if walk.files_searched == 0:
            return "no text file was searched in this scope (see files_skipped)"
        hint = ", or case_sensitive false" if case_sensitive else ""
        return f"no line matches: check the spelling, try a shorter query{hint}"
    return None


def _cut(text: str, chars: int = 80) -> str:
    """``text`` for a message: long input is not echoed in full."""
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _candidates(found: list[tuple[str, int, str, bool]]) -> list[dict[str, Any]]:
    """The candidates of the result, built with the garbage collector paused.

    Building only allocates (no reference cycles can form), yet each nested dict counts
    toward the next collection: 100k candidates (a benchmark's limit, not a model's) cost
    three full collections of the whole heap, about 0.3 s, for nothing. Many candidates
    are then handed to the collector's oldest generation (see :func:`_to_oldest_generation`).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        candidates = [
            # the usual candidate written out (a call per candidate is 10% of building)
            {
                "path": path,
                "line": line,
                "preview": preview,
                "next_call": {
                    "name": _NEXT_TOOL,
                    "arguments": {
                        "path": path,
                        "start": line - CONTEXT_BEFORE if line > CONTEXT_BEFORE else 1,
                        "count": CONTEXT_COUNT,
                    },
                },
            }
            if not cut
            else _candidate(path, line, preview, cut)
            for path, line, preview, cut in found
        ]
        if len(candidates) >= _MANY_CANDIDATES:
            _to_oldest_generation()
        return candidates
    finally:
        if was_enabled:
            gc.enable()


#: From this many candidates on, they are handed to the collector's oldest generation.
_MANY_CANDIDATES = 10_000


def _to_oldest_generation() -> None:
    """Move every object the garbage collector tracks to its oldest generation, in
    constant time: ``gc.freeze()`` then ``gc.unfreeze()``.

    Why: each candidate is two tracked dicts (itself, its next_call). Left in the young
    generation, the first collection after the build goes through all of them (60-100 ms
    for 200,000 candidates), the next one again when it promotes them, and their number
    then brings a full collection of the heap forward. They live as long as the result,
    in the oldest generation where they would end anyway; ``gc.freeze()`` moves every
    tracked object to the permanent generation and ``gc.unfreeze()`` moves them all to
    the oldest, each by splicing a list. What else was young (a few hundred objects at
    most, the collector ran moments ago) waits for the next full collection too.

    Skipped where it would not be free or would undo someone's choice: objects frozen on
    purpose (a server that freezes before it forks: unfreezing would thaw them), a Python
    without ``gc.freeze``, a free-threaded build (there freezing marks every object).
    """
    freeze, unfreeze = getattr(gc, "freeze", None), getattr(gc, "unfreeze", None)
    if freeze is None or unfreeze is None or gc.get_freeze_count() != 0:
        return
    if not getattr(sys, "_is_gil_enabled", lambda: True)():
        return
    freeze()
    unfreeze()


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
    access=workspace_access("read", default="."),
    output_schema=SEARCH_FILES_DATA_SCHEMA,
    check=_check,
    execute=_execute,
    source=_source,
    value_error=_value_error,
    resolve=_resolve,
    untrusted_fields=frozenset(
        {"candidates[].path", "candidates[].preview", "candidates[].next_call.arguments.path"}
    ),
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

    A direct call is the same tool on the same road:
    a host of one tool (:class:`tutorial_lib.core.host.Host`).
    """
    tool = search_files_tool(root, limits=limits, method=method)
    return Host(Registry([tool])).call(TOOL_NAME, args)
