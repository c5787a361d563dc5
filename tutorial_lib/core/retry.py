"""The retry policy of chapter 05: what is safe to do after a failure, and when.

Everything here is pure and deterministic: nothing sleeps, nothing reads the clock, nothing
touches the global ``random`` state. Callers (the write tool, a notebook's simulated timeline,
the tests) sleep or simulate the waits themselves.

There is ONE vocabulary for "what next": :data:`tutorial_lib.core.contracts.NextStep`
(``fix_input``, ``search_first``, ``retry_with_backoff``, ``check_authorization``,
``verify_state``, ``stop_unknown``, ``stop``). Two steps use it:

1. :func:`tutorial_lib.core.contracts.next_step` reads a contract error (``code``, ``retry``,
   ``operation_state``) and names the step the error alone calls for;
2. :func:`decide_after_failure` refines that step with what the caller knows (is it a write?
   are attempts left? is the same idempotency key reused? did a read-back find the write?)
   into a :class:`Decision`, whose ``action`` is a ``NextStep`` too.

:func:`backoff_schedule` then gives the waits before each retry: full jitter
``uniform(0, min(cap, base * 2**attempt))`` from a seeded ``random.Random``, honouring
``Retry-After`` (parsed by :func:`parse_retry_after`), bounded in count and in total.

The decision table (``attempts left`` means ``attempt < policy.max_attempts``; a write's
outcome is *unknown* when this failure's ``operation_state`` is ``"unknown"``, or when an
earlier attempt of the same call ended that way, ``earlier_unknown``: a later refusal does
not undo a request that may have landed):

=======================  =====  ======================================  ========================
``next_step(error)``     call   condition                               ``Decision.action``
=======================  =====  ======================================  ========================
``fix_input``            any    --                                      ``fix_input``
``search_first``         any    --                                      ``search_first``
``check_authorization``  any    --                                      ``check_authorization``
``stop``                 any    an earlier unknown attempt not found    ``stop_unknown``
                                by a read-back / otherwise              / ``stop``
``retry_with_backoff``   read   attempts left / exhausted (a read       ``retry_with_backoff`` /
or ``verify_state``             changes nothing: repeating it is        ``stop``
                                always harmless)
``retry_with_backoff``   write  provably not processed               ``retry_with_backoff`` /
                                (``operation_state == "not_applied"``,  ``stop``
                                e.g. refused, 429, 409) and no earlier
                                unknown: attempts left / exhausted
any other                write  outcome unknown, read-back found it     ``stop`` (it is done:
                                (``read_back="found"``)                 report it, never resend)
any other                write  outcome unknown, not read back yet,     ``verify_state`` (the
                                reading back possible                   marker check comes first,
                                                                        keys or not)
any other                write  outcome unknown, read back found        ``retry_with_backoff`` /
                                ``"nothing"`` (or reading back is       ``stop_unknown``
                                impossible), and the server has SHOWN
                                it honours the same key: attempts left
                                / exhausted
any other                write  outcome unknown, read back found        ``stop_unknown``
                                nothing (or cannot read back), no
                                proven key
=======================  =====  ======================================  ========================

``stop_unknown`` means: report the result as unknown (with the exact status check) and stop
resending.

The rule behind the write rows: **resend only when the service reliably confirms that the
write did not happen, or when a repeat is guaranteed to produce one record.** A refused
connection, a 429 or a 409 confirm the first (for that request; not for an earlier one
whose outcome is unknown). A key the server has *shown* it honours guarantees the second.
A read-back that finds nothing guarantees neither: the lost request may still be in flight
and land a moment later (the ``slow_commit`` fault of :mod:`tutorial_lib.emulator.faults`),
so "found nothing" after an unknown outcome is ``stop_unknown``, never a licence to resend.

Two more lessons the table encodes:

- *Invalid argument, permission, unknown outcome* each allow something different: fix the
  input; check the authorization (other arguments will not help); find out what happened
  before anything else. Only a *transient* failure of a call that provably did nothing, or of
  a read, may simply be retried (Google AIP-194: retry UNAVAILABLE, never DEADLINE_EXCEEDED or
  INVALID_ARGUMENT; gRPC: retry a non-idempotent call only when the server provably did not
  process it).
- *Idempotent is not "always succeeds"*: resending with the same key is safe (no second
  comment), but the answer may be the replayed original error, a 409 while the first request
  is still in flight, or a 422 if the payload changed; each answer is decided again. Keys
  are kept for a stated window (Stripe: at least 24 h), far longer than
  ``total_backoff_cap_s``.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Literal

from tutorial_lib.core.contracts import NextStep, next_step

__all__ = [
    "Decision",
    "RetryPolicy",
    "ReadBack",
    "backoff_schedule",
    "decide_after_failure",
    "parse_retry_after",
]

#: What a read-back after an unknown outcome saw: the write (``"found"``), no trace of it
#: (``"nothing"``: NOT proof of absence, the request may still land), or no read yet (None).
ReadBack = Literal["found", "nothing"] | None

#: Upper bound on ``RetryPolicy.max_attempts`` (gRPC treats more than 5 as 5).
MAX_ATTEMPTS_LIMIT = 10


_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]+)?", re.ASCII)


def parse_retry_after(value: str | None, *, now: datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` header value, or None if absent or unusable.

    Accepts delay-seconds (``"120"``; a decimal such as ``"1.5"`` is tolerated) and an HTTP
    date (RFC 9110 IMF-fixdate, ``"Wed, 21 Oct 2015 07:28:00 GMT"``), measured from ``now``
    (timezone-aware) and clamped at 0 for a date in the past. Negative numbers, exponents and
    other garbage give None.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be timezone-aware (e.g. datetime.now(timezone.utc))")
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if _SECONDS.fullmatch(text):
        seconds = float(text)
        return seconds if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:  # pragma: no cover - older Pythons returned None for garbage
        return None
    if when.tzinfo is None:  # "-0000": UTC with no claim about local time
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - now).total_seconds())


def _finite(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds on retrying: full-jitter base and cap, attempt count, and total time waited.

    - ``base_s``: the first wait's ceiling (seconds, > 0);
    - ``cap_s``: no single wait is longer (seconds, >= ``base_s``);
    - ``max_attempts``: calls in all, the first included (1..10), so at most
      ``max_attempts - 1`` waits;
    - ``total_backoff_cap_s``: the sum of all waits never exceeds this (seconds, >= 0).
    """

    base_s: float = 0.5
    cap_s: float = 8.0
    max_attempts: int = 5
    total_backoff_cap_s: float = 20.0

    def __post_init__(self) -> None:
        _finite("base_s", self.base_s)
        _finite("cap_s", self.cap_s)
        _finite("total_backoff_cap_s", self.total_backoff_cap_s)
        if self.base_s <= 0:
            raise ValueError(f"base_s must be > 0, got {self.base_s!r}")
        if self.cap_s < self.base_s:
            raise ValueError(f"cap_s ({self.cap_s!r}) must be >= base_s ({self.base_s!r})")
        if self.total_backoff_cap_s < 0:
            raise ValueError(f"total_backoff_cap_s must be >= 0, got {self.total_backoff_cap_s!r}")
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int):
            raise ValueError(f"max_attempts must be an int, got {self.max_attempts!r}")
        if not 1 <= self.max_attempts <= MAX_ATTEMPTS_LIMIT:
            raise ValueError(
                f"max_attempts must be between 1 and {MAX_ATTEMPTS_LIMIT}, got {self.max_attempts}"
            )


