"""The emulator against GitHub's published REST description (2022-11-28), and githubkit.

Every response shape the emulator can produce (every repository, PR, issue, review comment
including the outdated ones, conversation comment, created comment and account of the
fixture stores) is fetched over HTTP and validated against the JSON Schemas in
tests/github_schemas/, extracted from ``@octokit/openapi`` by tools/extract_github_schemas.py.
The only departures allowed are the rows of the table in the emulator's module docstring,
and each row must still be needed. githubkit, whose pydantic models are generated from the
same description, then lists, pages, gets and posts through the emulator.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pydantic
import pytest
from githubkit import GitHub
from githubkit.compat import type_validate_python
from githubkit.exception import RequestFailed
from githubkit.utils import UNSET
from githubkit_schemas.v2022_11_28.models import PullRequest as KitPullRequest
from jsonschema import Draft202012Validator

from tools import extract_github_schemas as extractor
from tutorial_lib.emulator import service
from tutorial_lib.emulator.fixtures import (
    INJECTED_COMMENT_ID,
    GitHubStore,
    build_store,
    make_large_pr,
)
from tutorial_lib.emulator.service import ServiceHandle, serve

SCHEMA_DIR = Path(__file__).parent / "github_schemas"
TOKEN = "conformance-token"
Json = Any


# -- the vendored schemas --------------------------------------------------------------------


def _load_schemas() -> dict[str, Json]:
    schemas = {}
    for path in sorted(SCHEMA_DIR.glob("*.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        schemas[schema["x-source"]["operation_id"]] = schema
    return schemas


SCHEMAS = _load_schemas()


def test_one_schema_per_served_operation_from_the_pinned_package() -> None:
    assert set(SCHEMAS) == set(extractor.OPERATIONS)
    for operation_id, schema in SCHEMAS.items():
        source = schema["x-source"]
        assert (source["package"], source["version"]) == ("@octokit/openapi", "23.0.2")
        assert source["rest_api_version"] == "2022-11-28"
        assert source["status"] == extractor.OPERATIONS[operation_id]
        assert (SCHEMA_DIR / extractor.schema_file_name(operation_id)).exists()
        Draft202012Validator.check_schema(schema)
        text = json.dumps(schema)
        assert '"nullable":' not in text and "#/components/" not in text  # fully translated
        for ref in re.findall(r'"\$ref": "#/\$defs/([^"]+)"', text):
            assert ref in schema["$defs"]  # self-contained


def test_openapi_translation() -> None:
    translate = extractor.translate
    assert translate({"type": "string", "nullable": True, "example": "x"}) == {
        "type": ["string", "null"]
    }
    assert translate({"type": "string", "enum": ["a"], "nullable": True}) == {
        "type": ["string", "null"],
        "enum": ["a", None],
    }
    assert translate({"allOf": [{"$ref": "#/components/schemas/u"}], "nullable": True}) == {
        "anyOf": [{"allOf": [{"$ref": "#/$defs/u"}]}, {"type": "null"}]
    }
    # a property called "nullable" or "example" is data, not a keyword
    assert translate({"properties": {"example": {"type": "integer", "x-octokit": {}}}}) == {
        "properties": {"example": {"type": "integer"}}
    }


def test_format_checks_are_active() -> None:
    # "uri" and "date-time" are checked only when their optional libraries are installed;
    # without them this suite would pass on malformed URLs and timestamps.
    checker = Draft202012Validator.FORMAT_CHECKER
    assert not checker.conforms("", "uri") and not checker.conforms("/no/scheme", "uri")
    assert not checker.conforms("2025-03-03 09:00", "date-time")
    assert checker.conforms("http://127.0.0.1:8000/users/codecov%5Bbot%5D", "uri")


# -- the deviation table ---------------------------------------------------------------------


@dataclass(frozen=True)
class Deviation:
    """One row of the table in the emulator's docstring."""

    schema: str
    field: str
    described: str
    sent: str


def _deviations() -> list[Deviation]:
    doc = service.__doc__ or ""
    rows = re.findall(r"^ {4}\| ([a-z-]+) +\| (\w+) +\| (\w+) +\| ([^|]+?) +\|$", doc, re.M)
    return [Deviation(*row) for row in rows if row[0] != "schema"]  # not the header


