"""The PR tools: keyset paging, coverage, filters, cursors, summaries, envelopes.

Unit tests run against an ``httpx.MockTransport`` serving GitHub-shaped pages from a small
fixture; integration tests (at the end) run against the emulator over real HTTP.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tutorial_lib.agent.budget import context_budget
from tutorial_lib.core.contracts import ENVELOPE_SCHEMA, ContractError, LogRecord, dumps
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import PendingCall, Station
from tutorial_lib.core.tools import GITHUB_READ_ONLY, Registry
from tutorial_lib.emulator import fixtures
from tutorial_lib.emulator.service import serve
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import (
    LIST_COMMENTS_DATA_SCHEMA,
    READ_SPECS,
    GitHubToolContext,
    github_tool_specs,
    summarize_comment,
)

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
DATA = Draft202012Validator(LIST_COMMENTS_DATA_SCHEMA)
REPO, PR = "example/shop", 128


class FakeGitHub:
    """GitHub's REST subset + the reviewThreads query, in memory, for a MockTransport."""

    def __init__(self, comments: int = 23) -> None:
        self.next_id = 1000
        self.comments: dict[tuple[str, int], list[dict[str, Any]]] = {
            (REPO, PR): [],
            ("other/shop", PR): [],
        }
        self.resolved: set[int] = set()
        self.requests = 0
        self.graphql = 0
        for i in range(comments):
            self.add(REPO, PR, f"comment {i}: rename `x` to `y`.", resolved=i % 3 == 0)
        self.add("other/shop", PR, "other repository's comment")

    def add(self, repo: str, pr: int, body: str, *, resolved: bool = False) -> int:
        self.next_id += 1
        cid = self.next_id
        self.comments[(repo, pr)].append(
            {
                "id": cid,
                "path": "src/cart/checkout.ts",
                "line": 11,
                "original_line": 11,
                "body": body,
                "user": {"login": "mei", "type": "User"},
                "created_at": "2025-03-03T09:00:00Z",
                "pull_request_url": f"http://gh.test/repos/{repo}/pulls/{pr}",
            }
        )
        if resolved:
            self.resolved.add(cid)
        return cid

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        path = request.url.path
        if path == "/graphql":
            self.graphql += 1
            v = json.loads(request.content)["variables"]
            key = (f"{v['owner']}/{v['name']}", v["number"])
            if key not in self.comments:
                return httpx.Response(200, json={"data": {"repository": None}})
            nodes = [
                {
                    "isResolved": c["id"] in self.resolved,
                    "isOutdated": False,
                    "comments": {"nodes": [{"databaseId": c["id"]}]},
                }
                for c in self.comments[key]
            ]
            threads = {"pageInfo": {"hasNextPage": False, "endCursor": None}, "nodes": nodes}
            return httpx.Response(
                200, json={"data": {"repository": {"pullRequest": {"reviewThreads": threads}}}}
            )
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)/pulls/(\d+)(/comments)?", path)
        if match and (match[1], int(match[2])) in self.comments:
            key = (match[1], int(match[2]))
            if not match[3]:
                return httpx.Response(200, json={"number": key[1], "title": "Refresh tokens"})
            page = int(request.url.params.get("page", 1))
            per_page = int(request.url.params.get("per_page", 30))
            items = self.comments[key][(page - 1) * per_page : page * per_page]
            headers = {}
            if page * per_page < len(self.comments[key]):
                url = request.url.copy_merge_params({"page": page + 1})
                headers["Link"] = f'<{url}>; rel="next"'
            return httpx.Response(200, json=items, headers=headers)
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)/pulls/comments/(\d+)", path)
        if match:
            for (repo, _), items in self.comments.items():
                for c in items:
                    if repo == match[1] and c["id"] == int(match[2]):
                        return httpx.Response(200, json=c)
        return httpx.Response(404, json={"message": "Not Found"})


def make_context(fake: FakeGitHub, **limits: int) -> GitHubToolContext:
    client = GitHubClient("http://gh.test", transport=httpx.MockTransport(fake))
    return GitHubToolContext(client, CursorCodec(b"s" * 32), **limits)


def call(
    context: GitHubToolContext,
    name: str,
    args: Any,
    *,
    log: list[LogRecord] | None = None,
    stations: Sequence[Station] = (),
) -> Any:
    """One call of a read tool bound to ``context``, along the road of a host of the read
    tools (read-only: no guards needed; a test's own ``stations`` are its extra stations)."""
    host = Host(Registry(github_tool_specs(context)), log=log, extra_stations=stations)
    return host.call(name, args)


