"""Chapter 09's exercise table: one tool of the learner's own, served over MCP by the
course's server and called through the official SDK's client.

**Exercise: ``word_count_spec(steps) -> ToolSpec``**: declare ``word_count``, a read tool
that counts the words and lines of one text file of the workspace. ``steps``
(:data:`WORD_COUNT_STEPS`) are the tool's own steps of the road, given: the business check,
the execution, where the data came from, the resolve step. The learner writes only what
a client sees: ``name``, ``title``, ``description``, ``input_schema``, ``output_schema``
and ``annotations``, and returns ``ToolSpec(..., **steps)``.

The check never looks at the ToolSpec itself. Each case serves it the way
``python -m tutorial_lib.mcp_server`` serves the course's tools
(:func:`one_tool_server`: the server's :func:`~tutorial_lib.mcp_server.server.mcp_tool`,
:func:`~tutorial_lib.mcp_server.confirm.tool_function` and
:class:`~tutorial_lib.mcp_server.server.CourseMCPServer`, a host with the operator's
read-only scope of :class:`~tutorial_lib.mcp_server.config.ServerConfig`), connects an
``mcp.Client`` in memory and reports what the client saw:

- ``tools/list``: the listed name, whether the title is one for people and a short one
  (at most :data:`TITLE_MAX_CHARS` characters, not a copy of the description), whether the
  description says read-only, the four annotation hints, and what the listed
  ``outputSchema`` accepts and refuses (a result like the tool's, one without ``lines``,
  one with a field more, one whose ``words`` is a string);
- ``tools/call``: ``{"isError": False, "structuredContent": ...}`` for a success (the SDK
  client has already checked it against the listed ``outputSchema``), ``{"isError":
  True, "code", "field", "expected"?}`` for a tool execution error (the host's
  envelope, which the server sends as the result's text), ``{"isError": True, "text":
  ..., "宿主的日志": ...}`` when the tool's steps crashed (the arguments reached them
  unchecked; the host's log names the exception's class and the station), ``{"协议错误":
  code, "message": ...}`` for a
  JSON-RPC error (no tool of that name), ``{"客户端拒绝了结果": ...}`` when the SDK
  client refused a result that does not fit the listed ``outputSchema``.

The points the table makes (:data:`WORD_COUNT_SPEC_RULES`): the name the client calls;
a title for people, short (at most :data:`TITLE_MAX_CHARS` characters) and not the
description; a description that says read-only; ``readOnlyHint: true`` and the
other three hints written out (MCP's defaults for a missing hint are the pessimistic
ones); ``path`` required, a string and only a string (a nullable type lets a model send
null), not empty; ``min_length`` optional, an integer, at least 1; no other argument (a
model-set ``confirm: true`` is ``unknown_field``); an ``outputSchema`` that describes the
data (``path`` a string, ``words`` and ``lines`` integers that may be 0), with all three
fields required and no other field.

:func:`library_word_count_spec` is the reference, :data:`WORD_COUNT_CASES` the visible
table, :func:`word_count_hidden_cases` the generated cases (each one lists the tool and
calls it, on a generated workspace with generated arguments and ``outputSchema`` probes;
expected: what the client sees of the reference).

Sessions run in a worker thread with their own event loop: a Jupyter kernel's main thread
already runs one (``anyio.run`` refuses to start a second there), and the check's time
limit stays in the main thread.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import random
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import anyio
import mcp_types as types
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.shared.exceptions import MCPError

from tutorial_lib.core.authorization import ToolAccess, workspace_access
from tutorial_lib.core.contracts import ContractError, Source
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Annotations, Registry, ToolSpec
from tutorial_lib.course.chapters.ch02_tool_set.cases import says_read_only
from tutorial_lib.course.checks import Case
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.language import Text, tr
from tutorial_lib.mcp_server.config import ServerConfig
from tutorial_lib.mcp_server.confirm import HostBridge, tool_function
from tutorial_lib.mcp_server.results import error_envelope
from tutorial_lib.mcp_server.server import SERVER_NAME, CourseMCPServer, mcp_tool
from tutorial_lib.mcp_server.tools import SESSION
from tutorial_lib.workspace.read import ReadContext, ReadLimits, check_readable, resolve_path
from tutorial_lib.workspace.sandbox import OpenedFile

__all__ = [
    "WORD_COUNT_ACCESS",
    "WORD_COUNT_CASES",
    "WORD_COUNT_DATA_SCHEMA",
    "WORD_COUNT_INPUT_SCHEMA",
    "WORD_COUNT_MAX_BYTES",
    "WORD_COUNT_SPEC_RULES",
    "WORD_COUNT_STEPS",
    "VISIBLE_FILES",
    "TITLE_MAX_CHARS",
    "OneToolServer",
    "call_view",
    "count_words",
    "library_word_count_spec",
    "listing_view",
    "one_tool_server",
    "run_session",
    "word_count_hidden_cases",
    "workspace",
]

#: The tool's name, the one the client calls.
TOOL = "word_count"
#: The longest title the check calls short, in characters: a client shows the title in a
#: tool list or a confirmation dialog, where it is read at a glance.
TITLE_MAX_CHARS = 60
#: Files larger than this are refused (``file_too_large``): the count reads the whole file.
WORD_COUNT_MAX_BYTES = 1 << 20
#: The operator's declaration of the tool (chapter 06): a read of the workspace path ``path``.
WORD_COUNT_ACCESS: ToolAccess = workspace_access("read")
#: A session that takes longer than this is cancelled (the check's own limit is shorter).
_SESSION_LIMIT_S = 20.0


def count_words(
    context: ReadContext, args: Mapping[str, Any], opened: OpenedFile
) -> dict[str, Any]:
    """The execution: the words of the file the business check opened (runs of
    non-whitespace characters, as ``str.split()`` finds them; only those of at least
    ``min_length`` characters, 1 by default) and its lines (a last line without a newline
    counts too). A NUL byte is ``binary_file``; text that is not UTF-8, ``undecodable_text``.
    """
    path = args["path"]
    with os.fdopen(opened.fd, "rb", closefd=False) as stream:
        raw = stream.read(WORD_COUNT_MAX_BYTES + 1)
    if b"\x00" in raw:
        raise ContractError(
            "binary_file",
            f"'{path}' contains NUL bytes: it is a binary file, not text",
            field="path",
            received=path,
            suggestion="word_count counts text files only; choose a text file",
        )
    raw = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark is not a character
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ContractError(
            "undecodable_text",
            f"'{path}' is not valid UTF-8 (byte {exc.start + 1}); word_count reads UTF-8 only",
            field="path",
            received=path,
        ) from None
    shortest = args.get("min_length", 1)
    words = sum(1 for word in text.split() if len(word) >= shortest)
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return {"path": path, "words": words, "lines": lines}


def _source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "workspace", "resource": data["path"]}


#: The tool's own steps of the road, given to the learner: ``ToolSpec(..., **steps)``.
#: The business check and the resolve step are ``read_lines``' own (inside the workspace,
#: a regular file with one name, symlinks followed by name).
WORD_COUNT_STEPS: Mapping[str, Any] = MappingProxyType(
    {"check": check_readable, "execute": count_words, "source": _source, "resolve": resolve_path}
)

#: The reference's argument schema.
WORD_COUNT_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {
            "type": "string",
            "minLength": 1,
            "description": "The file, relative to the workspace root, e.g. docs/guide.md.",
        },
        "min_length": {
            "type": "integer",
            "minimum": 1,
            "description": "Count only words of at least this many characters (default 1).",
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}

#: The reference's result schema: the ``data`` of a success, sent as ``structuredContent``.
WORD_COUNT_DATA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "words": {"type": "integer", "minimum": 0},
        "lines": {"type": "integer", "minimum": 0},
    },
    "required": ["path", "words", "lines"],
    "additionalProperties": False,
}


def library_word_count_spec(steps: Mapping[str, Any] = WORD_COUNT_STEPS) -> ToolSpec:
    """The reference answer: ``word_count`` declared with ``steps``."""
    return ToolSpec(
        name=TOOL,
        title="Count words in a workspace file",
        description=(
            "Count the words and lines of one UTF-8 text file of the workspace. A word is a"
            " run of non-whitespace characters; min_length keeps only the longer ones."
            " Read-only."
        ),
        input_schema=copy.deepcopy(WORD_COUNT_INPUT_SCHEMA),
        output_schema=copy.deepcopy(WORD_COUNT_DATA_SCHEMA),
        annotations=Annotations(
            read_only=True, destructive=False, idempotent=True, open_world=False
        ),
        **steps,
    )


# --------------------------------------------------------------------------- serving one tool


class OneToolServer:
    """One tool on the course's MCP server: the same pieces ``python -m
    tutorial_lib.mcp_server`` assembles for its twelve (the host with the operator's scope
    for ``--root``, read only; the tool registered from its ToolSpec's MCP export; every
    call through the host), for one ToolSpec of your own.

    ``spec`` is bound to ``root`` (:class:`~tutorial_lib.workspace.read.ReadContext`, files
    up to :data:`WORD_COUNT_MAX_BYTES`); ``access`` is the operator's declaration of it.
    :attr:`mcp` is the SDK server a ``Client`` connects to, :attr:`host` the host.
    """

    def __init__(
        self,
        spec: ToolSpec,
        root: str | os.PathLike[str],
        access: ToolAccess = WORD_COUNT_ACCESS,
    ) -> None:
        if not isinstance(spec, ToolSpec):
            raise TypeError(f"a ToolSpec is served, not {type(spec).__name__}")
        config = ServerConfig(root=Path(root))  # the operator's defaults: read only, the root
        bound = spec.bind(ReadContext(config.root, ReadLimits(max_file_bytes=WORD_COUNT_MAX_BYTES)))
        self.host = Host(
            Registry([bound]), access={spec.name: access}, scope=config.scope(), session=SESSION
        )
        tool = mcp_tool(bound, access, tool_function(HostBridge(self.host), spec.name))
        self.mcp = CourseMCPServer(
            served=frozenset({spec.name}), name=SERVER_NAME, tools=[tool], log_level="WARNING"
        )


def one_tool_server(
    spec: ToolSpec, root: str | os.PathLike[str], access: ToolAccess = WORD_COUNT_ACCESS
) -> OneToolServer:
    """``spec`` served alone on the course's MCP server (see :class:`OneToolServer`)."""
    return OneToolServer(spec, root, access)


