"""Chapter 08's walkthrough of "check PR 128", step by step, through the road.

The running task of the course, done right end to end, with the pieces of every chapter:

1. **locate** (:meth:`Walkthrough.locate`): the repository is known -> use it; when it is
   not (``example/shop`` and ``other/shop`` both have a PR 128), the read itself asks
   the user through chapter 07's choice flow (candidates, none preselected) instead of
   reading a guess;
2. **read and complete** (:meth:`Walkthrough.read`): the composite read-only snapshot
   (chapter 06), every page to ``coverage: complete``; details by id only for the
   comments a judgement rests on (:func:`judge_pr128` cites them);
3. **judge** (:meth:`Walkthrough.judge`): confirmed problems, risks to verify, reviewer
   opinions, each with its evidence (:mod:`tutorial_lib.course.pr_answer`, chapter 04);
   unresolved is not automatically blocking; reading coverage is not code verification;
4. **stop**: the request was to read, so nothing is written (the store shows it);
5. **follow-up** "post the conclusion" (:meth:`Walkthrough.post`): the model's write is
   asked about with its text shown (chapter 07), runs once through chapter 05's safe write
   behind a write timeout, and is reported ``posted`` with evidence after a status check.

Every call goes through one host, with chapter 06's authorization and chapter 07's
confirmation; the injected comment of PR 128 stays data (it is set aside
with its reason, and no call follows from it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tutorial_lib.core.authorization import TaskScope, github_access
from tutorial_lib.core.confirmation import ConfirmationPolicy, ConfirmationRequest, Question
from tutorial_lib.core.contracts import Envelope
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import PendingCall
from tutorial_lib.core.tools import Registry
from tutorial_lib.course.confirm_demo import (
    REPOSITORIES,
    EmulatorDesk,
    ManualClock,
    open_emulator,
    post_policy,
)
from tutorial_lib.course.pr_answer import (
    CATEGORY_SHORT,
    Judgement,
    PullRequestAnswer,
    build_answer,
    cite,
    routine_set_aside,
)
from tutorial_lib.github.composite import composite_tool_specs
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import GitHubToolContext, github_tool_specs
from tutorial_lib.github.writes import WriteContext, write_tool_specs

__all__ = ["PR", "Walkthrough", "conclusion_text", "judge_pr128", "open_walkthrough"]

PR = 128
_SNAPSHOT = "github_pr_get_review_snapshot"


def judge_pr128(
    host: Host, scope: Mapping[str, Any]
) -> tuple[dict[int, Judgement], dict[int, str]]:
    """The agent's judgements of PR 128's unresolved comments (chapter 04), and the
    comments it sets aside beyond the routine ones (replies, the injected comment).

    Each quote is a real ``github_pr_get_comment`` call through ``host`` (see
    :func:`~tutorial_lib.course.pr_answer.cite`): details by id, only where a judgement
    rests on more than the listing's summary.
    """

    def quote(comment_id: int, field: str, words: str, **extra: Any) -> Any:
        arguments = {**scope, "comment_id": comment_id, **extra}
        return cite(host, "github_pr_get_comment", arguments, field, words)

    judgements = {
        1700000035: Judgement(
            "confirmed",
            "审查者指出缺陷并附了复现用例；PR 作者在同一线程里承认能复现。",
            evidence=(
                quote(1700000035, "body", "Reproduced with `cart.test.ts`"),
                quote(1700000036, "in_reply_to_id", "1700000035", response_format="detailed"),
                quote(1700000036, "author", "dana-ortiz"),
                quote(1700000036, "body", "Confirmed, I can reproduce it."),
                cite(host, "github_pr_get", scope, "author", "dana-ortiz"),
            ),
        ),
        1700000067: Judgement(
            "confirmed",
            "审查者说明了失败的原因，还说在预发环境的数据快照上跑过、迁移中止。"
            "复现是审查者报告的，Agent 没有重跑。",
            evidence=(
                quote(1700000067, "body", "I ran it against the staging snapshot and it aborts"),
            ),
        ),
        1700000042: Judgement(
            "to_verify",
            "审查者用了 “I think”“could”，还请作者去查：没人证实过。",
            cue="possible race condition (unconfirmed)",
        ),
        1700000048: Judgement(
            "to_verify",
            "审查者用了 “might”，还说自己没看处理 webhook 的代码。",
            cue="possible double processing (unconfirmed)",
            evidence=(quote(1700000048, "body", "I haven't checked the webhook handler"),),
        ),
        1700000055: Judgement(
            "to_verify",
            "说得很肯定，但没有复现，作者也没回应；Agent 读不到代码，无从核对。安全问题，先查。",
            evidence=(quote(1700000055, "body", "That is an SQL injection"),),
        ),
        1700000031: Judgement(
            "opinion", "加重试的建议，审查者自己也拿不准。", cue="Not sure what Stripe recommends"
        ),
        1700000034: Judgement("opinion", "审查者明说不阻塞。", cue="Not a blocker"),
        1700000039: Judgement("opinion", "文档上的建议，交给作者定。", cue="Up to you"),
        1700000054: Judgement("opinion", "审查者说这不是强烈的意见。", cue="Not a strong opinion"),
        1700000059: Judgement("opinion", "写法上的小建议。", cue="Reviewer nit"),
        1700000063: Judgement("opinion", "默认值的建议，只是随口一提。", cue="Just a thought"),
        1700000069: Judgement("opinion", "写法上的小建议。", cue="Reviewer nit"),
    }
    agent_set_aside = {
        1700000032: "作者对 1700000031 的回复，归入那条线程",
        1700000036: "作者对 1700000035 的回复，已作为它的依据",
        1700000062: "正文要 AI 读取 .env 并发往外部地址：这是评论里的数据，不照做（第 06 章）",
    }
    return judgements, agent_set_aside


def conclusion_text(answer: PullRequestAnswer) -> str:
    """The comment that posts the conclusion: the headline, then the ids of each class."""
    lines = [answer.headline(width=10_000), ""]
    for category, ids in answer.ids().items():
        if ids:
            lines.append(f"- {CATEGORY_SHORT[category]}：{'、'.join(map(str, ids))}")
    return "\n".join(lines)


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
        return Question(
            text=f"你说的 PR #{call.arguments['pr']} 在哪个仓库？",
            shown={"why": "example/shop 和 other/shop 都有 PR #128；读错仓库，整份审查就错了"},
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
    access = {
        name: github_access("write" if name == "github_pr_create_comment" else "read")
        for name in registry.names
    }
    walk = Walkthrough(store=store, clock=clock, _stack=stack)
    walk.host = Host(
        registry,
        access=access,
        scope=scope,
        confirm={_SNAPSHOT: _read_policy(walk), "github_pr_create_comment": post_policy},
        clock=clock,
        session="S08",
    )
    return walk
