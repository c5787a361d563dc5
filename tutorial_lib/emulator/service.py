"""A GitHub REST (and minimal GraphQL) emulator over real HTTP on 127.0.0.1.

    with serve(build_store(), token="t0ken") as handle:
        httpx.get(f"{handle.base_url}/repos/example/shop/pulls/128/comments",
                  headers={"Authorization": "Bearer t0ken"})

Standard library only (``http.server.ThreadingHTTPServer`` in a daemon thread), one free port
per :func:`serve`, no logging to stderr, clean shutdown when the ``with`` block ends. The
shapes follow GitHub's REST API version 2022-11-28, enough that PyGithub works unchanged.

REST endpoints (``{repo}`` is ``repos/{owner}/{name}`` or ``repositories/{id}``, as in the
``Link`` headers of real GitHub)::

    GET  /{repo}                              a repository
    GET  /{repo}/pulls/{n}                    a pull request
    GET  /{repo}/pulls/{n}/comments           review comments, paged
    GET  /{repo}/pulls/comments/{id}          one review comment
    GET  /{repo}/issues/{n}                   the PR as an issue
    GET  /{repo}/issues/{n}/comments          conversation comments, paged
    POST /{repo}/issues/{n}/comments          {"body": ...} -> 201 + Location
    GET  /{repo}/issues/comments/{id}         one conversation comment
    GET  /users/{login}                       a user
    GET  /{owner}/{name}/pull/{n}, /{login}   tiny HTML pages (the ``html_url`` fields)
    POST /graphql                             review threads of a PR (below)

Chapter 05 adds two switches to :func:`serve`, both off by default (GitHub-faithful):

- ``faults=FaultPlan(...)``: scripted failures of chosen requests (connection refused, 503
  or 429 with ``Retry-After``, commit-then-timeout, commit-then-reset, slow commit); see
  :mod:`tutorial_lib.emulator.faults`. Use ``handle.transport()`` in the client so that ``refuse``
  steps are real refused connections.
- ``idempotency="optional"`` (or ``"required"``): the comment write honours an
  ``Idempotency-Key`` header (replay, 409 while in flight, 422 on another payload; see
  :mod:`tutorial_lib.emulator.idempotency`). Real GitHub has no such header: with the default
  ``"off"`` the header is ignored and a retried POST makes a second comment, as on GitHub.

``handle.requests`` lists every request the server answered (method, path, status, fault).

Lists take ``page`` (default 1) and ``per_page`` (default 30, capped at 100), are ordered by
ascending id and carry a ``Link`` header (``next``/``prev``/``first``/``last``); a page past
the end is ``[]``. ``sort``, ``direction`` and ``since`` are not implemented (ignored).
Every response carries ``X-RateLimit-*`` headers; the count is per server, and a limit is
enforced (403) only when ``serve(..., rate_limit=N)`` is given.

GraphQL: REST has no "resolved" flag; GitHub serves it through GraphQL, and so does this
emulator. It understands exactly one query shape, :data:`REVIEW_THREADS_QUERY_SHAPE` (review
threads of one PR), and any query of that shape asking for fewer of its fields; anything else
gets a GraphQL ``{"errors": [...]}`` answer.

**Without sockets.** :func:`serve_in_process` is the same emulator with no server at all:
its :class:`InProcessTransport` hands each request of an ``httpx`` client straight to the
request handling above, fault plan included (a refused connection, a 503, a commit whose
answer never comes...), in the calling process. It is for tests that run thousands of
scripted writes; the notebooks and the real-HTTP tests use :func:`serve`.
"""

from __future__ import annotations

import base64
import io
import json
import re
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import BaseServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from tutorial_lib.emulator.faults import Fault, FaultPlan, RefusingTransport
from tutorial_lib.emulator.fixtures import (
    GitHubStore,
    IssueComment,
    PullRequest,
    Repository,
    ReviewComment,
    ReviewThread,
    User,
)
from tutorial_lib.emulator.idempotency import (
    ACCEPTED_KEY_HEADER_PATTERN,
    DEFAULT_WINDOW_S,
    IdempotencyKeys,
    StoredResponse,
    fingerprint,
)

__all__ = [
    "IN_PROCESS_BASE_URL",
    "REVIEW_THREADS_QUERY_SHAPE",
    "InProcessHandle",
    "InProcessTransport",
    "ServedRequest",
    "ServiceHandle",
    "serve",
    "serve_in_process",
]

IdempotencyMode = Literal["off", "optional", "required"]

DOCS = "https://docs.github.com/rest"
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100
DEFAULT_RATE_LIMIT = 5000

#: The GraphQL query shape this emulator understands (variables: owner, name, number, first,
#: after): it answers this query, and any query of the same shape that asks for fewer of
#: its fields or writes an argument as a literal. It is the emulator's side of the
#: contract, not what a particular client sends (the course's client has its own query).
REVIEW_THREADS_QUERY_SHAPE = """\
query($owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        nodes {
          id isResolved isOutdated path line
          comments(first: 100) { nodes { databaseId body } }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}"""

Json = Any


@dataclass(frozen=True)
class ServedRequest:
    """One request the server answered (or cut off): for counting and for the notebooks."""

    method: str
    path: str
    status: int | None  # None: no answer was sent (the connection was reset)
    fault: str | None
    idempotency_key: str | None
    replayed: bool


@dataclass(frozen=True)
class ServiceHandle:
    """What :func:`serve` yields: where the emulator listens and what it serves."""

    base_url: str
    port: int
    store: GitHubStore
    thread: threading.Thread
    faults: FaultPlan | None = None
    requests: list[ServedRequest] = field(default_factory=list)

    def transport(self) -> RefusingTransport | None:
        """The httpx transport a client needs for the plan's ``refuse`` steps (or None)."""
        return self.faults.transport() if self.faults is not None else None


