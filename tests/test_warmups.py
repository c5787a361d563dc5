"""Chapter 00's warm-up tables: a correct implementation passes, the classic mistakes fail."""

from __future__ import annotations

import pytest

from tutorial_lib.course.checks import run_cases
from tutorial_lib.course.warmups import LINE_AT_CASES, READ_ALL_PAGES_CASES, FakePages


def reference_line_at(lines, number):
    if type(number) is not int or not 1 <= number <= len(lines):
        return None
    return {"number": number, "text": lines[number - 1]}


def reference_read_all_pages(fetch_page):
    items, pages, seen, cursor = [], 0, set(), None
    while True:
        page = fetch_page(cursor)
        pages += 1
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None or cursor in seen:
            coverage = "complete" if cursor is None else "partial"
            return {"items": items, "pages_read": pages, "coverage": coverage}
        seen.add(cursor)


def test_reference_line_at_passes_every_case():
    assert run_cases(reference_line_at, LINE_AT_CASES).all_passed


def test_reference_read_all_pages_passes_every_case():
    assert run_cases(reference_read_all_pages, READ_ALL_PAGES_CASES).all_passed


@pytest.mark.parametrize(
    ("mistake", "failing_case"),
    [
        (lambda lines, n: {"number": n, "text": lines[n]}, "第 1 行是第一行"),
        (
            lambda lines, n: (
                {"number": n, "text": lines[n - 1]}
                if isinstance(n, int) and 1 <= n <= len(lines)
                else None
            ),
            "True 不是行号",
        ),
        (
            lambda lines, n: (
                {"number": int(n), "text": lines[int(n) - 1]} if 1 <= int(n) <= len(lines) else None
            ),
            "字符串 '2' 不是行号",
        ),
    ],
)
def test_line_at_table_catches_the_classic_mistakes(mistake, failing_case):
    failed = {r.case.name for r in run_cases(mistake, LINE_AT_CASES).results if not r.passed}
    assert failing_case in failed


def first_page_only(fetch_page):
    return {"items": fetch_page(None)["items"], "pages_read": 1, "coverage": "complete"}


def stop_at_empty_page(fetch_page):
    items, pages, cursor = [], 0, None
    while True:
        page = fetch_page(cursor)
        pages += 1
        if not page["items"]:
            return {"items": items, "pages_read": pages, "coverage": "complete"}
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return {"items": items, "pages_read": pages, "coverage": "complete"}


def no_loop_guard(fetch_page):
    items, pages, cursor = [], 0, None
    while True:
        page = fetch_page(cursor)
        pages += 1
        items += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            return {"items": items, "pages_read": pages, "coverage": "complete"}


@pytest.mark.parametrize(
    ("mistake", "failing_case", "status"),
    [
        (first_page_only, "三页按顺序拼起来", "fail"),
        (stop_at_empty_page, "中间一页是空的", "fail"),
        (no_loop_guard, "服务返回了读过的游标", "timeout"),
    ],
)
def test_read_all_pages_table_catches_the_classic_mistakes(mistake, failing_case, status):
    results = {
        r.case.name: r.status
        for r in run_cases(mistake, READ_ALL_PAGES_CASES, time_limit_s=0.3).results
    }
    assert results[failing_case] == status


def test_fake_pages_contract():
    pages = FakePages.of([1], [], [2])
    assert pages(None) == {"items": [1], "next_cursor": "p2"}
    assert pages("p2") == {"items": [], "next_cursor": "p3"}
    assert pages("p3") == {"items": [2], "next_cursor": None}
    assert FakePages.of([1], loop_to=1)("p1") == {"items": [1], "next_cursor": "p1"}
    assert repr(pages) == "FakePages([[1], [], [2]])"
    for bad in ("p4", "p0", "x", 2):
        with pytest.raises(KeyError, match="unknown cursor"):
            pages(bad)
