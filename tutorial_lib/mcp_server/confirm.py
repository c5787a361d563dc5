"""Chapter 07's confirmation over MCP elicitation, on every protocol version.

Each MCP tool is one function (:func:`tool_function`) whose two parameters the SDK fills
with resolvers (``Annotated[..., Resolve(fn)]``) before the body runs:

1. ``precheck`` sends the call along the host's road (:meth:`HostBridge.precheck`). Most
   calls end there: a read's result, a refusal. A call the host's confirmation station
   stops (``confirmation_required``, or ``approval_invalid`` with a new question) leaves a
   question in the host's flow; ``error.confirmation.request_id`` names it;
2. ``ask`` turns that question into ``Elicit(message, Confirmation)``: the host's own
   question text and what it shows (:func:`~tutorial_lib.core.confirmation.elicitation_request`),
   the request id, and a form with NO field (:class:`Confirmation`): the answer is the
   elicitation's action, accept / decline / cancel, never a value the user types (nothing
   secret is ever asked for). The SDK carries it the way the negotiated protocol allows:
   on 2026-07-28 an ``InputRequiredResult`` the client answers by retrying the call (the
   SDK seals the round's state to the tool, the arguments and the caller), on earlier
   versions an ``elicitation/create`` request in the middle of the call (``ctx.elicit``);
3. the body maps the answer onto the host's flow (:meth:`HostBridge.decide`): the host
   is called again with an answerer (for that call only) that answers exactly that request
   (:func:`~tutorial_lib.core.confirmation.answer_from_elicitation`, by
   ``"mcp_elicitation"``). Accept: the approval is bound to the exact tool and arguments
   and runs once, through the whole road; decline / cancel: nothing runs and the host's
   envelope says so.

Single use is the host flow's, not the SDK's: the SDK keeps no replay store, so a client
that replays an accepted round (the same answer sent again) meets the host's
``approval_invalid`` ("one approval runs one call"), and nothing runs a second time. A
new call (no answer attached) is a question again, even for a call already run: a write
retried with the same idempotency key after a lost reply is asked anew, and accepting it
returns the outcome the key already has instead of writing twice. A model-set
``confirm: true`` argument is no answer (the schemas refuse unknown fields; only the
flow's ``answer`` approves).

A client that cannot elicit (it declared no form elicitation capability, or on an older
protocol has no channel back) is never asked: it gets the host's structured
``confirmation_required`` refusal, whose ``error.confirmation`` names the request. So does
a question that asks the user to choose a target (the form would need a field).

The host is synchronous: every call runs in a worker thread, one at a time
(:class:`HostBridge`), so the server's event loop keeps serving while a tool works.

This module reads its annotations at run time (no ``from __future__ import annotations``):
the SDK inspects the resolvers' signatures when the tools are registered.
"""

import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    Resolve,
)
from mcp_types import CallToolResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from tutorial_lib.core.confirmation import (
    ConfirmationFlow,
    answer_from_elicitation,
    elicitation_request,
)
from tutorial_lib.core.contracts import Envelope
from tutorial_lib.core.host import Host
from tutorial_lib.mcp_server.results import tool_result

__all__ = [
    "RESOLVED_PARAMETERS",
    "Confirmation",
    "HostBridge",
    "Precheck",
    "call_arguments",
    "can_elicit",
    "tool_function",
]

T = TypeVar("T")

#: The parameters of every tool function the SDK fills with resolvers.
RESOLVED_PARAMETERS = frozenset({"pre", "answer"})


class Confirmation(BaseModel):
    """Accept runs exactly the call shown above, once; decline or cancel runs nothing."""


@dataclass(frozen=True)
class Precheck:
    """What the first trip along the road found for one call.

    ``envelope``: the host's result; ``request_id``: the question it left in the host's
    flow (None: nothing to ask); ``message``: what the user is asked, set only when this
    client can be asked by elicitation (None: ``envelope`` is the result).
    """

    tool: str
    arguments: Any
    envelope: Envelope
    request_id: str | None = None
    message: str | None = None


