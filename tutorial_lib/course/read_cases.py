"""Chapter 01's learner cases for a hand-written validator, from the shared example table.

:func:`validator_cases` turns every row of
:data:`tutorial_lib.workspace.read_schema.READ_LINES_EXAMPLES` into a :class:`Case` with a
hint in Chinese, so a learner's validator is checked against the same rows as the
library's two validators.
"""

from __future__ import annotations

from typing import Any

from tutorial_lib.core.contracts import ContractError
from tutorial_lib.course.checks import Case
from tutorial_lib.workspace.read_schema import READ_LINES_EXAMPLES

__all__ = ["validator_cases", "verdict_of"]


# What a learner whose validator gets a row wrong should think about (learner-facing, Chinese).
_LEARNER_HINTS: dict[str, str] = {
    "not an object": "先确认 args 是 dict；整体不是对象时不写 field。",
    "count missing": "三个字段都必填：缺哪个就报哪个，code 为 missing_field。",
    "everything missing": "缺多个字段时，按 path、start、count 的顺序报第一个。",
    "a misspelt field": "additionalProperties: false：多出的字段（多半是拼错的）报 unknown_field。",
    "line 0 (0-based thinking)": "行号从 1 开始：start 为 0 是 invalid_range。",
    "a negative line": "start 的下限是 1：负数也是 invalid_range。",
    "a line beyond JSON's exact integers": (
        "start 最大是 2**53 - 1：更大的整数在很多 JSON 实现里不精确。"
    ),
    "count 0": "count 的范围是 1 到 20。",
    "count above the cap": "count 最多 20：maximum 防止一次读入太多。",
    "an integer written as a string": "'1' 是字符串：不要悄悄转换成整数，报 invalid_type。",
    "true as an integer": (
        "bool 是 int 的子类：isinstance(True, int) 为 True，要用 type(x) is int。"
    ),
    "false as an integer": "False 同样是 int 的子类，也要拒绝。",
    "a float": "浮点数不是整数：type(1.5) is int 为 False。",
    "a whole float": "2.0 == 2，但契约要的是 JSON 整数：看类型，不看值。",
    "null for a line": "null（None）也不是整数。",
    "a path that is a number": "path 必须是字符串：先查类型，再查内容。",
    "an empty path": "空字符串不是路径：code 为 invalid_path。",
    "a whitespace path": "只有空白的路径也无效：用 path.strip() 判断。",
    "a path longer than the cap": "路径最长 4096 个字符。",
    "missing beats wrong type": (
        "固定顺序：整体、缺失字段、多余字段，再按 path、start、count 查类型和范围。"
    ),
}


def verdict_of(result: Any) -> dict[str, str] | None:
    """The comparable part of a validator's answer: ``None`` or ``{"code", "field"?}``.

    Accepts a :class:`ContractError`, an error dict (extra keys such as ``message`` are
    ignored) or ``None``, so library validators and learners' validators compare alike.
    """
    if result is None:
        return None
    if isinstance(result, ContractError):
        result = {"code": result.code, **result.fields}
    verdict = {"code": result["code"]}
    if result.get("field") is not None:
        verdict["field"] = result["field"]
    return verdict


def validator_cases() -> tuple[Case, ...]:
    """The shared table as learner check cases: ``validate(args)`` -> None or an error dict."""
    cases = []
    for example in READ_LINES_EXAMPLES:
        expected = verdict_of(
            None if example.code is None else {"code": example.code, "field": example.field}
        )
        hint = _LEARNER_HINTS.get(example.name, "这是合法的调用：返回 None。")
        cases.append(Case(example.name, (example.args,), expected, hint))
    return tuple(cases)
