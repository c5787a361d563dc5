"""One MCP server process, driven by the official SDK's client over stdio.

:class:`Connection` starts ``COMMAND`` with the SDK's ``stdio_client`` and talks to it with
``mcp.Client`` (protocol negotiated as the SDK does: ``server/discover``, else the
``initialize`` handshake). It does what a checker needs beyond a plain client:

- every call has a time limit, and every answer becomes an :class:`Answer` instead of an
  exception: a result (``isError`` or not), a JSON-RPC protocol error, a result the SDK's
  client refuses (structured content that breaks the declared ``outputSchema``), a
  malformed result, no answer in time, or a closed connection;
- a server that died (or stopped answering altogether) is started again
  (:meth:`Connection.restart`), so one crash does not end the check;
- two hostile kinds need bytes the SDK's serializer will not write: a lone surrogate
  (``"\\ud800"`` is valid JSON but cannot be encoded as UTF-8 by pydantic) and nesting
  deeper than its serialization limit. The arguments carry an ASCII placeholder, and
  :class:`_RawWire` swaps it for the raw JSON text on the way out, after the SDK built and
  serialized the request (:meth:`Connection.call`'s ``raw``);
- the server's stderr goes to a temporary file, whose last lines explain a failed start.

Nothing here leaves the machine: the only peer is the local process, over its pipes.
The client declares no sampling, roots or elicitation capability, so a server cannot ask
the checker to approve anything: a tool that needs a user's confirmation must refuse.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import PrivateAttr, ValidationError

from tutorial_lib.core.contracts import TutorialLibError

__all__ = ["Answer", "AnswerKind", "Connection", "ServerUnavailable"]

AnswerKind = Literal[
    "result", "protocol_error", "refused_by_client", "malformed", "unreadable", "timeout", "closed"
]

#: How much of the server's stderr a failed start quotes.
STDERR_TAIL_CHARS = 1500


class ServerUnavailable(TutorialLibError):
    """The server could not be started, or does not speak MCP (the checker's exit 2)."""


@dataclass
class Answer:
    """What one call got back (see the module). ``kind``:

    - ``"result"``: a ``CallToolResult``; ``is_error`` is its ``isError``, ``text`` its text
      blocks joined, ``structured`` its ``structuredContent``, as the server sent it (the
      SDK's client checks it against the ``outputSchema`` for successes only; an error's
      is handed over unchecked, for the checker to judge as other clients do);
    - ``"protocol_error"``: a JSON-RPC error; ``code`` and ``message``;
    - ``"refused_by_client"``: the SDK's client refused a success (``message``: why, e.g.
      structured content that breaks the tool's ``outputSchema``);
    - ``"malformed"``: not a valid MCP result (``message``: the validation error);
    - ``"unreadable"``: the server wrote a line the SDK's client cannot parse while the
      call waited (e.g. its answer echoes a lone surrogate back as ``\\ud800``): the
      client drops that line, so the call would wait for its time limit;
    - ``"timeout"``: no answer within the time limit (``parse_error``: the server sent a
      JSON-RPC parse error meanwhile, which no client can match to its request);
    - ``"closed"``: the connection closed (the server exited or closed its output).
    """

    kind: AnswerKind
    is_error: bool = False
    text: str = ""
    structured: Any = None
    code: int | None = None
    message: str = ""
    elapsed_s: float = 0.0
    parse_error: bool = False
    limit_s: float = 0.0
    content_types: tuple[str, ...] = ()

    @property
    def success(self) -> bool:
        """A result that is not ``isError``."""
        return self.kind == "result" and not self.is_error

    @property
    def tool_error(self) -> bool:
        """A result with ``isError: true``."""
        return self.kind == "result" and self.is_error

    def payload(self) -> Any:
        """The answer's data: ``structuredContent``, else its text parsed as JSON, else None."""
        if self.structured is not None:
            return self.structured
        with contextlib.suppress(ValueError):
            return json.loads(self.text)
        return None

    def everything(self) -> str:
        """All the answer says, as one text (text blocks, structured content, message)."""
        parts = [self.text, self.message]
        if self.structured is not None:
            parts.append(json.dumps(self.structured, ensure_ascii=False))
        return "\n".join(p for p in parts if p)

    def summary(self) -> str:
        """The answer in one line, for a report (trimmed by the caller)."""
        if self.kind == "result":
            body = self.text
            if not body and self.structured is not None:
                body = json.dumps(self.structured, ensure_ascii=False)
            if not body and self.content_types:
                body = "(" + ", ".join(self.content_types) + " content)"
            return ("isError: " if self.is_error else "success: ") + (body or "(empty)")
        if self.kind == "protocol_error":
            return f"protocol error {self.code}: {self.message}"
        if self.kind == "refused_by_client":
            return f"refused by the SDK's client: {self.message}"
        if self.kind == "malformed":
            return f"malformed result: {self.message}"
        if self.kind == "unreadable":
            return f"an answer the SDK's client cannot parse: {self.message}"
        if self.kind == "timeout":
            extra = " (a JSON-RPC parse error with id null came meanwhile)" * self.parse_error
            return f"no answer within {self.limit_s:g} s{extra}"
        return f"connection closed: {self.message or 'the server exited'}"


class _RawRequest(types.JSONRPCRequest):
    """A request whose JSON text is given: what :class:`_RawWire` writes instead."""

    _raw: str = PrivateAttr(default="")

    def model_dump_json(self, **kwargs: Any) -> str:
        return self._raw


@dataclass
class _WireState:
    raw: dict[str, str] = field(default_factory=dict)  # placeholder -> raw JSON text
    parse_errors: int = 0  # JSON-RPC errors with id null seen on the way in
    unreadable: list[str] = field(default_factory=list)  # lines the client cannot parse


_W = TypeVar("_W", bound="_Wrapped")


class _Wrapped:
    """A stream around ``inner``: closes and enters/exits as ``inner`` does."""

    def __init__(self, inner: Any, state: _WireState) -> None:
        self._inner = inner
        self._state = state

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self: _W) -> _W:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


