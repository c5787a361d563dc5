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
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.language import Text

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
        Text(zh="第 1 行是第一行", en="line 1 is the first line"),
        (_LINES, 1),
        {"number": 1, "text": "alpha"},
        Text(
            zh="行号从 1 开始：第 1 行是 lines[0]。",
            en="Line numbers start at 1: line 1 is lines[0].",
        ),
    ),
    Case(
        Text(zh="第 3 行（最后一行）", en="line 3 (the last line)"),
        (_LINES, 3),
        {"number": 3, "text": "gamma"},
        Text(
            zh="第 n 行是 lines[n - 1]；返回里带上真实行号。",
            en="Line n is lines[n - 1]; include the real line number in what you return.",
        ),
    ),
    Case(
        Text(zh="第 0 行不存在", en="there is no line 0"),
        (_LINES, 0),
        None,
        Text(
            zh="0 不是 1 起算的行号；Python 下标 0 不等于第 0 行。",
            en="0 is not a line number when counting from 1; Python's index 0 is not line 0.",
        ),
    ),
    Case(
        Text(zh="负数行号", en="a negative line number"),
        (_LINES, -1),
        None,
        Text(
            zh="lines[-1] 是最后一行：负数必须先拒绝，不能交给下标。",
            en="lines[-1] is the last line: refuse negative numbers first; do not pass them to"
            " the index.",
        ),
    ),
    Case(
        Text(zh="读过末尾", en="reading past the end"),
        (_LINES, 4),
        None,
        Text(
            zh="行号大于总行数时没有这一行，返回 None 而不是抛出异常。",
            en="A line number greater than the number of lines has no line: return None instead"
            " of raising an exception.",
        ),
    ),
    Case(
        Text(zh="True 不是行号", en="True is not a line number"),
        (_LINES, True),
        None,
        Text(
            zh="bool 是 int 的子类：isinstance(True, int) 为 True，用 type(number) is int。",
            en="bool is a subclass of int: isinstance(True, int) is True, so use type(number) is"
            " int.",
        ),
    ),
    Case(
        Text(zh="字符串 '2' 不是行号", en="the string '2' is not a line number"),
        (_LINES, "2"),
        None,
        Text(
            zh="不要悄悄把字符串转换成整数：拒绝它。",
            en="Do not quietly convert a string to an integer: refuse it.",
        ),
    ),
    Case(
        Text(zh="浮点数 2.0 不是行号", en="the float 2.0 is not a line number"),
        (_LINES, 2.0),
        None,
        Text(
            zh="2.0 不是整数类型，即使它等于 2。",
            en="2.0 is not of an integer type, even though it equals 2.",
        ),
    ),
    Case(
        Text(zh="空文件没有第 1 行", en="an empty file has no line 1"),
        ([], 1),
        None,
        Text(
            zh="先确认行号不超过 len(lines)。",
            en="First make sure the line number is not greater than len(lines).",
        ),
    ),
    Case(
        Text(zh="空行也是一行", en="an empty line is a line too"),
        (["alpha", "", "gamma"], 2),
        {"number": 2, "text": ""},
        Text(
            zh="行号有效就返回那一行，哪怕它是空字符串：判断行号，不要用 `if not text` 判断内容。",
            en="A valid line number returns that line, even when it is an empty string: test the"
            " line number; do not test the content with `if not text`.",
        ),
    ),
    Case(
        Text(zh="这一行原样返回", en="the line is returned as it is"),
        (["  indented line ", "x"], 1),
        {"number": 1, "text": "  indented line "},
        Text(
            zh="返回的是“那一行”本身：不要 strip() 或改写它的内容。",
            en="What you return is the line itself: do not strip() it or rewrite its content.",
        ),
    ),
)