@contextlib.contextmanager
def workspace(files: Mapping[str, str | bytes]) -> Iterator[Path]:
    """A temporary workspace holding ``files`` (relative name -> text or bytes; a name
    ending in ``/`` is a directory), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="tl-ws-") as folder:
        root = Path(folder)
        for name, content in files.items():
            target = root / name
            if name.endswith("/"):
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        yield root


#: The SDK logs a crash of a tool's steps with its traceback: the report says it instead.
_SDK_LOGGERS = ("mcp", "mcp.server", "mcp.server.mcpserver", "mcp.server.mcpserver.server")


@contextlib.contextmanager
def _quiet_sdk() -> Iterator[None]:
    loggers = [logging.getLogger(name) for name in _SDK_LOGGERS]
    before = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, was in zip(loggers, before, strict=True):
            logger.disabled = was


def run_session(server: OneToolServer, scenario: Callable[[Client], Awaitable[Any]]) -> Any:
    """Connect an ``mcp.Client`` in memory to ``server``, run ``scenario(client)`` and
    return what it returns (or raise what it raised), in a worker thread with its own
    event loop (see the module docstring)."""
    outcome: dict[str, Any] = {}

    async def main() -> None:
        with anyio.fail_after(_SESSION_LIMIT_S):
            async with Client(server.mcp) as client:
                outcome["value"] = await scenario(client)

    def target() -> None:
        try:
            with _quiet_sdk():
                anyio.run(main)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            outcome["error"] = exc

    worker = threading.Thread(target=target, name="mcp-session", daemon=True)
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


# --------------------------------------------------------------------------- what a client sees

#: A result like the tool's (notes.txt of the visible workspace), and an empty file's.
_REAL_RESULT = {"path": "notes.txt", "words": 11, "lines": 2}
_EMPTY_RESULT = {"path": "empty.txt", "words": 0, "lines": 0}


def _accepts(schema: Any, value: Any) -> bool:
    return Draft202012Validator(schema).is_valid(value)


# The labels of what a client sees (here, in _LISTING_PROBES, in the visible cases' expected
# values and in the hidden probes) are compared data, the same in both languages.
def _title_view(wire: Mapping[str, Any]) -> dict[str, bool]:
    title = wire.get("title")
    return {
        "title 不为空": isinstance(title, str) and bool(title.strip()),  # data, not learner text
        "title 不等于 name": title != wire.get("name"),  # data, not learner text
    }


def _short_title_view(wire: Mapping[str, Any]) -> dict[str, bool]:
    """Whether the title is short and not the description. A missing or empty title
    passes here: that is :func:`_title_view`'s finding, not this probe's."""
    title = wire.get("title")
    text = title.strip() if isinstance(title, str) else ""
    description = str(wire.get("description") or "").strip()
    return {
        # data, not learner text
        f"title 最多 {TITLE_MAX_CHARS} 个字符": len(text) <= TITLE_MAX_CHARS,
        "title 不照抄 description": not text or text != description,  # data, not learner text
    }


def _description_view(wire: Mapping[str, Any]) -> dict[str, bool]:
    text = str(wire.get("description") or "")
    probe = ToolSpec(
        name="probe", title="", description=text or " ", input_schema={"type": "object"}
    )
    return {
        # data, not learner text
        "description 写明只读（例如 Read-only.）": bool(text.strip()) and says_read_only(probe)
    }


_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_MISSING_HINT = Text(zh="没有写（MCP 的默认值）", en="not written (MCP's default)")


def _hints(wire: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    hints = wire.get("annotations") or {}
    return {name: hints.get(name, str(_MISSING_HINT)) for name in names}


def _output_view(wire: Mapping[str, Any], probes: Mapping[str, Any]) -> dict[str, Any]:
    """For each probe (label -> a structuredContent), whether the listed outputSchema does
    what the label says: a label starting with 接受 (accepts) holds when the schema accepts
    the value, one starting with 拒绝 (refuses) when it refuses it. Without an
    outputSchema: that it has none."""
    schema = wire.get("outputSchema")
    if schema is None:
        return {"outputSchema": tr("没有声明", "not declared")}
    return {
        label: _accepts(schema, value) is label.startswith("接受")  # data, not learner text
        for label, value in probes.items()
    }


#: What a listing probe reports, by probe name.
_LISTING_PROBES: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "name": lambda wire: {"name": wire.get("name")},
    "title": _title_view,
    "short title": _short_title_view,
    "description": _description_view,
    "readOnlyHint": lambda wire: _hints(wire, ("readOnlyHint",)),
    "other hints": lambda wire: _hints(wire, _HINTS[1:]),
    "accepts results": lambda wire: _output_view(
        wire,
        {
            "接受 notes.txt 的结果（11 个词、2 行）": _REAL_RESULT,  # data, not learner text
            "接受空文件的结果（0 个词、0 行）": _EMPTY_RESULT,  # data, not learner text
        },
    ),
    "refuses a string": lambda wire: _output_view(
        wire,
        {'拒绝 words 写成 "11" 的结果': {**_REAL_RESULT, "words": "11"}},  # data, not learner text
    ),
    "refuses a missing field": lambda wire: _output_view(
        wire,
        {"拒绝缺少 lines 的结果": {"path": "notes.txt", "words": 11}},  # data, not learner text
    ),
    "refuses an extra field": lambda wire: _output_view(
        wire,
        {
            # data, not learner text
            "拒绝多出 characters 的结果": {**_REAL_RESULT, "characters": 58}
        },
    ),
}


def listing_view(wire: Mapping[str, Any], probe: str) -> Any:
    """What listing probe ``probe`` reports of the listed tool ``wire`` (its wire form)."""
    return _LISTING_PROBES[probe](wire)


def _first_line(text: str, limit: int = 160) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _text_of(result: types.CallToolResult) -> str:
    return " ".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def call_view(
    client: Client, name: str, arguments: Any, host: Host | None = None
) -> dict[str, Any]:
    """What the client sees of one ``tools/call`` (see the module docstring). With the
    server's ``host``, a crash of the tool's steps also says what the host logged: the
    exception's class and the station it struck (the client itself sees only the SDK's
    sentence)."""
    try:
        result = await client.call_tool(name, arguments)
    except MCPError as exc:
        return {
            tr("协议错误", "protocol error"): exc.code,
            "message": _first_line(str(exc.message)),
        }
    except RuntimeError as exc:  # the SDK client's check of structuredContent
        return {tr("客户端拒绝了结果", "client refused the result"): _first_line(str(exc))}
    if not result.is_error:
        return {"isError": False, "structuredContent": result.structured_content}
    envelope = error_envelope(result)  # the host's envelope, as the text of the result
    error = envelope["error"] if envelope is not None else None
    if not isinstance(error, dict):
        crashed: dict[str, Any] = {"isError": True, "text": _first_line(_text_of(result))}
        bugs = [record for record in (host.log if host else ()) if record.outcome == "bug"]
        if bugs:
            bug = bugs[-1]
            crashed[tr("宿主的日志", "host's log")] = tr(
                f"{bug.exception_class}（在 {bug.station} 站）",
                f"{bug.exception_class} (at the {bug.station} station)",
            )
        return crashed
    view: dict[str, Any] = {"isError": True, "code": error.get("code")}
    for key in ("field", "expected"):
        if key in error:
            view[key] = error[key]
    return view


def _listed(server: OneToolServer) -> Any:
    async def scenario(client: Client) -> Any:
        tools = (await client.list_tools()).tools
        return [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools]

    return run_session(server, scenario)


def _served(word_count_spec: Callable[..., Any], root: Path) -> OneToolServer | str:
    spec = word_count_spec(WORD_COUNT_STEPS)
    if not isinstance(spec, ToolSpec):
        return tr(
            f"word_count_spec 返回的是 {type(spec).__name__}，不是 ToolSpec",
            f"word_count_spec returned a {type(spec).__name__}, not a ToolSpec",
        )
    return one_tool_server(spec, root)


def _via_listing(word_count_spec: Callable[..., Any], probe: str) -> Any:
    """Serve the learner's declaration, list it, report ``probe``."""
    with workspace(VISIBLE_FILES) as root:
        server = _served(word_count_spec, root)
        if isinstance(server, str):
            return server
        (wire,) = _listed(server)
        return listing_view(wire, probe)