def github_pr_get(context: GitHubToolContext, args: Any) -> dict[str, Any]:
    return call(context, "github_pr_get", args)


def github_pr_list_comments(context: GitHubToolContext, args: Any) -> dict[str, Any]:
    return call(context, "github_pr_list_comments", args)


def github_pr_get_comment(context: GitHubToolContext, args: Any) -> dict[str, Any]:
    return call(context, "github_pr_get_comment", args)


def checked(envelope: dict[str, Any]) -> dict[str, Any]:
    ENVELOPE.validate(envelope)
    json.dumps(envelope, allow_nan=False)
    if envelope["ok"] and envelope["tool"] == "github_pr_list_comments":
        DATA.validate(envelope["data"])
    return envelope


def read_all(context: GitHubToolContext, args: dict[str, Any], between=None) -> list[int]:
    seen: list[int] = []
    cursor = None
    for _ in range(200):
        call = {**args, **({"cursor": cursor} if cursor else {})}
        data = checked(github_pr_list_comments(context, call))["data"]
        seen += [c["comment_id"] for c in data["comments"]]
        if data["coverage"] == "complete":
            assert data["next_cursor"] is None
            return seen
        cursor = data["next_cursor"]
        if between:
            between()
    raise AssertionError("never complete")


@pytest.mark.parametrize("page_size", [1, 3, 7, 10, 23, 50])
@pytest.mark.parametrize("upstream", [2, 5, 100])
def test_reading_to_completion_visits_every_comment_once(page_size: int, upstream: int) -> None:
    fake = FakeGitHub()
    context = make_context(fake, upstream_per_page=upstream)
    seen = read_all(context, {"repository": REPO, "pr": PR, "page_size": page_size})
    assert seen == [c["id"] for c in fake.comments[(REPO, PR)]]


def test_comments_inserted_between_pages_are_neither_skipped_nor_repeated() -> None:
    fake = FakeGitHub()
    context = make_context(fake, upstream_per_page=4)
    seen = read_all(
        context,
        {"repository": REPO, "pr": PR, "page_size": 5},
        between=lambda: fake.add(REPO, PR, "a new remark"),
    )
    assert len(seen) == len(set(seen))
    assert seen == [c["id"] for c in fake.comments[(REPO, PR)]]


def test_deleted_comments_do_not_make_the_next_page_skip() -> None:
    fake = FakeGitHub()
    context = make_context(fake, upstream_per_page=3)
    args = {"repository": REPO, "pr": PR, "page_size": 10}
    first = checked(github_pr_list_comments(context, args))["data"]
    del fake.comments[(REPO, PR)][:6]  # earlier comments deleted: later pages shift left
    rest = read_all(context, {**args, "cursor": first["next_cursor"]})
    ids = [c["id"] for c in fake.comments[(REPO, PR)]]
    assert rest == [i for i in ids if i > first["comments"][-1]["comment_id"]]


def test_filter_unresolved() -> None:
    fake = FakeGitHub()
    context = make_context(fake, upstream_per_page=4)
    seen = read_all(context, {"repository": REPO, "pr": PR, "filter": "unresolved"})
    assert seen == [c["id"] for c in fake.comments[(REPO, PR)] if c["id"] not in fake.resolved]


def test_an_empty_page_with_a_cursor_is_not_the_end() -> None:
    fake = FakeGitHub(comments=0)
    for _ in range(6):
        fake.add(REPO, PR, "resolved long ago", resolved=True)
    last = fake.add(REPO, PR, "Maybe this leaks memory?")
    context = make_context(fake, upstream_per_page=2, max_upstream_pages=1)
    args = {"repository": REPO, "pr": PR, "filter": "unresolved"}
    first = checked(github_pr_list_comments(context, args))["data"]
    assert first["comments"] == [] and first["coverage"] == "partial" and first["next_cursor"]
    assert read_all(context, args) == [last]


def test_complete_only_after_the_last_page() -> None:
    fake = FakeGitHub(comments=10)
    context = make_context(fake, upstream_per_page=5)
    args = {"repository": REPO, "pr": PR, "page_size": 5}
    first = checked(github_pr_list_comments(context, args))["data"]
    assert first["coverage"] == "partial"
    second = github_pr_list_comments(context, {**args, "cursor": first["next_cursor"]})
    assert checked(second)["data"]["coverage"] == "complete"


