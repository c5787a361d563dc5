"""The course's envelope as an MCP tool result: one mapping, both ways the same.

- a success: ``structuredContent`` is the envelope's ``data`` (what the tool's
  ``outputSchema`` describes), and one text block carries the same JSON (clients that read
  only text see exactly the structured content);
- a failure: ``isError: true``, and BOTH the structured content and the text carry the
  whole envelope: ``code``, ``message``, ``field``, ``retry``, ``suggestion``,
  ``next_tool``, ``operation_state``, ``confirmation``... A model corrects itself from the
  error contract, not from a bare sentence.

An unknown tool or a malformed request never gets here: those stay JSON-RPC protocol
errors (``-32602``), as MCP says.
"""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, TextContent

from tutorial_lib.core.contracts import dumps

__all__ = ["tool_result"]


def tool_result(envelope: Any) -> CallToolResult:
    """The MCP ``CallToolResult`` of one envelope the host returned (see the module)."""
    if envelope.get("ok") is True:
        data = dict(envelope["data"])
        return CallToolResult(
            content=[TextContent(type="text", text=dumps(data))], structured_content=data
        )
    whole = dict(envelope)
    return CallToolResult(
        content=[TextContent(type="text", text=dumps(whole))],
        structured_content=whole,
        is_error=True,
    )
