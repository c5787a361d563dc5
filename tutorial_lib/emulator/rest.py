"""The REST endpoints of the emulator: routes, and one handler per route.

:class:`Rest` answers a :class:`~tutorial_lib.emulator.protocol.Request` that the service
has counted, authenticated and given its fault step (:mod:`tutorial_lib.emulator.app`): it
finds the route, waits out a ``slow_commit`` step, and returns the handler's
:class:`~tutorial_lib.emulator.protocol.Answer` (or raises an
:class:`~tutorial_lib.emulator.protocol.ApiError`). The endpoints, the paging rules and
the departures from GitHub's description are listed in the docstring of
:mod:`tutorial_lib.emulator.service`; ``POST /graphql`` is routed here and answered by
:class:`~tutorial_lib.emulator.graphql.GraphQL`.

The comment write (``POST .../issues/{n}/comments``) is where the idempotency keys are
wired in: with ``idempotency="optional"`` or ``"required"`` it claims the request's
``Idempotency-Key`` in the store's key table
(:meth:`~tutorial_lib.emulator.fixtures.GitHubStore.idempotency_keys`) before it stores
anything, replays a completed key's answer, and refuses a key still in flight (409) or
used for another payload (422). It stores through a :class:`CommitGate`, so that nothing
lands after the server has stopped.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from html import escape as html_escape
from typing import TypeVar
from urllib.parse import unquote, urlencode

from tutorial_lib.emulator.fixtures import (
    GitHubStore,
    IssueComment,
    PullRequest,
    Repository,
    ReviewComment,
)
from tutorial_lib.emulator.graphql import GraphQL
from tutorial_lib.emulator.idempotency import (
    ACCEPTED_KEY_HEADER_PATTERN,
    IdempotencyMode,
    StoredResponse,
    fingerprint,
)
from tutorial_lib.emulator.protocol import (
    DOCS,
    JSON_CONTENT_TYPE,
    MAX_COMMENT_CHARS,
    Answer,
    ApiError,
    Json,
    Request,
    bad_request,
    gone_meanwhile_is_404,
    not_found,
    parse_json,
    path_number,
)
from tutorial_lib.emulator.shapes import Shapes

__all__ = ["DEFAULT_PER_PAGE", "MAX_PER_PAGE", "CommitGate", "Rest"]

DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100


class CommitGate:
    """Lets writes land until :meth:`close`; after close() has returned none ever does.

    A write stores while holding the gate, so close() waits for a store under way and the
    store cannot start after it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = True

    @contextmanager
    def holding(self) -> Iterator[bool]:
        """Hold the gate for one store; yields whether storing is still allowed."""
        with self._lock:
            yield self._open

    def close(self) -> None:
        """No store may start from now on."""
        with self._lock:
            self._open = False


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


def _invalid_param(name: str, resource: str, docs: str) -> ApiError:
    return ApiError(
        422,
        {
            "message": "Validation Failed",
            "errors": [{"resource": resource, "field": name, "code": "invalid"}],
            "documentation_url": DOCS + docs,
            "status": "422",
        },
    )


def _since_param(query: dict[str, list[str]], resource: str, docs: str) -> datetime | None:
    """The ``since`` parameter as an aware datetime (ISO 8601, ``Z`` or an offset; a value
    without one is UTC), ``None`` when absent; anything else is a 422."""
    if "since" not in query:
        return None
    try:
        moment = datetime.fromisoformat(query["since"][0])
    except ValueError:
        raise _invalid_param("since", resource, docs) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _updated_since(updated_at: str, since: datetime | None) -> bool:
    """GitHub's ``since``: updated at or after that moment (the bound is included)."""
    return since is None or datetime.fromisoformat(updated_at) >= since


_Comment = TypeVar("_Comment", ReviewComment, IssueComment)


def _sorted_comments(
    comments: list[_Comment], query: dict[str, list[str]], resource: str, docs: str
) -> list[_Comment]:
    """``comments`` (ascending id) in the order ``sort``/``direction`` ask for.

    Without ``sort`` the order stays ascending id and ``direction`` is ignored, as
    documented. ``sort=created|updated`` orders by that timestamp (ties by id);
    ``direction`` is ``asc`` unless ``desc`` is given (the description states no default;
    ascending is what the list does without ``sort``). Other values are a 422.
    """
    if "sort" not in query:
        return comments
    sort = query["sort"][0]
    direction = query.get("direction", ["asc"])[0]
    if sort not in ("created", "updated"):
        raise _invalid_param("sort", resource, docs)
    if direction not in ("asc", "desc"):
        raise _invalid_param("direction", resource, docs)
    ordered = sorted(
        comments, key=lambda c: (c.created_at if sort == "created" else c.updated_at, c.id)
    )
    return ordered[::-1] if direction == "desc" else ordered


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


