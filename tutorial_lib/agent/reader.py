"""A simulated reader: a deterministic stand-in for a model that decides from what it is shown.

:class:`ReaderModel` pursues one :data:`Need` (what the user asked, already understood:
read a whole file, set a status, wait for a job, list the open review comments, post a
comment once). Every choice it makes is a function of three things and nothing else:

- the **exported tool list** it was given (``[{"name", "description", "input_schema"}]``,
  the text a real model receives: :func:`~tutorial_lib.agent.real_models.anthropic_tools`);
- the **results** in the transcript so far (the envelopes a real model would read back);
- its :class:`Priors`: what it assumes where the interface is silent (does it count lines
  from 0? is a bare ``timeout`` in seconds? how many lines does it ask for?). Priors are
  drawn per seed (:meth:`Priors.draw`), so several seeds are several readers.

The rules are a table (:data:`READER_RULES`) the chapter prints. Examples of what they
mean: a line parameter is 1-based only if its ``minimum`` is 1 or its description (or an
example) says so, else the prior decides; a duration's unit is taken from the parameter's
name (``timeout_ms``) or its description, else the prior; a status is picked from the
schema's ``enum`` (or a list in the description) by the user's words and the glosses the
description gives (``pending (waiting for the customer)``); a required scope argument the
user did not give is asked of the user, an optional one is left out.

It is a **simulation**, not a language model: it reads literally, never guesses well and
is never lucky. What it can show is how its figures move when the interface text moves
(blank the descriptions, drop ``minimum``, drop an ``enum``): a real model's figures must
be measured with a real model (:mod:`tutorial_lib.agent.real_models`).

It answers through a tool, ``submit_answer`` (:data:`ANSWER_TOOL`): a structured answer
(``kind``: ``answer``, ``question`` or ``cannot_complete``; ``values``), the same channel a
real model is asked to use, so one success check judges both.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tutorial_lib.agent.loop import FinalAnswer, Step, ToolCall, Transcript

__all__ = [
    "ANSWER_TOOL",
    "MEANINGS",
    "PRIOR_RATES",
    "READER_RULES",
    "NeedPost",
    "NeedRead",
    "NeedReview",
    "NeedStatus",
    "NeedWait",
    "Need",
    "Priors",
    "ReaderModel",
    "tokens",
]

#: The name of the tool a run answers with.
ANSWER_TOOL = "submit_answer"

#: What a reader assumes where the interface says nothing, and how often (per seed).
PRIOR_RATES: Mapping[str, float] = {
    "zero_based": 0.5,  # counts lines from 0
    "seconds": 0.5,  # a duration without a unit is in seconds
    "large_pages": 0.5,  # asks for 100 lines when no maximum is stated (else 10)
    "resend_blind": 0.5,  # after a bare failure of a write, sends it again
}

#: The reader's rules, in the order it applies them: (rule, what it reads, fallback).
READER_RULES: tuple[tuple[str, str, str], ...] = (
    (
        "tool",
        "the tool whose name (x2) and description share the most words with the need,"
        " plus the need's argument names among its properties (x2); a tool that says the"
        " opposite effect (Read-only for a write, writes for a read) loses 4",
        "the first tool of the list on a tie; after 2 failed calls to one tool, the next",
    ),
    (
        "line base",
        "minimum 1, or 'from 1' / '1-based' in the description, or an example with start 1",
        "prior zero_based: start 0",
    ),
    (
        "page size",
        "the user's size, capped by maximum; else maximum, or 'at most N' / 'up to N'",
        "prior large_pages: 100, else 10",
    ),
    (
        "duration unit",
        "the parameter's name (_ms, _s) or its description (milliseconds, seconds)",
        "prior seconds: the number of seconds, else milliseconds",
    ),
    (
        "vocabulary",
        "enum (or 'one of a, b, c' in the description): the value that is one of the"
        " user's words, or whose gloss 'value (words)' holds one; the user's word first",
        "the user's own word",
    ),
    (
        "scope",
        "a required scope argument the user did not give, or gave in a form the pattern,"
        " description or an example shows to be incomplete ('shop' for owner/name): ask",
        "optional and not given: leave it out",
    ),
    (
        "pages",
        "has_more true, coverage 'partial' or a next_cursor: call again for the next page",
        "no such field: the page is the whole",
    ),
    (
        "rich error",
        "a field with expected / allowed_values: re-derive that argument from them;"
        " a field only the user can give: ask; retry advice: resend (at most 2)",
        "give up",
    ),
    (
        "unknown outcome",
        "operation_state unknown: call next_tool if it is listed; resend only with the"
        " same idempotency key",
        "stop and say the outcome is unknown",
    ),
    (
        "bare error",
        "nothing to read: change the choices that came from a prior, one per failure",
        "prior resend_blind for a write; give up after 5 failures",
    ),
)

#: For each meaning a user can express, the words a reader knows for it, the user's first.
MEANINGS: Mapping[str, tuple[str, ...]] = {
    "started": ("started", "active", "in_progress", "working", "doing", "wip", "underway"),
    "finished": ("finished", "done", "complete", "completed"),
    "paused": ("on_hold", "paused", "held", "blocked"),
    "not_started": ("backlog", "todo", "not_started", "queued"),
    "resolved": ("resolved", "fixed", "answered", "closed"),
    "waiting_on_customer": ("waiting", "awaiting", "on_hold", "paused"),
}


# --------------------------------------------------------------------------- needs


@dataclass(frozen=True)
class NeedRead:
    """Read all of workspace file ``path``; answer ``{"line_count": n}``."""

    path: str
    kind: Literal["read"] = "read"


@dataclass(frozen=True)
class NeedStatus:
    """Set ``item`` (a task ``T-..`` or a ticket ``SUP-..``) to what ``meaning`` (a key of
    :data:`MEANINGS`) says; answer ``{"status": value}``."""

    item: str
    meaning: str
    kind: Literal["status"] = "status"


@dataclass(frozen=True)
class NeedWait:
    """Wait up to ``seconds`` for job ``job_id``; answer ``{"status": how it ended}``."""

    job_id: str
    seconds: int
    kind: Literal["wait"] = "wait"


@dataclass(frozen=True)
class NeedReview:
    """List the unresolved, current review comments of ``repository`` (None: not given)
    PR ``pr``; answer ``{"comment_ids": [...]}``. ``page_size``: what the user asked for."""

    repository: str | None
    pr: int
    page_size: int | None = None
    humans_only: bool = False
    kind: Literal["review"] = "review"


@dataclass(frozen=True)
class NeedPost:
    """Post ``body`` once on ``repository#pr``; answer ``{"posted": true}``."""

    repository: str
    pr: int
    body: str
    kind: Literal["post"] = "post"