def backoff_schedule(
    policy: RetryPolicy, seed: int, *, retry_after_s: Sequence[float | None] = ()
) -> list[float]:
    """The waits (seconds) before retries 1, 2, ...: deterministic for a given seed.

    Wait ``i`` (0-based, before call ``i + 2``) is full jitter
    ``uniform(0, min(cap_s, base_s * 2**i))`` drawn from ``random.Random(seed)``. One number is
    drawn per wait whatever ``retry_after_s`` says, so the jitter of later waits does not
    depend on earlier Retry-After values.

    ``retry_after_s[i]``, when given and not None, is the server's ``Retry-After`` for the
    failure before wait ``i``. It is an instruction, so a wait is never shorter than asked:
    the wait becomes ``max(jitter, retry_after)``. If that is more than ``cap_s``, or would take
    the total past ``total_backoff_cap_s``, the schedule stops there (give up rather than come
    back early). The same holds for a jittered wait that would pass the total cap.

    So: at most ``max_attempts - 1`` waits, each in ``[0, cap_s]``, summing to at most
    ``total_backoff_cap_s``. A caller that runs out of waits stops retrying.
    """
    for value in retry_after_s:
        if value is not None:
            _finite("a Retry-After value", value)
            if value < 0:
                raise ValueError(f"a Retry-After value must be >= 0, got {value!r}")
    rng = random.Random(seed)
    waits: list[float] = []
    total = 0.0
    for i in range(policy.max_attempts - 1):
        ceiling = min(policy.cap_s, policy.base_s * 2.0 ** min(i, 1023))
        wait = rng.uniform(0.0, ceiling)
        asked = retry_after_s[i] if i < len(retry_after_s) else None
        if asked is not None:
            if asked > policy.cap_s:
                break
            wait = max(wait, float(asked))
        if total + wait > policy.total_backoff_cap_s:
            break
        waits.append(wait)
        total += wait
    return waits


