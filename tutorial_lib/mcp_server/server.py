"""The MCP server: the course's tools, as declared, on the official SDK's ``MCPServer``.

:func:`build_server` opens the tools of a
:class:`~tutorial_lib.mcp_server.config.ServerConfig`
(:func:`~tutorial_lib.mcp_server.tools.open_tools`) and registers each one with the SDK as
a ready-made
:class:`mcp.server.mcpserver.tools.Tool` (``MCPServer(tools=[...])``), built from the
ToolSpec's MCP export (:func:`~tutorial_lib.design.exports.to_mcp`), so nothing is
declared twice:

- ``name``, ``title``, ``description``: the spec's;
- ``inputSchema``: the spec's JSON Schema, verbatim (not one derived from Python
  annotations). The SDK does not validate the arguments against it: they reach the host
  untouched, and the host's schema check answers with the course's error contract (an
  integer sent as a string stays an ``invalid_type``, never a silent conversion);
- ``outputSchema``: the spec's result schema, i.e. the ``data`` of a success envelope,
  which a success returns as ``structuredContent`` (:mod:`~tutorial_lib.mcp_server.results`);
- ``annotations``: the spec's four hints, never more optimistic than the operator's
  declaration: a tool the operator declares as ``write``, ``delete`` or ``send`` is not
  ``readOnlyHint: true``, and one declared ``delete`` is ``destructiveHint: true``.

Every call goes through the course host (schema -> authorization -> business check ->
confirmation -> execution -> envelope), with confirmation by elicitation
(:mod:`~tutorial_lib.mcp_server.confirm`). A name that is not a served tool is a JSON-RPC
protocol error (``-32602``, :class:`CourseMCPServer`), and so is a malformed request (the
SDK's own validation of ``tools/call``).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, InputRequiredResult, ToolAnnotations

from tutorial_lib.core.authorization import ToolAccess
from tutorial_lib.core.contracts import HostConfigError, safe_text
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry, ToolSpec
from tutorial_lib.design.exports import to_mcp
from tutorial_lib.emulator.fixtures import GitHubStore
from tutorial_lib.mcp_server.config import ServerConfig
from tutorial_lib.mcp_server.confirm import RESOLVED_PARAMETERS, HostBridge, tool_function
from tutorial_lib.mcp_server.tools import open_tools

__all__ = ["SERVER_NAME", "CourseMCPServer", "CourseServer", "build_server", "mcp_tool"]

#: The server's name in ``serverInfo`` (and the audience its sealed request state names).
SERVER_NAME = "tutorial-lib"

INSTRUCTIONS = (
    "The tools of the course 'Designing Reliable Tool Interfaces for Agents': read and"
    " search a local workspace, read GitHub pull requests, and post or change PR comments."
    " A success returns the tool's data; a failure returns isError with the course's error"
    " envelope (code, message, field, retry, suggestion, next_tool): follow its retry and"
    " suggestion. What may be touched was decided by the operator when the server"
    " started; a refusal (permission_denied) is for the user to lift, not for other"
    " arguments. Every write, delete or merge asks the user first."
)


def _version() -> str:
    try:
        return importlib.metadata.version("reliable-tool-interfaces")
    except importlib.metadata.PackageNotFoundError:  # a copy of the source, not installed
        return "0.0.0"


class CourseMCPServer(MCPServer[Any]):
    """``MCPServer`` whose unknown tool names are protocol errors, as MCP says: the SDK
    itself answers them with an ``isError`` result (-32602 ``INVALID_PARAMS`` here)."""

    def __init__(self, *, served: frozenset[str], **settings: Any) -> None:
        super().__init__(**settings)
        self._served = served

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Call served tool ``name``; any other name raises ``MCPError(INVALID_PARAMS)``."""
        if name not in self._served:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {safe_text(name, 80)}")
        return await super().call_tool(name, arguments, context)


def mcp_tool(spec: ToolSpec, access: ToolAccess, fn: Callable[..., Any]) -> Tool:
    """The SDK's ``Tool`` for ``spec``, running ``fn``: every declared field from the
    spec's MCP export, the hints made no more optimistic than ``access`` (see the module)."""
    exported = to_mcp(spec)
    hints = dict(exported["annotations"])
    if access.action != "read":
        hints["readOnlyHint"] = False
    if access.action == "delete":
        hints["destructiveHint"] = True
    tool = Tool.from_function(
        fn,
        name=exported["name"],
        title=exported["title"],
        description=exported["description"],
        annotations=ToolAnnotations.model_validate(hints),
    )
    # The arguments reach fn's resolvers raw: no parameter of fn is a tool argument.
    if tool.fn_metadata.arg_model.model_fields or set(tool.resolved_params) != set(
        RESOLVED_PARAMETERS
    ):
        raise RuntimeError(f"{spec.name}: the tool function's resolvers were not recognised")
    metadata = FuncMetadata(
        arg_model=tool.fn_metadata.arg_model, output_schema=exported.get("outputSchema")
    )
    return tool.model_copy(update={"parameters": exported["inputSchema"], "fn_metadata": metadata})


class CourseServer:
    """The running pieces of one server: the SDK server (:attr:`mcp`), the host every
    call travels (:attr:`host`), its registry, and the emulator's store (:attr:`store`,
    None with ``--github``). Close it (or use ``with``) to stop the emulator and close
    the GitHub client.
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._stack = contextlib.ExitStack()
        try:
            opened = open_tools(config, self._stack)
            self.registry: Registry = opened.registry
            self.host: Host = opened.host
            self.store: GitHubStore | None = opened.store
            self.bridge = HostBridge(self.host)
            tools = [self.tool_for(spec) for spec in self.registry]
            self.mcp = CourseMCPServer(
                served=frozenset(self.registry.names),
                name=SERVER_NAME,
                title="Reliable tool interfaces: the course's tools",
                instructions=INSTRUCTIONS,
                version=_version(),
                tools=tools,
                log_level="WARNING",
            )
        except BaseException:
            self._stack.close()  # the emulator and the client do not outlive a failed start
            raise

    def tool_for(self, spec: ToolSpec) -> Tool:
        """The MCP tool this server lists for ``spec``: its exported schemas, hints no more
        optimistic than the operator's declaration, and a function that calls this
        server's host (chapter 09 registers a spec that lies about itself this way)."""
        access = (self.host.access or {}).get(spec.name)  # the operator's entry for it
        if access is None:
            raise HostConfigError(f"{spec.name}: the host has no access entry for it")
        return mcp_tool(spec, access, tool_function(self.bridge, spec.name))

    def run(self) -> None:
        """Serve on stdio until the client closes the connection. Each tool's schema check
        is built by its first call (importing jsonschema costs about 0.2 s once the program's
        entry point declines the format extras it never uses: see ``__main__``)."""
        self.mcp.run("stdio")

    def close(self) -> None:
        """Stop the emulator and close the GitHub client."""
        self._stack.close()

    def __enter__(self) -> CourseServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def build_server(config: ServerConfig) -> CourseServer:
    """The server for ``config`` (see :class:`CourseServer`)."""
    return CourseServer(config)