def _via_call(word_count_spec: Callable[..., Any], arguments: Any) -> Any:
    """Serve the learner's declaration, call ``word_count`` with ``arguments``."""
    with workspace(VISIBLE_FILES) as root:
        server = _served(word_count_spec, root)
        if isinstance(server, str):
            return server

        async def scenario(client: Client) -> Any:
            return await call_view(client, TOOL, arguments, server.host)

        return run_session(server, scenario)


# --------------------------------------------------------------------------- visible cases

#: The workspace of the visible cases.
VISIBLE_FILES: Mapping[str, str | bytes] = MappingProxyType(
    {
        "notes.txt": "Tool calls travel one road.\nEach station may stop a call.\n",
        "empty.txt": "",
        "docs/guide.md": "# Guide\n\nstep one\nstep two",
        ".env": "TOKEN=not-a-real-secret\n",
        "src/": "",
    }
)

_NOTES = {"path": "notes.txt"}


def _listing_case(name: str | Text, probe: str, expected: Any, hint: str | Text) -> Case:
    return Case(
        name,
        (probe,),
        expected,
        hint,
        via=_via_listing,
        shown_call=Text(
            zh="{function}(WORD_COUNT_STEPS) 由课程的服务器列出（tools/list）",
            en="{function}(WORD_COUNT_STEPS), listed by the course's server (tools/list)",
        ),
    )


