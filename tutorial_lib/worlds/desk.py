"""Chapter 07's desk: a live emulator, the safe write tool, a confirmation flow, widgets.

:func:`open_desk` starts what the chapter's cells share (and what its browser test
clicks through): the in-process GitHub emulator with PR 128 in two repositories, the
chapter 05 write tool ``github_pr_create_comment`` (optionally behind a scripted fault),
the example ``deploy_release`` tool, and one :class:`~tutorial_lib.core.host.Host` (the
road, its authorization and its confirmation flow). Every write and send asks the user by
default (the host's rule by action class), with the tool's own preview; the chapter's two
overrides:

- :func:`post_policy`: every comment post asks the user, who chooses the repository
  (both have a PR 128: the target is undecided) and sees the comment as a diff, where it
  goes and its impact;
- :func:`deploy_policy`: a staging deploy is approved in advance by the team (runs
  directly); production needs a change request: no click here replaces it.

A merge asks with ``github_pr_merge``'s own preview (what changes, who it affects).

The clock is a :class:`ManualClock`: outputs are the same on every run, and a cell can
move time forward to show an approval expiring.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tutorial_lib.core.authorization import TaskScope, github_access, local_access
from tutorial_lib.core.confirmation import ConfirmationFlow, ConfirmationRequest, Question
from tutorial_lib.core.contracts import Envelope, LogRecord
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import PendingCall
from tutorial_lib.core.tools import Registry
from tutorial_lib.course.confirm_widgets import ConfirmationWidget, describe_envelope
from tutorial_lib.emulator.faults import FaultPlan
from tutorial_lib.emulator.fixtures import GitHubStore, build_store
from tutorial_lib.emulator.service import serve_in_process
from tutorial_lib.examples.deploy import Deployments, deploy_spec
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.dangerous import DangerousContext, dangerous_tool_specs
from tutorial_lib.github.writes import WriteContext, write_tool_specs

__all__ = [
    "PR",
    "REPOSITORIES",
    "Desk",
    "EmulatorDesk",
    "ManualClock",
    "deploy_policy",
    "open_desk",
    "open_emulator",
    "post_policy",
]

#: Both repositories have a PR 128: "post it on PR 128" does not say which.
REPOSITORIES: tuple[str, ...] = ("example/shop", "other/shop")
PR = 128


@dataclass
class ManualClock:
    """A clock that moves only when told to (seconds)."""

    now_s: float = 0.0

    def __call__(self) -> float:
        return self.now_s

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self.now_s += seconds


def post_policy(call: PendingCall) -> Question | None:
    """Ask before every comment post: which repository, with the comment shown as a diff."""
    if call.tool.name != "github_pr_create_comment":
        return None
    arguments = call.arguments
    return Question(
        text=f"在哪个仓库的 PR #{arguments['pr']} 上发这条评论？",
        shown={
            "where": f"PR #{arguments['pr']} 的对话区（两个仓库都有 PR #{arguments['pr']}）",
            "comment": str(arguments["body"]),
            "impact": "所有能看到这个 PR 的人都会收到通知；发出以后只能删除，通知收不回",
        },
        choose="repository",
        candidates=REPOSITORIES,
    )


def deploy_policy(call: PendingCall) -> Question | None:
    """The team's rule for this task: a staging deploy is approved in advance (runs
    directly); any other environment gets the tool's own question (production: formal
    approval only, see :mod:`tutorial_lib.examples.deploy`)."""
    if call.arguments["environment"] == "staging":
        return None
    preview = call.tool.preview
    return None if preview is None else preview(call.tool.context, call.arguments)


_Desk = TypeVar("_Desk", bound="EmulatorDesk")


@dataclass(kw_only=True)
class EmulatorDesk:
    """An emulator, a confirmation flow and a road that a chapter's cells share.

    :meth:`call` is a call as the model makes it, :meth:`run` the host running what the
    user approved; close it with :meth:`close` (or use ``with``).
    """

    store: GitHubStore
    clock: ManualClock
    host: Host = field(init=False)
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack, repr=False)

    @property
    def flow(self) -> ConfirmationFlow:
        """The host's confirmation flow (its questions, answers and audit log)."""
        return self.host.flow

    @property
    def log(self) -> list[LogRecord]:
        """The host's log: one record per call."""
        return self.host.log

    @property
    def registry(self) -> Registry:
        """The host's tools."""
        return self.host.registry

    def comments(self, repository: str = REPOSITORIES[0]) -> int:
        """Conversation comments stored on PR 128 of ``repository``, in the emulator."""
        return len(self.store.issue_comments(repository, PR))

    def call(self, tool: str, arguments: Mapping[str, Any]) -> Envelope:
        """A call as the model makes it: through the host (the road and its guards)."""
        return self.host.call(tool, dict(arguments))

    def run(self, request: ConfirmationRequest | str) -> Envelope:
        """The host runs the approved call of ``request`` (once: a second run is refused)."""
        request_id = request if isinstance(request, str) else request.request_id
        return self.host.run_approved(request_id)

    def close(self) -> None:
        """Stop the emulator and close the client."""
        self._stack.close()

    def __enter__(self: _Desk) -> _Desk:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def open_emulator(
    stack: contextlib.ExitStack, faults: str | None
) -> tuple[GitHubStore, GitHubClient]:
    """A fresh store served in process (``faults``: a chapter 05 fault script for POSTs)
    and a client for it; ``stack`` closes both."""
    store = build_store()
    plan = FaultPlan.parse(faults) if faults else None
    handle = stack.enter_context(serve_in_process(store, faults=plan))
    client = stack.enter_context(
        GitHubClient(handle.base_url, timeout_s=0.3, transport=handle.transport())
    )
    return store, client


