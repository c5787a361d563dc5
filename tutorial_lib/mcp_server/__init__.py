"""The course's tools over the Model Context Protocol (chapter 09), with the official SDK.

``python -m tutorial_lib.mcp_server --root DIR`` (console script ``tutorial-lib-mcp``)
serves ``read_lines`` and ``search_files`` over DIR and the ``github_pr_*`` tools (against
the embedded GitHub emulator, or ``--github URL``) on stdio. Every call travels the course
host; the server is read-only unless the operator's flags grant more.

- ``config``: the command line and ``--config`` file, the operator's access declarations,
  the task scope (no MCP import: bad flags fail fast);
- ``tools``: the served tools, bound, and their host;
- ``server``: the SDK server, each tool registered from its ToolSpec's MCP export;
- ``results``: envelope -> ``CallToolResult``;
- ``confirm``: the host's confirmation flow answered by MCP elicitation, on every
  protocol version.

Importing this package imports nothing; the MCP SDK is loaded by ``server`` and
``confirm``.
"""
