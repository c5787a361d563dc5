"""The desks of chapters 07 and 08: a live emulator, a road with confirmation, no UI.

An :class:`EmulatorDesk` is what a chapter's cells share: the in-process GitHub emulator
with PR 128 in two repositories (:func:`open_emulator`; optionally behind a chapter 05
fault script), one :class:`~tutorial_lib.core.host.Host` (the road, its authorization and
its confirmation flow) and a :class:`ManualClock`.

Chapter 07: :func:`desk_host` builds its road: the chapter 05 write tool
``github_pr_create_comment``, the merge, the example ``deploy_release`` tool. The desk
with its widgets, ``open_desk``, is
:mod:`tutorial_lib.course.chapters.ch07_user_confirmation.demos`'s (the
only part that needs ipywidgets). Every write and send asks the user by default (the
host's rule by action class), with the tool's own preview; the chapter's two overrides:

- :func:`post_policy`: every comment post asks the user, who chooses the repository
  (both have a PR 128: the target is undecided) and sees the comment as a diff, where it
  goes and its impact;
- :func:`deploy_policy`: a canary rollout is approved in advance by the team (runs
  directly); all hosts need a rollout plan signed off by the on-call lead: no click here
  replaces it.

A merge asks with ``github_pr_merge``'s own preview (what changes, who it affects).

The clock is a :class:`ManualClock`: outputs are the same on every run, and a cell can
move time forward to show an approval expiring.

Chapter 08: :func:`open_walkthrough` opens the :class:`Walkthrough` of "check PR 128",
step by step, through the road (its judgements: :mod:`tutorial_lib.worlds.pr128`):

1. **locate** (:meth:`Walkthrough.locate`): the repository is known -> use it; when it is
   not (``example/shop`` and ``other/shop`` both have a PR 128), the read itself asks
   the user through chapter 07's choice flow (candidates, none preselected) instead of
   reading a guess;
2. **read and complete** (:meth:`Walkthrough.read`): the composite read-only snapshot
   (chapter 06), every page to ``coverage: complete``; details by id only for the
   comments a judgement rests on (:func:`~tutorial_lib.worlds.pr128.judge_pr128` cites
   them);
3. **judge** (:meth:`Walkthrough.judge`): confirmed problems, risks to verify, reviewer
   opinions, each with its evidence (chapter 04); unresolved is not automatically
   blocking; reading coverage is not code verification;
4. **stop**: the request was to read, so nothing is written (the store shows it);
5. **follow-up** "post the conclusion" (:meth:`Walkthrough.post`): the model's write is
   asked about with its text shown (chapter 07), runs once through chapter 05's safe write
   behind a write timeout, and is reported ``posted`` with evidence after a status check.

Every call goes through one host, with chapter 06's authorization and chapter 07's
confirmation; the injected comment of PR 128 stays data (it is set aside with its reason,
and no call follows from it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tutorial_lib.core.authorization import TaskScope, declared_access
from tutorial_lib.core.confirmation import (
    ConfirmationFlow,
    ConfirmationPolicy,
    ConfirmationRequest,
    Question,
)
from tutorial_lib.core.contracts import Envelope, LogRecord
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import PendingCall
from tutorial_lib.core.tools import Registry
from tutorial_lib.emulator.faults import FaultPlan
from tutorial_lib.emulator.fixtures import GitHubStore, build_store
from tutorial_lib.emulator.service import serve_in_process
from tutorial_lib.examples.deploy import DEPLOY_SPEC, Deployments, deploy_spec
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.composite import REVIEW_SNAPSHOT_SPEC, composite_tool_specs
from tutorial_lib.github.dangerous import DangerousContext, dangerous_tool_specs
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import GitHubToolContext, github_tool_specs
from tutorial_lib.github.writes import CREATE_COMMENT_SPEC, WriteContext, write_tool_specs
from tutorial_lib.language import tr
from tutorial_lib.worlds.pr128 import (
    PullRequestAnswer,
    build_answer,
    conclusion_text,
    judge_pr128,
    routine_set_aside,
)

__all__ = [
    "PR",
    "REPOSITORIES",
    "EmulatorDesk",
    "ManualClock",
    "Walkthrough",
    "deploy_policy",
    "desk_host",
    "open_emulator",
    "open_walkthrough",
    "post_policy",
]

#: Both repositories have a PR 128: "post it on PR 128" does not say which.
REPOSITORIES: tuple[str, ...] = ("example/shop", "other/shop")
PR = 128
_SNAPSHOT = REVIEW_SNAPSHOT_SPEC.name


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
    if call.tool.name != CREATE_COMMENT_SPEC.name:
        return None
    arguments = call.arguments
    pr = arguments["pr"]
    return Question(
        text=tr(
            f"在哪个仓库的 PR #{pr} 上发这条评论？",
            f"In which repository's PR #{pr} should this comment be posted?",
        ),
        shown={
            "where": tr(
                f"PR #{pr} 的对话区（两个仓库都有 PR #{pr}）",
                f"the conversation of PR #{pr} (both repositories have a PR #{pr})",
            ),
            "comment": str(arguments["body"]),
            "impact": tr(
                "所有能看到这个 PR 的人都会收到通知；发出以后只能删除，通知收不回",
                "everyone who can see this PR is notified; once posted, the comment can only"
                " be deleted, and the notifications cannot be recalled",
            ),
        },
        choose="repository",
        candidates=REPOSITORIES,
    )


def deploy_policy(call: PendingCall) -> Question | None:
    """The team's rule for this task: a canary rollout is approved in advance (runs
    directly); any other host group gets the tool's own question (all hosts: formal
    approval only, see :mod:`tutorial_lib.examples.deploy`)."""
    if call.arguments["group"] == "canary":
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


def desk_host(
    client: GitHubClient,
    deployments: Deployments,
    clock: ManualClock,
    *,
    session: str = "S07",
    ttl_s: float = 300.0,
) -> Host:
    """Chapter 07's road: the safe write and its status check, the merge, ``deploy_release``
    (recording into ``deployments``), authorization on both repositories, and confirmation
    (:func:`post_policy`, :func:`deploy_policy`; a merge asks with its own preview).

    :func:`tutorial_lib.course.chapters.ch07_user_confirmation.demos.open_desk` puts it on a
    desk with widgets.
    """
    writes = WriteContext(client, sleep=lambda _seconds: None, seed=7)
    # the merge: the one GitHub tool that sends (what it declares, not its name)
    merging = [
        spec
        for spec in dangerous_tool_specs(DangerousContext(client))
        if spec.access is not None and spec.access.action == "send"
    ]
    registry = Registry([*write_tool_specs(writes), *merging, deploy_spec(deployments)])
    access = declared_access(registry)  # what each tool declares
    scope = TaskScope(
        repositories=frozenset(REPOSITORIES), grants=frozenset({"read", "write", "send"})
    )
    return Host(
        registry,
        access=access,
        scope=scope,
        # a merge asks with the tool's own preview (what changes, who it affects)
        confirm={CREATE_COMMENT_SPEC.name: post_policy, DEPLOY_SPEC.name: deploy_policy},
        clock=clock,
        session=session,
        ttl_s=ttl_s,
    )


@dataclass(kw_only=True)
class Walkthrough(EmulatorDesk):
    """The world of the walkthrough and its road (the five steps are its methods).

    ``user_named``: the repository the user named, set by :meth:`locate`.
    """

    user_named: str | None = None

    def locate(self, named: str | None, *, guess: str = REPOSITORIES[1]) -> Envelope:
        """Step 1: read the snapshot of the repository the user ``named``; when they named
        none, the model's read (of its ``guess``) is asked about first: the result is
        ``confirmation_required`` and the question lists both repositories."""
        self.user_named = named
        return self.call(_SNAPSHOT, {"repository": named or guess, "pr": PR})

    def read(self, request: ConfirmationRequest | None = None) -> Envelope:
        """Step 2: the snapshot, of the named repository or of the one the user chose."""
        if request is not None:
            return self.run(request)
        if self.user_named is None:
            raise ValueError("locate first: no repository was named or chosen")
        return self.call(_SNAPSHOT, {"repository": self.user_named, "pr": PR})

    def judge(self, snapshot: Mapping[str, Any]) -> PullRequestAnswer:
        """Step 3: the judged answer from the snapshot's entries (and details by id)."""
        data = snapshot["data"]
        scope = {"repository": data["repository"], "pr": data["pr"]}
        entries = data["comments"]
        judgements, agent_set_aside = judge_pr128(self.host, scope)
        set_aside = routine_set_aside(entries) | agent_set_aside
        coverage = data["scope"]["coverage"]
        return build_answer(
            data["repository"], data["pr"], coverage, entries, judgements, set_aside
        )

    def post(self, answer: PullRequestAnswer, key: str) -> Envelope:
        """Step 5: the model asks to post the conclusion (asked about, not yet run)."""
        arguments = {
            "repository": answer.repository,
            "pr": answer.pr,
            "body": conclusion_text(answer),
            "idempotency_key": key,
        }
        return self.call("github_pr_create_comment", arguments)


