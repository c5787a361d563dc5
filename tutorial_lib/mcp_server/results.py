"""The course's envelope as an MCP tool result: one mapping, both ways the same.

- a success: ``structuredContent`` is the envelope's ``data`` (what the tool's
  ``outputSchema`` describes), and one text block carries the same JSON (clients that read
  only text see exactly the structured content; characters that would hide or reorder what
  a person sees are written as JSON escapes);
- a failure: ``isError: true`` and one text block carrying the whole envelope as JSON:
  ``code``, ``message``, ``field``, ``retry``, ``suggestion``, ``next_tool``,
  ``operation_state``, ``confirmation``... A model corrects itself from the error contract,
  not from a bare sentence. No ``structuredContent``: clients check it against the tool's
  ``outputSchema`` whatever ``isError`` says (the official TypeScript SDK does, and the MCP
  Inspector with it), and an error envelope is not the ``data`` that schema describes, so a
  structured error is refused as ``-32602 Structured content does not match the tool's
  output schema`` and the model sees a protocol error instead of the contract.

An unknown tool or a malformed request never gets here: those stay JSON-RPC protocol
errors (``-32602``), as MCP says.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import CallToolResult, TextContent

from tutorial_lib.core.contracts import dumps
from tutorial_lib.core.display import escape_json_hidden

__all__ = ["error_envelope", "tool_result"]


def tool_result(envelope: Any) -> CallToolResult:
    """The MCP ``CallToolResult`` of one envelope the host returned (see the module)."""
    if envelope.get("ok") is True:
        data = dict(envelope["data"])
        return CallToolResult(
            content=[TextContent(type="text", text=_text(data))], structured_content=data
        )
    return CallToolResult(content=[TextContent(type="text", text=_text(envelope))], is_error=True)


def _text(value: dict[str, Any]) -> str:
    """The JSON text block: hidden characters of untrusted text (bidi, zero-width, tags)
    written as ``\\u`` escapes, so a client that shows the text shows them, and a parser
    reads the same data (see :mod:`tutorial_lib.core.display`)."""
    return escape_json_hidden(dumps(value))


def error_envelope(result: CallToolResult) -> dict[str, Any] | None:
    """The error envelope an ``isError`` result of this server carries as JSON text; ``None``
    when the result is no error or its text is not one envelope (another server's error)."""
    if not result.is_error or len(result.content) != 1:
        return None
    (block,) = result.content
    if not isinstance(block, TextContent):
        return None
    try:
        envelope = json.loads(block.text)
    except ValueError:
        return None
    if not isinstance(envelope, dict) or not isinstance(envelope.get("error"), dict):
        return None
    return envelope