Need = NeedRead | NeedStatus | NeedWait | NeedReview | NeedPost

#: Per kind of need: the words that name it, whether it writes, the arguments it carries.
_NEED_WORDS: Mapping[str, tuple[frozenset[str], bool, frozenset[str]]] = {
    "read": (frozenset({"read", "file", "line"}), False, frozenset({"path", "start", "count"})),
    "task": (
        frozenset({"task", "status", "set", "tracker"}),
        True,
        frozenset({"task_id", "status"}),
    ),
    "ticket": (
        frozenset({"ticket", "status", "set", "support", "desk"}),
        True,
        frozenset({"ticket_id", "status"}),
    ),
    "wait": (frozenset({"job", "wait", "result"}), False, frozenset({"job_id"})),
    "review": (
        frozenset({"review", "comment", "list", "pull", "request"}),
        False,
        frozenset({"repository", "pr"}),
    ),
    "post": (
        frozenset({"post", "comment", "create", "conversation"}),
        True,
        frozenset({"repository", "pr", "body"}),
    ),
}
_WRITE_WORDS = frozenset({"write", "post", "create", "set", "update", "change", "delete"})


def tokens(text: str) -> set[str]:
    """The words of a name or description: camelCase and snake_case split, lower case,
    a plural ``s`` dropped (``getComments`` -> {get, comment})."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    words = re.findall(r"[a-z0-9]+", spaced.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words}


def _need_key(need: Need) -> str:
    if isinstance(need, NeedStatus):
        return "ticket" if need.item.startswith("SUP-") else "task"
    return need.kind


# --------------------------------------------------------------------------- priors


@dataclass(frozen=True)
class Priors:
    """One reader's assumptions where the interface is silent (see :data:`PRIOR_RATES`)."""

    zero_based: bool = False
    seconds: bool = False
    large_pages: bool = False
    resend_blind: bool = False

    @classmethod
    def draw(cls, seed: int) -> Priors:
        """The priors of reader ``seed``: each drawn with its :data:`PRIOR_RATES` rate."""
        rng = random.Random(f"reader-{seed}")
        return cls(**{name: rng.random() < rate for name, rate in PRIOR_RATES.items()})


