"""``python -m tutorial_lib.checker [options] -- COMMAND [ARGS...]`` (or ``tutorial-lib-check``).

Starts COMMAND as an MCP stdio server, checks every tool it lists, and writes the report:
Markdown on stdout (or ``--markdown FILE``), JSON with ``--json FILE``. Exit status: 0
clean, 1 findings at or above ``--fail-on`` (default ``error``), 2 the server could not
be started or does not speak MCP (or the command line is wrong). A progress bar is drawn
on stderr when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

__all__ = ["ProgressBar", "build_parser", "main"]

PROG = "tutorial-lib-check"


def build_parser() -> argparse.ArgumentParser:
    """The command line (options only; the server's command follows ``--``)."""
    from tutorial_lib.checker.arguments import KINDS, QUICK_KINDS
    from tutorial_lib.checker.run import LEGACY, MODERN, PROTOCOLS

    parser = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} [options] -- COMMAND [ARGS...]",
        description=(
            "Check an MCP stdio server's tools against the course's contract: names,"
            " descriptions, schemas, annotations and exports (static); answers to valid"
            " and hostile arguments, proposed next calls, paging and side effects"
            " (behaviour). Every finding names its tool, rule, severity, evidence and the"
            " chapter that teaches the fix."
        ),
        epilog=f"hostile kinds: {', '.join(KINDS)}; --quick: {', '.join(QUICK_KINDS)}",
    )
    parser.add_argument(
        "--workspace",
        type=Path,
        metavar="DIR",
        help="the folder the server works in: every call to a read-only tool must leave it"
        " byte-identical; path-like arguments are taken from it",
    )
    parser.add_argument(
        "--allow-writes",
        action="store_true",
        help="call tools that may write (not annotated read-only), only with --calls",
    )
    parser.add_argument(
        "--allow-open-world",
        action="store_true",
        help="call tools whose openWorldHint is not false (they may reach other machines)",
    )
    parser.add_argument(
        "--calls",
        type=Path,
        metavar="FILE",
        help='JSON: {"tool": [{...arguments...}, ...]}: the only arguments a write gets,'
        " the first a read tries",
    )
    parser.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS",
                        help="time limit of one call (default 10)")  # fmt: skip
    parser.add_argument("--startup-timeout", type=float, default=30.0, metavar="SECONDS",
                        help="time limit of starting the server (default 30)")  # fmt: skip
    parser.add_argument("--kinds", metavar="LIST", help="comma-separated hostile kinds to try")
    parser.add_argument("--skip-kinds", metavar="LIST", help="hostile kinds not to try")
    parser.add_argument("--quick", action="store_true", help="only the quick hostile kinds")
    parser.add_argument("--max-calls", type=int, default=60, metavar="N",
                        help="calls to one tool at most (default 60)")  # fmt: skip
    parser.add_argument("--tool", action="append", default=[], metavar="NAME",
                        help="check only this tool (repeatable)")  # fmt: skip
    parser.add_argument("--vouch", action="append", default=[], metavar="NAME",
                        help="a tool without readOnlyHint that you vouch only reads, on this"
                        " machine: probe it as a read-only local tool (repeatable)")  # fmt: skip
    parser.add_argument("--fail-on", choices=["info", "warning", "error"], default="error",
                        help="exit 1 for findings at or above it (default error)")  # fmt: skip
    parser.add_argument("--markdown", type=Path, metavar="FILE",
                        help="write the Markdown report here instead of stdout")  # fmt: skip
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report here")
    parser.add_argument("--timings", action="store_true",
                        help="timings in the Markdown too (the JSON has them)")  # fmt: skip
    parser.add_argument(
        "--protocol",
        choices=PROTOCOLS,
        default="both",
        help=f"the protocol revision to check on: {MODERN} (server/discover, the Python SDK's"
        f" default), {LEGACY} (the initialize handshake the TypeScript SDK and the MCP"
        f" Inspector negotiate), or both (default): the full check on {MODERN} (on {LEGACY}"
        f" when the server does not speak it), then a light one on {LEGACY} (handshake,"
        " tools/list, one valid and one invalid call per read-only tool, each answer judged"
        " as always); findings seen on one revision only say which",
    )
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="give the server this variable (repeatable); the SDK starts it"
                        " with a safe environment, not the checker's")  # fmt: skip
    parser.add_argument("--env-pass", action="append", default=[], metavar="NAME",
                        help="give the server this variable of the checker's environment"
                        " (repeatable)")  # fmt: skip
    parser.add_argument("--select", metavar="LIST",
                        help="report only these rules: comma-separated ids, id prefixes,"
                        " families (static, behaviour, paging, side_effects) or"
                        " severities")  # fmt: skip
    parser.add_argument("--ignore", metavar="LIST",
                        help="do not report these rules (the same forms as --select)")  # fmt: skip
    parser.add_argument("--baseline", type=Path, metavar="FILE",
                        help="accept the findings listed in FILE: only new ones are reported"
                        " and can fail the run")  # fmt: skip
    parser.add_argument("--write-baseline", type=Path, metavar="FILE",
                        help="write every finding of this run to FILE as a baseline")  # fmt: skip
    parser.add_argument("--sarif", type=Path, metavar="FILE",
                        help="write the report as SARIF 2.1.0 (code-scanning pages)")  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--list-rules", action="store_true",
                        help="print every rule (id, severity, chapter) and exit")  # fmt: skip
    return parser


