"""Optional adapters: a real language model as the Model that ``run_agent`` asks.

**Optional, and not the course's default.** Every chapter runs on
:class:`~tutorial_lib.agent.loop.ScriptedModel`, a deterministic policy whose figures are
the same on every run and on every machine. The adapters here are for a learner who wants
to try the same tools on a real model afterwards. Keep in mind:

- they **cost money** on a provider's API: each :meth:`next_action` is one paid request,
  and the whole conversation (tool list, request, every call and result so far) is sent
  again each time (a local server, below, costs only your machine's time);
- they need the provider's SDK (``pip install anthropic`` or ``pip install openai``) and,
  for a provider's API, an API key in ``ANTHROPIC_API_KEY`` or ``OPENAI_API_KEY``;
  :func:`available` says what is missing. The SDKs are imported only when a client is
  created, so this module imports without them;
- a real model's figures (calls, invalid calls, characters read) **vary from run to run**
  and from one model version to the next: one run is an anecdote, not a measurement;
- nothing in the course, its tests or its CI calls a real model; the tests use fake
  clients, and a fake OpenAI-compatible server on 127.0.0.1 for the real SDK.

How a turn works: the model keeps no memory between calls. :meth:`AnthropicModel.next_action`
(and its OpenAI twin) rebuilds the conversation from the
:class:`~tutorial_lib.agent.loop.Transcript`: the user's request, then per
:class:`~tutorial_lib.agent.loop.Step` one assistant message with that tool call and one
tool result holding the compact JSON of the envelope
(:func:`tutorial_lib.core.contracts.dumps`, exactly the ``result_chars`` the transcript
counts). It sends one request and turns the reply into a
:class:`~tutorial_lib.agent.loop.ToolCall` (the first tool call in the reply; parallel calls
are switched off) or a :class:`~tutorial_lib.agent.loop.FinalAnswer` (the reply's text).
The replay is rebuilt, not recorded, so it leaves out what a Step does not keep: any prose
the model wrote next to a tool call, and the provider's own call ids (replaced by
``step1``-style ids, consistent within a request).

Tool lists: by default the registry's tools are sent as written (Anthropic
``input_schema``; OpenAI ``parameters`` with ``strict: false``). For OpenAI's strict mode,
build the list in the course layer with :func:`tutorial_lib.design.exports.to_openai` and
pass ``tools=[to_openai(spec) for spec in registry]`` and
``decode_arguments=from_strict_arguments`` (which turns the strict model's nulls back into
omitted arguments before the road sees them). This module cannot import ``design`` itself:
the agent layer does not depend on it.

Example with a provider's API (not run by the course; it costs money)::

    from tutorial_lib.agent.loop import run_agent
    from tutorial_lib.agent.real_models import AnthropicModel, available
    from tutorial_lib.core.host import Host

    reason = available("anthropic")
    if reason is None:
        model = AnthropicModel(
            registry,
            model="<a current model id>",
            system="You answer with the tools you are given.",
            user_request="Read notes.txt completely and say how many lines it has.",
        )
        print("\\n".join(run_agent(model, Host(registry), max_steps=10).lines()))
    else:
        print("skipped:", reason)

:class:`OpenAIModel` works the same way with ``OPENAI_API_KEY`` set (``available("openai")``)
or with ``api_key=...`` passed to it.

**A local OpenAI-compatible server** (llama.cpp's ``llama-server``, vLLM, Ollama's
``/v1``): give :class:`OpenAIModel` the server's ``base_url``. No key is needed: the SDK
gets the placeholder :data:`LOCAL_API_KEY` (pass ``api_key=`` if your server checks one),
and ``OPENAI_API_KEY`` is never sent to a ``base_url`` you chose. ``model`` is the name
the server serves its model under. Whether the model answers with tool calls at all
depends on the server and the model (llama-server needs ``--jinja``; vLLM needs
``--enable-auto-tool-choice`` and a ``--tool-call-parser``; see their documentation)::

    from tutorial_lib.agent.loop import run_agent
    from tutorial_lib.agent.real_models import OpenAIModel, available
    from tutorial_lib.core.host import Host

    url = "http://127.0.0.1:8080/v1"  # llama-server's default port; Ollama: 11434, vLLM: 8000
    reason = available("openai", base_url=url)  # only the SDK is checked: no key needed
    if reason is None:
        model = OpenAIModel(
            registry,
            model="<the served model's name>",
            system="You answer with the tools you are given.",
            user_request="Read notes.txt completely and say how many lines it has.",
            base_url=url,
            temperature=0,
        )
        print("\\n".join(run_agent(model, Host(registry), max_steps=10).lines()))

A local model's runs vary too: less at ``temperature=0``, but that is no promise of the
same reply twice (and none across server or model versions). To keep a run, and to check
later that the tools still answer it the same, record it with
:class:`tutorial_lib.agent.recording.RecordingModel` and replay it with
:class:`~tutorial_lib.agent.recording.ReplayModel`: the replay sends no request at all.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tutorial_lib.agent.loop import FinalAnswer, ToolCall, Transcript
from tutorial_lib.core.contracts import dumps
from tutorial_lib.core.tools import Registry, ToolSpec

__all__ = [
    "LOCAL_API_KEY",
    "PROVIDERS",
    "TOOL_NAME_PATTERN",
    "AnthropicModel",
    "OpenAIModel",
    "Provider",
    "anthropic_tools",
    "available",
    "openai_tools",
]


@dataclass(frozen=True)
class Provider:
    """What one provider needs here: the SDK's import name and the API key's variable."""

    name: str
    package: str
    key_variable: str


#: The providers with an adapter, by name.
PROVIDERS: Mapping[str, Provider] = {
    "anthropic": Provider("anthropic", "anthropic", "ANTHROPIC_API_KEY"),
    "openai": Provider("openai", "openai", "OPENAI_API_KEY"),
}

#: The key the OpenAI SDK is given for a ``base_url`` when no ``api_key`` is passed: the SDK
#: refuses to start without one, and a local server usually ignores it. A placeholder, so
#: that ``OPENAI_API_KEY`` (a real, paid key) is never sent to a server you pointed it at.
LOCAL_API_KEY = "no-key-local-server"

#: Tool names both APIs accept: 1-64 characters of A-Za-z0-9_- (no dot, unlike MCP).
TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _provider(name: str) -> Provider:
    try:
        return PROVIDERS[name]
    except KeyError:
        raise ValueError(f"no provider {name!r}; providers: {', '.join(PROVIDERS)}") from None


def available(
    provider: str, *, environ: Mapping[str, str] | None = None, base_url: str | None = None
) -> str | None:
    """Why ``provider`` (``"anthropic"`` or ``"openai"``) cannot run here, or None if it can.

    Checks that the SDK is installed and that its API key variable is set and not empty in
    ``environ`` (default: ``os.environ``). With ``base_url`` (``"openai"`` only: a local
    OpenAI-compatible server such as ``"http://127.0.0.1:8080/v1"``) no key is needed, so
    only the SDK is checked. It imports nothing and sends nothing: a key that is set but
    wrong, or a server that is not running, is only found out by a request. Unknown
    providers raise ValueError, and so does a ``base_url`` for ``"anthropic"``.
    """
    spec = _provider(provider)
    _check_base_url(spec, base_url)
    env = os.environ if environ is None else environ
    missing = _missing_sdk(spec)
    if missing is not None:
        return missing
    if base_url is None and not env.get(spec.key_variable):
        return f"{spec.key_variable} is not set: the {spec.name} API needs a key (and costs money)"
    return None


def _check_base_url(spec: Provider, base_url: str | None) -> None:
    if base_url is not None and spec.name != "openai":
        raise ValueError(
            f"base_url is for OpenAI-compatible servers (provider 'openai'), not {spec.name!r}"
        )


def _missing_sdk(spec: Provider) -> str | None:
    if importlib.util.find_spec(spec.package) is None:
        return (
            f"the {spec.package!r} SDK is not installed in this environment"
            f" (pip install {spec.package})"
        )
    return None


def _client(
    provider: str, factory: str, *, base_url: str | None = None, api_key: str | None = None
) -> Any:
    """A real SDK client, imported only now; RuntimeError saying what is missing otherwise.

    With ``base_url`` the client talks to that server with ``api_key`` or, without one,
    :data:`LOCAL_API_KEY` (never the environment's key); with only ``api_key``, to the
    provider's API with that key.
    """
    spec = _provider(provider)
    _check_base_url(spec, base_url)
    reason = _missing_sdk(spec) if api_key is not None else available(provider, base_url=base_url)
    if reason is not None:
        raise RuntimeError(
            f"cannot create a {provider} client: {reason}."
            " Pass client= to use another one (tests pass a fake)."
        )
    options: dict[str, Any] = {}
    if base_url is not None:
        options = {"base_url": base_url, "api_key": LOCAL_API_KEY if api_key is None else api_key}
    elif api_key is not None:
        options = {"api_key": api_key}
    module = importlib.import_module(PROVIDERS[provider].package)
    return getattr(module, factory)(**options)


def _checked(spec: ToolSpec) -> ToolSpec:
    if not TOOL_NAME_PATTERN.fullmatch(spec.name):
        raise ValueError(
            f"tool name {spec.name!r} is not accepted by the model APIs (1-64 characters of"
            " A-Za-z0-9_-); rename the tool everywhere, or see tutorial_lib.design.exports"
        )
    return spec


def anthropic_tools(registry: Registry) -> list[dict[str, Any]]:
    """The registry's tools as Anthropic Messages API tools, schemas as written.

    ``{"name", "description", "input_schema"}`` per tool, like
    :func:`tutorial_lib.design.exports.to_anthropic`. A name the API refuses raises ValueError.
    """
    return [
        {
            "name": spec.name,
            "description": spec.description,
            "input_schema": copy.deepcopy(spec.input_schema),
        }
        for spec in map(_checked, registry)
    ]


def openai_tools(registry: Registry) -> list[dict[str, Any]]:
    """The registry's tools as OpenAI Chat Completions function tools, NOT strict.

    ``{"type": "function", "function": {"name", "description", "parameters", "strict":
    false}}``: the schema is sent as written and is only a hint to the model. For strict
    mode use :func:`tutorial_lib.design.exports.to_openai` (see the module docstring).
    """
    return [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": copy.deepcopy(spec.input_schema),
                "strict": False,
            },
        }
        for spec in map(_checked, registry)
    ]


def _arguments_json(arguments: Any) -> str:
    """A call's arguments as the JSON text a function call carries.

    A string is what the model sent when its text was not valid JSON: it is sent back as is.
    """
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def _parse_arguments(text: Any) -> Any:
    """The arguments' JSON text as a value; text that is not JSON stays a string, and the
    road answers it with its "not an object" error, as it would any malformed call."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


class AnthropicModel:
    """A :class:`~tutorial_lib.agent.loop.Model` backed by the Anthropic Messages API.

    ``registry``: the tools offered (exported with :func:`anthropic_tools` unless ``tools``
    gives the list to send). ``model``: the model id. ``system``: the system prompt.
    ``user_request``: the first user message. ``client``: anything with
    ``client.messages.create(**request)`` returning a Message-like object (``content``
    blocks with ``type`` ``"text"``/``"tool_use"``, and ``stop_reason``); by default
    ``anthropic.Anthropic()``, which needs the SDK and ``ANTHROPIC_API_KEY``.
    ``max_tokens`` bounds each reply; ``temperature``, if given, is sent with each request
    (None: the API's default).

    Each :meth:`next_action` is one paid request. The model is stateless: the same
    transcript gives the same request (the reply, of course, may differ).
    """

    def __init__(
        self,
        registry: Registry,
        *,
        model: str,
        system: str,
        user_request: str,
        client: Any = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int = 1024,
        temperature: float | None = None,
    ) -> None:
        self.registry = registry
        self.model = model
        self.system = system
        self.user_request = user_request
        self.tools = [dict(t) for t in tools] if tools is not None else anthropic_tools(registry)
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.client = client if client is not None else _client("anthropic", "Anthropic")

    def messages(self, transcript: Transcript) -> list[dict[str, Any]]:
        """The conversation so far in Messages API form.

        The user's request, then per step an assistant ``tool_use`` block (id ``step<n>``,
        the arguments as sent) and a user ``tool_result`` block (the envelope's compact
        JSON, ``is_error`` for a failed call).
        """
        messages: list[dict[str, Any]] = [{"role": "user", "content": self.user_request}]
        for step in transcript.steps:
            if not isinstance(step.arguments, dict):
                raise TypeError(
                    f"step {step.number}: a tool_use input must be a JSON object,"
                    f" got {type(step.arguments).__name__} (was this transcript made by"
                    " another model?)"
                )
            call_id = f"step{step.number}"
            messages.append(
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": call_id,
                            "name": step.name,
                            "input": copy.deepcopy(step.arguments),
                        }
                    ],
                }
            )
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": call_id,
                            "content": dumps(step.result),
                            "is_error": not step.ok,
                        }
                    ],
                }
            )
        return messages

    def request(self, transcript: Transcript) -> dict[str, Any]:
        """The keyword arguments of the ``messages.create`` call :meth:`next_action` makes."""
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": self.system,
            "messages": self.messages(transcript),
            "tools": copy.deepcopy(self.tools),
            "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
        }
        if self.temperature is not None:
            request["temperature"] = self.temperature
        return request

    def settings(self) -> dict[str, Any]:
        """What each request is sent with besides the conversation and the tools, as JSON
        values: the ``settings`` to put in a recording's meta
        (:class:`tutorial_lib.agent.recording.RecordingModel`)."""
        request = self.request(Transcript())
        for key in ("messages", "tools", "system"):
            del request[key]
        return {"provider": "anthropic", **request}

    def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
        """One request; the reply as an action (see :meth:`parse`)."""
        return self.parse(self.client.messages.create(**self.request(transcript)))

    @staticmethod
    def parse(response: Any) -> ToolCall | FinalAnswer:
        """A Message as an action.

        The first ``tool_use`` block becomes a ToolCall (its ``input`` as the arguments),
        whatever text comes with it. Otherwise the text blocks, joined, are the
        FinalAnswer; it counts as giving up when ``stop_reason`` is ``"refusal"`` or there
        is no text.
        """
        blocks = list(getattr(response, "content", None) or [])
        for block in blocks:
            if getattr(block, "type", None) == "tool_use":
                return ToolCall(block.name, block.input)
        text = "".join(
            block.text for block in blocks if getattr(block, "type", None) == "text"
        ).strip()
        refused = getattr(response, "stop_reason", None) == "refusal"
        return FinalAnswer(text, gave_up=refused or not text)


