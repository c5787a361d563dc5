"""The safe write of chapter 05: post a PR comment at most once, and say what is true.

``github_pr_create_comment`` posts a conversation comment on a pull request. A write can
fail in three places (the connection fails; it fails mid-way; it succeeds and the answer is
lost), and only the first one proves that nothing happened. So the tool never simply
"retries on error": each failure is classified (:mod:`tutorial_lib.core.retry`), and what
happens next depends on what is *known*:

==========================================  ===============================================
after the failure                           the tool
==========================================  ===============================================
invalid input / no permission               stops: ``not_posted`` (fix input / ask access)
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
landed. Without server keys and with reconciliation on, the tool also checks the marker
*before* its first attempt, so calling the tool again with the same key never posts twice.

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
pass a recorder), and every step is appended to ``WriteContext.events``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

import jsonschema

from tutorial_lib.core.arguments import ArgumentContract
from tutorial_lib.core.contracts import ContractError, failure, success
from tutorial_lib.core.retry import (
    Decision,
    RetryPolicy,
    backoff_schedule,
    decide_after_failure,
    parse_retry_after,
)
from tutorial_lib.core.tools import Annotations, ToolSpec, bound_handler
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.reads import PR_PROPERTY, REPOSITORY_PROPERTY, pr_argument_error

__all__ = [
    "CREATE_COMMENT_SCHEMA",
    "COMMENT_STATUS_SCHEMA",
    "GITHUB_WRITE",
    "KEY_PATTERN",
    "MAX_BODY_CHARS",
    "READ_BACK_POLICY",
    "WRITE_POLICY",
    "WriteContext",
    "WriteEvent",
    "find_marked",
    "github_pr_get_comment_status",
    "github_pr_create_comment",
    "marker",
    "reconcile",
    "with_marker",
    "write_status",
    "write_tool_specs",
]

#: A key the tool accepts: 8 to 128 of ``A-Z a-z 0-9 _ -`` (a uuid4 hex has 32).
KEY_PATTERN = r"^[A-Za-z0-9_-]{8,128}$"
#: GitHub refuses bodies over 65,536 characters; the marker needs room too.
MAX_BODY_CHARS = 60_000
#: Writes retry less than reads: 4 attempts in all, waits capped at 4 s and 10 s in total.
WRITE_POLICY = RetryPolicy(base_s=0.5, cap_s=4.0, max_attempts=4, total_backoff_cap_s=10.0)

#: Read-backs are reads: retried on temporary failures, 3 reads at most, within the write's
#: total backoff budget.
READ_BACK_POLICY = RetryPolicy(base_s=0.25, cap_s=2.0, max_attempts=3, total_backoff_cap_s=4.0)

#: Creates something (not read-only), never destroys, idempotent with the same key.
GITHUB_WRITE = Annotations(read_only=False, destructive=False, idempotent=True, open_world=True)

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

    ``step``: ``pre_check``, ``post``, ``failure``, ``read_back``, ``wait``, ``result``.
    ``attempt``: POSTs made so far. ``wait_s``: the backoff slept (``wait`` only).
    """

    step: str
    attempt: int
    detail: str
    wait_s: float = 0.0


