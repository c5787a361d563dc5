"""Chapter 04's cursor checks: a position has no upper bound.

A learner trial packed the position with ``struct.pack(">q", ...)``: it passed every visible
case, then crashed at 2**63. The visible table now fails it with the rule named (the crash
is a failing case, not a traceback), and the hidden cases vary the position around 2**63
and 2**64.
"""

from __future__ import annotations

import pytest

from tests.rules_04 import READ_CURSOR_MUTANTS
from tutorial_lib.course.chapters.ch04_paged_summaries import cases as p
from tutorial_lib.course.checks import check_hidden, run_cases
from tutorial_lib.language import source_text

SIGNED = READ_CURSOR_MUTANTS["位置没有上限（2**63 及以上）"]
UNSIGNED = READ_CURSOR_MUTANTS["位置没有上限（2**64 及以上）"]


def test_signed_packing_fails_at_2_63_as_a_reported_case():
    report = run_cases(SIGNED, p.CURSOR_CASES)
    failed = {source_text(r.case.name): r for r in report.results if not r.passed}
    assert set(failed) == {"位置 2**63（有符号 64 位整数装不下）", "位置 2**64（64 位整数装不下）"}
    result = failed["位置 2**63（有符号 64 位整数装不下）"]
    assert result.status == "error" and result.got.startswith("error:")
    text = str(report)
    assert "调用：round_trip(9223372036854775808)" in text
    assert "位置没有上限" in text and "Traceback" not in text


def test_unsigned_packing_fails_only_at_2_64():
    failed = [
        source_text(r.case.name)
        for r in run_cases(UNSIGNED, p.CURSOR_CASES).results
        if not r.passed
    ]
    assert failed == ["位置 2**64（64 位整数装不下）"]


def test_hidden_cases_vary_the_position_around_both_boundaries():
    positions = {case.args[0] for case in p.cursor_hidden_cases()}
    for edge in (2**63, 2**64):
        assert {edge - 1, edge, edge + 1} <= positions
    assert any(position > 2**64 + 1 for position in positions)
    reference = p.cursor_round_trip(p.reference_make_cursor, p.reference_read_cursor)
    check_hidden(reference, p.cursor_hidden_cases())
    for mutant in (SIGNED, UNSIGNED):
        with pytest.raises(AssertionError):
            check_hidden(mutant, p.cursor_hidden_cases())


def test_the_reference_reads_back_any_size():
    for position in (0, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**200):
        token = p.reference_make_cursor(position, p.KEY)
        assert p.reference_read_cursor(token, p.KEY) == position
