"""Chapter 00's warm-up tables: a correct implementation passes, the classic mistakes fail."""

from __future__ import annotations

import pytest

from tutorial_lib.course.chapters.ch00_tool_contracts.cases import (
    LINE_AT_CASES,
    READ_ALL_PAGES_CASES,
    FakePages,
)
from tutorial_lib.course.checks import run_cases
from tutorial_lib.language import source_text


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
    failed = {
        source_text(r.case.name) for r in run_cases(mistake, LINE_AT_CASES).results if not r.passed
    }
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
        source_text(r.case.name): r.status
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


def test_fake_pages_with_an_unguessable_prefix():
    pages = FakePages.of([1], [2], prefix="k7Q-")
    assert pages(None) == {"items": [1], "next_cursor": "k7Q-2"}
    assert repr(pages) == "FakePages([[1], [2]], prefix='k7Q-')"
    with pytest.raises(KeyError, match="unknown cursor"):
        pages("p2")


# ------------------------------------------------- every exercise table of chapters 00-04
# Each reference passes its visible and hidden tables; each wrong solution (one broken
# rule, or the examples from the issue) fails the visible case named for that rule, and a
# solution hard-coded to the visible cases fails the hidden ones.


def failed_names(function, cases, **kw):
    return {
        source_text(r.case.name)
        for r in run_cases(function, cases, time_limit_s=0.3, **kw).results
        if not r.passed
    }


def test_every_reference_passes_its_visible_and_hidden_tables(tmp_path):
    from tutorial_lib.core.contracts import next_step
    from tutorial_lib.course.chapters.ch00_tool_contracts import cases as w
    from tutorial_lib.course.chapters.ch01_read_tool import cases as read_cases
    from tutorial_lib.course.chapters.ch01_read_tool.demos import (
        inside_cases,
        inside_hidden_cases,
        make_demo_workspace,
        reference_is_inside,
    )
    from tutorial_lib.course.chapters.ch02_tool_set import cases as toolset_cases
    from tutorial_lib.course.chapters.ch03_error_contracts import cases as error_cases
    from tutorial_lib.course.chapters.ch04_paged_summaries import cases as page_cases
    from tutorial_lib.workspace.read_schema import validate_manually

    root = make_demo_workspace(tmp_path)
    round_trip = page_cases.cursor_round_trip(
        page_cases.reference_make_cursor, page_cases.reference_read_cursor
    )
    tables = [
        (w.reference_line_at, w.LINE_AT_CASES + w.line_at_hidden_cases(), None),
        (
            w.reference_read_all_pages,
            w.READ_ALL_PAGES_CASES + w.read_all_pages_hidden_cases(),
            None,
        ),
        (
            validate_manually,
            read_cases.validator_cases() + read_cases.validator_hidden_cases(),
            read_cases.verdict_of,
        ),
        (reference_is_inside, inside_cases(root) + inside_hidden_cases(root), None),
        (
            lambda: list(toolset_cases.TICKET_TOOLSET),
            toolset_cases.FIXED_TOOLS_CASES + toolset_cases.fixed_tools_hidden_cases(),
            None,
        ),
        (
            error_cases.reference_status_error,
            error_cases.STATUS_ERROR_CASES + error_cases.status_error_hidden_cases(),
            None,
        ),
        (next_step, error_cases.DECISION_CASES + error_cases.decide_hidden_cases(), None),
        (
            page_cases.reference_read_all,
            page_cases.READ_ALL_CASES + page_cases.read_all_hidden_cases(),
            None,
        ),
        (
            page_cases.reference_make_cursor,
            page_cases.CURSOR_TOKEN_CASES + page_cases.token_hidden_cases(),
            None,
        ),
        (round_trip, page_cases.CURSOR_CASES + page_cases.cursor_hidden_cases(), None),
    ]
    for function, cases, key in tables:
        report = run_cases(function, cases, key=key, time_limit_s=5)
        assert report.all_passed, str(report)