def test_details_entry_is_a_valid_call_and_stays_in_the_repository() -> None:
    fake = FakeGitHub()
    context = make_context(fake)
    comment = github_pr_list_comments(context, {"repository": REPO, "pr": PR})["data"]["comments"][
        0
    ]
    details = comment["details"]
    assert details["name"] == "github_pr_get_comment"
    got = checked(github_pr_get_comment(context, details["arguments"]))
    assert got["ok"] and got["data"]["body"].startswith("comment 0")
    other_id = fake.comments[("other/shop", PR)][0]["id"]
    crossed = checked(
        github_pr_get_comment(context, {**details["arguments"], "comment_id": other_id})
    )
    assert crossed["error"]["code"] == "not_found"


def test_not_found_repository_and_pr() -> None:
    context = make_context(FakeGitHub())
    for args in ({"repository": "nobody/shop", "pr": PR}, {"repository": REPO, "pr": 999}):
        for tool in (github_pr_get, github_pr_list_comments):
            error = checked(tool(context, args))["error"]
            assert error["code"] == "not_found" and "another repository" in error["suggestion"]


@pytest.mark.parametrize(
    "change", [{"repository": "other/shop"}, {"filter": "unresolved"}, {"page_size": 3}]
)
def test_cursor_of_another_query_is_refused(change: dict[str, Any]) -> None:
    context = make_context(FakeGitHub())
    args = {"repository": REPO, "pr": PR}
    cursor = github_pr_list_comments(context, args)["data"]["next_cursor"]
    error = checked(github_pr_list_comments(context, {**args, **change, "cursor": cursor}))["error"]
    assert error["code"] == "invalid_cursor" and error["retry"] == "after_input_correction"
    assert "without 'cursor'" in error["suggestion"]


def test_tampered_and_foreign_cursors_are_refused() -> None:
    fake = FakeGitHub()
    args = {"repository": REPO, "pr": PR}
    cursor = github_pr_list_comments(make_context(fake), args)["data"]["next_cursor"]
    flipped = cursor[:10] + ("A" if cursor[10] != "A" else "B") + cursor[11:]
    foreign = GitHubToolContext(make_context(fake).client, CursorCodec(b"z" * 32))
    for context, token in ((make_context(fake), flipped), (foreign, cursor)):
        error = checked(github_pr_list_comments(context, {**args, "cursor": token}))["error"]
        assert error["code"] == "invalid_cursor"


def test_detailed_costs_more_characters_than_concise() -> None:
    context = make_context(FakeGitHub())
    args = {"repository": REPO, "pr": PR, "page_size": 20}
    concise = dumps(github_pr_list_comments(context, args))
    detailed = dumps(github_pr_list_comments(context, {**args, "response_format": "detailed"}))
    assert len(detailed) > len(concise)


def test_every_list_follows_links_in_one_loop_and_never_leaves_the_origin() -> None:
    hosts: list[str] = []

    def serve_pages(request: httpx.Request) -> httpx.Response:
        hosts.append(request.url.host)
        page = int(request.url.params.get("page", 1))
        origin = "http://gh.test" if page == 1 else "http://elsewhere.test"
        link = f'<{origin}{request.url.path}?page={page + 1}&per_page=2>; rel="next"'
        return httpx.Response(200, json=[{"id": page}], headers={"Link": link})

    client = GitHubClient("http://gh.test", transport=httpx.MockTransport(serve_pages))
    for read in (
        lambda: list(client.iter_review_comments(REPO, PR, per_page=2)),
        lambda: client.list_issue_comments(REPO, PR, per_page=2),
    ):
        with pytest.raises(ContractError) as caught:
            read()
        error = caught.value
        assert (error.code, error.fields["retry"]) == ("temporary_unavailable", "never")
        assert error.log["next_host"] == "elsewhere.test"
    assert hosts == ["gh.test"] * 4  # page 1 then page 2 of each list, never elsewhere


HEDGED = [
    (
        "I think this rounds the discount twice (per line and on the total); could you check?",
        "Reviewer reports a possible double processing (unconfirmed)",
    ),
    ("This might double-refund if the webhook arrives twice?", "possible double processing"),
    ("Maybe we should retry on 429 here? Not sure.", "Reviewer tentatively suggests"),
    ("Is the refresh token rotated on every refresh?", "Reviewer asks"),
    ("It seems the cache is never cleared.", "Reviewer suspects (unconfirmed)"),
]


@pytest.mark.parametrize(("body", "expected"), HEDGED)
def test_hedging_is_kept(body: str, expected: str) -> None:
    summary = summarize_comment(body, "mei")
    assert expected in summary and len(summary) <= 140
    assert "confirmed:" not in summary.replace("unconfirmed", "")


