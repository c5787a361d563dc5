"""Chapter 05's exercise tables, shared by the exercise and the tests.

- :data:`WRITE_DECISION_CASES`: what to do after a failed write, for
  ``decide(error, same_key, read_back, can_read_back, attempts_left, earlier_unknown)``.
  While there is something left to do, the answer is a
  :data:`tutorial_lib.core.contracts.NextStep` (``fix_input``, ``check_authorization``,
  ``retry_with_backoff``, ``verify_state``); when the write stops, it is what the tool then
  reports, in the words of :func:`tutorial_lib.github.writes.write_status`
  (``already_posted``, ``not_posted``, ``unknown``). The expected answers are the library's
  own: :func:`library_decision` asks :func:`tutorial_lib.core.retry.decide_after_failure`,
  and the tests check that it passes this table. There is a case for every rule, and for
  every pair of rules where one takes priority over the other.
- :data:`RECONCILE_CASES`: the read-back check, for ``reconcile(comments, key, body)``;
  :func:`tutorial_lib.github.writes.reconcile` passes it.
- :data:`DECIDE_RULES` and :data:`RECONCILE_RULES`: every rule the task text states, each
  with the visible case that fails an answer breaking only it (tests/rules_05.py holds
  those answers).

The inputs of ``decide``: ``same_key`` (the resend carries the same idempotency key to a
server that has SHOWN it honours keys), ``read_back`` (``"found"``, ``"absent"``: the
read-back found no trace, which is NOT proof, or None: not read back), ``can_read_back``,
``attempts_left``, ``earlier_unknown`` (an earlier attempt of this call had an unknown
outcome that nothing has settled).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from itertools import product
from typing import Any, Literal

from tutorial_lib.core.retry import decide_after_failure
from tutorial_lib.course.checks import Case
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.github.writes import WRITE_POLICY, WriteStatus, marker, reconcile
from tutorial_lib.language import Text

__all__ = [
    "DECIDE_RULES",
    "DENIED",
    "INVALID",
    "RECONCILE_CASES",
    "RECONCILE_RULES",
    "REFUSED",
    "TIMEOUT",
    "TOO_LARGE",
    "WRITE_DECISION_CASES",
    "decide_hidden_cases",
    "library_decision",
    "reconcile_hidden_cases",
]

ReadBack = Literal["found", "absent"] | None
#: The next steps after which a write goes on (the other answers are what it reports).
ContinuingStep = Literal["fix_input", "check_authorization", "retry_with_backoff", "verify_state"]


def _error(code: str, operation_state: str, retry: str) -> dict[str, str]:
    return {"code": code, "operation_state": operation_state, "retry": retry}


INVALID = _error("invalid_value", "not_applied", "after_input_correction")
DENIED = _error("permission_denied", "not_applied", "after_authorization")
REFUSED = _error("temporary_unavailable", "not_applied", "with_backoff")
TIMEOUT = _error("outcome_unknown", "unknown", "after_status_check")
TOO_LARGE = _error("file_too_large", "not_applied", "never")


def library_decision(
    error: Mapping[str, Any],
    same_key: bool,
    read_back: ReadBack,
    can_read_back: bool,
    attempts_left: bool,
    earlier_unknown: bool = False,
) -> ContinuingStep | WriteStatus:
    """The library's decision after a failed write, in the exercise's seven words.

    A :class:`~tutorial_lib.core.retry.Decision` that goes on (``fix_input``,
    ``check_authorization``, ``retry_with_backoff``, ``verify_state``) is answered as it is;
    one that stops is answered with what the tool reports: ``stop_unknown`` is ``unknown``,
    ``stop`` is ``already_posted`` when the read-back found the write, else ``not_posted``.
    """
    seen = {None: None, "found": "found", "absent": "nothing"}[read_back]
    decision = decide_after_failure(
        error,
        is_write=True,
        attempt=1 if attempts_left else WRITE_POLICY.max_attempts,
        policy=WRITE_POLICY,
        same_idempotency_key=same_key,
        read_back=seen,  # type: ignore[arg-type]
        can_verify=can_read_back,
        earlier_unknown=earlier_unknown,
    )
    action = decision.action
    if action == "stop_unknown":
        return "unknown"
    if action in ("fix_input", "check_authorization", "retry_with_backoff", "verify_state"):
        return action
    # "stop" (and "search_first", which a write to a named PR does not meet here): the write
    # is over; found by a read-back means it exists.
    found = read_back == "found" and (error.get("operation_state") == "unknown" or earlier_unknown)
    return "already_posted" if found else "not_posted"


def _case(label: str | Text, args: tuple[Any, ...], expected: str, hint: str | Text) -> Case:
    # the sixth argument, earlier_unknown, is False unless a case says otherwise
    return Case(label, args if len(args) == 6 else (*args, False), expected, hint)


WRITE_DECISION_CASES: tuple[Case, ...] = (
    # -- one case per rule
    _case(
        Text(zh="空正文（422）", en="empty body (422)"),
        (INVALID, False, None, True, True),
        "fix_input",
        Text(
            zh="参数无效：改参数再调用，重发同样的内容没有用。",
            en="Invalid argument: fix the arguments and call again; resending the "
            "same content does not help.",
        ),
    ),
    _case(
        Text(zh="token 不对（401）", en="wrong token (401)"),
        (DENIED, False, None, True, True),
        "check_authorization",
        Text(
            zh="没有权限：换参数也没用，请用户授权。",
            en="No permission: changing the arguments does not help either; ask the "
            "user for authorization.",
        ),
    ),
    _case(
        Text(zh="重试也没用的失败", en="a failure retrying cannot help"),
        (TOO_LARGE, False, None, True, True),
        "not_posted",
        Text(
            zh="retry 为 never：如实报告没发，不要重试。",
            en="retry is never: report truthfully that nothing was posted, and do not retry.",
        ),
    ),
    _case(
        Text(zh="连接被拒绝，还有次数", en="connection refused, attempts left"),
        (REFUSED, False, None, True, True),
        "retry_with_backoff",
        Text(
            zh="连接被拒绝证明没执行，之前也没有结果未知的尝试：退避后可以重发。",
            en="A refused connection proves the write did not run, and no earlier "
            "attempt had an unknown outcome: you may resend after a backoff.",
        ),
    ),
    _case(
        Text(zh="429，次数用完", en="429, no attempts left"),
        (REFUSED, False, None, True, False),
        "not_posted",
        Text(
            zh="确定没执行、也不能再试：报告没发。",
            en="Certainly not executed, and no attempts left: report that nothing was posted.",
        ),
    ),
    _case(
        Text(zh="超时，可以读回", en="timeout, can read back"),
        (TIMEOUT, False, None, True, True),
        "verify_state",
        Text(
            zh="结果未知：先读回核对，不要直接重发。",
            en="Unknown outcome: read back and check first; do not simply resend.",
        ),
    ),
    _case(
        Text(zh="超时，读回找到了", en="timeout, the read-back found it"),
        (TIMEOUT, False, "found", True, True),
        "already_posted",
        Text(
            zh="找到了就是已经发出：绝不再发。",
            en="Found means already posted: never send it again.",
        ),
    ),
    _case(
        Text(zh="超时，读回没找到", en="timeout, the read-back found nothing"),
        (TIMEOUT, False, "absent", True, True),
        "unknown",
        Text(
            zh="没找到不等于没发：丢失的请求可能还在路上。停下报告未知，不要重发。",
            en="Not found does not mean not posted: the lost request may still be on "
            "its way. Stop and report unknown; do not resend.",
        ),
    ),
    _case(
        Text(
            zh="超时，读回没找到，有同一个键",
            en="timeout, the read-back found nothing, with the same key",
        ),
        (TIMEOUT, True, "absent", True, True),
        "retry_with_backoff",
        Text(
            zh="服务器已经证明它认幂等键：同一个键重发只会被重放或被 409 拒绝，不会多出一条。",
            en="The server has shown that it honours idempotency keys: a resend with "
            "the same key is only replayed or refused with a 409; it cannot add "
            "another comment.",
        ),
    ),
    _case(
        Text(zh="超时，有同一个键，不能读回", en="timeout, with the same key, cannot read back"),
        (TIMEOUT, True, None, False, True),
        "retry_with_backoff",
        Text(
            zh="不能读回，但服务器认这个键：同一个键重发是安全的。",
            en="You cannot read back, but the server honours this key: resending with "
            "the same key is safe.",
        ),
    ),
    _case(
        Text(zh="超时，有键但次数用完", en="timeout, with a key but no attempts left"),
        (TIMEOUT, True, None, False, False),
        "unknown",
        Text(
            zh="没查清又不能再试：报告未知，不能说没发。",
            en="Not settled, and no attempts left: report unknown; you cannot say it "
            "was not posted.",
        ),
    ),
    _case(
        Text(zh="超时，不能读回也没有键", en="timeout, cannot read back and no key"),
        (TIMEOUT, False, None, False, True),
        "unknown",
        Text(
            zh="没有证实过的键，也没法读回：写没写成谁也说不清，报告未知，不再重发。",
            en="No key the server has shown it honours, and no way to read back: "
            "nobody can tell whether the write happened. Report unknown and do not "
            "resend.",
        ),
    ),
    _case(
        Text(zh="先超时，后被拒绝，可以读回", en="timeout first, then refused, can read back"),
        (REFUSED, False, None, True, True, True),
        "verify_state",
        Text(
            zh="这次确实没执行，但之前那次结果未知：先读回核对它。",
            en="This attempt certainly did not run, but the earlier one has an "
            "unknown outcome: read back and check that one first.",
        ),
    ),
    # -- pairs of rules: which one wins
    _case(
        Text(zh="先超时，现在参数无效", en="timeout first, now an invalid argument"),
        (INVALID, False, None, True, True, True),
        "fix_input",
        Text(
            zh="参数无效排在最前：改参数（仍用同一个键）。",
            en="An invalid argument comes first: fix the arguments (still with the same key).",
        ),
    ),
    _case(
        Text(zh="有键，但 token 不对", en="with a key, but a wrong token"),
        (DENIED, True, None, True, True),
        "check_authorization",
        Text(
            zh="没有权限排在幂等键之前：键帮不了没有权限的请求。",
            en="No permission comes before the idempotency key: a key cannot help a "
            "request without permission.",
        ),
    ),
    _case(
        Text(zh="先超时，现在 token 不对", en="timeout first, now a wrong token"),
        (DENIED, False, None, True, True, True),
        "check_authorization",
        Text(
            zh="没有权限排在“结果未知”之前（规则 1 先于规则 2）：先去拿权限，读回也要权限。",
            en="No permission comes before “unknown outcome” (rule 1 before rule 2): "
            "get the permission first; reading back needs permission too.",
        ),
    ),
    _case(
        Text(
            zh="503：请求已发出，代码不是 outcome_unknown",
            en="503: the request went out, the code is not outcome_unknown",
        ),
        (_error("temporary_unavailable", "unknown", "with_backoff"), False, None, True, True),
        "verify_state",
        Text(
            zh="看 operation_state，不看 code：这次是 unknown，就算代码是 temporary_unavailable，"
            "也要先读回核对。",
            en="Look at operation_state, not at code: this time it is unknown, so "
            "even though the code is temporary_unavailable, read back and check "
            "first.",
        ),
    ),
    _case(
        Text(
            zh="先超时，现在是重试也没用的失败",
            en="timeout first, now a failure retrying cannot help",
        ),
        (TOO_LARGE, False, None, True, True, True),
        "unknown",
        Text(
            zh="不能再试，但之前那次可能写成了：报告未知，不是没发。",
            en="This failure cannot be retried, but the earlier attempt may have gone "
            "through: report unknown, not “not posted”.",
        ),
    ),
    _case(
        Text(
            zh="先超时，现在是重试也没用的失败，读回找到了",
            en="timeout first, now a failure retrying cannot help, the read-back found it",
        ),
        (TOO_LARGE, False, "found", True, True, True),
        "already_posted",
        Text(
            zh="第一次其实写成了：找到了就报告已发出，哪怕这次的失败不能重试。",
            en="The first attempt did go through: when it is found, report it as "
            "already posted, even though this failure cannot be retried.",
        ),
    ),
    _case(
        Text(zh="先超时，后被 429，次数用完", en="timeout first, then a 429, no attempts left"),
        (REFUSED, False, None, False, False, True),
        "unknown",
        Text(
            zh="最后一次确实没执行，但第一次可能写成了：结果未知不能被后来的拒绝覆盖。",
            en="The last attempt certainly did not run, but the first may have gone "
            "through: a later refusal does not override an unknown outcome.",
        ),
    ),
    _case(
        Text(
            zh="先超时，后被拒绝，读回没找到，没有键",
            en="timeout first, then refused, the read-back found nothing, no key",
        ),
        (REFUSED, False, "absent", True, True, True),
        "unknown",
        Text(
            zh="这次没执行也证明不了第一次没落地：没找到仍是未知，不能再发。",
            en="That this attempt did not run does not prove the first one never "
            "landed: not found is still unknown; do not send again.",
        ),
    ),
    _case(
        Text(
            zh="先超时，后被拒绝，有同一个键", en="timeout first, then refused, with the same key"
        ),
        (REFUSED, True, "absent", True, True, True),
        "retry_with_backoff",
        Text(
            zh="服务器认这个键：同一个键重发不会多出一条，可以退避后再发。",
            en="The server honours this key: a resend with the same key cannot add "
            "another comment, so you may send again after a backoff.",
        ),
    ),
    _case(
        Text(
            zh="先超时，后被拒绝，读回找到了",
            en="timeout first, then refused, the read-back found it",
        ),
        (REFUSED, False, "found", True, True, True),
        "already_posted",
        Text(
            zh="第一次其实写成了：找到了就报告已发出。",
            en="The first attempt did go through: when it is found, report it as already posted.",
        ),
    ),
    _case(
        Text(zh="有键，还能读回，尚未读回", en="with a key, can read back, not read back yet"),
        (TIMEOUT, True, None, True, True),
        "verify_state",
        Text(
            zh="有键也先读回：服务器可能重启丢了键表，标记是第二道防线。",
            en="Read back first even with a key: the server may have restarted and "
            "lost its key table; the marker is the second line of defence.",
        ),
    ),
    _case(
        Text(zh="有键，读回找到了", en="with a key, the read-back found it"),
        (TIMEOUT, True, "found", True, True),
        "already_posted",
        Text(
            zh="找到了就停：不必再发，哪怕有键。",
            en="Found means stop: there is no need to send again, even with a key.",
        ),
    ),
    _case(
        Text(zh="读回找到了，次数也用完了", en="the read-back found it, and no attempts left"),
        (TIMEOUT, False, "found", True, False),
        "already_posted",
        Text(
            zh="找到了就是已发出：次数用没用完都一样。",
            en="Found means already posted, whether or not attempts are left.",
        ),
    ),
    _case(
        Text(zh="读回没找到，次数也用完了", en="the read-back found nothing, and no attempts left"),
        (TIMEOUT, False, "absent", True, False),
        "unknown",
        Text(
            zh="没找到又不能再试：仍然只能报告未知。",
            en="Not found, and no attempts left: unknown is still all you can report.",
        ),
    ),
    _case(
        Text(
            zh="有键，读回没找到，次数用完",
            en="with a key, the read-back found nothing, no attempts left",
        ),
        (TIMEOUT, True, "absent", True, False),
        "unknown",
        Text(
            zh="能重发的理由在，次数却没了：报告未知。",
            en="The reason to resend holds, but the attempts are used up: report unknown.",
        ),
    ),
    _case(
        Text(zh="被拒绝，有键，还有次数", en="refused, with a key, attempts left"),
        (REFUSED, True, None, True, True),
        "retry_with_backoff",
        Text(
            zh="确定没执行：有没有键都可以退避后重发。",
            en="Certainly not executed: with or without a key, you may resend after a backoff.",
        ),
    ),
)

#: A 503 after the request went out: its outcome is unknown though its code is not
#: ``outcome_unknown`` (one of the visible cases).
_UNKNOWN_503 = _error("temporary_unavailable", "unknown", "with_backoff")

_KEY = "review-128-summary-1"
_TEXT = "Review summary: 3 confirmed issues."


def _posted(comment_id: int, text: str = _TEXT, key: str = _KEY, trailing: str = "") -> dict:
    return {"id": comment_id, "body": f"{text}\n\n{marker(key)}{trailing}"}


_OTHERS = [{"id": 10, "body": "LGTM"}, {"id": 11, "body": "nit: rename this"}]
_QUOTED = {"id": 12, "body": f"Why does the bot write {marker(_KEY)} in its comments?"}

RECONCILE_CASES: tuple[Case, ...] = (
    Case(
        Text(zh="没有评论", en="no comments"),
        ([], _KEY, _TEXT),
        {"state": "absent"},
        Text(zh="空列表：没找到。", en="An empty list: nothing found."),
    ),
    Case(
        Text(zh="只有别人的评论", en="only other people's comments"),
        (_OTHERS, _KEY, _TEXT),
        {"state": "absent"},
        Text(zh="没有任何评论带这个标记。", en="No comment carries this marker."),
    ),
    Case(
        Text(zh="找到了", en="found"),
        ([*_OTHERS, _posted(20)], _KEY, _TEXT),
        {"state": "found", "comment_id": 20},
        Text(
            zh="正文以标记结尾、文字也一致：返回它的 id。",
            en="The body ends with the marker and the text matches too: return its id.",
        ),
    ),
    Case(
        Text(zh="标记后面有空行", en="blank lines after the marker"),
        ([_posted(21, trailing="\n\n")], _KEY, _TEXT),
        {"state": "found", "comment_id": 21},
        Text(
            zh="先去掉首尾空白，再看结尾。",
            en="Strip the leading and trailing whitespace first, then look at the end.",
        ),
    ),
    Case(
        Text(zh="前缀相同的键", en="a key with the same prefix"),
        ([_posted(22, key=_KEY + "2")], _KEY, _TEXT),
        {"state": "absent"},
        Text(
            zh="review-128-summary-12 不是 review-128-summary-1：比较完整的标记，别只比前缀。",
            en="review-128-summary-12 is not review-128-summary-1: compare the whole "
            "marker, not just a prefix.",
        ),
    ),
    Case(
        Text(zh="标记被引用在正文中间", en="the marker quoted in the middle of the body"),
        ([_QUOTED], _KEY, _TEXT),
        {"state": "absent"},
        Text(
            zh="有人在讨论里引用了标记：不在结尾就不算。",
            en="Someone quoted the marker in the discussion: a marker that is not at "
            "the end does not count.",
        ),
    ),
    Case(
        Text(zh="已经有两条", en="two copies already"),
        ([_posted(31), _posted(30)], _KEY, _TEXT),
        {"state": "found", "comment_id": 30},
        Text(
            zh="多条匹配时返回最小的 id（最早的那条）。",
            en="When several comments match, return the smallest id (the earliest one).",
        ),
    ),
    Case(
        Text(zh="键被别的内容用过", en="the key used for other content"),
        ([_posted(40, text="Another conclusion.")], _KEY, _TEXT),
        {"state": "key_reused", "comment_id": 40},
        Text(
            zh="标记对上了，文字却不同：这个键代表的是另一条评论。",
            en="The marker matches but the text differs: this key stands for another comment.",
        ),
    ),
    Case(
        Text(zh="键被用过两次", en="the key used twice"),
        ([_posted(61, text="Another conclusion."), _posted(60, text="A third text.")], _KEY, _TEXT),
        {"state": "key_reused", "comment_id": 60},
        Text(
            zh="标记对上、文字都不同的有好几条时，返回其中最小的 id，不看它们在列表里的顺序。",
            en="When several comments have the marker but every text differs, return "
            "the smallest of their ids, whatever their order in the list.",
        ),
    ),
    Case(
        Text(zh="两边都有首尾空白", en="leading and trailing whitespace on both sides"),
        ([_posted(23, text="\n  " + _TEXT + "  ")], _KEY, "  " + _TEXT + "\n"),
        {"state": "found", "comment_id": 23},
        Text(
            zh="去掉标记后的文字和参数 body 都要去掉首尾空白再比较。",
            en="Strip the leading and trailing whitespace from both the text without "
            "the marker and the body argument before comparing them.",
        ),
    ),
    Case(
        Text(zh="别的内容在前，这一条在后", en="other content first, this one after it"),
        ([_posted(50, text="Another conclusion."), _posted(51)], _KEY, _TEXT),
        {"state": "found", "comment_id": 51},
        Text(
            zh="先找标记和文字都对上的那条；只有标记对上、文字都不同时才是 key_reused。",
            en="Look first for the comment whose marker and text both match; it is "
            "key_reused only when the marker matches and every text differs.",
        ),
    ),
)


def decide_hidden_cases() -> tuple[Case, ...]:
    """Every input the exercise's ``decide`` can meet: each of its five errors, and a 503
    whose outcome is unknown (``operation_state`` decides, not ``code``), with every
    combination of the five flags (288 cases); expected: :func:`library_decision`.

    Exhaustive rather than sampled: a solution fitted to the visible rows meets the rows
    that the visible table leaves out.
    """
    errors = {
        "INVALID": INVALID,
        "DENIED": DENIED,
        "REFUSED": REFUSED,
        "TIMEOUT": TIMEOUT,
        "TOO_LARGE": TOO_LARGE,
        "UNKNOWN_503": _UNKNOWN_503,
    }
    cases = []
    for name, error in errors.items():
        for same_key, read_back, can_read_back, attempts_left, earlier_unknown in product(
            (False, True), (None, "found", "absent"), (False, True), (False, True), (False, True)
        ):
            args = (error, same_key, read_back, can_read_back, attempts_left, earlier_unknown)
            cases.append(
                Case(
                    f"{name}, same_key={same_key}, read_back={read_back},"
                    f" can_read_back={can_read_back}, attempts_left={attempts_left},"
                    f" earlier_unknown={earlier_unknown}",
                    args,
                    library_decision(*args),  # type: ignore[arg-type]
                    Text(
                        zh="和库的 decide_after_failure 不一致：先看参数和权限，再看结果是否未知"
                        "（未知时只有读回找到、或服务器证明过的同一个键才允许继续），最后才是退避重试。",
                        en="Differs from the library's decide_after_failure: look at the "
                        "arguments and the permission first, then at whether the outcome is "
                        "unknown (when it is, only a read-back that found the write, or the "
                        "same key the server has shown it honours, lets the write go on), and "
                        "only last at retrying with backoff.",
                    ),
                )
            )
    return tuple(cases)


def reconcile_hidden_cases(seed: int = 0, count: int = 120) -> tuple[Case, ...]:
    """``count`` seeded comment lists: this key's marker on this text or another, a key
    that shares a prefix, the marker quoted mid-text, trailing blank lines, whitespace
    around the text and around ``body``, shuffled ids;
    expected: the library's :func:`~tutorial_lib.github.writes.reconcile`."""
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        comments: list[dict[str, Any]] = []
        body = rng.choice(("", " ", "\n", "  \n")) + _TEXT + rng.choice(("", " ", "\n\n"))
        for comment_id in rng.sample(range(1, 200), rng.randint(0, 6)):
            kind = rng.choice(("other", "same", "another_text", "prefix_key", "quoted"))
            trailing = rng.choice(("", "\n", "\n\n  "))
            if kind == "other":
                comments.append({"id": comment_id, "body": rng.choice(("LGTM", "nit: rename"))})
            elif kind == "same":
                text = rng.choice(("", "\n", "  ")) + _TEXT + rng.choice(("", " ", "\n"))
                comments.append(_posted(comment_id, text=text, trailing=trailing))
            elif kind == "another_text":
                text = rng.choice(("Another conclusion.", "A third text.", _TEXT + " (edited)"))
                comments.append(_posted(comment_id, text=text, trailing=trailing))
            elif kind == "prefix_key":
                comments.append(_posted(comment_id, key=_KEY + "9", trailing=trailing))
            else:
                comments.append({"id": comment_id, "body": f"quoting {marker(_KEY)} here"})
        cases.append(
            Case(
                Text(zh=f"生成的评论列表 {index + 1}", en=f"generated comment list {index + 1}"),
                (comments, _KEY, body),
                reconcile(comments, _KEY, body),
                Text(
                    zh="和库的 reconcile 不一致：标记必须在去掉首尾空白后的结尾、完整比较；"
                    "文字一致的取最小 id，否则标记对上的是 key_reused。",
                    en="Differs from the library's reconcile: the marker must be at the end "
                    "once leading and trailing whitespace is stripped, compared in full; "
                    "of the comments whose text matches, take the smallest id; otherwise a "
                    "matching marker means key_reused.",
                ),
            )
        )
    return tuple(cases)


DECIDE_RULES: tuple[Rule, ...] = load_rules("05", "DECIDE_RULES", WRITE_DECISION_CASES)


RECONCILE_RULES: tuple[Rule, ...] = load_rules("05", "RECONCILE_RULES", RECONCILE_CASES)