def _call_case(name: str | Text, arguments: Any, expected: Any, hint: str | Text) -> Case:
    return Case(
        name,
        (arguments,),
        expected,
        hint,
        via=_via_call,
        shown_call=Text(
            zh="{function}(WORD_COUNT_STEPS) 由课程的服务器提供，客户端调用 word_count "
            + repr(arguments),
            en="{function}(WORD_COUNT_STEPS), served by the course's server; the client calls"
            " word_count " + repr(arguments),
        ),
    )


def _success(path: str, words: int, lines: int) -> dict[str, Any]:
    return {"isError": False, "structuredContent": {"path": path, "words": words, "lines": lines}}


def _tool_error(code: str, field: str, expected: str | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {"isError": True, "code": code, "field": field}
    if expected is not None:
        view["expected"] = expected
    return view


WORD_COUNT_CASES: tuple[Case, ...] = (
    # -- tools/list: what the client (and the model) reads before any call
    _listing_case(
        Text(zh="列出的名字是 word_count", en="the listed name is word_count"),
        "name",
        {"name": "word_count"},
        Text(
            zh="规则“名字”：客户端按列出的名字调用，模型也只知道这个名字；name 写成别的，"
            "客户端调用 word_count 就得到协议错误 -32602（没有这个工具）。",
            en="Rule “name”: the client calls the tool by its listed name, and that "
            "name is all the model knows; with another name, the client's call to "
            "word_count gets protocol error -32602 (no such tool).",
        ),
    ),
    _listing_case(
        Text(zh="title 是给人看的标题", en="title is a title for people"),
        "title",
        {"title 不为空": True, "title 不等于 name": True},  # data, not learner text
        Text(
            zh="规则“title”：title 是客户端界面上给人看的短标题（例如 Count words in a workspace"
            " file），不要空着，也不要照抄 name。",
            en="Rule “title”: title is the short title a client's interface shows to "
            "people (e.g. Count words in a workspace file); do not leave it empty, "
            "and do not copy name.",
        ),
    ),
    _listing_case(
        Text(
            zh=f"title 最多 {TITLE_MAX_CHARS} 个字符，不照抄 description",
            en=f"title at most {TITLE_MAX_CHARS} characters, not the description",
        ),
        "short title",
        # data, not learner text
        {f"title 最多 {TITLE_MAX_CHARS} 个字符": True, "title 不照抄 description": True},
        Text(
            zh=f"规则“title 要短”：客户端把 title 显示在工具列表和确认框里，让人一眼读完；"
            f"它最多 {TITLE_MAX_CHARS} 个字符（例如 Count words in a workspace file，31 个字符），"
            "也不是 description 的原文。把整段描述放进 title 就不是标题了："
            "说明留在 description 里，那是写给模型读的。",
            en=f"Rule “short title”: a client shows title in its tool list and "
            f"confirmation dialogs, to be read at a glance; it has at most "
            f"{TITLE_MAX_CHARS} characters (e.g. Count words in a workspace file, 31 "
            "characters) and is not the text of description. The whole description "
            "put in title is not a title: the explanation stays in description, which "
            "is written for the model.",
        ),
    ),
    _listing_case(
        Text(zh="description 写明只读", en="description says read-only"),
        "description",
        {"description 写明只读（例如 Read-only.）": True},  # data, not learner text
        Text(
            zh="规则“描述写明只读”：模型读的是 description，不是注解；在描述里写上 Read-only."
            "（写 not read-only 不算）。",
            en="Rule “description says read-only”: the model reads description, not "
            "the annotations; write Read-only. in the description (not read-only "
            "does not count).",
        ),
    ),
    _listing_case(
        Text(zh="readOnlyHint 是 true", en="readOnlyHint is true"),
        "readOnlyHint",
        {"readOnlyHint": True},
        Text(
            zh="规则“readOnlyHint”：word_count 只读工作区，annotations 写 read_only=True；"
            "它只是给客户端的提示，放不放行由运营方的授权决定。",
            en="Rule “readOnlyHint”: word_count only reads the workspace, so "
            "annotations says read_only=True; it is only a hint to the client, and "
            "whether a call is let through is decided by the operator's "
            "authorization.",
        ),
    ),
    _listing_case(
        Text(zh="另外三个注解也写出来", en="the other three annotations written out"),
        "other hints",
        {"destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
        Text(
            zh="规则“另外三个注解”：Annotations 的默认值和 MCP 一样是最悲观的（destructive=True、"
            "idempotent=False、open_world=True）；只读本地文件的工具要写 destructive=False、"
            "idempotent=True、open_world=False。",
            en="Rule “the other three annotations”: like MCP's, the defaults of "
            "Annotations are the most pessimistic ones (destructive=True, "
            "idempotent=False, open_world=True); a tool that only reads local "
            "files writes destructive=False, idempotent=True, open_world=False.",
        ),
    ),
    _listing_case(
        Text(zh="outputSchema 接受真实的结果", en="outputSchema accepts real results"),
        "accepts results",
        {
            "接受 notes.txt 的结果（11 个词、2 行）": True,  # data, not learner text
            "接受空文件的结果（0 个词、0 行）": True,  # data, not learner text
        },
        Text(
            zh="规则“outputSchema 描述 data”：声明 output_schema，path 是 string，words 和 lines"
            " 是 integer（可以是 0）；客户端按它检查每一个成功结果的 structuredContent。",
            en="Rule “outputSchema describes data”: declare output_schema, with path "
            "a string and words and lines integers (they may be 0); the client "
            "checks the structuredContent of every success against it.",
        ),
    ),
    _listing_case(
        Text(zh="outputSchema 拒绝字符串形式的 words", en="outputSchema refuses words as a string"),
        "refuses a string",
        {'拒绝 words 写成 "11" 的结果': True},  # data, not learner text
        Text(
            zh="规则“outputSchema 描述 data”：words 和 lines 的 type 都是 integer；"
            "不写 type，或者写成 string，客户端就查不出一个把数写成字符串的服务器。",
            en="Rule “outputSchema describes data”: the type of both words and lines "
            "is integer; with no type, or with string, the client cannot catch a "
            "server that writes a number as a string.",
        ),
    ),
    _listing_case(
        Text(
            zh="outputSchema 拒绝缺少 lines 的结果",
            en="outputSchema refuses a result without lines",
        ),
        "refuses a missing field",
        {"拒绝缺少 lines 的结果": True},  # data, not learner text
        Text(
            zh="规则“三个字段都必填”：output_schema 的 required 列出 path、words、lines；"
            "少列一个，客户端就接受一个缺了它的结果。",
            en="Rule “all three fields required”: output_schema's required lists "
            "path, words and lines; leave one out and the client accepts a result "
            "that lacks it.",
        ),
    ),
    _listing_case(
        Text(
            zh="outputSchema 拒绝多出字段的结果",
            en="outputSchema refuses a result with an extra field",
        ),
        "refuses an extra field",
        {"拒绝多出 characters 的结果": True},  # data, not learner text
        Text(
            zh="规则“不许多出字段”：output_schema 写 additionalProperties: false，"
            "结果只有这三个字段。",
            en="Rule “no extra fields”: output_schema says additionalProperties: "
            "false; the result has only these three fields.",
        ),
    ),
    # -- tools/call: successes come back as structuredContent
    _call_case(
        Text(
            zh="只给 path：notes.txt 有 11 个词、2 行",
            en="only path: notes.txt has 11 words, 2 lines",
        ),
        _NOTES,
        _success("notes.txt", 11, 2),
        Text(
            zh="规则“min_length 可选”：min_length 不在 required 里，只给 path 就能数；"
            "如果看到 missing_field，检查 required。",
            en="Rule “min_length optional”: min_length is not in required, so path "
            "alone is enough to count; if you see missing_field, check required.",
        ),
    ),
    _call_case(
        Text(
            zh="min_length 5：只数 5 个字符以上的词",
            en="min_length 5: only words of at least 5 characters",
        ),
        {**_NOTES, "min_length": 5},
        _success("notes.txt", 5, 2),
        Text(
            zh="min_length 是 input_schema 里的一个属性（integer）；"
            "如果看到 unknown_field，说明 properties 里没有它。",
            en="min_length is a property (an integer) of input_schema; if you see "
            "unknown_field, properties does not have it.",
        ),
    ),
    _call_case(
        Text(zh="空文件：0 个词、0 行", en="empty file: 0 words, 0 lines"),
        {"path": "empty.txt"},
        _success("empty.txt", 0, 0),
        Text(
            zh="规则“outputSchema 描述 data”：words 和 lines 可以是 0；"
            "如果客户端拒绝了结果，看看 output_schema 是不是写了 minimum: 1。",
            en="Rule “outputSchema describes data”: words and lines may be 0; if the "
            "client refused the result, check whether output_schema says minimum: "
            "1.",
        ),
    ),
    # -- tools/call: a bad argument is a tool execution error the model can correct from
    # a nullable or missing type fails every type case: null first, its hint says why
    _call_case(
        Text(zh="path 是 null：invalid_type", en="path is null: invalid_type"),
        {"path": None},
        _tool_error("invalid_type", "path", "string"),
        Text(
            zh='规则“path 不可为 null”：path 的 type 只写 "string"。写成 ["string", "null"]'
            "（可为 null 的类型），就是告诉模型它可以发 null：null 过了 Schema 检查，"
            "授权站才因为不知道要读哪个路径而拒绝（permission_denied），模型读不出该发一个字符串。"
            "不写 type 也一样放过 null。",
            en='Rule “path not nullable”: path\'s type is "string" alone. Written as '
            '["string", "null"] (a nullable type), it tells the model it may send '
            "null: null passes the schema check, and only the authorization station "
            "refuses it, because it does not know which path would be read "
            "(permission_denied): the model cannot tell that it should send a "
            "string. With no type at all, null gets through the same way.",
        ),
    ),
    _call_case(
        Text(zh="path 写成数字 5：invalid_type", en="path as the number 5: invalid_type"),
        {"path": 5},
        _tool_error("invalid_type", "path", "string"),
        Text(
            zh='规则“path 是字符串”：path 写 "type": "string"；没有 type，5 就原样到了工具的步骤，'
            "步骤抛出异常，客户端只看到一句 Error executing tool。",
            en='Rule “path is a string”: path says "type": "string"; without a type, '
            "5 reaches the tool's steps as it is, the steps raise an exception, "
            "and all the client sees is the line Error executing tool.",
        ),
    ),
    _call_case(
        Text(zh="缺少 path：missing_field", en="no path: missing_field"),
        {},
        _tool_error("missing_field", "path", "string"),
        Text(
            zh="规则“path 必填”：input_schema 的 required 里要有 path；否则 Schema 检查放过了它，"
            "授权站才因为不知道要读哪个路径而拒绝（permission_denied），模型读不出该补哪个参数。",
            en="Rule “path required”: input_schema's required must list path; "
            "otherwise the schema check lets the call through without it, and only "
            "the authorization station refuses it, because it does not know which "
            "path would be read (permission_denied): the model cannot tell which "
            "argument to add.",
        ),
    ),
    _call_case(
        Text(zh="path 是空字符串：invalid_value", en="path is the empty string: invalid_value"),
        {"path": ""},
        _tool_error("invalid_value", "path", "minLength 1"),
        Text(
            zh='规则“path 至少一个字符”：path 写 "minLength": 1；'
            "错误里的 expected 告诉模型改成什么。",
            en='Rule “path at least one character”: path says "minLength": 1; the '
            "error's expected tells the model what to change it to.",
        ),
    ),
    _call_case(
        Text(zh="min_length 是 0：invalid_range", en="min_length is 0: invalid_range"),
        {**_NOTES, "min_length": 0},
        _tool_error("invalid_range", "min_length", "minimum 1"),
        Text(
            zh='规则“min_length 至少为 1”：min_length 写 "minimum": 1。',
            en='Rule “min_length at least 1”: min_length says "minimum": 1.',
        ),
    ),
    _call_case(
        Text(zh="min_length 是 2.5：invalid_type", en="min_length is 2.5: invalid_type"),
        {**_NOTES, "min_length": 2.5},
        _tool_error("invalid_type", "min_length", "integer"),
        Text(
            zh='规则“min_length 是整数”：写 "type": "integer"，不是 "number"。',
            en='Rule “min_length is an integer”: write "type": "integer", not "number".',
        ),
    ),
    _call_case(
        Text(zh='min_length 是 "5"：invalid_type', en='min_length is "5": invalid_type'),
        {**_NOTES, "min_length": "5"},
        _tool_error("invalid_type", "min_length", "integer"),
        Text(
            zh='规则“min_length 是整数”：写 "type": "integer"；字符串 "5" 不是整数，'
            "课程的 Schema 检查不会悄悄把它转换成 5。",
            en='Rule “min_length is an integer”: write "type": "integer"; the string '
            '"5" is not an integer, and the course\'s schema check does not '
            "quietly convert it to 5.",
        ),
    ),
    _call_case(
        Text(zh="min_length 是 true：invalid_type", en="min_length is true: invalid_type"),
        {**_NOTES, "min_length": True},
        _tool_error("invalid_type", "min_length", "integer"),
        Text(
            zh="规则“min_length 是整数”：true 不是整数（Python 里 bool 是 int 的子类，"
            "JSON 里不是）。",
            en="Rule “min_length is an integer”: true is not an integer (in Python "
            "bool is a subclass of int; in JSON it is not).",
        ),
    ),
    _call_case(
        Text(
            zh="模型加了 confirm: true：unknown_field",
            en="the model added confirm: true: unknown_field",
        ),
        {**_NOTES, "confirm": True},
        _tool_error("unknown_field", "confirm"),
        Text(
            zh='规则“只收 path 和 min_length”：input_schema 写 "additionalProperties": false；'
            "否则模型自己填的 confirm 被悄悄收下，看起来像是有人确认过。",
            en="Rule “only path and min_length”: input_schema says "
            '"additionalProperties": false; otherwise the confirm the model filled '
            "in itself is quietly accepted, and it looks as if someone had "
            "confirmed.",
        ),
    ),
    # -- tools/call: what the road refuses, whatever the declaration says
    _call_case(
        Text(zh="不存在的文件：not_found", en="a file that does not exist: not_found"),
        {"path": "notes.md"},
        _tool_error("not_found", "path"),
        Text(
            zh="业务检查找不到这个文件；这一条来自给定的 steps，"
            "只要 path 的 schema 放行它就会出现。",
            en="The business check cannot find this file; this case comes from the "
            "given steps and appears as soon as path's schema lets the path "
            "through.",
        ),
    ),
    _call_case(
        Text(zh=".env：permission_denied", en=".env: permission_denied"),
        {"path": ".env"},
        _tool_error("permission_denied", "path"),
        Text(
            zh="授权站按名字拒绝密钥文件（第 06 章）；这一条来自宿主，"
            "只要 path 的 schema 放行它就会出现。",
            en="The authorization station refuses secret-bearing files by name "
            "(chapter 06); this case comes from the host and appears as soon as "
            "path's schema lets the path through.",
        ),
    ),
    _call_case(
        Text(zh="目录 src：not_a_file", en="the directory src: not_a_file"),
        {"path": "src"},
        _tool_error("not_a_file", "path"),
        Text(
            zh="业务检查只打开普通文件；这一条来自给定的 steps，"
            "只要 path 的 schema 放行它就会出现。",
            en="The business check opens regular files only; this case comes from the "
            "given steps and appears as soon as path's schema lets the path "
            "through.",
        ),
    ),
)

#: Every rule the exercise's task text states, the visible case that fails an answer
#: breaking only that rule, and what :func:`word_count_hidden_cases` varies for it.
WORD_COUNT_SPEC_RULES: tuple[Rule, ...] = load_rules(
    "09", "WORD_COUNT_SPEC_RULES", WORD_COUNT_CASES
)

# --------------------------------------------------------------------------- hidden cases

_WORDS = (
    "tool", "calls", "travel", "one", "road", "each", "station", "may", "stop", "a", "call",
    # data, not learner text
    "可靠的", "工具接口", "Read-only.", "x", "naïve", "—", "42", "#", "emoji🙂",
)  # fmt: skip
_SPACES = (" ", " ", " ", "  ", "\t", "\u3000", "\u00a0", "\r\n")
_EXTRA_FIELDS = ("confirm", "approved", "user_confirmed", "request_id", "lines")
_EXTRA_RESULT_FIELDS = ("characters", "bytes", "source", "truncated", "encoding")
_BAD_PATHS: tuple[Any, ...] = (5, ["notes.txt"], True)  # not strings; null and "" apart
_BAD_MIN_LENGTHS: tuple[Any, ...] = (0, -1, 2.5, "3", True, None, [2])
_HIDDEN_HINT = Text(
    zh="和参考实现的服务器不一样。按题目的规则逐条对照：name、title（不为空、不等于 name、"
    f"最多 {TITLE_MAX_CHARS} 个字符、不照抄 description）、description、四个注解；"
    "input_schema 的 path（必填、只是 string 而不可为 null、minLength 1）、"
    "min_length（可选、integer、minimum 1）、additionalProperties: false；"
    "output_schema（path string，words、lines integer，三个都必填，"
    "不许多出字段）。",
    en="Differs from the reference server. Go through the task's rules one by "
    "one: name, title (not empty, not name, at most "
    f"{TITLE_MAX_CHARS} characters, not a copy of description), description, the four "
    "annotations; input_schema's path (required, a string and not nullable, "
    "minLength 1), min_length (optional, integer, minimum 1), additionalProperties: "
    "false; output_schema (path string, words and lines integer, all three required, "
    "no extra fields).",
)


def _text(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(0, 5)):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(0, 7))]
        line = ""
        for word in words:
            line += word + rng.choice(_SPACES)
        lines.append(line.rstrip(" ") if rng.random() < 0.5 else line)
    text = "\n".join(lines)
    if text and rng.random() < 0.6:
        text += "\n"
    return text


