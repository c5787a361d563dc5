"""Chapter 01's learner cases for a hand-written validator, from the shared example table.

:func:`validator_cases` turns every row of
:data:`tutorial_lib.workspace.read_schema.READ_LINES_EXAMPLES` into a :class:`Case` with a
hint in Chinese, so a learner's validator is checked against the same rows as the
library's two validators. :data:`ORDER_EXAMPLES` adds the rows a learner's validator needs
beyond that table: one per pair of rules in the fixed error order (so a validator that
checks in another order fails at least one), and the largest values that are still valid.
:func:`validator_hidden_cases` generates seeded inputs whose expected verdicts come from the
library's :func:`~tutorial_lib.workspace.read_schema.validate_manually`.
"""

from __future__ import annotations

import random
from typing import Any

from tutorial_lib.core.arguments import ArgumentExample
from tutorial_lib.core.contracts import ContractError
from tutorial_lib.course.checks import MISSING, Case
from tutorial_lib.course.rules import Rule
from tutorial_lib.workspace.read_schema import (
    MAX_COUNT,
    MAX_PATH_CHARS,
    MAX_START,
    READ_LINES_EXAMPLES,
    validate_manually,
)

__all__ = [
    "IS_INSIDE_RULES",
    "ORDER_EXAMPLES",
    "VALIDATE_ARGS_FIELD_RULES",
    "VALIDATE_ARGS_ORDER_RULES",
    "VALIDATE_ARGS_RULES",
    "validator_cases",
    "validator_hidden_cases",
    "verdict_of",
]

_P = "notes.txt"
_ORDER = (
    "固定顺序：整体 → 缺失字段（path、start、count）→ 多余字段（按名字排序）"
    "→ 逐个字段查类型和范围。"
)

