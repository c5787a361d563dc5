"""What every part of the emulator shares about one request: its vocabulary.

- :class:`Request`: one request as the emulator's handling sees it, whatever carried it (a
  socket in :mod:`~tutorial_lib.emulator.wire`, or the in-process transport); the handling
  writes back what the carrier needs to answer and to record (the request's count, its
  fault step, its idempotency key, whether it was a replay);
- :class:`Answer`: what the handling answers (status, body, content type, headers); the
  carrier writes it out, and applies the fault step's effect on the connection;
- :class:`ApiError`: a refusal, GitHub-shaped (``{"message", "documentation_url",
  "status"}``), raised anywhere in the handling and answered as :meth:`ApiError.answer`;
  :func:`not_found`, :func:`bad_request` (a refusal of the request's framing: the
  connection is closed after it), :func:`problems_parsing_json`;
- :func:`parse_json`: a request body as JSON, or GitHub's 400 (too deep, a lone
  surrogate, not JSON at all); :func:`path_number`: a number of the URL path, or None when
  no record can have it.

The modules of the emulator import these names from here, and nothing private from each
other.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from tutorial_lib.emulator.faults import Fault

__all__ = [
    "DOCS",
    "JSON_CONTENT_TYPE",
    "MAX_COMMENT_CHARS",
    "MAX_JSON_DEPTH",
    "Answer",
    "ApiError",
    "Json",
    "Request",
    "bad_request",
    "gone_meanwhile_is_404",
    "not_found",
    "parse_json",
    "path_number",
    "problems_parsing_json",
]

Json = Any

DOCS = "https://docs.github.com/rest"
JSON_CONTENT_TYPE = "application/json; charset=utf-8"
#: GitHub's limit on a comment body, in characters (a longer one gets 422).
MAX_COMMENT_CHARS = 65_536
#: JSON nested deeper than this is refused with 400 (GitHub's Ruby JSON parser stops at 100).
MAX_JSON_DEPTH = 100


@dataclass
class Request:
    """One request, as the handling sees it.

    The carrier fills ``method`` to ``raw_body`` (``used``: the request count so far, until
    the handling counts this one); the handling fills ``used``, ``fault`` (the fault plan's
    step for it), ``idempotency_key`` (a key it honoured) and ``replayed``.
    """

    method: str
    path: str
    query: dict[str, list[str]]
    headers: Message
    used: int
    raw_body: bytes = b""
    fault: Fault | None = None
    idempotency_key: str | None = None
    replayed: bool = False

    @property
    def resource(self) -> str:
        """GitHub's rate-limit resource of the request: ``graphql`` or ``core``."""
        return "graphql" if self.path == "/graphql" else "core"


@dataclass(frozen=True)
class Answer:
    """What the handling answers; the carrier adds the rate-limit and framing headers."""

    status: int
    body: bytes
    content_type: str = JSON_CONTENT_TYPE
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, payload: Json, headers: dict[str, str] | None = None) -> Answer:
        """``payload`` encoded as JSON (now: an encoding error is raised here)."""
        return cls(status, json.dumps(payload).encode(), JSON_CONTENT_TYPE, headers or {})


class ApiError(Exception):
    """A refusal: ``status``, GitHub's JSON ``body`` and extra ``headers`` of the answer."""

    def __init__(
        self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        self.headers = headers or {}
        super().__init__(body.get("message", ""))
        self.status = status
        self.body = body

    def answer(self) -> Answer:
        """The refusal as an answer."""
        return Answer.json(self.status, self.body, self.headers)


def not_found() -> ApiError:
    """GitHub's 404."""
    return ApiError(404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"})


@contextmanager
def gone_meanwhile_is_404() -> Iterator[None]:
    """A comment another request deleted between the lookup and the change: 404, as if
    the lookup had come after (the store raises KeyError)."""
    try:
        yield
    except KeyError:
        raise not_found() from None


def bad_request(status: int, message: str, docs: str = DOCS) -> ApiError:
    """A refusal of the request's framing: answered, then the connection is closed (what
    follows on it cannot be told apart from the body that was not read)."""
    body = {"message": message, "documentation_url": docs, "status": str(status)}
    return ApiError(status, body, {"Connection": "close"})


def problems_parsing_json(docs: str = DOCS) -> ApiError:
    """GitHub's 400 for a body that is not (acceptable) JSON."""
    return ApiError(
        400, {"message": "Problems parsing JSON", "documentation_url": docs, "status": "400"}
    )


def parse_json(raw: bytes, docs: str = DOCS) -> Json:
    """A request body as JSON (empty: ``None``), or GitHub's 400 "Problems parsing JSON".

    Refused too: nesting deeper than :data:`MAX_JSON_DEPTH` (also what would exhaust
    Python's recursion: json raises RecursionError) and a lone surrogate (``"\\ud800"``) in
    any string, which is no Unicode text: it could be neither stored as UTF-8 nor
    fingerprinted.
    """
    try:
        value = json.loads(raw or b"null")
    except (ValueError, RecursionError):  # UnicodeDecodeError and the 4,300-digit limit too
        raise problems_parsing_json(docs) from None
    if not _plain_json(value):
        raise problems_parsing_json(docs)
    return value


def _plain_json(value: Json) -> bool:
    """Whether ``value`` nests at most ``MAX_JSON_DEPTH`` deep and all its strings (keys
    included) are valid Unicode; iterative, so no depth can overflow the stack."""
    stack: list[tuple[Json, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, (list, dict)):
            if depth >= MAX_JSON_DEPTH:
                return False
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return True


def path_number(text: str | None) -> int | None:
    """A number of the URL path (``\\d+`` in the route), or None when no record can have it:
    GitHub answers 404 for a 5,000-digit id, and int() would refuse one (4,300 digits)."""
    if not text or len(text) > 18 or not text.isascii():
        return None
    return int(text)
