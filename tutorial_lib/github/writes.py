"""The safe write of chapter 05: post a PR comment at most once, and say what is true.

Two tools, each declared once (:data:`CREATE_COMMENT_SPEC`, :data:`COMMENT_STATUS_SPEC`) and
bound to a :class:`WriteContext` when the registry is built
(``Registry(write_tool_specs(context))``); every call travels the road of its
:class:`~tutorial_lib.core.host.Host`::

    find the tool -> schema check (the tool's schema) -> authorization -> resolution
      -> business check (the pre-check) -> recheck -> confirmation
      -> execution (the POSTs) -> envelope

``github_pr_create_comment`` posts a conversation comment on a pull request. A write can
fail in three places (the connection fails; it fails mid-way; it succeeds and the answer is
lost), and only the first one proves that nothing happened. The rule the tool follows:
**resend only when the service reliably confirms that the write did not happen, or when a
repeat is guaranteed to produce one record.** After each failure
:func:`tutorial_lib.core.retry.decide_after_failure` names the next step (a
:data:`~tutorial_lib.core.contracts.NextStep`), and what happens next depends on what is
*known* (:meth:`CommentWrite.after_failure`):

==========================================  ===============================================
after the failure                           the tool
==========================================  ===============================================
invalid input / no permission               stops: ``not_posted`` (the next step is
                                            ``fix_input`` / ``check_authorization``)
provably not processed (refused, 429, 409)  waits (full jitter, ``Retry-After``), resends
and no earlier attempt of unknown outcome
outcome unknown (timeout, reset, 5xx),      reads the PR's comments back and looks for the
reconciliation on                           key's marker: found -> ``already_posted``
... nothing found, the server has SHOWN     resends with the SAME key: the server replays
it honours ``Idempotency-Key``              the first answer (or 409s) instead of writing
... nothing found, no proven key            stops: ``unknown``, with the exact status
                                            check (``next_tool``). "Found nothing" is no
                                            proof: the lost request may still be in flight
outcome unknown, reconciliation off         resends with a proven key, else ``unknown``
==========================================  ===============================================

**The idempotency key** names one *business request* ("post this conclusion on PR 128"),
not one HTTP request. The caller makes it once (e.g. ``uuid.uuid4().hex`` when the user
confirms the action) and passes the same key to every attempt and every later call about
the same request: that is what lets the server, the ledger or the read-back recognise a
repeat. A new key for a retry would defeat all three.

**The marker.** Every posted body ends with ``<!-- tutorial-lib:idempotency-key=KEY -->``
(an HTML comment: invisible when GitHub renders the comment). Real GitHub has no
idempotency keys, so the marker is how a read-back finds out whether a lost write landed.
With reconciliation on, execution looks for the marker *before* the first attempt
(:meth:`CommentWrite.pre_check`), with or without server keys: the marker stays the second
line of defence when a server restarts and loses its key table, or ignores keys.

**Server keys are a capability the server must show.** ``WriteContext.server_keys`` only
says "send ``Idempotency-Key``". The tool *relies* on keys (resends after an unknown
outcome) only once this server has answered a keyed request as only a key-honouring
server can (:meth:`WriteLedger.note_key_support`): a replay (``Idempotent-Replayed:
true``), a 409 "still in progress" or a 422 "key used with another payload" about the key.
Real GitHub never does, so against it the tool behaves as without keys.

**The ledger** (:class:`WriteLedger`, ``WriteContext.ledger``) is what this process knows
about its keyed writes, per :class:`WriteScope`: (service base URL, repository, PR, key),
so one ledger serves any number of services and PRs. Calls of the same scope run one at a
time (single flight: a second concurrent call waits for the first, then finds its result
instead of posting), a scope whose comment this process saw created answers
``already_posted`` at once, and a scope with an attempt of unknown outcome is *unsettled*:
a later call reads back first, and while the attempt may still land (``settle_after_s``)
"found nothing" still means ``unknown``, so the user or the model can safely call again
later with the same key. **The host owns ONE ledger** and gives it to every write context
it builds (``WriteContext(client, ledger=host.ledger)``): single flight holds only between
contexts that share a ledger, and a context built without one gets a private one (five
contexts, five ledgers: five concurrent calls with one key may post five times).

**Duplicates are detected and reported, never deleted.** Where a client cannot prevent a
second copy (independent processes or hosts, each with its own ledger, against a server
without keys, like GitHub; or a context with reconciliation off), it can still see it
afterwards: with reconciliation on, every POST that succeeded is followed by a read-back
(step ``verify``), and every read-back (``pre_check``, ``read_back``, ``verify``) counts the
comments that carry the key's marker. When more than one does, the result is not
``posted`` / ``already_posted`` but ``duplicated``, with ``duplicate_ids`` (every comment
carrying the marker, oldest first), a ``warning`` and a ``suggestion``: a person should
delete all but one. The tool deletes nothing itself. ``github_pr_get_comment_status``
reports the same (``state: "duplicated"``) for any key, whoever posted the copies.

**The results** (:func:`write_status` maps an envelope to one of the five words):

- ``posted``: success, ``data.status == "posted"``: this call created the comment (and,
  with reconciliation on, the read-back right after found no other copy; if that read
  failed, ``warning`` and ``next_tool`` name the status check that looks for copies);
- ``already_posted``: success, ``data.status == "already_posted"``: the comment exists
  (``evidence``: ``"replayed"`` by the server, ``"found_by_marker"`` in a read-back, or
  ``"earlier_call"``: an earlier call of this process saw it created);
- ``duplicated``: success, ``data.status == "duplicated"``: the comment exists more than
  once (``evidence`` as above, ``"created"`` when this call made one of the copies;
  ``comment_id`` is this call's; ``duplicate_ids`` lists all of them; a person should
  delete all but one, nobody should post again);
- ``not_posted``: failure with ``operation_state: "not_applied"`` and the reason's code,
  only when nothing can have landed (refused before or while sending, a 4xx, a 429 on a
  call with no attempt of unknown outcome);
- ``unknown``: failure ``outcome_unknown`` with ``operation_state: "unknown"``,
  ``retry: "after_status_check"`` and ``next_tool``: the exact
  ``github_pr_get_comment_status`` call that settles it.

The data of both tools is declared (:data:`CREATE_COMMENT_DATA_SCHEMA`,
:data:`COMMENT_STATUS_DATA_SCHEMA`); fields that do not apply are absent.

**What is not covered.** The ledger lives in one process. Two *processes* (or two hosts)
writing with the same key are protected only by server keys (one key table for all) or by
the marker read-back, and the read-back has the in-flight hole: a request of the other
process that is still running is invisible to it. What slips through that hole is reported
afterwards as ``duplicated`` by whichever call or status check reads back last, never
undone automatically; a call whose read-back ran before the other copy landed said
``posted`` truthfully at that time.

Reads and writes retry differently: a failed read-back is simply read again (it changes
nothing), within :data:`READ_BACK_POLICY`; a POST is resent only as the table above allows.
All waits of one call, read-back retries included, stay within the write policy's
``total_backoff_cap_s``. They are slept through ``WriteContext.sleep`` (tests and notebooks
pass a recorder), and every step is appended to ``WriteContext.events`` (a
:class:`WriteEvent`; a failure's code and operation state are fields of it, not only text).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, NoReturn

from tutorial_lib.core.arguments import unicode_text_error
from tutorial_lib.core.authorization import github_access
from tutorial_lib.core.contracts import ContractError, OperationState, Source
from tutorial_lib.core.host import HostState
from tutorial_lib.core.retry import (
    Decision,
    ReadBack,
    RetryPolicy,
    backoff_schedule,
    decide_after_failure,
    parse_retry_after,
)
from tutorial_lib.core.tools import GITHUB_READ_ONLY, GITHUB_WRITE, ToolSpec
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.reads import PR_PROPERTY, REPOSITORY_PROPERTY, pr_argument_error

if TYPE_CHECKING:
    from jsonschema import ValidationError

__all__ = [
    "COMMENT_STATUS_DATA_SCHEMA",
    "COMMENT_STATUS_SCHEMA",
    "COMMENT_STATUS_SPEC",
    "CREATE_COMMENT_DATA_SCHEMA",
    "CREATE_COMMENT_SCHEMA",
    "CREATE_COMMENT_SPEC",
    "KEY_ARGUMENT_PATTERN",
    "MAX_BODY_CHARS",
    "SETTLE_AFTER_S",
    "READ_BACK_POLICY",
    "WRITE_POLICY",
    "WRITE_SPECS",
    "CommentWrite",
    "LedgerEntry",
    "WriteContext",
    "WriteEvent",
    "WriteLedger",
    "WriteScope",
    "WriteStatus",
    "check_body_text",
    "find_marked",
    "marked_ids",
    "marker",
    "reconcile",
    "retry_after_seconds",
    "with_marker",
    "write_status",
    "write_tool_specs",
]

#: The tools' names, written once.
CREATE_COMMENT = "github_pr_create_comment"
COMMENT_STATUS = "github_pr_get_comment_status"

#: What the tool accepts as its ``idempotency_key`` argument: 8 to 128 of
#: ``A-Z a-z 0-9 _ -`` (a uuid4 hex has 32). Stricter than what a server may accept as a
#: header: a key the model can copy without mistakes.
KEY_ARGUMENT_PATTERN = r"^[A-Za-z0-9_-]{8,128}$"
#: GitHub refuses bodies over 65,536 characters; the marker needs room too.
MAX_BODY_CHARS = 60_000
#: Writes retry less than reads: 4 attempts in all, waits capped at 4 s and 10 s in total.
WRITE_POLICY = RetryPolicy(base_s=0.5, cap_s=4.0, max_attempts=4, total_backoff_cap_s=10.0)

#: Read-backs are reads: retried on temporary failures, 3 reads at most, within the write's
#: total backoff budget.
READ_BACK_POLICY = RetryPolicy(base_s=0.25, cap_s=2.0, max_attempts=3, total_backoff_cap_s=4.0)

#: How long after it was sent a request of unknown outcome may still land, by default: an
#: ASSUMPTION about the service, not something a client can check (GitHub says it ends
#: requests that take more than 10 s; the default leaves a wide margin). Until then a
#: read-back that finds nothing is not proof of absence.
SETTLE_AFTER_S = 60.0

#: The five result words of a write (see :func:`write_status`).
WriteStatus = Literal["posted", "already_posted", "duplicated", "not_posted", "unknown"]


def marker(key: str) -> str:
    """The line that tags a comment with its idempotency key (an invisible HTML comment)."""
    return f"<!-- tutorial-lib:idempotency-key={key} -->"


def with_marker(body: str, key: str) -> str:
    """``body`` as posted: the text, an empty line, the marker."""
    return f"{body.rstrip()}\n\n{marker(key)}"


def find_marked(comments: Sequence[Mapping[str, Any]], key: str) -> list[Mapping[str, Any]]:
    """The comments whose body ends with the marker of ``key`` (quoting it elsewhere, or the
    marker of a longer key that starts the same, does not count)."""
    tag = marker(key)
    return [c for c in comments if _text(c).endswith(tag)]


def marked_ids(comments: Sequence[Mapping[str, Any]], key: str) -> list[int]:
    """The ids of the comments that carry ``key``'s marker, oldest (smallest) first: more
    than one is a duplicate of one business request (whatever their texts)."""
    return sorted(c["id"] for c in find_marked(comments, key))


def reconcile(comments: Sequence[Mapping[str, Any]], key: str, body: str) -> dict[str, Any]:
    """The read-back check: is the comment of ``key`` with this ``body`` among ``comments``?

    - ``{"state": "found", "comment_id": id}``: a comment ends with the key's marker and its
      text is ``body`` (the smallest such id if several do: a duplicate, which the tools
      count with :func:`marked_ids` and report, and never resolve by themselves);
    - ``{"state": "key_reused", "comment_id": id}``: the marker is there, but on another
      text: the key was used for a different comment (never post with it);
    - ``{"state": "absent"}``: no comment carries the marker.

    Texts are compared without surrounding whitespace.
    """
    tag = marker(key)
    marked = sorted(find_marked(comments, key), key=lambda c: c["id"])
    same = [c for c in marked if _text(c)[: -len(tag)].strip() == body.strip()]
    if same:
        return {"state": "found", "comment_id": same[0]["id"]}
    if marked:
        return {"state": "key_reused", "comment_id": marked[0]["id"]}
    return {"state": "absent"}


@dataclass(frozen=True)
class WriteEvent:
    """One step of a write, for timelines and tests.

    - ``step``: ``queued`` (waited for another call with the same key), ``pre_check``,
      ``post``, ``failure``, ``read_back``, ``verify`` (the read-back after a POST that
      succeeded, looking for other copies), ``wait``, ``result``;
    - ``attempt``: POSTs made so far;
    - ``detail``: a line for people (its wording may change: tests read the fields below);
    - ``wait_s``: the backoff slept (``wait`` only);
    - ``code``: the error code of a ``failure``, or of a failed read (a ``pre_check`` or
      ``read_back`` whose read of the comments failed); None otherwise;
    - ``operation_state``: of a ``failure``: ``"unknown"`` (the POST may have landed) or
      ``"not_applied"`` (it provably did not); None otherwise;
    - ``comment_ids``: of a ``pre_check``, ``read_back`` or ``verify`` whose read
      succeeded, the ids of the comments that carried the key's marker at that moment
      (:func:`marked_ids`; more than one: duplicates); empty otherwise.
    """

    step: str
    attempt: int
    detail: str
    wait_s: float = 0.0
    code: str | None = None
    operation_state: OperationState | None = None
    comment_ids: tuple[int, ...] = ()


class WriteScope(NamedTuple):
    """What one ledger entry is about: one business request (``key``) on one PR of one
    service. ``service`` is the client's base URL; ``repository`` is lower-cased (GitHub's
    owner and repository names are case-insensitive). Build it with :meth:`of`."""

    service: str
    repository: str
    pr: int
    key: str

    @classmethod
    def of(cls, client: GitHubClient, repository: str, pr: int, key: str) -> WriteScope:
        """The scope of ``key`` on ``repository``'s PR ``pr``, written through ``client``."""
        return cls(client.base_url, repository.lower(), pr, key)