#: Rows for the learner's validator beyond the shared table, each with its hint: every
#: pair of rules in the fixed order, and boundaries that must still pass.
ORDER_EXAMPLES: tuple[tuple[ArgumentExample, str], ...] = (
    (
        ArgumentExample(
            "missing beats unknown", {"path": _P, "start": 1, "lenght": 5}, "missing_field", "count"
        ),
        "缺失字段先于多余字段：先把 path、start、count 是否都在查完，再看多出来的字段。",
    ),
    (
        ArgumentExample(
            "missing beats an earlier bad type", {"path": 7, "start": 1}, "missing_field", "count"
        ),
        "先查完所有缺失字段，再查任何字段的类型：不要按字段逐个“缺失→类型→范围”地查。",
    ),
    (
        ArgumentExample(
            "missing beats out of range", {"path": _P, "count": 0}, "missing_field", "start"
        ),
        "缺失字段先于范围错误：start 缺了，count 为 0 排在后面。",
    ),
    (
        ArgumentExample(
            "missing path reported before start", {"count": 2}, "missing_field", "path"
        ),
        "缺多个字段时按 path、start、count 的顺序报第一个：这里是 path。",
    ),
    (
        ArgumentExample(
            "unknown beats a wrong type",
            {"path": 7, "start": 1, "count": 2, "mode": "x"},
            "unknown_field",
            "mode",
        ),
        "多余字段先于类型错误：先拒绝拼错或多出的字段。",
    ),
    (
        ArgumentExample(
            "unknown beats out of range",
            {"path": _P, "start": 0, "count": 2, "mode": 1},
            "unknown_field",
            "mode",
        ),
        "多余字段先于范围错误。",
    ),
    (
        ArgumentExample(
            "unknown fields sorted by name",
            {"path": _P, "start": 1, "count": 2, "zeta": 1, "alpha": 2},
            "unknown_field",
            "alpha",
        ),
        "多个多余字段时按名字排序报第一个（sorted），而不是按它们在字典里出现的顺序。",
    ),
    (
        ArgumentExample(
            "path is checked before start",
            {"path": 7, "start": "1", "count": 2},
            "invalid_type",
            "path",
        ),
        "字段按 path、start、count 的顺序查：path 的错误先报。",
    ),
    (
        ArgumentExample(
            "a bad path before a bad start",
            {"path": " ", "start": 0, "count": 2},
            "invalid_path",
            "path",
        ),
        "path 的内容错误（invalid_path）也排在 start 之前。",
    ),
    (
        ArgumentExample(
            "start is checked before count",
            {"path": _P, "start": 0, "count": 0},
            "invalid_range",
            "start",
        ),
        "start 在 count 之前查。",
    ),
    (
        ArgumentExample(
            "start's range before count's type",
            {"path": _P, "start": 0, "count": "2"},
            "invalid_range",
            "start",
        ),
        "按字段逐个查“类型再范围”，不是先查所有字段的类型、再查所有范围：start 的范围错误先报。",
    ),
    (
        ArgumentExample(
            "start's type before count's range",
            {"path": _P, "start": "1", "count": 99},
            "invalid_type",
            "start",
        ),
        "start 的类型错误排在 count 的范围错误之前。",
    ),
    (
        ArgumentExample("the longest path", {"path": "a" * MAX_PATH_CHARS, "start": 1, "count": 2}),
        f"正好 {MAX_PATH_CHARS} 个字符的路径仍然合法：上限是“最长 {MAX_PATH_CHARS}”，不是“少于”。",
    ),
    (
        ArgumentExample("the largest start", {"path": _P, "start": MAX_START, "count": 1}),
        "start 等于 2**53 - 1 仍然合法：上限包含它自己。",
    ),
    (
        ArgumentExample("one line", {"path": _P, "start": 1, "count": 1}),
        "count 为 1 合法：范围是 1 到 20，两端都包含。",
    ),
    (
        ArgumentExample(
            "a path with spaces around it", {"path": " notes.txt ", "start": 1, "count": 2}
        ),
        "契约只要求去掉空白后不为空：带空格的路径在这一层是合法的。",
    ),
    (
        ArgumentExample("null instead of an object", None, "invalid_type", None),
        "整体不是 dict（这里是 None）：code 为 invalid_type，不写 field。",
    ),
    (
        ArgumentExample(
            "a field name in another case",
            {"path": _P, "start": 1, "count": 2, "Path": "x"},
            "unknown_field",
            "Path",
        ),
        "恰好是 path、start、count 这三个名字：大小写不同的名字是另一个字段。",
    ),
    (
        ArgumentExample(
            "a whole float for count",
            {"path": _P, "start": 1, "count": 2.0},
            "invalid_type",
            "count",
        ),
        "类型不对一律是 invalid_type：start 的类型规则，count 也要守。",
    ),
)


_NOT_OBJECTS = "列表、字符串、数字、null"

#: The rules of exercise 1's contract on each field (the task's bullets), each with the
#: visible case that catches an answer breaking only that rule.
VALIDATE_ARGS_FIELD_RULES: tuple[Rule, ...] = (
    Rule("整体是对象", "args 必须是对象（dict）。", "not an object", _NOT_OBJECTS),
    Rule("整体不写 field", "整体不是对象时不写 field。", "null instead of an object", _NOT_OBJECTS),
    Rule("缺字段", "缺字段是 missing_field。", "count missing", "每个字段都可能缺"),
    Rule("多字段", "多字段是 unknown_field。", "a misspelt field", "多出的字段名"),
    Rule(
        "恰好三个名字",
        "恰好有 path、start、count 三个字段。",
        "a field name in another case",
        "多出的字段名，含 Path",
    ),
    Rule("path 是字符串", "path：字符串。", "a path that is a number", "数字、null、列表"),
    Rule("path 不为空", "path 去掉空白后不为空。", "a whitespace path", "空串、只有空白"),
    Rule(
        "只看去掉空白后",
        "path 去掉空白后不为空即可。",
        "a path with spaces around it",
        "首尾带空白",
    ),
    Rule("path 有上限", "path 最长 4096 个字符。", "a path longer than the cap", "4097 个字符"),
    Rule("4096 本身可以", "path 最长 4096 个字符。", "the longest path", "正好 4096 个字符"),
    Rule(
        "start 的范围",
        "start：1 到 2**53 - 1。",
        "a line beyond the interoperable integer range",
        "边界两侧",
    ),
    Rule("count 的范围", "count：1 到 20。", "count above the cap", "边界两侧"),
    Rule("bool 不是整数", "类型不对一律是 invalid_type。", "true as an integer", "True、False"),
    Rule(
        "字符串不是整数",
        "类型不对一律是 invalid_type。",
        "an integer written as a string",
        '"1"、"2"',
    ),
    Rule("浮点数不是整数", "类型不对一律是 invalid_type。", "a whole float", "1.0、1.5、2.0"),
    Rule(
        "每个字段都一样", "类型不对一律是 invalid_type。", "a whole float for count", "两个整数字段"
    ),
)

