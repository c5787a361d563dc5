"""A small GitHub REST (and one GraphQL query) client on ``httpx``, with contract errors.

The same code talks to the course's emulator (``tutorial_lib.emulator.service``) and to the
real GitHub API; only the base URL and the token change::

    # the emulator (loopback, no token needed unless the service was started with one)
    client = GitHubClient(handle.base_url)

    # the real GitHub API (NOT tested by this course): a fine-grained personal access token
    # with "Pull requests: read" (and "write" for create_issue_comment) on the repository
    client = GitHubClient("https://api.github.com", token=os.environ["GITHUB_TOKEN"])

Every request sends ``Accept: application/vnd.github+json``, ``X-GitHub-Api-Version:
2022-11-28`` and, with a token, ``Authorization: Bearer <token>``. GraphQL goes to
``{base_url}/graphql`` (``https://api.github.com/graphql``); for GitHub Enterprise Server
pass ``graphql_url`` explicitly (``https://HOST/api/graphql`` next to ``/api/v3``).

**Lists follow ``Link`` headers**, in one loop, :meth:`GitHubClient.iter_pages`: from the
first page, the URL of ``rel="next"`` until a response has none (review comments, issue
comments). A next URL on another origin than ``base_url`` is refused (the token must never
be sent elsewhere).

**Errors become contract errors** (:class:`tutorial_lib.core.contracts.ContractError`):

- 404/410 -> ``not_found``; 401, and 403 without rate limiting -> ``permission_denied``;
- 400/422 -> ``invalid_value``;
- 403/429 with ``x-ratelimit-remaining: 0`` or ``retry-after``, 5xx, timeouts, connection
  failures -> ``temporary_unavailable`` for reads;
- for the one write, :meth:`GitHubClient.post_issue_comment`, a failure after the request
  may have reached the server (timeout while waiting, connection cut, 5xx) ->
  ``outcome_unknown``: GitHub has no idempotency keys, so blindly retrying may post the
  comment twice (chapter 05). A write failure that is ``temporary_unavailable`` was
  provably not processed (refused connection, 429, 409).

Internal details (status, path, GitHub's message, request id) go to the error's ``log``,
never into the message the model reads; the token never appears in either.

**Resolution state** exists only in GraphQL (REST has no "resolved" flag).
:meth:`GitHubClient.review_threads` sends :data:`REVIEW_THREADS_QUERY` and maps every
comment's ``databaseId`` (the REST ``id``) to its thread's ``isResolved``/``isOutdated``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from tutorial_lib.core.contracts import ContractError

__all__ = [
    "API_VERSION",
    "REVIEW_THREADS_QUERY",
    "CommentsPage",
    "GitHubClient",
    "PostedComment",
    "ThreadState",
]

API_VERSION = "2022-11-28"
DEFAULT_TIMEOUT_S = 10.0
#: GitHub's maximum ``per_page``.
MAX_PER_PAGE = 100
_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}")
_NAME = re.compile(r"(?!\.\.?$)[A-Za-z0-9_.-]{1,100}")
_SENDABLE_KEY = re.compile(r"[\x21-\x7e]{1,255}")

#: The GraphQL query behind :meth:`GitHubClient.review_threads`, exactly as sent. Threads are
#: paged 100 at a time (``after``); each thread's first 100 comments are read (a thread
#: with more is rare; later comments of it then have no known state).
REVIEW_THREADS_QUERY = """\
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          isResolved
          isOutdated
          comments(first: 100) { nodes { databaseId } }
        }
      }
    }
  }
}"""


@dataclass(frozen=True)
class ThreadState:
    """The resolution state of the review thread a comment belongs to."""

    resolved: bool
    outdated: bool


@dataclass(frozen=True)
class PostedComment:
    """The answer to a comment write: the comment, and whether the server replayed it
    (``Idempotent-Replayed: true``: an earlier request with the same key had created it)."""

    comment: dict[str, Any]
    replayed: bool


@dataclass(frozen=True)
class CommentsPage:
    """One upstream page of a list (review or issue comments): the comments as GitHub sent
    them, and the ``rel="next"`` URL (None on the last page)."""

    comments: list[dict[str, Any]]
    next_url: str | None


#: How an unanswered write is worded: (what may or may not have happened, how to check).
_LOST_COMMENT = (
    "the comment may or may not exist",
    "list the PR's comments to check before posting again",
)
_LOST_MERGE = (
    "the pull request may or may not be merged",
    "get the pull request and check merged before merging again",
)
_LOST_CHANGE = (
    "the comment may or may not have been changed",
    "get the comment to check its current state before trying again",
)


class GitHubClient:
    """A synchronous GitHub client; use it as a context manager or call :meth:`close`.

    ``transport`` replaces the network (``httpx.MockTransport`` in tests).
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        graphql_url: str | None = None,
        transport: httpx.BaseTransport | None = None,
        user_agent: str = "tutorial-lib-course-client",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.graphql_url = graphql_url or self.base_url + "/graphql"
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": user_agent,
        }
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._origin = httpx.URL(self.base_url)
        self._http = httpx.Client(
            base_url=self.base_url + "/",
            headers=headers,
            timeout=timeout_s,
            transport=transport,
            follow_redirects=False,
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ reads

    def get_pull(self, repo: str, number: int) -> dict[str, Any]:
        """``GET /repos/{owner}/{repo}/pulls/{number}``: the pull request object."""
        return self._json("GET", f"{_repo_path(repo)}/pulls/{int(number)}")

    def list_review_comments_page(
        self, repo: str, number: int, *, page: int = 1, per_page: int = MAX_PER_PAGE
    ) -> CommentsPage:
        """One page of a PR's review comments (ascending id), with its next URL if any."""
        path = f"{_repo_path(repo)}/pulls/{int(number)}/comments"
        return self._first_page(path, per_page, page=page)

    def next_page(self, next_url: str) -> CommentsPage:
        """The page at a ``rel="next"`` URL this client received (same origin only)."""
        return self._page(self._send("GET", self._same_origin(next_url)))

    def iter_pages(self, first: CommentsPage) -> Iterator[CommentsPage]:
        """``first``, then every page its ``Link: rel="next"`` chain leads to, until absent.

        The one loop that follows ``Link`` headers, for every list this client reads.
        """
        page = first
        yield page
        while page.next_url is not None:
            page = self.next_page(page.next_url)
            yield page

    def iter_review_comments(
        self, repo: str, number: int, per_page: int = MAX_PER_PAGE
    ) -> Iterator[dict[str, Any]]:
        """Every review comment of the PR, following ``Link: rel="next"`` until absent."""
        first = self.list_review_comments_page(repo, number, per_page=per_page)
        for page in self.iter_pages(first):
            yield from page.comments

    def get_review_comment(self, repo: str, comment_id: int) -> dict[str, Any]:
        """``GET /repos/{owner}/{repo}/pulls/comments/{comment_id}``."""
        return self._json("GET", f"{_repo_path(repo)}/pulls/comments/{int(comment_id)}")

    def review_threads(self, repo: str, number: int) -> dict[int, ThreadState]:
        """``{comment databaseId: ThreadState}`` for every review thread of the PR."""
        owner, name = _split_repo(repo)
        states: dict[int, ThreadState] = {}
        after: str | None = None
        while True:
            variables = {"owner": owner, "name": name, "number": int(number), "after": after}
            payload = {"query": REVIEW_THREADS_QUERY, "variables": _without_nulls(variables)}
            answer = self._json("POST", self.graphql_url, json=payload)
            threads = _graphql_threads(answer, repo, number)
            for thread in threads.get("nodes") or []:
                state = ThreadState(bool(thread.get("isResolved")), bool(thread.get("isOutdated")))
                for comment in (thread.get("comments") or {}).get("nodes") or []:
                    if isinstance(comment.get("databaseId"), int):
                        states[comment["databaseId"]] = state
            info = threads.get("pageInfo") or {}
            if not info.get("hasNextPage") or not info.get("endCursor"):
                return states
            after = info["endCursor"]

    def list_issue_comments(
        self, repo: str, number: int, *, per_page: int = MAX_PER_PAGE
    ) -> list[dict[str, Any]]:
        """Every conversation comment of the PR's issue, following ``Link`` pages.

        ``GET /repos/{owner}/{repo}/issues/{number}/comments``; one request per 100 comments.
        """
        path = f"{_repo_path(repo)}/issues/{int(number)}/comments"
        first = self._first_page(path, per_page)
        return [comment for page in self.iter_pages(first) for comment in page.comments]

    # ------------------------------------------------------------------ the one write

    def post_issue_comment(
        self, repo: str, number: int, body: str, *, idempotency_key: str | None = None
    ) -> PostedComment:
        """``POST /repos/{owner}/{repo}/issues/{number}/comments``, once (no retry here).

        With ``idempotency_key`` the request carries an ``Idempotency-Key`` header (the
        course's emulator honours it when started with ``idempotency="optional"``; real
        GitHub ignores it). Failures, as contract errors:

        - ``temporary_unavailable``: the server provably did not process this request
          (connection refused, 429 or a rate-limit 403, 409 "still in progress");
          ``log["retry_after"]`` holds a ``Retry-After`` header if there was one;
        - ``outcome_unknown``: the request may have been processed (timeout, connection cut
          after sending, any 5xx, an unreadable 2xx answer);
        - ``invalid_value`` (400/422; ``field`` is ``idempotency_key`` when the key was
          already used for another payload), ``permission_denied``, ``not_found``.
        """
        path = f"{_repo_path(repo)}/issues/{int(number)}/comments"
        if idempotency_key is not None and not _SENDABLE_KEY.fullmatch(idempotency_key):
            raise ContractError(  # caught here: httpx would fail before sending anything
                "invalid_value",
                "an idempotency key must be 1 to 255 visible ASCII characters",
                field="idempotency_key",
                received=idempotency_key,
            )
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key is not None else {}
        response = self._send("POST", path, json={"body": body}, headers=headers, write=True)
        try:
            comment = response.json()
        except ValueError:
            comment = None
        if not isinstance(comment, dict) or not isinstance(comment.get("id"), int):
            raise ContractError(
                "outcome_unknown",
                "GitHub accepted the write but its answer could not be read",
                log={"status": response.status_code, "path": response.request.url.path},
            )
        replayed = response.headers.get("idempotent-replayed", "").lower() == "true"
        return PostedComment(comment, replayed)

    def create_issue_comment(self, repo: str, number: int, body: str) -> dict[str, Any]:
        """``POST .../issues/{number}/comments``: the created comment (see
        :meth:`post_issue_comment`)."""
        return self.post_issue_comment(repo, number, body).comment

    # ------------------------------------------------------------------ dangerous writes

    def merge_pull(
        self, repo: str, number: int, *, sha: str | None = None, merge_method: str = "merge"
    ) -> dict[str, Any]:
        """``PUT /repos/{owner}/{repo}/pulls/{number}/merge``: ``{sha, merged, message}``.

        405 (not mergeable: already merged, closed, conflicts) and 409 (``sha`` is not the
        head any more) become ``invalid_value`` on ``pr``: resending cannot help. Other
        failures as for every write (a 5xx or a lost answer is ``outcome_unknown``).
        """
        payload: dict[str, Any] = {"merge_method": merge_method}
        if sha is not None:
            payload["sha"] = sha
        path = f"{_repo_path(repo)}/pulls/{int(number)}/merge"
        try:
            return self._json("PUT", path, json=payload, write=True, lost=_LOST_MERGE)
        except ContractError as exc:
            if exc.log.get("status") not in (405, 409):
                raise
            raise ContractError(
                "invalid_value",
                "GitHub refused the merge: the pull request is already merged, closed, not"
                " mergeable, or its head changed",
                log=exc.log,
                field="pr",
                received=int(number),
                retry="never",
            ) from None

    def edit_issue_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]:
        """``PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}``: the edited comment."""
        path = f"{_repo_path(repo)}/issues/comments/{int(comment_id)}"
        return self._json("PATCH", path, json={"body": body}, write=True, lost=_LOST_CHANGE)

    def delete_issue_comment(self, repo: str, comment_id: int) -> None:
        """``DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}`` (204)."""
        path = f"{_repo_path(repo)}/issues/comments/{int(comment_id)}"
        self._send("DELETE", path, write=True, lost=_LOST_CHANGE)

    def edit_review_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]:
        """``PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}``: the edited comment."""
        path = f"{_repo_path(repo)}/pulls/comments/{int(comment_id)}"
        return self._json("PATCH", path, json={"body": body}, write=True, lost=_LOST_CHANGE)

    def delete_review_comment(self, repo: str, comment_id: int) -> None:
        """``DELETE /repos/{owner}/{repo}/pulls/comments/{comment_id}`` (204)."""
        path = f"{_repo_path(repo)}/pulls/comments/{int(comment_id)}"
        self._send("DELETE", path, write=True, lost=_LOST_CHANGE)

    def get_issue_comment(self, repo: str, comment_id: int) -> dict[str, Any]:
        """``GET /repos/{owner}/{repo}/issues/comments/{comment_id}``."""
        return self._json("GET", f"{_repo_path(repo)}/issues/comments/{int(comment_id)}")

    # ------------------------------------------------------------------ internals

    def _json(
        self,
        method: str,
        url: str,
        *,
        write: bool = False,
        lost: tuple[str, str] | None = None,
        **kwargs: Any,
    ) -> Any:
        response = self._send(method, url, write=write, lost=lost, **kwargs)
        try:
            return response.json()
        except ValueError:
            raise ContractError(
                "temporary_unavailable",
                "GitHub answered with a body that is not JSON",
                log={"status": response.status_code, "path": response.request.url.path},
            ) from None

    def _send(
        self,
        method: str,
        url: str,
        *,
        write: bool = False,
        lost: tuple[str, str] | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        """One request; ``lost`` words an unanswered write: (what may or may not have
        happened, how to check it). Failures become contract errors."""
        try:
            response = self._http.request(method, url, **kwargs)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            # never reached the server: nothing happened
            raise ContractError(
                "temporary_unavailable",
                "GitHub could not be reached",
                log={"exception_class": type(exc).__name__},
            ) from None
        except httpx.HTTPError as exc:  # timeouts and broken connections mid-request
            if write:
                happened, check = lost or _LOST_COMMENT
                raise ContractError(
                    "outcome_unknown",
                    f"the request was sent but no answer came: {happened}",
                    log={"exception_class": type(exc).__name__},
                    suggestion=check,
                ) from None
            raise ContractError(
                "temporary_unavailable",
                "GitHub did not answer in time",
                log={"exception_class": type(exc).__name__},
            ) from None
        if response.status_code >= 400:
            raise _status_error(response, write)
        return response

    def _first_page(self, path: str, per_page: int, *, page: int = 1) -> CommentsPage:
        """Page ``page`` of the list at ``path`` (``per_page`` clamped to GitHub's 1..100)."""
        params = {"page": page, "per_page": min(max(per_page, 1), MAX_PER_PAGE)}
        return self._page(self._send("GET", path, params=params))

    def _page(self, response: httpx.Response) -> CommentsPage:
        try:
            comments = response.json()
        except ValueError:
            comments = None
        if not isinstance(comments, list):
            raise ContractError(
                "temporary_unavailable",
                "GitHub answered a list request with something that is not a list",
                log={"status": response.status_code, "path": response.request.url.path},
            )
        next_url = response.links.get("next", {}).get("url")
        return CommentsPage(comments, next_url)

    def _same_origin(self, url: str) -> str:
        target = httpx.URL(url)
        origin = self._origin
        if (target.scheme, target.host, target.port) != (origin.scheme, origin.host, origin.port):
            raise ContractError(
                "temporary_unavailable",
                "GitHub's next-page link points to another server; it was not followed",
                log={"next_host": target.host},
                retry="never",
            )
        return url


def _without_nulls(variables: dict[str, Any]) -> dict[str, Any]:
    """GraphQL variables without the null ones (``after`` on the first page)."""
    return {key: value for key, value in variables.items() if value is not None}


def _split_repo(repo: str) -> tuple[str, str]:
    owner, _, name = repo.partition("/") if isinstance(repo, str) else ("", "", "")
    if not (_OWNER.fullmatch(owner) and _NAME.fullmatch(name)):
        raise ContractError(
            "invalid_value",
            "the repository must be written 'owner/name', e.g. 'example/shop'",
            field="repository",
            received=repo,
        )
    return owner, name


def _repo_path(repo: str) -> str:
    owner, name = _split_repo(repo)
    return f"repos/{quote(owner, safe='')}/{quote(name, safe='')}"


def _graphql_threads(body: Any, repo: str, number: int) -> dict[str, Any]:
    """``reviewThreads`` of a GraphQL answer; NOT_FOUND and nulls become ``not_found``."""
    errors = body.get("errors") if isinstance(body, dict) else None
    data = body.get("data") if isinstance(body, dict) else None
    repository = (data or {}).get("repository")
    pull = (repository or {}).get("pullRequest")
    if pull is None:
        types = {e.get("type") for e in errors or [] if isinstance(e, dict)}
        if errors and not types & {"NOT_FOUND"}:
            raise ContractError(
                "temporary_unavailable",
                "GitHub's GraphQL API answered with an error",
                log={"graphql_errors": [e.get("message") for e in errors if isinstance(e, dict)]},
            )
        what = "repository" if repository is None else "pull request"
        raise ContractError(
            "not_found",
            f"GitHub has no {what} {repo}#{number} visible to this client",
            log={"graphql_errors": errors},
        )
    threads = pull.get("reviewThreads")
    if not isinstance(threads, dict):
        raise ContractError("temporary_unavailable", "GitHub's GraphQL answer has no threads")
    return threads


def _status_error(response: httpx.Response, write: bool) -> ContractError:
    status = response.status_code
    try:
        github_message = response.json().get("message")
    except (ValueError, AttributeError):
        github_message = None
    log = {
        "status": status,
        "path": response.request.url.path,
        "github_message": github_message,
        "request_id": response.headers.get("x-github-request-id"),
        "retry_after": response.headers.get("retry-after"),
    }
    rate_limited = status == 429 or (
        status == 403
        and (
            response.headers.get("x-ratelimit-remaining") == "0"
            or "retry-after" in response.headers
        )
    )
    if status in (404, 410):
        return ContractError("not_found", f"GitHub answered {status}: no such object", log=log)
    if rate_limited:
        return ContractError(
            "temporary_unavailable", "GitHub's rate limit is exhausted: wait, then retry", log=log
        )
    if status in (401, 403):
        return ContractError(
            "permission_denied",
            f"GitHub refused the request ({status}): the token is missing, invalid or lacks"
            " access to this repository",
            log=log,
        )
    if write and status == 409:
        return ContractError(
            "temporary_unavailable",
            "an earlier request with the same idempotency key is still being processed:"
            " wait, then resend with the SAME key",
            log=log,
        )
    if write and status in (400, 422) and "Idempotency-Key" in str(github_message):
        message = (
            "this idempotency key was already used for a different comment: a key names"
            " one business request; make a new key for a new comment"
            if status == 422  # the same key, another payload
            else f"GitHub refused the idempotency key: {github_message}"
        )
        return ContractError("invalid_value", message, log=log, field="idempotency_key")
    if status in (400, 422):
        return ContractError(
            "invalid_value", f"GitHub refused the request as invalid ({status})", log=log
        )
    if write and status >= 500:
        return ContractError(
            "outcome_unknown",
            f"GitHub failed while handling the write ({status}): it may or may not have happened",
            log=log,
            suggestion="list the PR's comments to check before posting again",
        )
    return ContractError(
        "temporary_unavailable", f"GitHub is temporarily failing ({status})", log=log
    )
