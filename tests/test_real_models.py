"""The optional real-model adapters, with fake clients: no network, no key, no cost.

Each fake client has the SDK's method shape (``client.messages.create`` and
``client.chat.completions.create``), records the keyword arguments it receives and answers
from a script of replies built like the SDKs' objects (attributes, not dicts). A later
test runs the installed SDKs themselves on a mock HTTP transport (skipped without them);
the last ones check ``base_url`` (local OpenAI-compatible servers) without sending
anything (tests/test_recording.py drives a fake one on 127.0.0.1).
Workspace: ``notes.txt``, 3 lines.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tutorial_lib.agent.loop import FinalAnswer, Model, ToolCall, Transcript, run_agent
from tutorial_lib.agent.real_models import (
    LOCAL_API_KEY,
    PROVIDERS,
    AnthropicModel,
    OpenAIModel,
    anthropic_tools,
    available,
    openai_tools,
)
from tutorial_lib.core.contracts import dumps
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry, ToolSpec
from tutorial_lib.workspace.read import read_lines_tool

SYSTEM = "Use the tools."
REQUEST = "How many lines does notes.txt have?"


@pytest.fixture()
def registry(tmp_path: Path) -> Registry:
    (tmp_path / "notes.txt").write_text("first\nsecond\nthird\n", encoding="utf-8")
    return Registry([read_lines_tool(tmp_path)])  # read-only: its host needs no guards


class Endpoint:
    """``create(**kwargs)``: records the request, returns the next scripted reply."""

    def __init__(self, replies: list[Any]) -> None:
        self.replies: Iterator[Any] = iter(replies)
        self.requests: list[dict[str, Any]] = []

    def create(self, **kwargs: Any) -> Any:
        self.requests.append(json.loads(json.dumps(kwargs)))  # a snapshot, JSON-clean
        return next(self.replies)


def fake_anthropic(*replies: Any) -> tuple[Any, Endpoint]:
    endpoint = Endpoint(list(replies))
    return SimpleNamespace(messages=endpoint), endpoint


def fake_openai(*replies: Any) -> tuple[Any, Endpoint]:
    endpoint = Endpoint(list(replies))
    return SimpleNamespace(chat=SimpleNamespace(completions=endpoint)), endpoint


# Replies shaped like anthropic.types.Message and openai.types.chat.ChatCompletion.


def message(*content: Any, stop_reason: str = "end_turn") -> Any:
    return SimpleNamespace(content=list(content), stop_reason=stop_reason)


def text(value: str) -> Any:
    return SimpleNamespace(type="text", text=value)


def tool_use(name: str, arguments: dict[str, Any], id: str = "toolu_x") -> Any:
    return SimpleNamespace(type="tool_use", id=id, name=name, input=arguments)


def completion(content: str | None = None, *calls: Any, refusal: str | None = None) -> Any:
    msg = SimpleNamespace(
        role="assistant", content=content, refusal=refusal, tool_calls=list(calls) or None
    )
    return SimpleNamespace(choices=[SimpleNamespace(index=0, message=msg)])


def function_call(name: str, arguments: str, id: str = "call_x") -> Any:
    return SimpleNamespace(
        id=id, type="function", function=SimpleNamespace(name=name, arguments=arguments)
    )


# --------------------------------------------------------------------------- available()


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_without_a_key_available_names_the_variable(provider: str) -> None:
    variable = PROVIDERS[provider].key_variable
    if importlib.util.find_spec(PROVIDERS[provider].package) is None:
        pytest.skip(f"{provider} SDK not installed: the SDK reason comes first")
    reason = available(provider, environ={})
    assert reason is not None and variable in reason
    assert available(provider, environ={variable: ""}) == reason  # empty is not a key
    assert available(provider, environ={variable: "sk-test"}) is None


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_without_the_sdk_available_says_how_to_install_it(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == provider else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    reason = available(provider, environ={PROVIDERS[provider].key_variable: "sk-test"})
    assert reason is not None and "not installed" in reason
    assert f"pip install {provider}" in reason


def test_available_reads_the_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    reason = available("openai")
    assert reason is not None and ("OPENAI_API_KEY" in reason or "not installed" in reason)


def test_an_unknown_provider_is_refused() -> None:
    with pytest.raises(ValueError, match="providers: anthropic, openai"):
        available("gemini")


@pytest.mark.parametrize("model_class", [AnthropicModel, OpenAIModel])
def test_no_client_and_no_key_is_a_clear_error(
    model_class: Any, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    for provider in PROVIDERS.values():
        monkeypatch.delenv(provider.key_variable, raising=False)
    with pytest.raises(RuntimeError, match="cannot create a .* client: .*client="):
        model_class(registry, model="m", system=SYSTEM, user_request=REQUEST)


def test_importing_the_module_imports_no_sdk() -> None:
    code = (
        "import sys, json; import tutorial_lib.agent.real_models;"
        "print(json.dumps(sorted(m for m in ('anthropic', 'openai') if m in sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []


# --------------------------------------------------------------------------- tool lists


def test_tool_lists_carry_the_schema_as_written(registry: Registry) -> None:
    spec = registry.get("read_lines")
    assert anthropic_tools(registry) == [
        {"name": "read_lines", "description": spec.description, "input_schema": spec.input_schema}
    ]
    (tool,) = openai_tools(registry)
    assert tool["type"] == "function"
    assert tool["function"] == {
        "name": "read_lines",
        "description": spec.description,
        "parameters": spec.input_schema,
        "strict": False,
    }
    tool["function"]["parameters"]["type"] = "changed"
    assert spec.input_schema["type"] == "object"  # a copy, never the spec's own schema


def test_a_dotted_name_is_refused_before_any_request(registry: Registry) -> None:
    dotted = Registry(
        [ToolSpec("files.read", "Read", "Read a file.", {"type": "object", "properties": {}})]
    )
    with pytest.raises(ValueError, match="'files.read' is not accepted"):
        anthropic_tools(dotted)
    with pytest.raises(ValueError, match="'files.read' is not accepted"):
        openai_tools(dotted)


# --------------------------------------------------------------------------- Anthropic


def test_anthropic_run_replays_each_step_as_tool_use_and_tool_result(
    registry: Registry,
) -> None:
    client, endpoint = fake_anthropic(
        message(
            text("I'll read it."),
            tool_use("read_lines", {"path": "notes.txt", "start": 0, "count": 20}),
            stop_reason="tool_use",
        ),
        message(
            tool_use("read_lines", {"path": "notes.txt", "start": 1, "count": 20}),
            stop_reason="tool_use",
        ),
        message(text("notes.txt has 3 lines.")),
    )
    model = AnthropicModel(
        registry, model="claude-test", system=SYSTEM, user_request=REQUEST, client=client
    )
    transcript = run_agent(model, Host(registry), max_steps=5)

    assert transcript.final == FinalAnswer("notes.txt has 3 lines.")
    assert [step.ok for step in transcript.steps] == [False, True]
    assert len(endpoint.requests) == 3
    first, _, last = endpoint.requests
    assert first == {
        "model": "claude-test",
        "max_tokens": 1024,
        "system": SYSTEM,
        "messages": [{"role": "user", "content": REQUEST}],
        "tools": anthropic_tools(registry),
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
    }
    expected: list[dict[str, Any]] = [{"role": "user", "content": REQUEST}]
    for step in transcript.steps:
        expected += [
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"step{step.number}",
                        "name": "read_lines",
                        "input": step.arguments,
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"step{step.number}",
                        "content": dumps(step.result),
                        "is_error": not step.ok,
                    }
                ],
            },
        ]
    assert last["messages"] == expected
    # the tool result is exactly the text the transcript counts
    tool_results = [m["content"][0]["content"] for m in last["messages"][2::2]]
    assert [len(r) for r in tool_results] == [s.result_chars for s in transcript.steps]


def test_anthropic_request_is_a_function_of_the_transcript(registry: Registry) -> None:
    client, endpoint = fake_anthropic()
    model = AnthropicModel(
        registry, model="m", system=SYSTEM, user_request=REQUEST, client=client, max_tokens=64
    )
    assert model.request(Transcript()) == model.request(Transcript())
    assert model.request(Transcript())["max_tokens"] == 64
    assert endpoint.requests == []  # building a request sends nothing


def test_anthropic_parse() -> None:
    parse = AnthropicModel.parse
    call = parse(
        message(
            text("first"),
            tool_use("a", {"x": 1}),
            tool_use("b", {"y": 2}),
            stop_reason="tool_use",
        )
    )
    assert call == ToolCall("a", {"x": 1})  # the first call, whatever text comes with it
    assert parse(message(text("Done: "), text("3 lines."))) == FinalAnswer("Done: 3 lines.")
    assert parse(message(text("I can't help."), stop_reason="refusal")) == FinalAnswer(
        "I can't help.", gave_up=True
    )
    assert parse(message()) == FinalAnswer("", gave_up=True)


def test_anthropic_refuses_to_replay_a_non_object_input(registry: Registry) -> None:
    client, _ = fake_openai(
        completion(None, function_call("read_lines", "not json")), completion("stop")
    )
    transcript = run_agent(
        OpenAIModel(registry, model="m", system=SYSTEM, user_request=REQUEST, client=client),
        Host(registry),
    )
    anthropic_client, _ = fake_anthropic()
    model = AnthropicModel(
        registry, model="m", system=SYSTEM, user_request=REQUEST, client=anthropic_client
    )
    with pytest.raises(TypeError, match="step 1: a tool_use input must be a JSON object"):
        model.request(transcript)


# --------------------------------------------------------------------------- OpenAI


def test_openai_run_replays_each_step_as_tool_calls_and_a_tool_message(
    registry: Registry,
) -> None:
    client, endpoint = fake_openai(
        completion(None, function_call("read_lines", '{"path": "notes.txt", "start": "1"}')),
        completion(None, function_call("read_lines", '{"path":"notes.txt","start":1,"count":20}')),
        completion("notes.txt has 3 lines."),
    )
    model = OpenAIModel(
        registry,
        model="gpt-test",
        system=SYSTEM,
        user_request=REQUEST,
        client=client,
        max_completion_tokens=200,
    )
    transcript = run_agent(model, Host(registry), max_steps=5)

    assert transcript.final == FinalAnswer("notes.txt has 3 lines.")
    assert [step.ok for step in transcript.steps] == [False, True]
    assert transcript.steps[0].arguments == {"path": "notes.txt", "start": "1"}
    first, _, last = endpoint.requests
    assert first == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": REQUEST},
        ],
        "tools": openai_tools(registry),
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "max_completion_tokens": 200,
    }
    expected: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": REQUEST},
    ]
    for step in transcript.steps:
        expected += [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_step{step.number}",
                        "type": "function",
                        "function": {
                            "name": "read_lines",
                            "arguments": json.dumps(
                                step.arguments, ensure_ascii=False, separators=(",", ":")
                            ),
                        },
                    }
                ],
            },
            {
                "role": "tool",
                "tool_call_id": f"call_step{step.number}",
                "content": dumps(step.result),
            },
        ]
    assert last["messages"] == expected


def test_openai_invalid_json_goes_to_the_road_and_back_unchanged(registry: Registry) -> None:
    client, endpoint = fake_openai(
        completion(None, function_call("read_lines", '{"path": "notes.txt",')),
        completion("giving up"),
    )
    model = OpenAIModel(registry, model="m", system=SYSTEM, user_request=REQUEST, client=client)
    transcript = run_agent(model, Host(registry))
    (step,) = transcript.steps
    assert step.arguments == '{"path": "notes.txt",' and not step.ok
    replayed = endpoint.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"]
    assert replayed == '{"path": "notes.txt",'


def test_openai_parse(registry: Registry) -> None:
    client, _ = fake_openai()
    model = OpenAIModel(registry, model="m", system=SYSTEM, user_request=REQUEST, client=client)
    two = completion(
        "thinking aloud",
        function_call("read_lines", '{"path":"a"}'),
        function_call("read_lines", '{"path":"b"}'),
    )
    assert model.parse(two) == ToolCall("read_lines", {"path": "a"})
    assert model.parse(completion(" 3 lines. ")) == FinalAnswer("3 lines.")
    assert model.parse(completion(None, refusal="No.")) == FinalAnswer("No.", gave_up=True)
    assert model.parse(completion(None)) == FinalAnswer("", gave_up=True)


def test_openai_decode_arguments_applies_to_registered_tools_only(registry: Registry) -> None:
    seen: list[tuple[str, Any]] = []

    def drop_nulls(spec: ToolSpec, arguments: Any) -> Any:
        seen.append((spec.name, arguments))
        return {k: v for k, v in arguments.items() if v is not None}

    client, _ = fake_openai()
    model = OpenAIModel(
        registry,
        model="m",
        system=SYSTEM,
        user_request=REQUEST,
        client=client,
        tools=[{"type": "function", "function": {"name": "read_lines", "strict": True}}],
        decode_arguments=drop_nulls,
    )
    sent = '{"path":"notes.txt","start":null,"count":null}'
    assert model.parse(completion(None, function_call("read_lines", sent))) == ToolCall(
        "read_lines", {"path": "notes.txt"}
    )
    assert model.parse(completion(None, function_call("unknown", '{"a":null}'))) == ToolCall(
        "unknown", {"a": None}
    )
    assert seen == [("read_lines", {"path": "notes.txt", "start": None, "count": None})]
    assert model.request(Transcript())["tools"] == [
        {"type": "function", "function": {"name": "read_lines", "strict": True}}
    ]


# --------------------------------------------------------------------------- the real SDKs, offline


def test_the_installed_sdks_accept_the_requests_and_their_replies_parse(
    registry: Registry,
) -> None:
    """The real clients, on a mock transport (no network): request bodies serialize, and the
    SDKs' own reply objects parse into the same actions as the fakes'."""
    anthropic = pytest.importorskip("anthropic")
    openai = pytest.importorskip("openai")
    httpx2 = pytest.importorskip("httpx2")  # the HTTP library these SDK versions take
    call = {"path": "notes.txt", "start": 1, "count": 20}
    bodies: list[dict[str, Any]] = []

    def anthropic_reply(request: Any) -> Any:
        body = json.loads(request.content)
        bodies.append(body)
        first = len(body["messages"]) == 1
        content = (
            [{"type": "tool_use", "id": "toolu_1", "name": "read_lines", "input": call}]
            if first
            else [{"type": "text", "text": "3 lines"}]
        )
        reply: dict[str, Any] = {"id": "msg_1", "type": "message", "role": "assistant"}
        reply |= {"model": "m"}
        reply |= {"content": content, "stop_reason": "tool_use" if first else "end_turn"}
        reply |= {"stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
        return httpx2.Response(200, json=reply)

    def openai_reply(request: Any) -> Any:
        body = json.loads(request.content)
        bodies.append(body)
        if len(body["messages"]) == 2:
            function = {"name": "read_lines", "arguments": json.dumps(call)}
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_1", "type": "function", "function": function}],
            }
        else:
            message = {"role": "assistant", "content": "3 lines"}
        choice = {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}
        reply = {"id": "c", "object": "chat.completion", "created": 0, "model": "m"}
        return httpx2.Response(200, json=reply | {"choices": [choice]})

    def http(handler: Any) -> Any:
        return httpx2.Client(transport=httpx2.MockTransport(handler))

    models: list[Model] = [
        AnthropicModel(
            registry,
            model="m",
            system=SYSTEM,
            user_request=REQUEST,
            client=anthropic.Anthropic(api_key="x", http_client=http(anthropic_reply)),
        ),
        OpenAIModel(
            registry,
            model="m",
            system=SYSTEM,
            user_request=REQUEST,
            client=openai.OpenAI(api_key="x", http_client=http(openai_reply)),
        ),
    ]
    results = []
    for model in models:
        transcript = run_agent(model, Host(registry), max_steps=3)
        results.append(dumps(transcript.steps[0].result))
        assert transcript.final == FinalAnswer("3 lines")
        assert [(s.name, s.arguments, s.ok) for s in transcript.steps] == [
            ("read_lines", call, True)
        ]
    anthropic_last, openai_last = bodies[1], bodies[3]
    assert anthropic_last["messages"][2]["content"][0]["content"] == results[0]
    assert openai_last["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_step1",
        "content": results[1],
    }


# --------------------------------------------------------------------------- base_url

LOCAL_URL = "http://127.0.0.1:8080/v1"


def test_a_base_url_needs_the_sdk_but_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec("openai") is not None:
        assert available("openai", environ={}, base_url=LOCAL_URL) is None
        assert available("openai", environ={"OPENAI_API_KEY": ""}, base_url=LOCAL_URL) is None
        assert "OPENAI_API_KEY" in (available("openai", environ={}) or "")  # without: a key
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a, **k: None if name == "openai" else real(name, *a, **k),
    )
    reason = available("openai", environ={}, base_url=LOCAL_URL)
    assert reason is not None and "pip install openai" in reason


def test_a_base_url_is_for_openai_compatible_servers_only() -> None:
    with pytest.raises(ValueError, match="base_url is for OpenAI-compatible servers"):
        available("anthropic", base_url=LOCAL_URL)


def test_openai_model_sends_a_placeholder_key_to_a_base_url(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client the model makes itself (no request is sent): the placeholder key, never
    the environment's, goes to a server the learner chose; ``api_key`` overrides it."""
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    local = OpenAIModel(
        registry, model="m", system=SYSTEM, user_request=REQUEST, base_url=LOCAL_URL
    )
    assert local.client.api_key == LOCAL_API_KEY != "sk-real-key"
    assert str(local.client.base_url).rstrip("/") == LOCAL_URL == local.base_url
    keyed = OpenAIModel(
        registry, model="m", system=SYSTEM, user_request=REQUEST, base_url=LOCAL_URL, api_key="k"
    )
    assert keyed.client.api_key == "k"
    monkeypatch.delenv("OPENAI_API_KEY")
    hosted = OpenAIModel(registry, model="m", system=SYSTEM, user_request=REQUEST, api_key="k2")
    assert hosted.client.api_key == "k2" and hosted.base_url is None
    assert "api.openai.com" in str(hosted.client.base_url)


