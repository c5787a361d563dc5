"""Plain-text tables that line up by display width (tutorial_lib.course.table)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.course.table import display_width, pad, text_table, wrap


def test_a_chinese_character_takes_two_columns():
    assert display_width("情形") == 4
    assert display_width("code") == 4
    assert display_width("ａ") == 2  # fullwidth
    assert display_width("e\u0301") == 1  # a combining accent takes no column


def test_columns_line_up_when_cells_mix_chinese_and_ascii():
    table = text_table([["情形", "code"], ["超时了", "outcome_unknown"], ["ok", "-"]])
    assert table.splitlines() == ["情形    code", "超时了  outcome_unknown", "ok      -"]


def test_right_alignment_rule_and_no_trailing_spaces():
    table = text_table([["名称", "n"], ["a", 10]], align="<>", rule=True)
    assert table.splitlines() == ["名称   n", "--------", "a     10"]


def test_bad_alignment_is_refused_clearly():
    with pytest.raises(ValueError, match="align has 1 characters for 2 columns"):
        text_table([["a", "b"]], align="<")
    with pytest.raises(ValueError, match="align must be"):
        pad("a", 3, "^")


CELL = st.text(st.characters(whitelist_categories=("Lu", "Ll", "Lo", "Nd")), min_size=1, max_size=6)


@given(st.lists(st.tuples(CELL, CELL), min_size=1, max_size=5))
def test_the_second_column_starts_at_the_same_display_column_on_every_line(rows):
    lines = text_table([list(row) for row in rows]).splitlines()
    widest = max(display_width(first) for first, _ in rows)
    for line, (first, second) in zip(lines, rows, strict=True):
        assert line.startswith(first) and line.endswith(second)
        assert display_width(line) - display_width(second) == widest + 2


def test_wrap_breaks_chinese_anywhere_and_keeps_words_whole():
    text = "模型只能从名字和说明里推断 read_lines 的用法，" * 4
    lines = wrap(text, 30, "  ")
    assert all(display_width(line) <= 30 for line in lines)
    assert all("read_lines" in line or "read_" not in line for line in lines)
    assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")
    assert wrap("short") == ["short"]
