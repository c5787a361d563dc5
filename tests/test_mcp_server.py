"""The course's tools over MCP (tutorial_lib.mcp_server), in memory with the SDK's Client.

- every tool is listed exactly as its ToolSpec declares it (name, title, description,
  inputSchema, outputSchema, annotations), never more optimistic than the operator's
  declaration, and every call travels the host;
- results: a success is the envelope's data as structured content (and the same JSON as
  text); a failure is ``isError`` with the whole envelope; an unknown tool is a protocol
  error (-32602);
- scope: ``--path docs`` refuses every path outside docs/ with the same
  ``permission_denied``, whether it exists or not; a write without a grant is refused;
- confirmation by elicitation on the default protocol (2026-07-28) and on the legacy one:
  accept posts exactly once and a replayed approval is refused by the host's flow;
  decline / cancel post nothing; a client that cannot elicit gets the host's
  ``confirmation_required``;
- hostile arguments through the server: no call raises, every result is a valid result.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.shared.exceptions import MCPError

from tutorial_lib.core.contracts import ENVELOPE_SCHEMA
from tutorial_lib.design.exports import to_mcp
from tutorial_lib.emulator.fixtures import DOUBLE_ROUNDING_COMMENT_ID, build_store
from tutorial_lib.emulator.service import serve
from tutorial_lib.github.composite import REVIEW_SNAPSHOT_SPEC
from tutorial_lib.github.dangerous import DANGEROUS_SPECS
from tutorial_lib.github.reads import READ_SPECS
from tutorial_lib.github.writes import WRITE_SPECS
from tutorial_lib.mcp_server.config import ServerConfig
from tutorial_lib.mcp_server.results import error_envelope
from tutorial_lib.mcp_server.server import CourseServer, build_server
from tutorial_lib.workspace.read import READ_LINES_SPEC
from tutorial_lib.workspace.search import SEARCH_FILES_SPEC

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
REPO, PR = "example/shop", 128
#: In memory, "auto" adopts the newest protocol (stateless: questions ride the result);
#: "legacy" is the initialize handshake (questions are requests in the middle of a call).
MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}
TOOLS = [
    "read_lines",
    "search_files",
    "github_pr_get",
    "github_pr_list_comments",
    "github_pr_get_comment",
    "github_pr_get_review_snapshot",
    "github_pr_list_conversation",
    "github_pr_create_comment",
    "github_pr_get_comment_status",
    "github_pr_merge",
    "github_pr_delete_comment",
    "github_pr_edit_comment",
]
#: Valid arguments of every tool (the hostile cases spoil one part of them).
VALID: dict[str, dict[str, Any]] = {
    "read_lines": {"path": "docs/guide.md", "start": 1, "count": 2},
    "search_files": {"query": "step", "path": "docs"},
    "github_pr_get": {"repository": REPO, "pr": PR},
    "github_pr_list_comments": {"repository": REPO, "pr": PR, "page_size": 5},
    "github_pr_get_comment": {"repository": REPO, "pr": PR, "comment_id": 1700000042},
    "github_pr_get_review_snapshot": {"repository": REPO, "pr": PR},
    "github_pr_list_conversation": {"repository": REPO, "pr": PR},
    "github_pr_create_comment": {
        "repository": REPO,
        "pr": PR,
        "body": "Summary: two blocking issues.",
        "idempotency_key": "mcp-test-key-0001",
    },
    "github_pr_get_comment_status": {
        "repository": REPO,
        "pr": PR,
        "idempotency_key": "mcp-test-key-0001",
    },
    "github_pr_merge": {"repository": REPO, "pr": PR},
    "github_pr_delete_comment": {
        "repository": REPO,
        "pr": PR,
        "comment_id": DOUBLE_ROUNDING_COMMENT_ID,
        "kind": "review",
    },
    "github_pr_edit_comment": {
        "repository": REPO,
        "pr": PR,
        "comment_id": DOUBLE_ROUNDING_COMMENT_ID,
        "kind": "review",
        "body": "Edited.",
    },
}
#: The declarations (unbound): what the listing and the results are checked against.
SPECS = {
    spec.name: spec
    for spec in (
        READ_LINES_SPEC,
        SEARCH_FILES_SPEC,
        *READ_SPECS,
        REVIEW_SNAPSHOT_SPEC,
        *WRITE_SPECS,
        *DANGEROUS_SPECS,
    )
}
WRITES = ("github_pr_create_comment", "github_pr_merge", "github_pr_delete_comment",
          "github_pr_edit_comment")  # fmt: skip


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\nstep one\nstep two\n", encoding="utf-8")
    (root / "src" / "app.py").write_text("print('app')\n", encoding="utf-8")
    (root / "notes.txt").write_text("notes\n", encoding="utf-8")
    (root / ".env").write_text("TOKEN=not-a-real-secret\n", encoding="utf-8")
    (root / "docs" / "app-link.py").symlink_to("../src/app.py")
    return root


@contextlib.contextmanager
def served(workspace: Path, **settings: Any) -> Iterator[CourseServer]:
    settings.setdefault("repositories", (REPO,))
    with build_server(ServerConfig(root=workspace, **settings)) as server:
        yield server


class Answers:
    """An elicitation callback: answers every question with ``action``, records each one."""

    def __init__(self, action: str) -> None:
        self.action = action
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        content = {} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


def session(
    server: CourseServer,
    scenario: Callable[[Client], Awaitable[None]],
    *,
    mode: str = "auto",
    answers: Answers | None = None,
) -> None:
    """Run ``scenario`` with a Client connected in memory to ``server``."""

    async def main() -> None:
        callback = {} if answers is None else {"elicitation_callback": answers}
        async with Client(server.mcp, mode=mode, **callback) as client:
            assert client.protocol_version == MODES[mode]
            await scenario(client)

    anyio.run(main)


def text_json(result: types.CallToolResult) -> Any:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    block.text.encode("utf-8")  # never a lone surrogate on the wire
    return json.loads(block.text)


def check_result(result: Any, name: str) -> dict[str, Any]:
    """A valid tool result of ``name``, as every client accepts it: a success is structured
    content valid against the tool's output schema and equal to its text; a failure is the
    whole envelope as JSON text and no structured content (clients check structured content
    against the output schema even when ``isError`` is set). Returns what it carries."""
    assert isinstance(result, types.CallToolResult), result
    carried = text_json(result)
    assert isinstance(carried, dict)
    if result.is_error:
        assert result.structured_content is None, result.structured_content
        ENVELOPE.validate(carried)
        assert carried["ok"] is False and carried["tool"] == name
        assert error_envelope(result) == carried
    else:
        assert result.structured_content == carried
        schema = to_mcp(SPECS[name]).get("outputSchema")
        if schema is not None:
            Draft202012Validator(schema).validate(carried)
    return carried


def error_of(result: types.CallToolResult, name: str) -> dict[str, Any]:
    assert result.is_error, result
    return check_result(result, name)["error"]


def comments(server: CourseServer) -> int:
    assert server.store is not None
    return len(server.store.issue_comments(REPO, PR))


# --------------------------------------------------------------------------- the listing


@pytest.mark.parametrize("mode", MODES)
def test_every_tool_is_listed_as_its_spec_declares_it(workspace: Path, mode: str) -> None:
    with served(workspace) as server:

        async def scenario(client: Client) -> None:
            listed = (await client.list_tools()).tools
            assert [tool.name for tool in listed] == TOOLS
            for tool in listed:
                wire = tool.model_dump(by_alias=True, exclude_none=True)
                declared = to_mcp(SPECS[tool.name])
                for key in ("name", "title", "description", "inputSchema"):
                    assert wire[key] == declared[key], (tool.name, key)
                assert wire.get("outputSchema") == declared.get("outputSchema"), tool.name

        session(server, scenario, mode=mode)


#: (readOnlyHint, destructiveHint, idempotentHint, openWorldHint) of every tool as listed.
HINTS = {
    "read_lines": (True, False, True, False),
    "search_files": (True, False, True, False),
    **dict.fromkeys(
        [
            "github_pr_get",
            "github_pr_list_comments",
            "github_pr_get_comment",
            "github_pr_get_review_snapshot",
            "github_pr_list_conversation",
            "github_pr_get_comment_status",
        ],
        (True, False, True, True),
    ),
    "github_pr_create_comment": (False, False, True, True),
    "github_pr_merge": (False, True, True, True),
    "github_pr_delete_comment": (False, True, True, True),
    "github_pr_edit_comment": (False, True, True, True),
}


def test_annotations_are_the_specs_and_never_beyond_the_operators_declaration(
    workspace: Path,
) -> None:
    with served(workspace) as server:

        async def scenario(client: Client) -> None:
            for tool in (await client.list_tools()).tools:
                assert tool.annotations is not None
                hints = tool.annotations
                listed = (
                    hints.read_only_hint,
                    hints.destructive_hint,
                    hints.idempotent_hint,
                    hints.open_world_hint,
                )
                assert listed == HINTS[tool.name], tool.name
                spec = server.registry.get(tool.name).annotations
                assert hints.read_only_hint == (
                    spec.read_only and server.host.access[tool.name].action == "read"
                )

        session(server, scenario)


# --------------------------------------------------------------------------- every tool


def test_every_tool_answers_through_the_host(workspace: Path) -> None:
    with served(workspace) as server:

        async def scenario(client: Client) -> None:
            for name in TOOLS:
                result = await client.call_tool(name, VALID[name])
                data = check_result(result, name)
                if name in WRITES:  # read only by default: refused, nothing asked
                    assert data["error"]["code"] == "permission_denied", data
                    assert "is not granted for this task" in data["error"]["message"]
                else:
                    assert result.is_error is False, data
            assert {record.tool for record in server.host.log} == set(TOOLS)

        session(server, scenario)
        assert comments(server) == len(build_store().issue_comments(REPO, PR))


def test_a_success_is_the_data_and_a_failure_the_whole_envelope(workspace: Path) -> None:
    with served(workspace) as server:

        async def scenario(client: Client) -> None:
            ok = await client.call_tool("read_lines", VALID["read_lines"])
            assert not ok.is_error
            assert ok.structured_content == {
                "path": "docs/guide.md",
                "start": 1,
                "lines": [{"number": 1, "text": "# Guide"}, {"number": 2, "text": "step one"}],
                "total_lines": 3,
                "has_more": True,
            }
            missing = await client.call_tool(
                "read_lines", {**VALID["read_lines"], "path": "docs/x"}
            )
            envelope = check_result(missing, "read_lines")
            assert set(envelope) == {"schema_version", "ok", "tool", "error"}
            error = envelope["error"]
            assert error["code"] == "not_found"
            assert {"retry", "operation_state", "suggestion"} <= set(error)
            # an integer sent as a string is the host's invalid_type, not the SDK's coercion
            typed = await client.call_tool("read_lines", {**VALID["read_lines"], "start": "1"})
            assert error_of(typed, "read_lines")["code"] == "invalid_type"

        session(server, scenario)


def test_a_paging_tool_keeps_cursor_in_its_arguments(workspace: Path) -> None:
    with served(workspace) as server:

        async def scenario(client: Client) -> None:
            args = VALID["github_pr_list_comments"]
            first = check_result(
                await client.call_tool("github_pr_list_comments", args), "github_pr_list_comments"
            )
            cursor = first["next_cursor"]
            second = await client.call_tool("github_pr_list_comments", {**args, "cursor": cursor})
            ids = [
                c["comment_id"] for c in check_result(second, "github_pr_list_comments")["comments"]
            ]
            assert ids and not set(ids) & {c["comment_id"] for c in first["comments"]}

        session(server, scenario)


@pytest.mark.parametrize("mode", MODES)
def test_an_unknown_tool_is_a_protocol_error(workspace: Path, mode: str) -> None:
    with served(workspace) as server:

        async def scenario(client: Client) -> None:
            for name in ("no_such_tool", "read_lines ", "x" * 300):
                with pytest.raises(MCPError) as raised:
                    await client.call_tool(name, {})
                assert raised.value.code == types.INVALID_PARAMS
                assert len(raised.value.message) < 120

        session(server, scenario, mode=mode)


# --------------------------------------------------------------------------- scope


def test_a_path_scope_refuses_every_outside_path_the_same_way_existing_or_not(
    workspace: Path,
) -> None:
    def same(result: types.CallToolResult, path: str) -> str:
        text = json.dumps(error_of(result, text_json(result)["tool"]))
        return text.replace(json.dumps(path)[1:-1], "<PATH>")

    pairs = [  # (exists, does not exist)
        ("src/app.py", "src/none.py"),
        ("notes.txt", "none.txt"),
        ("src", "nodir"),
        (".env", ".env2"),
        ("docs/../src/app.py", "docs/../src/none.py"),
        ("../ws/src/app.py", "../ws/src/none.py"),
        (f"{workspace}/src/app.py", f"{workspace}/src/none.py"),
    ]
    with served(workspace, paths=("docs",)) as server:

        async def scenario(client: Client) -> None:
            for tool, key, extra in (
                ("read_lines", "path", {"start": 1, "count": 1}),
                ("search_files", "path", {"query": "app"}),
            ):
                for there, absent in pairs:
                    a = await client.call_tool(tool, {key: there, **extra})
                    b = await client.call_tool(tool, {key: absent, **extra})
                    assert same(a, there) == same(b, absent), (tool, there)
                    if not there.startswith("/"):
                        assert error_of(a, tool)["code"] == "permission_denied", (tool, there)
            # inside docs/: allowed; a link in docs/ that leads outside: refused
            assert not (await client.call_tool("read_lines", VALID["read_lines"])).is_error
            link = await client.call_tool("read_lines", {"path": "docs/app-link.py", "start": 1,
                                                         "count": 1})  # fmt: skip
            assert error_of(link, "read_lines")["code"] == "permission_denied"
            whole = await client.call_tool("search_files", {"query": "app"})  # default "."
            assert error_of(whole, "search_files")["code"] == "permission_denied"

        session(server, scenario)


def test_a_write_without_a_grant_is_refused_and_asks_nothing(workspace: Path) -> None:
    answers = Answers("accept")
    with served(workspace) as server:  # read only: the default
        before = comments(server)

        async def scenario(client: Client) -> None:
            result = await client.call_tool("github_pr_create_comment", VALID[WRITES[0]])
            error = error_of(result, WRITES[0])
            assert error["code"] == "permission_denied"
            assert error["message"] == (
                "write is not granted for this task ('github_pr_create_comment' is declared"
                " as write)"
            )

        session(server, scenario, answers=answers)
        assert comments(server) == before and answers.asked == []


def test_a_repository_outside_the_scope_is_refused(workspace: Path) -> None:
    with served(workspace, grants=frozenset({"read", "write"})) as server:

        async def scenario(client: Client) -> None:
            for name in ("github_pr_get", "github_pr_create_comment"):
                result = await client.call_tool(name, {**VALID[name], "repository": "other/shop"})
                assert error_of(result, name)["code"] == "permission_denied"

        session(server, scenario, answers=Answers("accept"))


# --------------------------------------------------------------------------- confirmation

WRITE = {"grants": frozenset({"read", "write"})}


@pytest.mark.parametrize("mode", MODES)
def test_accept_posts_exactly_once_and_the_same_call_again_is_asked_again(
    workspace: Path, mode: str
) -> None:
    answers = Answers("accept")
    args = VALID["github_pr_create_comment"]
    with served(workspace, **WRITE) as server:
        before = comments(server)

        async def scenario(client: Client) -> None:
            posted = await client.call_tool("github_pr_create_comment", args)
            first = check_result(posted, WRITES[0])
            assert first["status"] == "posted"
            # a new call, e.g. a retry after a lost reply: the user is asked again, and the
            # same idempotency key returns the comment already posted, not a second one
            again = await client.call_tool("github_pr_create_comment", args)
            second = check_result(again, WRITES[0])
            assert (second["status"], second["attempts"]) == ("already_posted", 0)
            assert second["comment_id"] == first["comment_id"]

        session(server, scenario, mode=mode, answers=answers)
        assert comments(server) == before + 1
        assert len(answers.asked) == 2
        question = answers.asked[0]
        assert question.requested_schema["properties"] == {}  # no field: nothing to type in
        assert question.message.startswith("Run github_pr_create_comment with these arguments?")
        assert (
            f"body: {args['body']}" in question.message and "(question mcp-1)" in question.message
        )
        assert "(question mcp-2)" in answers.asked[1].message
        events = [(r.request_id, r.event, r.by) for r in server.host.flow.audit]
        assert events == [
            ("mcp-1", "prepared", None),
            ("mcp-1", "asked", None),
            ("mcp-1", "accepted", "mcp_elicitation"),
            ("mcp-1", "executed", "mcp_elicitation"),
            ("mcp-1", "set_aside", "mcp_elicitation"),
            ("mcp-2", "prepared", None),
            ("mcp-2", "asked", None),
            ("mcp-2", "accepted", "mcp_elicitation"),
            ("mcp-2", "executed", "mcp_elicitation"),
        ]


@pytest.mark.parametrize("mode", MODES)
def test_the_same_call_again_declined_runs_nothing(workspace: Path, mode: str) -> None:
    args = VALID["github_pr_create_comment"]
    with served(workspace, **WRITE) as server:
        before = comments(server)
        answers = Answers("accept")

        async def scenario(client: Client) -> None:
            check_result(await client.call_tool(WRITES[0], args), WRITES[0])
            answers.action = "decline"
            error = error_of(await client.call_tool(WRITES[0], args), WRITES[0])
            assert (error["code"], error["operation_state"]) == ("approval_invalid", "not_applied")
            assert error["message"].startswith("the user declined question mcp-2")

        session(server, scenario, mode=mode, answers=answers)
        assert comments(server) == before + 1 and len(answers.asked) == 2


def test_a_replayed_approval_round_is_refused_by_the_host_flow(workspace: Path) -> None:
    args = VALID["github_pr_create_comment"]
    with served(workspace, **WRITE) as server:
        before = comments(server)

        async def scenario(client: Client) -> None:
            # drive the 2026-07-28 rounds by hand: ask, answer, then replay the answer
            asked = await client.session.call_tool(WRITES[0], args, allow_input_required=True)
            assert isinstance(asked, types.InputRequiredResult)
            (key,) = asked.input_requests
            answer = {key: types.ElicitResult(action="accept", content={})}
            rounds = [
                await client.session.call_tool(
                    WRITES[0],
                    args,
                    input_responses=answer,
                    request_state=asked.request_state,
                    allow_input_required=True,
                )
                for _ in range(2)
            ]
            assert check_result(rounds[0], WRITES[0])["status"] == "posted"
            error = error_of(rounds[1], WRITES[0])  # type: ignore[arg-type]
            assert (error["code"], error["operation_state"]) == ("approval_invalid", "not_applied")
            # the SDK's sealed state is bound to the arguments: other ones are a protocol error
            with pytest.raises(MCPError):
                await client.session.call_tool(
                    WRITES[0],
                    {**args, "body": "Another text."},
                    input_responses=answer,
                    request_state=asked.request_state,
                    allow_input_required=True,
                )

        session(server, scenario, answers=Answers("accept"))  # declares the capability
        assert comments(server) == before + 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_or_cancel_posts_nothing_and_says_so(
    workspace: Path, mode: str, action: str
) -> None:
    answers = Answers(action)
    with served(workspace, **WRITE) as server:
        before = comments(server)

        async def scenario(client: Client) -> None:
            result = await client.call_tool(WRITES[0], VALID[WRITES[0]])
            error = error_of(result, WRITES[0])
            assert error["code"] == "approval_invalid"
            assert error["operation_state"] == "not_applied"
            word = {"decline": "declined", "cancel": "cancelled"}[action]
            assert error["message"] == (
                f"the user {word} question mcp-1: 'github_pr_create_comment' did not run"
            )
            again = await client.call_tool(WRITES[0], VALID[WRITES[0]])
            assert error_of(again, WRITES[0])["code"] == "approval_invalid"

        session(server, scenario, mode=mode, answers=answers)
        assert comments(server) == before
        # a declined call is not asked again; a cancelled one is (a new question)
        assert len(answers.asked) == (1 if action == "decline" else 2)
        states = [r.state for r in server.host.flow.requests]
        assert "executed" not in states and "accepted" not in states


@pytest.mark.parametrize("mode", MODES)
def test_a_client_that_cannot_elicit_gets_the_hosts_confirmation_required(
    workspace: Path, mode: str
) -> None:
    with served(workspace, **WRITE) as server:
        before = comments(server)

        async def scenario(client: Client) -> None:
            result = await client.call_tool(WRITES[0], VALID[WRITES[0]])
            error = error_of(result, WRITES[0])
            assert error["code"] == "confirmation_required"
            assert error["confirmation"] == {
                "request_id": "mcp-1",
                "question": "Run github_pr_create_comment with these arguments?",
                "options": ["accept", "decline", "cancel"],
            }

        session(server, scenario, mode=mode)  # no elicitation callback: no capability
        assert comments(server) == before


def test_a_model_set_confirm_argument_is_no_confirmation(workspace: Path) -> None:
    answers = Answers("accept")
    with served(workspace, **WRITE) as server:
        before = comments(server)

        async def scenario(client: Client) -> None:
            for extra in ({"confirm": True}, {"approved": True, "request_id": "mcp-1"}):
                result = await client.call_tool(WRITES[0], {**VALID[WRITES[0]], **extra})
                assert error_of(result, WRITES[0])["code"] == "unknown_field"

        session(server, scenario, answers=answers)
        assert comments(server) == before and answers.asked == []


@pytest.mark.parametrize("mode", MODES)
def test_a_delete_asks_with_the_tools_preview_and_runs_once(workspace: Path, mode: str) -> None:
    answers = Answers("accept")
    args = VALID["github_pr_delete_comment"]
    with served(workspace, grants=frozenset({"read", "delete"})) as server:
        assert server.store is not None
        assert server.store.review_comment(REPO, DOUBLE_ROUNDING_COMMENT_ID) is not None

        async def scenario(client: Client) -> None:
            result = await client.call_tool("github_pr_delete_comment", args)
            assert not result.is_error, text_json(result)

        session(server, scenario, mode=mode, answers=answers)
        assert server.store.review_comment(REPO, DOUBLE_ROUNDING_COMMENT_ID) is None
        (question,) = answers.asked
        assert question.message.startswith(f"Delete comment {DOUBLE_ROUNDING_COMMENT_ID}?")
        assert "impact: the text is gone for everyone" in question.message


def test_another_github_api_is_reached_with_the_token_from_the_environment(
    workspace: Path,
) -> None:
    token = "emulator-token-0001"
    with serve(build_store(), token=token) as service:
        for environ, expected in (({"COURSE_TOKEN": token}, False), ({}, True)):
            config = ServerConfig(
                root=workspace,
                github=service.base_url,
                token_env="COURSE_TOKEN",
                repositories=(REPO,),
                environ=environ,
            )
            assert token not in config.summary()
            with build_server(config) as server:
                assert server.store is None

                async def scenario(client: Client, expected: bool = expected) -> None:
                    result = await client.call_tool("github_pr_get", VALID["github_pr_get"])
                    check_result(result, "github_pr_get")
                    assert result.is_error is expected  # without the token: 401, refused

                session(server, scenario)


# --------------------------------------------------------------------------- hostile arguments


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def hostile_values(prop: dict[str, Any], valid: Any) -> list[Any]:
    """Chapter 06's hostile kinds for one argument: wrong types, ``true`` for an integer,
    an integer as a string, out of range, huge, lone surrogates, deep nesting, null."""
    values: list[Any] = [[valid], {"value": valid}, None, 1.5, nested(200)]
    if prop.get("type") == "integer":
        values += [True, False, str(valid), 0, -1, 2**53, 10**30, "1e3"]
    else:
        values += [12345, True, "", " ", "x" * 200_000, "\ud800", "a\udfffb", "\x00",
                   f"{valid}\n"]  # fmt: skip
    return values


def hostile_cases() -> Iterator[tuple[str, Any]]:
    for name in TOOLS:
        valid = VALID[name]
        schema = SPECS[name].input_schema
        for field in schema.get("required", []):
            yield name, {k: v for k, v in valid.items() if k != field}  # missing
        for field, prop in schema["properties"].items():
            for value in hostile_values(prop, valid.get(field, "x")):
                yield name, {**valid, field: value}
        yield name, {}
        yield name, {**valid, "extra": 1}
        yield name, {**valid, "confirm": True}
        yield name, {**valid, "k" * 10_000: 1}
        yield name, {**valid, "\ud800": "surrogate key"}


def test_hostile_arguments_through_the_server_give_valid_results(workspace: Path) -> None:
    answers = Answers("decline")
    codes: Counter[str] = Counter()
    with served(workspace) as server:  # read only: no hostile call reaches a question
        before = comments(server)
        cases = list(hostile_cases())

        async def scenario(client: Client) -> None:
            for name, args in cases:
                result = await client.call_tool(name, args)
                data = check_result(result, name)
                codes[data["error"]["code"] if result.is_error else "ok"] += 1

        session(server, scenario, answers=answers)
        legacy = cases[::9]

        async def legacy_scenario(client: Client) -> None:
            for name, args in legacy:
                check_result(await client.call_tool(name, args), name)

        session(server, legacy_scenario, mode="legacy", answers=answers)
        assert comments(server) == before and answers.asked == []
    assert len(cases) > 400
    # every hostile value is refused by the host's contract, except where the schema has
    # nothing to refuse (a search for a strange string, a comment id nobody has)
    assert codes["ok"] < len(cases) // 10, codes
    assert {"invalid_type", "missing_field", "unknown_field", "invalid_range"} <= set(codes)


def test_hostile_arguments_to_granted_writes_ask_only_clean_questions(workspace: Path) -> None:
    # with every grant, what passes the schema and the business check reaches the user's
    # question: the user declines, nothing changes, and no question carries a lone surrogate
    answers = Answers("decline")
    grants = frozenset({"read", "write", "delete", "send"})
    with served(workspace, grants=grants) as server:
        assert server.store is not None
        before = (comments(server), server.store.review_comment(REPO, DOUBLE_ROUNDING_COMMENT_ID))
        cases = [(name, args) for name, args in hostile_cases() if name in WRITES]

        async def scenario(client: Client) -> None:
            for name, args in cases:
                check_result(await client.call_tool(name, args), name)

        session(server, scenario, answers=answers)
        after = (comments(server), server.store.review_comment(REPO, DOUBLE_ROUNDING_COMMENT_ID))
        assert after == before
        pull = server.store.pull_request(REPO, PR)
        assert pull is not None and pull.state == "open"
    assert answers.asked  # some hostile values are valid text: the user was asked
    for question in answers.asked:
        question.message.encode("utf-8")
        assert question.requested_schema["properties"] == {}
