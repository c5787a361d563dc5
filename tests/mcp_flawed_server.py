"""A small MCP stdio server whose tools each break ONE rule of the course (and one clean tool).

``python tests/mcp_flawed_server.py [--root DIR]`` serves a ticket tracker of 12 tickets
(and, with ``--root``, notes in DIR/notes) on stdio with the official SDK's ``MCPServer``:
``list_tools`` and ``call_tool`` are overridden, so every tool declares exactly the schema
written here and receives its arguments raw (no pydantic model in between).

:data:`PLANTED` maps each tool to the rule its flaw breaks; ``ticket_get`` is the clean
tool, the model every flawed tool deviates from in one respect. tests/test_checker.py
checks that the checker reports every planted flaw against its tool, and nothing at
``error`` against the clean one.

Errors are sent as the course's server sends them (:func:`fail`): ``isError`` with the
envelope as JSON text and no ``structuredContent``. Two tools keep the old behaviour
(:func:`fail_structured`: the envelope in ``structuredContent`` too, which breaks their
``outputSchema``): ``ticket_get_estimate`` on every protocol revision, and
``ticket_get_deadline`` only on the handshake era (``2025-11-25`` and older, what the
TypeScript SDK's client negotiates), so the checker's light check of that revision is what
finds it. :data:`PROTOCOL` holds the revision of the call being answered.
"""

from __future__ import annotations

import argparse
import base64
import contextvars
import hashlib
import hmac
import json
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

#: The flawed tool -> the rule of tutorial_lib.checker.rules its flaw breaks.
PLANTED: dict[str, str] = {
    "ticket_handle": "vague_name",
    "ticket_fetch": "near_duplicate",
    "ticket_count": "extra_field_ignored",
    "ticket_search": "number_unbounded",
    "ticket_get_history": "number_without_unit",
    "ticket_get_label": "property_undescribed",
    "ticket_get_text": "required_not_declared",
    "ticket_get_watchers": "required_names_undeclared",
    "ticket_get_field": "property_type_missing",
    "ticket_get_by_title": "string_unbounded",
    "ticket_get_many": "array_unbounded",
    "ticket_count_by_state": "enum_missing",
    "ticket_close": "annotations_missing",
    "ticket_remove_label": "annotations_contradict",
    "ticket_delete": "write_not_marked",
    "ticket.export": "export_refused",
    "ticket_get_owner": "hostile_input_accepted",
    "ticket_get_priority": "hostile_input_accepted",
    "ticket_get_status": "protocol_error",
    "ticket_get_assignee": "error_names_no_field",
    # every call fails for a reason of its own (no account): its errors are not judged
    "ticket_get_secret": "valid_call_refused",
    "ticket_get_headline": "refusal_reported_as_success",
    "ticket_get_tags": "error_without_next_step",
    "ticket_get_color": "error_empty",
    "ticket_get_links": "suggested_call_fails",
    "ticket_get_parent": "suggested_tool_unknown",
    "ticket_get_body": "call_timeout",
    "ticket_get_summary": "server_crashed",
    "ticket_get_stats": "output_schema_violation",
    "ticket_get_estimate": "error_output_schema_violation",
    "ticket_get_deadline": "error_output_schema_violation",
    "ticket_list": "cursor_not_validated",
    "ticket_list_comments": "page_repeats",
    "ticket_list_events": "page_gap",
    "ticket_list_changes": "cursor_loops",
    "note_read": "read_only_changed_workspace",
    "note_write": "non_destructive_tool_destroyed",
    "note_add_line": "idempotent_tool_not_idempotent",
}
CLEAN = "ticket_get"

READ = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}
TICKETS = [
    {
        "ticket_id": n,
        "title": f"Ticket {n}",
        "state": "open" if n % 2 else "closed",
        "priority": n % 5 + 1,
    }
    for n in range(1, 13)
]
KEY = b"flawed-server-cursor-key"
ROOT: Path | None = None
#: The protocol revision the call being answered came on (None outside a call).
PROTOCOL: contextvars.ContextVar[str | None] = contextvars.ContextVar("protocol", default=None)

Handler = Callable[[dict[str, Any]], Awaitable[CallToolResult]]


@dataclass
class FlawedTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    annotations: dict[str, bool] | None = None
    output_schema: dict[str, Any] | None = None


# -- answers ------------------------------------------------------------------------------