# -- routes ----------------------------------------------------------------------------------

_REPO = r"/(?:repos/(?P<owner>[^/]+)/(?P<name>[^/]+)|repositories/(?P<repo_id>\d+))"
#: (method, path pattern, the :class:`Rest` method that answers), first match wins.
_ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    ("GET", re.compile(_REPO + r"/?$"), "get_repository"),
    ("GET", re.compile(_REPO + r"/pulls/(?P<n>\d+)$"), "get_pull"),
    ("GET", re.compile(_REPO + r"/pulls/(?P<n>\d+)/comments$"), "list_review_comments"),
    ("GET", re.compile(_REPO + r"/pulls/comments/(?P<id>\d+)$"), "get_review_comment"),
    ("PATCH", re.compile(_REPO + r"/pulls/comments/(?P<id>\d+)$"), "edit_review_comment"),
    ("DELETE", re.compile(_REPO + r"/pulls/comments/(?P<id>\d+)$"), "delete_review_comment"),
    ("PUT", re.compile(_REPO + r"/pulls/(?P<n>\d+)/merge$"), "merge_pull"),
    ("GET", re.compile(_REPO + r"/issues/(?P<n>\d+)$"), "get_issue"),
    ("GET", re.compile(_REPO + r"/issues/(?P<n>\d+)/comments$"), "list_issue_comments"),
    ("POST", re.compile(_REPO + r"/issues/(?P<n>\d+)/comments$"), "create_issue_comment"),
    ("GET", re.compile(_REPO + r"/issues/comments/(?P<id>\d+)$"), "get_issue_comment"),
    ("PATCH", re.compile(_REPO + r"/issues/comments/(?P<id>\d+)$"), "edit_issue_comment"),
    ("DELETE", re.compile(_REPO + r"/issues/comments/(?P<id>\d+)$"), "delete_issue_comment"),
    ("GET", re.compile(r"/users/(?P<login>[^/]+)$"), "get_user"),
    ("POST", re.compile(r"/graphql$"), "post_graphql"),
    ("GET", re.compile(r"/(?P<owner>[^/]+)/(?P<name>[^/]+)/pull/(?P<n>\d+)$"), "html_page"),
    ("GET", re.compile(r"/(?P<owner>[^/]+)/(?P<name>[^/]+)$"), "html_page"),
    ("GET", re.compile(r"/(?P<owner>[^/]+)$"), "html_page"),
]