@dataclass(frozen=True)
class LedgerEntry:
    """A settled scope (:meth:`WriteLedger.done`): the comment this process saw created or
    found, its text (without the marker), and ``copies``: the ids of every comment that
    carried the key's marker when it was last read (more than one: duplicates)."""

    comment: Mapping[str, Any]
    text: str
    copies: tuple[int, ...]


class WriteLedger:
    """What this process knows about its keyed writes, per :class:`WriteScope`; thread-safe.

    - **single flight**: :meth:`hold` lets one call per scope run at a time; a second call
      with the same scope waits for the first to end, then finds what it did;
    - **done scopes**: the comment a call saw created or found, and its known copies
      (:meth:`note_done`, :meth:`done`); a later call with the key and the same text
      answers ``already_posted`` (``duplicated`` when it knew of copies) without a request;
    - **unsettled scopes**: a scope with an attempt of unknown outcome
      (:meth:`note_unknown`, cleared by :meth:`note_done` or :meth:`forget_unsettled`); it
      :meth:`may_still_land` for ``settle_after_s`` seconds after that attempt was sent;
    - **key support**, per service: whether the service has shown it honours
      ``Idempotency-Key`` (:meth:`note_key_support`, :meth:`keys_shown_by`).

    Scope: entries are keyed by (service base URL, repository, PR, key), never by the key
    alone, so ONE ledger safely serves every service and PR a process writes to. The host
    owns one and gives it to every :class:`WriteContext` it builds; single flight holds
    only between contexts that share it (a context given none makes its own). It is state
    of this process only: another process, or this one after a restart, knows nothing of
    it, so the server's key table and the marker read-back remain the defences there, and
    duplicates that slip through are reported, not prevented.
    ``clock`` is injectable for tests (``time.monotonic``).
    """

    def __init__(
        self, *, settle_after_s: float = SETTLE_AFTER_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not settle_after_s >= 0:
            raise ValueError(f"settle_after_s must be >= 0, got {settle_after_s!r}")
        self.settle_after_s = settle_after_s
        self._clock = clock
        self._lock = threading.Lock()
        self._scope_locks: dict[WriteScope, threading.Lock] = {}
        self._users: dict[WriteScope, int] = {}
        self._done: dict[WriteScope, LedgerEntry] = {}
        self._unsettled: dict[WriteScope, float] = {}  # when its last unknown attempt was sent
        self._support: dict[str | None, str] = {}  # service (None: every service) -> evidence

    @contextmanager
    def hold(self, scope: WriteScope) -> Iterator[bool]:
        """Run the ``with`` block as the only call of ``scope`` in this process; yields
        whether it had to wait for another call first."""
        with self._lock:
            lock = self._scope_locks.setdefault(scope, threading.Lock())
            self._users[scope] = self._users.get(scope, 0) + 1
        waited = not lock.acquire(blocking=False)
        if waited:
            lock.acquire()
        try:
            yield waited
        finally:
            lock.release()
            with self._lock:
                self._users[scope] -= 1
                if not self._users[scope]:  # nobody else holds or waits: forget the lock
                    del self._users[scope], self._scope_locks[scope]

    def now(self) -> float:
        """The ledger's clock."""
        return self._clock()

    def done(self, scope: WriteScope) -> LedgerEntry | None:
        """What a call saw created or found for ``scope``, else None."""
        with self._lock:
            return self._done.get(scope)

    def note_done(
        self,
        scope: WriteScope,
        comment: Mapping[str, Any],
        text: str,
        copies: Sequence[int] = (),
    ) -> None:
        """``scope``'s comment exists (created, replayed or found): it is settled.
        ``copies``: the ids of every comment seen carrying the key's marker (``comment``'s
        own id is always one of them)."""
        ids = tuple(sorted({*copies, comment["id"]}))
        with self._lock:
            self._done[scope] = LedgerEntry(dict(comment), text, ids)
            self._unsettled.pop(scope, None)

    def note_unknown(self, scope: WriteScope, sent_at: float) -> None:
        """An attempt of ``scope`` sent at ``sent_at`` (the ledger's clock) may have landed."""
        with self._lock:
            self._unsettled[scope] = max(sent_at, self._unsettled.get(scope, sent_at))

    def forget_unsettled(self, scope: WriteScope) -> None:
        """Proof arrived that no attempt of ``scope`` can land any more (see
        :meth:`CommentWrite.pre_check`)."""
        with self._lock:
            self._unsettled.pop(scope, None)

    def unsettled(self, scope: WriteScope) -> bool:
        """Whether an attempt of ``scope`` had an unknown outcome that nothing has settled."""
        with self._lock:
            return scope in self._unsettled

    def may_still_land(self, scope: WriteScope) -> bool:
        """Whether such an attempt was sent less than ``settle_after_s`` ago."""
        with self._lock:
            sent = self._unsettled.get(scope)
        return sent is not None and self._clock() - sent < self.settle_after_s

    def note_key_support(self, evidence: str, service: str | None = None) -> None:
        """The service at base URL ``service`` answered a keyed request as only a
        key-honouring server can (``evidence``: what it did, e.g. ``"replayed"``). Without
        ``service`` the evidence counts for every service of this ledger: only for a
        ledger that serves one (a shared ledger should always be told which)."""
        with self._lock:
            self._support.setdefault(service, evidence)

    def keys_shown_by(self, service: str) -> bool:
        """Whether the service at base URL ``service`` has shown it honours
        ``Idempotency-Key``."""
        with self._lock:
            return service in self._support or None in self._support

    @property
    def keys_shown(self) -> bool:
        """Whether any service of this ledger has shown it honours ``Idempotency-Key`` (for
        a ledger that serves one service; :meth:`keys_shown_by` names the service)."""
        with self._lock:
            return bool(self._support)


@dataclass
class WriteContext:
    """What the write tools need, and how the write behaves; bound once per registry.

    - ``server_keys``: send ``Idempotency-Key`` with every POST. The tool RELIES on it (a
      resend after an unknown outcome) only once the server has shown it honours keys
      (:meth:`WriteLedger.keys_shown_by`); a server that ignores the header (real GitHub)
      never shows it;
    - ``reconcile``: read the PR's comments back and look for the key's marker (works on
      real GitHub), before the first POST, after an unknown outcome, and after a POST that
      succeeded (to find and report copies: ``duplicated``). With both off, an unknown
      outcome stays unknown, and a duplicate is seen only by the status tool;
    - ``policy``: attempts and backoff bounds (:data:`WRITE_POLICY`);
    - ``sleep``: how to wait (``time.sleep``; tests pass a recorder);
    - ``seed``: the jitter seed; ``None`` derives it from the idempotency key, so one
      business request always gets the same schedule;
    - ``ledger``: what this process knows about its keyed writes (:class:`WriteLedger`).
      Single flight holds only between contexts that share one. Left out, the context
      takes its host's (:meth:`with_host_state`: every write context of one
      :class:`~tutorial_lib.core.host.Host` shares one ledger); given, it is kept as is;
    - ``events``: every step of every call, appended (see :class:`WriteEvent`).
    """

    client: GitHubClient
    server_keys: bool = False
    reconcile: bool = True
    policy: RetryPolicy = WRITE_POLICY
    sleep: Callable[[float], None] = time.sleep
    seed: int | None = None
    ledger: WriteLedger = field(default_factory=lambda: _OwnLedger())
    events: list[WriteEvent] = field(default_factory=list)

    def with_host_state(self, state: HostState) -> WriteContext:
        """This context with its host's ledger, unless a ledger was given explicitly
        (the host calls it once, when it is built; ``events`` stay the same list). The
        host's ledger is the own ledger of the first such context it holds."""
        if not isinstance(self.ledger, _OwnLedger):
            return self
        # the first such context's own ledger becomes the host's: that context keeps
        # seeing what its writes did, and every other one of the host shares it
        shared = state.get("github.write_ledger", lambda: self.ledger)
        return self if shared is self.ledger else replace(self, ledger=shared)


class _OwnLedger(WriteLedger):
    """The ledger a context makes when none is given: its host's ledger replaces it."""


# --------------------------------------------------------------------------- contracts

_KEY = {
    "type": "string",
    "pattern": KEY_ARGUMENT_PATTERN,
    "description": "One key per business request, made once by the caller (e.g. a uuid4"
    " hex) and reused unchanged for every retry of the SAME comment; a new comment needs a"
    " new key. 8-128 characters: letters, digits, '_' or '-'.",
}

CREATE_COMMENT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "repository": REPOSITORY_PROPERTY,
        "pr": PR_PROPERTY,
        "body": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_BODY_CHARS,
            "description": f"The comment text (Markdown), 1 to {MAX_BODY_CHARS} characters.",
        },
        "idempotency_key": _KEY,
    },
    "required": ["repository", "pr", "body", "idempotency_key"],
    "additionalProperties": False,
}

