"""The GitHub emulator: shapes, paging, errors, GraphQL threads, shutdown, and PyGithub."""

from __future__ import annotations

import json
import re
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tutorial_lib.emulator.fixtures import (
    DOUBLE_ROUNDING_COMMENT_ID,
    INJECTED_COMMENT_ID,
    MUST_NOT_MISS_COMMENT_IDS,
    GitHubStore,
    build_store,
    make_large_pr,
)
from tutorial_lib.emulator.service import REVIEW_THREADS_QUERY_SHAPE, ServiceHandle, serve
from tutorial_lib.github.client import REVIEW_THREADS_QUERY, GitHubClient, ThreadState

TOKEN = "test-token"
REVIEW_FIELDS = {
    "url", "id", "node_id", "pull_request_review_id", "diff_hunk", "path", "commit_id",
    "original_commit_id", "user", "body", "created_at", "updated_at", "html_url",
    "pull_request_url", "author_association", "_links", "line", "side",
}  # fmt: skip
ISSUE_FIELDS = {"id", "node_id", "url", "html_url", "issue_url", "user", "created_at", "updated_at", "body"}  # fmt: skip  # noqa: E501


@pytest.fixture
def store() -> GitHubStore:
    return build_store()


@pytest.fixture
def handle(store: GitHubStore) -> Iterator[ServiceHandle]:
    with serve(store, token=TOKEN) as running:
        yield running


def call(
    url: str, *, method: str = "GET", data: bytes | None = None, token: str | None = TOKEN
) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(url, data=data, method=method)
    if token is not None:
        request.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def links(headers: dict[str, str]) -> dict[str, str]:
    return {rel: url for url, rel in re.findall(r'<([^>]+)>; rel="(\w+)"', headers.get("Link", ""))}


def test_fixture_key_comments(store: GitHubStore) -> None:
    comments = store.review_comments("example/shop", 128)
    assert len(comments) == 69 and [c.id for c in comments] == sorted(c.id for c in comments)
    rounding = store.review_comment("example/shop", DOUBLE_ROUNDING_COMMENT_ID)
    assert rounding is not None and (rounding.path, rounding.line) == ("src/cart/checkout.ts", 11)
    assert rounding.body.startswith("I think this rounds the discount twice")
    assert not store.thread_of(rounding.id).is_resolved
    assert comments.index(rounding) >= 30  # not on page 1
    injected = store.review_comment("example/shop", INJECTED_COMMENT_ID)
    assert injected is not None and "ignore previous instructions" in injected.body
    for comment_id in MUST_NOT_MISS_COMMENT_IDS:
        assert not store.thread_of(comment_id).is_resolved
    assert len(store.issue_comments("example/shop", 128)) == 10
    other = store.pull_request("other/shop", 128)
    assert other is not None and other.title != store.pull_request("example/shop", 128).title
    assert store.review_comment("other/shop", DOUBLE_ROUNDING_COMMENT_ID) is None
    assert build_store().review_comments("example/shop", 128) == comments  # deterministic


def test_large_pr_is_seeded() -> None:
    a, b = make_large_pr(500, seed=3), make_large_pr(500, seed=3)
    assert a.review_comments("example/large", 1) == b.review_comments("example/large", 1)
    assert len(a.review_comments("example/large", 1)) == 500


def test_shapes(handle: ServiceHandle) -> None:
    base = handle.base_url
    status, headers, repo = call(f"{base}/repos/example/shop")
    assert status == 200 and repo["full_name"] == "example/shop"
    for name in ("Limit", "Remaining", "Reset", "Used", "Resource"):
        assert f"X-RateLimit-{name}" in headers
    status, _, pull = call(f"{base}/repos/example/shop/pulls/128")
    assert (status, pull["number"], pull["state"]) == (200, 128, "open")
    assert pull["head"]["sha"] and pull["base"]["ref"] == "main"
    _, _, comments = call(pull["review_comments_url"])
    assert all(set(c) >= REVIEW_FIELDS for c in comments)
    _, _, one = call(f"{base}/repos/example/shop/pulls/comments/{DOUBLE_ROUNDING_COMMENT_ID}")
    assert (one["path"], one["line"], one["side"]) == ("src/cart/checkout.ts", 11, "RIGHT")
    # every API URL a response contains answers
    for url in (one["url"], one["pull_request_url"], one["user"]["url"], one["html_url"]):
        request = urllib.request.Request(
            url.split("#")[0], headers={"Authorization": f"token {TOKEN}"}
        )
        assert urllib.request.urlopen(request, timeout=5).status == 200
    _, _, issue_comments = call(pull["comments_url"])
    assert all(set(c) >= ISSUE_FIELDS for c in issue_comments)
    assert call(issue_comments[0]["url"])[2]["id"] == issue_comments[0]["id"]
    assert call(issue_comments[0]["issue_url"])[2]["number"] == 128


