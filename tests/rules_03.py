"""Rule tables of chapter 03's exercises (see tests/rule_harness.py): for each rule, an
answer a learner could write that breaks only that rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.core.contracts import DECISION_TABLE, next_step
from tutorial_lib.course.chapters.ch03_error_contracts.cases import (
    DECIDE_RULES,
    DECISION_CASES,
    STATUS_ERROR_CASES,
    STATUS_ERROR_RULES,
    decide_hidden_cases,
    reference_status_error,
    status_error_hidden_cases,
)
from tutorial_lib.examples.tasks import STARTED_WORDS, TASK_STATUSES

# ------------------------------------------------------------------ status_error


def _with(**changes: Any) -> Callable[..., dict[str, Any]]:
    """The reference with some fields replaced (a value, or a function of the arguments)."""

    def answer(task_id: str, current: str, received: Any) -> dict[str, Any]:
        error = reference_status_error(task_id, current, received)
        for name, value in changes.items():
            error[name] = value(task_id, current, received) if callable(value) else value
        return error

    return answer


def _suggest(started: Callable[[Any], bool]) -> Callable[..., str]:
    def suggestion(task_id: str, current: str, received: Any) -> str:
        if started(received):
            return "if the task has really started, send active"
        return "send one of: " + ", ".join(TASK_STATUSES)

    return suggestion


def _message_without_current(task_id: str, current: str, received: Any) -> str:
    return f"status {received!r} is not allowed; allowed: {', '.join(TASK_STATUSES)}"


STATUS_ERROR_MUTANTS = {
    "code": _with(code="bad_status"),
    "field": _with(field="state"),
    "received 原样返回": _with(received=lambda t, c, r: str(r).lower()),
    "allowed_values": _with(allowed_values=TASK_STATUSES),
    "operation_state": _with(operation_state="unknown"),
    "retry": _with(retry="never"),
    "消息写出当前状态": _with(message=_message_without_current),
    "表示已经开始：有条件的建议": _with(suggestion="send one of: " + ", ".join(TASK_STATUSES)),
    "先转小写": _with(suggestion=_suggest(lambda r: str(r) in STARTED_WORDS)),
    "整个词在 STARTED_WORDS 里": _with(
        suggestion=_suggest(lambda r: any(w in str(r).lower() for w in STARTED_WORDS))
    ),
    # r.lower() raises for 3, 0 and None: the check reports an exception
    "用 str(received)": _with(suggestion=_suggest(lambda r: r.lower() in STARTED_WORDS)),
    "否则列出所有允许值": _with(
        suggestion=lambda t, c, r: (
            "if the task has really started, send active"
            if str(r).lower() in STARTED_WORDS
            else "send a valid status"
        )
    ),
}

# ------------------------------------------------------------------------ decide

_STEP_OF_RETRY = {
    "after_input_correction": "fix_input",
    "with_backoff": "retry_with_backoff",
    "after_authorization": "check_authorization",
    "after_status_check": "verify_state",
    "never": "stop",
}
_STEP_OF_CODE = {row.code: row.step for row in DECISION_TABLE}


def _decide(flaw: str = "", **steps: str) -> Callable[[dict[str, Any]], str]:
    table = _STEP_OF_RETRY | steps

    def decide(error: dict[str, Any]) -> str:
        unknown = error.get("operation_state") == "unknown"
        not_found = error["code"] == "not_found" and (
            flaw == "any_retry" or error["retry"] == "after_input_correction"
        )
        if flaw == "not_found_first" and not_found:
            return "search_first"
        if unknown and flaw != "no_unknown":
            return "verify_state"
        if not_found and flaw != "no_not_found":
            return "search_first"
        if flaw == "by_code" and error["code"] in _STEP_OF_CODE:
            return _STEP_OF_CODE[error["code"]]
        return table[error["retry"]]

    return decide


DECIDE_MUTANTS = {
    "unknown 先 verify_state": _decide("no_unknown"),
    "unknown 优先于 not_found": _decide("not_found_first"),
    "not_found 先 search_first": _decide("no_not_found"),
    "search_first 只在默认建议时": _decide("any_retry"),
    "按 retry，不按 code": _decide("by_code"),
    "after_input_correction": _decide(after_input_correction="search_first"),
    "with_backoff": _decide(with_backoff="verify_state"),
    "after_authorization": _decide(after_authorization="fix_input"),
    "after_status_check": _decide(after_status_check="retry_with_backoff"),
    "never": _decide(never="stop_unknown"),
}

EXERCISES: list[Exercise] = [
    Exercise(
        name="03.status_error",
        rules=STATUS_ERROR_RULES,
        visible=STATUS_ERROR_CASES,
        hidden=lambda: status_error_hidden_cases(),
        reference=reference_status_error,
        mutants=STATUS_ERROR_MUTANTS,
    ),
    Exercise(
        name="03.decide",
        rules=DECIDE_RULES,
        visible=DECISION_CASES,
        hidden=lambda: decide_hidden_cases(),
        reference=next_step,
        mutants=DECIDE_MUTANTS,
    ),
]