COMMENT_STATUS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "repository": REPOSITORY_PROPERTY,
        "pr": PR_PROPERTY,
        "idempotency_key": {**_KEY, "description": "The key of the write to check."},
    },
    "required": ["repository", "pr", "idempotency_key"],
    "additionalProperties": False,
}


_STATUS_CHECK = {
    "type": "object",
    "description": f"The exact {COMMENT_STATUS} call to make next.",
    "required": ["name", "arguments"],
    "additionalProperties": False,
    "properties": {
        "name": {"const": COMMENT_STATUS},
        "arguments": {
            "type": "object",
            "required": ["repository", "pr", "idempotency_key"],
            "additionalProperties": False,
            "properties": {
                "repository": {"type": "string"},
                "pr": {"type": "integer"},
                "idempotency_key": {"type": "string"},
            },
        },
    },
}

_DUPLICATE_IDS = {
    "type": "array",
    "items": {"type": "integer"},
    "minItems": 2,
    "description": "Every comment that carries this key's marker, oldest first: copies of"
    " ONE business request. A person should delete all but one; nothing was deleted.",
}

#: ``data`` of a ``github_pr_create_comment`` success. ``duplicate_ids``, ``warning`` and
#: ``suggestion`` come exactly with ``status: "duplicated"``; ``warning`` and ``next_tool``
#: without duplicates mean the read-back that looks for copies failed (the status check
#: settles it).
CREATE_COMMENT_DATA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "status",
        "evidence",
        "repository",
        "pr",
        "comment_id",
        "url",
        "idempotency_key",
        "attempts",
    ],
    "additionalProperties": False,
    "properties": {
        "status": {"enum": ["posted", "already_posted", "duplicated"]},
        "evidence": {"enum": ["created", "replayed", "found_by_marker", "earlier_call"]},
        "repository": {"type": "string"},
        "pr": {"type": "integer"},
        "comment_id": {"type": "integer", "description": "The comment this call made or found."},
        "url": {"type": ["string", "null"]},
        "idempotency_key": {"type": "string"},
        "attempts": {"type": "integer", "description": "POSTs this call made (0: none)."},
        "duplicate_ids": _DUPLICATE_IDS,
        "warning": {"type": "string"},
        "suggestion": {"type": "string"},
        "next_tool": _STATUS_CHECK,
    },
    "if": {"properties": {"status": {"const": "duplicated"}}},
    "then": {"required": ["duplicate_ids", "warning", "suggestion"]},
    "else": {"not": {"anyOf": [{"required": ["duplicate_ids"]}, {"required": ["suggestion"]}]}},
    "dependentRequired": {"next_tool": ["warning"]},
}

