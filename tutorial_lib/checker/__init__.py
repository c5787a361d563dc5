"""A contract checker for ANY MCP server: where its tools break the course's rules, with evidence.

From a shell (console script ``tutorial-lib-check``, same options)::

    python -m tutorial_lib.checker --workspace ws -- python -m tutorial_lib.mcp_server --root ws
    python -m tutorial_lib.checker --json report.json -- \\
        npx -y @modelcontextprotocol/server-filesystem /tmp/ws

From Python::

    from pathlib import Path
    from tutorial_lib.checker import CheckOptions, check_server, render_markdown
    report = check_server(["python", "-m", "tutorial_lib.mcp_server", "--root", "ws"],
                          CheckOptions(workspace=Path("ws")))
    print(render_markdown(report))
    report.exit_code()  # 0 clean, 1 findings at or above fail_on

What it checks (every rule, its severity and its chapter: :data:`RULES`, or
``print(format_rules())``):

- **static**, from ``tools/list``: the course's linter (names, descriptions,
  near-duplicates, units), schema strictness (``required``, ``additionalProperties``,
  bounds, enums, a description per property), annotations (present, complete,
  consistent), and the export of each tool to Anthropic, OpenAI strict and MCP;
- **behaviour**: valid arguments (from the description's examples, the schema, or
  ``--calls``), then hostile ones (missing required, wrong type, ``true`` as an integer,
  ``"5"`` for 5, an extra field, out of range, not in the enum, a million characters, a
  lone surrogate, 1000 nested arrays); every answer must be a tool error rather than a
  protocol error, crash or hang, name the bad argument, and say what to do next; a next
  call an answer proposes is made and must succeed; every call has a time limit; a
  success must match the ``outputSchema``, and an error must not carry
  ``structuredContent`` that breaks it (the TypeScript SDK's client and the Inspector
  refuse such a result);
- **paging**: a tool with a cursor argument must continue without repeats or gaps, and
  refuse an invalid or tampered cursor instead of restarting silently;
- **side effects** (``workspace``): a read-only tool leaves the folder byte-identical;
- **protocol revisions** (``protocol``, default ``"both"``): the full check on 2026-07-28
  (the Python SDK's default), a light one on 2025-11-25 (what the TypeScript SDK's client
  and the Inspector negotiate); a finding seen on one revision only says which.

Safety: the checker talks to the local process only. Tools that may write are called
only with ``allow_writes``, and only with the arguments the operator gives (``calls``);
tools whose ``openWorldHint`` is not false (they may reach the internet) only with
``allow_open_world``. It never answers a server's question (elicitation) for the user.

The modules: :mod:`~tutorial_lib.checker.rules` (the rule table),
:mod:`~tutorial_lib.checker.static`, :mod:`~tutorial_lib.checker.arguments`,
:mod:`~tutorial_lib.checker.connection` (the SDK client, time limits, restarts),
:mod:`~tutorial_lib.checker.run` (the whole check), :mod:`~tutorial_lib.checker.workspace`
(snapshots) and :mod:`~tutorial_lib.checker.report` (Markdown and JSON).
"""

from tutorial_lib.checker.arguments import KINDS, QUICK_KINDS, hostile_calls, valid_candidates
from tutorial_lib.checker.connection import Answer, Connection, ServerUnavailable
from tutorial_lib.checker.report import (
    SERVER,
    Evidence,
    Finding,
    ProtocolPass,
    Report,
    ToolCoverage,
    render_json,
    render_markdown,
)
from tutorial_lib.checker.rules import CHAPTERS, RULES, SEVERITIES, Rule, format_rules
from tutorial_lib.checker.run import (
    LEGACY,
    MODERN,
    PROTOCOLS,
    CheckOptions,
    check,
    check_server,
    load_calls,
)
from tutorial_lib.checker.static import static_findings
from tutorial_lib.checker.workspace import differences, snapshot

__all__ = [
    "CHAPTERS",
    "KINDS",
    "LEGACY",
    "MODERN",
    "PROTOCOLS",
    "QUICK_KINDS",
    "RULES",
    "SERVER",
    "SEVERITIES",
    "Answer",
    "CheckOptions",
    "Connection",
    "Evidence",
    "Finding",
    "ProtocolPass",
    "Report",
    "Rule",
    "ServerUnavailable",
    "ToolCoverage",
    "check",
    "check_server",
    "differences",
    "format_rules",
    "hostile_calls",
    "load_calls",
    "render_json",
    "render_markdown",
    "snapshot",
    "static_findings",
    "valid_candidates",
]