#: The fixed order of exercise 1 (its last bullet), one rule per step that can be swapped.
VALIDATE_ARGS_ORDER_RULES: tuple[Rule, ...] = (
    Rule("缺失先于多余", "整体 → 缺失字段 → 多余字段。", "missing beats unknown", "字段的插入顺序"),
    Rule(
        "先查完缺失",
        "缺失字段查完，才查类型和范围。",
        "missing beats an earlier bad type",
        "缺一个字段，同时有坏值",
    ),
    Rule(
        "缺失按顺序",
        "缺失字段按 path、start、count。",
        "missing path reported before start",
        "同时缺几个字段",
    ),
    Rule(
        "多余先于字段",
        "多余字段 → 逐个查类型和范围。",
        "unknown beats a wrong type",
        "多余字段加坏值",
    ),
    Rule(
        "多余按名字排序",
        "多余字段按名字排序。",
        "unknown fields sorted by name",
        "打乱的插入顺序",
    ),
    Rule(
        "字段按顺序",
        "按 path、start、count 逐个查。",
        "path is checked before start",
        "几个字段同时有错",
    ),
    Rule(
        "逐个字段查",
        "逐个字段查类型和范围。",
        "start's range before count's type",
        "一个字段范围错、后一个类型错",
    ),
)

VALIDATE_ARGS_RULES: tuple[Rule, ...] = VALIDATE_ARGS_FIELD_RULES + VALIDATE_ARGS_ORDER_RULES

#: Exercise 2's rules; its cases are :func:`~tutorial_lib.course.demos.demo_workspace.inside_cases`.
IS_INSIDE_RULES: tuple[Rule, ...] = (
    Rule(
        "解析 ..",
        "root / path 解析之后（处理 ..）位于 root 之内。",
        "'..' climbs out",
        "随机拼出的路径段，含 .. 和 .",
    ),
    Rule(
        "跟随符号链接",
        "解析时跟随符号链接。",
        "a symlink leading out",
        "路径里任意位置的 link_in、link_out、src_link",
    ),
    Rule(
        "比较路径而不是字符串",
        "位于 root 之内：前缀相同的兄弟目录不算。",
        "a prefix sibling",
        "经 .. 走到 ws_evil",
    ),
    Rule(
        "root 也要解析",
        "root 本身也可能是经过符号链接的路径。",
        "a root reached through a symlink",
        "root 和经过链接的 ws_alias 轮流出现",
    ),
    Rule(
        "文件不必存在",
        "“在不在里面”和“存不存在”是两回事。",
        "a missing file",
        "不存在的 drafts 等路径段",
    ),
    Rule("绝对路径", "root / path 解析之后位于 root 之内。", "an absolute path", "以 / 开头的路径"),
)