# --------------------------------------------------------------------------- reading the text


def _examples(tool: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The example calls a tool shows: ``Example: {...}`` lines of its description and
    the schema's ``examples``."""
    found = []
    for match in re.finditer(r"Example:\s*(\{.*?\})(?:\s*$|\n)", str(tool.get("description", ""))):
        try:
            value = json.loads(match.group(1))
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    schema = tool.get("input_schema") or {}
    found += [e for e in schema.get("examples", ()) if isinstance(e, dict)]
    return found


def _properties(tool: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    schema = tool.get("input_schema") or {}
    props = schema.get("properties") or {}
    return {str(k): dict(v) if isinstance(v, Mapping) else {} for k, v in props.items()}


def _text(tool: Mapping[str, Any], prop: str | None = None) -> str:
    """The tool's description, plus the property's own description."""
    said = str(tool.get("description", ""))
    if prop is not None:
        said += "\n" + str(_properties(tool).get(prop, {}).get("description", ""))
    return said


def _norm(word: Any) -> str:
    return re.sub(r"[\s-]+", "_", str(word).strip().lower())


def _glosses(text: str) -> dict[str, set[str]]:
    """``value (words)`` pairs of a description: {value: its gloss's words}."""
    found = re.findall(r"\b([A-Za-z_][\w-]*) \(([^()]{1,60})\)", text)
    # "not started" says what the value is not: a negated word is no gloss
    return {
        _norm(value): tokens(re.sub(r"\b(?:not|no|never)\s+\w+", " ", gloss))
        for value, gloss in found
    }


def _listed(text: str) -> list[str]:
    """Values a description lists as 'one of a, b (gloss), c or d'."""
    match = re.search(r"one of ([^.;\n]+)", text)
    if not match:
        return []
    body = re.sub(r"\([^()]*\)", "", match.group(1))
    return [_norm(v) for v in re.split(r",\s*|\s+or\s+", body) if v.strip()]


def _pick_word(meaning: str, allowed: Sequence[Any], text: str) -> str | None:
    """The allowed value that means ``meaning``: by the user's words (their order
    first), then by the glosses of ``text``; None if none does."""
    words = [_norm(w) for w in MEANINGS[meaning]]
    glosses = _glosses(text)
    best: tuple[int, str] | None = None
    for value in allowed:
        key = _norm(value)
        ranks = [i for i, w in enumerate(words) if w == key or w in glosses.get(key, ())]
        if ranks and (best is None or min(ranks) < best[0]):
            best = (min(ranks), str(value))
    return None if best is None else best[1]


def _maximum(prop: Mapping[str, Any], text: str) -> int | None:
    if isinstance(prop.get("maximum"), int):
        return int(prop["maximum"])
    match = re.search(r"(?:at most|up to|from 1 to|max(?:imum)?)\s+(\d+)", text)
    return int(match.group(1)) if match else None


def _one_based(
    prop: Mapping[str, Any], text: str, examples: list[dict[str, Any]], name: str
) -> bool | None:
    """What the interface says of the line base: True (1), False (0), None (silent)."""
    if prop.get("minimum") == 1:
        return True
    lowered = text.lower()
    if re.search(r"\b(0-based|zero-based|counted from 0|from 0\b|first line is 0)", lowered):
        return False
    if re.search(r"\b(1-based|counted from 1|from 1\b|first line is 1|numbered from 1)", lowered):
        return True
    if any(example.get(name) == 1 for example in examples):
        return True
    return None


def _unit(name: str, text: str) -> Literal["ms", "s"] | None:
    if name.endswith("_ms"):
        return "ms"
    if name.endswith(("_s", "_seconds")):
        return "s"
    lowered = text.lower()
    if "millisecond" in lowered:
        return "ms"
    if re.search(r"\bseconds\b", lowered) and "millisecond" not in lowered:
        return "s"
    return None


def _scope_incomplete(
    value: str, prop: Mapping[str, Any], text: str, examples: list[dict[str, Any]], name: str
) -> bool:
    """Whether the interface shows that ``value`` is not a whole scope ('shop' where
    owner/name is meant)."""
    pattern = prop.get("pattern")
    if isinstance(pattern, str):
        try:
            if re.search(pattern, value) is None:
                return True
        except re.error:
            pass
    shown = [str(e[name]) for e in examples if isinstance(e.get(name), str)]
    return bool("/" not in value and ("owner/name" in text or any("/" in s for s in shown)))


# --------------------------------------------------------------------------- the reader


@dataclass
class _State:
    """What the reader has worked out so far (rebuilt from the transcript every turn)."""

    tool_rank: int = 0
    one_based: bool | None = None
    count: int | None = None
    unit: str | None = None
    word: str | None = None
    prior_used: set[str] = field(default_factory=set)
    failures: int = 0
    failures_here: int = 0
    retries: int = 0
    bare_changes: int = 0
    pages: list[dict[str, Any]] = field(default_factory=list)
    cursor: Any = None
    next_start: int | None = None
    verify: tuple[str, dict[str, Any]] | None = None
    answered: bool = False


class ReaderModel:
    """The simulated reader (see the module docstring): one need, one tool list, priors.

    ``consulted`` lists the priors it has read so far: its choices depend on those and on
    nothing else a seed sets (the evaluation uses this to run each distinct reader once).
    """

    def __init__(
        self,
        need: Need,
        tools: Sequence[Mapping[str, Any]],
        priors: Priors = Priors(),
        *,
        give_up_after: int = 5,
    ) -> None:
        self.need = need
        self.tools = [dict(t) for t in tools if t.get("name") != ANSWER_TOOL]
        self.priors = priors
        self.give_up_after = give_up_after
        self.consulted: dict[str, bool] = {}
        self.ranking = self._rank()

    # -- priors, read on demand so a run records which ones mattered
    def _prior(self, name: str) -> bool:
        value = bool(getattr(self.priors, name))
        self.consulted[name] = value
        return value

    # -- choosing the tool
    def _rank(self) -> list[dict[str, Any]]:
        words, writes, arguments = _NEED_WORDS[_need_key(self.need)]

        def score(tool: Mapping[str, Any]) -> int:
            name, text = tokens(str(tool.get("name", ""))), tokens(str(tool.get("description", "")))
            props = set(_properties(tool))
            points = 2 * len(words & name) + len(words & text) + 2 * len(arguments & props)
            says_read_only = "read" in text and "only" in text
            says_writes = bool(_WRITE_WORDS & name) or ("write" in text and not says_read_only)
            if (writes and says_read_only) or (not writes and says_writes):
                points -= 4
            return points

        ordered = sorted(enumerate(self.tools), key=lambda it: (-score(it[1]), it[0]))
        return [tool for _, tool in ordered]

    # -- the turn
    def next_action(self, transcript: Transcript) -> ToolCall | FinalAnswer:
        """Replay ``transcript`` and return the next call, the answer call, or the end."""
        state = _State()
        work = [s for s in transcript.steps if s.name != ANSWER_TOOL]
        if any(s.name == ANSWER_TOOL and s.ok for s in transcript.steps):
            return FinalAnswer("answer submitted")
        if not self.ranking:
            return self._submit("cannot_complete", "no tool fits the request")
        for step in work:
            if state.verify is None:  # rebuild the call: it fixes the choices it was made with
                self._call(self._tool(state), state)
            outcome = self._after(step, state)
            if outcome is not None:
                return outcome
        if state.verify is not None:
            return ToolCall(*state.verify)
        return self._call(self._tool(state), state)

    def _submit(self, kind: str, text: str, values: Mapping[str, Any] | None = None) -> ToolCall:
        arguments: dict[str, Any] = {"kind": kind, "text": text}
        if values is not None:
            arguments["values"] = dict(values)
        return ToolCall(ANSWER_TOOL, arguments)

    def _tool(self, state: _State) -> dict[str, Any]:
        return self.ranking[min(state.tool_rank, len(self.ranking) - 1)]

    # -- building a call
    def _call(self, tool: Mapping[str, Any], state: _State) -> ToolCall | FinalAnswer:
        need = self.need
        props = _properties(tool)
        required = set((tool.get("input_schema") or {}).get("required", ()))
        examples = _examples(tool)
        args: dict[str, Any] = {}
        if isinstance(need, NeedRead):
            args["path"] = need.path
            for name in props:
                if name in ("start", "line", "offset", "from_line"):
                    if state.one_based is None:
                        said = _one_based(props[name], _text(tool, name), examples, name)
                        state.one_based = (not self._prior("zero_based")) if said is None else said
                    first = 1 if state.one_based else 0
                    args[name] = state.next_start if state.next_start is not None else first
                elif name in ("count", "limit", "lines", "max_lines"):
                    if state.count is None:
                        state.count = _maximum(props[name], _text(tool, name)) or (
                            100 if self._prior("large_pages") else 10
                        )
                    args[name] = state.count
        elif isinstance(need, NeedStatus):
            id_field = next((n for n in props if n.endswith("id")), "id")
            args[id_field] = need.item
            status_field = next((n for n in props if "status" in n or "state" in n), "status")
            if state.word is None:
                allowed = props.get(status_field, {}).get("enum") or _listed(
                    _text(tool, status_field)
                )
                picked = (
                    _pick_word(need.meaning, allowed, _text(tool, status_field))
                    if allowed
                    else None
                )
                state.word = picked or MEANINGS[need.meaning][0]
            args[status_field] = state.word
        elif isinstance(need, NeedWait):
            args["job_id"] = need.job_id
            timeout = next((n for n in props if "timeout" in n or "wait" in n), None)
            if timeout is not None:
                if state.unit is None:
                    unit = _unit(timeout, _text(tool, timeout))
                    state.unit = unit or ("s" if self._prior("seconds") else "ms")
                args[timeout] = need.seconds if state.unit == "s" else need.seconds * 1000
        elif isinstance(need, NeedReview):
            scope = "repository" if "repository" in props else None
            if scope is not None:
                given = need.repository
                prop = props[scope]
                text = _text(tool, scope)
                if given is None and scope in required:
                    return self._submit(
                        "question", f"Which repository do you mean? ({scope} is required)"
                    )
                if given is not None and _scope_incomplete(given, prop, text, examples, scope):
                    return self._submit(
                        "question", f"Which repository is {given!r}? The tool needs {scope} in full"
                    )
                if given is not None:
                    args[scope] = given
            args["pr"] = need.pr
            if "page_size" in props:
                size = need.page_size
                maximum = _maximum(props["page_size"], _text(tool, "page_size"))
                if size is not None:
                    args["page_size"] = min(size, maximum) if maximum else size
            if state.cursor is not None:
                args["cursor"] = state.cursor
        else:
            args.update(repository=need.repository, pr=need.pr, body=need.body)
            if "idempotency_key" in props:
                args["idempotency_key"] = f"pr{need.pr}-summary-{len(need.body):04d}"
        return ToolCall(str(tool["name"]), args)

    # -- reading a result
    def _after(self, step: Step, state: _State) -> ToolCall | FinalAnswer | None:
        if step.ok:
            state.failures_here = state.retries = 0
            data = step.result.get("data")
            data = data if isinstance(data, dict) else {}
            if state.verify is not None and step.name == state.verify[0]:
                state.verify = None
                if data.get("state") in ("posted", "duplicated"):
                    return self._submit(
                        "answer", "posted after checking", {"posted": True, "status": data["state"]}
                    )
                return self._submit(
                    "cannot_complete", f"the comment is {data.get('state')}: not confirmed"
                )
            return self._on_success(step, data, state)
        state.failures += 1
        state.failures_here += 1
        if state.failures >= self.give_up_after:
            return self._submit("cannot_complete", f"gave up after {state.failures} failed calls")
        error = step.result.get("error")
        if not isinstance(error, dict):
            return self._on_bare(step, state)
        return self._on_rich(step, error, state)

    def _on_success(
        self, step: Step, data: dict[str, Any], state: _State
    ) -> ToolCall | FinalAnswer | None:
        need = self.need
        if isinstance(need, NeedRead):
            state.pages.append(data)
            lines = data.get("lines") or []
            if data.get("has_more") is True:
                state.next_start = int(data.get("start", 1)) + len(lines)
                return None
            return self._answer_read(state)
        if isinstance(need, NeedStatus):
            return self._submit("answer", "status set", {"status": data.get("status")})
        if isinstance(need, NeedWait):
            return self._submit("answer", "job status", {"status": data.get("status")})
        if isinstance(need, NeedReview):
            state.pages.append(data)
            if data.get("coverage") == "partial" or data.get("next_cursor"):
                state.cursor = data.get("next_cursor")
                return None
            return self._answer_review(state)
        status = data.get("status")
        return self._submit("answer", f"comment {status}", {"posted": True, "status": status})

    def _answer_read(self, state: _State) -> ToolCall:
        seen = sum(len(page.get("lines") or []) for page in state.pages)
        total = state.pages[-1].get("total_lines") if state.pages else None
        count = total if isinstance(total, int) and not state.pages[-1].get("has_more") else seen
        return self._submit("answer", f"{self.need.path} has {count} lines", {"line_count": count})  # type: ignore[union-attr]

    def _answer_review(self, state: _State) -> ToolCall:
        need = self.need
        assert isinstance(need, NeedReview)
        ids = []
        for page in state.pages:
            for comment in page.get("comments") or []:
                if comment.get("resolved", False) is not False:
                    continue
                if comment.get("outdated", comment.get("line") is None) is not False:
                    continue
                if need.humans_only and _is_bot(comment):
                    continue
                ids.append(comment.get("comment_id", comment.get("id")))
        return self._submit("answer", f"{len(ids)} open comments", {"comment_ids": ids})

    def _on_rich(
        self, step: Step, error: dict[str, Any], state: _State
    ) -> ToolCall | FinalAnswer | None:
        need = self.need
        tool = self._tool(state)
        code = str(error.get("code"))
        name = error.get("field")
        if error.get("operation_state") == "unknown":
            nxt = error.get("next_tool")
            listed = {str(t.get("name")) for t in self.tools}
            if isinstance(nxt, str) and nxt in listed:
                target = next(t for t in self.tools if t.get("name") == nxt)
                sent = step.arguments if isinstance(step.arguments, dict) else {}
                args = {k: v for k, v in sent.items() if k in _properties(target)}
                state.verify = (nxt, args)
                return None
            if isinstance(step.arguments, dict) and "idempotency_key" in step.arguments:
                return None  # the same call with the same key is safe
            return self._submit(
                "cannot_complete", "the outcome is unknown and nothing can check it"
            )
        if code == "not_found" and name is not None and name.endswith("id"):
            state.tool_rank += 1  # the id belongs to another tool
            state.failures_here = 0
            return None
        if isinstance(need, NeedReview) and name == "repository":
            return self._submit(
                "question", f"Which repository do you mean? ({error.get('message', '')})"
            )
        if error.get("retry") in ("with_backoff",) or code == "temporary_unavailable":
            state.retries += 1
            return None if state.retries <= 2 else self._submit("cannot_complete", f"still {code}")
        expected = " ".join(str(error.get(k, "")) for k in ("expected", "message", "suggestion"))
        if name in ("start", "line", "offset"):
            state.one_based = (
                True if re.search(r"\b1\b|from 1|1-based", expected) else state.one_based
            )
            return None
        if name in ("count", "limit", "page_size"):
            found = re.findall(r"\b(\d+)\b", expected)
            state.count = min(int(n) for n in found if int(n) > 1) if found else 10
            return None
        if isinstance(name, str) and "timeout" in name:
            state.unit = "ms" if "millisecond" in expected.lower() or "_ms" in expected else "s"
            return None
        if isinstance(name, str) and "status" in name and isinstance(need, NeedStatus):
            allowed = error.get("allowed_values") or []
            picked = _pick_word(need.meaning, allowed, _text(tool, name))
            if picked is None or picked == state.word:
                return self._submit(
                    "question", f"Which of {', '.join(map(str, allowed))} do you mean?"
                )
            state.word = picked
            return None
        if state.failures_here >= 2:
            state.tool_rank += 1
            state.failures_here = 0
            return None
        return self._submit("cannot_complete", f"cannot correct {code} on {name}")

    def _on_bare(self, step: Step, state: _State) -> ToolCall | FinalAnswer | None:
        need = self.need
        if isinstance(need, NeedPost):
            if self._prior("resend_blind"):
                return None  # the same POST again
            return self._submit("cannot_complete", "the write failed and the error says nothing")
        state.bare_changes += 1
        if state.failures_here >= 3:
            state.tool_rank += 1
            state.failures_here = 0
            return None
        # change one choice that came from a prior (or from the user's words), in turn
        if isinstance(need, NeedRead):
            if state.count is not None and state.count > 1 and state.bare_changes % 2 == 1:
                state.count = max(1, state.count // 2)
            else:
                state.one_based = not state.one_based
        elif isinstance(need, NeedStatus):
            words = MEANINGS[need.meaning]
            index = words.index(state.word) + 1 if state.word in words else 0
            state.word = words[index % len(words)]
        elif isinstance(need, NeedWait):
            state.unit = "ms" if state.unit == "s" else "s"
        return None


def _is_bot(comment: Mapping[str, Any]) -> bool:
    if "summary" in comment:
        return str(comment["summary"]).startswith("Bot:")
    user = comment.get("user") or {}
    return user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]")
