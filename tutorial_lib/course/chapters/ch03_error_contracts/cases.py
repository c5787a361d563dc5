"""Chapter 03's exercises: a rich error for a bad task status, and the decision function.

- ``status_error(task_id, current, received)`` returns the error object of
  ``task_set_status`` for a status outside :data:`~tutorial_lib.examples.tasks.TASK_STATUSES`.
  :data:`STATUS_ERROR_CASES` checks each stated field, that the message names the task's
  *current* status (with two calls that differ only in it, so a message that lists all
  statuses, or one that always says ``backlog``, fails), and which kind of suggestion comes
  back: conditional (``received`` means "started") or the list of allowed values. A case
  compares the learner's envelope key by key (:func:`status_view`), so a failing case names
  the key that is wrong and shows what the learner returned there, even for ``message`` and
  ``suggestion``, whose wording is free (:class:`Judged`).
- ``decide(error)`` maps an error to the next step. :data:`DECISION_CASES` holds the
  decision table of :mod:`tutorial_lib.core.contracts` and one case per pair of rules
  (an unknown outcome wins over ``not_found`` and over every ``retry``; ``retry`` decides,
  not the code). Its reference is :func:`tutorial_lib.core.contracts.next_step`.

:data:`STATUS_ERROR_RULES` and :data:`DECIDE_RULES` list every rule the task text states,
each with the visible case that fails an answer breaking only it (tests/rules_03.py holds
those answers). Both have seeded hidden cases (``*_hidden_cases``) whose expected values
come from the references.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tutorial_lib.core.contracts import (
    CATALOGUE,
    DECISION_TABLE,
    OPERATION_STATES,
    RETRY_VALUES,
    STEPS,
    next_step,
)
from tutorial_lib.course.checks import MISSING, Case, describe
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.examples.tasks import STARTED_WORDS, TASK_STATUSES
from tutorial_lib.language import Text, tr

__all__ = [
    "DECIDE_RULES",
    "DECISION_CASES",
    "STATUS_ERROR_RULES",
    "STATUS_ERROR_CASES",
    "Judged",
    "decide_hidden_cases",
    "reference_status_error",
    "status_error_hidden_cases",
    "status_view",
]

#: The keys of the error object, in the order the task text states them.
_KEYS = (
    "code",
    "message",
    "field",
    "received",
    "allowed_values",
    "operation_state",
    "retry",
    "suggestion",
)
_CONDITIONAL = "if the task has really started, send active"


def reference_status_error(task_id: str, current: str, received: Any) -> dict[str, Any]:
    """The reference ``status_error``: the exercise's rules, exactly as stated."""
    if str(received).lower() in STARTED_WORDS:
        suggestion = _CONDITIONAL
    else:
        suggestion = "send one of: " + ", ".join(TASK_STATUSES)
    return {
        "code": "invalid_status",
        "message": f"status {received!r} is not allowed; task {task_id} is still {current!r}",
        "field": "status",
        "received": received,
        "allowed_values": list(TASK_STATUSES),
        "operation_state": "not_applied",
        "retry": "after_input_correction",
        "suggestion": suggestion,
    }


@dataclass(frozen=True, eq=False)
class Judged:
    """A free-text field as a case compares it: whether it follows its rule (``ok``).

    Two are equal when both follow the rule or both break it, whatever their words; the
    report prints ``shown``: the rule for the expected value (``<...>``), the learner's own
    text for what came back. So a failing case says ``在 ['message'] 处：期望 <...>，实际
    '...'``: the key, the rule and the words the learner returned.
    """

    ok: bool
    shown: str | Text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Judged) and other.ok == self.ok

    def __hash__(self) -> int:
        return hash(self.ok)

    def __repr__(self) -> str:
        return str(self.shown)


def _names_current(message: Any, current: str) -> bool:
    return isinstance(message, str) and current in message


def _message_rule(current: str) -> Judged:
    return Judged(
        True,
        Text(
            zh=f"<一句写出当前状态 {current!r} 的话>",
            en=f"<a sentence that names the current status {current!r}>",
        ),
    )


_SUGGESTION_RULES = {
    "conditional": Text(
        zh="<有条件的建议：含 if 和 active>", en="<a conditional suggestion: with if and active>"
    ),
    "lists_allowed": Text(
        zh="<列出全部允许值：" + ", ".join(TASK_STATUSES) + ">",
        en="<lists every allowed value: " + ", ".join(TASK_STATUSES) + ">",
    ),
}


def _suggestion_kind(suggestion: Any) -> str:
    if not isinstance(suggestion, str):
        return "not a string"
    if "active" in suggestion and "if" in suggestion.lower().split():
        return "conditional"
    if all(status in suggestion for status in TASK_STATUSES):
        return "lists_allowed"
    return "other"


