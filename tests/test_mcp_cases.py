"""Chapter 09's exercise table: ``word_count_spec``, served by the course's MCP server and
checked through the SDK's client.

- the library's reference passes every visible and hidden case, and the hidden cases are
  the same for the same seed;
- :func:`one_tool_server` is the course server's assembly: the listed tool is the spec's
  MCP export, every call travels the host with the operator's read-only defaults, an
  unknown name is a protocol error;
- what a case reports is what a client sees, in words a learner can act on: a crash of
  the tool's steps, a result the client refused, a function that does not return a
  ToolSpec; no temporary path and no SDK traceback leak into a report;
- the check runs where Jupyter runs it (inside an event loop), stops a function that
  loops, and reports the exercise's stub as not implemented;
- the tool's own steps count words and lines the way the task text says.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import tempfile
from collections import Counter
from typing import Any

import pytest
from mcp import Client

from tutorial_lib.core.authorization import workspace_access
from tutorial_lib.course.chapters.ch09_mcp_server.cases import (
    VISIBLE_FILES,
    WORD_COUNT_CASES,
    WORD_COUNT_SPEC_RULES,
    WORD_COUNT_STEPS,
    call_view,
    library_word_count_spec,
    one_tool_server,
    run_session,
    word_count_hidden_cases,
    workspace,
)
from tutorial_lib.course.checks import check_hidden, run_cases
from tutorial_lib.design.exports import to_mcp
from tutorial_lib.language import source_text


def failing(function: Any, cases: Any = WORD_COUNT_CASES) -> list[str]:
    return [source_text(r.case.name) for r in run_cases(function, cases).results if not r.passed]


def call(spec: Any, arguments: Any, files: Any = VISIBLE_FILES, name: str = "word_count") -> Any:
    with workspace(files) as root:
        server = one_tool_server(spec, root)

        async def scenario(client: Client) -> Any:
            return await call_view(client, name, arguments, server.host)

        return run_session(server, scenario)


# --------------------------------------------------------------------------- the reference


def test_the_reference_passes_every_visible_and_hidden_case() -> None:
    report = run_cases(library_word_count_spec, WORD_COUNT_CASES)
    assert report.all_passed, "\n".join(report.lines())
    check_hidden(library_word_count_spec, word_count_hidden_cases())


def test_the_hidden_cases_are_seeded() -> None:
    first = [(c.args, c.expected) for c in word_count_hidden_cases(seed=3, n=12)]
    again = [(c.args, c.expected) for c in word_count_hidden_cases(seed=3, n=12)]
    other = [(c.args, c.expected) for c in word_count_hidden_cases(seed=4, n=12)]
    assert first == again and first != other


def test_the_hidden_cases_reach_every_outcome() -> None:
    outcomes: Counter[str] = Counter()
    for case in word_count_hidden_cases():
        seen = case.expected["tools/call"]
        outcomes["ok" if seen.get("isError") is False else seen.get("code", "other")] += 1
        listed = case.expected["tools/list"]
        assert listed["name"] == "word_count" and listed["readOnlyHint"] is True
        probes = [key for key in listed if key.startswith(("接受", "拒绝"))]
        assert len(probes) == 4 and all(listed[key] is True for key in probes)
    wanted = {"ok", "missing_field", "invalid_type", "invalid_range", "unknown_field",
              "not_found", "not_a_file"}  # fmt: skip
    assert wanted <= set(outcomes), outcomes
    assert outcomes["ok"] >= 8, outcomes


def test_every_rule_names_a_visible_case_listing_rules_first() -> None:
    by_name = {source_text(case.name): case for case in WORD_COUNT_CASES}
    assert len(by_name) == len(WORD_COUNT_CASES)
    kinds = [by_name[source_text(rule.visible)].via.__name__ for rule in WORD_COUNT_SPEC_RULES]  # type: ignore[union-attr]
    assert kinds == ["_via_listing"] * 9 + ["_via_call"] * 8


# --------------------------------------------------------------------------- the server


def test_one_tool_server_lists_the_specs_export_and_calls_through_the_host() -> None:
    spec = library_word_count_spec()
    with workspace(VISIBLE_FILES) as root:
        server = one_tool_server(spec, root)

        async def scenario(client: Client) -> Any:
            (tool,) = (await client.list_tools()).tools
            ok = await call_view(client, "word_count", {"path": "docs/guide.md"})
            unknown = await call_view(client, "wordcount", {"path": "notes.txt"})
            return tool.model_dump(by_alias=True, exclude_none=True), ok, unknown

        wire, ok, unknown = run_session(server, scenario)
        assert [record.tool for record in server.host.log] == ["word_count"]
    assert wire == to_mcp(spec)
    # "# Guide", "step", "one", "step", "two"; an empty line, a last line without "\n"
    assert ok == {
        "isError": False,
        "structuredContent": {"path": "docs/guide.md", "words": 6, "lines": 4},
    }
    assert unknown == {"协议错误": -32602, "message": "Unknown tool: wordcount"}


def test_the_served_scope_is_the_operators_read_only_default() -> None:
    # a tool the operator declared as a write is refused by the host: nothing is granted
    # but read, whatever the declaration's annotations say
    with workspace(VISIBLE_FILES) as root:
        server = one_tool_server(library_word_count_spec(), root, workspace_access("write"))

        async def scenario(client: Client) -> Any:
            return await call_view(client, "word_count", {"path": "notes.txt"})

        seen = run_session(server, scenario)
    assert seen == {"isError": True, "code": "permission_denied"}


def test_a_crash_of_the_steps_is_reported_without_an_sdk_traceback(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    schema = json.loads(json.dumps(library_word_count_spec().input_schema))
    del schema["properties"]["path"]["type"]  # 5 reaches the steps unchecked
    spec = dataclasses.replace(library_word_count_spec(), input_schema=schema)
    assert call(spec, {"path": 5}) == {
        "isError": True,
        "text": "Error executing tool word_count",  # all the client sees
        "宿主的日志": "TypeError（在 resolution 站）",  # what the host logged
    }
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    assert not [r for r in caplog.records if r.name.startswith("mcp")]


def test_a_result_the_client_refuses_is_reported_as_such() -> None:
    output = json.loads(json.dumps(library_word_count_spec().output_schema))
    output["properties"]["words"] = {"type": "string"}
    spec = dataclasses.replace(library_word_count_spec(), output_schema=output)
    seen = call(spec, {"path": "notes.txt"})
    (reason,) = seen.values()
    assert set(seen) == {"客户端拒绝了结果"}
    assert (
        reason
        == "Invalid structured content returned by tool word_count: 11 is not of type 'string'"
    )


def test_reports_hold_no_temporary_path() -> None:
    folder = tempfile.gettempdir()
    for case in WORD_COUNT_CASES:
        assert case.via is not None
        seen = case.via(library_word_count_spec, *case.args)
        assert folder not in json.dumps(seen, ensure_ascii=False), case.name
    for arguments in ({"path": "../outside.txt"}, {"path": "/etc/hostname"}, {"path": "src/x"}):
        assert folder not in json.dumps(call(library_word_count_spec(), arguments))


# --------------------------------------------------------------------------- the check


def test_a_function_that_returns_no_toolspec_gets_a_plain_answer() -> None:
    report = run_cases(lambda steps: {"name": "word_count"}, WORD_COUNT_CASES[:1])
    (result,) = report.results
    assert result.status == "fail"
    assert "word_count_spec 返回的是 dict，不是 ToolSpec" in result.got


def test_the_stub_is_not_implemented_and_a_loop_is_stopped() -> None:
    def stub(steps: Any) -> Any:
        raise NotImplementedError()

    assert run_cases(stub, WORD_COUNT_CASES).not_implemented

    def loops(steps: Any) -> Any:
        while True:
            pass

    report = run_cases(loops, WORD_COUNT_CASES[:1], time_limit_s=0.3)
    assert [r.status for r in report.results] == ["timeout"]


def test_the_check_runs_inside_a_running_event_loop_as_in_jupyter() -> None:
    async def in_a_kernel() -> list[str]:
        asyncio.get_running_loop()  # a kernel's main thread runs a loop like this one
        return failing(library_word_count_spec)

    assert asyncio.run(in_a_kernel()) == []


def test_mistakes_fail_the_case_of_their_rule() -> None:
    honest = library_word_count_spec()
    pessimistic = dataclasses.replace(honest, annotations=type(honest.annotations)(read_only=True))
    assert failing(lambda steps: pessimistic) == ["另外三个注解也写出来"]
    loose = json.loads(json.dumps(honest.input_schema))
    del loose["additionalProperties"]
    assert failing(lambda steps: dataclasses.replace(honest, input_schema=loose)) == [
        "模型加了 confirm: true：unknown_field"
    ]


def test_a_learner_reads_the_rule_of_the_trials_answers_at_their_first_cross() -> None:
    """Two answers from a learner trial: the whole description as the title, and path
    declared nullable. Each fails its own rule's case, and first (a learner reads the
    first ✗)."""
    honest = library_word_count_spec()
    long_title = dataclasses.replace(honest, title=honest.description)
    assert failing(lambda steps: long_title) == ["title 最多 60 个字符，不照抄 description"]
    nullable = json.loads(json.dumps(honest.input_schema))
    nullable["properties"]["path"]["type"] = ["string", "null"]
    seen = failing(lambda steps: dataclasses.replace(honest, input_schema=nullable))
    assert seen[0] == "path 是 null：invalid_type", seen


@pytest.mark.parametrize(
    ("title", "description", "short"),
    [
        ("x" * 60, None, True),
        ("x" * 61, None, False),
        (" Count words ", None, True),  # what is counted is the stripped title
        ("Count words. Read-only.", "Count words. Read-only.", False),  # a copy, though short
        ("Count words", "Count words. Read-only.", True),
    ],
)
def test_a_short_title_has_at_most_60_characters_and_is_not_the_description(
    title: str, description: str | None, short: bool
) -> None:
    honest = library_word_count_spec()
    spec = dataclasses.replace(honest, title=title, description=description or honest.description)
    failed = "title 最多 60 个字符，不照抄 description" in failing(lambda steps: spec)
    assert failed is not short


# --------------------------------------------------------------------------- the tool's steps


@pytest.mark.parametrize(
    ("content", "arguments", "words", "lines"),
    [
        ("", {}, 0, 0),
        ("one two\n", {}, 2, 1),
        ("one two", {}, 2, 1),  # a last line without a newline counts
        ("\n\n", {}, 0, 2),
        ("a\tb\u3000c\u00a0d\r\ne\n", {}, 5, 2),  # tabs, ideographic and no-break spaces, CRLF
        ("\ufeffhello world\n", {}, 2, 1),  # a byte order mark is not a character
        ("可靠的 工具接口\n", {"min_length": 4}, 1, 1),  # characters, not bytes
        ("road. calls station\n", {"min_length": 5}, 3, 1),  # punctuation is part of a word
    ],
)
def test_the_steps_count_words_and_lines(
    content: str, arguments: dict[str, Any], words: int, lines: int
) -> None:
    seen = call(library_word_count_spec(), {"path": "f.txt", **arguments}, {"f.txt": content})
    assert seen == {
        "isError": False,
        "structuredContent": {"path": "f.txt", "words": words, "lines": lines},
    }


@pytest.mark.parametrize(
    ("content", "code"),
    [(b"PNG\x00\x01", "binary_file"), ("caf\xe9\n".encode("latin-1"), "undecodable_text")],
)
def test_the_steps_refuse_what_is_not_utf8_text(content: bytes, code: str) -> None:
    seen = call(library_word_count_spec(), {"path": "f.bin"}, {"f.bin": content})
    assert seen == {"isError": True, "code": code, "field": "path"}


def test_the_steps_are_the_read_tools_checks() -> None:
    assert set(WORD_COUNT_STEPS) == {"check", "execute", "source", "resolve"}
    seen = call(library_word_count_spec(), {"path": "docs/../notes.txt"})
    assert seen["isError"] is False and seen["structuredContent"]["words"] == 11
    # the authorization station refuses a path outside the scope before any step runs
    assert call(library_word_count_spec(), {"path": "../notes.txt"})["code"] == "permission_denied"
