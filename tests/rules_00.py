"""Rule tables of chapter 00's exercises (see tests/rule_harness.py).

Each mutant starts from the reference's logic and changes one thing: the one rule it is
named after.
"""

from __future__ import annotations

from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.course.chapters.ch00_tool_contracts import cases as w


def _line(number: int, text: str) -> dict[str, Any]:
    return {"number": number, "text": text}


# ----------------------------------------------------------------------------- line_at


def zero_based(lines, number):
    if type(number) is not int or not 0 <= number < len(lines):
        return None
    return _line(number, lines[number])


def returns_the_index(lines, number):
    if type(number) is not int or not 1 <= number <= len(lines):
        return None
    return _line(number - 1, lines[number - 1])


def strips_the_line(lines, number):
    if type(number) is not int or not 1 <= number <= len(lines):
        return None
    return _line(number, lines[number - 1].strip())


def blank_line_is_none(lines, number):
    if type(number) is not int or not 1 <= number <= len(lines) or not lines[number - 1]:
        return None
    return _line(number, lines[number - 1])


def zero_reaches_lines_minus_one(lines, number):
    if type(number) is not int or number < 0 or number > len(lines):
        return None
    return _line(number, lines[number - 1])


def negative_reaches_the_end(lines, number):
    if type(number) is not int or number == 0 or number > len(lines):
        return None
    return _line(number, lines[number - 1])


def no_upper_bound(lines, number):
    if type(number) is not int or number < 1:
        return None
    return _line(number, lines[number - 1])


def isinstance_int(lines, number):
    if not isinstance(number, int) or not 1 <= number <= len(lines):
        return None
    return _line(number, lines[number - 1])


def converts_digit_strings(lines, number):
    if isinstance(number, str) and number.isdigit():
        number = int(number)
    return w.reference_line_at(lines, number)


def converts_whole_floats(lines, number):
    if isinstance(number, float) and number.is_integer():
        number = int(number)
    return w.reference_line_at(lines, number)


LINE_AT_MUTANTS = {
    "1 起算": zero_based,
    "带上真实行号": returns_the_index,
    "原样返回": strips_the_line,
    "空行也是一行": blank_line_is_none,
    "0 不是行号": zero_reaches_lines_minus_one,
    "负数不是行号": negative_reaches_the_end,
    "超过总行数": no_upper_bound,
    "拒绝 True": isinstance_int,
    "拒绝字符串": converts_digit_strings,
    "拒绝浮点数": converts_whole_floats,
}


# ---------------------------------------------------------------------- read_all_pages


def _pages(
    fetch_page,
    *,
    build_cursor=False,
    first_only=False,
    stop_at_empty=False,
    sort_items=False,
    dedupe=False,
    count_non_empty=False,
    empty_is_partial=False,
    loop_says_complete=False,
    previous_only=False,
):
    """The reference's loop with one switch per rule; every switch off is the reference."""
    items: list[Any] = []
    pages_read, seen, cursor, previous = 0, set(), None, None
    while True:
        page = fetch_page(cursor)
        pages_read += bool(page["items"]) if count_non_empty else 1
        if stop_at_empty and not page["items"]:
            cursor = None
        else:
            for item in page["items"]:
                if not (dedupe and item in items):
                    items.append(item)
            cursor = None if first_only else page["next_cursor"]
        if build_cursor and cursor is not None:
            cursor = f"p{pages_read + 1}"
        repeated = cursor == previous if previous_only else cursor in seen
        if previous_only and pages_read >= 100:  # the learner's safety net
            repeated = True
        if cursor is None or repeated:
            coverage = "complete" if cursor is None or loop_says_complete else "partial"
            if empty_is_partial and not items:
                coverage = "partial"
            result = sorted(items) if sort_items else items
            return {"items": result, "pages_read": pages_read, "coverage": coverage}
        seen.add(cursor)
        previous = cursor


def _switch(**flag):
    def read_all_pages(fetch_page):
        return _pages(fetch_page, **flag)

    read_all_pages.__name__ = f"read_all_pages_{next(iter(flag))}"
    return read_all_pages


READ_ALL_PAGES_MUTANTS = {
    "游标原样传回": _switch(build_cursor=True),
    "直到 None": _switch(first_only=True),
    "空页不是结尾": _switch(stop_at_empty=True),
    "按顺序": _switch(sort_items=True),
    "所有条目": _switch(dedupe=True),
    "读了几页": _switch(count_non_empty=True),
    "空结果也读完了": _switch(empty_is_partial=True),
    "重复游标如实报告": _switch(loop_says_complete=True),
    "任何用过的游标": _switch(previous_only=True),
}


EXERCISES: list[Exercise] = [
    Exercise(
        name="00.line_at",
        rules=w.LINE_AT_RULES,
        visible=w.LINE_AT_CASES,
        hidden=lambda: w.line_at_hidden_cases(),
        reference=w.reference_line_at,
        mutants=LINE_AT_MUTANTS,
    ),
    Exercise(
        name="00.read_all_pages",
        rules=w.READ_ALL_PAGES_RULES,
        visible=w.READ_ALL_PAGES_CASES,
        hidden=lambda: w.read_all_pages_hidden_cases(),
        reference=w.reference_read_all_pages,
        mutants=READ_ALL_PAGES_MUTANTS,
    ),
]
