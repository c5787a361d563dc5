"""Chapter 07's widgets: one question of a :class:`~tutorial_lib.core.confirmation.ConfirmationFlow`
on screen, answered with a click.

:class:`ConfirmationWidget` shows what the user must see to decide (the question, where,
the diff of what will be posted, the impact), the candidates of an undecided target with
**none selected**, and three buttons: accept, decline, cancel. A click only changes state:
it disables the buttons at once, then hands the decision to the flow's state machine
(:meth:`~tutorial_lib.core.confirmation.ConfirmationFlow.answer`); after an acceptance
the host runs the approved call through the road (``run``, e.g.
:func:`~tutorial_lib.core.confirmation.run_approved`). A second click, even one that
arrives before the buttons look disabled, changes nothing: the flow refuses a second
answer and the approval runs one call.

Every part has a CSS class (``tl-confirm``, ``tl-confirm-choice``, ``tl-confirm-accept``,
``tl-confirm-decline``, ``tl-confirm-cancel``, ``tl-confirm-status``) for the browser
test, and a headless path (:meth:`ConfirmationWidget.choose`,
:meth:`ConfirmationWidget.click`) for nbval and tests.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as widgets

from tutorial_lib.core.confirmation import (
    ConfirmationError,
    ConfirmationFlow,
    ConfirmationRequest,
    Decision,
)
from tutorial_lib.core.display import visible
from tutorial_lib.language import Text, tr

__all__ = ["ConfirmationWidget", "describe_envelope"]

_LABELS: Mapping[Decision, Text] = {
    "accept": Text(zh="批准", en="Approve"),
    "decline": Text(zh="拒绝", en="Decline"),
    "cancel": Text(zh="取消", en="Cancel"),
}
#: The fields a status line shows of a success, when the data has them.
_BRIEF = ("status", "comment_id", "repository", "group", "version", "deploy")


def describe_envelope(envelope: Mapping[str, Any]) -> str:
    """One line for a result envelope: ``ok`` and a few fields of its data, or the error."""
    if envelope.get("ok") is True:
        data = envelope.get("data", {})
        keys = [k for k in _BRIEF if k in data] or [
            k for k, v in data.items() if isinstance(v, str | int | bool)
        ][:3]
        return f"{envelope.get('tool')}: ok " + ", ".join(f"{k}={data[k]}" for k in keys)
    error = envelope.get("error", {})
    return f"{envelope.get('tool')}: {error.get('code')}: {error.get('message')}"


class ConfirmationWidget:
    """The question ``request_id`` of ``flow``, with its answer buttons.

    ``run(request)`` is called once after an acceptance (the host runs the approved call)
    and returns the result envelope; ``after(envelope)`` turns it into the status line.
    """

    def __init__(
        self,
        flow: ConfirmationFlow,
        request_id: str,
        *,
        run: Callable[[ConfirmationRequest], Mapping[str, Any]] | None = None,
        after: Callable[[Mapping[str, Any]], str] = describe_envelope,
    ) -> None:
        self.flow = flow
        self.request_id = request_id
        self.run = run
        self.after = after
        self.results: list[Mapping[str, Any]] = []
        request = flow.request(request_id)
        question = request.question
        self.header = widgets.HTML(f"<b>{_html(question.text)}</b>")
        self.shown = widgets.HTML(_shown_html(question.shown))
        self.choice = widgets.RadioButtons(
            options=[(visible(c, keep=""), c) for c in question.candidates],
            value=None,  # nothing preselected: the user chooses
            description="",
            layout=widgets.Layout(display="flex" if question.candidates else "none"),
        )
        self.choice.add_class("tl-confirm-choice")
        self.buttons: dict[Decision, widgets.Button] = {}
        for decision, label in _LABELS.items():
            button = widgets.Button(
                description=str(label),
                button_style="success" if decision == "accept" else "",
            )
            button.add_class(f"tl-confirm-{decision}")
            button.on_click(lambda _button, d=decision: self._clicked(d))
            self.buttons[decision] = button
        self.status = widgets.HTML(self._status_text())
        self.status.add_class("tl-confirm-status")
        self.box = widgets.VBox(
            [
                self.header,
                self.shown,
                self.choice,
                widgets.HBox(list(self.buttons.values())),
                self.status,
            ]
        )
        self.box.add_class("tl-confirm")
        if request.state != "asked":
            self._disable()

    # -- headless path (nbval, tests, a terminal session driving the same widget)

    def choose(self, candidate: str) -> None:
        """Select ``candidate`` (as the user would, by clicking it)."""
        self.choice.value = candidate

    def click(self, decision: Decision) -> None:
        """Click a button (runs its handlers exactly as a click in the browser does)."""
        self.buttons[decision].click()

    # -- display

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = dict(self.box._repr_mimebundle_(**kwargs))
        request = self.flow.request(self.request_id)
        text = request.question.text
        bundle["text/plain"] = tr(
            f"确认请求 {self.request_id}：{text}", f"Confirmation request {self.request_id}: {text}"
        )
        return bundle

    # -- what a click does

    def _clicked(self, decision: Decision) -> None:
        if self.buttons[decision].disabled:
            return  # a second click on a decided question: nothing happens
        self._disable()
        choice = self.choice.value if self.choice.options else None
        try:
            request = self.flow.answer(self.request_id, decision, choice=choice, by="widget")
        except ConfirmationError as error:
            if self.flow.request(self.request_id).state == "asked":
                self._enable()  # e.g. accept before choosing: the user may still answer
            self.status.value = f"<span>{_html(str(error))}</span>"
            return
        if request.state == "accepted" and self.run is not None:
            envelope = self.run(request)
            self.results.append(envelope)
        self.status.value = self._status_text()

    def _status_text(self) -> str:
        request = self.flow.request(self.request_id)
        parts = [tr(f"状态：{request.state}", f"Status: {request.state}")]
        if request.choice:
            parts.append(tr(f"选择：{request.choice}", f"Choice: {request.choice}"))
        parts += [self.after(envelope) for envelope in self.results]
        return "<br>".join(_html(part) for part in parts)

    def _disable(self) -> None:
        for button in self.buttons.values():
            button.disabled = True
        self.choice.disabled = True

    def _enable(self) -> None:
        for button in self.buttons.values():
            button.disabled = False
        self.choice.disabled = False


def _html(text: str) -> str:
    """``text`` (untrusted: it may quote a comment or a file name) as HTML: characters
    that would hide or reorder it shown as ``[U+XXXX]`` (:func:`visible`), then escaped."""
    return html.escape(visible(text))


def _shown_html(shown: Mapping[str, str]) -> str:
    """What the user sees before deciding: each label, and multi-line text as a diff."""
    blocks = []
    colon = tr("：", ": ")
    for label, given in shown.items():
        # a CRLF line end is a line end; every other hidden character is shown
        text = visible(given.replace("\r\n", "\n"))
        lines = text.splitlines() or [""]
        # "评论" is a label a policy may use: data, not learner text
        if len(lines) > 1 or label in ("diff", "comment", "评论"):
            body = "\n".join(f"+ {line}" for line in lines)
            blocks.append(
                f"<div>{html.escape(label)}{colon}</div>"
                f'<pre class="tl-confirm-diff" style="background:#f0fff4;padding:4px 8px">'
                f"{html.escape(body)}</pre>"
            )
        else:
            blocks.append(f"<div>{html.escape(label)}{colon}{html.escape(text)}</div>")
    return "".join(blocks)