def _hidden_files(rng: random.Random) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {
        "notes.txt": _text(rng),
        "docs/guide.md": _text(rng),
        "docs/deep/说明.txt": _text(rng),  # data, not learner text
        "empty.txt": "",
        ".env": "TOKEN=not-a-real-secret\n",
        "src/": "",
    }
    if rng.random() < 0.3:
        files["logo.png"] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    if rng.random() < 0.3:
        files["latin1.txt"] = "caf\xe9 au lait\n".encode("latin-1")
    return files


def _hidden_arguments(rng: random.Random, files: Mapping[str, Any]) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    roll = rng.random()
    if roll < 0.1:
        pass  # no path
    elif roll < 0.15:
        arguments["path"] = None  # what a nullable type invites
    elif roll < 0.2:
        arguments["path"] = ""
    elif roll < 0.3:
        arguments["path"] = rng.choice(_BAD_PATHS)
    else:
        names = [name.rstrip("/") for name in files] + ["missing.txt", "docs", "docs/none.md"]
        arguments["path"] = rng.choice(names)
    roll = rng.random()
    if roll < 0.4:
        pass  # min_length left out
    elif roll < 0.65:
        arguments["min_length"] = rng.choice(_BAD_MIN_LENGTHS)
    else:
        arguments["min_length"] = rng.randint(1, 8)
    if rng.random() < 0.15:
        arguments[rng.choice(_EXTRA_FIELDS)] = rng.choice((True, "yes", 1))
    return arguments