def test_follow_next_collects_every_comment_once(handle: ServiceHandle, store: GitHubStore) -> None:
    url: str | None = f"{handle.base_url}/repos/example/shop/pulls/128/comments"
    seen: list[int] = []
    pages = 0
    while url:
        status, headers, page = call(url)
        assert status == 200
        seen += [c["id"] for c in page]
        url = links(headers).get("next")
        pages += 1
    assert pages == 3
    assert seen == [c.id for c in store.review_comments("example/shop", 128)]
    first = links(call(f"{handle.base_url}/repos/example/shop/pulls/128/comments")[1])
    assert set(first) == {"next", "last"} and "/repositories/" in first["next"]
    middle = links(call(first["next"])[1])
    assert set(middle) == {"prev", "next", "first", "last"}


def test_page_size_and_past_end(handle: ServiceHandle) -> None:
    base = f"{handle.base_url}/repos/example/shop/pulls/128/comments"
    assert len(call(f"{base}?per_page=500")[2]) == 69  # capped at 100
    assert len(call(f"{base}?per_page=10&page=7")[2]) == 9
    status, headers, body = call(f"{base}?page=9")
    assert (status, body) == (200, [])
    assert "next" not in links(headers)


def test_errors(handle: ServiceHandle) -> None:
    base = handle.base_url
    status, _, body = call(f"{base}/repos/example/shop/pulls/999")
    assert status == 404 and body["message"] == "Not Found" and "documentation_url" in body
    assert call(f"{base}/repos/nobody/nothing")[0] == 404
    assert call(f"{base}/repos/other/shop/pulls/comments/{DOUBLE_ROUNDING_COMMENT_ID}")[0] == 404
    assert call(f"{base}/repos/example/shop", token=None)[2]["message"] == "Requires authentication"
    status, headers, body = call(f"{base}/repos/example/shop", token="wrong")
    assert (status, body["message"]) == (401, "Bad credentials")
    assert "X-RateLimit-Remaining" in headers
    post = f"{base}/repos/example/shop/issues/128/comments"
    for payload in (b"{}", b'{"body": ""}', b'{"body": 3}'):
        status, _, body = call(post, method="POST", data=payload)
        assert status == 422 and body["errors"][0]["field"] == "body"
    status, _, body = call(post, method="POST", data=b"{not json")
    assert (status, body["message"]) == (400, "Problems parsing JSON")


def test_post_then_get(handle: ServiceHandle) -> None:
    url = f"{handle.base_url}/repos/example/shop/issues/128/comments"
    status, headers, created = call(url, method="POST", data=b'{"body": "Summary posted."}')
    assert status == 201 and headers["Location"] == created["url"]
    assert call(created["url"])[2]["body"] == "Summary posted."
    listed = call(f"{url}?per_page=100")[2]
    assert listed[-1]["id"] == created["id"] and len(listed) == 11


def test_comment_added_between_pages_is_listed_last(
    handle: ServiceHandle, store: GitHubStore
) -> None:
    url = f"{handle.base_url}/repos/example/shop/pulls/128/comments"
    _, headers, _ = call(url)
    added = store.add_review_comment(
        "example/shop", 128, user=store.viewer, body="late", path="a.ts", line=1
    )
    _, _, last = call(links(headers)["last"])
    assert last[-1]["id"] == added.id


def graphql(handle: ServiceHandle, query: str, **variables: Any) -> Any:
    data = json.dumps({"query": query, "variables": variables}).encode()
    return call(f"{handle.base_url}/graphql", method="POST", data=data)