class _ApiError(Exception):
    def __init__(
        self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        self.headers = headers or {}
        super().__init__(body.get("message", ""))
        self.status = status
        self.body = body


def _not_found() -> _ApiError:
    return _ApiError(404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"})


# -- JSON shapes -----------------------------------------------------------------------------


class _Shapes:
    """Turns store records into GitHub-shaped JSON with URLs under ``base``."""

    def __init__(self, base: str) -> None:
        self.base = base

    def user(self, user: User) -> dict[str, Any]:
        return {
            "login": user.login,
            "id": user.id,
            "node_id": _node_id("U", user.id),
            "avatar_url": "",
            "url": f"{self.base}/users/{user.login}",
            "html_url": f"{self.base}/{user.login}",
            "type": user.type,
            "site_admin": False,
        }

    def repo_url(self, repo: Repository) -> str:
        return f"{self.base}/repos/{repo.full_name}"

    def repository(self, repo: Repository) -> dict[str, Any]:
        url = self.repo_url(repo)
        return {
            "id": repo.id,
            "node_id": _node_id("R", repo.id),
            "name": repo.name,
            "full_name": repo.full_name,
            "owner": self.user(repo.owner),
            "private": repo.private,
            "html_url": f"{self.base}/{repo.full_name}",
            "description": repo.description,
            "fork": False,
            "url": url,
            "pulls_url": url + "/pulls{/number}",
            "issues_url": url + "/issues{/number}",
            "default_branch": repo.default_branch,
            "visibility": "private" if repo.private else "public",
        }

    def pull(self, repo: Repository, pull: PullRequest) -> dict[str, Any]:
        url = f"{self.repo_url(repo)}/pulls/{pull.number}"
        issue_url = f"{self.repo_url(repo)}/issues/{pull.number}"
        html = f"{self.base}/{repo.full_name}/pull/{pull.number}"
        repo_json = self.repository(repo)
        return {
            "url": url,
            "id": pull.id,
            "node_id": _node_id("PR", pull.id),
            "html_url": html,
            "issue_url": issue_url,
            "comments_url": issue_url + "/comments",
            "review_comments_url": url + "/comments",
            "review_comment_url": f"{self.repo_url(repo)}/pulls/comments{{/number}}",
            "number": pull.number,
            "state": pull.state,
            "locked": False,
            "title": pull.title,
            "body": pull.body,
            "user": self.user(pull.user),
            "created_at": pull.created_at,
            "updated_at": pull.updated_at,
            "closed_at": None,
            "merged_at": None,
            "draft": False,
            "head": {
                "label": f"{repo.owner.login}:{pull.head_ref}",
                "ref": pull.head_ref,
                "sha": pull.head_sha,
                "user": self.user(repo.owner),
                "repo": repo_json,
            },
            "base": {
                "label": f"{repo.owner.login}:{pull.base_ref}",
                "ref": pull.base_ref,
                "sha": pull.base_sha,
                "user": self.user(repo.owner),
                "repo": repo_json,
            },
            "author_association": "CONTRIBUTOR",
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "issue": {"href": issue_url},
                "comments": {"href": issue_url + "/comments"},
                "review_comments": {"href": url + "/comments"},
                "review_comment": {"href": f"{self.repo_url(repo)}/pulls/comments{{/number}}"},
            },
        }

    def issue(self, repo: Repository, pull: PullRequest, n_comments: int) -> dict[str, Any]:
        issue_url = f"{self.repo_url(repo)}/issues/{pull.number}"
        return {
            "url": issue_url,
            "repository_url": self.repo_url(repo),
            "comments_url": issue_url + "/comments",
            "html_url": f"{self.base}/{repo.full_name}/pull/{pull.number}",
            "id": pull.id + 1,
            "node_id": _node_id("I", pull.id),
            "number": pull.number,
            "title": pull.title,
            "body": pull.body,
            "user": self.user(pull.user),
            "state": pull.state,
            "locked": False,
            "comments": n_comments,
            "created_at": pull.created_at,
            "updated_at": pull.updated_at,
            "closed_at": None,
            "author_association": "CONTRIBUTOR",
            "pull_request": {
                "url": f"{self.repo_url(repo)}/pulls/{pull.number}",
                "html_url": f"{self.base}/{repo.full_name}/pull/{pull.number}",
            },
        }

    def review_comment(self, repo: Repository, c: ReviewComment) -> dict[str, Any]:
        url = f"{self.repo_url(repo)}/pulls/comments/{c.id}"
        pull_url = f"{self.repo_url(repo)}/pulls/{c.pr}"
        html = f"{self.base}/{repo.full_name}/pull/{c.pr}#discussion_r{c.id}"
        shaped: dict[str, Any] = {
            "url": url,
            "pull_request_review_id": c.review_id,
            "id": c.id,
            "node_id": _node_id("PRRC", c.id),
            "diff_hunk": c.diff_hunk,
            "path": c.path,
            "commit_id": c.commit_id,
            "original_commit_id": c.original_commit_id,
            "user": self.user(c.user),
            "body": c.body,
            "created_at": c.created_at,
            "updated_at": c.updated_at,
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": c.author_association,
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": pull_url},
            },
            "line": c.line,
            "original_line": c.original_line,
            "side": c.side,
            "original_position": 1,
            "position": None if c.line is None else 1,
            "subject_type": "line",
        }
        if c.in_reply_to_id is not None:
            shaped["in_reply_to_id"] = c.in_reply_to_id
        return shaped

    def issue_comment(self, repo: Repository, c: IssueComment) -> dict[str, Any]:
        return {
            "id": c.id,
            "node_id": _node_id("IC", c.id),
            "url": f"{self.repo_url(repo)}/issues/comments/{c.id}",
            "html_url": f"{self.base}/{repo.full_name}/pull/{c.number}#issuecomment-{c.id}",
            "issue_url": f"{self.repo_url(repo)}/issues/{c.number}",
            "user": self.user(c.user),
            "created_at": c.created_at,
            "updated_at": c.updated_at,
            "body": c.body,
            "author_association": c.author_association,
        }


def _node_id(prefix: str, number: int) -> str:
    return f"{prefix}_" + base64.urlsafe_b64encode(str(number).encode()).decode().rstrip("=")


# -- paging ----------------------------------------------------------------------------------


