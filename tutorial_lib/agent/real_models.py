"""Optional adapters: a real language model as the Model that ``run_agent`` asks.

**Optional, and not the course's default.** Every chapter runs on
:class:`~tutorial_lib.agent.loop.ScriptedModel`, a deterministic policy whose figures are
the same on every run and on every machine. The adapters here are for a learner who wants
to try the same tools on a real model afterwards. Keep in mind:

- they **cost money**: each :meth:`next_action` is one paid API request, and the whole
  conversation (tool list, request, every call and result so far) is sent again each time;
- they need the provider's SDK (``pip install anthropic`` or ``pip install openai``) and
  an API key in ``ANTHROPIC_API_KEY`` or ``OPENAI_API_KEY``; :func:`available` says what
  is missing. The SDKs are imported only when a client is created, so this module imports
  without them;
- a real model's figures (calls, invalid calls, characters read) **vary from run to run**
  and from one model version to the next: one run is an anecdote, not a measurement;
- nothing in the course, its tests or its CI calls them; the tests use fake clients.

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

Example (not run by the course; it costs money)::

    from tutorial_lib.agent.loop import run_agent
    from tutorial_lib.agent.real_models import AnthropicModel, available

    reason = available("anthropic")
    if reason is None:
        model = AnthropicModel(
            registry,
            model="<a current model id>",
            system="You answer with the tools you are given.",
            user_request="Read notes.txt completely and say how many lines it has.",
        )
        print("\\n".join(run_agent(model, registry, max_steps=10).lines()))
    else:
        print("skipped:", reason)
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

#: Tool names both APIs accept: 1-64 characters of A-Za-z0-9_- (no dot, unlike MCP).
TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _provider(name: str) -> Provider:
    try:
        return PROVIDERS[name]
    except KeyError:
        raise ValueError(f"no provider {name!r}; providers: {', '.join(PROVIDERS)}") from None


def available(provider: str, *, environ: Mapping[str, str] | None = None) -> str | None:
    """Why ``provider`` (``"anthropic"`` or ``"openai"``) cannot run here, or None if it can.

    Checks that the SDK is installed and that its API key variable is set and not empty in
    ``environ`` (default: ``os.environ``). It imports nothing and sends nothing: a key that
    is set but wrong is only found out by a request. Unknown providers raise ValueError.
    """
    spec = _provider(provider)
    env = os.environ if environ is None else environ
    if importlib.util.find_spec(spec.package) is None:
        return (
            f"the {spec.package!r} SDK is not installed in this environment"
            f" (pip install {spec.package})"
        )
    if not env.get(spec.key_variable):
        return f"{spec.key_variable} is not set: the {spec.name} API needs a key (and costs money)"
    return None


def _client(provider: str, factory: str) -> Any:
    """A real SDK client, imported only now; RuntimeError saying what is missing otherwise."""
    reason = available(provider)
    if reason is not None:
        raise RuntimeError(
            f"cannot create a {provider} client: {reason}."
            " Pass client= to use another one (tests pass a fake)."
        )
    module = importlib.import_module(PROVIDERS[provider].package)
    return getattr(module, factory)()


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
    ``max_tokens`` bounds each reply.

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
    ) -> None:
        self.registry = registry
        self.model = model
        self.system = system
        self.user_request = user_request
        self.tools = [dict(t) for t in tools] if tools is not None else anthropic_tools(registry)
        self.max_tokens = max_tokens
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
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": self.system,
            "messages": self.messages(transcript),
            "tools": copy.deepcopy(self.tools),
            "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
        }

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
    ``openai.OpenAI()``, which needs the SDK and ``OPENAI_API_KEY``; ``tools`` defaults to
    :func:`openai_tools` (not strict); ``decode_arguments(spec, arguments)``, if given, is
    applied to the parsed arguments of a call to a registered tool (pass
    :func:`tutorial_lib.design.exports.from_strict_arguments` with strict tools);
    ``max_completion_tokens`` bounds each reply (None: the API's default).
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
    ) -> None:
        self.registry = registry
        self.model = model
        self.system = system
        self.user_request = user_request
        self.tools = [dict(t) for t in tools] if tools is not None else openai_tools(registry)
        self.decode_arguments = decode_arguments
        self.max_completion_tokens = max_completion_tokens
        self.client = client if client is not None else _client("openai", "OpenAI")

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
        return request

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
