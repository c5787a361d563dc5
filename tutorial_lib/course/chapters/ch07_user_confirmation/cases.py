"""Chapter 07's exercise table: the approval check, on plain data.

**Exercise: ``approval_allows(approval, call, *, session, now) -> dict``**: may this
approval run this call, now?

- ``approval = {"session": str, "tool": str, "state": str, "expires_at": float,
  "digest": str}``: one confirmation request as plain data (:func:`approval_record`
  turns a real :class:`~tutorial_lib.core.confirmation.ConfirmationRequest` into it).
  ``state`` is ``"accepted"``, ``"executed"`` (used already), ``"declined"``,
  ``"cancelled"``, ``"asked"`` (no answer yet) or ``"expired"`` (the flow retired it);
  ``digest`` is the :func:`~tutorial_lib.core.confirmation.approval_digest` of the tool
  and the exact arguments the user approved (the chosen candidate filled in);
- ``call = {"tool": str, "arguments": dict}``: the call that wants to run;
- ``session``: the session asking, ``now``: the time (seconds, same clock as
  ``expires_at``);
- the answer: ``{"allowed": True}`` or ``{"allowed": False, "problem": problem}``,
  ``problem`` one of :data:`~tutorial_lib.core.confirmation.APPROVAL_PROBLEMS`, checked
  in that order: ``other_session``, ``other_tool``, ``used``, ``not_accepted``,
  ``expired``, ``other_arguments``.

A learner calls the library's :func:`~tutorial_lib.core.confirmation.approval_digest`
for the call (the exercise is what an approval is bound to and in which order the
checks run, not SHA-256). The points the table makes:

- an approval is bound to one session, one tool (its exact name: a tool name is
  case-sensitive) and the digest of the exact arguments:
  one changed character, a dropped ``sha`` or another host group is another call;
- the order of keys is not part of the arguments (the digest sorts them);
- an argument the model adds itself (``confirm: true``) changes the arguments, so the
  approval no longer fits: only the user's answer approves, never a flag in the call (on
  the road a schema without that property refuses the call even earlier; the approval
  check refuses it on its own); nor does a flag make a request that is not accepted
  (``asked``...) accepted: that is ``not_accepted``, whatever the arguments say;
- single use: ``executed`` is refused as ``used`` (a replay, a second click), checked
  before the other states;
  ``declined``, ``cancelled``, ``asked`` and ``expired`` are all ``not_accepted``;
- ``now`` up to and including ``expires_at`` is in time; a millisecond later is not.

The expected answers are the library's own: :func:`library_approval_allows` builds a
:class:`~tutorial_lib.core.confirmation.ConfirmationRequest` from the dict and asks
:func:`~tutorial_lib.core.confirmation.approval_problem`. :data:`APPROVAL_CASES` has a
case for every problem and for every priority between two problems that can meet;
:func:`approval_hidden_cases` generates seeded cases; :data:`APPROVAL_ALLOWS_RULES` lists
every rule the task text states, the visible case that fails an answer breaking only it
and what the hidden cases vary for it.

The calls use three real GitHub tools of the course and one example tool of this
chapter, ``deploy_release`` (``service``, ``version``, ``group``): the undecided target
whose host group (``canary`` or ``all-hosts``) the user chooses.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, cast

from tutorial_lib.core.confirmation import (
    REQUEST_STATES,
    ConfirmationRequest,
    Question,
    RequestState,
    approval_digest,
    approval_problem,
)
from tutorial_lib.course.checks import Case
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.language import Text

__all__ = [
    "APPROVAL_CASES",
    "APPROVAL_ALLOWS_RULES",
    "approval_hidden_cases",
    "approval_record",
    "library_approval_allows",
]

_EXERCISE_QUESTION = Question("(an approval of the exercise: only its binding is checked)")


def approval_record(request: ConfirmationRequest) -> dict[str, Any]:
    """A request of a :class:`~tutorial_lib.core.confirmation.ConfirmationFlow` as the
    exercise's plain ``approval`` dict (``expires_at`` and ``digest`` are None until the
    request is accepted)."""
    return {
        "session": request.session,
        "tool": request.tool,
        "state": request.state,
        "expires_at": request.expires_at,
        "digest": request.digest,
    }


def library_approval_allows(
    approval: Mapping[str, Any], call: Mapping[str, Any], *, session: str, now: float
) -> dict[str, Any]:
    """The library's answer to the exercise: ``{"allowed": True}``, or
    ``{"allowed": False, "problem": problem}``.

    ``approval`` becomes a :class:`~tutorial_lib.core.confirmation.ConfirmationRequest`;
    the decision is :func:`~tutorial_lib.core.confirmation.approval_problem`'s. A state
    that is not one of :data:`~tutorial_lib.core.confirmation.REQUEST_STATES` raises
    ValueError.
    """
    state = approval["state"]
    if state not in REQUEST_STATES:
        raise ValueError(f"unknown approval state {state!r}; one of {REQUEST_STATES}")
    request = ConfirmationRequest(
        request_id="exercise",
        tool=approval["tool"],
        arguments=MappingProxyType({}),
        question=_EXERCISE_QUESTION,
        session=approval["session"],
        state=cast(RequestState, state),
        expires_at=approval.get("expires_at"),
        digest=approval.get("digest"),
    )
    problem = approval_problem(request, call["tool"], call["arguments"], session=session, now=now)
    if problem is None:
        return {"allowed": True}
    return {"allowed": False, "problem": problem}


# --------------------------------------------------------------------------- visible cases

_SESSION = "review-1"
_OTHER_SESSION = "review-2"
#: Answered at 1000.0 with the flow's default five minutes to use it.
_EXPIRES = 1300.0
_NOW = 1120.0
_LATE = 1300.001
_ALLOWED: Mapping[str, Any] = MappingProxyType({"allowed": True})

_REPO = "example/shop"
_SHA = "9f3c2e1d" * 5
_COMMENT_TOOL = "github_pr_create_comment"
_MERGE_TOOL = "github_pr_merge"
_DELETE_TOOL = "github_pr_delete_comment"
_EDIT_TOOL = "github_pr_edit_comment"
_DEPLOY_TOOL = "deploy_release"


def _sorted(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` with their keys in sorted order (the key-order case reverses them)."""
    return {key: arguments[key] for key in sorted(arguments)}