def test_hidden_tables_are_seeded_and_deterministic():
    from tutorial_lib.course.chapters.ch00_tool_contracts import cases as w
    from tutorial_lib.course.chapters.ch01_read_tool import cases as read_cases
    from tutorial_lib.course.chapters.ch03_error_contracts import cases as error_cases
    from tutorial_lib.course.chapters.ch04_paged_summaries import cases as page_cases

    for generate in (
        w.line_at_hidden_cases,
        w.read_all_pages_hidden_cases,
        read_cases.validator_hidden_cases,
        error_cases.status_error_hidden_cases,
        error_cases.decide_hidden_cases,
        page_cases.read_all_hidden_cases,
        page_cases.cursor_hidden_cases,
        page_cases.token_hidden_cases,
    ):
        first, again, other = generate(), generate(), generate(seed=1)
        assert [(c.args, c.expected) for c in first] == [(c.args, c.expected) for c in again]
        assert [c.args for c in first] != [c.args for c in other]


def _validator(order="missing,unknown,fields", per_field=False, types_first=False, sort=True):
    """A configurable wrong validator: each flag breaks exactly one ordering rule."""
    fields = ("path", "start", "count")

    def check_field(name, value):
        if name == "path":
            if not isinstance(value, str):
                return {"code": "invalid_type", "field": name}
            if not value.strip() or len(value) > 4096:
                return {"code": "invalid_path", "field": name}
            return None
        if type(value) is not int:
            return {"code": "invalid_type", "field": name}
        if not 1 <= value <= (2**53 - 1 if name == "start" else 20):
            return {"code": "invalid_range", "field": name}
        return None

    def validate_args(args):
        if not isinstance(args, dict):
            return {"code": "invalid_type"}
        steps = order.split(",")
        for step in steps:
            if step == "missing":
                for name in fields:
                    if name not in args:
                        return {"code": "missing_field", "field": name}
                    if per_field and (error := check_field(name, args[name])):
                        return error
            elif step == "unknown":
                for name in sorted(args) if sort else args:
                    if name not in fields:
                        return {"code": "unknown_field", "field": name}
            elif types_first:
                for name in fields:
                    error = check_field(name, args[name])
                    if error and error["code"] == "invalid_type":
                        return error
                for name in fields:
                    if error := check_field(name, args[name]):
                        return error
            else:
                for name in fields:
                    if error := check_field(name, args[name]):
                        return error
        return None

    return validate_args


@pytest.mark.parametrize(
    ("mistake", "failing_case"),
    [
        (_validator(per_field=True), "missing beats an earlier bad type"),
        (_validator(order="unknown,missing,fields"), "missing beats unknown"),
        (_validator(types_first=True), "start's range before count's type"),
        (_validator(sort=False), "unknown fields sorted by name"),
    ],
)
def test_validator_table_catches_each_order_mistake(mistake, failing_case):
    from tutorial_lib.course.chapters.ch01_read_tool.cases import validator_cases, verdict_of

    assert _validator()  # the configurable validator itself is right by default
    assert run_cases(_validator(), validator_cases(), key=verdict_of).all_passed
    assert failing_case in failed_names(mistake, validator_cases(), key=verdict_of)


def test_a_hard_coded_validator_passes_the_visible_table_and_fails_the_hidden_one():
    from tutorial_lib.course.chapters.ch01_read_tool.cases import (
        validator_cases,
        validator_hidden_cases,
        verdict_of,
    )
    from tutorial_lib.course.checks import check_hidden

    table = {repr(c.args[0]): c.expected for c in validator_cases()}

    def validate_args(args):
        return table.get(repr(args))

    assert run_cases(validate_args, validator_cases(), key=verdict_of).all_passed
    with pytest.raises(AssertionError, match="differ from the reference"):
        check_hidden(validate_args, validator_hidden_cases(), key=verdict_of)


def test_decision_table_catches_not_found_before_unknown():
    from tutorial_lib.core.contracts import next_step
    from tutorial_lib.course.chapters.ch03_error_contracts.cases import DECISION_CASES

    def decide(error):
        if error["code"] == "not_found":
            return "search_first"
        return next_step(error)

    assert "unknown beats not_found" in failed_names(decide, DECISION_CASES)


def test_status_table_catches_a_message_without_the_current_status():
    from tutorial_lib.course.chapters.ch03_error_contracts.cases import (
        STATUS_ERROR_CASES,
        reference_status_error,
    )

    def status_error(task_id, current, received):
        error = reference_status_error(task_id, current, received)
        return error | {"message": f"{received!r} is not one of backlog, active, on_hold, shipped"}

    assert failed_names(status_error, STATUS_ERROR_CASES) == {"消息写出任务当前的状态"}