class OpenAIModel:
    """A :class:`~tutorial_lib.agent.loop.Model` backed by OpenAI Chat Completions.

    Same arguments as :class:`AnthropicModel`, except: ``client`` is anything with
    ``client.chat.completions.create(**request)`` returning a ChatCompletion-like object
    (``choices[0].message`` with ``content``, ``refusal`` and ``tool_calls``), by default
    ``openai.OpenAI()``, which needs the SDK and ``OPENAI_API_KEY`` (or ``api_key``);
    ``base_url``: the address of an OpenAI-compatible server instead of OpenAI's, e.g.
    ``"http://127.0.0.1:8080/v1"`` (llama-server, vLLM, Ollama's ``/v1``), reached with
    ``api_key`` or else the placeholder :data:`LOCAL_API_KEY`, never ``OPENAI_API_KEY``
    (``base_url`` and ``api_key`` configure the client this model creates: with ``client=``
    configure that client instead); ``tools`` defaults to
    :func:`openai_tools` (not strict); ``decode_arguments(spec, arguments)``, if given, is
    applied to the parsed arguments of a call to a registered tool (pass
    :func:`tutorial_lib.design.exports.from_strict_arguments` with strict tools);
    ``max_completion_tokens`` bounds each reply and ``temperature`` is sent with each
    request (None, for both: not sent, the server's default applies).
    """

    def __init__(
        self,
        registry: Registry,
        *,
        model: str,
        system: str,
        user_request: str,
        client: Any = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        decode_arguments: Callable[[ToolSpec, Any], Any] | None = None,
        max_completion_tokens: int | None = None,
        temperature: float | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
    ) -> None:
        if client is not None and (base_url is not None or api_key is not None):
            raise ValueError(
                "base_url and api_key configure the client OpenAIModel creates; with client="
                " pass them to that client instead"
            )
        self.registry = registry
        self.model = model
        self.system = system
        self.user_request = user_request
        self.tools = [dict(t) for t in tools] if tools is not None else openai_tools(registry)
        self.decode_arguments = decode_arguments
        self.max_completion_tokens = max_completion_tokens
        self.temperature = temperature
        #: The server this model's own client talks to (None: OpenAI's API, or ``client``'s).
        self.base_url = base_url
        self.client = (
            client
            if client is not None
            else _client("openai", "OpenAI", base_url=base_url, api_key=api_key)
        )

    def messages(self, transcript: Transcript) -> list[dict[str, Any]]:
        """The conversation so far in Chat Completions form.

        A ``system`` and a ``user`` message, then per step an assistant message with one
        function ``tool_calls`` entry (id ``call_step<n>``, the arguments as JSON text)
        and a ``tool`` message with the envelope's compact JSON.
        """
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user_request},
        ]
        for step in transcript.steps:
            call_id = f"call_step{step.number}"
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {
                                "name": step.name,
                                "arguments": _arguments_json(step.arguments),
                            },
                        }
                    ],
                }
            )
            messages.append(
                {"role": "tool", "tool_call_id": call_id, "content": dumps(step.result)}
            )
        return messages

    def request(self, transcript: Transcript) -> dict[str, Any]:
        """The keyword arguments of the ``chat.completions.create`` call :meth:`next_action`
        makes."""
        request: dict[str, Any] = {
            "model": self.model,
            "messages": self.messages(transcript),
            "tools": copy.deepcopy(self.tools),
            "tool_choice": "auto",
            "parallel_tool_calls": False,
        }
        if self.max_completion_tokens is not None:
            request["max_completion_tokens"] = self.max_completion_tokens
        if self.temperature is not None:
            request["temperature"] = self.temperature
        return request

    def settings(self) -> dict[str, Any]:
        """What each request is sent with besides the conversation and the tools, and where
        to (``base_url``; never the key), as JSON values: the ``settings`` to put in a
        recording's meta (:class:`tutorial_lib.agent.recording.RecordingModel`)."""
        request = self.request(Transcript())
        for key in ("messages", "tools"):
            del request[key]
        return {"provider": "openai", "base_url": self.base_url, **request}

    def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
        """One request; the reply as an action (see :meth:`parse`)."""
        return self.parse(self.client.chat.completions.create(**self.request(transcript)))

    def parse(self, response: Any) -> ToolCall | FinalAnswer:
        """A ChatCompletion as an action.

        The first entry of ``tool_calls`` becomes a ToolCall: its arguments parsed from
        JSON (text that is not JSON is passed on as a string, for the road to refuse),
        then ``decode_arguments`` if set and the tool is registered. Otherwise a
        ``refusal`` is a FinalAnswer that gives up, and ``content`` is the FinalAnswer
        (giving up when empty).
        """
        message = response.choices[0].message
        calls = list(getattr(message, "tool_calls", None) or [])
        if calls:
            call = calls[0]
            if getattr(call, "type", "function") == "function":
                name = call.function.name
                arguments = _parse_arguments(call.function.arguments)
            else:  # a custom tool call (none is offered here): its input is plain text
                name, arguments = call.custom.name, call.custom.input
            if self.decode_arguments is not None and name in self.registry:
                arguments = self.decode_arguments(self.registry.get(name), arguments)
            return ToolCall(name, arguments)
        refusal = getattr(message, "refusal", None)
        if refusal:
            return FinalAnswer(str(refusal), gave_up=True)
        text = (getattr(message, "content", None) or "").strip()
        return FinalAnswer(text, gave_up=not text)
