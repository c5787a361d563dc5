"""Rule tables of chapter 05's exercises (see tests/rule_harness.py): for each rule, an
answer a learner could write that breaks only that rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.course.chapters.ch05_writes_and_retries.cases import (
    DECIDE_RULES,
    RECONCILE_CASES,
    RECONCILE_RULES,
    WRITE_DECISION_CASES,
    decide_hidden_cases,
    library_decision,
    reconcile_hidden_cases,
)
from tutorial_lib.github.writes import marker, reconcile

# ------------------------------------------------------------------------ decide


def _decide(flaw: str = "") -> Callable[..., str]:
    """The exercise's answer, in the order the task text gives, with one rule broken."""

    def decide(
        error: dict[str, Any],
        same_key: bool,
        read_back: Any,
        can_read_back: bool,
        attempts_left: bool,
        earlier_unknown: bool,
    ) -> str:
        retry = error["retry"]
        if flaw == "rule_1_late" and earlier_unknown and read_back is None and can_read_back:
            return "verify_state"  # the unknown outcome looked at before rule 1
        if retry == "after_input_correction":
            return "not_posted" if flaw == "input" else "fix_input"
        if retry == "after_authorization":
            return "fix_input" if flaw == "authorization" else "check_authorization"
        if flaw == "by_code":
            unknown = error["code"] == "outcome_unknown"
        else:
            unknown = error["operation_state"] == "unknown"
        if flaw != "no_earlier":
            unknown = unknown or earlier_unknown
        if flaw == "never_first" and retry == "never":
            return "not_posted"
        if not unknown:
            if retry == "never":
                return "retry_with_backoff" if flaw == "never" and attempts_left else "not_posted"
            if flaw == "always_read_back":
                return "verify_state"
            if attempts_left:
                return "retry_with_backoff"
            return "unknown" if flaw == "no_attempts" else "not_posted"
        if flaw == "never_before_found" and retry == "never":
            return "unknown"
        if read_back == "found" and flaw != "ignore_found":
            return "already_posted"
        if retry == "never":
            return "unknown"
        if flaw == "key_first" and same_key:
            return "retry_with_backoff" if attempts_left else "unknown"
        if read_back is None and can_read_back and flaw != "no_read_back":
            return "verify_state"
        if flaw == "absent_is_proof" and read_back == "absent" and not same_key:
            return "retry_with_backoff" if attempts_left else "not_posted"
        if flaw == "blind_retry" and read_back is None and not same_key:
            return "retry_with_backoff" if attempts_left else "unknown"
        if same_key and flaw != "ignore_key":
            if attempts_left or flaw == "key_ignores_attempts":
                return "retry_with_backoff"
            return "unknown"
        return "unknown"

    return decide


DECIDE_MUTANTS = {
    "参数无效 → fix_input": _decide("input"),
    "没有权限 → check_authorization": _decide("authorization"),
    "规则 1 排在最前": _decide("rule_1_late"),
    "看 operation_state，不看 code": _decide("by_code"),
    "更早的未知也算未知": _decide("no_earlier"),
    "不是未知时：never 报告没发": _decide("never"),
    "不是未知时：有次数就重试": _decide("always_read_back"),
    "不是未知时：没次数报告没发": _decide("no_attempts"),
    "未知又 never：报告未知": _decide("never_first"),
    "未知又 never：除非读回找到了": _decide("never_before_found"),
    "读回找到 → 已发": _decide("ignore_found"),
    "还没读回、能读回 → 先读回": _decide("no_read_back"),
    "有键也先读回": _decide("key_first"),
    "有同一个键：有次数时重试": _decide("ignore_key"),
    "有同一个键：没次数报告未知": _decide("key_ignores_attempts"),
    "读回没找到不是没发的证明": _decide("absent_is_proof"),
    "不能读回又没有键：报告未知": _decide("blind_retry"),
}

# --------------------------------------------------------------------- reconcile


def _reconcile(flaw: str) -> Callable[..., dict[str, Any]]:
    def answer(comments: list[dict[str, Any]], key: str, body: str) -> dict[str, Any]:
        tag = marker(key)

        def carries(comment: dict[str, Any]) -> bool:
            text = comment["body"] if flaw == "no_strip" else comment["body"].strip()
            if flaw == "anywhere":
                return tag in text
            if flaw == "prefix":
                last = text.splitlines()[-1] if text else ""
                return last.startswith(f"<!-- tutorial-lib:idempotency-key={key}")
            return text.endswith(tag)

        def same_text(comment: dict[str, Any]) -> bool:
            if flaw == "marker_is_enough":
                return True
            text = comment["body"].strip()[: -len(tag)].strip()
            return text == (body if flaw == "body_unstripped" else body.strip())

        marked = [c for c in comments if carries(c)]
        if flaw != "list_order_found":
            marked = sorted(marked, key=lambda c: c["id"])
        if flaw == "smallest_only" and marked:
            first = marked[0]
            state = "found" if same_text(first) else "key_reused"
            return {"state": state, "comment_id": first["id"]}
        same = [c for c in marked if same_text(c)]
        if same:
            return {"state": "found", "comment_id": same[0]["id"]}
        if marked:
            reused = [c for c in comments if carries(c)] if flaw == "list_order_reused" else marked
            return {"state": "key_reused", "comment_id": reused[0]["id"]}
        return (
            {"state": "absent", "comment_id": None} if flaw == "absent_id" else {"state": "absent"}
        )

    return answer


RECONCILE_MUTANTS = {
    "去掉首尾空白后看结尾": _reconcile("no_strip"),
    "标记在正文中间不算": _reconcile("anywhere"),
    "另一个键的标记不算": _reconcile("prefix"),
    "文字一致才是 found": _reconcile("marker_is_enough"),
    "都去掉首尾空白再比": _reconcile("body_unstripped"),
    "found 取最小的 id": _reconcile("list_order_found"),
    "先找文字一致的那条": _reconcile("smallest_only"),
    "key_reused 取最小的 id": _reconcile("list_order_reused"),
    "没有标记：absent": _reconcile("absent_id"),
}

EXERCISES: list[Exercise] = [
    Exercise(
        name="05.decide",
        rules=DECIDE_RULES,
        visible=WRITE_DECISION_CASES,
        hidden=lambda: decide_hidden_cases(),
        reference=library_decision,
        mutants=DECIDE_MUTANTS,
    ),
    Exercise(
        name="05.reconcile",
        rules=RECONCILE_RULES,
        visible=RECONCILE_CASES,
        hidden=lambda: reconcile_hidden_cases(),
        reference=reconcile,
        mutants=RECONCILE_MUTANTS,
    ),
]