def test_base_url_without_the_sdk_is_a_clear_error(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a, **k: None if name == "openai" else real(name, *a, **k),
    )
    with pytest.raises(RuntimeError, match="cannot create a openai client: .*pip install openai"):
        OpenAIModel(registry, model="m", system=SYSTEM, user_request=REQUEST, base_url=LOCAL_URL)


def test_base_url_and_a_client_together_are_refused(registry: Registry) -> None:
    client, _ = fake_openai()
    for options in ({"base_url": LOCAL_URL}, {"api_key": "k"}):
        with pytest.raises(ValueError, match="with client= pass them to that client"):
            OpenAIModel(
                registry, model="m", system=SYSTEM, user_request=REQUEST, client=client, **options
            )


def test_temperature_and_settings(registry: Registry) -> None:
    """``temperature`` is sent only when given; ``settings()`` is what a recording's meta
    keeps: the request without the conversation and the tools (and where it went)."""
    client, endpoint = fake_openai(completion("3 lines"))
    model = OpenAIModel(
        registry,
        model="local-model",
        system=SYSTEM,
        user_request=REQUEST,
        client=client,
        temperature=0,
        max_completion_tokens=64,
    )
    run_agent(model, Host(registry))
    assert endpoint.requests[0]["temperature"] == 0
    assert model.settings() == {
        "provider": "openai",
        "base_url": None,
        "model": "local-model",
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "max_completion_tokens": 64,
        "temperature": 0,
    }
    plain = OpenAIModel(registry, model="m", system=SYSTEM, user_request=REQUEST, client=client)
    assert "temperature" not in plain.request(Transcript())
    anthropic_client, _ = fake_anthropic()
    claude = AnthropicModel(
        registry,
        model="claude-test",
        system=SYSTEM,
        user_request=REQUEST,
        client=anthropic_client,
        temperature=0.5,
    )
    assert claude.request(Transcript())["temperature"] == 0.5
    assert claude.settings() == {
        "provider": "anthropic",
        "model": "claude-test",
        "max_tokens": 1024,
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
        "temperature": 0.5,
    }
    json.dumps([model.settings(), claude.settings()])  # JSON values, for a recording
