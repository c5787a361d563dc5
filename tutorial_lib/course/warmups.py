"""Chapter 00's warm-up contracts: case tables shared by the lesson, the exercise and the tests.

Two small contracts that later chapters grow into real tools:

- ``line_at(lines, number)``: one line by its 1-based number, or ``None`` for anything that
  is not a valid line number (0, negatives, past the end, ``True``, ``"2"``, ``2.0``).
  Chapter 01's ``read_lines`` is its grown-up form.
- ``read_all_pages(fetch_page)``: follow ``next_cursor`` until the service says there is no
  more, even across empty pages, and say honestly whether everything was read.
  Chapter 04's paginated PR comments build on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tutorial_lib.course.checks import Case

__all__ = ["LINE_AT_CASES", "READ_ALL_PAGES_CASES", "FakePages"]

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
)


@dataclass(frozen=True)
class FakePages:
    """A paged list service for exercises: ``fetch_page(cursor) -> {"items", "next_cursor"}``.

    ``pages`` are the items of each page. The first page is fetched with ``cursor=None``,
    page ``k`` (counted from 1) with the cursor ``"p<k>"``. With ``loop_to`` set, the last
    page points back to page ``loop_to`` instead of ending: a buggy service.
    """

    pages: tuple[tuple[Any, ...], ...]
    loop_to: int | None = None

    @classmethod
    def of(cls, *pages: Sequence[Any], loop_to: int | None = None) -> FakePages:
        return cls(tuple(tuple(p) for p in pages), loop_to)

    def __call__(self, cursor: str | None) -> dict[str, Any]:
        index = self._index(cursor)
        if index + 1 < len(self.pages):
            next_cursor: str | None = f"p{index + 2}"
        else:
            next_cursor = None if self.loop_to is None else f"p{self.loop_to}"
        return {"items": list(self.pages[index]), "next_cursor": next_cursor}

    def _index(self, cursor: str | None) -> int:
        if cursor is None:
            return 0
        if isinstance(cursor, str) and cursor[:1] == "p" and cursor[1:].isdigit():
            index = int(cursor[1:]) - 1
            if 0 <= index < len(self.pages):
                return index
        raise KeyError(f"unknown cursor {cursor!r}: pass back the next_cursor you received")

    def __repr__(self) -> str:
        shown = [list(p) for p in self.pages]
        loop = "" if self.loop_to is None else f", loop_to={self.loop_to}"
        return f"FakePages({shown}{loop})"


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
)
