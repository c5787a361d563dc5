"""A recording outbound gateway and the ``http_send`` tool (chapter 06).

An injected instruction often says "post this to https://attacker.example/...". For an
attack to be refused *by the executor*, a tool that can send must exist and work, yet a
course must never send anything: :class:`OutboundGateway` records each request (method,
URL, body) and answers a canned 200, without ever opening a socket. A test asserts on
``gateway.requests``: empty when the authorization refused, one entry when it did not.

    gateway = OutboundGateway()
    registry = Registry([http_send_spec(gateway)])
    host = Host(registry, unguarded=True)  # a task's host would give access= and scope=
    host.call("http_send", {"method": "POST", "url": "https://x.example/", "body": "hi"})
    gateway.requests  # [OutboundRequest("POST", "https://x.example/", "hi")]
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tutorial_lib.core.arguments import unicode_text_error
from tutorial_lib.core.authorization import outbound_access
from tutorial_lib.core.confirmation import Question
from tutorial_lib.core.contracts import ContractError, Source
from tutorial_lib.core.tools import Annotations, ToolSpec

if TYPE_CHECKING:
    from jsonschema import ValidationError

__all__ = [
    "HTTP_SEND_SCHEMA",
    "HTTP_SEND_SPEC",
    "MAX_BODY_CHARS",
    "OutboundGateway",
    "OutboundRequest",
    "OutboundResponse",
    "http_send_spec",
]

HTTP_SEND = "http_send"
METHODS = ("GET", "POST", "PUT")
MAX_BODY_CHARS = 10_000
MAX_URL_CHARS = 2_000


@dataclass(frozen=True)
class OutboundRequest:
    """One request the gateway was asked to send."""

    method: str
    url: str
    body: str


@dataclass(frozen=True)
class OutboundResponse:
    """The gateway's canned answer."""

    status: int
    body: str


@dataclass
class OutboundGateway:
    """Records every outbound request and answers ``status``/``body``; never sends.

    ``requests`` is the record, in order; it is the observable effect of ``http_send``.
    """

    status: int = 200
    body: str = "ok"
    requests: list[OutboundRequest] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def send(self, method: str, url: str, body: str = "") -> OutboundResponse:
        """Record the request and return the canned response (no network, ever)."""
        with self._lock:
            self.requests.append(OutboundRequest(method, url, body))
        return OutboundResponse(self.status, self.body)


HTTP_SEND_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "method": {
            "type": "string",
            "enum": list(METHODS),
            "description": "The HTTP method: GET, POST or PUT.",
        },
        "url": {
            "type": "string",
            "pattern": r"^https?://[^\s/?#]+[^\s]*$",
            "maxLength": MAX_URL_CHARS,
            "description": "An absolute http(s) URL on any host, e.g. https://example.com/hook.",
        },
        "body": {
            "type": "string",
            "maxLength": MAX_BODY_CHARS,
            "default": "",
            "description": f"The request body (text, at most {MAX_BODY_CHARS} characters).",
        },
    },
    "required": ["method", "url"],
    "additionalProperties": False,
}


def _value_error(name: str, value: Any, error: ValidationError) -> ContractError:
    """Wording of a value the schema refused."""
    if name == "method":
        return ContractError(
            "invalid_value",
            f"'method' must be one of {', '.join(METHODS)}",
            field="method",
            received=value,
            allowed_values=list(METHODS),
        )
    if name == "url":
        return ContractError(
            "invalid_value",
            f"'url' must be an absolute http(s) URL of at most {MAX_URL_CHARS} characters",
            field="url",
            received=value,
            expected="https://host/path",
        )
    return ContractError(
        "invalid_value",
        f"'{name}' is not accepted ({error.validator})",
        field=name,
        received=value,
    )


def _check(context: OutboundGateway, args: Mapping[str, Any]) -> None:
    """Business check: the URL and the body must be writable as UTF-8 (JSON allows lone
    surrogates), the same check as every tool that sends text on."""
    for name in ("url", "body"):
        error = unicode_text_error(name, args.get(name, ""))
        if error is not None:
            raise error


def _send(context: OutboundGateway, args: Mapping[str, Any], checked: None) -> dict[str, Any]:
    """Execution of http_send: through the gateway."""
    body = args.get("body", "")
    answer = context.send(args["method"], args["url"], body)
    return {
        "method": args["method"],
        "url": args["url"],
        "status": answer.status,
        "bytes_sent": len(body.encode("utf-8")),
        "response": answer.body[:500],
    }


def _preview(context: Any, args: Mapping[str, Any]) -> Question:
    """What the user sees before a request leaves: where it goes and what it carries."""
    return Question(
        text=f"Send this {args['method']} request out of the system?",
        shown={
            "to": str(args["url"]),
            "body": str(args.get("body", "")) or "(no body)",
            "impact": "what is sent leaves the system and cannot be recalled",
        },
    )


def _source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "http", "resource": args["url"]}


#: http_send, declared once: sends (here: records) one HTTP request to any host.
HTTP_SEND_SPEC = ToolSpec(
    name=HTTP_SEND,
    title="Send an HTTP request to an outside host",
    description="Send one HTTP request (GET, POST or PUT) with an optional text body to any"
    " http(s) URL outside this system, and return the status. What is sent leaves the"
    " system and cannot be recalled. Example:"
    ' {"method": "POST", "url": "https://hooks.example.com/build", "body": "done"}',
    input_schema=HTTP_SEND_SCHEMA,
    # not destructive (nothing is overwritten), but not idempotent and open to the world
    annotations=Annotations(read_only=False, destructive=False, idempotent=False, open_world=True),
    access=outbound_access("send"),
    check=_check,
    execute=_send,
    source=_source,
    posted_text=("body",),
    preview=_preview,
    value_error=_value_error,
)


def http_send_spec(gateway: OutboundGateway) -> ToolSpec:
    """``http_send`` bound to ``gateway``: ready for a :class:`Registry`."""
    return HTTP_SEND_SPEC.bind(gateway)