@dataclass(kw_only=True)
class Desk(EmulatorDesk):
    """Chapter 07's desk: the emulator, the deploy tool's record, the confirmation flow."""

    deployments: Deployments

    def widget(self, request_id: str) -> ConfirmationWidget:
        """The question on screen; an acceptance runs the approved call once."""

        def after(envelope: Mapping[str, Any]) -> str:
            counts = "，".join(f"{repo}: {self.comments(repo)}" for repo in REPOSITORIES)
            return f"{describe_envelope(envelope)}；模拟器里的评论数 {counts}"

        return ConfirmationWidget(self.flow, request_id, run=self.run, after=after)


def open_desk(*, faults: str | None = None, ttl_s: float = 300.0, session: str = "S07") -> Desk:
    """A fresh desk. ``faults``: a chapter 05 fault script for the emulator (e.g.
    ``"commit_then_timeout:0.8"``: the first POST is stored, its answer lost)."""
    stack = contextlib.ExitStack()
    store, client = open_emulator(stack, faults)
    clock = ManualClock()
    deployments = Deployments()
    writes = WriteContext(client, sleep=lambda _seconds: None, seed=7)
    merging = [
        spec
        for spec in dangerous_tool_specs(DangerousContext(client))
        if spec.name == "github_pr_merge"
    ]
    registry = Registry([*write_tool_specs(writes), *merging, deploy_spec(deployments)])
    access = {
        "github_pr_create_comment": github_access("write"),
        "github_pr_get_comment_status": github_access("read"),
        "github_pr_merge": github_access("send"),
        "deploy_release": local_access("send", "deployments"),
    }
    scope = TaskScope(
        repositories=frozenset(REPOSITORIES), grants=frozenset({"read", "write", "send"})
    )
    desk = Desk(store=store, clock=clock, deployments=deployments, _stack=stack)
    desk.host = Host(
        registry,
        access=access,
        scope=scope,
        # a merge asks with the tool's own preview (what changes, who it affects)
        confirm={"github_pr_create_comment": post_policy, "deploy_release": deploy_policy},
        clock=clock,
        session=session,
        ttl_s=ttl_s,
    )
    return desk