#: Every rule exercise 1 states, with the visible case that catches an answer breaking it.
LINE_AT_RULES: tuple[Rule, ...] = load_rules("00", "LINE_AT_RULES", LINE_AT_CASES)


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
                Text(zh=f"生成的输入 {index + 1}", en=f"generated input {index + 1}"),
                (lines, number),
                reference_line_at(lines, number),
                Text(
                    zh="和参考实现不一致：对照练习说明里的每条规则检查这个输入。",
                    en="Differs from the reference implementation: check this input against each"
                    " rule in the exercise's instructions.",
                ),
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
        Text(zh="只有一页", en="only one page"),
        (FakePages.of([1, 2]),),
        _complete([1, 2], 1),
        Text(
            zh="第一页的 next_cursor 是 None：读完了。",
            en="The first page's next_cursor is None: the read is done.",
        ),
    ),
    Case(
        Text(zh="三页按顺序拼起来", en="three pages joined in order"),
        (FakePages.of([1, 2], [3, 4], [5]),),
        _complete([1, 2, 3, 4, 5], 3),
        Text(
            zh="把每页的 next_cursor 原样传回 fetch_page，直到它是 None。",
            en="Pass each page's next_cursor back to fetch_page unchanged until it is None.",
        ),
    ),
    Case(
        Text(zh="中间一页是空的", en="a page in the middle is empty"),
        (FakePages.of([1], [], [2]),),
        _complete([1, 2], 3),
        Text(
            zh="空页只要还带着 next_cursor 就不是结尾：继续读。",
            en="An empty page that still carries a next_cursor is not the end: keep reading.",
        ),
    ),
    Case(
        Text(zh="第一页就是空的", en="the very first page is empty"),
        (FakePages.of([], [7]),),
        _complete([7], 2),
        Text(
            zh="不能因为第一页为空就下结论“没有评论”。",
            en='An empty first page does not let you conclude "there are no comments".',
        ),
    ),
    Case(
        Text(zh="真的没有任何条目", en="really no items at all"),
        (FakePages.of([]),),
        _complete([], 1),
        Text(
            zh="空结果也是成功的结果：items 为空，coverage 仍是 complete。",
            en="An empty result is a successful result too: items is empty and coverage is still"
            " complete.",
        ),
    ),
    Case(
        Text(zh="服务返回了读过的游标", en="the service returns a cursor already read"),
        (FakePages.of([1], [2], loop_to=2),),
        {"items": [1, 2], "pages_read": 2, "coverage": "partial"},
        Text(
            zh="记住见过的游标；游标重复时停下，并如实报告 coverage 为 partial。",
            en="Remember the cursors you have seen; when a cursor repeats, stop and honestly"
            " report coverage as partial.",
        ),
    ),
    Case(
        Text(zh="绕一个更大的圈", en="a bigger loop"),
        (FakePages.of([1], [2], [3], loop_to=2),),
        {"items": [1, 2, 3], "pages_read": 3, "coverage": "partial"},
        Text(
            zh="只和上一个游标比较不够：服务可能绕回更早的页。记住所有见过的游标（例如一个 set）。",
            en="Comparing with the previous cursor only is not enough: the service may loop back"
            " to an earlier page. Remember every cursor you have seen (in a set, for example).",
        ),
    ),
    Case(
        Text(zh="绕回一个空页", en="looping back to an empty page"),
        (FakePages.of([1], [], loop_to=2),),
        {"items": [1], "pages_read": 2, "coverage": "partial"},
        Text(
            zh="两条规则同时出现：空页不是结尾（继续读），游标重复时停下并报告 partial。",
            en="Two rules at once: an empty page is not the end (keep reading), and when a cursor"
            " repeats you stop and report partial.",
        ),
    ),
    Case(
        Text(zh="游标要原样传回", en="the cursor must be passed back unchanged"),
        (FakePages.of([1], [2], [3], prefix="k7Q-"),),
        _complete([1, 2, 3], 3),
        Text(
            zh="游标是不透明的：不要自己拼出下一页的游标，把收到的 next_cursor 原样传回。",
            en="A cursor is opaque: do not build the next page's cursor yourself; pass back the"
            " next_cursor you received, unchanged.",
        ),
    ),
    Case(
        Text(zh="条目按服务给的顺序", en="items in the order the service gives"),
        (FakePages.of([5, 3], [9], [1]),),
        _complete([5, 3, 9, 1], 3),
        Text(
            zh="items 要按顺序：服务给出条目的先后，就是结果里的先后。",
            en="items must keep the order: the order in which the service gives the items is"
            " their order in the result.",
        ),
    ),
    Case(
        Text(zh="重复的条目也是条目", en="repeated items are items too"),
        (FakePages.of([4], [4, 2]),),
        _complete([4, 4, 2], 2),
        Text(
            zh="items 是所有条目：值相同的两个条目仍是两个条目。",
            en="items holds every item: two items with the same value are still two items.",
        ),
    ),
)

#: Every rule exercise 2 states, with the visible case that catches an answer breaking it.
READ_ALL_PAGES_RULES: tuple[Rule, ...] = load_rules(
    "00", "READ_ALL_PAGES_RULES", READ_ALL_PAGES_CASES
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
                Text(zh=f"生成的服务 {index + 1}", en=f"generated service {index + 1}"),
                (service,),
                reference_read_all_pages(service),
                Text(
                    zh="和参考实现不一致：对照练习说明里的每条规则检查这个服务。",
                    en="Differs from the reference implementation: check this service against"
                    " each rule in the exercise's instructions.",
                ),
            )
        )
    return tuple(cases)
