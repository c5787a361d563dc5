"""The tools this server serves, bound to their world, and the one host they travel.

:func:`open_tools` binds, for one :class:`~tutorial_lib.mcp_server.config.ServerConfig`:

- ``read_lines`` and ``search_files`` to the workspace root;
- the ``github_pr_*`` tools (the three reads, the review snapshot, the conversation
  listing, the safe write and its status check, edit, delete, merge) to a
  :class:`~tutorial_lib.github.client.GitHubClient` of the embedded emulator (a fresh
  :func:`~tutorial_lib.emulator.fixtures.build_store` served in process) or of
  ``--github``'s API with the token from the environment;

and builds the :class:`~tutorial_lib.core.host.Host` every call goes through: the
access each tool declares (:func:`~tutorial_lib.core.authorization.declared_access`), the
task scope of the flags, and the host's confirmation rule (every write, delete and send
asks the user, with the tool's own preview). No answerer: the MCP front end answers
(:mod:`tutorial_lib.mcp_server.confirm`).

This module does not import the MCP SDK.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass

from tutorial_lib.core.authorization import declared_access
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry, ToolSpec
from tutorial_lib.emulator.fixtures import GitHubStore, build_store
from tutorial_lib.emulator.service import serve_in_process
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.composite import composite_tool_specs
from tutorial_lib.github.dangerous import DangerousContext, dangerous_tool_specs
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import GitHubToolContext, github_tool_specs
from tutorial_lib.github.writes import WriteContext, write_tool_specs
from tutorial_lib.mcp_server.config import ServerConfig
from tutorial_lib.workspace.read import read_lines_tool
from tutorial_lib.workspace.search import search_files_tool

__all__ = ["SESSION", "CourseTools", "open_tools"]

#: The confirmation flow's session id: request ids read ``mcp-1``, ``mcp-2``...
SESSION = "mcp"


@dataclass(frozen=True)
class CourseTools:
    """What :func:`open_tools` made: the bound registry, its host, and the emulator's
    store (None with ``--github``: then the tools reach a real service)."""

    registry: Registry
    host: Host
    store: GitHubStore | None


def _github_specs(client: GitHubClient) -> list[ToolSpec]:
    reads = GitHubToolContext(client, CursorCodec(secrets.token_bytes(32)))
    # the GitHub ones among the dangerous tools (settings and approvals declare nothing),
    # the read-only listing first: what each spec declares, never its name
    github = [
        spec
        for spec in dangerous_tool_specs(DangerousContext(client))
        if spec.access is not None and spec.access.system == "github"
    ]
    listing = [spec for spec in github if spec.annotations.read_only]
    changes = [spec for spec in github if not spec.annotations.read_only]
    return [
        *github_tool_specs(reads),
        *composite_tool_specs(reads),
        *listing,
        *write_tool_specs(WriteContext(client)),
        *changes,
    ]


def open_tools(config: ServerConfig, stack: contextlib.ExitStack) -> CourseTools:
    """Bind every served tool for ``config`` and build its host; ``stack`` closes the
    emulator and the GitHub client."""
    store: GitHubStore | None = None
    if config.github is None:
        store = build_store()
        handle = stack.enter_context(serve_in_process(store))
        client = GitHubClient(handle.base_url, transport=handle.transport())
    else:
        client = GitHubClient(config.github, config.token())
    stack.enter_context(client)
    registry = Registry(
        [read_lines_tool(config.root), search_files_tool(config.root), *_github_specs(client)]
    )
    host = Host(registry, access=declared_access(registry), scope=config.scope(), session=SESSION)
    return CourseTools(host.registry, host, store)