@dataclass
class WriteContext:
    """What the write tools need, and how the write behaves.

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
    "pattern": KEY_PATTERN,
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


def _value_error(name: str, value: Any, error: jsonschema.ValidationError) -> ContractError:
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
            expected=KEY_PATTERN,
            suggestion="make one key per comment (e.g. a uuid4 hex) and reuse it for retries",
        )
    return pr_argument_error(name, value, error)


_CREATE = ArgumentContract("github_pr_create_comment", CREATE_COMMENT_SCHEMA, _value_error)
_STATUS = ArgumentContract("github_pr_get_comment_status", COMMENT_STATUS_SCHEMA, _value_error)


# --------------------------------------------------------------------------- the tools


def github_pr_get_comment_status(context: WriteContext, args: Any) -> dict[str, Any]:
    """Whether the comment of ``idempotency_key`` exists on the PR (read-only).

    ``data.state`` is ``"posted"`` (with ``comment_id`` and ``url``) or ``"absent"``.
    "absent" is proof only when no request with this key can still land.
    """
    tool = "github_pr_get_comment_status"
    try:
        error = _STATUS.validate(args)
        if error is not None:
            raise error
        repository, pr, key = args["repository"], args["pr"], args["idempotency_key"]
        comments = context.client.list_issue_comments(repository, pr)
        found = find_marked(comments, key)
        data: dict[str, Any] = {"repository": repository, "pr": pr, "idempotency_key": key}
        if found:
            data.update(state="posted", comment_id=found[0]["id"], url=found[0].get("html_url"))
        else:
            data["state"] = "absent"
        data["comments_checked"] = len(comments)
        return success(tool, data)
    except ContractError as exc:
        return failure(tool, exc)


def github_pr_create_comment(context: WriteContext, args: Any) -> dict[str, Any]:
    """Post a comment on a PR at most once per ``idempotency_key``; see the module doc."""
    error = _CREATE.validate(args)
    if error is not None:
        return failure("github_pr_create_comment", error)
    return _Write(context, args).run()


class _Write:
    """One call of ``github_pr_create_comment``: attempts, decisions, read-backs, waits."""

    tool = "github_pr_create_comment"

    def __init__(self, context: WriteContext, args: Mapping[str, Any]) -> None:
        self.context = context
        self.repository: str = args["repository"]
        self.pr: int = args["pr"]
        self.key: str = args["idempotency_key"]
        self.text: str = args["body"]
        self.body = with_marker(self.text, self.key)
        digest = hashlib.sha256(self.key.encode()).digest()
        self.seed = context.seed if context.seed is not None else int.from_bytes(digest[:8])
        self.attempt = 0
        self.retry_after: list[float | None] = []
        self.waited = 0  # backoff waits taken between POSTs
        self.slept = 0.0  # every wait of this call, read-back retries included
        # True while an earlier attempt may have landed and nothing has proved otherwise.
        self.unsettled = False

    # -- the road ------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        context = self.context
        if context.reconcile and not context.server_keys:
            found = self._read_back("pre_check")
            if isinstance(found, dict):
                return self._done("already_posted", found, "found_by_marker")
            if isinstance(found, ContractError):  # key reused, or cannot check: do not risk it
                why = (
                    "make a new key for a new comment"
                    if found.code == "invalid_value"
                    else ("the check for an earlier post failed")
                )
                return self._not_posted(found, why)
        while True:
            self.attempt += 1
            self._event("post", f"POST with key {self.key}")
            try:
                posted = context.client.post_issue_comment(
                    self.repository,
                    self.pr,
                    self.body,
                    idempotency_key=self.key if context.server_keys else None,
                )
            except ContractError as exc:
                outcome = self._after_failure(exc)
                if outcome is not None:
                    return outcome
                continue
            status = "already_posted" if posted.replayed else "posted"
            return self._done(status, posted.comment, "replayed" if posted.replayed else "created")

    def _after_failure(self, exc: ContractError) -> dict[str, Any] | None:
        """Decide after a failed POST: None means "resend now" (after the wait)."""
        context = self.context
        state = "unknown" if exc.code == "outcome_unknown" else "not_applied"
        if state == "unknown":
            self.unsettled = True
        self.retry_after.append(_retry_after_seconds(exc))
        self._event("failure", f"{exc.code} ({state}): {exc.message}")
        decision = self._decide(exc, state, verified_absent=None)
        if decision.action == "verify_state":
            found = self._read_back("read_back")
            if isinstance(found, dict):
                return self._done("already_posted", found, "found_by_marker")
            if isinstance(found, ContractError) and found.code == "invalid_value":
                return self._not_posted(found, "make a new key for a new comment")
            if isinstance(found, ContractError):
                return self._unknown("the read-back after the failure failed too")
            self.unsettled = False  # verified absent: the lost request did not land
            decision = self._decide(exc, state, verified_absent=True)
        if decision.action == "retry":
            waits = backoff_schedule(context.policy, self.seed, retry_after_s=self.retry_after)
            if self.waited < len(waits) and waits[self.waited] <= self._budget_left():
                wait = waits[self.waited]
                self.waited += 1
                self._sleep(wait, decision.reason)
                return None
            decision = Decision("stop", "no backoff time left within the policy's bounds")
        if decision.action == "stop_unknown" or self.unsettled:
            return self._unknown(decision.reason)
        return self._not_posted(exc, decision.reason)

    def _decide(self, exc: ContractError, state: str, verified_absent: bool | None) -> Decision:
        return decide_after_failure(
            exc.to_dict(state),  # type: ignore[arg-type]
            is_write=True,
            attempt=self.attempt,
            policy=self.context.policy,
            same_idempotency_key=self.context.server_keys,
            verified_absent=verified_absent,
            can_verify=self.context.reconcile,
        )

    def _read_back(self, step: str) -> dict[str, Any] | ContractError | None:
        """Read the PR's comments back and look for this key's marker.

        The comment with the marker AND this body (the content is checked too, not just
        the key); None if no comment has the marker; a ContractError if the read failed, or
        (``invalid_value``) if the marker is there on a different text: the key was used
        for another comment.
        """
        comments = self._read_comments(step)
        if isinstance(comments, ContractError):
            return comments
        check = reconcile(comments, self.key, self.text)
        found = len(find_marked(comments, self.key))
        self._event(step, f"{found} comment(s) with the marker among {len(comments)}")
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

    def _read_comments(self, step: str) -> list[dict[str, Any]] | ContractError:
        """The PR's comments; a read changes nothing, so a failed one is retried within
        :data:`READ_BACK_POLICY` and the call's remaining backoff budget."""
        retry_after: list[float | None] = []
        attempt = 0
        while True:
            attempt += 1
            try:
                return self.context.client.list_issue_comments(self.repository, self.pr)
            except ContractError as exc:
                self._event(step, f"read-back failed: {exc.code}")
                retry_after.append(_retry_after_seconds(exc))
                decision = decide_after_failure(
                    exc.to_dict(),
                    is_write=False,
                    attempt=attempt,
                    policy=READ_BACK_POLICY,
                    same_idempotency_key=False,
                    verified_absent=None,
                )
                if decision.action != "retry":
                    return exc
                waits = backoff_schedule(READ_BACK_POLICY, self.seed, retry_after_s=retry_after)
                if attempt > len(waits) or waits[attempt - 1] > self._budget_left():
                    return exc
                self._sleep(waits[attempt - 1], decision.reason)

    def _sleep(self, seconds: float, reason: str) -> None:
        self._event("wait", reason, seconds)
        self.context.sleep(seconds)
        self.slept += seconds

    def _budget_left(self) -> float:
        return self.context.policy.total_backoff_cap_s - self.slept

    # -- results -------------------------------------------------------------------------

    def _done(self, status: WriteStatus, comment: Mapping[str, Any], evidence: str) -> dict:
        self._event("result", f"{status} ({evidence})")
        return success(
            self.tool,
            {
                "status": status,
                "evidence": evidence,
                "repository": self.repository,
                "pr": self.pr,
                "comment_id": comment.get("id"),
                "url": comment.get("html_url"),
                "idempotency_key": self.key,
                "attempts": self.attempt,
            },
        )

    def _not_posted(self, exc: ContractError, reason: str) -> dict[str, Any]:
        self._event("result", f"not_posted: {reason}")
        fields = {k: v for k, v in exc.fields.items() if k != "suggestion"}
        error = ContractError(
            exc.code,
            f"not posted ({self.attempt} attempt(s)): {exc.message}",
            log=exc.log,
            suggestion=reason,
            **fields,
        )
        return failure(self.tool, error, "not_applied")

    def _unknown(self, reason: str) -> dict[str, Any]:
        self._event("result", f"unknown: {reason}")
        check = {"repository": self.repository, "pr": self.pr, "idempotency_key": self.key}
        error = ContractError(
            "outcome_unknown",
            f"result unknown after {self.attempt} attempt(s): the comment may or may not"
            " exist, and this tool stopped resending",
            retry="after_status_check",
            next_tool={"name": "github_pr_get_comment_status", "arguments": check},
            suggestion="call github_pr_get_comment_status with the SAME idempotency_key before"
            " anything else; post again only with that same key, never with a new one",
        )
        return failure(self.tool, error, "unknown")

    def _event(self, step: str, detail: str, wait_s: float = 0.0) -> None:
        self.context.events.append(WriteEvent(step, self.attempt, detail, wait_s))