DEVIATIONS = _deviations()


def test_the_deviation_table_names_real_fields() -> None:
    assert DEVIATIONS, "the table in the emulator's docstring was not found"
    for row in DEVIATIONS:
        # the only kind of departure this suite knows how to allow: null where the
        # description has a non-nullable type
        assert row.sent.startswith("null"), row
        holders = [s for s in SCHEMAS.values() if row.schema in s["$defs"]]
        assert holders, f"no vendored schema defines {row.schema}"
        for schema in holders:
            described = schema["$defs"][row.schema]["properties"][row.field]
            assert described.get("type") == row.described, (row, described)


def _allowing_deviations(schema: Json) -> Json:
    patched = copy.deepcopy(schema)
    for row in DEVIATIONS:
        properties = patched["$defs"].get(row.schema, {}).get("properties", {})
        if row.field in properties:
            properties[row.field] = {"anyOf": [properties[row.field], {"type": "null"}]}
    return patched


def _validator(operation_id: str, *, strict: bool = False) -> Draft202012Validator:
    schema = SCHEMAS[operation_id]
    return Draft202012Validator(
        schema if strict else _allowing_deviations(schema),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


# -- every shape the emulator produces -------------------------------------------------------


@dataclass
class Answer:
    """One response of the emulator, with the operation that produced it."""

    operation_id: str
    url: str
    status: int
    headers: httpx.Headers
    body: Json


def _stores() -> list[tuple[GitHubStore, str, int]]:
    """The fixture stores and their PRs: the course's, and a small seeded large PR."""
    course = build_store()
    large = make_large_pr(120, seed=12)
    return [
        (course, "example/shop", 128),
        (course, "other/shop", 128),
        (large, "example/large", 1),
    ]


def _logins(value: Json) -> Iterator[str]:
    if isinstance(value, dict):
        if isinstance(value.get("login"), str):
            yield value["login"]
        for item in value.values():
            yield from _logins(item)
    elif isinstance(value, list):
        for item in value:
            yield from _logins(item)


def _answers_of(handle: ServiceHandle, repository: str, number: int) -> list[Answer]:
    answers: list[Answer] = []
    with httpx.Client(
        base_url=handle.base_url, headers={"Authorization": f"Bearer {TOKEN}"}
    ) as http:

        def fetch(operation_id: str, url: str, **kwargs: Any) -> Answer:
            response = http.request("POST" if "create" in operation_id else "GET", url, **kwargs)
            answer = Answer(
                operation_id, url, response.status_code, response.headers, response.json()
            )
            answers.append(answer)
            return answer

        def every_page(operation_id: str, url: str) -> list[Json]:
            items: list[Json] = []
            next_url: str | None = url
            while next_url is not None:
                page = fetch(operation_id, next_url)
                items += page.body
                found = re.search(r'<([^>]+)>; rel="next"', page.headers.get("Link", ""))
                next_url = found.group(1) if found else None
            return items

        repo = fetch("repos/get", f"/repos/{repository}").body
        fetch("repos/get", f"/repositories/{repo['id']}")
        fetch("pulls/get", f"/repos/{repository}/pulls/{number}")
        fetch("issues/get", f"/repos/{repository}/issues/{number}")
        reviews = every_page(
            "pulls/list-review-comments", f"/repos/{repository}/pulls/{number}/comments"
        )
        for comment in reviews:
            fetch("pulls/get-review-comment", comment["url"])
        posted = fetch(
            "issues/create-comment",
            f"/repos/{repository}/issues/{number}/comments",
            json={"body": "Conformance check: a comment posted through the emulator."},
        )
        conversation = every_page(
            "issues/list-comments", f"/repos/{repository}/issues/{number}/comments?per_page=4"
        )
        assert posted.body["id"] in [c["id"] for c in conversation]
        for comment in conversation:
            fetch("issues/get-comment", comment["url"])
        for login in sorted({login for a in answers for login in _logins(a.body)}):
            fetch("users/get-by-username", f"/users/{login}")
    return answers


@pytest.fixture(scope="module")
def answers() -> list[Answer]:
    collected: list[Answer] = []
    for store, repository, number in _stores():
        with serve(store, token=TOKEN) as handle:
            collected += _answers_of(handle, repository, number)
    return collected


def _objects(answers: list[Answer], operation_id: str) -> list[Json]:
    return [a.body for a in answers if a.operation_id == operation_id]


@pytest.mark.parametrize("operation_id", sorted(extractor.OPERATIONS))
def test_every_response_validates(answers: list[Answer], operation_id: str) -> None:
    mine = [a for a in answers if a.operation_id == operation_id]
    assert mine, f"no {operation_id} response was produced"
    validator = _validator(operation_id)
    source = SCHEMAS[operation_id]["x-source"]
    for answer in mine:
        assert answer.status == source["status"], answer.url
        errors = [
            f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(answer.body)
        ]
        assert not errors, (answer.url, errors[:5])
        if "Location" in source["headers"]:
            assert answer.headers["Location"] == answer.body["url"]


def test_the_shapes_cover_what_the_fixtures_hold(answers: list[Answer]) -> None:
    reviews = _objects(answers, "pulls/get-review-comment")
    assert len(reviews) == 69 + 3 + 120  # every review comment of every fixture PR
    assert any(c["line"] is None for c in reviews)  # outdated
    assert any("in_reply_to_id" in c for c in reviews)  # replies
    assert any(c["id"] == INJECTED_COMMENT_ID for c in reviews)
    users = _objects(answers, "users/get-by-username")
    assert {u["type"] for u in users} == {"User", "Bot", "Organization"}
    repos = _objects(answers, "repos/get")
    assert {r["language"] for r in repos} == {"TypeScript", "HTML", None}
    lists = [a for a in answers if a.operation_id.endswith("list-comments")]
    assert any("Link" in a.headers for a in lists)  # paged lists were read page by page


def test_each_deviation_is_still_needed(answers: list[Answer]) -> None:
    """Without the table's rows, validation fails exactly at those fields: no row is stale,
    and nothing else departs from the description."""
    failing: set[tuple[str, str]] = set()
    for operation_id in extractor.OPERATIONS:
        validator = _validator(operation_id, strict=True)
        for body in _objects(answers, operation_id):
            for error in validator.iter_errors(body):
                assert error.validator == "type" and error.instance is None, error.message
                failing.add((str(error.absolute_path[-1]), error.json_path))
    assert {field for field, _ in failing} == {row.field for row in DEVIATIONS}


def test_counters_match_the_lists(answers: list[Answer]) -> None:
    pulls = _objects(answers, "pulls/get")
    issues = _objects(answers, "issues/get")
    course = build_store()
    for pull, issue in zip(pulls[:2], issues[:2], strict=True):
        repository = pull["base"]["repo"]["full_name"]
        expected = len(course.review_comments(repository, 128))
        assert pull["review_comments"] == expected
        assert pull["comments"] == issue["comments"] == len(course.issue_comments(repository, 128))
    with serve(build_store()) as handle, httpx.Client(base_url=handle.base_url) as http:
        http.post("/repos/example/shop/issues/128/comments", json={"body": "one more"})
        assert http.get("/repos/example/shop/pulls/128").json()["comments"] == 11
        assert http.get("/repos/example/shop/issues/128").json()["comments"] == 11
        repo = http.get("/repos/example/shop").json()
        assert repo["open_issues_count"] == repo["open_issues"] == 1


# -- since, sort, direction ------------------------------------------------------------------


@pytest.fixture
def edited() -> Iterator[tuple[ServiceHandle, GitHubStore]]:
    """The course store with two comments edited after all others were written."""
    store = build_store()
    reviews = store.review_comments("example/shop", 128)
    store.edit_comment(reviews[3].id, reviews[3].body + "\n\nEdit: fixed in 1f3e2a9.")
    store.edit_comment(reviews[50].id, reviews[50].body + "\n\nEdit: see the new test.")
    store.edit_comment(store.issue_comments("example/shop", 128)[2].id, "Edited.")
    with serve(store) as handle:
        yield handle, store


def _read_all(http: httpx.Client, url: str) -> tuple[list[Json], list[str]]:
    """Every item of a list, following ``rel="next"``; and the Link headers seen."""
    items: list[Json] = []
    seen: list[str] = []
    next_url: str | None = url
    while next_url is not None:
        response = http.get(next_url)
        assert response.status_code == 200, response.text
        items += response.json()
        seen.append(response.headers.get("Link", ""))
        found = re.search(r'<([^>]+)>; rel="next"', response.headers.get("Link", ""))
        next_url = found.group(1) if found else None
    return items, seen


def test_since_keeps_comments_updated_at_or_after(
    edited: tuple[ServiceHandle, GitHubStore],
) -> None:
    handle, store = edited
    reviews = store.review_comments("example/shop", 128)
    bound = reviews[40].updated_at  # the bound itself is included
    expected = [c.id for c in reviews if c.updated_at >= bound]
    assert len(expected) == 69 - 40 + 1  # and comment 3, edited after them all
    with httpx.Client(base_url=handle.base_url) as http:
        url = f"/repos/example/shop/pulls/128/comments?since={bound}&per_page=10"
        items, link_headers = _read_all(http, url)
        assert [c["id"] for c in items] == expected
        assert len(link_headers) == 3  # the pages of the 30 kept, not of all 69
        assert all("since=" in h for h in link_headers)
        assert 'page=3>; rel="last"' in link_headers[0]
        # from the first edit on, after every comment was written: only the edits
        late = reviews[3].updated_at
        assert late > max(c.created_at for c in store.issue_comments("example/shop", 128))
        edited_ids = sorted([reviews[3].id, reviews[50].id])
        after = http.get(f"/repos/example/shop/pulls/128/comments?since={late}")
        assert [c["id"] for c in after.json()] == edited_ids
        # an offset is honoured: the same moment written in another zone
        same = http.get(f"/repos/example/shop/pulls/128/comments?since={late[:19]}%2B00:00")
        assert [c["id"] for c in same.json()] == edited_ids
        conversation = http.get(f"/repos/example/shop/issues/128/comments?since={late}")
        assert [c["body"] for c in conversation.json()] == ["Edited."]


def test_sort_and_direction(edited: tuple[ServiceHandle, GitHubStore]) -> None:
    handle, store = edited
    reviews = store.review_comments("example/shop", 128)
    ids = [c.id for c in reviews]
    base = "/repos/example/shop/pulls/128/comments?per_page=25"
    with httpx.Client(base_url=handle.base_url) as http:

        def order(query: str) -> list[int]:
            items, link_headers = _read_all(http, f"{base}&{query}" if query else base)
            if query:
                assert all(query.split("&")[0] in h for h in link_headers if h)
            return [c["id"] for c in items]

        assert order("") == ids
        assert order("direction=desc") == ids  # ignored without sort
        assert order("sort=created") == ids
        assert order("sort=created&direction=desc") == ids[::-1]
        by_update = sorted(reviews, key=lambda c: (c.updated_at, c.id))
        assert order("sort=updated") == [c.id for c in by_update]
        assert order("sort=updated&direction=desc")[:2] == [reviews[50].id, reviews[3].id]
        since = reviews[60].updated_at
        kept = [c.id for c in by_update if c.updated_at >= since][::-1]
        assert order(f"sort=updated&direction=desc&since={since}") == kept


@pytest.mark.parametrize(
    ("path", "query", "field"),
    [
        ("pulls/128/comments", "since=yesterday", "since"),
        ("pulls/128/comments", "sort=popularity", "sort"),
        ("pulls/128/comments", "sort=created&direction=up", "direction"),
        ("issues/128/comments", "since=2025-13-01T00:00:00Z", "since"),
    ],
)
def test_invalid_list_parameters_are_422(path: str, query: str, field: str) -> None:
    with serve(build_store()) as handle, httpx.Client(base_url=handle.base_url) as http:
        response = http.get(f"/repos/example/shop/{path}?{query}")
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == field


# -- githubkit -------------------------------------------------------------------------------


@pytest.fixture
def kit() -> Iterator[tuple[Any, GitHub[Any], GitHubStore]]:
    """githubkit's REST 2022-11-28 namespace on a fresh emulator (no cache, no retries)."""
    store = build_store()
    with (
        serve(store, token=TOKEN) as handle,
        GitHub(TOKEN, base_url=handle.base_url, http_cache=False, auto_retry=False) as github,
    ):
        yield github.rest("2022-11-28"), github, store


def test_githubkit_gets(kit: tuple[Any, GitHub[Any], GitHubStore]) -> None:
    rest, _, store = kit
    repo = rest.repos.get("example", "shop").parsed_data
    assert (repo.full_name, repo.open_issues_count, repo.owner.type) == (
        "example/shop",
        1,
        "Organization",
    )
    pull = rest.pulls.get("example", "shop", 128).parsed_data
    assert (pull.review_comments, pull.comments, pull.head.repo.full_name) == (
        69,
        10,
        "example/shop",
    )
    assert pull.user.login == "dana-ortiz" and pull.merged is False
    issue = rest.issues.get("example", "shop", 128).parsed_data
    assert issue.pull_request is not UNSET and issue.comments == 10
    comment = rest.pulls.get_review_comment("example", "shop", INJECTED_COMMENT_ID).parsed_data
    assert "ignore previous instructions" in comment.body
    conversation = store.issue_comments("example/shop", 128)
    got = rest.issues.get_comment("example", "shop", conversation[0].id).parsed_data
    assert got.body == conversation[0].body
    for login in ("dana-ortiz", "codecov[bot]", "example"):
        user = rest.users.get_by_username(login).parsed_data
        assert user.login == login and user.public_repos == (1 if login == "example" else 0)
    with pytest.raises(RequestFailed) as missing:
        rest.users.get_by_username("nobody-here")
    assert missing.value.response.status_code == 404


def test_githubkit_lists_and_pages(kit: tuple[Any, GitHub[Any], GitHubStore]) -> None:
    rest, github, store = kit
    expected = [c.id for c in store.review_comments("example/shop", 128)]
    first = rest.pulls.list_review_comments("example", "shop", 128).parsed_data
    assert [c.id for c in first] == expected[:30]
    paged = github.rest.paginate(
        rest.pulls.list_review_comments, owner="example", repo="shop", pull_number=128
    )
    every = list(paged)
    assert [c.id for c in every] == expected  # three pages through the Link headers
    outdated = [c for c in every if c.line is None]
    assert outdated and all(c.position is None and c.original_line for c in outdated)
    newest_first = github.rest.paginate(
        rest.pulls.list_review_comments,
        owner="example",
        repo="shop",
        pull_number=128,
        sort="created",
        direction="desc",
        per_page=20,
    )
    assert [c.id for c in newest_first] == expected[::-1]
    since = store.review_comments("example/shop", 128)[60].updated_at
    recent = github.rest.paginate(
        rest.pulls.list_review_comments,
        owner="example",
        repo="shop",
        pull_number=128,
        since=since,
        per_page=3,
    )
    assert [c.id for c in recent] == expected[60:]
    conversation = github.rest.paginate(
        rest.issues.list_comments, owner="example", repo="shop", issue_number=128, per_page=4
    )
    assert [c.id for c in conversation] == [c.id for c in store.issue_comments("example/shop", 128)]


def test_githubkit_posts(kit: tuple[Any, GitHub[Any], GitHubStore]) -> None:
    rest, _, store = kit
    response = rest.issues.create_comment("example", "shop", 128, body="Posted by githubkit.")
    created = response.parsed_data
    assert response.status_code == 201 and response.headers["Location"] == created.url
    assert store.issue_comments("example/shop", 128)[-1].id == created.id
    assert created.user.login == store.viewer.login
    assert rest.pulls.get("example", "shop", 128).parsed_data.comments == 11


def test_githubkit_rejects_a_missing_required_field(
    kit: tuple[Any, GitHub[Any], GitHubStore],
) -> None:
    """The strictness these tests rely on: one required field fewer and githubkit fails
    (what it did on every object before the emulator sent them all)."""
    rest, _, _ = kit
    raw = rest.pulls.get("example", "shop", 128).json()
    type_validate_python(KitPullRequest, raw)
    del raw["head"]["repo"]["forks_url"]
    with pytest.raises(pydantic.ValidationError, match="forks_url"):
        type_validate_python(KitPullRequest, raw)