def _as_error(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(
            tr(
                f"status_error 要返回一个错误对象（dict），实际是 {type(value).__name__}",
                f"status_error must return an error object (a dict), not {type(value).__name__}",
            )
        )
    return value


def _judge(error: Mapping[str, Any], key: str, ok: Callable[[Any], bool]) -> Any:
    if key not in error:
        return MISSING
    return Judged(ok(error[key]), describe(error[key]))


def _judge_message(error: Mapping[str, Any], current: str) -> Any:
    return _judge(error, "message", lambda message: _names_current(message, current))


def status_view(current: str, kind: str) -> Callable[[Any], dict[str, Any]]:
    """A ``key``: the learner's error object, key by key in the task text's order.

    Every fixed key keeps the learner's value (:data:`MISSING` when absent); ``message``
    and ``suggestion`` become :class:`Judged`: does the message name ``current``, is the
    suggestion of ``kind`` (``"conditional"`` or ``"lists_allowed"``). Keys the task text
    does not ask for are left out.
    """

    def view(value: Any) -> dict[str, Any]:
        error = _as_error(value)
        shown = {key: error.get(key, MISSING) for key in _KEYS}
        shown["message"] = _judge_message(error, current)
        shown["suggestion"] = _judge(error, "suggestion", lambda s: _suggestion_kind(s) == kind)
        return shown

    return view


def _expected(current: str, received: Any, kind: str) -> dict[str, Any]:
    return {
        "code": "invalid_status",
        "message": _message_rule(current),
        "field": "status",
        "received": received,
        "allowed_values": list(TASK_STATUSES),
        "operation_state": "not_applied",
        "retry": "after_input_correction",
        "suggestion": Judged(True, _SUGGESTION_RULES[kind]),
    }


def _status_case(name: str | Text, current: str, received: Any, kind: str, hint: Text) -> Case:
    return Case(
        name,
        ("T-7", current, received),
        _expected(current, received, kind),
        hint,
        key=status_view(current, kind),
    )


#: The two statuses the task has in the two-call cases.
_TWO_CURRENTS = ("on_hold", "shipped")


def _message_key(current: str) -> Text:
    """The key of one call's message in a two-call case (equal texts are equal keys)."""
    return Text(zh=f"message（current={current!r}）", en=f"message (current={current!r})")


_MESSAGES_DIFFER = Text(zh="两次的 message 不同", en="the two messages differ")


def _two_currents(status_error: Callable[..., Any], task_id: str, received: Any) -> dict[Text, Any]:
    """Call twice, the task on hold and then shipped: each message must name its own status."""
    found: dict[Text, Any] = {}
    messages = []
    for current in _TWO_CURRENTS:
        error = _as_error(status_error(task_id, current, received))
        messages.append(error.get("message", MISSING))
        found[_message_key(current)] = _judge_message(error, current)
    found[_MESSAGES_DIFFER] = messages[0] != messages[1]
    return found


_TWO_CURRENTS_EXPECTED = {
    **{_message_key(c): _message_rule(c) for c in _TWO_CURRENTS},
    _MESSAGES_DIFFER: True,
}


def _two_currents_call(task_id: str, received: Any) -> Text:
    first, second = (f"{{function}}({task_id!r}, {c!r}, {received!r})" for c in _TWO_CURRENTS)
    return Text(zh=f"{first} 和 {second}", en=f"{first} and {second}")


STATUS_ERROR_CASES: tuple[Case, ...] = (
    # first: the case that checks every fixed key, so a wrong fixed key's first cross says so
    _status_case(
        Text(zh="看不出意图的值", en="a value whose intent cannot be guessed"),
        "backlog",
        "banana",
        "lists_allowed",
        Text(
            zh=(
                "本用例考每个固定的键（code、field、received、allowed_values、operation_state、"
                "retry，照说明原样写）和 suggestion：猜不出意图时不要替模型做决定，"
                "列出全部允许值。"
            ),
            en="This case tests every fixed key (code, field, received, allowed_values,"
            " operation_state, retry, written exactly as the instructions say) and suggestion:"
            " when the intent cannot be guessed, do not decide for the model; list every allowed"
            " value.",
        ),
    ),
    _status_case(
        Text(zh="“started” 像是已经开始", en='"started" looks already started'),
        "backlog",
        "started",
        "conditional",
        Text(
            zh=(
                "本用例考 suggestion：started 在 STARTED_WORDS 里，建议要带条件（if ...），"
                "因为工具不知道任务是否真的开始了。"
            ),
            en="This case tests suggestion: started is in STARTED_WORDS, so the suggestion must"
            " be conditional (if ...), because the tool does not know whether the task has"
            " really started.",
        ),
    ),
    _status_case(
        Text(zh="大写的 “Started”", en='capitalized "Started"'),
        "backlog",
        "Started",
        "conditional",
        Text(
            zh=(
                "本用例考 suggestion 和 received：先 lower() 再查 STARTED_WORDS；"
                "received 仍然原样返回，不要改写模型发来的值。"
            ),
            en="This case tests suggestion and received: lower() first, then look it up in"
            " STARTED_WORDS; received is still returned as it came: do not rewrite the value the"
            " model sent.",
        ),
    ),
    _status_case(
        Text(zh="空字符串", en="the empty string"),
        "backlog",
        "",
        "lists_allowed",
        Text(
            zh="本用例考 suggestion：空字符串也不是允许值，列出全部允许值。",
            en="This case tests suggestion: the empty string is not an allowed value either; list"
            " every allowed value.",
        ),
    ),
    _status_case(
        Text(
            zh="包含 start 但不是 STARTED_WORDS 里的词",
            en="contains start but is not a word of STARTED_WORDS",
        ),
        "on_hold",
        "restart",
        "lists_allowed",
        Text(
            zh=(
                "本用例考 suggestion：只有整个词（小写后）在 STARTED_WORDS 里才给有条件的建议，"
                "不是“包含某个子串”。"
            ),
            en="This case tests suggestion: give the conditional suggestion only when the whole"
            ' word (lower-cased) is in STARTED_WORDS, not when it "contains a substring".',
        ),
    ),
    _status_case(
        Text(zh="收到的不是字符串", en="the value received is not a string"),
        "shipped",
        3,
        "lists_allowed",
        Text(
            zh=(
                "本用例考 received 和 suggestion：received 可能不是字符串，用 str(received) 再"
                " lower()，返回时仍是原来的 3。"
            ),
            en="This case tests received and suggestion: received may not be a string, so use"
            " str(received), then lower(); it is still returned as the original 3.",
        ),
    ),
    Case(
        Text(zh="消息写出任务当前的状态", en="the message names the task's current status"),
        ("T-9", "banana"),
        _TWO_CURRENTS_EXPECTED,
        Text(
            zh=(
                "本用例考 message：要写出参数 current 的值（任务真实的状态），"
                "而不是固定的文字或允许值列表。"
            ),
            en="This case tests message: it must name the value of the argument current (the"
            " task's real status), not a fixed text or the list of allowed values.",
        ),
        via=_two_currents,
        shown_call=_two_currents_call("T-9", "banana"),
    ),
)


def status_error_hidden_cases(seed: int = 0, count: int = 120) -> tuple[Case, ...]:
    """``count`` seeded calls; expected: what the reference's error says, key by key
    (:func:`status_view`: the fixed keys, a message naming ``current``, the reference's
    kind of suggestion)."""
    rng = random.Random(seed)
    words = sorted(STARTED_WORDS)
    others: tuple[Any, ...] = (
        "finished",
        "later",
        "restart",
        "in-progress",
        "Shipped!",
        "",
        0,
        None,
        "SHIPPED",
    )
    cases = []
    for index in range(count):
        if rng.random() < 0.5:
            received: Any = "".join(
                c.upper() if rng.random() < 0.3 else c for c in rng.choice(words)
            )
        else:
            received = rng.choice(others)
        current = rng.choice(TASK_STATUSES)
        task_id = f"T-{rng.randint(1, 999)}"
        reference = reference_status_error(task_id, current, received)
        kind = _suggestion_kind(reference["suggestion"])
        expected = {key: reference[key] for key in _KEYS} | {
            "message": _message_rule(current),
            "suggestion": Judged(True, _SUGGESTION_RULES[kind]),
        }
        cases.append(
            Case(
                Text(zh=f"生成的输入 {index + 1}", en=f"generated input {index + 1}"),
                (task_id, current, received),
                expected,
                Text(
                    zh="和参考实现不一致：差异里的键就是写错的那个，对照练习说明里这个键的规则。",
                    en="Differs from the reference implementation: the key in the difference is"
                    " the one that is wrong; compare it with that key's rule in the exercise's"
                    " instructions.",
                ),
                key=status_view(current, kind),
            )
        )
        if index % 10 == 0:  # now and then: does the message follow ``current``?
            cases.append(
                Case(
                    Text(
                        zh=f"生成的输入 {index + 1}（两个当前状态）",
                        en=f"generated input {index + 1} (two current statuses)",
                    ),
                    (task_id, received),
                    _TWO_CURRENTS_EXPECTED,
                    Text(
                        zh="message 要写出参数 current 的值。",
                        en="message must name the value of the argument current.",
                    ),
                    via=_two_currents,
                    shown_call=_two_currents_call(task_id, received),
                )
            )
    return tuple(cases)


def _error(code: str, retry: str, state: str) -> dict[str, str]:
    return {"code": code, "retry": retry, "operation_state": state}


def _decision_case(name: str | Text, error: Mapping[str, str], hint: Text) -> Case:
    return Case(name, (dict(error),), next_step(error), hint)


_UNKNOWN_WINS = Text(
    zh="operation_state 为 unknown 时，不论 code 和 retry，都先 verify_state："
    "重试可能造成重复写入。",
    en="When operation_state is unknown, verify_state comes first, whatever code and retry say: a"
    " retry could write twice.",
)

DECISION_CASES: tuple[Case, ...] = tuple(
    Case(
        row.code,
        (_error(row.code, row.retry, row.operation_state),),
        row.step,
        Text(
            zh=f"{row.code}（retry={row.retry}）：{STEPS[row.step]}",
            en=f"{row.code} (retry={row.retry}): {STEPS[row.step]}",
        ),
    )
    for row in DECISION_TABLE
) + (
    _decision_case(
        "a timeout whose outcome is unknown",
        _error("temporary_unavailable", "with_backoff", "unknown"),
        _UNKNOWN_WINS,
    ),
    _decision_case(
        "unknown beats not_found",
        _error("not_found", "after_input_correction", "unknown"),
        Text(
            zh="两条规则同时成立时 unknown 优先：先判断 operation_state，再看 code。",
            en="When both rules apply, unknown wins: look at operation_state first, then at code.",
        ),
    ),
    _decision_case(
        "unknown beats a fixable input",
        _error("invalid_type", "after_input_correction", "unknown"),
        _UNKNOWN_WINS,
    ),
    _decision_case(
        "unknown beats never", _error("file_too_large", "never", "unknown"), _UNKNOWN_WINS
    ),
    _decision_case(
        "unknown beats authorization",
        _error("permission_denied", "after_authorization", "unknown"),
        _UNKNOWN_WINS,
    ),
    _decision_case(
        "not_found with another retry advice",
        _error("not_found", "with_backoff", "not_applied"),
        Text(
            zh=(
                "search_first 只在 not_found 带着它的默认建议 after_input_correction 时成立；"
                "别的 retry（这里服务暂时不可用）按 retry 决定。"
            ),
            en="search_first holds only when not_found comes with its default advice"
            " after_input_correction; any other retry (here the service is temporarily"
            " unavailable) decides by retry.",
        ),
    ),
    _decision_case(
        "retry decides, not the code (backoff)",
        _error("invalid_type", "with_backoff", "not_applied"),
        Text(
            zh="其余情况按 retry 决定，而不是按 code 查表：这里 retry 是 with_backoff。",
            en="Everything else is decided by retry, not by looking up code: here retry is"
            " with_backoff.",
        ),
    ),
    _decision_case(
        "retry decides, not the code (never)",
        _error("temporary_unavailable", "never", "not_applied"),
        Text(
            zh="retry 为 never 时是 stop，即使 code 通常可以重试。",
            en="retry never means stop, even when code can usually be retried.",
        ),
    ),
    _decision_case(
        "retry decides, not the code (status check)",
        _error("invalid_value", "after_status_check", "applied"),
        Text(
            zh="after_status_check → verify_state；operation_state 为 applied 时也按 retry 决定。",
            en="after_status_check → verify_state; with operation_state applied, too, retry"
            " decides.",
        ),
    ),
)


def decide_hidden_cases(seed: int = 0, count: int = 150) -> tuple[Case, ...]:
    """``count`` seeded errors (any code, retry and state); expected: ``next_step``."""
    rng = random.Random(seed)
    codes = sorted(CATALOGUE)
    cases = []
    for index in range(count):
        code = "not_found" if rng.random() < 0.2 else rng.choice(codes)  # its own rule
        error = _error(code, rng.choice(RETRY_VALUES), rng.choice(OPERATION_STATES))
        cases.append(
            _decision_case(
                Text(zh=f"生成的错误 {index + 1}", en=f"generated error {index + 1}"),
                error,
                Text(
                    zh=(
                        "和 next_step 不一致：先看 operation_state，再看 not_found（默认建议），"
                        "最后按 retry。"
                    ),
                    en="Differs from next_step: look at operation_state first, then at not_found"
                    " (with its default advice), and last at retry.",
                ),
            )
        )
    return tuple(cases)


STATUS_ERROR_RULES: tuple[Rule, ...] = load_rules("03", "STATUS_ERROR_RULES", STATUS_ERROR_CASES)


DECIDE_RULES: tuple[Rule, ...] = load_rules("03", "DECIDE_RULES", DECISION_CASES)
