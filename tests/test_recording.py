"""Runs recorded as JSON Lines and replayed: tutorial_lib.agent.recording.

The first tests drive the real ``openai`` SDK (skipped without it) through
:class:`~tutorial_lib.agent.real_models.OpenAIModel` with ``base_url`` pointing at a fake
OpenAI-compatible server on 127.0.0.1 (stdlib ``http.server``, port 0): a scripted policy
that reacts to what it receives (the tool list, the tool results), as a local model
server would. No key, no network beyond 127.0.0.1. The others use
:class:`~tutorial_lib.agent.loop.ScriptedModel`. Workspace: ``notes.txt``, 25 lines (two
pages of read_lines' 20).
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tutorial_lib.agent import recording
from tutorial_lib.agent.loop import (
    FinalAnswer,
    ReadWholeFile,
    ScriptedModel,
    ToolCall,
    Transcript,
    run_agent,
    zero_based_lines,
)
from tutorial_lib.agent.real_models import LOCAL_API_KEY, OpenAIModel, openai_tools
from tutorial_lib.agent.recording import (
    RecordingModel,
    ReplayMismatch,
    ReplayModel,
    TranscriptLog,
    canonical_json,
)
from tutorial_lib.core.contracts import dumps
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry
from tutorial_lib.workspace.read import read_lines_tool

SYSTEM = "Use the tools."
REQUEST = "Read notes.txt completely and say how many lines it has."
LINES = [f"line {n}" for n in range(1, 26)]
LINES[2] = "第三行 — non-ASCII stays readable"
#: What the environment's key is in these tests: it must never reach the local server.
REAL_KEY = "sk-real-key-that-must-not-leave-the-machine"


def workspace(root: Path, lines: list[str] = LINES) -> Registry:
    root.mkdir(parents=True, exist_ok=True)
    (root / "notes.txt").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return Registry([read_lines_tool(root)])  # read-only: its host needs no guards


def meta(model_id: str = "scripted", **settings: Any) -> dict[str, Any]:
    return {
        "model": model_id,
        "date": "2025-01-31",
        "settings": settings,
        "task": "count the lines of notes.txt",
        "interface": "read_lines v1",
    }


# --------------------------------------------------------------------------- the fake server


def policy(body: dict[str, Any]) -> dict[str, Any]:
    """The scripted local "model": a chat.completion reacting to the request it got.

    No tool result yet: call read_lines on the file the user names, with the arguments
    its schema allows (``start`` its minimum, ``count`` its maximum). After a result with
    ``"ok": true`` and ``has_more``: the next page. After the last page: the number of
    lines it read, counted from the results. After an error: give up, naming its code.
    """
    (tool,) = [t["function"] for t in body["tools"] if t["function"]["name"] == "read_lines"]
    properties = tool["parameters"]["properties"]
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    named = re.search(r"[\w.-]+\.txt", user)
    assert named is not None, user
    path = named.group(0)
    results = [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]
    arguments: dict[str, Any] | None = None
    content = None
    if not results:
        start = properties["start"]["minimum"]
        arguments = {"path": path, "start": start, "count": properties["count"]["maximum"]}
    elif results[-1]["ok"] is not True:
        content = f"I could not read {path}: {results[-1]['error']['code']}."
    elif results[-1]["data"]["has_more"]:
        last = results[-1]["data"]
        start = last["start"] + len(last["lines"])
        arguments = {"path": path, "start": start, "count": properties["count"]["maximum"]}
    else:
        read = sum(len(r["data"]["lines"]) for r in results if r["ok"] is True)
        content = f"{path} has {read} lines."
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if arguments is not None:
        function = {"name": "read_lines", "arguments": json.dumps(arguments)}
        message["tool_calls"] = [{"id": "call_srv", "type": "function", "function": function}]
    finish = "tool_calls" if arguments is not None else "stop"
    choice = {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [choice],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def conformance_problem(body: dict[str, Any]) -> str | None:
    """What a strict server would refuse (400): a tool message not answering the call
    the assistant message before it made."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not body.get("model"):
        return "model and messages are required"
    for before, message in zip(messages, messages[1:], strict=False):
        if message.get("role") == "tool":
            calls = before.get("tool_calls") or [{}]
            if before.get("role") != "assistant" or calls[0].get("id") != message.get(
                "tool_call_id"
            ):
                return f"tool message {message.get('tool_call_id')!r} answers no call"
    return None