def _hidden_probes(rng: random.Random) -> dict[str, Any]:
    """Generated structuredContent to try the listed outputSchema with: a result like the
    tool's, one without a field, one with a field more, one with a wrongly typed value."""
    result = {
        "path": rng.choice(("notes.txt", "docs/guide.md", "a/b/c.txt")),
        "words": rng.choice((0, 1, 7, 4096)),
        "lines": rng.choice((0, 1, 3, 70000)),
    }
    missing = rng.choice(sorted(result))
    extra = rng.choice(_EXTRA_RESULT_FIELDS)
    typed, wrong = rng.choice(
        (("words", str(result["words"])), ("lines", 2.5), ("path", 7), ("words", None),
         ("lines", True), ("words", [1]))
    )  # fmt: skip
    return {
        f"接受 {result}": result,  # data, not learner text
        # data, not learner text
        f"拒绝缺少 {missing} 的结果": {k: v for k, v in result.items() if k != missing},
        f"拒绝多出 {extra} 的结果": {**result, extra: 1},  # data, not learner text
        f"拒绝 {typed} 为 {wrong!r} 的结果": {**result, typed: wrong},  # data, not learner text
    }


def _observe(spec: ToolSpec, files: Mapping[str, Any], arguments: Any, probes: Any) -> Any:
    """What a client sees of ``spec`` on the course's server: the listing, and one call."""
    with workspace(files) as root:
        server = one_tool_server(spec, root)

        async def scenario(client: Client) -> Any:
            tools = (await client.list_tools()).tools
            wires = [tool.model_dump(by_alias=True, exclude_none=True) for tool in tools]
            (wire,) = wires
            listed = {
                **listing_view(wire, "name"),
                **listing_view(wire, "title"),
                **listing_view(wire, "short title"),
                **listing_view(wire, "description"),
                **_hints(wire, _HINTS),
                **_output_view(wire, probes),
            }
            called = await call_view(client, TOOL, arguments, server.host)
            return {"tools/list": listed, "tools/call": called}

        return run_session(server, scenario)