class _RawWire(_Wrapped):
    """The write side of the transport: swaps placeholders for raw JSON (see the module)."""

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        if self._state.raw and isinstance(message, types.JSONRPCRequest):
            text = message.model_dump_json(by_alias=True, exclude_unset=True)
            swapped = text
            for placeholder, raw in self._state.raw.items():
                swapped = swapped.replace(json.dumps(placeholder), raw)
            if swapped != text:
                replaced = _RawRequest.model_construct(
                    jsonrpc=message.jsonrpc,
                    id=message.id,
                    method=message.method,
                    params=message.params,
                )
                replaced._raw = swapped
                item = SessionMessage(message=replaced, metadata=item.metadata)
        await self._inner.send(item)


class _Watch(_Wrapped):
    """The read side: counts JSON-RPC errors with id null (parse errors) and lines the SDK
    could not parse (they arrive as exceptions) as they pass."""

    def _see(self, item: Any) -> Any:
        if isinstance(item, Exception):
            # pydantic's first line names the model; the second says what is wrong
            lines = [line.strip() for line in str(item).splitlines() if line.strip()]
            why = lines[min(1, len(lines) - 1)] if lines else repr(item)
            self._state.unreadable.append(why.split(" [type=")[0])
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCError) and message.id is None:
            self._state.parse_errors += 1
        return item

    async def receive(self) -> Any:
        return self._see(await self._inner.receive())

    def __aiter__(self) -> _Watch:
        return self

    async def __anext__(self) -> Any:
        return self._see(await self._inner.__anext__())


class _Transport:
    """``stdio_client`` with :class:`_RawWire` and :class:`_Watch` around its streams."""

    def __init__(self, params: StdioServerParameters, errlog: Any, state: _WireState) -> None:
        self._context = stdio_client(params, errlog=errlog)
        self._state = state

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._context.__aenter__()
        return _Watch(read, self._state), _RawWire(write, self._state)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._context.__aexit__(exc_type, exc_val, exc_tb)


