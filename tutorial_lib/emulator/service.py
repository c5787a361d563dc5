"""A GitHub REST (and minimal GraphQL) emulator over real HTTP on 127.0.0.1.

    with serve(build_store(), token="t0ken") as handle:
        httpx.get(f"{handle.base_url}/repos/example/shop/pulls/128/comments",
                  headers={"Authorization": "Bearer t0ken"})

Standard library only (``http.server.ThreadingHTTPServer`` in a daemon thread), one free port
per :func:`serve`, no logging to stderr, clean shutdown when the ``with`` block ends. The
shapes follow GitHub's REST API version 2022-11-28: every object has each field GitHub's
published description requires (tests/test_emulator_conformance.py validates every shape
against schemas extracted from it by tools/extract_github_schemas.py), so strict clients
such as githubkit work unchanged, and so does PyGithub.

REST endpoints (``{repo}`` is ``repos/{owner}/{name}`` or ``repositories/{id}``, as in the
``Link`` headers of real GitHub)::

    GET  /{repo}                              a repository
    GET  /{repo}/pulls/{n}                    a pull request
    GET  /{repo}/pulls/{n}/comments           review comments, paged
    GET  /{repo}/pulls/comments/{id}          one review comment
    PATCH /{repo}/pulls/comments/{id}         {"body": ...} -> 200, the edited comment
    DELETE /{repo}/pulls/comments/{id}        -> 204 (leaves its thread; id never reused)
    PUT  /{repo}/pulls/{n}/merge              -> 200 {"sha", "merged", "message"}; 405 if
                                              not mergeable (merged, closed), 409 if "sha"
                                              is not the head, 422 bad "merge_method"
    GET  /{repo}/issues/{n}                   the PR as an issue
    GET  /{repo}/issues/{n}/comments          conversation comments, paged
    POST /{repo}/issues/{n}/comments          {"body": ...} -> 201 + Location
    GET  /{repo}/issues/comments/{id}         one conversation comment
    PATCH /{repo}/issues/comments/{id}        {"body": ...} -> 200, the edited comment
    DELETE /{repo}/issues/comments/{id}       -> 204
    GET  /users/{login}                       an account of the store (else 404)
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
ascending id and carry a ``Link`` header (``next``/``prev``/``first``/``last``, every other
query parameter kept); a page past the end is ``[]``. Both lists take ``since`` (ISO 8601:
only comments updated at or after it). Review comments also take ``sort`` (``created`` or
``updated``, ties by id) and ``direction`` (``asc`` or ``desc``; ignored without ``sort``,
as documented; ``asc`` when absent, the emulator's choice: the description names no
default). An invalid ``since``, ``sort`` or ``direction`` is a 422.

Where GitHub's description and the real service disagree, the emulator does what the
service does. Every such choice is a row of this table, and the conformance test accepts
exactly these departures from the description (each row must still be needed)::

    | schema                      | field    | description | GitHub and the emulator       |
    |-----------------------------|----------|-------------|-------------------------------|
    | pull-request-review-comment | line     | integer     | null on an outdated comment   |
    | pull-request-review-comment | position | integer     | null on an outdated comment   |

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
import hashlib
import io
import json
import re
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime, timezone
from html import escape as html_escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import BaseServer
from typing import Any, Literal, TypeVar
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

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
#: GitHub's limit on a comment body, in characters (a longer one gets 422).
MAX_COMMENT_CHARS = 65_536
#: The largest request body read, in bytes (413 above it): a comment of MAX_COMMENT_CHARS
#: fits even with every character JSON-escaped as ``\\uXXXX``.
_MAX_BODY_BYTES = 1 << 20
#: JSON nested deeper than this is refused with 400 (GitHub's Ruby JSON parser stops at 100).
_MAX_JSON_DEPTH = 100
#: The longest chunk-size line and the most trailer lines of a chunked body.
_MAX_CHUNK_LINE = 1024
_MAX_TRAILERS = 100
#: The listen backlog. socketserver's default of 5 overflows when a few dozen clients
#: connect at once: the kernel drops (or resets) the connection attempts it cannot queue.
_LISTEN_BACKLOG = 1024
#: How long a connection may take to send a whole request (from the end of the previous
#: answer, so idle keep-alive time counts), and how long the end of serve() waits for
#: requests still running before it cancels their writes.
DEFAULT_IDLE_TIMEOUT_S = 30.0
DEFAULT_DRAIN_TIMEOUT_S = 30.0
#: How long a connection refused for its framing is read (and the bytes dropped) after the
#: answer, so that closing it with unread input does not reset it before the client reads.
_LINGER_S = 1.0
_GRAPHQL_DOCS = "https://docs.github.com/graphql"
#: When every account of the emulator was created (``public-user.created_at``).
_ACCOUNTS_CREATED_AT = "2019-06-01T12:00:00Z"

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


@contextmanager
def _gone_meanwhile_is_404() -> Iterator[None]:
    """A comment another request deleted between the lookup and the change: 404, as if
    the lookup had come after (the store raises KeyError)."""
    try:
        yield
    except KeyError:
        raise _not_found() from None


# -- JSON shapes -----------------------------------------------------------------------------


class _Shapes:
    """Turns store records into GitHub-shaped JSON with URLs under ``base``.

    Each object has every field the REST description (2022-11-28) requires of it and the
    optional ones GitHub sends too (``reactions``, ``user_view_type``...), in GitHub's
    order; the counters (``comments``, ``review_comments``, ``open_issues_count``) are
    counted in ``store`` at the time of the request. Where the description and the service
    disagree, the service wins: see the module docstring's table.
    """

    def __init__(self, base: str, store: GitHubStore) -> None:
        self.base = base
        self.store = store
        self.host = urlsplit(base).netloc

    def user(self, user: User) -> dict[str, Any]:
        """A ``simple-user``."""
        # GitHub percent-encodes the brackets of a bot login in its API URLs
        url = f"{self.base}/users/{quote(user.login)}"
        return {
            "login": user.login,
            "id": user.id,
            "node_id": _node_id("U", user.id),
            "avatar_url": f"{self.base}/avatars/u/{user.id}?v=4",
            "gravatar_id": "",
            "url": url,
            "html_url": self.user_html_url(user),
            "followers_url": url + "/followers",
            "following_url": url + "/following{/other_user}",
            "gists_url": url + "/gists{/gist_id}",
            "starred_url": url + "/starred{/owner}{/repo}",
            "subscriptions_url": url + "/subscriptions",
            "organizations_url": url + "/orgs",
            "repos_url": url + "/repos",
            "events_url": url + "/events{/privacy}",
            "received_events_url": url + "/received_events",
            "type": user.type,
            "user_view_type": "public",
            "site_admin": False,
        }

    def user_html_url(self, user: User) -> str:
        """A bot's page is its app's (``/apps/codecov``), anyone else's is ``/<login>``."""
        if user.type == "Bot" and user.login.endswith("[bot]"):
            return f"{self.base}/apps/{user.login.removesuffix('[bot]')}"
        return f"{self.base}/{user.login}"

    def public_user(self, user: User) -> dict[str, Any]:
        """A ``public-user`` (``GET /users/{login}``): the profile fields, none of them set."""
        public_repos = sum(r.owner.login == user.login for r in self.store.repositories())
        return {
            **self.user(user),
            "name": None,
            "company": None,
            "blog": "",
            "location": None,
            "email": None,
            "hireable": None,
            "bio": None,
            "twitter_username": None,
            "public_repos": public_repos,
            "public_gists": 0,
            "followers": 0,
            "following": 0,
            "created_at": _ACCOUNTS_CREATED_AT,
            "updated_at": _ACCOUNTS_CREATED_AT,
        }

    def repo_url(self, repo: Repository) -> str:
        return f"{self.base}/repos/{repo.full_name}"

    def repository(self, repo: Repository) -> dict[str, Any]:
        """A ``repository`` (as in a PR's ``head.repo`` and ``base.repo``)."""
        url = self.repo_url(repo)
        html = f"{self.base}/{repo.full_name}"
        open_issues = sum(p.state == "open" for p in self.store.pull_requests(repo.full_name))
        return {
            "id": repo.id,
            "node_id": _node_id("R", repo.id),
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.private,
            "owner": self.user(repo.owner),
            "html_url": html,
            "description": repo.description,
            "fork": False,
            "url": url,
            "forks_url": url + "/forks",
            "keys_url": url + "/keys{/key_id}",
            "collaborators_url": url + "/collaborators{/collaborator}",
            "teams_url": url + "/teams",
            "hooks_url": url + "/hooks",
            "issue_events_url": url + "/issues/events{/number}",
            "events_url": url + "/events",
            "assignees_url": url + "/assignees{/user}",
            "branches_url": url + "/branches{/branch}",
            "tags_url": url + "/tags",
            "blobs_url": url + "/git/blobs{/sha}",
            "git_tags_url": url + "/git/tags{/sha}",
            "git_refs_url": url + "/git/refs{/sha}",
            "trees_url": url + "/git/trees{/sha}",
            "statuses_url": url + "/statuses/{sha}",
            "languages_url": url + "/languages",
            "stargazers_url": url + "/stargazers",
            "contributors_url": url + "/contributors",
            "subscribers_url": url + "/subscribers",
            "subscription_url": url + "/subscription",
            "commits_url": url + "/commits{/sha}",
            "git_commits_url": url + "/git/commits{/sha}",
            "comments_url": url + "/comments{/number}",
            "issue_comment_url": url + "/issues/comments{/number}",
            "contents_url": url + "/contents/{+path}",
            "compare_url": url + "/compare/{base}...{head}",
            "merges_url": url + "/merges",
            "archive_url": url + "/{archive_format}{/ref}",
            "downloads_url": url + "/downloads",
            "issues_url": url + "/issues{/number}",
            "pulls_url": url + "/pulls{/number}",
            "milestones_url": url + "/milestones{/number}",
            "notifications_url": url + "/notifications{?since,all,participating}",
            "labels_url": url + "/labels{/name}",
            "releases_url": url + "/releases{/id}",
            "deployments_url": url + "/deployments",
            "created_at": repo.created_at,
            "updated_at": repo.updated_at,
            "pushed_at": repo.pushed_at,
            "git_url": f"git://{self.host}/{repo.full_name}.git",
            "ssh_url": f"git@{self.host}:{repo.full_name}.git",
            "clone_url": html + ".git",
            "svn_url": html,
            "homepage": None,
            "size": 0,
            "stargazers_count": 0,
            "watchers_count": 0,
            "language": repo.language,
            "has_issues": True,
            "has_projects": True,
            "has_downloads": True,
            "has_wiki": True,
            "has_pages": False,
            "has_discussions": False,
            "forks_count": 0,
            "mirror_url": None,
            "archived": False,
            "disabled": False,
            "open_issues_count": open_issues,
            "license": None,
            "allow_forking": True,
            "is_template": False,
            "web_commit_signoff_required": False,
            "topics": [],
            "visibility": "private" if repo.private else "public",
            "forks": 0,
            "open_issues": open_issues,
            "watchers": 0,
            "default_branch": repo.default_branch,
        }

    def full_repository(self, repo: Repository) -> dict[str, Any]:
        """A ``full-repository`` (``GET /repos/{owner}/{repo}``)."""
        shaped = self.repository(repo)
        if repo.owner.type == "Organization":
            shaped["organization"] = self.user(repo.owner)
        return {**shaped, "network_count": 0, "subscribers_count": 0}

    def pull(self, repo: Repository, pull: PullRequest) -> dict[str, Any]:
        """A ``pull-request`` (``GET .../pulls/{n}``), its counters counted now."""
        url = f"{self.repo_url(repo)}/pulls/{pull.number}"
        issue_url = f"{self.repo_url(repo)}/issues/{pull.number}"
        html = f"{self.base}/{repo.full_name}/pull/{pull.number}"
        review_comment_url = f"{self.repo_url(repo)}/pulls/comments{{/number}}"
        statuses_url = f"{self.repo_url(repo)}/statuses/{pull.head_sha}"
        repo_json = self.repository(repo)
        comments = len(self.store.issue_comments(repo.full_name, pull.number))
        review_comments = len(self.store.review_comments(repo.full_name, pull.number))
        # an open PR's merge_commit_sha is GitHub's test merge: any stable 40-hex sha will do
        test_merge = hashlib.sha1(f"{pull.base_sha}+{pull.head_sha}".encode()).hexdigest()

        def branch(ref: str, sha: str) -> dict[str, Any]:
            return {
                "label": f"{repo.owner.login}:{ref}",
                "ref": ref,
                "sha": sha,
                "user": self.user(repo.owner),
                "repo": repo_json,
            }

        return {
            "url": url,
            "id": pull.id,
            "node_id": _node_id("PR", pull.id),
            "html_url": html,
            "diff_url": html + ".diff",
            "patch_url": html + ".patch",
            "issue_url": issue_url,
            "number": pull.number,
            "state": pull.state,
            "locked": False,
            "title": pull.title,
            "user": self.user(pull.user),
            "body": pull.body,
            "created_at": pull.created_at,
            "updated_at": pull.updated_at,
            "closed_at": pull.merged_at,
            "merged_at": pull.merged_at,
            "merge_commit_sha": pull.merge_commit_sha or test_merge,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "labels": [],
            "milestone": None,
            "draft": False,
            "commits_url": url + "/commits",
            "review_comments_url": url + "/comments",
            "review_comment_url": review_comment_url,
            "comments_url": issue_url + "/comments",
            "statuses_url": statuses_url,
            "head": branch(pull.head_ref, pull.head_sha),
            "base": branch(pull.base_ref, pull.base_sha),
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "issue": {"href": issue_url},
                "comments": {"href": issue_url + "/comments"},
                "review_comments": {"href": url + "/comments"},
                "review_comment": {"href": review_comment_url},
                "commits": {"href": url + "/commits"},
                "statuses": {"href": statuses_url},
            },
            "author_association": "CONTRIBUTOR",
            "auto_merge": None,
            "active_lock_reason": None,
            "merged": pull.merged_at is not None,
            "mergeable": pull.mergeable,
            "rebaseable": pull.mergeable,
            "mergeable_state": pull.mergeable_state,
            # the emulator's merges are all made by its viewer (the token's account)
            "merged_by": None if pull.merged_at is None else self.user(self.store.viewer),
            "comments": comments,
            "review_comments": review_comments,
            "maintainer_can_modify": False,
            "commits": pull.commits,
            "additions": pull.additions,
            "deletions": pull.deletions,
            "changed_files": pull.changed_files,
        }

    def issue(self, repo: Repository, pull: PullRequest, n_comments: int) -> dict[str, Any]:
        """An ``issue`` (``GET .../issues/{n}``): the PR seen as an issue."""
        issue_url = f"{self.repo_url(repo)}/issues/{pull.number}"
        html = f"{self.base}/{repo.full_name}/pull/{pull.number}"
        return {
            "url": issue_url,
            "repository_url": self.repo_url(repo),
            "labels_url": issue_url + "/labels{/name}",
            "comments_url": issue_url + "/comments",
            "events_url": issue_url + "/events",
            "html_url": html,
            "id": pull.id + 1,
            "node_id": _node_id("I", pull.id),
            "number": pull.number,
            "title": pull.title,
            "user": self.user(pull.user),
            "labels": [],
            "state": pull.state,
            "locked": False,
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "comments": n_comments,
            "created_at": pull.created_at,
            "updated_at": pull.updated_at,
            "closed_at": pull.merged_at,
            "author_association": "CONTRIBUTOR",
            "active_lock_reason": None,
            "draft": False,
            "pull_request": {
                "url": f"{self.repo_url(repo)}/pulls/{pull.number}",
                "html_url": html,
                "diff_url": html + ".diff",
                "patch_url": html + ".patch",
                "merged_at": pull.merged_at,
            },
            "body": pull.body,
            "closed_by": None,
            "reactions": self.reactions(issue_url),
            "timeline_url": issue_url + "/timeline",
            "performed_via_github_app": None,
            "state_reason": None,
        }

    def reactions(self, subject_url: str) -> dict[str, Any]:
        """A ``reaction-rollup``: nobody reacts in this emulator."""
        counts = dict.fromkeys(("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket"), 0)
        return {"url": subject_url + "/reactions", "total_count": 0, **counts, "eyes": 0}

    def review_comment(self, repo: Repository, c: ReviewComment) -> dict[str, Any]:
        """A ``pull-request-review-comment``; an outdated one has ``line`` and ``position``
        ``null``, as on GitHub."""
        url = f"{self.repo_url(repo)}/pulls/comments/{c.id}"
        pull_url = f"{self.repo_url(repo)}/pulls/{c.pr}"
        html = f"{self.base}/{repo.full_name}/pull/{c.pr}#discussion_r{c.id}"
        # the commented line ends the hunk: its index in the diff is the hunk's line count
        position = len(c.diff_hunk.splitlines()) - 1
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
            "reactions": self.reactions(url),
            "start_line": None,
            "original_start_line": None,
            "start_side": None,
            "line": c.line,
            "original_line": c.original_line,
            "side": c.side,
            "original_position": position,
            "position": None if c.line is None else position,
            "subject_type": "line",
        }
        if c.in_reply_to_id is not None:
            shaped["in_reply_to_id"] = c.in_reply_to_id
        return shaped

    def issue_comment(self, repo: Repository, c: IssueComment) -> dict[str, Any]:
        """An ``issue-comment`` (conversation comment)."""
        url = f"{self.repo_url(repo)}/issues/comments/{c.id}"
        return {
            "id": c.id,
            "node_id": _node_id("IC", c.id),
            "url": url,
            "html_url": f"{self.base}/{repo.full_name}/pull/{c.number}#issuecomment-{c.id}",
            "issue_url": f"{self.repo_url(repo)}/issues/{c.number}",
            "user": self.user(c.user),
            "created_at": c.created_at,
            "updated_at": c.updated_at,
            "body": c.body,
            "author_association": c.author_association,
            "reactions": self.reactions(url),
            "performed_via_github_app": None,
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


def _invalid_param(name: str, resource: str, docs: str) -> _ApiError:
    return _ApiError(
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


# -- reading requests ------------------------------------------------------------------------


def _bad_request(status: int, message: str, docs: str = DOCS) -> _ApiError:
    """A refusal of the request's framing: answered, then the connection is closed (what
    follows on it cannot be told apart from the body that was not read)."""
    body = {"message": message, "documentation_url": docs, "status": str(status)}
    return _ApiError(status, body, {"Connection": "close"})


def _problems_parsing_json(docs: str = DOCS) -> _ApiError:
    return _ApiError(
        400, {"message": "Problems parsing JSON", "documentation_url": docs, "status": "400"}
    )


def _parse_json(raw: bytes, docs: str = DOCS) -> Json:
    """A request body as JSON (empty: ``None``), or GitHub's 400 "Problems parsing JSON".

    Refused too: nesting deeper than ``_MAX_JSON_DEPTH`` (also what would exhaust Python's
    recursion: json raises RecursionError) and a lone surrogate (``"\\ud800"``) in any
    string, which is no Unicode text: it could be neither stored as UTF-8 nor fingerprinted.
    """
    try:
        value = json.loads(raw or b"null")
    except (ValueError, RecursionError):  # UnicodeDecodeError and the 4,300-digit limit too
        raise _problems_parsing_json(docs) from None
    if not _plain_json(value):
        raise _problems_parsing_json(docs)
    return value


def _plain_json(value: Json) -> bool:
    """Whether ``value`` nests at most ``_MAX_JSON_DEPTH`` deep and all its strings (keys
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
            if depth >= _MAX_JSON_DEPTH:
                return False
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return True


def _path_number(text: str | None) -> int | None:
    """A number of the URL path (``\\d+`` in the route), or None when no record can have it:
    GitHub answers 404 for a 5,000-digit id, and int() would refuse one (4,300 digits)."""
    if not text or len(text) > 18 or not text.isascii():
        return None
    return int(text)


class _CommitGate:
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


class _DeadlineReader(io.RawIOBase):
    """A connection's input under a deadline for the whole request: one read at a time
    cannot time out for a client that sends a byte every second, the deadline does.

    :meth:`restart` starts the clock for the next request (after an answer, so idle
    keep-alive time counts against it)."""

    def __init__(self, sock: socket.socket, timeout_s: float) -> None:
        super().__init__()
        self._sock = sock
        self._timeout_s = timeout_s
        self._deadline = time.monotonic() + timeout_s

    def restart(self) -> None:
        """The next request has ``timeout_s`` from now to arrive in full."""
        self._deadline = time.monotonic() + self._timeout_s

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the request did not arrive within the idle timeout")
        self._sock.settimeout(remaining)
        try:
            return self._sock.recv_into(buffer)
        finally:
            self._sock.settimeout(self._timeout_s)  # writes keep the full timeout


#: GraphQL's Int is 32 bits: a variable outside is not coerced (GitHub says so).
_GRAPHQL_INT = range(-(2**31), 2**31)


def _variable_errors(query: str, variables: dict[str, Any]) -> list[dict[str, Any]]:
    """GraphQL errors for ``variables`` that do not fit the types the query declares (a
    list where ``Int!`` is declared, a missing non-null one...), as GitHub words them."""
    errors = []
    for name, type_tokens, has_default in _variable_definitions(_tokens(query)):
        if name not in variables and has_default:
            continue
        value = variables.get(name)
        if not _fits(value, type_tokens):
            type_text = "".join(type_tokens)
            shown = json.dumps(value)[:80]
            errors.append(
                {
                    "message": f"Variable ${name} of type {type_text} was provided invalid value",
                    "extensions": {
                        "problems": [
                            {"path": [], "explanation": f"Could not coerce {shown} to {type_text}"}
                        ]
                    },
                }
            )
    return errors


def _variable_definitions(toks: list[str]) -> list[tuple[str, list[str], bool]]:
    """``(name, type tokens, has a default)`` of each ``$name: Type`` of the operation."""
    i = 0
    if toks[:1] == ["query"]:
        i = 1 if toks[1:2] in (["("], ["{"]) else 2  # skip the operation name
    if toks[i : i + 1] != ["("]:
        return []
    out: list[tuple[str, list[str], bool]] = []
    i += 1
    while i < len(toks) and toks[i] != ")":
        name = toks[i]
        if not name.startswith("$") or toks[i + 1 : i + 2] != [":"]:
            raise _GraphQLError(f"Parse error: unexpected {name!r} in the variable definitions")
        i += 2
        type_tokens: list[str] = []
        while i < len(toks) and toks[i] not in (")", "=") and not toks[i].startswith("$"):
            type_tokens.append(toks[i])
            i += 1
        has_default = toks[i : i + 1] == ["="]
        while has_default and i < len(toks) and toks[i] != ")" and not toks[i].startswith("$"):
            i += 1  # the default value
        out.append((name[1:], type_tokens, has_default))
    return out


def _fits(value: Any, type_tokens: list[str]) -> bool:
    """Whether a variable's JSON value can be coerced to the declared GraphQL type."""
    non_null = type_tokens[-1:] == ["!"]
    base = type_tokens[:-1] if non_null else type_tokens
    if value is None:
        return not non_null
    if base[:1] == ["["] and base[-1:] == ["]"]:
        items = value if isinstance(value, list) else [value]  # a lone value is a list of one
        return all(_fits(item, base[1:-1]) for item in items)
    kind = base[0] if len(base) == 1 else ""
    if kind == "Int":
        return isinstance(value, int) and not isinstance(value, bool) and value in _GRAPHQL_INT
    if kind == "Float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "String":
        return isinstance(value, str)
    if kind == "ID":
        return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
    if kind == "Boolean":
        return isinstance(value, bool)
    return True  # enums and input objects: types this emulator does not know


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
        self.shapes = _Shapes(base_url, store)
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
    """One thread per connection; tracks its connections so that :meth:`stop` can cut
    them and wait for the requests still running."""

    daemon_threads = True
    allow_reuse_address = False
    request_queue_size = _LISTEN_BACKLOG

    def __init__(self, make: Callable[[str], _Emulator], idle_timeout_s: float) -> None:
        self.idle_timeout_s = idle_timeout_s
        super().__init__(("127.0.0.1", 0), _Handler)
        self.emulator = make(f"http://127.0.0.1:{self.server_address[1]}")
        self.sockets_lock = threading.Lock()
        self.open_sockets: set[socket.socket] = set()
        self.connection_threads: set[threading.Thread] = set()
        self.commits = _CommitGate()
        self.stopping = threading.Event()  # set by stop(): held answers are let go

    def process_request(self, request: Any, client_address: Any) -> None:
        """What ThreadingMixIn does, with the thread registered before it starts (so stop()
        cannot miss a connection accepted just before it)."""
        thread = threading.Thread(
            target=self._serve_connection, args=(request, client_address), daemon=True
        )
        with self.sockets_lock:
            self.open_sockets.add(request)
            self.connection_threads.add(thread)
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self.sockets_lock:
                self.connection_threads.discard(threading.current_thread())

    def stop(self, drain_timeout_s: float) -> None:
        """Stop accepting, cut every connection, wait up to ``drain_timeout_s`` for the
        requests still running (a slow commit lands), then cancel the writes of any still
        running: after this returns, nothing is ever stored."""
        self.shutdown()
        self.stopping.set()
        self.close_open_connections()
        deadline = time.monotonic() + drain_timeout_s
        with self.sockets_lock:
            threads = list(self.connection_threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.commits.close()
        self.server_close()

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
    ("POST", re.compile(r"/graphql$"), "graphql"),
    ("GET", re.compile(r"/(?P<owner>[^/]+)/(?P<name>[^/]+)/pull/(?P<n>\d+)$"), "html_page"),
    ("GET", re.compile(r"/(?P<owner>[^/]+)/(?P<name>[^/]+)$"), "html_page"),
    ("GET", re.compile(r"/(?P<owner>[^/]+)$"), "html_page"),
]


class _Handler(BaseHTTPRequestHandler):
    server: _Server | _InProcessServer
    protocol_version = "HTTP/1.1"
    server_version = "GitHubEmulator/1.0"
    timeout = DEFAULT_IDLE_TIMEOUT_S  # the socket's; setup() sets the server's idle timeout
    # Headers and body go out in two writes; with Nagle's algorithm the second waits for
    # the client's delayed ACK (tens of ms per response on loopback).
    disable_nagle_algorithm = True
    #: The socket's input with its per-request deadline (None in process: no socket).
    deadline_reader: _DeadlineReader | None = None
    #: Set when the request's framing was refused: the input left is read and dropped.
    unread_input = False

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet: nothing on stderr (notebooks)."""

    def setup(self) -> None:
        """The socket gets the server's idle timeout, its input a per-request deadline."""
        assert isinstance(self.server, _Server)
        super().setup()
        self.connection.settimeout(self.server.idle_timeout_s)
        self.rfile.close()  # the makefile reader: replaced by one that keeps the deadline
        self.deadline_reader = _DeadlineReader(self.connection, self.server.idle_timeout_s)
        self.rfile = io.BufferedReader(self.deadline_reader)

    def handle_one_request(self) -> None:
        """One request; it has one idle timeout from now to arrive in full (a timeout closes
        the connection quietly, as http.server does)."""
        if self.deadline_reader is not None:
            self.deadline_reader.restart()
        super().handle_one_request()

    def finish(self) -> None:
        super().finish()
        if self.unread_input:
            self._drain_input()

    def _drain_input(self) -> None:
        """Read and drop what the client still sends for a while (a lingering close):
        closing a socket with unread input resets it, and the reset can destroy the
        answer before the client has read it."""
        sock = self.connection
        deadline = time.monotonic() + _LINGER_S
        with suppress(OSError):
            sock.shutdown(socket.SHUT_WR)
            dropped = 0
            while dropped <= 2 * _MAX_BODY_BYTES and time.monotonic() < deadline:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = sock.recv(65536)
                if not chunk:
                    break
                dropped += len(chunk)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a request line that is not HTTP, headers too long, an
        unknown method), GitHub-shaped: JSON instead of its HTML page."""
        del explain  # the HTML page's paragraph
        short = self.responses.get(code, ("Error", ""))[0]
        payload = {"message": message or short, "documentation_url": DOCS, "status": str(code)}
        body = json.dumps(payload).encode()
        # a line that is not HTTP leaves http.server assuming HTTP/0.9, whose answers have
        # no status line: this one must have one, or the client cannot read the refusal
        self.request_version = "HTTP/1.1"
        self.send_response(code, short)
        self.send_header("Connection", "close")
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._dispatch("PUT")

    def do_PATCH(self) -> None:  # noqa: N802
        self._dispatch("PATCH")

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch("DELETE")

    # -- plumbing --------------------------------------------------------------------------

    def _dispatch(self, method: str) -> None:
        self.emulator = self.server.emulator
        try:
            split = urlsplit(self.path)
            self.url_path = split.path
            self.query = parse_qs(split.query)
        except ValueError:  # e.g. "//[x": no URL at all; no route will match it
            self.url_path, self.query = self.path, {}
        self.resource = "graphql" if self.url_path == "/graphql" else "core"
        self.raw_body = b""
        self.method = method
        self.fault: Fault | None = None
        self.idempotency_key: str | None = None
        self.replayed = False
        self.used = self.emulator.used  # until _count_request() counts this request
        try:
            self._dispatch_request(method, self.url_path)
        except _ApiError as error:
            self._send_json(error.status, error.body, error.headers)
        except Exception as exc:  # a bug of the emulator  # noqa: BLE001
            self._answer_bug(exc)

    def _answer_bug(self, exc: Exception) -> None:
        """A bug of the emulator: its traceback on stderr (it must not vanish) and a 500
        answer, so the client is not left with a dropped connection ("outcome unknown")."""
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        payload = {"message": "Server Error", "documentation_url": DOCS, "status": "500"}
        with suppress(OSError):
            self._send_json(500, payload, {"Connection": "close"})
        self.close_connection = True

    def _read_body(self) -> bytes:
        """The request body, framed by Content-Length or chunked; anything else, or too
        big, is refused (and the connection closed after the answer)."""
        codings = self.headers.get_all("Transfer-Encoding") or []
        lengths = self.headers.get_all("Content-Length") or []
        try:
            if codings:
                self.unread_input = True  # until the body is read to its end
                if lengths:  # RFC 9112 §6.1: a sign of request smuggling; refused
                    raise _bad_request(400, "Transfer-Encoding and Content-Length together")
                if [c.strip().lower() for v in codings for c in v.split(",")] != ["chunked"]:
                    raise _bad_request(400, "Only the chunked transfer coding is supported")
                body = self._read_chunked()
            elif lengths:
                self.unread_input = True
                body = self._read_length(lengths)
            else:
                return b""
        except TimeoutError:
            raise _bad_request(408, "Timed out reading the request body") from None
        self.unread_input = False
        return body

    def _read_length(self, fields: list[str]) -> bytes:
        # RFC 9112 §6.3: repeated values are one value if they are all the same
        values = {v.strip() for f in fields for v in f.split(",")}
        value = values.pop() if len(values) == 1 else ""
        if not (value.isascii() and value.isdigit()):
            raise _bad_request(400, "Content-Length must be one whole number of bytes")
        if len(value) > 10 or int(value) > _MAX_BODY_BYTES:
            raise _bad_request(413, f"Request bodies are limited to {_MAX_BODY_BYTES} bytes")
        length = int(value)
        body = self.rfile.read(length)
        if len(body) < length:
            raise _bad_request(400, "The request body ended before its Content-Length")
        return body

    def _read_chunked(self) -> bytes:
        body = bytearray()
        while True:
            line = self.rfile.readline(_MAX_CHUNK_LINE + 1)
            size_text = line.split(b";", 1)[0].strip()
            if not line.endswith(b"\n") or re.fullmatch(rb"[0-9A-Fa-f]{1,8}", size_text) is None:
                raise _bad_request(400, "Invalid chunk size line in a chunked request body")
            size = int(size_text, 16)
            if size == 0:
                break
            if len(body) + size > _MAX_BODY_BYTES:
                raise _bad_request(413, f"Request bodies are limited to {_MAX_BODY_BYTES} bytes")
            chunk = self.rfile.read(size)
            if len(chunk) < size or self.rfile.read(2) != b"\r\n":
                raise _bad_request(400, "A chunk of the request body is cut short")
            body += chunk
        for _ in range(_MAX_TRAILERS):  # trailer fields (ignored), then an empty line
            line = self.rfile.readline(_MAX_CHUNK_LINE + 1)
            if line in (b"\r\n", b"\n"):
                return bytes(body)
            if not line.endswith(b"\n"):
                break
        raise _bad_request(400, "The chunked request body does not end with an empty line")

    def _dispatch_request(self, method: str, path: str) -> None:
        # The body first: a refusal below must not leave it unread, to be taken for the
        # connection's next request.
        self.raw_body = self._read_body()
        self._count_request()
        self._authenticate()
        if self.emulator.faults is not None:
            self.fault = self.emulator.faults.take(method, path)
            self._fault_before_handling(path)
        for route_method, pattern, action in _ROUTES:
            match = pattern.match(path)
            if match and route_method == method:
                slow = self.fault is not None and self.fault.kind == "slow_commit"
                if slow and action != "create_issue_comment":  # that one waits after its key
                    time.sleep(self.fault.delay_s)  # type: ignore[union-attr]
                getattr(self, action)(match.groupdict())
                return
        raise _not_found()

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
        """Keep the (stored) request's answer back for ``delay_s`` seconds, or until the
        server stops: the write is done, so the end of serve() need not wait for it."""
        assert isinstance(self.server, _Server)
        self.server.stopping.wait(delay_s)

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
        if status == 204:  # RFC 9110 §8.6: no content, and no Content-Length either
            del rate["Content-Type"], rate["Content-Length"]
        for name, value in rate.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, payload: Json, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self._send(status, body, "application/json; charset=utf-8", headers or {})

    def _repo(self, groups: dict[str, str | None]) -> Repository:
        if groups.get("repo_id"):
            repo_id = _path_number(groups["repo_id"])
            repo = None if repo_id is None else self.emulator.store.repository_by_id(repo_id)
        else:
            repo = self.emulator.store.repository(f"{groups['owner']}/{groups['name']}")
        if repo is None:
            raise _not_found()
        return repo

    def _pull(self, groups: dict[str, str | None]) -> tuple[Repository, PullRequest]:
        repo = self._repo(groups)
        number = _path_number(groups["n"])
        pull = None if number is None else self.emulator.store.pull_request(repo.full_name, number)
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
        self._send_json(200, self.emulator.shapes.full_repository(self._repo(groups)))

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
        store = self.emulator.store
        docs = "/pulls/comments#list-review-comments-on-a-pull-request"
        since = _since_param(self.query, "PullRequestReviewComment", docs)
        if since is None and "sort" not in self.query:  # the common case: no full copy
            window, total = store.review_comment_slice(
                repo.full_name, pull.number, start, start + per_page
            )
        else:
            chosen = [
                c
                for c in store.review_comments(repo.full_name, pull.number)
                if _updated_since(c.updated_at, since)
            ]
            chosen = _sorted_comments(chosen, self.query, "PullRequestReviewComment", docs)
            window, total = chosen[start : start + per_page], len(chosen)
        items = [self.emulator.shapes.review_comment(repo, c) for c in window]
        self._send_page(repo, f"pulls/{pull.number}/comments", items, total)

    def list_issue_comments(self, groups: dict[str, str | None]) -> None:
        repo, pull = self._pull(groups)
        docs = "/issues/comments#list-issue-comments"
        since = _since_param(self.query, "IssueComment", docs)
        comments = [
            c
            for c in self.emulator.store.issue_comments(repo.full_name, pull.number)
            if _updated_since(c.updated_at, since)
        ]  # always ascending id: this list has no sort parameter
        page, per_page = _page_window(self.query)
        window = comments[(page - 1) * per_page : page * per_page]
        items = [self.emulator.shapes.issue_comment(repo, c) for c in window]
        self._send_page(repo, f"issues/{pull.number}/comments", items, len(comments))

    def get_review_comment(self, groups: dict[str, str | None]) -> None:
        repo = self._repo(groups)
        comment_id = _path_number(groups["id"])
        store = self.emulator.store
        comment = None if comment_id is None else store.review_comment(repo.full_name, comment_id)
        if comment is None:
            raise _not_found()
        self._send_json(200, self.emulator.shapes.review_comment(repo, comment))

    def get_issue_comment(self, groups: dict[str, str | None]) -> None:
        repo = self._repo(groups)
        comment_id = _path_number(groups["id"])
        store = self.emulator.store
        comment = None if comment_id is None else store.issue_comment(repo.full_name, comment_id)
        if comment is None:
            raise _not_found()
        self._send_json(200, self.emulator.shapes.issue_comment(repo, comment))

    def _edited_body(self, resource: str, docs: str) -> str:
        """The ``body`` of a PATCH of a comment: a non-empty string, else GitHub's 422."""
        payload = _parse_json(self.raw_body)
        body = payload.get("body") if isinstance(payload, dict) else None
        if isinstance(body, str) and body.strip() and len(body) <= MAX_COMMENT_CHARS:
            return body
        code = "missing_field" if body is None else "invalid"
        raise _ApiError(
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
        comment_id = _path_number(groups["id"])
        store = self.emulator.store
        if comment_id is None or store.review_comment(repo.full_name, comment_id) is None:
            raise _not_found()
        return repo, comment_id

    def _issue_comment_of(self, groups: dict[str, str | None]) -> tuple[Repository, int]:
        repo = self._repo(groups)
        comment_id = _path_number(groups["id"])
        store = self.emulator.store
        if comment_id is None or store.issue_comment(repo.full_name, comment_id) is None:
            raise _not_found()
        return repo, comment_id

    def edit_review_comment(self, groups: dict[str, str | None]) -> None:
        repo, comment_id = self._review_comment_of(groups)
        docs = "/pulls/comments#update-a-review-comment-for-a-pull-request"
        body = self._edited_body("PullRequestReviewComment", docs)
        with _gone_meanwhile_is_404():
            edited = self.emulator.store.edit_comment(comment_id, body)
        assert isinstance(edited, ReviewComment)
        self._send_json(200, self.emulator.shapes.review_comment(repo, edited))

    def delete_review_comment(self, groups: dict[str, str | None]) -> None:
        _, comment_id = self._review_comment_of(groups)
        with _gone_meanwhile_is_404():
            self.emulator.store.delete_comment(comment_id)
        self._send(204, b"", "application/json; charset=utf-8", {})

    def edit_issue_comment(self, groups: dict[str, str | None]) -> None:
        repo, comment_id = self._issue_comment_of(groups)
        body = self._edited_body("IssueComment", "/issues/comments#update-an-issue-comment")
        with _gone_meanwhile_is_404():
            edited = self.emulator.store.edit_comment(comment_id, body)
        assert isinstance(edited, IssueComment)
        self._send_json(200, self.emulator.shapes.issue_comment(repo, edited))

    def delete_issue_comment(self, groups: dict[str, str | None]) -> None:
        _, comment_id = self._issue_comment_of(groups)
        with _gone_meanwhile_is_404():
            self.emulator.store.delete_comment(comment_id)
        self._send(204, b"", "application/json; charset=utf-8", {})

    def merge_pull(self, groups: dict[str, str | None]) -> None:
        """``PUT .../pulls/{n}/merge``: 200 ``{sha, merged, message}``; 405 when the PR
        cannot be merged (already merged, closed, conflicts), 409 when ``sha`` is not the
        head any more, 422 for an unknown ``merge_method``, as on GitHub."""
        repo, pull = self._pull(groups)
        docs = DOCS + "/pulls/pulls#merge-a-pull-request"
        payload = _parse_json(self.raw_body) if self.raw_body.strip() else {}
        if not isinstance(payload, dict):
            raise _bad_request(400, "Problems parsing JSON", docs)
        method = payload.get("merge_method", "merge")
        if method not in ("merge", "squash", "rebase"):
            error = {"resource": "PullRequest", "code": "invalid", "field": "merge_method"}
            raise _ApiError(
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
            raise _ApiError(409, {"message": message, "documentation_url": docs, "status": "409"})
        try:
            merged = self.emulator.store.merge_pull(repo.full_name, pull.number)
        except ValueError:
            message = "Pull Request is not mergeable"
            raise _ApiError(
                405, {"message": message, "documentation_url": docs, "status": "405"}
            ) from None
        answer = {
            "sha": merged.merge_commit_sha,
            "merged": True,
            "message": "Pull Request successfully merged",
        }
        self._send_json(200, answer)

    def create_issue_comment(self, groups: dict[str, str | None]) -> None:
        repo, pull = self._pull(groups)
        payload = _parse_json(self.raw_body)  # 400 before a key is claimed
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
            if len(body) > MAX_COMMENT_CHARS:
                too_long = f"Body is too long (maximum is {MAX_COMMENT_CHARS} characters)"
                raise _ApiError(
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
            if self.fault is not None and self.fault.kind == "slow_commit":
                time.sleep(self.fault.delay_s)  # holding the key: a duplicate now gets 409
            comment = self._store_comment(repo, pull, body)
        except BaseException:
            if key is not None:
                self.emulator.keys.abandon(key)  # nothing was stored: the key stays free
            raise
        shaped = self.emulator.shapes.issue_comment(repo, comment)
        encoded = json.dumps(shaped).encode()
        location = {"Location": shaped["url"]}
        if key is not None:
            self.emulator.keys.complete(key, StoredResponse(201, encoded, location))
        self._send(201, encoded, "application/json; charset=utf-8", location)

    def _store_comment(self, repo: Repository, pull: PullRequest, body: str) -> IssueComment:
        """Store the comment, unless the server has stopped meanwhile (a slow commit the
        end of serve() gave up waiting for): then 503 and nothing is stored, ever."""
        store = self.emulator.store
        with self.server.commits.holding() as still_open:
            if not still_open:
                raise _ApiError(
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
        user = self.emulator.store.user(unquote(groups["login"] or ""))
        if user is None:
            raise _not_found()  # GitHub: 404 for a login it does not know
        self._send_json(200, self.emulator.shapes.public_user(user))

    def html_page(self, groups: dict[str, str | None]) -> None:
        path = "/".join(v for k, v in groups.items() if v and k in ("owner", "name", "n"))
        title = html_escape(path)  # the path is the client's text: never markup
        page = f"<!doctype html><title>{title}</title><p>GitHub emulator: {title}</p>"
        self._send(200, page.encode(), "text/html; charset=utf-8", {})

    def graphql(self, groups: dict[str, str | None]) -> None:
        # A request that is not a GraphQL request (not JSON, variables that are not an
        # object) is refused with 400; a GraphQL request that fails (a parse error, a
        # variable of the wrong type, an unknown field) gets 200 + "errors", as on GitHub.
        request = _parse_json(self.raw_body, _GRAPHQL_DOCS)
        variables = request.get("variables") if isinstance(request, dict) else None
        if variables is not None and not isinstance(variables, dict):
            raise _ApiError(
                400,
                {
                    "message": "Variables must be a JSON object",
                    "documentation_url": _GRAPHQL_DOCS,
                    "status": "400",
                },
            )
        try:
            if not isinstance(request, dict) or not isinstance(request.get("query"), str):
                raise _GraphQLError("A query attribute must be specified and must be a string.")
            errors = _variable_errors(request["query"], variables or {})
            if errors:
                self._send_json(200, {"errors": errors})
                return
            fields = _parse_query(request["query"], variables or {})
            self._send_json(200, {"data": self.emulator.graphql.execute(fields)})
        except ValueError:  # a string literal json cannot read, an int over 4,300 digits
            raise _problems_parsing_json(_GRAPHQL_DOCS) from None
        except RecursionError:
            self._send_json(200, {"errors": [{"message": "Parse error: the query nests too deep"}]})
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
    idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
    drain_timeout_s: float = DEFAULT_DRAIN_TIMEOUT_S,
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

    ``idle_timeout_s``: each request must arrive in full within this many seconds of the
    connection's previous answer (or of its opening); else the connection is closed (a body
    cut short gets 408), so a slow or silent client never holds a thread for long.

    Bad requests get GitHub-shaped 4xx answers, never a dropped connection: a broken
    ``Content-Length`` or chunked framing 400, a body over 1 MiB 413, JSON nested deeper
    than 100 or with a lone surrogate 400, a comment over 65,536 characters 422.

    On exit the listening socket is closed, open connections are cut (a keep-alive one, a
    client still sending), requests still running get up to ``drain_timeout_s`` seconds to
    finish (a slow commit lands, as at the end of :func:`serve_in_process`), and any write
    still running then is cancelled: nothing is stored after the block is over.
    """
    _check_idempotency_mode(idempotency)  # before any socket is opened
    for name, value in (("idle_timeout_s", idle_timeout_s), ("drain_timeout_s", drain_timeout_s)):
        if not value > 0:
            raise ValueError(f"{name} must be > 0 seconds, got {value!r}")
    settings = (store, token, rate_limit, faults, idempotency, idempotency_window_s)
    server = _Server(lambda base_url: _emulator(*settings, base_url), idle_timeout_s)
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
        server.stop(drain_timeout_s)
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
        #: Closed at the end of serve_in_process: no write lands after it.
        self.commits = _CommitGate()

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

    def _answer_bug(self, exc: Exception) -> None:
        raise exc  # in process, an emulator bug is raised in the client (see _Exchange)


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
    """``request`` as the bytes an HTTP/1.1 client would send (a streamed body, which
    httpx sends chunked, is passed read in full, with its Content-Length)."""
    body = request.read()
    target = request.url.raw_path.decode("ascii")
    lines = [f"{request.method} {target} HTTP/1.1"]
    lines += [
        f"{name.decode('latin-1')}: {value.decode('latin-1')}"
        for name, value in request.headers.raw
        if name.lower() != b"transfer-encoding"
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
        try:
            server.finish_running(timeout_s=_LATE_REQUEST_TIMEOUT_S)
        finally:
            server.commits.close()  # even one that did not finish in time never stores