def can_elicit(ctx: Context) -> bool:
    """Whether this request's client can answer a form elicitation: it declared form
    support (a bare ``elicitation: {}`` counts, as in the SDK), and either the protocol
    carries questions in the call's result (2026-07-28) or the server can send the
    client a request in the middle of the call (earlier versions)."""
    capabilities = ctx.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None or (elicitation.form is None and elicitation.url is not None):
        return False
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS or ctx.session.can_send_request


def call_arguments(ctx: Context) -> Any:
    """The call's arguments exactly as the client sent them (an omitted ``arguments`` is
    ``{}``): the host's schema check, not the SDK, decides what they may be."""
    params = ctx.request_context.params or {}
    arguments = params.get("arguments")
    return {} if arguments is None else arguments


class HostBridge:
    """The host, reached from the server's event loop: each use runs in a worker thread,
    one at a time (the host and its confirmation flow are not meant for two threads)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._lock = threading.Lock()

    async def _run(self, work: Callable[..., T], *args: Any) -> T:
        def locked() -> T:
            with self._lock:
                return work(*args)

        return await anyio.to_thread.run_sync(locked)

    async def precheck(self, tool: str, arguments: Any, *, ask: bool, new: bool) -> Precheck:
        """Call ``tool`` along the road, with nobody to answer a question on the spot;
        with ``ask``, prepare the elicitation message of the question it leaves.

        ``new``: the call carries no answer (no input responses, no sealed state), so it
        is the client's new call, not a replay of an answered round: an approval the same
        call used before is set aside and the user is asked again
        (:meth:`~tutorial_lib.core.confirmation.ConfirmationFlow.new_call`)."""
        return await self._run(self._precheck, tool, arguments, ask, new)

    def _precheck(self, tool: str, arguments: Any, ask: bool, new: bool) -> Precheck:
        if new and isinstance(arguments, Mapping):
            self.host.flow.new_call(tool, arguments)
        envelope = self.host.call(tool, arguments)
        error: Any = {} if envelope["ok"] else envelope["error"]
        confirmation = error.get("confirmation")
        request_id = confirmation.get("request_id") if isinstance(confirmation, dict) else None
        message = None
        if request_id is not None and ask:
            request = self.host.flow.request(request_id)
            if not request.question.candidates:  # a choice would need a form field
                message = (
                    f"{elicitation_request(request)['message']}\n\nAccept runs exactly this"
                    f" call, once; decline or cancel runs nothing. (question {request_id})"
                )
        return Precheck(tool, arguments, envelope, request_id, message)

    async def decide(self, pre: Precheck, action: str, content: Any = None) -> Envelope:
        """Answer ``pre``'s question with the user's elicitation answer and call again:
        accept runs the approved call once, decline / cancel run nothing."""
        return await self._run(self._decide, pre, {"action": action, "content": content})

    def _decide(self, pre: Precheck, result: Mapping[str, Any]) -> Envelope:
        def answer_this_question(flow: ConfirmationFlow, request_id: str) -> None:
            # the user saw pre's question: their answer is for it and for nothing else
            # (another question left open is reported as not answered)
            if request_id == pre.request_id:
                answer_from_elicitation(flow, request_id, result)

        return self.host.call(pre.tool, pre.arguments, answerer=answer_this_question)


def tool_function(bridge: HostBridge, name: str) -> Callable[..., Awaitable[CallToolResult]]:
    """The function the SDK runs for MCP tool ``name``: resolvers ``precheck`` and ``ask``
    (see the module), then the body, which returns the result of the host's envelope."""

    async def precheck(ctx: Context) -> Precheck:
        new = not ctx.input_responses and ctx.request_state is None
        return await bridge.precheck(name, call_arguments(ctx), ask=can_elicit(ctx), new=new)

    async def ask(pre: Annotated[Precheck, Resolve(precheck)]) -> Elicit[Confirmation] | Precheck:
        if pre.message is None:
            return pre  # nothing to ask: the body returns pre's envelope
        return Elicit(pre.message, Confirmation)

    async def call_tool(
        pre: Annotated[Precheck, Resolve(precheck)],
        answer: Annotated[ElicitationResult[Confirmation], Resolve(ask)],
    ) -> CallToolResult:
        if pre.message is None:
            return tool_result(pre.envelope)
        content = answer.data.model_dump() if isinstance(answer, AcceptedElicitation) else None
        return tool_result(await bridge.decide(pre, answer.action, content))

    return call_tool