def _comment(body: str = "Summary: 2 confirmed issues.", **more: Any) -> dict[str, Any]:
    return _sorted(
        {
            "repository": _REPO,
            "pr": 128,
            "body": body,
            "idempotency_key": "review-128-1",
            **more,
        }
    )


def _merge(**more: Any) -> dict[str, Any]:
    return _sorted({"repository": _REPO, "pr": 128, "merge_method": "squash", "sha": _SHA, **more})


def _deploy(group: str = "canary") -> dict[str, Any]:
    return _sorted({"service": "shop", "version": "2.4.1", "group": group})


def _approval(
    tool: str,
    arguments: Mapping[str, Any],
    *,
    state: str = "accepted",
    session: str = _SESSION,
    expires_at: float = _EXPIRES,
) -> dict[str, Any]:
    """The approval of ``tool`` with exactly ``arguments`` (their digest)."""
    return {
        "session": session,
        "tool": tool,
        "state": state,
        "expires_at": expires_at,
        "digest": approval_digest(tool, arguments),
    }


def _call(tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {"tool": tool, "arguments": dict(arguments)}


def _refused(problem: str) -> dict[str, Any]:
    return {"allowed": False, "problem": problem}


def _case(
    name: str | Text,
    approval: dict[str, Any],
    call: dict[str, Any],
    expected: Mapping[str, Any],
    hint: str | Text,
    *,
    session: str = _SESSION,
    now: float = _NOW,
) -> Case:
    return Case(name, (approval, call), dict(expected), hint, {"session": session, "now": now})


_COMMENT_APPROVAL = _approval(_COMMENT_TOOL, _comment())
_COMMENT_CALL = _call(_COMMENT_TOOL, _comment())
_CHANGED_CALL = _call(_COMMENT_TOOL, _comment("Summary: 3 confirmed issues."))
_DELETE_ARGUMENTS: Mapping[str, Any] = MappingProxyType(
    _sorted({"repository": _REPO, "pr": 128, "comment_id": 1700000042, "kind": "review"})
)
_MERGE_APPROVAL = _approval(_MERGE_TOOL, _merge())
_MERGE_CALL = _call(_MERGE_TOOL, _merge())


def _comment_approval(**changes: Any) -> dict[str, Any]:
    return {**_COMMENT_APPROVAL, **changes}


APPROVAL_CASES: tuple[Case, ...] = (
    # -- let through
    _case(
        Text(zh="放行：批准的正是这次调用", en="allowed: the approval is for exactly this call"),
        _COMMENT_APPROVAL,
        _COMMENT_CALL,
        _ALLOWED,
        Text(
            zh="六项都通过：同一会话、同一工具、accepted、没用过、没过期、参数摘要一致。",
            en="All six checks pass: same session, same tool, accepted, not used yet, "
            "not expired, same argument digest.",
        ),
    ),
    _case(
        Text(zh="放行：now 恰好等于 expires_at", en="allowed: now exactly equals expires_at"),
        _COMMENT_APPROVAL,
        _COMMENT_CALL,
        _ALLOWED,
        Text(
            zh="expired 的边界：now 不超过 expires_at 都算及时，等于也放行；"
            "只有 now > expires_at 才算过期。",
            en="The edge of expired: any now up to expires_at is in time, and equal "
            "is let through too; only now > expires_at is expired.",
        ),
        now=_EXPIRES,
    ),
    _case(
        Text(zh="放行：参数的键换了顺序", en="allowed: the arguments' keys in another order"),
        _COMMENT_APPROVAL,
        _call(_COMMENT_TOOL, dict(reversed(list(_comment().items())))),
        _ALLOWED,
        Text(
            zh="other_arguments 比的是 approval_digest：它先把键排序再算摘要，"
            "键的顺序不是参数的一部分，同样的参数就是同样的摘要。",
            en="other_arguments compares approval_digest: it sorts the keys before "
            "computing the digest, so the key order is not part of the arguments; "
            "the same arguments give the same digest.",
        ),
    ),
    _case(
        Text(
            zh="放行：用户选定的服务器组已填入",
            en="allowed: the host group the user chose is filled in",
        ),
        _approval(_DEPLOY_TOOL, _deploy("canary")),
        _call(_DEPLOY_TOOL, _deploy("canary")),
        _ALLOWED,
        Text(
            zh="批准绑定的是填入用户选择之后的参数：调用里的 group 正是用户选的 canary。",
            en="The approval is bound to the arguments with the user's choice filled "
            "in: the call's group is exactly the canary the user chose.",
        ),
    ),
    # -- other_session
    _case(
        Text(
            zh="other_session：另一个会话的批准",
            en="other_session: an approval from another session",
        ),
        _comment_approval(session=_OTHER_SESSION),
        _COMMENT_CALL,
        _refused("other_session"),
        Text(
            zh="规则 other_session：批准只属于回答它的那个会话；别的会话拿来用，"
            "工具和参数再一致也拒绝。",
            en="Rule other_session: an approval belongs only to the session that "
            "answered it; used from another session it is refused, however exactly "
            "the tool and the arguments match.",
        ),
    ),
    # -- other_tool
    _case(
        Text(
            zh="other_tool：批准的是编辑，调用的是删除",
            en="other_tool: the approval is for an edit, the call is a delete",
        ),
        _approval(_EDIT_TOOL, _sorted({**_DELETE_ARGUMENTS, "body": "Fixed in 9f3c2e1."})),
        _call(_DELETE_TOOL, _DELETE_ARGUMENTS),
        _refused("other_tool"),
        Text(
            zh="规则 other_tool：用户批准的是编辑评论 1700000042，不是删除它；同一条评论、"
            "换了工具就是另一件事（摘要也不同，但 other_tool 排在 other_arguments 之前）。",
            en="Rule other_tool: the user approved editing comment 1700000042, not "
            "deleting it; the same comment with another tool is another action "
            "(the digest differs too, but other_tool comes before other_arguments).",
        ),
    ),
    _case(
        Text(zh="other_tool：工具名区分大小写", en="other_tool: tool names are case-sensitive"),
        _MERGE_APPROVAL,
        _call("GitHub_PR_Merge", _merge()),
        _refused("other_tool"),
        Text(
            zh="规则 other_tool：工具名按原样比较，区分大小写；GitHub_PR_Merge 不是用户批准的"
            " github_pr_merge，不要 lower() 或 casefold() 以后再比。",
            en="Rule other_tool: tool names are compared exactly as they are, "
            "case-sensitively; GitHub_PR_Merge is not the github_pr_merge the user "
            "approved. Do not compare them after lower() or casefold().",
        ),
    ),
    # -- used
    _case(
        Text(zh="used：第二次点击（executed）", en="used: a second click (executed)"),
        _comment_approval(state="executed"),
        _COMMENT_CALL,
        _refused("used"),
        Text(
            zh="规则 used：一次批准只放行一次调用；状态 executed 说明它已经用过，"
            "重放或第二次点击都拒绝，也不要把它当成 accepted。",
            en="Rule used: an approval lets exactly one call through; the state "
            "executed means it has been used already, so a replay or a second "
            "click is refused. Do not treat it as accepted either.",
        ),
    ),
    # -- not_accepted
    _case(
        Text(
            zh="not_accepted：用户拒绝了（declined）",
            en="not_accepted: the user said no (declined)",
        ),
        _comment_approval(state="declined"),
        _COMMENT_CALL,
        _refused("not_accepted"),
        Text(
            zh="规则 not_accepted：只有 accepted 能放行；declined 是用户说了不，什么都不执行。",
            en="Rule not_accepted: only accepted lets a call through; declined means "
            "the user said no, and nothing runs.",
        ),
    ),
    _case(
        Text(
            zh="not_accepted：用户取消了（cancelled）",
            en="not_accepted: the user closed the question (cancelled)",
        ),
        _comment_approval(state="cancelled"),
        _COMMENT_CALL,
        _refused("not_accepted"),
        Text(
            zh="规则 not_accepted：cancelled 是用户关掉了问题、没有作答，同样什么都不执行。",
            en="Rule not_accepted: cancelled means the user closed the question "
            "without answering; again, nothing runs.",
        ),
    ),
    _case(
        Text(zh="not_accepted：还没回答（asked）", en="not_accepted: no answer yet (asked)"),
        _comment_approval(state="asked"),
        _COMMENT_CALL,
        _refused("not_accepted"),
        Text(
            zh="规则 not_accepted：问题还摆在用户面前，没有回答就不是批准；沉默从来不算同意。",
            en="Rule not_accepted: the question is still in front of the user, and "
            "without an answer there is no approval; silence never counts as "
            "consent.",
        ),
    ),
    _case(
        Text(
            zh="not_accepted：还没回答，参数里却写着 approved: true",
            en="not_accepted: no answer yet, but the arguments say approved: true",
        ),
        _comment_approval(state="asked"),
        _call(_COMMENT_TOOL, _comment(approved=True)),
        _refused("not_accepted"),
        Text(
            zh="规则 not_accepted：只看批准的状态；approved 是模型自己写进参数的，不是用户的回答，"
            "不能把一个还在 asked 的请求变成 accepted。",
            en="Rule not_accepted: look only at the approval's state; approved is "
            "something the model wrote into the arguments itself, not the user's "
            "answer, and it cannot turn a request that is still asked into an "
            "accepted one.",
        ),
    ),
    # -- expired
    _case(
        Text(zh="expired：过期了 0.001 秒", en="expired: 0.001 seconds late"),
        _COMMENT_APPROVAL,
        _COMMENT_CALL,
        _refused("expired"),
        Text(
            zh="规则 expired：now > expires_at 就过期了，哪怕只晚 0.001 秒；要用就重新问用户。",
            en="Rule expired: once now > expires_at the approval has expired, even "
            "0.001 seconds late; to go ahead, ask the user again.",
        ),
        now=_LATE,
    ),
    # -- other_arguments
    _case(
        Text(
            zh="other_arguments：正文改了一个字符",
            en="other_arguments: one character of the body changed",
        ),
        _COMMENT_APPROVAL,
        _CHANGED_CALL,
        _refused("other_arguments"),
        Text(
            zh="规则 other_arguments：用户批准的正文是 'Summary: 2 confirmed issues.'，"
            "调用里是 3；改一个字符就是另一个摘要，只比工具名不够。",
            en="Rule other_arguments: the body the user approved is 'Summary: 2 "
            "confirmed issues.', and the call's says 3; one changed character "
            "gives another digest, and comparing only the tool name is not enough.",
        ),
    ),
    _case(
        Text(
            zh="other_arguments：模型加了 confirm: true",
            en="other_arguments: the model added confirm: true",
        ),
        _COMMENT_APPROVAL,
        _call(_COMMENT_TOOL, _comment(confirm=True)),
        _refused("other_arguments"),
        Text(
            zh="规则 other_arguments：confirm 是模型自己填的参数，不是用户的回答；"
            "它也是参数的一部分，加上它摘要就变了，批准不适用。别把它去掉再比，也别把它当批准。",
            en="Rule other_arguments: confirm is an argument the model filled in "
            "itself, not the user's answer; it is part of the arguments too, so "
            "adding it changes the digest and the approval no longer applies. Do "
            "not drop it before comparing, and do not take it for an approval.",
        ),
    ),
    _case(
        Text(zh="other_arguments：换成了 all-hosts", en="other_arguments: changed to all-hosts"),
        _approval(_DEPLOY_TOOL, _deploy("canary")),
        _call(_DEPLOY_TOOL, _deploy("all-hosts")),
        _refused("other_arguments"),
        Text(
            zh="规则 other_arguments：用户选的是 canary；all-hosts 是另一组参数，要另问一次。",
            en="Rule other_arguments: the user chose canary; all-hosts is another set "
            "of arguments and needs a question of its own.",
        ),
    ),
    _case(
        Text(zh="other_arguments：去掉了 sha", en="other_arguments: sha dropped"),
        _MERGE_APPROVAL,
        _call(_MERGE_TOOL, {k: v for k, v in _merge().items() if k != "sha"}),
        _refused("other_arguments"),
        Text(
            zh="规则 other_arguments：用户批准合并的是 sha 指定的那个提交；去掉 sha 就是"
            "“合并当时的最新提交”，少一个参数也是另一次调用。",
            en="Rule other_arguments: the user approved merging the commit that sha "
            "names; without sha the call means “merge whatever the latest commit "
            "is at that moment”, so one missing argument also makes another call.",
        ),
    ),
    # -- priorities: other_session first
    _case(
        Text(
            zh="other_session 先于 other_tool：别的会话、别的工具",
            en="other_session before other_tool: another session, another tool",
        ),
        _comment_approval(session=_OTHER_SESSION),
        _MERGE_CALL,
        _refused("other_session"),
        Text(
            zh="other_session 排在 other_tool 之前：先看批准属不属于这个会话。",
            en="other_session comes before other_tool: first check whether the "
            "approval belongs to this session.",
        ),
    ),
    _case(
        Text(
            zh="other_session 先于 not_accepted：别的会话里被拒绝的",
            en="other_session before not_accepted: declined in another session",
        ),
        _comment_approval(session=_OTHER_SESSION, state="declined"),
        _COMMENT_CALL,
        _refused("other_session"),
        Text(
            zh="other_session 排在 not_accepted 之前：别的会话的请求，先报会话，不看它的状态。",
            en="other_session comes before not_accepted: for another session's "
            "request, report the session first, whatever its state.",
        ),
    ),
    _case(
        Text(
            zh="other_session 先于 used：别的会话里用过的",
            en="other_session before used: used in another session",
        ),
        _comment_approval(session=_OTHER_SESSION, state="executed"),
        _COMMENT_CALL,
        _refused("other_session"),
        Text(
            zh="other_session 排在 used 之前：别的会话的批准，用没用过都先报会话。",
            en="other_session comes before used: for another session's approval, "
            "report the session first, used or not.",
        ),
    ),
    _case(
        Text(
            zh="other_session 先于 expired：别的会话里过期的",
            en="other_session before expired: expired in another session",
        ),
        _comment_approval(session=_OTHER_SESSION),
        _COMMENT_CALL,
        _refused("other_session"),
        Text(
            zh="other_session 排在 expired 之前：先看会话，再看时间。",
            en="other_session comes before expired: the session first, then the time.",
        ),
        now=_LATE,
    ),
    _case(
        Text(
            zh="other_session 先于 other_arguments：别的会话、改过的参数",
            en="other_session before other_arguments: another session, changed arguments",
        ),
        _comment_approval(session=_OTHER_SESSION),
        _CHANGED_CALL,
        _refused("other_session"),
        Text(
            zh="other_session 排在 other_arguments 之前：会话不对，不必再比摘要。",
            en="other_session comes before other_arguments: with the wrong session "
            "there is no need to compare digests.",
        ),
    ),
    # -- priorities: other_tool next
    _case(
        Text(
            zh="other_tool 先于 not_accepted：还没回答、又换了工具",
            en="other_tool before not_accepted: no answer yet, and another tool",
        ),
        _comment_approval(state="asked"),
        _MERGE_CALL,
        _refused("other_tool"),
        Text(
            zh="other_tool 排在 not_accepted 之前：这个请求问的是写评论，不是合并，先报工具。",
            en="other_tool comes before not_accepted: this request asked about "
            "writing a comment, not about merging; report the tool first.",
        ),
    ),
    _case(
        Text(
            zh="other_tool 先于 used：用过的批准拿来合并",
            en="other_tool before used: a used approval applied to a merge",
        ),
        _comment_approval(state="executed"),
        _MERGE_CALL,
        _refused("other_tool"),
        Text(
            zh="other_tool 排在 used 之前：批准的工具不是这次调用的工具，先报工具。",
            en="other_tool comes before used: the approved tool is not this call's "
            "tool; report the tool first.",
        ),
    ),
    _case(
        Text(
            zh="other_tool 先于 expired：过期的批准拿来合并",
            en="other_tool before expired: an expired approval applied to a merge",
        ),
        _COMMENT_APPROVAL,
        _MERGE_CALL,
        _refused("other_tool"),
        Text(
            zh="other_tool 排在 expired 之前：先看工具，再看时间。",
            en="other_tool comes before expired: the tool first, then the time.",
        ),
        now=_LATE,
    ),
    # -- priorities: the state before the time and the arguments
    _case(
        Text(zh="used 先于 expired：用过又过期的", en="used before expired: used and expired"),
        _comment_approval(state="executed"),
        _COMMENT_CALL,
        _refused("used"),
        Text(
            zh="used 排在 expired 之前：已经执行过的批准，先报 used。",
            en="used comes before expired: for an approval that has already been "
            "executed, report used first.",
        ),
        now=_LATE,
    ),
    _case(
        Text(
            zh="used 先于 other_arguments：重放改过参数的调用",
            en="used before other_arguments: a replay of a call with changed arguments",
        ),
        _comment_approval(state="executed"),
        _CHANGED_CALL,
        _refused("used"),
        Text(
            zh="used 排在 other_arguments 之前：先看状态，再比摘要。",
            en="used comes before other_arguments: the state first, then the digest.",
        ),
    ),
    _case(
        Text(
            zh="not_accepted 先于 expired：状态是 expired",
            en="not_accepted before expired: the state is expired",
        ),
        _comment_approval(state="expired"),
        _COMMENT_CALL,
        _refused("not_accepted"),
        Text(
            zh="not_accepted 排在 expired 之前：状态 expired 是流程已经收回的批准，"
            "它不再是 accepted，报 not_accepted；"
            "problem expired 说的是一个 accepted 的批准超时了。",
            en="not_accepted comes before expired: the state expired is an approval "
            "the flow has already retired; it is no longer accepted, so report "
            "not_accepted. The problem expired means that an accepted approval ran "
            "out of time.",
        ),
        now=_LATE,
    ),
    _case(
        Text(
            zh="not_accepted 先于 other_arguments：取消了、参数也变了",
            en="not_accepted before other_arguments: cancelled, and the arguments changed",
        ),
        _comment_approval(state="cancelled"),
        _CHANGED_CALL,
        _refused("not_accepted"),
        Text(
            zh="not_accepted 排在 other_arguments 之前：没有被接受的请求，先报状态，"
            "再比摘要没有意义。",
            en="not_accepted comes before other_arguments: for a request that was not "
            "accepted, report the state first; comparing digests means nothing "
            "then.",
        ),
    ),
    _case(
        Text(
            zh="expired 先于 other_arguments：过期了、参数也变了",
            en="expired before other_arguments: expired, and the arguments changed",
        ),
        _COMMENT_APPROVAL,
        _CHANGED_CALL,
        _refused("expired"),
        Text(
            zh="expired 排在 other_arguments 之前：过期的批准，先报 expired。",
            en="expired comes before other_arguments: for an expired approval, report "
            "expired first.",
        ),
        now=_LATE,
    ),
)

#: Every rule the exercise's task text states, the visible case that fails an answer
#: breaking only that rule, and what :func:`approval_hidden_cases` varies for it.
APPROVAL_ALLOWS_RULES: tuple[Rule, ...] = load_rules("07", "APPROVAL_ALLOWS_RULES", APPROVAL_CASES)

# --------------------------------------------------------------------------- hidden cases

_HIDDEN_SESSIONS = ("review-1", "review-2", "deploy-7")
_HIDDEN_STATES = ("accepted", "executed", "declined", "cancelled", "asked", "expired")
_HIDDEN_STATE_WEIGHTS = (55, 11, 8, 7, 9, 10)
#: now - expires_at: in time, exactly at the expiry, or late by a little or a lot.
_HIDDEN_DELTAS = (-299.5, -60.0, -1.0, -0.001, 0.0, 0.0, 0.001, 1.0, 45.0)
_HIDDEN_HINT = Text(
    zh="和库的 approval_problem 不一致。按顺序检查：other_session（批准属于别的会话）→ "
    "other_tool（批准的是别的工具；工具名区分大小写）→ used（状态 executed）→ "
    "not_accepted（状态不是 accepted；参数里的 approved、confirm 不算回答）→ "
    "expired（now > expires_at；等于还算及时）→ other_arguments"
    "（approval_digest(call 的工具, call 的参数) 与 digest 不同）。",
    en="Differs from the library's approval_problem. Check in order: "
    "other_session (the approval belongs to another session) → other_tool "
    "(the approval is for another tool; tool names are case-sensitive) → "
    "used (state executed) → not_accepted (the state is not accepted; "
    "approved or confirm in the arguments is no answer) → expired (now > "
    "expires_at; equal is still in time) → other_arguments "
    "(approval_digest(the call's tool, the call's arguments) differs from "
    "digest).",
)


_FLAGS = ("approved", "confirm", "user_confirmed")


def _hidden_bases() -> tuple[tuple[str, dict[str, Any]], ...]:
    return (
        (_COMMENT_TOOL, _comment()),
        (_COMMENT_TOOL, _comment("Nit: rename the helper.", idempotency_key="review-128-2")),
        (_MERGE_TOOL, _merge()),
        (_MERGE_TOOL, _merge(merge_method="rebase")),
        (_DELETE_TOOL, dict(_DELETE_ARGUMENTS)),
        (_DEPLOY_TOOL, _deploy("canary")),
        (_DEPLOY_TOOL, _deploy("all-hosts")),
    )


def _mutated(rng: random.Random, arguments: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments: the approved ones, reordered, or changed in one small way."""
    shape = rng.choices(
        ("same", "reordered", "one_char", "confirm", "dropped", "number", "type"),
        weights=(44, 12, 12, 12, 7, 7, 6),
    )[0]
    changed = dict(arguments)
    if shape == "reordered":
        return dict(reversed(list(changed.items())))
    if shape == "one_char":
        key = rng.choice([k for k, v in changed.items() if isinstance(v, str)])
        value = changed[key]
        changed[key] = value[:-1] + ("X" if value[-1] != "X" else "Y")
        return changed
    if shape == "confirm":
        changed[rng.choice(("confirm", "approved", "user_confirmed"))] = True
        return _sorted(changed)
    if shape == "dropped":
        changed.pop(rng.choice(sorted(changed)))
        return changed
    if shape == "number":
        numbers = [k for k, v in changed.items() if isinstance(v, int)]
        if numbers:
            changed[numbers[0]] += 1
            return changed
        changed["version"] = "2.4.2"
        return changed
    if shape == "type":
        numbers = [k for k, v in changed.items() if isinstance(v, int)]
        if numbers:
            changed[numbers[0]] = str(changed[numbers[0]])
            return changed
        changed["version"] = "v2.4.1"
        return changed
    return changed


def approval_hidden_cases(seed: int = 0, n: int = 200) -> tuple[Case, ...]:
    """``n`` seeded (approval, call, session, now) inputs; expected:
    :func:`library_approval_allows`.

    Approvals draw their session (mostly the asking one), a state (mostly accepted) and an
    expiry; calls draw their tool (mostly the approved one) and arguments that are the
    approved ones, the same in another key order, or changed by one character, one
    number, one type, one dropped key or an approval-looking flag the model added (also
    to a request that is still asked, declined, cancelled or expired), and now and then
    the approved tool's name in another case; ``now`` is in time, exactly at the expiry or
    late by 0.001 s to minutes.
    """
    rng = random.Random(seed)
    bases = _hidden_bases()
    cases = []
    for index in range(n):
        session = rng.choice(_HIDDEN_SESSIONS)
        owner = session
        if rng.random() < 0.15:
            owner = rng.choice([s for s in _HIDDEN_SESSIONS if s != session])
        tool, approved = rng.choice(bases)
        state = rng.choices(_HIDDEN_STATES, weights=_HIDDEN_STATE_WEIGHTS)[0]
        expires_at = float(rng.randint(1000, 5000))
        delta = rng.choice(_HIDDEN_DELTAS)
        if state == "expired":  # the flow retires an approval only once its time is up
            delta = abs(delta) or 1.0
        call_tool, arguments = tool, _mutated(rng, approved)
        if rng.random() < 0.12:
            call_tool, other = rng.choice([b for b in bases if b[0] != tool])
            arguments = dict(other) if rng.random() < 0.5 else arguments
        if state not in ("accepted", "executed") and rng.random() < 0.3:
            # a flag the model added: it answers nothing, the state stays what it is
            arguments = _sorted({**arguments, rng.choice(_FLAGS): True})
        if rng.random() < 0.06:
            call_tool = rng.choice((call_tool.upper(), call_tool.title(), call_tool.capitalize()))
        approval = _approval(tool, approved, state=state, session=owner, expires_at=expires_at)
        call = _call(call_tool, arguments)
        now = expires_at + delta
        expected = library_approval_allows(approval, call, session=session, now=now)
        cases.append(
            _case(
                Text(zh=f"生成的输入 {index + 1}", en=f"generated input {index + 1}"),
                approval,
                call,
                expected,
                _HIDDEN_HINT,
                session=session,
                now=now,
            )
        )
    return tuple(cases)
