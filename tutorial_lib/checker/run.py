"""One check of one server: start it, list its tools, check each, report.

:func:`check_server` (or ``await`` :func:`check` inside an event loop) runs, in order:

1. **start**: the command as an MCP stdio server
   (:class:`~tutorial_lib.checker.connection.Connection`); a server that cannot be
   started or does not answer the handshake and ``tools/list``
   raises :class:`~tutorial_lib.checker.connection.ServerUnavailable` (the CLI's exit 2);
2. **static** checks of the whole list (:func:`~tutorial_lib.checker.static.static_findings`);
3. for each tool, what it may be called with:

   - a tool annotated read-only (``readOnlyHint: true``, and no name or description that
     says it writes) is called: valid arguments first
     (:func:`~tutorial_lib.checker.arguments.valid_candidates`), then one call per hostile
     kind (:func:`~tutorial_lib.checker.arguments.hostile_calls`), each answer judged
     (below); a next call an answer proposes (``next_tool``: ``{"name", "arguments"}``) is
     made and must succeed; a tool with a cursor argument is paged (below);
   - a tool that may write is called only with ``allow_writes`` and only with the
     arguments the operator gives for it (``calls``); never with generated ones;
   - a tool whose ``openWorldHint`` is not false (MCP's default is true: it may reach
     the internet) is called only with ``allow_open_world``: what the checker sends goes
     to the local process only, and should stay on this machine; when the operator gives
     arguments for it (``calls``), only those start its calls, even if they fail (never
     a value the checker makes up, such as a URL);

4. with ``workspace``, every call to a read-only tool is framed by two snapshots of the
   folder (:mod:`~tutorial_lib.checker.workspace`): they must be identical; an allowed
   write annotated ``destructiveHint: false`` must not change or remove a file, one
   annotated ``idempotentHint: true`` is repeated and must change nothing more.

How an answer is judged: a timeout, a closed connection (the server is started again), a
JSON-RPC protocol error, or a result the SDK's client refuses is a finding whatever the
arguments. A success for arguments the declared schema refuses is
``hostile_input_accepted``; a tool error (``isError``) for them must say something, name
the argument, and say what to do next. Paging: small pages and one large page must list
the same items in the same order, no item twice, no cursor twice, and an invalid or
tampered cursor must be an error, not a silent restart.

Findings of a rule that repeat for several hostile kinds of one tool are reported once,
naming the kinds, with the first call as evidence.

Every answer is also judged for what its clients accept: a success must match the tool's
``outputSchema`` (the SDK's client refuses it otherwise: ``output_schema_violation``), and
a tool error must carry no ``structuredContent``, or one that matches it
(``error_output_schema_violation``): the TypeScript SDK's client and the MCP Inspector
check it whatever ``isError`` says, while the Python SDK's client, which the checker
drives, checks successes only, so the checker validates errors itself.

Protocol revisions (``CheckOptions.protocol``): the Python SDK's client negotiates
:data:`MODERN` (2026-07-28, ``server/discover``) and falls back to the ``initialize``
handshake; the TypeScript SDK's client and the Inspector negotiate :data:`LEGACY`
(2025-11-25). With ``"both"`` (the default) the full check runs on the modern revision
(on the legacy one for a server that does not speak it), then a light check on the legacy
revision: a second server process, the handshake, ``tools/list``, and for each read-only
tool the full check called its valid arguments and one invalid call, each answer judged as
above (:data:`ANSWER_RULES`). The full check costs one call per hostile kind and page; the
light one two calls per tool and one more start of the server. A finding seen on one
revision only says which (``Finding.only_on``); the report says, per revision, what was
checked and whether it connected (``Report.protocols``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio
from mcp_types.version import (
    LATEST_HANDSHAKE_VERSION,
    LATEST_MODERN_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)

from tutorial_lib.checker.arguments import (
    KINDS,
    WIRE_KINDS,
    HostileCall,
    hostile_calls,
    printable,
    properties_of,
    schema_accepts,
    schema_failure,
    valid_candidates,
)
from tutorial_lib.checker.connection import Answer, Connection, ServerUnavailable
from tutorial_lib.checker.report import (
    SERVER,
    Evidence,
    Finding,
    ProtocolPass,
    Report,
    ToolCoverage,
    trim,
)
from tutorial_lib.checker.rules import RULES, severity_of
from tutorial_lib.checker.static import (
    describe_orders,
    hints_of,
    model_orders,
    static_findings,
    suspected_write,
)
from tutorial_lib.checker.workspace import (
    Snapshot,
    destroyed,
    differences,
    holds_text,
    snapshot,
)

__all__ = [
    "LEGACY",
    "MODERN",
    "PROTOCOLS",
    "CheckOptions",
    "check",
    "check_server",
    "load_calls",
]

#: The protocol revision the Python SDK's client negotiates by default (``server/discover``).
MODERN = LATEST_MODERN_VERSION
#: The revision of the ``initialize`` handshake: what the TypeScript SDK's client and the
#: MCP Inspector negotiate.
LEGACY = LATEST_HANDSHAKE_VERSION
#: The values of ``CheckOptions.protocol`` (``--protocol``).
PROTOCOLS: tuple[str, ...] = (MODERN, LEGACY, "both")
#: The rules an answer is judged by whatever the call was: what the light check of the
#: other revision looks for (see :func:`check`).
ANSWER_RULES = frozenset(
    [
        "protocol_error",
        "output_schema_violation",
        "error_output_schema_violation",
        "result_malformed",
        "call_timeout",
        "server_crashed",
        "answer_unreadable",
    ]
)
#: The hostile kinds the light check picks its one invalid call from, in this order:
#: cheap, and refused by any schema that declares the argument.
LIGHT_KINDS = (
    "missing_required",
    "wrong_type",
    "out_of_range",
    "not_in_enum",
    "bool_as_integer",
    "integer_as_string",
    "extra_field",
)

#: How each hostile kind is described in a finding ({field}: the argument it targets).
KIND_TEXT = {
    "missing_required": "without the required argument '{field}'",
    "wrong_type": "with '{field}' of the wrong JSON type",
    "bool_as_integer": "with true for the integer '{field}'",
    "integer_as_string": "with the integer '{field}' sent as a string",
    "extra_field": "with the undeclared argument '{field}'",
    "out_of_range": "with '{field}' outside its declared range",
    "not_in_enum": "with '{field}' not one of its allowed values",
    "huge_string": "with a million characters for '{field}'",
    "lone_surrogate": "with a lone surrogate (\\ud800) in '{field}'",
    "deep_nesting": "with 1000 nested arrays for '{field}'",
    "invalid_cursor": "with an invalid cursor in '{field}'",
    "tampered_cursor": "with a tampered cursor in '{field}'",
}
#: Words that tell a caller what to do next (any one is enough).
NEXT_STEP_WORDS = re.compile(
    r"\b(use|try|call|pass|send|provide|give|set|omit|remove|must|should|expected|expects"
    r"|allowed|one of|at most|at least|between|instead|retry|search|e\.g\.|for example"
    r"|did you mean|required|valid values|accepted values|maximum|minimum)\b",
    re.IGNORECASE,
)
#: Keys of a structured error that say what to do next.
NEXT_STEP_KEYS = frozenset(
    ["suggestion", "next_tool", "next_call", "hint", "expected", "allowed_values", "fix", "help"]
)
#: Keys under which an answer proposes its next call ({"name", "arguments"}).
PROPOSAL_KEYS = ("next_tool", "next_call", "suggested_call", "suggestion")
_CURSOR = re.compile(
    r"^(cursor|page_?token|pagetoken|next_?token|continuation(_?token)?|starting_?after"
    r"|after_?cursor|.*_cursor)$",
    re.IGNORECASE,
)
_PAGE_SIZE = re.compile(
    r"^(page_?size|per_?page|limit|max_?results|page_?limit|batch_?size)$", re.IGNORECASE
)
_NEXT_KEYS = (
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "next_token",
    "nextToken",
)
_AGGREGATED = frozenset(
    [
        "protocol_error",
        "error_empty",
        "error_names_no_field",
        "error_without_next_step",
        "call_timeout",
        "server_crashed",
        "output_schema_violation",
        "error_output_schema_violation",
        "result_malformed",
        "answer_unreadable",
        "refusal_reported_as_success",
        "error_echoes_input",
        "error_reveals_internals",
        "secret_in_result",
        "result_instructs_model",
        "result_relays_instructions",
    ]
)


@dataclass(frozen=True)
class CheckOptions:
    """What a check does (see the module).

    - ``kinds``: the hostile kinds to try (:data:`~tutorial_lib.checker.arguments.KINDS`);
    - ``timeout_s``: the time limit of one call; ``startup_s``: of starting the server;
    - ``workspace``: the folder the server works in, snapshot around every read-only call;
    - ``allow_writes``: call tools that may write, with ``calls`` only;
    - ``allow_open_world``: call tools whose ``openWorldHint`` is not false;
    - ``calls``: tool name -> list of argument objects (the operator's ``--calls`` file);
      for a read-only tool they are the first valid arguments tried;
    - ``max_calls``: calls to one tool at most (hostile kinds and pages included);
    - ``max_pages``: pages of one traversal at most; ``max_restarts``: server restarts;
    - ``tools``: check only these tools (static checks still see the whole list);
    - ``vouch``: tools without ``readOnlyHint`` that the operator vouches for: they only
      read and stay on this machine, so they are probed as read-only local tools;
    - ``fail_on``: the severity at which the run fails (exit 1);
    - ``protocol``: the protocol revision(s) to check on (:data:`PROTOCOLS`): ``MODERN``
      (2026-07-28, ``server/discover``), ``LEGACY`` (2025-11-25, the ``initialize``
      handshake the TypeScript SDK and the Inspector use), or ``"both"`` (the default: the
      full check on the revision the SDK negotiates, a light check on the other);
    - ``cwd`` and ``env``: how the server is started;
    - ``progress``: called with (tools done, tools in all, tool name) as the check goes.
    """

    kinds: tuple[str, ...] = KINDS
    timeout_s: float = 10.0
    startup_s: float = 30.0
    workspace: Path | None = None
    allow_writes: bool = False
    allow_open_world: bool = False
    calls: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    max_calls: int = 60
    max_pages: int = 20
    max_restarts: int = 3
    tools: tuple[str, ...] = ()
    vouch: tuple[str, ...] = ()
    fail_on: str = "error"
    protocol: str = "both"
    cwd: Path | None = None
    env: Mapping[str, str] | None = None
    progress: Callable[[int, int, str], None] | None = None

    def shown(self) -> dict[str, Any]:
        """The options that shape the result, for the report (no timings)."""
        return {
            "kinds": ",".join(self.kinds) or "none",
            "timeout_s": self.timeout_s,
            "workspace": str(self.workspace) if self.workspace else None,
            "allow_writes": self.allow_writes,
            "allow_open_world": self.allow_open_world,
            "calls_for": sorted(self.calls),
            "max_calls": self.max_calls,
            "tools": list(self.tools) or "all",
            "vouched": list(self.vouch),
            "protocol": self.protocol,
        }


def load_calls(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Read a ``--calls`` file: ``{"tool_name": [{...arguments...}, ...], ...}`` (one
    object instead of a list is one call). Raises ``ValueError`` with what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read the calls file {path}: {error}") from error
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the calls file is an object of tool name -> arguments")
    calls: dict[str, list[dict[str, Any]]] = {}
    for name, value in data.items():
        items = value if isinstance(value, list) else [value]
        if not all(isinstance(item, dict) for item in items):
            raise ValueError(f"{path}: the calls of {name!r} are argument objects")
        calls[str(name)] = [dict(item) for item in items]
    return calls


@dataclass
class _Page:
    items: list[Any]
    keys: list[str]
    next_cursor: str | None
    evidence: Evidence


@dataclass
class _Traversal:
    pages: list[_Page]
    ended: bool
    size: int | None

    def keys(self) -> list[str]:
        return [key for page in self.pages for key in page.keys]


def _key(item: Any) -> str:
    return json.dumps(item, sort_keys=True, ensure_ascii=False, default=repr)


def _call_key(tool: str, kind: str, arguments: Any) -> str:
    """One call, as the revisions of a check compare them: a digest of tool, kind and
    arguments (nesting too deep for ``json`` is compared as the report prints it)."""
    try:
        text = _key([tool, kind, arguments])
    except (RecursionError, ValueError):
        text = _key([tool, kind, printable(arguments)])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _items_of(payload: Any) -> list[Any] | None:
    """The list a page carries: the longest list value at the top (or under ``data``)."""
    if not isinstance(payload, dict):
        return payload if isinstance(payload, list) else None
    scopes = [payload] + [payload[k] for k in ("data", "page", "result") if isinstance(
        payload.get(k), dict
    )]  # fmt: skip
    lists = [v for scope in scopes for v in scope.values() if isinstance(v, list)]
    return max(lists, key=len) if lists else None


#: Argument names that cap how many items one call returns.
_LIMIT_NAMES = re.compile(
    r"^(?:limit|max_?results|max_?items|page_?size|per_?page|count|top_?k|n|num_?results"
    r"|max_?count|max)$",
    re.IGNORECASE,
)
#: Keys that tell a client more items exist (or that the list was cut).
_MORE_KEYS = re.compile(
    r"cursor|has_?more|truncated|next|more|total|remaining|continuation|offset",
    re.IGNORECASE,
)


def _limit_argument(
    schema: Mapping[str, Any], base: Mapping[str, Any]
) -> tuple[str, int, int] | None:
    """The integer argument that caps a list (``limit``, ``max_results``...), a small value
    and a larger one the schema accepts, or None."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return None
    for name, sub in props.items():
        if not (isinstance(sub, dict) and _LIMIT_NAMES.match(name)):
            continue
        declared = sub.get("type")
        if "integer" not in (declared if isinstance(declared, list) else [declared]):
            continue
        low = sub.get("minimum", 1)
        small = max(1, int(low) if isinstance(low, (int, float)) else 1)
        high = sub.get("maximum")
        large = small + 50
        if isinstance(high, (int, float)):
            large = min(large, int(high))
        if large > small and schema_accepts(schema, {**base, name: small}):
            return name, small, large
    return None


def _two_values(schema: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """Two different values an enum or boolean argument takes (in an ``anyOf`` /
    ``oneOf`` branch too: ``Literal[...] | None``), or None."""
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for branch in branches:
                found = _two_values(branch) if isinstance(branch, dict) else None
                if found is not None:
                    return found
    enum = schema.get("enum")
    if isinstance(enum, list):
        values = [v for v in enum if v is not None]
        return (values[0], values[-1]) if len(values) >= 2 else None
    declared = schema.get("type")
    if declared == "boolean" or (isinstance(declared, list) and "boolean" in declared):
        return (True, False)
    return None


def _says_more(payload: Any) -> bool:
    """Whether an answer carries any key that tells of more items or a cut."""
    if not isinstance(payload, dict):
        return False
    scopes = [payload] + [v for v in payload.values() if isinstance(v, dict)]
    return any(_MORE_KEYS.search(key) for scope in scopes for key in scope)


def _next_cursor_of(payload: Any) -> tuple[bool, str | None]:
    """(whether the page has a next-cursor field, its value or None at the end)."""
    if not isinstance(payload, dict):
        return False, None
    scopes = [payload] + [payload[k] for k in ("data", "page", "pagination", "paging", "meta")
                          if isinstance(payload.get(k), dict)]  # fmt: skip
    for scope in scopes:
        for key in _NEXT_KEYS:
            if key in scope:
                value = scope[key]
                return True, value if isinstance(value, str) and value else None
    return False, None


def _tamper(cursor: str) -> str:
    """``cursor`` with one character in the middle changed to another of its class."""
    index = len(cursor) // 2
    char = cursor[index]
    if char.isdigit():
        new = "7" if char != "7" else "3"
    elif char.isalpha():
        new = ("Q" if char != "Q" else "R") if char.isupper() else ("q" if char != "q" else "r")
    else:
        new = "A"
    return cursor[:index] + new + cursor[index + 1 :]


def _walk(value: Any, depth: int = 0) -> Any:
    if depth > 6:
        return
    yield value
    if isinstance(value, dict):
        for child in value.values():
            yield from _walk(child, depth + 1)
    elif isinstance(value, list):
        for child in value[:50]:
            yield from _walk(child, depth + 1)


def _as_call(value: Any) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(value, dict):
        return None
    name = value.get("name", value.get("tool"))
    arguments = value.get("arguments", value.get("args"))
    if isinstance(name, str) and isinstance(arguments, dict):
        return name, arguments
    return None


def proposals(payload: Any) -> list[tuple[str, dict[str, Any], bool]]:
    """The next calls an answer proposes: (tool, arguments, explicit), in order.

    ``explicit``: under a key that names a next call (:data:`PROPOSAL_KEYS`); otherwise
    any ``{"name": ..., "arguments": {...}}`` object found in the answer.
    """
    found: list[tuple[str, dict[str, Any], bool]] = []
    seen: set[str] = set()
    for node in _walk(payload):
        if not isinstance(node, dict):
            continue
        for key in PROPOSAL_KEYS:
            call = _as_call(node.get(key))
            if call and _key(call) not in seen:
                seen.add(_key(call))
                found.append((*call, True))
        call = _as_call(node)
        if call and _key(call) not in seen:
            seen.add(_key(call))
            found.append((*call, False))
    return found


#: Seconds a request of a wire kind (lone surrogate, deep nesting) waits for its answer.
WIRE_PROBE_S = 3.0
#: An error longer than this, for a call with a huge string, echoes it back.
ECHO_CHARS = 10_000
#: Values given with --env that are at least this long are watched for in answers.
SECRET_CHARS = 8
_REFUSAL_START = re.compile(
    r"^\W{0,3}(?:error|failed|failure|invalid|exception|cannot|could not|unable to)\b",
    re.IGNORECASE,
)
_INTERNALS = re.compile(
    r"Traceback \(most recent call last\)"
    r"|File \"/[^\"]+\", line \d+"
    r"|/(?:site|dist)-packages/"
    r"|/node_modules/"
    r"|\n\s+at [\w.<>$]+ \((?:file://)?/[^)]+:\d+:\d+\)"
)


def _strings(value: Any) -> list[str]:
    """Every key and string in ``value``, however deep (no recursion: a hostile argument
    nests a thousand levels)."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, Mapping):
            found.extend(str(key) for key in item)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def looks_like_refusal(text: str) -> bool:
    """Whether a success's text reads as a refusal ("Error: ...", "Invalid ...")."""
    return bool(_REFUSAL_START.search(text.strip()))


def internals_shown(text: str) -> str | None:
    """What of the server's internals ``text`` shows (a stack trace, an install path), or None."""
    found = _INTERNALS.search(text)
    return None if found is None else repr(found.group(0).strip()[:60])


def _names_field(answer: Answer, name: str) -> bool:
    for node in _walk(answer.payload()):
        if isinstance(node, dict):
            for key in ("field", "path", "param", "parameter", "argument", "property", "loc"):
                value = node.get(key)
                if value == name or (isinstance(value, list) and name in value):
                    return True
    pattern = rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"
    return re.search(pattern, answer.everything()) is not None


def _says_next_step(answer: Answer) -> bool:
    for node in _walk(answer.payload()):
        if isinstance(node, dict) and any(node.get(key) for key in NEXT_STEP_KEYS):
            return True
    return NEXT_STEP_WORDS.search(answer.everything()) is not None


class _Run:
    def __init__(
        self,
        connection: Connection,
        options: CheckOptions,
        tools: list[dict[str, Any]],
        static: list[Finding],
    ) -> None:
        self.connection = connection
        self.options = options
        self.tools = {str(t.get("name")): t for t in tools}
        self.static = static
        self.findings: list[Finding] = list(static)
        self.coverage: dict[str, ToolCoverage] = {}
        self.dropped: set[str] = set()  # wire kinds the server's reader drops
        self.dead = ""  # why the server can no longer be reached
        self._aggregate: dict[tuple[str, str], list[tuple[str, str, Evidence]]] = {}
        self._followed: set[str] = set()
        # For comparing protocol revisions: the calls made (tool, kind, arguments), the
        # calls each (tool, rule) was raised by, and what a read-only tool was called with.
        self.made: set[str] = set()
        self.raised: dict[tuple[str, str], set[str]] = {}
        self.replay: dict[str, tuple[dict[str, Any], bool]] = {}  # arguments, succeeded
        self._current = ""  # the call being judged

    # -- findings ------------------------------------------------------------------------

    def add(self, tool: str, rule: str, message: str, evidence: Evidence | None = None) -> None:
        if self._current:
            self.raised.setdefault((tool, rule), set()).add(self._current)
        self.findings.append(
            Finding(
                tool,
                rule,
                severity_of(rule),
                message,
                RULES[rule].chapter,
                evidence,
                fix=RULES[rule].fix,
            )
        )

    def note(self, tool: str, rule: str, message: str, kind: str, evidence: Evidence) -> None:
        """A finding reported once per (tool, rule), naming every kind it was seen for."""
        if self._current:
            self.raised.setdefault((tool, rule), set()).add(self._current)
        if rule not in _AGGREGATED:
            self.add(tool, rule, message, evidence)
            return
        self._aggregate.setdefault((tool, rule), []).append((kind, message, evidence))

    def flush(self) -> None:
        for (tool, rule), seen in sorted(self._aggregate.items()):
            kinds = list(dict.fromkeys(kind for kind, _, _ in seen))
            _, message, evidence = seen[0]
            if len(seen) > 1:
                message += f" (seen for {len(seen)} calls: {', '.join(kinds)})"
            self.add(tool, rule, message, evidence)
        self._aggregate.clear()

    # -- calls ----------------------------------------------------------------------------

    def hints(self, tool: Mapping[str, Any]) -> dict[str, bool]:
        """The tool's hints, with the operator's word for a vouched unannotated tool: it
        only reads, on this machine."""
        hints = hints_of(tool)
        if tool.get("name") in self.options.vouch and "readOnlyHint" not in hints:
            hints = {**hints, "readOnlyHint": True, "openWorldHint": False}
        return hints

    def callable_read_only(self, name: str) -> bool:
        tool = self.tools.get(name)
        if tool is None:
            return False
        hints = self.hints(tool)
        if hints.get("readOnlyHint") is not True or suspected_write(self.static, name):
            return False
        return hints.get("openWorldHint", True) is False or self.options.allow_open_world

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        kind: str,
        *,
        budget: ToolCoverage,
        wire: dict[str, Any] | None = None,
        raw: Mapping[str, str] | None = None,
        watch: bool = True,
        what: str = "",
    ) -> tuple[Answer, Evidence] | None:
        """One call, judged for what every answer must be; None when out of budget.

        ``kind`` names the call in the evidence (``"valid"``, ``"wrong_type"``...); ``what``
        describes it in messages ("with valid arguments"), ``kind`` by default.
        """
        what = what or kind
        if self.dead or budget.calls >= self.options.max_calls:
            return None
        workspace = self.options.workspace
        before: Snapshot | None = snapshot(workspace) if workspace and watch else None
        # A line the server's JSON reader drops is never answered: such a kind waits a
        # short probe, not a whole time limit (a reader that takes it answers at once).
        limit = min(self.options.timeout_s, WIRE_PROBE_S) if kind in WIRE_KINDS else None
        answer = await self.connection.call(
            name, wire if wire is not None else arguments, raw, limit_s=limit
        )
        budget.calls += 1
        evidence = Evidence(name, printable(arguments), kind, trim(answer.summary()))
        self._current = _call_key(name, kind, arguments)
        self.made.add(self._current)
        try:
            await self._judge_answer(name, answer, kind, evidence, what, before)
            self._orders(name, answer, kind, evidence, what, arguments)
        finally:
            self._current = ""
        return answer, evidence

    async def _judge_answer(
        self,
        name: str,
        answer: Answer,
        kind: str,
        evidence: Evidence,
        what: str,
        before: Snapshot | None,
    ) -> None:
        """What every answer must be, whatever the call: the workspace unchanged (for a
        read-only tool), the transport's verdict, structured content its clients take."""
        workspace = self.options.workspace
        if before is not None and workspace is not None:
            changes = differences(before, snapshot(workspace))
            if changes:
                self.add(
                    name,
                    "read_only_changed_workspace",
                    f"'{name}' is annotated read-only, but a call {what} changed the"
                    f" workspace: {changes.describe()}",
                    evidence,
                )
        await self._transport(name, answer, kind, evidence, what)
        secrets = [v for v in (self.options.env or {}).values() if len(v) >= SECRET_CHARS]
        if secrets and any(secret in answer.everything() for secret in secrets):
            self.note(
                name,
                "secret_in_result",
                f"the answer to a call {what} contains a value the server was given with"
                " --env/--env-pass: whatever reaches the model can reach anyone it talks to",
                kind,
                Evidence(
                    evidence.tool, evidence.arguments, evidence.kind, "(withheld: holds the secret)"
                ),  # fmt: skip
            )
        if answer.tool_error:
            self._error_text(name, answer, kind, evidence, what)
        if answer.tool_error and answer.structured is not None:
            self._error_structure(name, answer, kind, evidence, what)

    def _orders(
        self,
        name: str,
        answer: Answer,
        kind: str,
        evidence: Evidence,
        what: str,
        arguments: Mapping[str, Any],
    ) -> None:
        """Text in an answer that addresses the model (orders, invisible characters), by
        where it came from. The server wrote it when a closed-world tool (``openWorldHint:
        false``) returns it and it is in no file of the workspace, or when it comes with
        the refusal of hostile arguments (no data was read): tool poisoning, an error.
        Otherwise it may be data the tool read (a web page, a comment): worth knowing, a
        host treats it as data (chapter 06), an info. The workspace is searched as bytes:
        text a closed-world tool decodes from it (a git server's compressed objects, a
        commit message) is in no file as such, and would be taken for the server's own."""
        if answer.kind != "result":
            return
        sent = "\n".join(_strings(arguments))
        pieces = [p for p in dict.fromkeys(model_orders(answer.everything())) if p not in sent]
        if not pieces:
            return
        tool = self.tools.get(name, {})
        # only a closed-world tool reads nothing but the workspace: an open-world one may
        # relay a page or a comment the checker never sees
        closed = self.hints(tool).get("openWorldHint", True) is False
        workspace = self.options.workspace if closed else None
        relayed = workspace is not None and holds_text(workspace, pieces)
        schema = tool.get("inputSchema")
        refused = (
            answer.tool_error
            and kind in KINDS
            and isinstance(schema, dict)
            and not schema_accepts(schema, dict(arguments))
        )
        if (workspace is not None and not relayed) or refused:
            where = (
                "is in no file of the workspace"
                if workspace is not None and not relayed
                else "comes with the refusal of arguments the schema forbids (no data was read)"
            )
            self.note(
                name,
                "result_instructs_model",
                f"the answer to a call {what} addresses the model: {describe_orders(pieces)};"
                f" the text {where}, so the server wrote it (tool poisoning: the user sees a"
                " tool result, the model reads an order)",
                kind,
                evidence,
            )
            return
        source = "a file of the workspace" if relayed else "data the tool read"
        self.note(
            name,
            "result_relays_instructions",
            f"the answer to a call {what} carries text addressed to the model:"
            f" {describe_orders(pieces)}; it may come from {source} (then it is data: a host"
            " must not follow it, and a client should show it to the user as quoted content)",
            kind,
            evidence,
        )

    def _error_text(
        self, name: str, answer: Answer, kind: str, evidence: Evidence, what: str
    ) -> None:
        """What no error's text should be, whatever the call: a huge argument echoed
        back, the server's internals shown."""
        said = answer.everything()
        if kind == "huge_string" and len(said) > ECHO_CHARS:
            self.note(
                name,
                "error_echoes_input",
                f"the error for a call {what} is {len(said):,} characters long: it echoes"
                " the argument back, and the model pays for it in context; quote at most"
                " its start and its length",
                kind,
                evidence,
            )
        internals = internals_shown(said)
        if internals is not None:
            self.note(
                name,
                "error_reveals_internals",
                f"the error for a call {what} shows the server's internals ({internals}):"
                " install paths and stack traces tell an attacker what runs where, and the"
                " model nothing it can act on",
                kind,
                evidence,
            )

    def _error_structure(
        self, name: str, answer: Answer, kind: str, evidence: Evidence, what: str
    ) -> None:
        """A tool error's structuredContent against the tool's outputSchema: the TypeScript
        SDK's client and the Inspector check it whatever isError says (the Python SDK's
        client checks successes only, so :class:`Connection` hands it over unchecked)."""
        schema = self.tools.get(name, {}).get("outputSchema")
        if not isinstance(schema, dict):
            return  # without an outputSchema, no client checks structuredContent
        failure = schema_failure(schema, answer.structured)
        if failure is None:
            return
        self.note(
            name,
            "error_output_schema_violation",
            f"the error for a call {what} carries structuredContent that does not match the"
            f" tool's outputSchema ({failure}): the TypeScript SDK's client and the MCP"
            " Inspector check structuredContent whatever isError says, and refuse the whole"
            " result (McpError -32602: Structured content does not match the tool's output"
            " schema), so the model never sees the error; the Python SDK's client checks"
            " successes only and hides this",
            kind,
            Evidence(
                evidence.tool,
                evidence.arguments,
                evidence.kind,
                trim(f"structuredContent fails the outputSchema: {failure}; {answer.summary()}"),
            ),
        )

    async def _transport(
        self, name: str, answer: Answer, kind: str, evidence: Evidence, what: str
    ) -> None:
        if answer.kind == "timeout":
            if kind in WIRE_KINDS:
                if kind not in self.dropped:
                    self.dropped.add(kind)
                    what = KIND_TEXT[kind].split(" in ")[0].split(" for ")[0]
                    reply = (
                        "a JSON-RPC parse error with id null, which no client can match to"
                        " its request"
                        if answer.parse_error
                        else "nothing"
                    )
                    self.add(
                        SERVER,
                        "request_dropped",
                        f"a request {what} got {reply} within {answer.limit_s:g} s, and the"
                        " server went on answering other requests: its JSON reader drops"
                        " the line (an SDK's stdio reader often does), so the agent waits"
                        f" for its own time limit. Checked once, on '{name}'; the other"
                        " tools were not sent it",
                        evidence,
                    )
            else:
                self.note(
                    name,
                    "call_timeout",
                    f"a call {what} got no answer within {answer.limit_s:g} s",
                    kind,
                    evidence,
                )
            if not await self.connection.alive():
                await self._restart(name, "it stopped answering after the timeout")
        elif answer.kind == "closed":
            self.note(
                name,
                "server_crashed",
                f"a call {what} closed the connection: the server process exited or closed"
                " its output",
                kind,
                evidence,
            )
            await self._restart(name, "it closed the connection")
        elif answer.kind == "protocol_error":
            self.note(
                name,
                "protocol_error",
                f"a call {what} got a JSON-RPC protocol error ({answer.code}) instead of a"
                " tool result: the model never sees it, so it cannot correct itself; answer"
                " bad arguments with isError and a message",
                kind,
                evidence,
            )
        elif answer.kind == "refused_by_client":
            self.note(
                name,
                "output_schema_violation",
                f"the SDK's client refused the success of a call {what}: {answer.message}",
                kind,
                evidence,
            )
        elif answer.kind == "unreadable":
            self.note(
                name,
                "answer_unreadable",
                f"the answer to a call {what} is a line the SDK's client cannot parse"
                f" ({answer.message}): a client drops it and waits for its time limit;"
                " escape what you echo back (a lone surrogate cannot be written as UTF-8)",
                kind,
                evidence,
            )
        elif answer.kind == "malformed":
            self.note(
                name,
                "result_malformed",
                f"the answer to a call {what} is not a valid MCP result: {answer.message}",
                kind,
                evidence,
            )

    async def _restart(self, name: str, why: str) -> None:
        coverage = self.coverage.get(name)
        if self.connection.restarts >= self.options.max_restarts:
            self.dead = f"the server stopped after {self.connection.restarts} restarts"
        else:
            try:
                await self.connection.restart()
            except ServerUnavailable as error:
                self.dead = f"the server could not be started again: {error}"
        if coverage is not None:
            coverage.notes.append(
                f"the server was started again ({why})"
                if not self.dead
                else f"checking stopped: {self.dead}"
            )

    # -- one tool ---------------------------------------------------------------------------

    async def check_tool(self, name: str) -> None:
        tool = self.tools[name]
        hints = self.hints(tool)
        annotated = hints.get("readOnlyHint") is True
        coverage = ToolCoverage(name, read_only=annotated)
        if name in self.options.vouch and "readOnlyHint" not in hints_of(tool):
            coverage.notes.append("probed as read-only on the operator's word (--vouch)")
        self.coverage[name] = coverage
        open_world = hints.get("openWorldHint", True) is not False
        started = time.perf_counter()
        try:
            if self.dead:
                coverage.reason = f"not called: {self.dead}"
            elif annotated and suspected_write(self.static, name):
                coverage.reason = "annotated read-only, but reads as a write: called only as one"
                if self.options.allow_writes and self.options.calls.get(name):
                    await self._check_write(tool, coverage)
            elif annotated:
                if open_world and not self.options.allow_open_world:
                    coverage.reason = "open world (openWorldHint not false): --allow-open-world"
                else:
                    await self._check_read(tool, coverage)
            elif not self.options.allow_writes:
                coverage.reason = "may write: needs --allow-writes and --calls"
            elif not self.options.calls.get(name):
                coverage.reason = "may write: --calls gives no arguments for it"
            elif open_world and not self.options.allow_open_world:
                coverage.reason = "open world (openWorldHint not false): --allow-open-world"
            else:
                await self._check_write(tool, coverage)
        finally:
            self.flush()
            coverage.elapsed_s = time.perf_counter() - started

    async def _check_read(self, tool: dict[str, Any], coverage: ToolCoverage) -> None:
        name = str(tool["name"])
        schema = tool.get("inputSchema") or {}
        coverage.status = "checked"
        configured = self.options.calls.get(name, ())
        candidates = valid_candidates(tool, configured=configured, workspace=self.options.workspace)
        if configured and hints_of(tool).get("openWorldHint", True) is not False:
            # what an open-world tool is sent may reach other machines: the operator's
            # arguments only, never the checker's own (e.g. a URL it would make up)
            candidates = [c for c in candidates if c.source == "--calls"]
        base: dict[str, Any] | None = None
        base_answer: Answer | None = None
        last: Evidence | None = None
        refused = tried = 0  # refused: answered, not with a success (a timeout is no answer)
        for candidate in candidates:
            done = await self.call(
                name, candidate.arguments, "valid", budget=coverage, what="with valid arguments"
            )
            if done is None:
                break
            answer, evidence = done
            tried += 1
            if answer.kind != "timeout":
                last = evidence
                refused += not answer.success
            if answer.success:
                base, base_answer = candidate.arguments, answer
                coverage.valid_arguments = candidate.source
                await self._follow(name, answer, evidence, coverage)
                break
        if not candidates:
            self.add(
                name,
                "no_valid_arguments",
                "the checker could not build arguments the schema accepts (no example in"
                " the description or schema, and generated values fail it): give some with"
                " --calls",
            )
        elif base is None and last is not None:
            timed_out = tried - refused
            self.add(
                name,
                "valid_call_refused",
                f"no valid arguments succeeded ({tried} tried, from"
                f" {', '.join(dict.fromkeys(c.source for c in candidates))}"
                + (f"; {timed_out} of them timed out" if timed_out > 0 else "")
                + "): success-only checks (paging, next calls) and the judgement of error"
                " messages were skipped; give working ones with --calls",
                last,
            )
        start = base if base is not None else (candidates[0].arguments if candidates else {})
        if candidates:
            self.replay[name] = (start, base is not None)
        kinds = [k for k in self.options.kinds if k not in self.dropped]
        for hostile in hostile_calls(schema, start, kinds):
            if hostile.kind in self.dropped:
                continue
            # Without a call that succeeded to start from, an error may be about another
            # argument than the one changed: only what every answer must be (no crash,
            # hang...) is judged.
            await self._hostile(name, hostile, coverage, judge_errors=base is not None)
            if self.dead:
                return
        if base is not None:
            await self._paging(tool, base, coverage)
            if base_answer is not None:
                await self._again(name, base, base_answer, coverage)
            await self._truncation(tool, base, coverage)
            if base_answer is not None:
                await self._ignored(tool, base, base_answer, coverage)

    async def _ignored(
        self, tool: dict[str, Any], base: dict[str, Any], first: Answer, coverage: ToolCoverage
    ) -> None:
        """An optional enum or boolean argument must change a list of two items or more:
        two of its values giving the very same answer means the tool ignores it (a
        filter or an order the model believes it applied)."""
        name = str(tool["name"])
        if len(_items_of(first.payload()) or []) < 2:
            return
        schema = tool.get("inputSchema") or {}
        required = set(schema.get("required") or [])
        for argument, sub in list(properties_of(schema).items())[:12]:
            if argument in base or argument in required or not isinstance(sub, dict):
                continue
            values = _two_values(sub)
            if values is None:
                continue
            answers = []
            for value in values:
                done = await self.call(
                    name, {**base, argument: value}, "optional", budget=coverage,
                    what=f"with {argument}={value!r}",
                )  # fmt: skip
                if done is None or not done[0].success:
                    return
                answers.append(done)
            (one, _), (two, evidence) = answers
            if one.everything() == two.everything():
                self.add(
                    name,
                    "argument_ignored",
                    f"'{argument}' set to {values[0]!r} and to {values[1]!r} gave the very"
                    f" same answer ({len(_items_of(one.payload()) or [])} items): the tool"
                    " ignores it, and a model believes it filtered or ordered",
                    evidence,
                )
            return  # one argument per tool: each costs two calls

    async def _again(
        self, name: str, base: dict[str, Any], first: Answer, coverage: ToolCoverage
    ) -> None:
        """The first successful read made again (after the hostile calls): a list in its
        answer must not have grown (every item of the first answer back, and more): a
        read that keeps a log, a counter or a cache of its calls changes what the next
        call sees."""
        second = await self.call(name, base, "valid_again", budget=coverage, what="again")
        if second is None or not second[0].success:
            return
        before, after = _items_of(first.payload()), _items_of(second[0].payload())
        if before is None or after is None or len(after) <= len(before):
            return
        keys = [_key(item) for item in after]
        if all(_key(item) in keys for item in before):
            self.add(
                name,
                "read_grows_state",
                f"'{name}' is annotated read-only, but the same call made twice answered"
                f" {len(before)} then {len(after)} items, every earlier one still there:"
                " each read adds to what the next one sees",
                second[1],
            )

    async def _truncation(
        self, tool: dict[str, Any], base: dict[str, Any], coverage: ToolCoverage
    ) -> None:
        """A list cut at the requested limit must say so. With the limit argument at N,
        exactly N items and no sign of more, one call with a larger limit shows whether
        more existed."""
        name = str(tool["name"])
        limit = _limit_argument(tool.get("inputSchema") or {}, base)
        if limit is None:
            return
        argument, small, large = limit
        asked = {**base, argument: small}
        done = await self.call(name, asked, "limit", budget=coverage, what=f"with {argument}")
        if done is None or not done[0].success:
            return
        payload = done[0].payload()
        items = _items_of(payload)
        if items is None or len(items) != small or _says_more(payload):
            return
        more = await self.call(
            name, {**base, argument: large}, "limit", budget=coverage, what=f"with {argument}"
        )
        if more is None or not more[0].success:
            return
        larger = _items_of(more[0].payload())
        if larger is not None and len(larger) > small:
            self.add(
                name,
                "silent_truncation",
                f"with {argument}={small} the answer held exactly {small} items and nothing"
                f" said more exist, but {argument}={large} gave {len(larger)}: a model takes"
                " a cut list for the whole one",
                done[1],
            )

    async def send_hostile(
        self, name: str, hostile: HostileCall, budget: ToolCoverage, *, watch: bool = True
    ) -> tuple[Answer, Evidence] | None:
        """One hostile call as it goes on the wire (:meth:`call`), described by its kind."""
        return await self.call(
            name,
            hostile.arguments,
            hostile.kind,
            budget=budget,
            wire=hostile.wire or hostile.arguments,
            raw=hostile.raw,
            watch=watch,
            what=KIND_TEXT[hostile.kind].format(field=hostile.argument),
        )

    async def _hostile(
        self, name: str, hostile: HostileCall, coverage: ToolCoverage, judge_errors: bool = True
    ) -> None:
        what = KIND_TEXT[hostile.kind].format(field=hostile.argument)
        done = await self.send_hostile(name, hostile, coverage)
        if done is None:
            return
        answer, evidence = done
        if not judge_errors:
            return
        if answer.success:
            if hostile.schema_refuses and looks_like_refusal(answer.text):
                self.note(
                    name,
                    "refusal_reported_as_success",
                    f"a call {what} was refused in words but reported as a success (isError"
                    " false): a client and a model that trust isError take the refusal for"
                    " the result",
                    hostile.kind,
                    evidence,
                )
            elif hostile.schema_refuses:
                self.add(
                    name,
                    "hostile_input_accepted",
                    f"a call {what} succeeded, though the tool's own schema refuses it: the"
                    " tool does not validate what it declares",
                    evidence,
                )
            elif hostile.kind == "extra_field":
                self.add(
                    name,
                    "extra_field_ignored",
                    f"a call {what} succeeded: a misspelt argument is silently ignored and"
                    " its default used (the schema allows undeclared properties)",
                    evidence,
                )
        elif answer.tool_error:
            await self._judge_error(
                name, answer, evidence, hostile.argument, hostile.schema_refuses, what, coverage
            )

    async def _judge_error(
        self,
        name: str,
        answer: Answer,
        evidence: Evidence,
        field_name: str | None,
        expected: bool,
        what: str,
        coverage: ToolCoverage,
    ) -> None:
        kind = evidence.kind
        said = answer.everything()
        if not said.strip():
            self.note(
                name,
                "error_empty",
                f"the error for a call {what} is empty: isError with no text",
                kind,
                evidence,
            )
        elif expected:
            if field_name and not _names_field(answer, field_name):
                self.note(
                    name,
                    "error_names_no_field",
                    f"the error for a call {what} never names '{field_name}': the model"
                    " cannot tell which argument to fix",
                    kind,
                    evidence,
                )
            if not _says_next_step(answer):
                self.note(
                    name,
                    "error_without_next_step",
                    f"the error for a call {what} does not say what to do next (no"
                    " suggestion, expected value or next call)",
                    kind,
                    evidence,
                )
        await self._follow(name, answer, evidence, coverage)

    async def _follow(
        self, name: str, answer: Answer, evidence: Evidence, coverage: ToolCoverage
    ) -> None:
        """Make the first next call ``answer`` proposes (once per distinct call)."""
        for target, arguments, explicit in proposals(answer.payload()):
            key = _key([target, arguments])
            if key in self._followed:
                return
            self._followed.add(key)
            if target not in self.tools:
                if explicit:
                    self.add(
                        name,
                        "suggested_tool_unknown",
                        f"an answer (to the call {evidence.kind}) proposes '{target}', a tool"
                        " the server does not list",
                        evidence,
                    )
                    return
                continue
            if not self.callable_read_only(target):
                coverage.notes.append(
                    f"a proposed call to '{target}' was not made (it may write, or reach the"
                    " open world)"
                )
                return
            done = await self.call(
                target,
                arguments,
                f"proposed by {name} ({evidence.kind})",
                budget=coverage,
                what=f"proposed by '{name}'",
            )
            if done is not None and not done[0].success:
                self.add(
                    name,
                    "suggested_call_fails",
                    f"an answer (to the call {evidence.kind}) proposes `{target}"
                    f" {trim(json.dumps(arguments, ensure_ascii=False), 120)}`; making it got:"
                    f" {trim(done[0].summary(), 160)}",
                    done[1],
                )
            return

    # -- paging -------------------------------------------------------------------------------

    async def _paging(
        self, tool: dict[str, Any], base: dict[str, Any], coverage: ToolCoverage
    ) -> None:
        name = str(tool["name"])
        props = properties_of(tool.get("inputSchema") or {})
        cursor = next((p for p in props if _CURSOR.match(p)), None)
        if cursor is None:
            return
        size_name = next((p for p in props if _PAGE_SIZE.match(p)), None)
        size_schema = props.get(size_name, {}) if size_name else {}
        small = large = None
        if size_name and isinstance(size_schema, dict):
            low = size_schema.get("minimum", 1)
            high = size_schema.get("maximum")
            low = low if isinstance(low, int) and not isinstance(low, bool) else 1
            small = max(low, 2) if not isinstance(high, int) else min(max(low, 2), high)
            large = high if isinstance(high, int) and not isinstance(high, bool) else None
        start = {k: v for k, v in base.items() if k != cursor}
        first = await self._traverse(name, start, cursor, size_name, small, coverage)
        if first is None or not first.pages:
            return
        keys = first.keys()
        repeated = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
        if repeated is not None:
            page = next(p for p in first.pages[1:] if repeated in p.keys)
            self.add(
                name,
                "page_repeats",
                f"paging with {size_name or 'the default page size'}={small or 'default'},"
                f" an item of an earlier page comes back on a later one:"
                f" {trim(repeated, 160)}",
                page.evidence,
            )
        if large is not None and large != small and size_name:
            second = await self._traverse(name, start, cursor, size_name, large, coverage)
            if second is not None and second.pages:
                self._compare(name, first, second, size_name)
        await self._bad_cursors(name, start, cursor, size_name, small, first, coverage)
        if len(first.pages) == 1 and first.ended:
            coverage.notes.append(f"'{cursor}': one page only, so continuation was not exercised")

    async def _traverse(
        self,
        name: str,
        start: dict[str, Any],
        cursor: str,
        size_name: str | None,
        size: int | None,
        coverage: ToolCoverage,
    ) -> _Traversal | None:
        arguments = dict(start)
        if size_name and size is not None:
            arguments[size_name] = size
        pages: list[_Page] = []
        used: set[str] = set()
        for number in range(1, self.options.max_pages + 1):
            done = await self.call(
                name, arguments, f"page {number}", budget=coverage, what=f"for page {number}"
            )
            if done is None:
                return _Traversal(pages, False, size)
            answer, evidence = done
            if not answer.success:
                if number == 1:
                    return None
                self.add(
                    name,
                    "cursor_not_validated" if answer.tool_error else "page_gap",
                    f"page {number}, asked with the next cursor of page {number - 1}, failed:"
                    " the cursor the server gave does not continue",
                    evidence,
                )
                return _Traversal(pages, False, size)
            payload = answer.payload()
            items = _items_of(payload)
            has_cursor, next_cursor = _next_cursor_of(payload)
            if items is None or not has_cursor:
                if number == 1:
                    coverage.notes.append(
                        f"'{cursor}': no list and next cursor found in the answer, paging"
                        " not checked"
                    )
                    return None
                items = items or []
            pages.append(_Page(items, [_key(i) for i in items], next_cursor, evidence))
            if next_cursor is None:
                return _Traversal(pages, True, size)
            if next_cursor in used or next_cursor == arguments.get(cursor):
                self.add(
                    name,
                    "cursor_loops",
                    f"page {number} gives a next cursor the traversal already used: a loop",
                    evidence,
                )
                return _Traversal(pages, False, size)
            used.add(next_cursor)
            arguments = {**arguments, cursor: next_cursor}
        coverage.notes.append(f"'{cursor}': stopped after {self.options.max_pages} pages")
        return _Traversal(pages, False, size)

    def _compare(self, name: str, small: _Traversal, large: _Traversal, size_name: str) -> None:
        a = list(dict.fromkeys(small.keys()))  # repeats are page_repeats' business
        b = list(dict.fromkeys(large.keys()))
        # Both complete: the same list. Otherwise: the part both traversals reached.
        length = max(len(a), len(b)) if small.ended and large.ended else min(len(a), len(b))
        for index in range(length):
            left = a[index] if index < len(a) else None
            right = b[index] if index < len(b) else None
            if left != right:
                evidence = small.pages[-1].evidence
                self.add(
                    name,
                    "page_gap",
                    f"with {size_name}={small.size} the pages list {len(a)} distinct items,"
                    f" with {size_name}={large.size} {len(b)}; they differ at item {index + 1}:"
                    f" {trim(left or '(none)', 120)} vs {trim(right or '(none)', 120)}"
                    " (on a stable source, pages neither skip nor reorder)",
                    evidence,
                )
                return

    async def _bad_cursors(
        self,
        name: str,
        start: dict[str, Any],
        cursor: str,
        size_name: str | None,
        size: int | None,
        first: _Traversal,
        coverage: ToolCoverage,
    ) -> None:
        arguments = dict(start)
        if size_name and size is not None:
            arguments[size_name] = size
        bad = [("invalid_cursor", "tutorial-lib-checker-invalid-cursor")]
        real = first.pages[0].next_cursor
        if real:
            bad.append(("tampered_cursor", _tamper(real)))
        for kind, value in bad:
            what = KIND_TEXT[kind].format(field=cursor)
            done = await self.call(
                name, {**arguments, cursor: value}, kind, budget=coverage, what=what
            )
            if done is None:
                return
            answer, evidence = done
            if answer.success:
                items = _items_of(answer.payload()) or []
                restarted = [_key(i) for i in items] == first.pages[0].keys
                self.add(
                    name,
                    "cursor_not_validated",
                    f"a call {what} succeeded"
                    + (
                        " and returned the first page again: a silent restart the model"
                        " reads as new items"
                        if restarted
                        else ": the server cannot tell its own cursors from others"
                    ),
                    evidence,
                )
            elif answer.tool_error:
                await self._judge_error(name, answer, evidence, cursor, True, what, coverage)

    # -- writes ------------------------------------------------------------------------------

    async def _check_write(self, tool: dict[str, Any], coverage: ToolCoverage) -> None:
        name = str(tool["name"])
        hints = hints_of(tool)
        coverage.status = "checked"
        coverage.valid_arguments = "--calls"
        workspace = self.options.workspace
        for arguments in self.options.calls.get(name, ()):
            before = snapshot(workspace, keep_bytes=True) if workspace else None
            done = await self.call(
                name, dict(arguments), "--calls", budget=coverage, watch=False, what="from --calls"
            )
            if done is None or before is None or workspace is None:
                continue
            answer, evidence = done
            after = snapshot(workspace, keep_bytes=True)
            lost = destroyed(before, after)
            if hints.get("destructiveHint") is False and lost:
                shown = ", ".join(lost[:5]) + (
                    f" and {len(lost) - 5} more" if len(lost) > 5 else ""
                )
                self.add(
                    name,
                    "non_destructive_tool_destroyed",
                    f"'{name}' is annotated destructiveHint: false, but a call overwrote or"
                    f" removed what was there: {shown}",
                    evidence,
                )
            if hints.get("idempotentHint") is True and answer.success:
                again = await self.call(
                    name,
                    dict(arguments),
                    "--calls, repeated",
                    budget=coverage,
                    watch=False,
                    what="from --calls, made again",
                )
                if again is not None:
                    more = differences(after, snapshot(workspace, keep_bytes=True))
                    if more:
                        self.add(
                            name,
                            "idempotent_tool_not_idempotent",
                            f"'{name}' is annotated idempotentHint: true, but the same call"
                            f" made twice changed the workspace again: {more.describe()}",
                            again[1],
                        )


async def check(command: Sequence[str], options: CheckOptions | None = None) -> Report:
    """Check the MCP server ``command`` starts (see the module); raises
    :class:`~tutorial_lib.checker.connection.ServerUnavailable` when it cannot be started
    or does not answer the handshake and ``tools/list``."""
    options = options or CheckOptions()
    unknown = [k for k in options.kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"no hostile kinds {unknown}; kinds: {', '.join(KINDS)}")
    if options.protocol not in PROTOCOLS:
        raise ValueError(f"no protocol {options.protocol!r}; protocols: {', '.join(PROTOCOLS)}")
    began = time.perf_counter()
    with _sdk_parse_errors_silenced():
        return await _check(command, options, began)


@contextmanager
def _sdk_parse_errors_silenced() -> Iterator[None]:
    # The SDK's stdio client logs every line it cannot parse, traceback included; the
    # report already names each such answer once (answer_unreadable, request_dropped).
    sdk_log = logging.getLogger("mcp")
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        sdk_log.setLevel(level)


async def _check(command: Sequence[str], options: CheckOptions, began: float) -> Report:
    connection = Connection(
        list(command),
        timeout_s=options.timeout_s,
        startup_s=options.startup_s,
        cwd=options.cwd,
        env=options.env,
        mode="legacy" if options.protocol == LEGACY else "auto",
    )
    async with connection:
        negotiated = connection.client.protocol_version
        modern = negotiated in MODERN_PROTOCOL_VERSIONS
        if options.protocol == MODERN and not modern:
            raise ServerUnavailable(
                f"the server does not speak protocol {MODERN}: it did not take"
                f" server/discover, and the SDK's client fell back to the initialize"
                f" handshake ({negotiated}); check it with --protocol {LEGACY} or both"
            )
        full = MODERN if modern else LEGACY
        listed_at = time.perf_counter()
        try:
            listed = await connection.list_tools()
        except Exception as error:
            raise ServerUnavailable(
                f"tools/list failed: {type(error).__name__}: {error}"
            ) from error
        tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]
        listing_s = time.perf_counter() - listed_at
        server = {**connection.server_info(), "tools": len(tools)}
        run = _Run(connection, options, tools, static_findings(tools))
        names = [str(t.get("name")) for t in tools]
        missing = [n for n in (*options.tools, *options.vouch) if n not in names]
        if missing:
            raise ValueError(f"the server lists no tools {missing}")
        selected = [n for n in names if not options.tools or n in options.tools]
        for index, name in enumerate(selected):
            if options.progress is not None:
                options.progress(index, len(selected), name)
            await run.check_tool(name)
        if options.progress is not None:
            options.progress(len(selected), len(selected), "")
        restarts = connection.restarts
        starts = list(connection.starts_s)
    coverage = [run.coverage[n] for n in selected]
    passes = [
        ProtocolPass(full, "full", True, negotiated, len(tools), sum(c.calls for c in coverage))
    ]
    light_s = 0.0
    if options.protocol == "both" and modern:
        light_at = time.perf_counter()
        passes.append(await _light_check(command, options, run, selected, names))
        light_s = time.perf_counter() - light_at
    elif options.protocol == "both":
        passes.insert(
            0,
            ProtocolPass(
                MODERN,
                "none",
                False,
                note="the server did not take server/discover, so the SDK's client fell back"
                f" to the initialize handshake ({negotiated}); the full check ran there",
            ),
        )
    findings = [f for f in run.findings if not options.tools or f.tool in (*selected, SERVER)]
    timings = {
        "total_s": round(time.perf_counter() - began, 3),
        "start_s": round(starts[0], 3) if starts else 0.0,
        "list_tools_s": round(listing_s, 3),
        "light_check_s": round(light_s, 3),
        "restarts": restarts,
        "per_tool_s": {c.name: round(c.elapsed_s, 3) for c in coverage},
        "calls": sum(c.calls for c in coverage),
    }
    return Report(
        command=list(command),
        server=server,
        options=options.shown(),
        tools=coverage,
        findings=findings,
        fail_on=options.fail_on,
        timings=timings,
        protocols=passes,
    )


