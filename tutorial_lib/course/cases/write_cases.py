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
from tutorial_lib.course.rules import Rule
from tutorial_lib.github.writes import WRITE_POLICY, WriteStatus, marker, reconcile

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


def _case(label: str, args: tuple[Any, ...], expected: str, hint: str) -> Case:
    # the sixth argument, earlier_unknown, is False unless a case says otherwise
    return Case(label, args if len(args) == 6 else (*args, False), expected, hint)


WRITE_DECISION_CASES: tuple[Case, ...] = (
    # -- one case per rule
    _case(
        "空正文（422）",
        (INVALID, False, None, True, True),
        "fix_input",
        "参数无效：改参数再调用，重发同样的内容没有用。",
    ),
    _case(
        "token 不对（401）",
        (DENIED, False, None, True, True),
        "check_authorization",
        "没有权限：换参数也没用，请用户授权。",
    ),
    _case(
        "重试也没用的失败",
        (TOO_LARGE, False, None, True, True),
        "not_posted",
        "retry 为 never：如实报告没发，不要重试。",
    ),
    _case(
        "连接被拒绝，还有次数",
        (REFUSED, False, None, True, True),
        "retry_with_backoff",
        "连接被拒绝证明没执行，之前也没有结果未知的尝试：退避后可以重发。",
    ),
    _case(
        "429，次数用完",
        (REFUSED, False, None, True, False),
        "not_posted",
        "确定没执行、也不能再试：报告没发。",
    ),
    _case(
        "超时，可以读回",
        (TIMEOUT, False, None, True, True),
        "verify_state",
        "结果未知：先读回核对，不要直接重发。",
    ),
    _case(
        "超时，读回找到了",
        (TIMEOUT, False, "found", True, True),
        "already_posted",
        "找到了就是已经发出：绝不再发。",
    ),
    _case(
        "超时，读回没找到",
        (TIMEOUT, False, "absent", True, True),
        "unknown",
        "没找到不等于没发：丢失的请求可能还在路上。停下报告未知，不要重发。",
    ),
    _case(
        "超时，读回没找到，有同一个键",
        (TIMEOUT, True, "absent", True, True),
        "retry_with_backoff",
        "服务器已经证明它认幂等键：同一个键重发只会被重放或被 409 拒绝，不会多出一条。",
    ),
    _case(
        "超时，有同一个键，不能读回",
        (TIMEOUT, True, None, False, True),
        "retry_with_backoff",
        "不能读回，但服务器认这个键：同一个键重发是安全的。",
    ),
    _case(
        "超时，有键但次数用完",
        (TIMEOUT, True, None, False, False),
        "unknown",
        "没查清又不能再试：报告未知，不能说没发。",
    ),
    _case(
        "超时，不能读回也没有键",
        (TIMEOUT, False, None, False, True),
        "unknown",
        "没有证实过的键，也没法读回：写没写成谁也说不清，报告未知，不再重发。",
    ),
    _case(
        "先超时，后被拒绝，可以读回",
        (REFUSED, False, None, True, True, True),
        "verify_state",
        "这次确实没执行，但之前那次结果未知：先读回核对它。",
    ),
    # -- pairs of rules: which one wins
    _case(
        "先超时，现在参数无效",
        (INVALID, False, None, True, True, True),
        "fix_input",
        "参数无效排在最前：改参数（仍用同一个键）。",
    ),
    _case(
        "有键，但 token 不对",
        (DENIED, True, None, True, True),
        "check_authorization",
        "没有权限排在幂等键之前：键帮不了没有权限的请求。",
    ),
    _case(
        "先超时，现在 token 不对",
        (DENIED, False, None, True, True, True),
        "check_authorization",
        "没有权限排在“结果未知”之前（规则 1 先于规则 2）：先去拿权限，读回也要权限。",
    ),
    _case(
        "503：请求已发出，代码不是 outcome_unknown",
        (_error("temporary_unavailable", "unknown", "with_backoff"), False, None, True, True),
        "verify_state",
        "看 operation_state，不看 code：这次是 unknown，就算代码是 temporary_unavailable，"
        "也要先读回核对。",
    ),
    _case(
        "先超时，现在是重试也没用的失败",
        (TOO_LARGE, False, None, True, True, True),
        "unknown",
        "不能再试，但之前那次可能写成了：报告未知，不是没发。",
    ),
    _case(
        "先超时，现在是重试也没用的失败，读回找到了",
        (TOO_LARGE, False, "found", True, True, True),
        "already_posted",
        "第一次其实写成了：找到了就报告已发出，哪怕这次的失败不能重试。",
    ),
    _case(
        "先超时，后被 429，次数用完",
        (REFUSED, False, None, False, False, True),
        "unknown",
        "最后一次确实没执行，但第一次可能写成了：结果未知不能被后来的拒绝覆盖。",
    ),
    _case(
        "先超时，后被拒绝，读回没找到，没有键",
        (REFUSED, False, "absent", True, True, True),
        "unknown",
        "这次没执行也证明不了第一次没落地：没找到仍是未知，不能再发。",
    ),
    _case(
        "先超时，后被拒绝，有同一个键",
        (REFUSED, True, "absent", True, True, True),
        "retry_with_backoff",
        "服务器认这个键：同一个键重发不会多出一条，可以退避后再发。",
    ),
    _case(
        "先超时，后被拒绝，读回找到了",
        (REFUSED, False, "found", True, True, True),
        "already_posted",
        "第一次其实写成了：找到了就报告已发出。",
    ),
    _case(
        "有键，还能读回，尚未读回",
        (TIMEOUT, True, None, True, True),
        "verify_state",
        "有键也先读回：服务器可能重启丢了键表，标记是第二道防线。",
    ),
    _case(
        "有键，读回找到了",
        (TIMEOUT, True, "found", True, True),
        "already_posted",
        "找到了就停：不必再发，哪怕有键。",
    ),
    _case(
        "读回找到了，次数也用完了",
        (TIMEOUT, False, "found", True, False),
        "already_posted",
        "找到了就是已发出：次数用没用完都一样。",
    ),
    _case(
        "读回没找到，次数也用完了",
        (TIMEOUT, False, "absent", True, False),
        "unknown",
        "没找到又不能再试：仍然只能报告未知。",
    ),
    _case(
        "有键，读回没找到，次数用完",
        (TIMEOUT, True, "absent", True, False),
        "unknown",
        "能重发的理由在，次数却没了：报告未知。",
    ),
    _case(
        "被拒绝，有键，还有次数",
        (REFUSED, True, None, True, True),
        "retry_with_backoff",
        "确定没执行：有没有键都可以退避后重发。",
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
    Case("没有评论", ([], _KEY, _TEXT), {"state": "absent"}, "空列表：没找到。"),
    Case(
        "只有别人的评论",
        (_OTHERS, _KEY, _TEXT),
        {"state": "absent"},
        "没有任何评论带这个标记。",
    ),
    Case(
        "找到了",
        ([*_OTHERS, _posted(20)], _KEY, _TEXT),
        {"state": "found", "comment_id": 20},
        "正文以标记结尾、文字也一致：返回它的 id。",
    ),
    Case(
        "标记后面有空行",
        ([_posted(21, trailing="\n\n")], _KEY, _TEXT),
        {"state": "found", "comment_id": 21},
        "先去掉首尾空白，再看结尾。",
    ),
    Case(
        "前缀相同的键",
        ([_posted(22, key=_KEY + "2")], _KEY, _TEXT),
        {"state": "absent"},
        "review-128-summary-12 不是 review-128-summary-1：比较完整的标记，别只比前缀。",
    ),
    Case(
        "标记被引用在正文中间",
        ([_QUOTED], _KEY, _TEXT),
        {"state": "absent"},
        "有人在讨论里引用了标记：不在结尾就不算。",
    ),
    Case(
        "已经有两条",
        ([_posted(31), _posted(30)], _KEY, _TEXT),
        {"state": "found", "comment_id": 30},
        "多条匹配时返回最小的 id（最早的那条）。",
    ),
    Case(
        "键被别的内容用过",
        ([_posted(40, text="Another conclusion.")], _KEY, _TEXT),
        {"state": "key_reused", "comment_id": 40},
        "标记对上了，文字却不同：这个键代表的是另一条评论。",
    ),
    Case(
        "键被用过两次",
        ([_posted(61, text="Another conclusion."), _posted(60, text="A third text.")], _KEY, _TEXT),
        {"state": "key_reused", "comment_id": 60},
        "标记对上、文字都不同的有好几条时，返回其中最小的 id，不看它们在列表里的顺序。",
    ),
    Case(
        "两边都有首尾空白",
        ([_posted(23, text="\n  " + _TEXT + "  ")], _KEY, "  " + _TEXT + "\n"),
        {"state": "found", "comment_id": 23},
        "去掉标记后的文字和参数 body 都要去掉首尾空白再比较。",
    ),
    Case(
        "别的内容在前，这一条在后",
        ([_posted(50, text="Another conclusion."), _posted(51)], _KEY, _TEXT),
        {"state": "found", "comment_id": 51},
        "先找标记和文字都对上的那条；只有标记对上、文字都不同时才是 key_reused。",
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
                    "和库的 decide_after_failure 不一致：先看参数和权限，再看结果是否未知"
                    "（未知时只有读回找到、或服务器证明过的同一个键才允许继续），最后才是退避重试。",
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
                f"生成的评论列表 {index + 1}",
                (comments, _KEY, body),
                reconcile(comments, _KEY, body),
                "和库的 reconcile 不一致：标记必须在去掉首尾空白后的结尾、完整比较；"
                "文字一致的取最小 id，否则标记对上的是 key_reused。",
            )
        )
    return tuple(cases)


DECIDE_RULES: tuple[Rule, ...] = (
    Rule(
        "参数无效 → fix_input",
        'retry 是 "after_input_correction"：fix_input。',
        "空正文（422）",
        "INVALID 的每一种组合",
    ),
    Rule(
        "没有权限 → check_authorization",
        'retry 是 "after_authorization"：check_authorization。',
        "token 不对（401）",
        "DENIED 的每一种组合",
    ),
    Rule(
        "规则 1 排在最前",
        "按顺序判断：第 1 条（参数、权限）先于“结果是否未知”。",
        "先超时，现在参数无效",
        "INVALID、DENIED 遇上 earlier_unknown",
    ),
    Rule(
        "看 operation_state，不看 code",
        '结果是否未知：这次的 operation_state 是 "unknown"。',
        "503：请求已发出，代码不是 outcome_unknown",
        "operation_state 为 unknown、code 不是 outcome_unknown 的 503",
    ),
    Rule(
        "更早的未知也算未知",
        "结果是否未知：或者 earlier_unknown 为真。",
        "先超时，后被拒绝，可以读回",
        "earlier_unknown 为真和为假",
    ),
    Rule(
        "不是未知时：never 报告没发",
        '不是未知时：retry 为 "never" 报告没发。',
        "重试也没用的失败",
        "TOO_LARGE 的每一种组合",
    ),
    Rule(
        "不是未知时：有次数就重试",
        "可证明没执行的暂时失败有次数就重试。",
        "连接被拒绝，还有次数",
        "REFUSED 配上 attempts_left",
    ),
    Rule(
        "不是未知时：没次数报告没发",
        "可证明没执行的暂时失败没有次数，报告没发。",
        "429，次数用完",
        "REFUSED 配上 attempts_left 为假",
    ),
    Rule(
        "未知又 never：报告未知",
        '结果未知时：retry 为 "never"（重试也没用）就报告未知。',
        "先超时，现在是重试也没用的失败",
        "TOO_LARGE 遇上 earlier_unknown",
    ),
    Rule(
        "未知又 never：除非读回找到了",
        'retry 为 "never" 就报告未知，除非读回找到了。',
        "先超时，现在是重试也没用的失败，读回找到了",
        "TOO_LARGE、earlier_unknown 配上 read_back 为 found",
    ),
    Rule(
        "读回找到 → 已发",
        "结果未知时：读回找到 → 已发。",
        "超时，读回找到了",
        "read_back 为 found",
    ),
    Rule(
        "还没读回、能读回 → 先读回",
        "还没读回、能读回 → 先读回。",
        "超时，可以读回",
        "read_back 为 None 配上 can_read_back",
    ),
    Rule(
        "有键也先读回",
        "有键也先读：服务器可能重启丢了键表。",
        "有键，还能读回，尚未读回",
        "same_key、read_back 为 None、can_read_back",
    ),
    Rule(
        "有同一个键：有次数时重试",
        "其余情况：有同一个键就有次数时重试。",
        "超时，读回没找到，有同一个键",
        "same_key 配上 read_back 为 absent 或不能读回",
    ),
    Rule(
        "有同一个键：没次数报告未知",
        "有同一个键、没有次数时报告未知。",
        "超时，有键但次数用完",
        "same_key 配上 attempts_left 为假",
    ),
    Rule(
        "读回没找到不是没发的证明",
        "读回没找到、又没有键：报告未知（没找到不是没发的证明）。",
        "超时，读回没找到",
        "read_back 为 absent、没有 same_key",
    ),
    Rule(
        "不能读回又没有键：报告未知",
        "不能读回、又没有键：报告未知。",
        "超时，不能读回也没有键",
        "can_read_back 为假、没有 same_key",
    ),
)


RECONCILE_RULES: tuple[Rule, ...] = (
    Rule(
        "去掉首尾空白后看结尾",
        "正文（去掉首尾空白后）以 marker(key) 结尾时才算数。",
        "标记后面有空行",
        "标记后面没有、有一个或几个空白",
    ),
    Rule(
        "标记在正文中间不算",
        "正文中间引用了这个标记不算。",
        "标记被引用在正文中间",
        "有的评论在句子中间引用这个标记",
    ),
    Rule(
        "另一个键的标记不算",
        "另一个键的标记也不算（注意前缀相同的键）。",
        "前缀相同的键",
        "有的评论带着前缀相同的另一个键",
    ),
    Rule(
        "文字一致才是 found",
        "找到了标记、而且去掉标记后的文字和 body 一致：返回 found。",
        "键被别的内容用过",
        "同一个标记配上不同的文字",
    ),
    Rule(
        "都去掉首尾空白再比",
        "去掉标记后的文字和 body 都去掉首尾空白再比。",
        "两边都有首尾空白",
        "文字前后、参数 body 前后的空白随机",
    ),
    Rule(
        "found 取最小的 id",
        "有几条就取最小的 id。",
        "已经有两条",
        "几条相同的评论",
    ),
    Rule(
        "先找文字一致的那条",
        "只找到标记、文字却都不一致时才是 key_reused。",
        "别的内容在前，这一条在后",
        "文字不同的那条 id 更小",
    ),
    Rule(
        "key_reused 取最小的 id",
        "key_reused 的 comment_id 是其中最小的 id。",
        "键被用过两次",
        "几条文字不同的评论",
    ),
    Rule(
        "没有标记：absent",
        '没有任何评论带这个标记：返回 {"state": "absent"}。',
        "只有别人的评论",
        "有的列表没有一条带这个标记",
    ),
)
