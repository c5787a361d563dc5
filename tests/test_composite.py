"""github_pr_get_review_snapshot: the composite read tool, through the road, on the emulator."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tutorial_lib.core.contracts import ENVELOPE_SCHEMA
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import GITHUB_READ_ONLY, Registry
from tutorial_lib.design.lint import lint
from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import InProcessHandle, serve_in_process
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.composite import (
    REVIEW_SNAPSHOT,
    REVIEW_SNAPSHOT_DATA_SCHEMA,
    REVIEW_SNAPSHOT_SPEC,
    composite_tool_specs,
)
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import READ_SPECS, GitHubToolContext, github_tool_specs

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
DATA = Draft202012Validator(REVIEW_SNAPSHOT_DATA_SCHEMA)
REPO, PR = "example/shop", 128


def _registry(handle: InProcessHandle, client: GitHubClient, **caps: int) -> Registry:
    context = GitHubToolContext(client, CursorCodec(b"c" * 32))
    return Registry([*github_tool_specs(context), *composite_tool_specs(context, **caps)])


@pytest.fixture
def emulator() -> Iterator[tuple[InProcessHandle, GitHubClient]]:
    with (
        serve_in_process(build_store()) as handle,
        GitHubClient(handle.base_url, transport=handle.transport()) as client,
    ):
        yield handle, client


def _valid(envelope: Any) -> Any:
    """The envelope, once it validates against ENVELOPE_SCHEMA (typed loosely for tests)."""
    errors = [e.message for e in ENVELOPE.iter_errors(envelope)]
    assert errors == []
    return envelope


def _paged_ids(registry: Registry, query_filter: str) -> list[int]:
    """Comment ids of github_pr_list_comments, paged to the end."""
    args: dict[str, Any] = {"repository": REPO, "pr": PR, "filter": query_filter}
    ids: list[int] = []
    while True:
        page = Host(registry).call("github_pr_list_comments", args)
        assert page["ok"] is True
        ids += [c["comment_id"] for c in page["data"]["comments"]]
        if page["data"]["coverage"] == "complete":
            return ids
        args["cursor"] = page["data"]["next_cursor"]


def _only_reads(handle: InProcessHandle) -> None:
    assert handle.requests
    for request in handle.requests:
        assert request.method == "GET" or (request.method, request.path) == ("POST", "/graphql")


def test_the_spec_is_declared_read_only() -> None:
    assert REVIEW_SNAPSHOT_SPEC.annotations == GITHUB_READ_ONLY
    assert REVIEW_SNAPSHOT_SPEC.input_schema["additionalProperties"] is False
    assert REVIEW_SNAPSHOT_SPEC.input_schema["required"] == ["repository", "pr"]


@pytest.mark.parametrize("query_filter", ["all", "unresolved"])
def test_complete_snapshot_matches_paging_to_the_end(
    emulator: tuple[InProcessHandle, GitHubClient], query_filter: str
) -> None:
    handle, client = emulator
    registry = _registry(handle, client)
    expected = _paged_ids(registry, query_filter)
    handle.requests.clear()
    got = _valid(
        Host(registry).call(REVIEW_SNAPSHOT, {"repository": REPO, "pr": PR, "filter": query_filter})
    )
    assert got["ok"] is True
    data = got["data"]
    assert list(DATA.iter_errors(data)) == []
    assert got["source"] == {"system": "github", "resource": f"repos/{REPO}/pulls/{PR}"}
    assert [c["comment_id"] for c in data["comments"]] == expected
    assert data["read_only"] is True
    assert (data["repository"], data["pr"]) == (REPO, PR)
    pull = handle.store.pull_request(REPO, PR)
    assert pull is not None
    assert data["title"] == pull.title and data["head_sha"] == pull.head_sha
    assert data["description"] == pull.body
    assert data["author"] == pull.user.login and data["state"] == "open"
    scope = data["scope"]
    assert scope["coverage"] == "complete" and "reason" not in scope
    assert scope["comments_read"] == len(expected) and scope["filter"] == query_filter
    assert scope["pages_read"] >= 1
    first = data["comments"][0]
    assert first["details"] == {
        "name": "github_pr_get_comment",
        "arguments": {"repository": REPO, "pr": PR, "comment_id": first["comment_id"]},
    }
    assert {"file", "line", "summary", "resolved"} <= first.keys()
    _only_reads(handle)


def test_the_cap_gives_partial_coverage_with_the_reason(
    emulator: tuple[InProcessHandle, GitHubClient],
) -> None:
    handle, client = emulator
    registry = _registry(handle, client, max_comments=7)
    everything = _paged_ids(registry, "all")
    assert len(everything) > 7
    got = _valid(Host(registry).call(REVIEW_SNAPSHOT, {"repository": REPO, "pr": PR}))
    data = got["data"]
    assert list(DATA.iter_errors(data)) == []
    assert [c["comment_id"] for c in data["comments"]] == everything[:7]
    scope = data["scope"]
    assert scope["coverage"] == "partial" and scope["comments_read"] == 7
    assert scope["reason"] == "comment cap of 7 reached before the last page"
    # The cursor continues exactly where the snapshot stopped.
    assert scope["next_tool"] == "github_pr_list_comments"
    more = _valid(
        Host(registry).call(
            "github_pr_list_comments",
            {
                "repository": REPO,
                "pr": PR,
                "filter": "all",
                "page_size": 7,
                "cursor": scope["next_cursor"],
            },
        )
    )
    assert [c["comment_id"] for c in more["data"]["comments"]] == everything[7:14]
    _only_reads(handle)


def test_the_page_cap_gives_partial_coverage(
    emulator: tuple[InProcessHandle, GitHubClient],
) -> None:
    handle, client = emulator
    registry = _registry(handle, client, max_pages=1)
    # PR 128 has more comments than one page of 50: one page is not the whole list.
    data = _valid(Host(registry).call(REVIEW_SNAPSHOT, {"repository": REPO, "pr": PR}))["data"]
    assert list(DATA.iter_errors(data)) == []
    assert data["scope"]["coverage"] == "partial" and data["scope"]["pages_read"] == 1
    assert data["scope"]["comments_read"] == 50
    assert data["scope"]["reason"] == "page cap of 1 pages reached before the last page"


def test_a_cap_inside_a_page_says_more_comments_exist(
    emulator: tuple[InProcessHandle, GitHubClient],
) -> None:
    handle, client = emulator
    # A cap of 60 with pages of 50: the second page is cut at 10 of its 19 comments.
    registry = _registry(handle, client, max_comments=60)
    expected = _paged_ids(registry, "all")
    data = _valid(Host(registry).call(REVIEW_SNAPSHOT, {"repository": REPO, "pr": PR}))["data"]
    assert list(DATA.iter_errors(data)) == []
    assert [c["comment_id"] for c in data["comments"]] == expected[:60]
    scope = data["scope"]
    assert scope["coverage"] == "partial"
    assert scope["reason"] == "comment cap of 60 reached; more comments exist"
    assert scope["next_cursor"] is None and scope["next_tool"] is None


@pytest.mark.parametrize(
    "args",
    [
        {"repository": "other/shop", "pr": 4242},
        {"repository": REPO, "pr": 999},
        {"repository": "nobody/nothing", "pr": PR},
    ],
)
def test_not_found_is_worded_as_the_read_tools_word_it(
    emulator: tuple[InProcessHandle, GitHubClient], args: dict[str, Any]
) -> None:
    handle, client = emulator
    registry = _registry(handle, client)
    got = _valid(Host(registry).call(REVIEW_SNAPSHOT, args))
    read = Host(registry).call("github_pr_get", args)
    assert got["ok"] is False and read["ok"] is False
    assert got["error"] == read["error"]
    assert got["error"]["code"] == "not_found"
    _only_reads(handle)


def test_other_repository_pr_128_is_another_object(
    emulator: tuple[InProcessHandle, GitHubClient],
) -> None:
    handle, client = emulator
    registry = _registry(handle, client)
    ours = _valid(Host(registry).call(REVIEW_SNAPSHOT, {"repository": REPO, "pr": PR}))["data"]
    theirs = _valid(Host(registry).call(REVIEW_SNAPSHOT, {"repository": "other/shop", "pr": PR}))[
        "data"
    ]
    assert theirs["repository"] == "other/shop" and theirs["title"] != ours["title"]
    assert not {c["comment_id"] for c in ours["comments"]} & {
        c["comment_id"] for c in theirs["comments"]
    }


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"repository": REPO, "pr": PR, "filter": "blocking"}, "filter"),
        ({"repository": REPO, "pr": PR, "cursor": "x"}, "cursor"),
        ({"repository": "shop", "pr": PR}, "repository"),
    ],
)
def test_the_schema_is_strict(
    emulator: tuple[InProcessHandle, GitHubClient], args: dict[str, Any], field: str
) -> None:
    handle, client = emulator
    got = _valid(Host(_registry(handle, client)).call(REVIEW_SNAPSHOT, args))
    assert got["ok"] is False and got["error"]["field"] == field
    assert handle.requests == []


def test_the_library_linter_accepts_the_spec() -> None:
    assert lint([*READ_SPECS, REVIEW_SNAPSHOT_SPEC]) == []


def test_inner_calls_travel_the_host_authorized_and_logged(
    emulator: tuple[InProcessHandle, GitHubClient],
) -> None:
    from tutorial_lib.core.authorization import TaskScope, github_access

    handle, client = emulator
    scope = TaskScope(repositories=frozenset({REPO}), grants=frozenset({"read"}))
    access = {
        REVIEW_SNAPSHOT: github_access("read"),
        "github_pr_list_comments": github_access("read"),
    }
    host = Host(_registry(handle, client), access=access, scope=scope)
    got = _valid(host.call(REVIEW_SNAPSHOT, {"repository": REPO, "pr": PR}))
    pages = got["data"]["scope"]["pages_read"]
    tools = [record.tool for record in host.log]
    # every page is a call of its own in the operator's log, then the composite's record
    assert tools == ["github_pr_list_comments"] * pages + [REVIEW_SNAPSHOT]
    assert all(record.outcome == "ok" for record in host.log)
    # an access map without the list tool: the inner call is refused, so is the snapshot
    narrow = Host(
        _registry(handle, client), access={REVIEW_SNAPSHOT: access[REVIEW_SNAPSHOT]}, scope=scope
    )
    refused = narrow.call(REVIEW_SNAPSHOT, {"repository": REPO, "pr": PR})
    assert refused["ok"] is False and refused["error"]["code"] == "permission_denied"
    assert [r.station for r in narrow.log] == ["authorization", "execution"]


def test_a_composite_outside_a_host_is_a_bug() -> None:
    from tutorial_lib.core.road import StationBug

    context = REVIEW_SNAPSHOT_SPEC.context
    assert context is None or context.call is None
    with pytest.raises(StationBug, match="only through a host"):
        spec = composite_tool_specs(GitHubToolContext(None, CursorCodec(b"c" * 32)))[0]  # type: ignore[arg-type]
        assert spec.execute is not None
        spec.execute(spec.context, {"repository": REPO, "pr": PR}, None)
