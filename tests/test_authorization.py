"""Chapter 06's authorization station: task scope, grants per action class, secrets.

Unit checks of :func:`tutorial_lib.core.authorization.authorize` on stub tools, the
refusal envelope through the road with real tools (read_lines on a temporary workspace,
the GitHub read and write tools against the in-process emulator, which must receive no
request for a refused call), and a property: the station allows exactly when the declared
class is granted and the resource is in scope.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tutorial_lib.core.authorization import (
    ACTION_CLASSES,
    ActionClass,
    TaskScope,
    ToolAccess,
    authorization_stations,
    authorize,
    github_access,
    is_secret_path,
    normalize_workspace_path,
    workspace_access,
)
from tutorial_lib.core.contracts import ENVELOPE_SCHEMA, ContractError
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import PendingCall
from tutorial_lib.core.secrets import DEFAULT_SECRET_POLICY, SecretPolicy
from tutorial_lib.core.tools import GITHUB_READ_ONLY, READ_ONLY_LOCAL, Registry, ToolSpec
from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import InProcessHandle, serve_in_process
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import GitHubToolContext, github_tool_specs
from tutorial_lib.github.writes import WriteContext, write_tool_specs
from tutorial_lib.workspace.read import read_lines_tool

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
REPO = "example/shop"
ALL: frozenset[ActionClass] = frozenset(ACTION_CLASSES)


def stub(name: str, annotations: Any = READ_ONLY_LOCAL) -> ToolSpec:
    """A tool that only records that it ran (its annotations are whatever it claims)."""
    return ToolSpec(
        name=name,
        title=name,
        description="A stub tool for the authorization tests.",
        input_schema={"type": "object"},
        annotations=annotations,
        execute=lambda context, args, checked: {"ran": True},
    )


def pending(name: str, arguments: Mapping[str, Any]) -> PendingCall:
    return PendingCall(stub(name), arguments)


def refusal(scope: TaskScope, access: Mapping[str, ToolAccess], call: PendingCall) -> str:
    """The message of the refusal of ``call`` (the test fails if it is let through)."""
    with pytest.raises(ContractError) as caught:
        authorize(scope, access, call)
    assert caught.value.code == "permission_denied"
    return caught.value.message


#: One tool per action class on a repository, and per action class on a workspace path.
REPO_TOOLS = {f"repo_{a}": github_access(a) for a in ACTION_CLASSES}
FILE_TOOLS = {f"file_{a}": workspace_access(a) for a in ACTION_CLASSES}
ACCESS = {**REPO_TOOLS, **FILE_TOOLS}


@pytest.mark.parametrize("granted", ACTION_CLASSES)
def test_each_action_class_is_granted_on_its_own(granted: ActionClass) -> None:
    scope = TaskScope(frozenset({REPO}), ("docs",), frozenset({granted}))
    for action in ACTION_CLASSES:
        for call in (
            pending(f"repo_{action}", {"repository": REPO}),
            pending(f"file_{action}", {"path": "docs/a.md"}),
        ):
            if action == granted:
                authorize(scope, ACCESS, call)  # let through: no exception
            else:
                message = refusal(scope, ACCESS, call)
                assert message.startswith(f"{action} is not granted for this task")


def test_reading_granted_does_not_grant_sending() -> None:
    scope = TaskScope(frozenset({REPO}), (".",), frozenset({"read"}))
    authorize(scope, ACCESS, pending("repo_read", {"repository": REPO}))
    assert "send is not granted" in refusal(
        scope, ACCESS, pending("repo_send", {"repository": REPO})
    )
    # every grant but send still does not send
    scope = TaskScope(frozenset({REPO}), (".",), ALL - {"send"})
    refusal(scope, ACCESS, pending("repo_send", {"repository": REPO}))


def test_wrong_repository_is_refused_even_for_a_read() -> None:
    scope = TaskScope(frozenset({REPO}), (), ALL)
    with pytest.raises(ContractError) as caught:
        authorize(scope, ACCESS, pending("repo_read", {"repository": "other/shop"}))
    error = caught.value.to_dict()
    assert error["message"] == "repository other/shop is outside this task's scope"
    assert error["field"] == "repository" and error["received"] == "other/shop"
    # GitHub ignores case in names, and so does the scope
    authorize(scope, ACCESS, pending("repo_read", {"repository": "Example/Shop"}))


@pytest.mark.parametrize(
    "path", ["src/app.py", "docs2/a.md", "../docs/a.md", "docs/../../x", "/etc/passwd", "C:/x"]
)
def test_a_path_outside_the_prefixes_is_refused(path: str) -> None:
    scope = TaskScope(frozenset(), ("docs", "notes/2026"), ALL)
    message = refusal(scope, ACCESS, pending("file_read", {"path": path}))
    assert message == f"path '{path}' is outside this task's scope"


@pytest.mark.parametrize("path", ["docs", "docs/a.md", "./docs/sub/b.md", "notes/2026/x.txt"])
def test_a_path_under_a_prefix_is_let_through(path: str) -> None:
    scope = TaskScope(frozenset(), ("docs/", "./notes/2026"), frozenset({"read"}))
    authorize(scope, ACCESS, pending("file_read", {"path": path}))


def test_paths_normalize_lexically() -> None:
    assert normalize_workspace_path("docs/./a/../b.md") == "docs/b.md"
    # on POSIX a backslash is a character of a name: "docs\\b.md" is one name in the root
    assert normalize_workspace_path("docs\\b.md") == "docs\\b.md"
    assert normalize_workspace_path("..") is None
    assert normalize_workspace_path("/abs") is None
    with pytest.raises(ValueError, match="not inside the workspace"):
        TaskScope(workspace_paths=("../elsewhere",))


SECRETS = [
    ".env",
    "app/.env",
    ".ENV.production",
    "certs/server.pem",
    "tls/site.KEY",
    ".ssh/id_rsa",
    "credentials.json",
    "credentials/aws",
    "Credentials.yml",
    "store.p12",
    "config/secrets.yaml",
]


@pytest.mark.parametrize("path", SECRETS)
def test_secret_bearing_files_need_their_own_grant(path: str) -> None:
    assert is_secret_path(path)
    without = TaskScope(frozenset(), (".",), ALL)
    message = refusal(without, ACCESS, pending("file_read", {"path": path}))
    assert message == f"'{path}' is a secret-bearing file: it needs its own grant"
    refusal(without, ACCESS, pending("file_write", {"path": path}))  # any action
    with_grant = TaskScope(frozenset(), (".",), frozenset({"read"}), secrets_granted=True)
    authorize(with_grant, ACCESS, pending("file_read", {"path": path}))


@pytest.mark.parametrize(
    "path",
    [
        "environment.md",
        "docs/env.txt",
        "keys.md",
        "secret.txt",
        # the public half of a key pair, a template with placeholders, source about secrets
        "id_rsa.pub",
        ".env.example",
        "stubs/secrets.pyi",
        "src/credentials.py",
    ],
)
def test_ordinary_names_are_not_secrets(path: str) -> None:
    assert not is_secret_path(path)


def test_the_operator_denies_and_allows_patterns_in_the_one_policy() -> None:
    assert not is_secret_path("deploy/vault.json")
    vault = SecretPolicy(deny=("vault.*",))
    assert is_secret_path("deploy/VAULT.json", vault)
    scope = TaskScope(frozenset(), (".",), ALL, secrets=vault)
    refusal(scope, ACCESS, pending("file_read", {"path": "deploy/vault.json"}))
    assert {".env", "*.pem", "id_rsa*"} <= set(DEFAULT_SECRET_POLICY.defaults)
    # a key that is public on purpose (a test fixture) can be let through by the operator
    public = TaskScope(frozenset(), (".",), ALL, secrets=SecretPolicy(allow=("fixture.key",)))
    authorize(public, ACCESS, pending("file_read", {"path": "tests/fixture.key"}))
    refusal(public, ACCESS, pending("file_read", {"path": "tests/other.key"}))
    with pytest.raises(ValueError, match="SecretPolicy"):
        TaskScope(secrets=("vault.*",))  # type: ignore[arg-type]


def test_an_undeclared_tool_is_refused_whatever_it_claims() -> None:
    scope = TaskScope(frozenset({REPO}), (".",), ALL, secrets_granted=True)
    # a tool annotated read-only, declared by no one: denied by default
    message = refusal(scope, ACCESS, PendingCall(stub("shell_run"), {"command": "ls"}))
    assert message == "'shell_run' has no declared access for this task, so it is refused"


def test_annotations_buy_no_bypass() -> None:
    # the tool claims read-only; the operator declared it a write: write is what counts
    claims_read = stub("github_pr_merge", annotations=GITHUB_READ_ONLY)
    access = {"github_pr_merge": github_access("send")}
    scope = TaskScope(frozenset({REPO}), (), frozenset({"read"}))
    call = PendingCall(claims_read, {"repository": REPO})
    assert refusal(scope, access, call).startswith("send is not granted for this task")


def test_a_path_tool_without_its_argument() -> None:
    scope = TaskScope(frozenset(), ("docs",), ALL)
    whole = {"search": workspace_access("read", default=".")}
    assert "outside this task's scope" in refusal(scope, whole, pending("search", {}))
    strict = {"search": workspace_access("read")}
    assert "'path' is missing" in refusal(scope, strict, pending("search", {}))
    with pytest.raises(ValueError, match="unknown action class"):
        ToolAccess("merge", REPO_TOOLS["repo_read"].locate)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown action classes"):
        TaskScope(grants=frozenset({"admin"}))  # type: ignore[arg-type]


def test_the_stations_copy_the_access_map() -> None:
    access = dict(ACCESS)
    named, resolved = authorization_stations(TaskScope(frozenset({REPO}), (), ALL), access)
    assert (named.slot, resolved.slot) == ("authorization", "resolution")
    access["repo_read"] = github_access("delete")  # the caller's map changes afterwards...
    access["shell_run"] = github_access("read")
    named.check(pending("repo_read", {"repository": REPO}))  # ...the station's does not
    with pytest.raises(ContractError):
        named.check(pending("shell_run", {"repository": REPO}))


def test_the_host_copies_the_access_map() -> None:
    access = {"repo_read": github_access("read")}
    host = Host(
        Registry([stub("repo_read"), stub("shell_run")]),
        access=access,
        scope=TaskScope(frozenset({REPO}), (), frozenset({"read"})),
    )
    access["repo_read"] = github_access("delete")  # the caller's map changes afterwards...
    access["shell_run"] = github_access("read")
    assert host.call("repo_read", {"repository": REPO})["ok"] is True  # ...the host's does not
    assert host.call("shell_run", {"repository": REPO})["error"]["code"] == "permission_denied"
    assert host.action_class("repo_read") == "read" and host.undeclared == ("shell_run",)


# -- through the road, with real tools ----------------------------------------------------


def assert_refused(result: Any, tool: str, message: str, field: str | None) -> None:
    """The refusal envelope: permission_denied, not applied, ask the user."""
    ENVELOPE.validate(result)
    assert result["ok"] is False and result["tool"] == tool
    error = result["error"]
    assert error["code"] == "permission_denied"
    assert error["message"] == message
    assert error["retry"] == "after_authorization"
    assert error["operation_state"] == "not_applied"
    assert error.get("field") == field
    assert "ask the user" in error["suggestion"]
    assert "do not try other arguments" in error["suggestion"]


def test_read_lines_on_the_road(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / ".env").write_text("TOKEN=hunter2\n", encoding="utf-8")
    registry = Registry([read_lines_tool(tmp_path)])
    access = {"read_lines": workspace_access("read")}
    scope = TaskScope(frozenset(), (".",), frozenset({"read"}))
    host = Host(registry, access=access, scope=scope)
    log = host.log

    def read(path: str) -> Any:
        args = {"path": path, "start": 1, "count": 5}
        return host.call("read_lines", args)

    ok = read("docs/a.md")
    assert ok["ok"] is True and [line["text"] for line in ok["data"]["lines"]] == ["one", "two"]
    refused = read(".env")
    assert_refused(
        refused, "read_lines", "'.env' is a secret-bearing file: it needs its own grant", "path"
    )
    assert "hunter2" not in str(refused)
    assert log[-1].station == "authorization" and log[-1].operation_state == "not_applied"
    # the same tool under a scope that holds docs only
    narrow = Host(
        registry, access=access, scope=TaskScope(frozenset(), ("docs",), frozenset({"read"}))
    )
    outside = narrow.call("read_lines", {"path": ".env", "start": 1, "count": 5})
    assert_refused(outside, "read_lines", "path '.env' is outside this task's scope", "path")


@pytest.fixture
def emulator() -> Iterator[tuple[InProcessHandle, Registry]]:
    """The GitHub read and write tools over one in-process emulator."""
    with (
        serve_in_process(build_store()) as handle,
        GitHubClient(handle.base_url, transport=handle.transport()) as client,
    ):
        reads = github_tool_specs(GitHubToolContext(client, CursorCodec(b"a" * 32)))
        writes = write_tool_specs(WriteContext(client, sleep=lambda s: None))
        yield handle, Registry([*reads, *writes])


GITHUB_ACCESS = {
    "github_pr_get": github_access("read"),
    "github_pr_list_comments": github_access("read"),
    "github_pr_get_comment": github_access("read"),
    "github_pr_get_comment_status": github_access("read"),
    "github_pr_create_comment": github_access("write"),
}
COMMENT = {
    "repository": REPO,
    "pr": 128,
    "body": "Summary: two confirmed issues.",
    "idempotency_key": "review-128-summary-1",
}


def test_a_refused_write_sends_no_request(emulator: tuple[InProcessHandle, Registry]) -> None:
    handle, registry = emulator
    host = Host(
        registry,
        access=GITHUB_ACCESS,
        scope=TaskScope(frozenset({REPO}), (), frozenset({"read"})),
    )
    got = host.call("github_pr_get", {"repository": REPO, "pr": 128})
    assert got["ok"] is True
    served = len(handle.requests)
    before = len(handle.store.issue_comments(REPO, 128))
    result = host.call("github_pr_create_comment", COMMENT)
    assert_refused(
        result,
        "github_pr_create_comment",
        "write is not granted for this task ('github_pr_create_comment' is declared as write)",
        None,
    )
    assert len(handle.requests) == served  # execution never ran: the emulator saw nothing
    assert len(handle.store.issue_comments(REPO, 128)) == before


def test_the_wrong_repository_is_refused_on_the_road(
    emulator: tuple[InProcessHandle, Registry],
) -> None:
    handle, registry = emulator
    host = Host(registry, access=GITHUB_ACCESS, scope=TaskScope(frozenset({REPO}), (), ALL))
    # as if a comment had told the model to post its findings to another repository
    elsewhere = {**COMMENT, "repository": "other/shop"}
    for name, args in (
        ("github_pr_create_comment", elsewhere),
        ("github_pr_get", {"repository": "other/shop", "pr": 1}),
    ):
        result = host.call(name, args)
        assert_refused(
            result, name, "repository other/shop is outside this task's scope", "repository"
        )
        assert result["ok"] is False and result["error"]["received"] == "other/shop"
    assert handle.requests == []
    assert [r.station for r in host.log] == ["authorization", "authorization"]


# -- the property -------------------------------------------------------------------------

REPOS = ["example/shop", "example/docs", "other/shop"]
PREFIXES = ["docs", "src", "notes/2026"]
PATHS = [
    "docs/a.md",
    "docs2/b.md",
    "src/app.py",
    "src/.env",
    "docs/certs/site.pem",
    "notes/2026/x.txt",
    "notes/y.txt",
    "README.md",
]

scopes = st.builds(
    TaskScope,
    repositories=st.frozensets(st.sampled_from(REPOS)),
    workspace_paths=st.lists(st.sampled_from(PREFIXES), unique=True).map(tuple),
    grants=st.frozensets(st.sampled_from(ACTION_CLASSES)),
    secrets_granted=st.booleans(),
)


def under(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    scope=scopes,
    action=st.sampled_from(ACTION_CLASSES),
    on_repo=st.booleans(),
    repo=st.sampled_from(REPOS),
    path=st.sampled_from(PATHS),
)
def test_allowed_exactly_when_granted_and_in_scope(
    scope: TaskScope, action: ActionClass, on_repo: bool, repo: str, path: str
) -> None:
    name = f"{'repo' if on_repo else 'file'}_{action}"
    call = pending(name, {"repository": repo} if on_repo else {"path": path})
    in_scope = repo in scope.repositories if on_repo else under(path, scope.workspace_paths)
    if not on_repo and path.endswith((".env", ".pem")):
        in_scope = in_scope and scope.secrets_granted  # a secret needs its own grant
    expected = action in scope.grants and in_scope
    station, _resolved = authorization_stations(scope, ACCESS)
    try:
        station.check(call)
        allowed = True
    except ContractError as error:
        assert error.code == "permission_denied"
        assert error.to_dict()["retry"] == "after_authorization"
        allowed = False
    assert allowed == expected


# --------------------------------------------------------------------------- names after symlinks


def test_a_link_to_a_secret_file_is_refused_by_the_name_it_leads_to(tmp_path: Path) -> None:
    """The business check opened the file; the station checks the name it really has."""
    from tutorial_lib.workspace.read import read_lines_tool

    (tmp_path / ".env").write_text("API_KEY=sk-test-123\n", encoding="utf-8")
    (tmp_path / "notes.txt").symlink_to(".env")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("hello\n", encoding="utf-8")
    (tmp_path / "docs" / "outside_link.md").symlink_to("../notes.txt")
    registry = Registry([read_lines_tool(tmp_path)])
    access = {"read_lines": workspace_access("read")}
    whole = Host(
        registry,
        access=access,
        scope=TaskScope(workspace_paths=(".",), grants=frozenset({"read"})),
    )
    docs = Host(
        registry,
        access=access,
        scope=TaskScope(workspace_paths=("docs",), grants=frozenset({"read"})),
    )
    args = {"path": "notes.txt", "start": 1, "count": 5}
    refused = dict(whole.call("read_lines", args))
    assert refused["ok"] is False and refused["error"]["code"] == "permission_denied"
    assert refused["error"]["message"] == (
        "'notes.txt' leads to '.env', which is a secret-bearing file: it needs its own grant"
    )
    assert "sk-test-123" not in json.dumps(refused)
    moved = dict(docs.call("read_lines", {**args, "path": "docs/outside_link.md"}))
    assert moved["error"]["message"] == (
        "'docs/outside_link.md' leads to '.env', which is outside this task's scope"
    )
    fine = dict(docs.call("read_lines", {**args, "path": "docs/guide.md"}))
    assert fine["ok"] is True and fine["data"]["lines"][0]["text"] == "hello"
    # the requested names are in scope: what refused them is the re-check of the resolved name
    assert [r.station for r in whole.log] == ["resolution"]
    assert [r.station for r in docs.log] == ["resolution", "execution"]