def _int_param(query: dict[str, list[str]], name: str, default: int) -> int:
    try:
        return int(query.get(name, [str(default)])[0])
    except ValueError:
        return default


def _page_window(query: dict[str, list[str]]) -> tuple[int, int]:
    """``(page, per_page)`` clamped as GitHub does (page >= 1, 1 <= per_page <= 100)."""
    page = max(1, _int_param(query, "page", 1))
    per_page = _int_param(query, "per_page", DEFAULT_PER_PAGE)
    per_page = DEFAULT_PER_PAGE if per_page < 1 else min(per_page, MAX_PER_PAGE)
    return page, per_page


def _link_header(
    list_url: str, query: dict[str, list[str]], page: int, per_page: int, total: int
) -> str | None:
    last = max(1, -(-total // per_page))
    kept = {k: v[0] for k, v in query.items() if k not in ("page", "per_page")}

    def url(n: int) -> str:
        return f"{list_url}?{urlencode({**kept, 'per_page': per_page, 'page': n})}"

    rels: list[tuple[str, int]] = []
    if page > 1:
        rels.append(("prev", min(page - 1, last)))
    if page < last:
        rels.append(("next", page + 1))
        rels.append(("last", last))
    if page > 1:
        rels.append(("first", 1))
    return ", ".join(f'<{url(n)}>; rel="{rel}"' for rel, n in rels) or None


# -- GraphQL (just enough) -------------------------------------------------------------------

_TOKEN = re.compile(
    r'\s*(?:(\.\.\.)|([{}():!,\[\]=])|(\$?[A-Za-z_]\w*)|(-?\d+)|("(?:[^"\\]|\\.)*"))'
)


@dataclass
class _Field:
    name: str
    args: dict[str, Any]
    children: list[_Field]


class _GraphQLError(Exception):
    pass


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = re.sub(r"#[^\n]*", "", text).strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise _GraphQLError(f"Parse error near {text[pos : pos + 20]!r}")
        token = m.group(0).strip()
        if token != ",":
            out.append(token)
        pos = m.end()
    return out


def _parse_query(text: str, variables: dict[str, Any]) -> list[_Field]:
    """Parse one anonymous or named ``query``; variables are substituted while parsing."""
    toks = _tokens(text)
    i = 0

    def peek() -> str:
        return toks[i] if i < len(toks) else ""

    def take(expected: str | None = None) -> str:
        nonlocal i
        if i >= len(toks) or (expected is not None and toks[i] != expected):
            raise _GraphQLError(f"Parse error: expected {expected or 'a token'}, got {peek()!r}")
        i += 1
        return toks[i - 1]

    def value() -> Any:
        tok = take()
        if tok.startswith("$"):
            return variables.get(tok[1:])
        if tok.startswith('"'):
            return json.loads(tok)
        if re.fullmatch(r"-?\d+", tok):
            return int(tok)
        return {"true": True, "false": False, "null": None}.get(tok, tok)

    def selection() -> list[_Field]:
        take("{")
        fields: list[_Field] = []
        while peek() != "}":
            name = take()
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                raise _GraphQLError(f"Parse error: unexpected {name!r}")
            args: dict[str, Any] = {}
            if peek() == "(":
                take("(")
                while peek() != ")":
                    arg = take()
                    take(":")
                    args[arg] = value()
                take(")")
            children = selection() if peek() == "{" else []
            fields.append(_Field(name, args, children))
        take("}")
        return fields

    if peek() == "query":
        take()
        if peek() not in ("(", "{"):
            take()  # operation name
        if peek() == "(":  # variable definitions: skipped, values come from `variables`
            depth = 0
            while True:
                tok = take()
                depth += tok == "("
                depth -= tok == ")"
                if depth == 0:
                    break
    elif peek() in ("mutation", "subscription"):
        raise _GraphQLError(f"This emulator does not support {peek()} operations")
    fields = selection()
    if i != len(toks):
        raise _GraphQLError("Parse error: text after the query")
    return fields


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _cursor_index(cursor: str | None) -> int:
    if cursor is None:
        return -1
    try:
        prefix, index = base64.b64decode(cursor.encode(), validate=True).decode().rsplit(":", 1)
        if prefix != "cursor:v2":
            raise ValueError(prefix)
        return int(index)
    except ValueError as exc:
        raise _GraphQLError(f"`{cursor}` does not appear to be a valid cursor.") from exc


def _connection(field: _Field, items: list[Any], node: Callable[[_Field, Any], Any]) -> Json:
    first = field.args.get("first")
    if not isinstance(first, int) or not 1 <= first <= 100:
        raise _GraphQLError(
            f"You must provide a `first` value between 1 and 100 to paginate `{field.name}`."
        )
    start = _cursor_index(field.args.get("after")) + 1
    window = items[start : start + first]
    out: dict[str, Any] = {}
    for child in field.children:
        if child.name == "nodes":
            out["nodes"] = [node(child, item) for item in window]
        elif child.name == "totalCount":
            out["totalCount"] = len(items)
        elif child.name == "pageInfo":
            info = {
                "hasNextPage": start + len(window) < len(items),
                "hasPreviousPage": start > 0,
                "endCursor": _cursor(start + len(window) - 1) if window else None,
                "startCursor": _cursor(start) if window else None,
            }
            out["pageInfo"] = _select(child, info, "PageInfo")
        else:
            raise _unknown(child.name, "Connection")
    return out


def _unknown(name: str, type_name: str) -> _GraphQLError:
    return _GraphQLError(f"Field '{name}' doesn't exist on type '{type_name}'")


def _select(field: _Field, values: dict[str, Any], type_name: str) -> dict[str, Any]:
    out = {}
    for child in field.children:
        if child.name not in values:
            raise _unknown(child.name, type_name)
        out[child.name] = values[child.name]
    return out


class _GraphQL:
    """Resolves the review-threads query against a store."""

    def __init__(self, store: GitHubStore, shapes: _Shapes) -> None:
        self.store = store
        self.shapes = shapes

    def execute(self, fields: list[_Field]) -> Json:
        data: dict[str, Any] = {}
        for f in fields:
            if f.name != "repository":
                raise _unknown(f.name, "Query")
            repo = self.store.repository(f"{f.args.get('owner')}/{f.args.get('name')}")
            if repo is None:
                raise _GraphQLError(
                    f"Could not resolve to a Repository with the name "
                    f"'{f.args.get('owner')}/{f.args.get('name')}'."
                )
            data["repository"] = self.repository(f, repo)
        return data

    def repository(self, field: _Field, repo: Repository) -> Json:
        out: dict[str, Any] = {}
        for child in field.children:
            if child.name == "pullRequest":
                pull = self.store.pull_request(repo.full_name, child.args.get("number", -1))
                if pull is None:
                    raise _GraphQLError(
                        "Could not resolve to a PullRequest with the number of "
                        f"{child.args.get('number')}."
                    )
                out["pullRequest"] = self.pull(child, repo, pull)
            elif child.name in ("nameWithOwner", "id", "databaseId"):
                out[child.name] = {
                    "nameWithOwner": repo.full_name,
                    "id": _node_id("R", repo.id),
                    "databaseId": repo.id,
                }[child.name]
            else:
                raise _unknown(child.name, "Repository")
        return out

    def pull(self, field: _Field, repo: Repository, pull: PullRequest) -> Json:
        out: dict[str, Any] = {}
        for child in field.children:
            if child.name == "reviewThreads":
                threads = self.store.review_threads(repo.full_name, pull.number)
                out[child.name] = _connection(child, threads, lambda f, t: self.thread(f, repo, t))
            elif child.name in ("number", "title", "state", "databaseId"):
                values = {
                    "number": pull.number,
                    "title": pull.title,
                    "state": pull.state.upper(),
                    "databaseId": pull.id,
                }
                out[child.name] = values[child.name]
            else:
                raise _unknown(child.name, "PullRequest")
        return out

    def thread(self, field: _Field, repo: Repository, thread: ReviewThread) -> Json:
        out: dict[str, Any] = {}
        scalars = {
            "id": _node_id("PRRT", thread.id),
            "isResolved": thread.is_resolved,
            "isOutdated": thread.is_outdated,
            "path": thread.path,
            "line": thread.line,
            "originalLine": thread.original_line,
            "diffSide": "RIGHT",
        }
        for child in field.children:
            if child.name == "comments":
                comments = [
                    self.store.review_comment(repo.full_name, i) for i in thread.comment_ids
                ]
                out["comments"] = _connection(
                    child, comments, lambda f, c: self.comment(f, repo, c)
                )
            elif child.name in scalars:
                out[child.name] = scalars[child.name]
            else:
                raise _unknown(child.name, "PullRequestReviewThread")
        return out

    def comment(self, field: _Field, repo: Repository, c: ReviewComment) -> Json:
        values: dict[str, Any] = {
            "id": _node_id("PRRC", c.id),
            "databaseId": c.id,
            "body": c.body,
            "path": c.path,
            "line": c.line,
            "originalLine": c.original_line,
            "createdAt": c.created_at,
            "url": self.shapes.review_comment(repo, c)["html_url"],
        }
        out: dict[str, Any] = {}
        for child in field.children:
            if child.name == "author":
                out["author"] = _select(
                    child, {"login": c.user.login, "__typename": c.user.type}, "Actor"
                )
            elif child.name in values:
                out[child.name] = values[child.name]
            else:
                raise _unknown(child.name, "PullRequestReviewComment")
        return out


# -- the HTTP server -------------------------------------------------------------------------


class _Emulator:
    """What the emulator knows and counts, whatever carries its requests (a socket server
    or :class:`InProcessTransport`): the store, the switches, the served requests."""

    def __init__(
        self,
        store: GitHubStore,
        token: str | None,
        rate_limit: int | None,
        faults: FaultPlan | None,
        idempotency: IdempotencyMode,
        keys: IdempotencyKeys,
        base_url: str,
    ) -> None:
        self.store = store
        self.token = token
        self.rate_limit = rate_limit
        self.faults = faults
        self.idempotency = idempotency
        self.keys = keys
        self.served: list[ServedRequest] = []
        self.base_url = base_url
        self.shapes = _Shapes(base_url)
        self.graphql = _GraphQL(store, self.shapes)
        self.reset_at = int(time.time()) + 3600
        self.used = 0
        self.counter_lock = threading.Lock()


def _emulator(
    store: GitHubStore,
    token: str | None,
    rate_limit: int | None,
    faults: FaultPlan | None,
    idempotency: IdempotencyMode,
    window_s: float,
    base_url: str,
) -> _Emulator:
    keys = IdempotencyKeys(window_s)
    return _Emulator(store, token, rate_limit, faults, idempotency, keys, base_url)


def _check_idempotency_mode(idempotency: str) -> None:
    if idempotency not in ("off", "optional", "required"):
        raise ValueError(f"idempotency must be 'off', 'optional' or 'required': {idempotency!r}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, make: Callable[[str], _Emulator]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.emulator = make(f"http://127.0.0.1:{self.server_address[1]}")
        self.sockets_lock = threading.Lock()
        self.open_sockets: set[socket.socket] = set()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.sockets_lock:
            self.open_sockets.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.sockets_lock:
            self.open_sockets.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet about clients that hung up (timeouts, resets): that is their right."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def close_open_connections(self) -> None:
        with self.sockets_lock:
            sockets = list(self.open_sockets)
        for sock in sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


_REPO = r"/(?:repos/(?P<owner>[^/]+)/(?P<name>[^/]+)|repositories/(?P<repo_id>\d+))"
_ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    ("GET", re.compile(_REPO + r"/?$"), "get_repository"),
    ("GET", re.compile(_REPO + r"/pulls/(?P<n>\d+)$"), "get_pull"),
    ("GET", re.compile(_REPO + r"/pulls/(?P<n>\d+)/comments$"), "list_review_comments"),
    ("GET", re.compile(_REPO + r"/pulls/comments/(?P<id>\d+)$"), "get_review_comment"),
    ("GET", re.compile(_REPO + r"/issues/(?P<n>\d+)$"), "get_issue"),
    ("GET", re.compile(_REPO + r"/issues/(?P<n>\d+)/comments$"), "list_issue_comments"),
    ("POST", re.compile(_REPO + r"/issues/(?P<n>\d+)/comments$"), "create_issue_comment"),
    ("GET", re.compile(_REPO + r"/issues/comments/(?P<id>\d+)$"), "get_issue_comment"),
    ("GET", re.compile(r"/users/(?P<login>[^/]+)$"), "get_user"),
    ("POST", re.compile(r"/graphql$"), "graphql"),
    ("GET", re.compile(r"/(?P<owner>[^/]+)/(?P<name>[^/]+)/pull/(?P<n>\d+)$"), "html_page"),
    ("GET", re.compile(r"/(?P<owner>[^/]+)/(?P<name>[^/]+)$"), "html_page"),
    ("GET", re.compile(r"/(?P<owner>[^/]+)$"), "html_page"),
]


class _Handler(BaseHTTPRequestHandler):
    server: _Server | _InProcessServer
    protocol_version = "HTTP/1.1"
    server_version = "GitHubEmulator/1.0"
    timeout = 30
    # Headers and body go out in two writes; with Nagle's algorithm the second waits for
    # the client's delayed ACK (tens of ms per response on loopback).
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet: nothing on stderr (notebooks)."""

    def do_GET(self) -> None:  # noqa: N802
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    # -- plumbing --------------------------------------------------------------------------

    def _dispatch(self, method: str) -> None:
        self.emulator = self.server.emulator
        split = urlsplit(self.path)
        self.url_path = split.path
        self.query = parse_qs(split.query)
        self.resource = "graphql" if split.path == "/graphql" else "core"
        length = int(self.headers.get("Content-Length") or 0)
        self.raw_body = self.rfile.read(length) if length else b""
        self.method = method
        self.fault: Fault | None = None
        self.idempotency_key: str | None = None
        self.replayed = False
        try:
            self._count_request()
            self._authenticate()
            if self.emulator.faults is not None:
                self.fault = self.emulator.faults.take(method, split.path)
                self._fault_before_handling(split.path)
            for route_method, pattern, action in _ROUTES:
                match = pattern.match(split.path)
                if match and route_method == method:
                    slow = self.fault is not None and self.fault.kind == "slow_commit"
                    if slow and action != "create_issue_comment":  # that one waits after its key
                        time.sleep(self.fault.delay_s)  # type: ignore[union-attr]
                    getattr(self, action)(match.groupdict())
                    return
            raise _not_found()
        except _ApiError as error:
            self._send_json(error.status, error.body, error.headers)

    def _fault_before_handling(self, path: str) -> None:
        """Faults that stop a request before anything is done."""
        fault = self.fault
        if fault is None:
            return
        if fault.kind == "refuse":
            raise _ApiError(
                500,
                {
                    "message": "fault plan: a 'refuse' step can only be injected by the"
                    " client transport (GitHubClient(..., transport=handle.transport()))",
                    "status": "500",
                },
            )
        if fault.kind == "unavailable":
            raise _ApiError(
                503,
                {"message": "Service Unavailable", "status": "503"},
                {"Retry-After": str(fault.retry_after_s)},
            )
        if fault.kind == "rate_limited":
            raise _ApiError(
                429,
                {
                    "message": "You have exceeded a secondary rate limit. Please wait a few"
                    " minutes before you try again.",
                    "documentation_url": DOCS + "/overview/rate-limits-for-the-rest-api",
                    "status": "429",
                },
                {"Retry-After": str(fault.retry_after_s)},
            )

    def _count_request(self) -> None:
        with self.emulator.counter_lock:
            self.emulator.used += 1
            self.used = self.emulator.used
        limit = self.emulator.rate_limit
        if limit is not None and self.used > limit:
            viewer_id = self.emulator.store.viewer.id
            raise _ApiError(
                403,
                {
                    "message": f"API rate limit exceeded for user ID {viewer_id}.",
                    "documentation_url": DOCS + "/overview/rate-limits-for-the-rest-api",
                    "status": "403",
                },
            )

    def _authenticate(self) -> None:
        expected = self.emulator.token
        if expected is None:
            return
        header = self.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() in ("token", "bearer") and value.strip() == expected:
            return
        message = "Bad credentials" if header else "Requires authentication"
        raise _ApiError(401, {"message": message, "documentation_url": DOCS, "status": "401"})

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str]) -> None:
        fault = self.fault.kind if self.fault is not None else None
        if fault == "commit_then_reset":
            self._record(self.url_path, None, fault)
            self._reset_connection()
            return
        self._record(self.url_path, status, fault)
        if fault == "commit_then_timeout":
            assert self.fault is not None
            self._hold_answer(self.fault.delay_s)  # the client gives up meanwhile
            with suppress(OSError):
                self._write_response(status, body, content_type, headers)
            self.close_connection = True
            return
        try:
            self._write_response(status, body, content_type, headers)
        except (BrokenPipeError, ConnectionResetError):  # the client has given up (its timeout)
            self.close_connection = True

    def _record(self, path: str, status: int | None, fault: str | None) -> None:
        served = ServedRequest(
            self.method, path, status, fault, self.idempotency_key, self.replayed
        )
        with self.emulator.counter_lock:
            self.emulator.served.append(served)

    def _hold_answer(self, delay_s: float) -> None:
        """Keep the (stored) request's answer back for ``delay_s`` seconds."""
        time.sleep(delay_s)

    def _reset_connection(self) -> None:
        """Close the TCP connection with RST (SO_LINGER 0) and no answer."""
        self.close_connection = True
        sock = self.connection
        with suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()  # drops the makefile reference, so close() really closes
        sock.close()

    def _write_response(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str]
    ) -> None:
        self.send_response(status)
        limit = self.emulator.rate_limit or DEFAULT_RATE_LIMIT
        rate = {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(max(0, limit - self.used)),
            "X-RateLimit-Reset": str(self.emulator.reset_at),
            "X-RateLimit-Used": str(min(self.used, limit)),
            "X-RateLimit-Resource": self.resource,
            "X-GitHub-Api-Version-Selected": "2022-11-28",
            "Content-Type": content_type,
            "Content-Length": str(len(body)),
            **headers,
        }
        for name, value in rate.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, payload: Json, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self._send(status, body, "application/json; charset=utf-8", headers or {})

    def _repo(self, groups: dict[str, str | None]) -> Repository:
        if groups.get("repo_id"):
            repo = self.emulator.store.repository_by_id(int(groups["repo_id"] or 0))
        else:
            repo = self.emulator.store.repository(f"{groups['owner']}/{groups['name']}")
        if repo is None:
            raise _not_found()
        return repo

    def _pull(self, groups: dict[str, str | None]) -> tuple[Repository, PullRequest]:
        repo = self._repo(groups)
        pull = self.emulator.store.pull_request(repo.full_name, int(groups["n"] or 0))
        if pull is None:
            raise _not_found()
        return repo, pull

    def _send_page(self, repo: Repository, suffix: str, items: list[Json], total: int) -> None:
        page, per_page = _page_window(self.query)
        list_url = f"{self.emulator.base_url}/repositories/{repo.id}/{suffix}"
        link = _link_header(list_url, self.query, page, per_page, total)
        self._send_json(200, items, {"Link": link} if link else {})

    # -- endpoints -------------------------------------------------------------------------

    def get_repository(self, groups: dict[str, str | None]) -> None:
        self._send_json(200, self.emulator.shapes.repository(self._repo(groups)))

    def get_pull(self, groups: dict[str, str | None]) -> None:
        repo, pull = self._pull(groups)
        self._send_json(200, self.emulator.shapes.pull(repo, pull))

    def get_issue(self, groups: dict[str, str | None]) -> None:
        repo, pull = self._pull(groups)
        count = len(self.emulator.store.issue_comments(repo.full_name, pull.number))
        self._send_json(200, self.emulator.shapes.issue(repo, pull, count))

    def list_review_comments(self, groups: dict[str, str | None]) -> None:
        repo, pull = self._pull(groups)
        page, per_page = _page_window(self.query)
        start = (page - 1) * per_page
        window, total = self.emulator.store.review_comment_slice(
            repo.full_name, pull.number, start, start + per_page
        )
        items = [self.emulator.shapes.review_comment(repo, c) for c in window]
        self._send_page(repo, f"pulls/{pull.number}/comments", items, total)

    def list_issue_comments(self, groups: dict[str, str | None]) -> None:
        repo, pull = self._pull(groups)
        comments = self.emulator.store.issue_comments(repo.full_name, pull.number)
        page, per_page = _page_window(self.query)
        window = comments[(page - 1) * per_page : page * per_page]
        items = [self.emulator.shapes.issue_comment(repo, c) for c in window]
        self._send_page(repo, f"issues/{pull.number}/comments", items, len(comments))

    def get_review_comment(self, groups: dict[str, str | None]) -> None:
        repo = self._repo(groups)
        comment = self.emulator.store.review_comment(repo.full_name, int(groups["id"] or 0))
        if comment is None:
            raise _not_found()
        self._send_json(200, self.emulator.shapes.review_comment(repo, comment))

    def get_issue_comment(self, groups: dict[str, str | None]) -> None:
        repo = self._repo(groups)
        comment = self.emulator.store.issue_comment(repo.full_name, int(groups["id"] or 0))
        if comment is None:
            raise _not_found()
        self._send_json(200, self.emulator.shapes.issue_comment(repo, comment))

    def create_issue_comment(self, groups: dict[str, str | None]) -> None:
        repo, pull = self._pull(groups)
        try:
            payload = json.loads(self.raw_body or b"null")
        except (ValueError, UnicodeDecodeError) as exc:
            raise _ApiError(
                400,
                {"message": "Problems parsing JSON", "documentation_url": DOCS, "status": "400"},
            ) from exc
        key = self._idempotency_key()
        if key is not None:
            path = f"/repositories/{repo.id}/issues/{pull.number}/comments"
            begin = self.emulator.keys.begin(key, fingerprint("POST", path, payload))
            if begin.outcome == "replay":
                assert begin.response is not None
                self.replayed = True
                stored = begin.response
                headers = {**stored.headers, "Idempotent-Replayed": "true"}
                self._send(stored.status, stored.body, "application/json; charset=utf-8", headers)
                return
            if begin.outcome == "in_progress":
                raise _ApiError(
                    409,
                    {
                        "message": "A request with this Idempotency-Key is still being"
                        " processed; retry later",
                        "status": "409",
                    },
                )
            if begin.outcome == "mismatch":
                raise _ApiError(
                    422,
                    {
                        "message": "This Idempotency-Key was already used with a different"
                        " request payload",
                        "status": "422",
                    },
                )
        try:
            body = payload.get("body") if isinstance(payload, dict) else None
            if not isinstance(body, str) or not body.strip():
                code = "missing_field" if body is None else "invalid"
                raise _ApiError(
                    422,
                    {
                        "message": "Validation Failed",
                        "errors": [{"resource": "IssueComment", "code": code, "field": "body"}],
                        "documentation_url": DOCS + "/issues/comments#create-an-issue-comment",
                        "status": "422",
                    },
                )
            if self.fault is not None and self.fault.kind == "slow_commit":
                time.sleep(self.fault.delay_s)  # holding the key: a duplicate now gets 409
        except BaseException:
            if key is not None:
                self.emulator.keys.abandon(key)  # nothing was stored: the key stays free
            raise
        store = self.emulator.store
        comment = store.add_issue_comment(
            repo.full_name, pull.number, user=store.viewer, body=body, author_association="NONE"
        )
        shaped = self.emulator.shapes.issue_comment(repo, comment)
        encoded = json.dumps(shaped).encode()
        location = {"Location": shaped["url"]}
        if key is not None:
            self.emulator.keys.complete(key, StoredResponse(201, encoded, location))
        self._send(201, encoded, "application/json; charset=utf-8", location)

    def _idempotency_key(self) -> str | None:
        """The ``Idempotency-Key`` header, when the server honours keys (else ignored)."""
        mode = self.emulator.idempotency
        if mode == "off":
            return None
        key = self.headers.get("Idempotency-Key")
        if key is None:
            if mode == "required":
                raise _ApiError(
                    400, {"message": "An Idempotency-Key header is required", "status": "400"}
                )
            return None
        if re.fullmatch(ACCEPTED_KEY_HEADER_PATTERN, key) is None:
            raise _ApiError(
                400,
                {
                    "message": "The Idempotency-Key must be 1 to 255 visible ASCII characters",
                    "status": "400",
                },
            )
        self.idempotency_key = key
        return key

    def get_user(self, groups: dict[str, str | None]) -> None:
        login = groups["login"] or ""
        self._send_json(200, self.emulator.shapes.user(User(login, abs(hash(login)) % 10**8)))

    def html_page(self, groups: dict[str, str | None]) -> None:
        title = "/".join(v for k, v in groups.items() if v and k in ("owner", "name", "n"))
        page = f"<!doctype html><title>{title}</title><p>GitHub emulator: {title}</p>"
        self._send(200, page.encode(), "text/html; charset=utf-8", {})

    def graphql(self, groups: dict[str, str | None]) -> None:
        try:
            request = json.loads(self.raw_body or b"null")
            if not isinstance(request, dict) or not isinstance(request.get("query"), str):
                raise _GraphQLError("A query attribute must be specified and must be a string.")
            variables = request.get("variables") or {}
            fields = _parse_query(request["query"], variables)
            self._send_json(200, {"data": self.emulator.graphql.execute(fields)})
        except ValueError:
            raise _ApiError(
                400,
                {"message": "Problems parsing JSON", "documentation_url": DOCS, "status": "400"},
            ) from None
        except _GraphQLError as error:
            self._send_json(200, {"errors": [{"message": str(error)}]})


@contextmanager
def serve(
    store: GitHubStore,
    *,
    token: str | None = None,
    rate_limit: int | None = None,
    faults: FaultPlan | None = None,
    idempotency: IdempotencyMode = "off",
    idempotency_window_s: float = DEFAULT_WINDOW_S,
) -> Iterator[ServiceHandle]:
    """Serve ``store`` on a free port of 127.0.0.1 until the ``with`` block ends.

    ``token``: when given, every request needs ``Authorization: token <token>`` (or
    ``Bearer``), else 401. ``rate_limit``: when given, requests beyond it get GitHub's 403;
    otherwise the headers count down from 5000 and nothing is refused.

    ``faults``: a :class:`~tutorial_lib.emulator.faults.FaultPlan` applied to matching requests
    (clients pass ``transport=handle.transport()``). ``idempotency``: ``"off"`` (GitHub:
    the ``Idempotency-Key`` header is ignored), ``"optional"`` (honoured when sent) or
    ``"required"`` (a comment write without it gets 400); keys are kept
    ``idempotency_window_s`` seconds after completion.

    On exit the listening socket is closed, open keep-alive connections are cut and the
    thread joined.
    """
    _check_idempotency_mode(idempotency)  # before any socket is opened
    settings = (store, token, rate_limit, faults, idempotency, idempotency_window_s)
    server = _Server(lambda base_url: _emulator(*settings, base_url))
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    )
    thread.start()
    emulator = server.emulator
    try:
        yield ServiceHandle(
            emulator.base_url, server.server_address[1], store, thread, faults, emulator.served
        )
    finally:
        server.shutdown()
        server.close_open_connections()
        server.server_close()
        thread.join(timeout=5)


