"""Chapter 02's exercise checks: the description rules a learner trial found unenforced.

A read-only tool whose description leaves out "Read-only." and a description that only
contains the word "ticket" (negated, inside another word, or in a later sentence) must fail
the visible case of the tool they concern, with the requirement named.
"""

from __future__ import annotations

import dataclasses

import pytest

from tests.rules_02 import CLOSE, GET, LIST
from tutorial_lib.core.tools import ToolSpec
from tutorial_lib.course.chapters.ch02_tool_set import cases as t
from tutorial_lib.course.checks import check_hidden, run_cases
from tutorial_lib.language import source_text

CASE_OF = {
    GET: "getData 的能力：按 id 读一张工单",
    CLOSE: "runAction 的能力：关闭一张工单（写入，超时以秒计）",
    LIST: "sync 的能力：分页列出工单",
}


def described(text: str) -> ToolSpec:
    return dataclasses.replace(t.TICKET_TOOLSET[GET], description=text)


@pytest.mark.parametrize(
    ("text", "about"),
    [
        ("Read one ticket of the project by its id.", True),
        ("List the tickets of the project, at most 50 per call; then more.", True),
        ("TICKETS of the project.", True),
        ("Read the ticket's title.", True),
        ("Returns no more than 50 tickets per call.", True),
        ("List the open tickets, not the closed ones.", True),
        ("Read v1.2 tickets.", True),
        ("Not about tickets.", False),
        ("Lists users, not tickets.", False),
        ("Doesn't read tickets.", False),
        ("Never touches tickets.", False),
        ("Touches no tickets.", False),
        ("Read one record of the ticketing project. It is a ticket.", False),
        ("Read one ticket_id.", False),
        ("Close one record by its id. Writes: the ticket's status changes.", False),
        ("Read one record of the project.", False),
    ],
)
def test_about_tickets_reads_the_opening_sentence_for_the_whole_word(text, about):
    assert t.about_tickets(described(text)) is about


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("Read one ticket. Read-only.", True),
        ("Read one ticket; read only.", True),
        ("Read one ticket. Does not modify anything.", True),
        ("Read one ticket. No side effects.", True),
        ("Read one ticket.", False),
        ("Read one ticket. Not read-only.", False),
        ("Read one ticket. This isn't read-only.", False),
    ],
)
def test_says_read_only(text, says):
    assert t.says_read_only(described(text)) is says


def _with_description(index: int, text: str):
    def fixed_tools():
        tools = list(t.TICKET_TOOLSET)
        tools[index] = dataclasses.replace(tools[index], description=text)
        return tools

    return fixed_tools


def _failing(fixed_tools) -> dict[str, tuple[str, ...]]:
    report = run_cases(fixed_tools, t.FIXED_TOOLS_CASES)
    return {source_text(r.case.name): r.all_details for r in report.results if not r.passed}


@pytest.mark.parametrize("index", [GET, LIST])
def test_a_read_only_tool_without_read_only_in_its_description_fails_its_case(index):
    text = t.TICKET_TOOLSET[index].description.replace(" Read-only.", "")
    assert "read-only" not in text.lower()
    failing = _failing(_with_description(index, text))
    assert list(failing) == [CASE_OF[index]]
    (detail,) = failing[CASE_OF[index]]
    assert "描述写明只读" in detail


@pytest.mark.parametrize(
    ("index", "text"),
    [
        (GET, "Not about tickets: read one record of the project by its id. Read-only."),
        (GET, "Read one record of the project by its id, not a ticket. Read-only."),
        (
            CLOSE,
            "Close one record of the project by its id. Writes: the ticket's status "
            "changes to closed, visible to everyone on the project.",
        ),
        (
            LIST,
            "List the records of the ticketing project, at most 50 per call; next_cursor is "
            "null on the last page, otherwise pass it as cursor. Read-only: one ticket each.",
        ),
    ],
)
def test_a_description_naming_tickets_elsewhere_or_negated_fails_its_case(index, text):
    # The word is still there, so the old substring check (and the linter) passed these.
    assert "ticket" in text.lower()
    failing = _failing(_with_description(index, text))
    assert list(failing) == [CASE_OF[index]]
    (detail,) = failing[CASE_OF[index]]
    assert "第一句说出工单" in detail


def test_the_reference_passes_visible_and_hidden_and_hidden_checks_every_tool():
    assert run_cases(lambda: list(t.TICKET_TOOLSET), t.FIXED_TOOLS_CASES).all_passed
    hidden = t.fixed_tools_hidden_cases()
    check_hidden(lambda: list(t.TICKET_TOOLSET), hidden)
    # in any order: the per-tool description cases do not depend on the tools' positions
    check_hidden(lambda: list(reversed(t.TICKET_TOOLSET)), hidden[-3:])
    broken = _with_description(LIST, t.TICKET_TOOLSET[LIST].description.replace(" Read-only.", ""))
    with pytest.raises(AssertionError):
        check_hidden(broken, hidden[-3:])
