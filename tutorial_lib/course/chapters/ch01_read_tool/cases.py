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
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.language import Text
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
_ORDER = Text(
    zh=(
        "固定顺序：整体 → 缺失字段（path、start、count）→ 多余字段（按名字排序）"
        "→ 逐个字段查类型和范围。"
    ),
    en="The fixed order: the whole object → missing fields (path, start, count) → unknown fields"
    " (sorted by name) → each field's type and range, field by field.",
)

#: Rows for the learner's validator beyond the shared table, each with its hint: every
#: pair of rules in the fixed order, and boundaries that must still pass.
ORDER_EXAMPLES: tuple[tuple[ArgumentExample, Text], ...] = (
    (
        ArgumentExample(
            "missing beats unknown", {"path": _P, "start": 1, "lenght": 5}, "missing_field", "count"
        ),
        Text(
            zh="缺失字段先于多余字段：先把 path、start、count 是否都在查完，再看多出来的字段。",
            en="Missing fields come before unknown fields: first check that path, start and count"
            " are all there, then look at the extra fields.",
        ),
    ),
    (
        ArgumentExample(
            "missing beats an earlier bad type", {"path": 7, "start": 1}, "missing_field", "count"
        ),
        Text(
            zh="先查完所有缺失字段，再查任何字段的类型：不要按字段逐个“缺失→类型→范围”地查。",
            en="Check every missing field before any field's type: do not check \"missing → type"
            ' → range" one field at a time.',
        ),
    ),
    (
        ArgumentExample(
            "missing beats out of range", {"path": _P, "count": 0}, "missing_field", "start"
        ),
        Text(
            zh="缺失字段先于范围错误：start 缺了，count 为 0 排在后面。",
            en="Missing fields come before range errors: start is missing; count being 0 comes"
            " later.",
        ),
    ),
    (
        ArgumentExample(
            "missing path reported before start", {"count": 2}, "missing_field", "path"
        ),
        Text(
            zh="缺多个字段时按 path、start、count 的顺序报第一个：这里是 path。",
            en="When several fields are missing, report the first in the order path, start,"
            " count: here, path.",
        ),
    ),
    (
        ArgumentExample(
            "unknown beats a wrong type",
            {"path": 7, "start": 1, "count": 2, "mode": "x"},
            "unknown_field",
            "mode",
        ),
        Text(
            zh="多余字段先于类型错误：先拒绝拼错或多出的字段。",
            en="Unknown fields come before type errors: refuse misspelled or extra fields first.",
        ),
    ),
    (
        ArgumentExample(
            "unknown beats out of range",
            {"path": _P, "start": 0, "count": 2, "mode": 1},
            "unknown_field",
            "mode",
        ),
        Text(zh="多余字段先于范围错误。", en="Unknown fields come before range errors."),
    ),
    (
        ArgumentExample(
            "unknown fields sorted by name",
            {"path": _P, "start": 1, "count": 2, "zeta": 1, "alpha": 2},
            "unknown_field",
            "alpha",
        ),
        Text(
            zh="多个多余字段时按名字排序报第一个（sorted），而不是按它们在字典里出现的顺序。",
            en="With several unknown fields, report the first by name (sorted), not the first in"
            " the order they appear in the dict.",
        ),
    ),
    (
        ArgumentExample(
            "path is checked before start",
            {"path": 7, "start": "1", "count": 2},
            "invalid_type",
            "path",
        ),
        Text(
            zh="字段按 path、start、count 的顺序查：path 的错误先报。",
            en="Fields are checked in the order path, start, count: path's error is reported"
            " first.",
        ),
    ),
    (
        ArgumentExample(
            "a bad path before a bad start",
            {"path": " ", "start": 0, "count": 2},
            "invalid_path",
            "path",
        ),
        Text(
            zh="path 的内容错误（invalid_path）也排在 start 之前。",
            en="An error in path's content (invalid_path) also comes before start.",
        ),
    ),
    (
        ArgumentExample(
            "start is checked before count",
            {"path": _P, "start": 0, "count": 0},
            "invalid_range",
            "start",
        ),
        Text(zh="start 在 count 之前查。", en="start is checked before count."),
    ),
    (
        ArgumentExample(
            "start's range before count's type",
            {"path": _P, "start": 0, "count": "2"},
            "invalid_range",
            "start",
        ),
        Text(
            zh="按字段逐个查“类型再范围”，不是先查所有字段的类型、再查所有范围：start"
            " 的范围错误先报。",
            en='Check "type, then range" field by field, not every field\'s type first and then'
            " every range: start's range error is reported first.",
        ),
    ),
    (
        ArgumentExample(
            "start's type before count's range",
            {"path": _P, "start": "1", "count": 99},
            "invalid_type",
            "start",
        ),
        Text(
            zh="start 的类型错误排在 count 的范围错误之前。",
            en="start's type error comes before count's range error.",
        ),
    ),
    (
        ArgumentExample("the longest path", {"path": "a" * MAX_PATH_CHARS, "start": 1, "count": 2}),
        Text(
            zh=f"正好 {MAX_PATH_CHARS} 个字符的路径仍然合法：上限是“最长 {MAX_PATH_CHARS}”，"
            "不是“少于”。",
            en=f'A path of exactly {MAX_PATH_CHARS} characters is still valid: the limit is "at'
            f' most {MAX_PATH_CHARS}", not "fewer than".',
        ),
    ),
    (
        ArgumentExample("the largest start", {"path": _P, "start": MAX_START, "count": 1}),
        Text(
            zh="start 等于 2**53 - 1 仍然合法：上限包含它自己。",
            en="start equal to 2**53 - 1 is still valid: the limit includes itself.",
        ),
    ),
    (
        ArgumentExample("one line", {"path": _P, "start": 1, "count": 1}),
        Text(
            zh="count 为 1 合法：范围是 1 到 20，两端都包含。",
            en="count 1 is valid: the range is 1 to 20, both ends included.",
        ),
    ),
    (
        ArgumentExample(
            "a path with spaces around it", {"path": " notes.txt ", "start": 1, "count": 2}
        ),
        Text(
            zh="契约只要求去掉空白后不为空：带空格的路径在这一层是合法的。",
            en="The contract only requires the path to be non-empty once whitespace is stripped:"
            " a path with spaces around it is valid at this layer.",
        ),
    ),
    (
        ArgumentExample("null instead of an object", None, "invalid_type", None),
        Text(
            zh="整体不是 dict（这里是 None）：code 为 invalid_type，不写 field。",
            en="The whole value is not a dict (here it is None): code is invalid_type, with no"
            " field.",
        ),
    ),
    (
        ArgumentExample(
            "a field name in another case",
            {"path": _P, "start": 1, "count": 2, "Path": "x"},
            "unknown_field",
            "Path",
        ),
        Text(
            zh="恰好是 path、start、count 这三个名字：大小写不同的名字是另一个字段。",
            en="Exactly the three names path, start and count: a name in another case is another"
            " field.",
        ),
    ),
    (
        ArgumentExample(
            "a whole float for count",
            {"path": _P, "start": 1, "count": 2.0},
            "invalid_type",
            "count",
        ),
        Text(
            zh="类型不对一律是 invalid_type：start 的类型规则，count 也要守。",
            en="A wrong type is always invalid_type: count must follow start's type rule too.",
        ),
    ),
)