# -- without sockets -------------------------------------------------------------------------

#: Where :func:`serve_in_process` says it lives: the ``.invalid`` top-level domain never
#: resolves, so a client given this URL without the in-process transport fails at once.
IN_PROCESS_BASE_URL = "http://github-emulator.invalid"
#: How long the end of :func:`serve_in_process` waits for slow commits still running.
_LATE_REQUEST_TIMEOUT_S = 30.0


class _InProcessServer(BaseServer):
    """Stands where the socket server would, for a handler run in process."""

    def __init__(self, emulator: _Emulator) -> None:
        # the class is never used to make handlers: InProcessTransport makes them itself
        super().__init__(("in-process", 0), _Handler)
        self.emulator = emulator
        #: Requests still running on a worker thread (slow commits the client gave up on).
        self.running: list[_Exchange] = []
        self.running_lock = threading.Lock()

    def finish_running(self, timeout_s: float) -> None:
        """Wait for requests still on a worker (at most ``timeout_s`` in all); re-raise the
        first one that failed: a late bug of the emulator must not vanish."""
        deadline = time.monotonic() + timeout_s
        with self.running_lock:
            running, self.running = self.running, []
        for exchange in running:
            if not exchange.done.wait(max(0.0, deadline - time.monotonic())):
                raise RuntimeError("a slow request of the in-process emulator did not finish")
        for exchange in running:
            if exchange.error is not None:
                raise exchange.error


