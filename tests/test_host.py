"""The host (tutorial_lib.core.host.Host): the road's one owner, and what it guarantees.

1. **A refused call learns nothing and opens nothing.** Under a task scoped to ``docs/``,
   every out-of-scope path gets a byte-identical ``permission_denied`` whatever is there
   (a regular file, a FIFO, a huge file, a directory, a secret, a symlink, a hard link, or
   nothing at all), and neither ``os.open`` nor the openat2 system call nor any opener of
   the sandbox is called; an allowed call opens (so the counter works). An in-scope name
   that leads out (``docs/notes.md -> ../.env``) is refused by the re-check of the
   resolved name. A hypothesis property does the same for random path strings.
2. **The map is checked when the host is built**: a misspelt tool name raises, and
   :attr:`Host.undeclared` names what the map leaves out; a registry with a tool that is
   not read-only needs guards (or says ``unguarded=True``).
3. **Confirmation by class**: every write, delete and send tool of the course ends
   ``confirmation_required`` under a default host, asked with the tool's own preview (or
   the plain question), with nothing executed anywhere and ``error.confirmation.request_id``
   naming a real request; after the user accepts, it runs once. A rollout to all hosts is
   refused outright (formal approval), even when chosen in a question.
4. **The answerer**: accept runs once, decline and cancel run nothing, a chosen target is
   filled in; what runs is what was approved, whatever the caller changes afterwards.
5. **Bugs** are bugs: a station that raises is a ``StationBug``, logged as ``"bug"`` at its
   slot; every exception the library raises on purpose is a ``TutorialLibError``.

"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.pieces import descriptors_into
from tutorial_lib.core.authorization import (
    TaskScope,
    ToolAccess,
    github_access,
    local_access,
    outbound_access,
    workspace_access,
)
from tutorial_lib.core.confirmation import (
    ConfirmationError,
    ConfirmationFlow,
    Question,
    choose_target,
    plain_question,
    thawed,
)
from tutorial_lib.core.contracts import (
    ENVELOPE_SCHEMA,
    ContractError,
    Envelope,
    TutorialLibError,
)
from tutorial_lib.core.host import CONFIRMED_CLASSES, Host
from tutorial_lib.core.road import (
    MalformedEnvelope,
    PendingCall,
    RoadBug,
    Station,
    StationBug,
    StationSlot,
    StepClock,
)
from tutorial_lib.core.tools import LOCAL_WRITE, READ_ONLY_LOCAL, Registry, ToolSpec
from tutorial_lib.emulator.fixtures import (
    DOUBLE_ROUNDING_COMMENT_ID,
    INJECTED_COMMENT_ID,
    GitHubStore,
    build_store,
)
from tutorial_lib.emulator.service import InProcessHandle, serve_in_process
from tutorial_lib.examples.deploy import HOST_GROUPS, Deployments, deploy_spec
from tutorial_lib.examples.outbound import OutboundGateway, OutboundRequest, http_send_spec
from tutorial_lib.examples.tasks import TaskStore, task_set_status_spec
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.dangerous import (
    DangerousContext,
    PendingActions,
    Settings,
    dangerous_tool_specs,
)
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import GitHubToolContext, github_tool_specs
from tutorial_lib.github.writes import WriteContext, write_tool_specs
from tutorial_lib.workspace import read as read_module
from tutorial_lib.workspace import sandbox
from tutorial_lib.workspace import search as search_module
from tutorial_lib.workspace.read import ReadLimits, read_lines_tool
from tutorial_lib.workspace.sandbox import Method, openat2_available
from tutorial_lib.workspace.search import search_files_tool

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
SECRET = "API_KEY=sk-live-0123456789"
LIMIT_BYTES = 1024  # read_lines refuses larger files: the huge file is 64 times that


def canonical(envelope: Any) -> str:
    """What the model receives, byte for byte."""
    return json.dumps(envelope, sort_keys=True)


# =========================================================================== 1. workspace

DOCS_SCOPE = TaskScope(workspace_paths=("docs",), grants=frozenset({"read"}))
WORKSPACE_ACCESS: dict[str, ToolAccess] = {
    "read_lines": workspace_access("read"),
    "search_files": workspace_access("read", default="."),
}


class OpenSpy:
    """While active (in this thread only), counts every way the workspace tools can open
    or look at a file: ``os.open`` (the walk, the root), the openat2 system call, the
    sandbox's openers as the read and search modules call them, and the lookups that
    reveal a file without opening it (stat, lstat, scandir, listdir, readlink)."""

    OPENS: tuple[tuple[Any, str], ...] = (
        (os, "open"),
        (sandbox, "_raw_openat2"),
        (sandbox, "open_root"),
        (sandbox, "open_relative"),
        (sandbox, "open_beneath"),
        (read_module, "open_beneath"),
        (search_module, "open_root"),
        (search_module, "open_relative"),
    )
    LOOKS: tuple[tuple[Any, str], ...] = (
        (os, "stat"),
        (os, "lstat"),
        (os, "scandir"),
        (os, "listdir"),
        (os, "readlink"),
    )

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._thread = threading.get_ident()
        self._stack = contextlib.ExitStack()

    def _counting(self, label: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def counting(*args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == self._thread:
                self.counts[label] += 1
            return original(*args, **kwargs)

        return counting

    def __enter__(self) -> OpenSpy:
        for owner, attribute in (*self.OPENS, *self.LOOKS):
            label = f"{owner.__name__}.{attribute}"
            wrapper = self._counting(label, getattr(owner, attribute))
            self._stack.enter_context(mock.patch.object(owner, attribute, wrapper))
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()

    @property
    def opens(self) -> int:
        return sum(self.counts[f"{o.__name__}.{a}"] for o, a in self.OPENS)

    @property
    def looks(self) -> int:
        return sum(self.counts[f"{o.__name__}.{a}"] for o, a in self.LOOKS)


def workspace_host(root: Path, method: Method | None, scope: TaskScope = DOCS_SCOPE) -> Host:
    registry = Registry(
        [
            read_lines_tool(root, limits=ReadLimits(max_file_bytes=LIMIT_BYTES), method=method),
            search_files_tool(root, method=method),
        ]
    )
    return Host(registry, access=WORKSPACE_ACCESS, scope=scope, clock=StepClock())


def tool_args(tool: str, path: str) -> dict[str, Any]:
    if tool == "read_lines":
        return {"path": path, "start": 1, "count": 5}
    return {"query": "a", "path": path}


def new_workspace(base: Path) -> Path:
    """A workspace with docs/ (the task's scope) and a secret the links can point to."""
    root = base / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("alpha\nbeta\n", encoding="utf-8")
    (root / "vault").mkdir()
    (root / "vault" / ".env").write_text(SECRET + "\n", encoding="utf-8")
    return root


def _regular(target: Path, root: Path) -> None:
    target.write_text("an ordinary line of text\n", encoding="utf-8")


def _secret(target: Path, root: Path) -> None:
    target.write_text(SECRET + "\n", encoding="utf-8")


def _fifo(target: Path, root: Path) -> None:
    os.mkfifo(target)


def _huge(target: Path, root: Path) -> None:
    with target.open("wb") as sparse:  # 64 KiB of hole: over the limit, no disk used
        sparse.truncate(64 * LIMIT_BYTES)


def _directory(target: Path, root: Path) -> None:
    target.mkdir()
    (target / "inside.txt").write_text("a file in the directory\n", encoding="utf-8")


def _link_to_secret(target: Path, root: Path) -> None:
    target.symlink_to(os.path.relpath(root / "vault" / ".env", target.parent))


def _link_out_of_the_workspace(target: Path, root: Path) -> None:
    target.symlink_to("/etc/passwd")


def _dangling_link(target: Path, root: Path) -> None:
    target.symlink_to("nowhere-at-all")


def _hard_link(target: Path, root: Path) -> None:
    os.link(root / "docs" / "a.md", target)


KINDS: dict[str, Callable[[Path, Path], None]] = {
    "regular file": _regular,
    "secret file": _secret,
    "FIFO": _fifo,
    "huge sparse file": _huge,
    "directory": _directory,
    "symlink to a secret": _link_to_secret,
    "symlink out of the workspace": _link_out_of_the_workspace,
    "dangling symlink": _dangling_link,
    "hard link": _hard_link,
}
#: Out-of-scope paths: ordinary names, .env-style names, a prefix trick, a path that
#: climbs out of the workspace, and an absolute one (ABSOLUTE: filled in per test).
ABSOLUTE = "<absolute>"
OUT_OF_SCOPE = [
    "src/x",
    ".env",
    "config/credentials.json",
    "docs2/a.md",
    "docs/../src/x",
    "../outside.txt",
    ABSOLUTE,
]
METHODS: list[Method | None] = ["walk", None]  # None: the default (openat2 where available)


def _place(root: Path, path: str) -> Path:
    target = Path(path) if path.startswith("/") else root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


@pytest.mark.parametrize("method", METHODS, ids=["walk", "default"])
@pytest.mark.parametrize("tool", ["read_lines", "search_files"])
@pytest.mark.parametrize("raw_path", OUT_OF_SCOPE)
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_out_of_scope_path_gets_the_same_refusal_and_nothing_is_opened(
    tmp_path: Path, kind: str, raw_path: str, tool: str, method: Method | None
) -> None:
    root = new_workspace(tmp_path)
    path = str(tmp_path / "elsewhere" / "target") if raw_path == ABSOLUTE else raw_path
    host = workspace_host(root, method)
    host.call(tool, tool_args(tool, "docs/a.md"))  # warm up: validators, caches

    def refused() -> tuple[str, OpenSpy]:
        with OpenSpy() as spy:
            result = host.call(tool, tool_args(tool, path))
        ENVELOPE.validate(result)
        assert result["ok"] is False and result["error"]["code"] == "permission_denied"
        assert result["error"]["operation_state"] == "not_applied"
        assert result["error"]["retry"] == "after_authorization"
        return canonical(result), spy

    nothing, spy_nothing = refused()  # nothing at the path
    KINDS[kind](_place(root, path), root)
    something, spy_something = refused()  # the object exists, as `kind`
    assert something == nothing  # byte for byte: the model cannot tell them apart
    assert SECRET not in something
    for spy in (spy_nothing, spy_something):
        assert (spy.opens, spy.looks) == (0, 0), spy.counts  # the tool touched nothing
    first, second = host.log[-2:]
    assert first.station == second.station == "authorization"
    assert first.to_dict() == second.to_dict()  # the operator's record does not differ either
    assert dict(first.details) == {"rule": "outside_scope"}


@pytest.mark.parametrize("method", METHODS, ids=["walk", "default"])
@pytest.mark.parametrize("tool", ["read_lines", "search_files"])
def test_an_allowed_call_is_counted_so_the_counter_works(
    tmp_path: Path, tool: str, method: Method | None
) -> None:
    host = workspace_host(new_workspace(tmp_path), method)
    host.call(tool, tool_args(tool, "docs/a.md"))  # warm up as above
    with OpenSpy() as spy:
        result = host.call(tool, tool_args(tool, "docs/a.md"))
    assert result["ok"] is True, result
    assert spy.counts["os.open"] > 0  # at least the workspace root
    if method == "walk" or not openat2_available():
        assert spy.counts["os.open"] >= 3  # the root, then the walk: docs, then a.md
    else:
        assert spy.counts["tutorial_lib.workspace.sandbox._raw_openat2"] >= 1
    opener = "open_beneath" if tool == "read_lines" else "open_relative"
    module = read_module if tool == "read_lines" else search_module
    assert spy.counts[f"{module.__name__}.{opener}"] == 1


def test_a_secret_name_outside_the_scope_is_refused_like_any_other_name(tmp_path: Path) -> None:
    """Outside the scope, '.env' is refused with exactly the words of 'src/x': the refusal
    does not even hint that the name is a secret's."""
    host = workspace_host(new_workspace(tmp_path), None)
    envelopes = {}
    for path in ("src/x", ".env", "config/credentials.json", "id_rsa"):
        result = host.call("read_lines", tool_args("read_lines", path))
        envelopes[path] = canonical(result).replace(json.dumps(path)[1:-1], "<P>")
    assert len(set(envelopes.values())) == 1, envelopes
    assert {dict(r.details)["rule"] for r in host.log} == {"outside_scope"}


def test_search_without_a_path_is_refused_when_the_scope_is_not_the_whole_workspace(
    tmp_path: Path,
) -> None:
    host = workspace_host(new_workspace(tmp_path), None)
    with OpenSpy() as spy:
        result = host.call("search_files", {"query": "alpha"})
    assert result["error"]["code"] == "permission_denied"
    assert result["error"]["message"] == "path '.' is outside this task's scope"
    assert (spy.opens, spy.looks) == (0, 0)
    assert host.call("search_files", {"query": "alpha", "path": "docs"})["ok"] is True


@pytest.mark.parametrize("method", METHODS, ids=["walk", "default"])
def test_an_in_scope_link_to_a_secret_is_refused_at_the_resolution_station(
    tmp_path: Path, method: Method | None
) -> None:
    root = new_workspace(tmp_path)
    (root / ".env").write_text(SECRET + "\n", encoding="utf-8")
    (root / "docs" / "notes.md").symlink_to("../.env")
    args = {"path": "docs/notes.md", "start": 1, "count": 5}
    for scope, message in (
        (DOCS_SCOPE, "'docs/notes.md' leads to '.env', which is outside this task's scope"),
        (
            TaskScope(workspace_paths=(".",), grants=frozenset({"read"})),
            "'docs/notes.md' leads to '.env', which is a secret-bearing file: it needs its"
            " own grant",
        ),
    ):
        host = workspace_host(root, method, scope)
        assert descriptors_into(root) == []
        result = host.call("read_lines", args)
        ENVELOPE.validate(result)
        assert result["error"]["code"] == "permission_denied"
        assert result["error"]["message"] == message
        assert result["error"]["operation_state"] == "not_applied"
        assert SECRET not in canonical(result)
        (record,) = host.log
        assert record.station == "resolution"  # the name passed; what it led to did not
        assert descriptors_into(root) == []  # the road closed what the check opened


# -- links and odd names inside the scope ---------------------------------------------


@pytest.mark.parametrize(
    "kind",
    ["regular file", "FIFO", "huge sparse file", "directory", "nothing"],
)
def test_an_in_scope_link_tells_nothing_of_its_out_of_scope_target(
    tmp_path: Path, kind: str
) -> None:
    root = new_workspace(tmp_path)
    (root / "src").mkdir()
    if kind != "nothing":
        KINDS[kind](root / "src" / "target", root)
    (root / "docs" / "link.md").symlink_to("../src/target")
    host = workspace_host(root, None)
    result = host.call("read_lines", tool_args("read_lines", "docs/link.md"))
    assert result["error"]["code"] == "permission_denied", result["error"]
    # refused by name at the resolution station, before the business check looked at it
    (record,) = host.log
    assert record.station == "resolution"
    assert canonical(result) == canonical(_link_refusal(tmp_path))


def _link_refusal(tmp_path: Path) -> dict[str, Any]:
    """The refusal of the same in-scope link when its out-of-scope target is a plain file."""
    root = new_workspace(tmp_path / "reference")
    (root / "src").mkdir()
    (root / "src" / "target").write_text("a file outside the scope\n")
    (root / "docs" / "link.md").symlink_to("../src/target")
    return dict(
        workspace_host(root, None).call("read_lines", tool_args("read_lines", "docs/link.md"))
    )


def test_a_backslash_name_in_the_root_is_not_inside_docs(tmp_path: Path) -> None:
    root = new_workspace(tmp_path)
    (root / "docs\\private.txt").write_text("a file of the root, outside docs/\n")
    result = workspace_host(root, None).call(
        "read_lines", tool_args("read_lines", "docs\\private.txt")
    )
    assert result["ok"] is False and result["error"]["code"] == "permission_denied"


def test_search_files_through_an_in_scope_link_stays_in_the_scope(tmp_path: Path) -> None:
    root = new_workspace(tmp_path)
    (root / "docs" / "env.md").symlink_to("../vault/.env")
    result = workspace_host(root, None).call(
        "search_files", {"query": "API_KEY", "path": "docs/env.md"}
    )
    assert SECRET not in canonical(result)
    assert result["ok"] is False and result["error"]["code"] == "permission_denied"


# -- a property: any path string the scope does not hold ----------------------------------


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two workspaces: one with an object of every kind at many out-of-scope paths, one
    with docs/ only."""
    full = new_workspace(tmp_path_factory.mktemp("populated"))
    for index, (kind, make) in enumerate(KINDS.items()):
        for name in (f"src/{index}", f".env{index}", f"docs2/{index}"):
            make(_place(full, name), full)
        _place(full, kind.replace(" ", "_"))
        make(full / kind.replace(" ", "_"), full)
    (full / ".env").write_text(SECRET + "\n", encoding="utf-8")
    empty = new_workspace(tmp_path_factory.mktemp("empty"))
    return full, empty


SEGMENTS = st.sampled_from(
    ["docs", "docs2", "src", "..", ".", "", ".env", "a.md", "FIFO", "directory", "0", "~"]
)
PATH_STRINGS = st.one_of(
    st.lists(SEGMENTS, min_size=1, max_size=5).map("/".join),
    st.lists(SEGMENTS, min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts)),
    st.text(max_size=12),
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(path=PATH_STRINGS, tool=st.sampled_from(["read_lines", "search_files"]))
def test_any_path_the_scope_does_not_hold_is_refused_alike_with_nothing_opened(
    populated: tuple[Path, Path], path: str, tool: str
) -> None:
    if DOCS_SCOPE.holds_path(path):
        return  # inside docs/: the tool may open it (the backslash hole is tested above)
    full, empty = (workspace_host(root, None) for root in populated)
    results = []
    for host in (full, empty):
        host.call(tool, tool_args(tool, "docs/a.md"))  # warm up
        with OpenSpy() as spy:
            results.append(host.call(tool, tool_args(tool, path)))
        assert (spy.opens, spy.looks) == (0, 0), (path, spy.counts)
        ENVELOPE.validate(results[-1])
        assert results[-1]["ok"] is False
        record = host.log[-1]
        # the schema refuses what is not a path at all (blank, too long); the rest is the
        # scope's refusal, before the tool ran
        assert record.station == "schema_check" or (record.station, record.outcome) == (
            "authorization",
            "permission_denied",
        ), (path, record)
    assert canonical(results[0]) == canonical(results[1])  # what exists changes nothing


# =========================================================================== 2. the world


@dataclass
class World:
    """Every tool of the course that writes, deletes or sends, over stores a test reads."""

    store: GitHubStore
    handle: InProcessHandle
    client: GitHubClient
    settings: Settings
    pending: PendingActions
    gateway: OutboundGateway
    deployments: Deployments
    tasks: TaskStore
    registry: Registry

    def snapshot(self) -> dict[str, Any]:
        """Everything a call could have changed, anywhere (a preview may READ GitHub to
        show what a call changes: only requests that are not GETs count here)."""
        pull = self.store.pull_request(REPO, PR)
        return {
            "github_writes": [r for r in self.handle.requests if r.method != "GET"],
            "conversation": [(c.id, c.body) for c in self.store.issue_comments(REPO, PR)],
            "review": [(c.id, c.body) for c in self.store.review_comments(REPO, PR)],
            "merged": None if pull is None else pull.merged_at,
            "settings": list(self.settings.changes),
            "pending": {key: a.status for key, a in self.pending.actions.items()},
            "sent": list(self.gateway.requests),
            "deployed": list(self.deployments.done),
            "tasks": (dict(self.tasks.tasks), self.tasks.writes),
        }


REPO, PR = "example/shop", 128
HOOK = "hooks.example"

#: The operator's declarations for the whole course world: every tool, its class.
COURSE_ACCESS: dict[str, ToolAccess] = {
    "github_pr_get": github_access("read"),
    "github_pr_list_comments": github_access("read"),
    "github_pr_get_comment": github_access("read"),
    "github_pr_create_comment": github_access("write"),
    "github_pr_get_comment_status": github_access("read"),
    "github_pr_merge": github_access("send"),
    "github_pr_delete_comment": github_access("delete"),
    "github_pr_edit_comment": github_access("write"),
    "github_pr_list_conversation": github_access("read"),
    "settings_update": local_access("write", "settings"),
    "pending_action_approve": local_access("send", "pending_actions"),
    "http_send": outbound_access("send"),
    "deploy_release": local_access("send", "deployments"),
    "task_set_status": local_access("write", "tasks"),
}
COURSE_SCOPE = TaskScope(
    repositories=frozenset({REPO}),
    grants=frozenset({"read", "write", "delete", "send"}),
    hosts=frozenset({HOOK}),
)


@pytest.fixture
def world() -> Iterator[World]:
    store = build_store()
    with (
        serve_in_process(store) as handle,
        GitHubClient(handle.base_url, transport=handle.transport()) as client,
    ):
        settings = Settings({"review.auto_merge": False})
        pending = PendingActions()
        pending.add("A-7", "delete branch feature/login")
        gateway, deployments = OutboundGateway(), Deployments()
        tasks = TaskStore({"T-1": "backlog"})
        registry = Registry(
            [
                *github_tool_specs(GitHubToolContext(client, CursorCodec(b"k" * 32))),
                *write_tool_specs(WriteContext(client, sleep=lambda seconds: None)),
                *dangerous_tool_specs(DangerousContext(client, settings, pending)),
                http_send_spec(gateway),
                deploy_spec(deployments),
                task_set_status_spec(tasks),
            ]
        )
        yield World(store, handle, client, settings, pending, gateway, deployments, tasks, registry)


def course_host(world: World, **kwargs: Any) -> Host:
    return Host(world.registry, access=COURSE_ACCESS, scope=COURSE_SCOPE, **kwargs)


# -- 2b. the map is checked when the host is built -----------------------------------------


def test_a_misspelt_map_entry_fails_when_the_host_is_built(world: World) -> None:
    misspelt = {**COURSE_ACCESS, "github_pr_comment_status": github_access("read")}
    del misspelt["github_pr_get_comment_status"]
    with pytest.raises(ValueError, match="github_pr_comment_status") as caught:
        Host(world.registry, access=misspelt, scope=COURSE_SCOPE)
    assert "does not have" in str(caught.value)
    assert "github_pr_get_comment_status" in str(caught.value)  # the registered names


def test_undeclared_lists_what_the_map_leaves_out_and_those_calls_are_refused(
    world: World,
) -> None:
    reads_only = {name: a for name, a in COURSE_ACCESS.items() if a.action == "read"}
    host = Host(world.registry, access=reads_only, scope=COURSE_SCOPE)
    assert set(host.undeclared) == set(COURSE_ACCESS) - set(reads_only)
    assert list(host.undeclared) == [n for n in world.registry.names if n not in reads_only]
    assert course_host(world).undeclared == ()
    before = world.snapshot()
    result = host.call("settings_update", {"key": "review.auto_merge", "value": True})
    assert result["error"]["code"] == "permission_denied"
    assert "has no declared access" in result["error"]["message"]
    assert host.flow.requests == () and world.snapshot() == before
    assert host.action_class("settings_update") is None
    assert host.action_class("github_pr_get") == "read"


# -- 2c. guards are not optional ----------------------------------------------------------


def test_a_registry_with_a_tool_that_is_not_read_only_needs_guards() -> None:
    tasks = TaskStore({"T-1": "backlog"})
    registry = Registry([task_set_status_spec(tasks)])
    with pytest.raises(ValueError, match="task_set_status") as caught:
        Host(registry)
    assert "access=" in str(caught.value) and "unguarded=True" in str(caught.value)
    # said out loud, it builds: no station at all, and the write simply runs
    bare = Host(registry, unguarded=True)
    assert bare.stations == () and bare.undeclared == ()
    assert bare.call("task_set_status", {"task_id": "T-1", "status": "shipped"})["ok"] is True
    assert tasks.writes == 1
    # a registry of reads only needs nothing
    assert Host(Registry([read_lines_tool("/nonexistent")])).stations == ()


def test_half_a_guard_or_an_override_of_an_unknown_tool_is_refused() -> None:
    registry = Registry([task_set_status_spec(TaskStore())])
    access = {"task_set_status": local_access("write", "tasks")}
    scope = TaskScope(grants=frozenset({"write"}))
    with pytest.raises(ValueError, match="both"):
        Host(registry, access=access)
    with pytest.raises(ValueError, match="both"):
        Host(registry, scope=scope)
    with pytest.raises(ValueError, match="task_set_stat"):
        Host(registry, access=access, scope=scope, confirm={"task_set_stat": None})
    host = Host(registry, access=access, scope=scope)
    assert [s.slot for s in host.stations] == ["authorization", "resolution", "confirmation"]


# -- 2d. confirmation by action class -------------------------------------------------------

#: One call of every tool the map declares write, delete or send, and its effect once run.
CONFIRMED_CALLS: dict[str, dict[str, Any]] = {
    "github_pr_create_comment": {
        "repository": REPO,
        "pr": PR,
        "body": "Summary: two confirmed issues.",
        "idempotency_key": "host-test-1",
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
        "body": "Resolved: rounded once.",
    },
    "settings_update": {"key": "review.auto_merge", "value": True},
    "pending_action_approve": {"action_id": "A-7"},
    "http_send": {"method": "POST", "url": f"https://{HOOK}/review", "body": "done"},
    "deploy_release": {"group": "canary", "version": "v2.4.1"},
    "task_set_status": {"task_id": "T-1", "status": "shipped"},
}


#: Tools whose business check refuses the replay of an executed call (before the
#: confirmation station could say approval_invalid): the action is no longer pending.
REPLAY_REFUSED_BY_CHECK = {"pending_action_approve": ("invalid_value", "business_check")}


def _effect_of(name: str, world: World) -> bool:
    """Whether the effect of ``CONFIRMED_CALLS[name]`` is there."""
    if name == "github_pr_create_comment":
        body = CONFIRMED_CALLS[name]["body"]
        return any(body in c.body for c in world.store.issue_comments(REPO, PR))
    if name == "github_pr_merge":
        pull = world.store.pull_request(REPO, PR)
        return pull is not None and pull.merged_at is not None
    if name == "github_pr_delete_comment":
        return world.store.review_comment(REPO, INJECTED_COMMENT_ID) is None
    if name == "github_pr_edit_comment":
        comment = world.store.review_comment(REPO, DOUBLE_ROUNDING_COMMENT_ID)
        return comment is not None and comment.body == "Resolved: rounded once."
    if name == "settings_update":
        return world.settings.changes == [("review.auto_merge", False, True)]
    if name == "pending_action_approve":
        return world.pending.actions["A-7"].status == "approved"
    if name == "http_send":
        return world.gateway.requests == [OutboundRequest("POST", f"https://{HOOK}/review", "done")]
    if name == "deploy_release":
        return world.deployments.done == [("canary", "v2.4.1")]
    assert name == "task_set_status"
    return world.tasks.tasks["T-1"] == "shipped" and world.tasks.writes == 1


def test_the_cases_cover_every_tool_declared_write_delete_or_send(world: World) -> None:
    confirmed = {n for n, a in COURSE_ACCESS.items() if a.action in CONFIRMED_CLASSES}
    assert set(CONFIRMED_CALLS) == confirmed
    # and the declarations are honest: what is not read-only is not declared a read
    for spec in world.registry:
        assert (COURSE_ACCESS[spec.name].action == "read") == spec.annotations.read_only, spec.name


@pytest.mark.parametrize("name", list(CONFIRMED_CALLS))
def test_a_write_delete_or_send_without_approval_asks_and_runs_nothing(
    world: World, name: str
) -> None:
    host = course_host(world)
    args = CONFIRMED_CALLS[name]
    before = world.snapshot()
    result = host.call(name, args)
    ENVELOPE.validate(result)
    error = result["error"]
    assert (error["code"], error["operation_state"]) == ("confirmation_required", "not_applied")
    assert world.snapshot() == before  # nothing executed anywhere
    assert not _effect_of(name, world)
    ask = error["confirmation"]
    request = host.flow.request(ask["request_id"])  # a real request of this host's flow
    assert (request.tool, request.state, dict(request.arguments)) == (name, "asked", args)
    # the question is the tool's own preview, or the plain question when it has none
    action = COURSE_ACCESS[name].action
    spec = host.registry.get(name)
    expected = (
        plain_question(name, args, action)
        if spec.preview is None
        else spec.preview(spec.context, args)
    )
    assert request.question == expected and expected.formal is None
    assert "impact" in request.question.shown  # what the user must know to decide
    assert ask == {
        "request_id": request.request_id,
        "question": expected.text,
        "options": ["accept", "decline", "cancel"],
    }
    assert host.action_class(name) == action in CONFIRMED_CLASSES
    assert host.log[-1].station == "confirmation"
    # the user accepts: it runs, once
    host.flow.answer(request.request_id, "accept")
    ran = host.run_approved(request.request_id)
    assert ran["ok"] is True, ran
    assert _effect_of(name, world)
    after = world.snapshot()
    replay = host.run_approved(request.request_id)
    # a replay is refused and runs nothing; the business check runs before the
    # confirmation station, so a tool whose check sees the change refuses it first
    code, station = REPLAY_REFUSED_BY_CHECK.get(name, ("approval_invalid", "confirmation"))
    assert (replay["error"]["code"], host.log[-1].station) == (code, station)
    assert world.snapshot() == after  # not one more request, not one more effect
    assert [r.event for r in host.flow.audit].count("executed") == 1


def test_reads_run_without_a_question(world: World) -> None:
    host = course_host(world)
    for name, args in (
        ("github_pr_get", {"repository": REPO, "pr": PR}),
        ("github_pr_list_conversation", {"repository": REPO, "pr": PR}),
        (
            "github_pr_get_comment_status",
            {"repository": REPO, "pr": PR, "idempotency_key": "never-posted"},
        ),
    ):
        assert host.call(name, args)["ok"] is True, name
    assert host.flow.requests == ()


def test_a_class_not_granted_is_refused_before_any_question(world: World) -> None:
    reads = TaskScope(repositories=frozenset({REPO}), grants=frozenset({"read"}))
    host = Host(world.registry, access=COURSE_ACCESS, scope=reads)
    before, served = world.snapshot(), len(world.handle.requests)
    for name, args in CONFIRMED_CALLS.items():
        result = host.call(name, args)
        assert result["error"]["code"] == "permission_denied", name
    assert host.flow.requests == () and world.snapshot() == before
    assert len(world.handle.requests) == served  # refused before any preview could read
    assert {r.station for r in host.log} == {"authorization"}


def test_approved_in_advance_runs_directly_and_an_override_asks_its_own_question(
    world: World,
) -> None:
    asked: list[str] = []

    def own(call: PendingCall) -> Question:
        asked.append(call.tool.name)
        return Question(f"Set {call.arguments['task_id']} to {call.arguments['status']}?")

    host = course_host(world, confirm={"deploy_release": None, "task_set_status": own})
    assert host.call("deploy_release", CONFIRMED_CALLS["deploy_release"])["ok"] is True
    result = host.call("task_set_status", CONFIRMED_CALLS["task_set_status"])
    assert result["error"]["confirmation"]["question"] == "Set T-1 to shipped?"
    assert asked == ["task_set_status"] and world.tasks.writes == 0


ALL_HOSTS = {"group": "all-hosts", "version": "v2.4.1"}


def test_a_rollout_to_all_hosts_is_refused_for_formal_approval_under_a_default_host(
    world: World,
) -> None:
    host = course_host(world)  # deploy_release's own preview says all hosts is formal
    for attempt in (1, 2):
        result = host.call("deploy_release", ALL_HOSTS)
        ENVELOPE.validate(result)
        error = result["error"]
        assert (error["code"], error["operation_state"]) == (
            "confirmation_required",
            "not_applied",
        )
        assert "confirmation" not in error  # nothing the user could click
        assert "a rollout plan signed off by the on-call lead" in error["message"]
        assert host.flow.requests == ()
        assert [r.event for r in host.flow.audit] == ["refused_formal"] * attempt
    assert world.deployments.done == []


# =========================================================================== 3. the answerer

NOTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "labels": {"type": "array", "items": {"type": "string"}},
        "channel": {"type": "string", "enum": ["team", "public"]},
    },
    "required": ["title", "labels"],
    "additionalProperties": False,
}


def note_host(
    executed: list[Any],
    answerer: Callable[[ConfirmationFlow, str], object] | None,
    **kwargs: Any,
) -> Host:
    """A host of one small write tool whose execute records the arguments it ran with."""

    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        executed.append(json.loads(json.dumps(dict(args))))
        return {"written": True}

    tool = ToolSpec(
        "note_write",
        "Write a note",
        "Write a note with a title and labels (a tool of the tests).",
        NOTE_SCHEMA,
        annotations=LOCAL_WRITE,
        execute=execute,
    )
    return Host(
        Registry([tool]),
        access={"note_write": local_access("write", "notes")},
        scope=TaskScope(grants=frozenset({"write"})),
        answerer=answerer,
        clock=StepClock(),
        **kwargs,
    )


NOTE: dict[str, Any] = {"title": "Release notes", "labels": ["release", "v2.4.1"]}


def test_an_accepting_answerer_runs_the_call_once() -> None:
    executed: list[Any] = []
    host = note_host(executed, lambda flow, rid: flow.answer(rid, "accept", by="script"))
    result = host.call("note_write", NOTE)
    assert result["ok"] is True and executed == [NOTE]
    (request,) = host.flow.requests
    assert (request.state, request.answered_by) == ("executed", "script")
    again = host.run_approved(request.request_id)
    assert (again["error"]["code"], again["error"]["operation_state"]) == (
        "approval_invalid",
        "not_applied",
    )
    assert executed == [NOTE]
    assert [r.station for r in host.log] == ["confirmation", "execution", "confirmation"]


@pytest.mark.parametrize(("decision", "state"), [("decline", "declined"), ("cancel", "cancelled")])
def test_a_declining_or_cancelling_answerer_runs_nothing(decision: str, state: str) -> None:
    executed: list[Any] = []
    answered: list[str] = []

    def answerer(flow: ConfirmationFlow, request_id: str) -> None:
        answered.append(request_id)
        flow.answer(request_id, decision)  # type: ignore[arg-type]

    host = note_host(executed, answerer)
    result = host.call("note_write", NOTE)
    ENVELOPE.validate(result)
    error = result["error"]
    assert (error["code"], error["operation_state"]) == ("approval_invalid", "not_applied")
    assert state in error["message"] and "did not run" in error["message"]
    assert executed == [] and host.flow.requests[0].state == state
    assert host.log[-1].station == "confirmation"
    assert host.log[-1].outcome == "approval_invalid"
    # asked again: a declined call stays refused without a question; a cancelled one asks
    again = host.call("note_write", NOTE)
    assert again["error"]["code"] == "approval_invalid" and executed == []
    assert len(answered) == (1 if decision == "decline" else 2)


def test_an_answerer_that_leaves_the_question_open_runs_nothing_until_the_user_answers() -> None:
    executed: list[Any] = []
    host = note_host(executed, lambda flow, rid: None)
    result = host.call("note_write", NOTE)
    assert result["error"]["code"] == "approval_invalid"
    assert "did not answer" in result["error"]["message"] and executed == []
    (request,) = host.flow.requests
    assert request.state == "asked"
    host.flow.answer(request.request_id, "accept")
    assert host.run_approved(request.request_id)["ok"] is True and executed == [NOTE]


CHANNELS = ("team", "public")


def test_a_chosen_target_is_filled_in_before_the_call_runs() -> None:
    executed: list[Any] = []
    guess = {**NOTE, "channel": "team"}  # the model guessed where it goes
    policy = choose_target("channel", CHANNELS)
    asking = note_host(executed, None, confirm={"note_write": policy})
    error = asking.call("note_write", guess)["error"]
    assert error["confirmation"]["choose"] == "channel"
    assert error["confirmation"]["candidates"] == list(CHANNELS)
    assert "channel" not in asking.flow.requests[0].question.shown  # the guess is not decided
    host = note_host(
        executed,
        lambda flow, rid: flow.answer(rid, "accept", choice="public"),
        confirm={"note_write": policy},
    )
    result = host.call("note_write", guess)
    assert result["ok"] is True
    assert executed == [{**NOTE, "channel": "public"}]  # the user's choice, filled in
    (request,) = host.flow.requests
    # the model's call as it was made, and the approved one: frozen all the way down
    assert thawed(request.arguments) == guess
    assert thawed(request.approved_arguments) == guess | {"channel": "public"}
    assert executed[0] != guess


def test_approval_in_advance_never_skips_a_formal_gate(world: World) -> None:
    """``confirm={tool: None}`` (approved in advance) skips the question, not the formal
    approval the tool's own preview requires: a rollout to all hosts is still refused."""
    host = course_host(world, confirm={"deploy_release": None})
    canary = host.call("deploy_release", {"group": "canary", "version": "v9.9.9"})
    assert canary["ok"] is True
    everywhere = host.call("deploy_release", {"group": "all-hosts", "version": "v9.9.9"})
    assert everywhere["ok"] is False
    assert everywhere["error"]["code"] == "confirmation_required"
    assert "formal approval" in everywhere["error"]["message"]
    assert host.flow.audit[-1].event == "refused_formal"


def test_choosing_all_hosts_in_a_question_still_meets_the_formal_gate(world: World) -> None:
    canary = {"group": "canary", "version": "v2.4.1"}  # the model's guess
    host = course_host(
        world,
        confirm={"deploy_release": choose_target("group", HOST_GROUPS)},
        answerer=lambda flow, rid: flow.answer(rid, "accept", choice="all-hosts"),
    )
    result = host.call("deploy_release", canary)
    assert result["error"]["code"] == "confirmation_required"
    assert "a rollout plan signed off by the on-call lead" in result["error"]["message"]
    assert world.deployments.done == []  # accepted in a chat, refused all the same
    (request,) = host.flow.requests
    assert request.state == "accepted"  # the approval is not used
    assert dict(request.approved_arguments or {}) == ALL_HOSTS
    assert host.flow.audit[-1].event == "refused_formal"


def test_an_answerer_that_accepts_without_choosing_is_a_front_end_error(world: World) -> None:
    host = course_host(
        world,
        confirm={"deploy_release": choose_target("group", HOST_GROUPS)},
        answerer=lambda flow, rid: flow.answer(rid, "accept"),
    )
    with pytest.raises(ConfirmationError, match="choose one of"):
        host.call("deploy_release", {"group": "canary", "version": "v2.4.1"})
    assert world.deployments.done == []


# -- 3f. what runs is what was approved -----------------------------------------------------


def test_a_nested_list_the_caller_changes_after_the_approval_changes_nothing() -> None:
    executed: list[Any] = []
    caller = copy.deepcopy(NOTE)

    def answerer(flow: ConfirmationFlow, request_id: str) -> None:
        caller["labels"].append("before the answer")  # the caller's list changes...
        flow.answer(request_id, "accept")
        caller["labels"].append("after the answer")  # ...and again, once approved
        caller["title"] = "another title"

    host = note_host(executed, answerer)
    assert host.call("note_write", caller)["ok"] is True
    assert executed == [NOTE]  # what ran is what was asked and approved
    (request,) = host.flow.requests
    assert request.question.shown["labels"] == json.dumps(NOTE["labels"])
    assert caller["labels"] == [*NOTE["labels"], "before the answer", "after the answer"]


def test_a_nested_list_changed_between_the_question_and_run_approved_changes_nothing() -> None:
    executed: list[Any] = []
    caller = copy.deepcopy(NOTE)
    host = note_host(executed, None)
    rid = host.call("note_write", caller)["error"]["confirmation"]["request_id"]
    caller["labels"].append("smuggled")
    host.flow.answer(rid, "accept")
    caller["labels"].append("smuggled again")
    assert host.run_approved(rid)["ok"] is True and executed == [NOTE]


def test_a_request_s_nested_arguments_cannot_change_what_the_user_approves() -> None:
    executed: list[Any] = []

    def meddling_front_end(flow: ConfirmationFlow, request_id: str) -> None:
        with contextlib.suppress(AttributeError, TypeError):
            flow.request(request_id).arguments["labels"].append("injected")
        flow.answer(request_id, "accept")

    host = note_host(executed, meddling_front_end)
    host.call("note_write", NOTE)
    assert executed in ([], [NOTE])


# =========================================================================== 4. bugs


def _raises_runtime_error(call: PendingCall) -> None:
    raise RuntimeError("the station itself is broken")


def reader_registry() -> Registry:
    tool = ToolSpec(
        "fake_read",
        "Fake read",
        "A read-only tool of the tests.",
        {"type": "object"},
        annotations=READ_ONLY_LOCAL,
        execute=lambda context, args, checked: {"read": True},
    )
    return Registry([tool])


@pytest.mark.parametrize("slot", ["authorization", "resolution", "confirmation"])
def test_a_station_that_raises_is_a_station_bug_logged_at_its_slot(slot: StationSlot) -> None:
    host = Host(reader_registry(), extra_stations=[Station("broken", slot, _raises_runtime_error)])
    with pytest.raises(StationBug, match="station 'broken' raised RuntimeError") as caught:
        host.call("fake_read", {})
    bug = caught.value
    assert bug.station == slot and isinstance(bug.__cause__, RuntimeError)
    assert isinstance(bug, RoadBug) and isinstance(bug, TutorialLibError)
    (record,) = host.log
    assert (record.outcome, record.operation_state, record.station) == ("bug", None, slot)
    assert record.exception_class == "StationBug"


def test_a_preview_that_returns_no_question_is_a_bug_of_the_confirmation_station() -> None:
    tool = ToolSpec(
        "note_write",
        "Write a note",
        "Write a note (a tool of the tests).",
        {"type": "object"},
        annotations=LOCAL_WRITE,
        execute=lambda context, args, checked: {},
        preview=lambda context, args: "Post it?",
    )
    host = Host(
        Registry([tool]),
        access={"note_write": local_access("write")},
        scope=TaskScope(grants=frozenset({"write"})),
    )
    with pytest.raises(StationBug, match="TypeError"):
        host.call("note_write", {})
    assert (host.log[-1].outcome, host.log[-1].station) == ("bug", "confirmation")


def test_every_exception_raised_on_purpose_is_a_tutorial_lib_error() -> None:
    for error in (
        ContractError("not_found", "gone"),
        StationBug("broken", station="authorization"),
        MalformedEnvelope("malformed", station="envelope_check"),
        ConfirmationError("answered twice"),
    ):
        assert isinstance(error, TutorialLibError), type(error)
    assert not issubclass(StationBug, MalformedEnvelope)  # two different bugs
    assert issubclass(ConfirmationError, ValueError) and issubclass(RoadBug, RuntimeError)


def test_a_host_result_is_the_envelope_the_road_built() -> None:
    """The host adds nothing of its own to the envelope: the road's result, as is."""
    host = Host(reader_registry())
    result: Envelope = host.call("fake_read", {})
    assert result == {"schema_version": 1, "ok": True, "tool": "fake_read", "data": {"read": True}}


def test_the_scope_s_secret_policy_is_the_one_search_files_uses(tmp_path: Path) -> None:
    """One policy, configured once on the scope: the host gives it (and the grant) to the
    search tool, so the station and the walk agree about which files bear secrets."""
    from tutorial_lib.core.secrets import SecretPolicy

    root = new_workspace(tmp_path)
    (root / "docs" / "deploy.vault").write_text("token=abc\n")
    (root / "docs" / ".env.example").write_text("token=<placeholder>\n")
    scope = TaskScope(
        workspace_paths=("docs",),
        grants=frozenset({"read"}),
        secrets=SecretPolicy(deny=("*.vault",)),
    )
    access = {
        "read_lines": workspace_access("read"),
        "search_files": workspace_access("read", default="."),
    }
    registry = Registry([read_lines_tool(root), search_files_tool(root)])
    host = Host(registry, access=access, scope=scope)
    found = host.call("search_files", {"query": "token", "path": "docs"})
    assert found["ok"] is True
    paths = {c["path"] for c in found["data"]["candidates"]}
    assert paths == {"docs/.env.example"}  # a template is not a secret; the vault is
    assert found["data"]["files_skipped"]["secret"] == 1
    refused = host.call("read_lines", tool_args("read_lines", "docs/deploy.vault"))
    assert refused["error"]["code"] == "permission_denied"
    template = host.call("read_lines", tool_args("read_lines", "docs/.env.example"))
    assert template["ok"] is True


# -- no dead ends: an error never proposes a call the host would refuse -------------------


def _job_host(grants: set[str]) -> Host:
    """A write whose outcome is unknown proposes a status read (chapter 05's next step)."""

    def start(context: Any, args: Mapping[str, Any], checked: Any) -> Any:
        raise ContractError(
            "outcome_unknown",
            "the job service did not answer: the job may or may not have started",
            suggestion="check the job's status before starting it again",
            next_tool={"name": "job_status", "arguments": {"job": args["job"]}},
        )

    start_tool = ToolSpec(
        "job_start",
        "Start a job",
        "Start one job (a tool of the tests).",
        {"type": "object", "properties": {"job": {"type": "string"}}, "required": ["job"]},
        annotations=LOCAL_WRITE,
        execute=start,
    )
    status_tool = ToolSpec(
        "job_status",
        "Read a job's status",
        "Read-only. A job's status (a tool of the tests).",
        {"type": "object", "properties": {"job": {"type": "string"}}, "required": ["job"]},
        annotations=READ_ONLY_LOCAL,
        execute=lambda context, args, checked: {"job": args["job"], "status": "running"},
    )
    return Host(
        Registry([start_tool, status_tool]),
        access={"job_start": local_access("write", "jobs"), "job_status": local_access("read")},
        scope=TaskScope(grants=frozenset(grants)),  # type: ignore[arg-type]
        confirm={"job_start": None},  # approved in advance: the point here is the next step
        clock=StepClock(),
    )


def test_a_next_step_the_task_may_take_is_proposed() -> None:
    host = _job_host({"read", "write"})
    error = host.call("job_start", {"job": "j-1"})["error"]
    assert error["next_tool"] == {"name": "job_status", "arguments": {"job": "j-1"}}
    assert host.call("job_status", error["next_tool"]["arguments"])["ok"]


def test_a_next_step_the_host_would_refuse_is_never_proposed() -> None:
    host = _job_host({"write"})  # write granted, read not: the status check is refused
    result = host.call("job_start", {"job": "j-1"})
    ENVELOPE.validate(result)
    error = result["error"]
    assert "next_tool" not in error and error["code"] == "outcome_unknown"
    assert error["suggestion"] == (
        "check the job's status before starting it again (The next step, job_status, is not"
        " allowed in this task: read is not granted for this task ('job_status' is declared"
        " as read). Tell the user; do not call it.)"
    )
    refused = host.call("job_status", {"job": "j-1"})["error"]
    assert refused["code"] == "permission_denied"  # what the removed proposal would have met