#: The rules of exercise 1's contract on each field (the task's bullets), each with the
#: visible case that catches an answer breaking only that rule.
VALIDATE_ARGS_FIELD_RULES: tuple[Rule, ...] = load_rules("01", "VALIDATE_ARGS_FIELD_RULES", ())

#: The fixed order of exercise 1 (its last bullet), one rule per step that can be swapped.
VALIDATE_ARGS_ORDER_RULES: tuple[Rule, ...] = load_rules("01", "VALIDATE_ARGS_ORDER_RULES", ())

VALIDATE_ARGS_RULES: tuple[Rule, ...] = load_rules("01", "VALIDATE_ARGS_RULES", ())

#: Exercise 2's rules; its cases are
#: :func:`~tutorial_lib.course.chapters.ch01_read_tool.demos.inside_cases`.
IS_INSIDE_RULES: tuple[Rule, ...] = load_rules("01", "IS_INSIDE_RULES", ())


# What a learner whose validator gets a row wrong should think about (learner-facing, Chinese).
_LEARNER_HINTS: dict[str, Text] = {
    "not an object": Text(
        zh="先确认 args 是 dict；整体不是对象时不写 field。",
        en="First make sure args is a dict; when the whole value is not an object, write no field.",
    ),
    "count missing": Text(
        zh="三个字段都必填：缺哪个就报哪个，code 为 missing_field。",
        en="All three fields are required: report the one that is missing, with code"
        " missing_field.",
    ),
    "everything missing": Text(
        zh="缺多个字段时，按 path、start、count 的顺序报第一个。",
        en="When several fields are missing, report the first in the order path, start, count.",
    ),
    "a misspelt field": Text(
        zh="additionalProperties: false：多出的字段（多半是拼错的）报 unknown_field。",
        en="additionalProperties: false: an extra field (most likely a misspelling) is reported"
        " as unknown_field.",
    ),
    "line 0 (0-based thinking)": Text(
        zh="行号从 1 开始：start 为 0 是 invalid_range。",
        en="Line numbers start at 1: start 0 is invalid_range.",
    ),
    "a negative line": Text(
        zh="start 的下限是 1：负数也是 invalid_range。",
        en="start's lower bound is 1: a negative number is invalid_range too.",
    ),
    "a line beyond the interoperable integer range": (
        Text(
            zh=(
                "start 最大是 2**53 - 1：JSON 本身不限大小，但用双精度数读数字的解析器（如"
                " JavaScript）只能精确表示到这里。"
            ),
            en="start is at most 2**53 - 1: JSON itself sets no limit, but a parser that reads"
            " numbers as doubles (JavaScript, for one) is exact only up to here.",
        )
    ),
    "count 0": Text(zh="count 的范围是 1 到 20。", en="count ranges from 1 to 20."),
    "count above the cap": Text(
        zh="count 最多 20：maximum 防止一次读入太多。",
        en="count is at most 20: maximum keeps one read from taking in too much.",
    ),
    "an integer written as a string": Text(
        zh="'1' 是字符串：不要悄悄转换成整数，报 invalid_type。",
        en="'1' is a string: do not quietly convert it to an integer; report invalid_type.",
    ),
    "true as an integer": (
        Text(
            zh="bool 是 int 的子类：isinstance(True, int) 为 True，要用 type(x) is int。",
            en="bool is a subclass of int: isinstance(True, int) is True, so use type(x) is int.",
        )
    ),
    "false as an integer": Text(
        zh="False 同样是 int 的子类，也要拒绝。",
        en="False is a bool too, a subclass of int: refuse it as well.",
    ),
    "a float": Text(
        zh="浮点数不是整数：type(1.5) is int 为 False。",
        en="A float is not an integer: type(1.5) is int is False.",
    ),
    "a whole float": Text(
        zh="2.0 == 2，但契约要的是 JSON 整数：看类型，不看值。",
        en="2.0 == 2, but the contract asks for a JSON integer: look at the type, not the value.",
    ),
    "null for a line": Text(
        zh="null（None）也不是整数。", en="null (None) is not an integer either."
    ),
    "a path that is a number": Text(
        zh="path 必须是字符串：先查类型，再查内容。",
        en="path must be a string: check the type first, then the content.",
    ),
    "an empty path": Text(
        zh="空字符串不是路径：code 为 invalid_path。",
        en="An empty string is not a path: code is invalid_path.",
    ),
    "a whitespace path": Text(
        zh="只有空白的路径也无效：用 path.strip() 判断。",
        en="A path of whitespace only is invalid too: test it with path.strip().",
    ),
    "a path longer than the cap": Text(
        zh="路径最长 4096 个字符。", en="A path is at most 4096 characters long."
    ),
    "missing beats wrong type": Text(
        zh="缺失字段先于类型错误。" + _ORDER.zh,
        en="Missing fields come before type errors. " + _ORDER.en,
    ),
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
        hint = _LEARNER_HINTS.get(
            example.name,
            Text(zh="这是合法的调用：返回 None。", en="This is a valid call: return None."),
        )
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


_HIDDEN_HINT = Text(
    zh="和库里的校验器不一致：" + _ORDER.zh,
    en="Differs from the library's validator: " + _ORDER.en,
)


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
                Text(zh=f"生成的参数 {index + 1}", en=f"generated arguments {index + 1}"),
                (args,),
                verdict_of(validate_manually(args)),
                _HIDDEN_HINT,
            )
        )
    return tuple(cases)