def test_graphql_review_threads(handle: ServiceHandle, store: GitHubStore) -> None:
    threads: list[dict[str, Any]] = []
    after = None
    while True:
        status, headers, body = graphql(
            handle, REVIEW_THREADS_QUERY_SHAPE, owner="example", name="shop", number=128,
            first=25, after=after,
        )  # fmt: skip
        assert status == 200 and headers["X-RateLimit-Resource"] == "graphql"
        connection = body["data"]["repository"]["pullRequest"]["reviewThreads"]
        threads += connection["nodes"]
        if not connection["pageInfo"]["hasNextPage"]:
            break
        after = connection["pageInfo"]["endCursor"]
    expected = store.review_threads("example/shop", 128)
    assert [t["isResolved"] for t in threads] == [t.is_resolved for t in expected]
    assert [t["isOutdated"] for t in threads] == [t.is_outdated for t in expected]
    by_first = {t["comments"]["nodes"][0]["databaseId"]: t for t in threads}
    rounding = by_first[DOUBLE_ROUNDING_COMMENT_ID]
    where = (rounding["path"], rounding["line"], rounding["isResolved"])
    assert where == ("src/cart/checkout.ts", 11, False)
    assert sum(len(t["comments"]["nodes"]) for t in threads) == 69


def test_graphql_errors(handle: ServiceHandle) -> None:
    assert "errors" in graphql(handle, "{ viewer { login } }")[2]
    assert "errors" in graphql(handle, "query { repository(")[2]
    bad = graphql(handle, REVIEW_THREADS_QUERY_SHAPE, owner="nobody", name="x", number=1, first=5)
    assert "Could not resolve" in bad[2]["errors"][0]["message"]


def test_the_client_query_is_one_the_emulator_answers(
    handle: ServiceHandle, store: GitHubStore
) -> None:
    # the exact text GitHubClient.review_threads posts, with the variables it sends
    status, _, body = graphql(
        handle, REVIEW_THREADS_QUERY, owner="example", name="shop", number=128
    )
    assert status == 200 and "errors" not in body
    connection = body["data"]["repository"]["pullRequest"]["reviewThreads"]
    expected = store.review_threads("example/shop", 128)
    assert connection["pageInfo"]["hasNextPage"] is False  # 100 threads a page; fewer here
    assert [t["isResolved"] for t in connection["nodes"]] == [t.is_resolved for t in expected]
    assert [t["isOutdated"] for t in connection["nodes"]] == [t.is_outdated for t in expected]
    assert [[c["databaseId"] for c in t["comments"]["nodes"]] for t in connection["nodes"]] == [
        t.comment_ids for t in expected
    ]


def test_the_client_reads_every_thread_state_from_the_emulator() -> None:
    store = make_large_pr(1500)
    threads = store.review_threads("example/large", 1)
    assert len(threads) > 100  # more than one GraphQL page: the client follows `after`
    with serve(store) as running, GitHubClient(running.base_url) as client:
        states = client.review_threads("example/large", 1)
    assert states == {
        comment_id: ThreadState(t.is_resolved, t.is_outdated)
        for t in threads
        for comment_id in t.comment_ids
    }


def test_clean_shutdown() -> None:
    with serve(build_store()) as running:
        status, _, _ = call(f"{running.base_url}/repos/example/shop", token=None)
        assert status == 200
        # an open keep-alive connection must not keep the server alive
        idle = socket.create_connection(("127.0.0.1", running.port), timeout=5)
    assert not running.thread.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", running.port), timeout=1)
    idle.close()


def test_pygithub_lists_pages_and_posts(handle: ServiceHandle, store: GitHubStore) -> None:
    import github  # PyGithub, a declared test dependency: a missing one fails, never skips

    client = github.Github(
        base_url=handle.base_url,
        auth=github.Auth.Token(TOKEN),
        retry=None,
        seconds_between_requests=None,  # PyGithub throttles by default (0.25 s, 1 s per write)
        seconds_between_writes=None,
    )
    pull = client.get_repo("example/shop").get_pull(128)
    assert pull.title.startswith("Refresh tokens")
    comments = list(pull.get_review_comments())
    assert [c.id for c in comments] == [c.id for c in store.review_comments("example/shop", 128)]
    rounding = next(c for c in comments if c.id == DOUBLE_ROUNDING_COMMENT_ID)
    assert (rounding.path, rounding.line) == ("src/cart/checkout.ts", 11)
    assert len(list(pull.get_issue_comments())) == 10
    posted = pull.create_issue_comment("No blocking comments found after reading all pages.")
    assert posted.user.login == store.viewer.login
    assert store.issue_comments("example/shop", 128)[-1].id == posted.id
    assert pull.get_issue_comments().totalCount == 11
    client.close()