class _InProcessHandler(_Handler):
    """The emulator's request handling on bytes in memory: no socket, and the two faults
    that act on a connection become facts the transport turns into httpx's errors."""

    def __init__(self, raw_request: bytes, server: _InProcessServer) -> None:
        # What BaseRequestHandler.__init__ does, minus the socket it would be given.
        self.raw_request = raw_request
        self.reset = False  # commit_then_reset: no answer, the connection was cut
        self.held_s = 0.0  # commit_then_timeout: the answer is held back this long
        self.answer = b""
        self.client_address = ("in-process", 0)
        self.server = server
        self.setup()
        try:
            self.handle()
        finally:
            self.finish()

    def setup(self) -> None:
        self.rfile = io.BytesIO(self.raw_request)
        self.wfile = io.BytesIO()

    def finish(self) -> None:
        assert isinstance(self.wfile, io.BytesIO)
        self.answer = self.wfile.getvalue()

    def _hold_answer(self, delay_s: float) -> None:
        self.held_s = delay_s  # the transport decides: the client's timeout may come first

    def _reset_connection(self) -> None:
        self.close_connection = True
        self.reset = True


@dataclass
class _Exchange:
    """One request handled (in the caller's thread or a worker); ``done`` once it is over."""

    server: _InProcessServer
    raw_request: bytes
    done: threading.Event = field(default_factory=threading.Event)
    handler: _InProcessHandler | None = None
    error: BaseException | None = None

    def run(self) -> None:
        try:
            self.handler = _InProcessHandler(self.raw_request, self.server)
        except BaseException as exc:  # a bug of the emulator: re-raised in the client
            self.error = exc
        finally:
            self.done.set()