def _via_hidden(
    word_count_spec: Callable[..., Any], files: Any, arguments: Any, probes: Any
) -> Any:
    spec = word_count_spec(WORD_COUNT_STEPS)
    if not isinstance(spec, ToolSpec):
        return tr(
            f"word_count_spec 返回的是 {type(spec).__name__}，不是 ToolSpec",
            f"word_count_spec returned a {type(spec).__name__}, not a ToolSpec",
        )
    return _observe(spec, files, arguments, probes)


def word_count_hidden_cases(seed: int = 0, n: int = 80) -> tuple[Case, ...]:
    """``n`` seeded inputs: a generated workspace (words split by spaces, tabs, ideographic
    and no-break spaces, CRLF; Chinese and accented words; empty lines, a last line without
    a newline; sometimes a binary or a Latin-1 file), generated arguments (see
    :data:`WORD_COUNT_SPEC_RULES`) and generated ``outputSchema`` probes. Each serves the
    learner's declaration, lists it and calls it; expected: the same for
    :func:`library_word_count_spec`."""
    rng = random.Random(seed)
    reference = library_word_count_spec()
    cases = []
    for index in range(n):
        files = _hidden_files(rng)
        arguments = _hidden_arguments(rng, files)
        probes = _hidden_probes(rng)
        expected = _observe(reference, files, arguments, probes)
        cases.append(
            Case(
                Text(zh=f"生成的输入 {index + 1}", en=f"generated input {index + 1}"),
                (files, arguments, probes),
                expected,
                _HIDDEN_HINT,
                via=_via_hidden,
                shown_call=tr(
                    f"{{function}}(WORD_COUNT_STEPS) 列出，再调用 word_count {arguments!r}"
                    "（工作区和 outputSchema 的试探是生成的）",
                    f"{{function}}(WORD_COUNT_STEPS) listed, then word_count called with"
                    f" {arguments!r} (the workspace and the outputSchema probes are generated)",
                ),
            )
        )
    return tuple(cases)
