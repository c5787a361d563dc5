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

The decision table (``attempts left`` means ``attempt < policy.max_attempts``):

=======================  =====  ======================================  ========================
``next_step(error)``     call   condition                               ``Decision.action``
=======================  =====  ======================================  ========================
``fix_input``            any    --                                      ``fix_input``
``search_first``         any    --                                      ``search_first``
``check_authorization``  any    --                                      ``check_authorization``
``stop``                 any    --                                      ``stop``
``retry_with_backoff``   read   attempts left / exhausted               ``retry_with_backoff`` /
                                                                        ``stop``
``verify_state``         read   attempts left / exhausted (a read       ``retry_with_backoff`` /
                                changes nothing: repeating it is        ``stop``
                                always harmless)
``retry_with_backoff``   write  ``operation_state == "not_applied"``    ``retry_with_backoff`` /
                                (provably not processed, e.g.           ``stop``
                                connection refused, 429): attempts
                                left / exhausted
``verify_state``         write  read-back found the write               ``stop`` (it is done:
                                (``verified_absent=False``)             report it, never resend)
``verify_state``         write  read-back found nothing                 ``retry_with_backoff`` /
                                (``verified_absent=True``): attempts    ``stop``
                                left / exhausted
``verify_state``         write  not verified, same idempotency key:     ``retry_with_backoff`` /
                                the server deduplicates; attempts       ``stop_unknown``
                                left / exhausted
``verify_state``         write  not verified, no key, verification      ``verify_state``
                                possible
``verify_state``         write  not verified, no key, verification      ``stop_unknown``
                                impossible
=======================  =====  ======================================  ========================

A write that failed with ``retry_with_backoff`` but without
``operation_state == "not_applied"`` is not provably unprocessed, so it is handled like
``verify_state`` (the rows below it). ``stop_unknown`` means: report the result as unknown and
stop resending.

Two lessons the table encodes:

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

After a verified-absent read-back without a key, resending is the reconciliation step of real
GitHub (which has no idempotency keys). It is only as good as the read-back: "absent" proves
something only if the lost request can no longer land. A client that timed out does not know
that; a slow server may still commit later (the ``slow_commit`` fault of
:mod:`tutorial_lib.emulator.faults`), and then the resend makes a duplicate. Only server-side keys
close that hole (a resend while the first request runs gets 409).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from tutorial_lib.core.contracts import NextStep, next_step

__all__ = [
    "Decision",
    "RetryPolicy",
    "backoff_schedule",
    "decide_after_failure",
    "parse_retry_after",
]

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
    verified_absent: bool | None,
    can_verify: bool = True,
) -> Decision:
    """The next step after a failed call; see the decision table in the module docstring.

    ``error`` is a contract error (a whole failure envelope is accepted too); what it calls
    for is :func:`tutorial_lib.core.contracts.next_step`, which raises ValueError for
    anything it cannot decide from (an unknown code without advice, a success...).

    - ``attempt``: calls made so far, the failed one included (1 after the first failure);
      a retry needs ``attempt < policy.max_attempts`` (and a wait left in
      :func:`backoff_schedule`, which the caller checks);
    - ``same_idempotency_key``: the retry would resend the same business request with the
      same key to a server that honours keys (so a duplicate is impossible);
    - ``verified_absent``: the result of a read-back after an unknown outcome: True (the write
      is not there), False (it is there), None (not verified);
    - ``can_verify``: whether a read-back is possible at all (False e.g. when reconciliation
      is disabled); only matters while ``verified_absent`` is None.
    """
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        raise ValueError(f"attempt counts calls made so far and must be >= 1, got {attempt!r}")
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
        return Decision("stop", "retrying cannot help: report the failure and stop")

    if not is_write:
        if left:
            return Decision(
                "retry_with_backoff", "a read changes nothing: retry after the backoff wait"
            )
        return Decision("stop", f"a read kept failing ({exhausted}): report the failure")

    if step == "retry_with_backoff" and state == "not_applied":
        if left:
            return Decision(
                "retry_with_backoff",
                "the write provably did not happen: retry after the backoff wait",
            )
        return Decision("stop", f"the write did not happen ({exhausted}): report not posted")

    # A write whose outcome is unknown (or not provably "not applied").
    if verified_absent is False:
        return Decision("stop", "the read-back found the write: it is done, never resend it")
    if verified_absent is True:
        if left:
            how = "the server deduplicates the key" if same_idempotency_key else "read back"
            return Decision(
                "retry_with_backoff", f"verified absent ({how}): resending posts it once"
            )
        return Decision("stop", f"verified absent ({exhausted}): report not posted")
    if same_idempotency_key:
        if left:
            return Decision(
                "retry_with_backoff",
                "outcome unknown, but the same idempotency key makes a resend safe: the server"
                " replays the first result instead of writing twice",
            )
        return Decision(
            "stop_unknown", f"outcome unknown ({exhausted}): report the result as unknown"
        )
    if can_verify:
        return Decision(
            "verify_state", "outcome unknown and no idempotency key: read back before resending"
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
