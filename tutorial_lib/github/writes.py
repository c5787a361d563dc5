"""The safe write of chapter 05: post a PR comment at most once, and say what is true.

Two tools, each declared once (:data:`CREATE_COMMENT_SPEC`, :data:`COMMENT_STATUS_SPEC`) and
bound to a :class:`WriteContext` when the registry is built
(``Registry(write_tool_specs(context))``); every call travels the road of
:func:`tutorial_lib.core.road.call_tool`::

    find the tool -> schema check (the tool's schema) -> business check (the pre-check)
                  -> authorization -> confirmation -> execution (the POSTs) -> envelope

``github_pr_create_comment`` posts a conversation comment on a pull request. A write can
fail in three places (the connection fails; it fails mid-way; it succeeds and the answer is
lost), and only the first one proves that nothing happened. So the tool never simply
"retries on error": after each failure :func:`tutorial_lib.core.retry.decide_after_failure`
names the next step (a :data:`~tutorial_lib.core.contracts.NextStep`), and what happens
next depends on what is *known* (:meth:`CommentWrite.after_failure`):

==========================================  ===============================================
after the failure                           the tool
==========================================  ===============================================
invalid input / no permission               stops: ``not_posted`` (the next step is
                                            ``fix_input`` / ``check_authorization``)
provably not processed (refused, 429, 409)  waits (full jitter, ``Retry-After``), resends
outcome unknown (timeout, reset, 5xx),      resends with the SAME key: the server replays
server honours ``Idempotency-Key``          the first answer instead of writing twice
outcome unknown, no server keys,            reads the PR's comments back and looks for the
reconciliation on (works on real GitHub)    key's marker: found -> ``already_posted``;
                                            absent -> waits, resends once more
outcome unknown, and neither is possible    stops: ``unknown``, with the exact status check
==========================================  ===============================================

**The idempotency key** names one *business request* ("post this conclusion on PR 128"),
not one HTTP request. The caller makes it once (e.g. ``uuid.uuid4().hex`` when the user
confirms the action) and passes the same key to every attempt and every later call about
the same request: that is what lets the server, or the read-back, recognise a repeat. A
new key for a retry would defeat both.

**The marker.** Every posted body ends with ``<!-- tutorial-lib:idempotency-key=KEY -->``
(an HTML comment: invisible when GitHub renders the comment). Real GitHub has no
idempotency keys, so the marker is how a later read-back finds out whether a lost write
landed. Without server keys and with reconciliation on, the tool's business check looks for
the marker *before* the first attempt (:meth:`CommentWrite.pre_check`), so calling the tool
again with the same key never posts twice.

**The results** (:func:`write_status` maps an envelope to one of the four words):

- ``posted``: success, ``data.status == "posted"``: this call created the comment;
- ``already_posted``: success, ``data.status == "already_posted"``: the comment exists
  (``evidence``: ``"replayed"`` by the server, or ``"found_by_marker"`` in a read-back);
- ``not_posted``: failure with ``operation_state: "not_applied"`` and the reason's code;
- ``unknown``: failure ``outcome_unknown`` with ``operation_state: "unknown"``,
  ``retry: "after_status_check"`` and ``next_tool``: the exact
  ``github_pr_get_comment_status`` call that settles it.

**A limit to know.** A read-back proves absence only if the lost request can no longer land.
A server that commits *after* the client gave up (the ``slow_commit`` fault) defeats it: the
read-back finds nothing, the resend posts, and then the slow request lands too. Only
server-side keys close that hole (the resend gets 409 while the first is in flight).

Reads and writes retry differently: a failed read-back is simply read again (it changes
nothing), within :data:`READ_BACK_POLICY`; a POST is resent only as the table above allows.
All waits of one call, read-back retries included, stay within the write policy's
``total_backoff_cap_s``. They are slept through ``WriteContext.sleep`` (tests and notebooks
pass a recorder), and every step is appended to ``WriteContext.events`` (a
:class:`WriteEvent`; a failure's code and operation state are fields of it, not only text).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from tutorial_lib.core.contracts import ContractError, OperationState
from tutorial_lib.core.retry import (
    Decision,
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
    "COMMENT_STATUS_SCHEMA",
    "COMMENT_STATUS_SPEC",
    "CREATE_COMMENT_SCHEMA",
    "CREATE_COMMENT_SPEC",
    "KEY_ARGUMENT_PATTERN",
    "MAX_BODY_CHARS",
    "READ_BACK_POLICY",
    "WRITE_POLICY",
    "WRITE_SPECS",
    "CommentWrite",
    "WriteContext",
    "WriteEvent",
    "WriteStatus",
    "find_marked",
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

#: The four result words of a write (see :func:`write_status`).
WriteStatus = Literal["posted", "already_posted", "not_posted", "unknown"]


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


def reconcile(comments: Sequence[Mapping[str, Any]], key: str, body: str) -> dict[str, Any]:
    """The read-back check: is the comment of ``key`` with this ``body`` among ``comments``?

    - ``{"state": "found", "comment_id": id}``: a comment ends with the key's marker and its
      text is ``body`` (the smallest such id, if an earlier bug left several);
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

    - ``step``: ``pre_check``, ``post``, ``failure``, ``read_back``, ``wait``, ``result``;
    - ``attempt``: POSTs made so far;
    - ``detail``: a line for people (its wording may change: tests read the fields below);
    - ``wait_s``: the backoff slept (``wait`` only);
    - ``code``: the error code of a ``failure``, or of a failed read (a ``pre_check`` or
      ``read_back`` whose read of the comments failed); None otherwise;
    - ``operation_state``: of a ``failure``: ``"unknown"`` (the POST may have landed) or
      ``"not_applied"`` (it provably did not); None otherwise.
    """

    step: str
    attempt: int
    detail: str
    wait_s: float = 0.0
    code: str | None = None
    operation_state: OperationState | None = None


@dataclass
class WriteContext:
    """What the write tools need, and how the write behaves; bound once per registry.

    - ``server_keys``: the server honours ``Idempotency-Key`` (the emulator with
      ``idempotency="optional"``; NOT real GitHub). Then an unknown outcome is settled by
      resending with the same key;
    - ``reconcile``: read the PR's comments back and look for the key's marker (works on
      real GitHub). With both off, an unknown outcome stays unknown;
    - ``policy``: attempts and backoff bounds (:data:`WRITE_POLICY`);
    - ``sleep``: how to wait (``time.sleep``; tests pass a recorder);
    - ``seed``: the jitter seed; ``None`` derives it from the idempotency key, so one
      business request always gets the same schedule;
    - ``events``: every step of every call, appended (see :class:`WriteEvent`).
    """

    client: GitHubClient
    server_keys: bool = False
    reconcile: bool = True
    policy: RetryPolicy = WRITE_POLICY
    sleep: Callable[[float], None] = time.sleep
    seed: int | None = None
    events: list[WriteEvent] = field(default_factory=list)


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


# --------------------------------------------------------------------------- one write


class CommentWrite:
    """One call of ``github_pr_create_comment``: its attempts, decisions, read-backs, waits.

    The road drives it in two stations: the business check makes it and runs
    :meth:`pre_check`; execution runs :meth:`run`, which posts and, after each failed POST,
    lets :meth:`after_failure` decide. A call ends either with the ``data`` of a success
    (:meth:`result`) or by raising the ContractError of a ``not_posted`` result
    (:meth:`not_posted`) or an ``unknown`` one (:meth:`unknown`). Every step is recorded in
    ``context.events``.
    """

    def __init__(self, context: WriteContext, args: Mapping[str, Any]) -> None:
        self.context = context
        self.repository: str = args["repository"]
        self.pr: int = args["pr"]
        self.key: str = args["idempotency_key"]
        self.text: str = args["body"]
        self.body = with_marker(self.text, self.key)
        digest = hashlib.sha256(self.key.encode()).digest()
        # an explicit byte order: before Python 3.11 it has no default
        derived = int.from_bytes(digest[:8], "big")
        self.seed = context.seed if context.seed is not None else derived
        self.attempt = 0
        self.retry_after: list[float | None] = []  # the Retry-After of each failed POST
        self.waited = 0  # backoff waits taken between POSTs
        self.slept = 0.0  # every wait of this call, read-back retries included
        #: True while an earlier attempt may have landed and nothing has proved otherwise.
        self.unsettled = False
        #: The comment the pre-check found already posted with this key (None: not found).
        self.found: Mapping[str, Any] | None = None

    # -- the two stations ------------------------------------------------------------------

    def pre_check(self) -> None:
        """Execution's first step: without server keys and with reconciliation on, look for
        this key's marker before the first POST (found: the call will answer
        already_posted). A key reused for another text, or a check that failed, ends the
        call as not posted: it never risks a duplicate. It reads GitHub, so it runs only
        after authorization and confirmation let the call through."""
        context = self.context
        if not context.reconcile or context.server_keys:
            return
        found = self.read_back("pre_check")
        if isinstance(found, ContractError):
            reused = found.code == "invalid_value"
            why = (
                "make a new key for a new comment"
                if reused
                else "the check for an earlier post failed"
            )
            self.not_posted(found, why)
        self.found = found

    def run(self) -> dict[str, Any]:
        """Execution: the pre-check, then post (again) until a success or a decision to stop."""
        context = self.context
        self.pre_check()
        if self.found is not None:
            return self.result("already_posted", self.found, "found_by_marker")
        while True:
            self.attempt += 1
            self.record("post", f"POST with key {self.key}")
            try:
                posted = context.client.post_issue_comment(
                    self.repository,
                    self.pr,
                    self.body,
                    idempotency_key=self.key if context.server_keys else None,
                )
            except ContractError as exc:
                failed = exc
            else:
                status: WriteStatus = "already_posted" if posted.replayed else "posted"
                evidence = "replayed" if posted.replayed else "created"
                return self.result(status, posted.comment, evidence)
            # decided outside the `except`: a result raised here is not "during" that error
            outcome = self.after_failure(failed)
            if outcome is not None:
                return outcome

    # -- after a failed POST -----------------------------------------------------------------

    def after_failure(self, error: ContractError) -> dict[str, Any] | None:
        """Decide what to do after a failed POST, and do it.

        Returns None for "post again" (the backoff wait has been slept), or the data of an
        already_posted result (a read-back found the comment); raises the ContractError of
        a not_posted or unknown result. The decision is
        :func:`tutorial_lib.core.retry.decide_after_failure`'s; an unknown outcome stays
        unknown until a read-back (or the server's replay) proves otherwise.
        """
        state = self.record_failure(error)
        decision = self.decide(error, state, verified_absent=None)
        if decision.action == "verify_state":
            found = self.read_back("read_back")
            if isinstance(found, ContractError):  # the key was reused, or the read failed
                if found.code == "invalid_value":
                    self.not_posted(found, "make a new key for a new comment")
                self.unknown("the read-back after the failure failed too")
            if found is not None:
                return self.result("already_posted", found, "found_by_marker")
            self.unsettled = False  # verified absent: the lost request did not land
            decision = self.decide(error, state, verified_absent=True)
        if decision.action == "retry_with_backoff":
            if self.wait_before_retry(decision.reason):
                return None
            decision = Decision("stop", "no backoff time left within the policy's bounds")
        if decision.action == "stop_unknown" or self.unsettled:
            self.unknown(decision.reason)
        self.not_posted(error, decision.reason)

    def record_failure(self, error: ContractError) -> OperationState:
        """Note a failed POST (event, Retry-After) and return the state it left: the error's
        own (``"unknown"`` after ``outcome_unknown``: it may have landed)."""
        state = error.operation_state
        if state == "unknown":
            self.unsettled = True
        self.retry_after.append(retry_after_seconds(error))
        self.record(
            "failure",
            f"{error.code} ({state}): {error.message}",
            code=error.code,
            operation_state=state,
        )
        return state

    def decide(
        self, error: ContractError, state: OperationState, *, verified_absent: bool | None
    ) -> Decision:
        """:func:`~tutorial_lib.core.retry.decide_after_failure` for this write, now."""
        return decide_after_failure(
            error.to_dict(state),
            is_write=True,
            attempt=self.attempt,
            policy=self.context.policy,
            same_idempotency_key=self.context.server_keys,
            verified_absent=verified_absent,
            can_verify=self.context.reconcile,
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
        found = len(find_marked(comments, self.key))
        self.record(step, f"{found} comment(s) with the marker among {len(comments)}")
        if check["state"] == "found":
            return next(c for c in comments if c["id"] == check["comment_id"])
        if check["state"] == "key_reused":
            return ContractError(
                "invalid_value",
                "this idempotency key was already used for a different comment",
                field="idempotency_key",
                received=self.key,
            )
        return None

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
                    verified_absent=None,
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
        """The ``data`` of a success: ``posted`` or ``already_posted``, with its evidence."""
        self.record("result", f"{status} ({evidence})")
        return {
            "status": status,
            "evidence": evidence,
            "repository": self.repository,
            "pr": self.pr,
            "comment_id": comment.get("id"),
            "url": comment.get("html_url"),
            "idempotency_key": self.key,
            "attempts": self.attempt,
        }

    def not_posted(self, error: ContractError, reason: str) -> NoReturn:
        """End the call as ``not_posted``: ``error``'s code and fields, ``reason`` as the
        suggestion, ``operation_state: "not_applied"``."""
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
    ) -> None:
        """Append a :class:`WriteEvent` to ``context.events``."""
        event = WriteEvent(step, self.attempt, detail, wait_s, code, operation_state)
        self.context.events.append(event)


def _text(comment: Mapping[str, Any]) -> str:
    return str(comment.get("body") or "").strip()


def retry_after_seconds(error: ContractError) -> float | None:
    """The seconds a failure's ``Retry-After`` header asks for (None: none, or unusable)."""
    value = error.log.get("retry_after")
    return parse_retry_after(value, now=datetime.now(timezone.utc)) if value else None


def write_status(envelope: Mapping[str, Any]) -> WriteStatus:
    """One of ``posted``, ``already_posted``, ``not_posted``, ``unknown`` for any result of
    the ``github_pr_create_comment`` tool (a failure that is not ``unknown`` is
    ``not_posted``)."""
    if envelope.get("ok"):
        status = envelope["data"]["status"]
        if status not in ("posted", "already_posted"):
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
    """Execution of github_pr_get_comment_status: read the comments, look for the marker."""
    repository, pr, key = args["repository"], args["pr"], args["idempotency_key"]
    comments = context.client.list_issue_comments(repository, pr)
    found = find_marked(comments, key)
    data: dict[str, Any] = {"repository": repository, "pr": pr, "idempotency_key": key}
    if found:
        data.update(state="posted", comment_id=found[0]["id"], url=found[0].get("html_url"))
    else:
        data["state"] = "absent"
    data["comments_checked"] = len(comments)
    return data


CREATE_COMMENT_DESCRIPTION = (
    "Post a conversation comment on one pull request, at most once per idempotency_key."
    " Writes to GitHub (visible to everyone on the PR).\n"
    "Make ONE idempotency_key per comment and reuse it unchanged if you call again for the"
    " same comment. Results: ok with data.status 'posted' (created now) or 'already_posted'"
    " (it existed: replayed or found); or an error whose operation_state says what is true:"
    " 'not_applied' (nothing was posted; the code says why) or 'unknown' (it may exist:"
    " call next_tool, github_pr_get_comment_status, before anything else; never post again"
    " with a new key). The posted text ends with an invisible marker line"
    " (<!-- tutorial-lib:idempotency-key=... -->) that lets a later check find it.\n"
    'Example: {"repository": "example/shop", "pr": 128, "body": "Summary: ...",'
    ' "idempotency_key": "review-128-summary-1"}'
)

COMMENT_STATUS_DESCRIPTION = (
    "Check whether the comment written with idempotency_key exists on the pull request:"
    " data.state 'posted' (with comment_id) or 'absent'. Read-only. Use it after"
    " github_pr_create_comment answered operation_state 'unknown'. 'absent' is proof only"
    " when no request with this key can still land."
    ' Example: {"repository": "example/shop", "pr": 128,'
    ' "idempotency_key": "review-128-summary-1"}'
)

#: github_pr_create_comment, declared once: its execution reads back, then posts (see
#: :class:`CommentWrite`); no GitHub request happens before authorization.
CREATE_COMMENT_SPEC = ToolSpec(
    name=CREATE_COMMENT,
    title="Post a comment on a pull request (once per key)",
    description=CREATE_COMMENT_DESCRIPTION,
    input_schema=CREATE_COMMENT_SCHEMA,
    annotations=GITHUB_WRITE,
    execute=_create,
    value_error=_value_error,
)

#: github_pr_get_comment_status, declared once: the status check an unknown write names.
COMMENT_STATUS_SPEC = ToolSpec(
    name=COMMENT_STATUS,
    title="Check whether a keyed comment exists on a pull request",
    description=COMMENT_STATUS_DESCRIPTION,
    input_schema=COMMENT_STATUS_SCHEMA,
    annotations=GITHUB_READ_ONLY,
    execute=_comment_status,
    value_error=_value_error,
)

#: Both write tools, unbound (for linters and exports).
WRITE_SPECS: tuple[ToolSpec, ...] = (CREATE_COMMENT_SPEC, COMMENT_STATUS_SPEC)


def write_tool_specs(context: WriteContext) -> list[ToolSpec]:
    """``github_pr_create_comment`` and ``github_pr_get_comment_status`` bound to
    ``context``: ready for ``Registry(write_tool_specs(context))``."""
    return [spec.bind(context) for spec in WRITE_SPECS]