def ok(data: dict[str, Any]) -> CallToolResult:
    text = json.dumps(data, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def fail(code: str, message: str, **extra: Any) -> CallToolResult:
    """A tool error every client takes: the envelope as JSON text, no structuredContent."""
    error = {"ok": False, "error": {"code": code, "message": message, **extra}}
    text = json.dumps(error, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def fail_structured(code: str, message: str, **extra: Any) -> CallToolResult:
    """The old tool error: the envelope in structuredContent too. For a tool with an
    outputSchema, the TypeScript SDK's client and the Inspector refuse the whole result."""
    error = {"ok": False, "error": {"code": code, "message": message, **extra}}
    text = json.dumps(error, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=error, is_error=True
    )


def _is(kind: str, value: Any) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    kinds = {"string": str, "boolean": bool, "array": list, "object": dict}
    return value is None if kind == "null" else isinstance(value, kinds[kind])


def _problem(schema: dict[str, Any], value: Any) -> str | None:
    """The first keyword of ``schema`` that ``value`` breaks (the subset these tools use)."""
    kinds = schema.get("type")
    listed = [kinds] if isinstance(kinds, str) else kinds
    if listed is not None and not any(_is(kind, value) for kind in listed):
        return "type"
    if "enum" in schema and value not in schema["enum"]:
        return "enum"
    low, high = schema.get("minimum", value), schema.get("maximum", value)
    if _is("number", value) and not low <= value <= high:
        return "range"
    if isinstance(value, str):
        if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
            return "length"
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return "pattern"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return "minItems"
        return next((p for p in (_problem(schema.get("items", {}), v) for v in value) if p), None)
    return None


def first_error(schema: dict[str, Any], args: Any) -> tuple[str, str, str] | None:
    """(code, field, message) of the first schema error, in the course's order: missing
    fields, unknown fields, then each field in schema order. A small validator of the
    keywords these tools use (jsonschema takes seconds to import here)."""
    props = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in args:
            return "missing_field", name, f"'{name}' is required: send it"
    extra = sorted(set(args) - set(props))
    if extra and schema.get("additionalProperties") is False:
        return "unknown_field", extra[0], f"'{extra[0]}' is not an argument of this tool: remove it"
    for name, sub in props.items():
        problem = _problem(sub, args[name]) if name in args else None
        if problem is not None:
            expected = sub.get("description", "see the schema")
            return "invalid_value", name, f"'{name}' is not accepted ({problem}): {expected}"
    return None


def checked(schema: dict[str, Any], args: dict[str, Any]) -> CallToolResult | None:
    """The course's refusal for invalid arguments (field + suggestion), or None."""
    found = first_error(schema, args)
    if found is None:
        return None
    code, name, message = found
    return fail(code, message, field=name, suggestion=f"Fix '{name}' and call again.")


def ticket(number: int) -> dict[str, Any] | None:
    return next((t for t in TICKETS if t["ticket_id"] == number), None)


# -- the clean tool and its one-flaw variants ---------------------------------------------

ID = {"type": "integer", "minimum": 1, "maximum": 1000, "description": "A ticket id, e.g. 3."}


def closed(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def lookup(schema: dict[str, Any], fields: tuple[str, ...] = ("title", "state")) -> Handler:
    """A clean handler: validate, then return the ticket's fields (or not_found)."""

    async def handle(args: dict[str, Any]) -> CallToolResult:
        refused = checked(schema, args)
        if refused is not None:
            return refused
        found = ticket(int(args.get("ticket_id", 1)))
        if found is None:
            return fail(
                "not_found",
                "no ticket has this ticket_id: use ticket_search first",
                field="ticket_id",
            )
        return ok({"ticket_id": found["ticket_id"], **{f: found[f] for f in fields}})

    return handle


def described(what: str, example: str = '{"ticket_id": 3}') -> str:
    return f"{what} Read-only. Example: {example}"


def tools() -> list[FlawedTool]:
    by_id = closed({"ticket_id": ID})
    found: list[FlawedTool] = []

    def add(
        name: str,
        description: str,
        schema: dict[str, Any],
        handler: Handler | None = None,
        annotations: dict[str, bool] | None = READ,
        **more: Any,
    ) -> None:
        found.append(
            FlawedTool(name, description, schema, handler or lookup(schema), annotations, **more)
        )

    # The clean tool: strict schema, read-only hints, errors that name the field and say
    # what to do, an example in the description.
    add(
        CLEAN,
        described("Get one ticket of the tracker by ticket_id: its title and state."),
        by_id,
        output_schema={
            "type": "object",
            "properties": {
                "ticket_id": {"type": "integer"},
                "title": {"type": "string"},
                "state": {"type": "string"},
            },
            "required": ["ticket_id", "title", "state"],
        },
    )

    # -- static flaws ------------------------------------------------------------------
    add(
        "ticket_handle",
        "Handle one ticket: answers with the urgency level (priority number) a triager"
        " gave it. Read-only.",
        by_id,
        lookup(by_id, ("priority",)),
    )
    add(
        "ticket_fetch",
        "Fetch a single ticket record, headline and open/closed flag included, looked up"
        " by numeric id. Read-only.",
        by_id,
    )
    open_schema = {
        "type": "object",
        "properties": {
            "state": {
                "type": "string",
                "enum": ["open", "closed"],
                "description": "'open' or 'closed'.",
            }
        },
        "required": ["state"],
    }

    async def count(args: dict[str, Any]) -> CallToolResult:
        state = args.get("state")
        if state not in ("open", "closed"):
            return fail(
                "invalid_value",
                "'state' must be 'open' or 'closed'",
                field="state",
                suggestion="Send state 'open' or 'closed'.",
            )
        return ok({"state": state, "tickets": sum(t["state"] == state for t in TICKETS)})

    add(
        "ticket_count",
        described("Count the tickets of one state in the tracker.", '{"state": "open"}'),
        open_schema,
        count,
    )

    search_schema = closed(
        {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100,
                "description": "Words of the title, e.g. 'Ticket 3'.",
            },
            "limit": {"type": "integer", "minimum": 1, "description": "Tickets per call."},
        },
        required=["query"],
    )

    async def search(args: dict[str, Any]) -> CallToolResult:
        refused = checked(search_schema, args)
        if refused is not None:
            return refused
        hits = [t for t in TICKETS if args["query"].lower() in t["title"].lower()]
        return ok({"tickets": hits[: args.get("limit", 10)]})

    add(
        "ticket_search",
        described(
            "Search the tracker's ticket titles; at most limit tickets per call.",
            '{"query": "Ticket 1"}',
        ),
        search_schema,
        search,
    )
    history = closed(
        {
            "ticket_id": ID,
            "max_age": {
                "type": "integer",
                "minimum": 1,
                "maximum": 365,
                "description": "How far back to look.",
            },
        }
    )
    add(
        "ticket_get_history",
        "Get the recent history of one ticket: transitions newer than max_age. Read-only.",
        history,
    )
    add(
        "ticket_get_label",
        "Get the label a curator pinned to one ticket (its workflow stage). Read-only.",
        closed({"ticket_id": {k: v for k, v in ID.items() if k != "description"}}),
    )
    text_schema = {"type": "object", "properties": {"ticket_id": ID}, "additionalProperties": False}
    add(
        "ticket_get_text",
        "Get the text written on one ticket, i.e. its headline. Read-only.",
        text_schema,
        lookup({**text_schema, "required": ["ticket_id"]}),
    )
    add(
        "ticket_get_watchers",
        "Get who watches one ticket: subscribers notified on change. Read-only.",
        {**by_id, "required": ["ticket_id", "ticket"]},
    )
    field_schema = closed(
        {
            "ticket_id": ID,
            "field_name": {"description": "Which field of the ticket to return, e.g. 'title'."},
        }
    )

    async def get_field(args: dict[str, Any]) -> CallToolResult:
        refused = checked(field_schema, args)
        if refused is not None:
            return refused
        found = ticket(args["ticket_id"]) or TICKETS[0]
        name = args["field_name"]
        if not isinstance(name, str) or name not in found:
            return fail(
                "invalid_value",
                "'field_name' must be title, state or priority",
                field="field_name",
                suggestion="Send field_name 'title'.",
            )
        return ok({"ticket_id": found["ticket_id"], name: found[name]})

    add(
        "ticket_get_field",
        described(
            "Pick a named attribute (title, state or priority) out of one ticket record.",
            '{"ticket_id": 3, "field_name": "title"}',
        ),
        field_schema,
        get_field,
    )
    title_schema = closed(
        {
            "title": {
                "type": "string",
                "minLength": 1,
                "description": "The exact title, e.g. 'Ticket 3'.",
            }
        }
    )

    async def by_title(args: dict[str, Any]) -> CallToolResult:
        refused = checked(title_schema, args)
        if refused is not None:
            return refused
        found = next((t for t in TICKETS if t["title"] == args["title"]), None)
        return ok({"ticket": found})

    add(
        "ticket_get_by_title",
        described(
            "Look up the single ticket carrying exactly this headline; null when none does.",
            '{"title": "Ticket 3"}',
        ),
        title_schema,
        by_title,
    )
    many_schema = closed(
        {
            "ticket_ids": {
                "type": "array",
                "minItems": 1,
                "items": ID,
                "description": "Ticket ids, e.g. [1, 2].",
            }
        }
    )

    async def many(args: dict[str, Any]) -> CallToolResult:
        refused = checked(many_schema, args)
        if refused is not None:
            return refused
        return ok({"titles": [(ticket(i) or {}).get("title") for i in args["ticket_ids"]]})

    add(
        "ticket_get_many",
        described("Get the titles of several tickets in one call.", '{"ticket_ids": [1, 2]}'),
        many_schema,
        many,
    )
    state_schema = closed(
        {
            "state": {
                "type": "string",
                "maxLength": 10,
                "description": "The state: 'open' or 'closed'.",
            }
        }
    )

    async def by_state(args: dict[str, Any]) -> CallToolResult:
        refused = checked(state_schema, args)
        if refused is not None:
            return refused
        if args["state"] not in ("open", "closed"):
            return fail(
                "invalid_value",
                "'state' must be 'open' or 'closed'",
                field="state",
                suggestion="Send state 'open' or 'closed'.",
            )
        return ok({"tickets": sum(t["state"] == args["state"] for t in TICKETS)})

    add(
        "ticket_count_by_state",
        described(
            "Tally the tickets whose workflow stage matches the one state given.",
            '{"state": "open"}',
        ),
        state_schema,
        by_state,
    )

    async def refuse_write(args: dict[str, Any]) -> CallToolResult:
        return fail(
            "permission_denied",
            "this tracker is read-only: ask a person to do it",
            suggestion="Ask a person.",
        )

    add(
        "ticket_close",
        "Close one ticket of the tracker: changes its state to closed.",
        by_id,
        refuse_write,
        annotations=None,
    )
    add(
        "ticket_remove_label",
        "Remove the label of one ticket of the tracker; the old label is gone.",
        by_id,
        refuse_write,
        annotations={
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    )
    add(
        "ticket_delete",
        "Delete one ticket of the tracker; it cannot be undone.",
        by_id,
        refuse_write,
    )
    add(
        "ticket.export",
        "Export one ticket of the tracker as a JSON document for archiving. Read-only.",
        by_id,
    )

    # -- behavioural flaws --------------------------------------------------------------
    def coerced(fix: Callable[[Any], Any]) -> Handler:
        async def handle(args: dict[str, Any]) -> CallToolResult:
            args = {k: fix(v) if k == "ticket_id" else v for k, v in args.items()}
            return await lookup(by_id, ("priority",))(args)

        return handle

    add(
        "ticket_get_owner",
        "Get the owner responsible for one ticket, reported as a rank. Read-only.",
        by_id,
        coerced(lambda v: int(v) if isinstance(v, bool) else v),
    )
    add(
        "ticket_get_priority",
        "Get the priority of one ticket, 1 (urgent) to 5 (someday). Read-only.",
        by_id,
        coerced(lambda v: int(v) if isinstance(v, str) and v.isdigit() else v),
    )

    async def status(args: dict[str, Any]) -> CallToolResult:
        if first_error(by_id, args) is not None:
            raise MCPError(INVALID_PARAMS, "Invalid params")
        return await lookup(by_id, ("state",))(args)

    add(
        "ticket_get_status",
        "Get whether one ticket is still open or already resolved. Read-only.",
        by_id,
        status,
    )

    async def assignee(args: dict[str, Any]) -> CallToolResult:
        if first_error(by_id, args) is not None:
            return fail(
                "invalid_arguments",
                "Invalid arguments: check the tool's input schema and call again.",
            )
        return await lookup(by_id, ("title",))(args)

    add(
        "ticket_get_assignee",
        "Get the assignee of one ticket, named by the headline they own. Read-only.",
        by_id,
        assignee,
    )

    async def secret(args: dict[str, Any]) -> CallToolResult:
        return fail("unavailable", "No account is configured for this server.")

    add(
        "ticket_get_secret",
        "Get the private note of one ticket, kept in the account's vault. Read-only.",
        by_id,
        secret,
    )

    async def headline(args: dict[str, Any]) -> CallToolResult:
        if first_error(by_id, args) is not None:  # a refusal, reported as a success
            text = "Error: these arguments do not match the tool's schema."
            return CallToolResult(content=[TextContent(type="text", text=text)])
        return await lookup(by_id, ("title",))(args)

    add(
        "ticket_get_headline",
        "Get the headline of one ticket, as its reporter wrote it. Read-only.",
        by_id,
        headline,
    )

    async def tags(args: dict[str, Any]) -> CallToolResult:
        found = first_error(by_id, args)
        if found is not None:
            return fail("bad_value", f"Bad value for '{found[1]}'.", field=found[1])
        return await lookup(by_id, ("state",))(args)

    add(
        "ticket_get_tags",
        "Get the tags attached to one ticket, derived from its lifecycle. Read-only.",
        by_id,
        tags,
    )

    async def color(args: dict[str, Any]) -> CallToolResult:
        if first_error(by_id, args) is not None:
            return CallToolResult(content=[], is_error=True)
        return await lookup(by_id, ("priority",))(args)

    add(
        "ticket_get_color",
        "Get the colour code a board shows for one ticket. Read-only.",
        by_id,
        color,
    )

    def proposing(target: str, arguments: dict[str, Any]) -> Handler:
        async def handle(args: dict[str, Any]) -> CallToolResult:
            found = first_error(by_id, args)
            if found is not None:
                return fail(
                    "invalid_value",
                    f"'{found[1]}' is not accepted: find the ticket first",
                    field=found[1],
                    suggestion=f"Call {target} first.",
                    next_tool={"name": target, "arguments": arguments},
                )
            return await lookup(by_id, ("title",))(args)

        return handle

    add(
        "ticket_get_links",
        "Get the links pointing from one ticket to related work. Read-only.",
        by_id,
        proposing("ticket_search", {"text": "Ticket"}),
    )
    add(
        "ticket_get_parent",
        "Get the parent epic above one ticket in the hierarchy. Read-only.",
        by_id,
        proposing("ticket_lookup", {"query": "Ticket"}),
    )
    body_schema = closed(
        {
            "ticket_id": ID,
            "query": {
                "type": "string",
                "maxLength": 200,
                "description": "Words to find in the body, e.g. 'step'.",
            },
        }
    )

    async def body(args: dict[str, Any]) -> CallToolResult:
        if isinstance(args.get("query"), str) and len(args["query"]) > 10_000:
            await anyio.sleep(3600)  # "scans" the query before validating it
        refused = checked(body_schema, args)
        if refused is not None:
            return refused
        return ok({"ticket_id": args["ticket_id"], "matches": 0})

    add(
        "ticket_get_body",
        described("Search the body of one ticket for words.", '{"ticket_id": 3, "query": "step"}'),
        body_schema,
        body,
    )
    summary_schema = closed(
        {
            "ticket_id": ID,
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "description": "Lines of summary, 1 to 20.",
            },
        }
    )

    async def summary(args: dict[str, Any]) -> CallToolResult:
        number = args.get("ticket_id")
        if isinstance(number, int) and not isinstance(number, bool) and number > 1000:
            os._exit(3)  # a ticket id past the end of the table kills the process
        refused = checked(summary_schema, args)
        if refused is not None:
            return refused
        return ok({"ticket_id": args["ticket_id"], "lines": ["..."] * args["count"]})

    add(
        "ticket_get_summary",
        described("Summarise one ticket in a few lines.", '{"ticket_id": 3, "count": 2}'),
        summary_schema,
        summary,
    )

    async def stats(args: dict[str, Any]) -> CallToolResult:
        refused = checked(by_id, args)
        return refused or ok({"ticket_id": args["ticket_id"], "views": "7"})

    add(
        "ticket_get_stats",
        "Get the view statistics of one ticket: how often people opened it. Read-only.",
        by_id,
        stats,
        output_schema={
            "type": "object",
            "properties": {"ticket_id": {"type": "integer"}, "views": {"type": "integer"}},
            "required": ["ticket_id", "views"],
        },
    )

    # -- structured errors: an error envelope in structuredContent breaks outputSchema ----
    def estimating(structured_errors: Callable[[], bool]) -> Handler:
        async def handle(args: dict[str, Any]) -> CallToolResult:
            refuse = fail_structured if structured_errors() else fail
            found = first_error(by_id, args)
            if found is not None:
                code, name, message = found
                return refuse(code, message, field=name, suggestion=f"Fix '{name}' and call again.")
            if ticket(args["ticket_id"]) is None:
                return refuse(
                    "not_found",
                    "no ticket has this ticket_id: use ticket_search first",
                    field="ticket_id",
                )
            number = args["ticket_id"]
            return ok({"ticket_id": number, "hours": number * 2, "due": f"2026-10-{number:02d}"})

        return handle

    estimate_output = {
        "type": "object",
        "properties": {
            "ticket_id": {"type": "integer"},
            "hours": {"type": "integer"},
            "due": {"type": "string"},
        },
        "required": ["ticket_id", "hours", "due"],
    }
    add(
        "ticket_get_estimate",
        described("Estimate the remaining effort on one ticket, in hours of work."),
        by_id,
        estimating(lambda: True),
        output_schema=estimate_output,
    )
    add(
        "ticket_get_deadline",
        described("Look up when one ticket is due, as a calendar date (YYYY-MM-DD)."),
        by_id,
        estimating(lambda: PROTOCOL.get() in HANDSHAKE_PROTOCOL_VERSIONS),
        output_schema=estimate_output,
    )

    # -- paging flaws ---------------------------------------------------------------------
    pagers = (
        ("ticket_list", "restart", "tickets", "List the tickets of the tracker, oldest first"),
        (
            "ticket_list_comments",
            "overlap",
            "comments",
            "Page through the discussion: every remark people left on tickets, in posting order",
        ),
        (
            "ticket_list_events",
            "skip",
            "events",
            "Walk the audit trail of the tracker, event after event, as recorded",
        ),
        (
            "ticket_list_changes",
            "loop",
            "changes",
            "Enumerate edits made to ticket fields, newest revision last",
        ),
    )
    for name, flaw, what, text in pagers:
        schema = closed(
            {
                "cursor": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 200,
                    "description": "Omit on the first call; then next_cursor of the previous page.",
                },
                "page_size": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 10,
                    "default": 5,
                    "description": "Items per page, 1 to 10 (default 5).",
                },
            },
            required=[],
        )
        add(
            name,
            f"{text}; at most page_size per call, next_cursor null on the last page. Read-only.",
            schema,
            pager(schema, flaw, what),
        )

    # -- workspace flaws ------------------------------------------------------------------
    note = {
        "type": "string",
        "pattern": "^[a-z]+\\.txt$",
        "maxLength": 64,
        "description": "A note's file name in the notes folder, e.g. 'todo.txt'.",
    }
    note_schema = closed({"note": note})
    write_schema = closed(
        {
            "note": note,
            "text": {
                "type": "string",
                "maxLength": 1000,
                "description": "The text to write, e.g. 'buy milk'.",
            },
        }
    )

    async def read_note(args: dict[str, Any]) -> CallToolResult:
        refused = checked(note_schema, args)
        if refused is not None:
            return refused
        path = (ROOT or Path("/nonexistent")) / "notes" / args["note"]
        if not path.is_file():
            return fail(
                "not_found",
                "no such note: list the notes folder first",
                field="note",
                suggestion="Check the note's name.",
            )
        text = path.read_text(encoding="utf-8")
        cache = path.parent.parent / ".notes-cache"  # the flaw: a "read" writes a cache
        cache.mkdir(exist_ok=True)
        (cache / args["note"]).write_text(text, encoding="utf-8")
        return ok({"note": args["note"], "text": text})

    add(
        "note_read",
        described("Read one note file of the workspace's notes folder.", '{"note": "todo.txt"}'),
        note_schema,
        read_note,
    )

    def writer(append: bool) -> Handler:
        async def handle(args: dict[str, Any]) -> CallToolResult:
            refused = checked(write_schema, args)
            if refused is not None or ROOT is None:
                return refused or fail(
                    "not_found",
                    "no workspace: start with --root",
                    suggestion="Start the server with --root.",
                )
            path = ROOT / "notes" / args["note"]
            path.parent.mkdir(exist_ok=True)
            with path.open("a" if append else "w", encoding="utf-8") as handle:
                handle.write(args["text"] + ("\n" if append else ""))
            return ok({"note": args["note"], "written": len(args["text"])})

        return handle

    additive = {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    add(
        "note_write",
        "Write one note file of the workspace's notes folder (creates it).",
        write_schema,
        writer(False),
        annotations=additive,
    )
    add(
        "note_add_line",
        "Add one line at the end of a note, keeping what it already says; writes to the workspace.",
        write_schema,
        writer(True),
        annotations=additive,
    )
    return found


def _sign(offset: int, what: str) -> str:
    body = f"{what}:{offset}"
    mac = hmac.new(KEY, body.encode(), hashlib.sha256).hexdigest()[:16]
    return base64.urlsafe_b64encode(f"{body}:{mac}".encode()).decode()


def _unsign(cursor: str, what: str) -> int | None:
    try:
        body, _, mac = base64.urlsafe_b64decode(cursor.encode()).decode().rpartition(":")
        kind, _, offset = body.partition(":")
    except (ValueError, UnicodeDecodeError):
        return None
    good = hmac.new(KEY, body.encode(), hashlib.sha256).hexdigest()[:16]
    return int(offset) if kind == what and hmac.compare_digest(mac, good) else None


def pager(schema: dict[str, Any], flaw: str, what: str) -> Handler:
    """A paged listing of 12 items whose cursor handling has one flaw."""
    items = [{"id": n, "text": f"{what} {n}"} for n in range(1, 13)]

    async def handle(args: dict[str, Any]) -> CallToolResult:
        refused = checked(schema, args)
        if refused is not None:
            return refused
        size = args.get("page_size", 5)
        offset = 0
        if "cursor" in args:
            if flaw == "restart":  # the flaw: a cursor it cannot read starts over
                try:
                    text = base64.urlsafe_b64decode(args["cursor"].encode()).decode()
                    offset = int(text.removeprefix("offset="))
                except (ValueError, UnicodeDecodeError):
                    offset = 0
            else:
                found = _unsign(args["cursor"], what)
                if found is None:
                    return fail(
                        "invalid_cursor",
                        "'cursor' was altered or is not one of this"
                        " listing's: call again without cursor",
                        field="cursor",
                        suggestion="Omit cursor to start from the first page.",
                    )
                offset = found
        page = items[offset : offset + size]
        step = {"overlap": size - 1, "skip": size + 1}.get(flaw, size)
        following = offset + max(step, 1)
        more = offset + size < len(items)
        if flaw == "restart":
            cursor = base64.urlsafe_b64encode(f"offset={following}".encode()).decode()
        elif flaw == "loop":
            cursor = _sign(size, what)  # the flaw: always the second page's cursor
        else:
            cursor = _sign(following, what)
        return ok({what: page, "next_cursor": cursor if more else None})

    return handle


class FlawedServer(MCPServer[Any]):
    """``MCPServer`` serving :func:`tools` exactly as declared (see the module)."""

    def __init__(self) -> None:
        super().__init__(name="flawed-tracker", version="1.0", log_level="WARNING")
        self._tools = {tool.name: tool for tool in tools()}

    async def list_tools(self) -> list[MCPTool]:
        return [
            MCPTool(
                name=tool.name,
                title=tool.name.replace("_", " "),
                description=tool.description,
                input_schema=tool.input_schema,
                output_schema=tool.output_schema,
                annotations=ToolAnnotations.model_validate(tool.annotations)
                if tool.annotations is not None
                else None,
            )
            for tool in self._tools.values()
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult:
        tool = self._tools.get(name)
        if tool is None:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name[:80]}")
        token = PROTOCOL.set(context.protocol_version if context is not None else None)
        try:
            return await tool.handler(dict(arguments))
        finally:
            PROTOCOL.reset(token)


def main() -> None:
    global ROOT
    parser = argparse.ArgumentParser(description="a deliberately flawed MCP server")
    parser.add_argument("--root", type=Path, help="the workspace of the note tools")
    args = parser.parse_args()
    ROOT = args.root.resolve() if args.root else None
    FlawedServer().run("stdio")


if __name__ == "__main__":
    main()