# What a learner whose validator gets a row wrong should think about (learner-facing, Chinese).
_LEARNER_HINTS: dict[str, str] = {
    "not an object": "先确认 args 是 dict；整体不是对象时不写 field。",
    "count missing": "三个字段都必填：缺哪个就报哪个，code 为 missing_field。",
    "everything missing": "缺多个字段时，按 path、start、count 的顺序报第一个。",
    "a misspelt field": "additionalProperties: false：多出的字段（多半是拼错的）报 unknown_field。",
    "line 0 (0-based thinking)": "行号从 1 开始：start 为 0 是 invalid_range。",
    "a negative line": "start 的下限是 1：负数也是 invalid_range。",
    "a line beyond the interoperable integer range": (
        "start 最大是 2**53 - 1：JSON 本身不限大小，但用双精度数读数字的解析器（如 JavaScript）"
        "只能精确表示到这里。"
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
    "missing beats wrong type": "缺失字段先于类型错误。" + _ORDER,
}


def verdict_of(result: Any) -> dict[str, str] | None:
    """The comparable part of a validator's answer: ``None`` or ``{"code", "field"?}``.

    Accepts a :class:`ContractError`, an error dict (extra keys such as ``message`` are
    ignored) or ``None``, so library validators and learners' validators compare alike.
    A dict without ``code`` shows it as missing; a dict that has a ``field`` key keeps it,
    even ``None``: the contract says a whole-object error has no ``field`` at all.
    """
    if result is None:
        return None
    if isinstance(result, ContractError):
        fields = result.fields
        verdict = {"code": result.code}
        if fields.get("field") is not None:
            verdict["field"] = fields["field"]
        return verdict
    verdict = {"code": result.get("code", MISSING)}
    if "field" in result:
        verdict["field"] = result["field"]
    return verdict


def validator_cases() -> tuple[Case, ...]:
    """The shared table as learner check cases: ``validate(args)`` -> None or an error dict."""
    cases = []
    for example in READ_LINES_EXAMPLES:
        expected = _expected(example)
        hint = _LEARNER_HINTS.get(example.name, "这是合法的调用：返回 None。")
        cases.append(Case(example.name, (example.args,), expected, hint))
    for example, hint in ORDER_EXAMPLES:
        cases.append(Case(example.name, (example.args,), _expected(example), hint))
    return tuple(cases)


def _expected(example: ArgumentExample) -> dict[str, str] | None:
    if example.code is None:
        return None
    if example.field is None:
        return {"code": example.code}
    return {"code": example.code, "field": example.field}


# Values for one field of a generated call: valid ones, wrong types, out of range.
_VALUES: dict[str, tuple[Any, ...]] = {
    "path": (
        _P,
        "src/a.py",
        " a ",
        "",
        "  ",
        "a" * MAX_PATH_CHARS,
        "a" * (MAX_PATH_CHARS + 1),
        7,
        None,
        ["a"],
    ),
    "start": (1, 2, 40, MAX_START, MAX_START + 1, 0, -1, "1", True, False, 1.0, 1.5, None),
    "count": (1, 5, MAX_COUNT, MAX_COUNT + 1, 0, -2, "2", True, 2.0, None),
}
_EXTRA_NAMES = ("lenght", "alpha", "mode", "zeta", "Path", "offset")


def validator_hidden_cases(seed: int = 0, count: int = 300) -> tuple[Case, ...]:
    """``count`` seeded argument objects; expected: the library's ``validate_manually``."""
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        args: Any
        if rng.random() < 0.05:
            args = rng.choice((["notes.txt", 1, 2], "notes.txt", 3, None))
        else:
            args = {}
            names = [*_VALUES, *rng.sample(_EXTRA_NAMES, rng.choice((0, 0, 0, 1, 2)))]
            rng.shuffle(names)  # insertion order must not matter
            for name in names:
                if name in _VALUES and rng.random() < 0.12:
                    continue  # this field is missing
                pool = _VALUES.get(name, (1, "x"))
                good = pool[:4] if name in _VALUES else pool
                args[name] = rng.choice(good) if rng.random() < 0.6 else rng.choice(pool)
        cases.append(
            Case(
                f"生成的参数 {index + 1}",
                (args,),
                verdict_of(validate_manually(args)),
                "和库里的校验器不一致：" + _ORDER,
            )
        )
    return tuple(cases)
