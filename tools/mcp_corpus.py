"""Record the tool lists of real third-party MCP servers, as offline test data.

    python tools/mcp_corpus.py record                 # install and record every server
    python tools/mcp_corpus.py record --only NAME     # one server (repeat --only for more)
    python tools/mcp_corpus.py list                   # the recorded corpus as a table

The corpus (``tests/data/mcp_corpus/<name>.json``) is what the checker's static rules are
measured on for precision: tool lists written by other people, for servers the course did
not write. Tests read the files; they never install or start anything.

``record`` needs the package registries (npm and PyPI) and nothing else. For each server of
:data:`SERVERS` (exact versions pinned) it:

1. installs the package into a temporary directory: npm ``npm install --prefix TMP
   pkg@version`` (the server then runs as ``node <its bin>``), PyPI a fresh venv with
   ``TMP/venv/bin/pip install pkg==version`` (the server runs as its console script);
2. checks that the installed version is the pinned one and reads the licence the installed
   package's metadata states (a licence other than the table's is reported and recorded as
   installed);
3. starts the server over stdio with the official Python SDK's client (``mcp.Client`` over
   ``stdio_client``, as ``tutorial_lib/checker/connection.py`` does), with ``HOME`` and the
   working directory in a scratch directory, and an environment of the SDK's defaults
   (``PATH``, ``SHELL``, ``TERM``) plus the table's dummy variables (no real credential
   is used or needed; nothing else of the caller's environment is passed on);
4. calls ``tools/list`` page after page (``nextCursor``) and keeps every tool exactly as
   the server sent it: the raw JSON of each ``tools/list`` result is taken off the wire,
   before the SDK's models drop fields they do not know;
5. writes ``tests/data/mcp_corpus/<name>.json`` (sorted keys, indent 1, UTF-8).

A server that fails to install, to start or to list is reported and its file is left as
it was. Tried and left out: ``mcp-server-qdrant`` 0.8.1 (PyPI), which downloads an
embedding model from Hugging Face before it answers, so it cannot list its tools offline.
Time limits: :data:`INSTALL_S` per install, :data:`LIST_S` to start and list.
``list`` prints server, registry, version, licence and number of tools from the files.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import datetime
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "mcp_corpus"

#: Time limit of one install (npm install, or venv + pip install).
INSTALL_S = 180.0
#: Time limit to start one server, negotiate and list its tools.
LIST_S = 60.0
#: How many servers are installed and recorded at once.
JOBS = 4

NO_LICENCE = "(not stated)"
#: The reference servers of github.com/modelcontextprotocol/servers (one author).
REFERENCE = "modelcontextprotocol/servers"


@dataclass(frozen=True)
class Server:
    """One pinned server.

    ``run``: the npm bin or PyPI console script to start; ``args`` its arguments, where
    ``{scratch}`` is the server's scratch directory (also its ``HOME`` and working
    directory); ``env``: the variables it needs at start, with harmless dummy values;
    ``git_repo``: make ``{scratch}/repo`` a git repository with one commit first;
    ``pip_also``: requirements pip installs with the package (a PyPI package whose open
    dependency range lets in a release it cannot run with);
    ``licence``: what the package's metadata states; ``author``: who publishes it.
    """

    name: str
    registry: Literal["npm", "pypi"]
    package: str
    version: str
    licence: str
    author: str
    run: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    git_repo: bool = False
    pip_also: tuple[str, ...] = ()


SERVERS: tuple[Server, ...] = (
    # -- npm ---------------------------------------------------------------------------
    Server(
        "server-memory",
        "npm",
        "@modelcontextprotocol/server-memory",
        "2026.8.31",
        "SEE LICENSE IN LICENSE",
        REFERENCE,
        "mcp-server-memory",
        env={"MEMORY_FILE_PATH": "{scratch}/memory.jsonl"},
    ),
    Server(
        "server-everything",
        "npm",
        "@modelcontextprotocol/server-everything",
        "2026.8.31",
        "SEE LICENSE IN LICENSE",
        REFERENCE,
        "mcp-server-everything",
    ),
    Server(
        "server-sequential-thinking",
        "npm",
        "@modelcontextprotocol/server-sequential-thinking",
        "2026.8.31",
        "SEE LICENSE IN LICENSE",
        REFERENCE,
        "mcp-server-sequential-thinking",
    ),
    Server(
        "server-filesystem",
        "npm",
        "@modelcontextprotocol/server-filesystem",
        "2026.8.31",
        "SEE LICENSE IN LICENSE",
        REFERENCE,
        "mcp-server-filesystem",
        args=("{scratch}",),
    ),
    Server(
        "server-github",
        "npm",
        "@modelcontextprotocol/server-github",
        "2025.4.8",
        "MIT",
        REFERENCE,
        "mcp-server-github",
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": "dummy-token-for-listing"},
    ),
    Server(
        "notion-mcp-server",
        "npm",
        "@notionhq/notion-mcp-server",
        "2.5.2",
        "MIT",
        "Notion",
        "notion-mcp-server",
        env={"NOTION_TOKEN": "dummy-token-for-listing"},
    ),
    Server(
        "context7-mcp",
        "npm",
        "@upstash/context7-mcp",
        "4.1.1",
        "MIT",
        "Upstash",
        "context7-mcp",
    ),
    Server(
        "tavily-mcp",
        "npm",
        "tavily-mcp",
        "0.2.22",
        "MIT",
        "Tavily",
        "tavily-mcp",
        env={"TAVILY_API_KEY": "dummy-key-for-listing"},
    ),
    Server(
        "firecrawl-mcp",
        "npm",
        "firecrawl-mcp",
        "3.26.0",
        "MIT",
        "Firecrawl",
        "firecrawl-mcp",
        env={"FIRECRAWL_API_KEY": "fc-dummy-key-for-listing"},
    ),
    Server(
        "exa-mcp-server",
        "npm",
        "exa-mcp-server",
        "3.4.1",
        NO_LICENCE,
        "Exa Labs",
        "exa-mcp-server",
        env={"EXA_API_KEY": "dummy-key-for-listing"},
    ),
    Server(
        "mcp-server-kubernetes",
        "npm",
        "mcp-server-kubernetes",
        "4.1.7",
        "MIT",
        "Flux159",
        "mcp-server-kubernetes",
    ),
    Server(
        "brave-search-mcp-server",
        "npm",
        "@brave/brave-search-mcp-server",
        "2.1.4",
        "MIT",
        "Brave Software",
        "brave-search-mcp-server",
        args=("--transport", "stdio"),
        env={"BRAVE_API_KEY": "dummy-key-for-listing"},
    ),
    # -- PyPI --------------------------------------------------------------------------
    Server(
        "mcp-server-time",
        "pypi",
        "mcp-server-time",
        "2026.10.19",
        "MIT",
        REFERENCE,
        "mcp-server-time",
        args=("--local-timezone", "UTC"),
    ),
    Server(
        "mcp-server-git",
        "pypi",
        "mcp-server-git",
        "2026.10.19",
        "MIT",
        REFERENCE,
        "mcp-server-git",
        args=("--repository", "{scratch}/repo"),
        git_repo=True,
    ),
    Server(
        "mcp-server-fetch",
        "pypi",
        "mcp-server-fetch",
        "2026.10.24",
        "MIT",
        REFERENCE,
        "mcp-server-fetch",
    ),
    Server(
        "mcp-server-sqlite",
        "pypi",
        "mcp-server-sqlite",
        "2025.4.25",
        NO_LICENCE,
        REFERENCE,
        "mcp-server-sqlite",
        args=("--db-path", "{scratch}/corpus.db"),
        # It asks for mcp>=1.6.0 with no upper bound, and crashes at start under mcp 2
        # (Server.list_resources is gone): installed with the mcp of its time.
        pip_also=("mcp[cli]<2",),
    ),
    Server(
        "duckduckgo-mcp-server",
        "pypi",
        "duckduckgo-mcp-server",
        "0.7.0",
        "MIT License",
        "Nick Clyde",
        "duckduckgo-mcp-server",
    ),
    Server(
        "arxiv-mcp-server",
        "pypi",
        "arxiv-mcp-server",
        "0.8.2",
        "Apache-2.0",
        "Joseph Blazick",
        "arxiv-mcp-server",
        args=("--storage-path", "{scratch}/papers"),
    ),
    Server(
        "mcp-obsidian",
        "pypi",
        "mcp-obsidian",
        "0.2.3",
        NO_LICENCE,
        "Markus Pfundstein",
        "mcp-obsidian",
        env={"OBSIDIAN_API_KEY": "dummy-key-for-listing"},
    ),
    Server(
        "aws-documentation-mcp-server",
        "pypi",
        "awslabs.aws-documentation-mcp-server",
        "1.2.3",
        "Apache-2.0",
        "AWS Labs",
        "awslabs.aws-documentation-mcp-server",
        env={"AWS_DOCUMENTATION_PARTITION": "aws", "FASTMCP_LOG_LEVEL": "ERROR"},
    ),
    Server(
        "mcp-server-calculator",
        "pypi",
        "mcp-server-calculator",
        "0.2.1",
        "MIT",
        "He Jie",
        "mcp-server-calculator",
    ),
)


class RecordError(Exception):
    """A server that could not be installed, started or listed (reported, not written)."""


# -- installing ------------------------------------------------------------------------


def _run(command: list[str], what: str, timeout_s: float, cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(
            command, cwd=cwd, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired as error:
        raise RecordError(f"{what}: no result within {timeout_s:g} s") from error
    except OSError as error:
        raise RecordError(f"{what}: {error}") from error
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip()[-1200:]
        raise RecordError(f"{what} failed (exit {done.returncode}):\n{tail}")
    return done.stdout


def _npm_licence(meta: dict[str, Any]) -> str:
    licence = meta.get("license")
    if isinstance(licence, dict):  # the old {"type": ...} form
        licence = licence.get("type")
    if not licence and isinstance(meta.get("licenses"), list):
        licence = " OR ".join(str(x.get("type", x)) for x in meta["licenses"])
    return str(licence) if licence else NO_LICENCE


def install_npm(server: Server, tmp: Path) -> tuple[list[str], str, str]:
    """Install into ``tmp``; the command line that starts it, its version and licence."""
    _run(
        [
            "npm",
            "install",
            "--prefix",
            str(tmp),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            f"{server.package}@{server.version}",
        ],
        "npm install",
        INSTALL_S,
    )
    package_dir = tmp / "node_modules" / server.package
    meta = json.loads((package_dir / "package.json").read_text(encoding="utf-8"))
    bins = meta.get("bin")
    if isinstance(bins, str):
        bins = {meta["name"].split("/")[-1]: bins}
    if not isinstance(bins, dict) or server.run not in bins:
        raise RecordError(f"the package has no bin {server.run!r} (it has {bins!r})")
    script = (package_dir / bins[server.run]).resolve()
    return ["node", str(script)], str(meta.get("version")), _npm_licence(meta)


#: Run by the server's own venv: its version and what its metadata says of its licence.
_PY_METADATA = """
import json, sys
from importlib import metadata
m = metadata.metadata(sys.argv[1])
print(json.dumps({
    "version": m["Version"],
    "expression": m.get("License-Expression"),
    "license": m.get("License"),
    "classifiers": [c for c in m.get_all("Classifier") or [] if c.startswith("License ::")],
}))
"""


def _pypi_licence(meta: dict[str, Any]) -> str:
    if meta.get("expression"):
        return str(meta["expression"])
    text = (meta.get("license") or "").strip()
    if text and text.upper() != "UNKNOWN":
        first = text.splitlines()[0].strip()
        return first if len(first) <= 80 else first[:77] + "..."
    if meta.get("classifiers"):
        return "; ".join(c.split(" :: ")[-1] for c in meta["classifiers"])
    return NO_LICENCE


def install_pypi(server: Server, tmp: Path) -> tuple[list[str], str, str]:
    """Install into a venv under ``tmp``; the command line, its version and licence."""
    venv = tmp / "venv"
    started = time.monotonic()
    _run([sys.executable, "-m", "venv", str(venv)], "python -m venv", INSTALL_S)
    left = max(10.0, INSTALL_S - (time.monotonic() - started))
    pip = [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check"]
    _run([*pip, f"{server.package}=={server.version}", *server.pip_also], "pip install", left)
    out = _run([str(venv / "bin" / "python"), "-c", _PY_METADATA, server.package], "metadata", 30)
    meta = json.loads(out)
    script = venv / "bin" / server.run
    if not script.exists():
        raise RecordError(f"the package installed no console script {server.run!r}")
    return [str(script)], str(meta["version"]), _pypi_licence(meta)


# -- listing ---------------------------------------------------------------------------


class _Tap:
    """The read side of the transport: keeps the raw ``result`` of every response that
    lists tools, as the server sent it (the SDK's models drop fields they do not know)."""

    def __init__(self, inner: Any, pages: list[dict[str, Any]]) -> None:
        self._inner = inner
        self._pages = pages

    def _see(self, item: Any) -> Any:
        message = getattr(item, "message", None)
        result = message.result if isinstance(message, types.JSONRPCResponse) else None
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            self._pages.append(result)
        return item

    async def receive(self) -> Any:
        return self._see(await self._inner.receive())

    def __aiter__(self) -> _Tap:
        return self

    async def __anext__(self) -> Any:
        return self._see(await self._inner.__anext__())

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Tap:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        return await self._inner.__aexit__(*exc_info)


class _TapTransport:
    """``stdio_client`` with :class:`_Tap` on its read stream."""

    def __init__(self, params: StdioServerParameters, errlog: Any, pages: list[Any]) -> None:
        self._context = stdio_client(params, errlog=errlog)
        self._pages = pages

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._context.__aenter__()
        return _Tap(read, self._pages), write

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._context.__aexit__(exc_type, exc_val, exc_tb)


async def _list_tools(params: StdioServerParameters, errlog: Any) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    parsed = 0
    client = Client(
        _TapTransport(params, errlog, pages),
        read_timeout_seconds=LIST_S,
        client_info=types.Implementation(name="mcp-corpus-recorder", version="1"),
    )
    async with client:
        cursor: str | None = None
        for _ in range(100):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
            parsed += len(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
    tools = [tool for result in pages for tool in result["tools"]]
    if len(tools) != parsed:
        raise RecordError(f"{len(tools)} tools on the wire but the SDK parsed {parsed}")
    return tools


def _why(error: BaseException) -> str:
    inner = getattr(error, "exceptions", None)
    while isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
        error = inner[0]
        inner = getattr(error, "exceptions", None)
    return f"{type(error).__name__}: {error}"


def list_server(server: Server, command: list[str], scratch: Path) -> list[dict[str, Any]]:
    """Start the server over stdio and return its tools as the server sent them."""
    env = {key: value.format(scratch=scratch) for key, value in server.env.items()}
    env["HOME"] = str(scratch)
    args = [arg.format(scratch=scratch) for arg in server.args]
    params = StdioServerParameters(
        command=command[0], args=[*command[1:], *args], cwd=str(scratch), env=env
    )
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:

        async def main() -> list[dict[str, Any]]:
            with anyio.fail_after(LIST_S):
                return await _list_tools(params, errlog)

        try:
            return anyio.run(main)
        except Exception as error:
            errlog.seek(0)
            tail = errlog.read().strip()[-1200:]
            if isinstance(error, TimeoutError):
                message = f"no tool list within {LIST_S:g} s"
            else:
                message = _why(error)
            raise RecordError(
                f"start or tools/list failed: {message}"
                + (f"\nthe server's stderr ends with:\n{tail}" if tail else "")
            ) from error


def _make_git_repo(path: Path) -> None:
    path.mkdir(parents=True)
    git = ["git", "-C", str(path), "-c", "user.name=corpus", "-c", "user.email=corpus@invalid"]
    _run([*git, "init", "--quiet"], "git init", 30)
    (path / "README.md").write_text("A scratch repository for listing tools.\n", "utf-8")
    _run([*git, "add", "README.md"], "git add", 30)
    _run([*git, "commit", "--quiet", "-m", "scratch"], "git commit", 30)


# -- recording -------------------------------------------------------------------------


@dataclass
class Outcome:
    server: Server
    tools: int = 0
    seconds: float = 0.0
    error: str = ""
    notes: list[str] = field(default_factory=list)


def record_one(server: Server, today: str) -> Outcome:
    """Install, list and write one server's file (see the module)."""
    outcome = Outcome(server)
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix=f"mcp-corpus-{server.name}-") as tmp_name:
            tmp = Path(tmp_name)
            scratch = tmp / "scratch"
            scratch.mkdir()
            if server.git_repo:
                _make_git_repo(scratch / "repo")
            install = install_npm if server.registry == "npm" else install_pypi
            command, version, licence = install(server, tmp)
            if version != server.version:
                raise RecordError(f"installed version {version}, pinned {server.version}")
            if licence != server.licence:
                outcome.notes.append(
                    f"licence in the metadata is {licence!r}, the table says "
                    f"{server.licence!r}: recorded as installed"
                )
            tools = list_server(server, command, scratch)
        document = {
            "server": server.name,
            "registry": server.registry,
            "package": server.package,
            "version": version,
            "licence": licence,
            "recorded": today,
            "tools": tools,
        }
        CORPUS.mkdir(parents=True, exist_ok=True)
        text = json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        (CORPUS / f"{server.name}.json").write_text(text, encoding="utf-8")
        outcome.tools = len(tools)
    except RecordError as error:
        outcome.error = str(error)
    except Exception as error:  # anything else a broken package can do
        outcome.error = _why(error)
    outcome.seconds = time.monotonic() - started
    return outcome


def record(only: list[str], jobs: int) -> int:
    known = {server.name for server in SERVERS}
    unknown = [name for name in only if name not in known]
    if unknown:
        print(f"unknown server(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return 2
    chosen = [server for server in SERVERS if not only or server.name in only]
    today = datetime.date.today().isoformat()
    started = time.monotonic()
    outcomes: list[Outcome] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(record_one, server, today) for server in chosen]
        for future in concurrent.futures.as_completed(futures):
            outcome = future.result()
            outcomes.append(outcome)
            name = outcome.server.name
            if outcome.error:
                print(f"FAILED {name} ({outcome.seconds:.0f} s): {outcome.error}", flush=True)
            else:
                print(f"ok     {name}: {outcome.tools} tools ({outcome.seconds:.0f} s)", flush=True)
            for note in outcome.notes:
                print(f"       note: {note}", flush=True)
    failed = [o for o in outcomes if o.error]
    total = sum(o.tools for o in outcomes)
    print(
        f"\n{len(outcomes) - len(failed)} recorded ({total} tools), {len(failed)} failed"
        f"{': ' + ', '.join(o.server.name for o in failed) if failed else ''};"
        f" {time.monotonic() - started:.0f} s"
    )
    return 1 if failed else 0


def list_corpus() -> int:
    files = sorted(CORPUS.glob("*.json"))
    if not files:
        print(f"no recorded server in {CORPUS.relative_to(ROOT)}")
        return 1
    rows = [("server", "registry", "version", "licence", "tools")]
    total = 0
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        total += len(data["tools"])
        rows.append(
            (
                data["server"],
                data["registry"],
                data["version"],
                data["licence"],
                str(len(data["tools"])),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        print("  ".join(cells).rstrip())
    print(f"\n{len(files)} servers, {total} tools")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record", help="install the pinned servers and record them")
    rec.add_argument("--only", action="append", default=[], metavar="NAME")
    rec.add_argument("--jobs", type=int, default=JOBS, help="servers recorded at once")
    commands.add_parser("list", help="print the recorded corpus as a table")
    args = parser.parse_args(argv)
    if args.command == "record":
        return record(args.only, args.jobs)
    return list_corpus()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
    sys.exit(130)