class Connection:
    """A running server and the SDK client talking to it (see the module).

    ``command`` is the server's command line; ``cwd`` and ``env`` (merged over the SDK's
    safe default environment) how it starts; ``timeout_s`` the time limit of one call;
    ``startup_s`` the limit for starting and negotiating; ``mode`` the SDK's ``Client``
    mode (``"auto"`` or ``"legacy"``). Use it as ``async with Connection(...) as c:``.
    """

    def __init__(
        self,
        command: list[str],
        *,
        timeout_s: float = 10.0,
        startup_s: float = 30.0,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        mode: str = "auto",
    ) -> None:
        if not command:
            raise ServerUnavailable("no command given")
        self.command = list(command)
        self.timeout_s = timeout_s
        self.startup_s = startup_s
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.mode = mode
        self.restarts = 0
        self.starts_s: list[float] = []
        self._state = _WireState()
        self._stack: AsyncExitStack | None = None
        self._client: Client | None = None
        # Closed in __aexit__: the server's stderr outlives each restart.
        self._errlog = tempfile.TemporaryFile(  # noqa: SIM115
            "w+", encoding="utf-8", errors="replace"
        )

    # -- life cycle --------------------------------------------------------------------

    async def __aenter__(self) -> Connection:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
        self._errlog.close()

    async def start(self) -> None:
        """Start the server and negotiate; raises :class:`ServerUnavailable`."""
        params = StdioServerParameters(
            command=self.command[0], args=self.command[1:], cwd=self.cwd, env=self.env
        )
        started = time.perf_counter()
        stack = AsyncExitStack()
        # No fail_after around entering the client: its task group must not be opened
        # inside a cancel scope that closes first. Every request of the handshake has
        # the startup limit instead (read_timeout_seconds).
        client = Client(
            _Transport(params, self._errlog, self._state),
            read_timeout_seconds=self.startup_s,
            mode=self.mode,
            client_info=types.Implementation(name="tutorial-lib-checker", version="1"),
        )
        try:
            await stack.enter_async_context(client)
        except Exception as error:
            with contextlib.suppress(Exception):
                await stack.aclose()
            raise ServerUnavailable(self._why(error)) from error
        self._stack, self._client = stack, client
        self.starts_s.append(time.perf_counter() - started)

    def _why(self, error: BaseException) -> str:
        inner = getattr(error, "exceptions", None)  # an exception group (3.11+ or backport)
        while isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
            error = inner[0]  # the task group's first failure says why
            inner = getattr(error, "exceptions", None)
        if isinstance(error, TimeoutError) or (
            isinstance(error, MCPError) and error.error.code == types.REQUEST_TIMEOUT
        ):
            what = f"no MCP handshake within {self.startup_s:g} s"
        elif isinstance(error, OSError):
            what = f"could not run {self.command[0]!r}: {error.strerror or error}"
        elif isinstance(error, MCPError) and error.error.code == types.CONNECTION_CLOSED:
            what = (
                "the server closed the connection before the handshake ended (it exited, or"
                " it is not an MCP stdio server)"
            )
        elif isinstance(error, MCPError):
            what = f"the handshake failed: {error.error.message} (code {error.error.code})"
        else:
            what = f"the handshake failed: {type(error).__name__}: {error}"
        if self._state.unreadable:
            what += f"; its output is not JSON-RPC ({self._state.unreadable[0]})"
        tail = self.stderr_tail()
        return what + (f"\nthe server's stderr ends with:\n{tail}" if tail else "")

    async def close(self) -> None:
        """Stop the server (the SDK closes stdin, waits, then kills the process tree)."""
        stack, self._stack, self._client = self._stack, None, None
        if stack is not None:
            # No shield here: a cancel scope entered now would sit above the client's
            # task groups, which must be exited in the order they were entered. The SDK
            # shields its own shutdown (stdin closed, wait, kill the process tree).
            with contextlib.suppress(Exception):
                await stack.aclose()

    async def restart(self) -> None:
        """Stop the server and start it again (raises :class:`ServerUnavailable`)."""
        await self.close()
        self.restarts += 1
        await self.start()

    def stderr_tail(self) -> str:
        """The last lines the server wrote to stderr."""
        try:
            self._errlog.flush()
            self._errlog.seek(0, 2)
            size = self._errlog.tell()
            self._errlog.seek(max(0, size - STDERR_TAIL_CHARS * 4))
            text = self._errlog.read()
        except (OSError, ValueError):
            return ""
        return text[-STDERR_TAIL_CHARS:].strip()

    @property
    def client(self) -> Client:
        if self._client is None:
            raise ServerUnavailable("the server is not running")
        return self._client

    # -- what the server says of itself ----------------------------------------------------

    def server_info(self) -> dict[str, Any]:
        """Name, version and negotiated protocol of the server."""
        client = self.client
        info = client.server_info
        return {
            "name": info.name if info else None,
            "version": info.version if info else None,
            "protocol": client.protocol_version,
        }

    async def list_tools(self, max_pages: int = 100) -> list[types.Tool]:
        """Every tool the server lists, page after page (at most ``max_pages`` pages)."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(max_pages):
            page = await self.client.list_tools(cursor=cursor, cache_mode="refresh")
            tools += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    async def alive(self) -> bool:
        """Whether the server still answers (a fresh ``tools/list`` within the time limit)."""
        if self._client is None:
            return False
        try:
            with anyio.fail_after(self.timeout_s):
                await self._client.list_tools(cache_mode="refresh")
        except Exception:
            return False
        return True

    # -- calls ---------------------------------------------------------------------------

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        raw: Mapping[str, str] | None = None,
        *,
        limit_s: float | None = None,
    ) -> Answer:
        """Call tool ``name``; never raises for what the server does (see :class:`Answer`).

        ``raw`` maps placeholders (strings inside ``arguments``) to the JSON text that
        replaces them, quotes included, on the wire; ``limit_s`` replaces the time limit
        for this call.
        """
        self._state.raw = dict(raw or {})
        seen = self._state.parse_errors
        started = time.perf_counter()
        limit = self.timeout_s if limit_s is None else limit_s
        answer = await self._call(name, arguments, limit)
        answer.elapsed_s = time.perf_counter() - started
        answer.limit_s = limit
        answer.parse_error = self._state.parse_errors > seen
        self._state.raw = {}
        return answer

    async def _call(self, name: str, arguments: dict[str, Any], limit: float) -> Answer:
        """The call, given up as soon as the client drops a line it cannot parse."""
        seen = len(self._state.unreadable)
        answers: list[Answer] = []

        async def run() -> None:
            answers.append(await self._send(name, arguments, limit))
            group.cancel_scope.cancel()

        async def watch() -> None:
            while len(self._state.unreadable) == seen:
                await anyio.sleep(0.02)
            answers.append(Answer("unreadable", message=self._state.unreadable[seen]))
            group.cancel_scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(run)
            group.start_soon(watch)
        return answers[0] if answers else Answer("timeout")

    async def _send(self, name: str, arguments: dict[str, Any], limit: float) -> Answer:
        try:
            client = self.client
        except ServerUnavailable:
            return Answer("closed", message="the server is not running")
        try:
            # The outer limit also covers a request the server never reads (a full pipe).
            with anyio.fail_after(limit * 2 + 2):
                result = await client.call_tool(name, arguments, read_timeout_seconds=limit)
        except TimeoutError:
            return Answer("timeout")
        except MCPError as error:
            code = error.error.code
            if code == types.REQUEST_TIMEOUT:
                return Answer("timeout")
            if code == types.CONNECTION_CLOSED and not await self.alive():
                return Answer("closed", message=error.error.message)
            return Answer("protocol_error", code=code, message=error.error.message)
        except ValidationError as error:
            return Answer("malformed", message=str(error).splitlines()[0])
        except RuntimeError as error:
            return Answer("refused_by_client", message=str(error))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            return Answer("closed")
        except Exception as error:  # a peer must not crash the checker
            if not await self.alive():
                return Answer("closed", message=f"{type(error).__name__}: {error}")
            return Answer("malformed", message=f"{type(error).__name__}: {error}")
        texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
        return Answer(
            "result",
            is_error=bool(result.is_error),
            text="\n".join(texts),
            structured=result.structured_content,
            content_types=tuple(sorted({b.type for b in result.content})),
        )