async def _light_check(
    command: Sequence[str],
    options: CheckOptions,
    full: _Run,
    selected: list[str],
    names: list[str],
) -> ProtocolPass:
    """The light check on the legacy revision (after the full one on the modern revision):
    a new server process, the ``initialize`` handshake, ``tools/list``, then for each
    read-only tool the full check called, its valid arguments and one invalid call
    (:data:`LIGHT_KINDS`), each answer judged by :data:`ANSWER_RULES`. Writes are not
    repeated. What it finds is merged into ``full`` (see :func:`_merge`)."""
    connection = Connection(
        list(command),
        timeout_s=options.timeout_s,
        startup_s=options.startup_s,
        cwd=options.cwd,
        env=options.env,
        mode="legacy",
    )
    try:
        async with connection:
            negotiated = connection.client.protocol_version
            try:
                listed = await connection.list_tools()
            except Exception as error:
                return ProtocolPass(
                    LEGACY,
                    "light",
                    False,
                    negotiated,
                    note=trim(f"tools/list failed: {type(error).__name__}: {error}", 300),
                )
            tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]
            light = _Run(connection, options, tools, [])
            calls = 0
            kinds = [k for k in LIGHT_KINDS if k in options.kinds]
            for name in selected:
                if name not in full.replay or name not in light.tools or light.dead:
                    continue
                arguments, succeeded = full.replay[name]
                budget = ToolCoverage(name, read_only=True)
                done = await light.call(
                    name, arguments, "valid", budget=budget, watch=False,
                    what="with valid arguments",
                )  # fmt: skip
                if done is not None and done[0].success != succeeded:
                    full.coverage[name].notes.append(
                        f"on protocol {LEGACY} the call with valid arguments got"
                        f" {trim(done[0].summary(), 160)}"
                    )
                schema = light.tools[name].get("inputSchema") or {}
                hostile = next(
                    (h for h in hostile_calls(schema, arguments, kinds) if h.schema_refuses), None
                )
                if hostile is not None:
                    await light.send_hostile(name, hostile, budget, watch=False)
                light.flush()
                calls += budget.calls
    except ServerUnavailable as error:
        return ProtocolPass(LEGACY, "light", False, note=trim(str(error).splitlines()[0], 300))
    _merge(full, light, MODERN, LEGACY)
    listed_names = [str(t.get("name")) for t in tools]
    notes = []
    gone = [n for n in names if n not in listed_names]
    extra = [n for n in listed_names if n not in names]
    if gone:
        notes.append(f"does not list {', '.join(gone)}")
    if extra:
        notes.append(f"lists {', '.join(extra)} too")
    if light.dead:
        notes.append(f"stopped early: {light.dead}")
    return ProtocolPass(LEGACY, "light", True, negotiated, len(tools), calls, "; ".join(notes))