@pytest.mark.parametrize(
    ("body", "author", "prefix"),
    [
        ("Added line #L14 was not covered by tests", "codecov[bot]", 'Bot: "Added line'),
        ("nit: missing full stop.", "mei", 'Reviewer nit: "missing full stop."'),
        ("Please use `db.query` with parameters.", "arjun", "Reviewer requests:"),
        ("Rename `tmp` to `pendingItems`.", "arjun", "Reviewer requests:"),
        ("Not a blocker, but consider a helper.", "arjun", "Reviewer suggests:"),
        ("The migration aborts on staging.", "mei", "Reviewer reports:"),
        ("", "mei", "Reviewer left an empty comment"),
    ],
)
def test_summary_rules(body: str, author: str, prefix: str) -> None:
    assert summarize_comment(body, author).startswith(prefix)
    assert summarize_comment(body, author) == summarize_comment(body, author)


def test_long_bodies_are_cut() -> None:
    summary = summarize_comment("Please " + "change this thing " * 40, "mei")
    assert len(summary) <= 140 and summary.endswith('…"')


def test_specs_run_through_the_road() -> None:
    registry = Registry(github_tool_specs(make_context(FakeGitHub())))
    result = Host(registry).call("github_pr_list_comments", {"repository": REPO, "pr": PR})
    assert result["ok"] and result["data"]["coverage"] == "partial"


def test_each_tool_is_declared_once_as_a_read_only_spec() -> None:
    names = [spec.name for spec in READ_SPECS]
    assert names == ["github_pr_get", "github_pr_list_comments", "github_pr_get_comment"]
    bound = github_tool_specs(make_context(FakeGitHub()))
    assert [spec.name for spec in bound] == names
    assert all(spec.annotations == GITHUB_READ_ONLY for spec in READ_SPECS)
    assert all(spec.context is None for spec in READ_SPECS)  # binding copies, never mutates


def test_a_bad_cursor_is_refused_before_github_is_asked() -> None:
    fake = FakeGitHub()
    context = make_context(fake)
    log: list[LogRecord] = []
    args = {"repository": REPO, "pr": PR, "cursor": "AAAA"}
    error = checked(call(context, "github_pr_list_comments", args, log=log))["error"]
    assert error["code"] == "invalid_cursor"
    assert (fake.requests, log[0].station) == (0, "business_check")


def test_a_refused_call_never_reaches_github() -> None:
    def deny(call: PendingCall) -> None:
        raise ContractError("permission_denied", "this repository is outside the task")

    fake = FakeGitHub()
    context = make_context(fake)
    stations = [Station("scope", "authorization", deny)]
    for name, extra in (
        ("github_pr_get", {}),
        ("github_pr_list_comments", {}),
        ("github_pr_get_comment", {"comment_id": 1001}),
    ):
        args = {"repository": REPO, "pr": PR, **extra}
        error = checked(call(context, name, args, stations=stations))["error"]
        assert (error["code"], error["operation_state"]) == ("permission_denied", "not_applied")
    assert fake.requests == 0


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_keys = st.sampled_from(
    ["repository", "pr", "cursor", "page_size", "response_format", "filter", "comment_id", "x"]
)
_args = st.dictionaries(
    _keys, _values | st.sampled_from([REPO, PR, 1, 50, "unresolved"]), max_size=6
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=_args | _values)
def test_arbitrary_arguments_never_raise(args: Any) -> None:
    context = make_context(FakeGitHub(comments=5))
    for spec in READ_SPECS:
        checked(call(context, spec.name, args))


# --------------------------------------------------------------------------- the emulator


def test_against_the_emulator_over_http() -> None:
    store = fixtures.build_store()
    with serve(store) as handle, GitHubClient(handle.base_url) as client:
        context = GitHubToolContext(client, CursorCodec(b"e" * 32), upstream_per_page=30)
        rest_ids = [c["id"] for c in client.iter_review_comments(REPO, PR, per_page=30)]
        assert len(rest_ids) == len(set(rest_ids)) == len(store.review_comments(REPO, PR))
        args = {"repository": REPO, "pr": PR, "page_size": 7}
        assert read_all(context, args) == rest_ids
        rounding = summarize_comment(fixtures.DOUBLE_ROUNDING_BODY, "mei")
        assert "possible" in rounding
        unresolved = read_all(context, {**args, "filter": "unresolved"})
        assert fixtures.DOUBLE_ROUNDING_COMMENT_ID in unresolved
        assert set(unresolved) < set(rest_ids)
        other = github_pr_get_comment(
            context,
            {
                "repository": "other/shop",
                "pr": PR,
                "comment_id": fixtures.DOUBLE_ROUNDING_COMMENT_ID,
            },
        )
        assert checked(other)["error"]["code"] == "not_found"


