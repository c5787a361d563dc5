"""Chapter 00's warm-up contracts: case tables shared by the lesson, the exercise and the tests.

Two small contracts that later chapters grow into real tools:

- ``line_at(lines, number)``: one line by its 1-based number, or ``None`` for anything that
  is not a valid line number (0, negatives, past the end, ``True``, ``"2"``, ``2.0``).
  Chapter 01's ``read_lines`` is its grown-up form.
- ``read_all_pages(fetch_page)``: follow ``next_cursor`` until the service says there is no
  more, even across empty pages, and say honestly whether everything was read.
  Chapter 04's paginated PR comments build on it.

Each contract has its visible table (``*_CASES``: one case per stated rule, with a hint
naming it), its rule table (``*_RULES``: every rule the task states, the visible case that
fails an answer breaking only that rule, and what the hidden cases vary for it), a
reference implementation (``reference_*``) and a generator of hidden cases
(``*_hidden_cases``: seeded random inputs, expected values from the reference), which the
solution notebook runs with :func:`~tutorial_lib.course.checks.check_hidden`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tutorial_lib.course.checks import Case
from tutorial_lib.course.rules import Rule

__all__ = [
    "LINE_AT_CASES",
    "LINE_AT_RULES",
    "READ_ALL_PAGES_CASES",
    "READ_ALL_PAGES_RULES",
    "FakePages",
    "line_at_hidden_cases",
    "read_all_pages_hidden_cases",
    "reference_line_at",
    "reference_read_all_pages",
]

_LINES = ["alpha", "beta", "gamma"]

LINE_AT_CASES: tuple[Case, ...] = (
    Case(
        "第 1 行是第一行",
        (_LINES, 1),
        {"number": 1, "text": "alpha"},
        "行号从 1 开始：第 1 行是 lines[0]。",
    ),
    Case(
        "第 3 行（最后一行）",
        (_LINES, 3),
        {"number": 3, "text": "gamma"},
        "第 n 行是 lines[n - 1]；返回里带上真实行号。",
    ),
    Case("第 0 行不存在", (_LINES, 0), None, "0 不是 1 起算的行号；Python 下标 0 不等于第 0 行。"),
    Case("负数行号", (_LINES, -1), None, "lines[-1] 是最后一行：负数必须先拒绝，不能交给下标。"),
    Case("读过末尾", (_LINES, 4), None, "行号大于总行数时没有这一行，返回 None 而不是抛出异常。"),
    Case(
        "True 不是行号",
        (_LINES, True),
        None,
        "bool 是 int 的子类：isinstance(True, int) 为 True，用 type(number) is int。",
    ),
    Case("字符串 '2' 不是行号", (_LINES, "2"), None, "不要悄悄把字符串转换成整数：拒绝它。"),
    Case("浮点数 2.0 不是行号", (_LINES, 2.0), None, "2.0 不是整数类型，即使它等于 2。"),
    Case("空文件没有第 1 行", ([], 1), None, "先确认行号不超过 len(lines)。"),
    Case(
        "空行也是一行",
        (["alpha", "", "gamma"], 2),
        {"number": 2, "text": ""},
        "行号有效就返回那一行，哪怕它是空字符串：判断行号，不要用 `if not text` 判断内容。",
    ),
    Case(
        "这一行原样返回",
        (["  indented line ", "x"], 1),
        {"number": 1, "text": "  indented line "},
        "返回的是“那一行”本身：不要 strip() 或改写它的内容。",
    ),
)


#: Every rule exercise 1 states, with the visible case that catches an answer breaking it.
LINE_AT_RULES: tuple[Rule, ...] = (
    Rule(
        "1 起算", "number 是从 1 开始的行号。", "第 1 行是第一行", "0 到 6 行的文件，-3 到 8 的行号"
    ),
    Rule(
        "带上真实行号",
        '行号有效时返回 {"number": number, "text": 那一行}。',
        "第 3 行（最后一行）",
        "每个有效的行号",
    ),
    Rule("原样返回", "那一行原样返回。", "这一行原样返回", "行的前后带空格"),
    Rule("空行也是一行", "空行也是一行。", "空行也是一行", "文件里的空行"),
    Rule("0 不是行号", "0 返回 None。", "第 0 行不存在", "行号 0，文件有长有短"),
    Rule("负数不是行号", "负数返回 None。", "负数行号", "-3 到 -1"),
    Rule("超过总行数", "超过总行数返回 None。", "读过末尾", "超过末尾的行号，包括空文件"),
    Rule("拒绝 True", "不是 int 的值返回 None，例如 True。", "True 不是行号", "True 和 False"),
    Rule(
        "拒绝字符串",
        '不是 int 的值返回 None，例如 "2"。',
        "字符串 '2' 不是行号",
        '"1" 和 "2"',
    ),
    Rule(
        "拒绝浮点数",
        "不是 int 的值返回 None，例如 2.0。",
        "浮点数 2.0 不是行号",
        "1.0、2.0 和 1.5",
    ),
)


def reference_line_at(lines: Sequence[str], number: Any) -> dict[str, Any] | None:
    """The reference ``line_at``: the line ``number`` (1-based) or None for anything else."""
    if type(number) is not int or not 1 <= number <= len(lines):
        return None
    return {"number": number, "text": lines[number - 1]}


_WORDS = ("alpha", "beta", "", "  spaced ", "gamma", "δ", "0")
_NUMBERS: tuple[Any, ...] = (True, False, "1", "2", 1.0, 2.0, 1.5, None, [1])


def line_at_hidden_cases(seed: int = 0, count: int = 200) -> tuple[Case, ...]:
    """``count`` seeded cases: random files and numbers, expected from the reference."""
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        lines = [rng.choice(_WORDS) for _ in range(rng.randint(0, 6))]
        number = rng.randint(-3, 8) if rng.random() < 0.75 else rng.choice(_NUMBERS)
        cases.append(
            Case(
                f"生成的输入 {index + 1}",
                (lines, number),
                reference_line_at(lines, number),
                "和参考实现不一致：对照练习说明里的每条规则检查这个输入。",
            )
        )
    return tuple(cases)


@dataclass(frozen=True)
class FakePages:
    """A paged list service for exercises: ``fetch_page(cursor) -> {"items", "next_cursor"}``.

    ``pages`` are the items of each page. The first page is fetched with ``cursor=None``,
    page ``k`` (counted from 1) with the cursor ``"<prefix><k>"`` (``"p2"`` by default).
    With ``loop_to`` set, the last page points back to page ``loop_to`` instead of ending:
    a buggy service. Another ``prefix`` makes the cursors unguessable, so a loop that
    builds ``"p2"`` itself instead of passing back ``next_cursor`` fails.
    """

    pages: tuple[tuple[Any, ...], ...]
    loop_to: int | None = None
    prefix: str = "p"

    @classmethod
    def of(cls, *pages: Sequence[Any], loop_to: int | None = None, prefix: str = "p") -> FakePages:
        return cls(tuple(tuple(p) for p in pages), loop_to, prefix)

    def __call__(self, cursor: str | None) -> dict[str, Any]:
        index = self._index(cursor)
        if index + 1 < len(self.pages):
            next_cursor: str | None = f"{self.prefix}{index + 2}"
        else:
            next_cursor = None if self.loop_to is None else f"{self.prefix}{self.loop_to}"
        return {"items": list(self.pages[index]), "next_cursor": next_cursor}

    def _index(self, cursor: str | None) -> int:
        if cursor is None:
            return 0
        if isinstance(cursor, str) and cursor.startswith(self.prefix):
            digits = cursor[len(self.prefix) :]
            if digits.isdigit() and 0 <= int(digits) - 1 < len(self.pages):
                return int(digits) - 1
        raise KeyError(f"unknown cursor {cursor!r}: pass back the next_cursor you received")

    def __repr__(self) -> str:
        shown = [list(p) for p in self.pages]
        loop = "" if self.loop_to is None else f", loop_to={self.loop_to}"
        prefix = "" if self.prefix == "p" else f", prefix={self.prefix!r}"
        return f"FakePages({shown}{loop}{prefix})"


def _complete(items: list[Any], pages: int) -> dict[str, Any]:
    return {"items": items, "pages_read": pages, "coverage": "complete"}


READ_ALL_PAGES_CASES: tuple[Case, ...] = (
    Case(
        "只有一页",
        (FakePages.of([1, 2]),),
        _complete([1, 2], 1),
        "第一页的 next_cursor 是 None：读完了。",
    ),
    Case(
        "三页按顺序拼起来",
        (FakePages.of([1, 2], [3, 4], [5]),),
        _complete([1, 2, 3, 4, 5], 3),
        "把每页的 next_cursor 原样传回 fetch_page，直到它是 None。",
    ),
    Case(
        "中间一页是空的",
        (FakePages.of([1], [], [2]),),
        _complete([1, 2], 3),
        "空页只要还带着 next_cursor 就不是结尾：继续读。",
    ),
    Case(
        "第一页就是空的",
        (FakePages.of([], [7]),),
        _complete([7], 2),
        "不能因为第一页为空就下结论“没有评论”。",
    ),
    Case(
        "真的没有任何条目",
        (FakePages.of([]),),
        _complete([], 1),
        "空结果也是成功的结果：items 为空，coverage 仍是 complete。",
    ),
    Case(
        "服务返回了读过的游标",
        (FakePages.of([1], [2], loop_to=2),),
        {"items": [1, 2], "pages_read": 2, "coverage": "partial"},
        "记住见过的游标；游标重复时停下，并如实报告 coverage 为 partial。",
    ),
    Case(
        "绕一个更大的圈",
        (FakePages.of([1], [2], [3], loop_to=2),),
        {"items": [1, 2, 3], "pages_read": 3, "coverage": "partial"},
        "只和上一个游标比较不够：服务可能绕回更早的页。记住所有见过的游标（例如一个 set）。",
    ),
    Case(
        "绕回一个空页",
        (FakePages.of([1], [], loop_to=2),),
        {"items": [1], "pages_read": 2, "coverage": "partial"},
        "两条规则同时出现：空页不是结尾（继续读），游标重复时停下并报告 partial。",
    ),
    Case(
        "游标要原样传回",
        (FakePages.of([1], [2], [3], prefix="k7Q-"),),
        _complete([1, 2, 3], 3),
        "游标是不透明的：不要自己拼出下一页的游标，把收到的 next_cursor 原样传回。",
    ),
    Case(
        "条目按服务给的顺序",
        (FakePages.of([5, 3], [9], [1]),),
        _complete([5, 3, 9, 1], 3),
        "items 要按顺序：服务给出条目的先后，就是结果里的先后。",
    ),
    Case(
        "重复的条目也是条目",
        (FakePages.of([4], [4, 2]),),
        _complete([4, 4, 2], 2),
        "items 是所有条目：值相同的两个条目仍是两个条目。",
    ),
)

#: Every rule exercise 2 states, with the visible case that catches an answer breaking it.
READ_ALL_PAGES_RULES: tuple[Rule, ...] = (
    Rule(
        "游标原样传回",
        "把每页的 next_cursor 原样传回去（游标是不透明的，不要自己拼）。",
        "游标要原样传回",
        "游标的写法（p、c、next:、Zx9_ 开头）",
    ),
    Rule("直到 None", "一直读到 next_cursor 是 None。", "三页按顺序拼起来", "1 到 6 页"),
    Rule(
        "空页不是结尾",
        "空页只要还带着游标，就不是结尾。",
        "中间一页是空的",
        "空页出现的位置，包括第一页",
    ),
    Rule("按顺序", "items 是所有条目，按顺序。", "条目按服务给的顺序", "随机的条目值"),
    Rule("所有条目", "items 是所有条目。", "重复的条目也是条目", "随机的条目值，常有重复"),
    Rule("读了几页", "pages_read 是读了几页。", "第一页就是空的", "页数和空页"),
    Rule(
        "空结果也读完了",
        '读完了就是 "complete"，没有条目也一样。',
        "真的没有任何条目",
        "全是空页的服务",
    ),
    Rule(
        "重复游标如实报告",
        '游标已经用过时停下，返回已读到的条目，coverage 如实写成 "partial"。',
        "服务返回了读过的游标",
        "服务绕回的页",
    ),
    Rule(
        "任何用过的游标",
        "“已经用过的游标”包括更早用过的任何一个。",
        "绕一个更大的圈",
        "绕回更早的任意一页",
    ),
)


def reference_read_all_pages(fetch_page: Any) -> dict[str, Any]:
    """The reference ``read_all_pages``: follow cursors, stop honestly on a repeated one."""
    items: list[Any] = []
    pages_read, seen, cursor = 0, set(), None
    while True:
        page = fetch_page(cursor)
        pages_read += 1
        items.extend(page["items"])
        cursor = page["next_cursor"]
        if cursor is None or cursor in seen:
            coverage = "complete" if cursor is None else "partial"
            return {"items": items, "pages_read": pages_read, "coverage": coverage}
        seen.add(cursor)


def read_all_pages_hidden_cases(seed: int = 0, count: int = 120) -> tuple[Case, ...]:
    """``count`` seeded services (empty pages, loops, odd cursors), expected from the reference."""
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        pages = [
            [rng.randint(1, 99) for _ in range(rng.choice((0, 0, 1, 2, 3)))]
            for _ in range(rng.randint(1, 6))
        ]
        loop_to = rng.randint(2, len(pages)) if len(pages) > 1 and rng.random() < 0.3 else None
        prefix = rng.choice(("p", "c", "next:", "Zx9_"))
        service = FakePages.of(*pages, loop_to=loop_to, prefix=prefix)
        cases.append(
            Case(
                f"生成的服务 {index + 1}",
                (service,),
                reference_read_all_pages(service),
                "和参考实现不一致：对照练习说明里的每条规则检查这个服务。",
            )
        )
    return tuple(cases)