class FakeServer:
    """An OpenAI-compatible server on 127.0.0.1: ``POST /v1/chat/completions`` answered by
    :func:`policy`. ``requests``: every body received (JSON), ``headers`` theirs."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                problem = conformance_problem(body)
                if self.path != "/v1/chat/completions":
                    status, reply = 404, {"error": {"message": f"no route {self.path}"}}
                elif problem is not None:
                    status, reply = 400, {"error": {"message": problem}}
                else:
                    status, reply = 200, policy(body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    """The fake server, and an environment where the SDK could only go wrong visibly: a
    real-looking key set (it must not be sent), no proxy, no OPENAI_BASE_URL."""
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)
    for variable in ("OPENAI_BASE_URL", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(variable, raising=False)
        monkeypatch.delenv(variable.lower(), raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    fake = FakeServer()
    yield fake
    fake.close()


def local_model(registry: Registry, server: FakeServer) -> OpenAIModel:
    return OpenAIModel(
        registry,
        model="local-model",
        system=SYSTEM,
        user_request=REQUEST,
        base_url=server.url,
        temperature=0,
        max_completion_tokens=256,
    )


def record_local_run(
    server: FakeServer, root: Path, log: TranscriptLog, run_id: str = "local-1"
) -> Transcript:
    registry = workspace(root)
    model = local_model(registry, server)
    recorder = RecordingModel(model, log, run_id=run_id, meta=meta(model.model, **model.settings()))
    return run_agent(recorder, Host(registry), max_steps=5)


# --------------------------------------------------------------------------- the real SDK, locally


def test_the_real_sdk_drives_a_local_server_with_no_key(server: FakeServer, tmp_path: Path) -> None:
    registry = workspace(tmp_path)
    transcript = run_agent(local_model(registry, server), Host(registry), max_steps=5)

    assert transcript.final == FinalAnswer("notes.txt has 25 lines.")
    assert [(s.name, s.arguments, s.ok) for s in transcript.steps] == [
        ("read_lines", {"path": "notes.txt", "start": 1, "count": 20}, True),
        ("read_lines", {"path": "notes.txt", "start": 21, "count": 20}, True),
    ]
    assert [len(s.result["data"]["lines"]) for s in transcript.steps] == [20, 5]
    assert transcript.summary() == {
        "calls": 2,
        "invalid_calls": 0,
        "first_call_valid": True,
        "steps_to_answer": 2,
        "total_result_chars": sum(len(dumps(s.result)) for s in transcript.steps),
    }
    # what the server received: the tool list every time, then each tool result
    assert len(server.requests) == 3
    for body in server.requests:
        assert body["tools"] == openai_tools(registry)
        assert body["model"] == "local-model" and body["temperature"] == 0
        assert body["max_completion_tokens"] == 256 and body["parallel_tool_calls"] is False
    assert server.requests[0]["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": REQUEST},
    ]
    for body, step in zip(server.requests[1:], transcript.steps, strict=True):
        assert body["messages"][-1] == {
            "role": "tool",
            "tool_call_id": f"call_step{step.number}",
            "content": dumps(step.result),
        }
    assert len(server.requests[2]["messages"]) == 2 + 2 * 2
    # the placeholder key went to the local server; the environment's real key did not
    assert {h["authorization"] for h in server.headers} == {f"Bearer {LOCAL_API_KEY}"}


def test_a_recorded_local_run_replays_against_a_fresh_world(
    server: FakeServer, tmp_path: Path
) -> None:
    path = tmp_path / "runs.jsonl"
    recorded = record_local_run(server, tmp_path / "world", TranscriptLog.open(path))
    asked = len(server.requests)

    text = path.read_text(encoding="utf-8")
    assert REAL_KEY not in text and LOCAL_API_KEY not in text  # a recording holds no key
    log = TranscriptLog.read(path)
    assert [(r["kind"], r.get("step")) for r in log] == [
        ("run", None),
        ("action", 1),
        ("result", 1),
        ("action", 2),
        ("result", 2),
        ("action", 3),
    ]
    results = [r["result"] for r in log if r["kind"] == "result"]
    assert results == [step.result for step in recorded.steps]  # the envelopes, as held
    assert log.meta("local-1")["settings"] == {
        "provider": "openai",
        "base_url": server.url,
        "model": "local-model",
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "max_completion_tokens": 256,
        "temperature": 0,
    }

    replay = ReplayModel.from_log(log, "local-1")
    assert replay.run_id == "local-1" and replay.meta == log.meta("local-1")
    fresh = workspace(tmp_path / "fresh")  # another directory, same content
    replayed = run_agent(replay, Host(fresh), max_steps=5)
    assert replayed.steps == recorded.steps
    assert replayed.final == recorded.final == FinalAnswer("notes.txt has 25 lines.")
    assert len(server.requests) == asked  # the replay sent no request


@pytest.mark.parametrize(
    ("changed", "step", "where"),
    [
        ({2: "line 3, edited"}, 1, "data.lines[2].text"),
        ({21: "line 22, edited"}, 2, "data.lines[1].text"),  # page 1 still answers the same
        ({24: None}, 1, "data.total_lines"),  # a line fewer: page 1 already says 24
    ],
)
def test_a_changed_world_breaks_the_replay_at_the_step_that_changed(
    server: FakeServer, tmp_path: Path, changed: dict[int, str | None], step: int, where: str
) -> None:
    log = TranscriptLog()
    record_local_run(server, tmp_path / "world", log)
    lines = [changed.get(i, line) for i, line in enumerate(LINES)]
    edited = workspace(tmp_path / "edited", [line for line in lines if line is not None])

    with pytest.raises(ReplayMismatch) as caught:
        run_agent(ReplayModel.from_log(log, "local-1"), Host(edited), max_steps=5)
    mismatch = caught.value
    assert (mismatch.run_id, mismatch.step, mismatch.what) == ("local-1", step, "result")
    assert mismatch.path == where
    message = str(mismatch)
    assert message.startswith(f"run 'local-1', step {step}: the result differs")
    assert f"(first difference at {where})" in message
    recorded_line, actual_line = message.splitlines()[1:]
    assert recorded_line.startswith("  recorded: ") and actual_line.startswith("  actual:   ")
    assert len(recorded_line) < 300 and len(actual_line) < 300  # trimmed ...
    if changed.get(2):
        assert "第三行" in recorded_line and "line 3, edited" in actual_line  # ... to the change
    if changed.get(21):
        assert '"line 22"' in recorded_line and "line 22, edited" in actual_line


def test_recording_the_same_run_twice_gives_the_same_bytes(
    server: FakeServer, tmp_path: Path
) -> None:
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    record_local_run(server, tmp_path / "a", TranscriptLog.open(first))
    log = TranscriptLog()
    record_local_run(server, tmp_path / "b", log)
    log.write(second)
    assert first.read_bytes() == second.read_bytes()  # appended line by line == written
    assert TranscriptLog.read(first).dumps().encode("utf-8") == first.read_bytes()
    data = first.read_bytes()
    assert "第三行".encode() in data and b"\\u" not in data  # UTF-8, not \u escapes
    for line in data.decode("utf-8").splitlines():
        record = json.loads(line)
        assert line == json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# --------------------------------------------------------------------------- scripted runs


def scripted(goal_path: str = "notes.txt") -> ScriptedModel:
    return ScriptedModel(ReadWholeFile(goal_path), [zero_based_lines()])


def test_a_recording_holds_every_request_and_result(tmp_path: Path) -> None:
    registry = workspace(tmp_path, ["a", "b", "c"])
    log = TranscriptLog()
    transcript = run_agent(
        RecordingModel(scripted(), log, run_id="s1", meta=meta()), Host(registry)
    )
    assert [s.ok for s in transcript.steps] == [False, True]  # start 0, then corrected
    assert log.records == [
        {"kind": "run", "run_id": "s1", "format": 1, "meta": meta()},
        {
            "kind": "action",
            "run_id": "s1",
            "step": 1,
            "action": {
                "type": "tool_call",
                "name": "read_lines",
                "arguments": {"path": "notes.txt", "start": 0, "count": 20},
            },
        },
        {"kind": "result", "run_id": "s1", "step": 1, "result": transcript.steps[0].result},
        {
            "kind": "action",
            "run_id": "s1",
            "step": 2,
            "action": {
                "type": "tool_call",
                "name": "read_lines",
                "arguments": {"path": "notes.txt", "start": 1, "count": 20},
            },
        },
        {"kind": "result", "run_id": "s1", "step": 2, "result": transcript.steps[1].result},
        {
            "kind": "action",
            "run_id": "s1",
            "step": 3,
            "action": {
                "type": "final_answer",
                "text": "notes.txt: read all 3 lines",
                "gave_up": False,
            },
        },
    ]
    assert transcript.steps[0].result["error"]["code"] == "invalid_range"


def test_a_run_cut_by_max_steps_ends_on_a_call_that_never_ran(tmp_path: Path) -> None:
    registry = workspace(tmp_path, ["a", "b", "c"])
    log = TranscriptLog()
    recorded = run_agent(
        RecordingModel(scripted(), log, run_id="cut", meta=meta()), Host(registry), max_steps=1
    )
    assert recorded.final is None and recorded.calls == 1
    assert [(r["kind"], r.get("step")) for r in log] == [
        ("run", None),
        ("action", 1),
        ("result", 1),
        ("action", 2),
    ]
    replayed = run_agent(ReplayModel.from_log(log, "cut"), Host(registry), max_steps=1)
    assert replayed.steps == recorded.steps and replayed.final is None
    with pytest.raises(ReplayMismatch, match="step 2: the recorded run stopped before") as caught:
        run_agent(ReplayModel.from_log(log, "cut"), Host(registry), max_steps=5)
    assert caught.value.step == 2 and caught.value.recorded is None


def test_running_past_the_recording_raises(tmp_path: Path) -> None:
    registry = workspace(tmp_path, ["a"])
    log = TranscriptLog()
    recorded = run_agent(RecordingModel(scripted(), log, run_id="s1", meta=meta()), Host(registry))
    replay = ReplayModel.from_log(log, "s1")
    assert replay.next_action(recorded) == recorded.final  # stateless: asked again, same answer
    extra = dataclasses.replace(recorded.steps[-1], number=3)
    with pytest.raises(
        ReplayMismatch, match="step 3: a call was made where the recording has none"
    ):
        replay.next_action(Transcript([*recorded.steps, extra]))

    # a recording that ends without an answer (its model failed after one call)
    cut = TranscriptLog(log.records[:3])
    with pytest.raises(
        ReplayMismatch, match="step 2: the recording ends after 1 action\\(s\\) and no final answer"
    ) as caught:
        run_agent(ReplayModel.from_log(cut, "s1"), Host(registry))
    assert caught.value.what == "past the end"


def test_the_replay_checks_the_calls_and_the_types_of_the_results(tmp_path: Path) -> None:
    registry = workspace(tmp_path, ["a"])
    log = TranscriptLog()
    recorded = run_agent(RecordingModel(scripted(), log, run_id="s1", meta=meta()), Host(registry))
    replay = ReplayModel.from_log(log, "s1")
    first = recorded.steps[0]

    other_call = Transcript([dataclasses.replace(first, arguments={**first.arguments, "start": 1})])
    with pytest.raises(ReplayMismatch, match="step 1: the call differs") as caught:
        replay.next_action(other_call)
    assert caught.value.what == "call" and caught.value.path == "arguments.start"

    # 1 == True in Python, but not in JSON: a result whose "ok" turned into 1 has changed
    second = recorded.steps[1]
    assert second.result["ok"] is True
    retyped = dataclasses.replace(second, result={**second.result, "ok": 1})
    with pytest.raises(ReplayMismatch, match="step 2: the result differs") as caught:
        replay.next_action(Transcript([first, retyped]))
    assert caught.value.path == "ok"

    renumbered = Transcript([dataclasses.replace(first, number=7)])
    with pytest.raises(ReplayMismatch, match="step 1 is numbered 7"):
        replay.next_action(renumbered)
    assert replay.next_action(Transcript()) == ToolCall(first.name, first.arguments)


def test_one_recording_model_records_one_run(tmp_path: Path) -> None:
    registry = workspace(tmp_path, ["a"])
    log = TranscriptLog()
    model = RecordingModel(scripted(), log, run_id="s1", meta=meta())
    run_agent(model, Host(registry))
    with pytest.raises(RuntimeError, match="has ended with a final answer"):
        run_agent(model, Host(registry))
    fresh = RecordingModel(scripted(), log, run_id="s2", meta=meta())
    fresh.next_action(Transcript())
    with pytest.raises(RuntimeError, match="transcript has 0 steps but this recording made 1"):
        fresh.next_action(Transcript())
    with pytest.raises(ValueError, match="run 's1' is already in this log"):
        RecordingModel(scripted(), log, run_id="s1", meta=meta())


def test_what_was_recorded_stays_when_the_model_fails(tmp_path: Path) -> None:
    class Failing:
        """Answers like the script once, then fails like a server that went away."""

        def __init__(self) -> None:
            self.inner = scripted()

        def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
            if transcript.steps:
                raise ConnectionError("the server went away")
            return self.inner.next_action(transcript)

    registry = workspace(tmp_path / "w", ["a"])
    path = tmp_path / "runs.jsonl"
    with pytest.raises(ConnectionError):
        run_agent(
            RecordingModel(Failing(), TranscriptLog.open(path), run_id="f", meta=meta()),
            Host(registry),
        )
    kinds = [r["kind"] for r in TranscriptLog.read(path)]
    assert kinds == ["run", "action", "result"]  # the call and its result were kept


def test_runs_share_a_file_and_replay_one_by_one(tmp_path: Path) -> None:
    registry = workspace(tmp_path / "w", ["a", "b"])
    path = tmp_path / "runs.jsonl"
    first = run_agent(
        RecordingModel(scripted(), TranscriptLog.open(path), run_id="r1", meta=meta()),
        Host(registry),
    )
    second = run_agent(  # opened again: appended after r1
        RecordingModel(
            ScriptedModel(ReadWholeFile("notes.txt")),
            TranscriptLog.open(path),
            run_id="r2",
            meta=meta(),
        ),
        Host(registry),
    )
    log = TranscriptLog.read(path)
    assert log.run_ids == ["r1", "r2"]
    for run_id, recorded in (("r1", first), ("r2", second)):
        replayed = run_agent(ReplayModel.from_log(log, run_id), Host(registry))
        assert (replayed.steps, replayed.final) == (recorded.steps, recorded.final)
    with pytest.raises(ValueError, match="these records hold 2"):
        ReplayModel(log.records)
    with pytest.raises(KeyError, match="no run 'r3' in this log; runs: r1, r2"):
        ReplayModel.from_log(log, "r3")


# --------------------------------------------------------------------------- the log's checks


def header(run_id: str = "r", **changes: Any) -> dict[str, Any]:
    return {"kind": "run", "run_id": run_id, "format": 1, "meta": {**meta(), **changes}}


def call(step: int, run_id: str = "r") -> dict[str, Any]:
    action = {"type": "tool_call", "name": "t", "arguments": {}}
    return {"kind": "action", "run_id": run_id, "step": step, "action": action}


def result(step: int, run_id: str = "r") -> dict[str, Any]:
    return {"kind": "result", "run_id": run_id, "step": step, "result": {"ok": True}}


def answer(step: int, run_id: str = "r") -> dict[str, Any]:
    action = {"type": "final_answer", "text": "done", "gave_up": False}
    return {"kind": "action", "run_id": run_id, "step": step, "action": action}


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([header(date="31/01/2025")], "meta\\['date'\\] must be an ISO 8601 date"),
        ([header(model="")], "meta\\['model'\\] must be a non-empty string"),
        ([{**header(), "meta": {"model": "m"}}], "meta lacks \\['date', 'settings'"),
        ([header(settings="t=0")], "meta\\['settings'\\] must be an object"),
        ([{**header(), "format": 2}], "format 2, this library reads 1"),
        ([header(), header()], "run 'r' is already in this log"),
        ([call(1)], "run 'r' has no header before its action record"),
        ([header(), call(2)], "action for step 2, expected 1"),
        ([header(), call(1), call(2)], "action for step 2 before the result of step 1"),
        ([header(), result(1)], "result for step 1, but no call waits for one"),
        ([header(), call(1), result(2)], "result for step 2, expected step 1"),
        ([header(), answer(1), call(2)], "ended with a final answer: nothing follows it"),
        ([header(), {**call(1), "step": True}], "'step' is an integer from 1"),
        ([header(), {**call(1), "action": {"type": "think"}}], "'tool_call' or 'final_answer'"),
        ([{"kind": "note", "run_id": "r"}], "'kind' is one of"),
        ([header(), call(1), {**result(1), "extra": 1}], "a result record has exactly"),
        ([header(), call(1), {**result(1), "result": [1]}], "a result is an envelope"),
    ],
)
def test_a_malformed_log_is_refused(records: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TranscriptLog(records)


def test_dates_may_carry_a_time_and_a_zone() -> None:
    for date in (
        "2025-01-31",
        "2025-01-31T09:30:00",
        "2025-01-31T09:30+08:00",
        "2025-01-31T01:30Z",
    ):
        assert TranscriptLog([header(date=date)]).meta("r")["date"] == date


def test_reading_names_the_line_and_refuses_what_json_would_let_pass(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(canonical_json(header()) + "\n" + "{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"runs.jsonl:2: "):
        TranscriptLog.read(path)
    duplicated = canonical_json(header())[:-1] + ',"kind":"run"}'
    with pytest.raises(ValueError, match=r"<text>:1: duplicate keys \['kind'\]"):
        TranscriptLog.loads(duplicated)
    with pytest.raises(ValueError, match="not a JSON value"):
        TranscriptLog([header(settings={"temperature": float("nan")})])


def test_a_line_separator_inside_a_string_is_not_a_line_break(tmp_path: Path) -> None:
    log = TranscriptLog([header(task="first\u2028second, and a\nnewline")])
    path = tmp_path / "runs.jsonl"
    log.write(path)
    assert path.read_bytes().count(b"\n") == 1  # the newline is escaped; U+2028 is kept
    assert "\u2028".encode() in path.read_bytes()
    assert TranscriptLog.read(path).meta("r")["task"] == "first\u2028second, and a\nnewline"


def test_the_same_records_in_any_key_order_are_the_same_bytes() -> None:
    forward = header(settings={"temperature": 0, "base_url": "http://127.0.0.1:8080/v1"})
    backward = {key: forward[key] for key in reversed(list(forward))}
    backward["meta"] = {key: forward["meta"][key] for key in reversed(list(forward["meta"]))}
    assert TranscriptLog([forward]).dumps() == TranscriptLog([backward]).dumps()


def test_records_are_copies() -> None:
    record = header(settings={"temperature": 0})
    log = TranscriptLog([record])
    record["meta"]["settings"]["temperature"] = 1
    log.records[0]["meta"]["model"] = "changed"
    assert log.meta("r")["settings"] == {"temperature": 0} and log.meta("r")["model"] == "scripted"


def test_every_public_name_has_a_docstring() -> None:
    for name in recording.__all__:
        value = getattr(recording, name)
        if callable(value):
            assert (value.__doc__ or "").strip(), name
        if isinstance(value, type):
            for attribute, member in vars(value).items():
                if isinstance(member, property):
                    member = member.fget
                function = getattr(member, "__func__", member)  # classmethods
                if not attribute.startswith("_") and callable(function):
                    assert (function.__doc__ or "").strip(), f"{name}.{attribute}"
    assert (recording.__doc__ or "").strip()