#: ``data`` of a ``github_pr_get_comment_status`` success: ``comment_id`` and ``url``
#: unless ``absent``; ``may_still_land`` only with ``absent``; ``duplicate_ids``,
#: ``warning`` and ``suggestion`` exactly with ``duplicated``.
COMMENT_STATUS_DATA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["repository", "pr", "idempotency_key", "state", "comments_checked"],
    "additionalProperties": False,
    "properties": {
        "repository": {"type": "string"},
        "pr": {"type": "integer"},
        "idempotency_key": {"type": "string"},
        "state": {"enum": ["posted", "absent", "duplicated"]},
        "comment_id": {"type": "integer", "description": "The oldest comment with the key."},
        "url": {"type": ["string", "null"]},
        "may_still_land": {"type": "boolean"},
        "duplicate_ids": _DUPLICATE_IDS,
        "warning": {"type": "string"},
        "suggestion": {"type": "string"},
        "comments_checked": {
            "type": "integer",
            "description": "Conversation comments read (every page of the PR's).",
        },
    },
    "oneOf": [
        {
            "properties": {"state": {"const": "absent"}},
            "required": ["may_still_land"],
            "not": {"anyOf": [{"required": [f]} for f in ("comment_id", "duplicate_ids")]},
        },
        {
            "properties": {"state": {"const": "posted"}},
            "required": ["comment_id", "url"],
            "not": {"anyOf": [{"required": [f]} for f in ("may_still_land", "duplicate_ids")]},
        },
        {
            "properties": {"state": {"const": "duplicated"}},
            "required": ["comment_id", "url", "duplicate_ids", "warning", "suggestion"],
            "not": {"required": ["may_still_land"]},
        },
    ],
}