def _read_policy(walk: Walkthrough) -> ConfirmationPolicy:
    """A snapshot read asks which repository while the user named none."""

    def policy(call: PendingCall) -> Question | None:
        if walk.user_named is not None:
            return None
        pr = call.arguments["pr"]
        return Question(
            text=tr(
                f"你说的 PR #{pr} 在哪个仓库？", f"Which repository is the PR #{pr} you mean in?"
            ),
            shown={
                "why": tr(
                    "example/shop 和 other/shop 都有 PR #128；读错仓库，整份审查就错了",
                    "example/shop and other/shop both have a PR #128; reading the wrong"
                    " repository makes the whole review wrong",
                )
            },
            choose="repository",
            candidates=REPOSITORIES,
        )

    return policy


def open_walkthrough(*, faults: str | None = "commit_then_timeout:0.8") -> Walkthrough:
    """A fresh walkthrough world: the emulator (``faults`` apply to POSTs: by default the
    first POST is stored and its answer lost), reads, the composite, the safe write, and
    the road with authorization (read and write on the two repositories) and
    confirmation (which repository to read; every post, with its text shown)."""
    stack = contextlib.ExitStack()
    store, client = open_emulator(stack, faults)
    reads = GitHubToolContext(client, CursorCodec(b"chapter-08-walkthrough-key-0001"))
    writes = WriteContext(client, sleep=lambda _seconds: None, seed=8)
    registry = Registry(
        [*github_tool_specs(reads), *composite_tool_specs(reads), *write_tool_specs(writes)]
    )
    clock = ManualClock()
    scope = TaskScope(repositories=frozenset(REPOSITORIES), grants=frozenset({"read", "write"}))
    access = declared_access(registry)  # the reads read, the post writes
    walk = Walkthrough(store=store, clock=clock, _stack=stack)
    walk.host = Host(
        registry,
        access=access,
        scope=scope,
        confirm={_SNAPSHOT: _read_policy(walk), CREATE_COMMENT_SPEC.name: post_policy},
        clock=clock,
        session="S08",
    )
    return walk