class InProcessTransport(httpx.BaseTransport):
    """An httpx transport that hands every request to the emulator's request handling
    directly: no socket, no port, no server thread, the fault plan applied as over HTTP.

    What a client sees is what it sees over HTTP, minus the waiting:

    - a ``refuse`` step raises ``httpx.ConnectError`` (nothing reached the server);
    - ``commit_then_reset``: the comment is stored, then ``httpx.ReadError`` (connection
      reset, no answer);
    - ``commit_then_timeout``: the comment is stored and the answer held ``delay_s``; when
      that is longer than the client's read timeout, ``httpx.ReadTimeout`` is raised at
      once (the server has already done all it will do, so waiting out the timeout would
      change nothing but the wall time), else the answer comes after ``delay_s``;
    - ``slow_commit``: while the plan still holds such a step, requests run on a worker
      thread and the client waits no longer than its read timeout (``httpx.ReadTimeout``);
      the slow commit then lands later, and a request meanwhile sees it in flight, exactly
      as over HTTP.

    Every other request runs to its end in the caller's thread, so it never times out.
    """

    def __init__(self, server: _InProcessServer) -> None:
        self._server = server

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Handle one request in process; see the class docstring."""
        faults = self._server.emulator.faults
        if faults is not None and faults.take_refusal(request.method, request.url.path):
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        exchange = _Exchange(self._server, _raw_request(request))
        timeout_s = request.extensions.get("timeout", {}).get("read")
        if faults is not None and faults.pending("slow_commit"):
            # only a slow commit outlives the client's patience: it needs its own thread
            with self._server.running_lock:
                self._server.running.append(exchange)
            threading.Thread(target=exchange.run, daemon=True).start()
            if not exchange.done.wait(timeout_s):
                raise httpx.ReadTimeout("timed out", request=request)  # it lands later
        else:
            exchange.run()
        if exchange.error is not None:
            raise exchange.error
        handler = exchange.handler
        assert handler is not None
        if handler.reset:
            raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)
        if handler.held_s:
            if timeout_s is not None and handler.held_s >= timeout_s:
                raise httpx.ReadTimeout("timed out", request=request)
            time.sleep(handler.held_s)
        return _parse_response(handler.answer, request)


def _raw_request(request: httpx.Request) -> bytes:
    """``request`` as the bytes an HTTP/1.1 client would send."""
    body = request.read()
    target = request.url.raw_path.decode("ascii")
    lines = [f"{request.method} {target} HTTP/1.1"]
    lines += [
        f"{name.decode('latin-1')}: {value.decode('latin-1')}"
        for name, value in request.headers.raw
    ]
    if body and "content-length" not in request.headers:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _parse_response(raw: bytes, request: httpx.Request) -> httpx.Response:
    """The bytes the handler wrote, as an ``httpx.Response``."""
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split(" ", 2)[1])
    headers = [(name, value) for name, _, value in (h.partition(": ") for h in header_lines)]
    return httpx.Response(status, headers=headers, content=body, request=request)


@dataclass(frozen=True)
class InProcessHandle:
    """What :func:`serve_in_process` yields: the same view as :class:`ServiceHandle`
    (``base_url``, ``store``, ``faults``, ``requests``), without a port or a thread."""

    base_url: str
    store: GitHubStore
    faults: FaultPlan | None
    requests: list[ServedRequest]
    server: _InProcessServer = field(repr=False)

    def transport(self) -> InProcessTransport:
        """The transport every client of this emulator needs (it is the only way in)."""
        return InProcessTransport(self.server)

    def finish_late_requests(self, timeout_s: float = _LATE_REQUEST_TIMEOUT_S) -> None:
        """Wait until every request still running (a slow commit the client gave up on)
        has landed, as the end of :func:`serve_in_process` does; re-raise a late error."""
        self.server.finish_running(timeout_s)

    def forget_idempotency_keys(self) -> None:
        """What a server restart does to its key table: every key is forgotten (the store
        keeps its comments). A keyed resend after this is a new request to the server."""
        emulator = self.server.emulator
        emulator.keys = IdempotencyKeys(emulator.keys.window_s)


@contextmanager
def serve_in_process(
    store: GitHubStore,
    *,
    token: str | None = None,
    rate_limit: int | None = None,
    faults: FaultPlan | None = None,
    idempotency: IdempotencyMode = "off",
    idempotency_window_s: float = DEFAULT_WINDOW_S,
    base_url: str = IN_PROCESS_BASE_URL,
) -> Iterator[InProcessHandle]:
    """The emulator of :func:`serve`, same options, reached without sockets.

    Clients pass ``transport=handle.transport()`` (an :class:`InProcessTransport`) and
    ``handle.base_url``. Every request runs the same handling as over HTTP; what differs is
    listed in :class:`InProcessTransport`.
    """
    _check_idempotency_mode(idempotency)
    emulator = _emulator(
        store, token, rate_limit, faults, idempotency, idempotency_window_s, base_url
    )
    server = _InProcessServer(emulator)
    try:
        yield InProcessHandle(emulator.base_url, store, faults, emulator.served, server)
    finally:
        # A slow commit still running lands (or fails loudly) before the block is over:
        # nothing changes the store after it, and a late emulator bug is not lost.
        server.finish_running(timeout_s=_LATE_REQUEST_TIMEOUT_S)