def _value_error(name: str, value: Any, error: ValidationError) -> ContractError:
    """The write tools' wording of their own value errors (the PR fields: as the reads)."""
    if name == "body":
        return ContractError(
            "invalid_value",
            f"'body' must be 1 to {MAX_BODY_CHARS} characters of text",
            field="body",
            received=value,
            expected=f"a string of 1 to {MAX_BODY_CHARS} characters",
        )
    if name == "idempotency_key":
        return ContractError(
            "invalid_value",
            "'idempotency_key' must be 8-128 characters of letters, digits, '_' or '-'",
            field="idempotency_key",
            received=value,
            expected=KEY_ARGUMENT_PATTERN,
            suggestion="make one key per comment (e.g. a uuid4 hex) and reuse it for retries",
        )
    return pr_argument_error(name, value, error)


def check_body_text(context: Any, args: Mapping[str, Any]) -> None:
    """The business check of a tool that writes ``args["body"]`` to GitHub (creating or
    editing a comment): the body must be Unicode text, refused before any request."""
    error = unicode_text_error("body", args["body"])
    if error is not None:
        raise error


# --------------------------------------------------------------------------- one write


class CommentWrite:
    """One call of ``github_pr_create_comment``: its attempts, decisions, read-backs, waits.

    The road's execution station runs :meth:`run`: single flight on the key (the ledger),
    :meth:`pre_check`, then post and, after each failed POST, let :meth:`after_failure`
    decide; after a POST that succeeded, with reconciliation on, :meth:`verify` looks for
    other copies. A call ends either with the ``data`` of a success (:meth:`result`:
    ``posted``, ``already_posted``, or ``duplicated`` when it saw more than one comment
    with the key's marker) or by raising the ContractError of a ``not_posted`` result
    (:meth:`not_posted`) or an ``unknown`` one (:meth:`unknown`). Every step is recorded
    in ``context.events``.
    """

    def __init__(self, context: WriteContext, args: Mapping[str, Any]) -> None:
        self.context = context
        self.ledger = context.ledger
        self.repository: str = args["repository"]
        self.pr: int = args["pr"]
        self.key: str = args["idempotency_key"]
        self.text: str = args["body"]
        self.body = with_marker(self.text, self.key)
        #: What the ledger knows this call by: (service, repository, PR, key).
        self.scope = WriteScope.of(context.client, self.repository, self.pr, self.key)
        self.service = self.scope.service
        digest = hashlib.sha256(self.key.encode()).digest()
        # an explicit byte order: before Python 3.11 it has no default
        derived = int.from_bytes(digest[:8], "big")
        self.seed = context.seed if context.seed is not None else derived
        self.attempt = 0
        self.retry_after: list[float | None] = []  # the Retry-After of each failed POST
        self.waited = 0  # backoff waits taken between POSTs
        self.slept = 0.0  # every wait of this call, read-back retries included
        #: True while an attempt (of this call or an earlier one with the key) may have
        #: landed and nothing has proved otherwise.
        self.unsettled = False
        #: The comment found already posted with this key (None: not found).
        self.found: Mapping[str, Any] | None = None
        #: The ids of the comments carrying the key's marker at the last read-back (or as
        #: the ledger knew them); more than one: the result is ``duplicated``.
        self.copies: tuple[int, ...] = ()
        #: The code of a failed :meth:`verify` read (None: it succeeded, or did not run).
        self.verify_failed: str | None = None

    # -- the station -----------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        """Execution: one call per scope (service, repository, PR, key) at a time, the
        pre-check, then post (again) until a success or a decision to stop."""
        with self.ledger.hold(self.scope) as waited:
            if waited:
                self.record("queued", "waited for another call with the same key to end")
            return self.run_alone()

    def run_alone(self) -> dict[str, Any]:
        """:meth:`run` once this call holds its scope."""
        self.pre_check()
        if self.found is not None:
            return self.found_result()
        while True:
            self.attempt += 1
            self.record("post", f"POST with key {self.key}")
            sent_at = self.ledger.now()
            try:
                posted = self.context.client.post_issue_comment(
                    self.repository,
                    self.pr,
                    self.body,
                    idempotency_key=self.key if self.context.server_keys else None,
                )
            except ContractError as exc:
                failed = exc
            else:
                if posted.replayed:
                    self.ledger.note_key_support("replayed", self.service)
                if self.context.reconcile:
                    self.verify(posted.comment)
                status: WriteStatus = "already_posted" if posted.replayed else "posted"
                evidence = "replayed" if posted.replayed else "created"
                return self.result(status, posted.comment, evidence)
            # decided outside the `except`: a result raised here is not "during" that error
            outcome = self.after_failure(failed, sent_at)
            if outcome is not None:
                return outcome

    def pre_check(self) -> None:
        """Before the first POST: what do this process and GitHub already know of the key?

        - the ledger saw its comment: found (a different text: the key was reused);
        - an earlier attempt of unknown outcome: the call starts *unsettled*;
        - with reconciliation on, the marker is looked for (with or without server keys:
          keys may be lost in a restart, or ignored): found -> already_posted; reused for
          another text -> not_posted (``invalid_value``); the read failed -> not_posted, or
          unknown while unsettled;
        - nothing found while unsettled: if that attempt may still land and the server has
          not shown it honours keys, the call stops ``unknown`` without posting; once
          ``settle_after_s`` has passed, this read-back is the proof that it did not land.

        It reads GitHub, so it runs in execution: only after authorization and
        confirmation let the call through.
        """
        context, ledger = self.context, self.ledger
        done = ledger.done(self.scope)
        if done is not None:
            if done.text.strip() != self.text.strip():
                self.not_posted(_key_reused(self.key), "make a new key for a new comment")
            self.found = done.comment
            self.copies = done.copies
            return
        self.unsettled = ledger.unsettled(self.scope)
        if context.reconcile:
            found = self.read_back("pre_check")
            if isinstance(found, ContractError):
                if self.unsettled:
                    self.unknown("an earlier attempt may have landed and the check failed")
                reused = found.code == "invalid_value"
                why = (
                    "make a new key for a new comment"
                    if reused
                    else "the check for an earlier post failed"
                )
                self.not_posted(found, why)
            if found is not None:
                self.found = found
                return
            if self.unsettled and not ledger.may_still_land(self.scope):
                ledger.forget_unsettled(self.scope)  # it cannot land any more: absent is proof
                self.unsettled = False
        if self.unsettled and not self.keys_proven():
            self.unknown(
                "an earlier attempt with this key may still land, and nothing found proves"
                " it did not: posting now could make a second copy"
            )

    def keys_proven(self) -> bool:
        """Whether a resend with the same key is guaranteed not to write twice: this tool
        sends keys AND the server has shown it honours them."""
        return self.context.server_keys and self.ledger.keys_shown_by(self.service)

    # -- after a failed POST -----------------------------------------------------------------

    def after_failure(self, error: ContractError, sent_at: float) -> dict[str, Any] | None:
        """Decide what to do after a failed POST (sent at ``sent_at``), and do it.

        Returns None for "post again" (the backoff wait has been slept), or the data of an
        already_posted result (a read-back found the comment); raises the ContractError of
        a not_posted or unknown result. The decision is
        :func:`tutorial_lib.core.retry.decide_after_failure`'s; an unknown outcome stays
        unknown until the comment is found or the server replays it: a read-back that
        finds nothing proves nothing (the request may still be in flight).
        """
        state = self.record_failure(error, sent_at)
        decision = self.decide(error, state, read_back=None)
        if decision.action == "verify_state":
            found = self.read_back("read_back")
            if isinstance(found, ContractError):  # the key was reused, or the read failed
                self.unknown(f"the read-back after the failure failed too ({found.code})")
            if found is not None:
                return self.found_result(found)
            decision = self.decide(error, state, read_back="nothing")
        if decision.action == "retry_with_backoff":
            if self.wait_before_retry(decision.reason):
                return None
            decision = Decision("stop", "no backoff time left within the policy's bounds")
        if decision.action == "stop_unknown" or self.unsettled:
            self.unknown(decision.reason)
        self.not_posted(error, decision.reason)

    def record_failure(self, error: ContractError, sent_at: float) -> OperationState:
        """Note a failed POST (event, Retry-After, what it shows of the server's keys) and
        return the state it left: the error's own (``"unknown"`` after
        ``outcome_unknown``: it may have landed, and the ledger is told)."""
        state = error.operation_state
        if state == "unknown":
            self.unsettled = True
            self.ledger.note_unknown(self.scope, sent_at)
        if self.context.server_keys and _about_the_key(error):
            shown = f"HTTP {error.log.get('status')} about the key"
            self.ledger.note_key_support(shown, self.service)
        self.retry_after.append(retry_after_seconds(error))
        self.record(
            "failure",
            f"{error.code} ({state}): {error.message}",
            code=error.code,
            operation_state=state,
        )
        return state

    def decide(
        self, error: ContractError, state: OperationState, *, read_back: ReadBack
    ) -> Decision:
        """:func:`~tutorial_lib.core.retry.decide_after_failure` for this write, now."""
        this_unknown = state == "unknown"
        return decide_after_failure(
            error.to_dict(state),
            is_write=True,
            attempt=self.attempt,
            policy=self.context.policy,
            same_idempotency_key=self.keys_proven(),
            read_back=read_back,
            can_verify=self.context.reconcile,
            earlier_unknown=self.unsettled and not this_unknown,
        )

    def wait_before_retry(self, reason: str) -> bool:
        """Sleep the next backoff wait before a resend; False when none is left (the
        policy's attempts, its total, or a Retry-After beyond the cap)."""
        waits = backoff_schedule(self.context.policy, self.seed, retry_after_s=self.retry_after)
        if self.waited >= len(waits) or waits[self.waited] > self.budget_left():
            return False
        wait = waits[self.waited]
        self.waited += 1
        self.sleep(wait, reason)
        return True

    # -- reading back --------------------------------------------------------------------------

    def read_back(self, step: str) -> Mapping[str, Any] | ContractError | None:
        """Read the PR's comments back and look for this key's marker.

        The comment with the marker AND this body (the content is checked too, not just
        the key); None if no comment has the marker; a ContractError if the read failed, or
        (``invalid_value``) if the marker is there on a different text: the key was used
        for another comment.
        """
        comments = self.read_comments(step)
        if isinstance(comments, ContractError):
            return comments
        check = reconcile(comments, self.key, self.text)
        self.count_copies(step, comments)
        if check["state"] == "found":
            return next(c for c in comments if c["id"] == check["comment_id"])
        if check["state"] == "key_reused":
            return _key_reused(self.key)
        return None

    def verify(self, comment: Mapping[str, Any]) -> None:
        """After a POST that succeeded (``comment``: what the server answered), with
        reconciliation on: read the comments back and count the copies carrying the key's
        marker. Another process, or a host with a ledger of its own, may have posted the
        same request meanwhile; more than one copy makes the result ``duplicated``. It
        changes nothing and deletes nothing; a failed read leaves the result ``posted``
        with a warning and the status check to run (:meth:`result`)."""
        comments = self.read_comments("verify")
        if isinstance(comments, ContractError):
            self.verify_failed = comments.code
            return
        self.count_copies("verify", comments)
        self.copies = tuple(sorted({*self.copies, comment["id"]}))

    def count_copies(self, step: str, comments: Sequence[Mapping[str, Any]]) -> None:
        """Note which of ``comments`` carry the key's marker (:attr:`copies`), as a
        ``step`` event with their ids."""
        ids = marked_ids(comments, self.key)
        self.copies = tuple(ids)
        detail = f"{len(ids)} comment(s) with the marker among {len(comments)}"
        self.record(step, detail, comment_ids=self.copies)

    def read_comments(self, step: str) -> list[dict[str, Any]] | ContractError:
        """The PR's comments; a read changes nothing, so a failed one is retried within
        :data:`READ_BACK_POLICY` and the call's remaining backoff budget."""
        retry_after: list[float | None] = []
        attempt = 0
        while True:
            attempt += 1
            try:
                return self.context.client.list_issue_comments(self.repository, self.pr)
            except ContractError as exc:
                self.record(step, f"read-back failed: {exc.code}", code=exc.code)
                retry_after.append(retry_after_seconds(exc))
                decision = decide_after_failure(
                    exc.to_dict(),
                    is_write=False,
                    attempt=attempt,
                    policy=READ_BACK_POLICY,
                    same_idempotency_key=False,
                )
                if decision.action != "retry_with_backoff":
                    return exc
                waits = backoff_schedule(READ_BACK_POLICY, self.seed, retry_after_s=retry_after)
                if attempt > len(waits) or waits[attempt - 1] > self.budget_left():
                    return exc
                self.sleep(waits[attempt - 1], decision.reason)

    # -- waiting ---------------------------------------------------------------------------

    def sleep(self, seconds: float, reason: str) -> None:
        """Wait ``seconds`` through ``context.sleep``, recorded as a ``wait`` event."""
        self.record("wait", reason, seconds)
        self.context.sleep(seconds)
        self.slept += seconds

    def budget_left(self) -> float:
        """Seconds of backoff this call may still wait (the policy's total cap)."""
        return self.context.policy.total_backoff_cap_s - self.slept

    # -- results -----------------------------------------------------------------------------

    def result(
        self, status: WriteStatus, comment: Mapping[str, Any], evidence: str
    ) -> dict[str, Any]:
        """The ``data`` of a success: ``posted`` or ``already_posted``, with its evidence,
        or ``duplicated`` (with ``duplicate_ids``, a warning and what to do) when more than
        one comment carried the key's marker; the ledger now knows the scope is done."""
        copies = tuple(sorted({*self.copies, comment["id"]}))
        if len(copies) > 1:
            status = "duplicated"
        self.ledger.note_done(self.scope, comment, self.text, copies)
        self.record("result", f"{status} ({evidence})", comment_ids=copies)
        data: dict[str, Any] = {
            "status": status,
            "evidence": evidence,
            "repository": self.repository,
            "pr": self.pr,
            "comment_id": comment.get("id"),
            "url": comment.get("html_url"),
            "idempotency_key": self.key,
            "attempts": self.attempt,
        }
        if status == "duplicated":
            data.update(duplicates_report(copies, self.key))
        elif self.verify_failed is not None:
            check = {"repository": self.repository, "pr": self.pr, "idempotency_key": self.key}
            data["warning"] = (
                "the comment exists, but the read-back that looks for other copies of it"
                f" failed ({self.verify_failed}): another process may have posted the same"
                " request; run next_tool to check"
            )
            data["next_tool"] = {"name": COMMENT_STATUS, "arguments": check}
        return data

    def found_result(self, comment: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The ``already_posted`` data for the comment found (by default the pre-check's):
        evidence ``earlier_call`` when the ledger knew it, else ``found_by_marker``."""
        found = comment if comment is not None else self.found
        assert found is not None
        known = self.ledger.done(self.scope)
        evidence = "earlier_call" if comment is None and known is not None else "found_by_marker"
        return self.result("already_posted", found, evidence)

    def not_posted(self, error: ContractError, reason: str) -> NoReturn:
        """End the call as ``not_posted``: ``error``'s code and fields, ``reason`` as the
        suggestion, ``operation_state: "not_applied"``. Only for a call where nothing can
        have landed: while unsettled, or for an ``outcome_unknown`` error, it ends the call
        as :meth:`unknown` instead (an envelope never says both)."""
        if self.unsettled or error.code == "outcome_unknown":
            self.unknown(reason)
        self.record("result", f"not_posted: {reason}")
        fields = {k: v for k, v in error.fields.items() if k != "suggestion"}
        raise ContractError(
            error.code,
            f"not posted ({self.attempt} attempt(s)): {error.message}",
            log=error.log,
            suggestion=reason,
            operation_state="not_applied",
            **fields,
        )

    def unknown(self, reason: str) -> NoReturn:
        """End the call as ``unknown``: ``outcome_unknown`` with the exact status check to
        run next (``next_tool``)."""
        self.record("result", f"unknown: {reason}")
        check = {"repository": self.repository, "pr": self.pr, "idempotency_key": self.key}
        raise ContractError(
            "outcome_unknown",
            f"result unknown after {self.attempt} attempt(s): the comment may or may not"
            " exist, and this tool stopped resending",
            retry="after_status_check",
            next_tool={"name": COMMENT_STATUS, "arguments": check},
            suggestion=f"call {COMMENT_STATUS} with the SAME idempotency_key before"
            " anything else; post again only with that same key, never with a new one",
            operation_state="unknown",
        )

    def record(
        self,
        step: str,
        detail: str,
        wait_s: float = 0.0,
        *,
        code: str | None = None,
        operation_state: OperationState | None = None,
        comment_ids: tuple[int, ...] = (),
    ) -> None:
        """Append a :class:`WriteEvent` to ``context.events``."""
        event = WriteEvent(step, self.attempt, detail, wait_s, code, operation_state, comment_ids)
        self.context.events.append(event)


def duplicates_report(copies: Sequence[int], key: str) -> dict[str, Any]:
    """The fields that report duplicates of ``key`` (``copies``: every comment id carrying
    its marker, two or more): ``duplicate_ids``, ``warning``, ``suggestion``. Nothing is
    deleted: a person decides which copy stays."""
    ids = sorted(copies)
    keep, extra = ids[0], ids[1:]
    listed = ", ".join(str(i) for i in extra)
    return {
        "duplicate_ids": ids,
        "warning": f"{len(ids)} comments carry the marker of idempotency key {key}: one"
        f" request was posted {len(ids)} times (comment ids {', '.join(map(str, ids))})."
        " Nothing was deleted.",
        "suggestion": "tell the user that the comment was posted more than once and that a"
        f" person should delete all copies but one on GitHub (for example keep the oldest,"
        f" {keep}, and delete {listed}); do not post again, with this key or a new one, and"
        " do not delete comments yourself",
    }


def _key_reused(key: str) -> ContractError:
    return ContractError(
        "invalid_value",
        "this idempotency key was already used for a different comment",
        field="idempotency_key",
        received=key,
    )


def _about_the_key(error: ContractError) -> bool:
    """Whether a failed keyed POST shows the server honours keys: a 409 "still in progress"
    or a 400/422 about the key, with the server's message naming ``Idempotency-Key``."""
    status = error.log.get("status")
    named = "idempotency-key" in str(error.log.get("github_message") or "").lower()
    return status in (400, 409, 422) and named


def _text(comment: Mapping[str, Any]) -> str:
    return str(comment.get("body") or "").strip()


def retry_after_seconds(error: ContractError) -> float | None:
    """The seconds a failure's ``Retry-After`` header asks for (None: none, or unusable)."""
    value = error.log.get("retry_after")
    return parse_retry_after(value, now=datetime.now(timezone.utc)) if value else None


def write_status(envelope: Mapping[str, Any]) -> WriteStatus:
    """One of ``posted``, ``already_posted``, ``duplicated``, ``not_posted``, ``unknown`` for
    any result of the ``github_pr_create_comment`` tool (a failure that is not ``unknown``
    is ``not_posted``). ``duplicated`` is a success: the comment exists, more than once."""
    if envelope.get("ok"):
        status = envelope["data"]["status"]
        if status not in ("posted", "already_posted", "duplicated"):
            raise ValueError(f"not a write result: status {status!r}")
        return status
    state = envelope["error"]["operation_state"]
    if state == "unknown":
        return "unknown"
    if state == "not_applied":
        return "not_posted"
    raise ValueError(f"a failed write with operation_state {state!r}")


# --------------------------------------------------------------------------- the tools


def _create(context: WriteContext, args: Mapping[str, Any], checked: None) -> dict[str, Any]:
    """Execution of github_pr_create_comment: the pre-check, the POSTs and what follows
    their failures (see :class:`CommentWrite`). Every GitHub request happens here, after
    authorization and confirmation."""
    return CommentWrite(context, args).run()


def _comment_status(
    context: WriteContext, args: Mapping[str, Any], checked: None
) -> dict[str, Any]:
    """Execution of github_pr_get_comment_status: read the comments, look for the marker.

    ``posted``: one comment carries it; ``duplicated``: several do (``comment_id`` the
    oldest, ``duplicate_ids`` all of them, a warning and what a person should do; nothing
    is deleted); ``absent``: none, with ``may_still_land``: whether this process sent an
    attempt of unknown outcome with the key less than ``settle_after_s`` ago (then
    "absent" is not proof yet). A comment found settles the scope in the ledger, with the
    copies seen."""
    repository, pr, key = args["repository"], args["pr"], args["idempotency_key"]
    scope = WriteScope.of(context.client, repository, pr, key)
    comments = context.client.list_issue_comments(repository, pr)
    found = sorted(find_marked(comments, key), key=lambda c: c["id"])
    data: dict[str, Any] = {"repository": repository, "pr": pr, "idempotency_key": key}
    if found:
        comment = found[0]
        copies = [c["id"] for c in found]
        state = "duplicated" if len(copies) > 1 else "posted"
        data.update(state=state, comment_id=comment["id"], url=comment.get("html_url"))
        if state == "duplicated":
            data.update(duplicates_report(copies, key))
        text = _text(comment)[: -len(marker(key))]
        context.ledger.note_done(scope, comment, text, copies)
    else:
        data.update(state="absent", may_still_land=context.ledger.may_still_land(scope))
    data["comments_checked"] = len(comments)
    return data


CREATE_COMMENT_DESCRIPTION = (
    "Post a conversation comment on one pull request, at most once per idempotency_key."
    " Writes to GitHub (visible to everyone on the PR).\n"
    "Make ONE idempotency_key per comment and reuse it unchanged if you call again for the"
    " same comment. Results: ok with data.status 'posted' (created now), 'already_posted'"
    " (it existed: replayed, found, or seen by an earlier call) or 'duplicated' (it exists"
    " more than once, e.g. another process posted it too: data.duplicate_ids lists every"
    " copy; tell the user a person should delete all but one, never post again and never"
    " delete anything yourself); or an error whose"
    " operation_state says what is true: 'not_applied' (nothing was posted; the code says"
    " why) or 'unknown' (it may exist: call next_tool, github_pr_get_comment_status, before"
    " anything else; calling this tool again later with the SAME key is safe, it checks"
    " first; never post again with a new key). A data.warning with next_tool asks for that"
    " status check too. The posted text ends with an invisible marker line"
    " (<!-- tutorial-lib:idempotency-key=... -->) that lets a later check find it.\n"
    'Example: {"repository": "example/shop", "pr": 128, "body": "Summary: ...",'
    ' "idempotency_key": "review-128-summary-1"}'
)

COMMENT_STATUS_DESCRIPTION = (
    "Check whether the comment written with idempotency_key exists on the pull request:"
    " data.state 'posted' (with comment_id), 'duplicated' (more than one comment carries"
    " the key: duplicate_ids lists all of them, oldest first) or 'absent' (with"
    " may_still_land: true while a request with this key may still be in flight, so"
    " 'absent' is not proof yet). Read-only: it reads every page of the PR's conversation"
    " and deletes nothing; for 'duplicated', tell the user a person should delete all"
    " copies but one. Use it after github_pr_create_comment answered operation_state"
    " 'unknown' or a warning."
    ' Example: {"repository": "example/shop", "pr": 128,'
    ' "idempotency_key": "review-128-summary-1"}'
)


def _source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    # Both tools read or write a PR's conversation: GitHub keeps it with the issue.
    resource = f"repos/{args['repository']}/issues/{args['pr']}/comments"
    return {"system": "github", "resource": resource}


#: github_pr_create_comment, declared once: its execution reads back, then posts (see
#: :class:`CommentWrite`); no GitHub request happens before authorization.
CREATE_COMMENT_SPEC = ToolSpec(
    name=CREATE_COMMENT,
    title="Post a comment on a pull request (once per key)",
    description=CREATE_COMMENT_DESCRIPTION,
    input_schema=CREATE_COMMENT_SCHEMA,
    output_schema=CREATE_COMMENT_DATA_SCHEMA,
    annotations=GITHUB_WRITE,
    access=github_access("write"),
    check=check_body_text,
    execute=_create,
    source=_source,
    value_error=_value_error,
    posted_text=("body",),
)

#: github_pr_get_comment_status, declared once: the status check an unknown write names.
COMMENT_STATUS_SPEC = ToolSpec(
    name=COMMENT_STATUS,
    title="Check whether a keyed comment exists on a pull request",
    description=COMMENT_STATUS_DESCRIPTION,
    input_schema=COMMENT_STATUS_SCHEMA,
    output_schema=COMMENT_STATUS_DATA_SCHEMA,
    annotations=GITHUB_READ_ONLY,
    access=github_access("read"),
    execute=_comment_status,
    source=_source,
    value_error=_value_error,
)

#: Both write tools, unbound (for linters and exports).
WRITE_SPECS: tuple[ToolSpec, ...] = (CREATE_COMMENT_SPEC, COMMENT_STATUS_SPEC)


def write_tool_specs(context: WriteContext) -> list[ToolSpec]:
    """``github_pr_create_comment`` and ``github_pr_get_comment_status`` bound to
    ``context``: ready for ``Registry(write_tool_specs(context))``."""
    return [spec.bind(context) for spec in WRITE_SPECS]