def _kinds(args: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple[str, ...]:
    from tutorial_lib.checker.arguments import KINDS, QUICK_KINDS

    chosen = list(QUICK_KINDS if args.quick else KINDS)
    if args.kinds is not None:
        chosen = [k.strip() for k in args.kinds.split(",") if k.strip()]
    skipped = {k.strip() for k in (args.skip_kinds or "").split(",") if k.strip()}
    unknown = sorted((set(chosen) | skipped) - set(KINDS))
    if unknown:
        parser.error(f"unknown hostile kinds {unknown}; kinds: {', '.join(KINDS)}")
    return tuple(k for k in chosen if k not in skipped)


class ProgressBar:
    """A one-line progress bar on a terminal's stderr."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.width = 0

    def __call__(self, done: int, total: int, name: str) -> None:
        filled = (20 * done) // max(total, 1)
        line = f"[{'#' * filled}{'.' * (20 - filled)}] {done}/{total} {name}"[:78]
        self.stream.write("\r" + line.ljust(self.width))
        self.width = len(line)
        if done == total:
            self.stream.write("\r" + " " * self.width + "\r")
        self.stream.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, check the server, write the reports; the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if "--" in argv:
        split = argv.index("--")
        options, command = argv[:split], argv[split + 1 :]
    else:
        options, command = argv, []
    args = parser.parse_args(options)
    if args.list_rules:
        from tutorial_lib.checker.rules import format_rules

        print(format_rules())
        return 0
    if not command:
        parser.error("give the server's command after --, e.g. -- python -m my_server")
    kinds = _kinds(args, parser)
    if args.workspace is not None and not args.workspace.is_dir():
        parser.error(f"--workspace {args.workspace}: not a directory")

    import dataclasses
    import json
    import os

    from tutorial_lib.checker import ci
    from tutorial_lib.checker.connection import ServerUnavailable
    from tutorial_lib.checker.report import render_json, render_markdown
    from tutorial_lib.checker.run import CheckOptions, check_server, load_calls

    select = [s.strip() for s in (args.select or "").split(",") if s.strip()]
    ignore = [s.strip() for s in (args.ignore or "").split(",") if s.strip()]
    unknown = ci.selector_problems([*select, *ignore])
    if unknown:
        parser.error(f"--select/--ignore {unknown[0]!r}: no rule, family or severity")
    try:
        calls = load_calls(args.calls) if args.calls is not None else {}
        env = ci.server_environment(args.env, args.env_pass, os.environ)
        accepted = ci.read_baseline(args.baseline) if args.baseline is not None else set()
    except ValueError as error:
        parser.error(str(error))
    progress = None
    if not args.no_progress and sys.stderr.isatty():
        progress = ProgressBar(sys.stderr)
    check = CheckOptions(
        kinds=kinds,
        timeout_s=args.timeout,
        startup_s=args.startup_timeout,
        workspace=args.workspace.resolve() if args.workspace else None,
        allow_writes=args.allow_writes,
        allow_open_world=args.allow_open_world,
        calls=calls,
        max_calls=args.max_calls,
        tools=tuple(args.tool),
        vouch=tuple(args.vouch),
        fail_on=args.fail_on,
        protocol=args.protocol,
        env=env,
        progress=progress,
    )
    try:
        report = check_server(command, check)
    except ServerUnavailable as error:
        print(f"{PROG}: could not start or talk to the server: {error}", file=sys.stderr)
        return 2
    except ValueError as error:  # --tool naming a tool the server does not list
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    findings = ci.select_findings(report.findings, select, ignore)
    if args.write_baseline is not None:
        baseline = ci.baseline_entries(findings)
        args.write_baseline.write_text(json.dumps(baseline, indent=1) + "\n", encoding="utf-8")
    findings, known = ci.split_by_baseline(findings, accepted)
    shown = dict(report.options)
    if env:
        shown["env"] = sorted(env)  # the names only: values may be secrets
    if select or ignore:
        shown["rules"] = f"select {','.join(select) or 'all'}; ignore {','.join(ignore) or '-'}"
    if args.baseline is not None:
        shown["baseline"] = f"{args.baseline}: {len(known)} known finding(s) accepted"
    report = dataclasses.replace(report, findings=findings, options=shown)
    if args.sarif is not None:
        args.sarif.write_text(ci.render_sarif(report), encoding="utf-8")
    markdown = render_markdown(report, timings=args.timings)
    if args.markdown is not None:
        args.markdown.write_text(markdown, encoding="utf-8")
    else:
        sys.stdout.write(markdown)
    if args.json is not None:
        args.json.write_text(render_json(report), encoding="utf-8")
    counts = report.counts()
    print(
        f"{PROG}: {len(report.tools)} tools, {counts['error']} errors,"
        f" {counts['warning']} warnings, {counts['info']} info"
        f" (exit {report.exit_code()}, fail on {report.fail_on})",
        file=sys.stderr,
    )
    return report.exit_code()


if __name__ == "__main__":
    sys.exit(main())