def test_inserts_during_reading_against_the_emulator() -> None:
    store = fixtures.build_store()
    user = fixtures.User("late-reviewer", 99)
    with serve(store) as handle, GitHubClient(handle.base_url) as client:
        context = GitHubToolContext(client, CursorCodec(b"e" * 32), upstream_per_page=30)
        seen = read_all(
            context,
            {"repository": REPO, "pr": PR, "page_size": 10},
            between=lambda: store.add_review_comment(REPO, PR, user=user, body="late", path="a.ts"),
        )
        assert seen == [c.id for c in store.review_comments(REPO, PR)]


# --------------------------------------------------------------------------- thread-state cache


def test_thread_states_are_fetched_once_per_listing() -> None:
    fake = FakeGitHub()  # 23 comments
    context = make_context(fake, upstream_per_page=4)
    args = {"repository": REPO, "pr": PR, "page_size": 5}
    assert len(read_all(context, args)) == 23  # 5 pages
    assert fake.graphql == 1  # was 5: one reviewThreads query per page
    read_all(context, args)  # a new listing (no cursor) refetches
    assert fake.graphql == 2
    first = checked(github_pr_list_comments(context, args))["data"]
    cid = first["comments"][0]["comment_id"]
    checked(github_pr_get_comment(context, {"repository": REPO, "pr": PR, "comment_id": cid}))
    assert fake.graphql == 3  # the get_comment reused the map of the listing


def test_a_comment_added_between_pages_triggers_one_refresh() -> None:
    fake = FakeGitHub()
    context = make_context(fake, upstream_per_page=4)
    args = {"repository": REPO, "pr": PR, "page_size": 5, "filter": "unresolved"}
    first = checked(github_pr_list_comments(context, args))["data"]
    late = fake.add(REPO, PR, "late and resolved", resolved=True)
    fresh = fake.add(REPO, PR, "late and open")
    rest = read_all(context, {**args, "cursor": first["next_cursor"]})
    assert fresh in rest and late not in rest  # the refresh knew the late thread's state
    assert fake.graphql == 2


def test_resolution_changes_show_from_the_next_listing() -> None:
    fake = FakeGitHub(comments=10)
    context = make_context(fake, upstream_per_page=5)
    args = {"repository": REPO, "pr": PR, "page_size": 5}
    first = checked(github_pr_list_comments(context, args))["data"]
    last_id = fake.comments[(REPO, PR)][-2]["id"]
    assert last_id not in fake.resolved
    fake.resolved.add(last_id)  # resolved while the model reads
    second = checked(github_pr_list_comments(context, {**args, "cursor": first["next_cursor"]}))
    assert second["data"]["comments"][-2]["resolved"] is False  # as of the listing's start
    again = read_all(context, {**args, "filter": "unresolved"})
    assert last_id not in again


def test_the_cache_keeps_a_bounded_number_of_prs() -> None:
    fake = FakeGitHub()
    context = make_context(fake, thread_cache_size=1)
    for repo in (REPO, "other/shop", REPO):
        checked(github_pr_list_comments(context, {"repository": repo, "pr": PR}))
    assert list(context.thread_cache) == [(REPO, PR)]


def test_graphql_requests_do_not_grow_with_depth_against_the_emulator() -> None:
    store = fixtures.make_large_pr(1500)
    threads = len(store.review_threads("example/large", 1))
    graphql: list[str] = []

    class Counting(httpx.HTTPTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.path == "/graphql":
                graphql.append(request.url.path)
            return super().handle_request(request)

    with serve(store) as handle:
        client = GitHubClient(handle.base_url, transport=Counting())
        context = GitHubToolContext(client, CursorCodec(b"e" * 32))
        seen = read_all(context, {"repository": "example/large", "pr": 1, "page_size": 50})
        client.close()
    assert len(seen) == 1500  # 30 tool pages
    assert len(graphql) == -(-threads // 100)  # one listing's worth, not 30 times that


def test_context_budget_figures() -> None:
    budget = context_budget(fixtures.build_store())
    assert budget == {
        "dump_everything": 163916,
        "detailed_pages": 30668,
        "concise_pages": 22572,
        "concise_plus_details": 39395,
        "unresolved_plus_details": 20690,
    }
    assert context_budget(fixtures.build_store()) == budget
