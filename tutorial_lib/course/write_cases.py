"""Chapter 05's exercise tables, shared by the exercise and the tests.

- :data:`WRITE_DECISION_CASES`: what to do after a failed write, for
  ``decide(error, same_key, read_back, can_read_back, attempts_left)``. While there is
  something left to do, the answer is a :data:`tutorial_lib.core.contracts.NextStep`
  (``fix_input``, ``check_authorization``, ``retry_with_backoff``, ``verify_state``); when the
  write stops, it is what the tool then reports, in the words of
  :func:`tutorial_lib.github.writes.write_status` (``already_posted``, ``not_posted``,
  ``unknown``). The expected answers are the
  library's own: :func:`library_decision` asks
  :func:`tutorial_lib.core.retry.decide_after_failure`, and the tests check that it passes
  this table.
- :data:`RECONCILE_CASES`: the read-back check, for ``reconcile(comments, key, body)``;
  :func:`tutorial_lib.github.writes.reconcile` passes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from tutorial_lib.core.retry import decide_after_failure
from tutorial_lib.course.checks import Case
from tutorial_lib.github.writes import WRITE_POLICY, WriteStatus, marker

__all__ = [
    "DENIED",
    "INVALID",
    "RECONCILE_CASES",
    "REFUSED",
    "TIMEOUT",
    "TOO_LARGE",
    "WRITE_DECISION_CASES",
    "library_decision",
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
) -> ContinuingStep | WriteStatus:
    """The library's decision after a failed write, in the exercise's seven words.

    A :class:`~tutorial_lib.core.retry.Decision` that goes on (``fix_input``,
    ``check_authorization``, ``retry_with_backoff``, ``verify_state``) is answered as it is;
    one that stops is answered with what the tool reports: ``stop_unknown`` is ``unknown``,
    ``stop`` is ``already_posted`` when the read-back found the write, else ``not_posted``.
    """
    verified_absent = {None: None, "found": False, "absent": True}[read_back]
    decision = decide_after_failure(
        error,
        is_write=True,
        attempt=1 if attempts_left else WRITE_POLICY.max_attempts,
        policy=WRITE_POLICY,
        same_idempotency_key=same_key,
        verified_absent=verified_absent,
        can_verify=can_read_back,
    )
    action = decision.action
    if action == "stop_unknown":
        return "unknown"
    if action in ("fix_input", "check_authorization", "retry_with_backoff", "verify_state"):
        return action
    # "stop" (and "search_first", which a write to a named PR does not meet here): the write
    # is over; found by a read-back means it exists.
    found = read_back == "found" and error.get("operation_state") == "unknown"
    return "already_posted" if found else "not_posted"


WRITE_DECISION_CASES: tuple[Case, ...] = (
    Case(
        "空正文（422）",
        (INVALID, False, None, True, True),
        "fix_input",
        "参数无效：改参数再调用，重发同样的内容没有用。",
    ),
    Case(
        "token 不对（401）",
        (DENIED, False, None, True, True),
        "check_authorization",
        "没有权限：换参数也没用，请用户授权。",
    ),
    Case(
        "不会改变的失败",
        (TOO_LARGE, False, None, True, True),
        "not_posted",
        "retry 为 never：如实报告没发，不要重试。",
    ),
    Case(
        "连接被拒绝，还有次数",
        (REFUSED, False, None, True, True),
        "retry_with_backoff",
        "连接被拒绝证明没执行：退避后可以重发。",
    ),
    Case(
        "429，次数用完",
        (REFUSED, False, None, True, False),
        "not_posted",
        "确定没执行、也不能再试：报告没发。",
    ),
    Case(
        "超时，可以读回",
        (TIMEOUT, False, None, True, True),
        "verify_state",
        "结果未知、没有幂等键：先读回核对，不要直接重发。",
    ),
    Case(
        "超时，读回找到了",
        (TIMEOUT, False, "found", True, True),
        "already_posted",
        "找到了就是已经发出：绝不再发。",
    ),
    Case(
        "超时，读回确认没有",
        (TIMEOUT, False, "absent", True, True),
        "retry_with_backoff",
        "确认没有、还有次数：可以再发一次。",
    ),
    Case(
        "超时，读回没有，次数用完",
        (TIMEOUT, False, "absent", True, False),
        "not_posted",
        "确认没有但不能再试：这时报告没发是真话。",
    ),
    Case(
        "超时，有同一个幂等键",
        (TIMEOUT, True, None, False, True),
        "retry_with_backoff",
        "服务器会重放第一次的结果：同一个键重发不会重复。",
    ),
    Case(
        "超时，有幂等键但次数用完",
        (TIMEOUT, True, None, False, False),
        "unknown",
        "没查清又不能再试：报告未知，不能说没发。",
    ),
    Case(
        "超时，不能读回也没有键",
        (TIMEOUT, False, None, False, True),
        "unknown",
        "既没有幂等键也不能读回：状态无从得知，停下如实报告。",
    ),
)

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
        "别的内容在前，这一条在后",
        ([_posted(50, text="Another conclusion."), _posted(51)], _KEY, _TEXT),
        {"state": "found", "comment_id": 51},
        "先找标记和文字都对上的那条；只有标记对上、文字都不同时才是 key_reused。",
    ),
)