def _merge(full: _Run, light: _Run, full_revision: str, light_revision: str) -> None:
    """Merge the light check's findings into the full check's, marking what showed on one
    revision only (``Finding.only_on``):

    - a finding of the light check whose (tool, rule) the full check does not report is
      added, ``only_on`` the light revision;
    - a finding of the full check (of :data:`ANSWER_RULES`) whose every call the light
      check made again, none of them raising it, gets ``only_on`` the full revision.
    """
    reported = {(f.tool, f.rule) for f in full.findings}
    for index, finding in enumerate(full.findings):
        if finding.rule not in ANSWER_RULES:
            continue
        calls = full.raised.get((finding.tool, finding.rule), set())
        again = light.raised.get((finding.tool, finding.rule), set())
        if calls and calls <= light.made and not calls & again:
            full.findings[index] = replace(finding, only_on=full_revision)
    for finding in light.findings:
        if finding.rule in ANSWER_RULES and (finding.tool, finding.rule) not in reported:
            full.findings.append(replace(finding, only_on=light_revision))
            reported.add((finding.tool, finding.rule))


def check_server(command: Sequence[str], options: CheckOptions | None = None) -> Report:
    """:func:`check` in its own event loop: the entry point outside ``async`` code.

    ``check_server(["python", "-m", "tutorial_lib.mcp_server", "--root", "ws"])`` returns a
    :class:`~tutorial_lib.checker.report.Report`; render it with
    :func:`~tutorial_lib.checker.report.render_markdown` or ``render_json``.
    """
    return anyio.run(check, list(command), options)