@dataclass(frozen=True)
class Decision:
    """What to do after a failure, and why (the reason is meant for people and the model).

    ``action`` is one of :data:`tutorial_lib.core.contracts.NextStep`.
    """

    action: NextStep
    reason: str


def decide_after_failure(
    error: Mapping[str, Any],
    *,
    is_write: bool,
    attempt: int,
    policy: RetryPolicy,
    same_idempotency_key: bool,
    read_back: ReadBack = None,
    can_verify: bool = True,
    earlier_unknown: bool = False,
) -> Decision:
    """The next step after a failed call; see the decision table in the module docstring.

    ``error`` is a contract error (a whole failure envelope is accepted too); what it calls
    for is :func:`tutorial_lib.core.contracts.next_step`, which raises ValueError for
    anything it cannot decide from (an unknown code without advice, a success...).

    - ``attempt``: calls made so far, the failed one included (1 after the first failure);
      a retry needs ``attempt < policy.max_attempts`` (and a wait left in
      :func:`backoff_schedule`, which the caller checks);
    - ``same_idempotency_key``: the retry resends the same business request with the same
      key to a server that has SHOWN it honours keys (a replay, a 409 or a 422 about the
      key), so a duplicate is impossible; a key the server has never acknowledged does not
      count (a server that ignores the header would write twice);
    - ``read_back``: what a read-back after the unknown outcome saw (:data:`ReadBack`);
    - ``can_verify``: whether a read-back is possible at all (False e.g. when reconciliation
      is disabled); only matters while ``read_back`` is None;
    - ``earlier_unknown``: an earlier attempt of this call ended with an unknown outcome
      that nothing has settled since; then this failure's outcome is unknown too.
    """
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        raise ValueError(f"attempt counts calls made so far and must be >= 1, got {attempt!r}")
    if read_back not in ("found", "nothing", None):
        raise ValueError(f"read_back must be 'found', 'nothing' or None, got {read_back!r}")
    step = next_step(error)
    left = attempt < policy.max_attempts
    exhausted = f"{attempt} of {policy.max_attempts} attempts used"
    state = _error_of(error).get("operation_state")

    if step == "fix_input":
        return Decision("fix_input", "the input was refused: correct it, then call again")
    if step == "search_first":
        return Decision("search_first", "the target does not exist: search for it first")
    if step == "check_authorization":
        return Decision(
            "check_authorization",
            "access was refused: ask for permission; retrying will not help",
        )
    if step not in ("retry_with_backoff", "verify_state"):  # "stop": nothing can help
        if is_write and earlier_unknown and read_back != "found":
            return Decision(
                "stop_unknown",
                "retrying cannot help, and an earlier attempt may have landed: report the"
                " result as unknown",
            )
        return Decision("stop", "retrying cannot help: report the failure and stop")

    if not is_write:
        if left:
            return Decision(
                "retry_with_backoff", "a read changes nothing: retry after the backoff wait"
            )
        return Decision("stop", f"a read kept failing ({exhausted}): report the failure")

    if step == "retry_with_backoff" and state == "not_applied" and not earlier_unknown:
        if left:
            return Decision(
                "retry_with_backoff",
                "the write provably did not happen: retry after the backoff wait",
            )
        return Decision("stop", f"the write did not happen ({exhausted}): report not posted")

    # The outcome is unknown: this request, or an earlier one, may have landed.
    if read_back == "found":
        return Decision("stop", "the read-back found the write: it is done, never resend it")
    if read_back is None and can_verify:
        return Decision(
            "verify_state", "outcome unknown: read back (look for the marker) before anything"
        )
    if same_idempotency_key:
        if left:
            return Decision(
                "retry_with_backoff",
                "outcome unknown, but the server has shown it honours the key: a resend"
                " with the same key is replayed or refused, never written twice",
            )
        return Decision(
            "stop_unknown", f"outcome unknown ({exhausted}): report the result as unknown"
        )
    if read_back == "nothing":
        return Decision(
            "stop_unknown",
            "outcome unknown and the read-back found nothing: that is no proof (the request"
            " may still land), so report unknown and stop resending",
        )
    return Decision(
        "stop_unknown",
        "outcome unknown and it cannot be verified: report the result as unknown and stop"
        " resending",
    )


def _error_of(error: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``error`` object, whether given alone or inside a failure envelope (already
    checked by :func:`~tutorial_lib.core.contracts.next_step`)."""
    inner = error.get("error") if "ok" in error else error
    return inner if isinstance(inner, Mapping) else {}
