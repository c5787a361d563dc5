"""Runs recorded as JSON Lines, and replayed without the model.

A real model's run is an anecdote: it costs money (or a local server's time), and the next
run may choose otherwise. Recording it keeps the evidence. :class:`RecordingModel` wraps
any :class:`~tutorial_lib.agent.loop.Model` and appends to a :class:`TranscriptLog` every
action the model chose and every result the tools gave back, after a header holding the
run's metadata (model id, date, settings, task, interface version). :class:`ReplayModel`
plays the recorded actions back, without the model, and checks on every turn that the
tools answered what they answered then: a different result (or a different call) raises
:class:`ReplayMismatch`, naming the run and the step. A recording is thus a regression
test of the *tools*: the model's choices are frozen, the world and the interface run again.

What a replay does not tell: what the model would choose today. If a result differs, the
recorded model never saw the new one, so the replay stops there rather than guess.

The file: UTF-8, one JSON object per line (keys sorted, compact, non-ASCII kept readable,
so the same content is always the same bytes), each with its ``kind`` and ``run_id``::

    {"format":1,"kind":"run","meta":{"date":"2025-01-31","interface":"v2",...},"run_id":"r1"}
    {"action":{"arguments":{"count":20,"path":"notes.txt","start":1},"name":"read_lines",
      "type":"tool_call"},"kind":"action","run_id":"r1","step":1}
    {"kind":"result","result":{"data":{...},"ok":true,...},"run_id":"r1","step":1}
    {"action":{"gave_up":false,"text":"notes.txt has 3 lines.","type":"final_answer"},
      "kind":"action","run_id":"r1","step":2}

(each record is one line in the file; two are wrapped here). An action's ``step`` is the
number of the step it asks for (calls made so far, plus one); a result's ``step`` is that
of the call it answers, and ``result`` is the envelope exactly as the transcript holds it.
A run that hit ``max_steps`` ends on a call that never ran: an action without a result.
Several runs may share one file; their lines may interleave.

Everything here is deterministic: the date is passed in by the caller, nothing reads a
clock. Typical use (a real model from :mod:`tutorial_lib.agent.real_models`)::

    log = TranscriptLog.open("runs.jsonl")  # appends each record as it happens
    meta = {"model": model.model, "date": "2025-01-31", "settings": model.settings(),
            "task": "count notes.txt", "interface": "read_lines v1"}
    recorded = run_agent(RecordingModel(model, log, run_id="r1", meta=meta), host)
    ...
    replay = ReplayModel.from_log(TranscriptLog.read("runs.jsonl"), "r1")
    assert run_agent(replay, fresh_host).steps == recorded.steps  # no request sent
"""

from __future__ import annotations

import copy
import datetime
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tutorial_lib.agent.loop import FinalAnswer, Model, ToolCall, Transcript
from tutorial_lib.core.contracts import TutorialLibError

__all__ = [
    "RECORD_KINDS",
    "REQUIRED_META",
    "TRANSCRIPT_FORMAT",
    "RecordingModel",
    "ReplayMismatch",
    "ReplayModel",
    "TranscriptLog",
    "canonical_json",
]

#: The version of the file format, in every ``run`` header.
TRANSCRIPT_FORMAT = 1

#: The kinds of line: a run's header, a model's action, a tool's result.
RECORD_KINDS = ("run", "action", "result")

#: What every run's ``meta`` must say, so that a recording says what it is evidence of:
#: ``model`` (the model id, e.g. as the server names it), ``date`` (ISO 8601, given by
#: the caller), ``settings`` (an object: temperature, token limit, base_url...), ``task``
#: and ``interface`` (the names of the task and of the interface version). Other keys
#: (the system prompt, the user's request...) are kept as they are.
REQUIRED_META = ("model", "date", "settings", "task", "interface")

#: How many characters of each side a ReplayMismatch shows around the first difference.
_SHOWN = 240