class Rest:
    """The REST endpoints over one store, with URLs under ``base_url``.

    ``idempotency`` is the comment write's use of ``Idempotency-Key`` (``"off"``: ignored,
    as on GitHub); the keys are kept in the store's table, ``window_s`` seconds after
    completion. Writes land only while ``commits`` is open.
    """

    def __init__(
        self,
        store: GitHubStore,
        base_url: str,
        idempotency: IdempotencyMode,
        window_s: float,
        commits: CommitGate,
    ) -> None:
        self.store = store
        self.base_url = base_url
        self.idempotency = idempotency
        self.window_s = window_s
        self.commits = commits
        self.shapes = Shapes(base_url, store)
        self.graphql = GraphQL(store, self.shapes)

    def handle(self, request: Request) -> Answer:
        """The answer of the route ``request`` matches (404 if none does)."""
        for route_method, pattern, action in _ROUTES:
            match = pattern.match(request.path)
            if match and route_method == request.method:
                fault = request.fault
                slow = fault is not None and fault.kind == "slow_commit"
                if slow and action != "create_issue_comment":  # that one waits after its key
                    time.sleep(fault.delay_s)  # type: ignore[union-attr]
                answer: Answer = getattr(self, action)(request, match.groupdict())
                return answer
        raise not_found()

    # -- lookups -----------------------------------------------------------------------------

    def _repo(self, groups: dict[str, str | None]) -> Repository:
        if groups.get("repo_id"):
            repo_id = path_number(groups["repo_id"])
            repo = None if repo_id is None else self.store.repository_by_id(repo_id)
        else:
            repo = self.store.repository(f"{groups['owner']}/{groups['name']}")
        if repo is None:
            raise not_found()
        return repo

    def _pull(self, groups: dict[str, str | None]) -> tuple[Repository, PullRequest]:
        repo = self._repo(groups)
        number = path_number(groups["n"])
        pull = None if number is None else self.store.pull_request(repo.full_name, number)
        if pull is None:
            raise not_found()
        return repo, pull

    def _page(
        self, request: Request, repo: Repository, suffix: str, items: list[Json], total: int
    ) -> Answer:
        page, per_page = _page_window(request.query)
        list_url = f"{self.base_url}/repositories/{repo.id}/{suffix}"
        link = _link_header(list_url, request.query, page, per_page, total)
        return Answer.json(200, items, {"Link": link} if link else {})

    # -- endpoints ---------------------------------------------------------------------------

    def get_repository(self, request: Request, groups: dict[str, str | None]) -> Answer:
        return Answer.json(200, self.shapes.full_repository(self._repo(groups)))

    def get_pull(self, request: Request, groups: dict[str, str | None]) -> Answer:
        repo, pull = self._pull(groups)
        return Answer.json(200, self.shapes.pull(repo, pull))

    def get_issue(self, request: Request, groups: dict[str, str | None]) -> Answer:
        repo, pull = self._pull(groups)
        count = len(self.store.issue_comments(repo.full_name, pull.number))
        return Answer.json(200, self.shapes.issue(repo, pull, count))

    def list_review_comments(self, request: Request, groups: dict[str, str | None]) -> Answer:
        repo, pull = self._pull(groups)
        query = request.query
        page, per_page = _page_window(query)
        start = (page - 1) * per_page
        store = self.store
        docs = "/pulls/comments#list-review-comments-on-a-pull-request"
        since = _since_param(query, "PullRequestReviewComment", docs)
        if since is None and "sort" not in query:  # the common case: no full copy
            window, total = store.review_comment_slice(
                repo.full_name, pull.number, start, start + per_page
            )
        else:
            chosen = [
                c
                for c in store.review_comments(repo.full_name, pull.number)
                if _updated_since(c.updated_at, since)
            ]
            chosen = _sorted_comments(chosen, query, "PullRequestReviewComment", docs)
            window, total = chosen[start : start + per_page], len(chosen)
        items = [self.shapes.review_comment(repo, c) for c in window]
        return self._page(request, repo, f"pulls/{pull.number}/comments", items, total)

    def list_issue_comments(self, request: Request, groups: dict[str, str | None]) -> Answer:
        repo, pull = self._pull(groups)
        docs = "/issues/comments#list-issue-comments"
        since = _since_param(request.query, "IssueComment", docs)
        comments = [
            c
            for c in self.store.issue_comments(repo.full_name, pull.number)
            if _updated_since(c.updated_at, since)
        ]  # always ascending id: this list has no sort parameter
        page, per_page = _page_window(request.query)
        window = comments[(page - 1) * per_page : page * per_page]
        items = [self.shapes.issue_comment(repo, c) for c in window]
        return self._page(request, repo, f"issues/{pull.number}/comments", items, len(comments))

    def get_review_comment(self, request: Request, groups: dict[str, str | None]) -> Answer:
        repo = self._repo(groups)
        comment_id = path_number(groups["id"])
        store = self.store
        comment = None if comment_id is None else store.review_comment(repo.full_name, comment_id)
        if comment is None:
            raise not_found()
        return Answer.json(200, self.shapes.review_comment(repo, comment))

    def get_issue_comment(self, request: Request, groups: dict[str, str | None]) -> Answer:
        repo = self._repo(groups)
        comment_id = path_number(groups["id"])
        store = self.store
        comment = None if comment_id is None else store.issue_comment(repo.full_name, comment_id)
        if comment is None:
            raise not_found()
        return Answer.json(200, self.shapes.issue_comment(repo, comment))

    def _edited_body(self, request: Request, resource: str, docs: str) -> str:
        """The ``body`` of a PATCH of a comment: a non-empty string, else GitHub's 422."""
        payload = parse_json(request.raw_body)
        body = payload.get("body") if isinstance(payload, dict) else None
        if isinstance(body, str) and body.strip() and len(body) <= MAX_COMMENT_CHARS:
            return body
        code = "missing_field" if body is None else "invalid"
        raise ApiError(
            422,
            {
                "message": "Validation Failed",
                "errors": [{"resource": resource, "code": code, "field": "body"}],
                "documentation_url": DOCS + docs,
                "status": "422",
            },
        )

    def _review_comment_of(self, groups: dict[str, str | None]) -> tuple[Repository, int]:
        repo = self._repo(groups)
        comment_id = path_number(groups["id"])
        if comment_id is None or self.store.review_comment(repo.full_name, comment_id) is None:
            raise not_found()
        return repo, comment_id

    def _issue_comment_of(self, groups: dict[str, str | None]) -> tuple[Repository, int]:
        repo = self._repo(groups)
        comment_id = path_number(groups["id"])
        if comment_id is None or self.store.issue_comment(repo.full_name, comment_id) is None:
            raise not_found()
        return repo, comment_id

    def edit_review_comment(self, request: Request, groups: dict[str, str | None]) -> Answer:
        repo, comment_id = self._review_comment_of(groups)
        docs = "/pulls/comments#update-a-review-comment-for-a-pull-request"
        body = self._edited_body(request, "PullRequestReviewComment", docs)
        with gone_meanwhile_is_404():
            edited = self.store.edit_comment(comment_id, body)
        assert isinstance(edited, ReviewComment)
        return Answer.json(200, self.shapes.review_comment(repo, edited))

    def delete_review_comment(self, request: Request, groups: dict[str, str | None]) -> Answer:
        _, comment_id = self._review_comment_of(groups)
        with gone_meanwhile_is_404():
            self.store.delete_comment(comment_id)
        return Answer(204, b"")

    def edit_issue_comment(self, request: Request, groups: dict[str, str | None]) -> Answer:
        repo, comment_id = self._issue_comment_of(groups)
        docs = "/issues/comments#update-an-issue-comment"
        body = self._edited_body(request, "IssueComment", docs)
        with gone_meanwhile_is_404():
            edited = self.store.edit_comment(comment_id, body)
        assert isinstance(edited, IssueComment)
        return Answer.json(200, self.shapes.issue_comment(repo, edited))

    def delete_issue_comment(self, request: Request, groups: dict[str, str | None]) -> Answer:
        _, comment_id = self._issue_comment_of(groups)
        with gone_meanwhile_is_404():
            self.store.delete_comment(comment_id)
        return Answer(204, b"")

    def merge_pull(self, request: Request, groups: dict[str, str | None]) -> Answer:
        """``PUT .../pulls/{n}/merge``: 200 ``{sha, merged, message}``; 405 when the PR
        cannot be merged (already merged, closed, conflicts), 409 when ``sha`` is not the
        head any more, 422 for an unknown ``merge_method``, as on GitHub."""
        repo, pull = self._pull(groups)
        docs = DOCS + "/pulls/pulls#merge-a-pull-request"
        payload = parse_json(request.raw_body) if request.raw_body.strip() else {}
        if not isinstance(payload, dict):
            raise bad_request(400, "Problems parsing JSON", docs)
        method = payload.get("merge_method", "merge")
        if method not in ("merge", "squash", "rebase"):
            error = {"resource": "PullRequest", "code": "invalid", "field": "merge_method"}
            raise ApiError(
                422,
                {
                    "message": "Validation Failed",
                    "errors": [error],
                    "documentation_url": docs,
                    "status": "422",
                },
            )
        sha = payload.get("sha")
        if sha is not None and sha != pull.head_sha:
            message = "Head branch was modified. Review and try the merge again."
            raise ApiError(409, {"message": message, "documentation_url": docs, "status": "409"})
        try:
            merged = self.store.merge_pull(repo.full_name, pull.number)
        except ValueError:
            message = "Pull Request is not mergeable"
            raise ApiError(
                405, {"message": message, "documentation_url": docs, "status": "405"}
            ) from None
        answer = {
            "sha": merged.merge_commit_sha,
            "merged": True,
            "message": "Pull Request successfully merged",
        }
        return Answer.json(200, answer)

    def create_issue_comment(self, request: Request, groups: dict[str, str | None]) -> Answer:
        repo, pull = self._pull(groups)
        payload = parse_json(request.raw_body)  # 400 before a key is claimed
        key = self._idempotency_key(request)
        # one table for the whole request, even if the store's is replaced meanwhile
        keys = self.store.idempotency_keys(self.window_s) if key is not None else None
        if keys is not None and key is not None:
            path = f"/repositories/{repo.id}/issues/{pull.number}/comments"
            begin = keys.begin(key, fingerprint("POST", path, payload))
            if begin.outcome == "replay":
                assert begin.response is not None
                request.replayed = True
                stored = begin.response
                headers = {**stored.headers, "Idempotent-Replayed": "true"}
                return Answer(stored.status, stored.body, JSON_CONTENT_TYPE, headers)
            if begin.outcome == "in_progress":
                raise ApiError(
                    409,
                    {
                        "message": "A request with this Idempotency-Key is still being"
                        " processed; retry later",
                        "status": "409",
                    },
                )
            if begin.outcome == "mismatch":
                raise ApiError(
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
                raise ApiError(
                    422,
                    {
                        "message": "Validation Failed",
                        "errors": [{"resource": "IssueComment", "code": code, "field": "body"}],
                        "documentation_url": DOCS + "/issues/comments#create-an-issue-comment",
                        "status": "422",
                    },
                )
            if len(body) > MAX_COMMENT_CHARS:
                too_long = f"Body is too long (maximum is {MAX_COMMENT_CHARS} characters)"
                raise ApiError(
                    422,
                    {
                        "message": "Validation Failed",
                        "errors": [
                            {
                                "resource": "IssueComment",
                                "code": "custom",
                                "field": "body",
                                "message": too_long,
                            }
                        ],
                        "documentation_url": DOCS + "/issues/comments#create-an-issue-comment",
                        "status": "422",
                    },
                )
            fault = request.fault
            if fault is not None and fault.kind == "slow_commit":
                time.sleep(fault.delay_s)  # holding the key: a duplicate now gets 409
            comment = self._store_comment(repo, pull, body)
        except BaseException:
            if keys is not None and key is not None:
                keys.abandon(key)  # nothing was stored: the key stays free
            raise
        shaped = self.shapes.issue_comment(repo, comment)
        encoded = json.dumps(shaped).encode()
        location = {"Location": shaped["url"]}
        if keys is not None and key is not None:
            keys.complete(key, StoredResponse(201, encoded, location))
        return Answer(201, encoded, JSON_CONTENT_TYPE, location)

    def _store_comment(self, repo: Repository, pull: PullRequest, body: str) -> IssueComment:
        """Store the comment, unless the server has stopped meanwhile (a slow commit the
        end of serve() gave up waiting for): then 503 and nothing is stored, ever."""
        store = self.store
        with self.commits.holding() as still_open:
            if not still_open:
                raise ApiError(
                    503,
                    {
                        "message": "The server stopped before this write was stored",
                        "documentation_url": DOCS,
                        "status": "503",
                    },
                )
            return store.add_issue_comment(
                repo.full_name, pull.number, user=store.viewer, body=body, author_association="NONE"
            )

    def _idempotency_key(self, request: Request) -> str | None:
        """The ``Idempotency-Key`` header, when the server honours keys (else ignored)."""
        mode = self.idempotency
        if mode == "off":
            return None
        key = request.headers.get("Idempotency-Key")
        if key is None:
            if mode == "required":
                raise ApiError(
                    400, {"message": "An Idempotency-Key header is required", "status": "400"}
                )
            return None
        if re.fullmatch(ACCEPTED_KEY_HEADER_PATTERN, key) is None:
            raise ApiError(
                400,
                {
                    "message": "The Idempotency-Key must be 1 to 255 visible ASCII characters",
                    "status": "400",
                },
            )
        request.idempotency_key = key
        return key

    def get_user(self, request: Request, groups: dict[str, str | None]) -> Answer:
        user = self.store.user(unquote(groups["login"] or ""))
        if user is None:
            raise not_found()  # GitHub: 404 for a login it does not know
        return Answer.json(200, self.shapes.public_user(user))

    def html_page(self, request: Request, groups: dict[str, str | None]) -> Answer:
        path = "/".join(v for k, v in groups.items() if v and k in ("owner", "name", "n"))
        title = html_escape(path)  # the path is the client's text: never markup
        page = f"<!doctype html><title>{title}</title><p>GitHub emulator: {title}</p>"
        return Answer(200, page.encode(), "text/html; charset=utf-8")

    def post_graphql(self, request: Request, groups: dict[str, str | None]) -> Answer:
        return self.graphql.answer(request.raw_body)