def test_a_failing_status_case_names_the_key_that_is_wrong_and_what_came_back():
    from tutorial_lib.course.chapters.ch03_error_contracts.cases import (
        STATUS_ERROR_CASES,
        reference_status_error,
    )
    from tutorial_lib.examples.tasks import STARTED_WORDS

    def answer(**changes):
        def status_error(task_id, current, received):
            error = reference_status_error(task_id, current, received) | changes
            return {key: value for key, value in error.items() if value is not None}

        return str(run_cases(status_error, STATUS_ERROR_CASES))

    # a fixed key: the first cross is the case that checks every fixed key, the whole input shown
    report = answer(retry="never")
    first = report.split("  ✗ ")[1]
    assert first.startswith("看不出意图的值")
    assert "调用：status_error('T-7', 'backlog', 'banana')" in first
    assert "在 ['retry'] 处：期望 'after_input_correction'，实际 'never'" in first
    # free wording: the key, its rule and the learner's own words
    report = answer(suggestion="send a valid status")
    assert (
        "在 ['suggestion'] 处：期望 <有条件的建议：含 if 和 active>，实际 'send a valid status'"
        in report
    )
    assert (
        "在 ['suggestion'] 处：期望 <列出全部允许值：backlog, active, on_hold, shipped>" in report
    )
    report = answer(message="that status is not allowed")
    assert (
        "在 ['message'] 处：期望 <一句写出当前状态 'backlog' 的话>，"
        "实际 'that status is not allowed'" in report
    )
    assert "在 [\"message（current='on_hold'）\"] 处" in report
    assert (
        "status_error('T-9', 'on_hold', 'banana') 和 status_error('T-9', 'shipped', 'banana')"
        in report
    )
    assert "在 ['message'] 处：缺少这个键" in answer(message=None)
    assert "message_names_current" not in report  # no key the learner's object does not have
    # any wording that follows the rules passes; a value that is not an error object says so

    def own_words(task_id, current, received):
        started = str(received).lower() in STARTED_WORDS
        return reference_status_error(task_id, current, received) | {
            "message": f"cannot use {received!r}: {task_id} stays {current}",
            "suggestion": (
                "If work has really started, send active."
                if started
                else "allowed: backlog / active / on_hold / shipped"
            ),
        }

    assert run_cases(own_words, STATUS_ERROR_CASES).all_passed
    assert "实际是 str" in str(run_cases(lambda t, c, r: "invalid", STATUS_ERROR_CASES))


def test_fixed_tools_table_refuses_three_good_tools_of_another_domain():
    from tutorial_lib.course.chapters.ch02_tool_set.cases import FIXED_TOOLS_CASES
    from tutorial_lib.course.chapters.ch02_tool_set.demos import GOOD_TOOLSET

    failed = failed_names(lambda: list(GOOD_TOOLSET[:3]), FIXED_TOOLS_CASES)
    assert "linter 没有发现" not in failed
    assert {
        source_text(c.name) for c in FIXED_TOOLS_CASES if "的能力" in source_text(c.name)
    } <= failed


def test_cursor_tables_refuse_a_plain_text_key_and_a_padded_standard_base64():
    import base64
    import hashlib
    import hmac

    from tutorial_lib.course.chapters.ch04_paged_summaries.cases import (
        CURSOR_CASES,
        CURSOR_TOKEN_CASES,
        cursor_round_trip,
    )

    def plain_make(position, key):
        return f"{position}:{key.decode()}"

    def plain_read(token, key):
        position, _, secret = token.partition(":")
        return int(position) if secret == key.decode() and position.isdigit() else None

    assert run_cases(cursor_round_trip(plain_make, plain_read), CURSOR_CASES).all_passed
    assert len(failed_names(plain_make, CURSOR_TOKEN_CASES)) == len(CURSOR_TOKEN_CASES)

    def std_make(position, key):
        payload = str(position).encode()
        return base64.b64encode(hmac.new(key, payload, hashlib.sha256).digest() + payload).decode()

    assert failed_names(std_make, CURSOR_TOKEN_CASES)