def canonical_json(value: Any) -> str:
    """``value`` as one line of canonical JSON: keys sorted, compact, non-ASCII kept.

    The recording's byte format, and what a replay compares: two values are the same
    result when their canonical JSON is the same text, so ``1`` is not ``1.0`` nor
    ``true``, and a tuple is the list it is sent as. Raises ValueError for what JSON
    cannot hold (NaN, a set, an object...).
    """
    try:
        return json.dumps(
            value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not a JSON value: {exc}") from None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    if duplicates:
        raise ValueError(f"duplicate keys {duplicates}")
    return dict(pairs)


def _is_iso_date(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    try:
        datetime.date.fromisoformat(text)
        return True
    except ValueError:
        pass
    try:  # Python 3.10's fromisoformat does not read a final "Z"
        datetime.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
        return True
    except ValueError:
        return False


def _check_meta(meta: Any) -> None:
    if not isinstance(meta, dict):
        raise ValueError(f"meta must be a JSON object, got {type(meta).__name__}")
    missing = [key for key in REQUIRED_META if key not in meta]
    if missing:
        raise ValueError(f"meta lacks {missing} (required: {', '.join(REQUIRED_META)})")
    for key in ("model", "task", "interface"):
        if not isinstance(meta[key], str) or not meta[key]:
            raise ValueError(f"meta[{key!r}] must be a non-empty string, got {meta[key]!r}")
    if not _is_iso_date(meta["date"]):
        raise ValueError(
            f"meta['date'] must be an ISO 8601 date or date-time (e.g. '2025-01-31'),"
            f" got {meta['date']!r}"
        )
    if not isinstance(meta["settings"], dict):
        raise ValueError(f"meta['settings'] must be an object, got {meta['settings']!r}")


def _action_json(action: ToolCall | FinalAnswer) -> dict[str, Any]:
    if isinstance(action, ToolCall):
        return {"type": "tool_call", "name": action.name, "arguments": action.arguments}
    if isinstance(action, FinalAnswer):
        return {"type": "final_answer", "text": action.text, "gave_up": action.gave_up}
    raise TypeError(f"a model returned {action!r}, neither a ToolCall nor a FinalAnswer")


def _action_from_json(data: Mapping[str, Any]) -> ToolCall | FinalAnswer:
    if data["type"] == "tool_call":
        return ToolCall(data["name"], copy.deepcopy(data["arguments"]))
    return FinalAnswer(data["text"], gave_up=data["gave_up"])


def _check_action(data: Any) -> None:
    if not isinstance(data, dict):
        raise ValueError("'action' must be an object")
    if data.get("type") == "tool_call":
        if set(data) != {"type", "name", "arguments"} or not isinstance(data["name"], str):
            raise ValueError("a tool_call action has exactly a string 'name' and 'arguments'")
    elif data.get("type") == "final_answer":
        if (
            set(data) != {"type", "text", "gave_up"}
            or not isinstance(data["text"], str)
            or not isinstance(data["gave_up"], bool)
        ):
            raise ValueError("a final_answer action has exactly a string 'text' and a 'gave_up'")
    else:
        raise ValueError(
            f"an action's 'type' is 'tool_call' or 'final_answer', got {data.get('type')!r}"
        )


@dataclass
class _RunState:
    """What a log knows of one run while records arrive: it keeps them in order."""

    actions: int = 0  # actions recorded: the last one is for step `actions`
    calls: int = 0  # of which tool calls
    results: int = 0  # results recorded: steps 1..results
    finished: bool = False  # a final answer was recorded
    records: list[dict[str, Any]] = field(default_factory=list)


class TranscriptLog:
    """An append-only log of recorded runs, read and written as JSON Lines.

    ``TranscriptLog()`` is empty and in memory; ``TranscriptLog(records)`` holds the
    records given (checked like appended ones). :meth:`open` ties a log to a file that
    every appended record is added to at once (so a run that fails half-way keeps what it
    got); :meth:`read` and :meth:`loads` read one; :meth:`write` and :meth:`dumps` write the
    whole log. The same records always give the same bytes.

    Every record is checked when it arrives (:meth:`append`): a JSON object with a
    ``kind`` of :data:`RECORD_KINDS` and a ``run_id``; a run starts with its header (its
    ``meta`` with :data:`REQUIRED_META`; a ``run_id`` is used once); its actions are
    numbered 1, 2, ... and a call's result comes before the next action; nothing follows a
    final answer. Records are stored as JSON values (copies): changing what was appended
    changes nothing here.
    """

    def __init__(self, records: Iterable[Mapping[str, Any]] = ()) -> None:
        self._records: list[dict[str, Any]] = []
        self._runs: dict[str, _RunState] = {}
        self._path: Path | None = None
        for record in records:
            self.append(record)

    # -- files and text

    @classmethod
    def loads(cls, text: str, *, source: str = "<text>") -> TranscriptLog:
        """The log in ``text`` (JSON Lines). Errors name ``source`` and the line.

        Lines are split on ``\\n`` only (a JSON string may hold U+2028, which
        ``str.splitlines`` would split on); empty lines are skipped.
        """
        log = cls()
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                log.append(json.loads(line, object_pairs_hook=_no_duplicate_keys))
            except ValueError as exc:
                raise ValueError(f"{source}:{number}: {exc}") from None
        return log

    @classmethod
    def read(cls, path: str | Path) -> TranscriptLog:
        """The log in the file at ``path`` (UTF-8 JSON Lines), checked record by record."""
        return cls.loads(Path(path).read_bytes().decode("utf-8"), source=str(path))

    @classmethod
    def open(cls, path: str | Path) -> TranscriptLog:
        """A log tied to the file at ``path``: what it holds is read first (if it exists),
        then every record appended to the log is appended to the file, one line, at once."""
        path = Path(path)
        log = cls.read(path) if path.exists() else cls()
        if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
            with path.open("ab") as file:  # a hand-edited file: end its last line first
                file.write(b"\n")
        log._path = path
        return log

    def dumps(self) -> str:
        """The whole log as JSON Lines text: one canonical JSON object per line."""
        return "".join(canonical_json(record) + "\n" for record in self._records)

    def write(self, path: str | Path) -> None:
        """Write the whole log to ``path`` (replacing the file) as UTF-8 JSON Lines."""
        Path(path).write_bytes(self.dumps().encode("utf-8"))

    # -- records

    def append(self, record: Mapping[str, Any]) -> None:
        """Check ``record`` (see the class docstring) and add it; ValueError if it is wrong.

        A log made by :meth:`open` also appends the record's line to its file.
        """
        line = canonical_json(record)
        stored = json.loads(line)
        self._check(stored)
        self._records.append(stored)
        self._runs[stored["run_id"]].records.append(stored)
        if self._path is not None:
            with self._path.open("ab") as file:
                file.write((line + "\n").encode("utf-8"))

    def _check(self, record: Any) -> None:
        if not isinstance(record, dict):
            raise ValueError(f"a record is a JSON object, got {type(record).__name__}")
        kind, run_id = record.get("kind"), record.get("run_id")
        if kind not in RECORD_KINDS:
            raise ValueError(f"a record's 'kind' is one of {list(RECORD_KINDS)}, got {kind!r}")
        if not isinstance(run_id, str) or not run_id:
            raise ValueError(f"a record's 'run_id' is a non-empty string, got {run_id!r}")
        if kind == "run":
            if set(record) != {"kind", "run_id", "format", "meta"}:
                raise ValueError("a run header has exactly 'kind', 'run_id', 'format', 'meta'")
            if record["format"] != TRANSCRIPT_FORMAT:
                raise ValueError(
                    f"run {run_id!r}: format {record['format']!r}, this library reads"
                    f" {TRANSCRIPT_FORMAT}"
                )
            if run_id in self._runs:
                raise ValueError(f"run {run_id!r} is already in this log: use a new run_id")
            _check_meta(record["meta"])
            self._runs[run_id] = _RunState()
            return
        run = self._runs.get(run_id)
        if run is None:
            raise ValueError(f"run {run_id!r} has no header before its {kind} record")
        step = record.get("step")
        if type(step) is not int or step < 1:
            raise ValueError(f"run {run_id!r}: 'step' is an integer from 1, got {step!r}")
        if run.finished:
            raise ValueError(f"run {run_id!r} ended with a final answer: nothing follows it")
        if kind == "action":
            if set(record) != {"kind", "run_id", "step", "action"}:
                raise ValueError("an action record has exactly 'kind', 'run_id', 'step', 'action'")
            _check_action(record["action"])
            if step != run.actions + 1:
                raise ValueError(
                    f"run {run_id!r}: action for step {step}, expected {run.actions + 1}"
                )
            if run.results != run.calls:
                raise ValueError(
                    f"run {run_id!r}: action for step {step} before the result of step {run.calls}"
                )
            run.actions += 1
            if record["action"]["type"] == "tool_call":
                run.calls += 1
            else:
                run.finished = True
            return
        if set(record) != {"kind", "run_id", "step", "result"}:
            raise ValueError("a result record has exactly 'kind', 'run_id', 'step', 'result'")
        if not isinstance(record["result"], dict):
            raise ValueError(f"run {run_id!r}, step {step}: a result is an envelope (an object)")
        if run.calls == run.results:
            raise ValueError(f"run {run_id!r}: result for step {step}, but no call waits for one")
        if step != run.results + 1:
            raise ValueError(
                f"run {run_id!r}: result for step {step}, expected step {run.results + 1}"
            )
        run.results += 1

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every record, in order (copies)."""
        return copy.deepcopy(self._records)

    def __len__(self) -> int:
        """How many records (lines) the log holds."""
        return len(self._records)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """The records in order (copies)."""
        return iter(self.records)

    @property
    def run_ids(self) -> list[str]:
        """The runs' ids, in the order their headers came."""
        return list(self._runs)

    def run_records(self, run_id: str) -> list[dict[str, Any]]:
        """The records of one run, its header first (copies): what :class:`ReplayModel`
        takes. KeyError naming the runs there are if ``run_id`` is not one of them."""
        if run_id not in self._runs:
            raise KeyError(
                f"no run {run_id!r} in this log; runs: {', '.join(self._runs) or 'none'}"
            )
        return copy.deepcopy(self._runs[run_id].records)

    def meta(self, run_id: str) -> dict[str, Any]:
        """The ``meta`` of run ``run_id``'s header (a copy)."""
        return self.run_records(run_id)[0]["meta"]


class RecordingModel:
    """A :class:`~tutorial_lib.agent.loop.Model` that asks ``inner`` and records the run.

    The header (``run_id``, ``meta``) is appended to ``sink`` when the model is made, so a
    bad ``meta`` (see :data:`REQUIRED_META`) or a ``run_id`` already in ``sink`` fails
    before any request. Then at each :meth:`next_action`: first the result of the previous
    call, as the transcript holds it (the envelope), then, once ``inner`` has answered, its
    action (a tool call's name and arguments, or the final answer's text and ``gave_up``).
    If ``inner`` raises (a network error, a server down), what was recorded stays, and the
    exception goes on to the caller.

    One RecordingModel records one :func:`~tutorial_lib.agent.loop.run_agent` run: asked
    about another transcript (one that is not the previous one plus the call just
    recorded), or again after the final answer, it raises RuntimeError.
    """

    def __init__(
        self, inner: Model, sink: TranscriptLog, *, run_id: str, meta: Mapping[str, Any]
    ) -> None:
        self.inner = inner
        self.sink = sink
        self.run_id = run_id
        sink.append(
            {"kind": "run", "run_id": run_id, "format": TRANSCRIPT_FORMAT, "meta": dict(meta)}
        )
        self._calls = 0
        self._results = 0
        self._finished = False

    def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
        """Record the last call's result, ask ``inner``, record its action, return it."""
        if self._finished:
            raise RuntimeError(
                f"run {self.run_id!r} has ended with a final answer: record another run with"
                " a new RecordingModel and a new run_id"
            )
        if len(transcript.steps) != self._calls:
            raise RuntimeError(
                f"run {self.run_id!r}: the transcript has {len(transcript.steps)} steps but"
                f" this recording made {self._calls} calls: one RecordingModel records one run"
            )
        for step in transcript.steps[self._results :]:
            self.sink.append(
                {
                    "kind": "result",
                    "run_id": self.run_id,
                    "step": step.number,
                    "result": step.result,
                }
            )
            self._results += 1
        action = self.inner.next_action(transcript)
        self.sink.append(
            {
                "kind": "action",
                "run_id": self.run_id,
                "step": len(transcript.steps) + 1,
                "action": _action_json(action),
            }
        )
        if isinstance(action, ToolCall):
            self._calls += 1
        else:
            self._finished = True
        return action


class ReplayMismatch(TutorialLibError):
    """A replay found the world answering otherwise than when the run was recorded.

    Attributes: ``run_id``; ``step`` (the step concerned); ``what`` (``"result"``,
    ``"call"``, ``"step number"`` or ``"past the end"``); ``recorded`` and ``actual`` (the
    two values, None where there is none); ``path`` (where in them they first differ, e.g.
    ``data.lines[2].text``; empty for the whole value). The message shows both sides,
    trimmed to the part around the first difference.
    """

    def __init__(
        self,
        run_id: str,
        step: int,
        what: str,
        recorded: Any,
        actual: Any,
        *,
        detail: str = "",
    ) -> None:
        self.run_id, self.step, self.what = run_id, step, what
        self.recorded, self.actual = recorded, actual
        self.path = _first_difference(recorded, actual) or ""
        at = f" (first difference at {self.path})" if self.path else ""
        message = f"run {run_id!r}, step {step}: "
        message += (detail or f"the {what} differs from the recording") + at
        if recorded is not None or actual is not None:
            left, right = _trimmed_pair(_shown(recorded), _shown(actual))
            message += f"\n  recorded: {left}\n  actual:   {right}"
        super().__init__(message)


def _shown(value: Any) -> str:
    if value is None:
        return "(nothing)"
    try:
        return canonical_json(value)
    except ValueError:
        return repr(value)


def _trimmed_pair(left: str, right: str) -> tuple[str, str]:
    """Both texts cut to the same window around their first differing character."""
    first = next(
        (i for i, (a, b) in enumerate(zip(left, right, strict=False)) if a != b),
        min(len(left), len(right)),
    )
    start = max(0, first - _SHOWN // 3)

    def cut(text: str) -> str:
        piece = text[start : start + _SHOWN]
        return ("…" if start else "") + piece + ("…" if start + _SHOWN < len(text) else "")

    return cut(left), cut(right)


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where ``a`` and ``b`` first differ (``data.lines[0].text``; ``""``: the values
    themselves), None if they do not; types count (``1`` is not ``true``), tuples are lists."""
    a = list(a) if isinstance(a, tuple) else a
    b = list(b) if isinstance(b, tuple) else b
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                return where
            found = _first_difference(a[key], b[key], where)
            if found is not None:
                return found
        return None
    if isinstance(a, list):
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _first_difference(x, y, f"{path}[{index}]")
            if found is not None:
                return found
        return f"{path}[{min(len(a), len(b))}]" if len(a) != len(b) else None
    return None if a == b else path


class ReplayModel:
    """A :class:`~tutorial_lib.agent.loop.Model` that replays one recorded run.

    ``records``: one run's records, its header first (:meth:`TranscriptLog.run_records`,
    or :meth:`from_log`). It sends no request: it returns the recorded actions in order,
    the one for step ``n + 1`` when the transcript has ``n`` steps. Before that, it checks
    the transcript against the recording, step by step: the step's number, the call made
    (name and arguments) and the result the tool gave, each compared as canonical JSON
    (:func:`canonical_json`: ``1`` is not ``1.0`` nor ``true``). The first difference
    raises :class:`ReplayMismatch`; so does running past the recording: a call after its
    final answer, a call beyond a last one that never ran (the recorded run hit
    ``max_steps``), or an action asked for after the recording's last one (its model failed).

    Like :class:`~tutorial_lib.agent.loop.ScriptedModel` it is a function of the
    transcript: asked twice about the same transcript, it answers the same.
    ``run_id`` and ``meta`` are the recorded run's; ``actions`` the recorded actions.
    """

    def __init__(self, records: Iterable[Mapping[str, Any]]) -> None:
        log = TranscriptLog(records)
        if len(log.run_ids) != 1:
            raise ValueError(
                f"a ReplayModel replays one run; these records hold {len(log.run_ids)}"
                f" ({', '.join(log.run_ids) or 'none'}): use ReplayModel.from_log(log, run_id)"
            )
        (self.run_id,) = log.run_ids
        own = log.run_records(self.run_id)
        self.meta: dict[str, Any] = own[0]["meta"]
        self.actions: tuple[ToolCall | FinalAnswer, ...] = tuple(
            _action_from_json(r["action"]) for r in own if r["kind"] == "action"
        )
        self._results: dict[int, dict[str, Any]] = {
            r["step"]: r["result"] for r in own if r["kind"] == "result"
        }

    @classmethod
    def from_log(cls, log: TranscriptLog, run_id: str) -> ReplayModel:
        """The replay of run ``run_id`` of ``log`` (KeyError if the log has no such run)."""
        return cls(log.run_records(run_id))

    def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
        """Check every step of ``transcript`` against the recording, then return the
        recorded action that comes next (a copy). ReplayMismatch on any difference."""
        for index, step in enumerate(transcript.steps):
            number = index + 1
            if step.number != number:
                raise ReplayMismatch(
                    self.run_id,
                    number,
                    "step number",
                    number,
                    step.number,
                    detail=f"the transcript's step {number} is numbered {step.number}",
                )
            recorded = self.actions[index] if index < len(self.actions) else None
            actual_call = {"name": step.name, "arguments": step.arguments}
            if not isinstance(recorded, ToolCall):
                raise ReplayMismatch(
                    self.run_id,
                    number,
                    "call",
                    _action_json(recorded) if recorded else None,
                    actual_call,
                    detail="a call was made where the recording has none",
                )
            recorded_call = {"name": recorded.name, "arguments": recorded.arguments}
            if _shown(recorded_call) != _shown(actual_call):
                raise ReplayMismatch(self.run_id, number, "call", recorded_call, actual_call)
            if number not in self._results:
                raise ReplayMismatch(
                    self.run_id,
                    number,
                    "result",
                    None,
                    step.result,
                    detail="the recorded run stopped before this call ran (max_steps):"
                    " there is no result to compare",
                )
            if _shown(self._results[number]) != _shown(step.result):
                raise ReplayMismatch(
                    self.run_id, number, "result", self._results[number], step.result
                )
        position = len(transcript.steps)
        if position >= len(self.actions):  # a recording whose model failed, or was cut
            raise ReplayMismatch(
                self.run_id,
                position + 1,
                "past the end",
                None,
                None,
                detail=f"the recording ends after {len(self.actions)} action(s) and no final"
                f" answer: there is no action for step {position + 1}",
            )
        return copy.deepcopy(self.actions[position])