def _text(comment: Mapping[str, Any]) -> str:
    return str(comment.get("body") or "").strip()


def _retry_after_seconds(exc: ContractError) -> float | None:
    value = exc.log.get("retry_after")
    return parse_retry_after(value, now=datetime.now(timezone.utc)) if value else None


def write_status(envelope: Mapping[str, Any]) -> WriteStatus:
    """One of ``posted``, ``already_posted``, ``not_posted``, ``unknown`` for any result of
    :func:`github_pr_create_comment` (a failure that is not ``unknown`` is ``not_posted``)."""
    if envelope.get("ok"):
        status = envelope["data"]["status"]
        if status not in ("posted", "already_posted"):
            raise ValueError(f"not a write result: status {status!r}")
        return status  # type: ignore[no-any-return]
    state = envelope["error"]["operation_state"]
    if state == "unknown":
        return "unknown"
    if state == "not_applied":
        return "not_posted"
    raise ValueError(f"a failed write with operation_state {state!r}")


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


def write_tool_specs(context: WriteContext) -> list[ToolSpec]:
    """``github_pr_create_comment`` and ``github_pr_get_comment_status`` bound to ``context``."""

    return [
        ToolSpec(
            name="github_pr_create_comment",
            title="Post a comment on a pull request (once per key)",
            description=CREATE_COMMENT_DESCRIPTION,
            input_schema=CREATE_COMMENT_SCHEMA,
            annotations=GITHUB_WRITE,
            handler=bound_handler(github_pr_create_comment, context),
        ),
        ToolSpec(
            name="github_pr_get_comment_status",
            title="Check whether a keyed comment exists on a pull request",
            description="Check whether the comment written with idempotency_key exists on"
            " the pull request: data.state 'posted' (with comment_id) or 'absent'. Read-only."
            " Use it after github_pr_create_comment answered operation_state 'unknown'."
            ' Example: {"repository": "example/shop", "pr": 128,'
            ' "idempotency_key": "review-128-summary-1"}',
            input_schema=COMMENT_STATUS_SCHEMA,
            annotations=Annotations(
                read_only=True, destructive=False, idempotent=True, open_world=True
            ),
            handler=bound_handler(github_pr_get_comment_status, context),
        ),
    ]
