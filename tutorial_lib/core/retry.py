"""The retry policy of chapter 05: classify a failure, then decide what is safe to do next.

Everything here is pure and deterministic: nothing sleeps, nothing reads the clock, nothing
touches the global ``random`` state. Callers (the write tool, a notebook's simulated timeline,
the tests) sleep or simulate the waits themselves.

Three steps:

1. :func:`classify` turns a contract error (``code``, ``retry``, ``operation_state``; see
   :mod:`tutorial_lib.core.contracts`) into one of five kinds: ``invalid_input``, ``permission``,
   ``temporary``, ``unknown_outcome``, ``final``.
2. :func:`decide_after_failure` turns the kind, plus what the caller knows (is it a write? is
   the same idempotency key reused? did a read-back find the write?), into a :class:`Decision`.
3. :func:`backoff_schedule` gives the waits before each retry: full jitter
   ``uniform(0, min(cap, base * 2**attempt))`` from a seeded ``random.Random``, honouring
   ``Retry-After`` (parsed by :func:`parse_retry_after`), bounded in count and in total.

The decision table (``attempts left`` means ``attempt < policy.max_attempts``):

=================  =====  ==============================================  ==================
kind               call   condition                                       action
=================  =====  ==============================================  ==================
invalid_input      any    --                                              ``fix_input``
permission         any    --                                              ``ask_authorization``
final              any    --                                              ``stop``
temporary          read   attempts left / exhausted                       ``retry`` / ``stop``
unknown_outcome    read   attempts left / exhausted (a read changes        ``retry`` / ``stop``
                          nothing, so repeating it is always harmless)
temporary          write  ``operation_state == "not_applied"`` (provably  ``retry`` / ``stop``
                          not processed, e.g. connection refused, 503
                          before commit): attempts left / exhausted
unknown_outcome    write  read-back found the write                       ``stop`` (it is done:
                          (``verified_absent=False``)                     report it, never resend)
unknown_outcome    write  read-back found nothing                         ``retry`` / ``stop``
                          (``verified_absent=True``): left / exhausted
unknown_outcome    write  not verified, same idempotency key: the         ``retry`` /
                          server deduplicates; left / exhausted           ``stop_unknown``
unknown_outcome    write  not verified, no key, verification possible     ``verify_state``
unknown_outcome    write  not verified, no key, verification impossible   ``stop_unknown``
=================  =====  ==============================================  ==================

A write that failed as ``temporary`` but without ``operation_state == "not_applied"`` is not
provably unprocessed, so it is handled as ``unknown_outcome``. ``stop_unknown`` means: report
the result as unknown and stop resending.

Two lessons the table encodes:

- *Invalid argument, permission, unknown outcome* each allow something different: fix the
  input; ask for access (other arguments will not help); find out what happened before
  anything else. Only a *temporary* failure of a call that provably did nothing, or of a read,
  may simply be retried (Google AIP-194: retry UNAVAILABLE, never DEADLINE_EXCEEDED or
  INVALID_ARGUMENT; gRPC: retry a non-idempotent call only when the server provably did not
  process it).
- *Idempotent is not "always succeeds"*: resending with the same key is safe (no second
  comment), but the answer may be the replayed original error, a 409 while the first request
  is still in flight, or a 422 if the payload changed; each answer is classified again. Keys
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
from typing import Any, Literal

from tutorial_lib.core.contracts import CATALOGUE

__all__ = [
    "Action",
    "Decision",
    "FailureKind",
    "RetryPolicy",
    "backoff_schedule",
    "classify",
    "decide_after_failure",
    "parse_retry_after",
]

FailureKind = Literal["invalid_input", "permission", "temporary", "unknown_outcome", "final"]
Action = Literal["fix_input", "ask_authorization", "retry", "verify_state", "stop_unknown", "stop"]

_KIND_OF_RETRY: dict[str, FailureKind] = {
    "with_backoff": "temporary",
    "after_authorization": "permission",
    "after_input_correction": "invalid_input",
    "after_status_check": "unknown_outcome",
    "never": "final",
}

#: Upper bound on ``RetryPolicy.max_attempts`` (gRPC treats more than 5 as 5).
MAX_ATTEMPTS_LIMIT = 10


def _error_of(error: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``error`` object, whether given alone or inside a failure envelope."""
    if "ok" in error:
        if error["ok"] is not False:
            raise ValueError("a success envelope is not a failure: nothing to classify")
        error = error.get("error")  # type: ignore[assignment]
    if not isinstance(error, Mapping):
        raise ValueError(f"not a contract error: {error!r}")
    return error


def classify(error: Mapping[str, Any]) -> FailureKind:
    """The kind of a failure, from a contract error (a whole failure envelope is accepted).

    ``operation_state == "unknown"`` always wins (``unknown_outcome``): the call may have taken
    effect whatever its code says. Otherwise the ``retry`` advice decides, falling back to the
    code's default in :data:`tutorial_lib.core.contracts.CATALOGUE`:
    ``with_backoff`` -> temporary, ``after_authorization`` -> permission,
    ``after_input_correction`` -> invalid_input, ``after_status_check`` -> unknown_outcome,
    ``never`` -> final.

    Raises ValueError when the error gives no way to decide (unknown code without advice,
    unknown advice, not an error at all).
    """
    error = _error_of(error)
    if error.get("operation_state") == "unknown":
        return "unknown_outcome"
    retry = error.get("retry")
    if retry is None:
        code = error.get("code")
        if not isinstance(code, str) or code not in CATALOGUE:
            raise ValueError(f"unknown code {code!r} and no retry advice: cannot classify")
        retry = CATALOGUE[code].retry
    if retry not in _KIND_OF_RETRY:
        raise ValueError(f"unknown retry advice {retry!r}")
    return _KIND_OF_RETRY[retry]


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
    """What to do after a failure, and why (the reason is meant for people and the model)."""

    action: Action
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
    kind = classify(error)
    left = attempt < policy.max_attempts
    exhausted = f"{attempt} of {policy.max_attempts} attempts used"
    state = _error_of(error).get("operation_state")

    if kind == "invalid_input":
        return Decision("fix_input", "the input was refused: correct it, then call again")
    if kind == "permission":
        return Decision(
            "ask_authorization", "access was refused: ask for permission; retrying will not help"
        )
    if kind == "final":
        return Decision("stop", "retrying cannot help: report the failure and stop")

    if not is_write:
        if left:
            return Decision("retry", "a read changes nothing: retry after the backoff wait")
        return Decision("stop", f"a read kept failing ({exhausted}): report the failure")

    if kind == "temporary" and state == "not_applied":
        if left:
            return Decision(
                "retry", "the write provably did not happen: retry after the backoff wait"
            )
        return Decision("stop", f"the write did not happen ({exhausted}): report not posted")

    # A write whose outcome is unknown (or not provably "not applied").
    if verified_absent is False:
        return Decision("stop", "the read-back found the write: it is done, never resend it")
    if verified_absent is True:
        if left:
            how = "the server deduplicates the key" if same_idempotency_key else "read back"
            return Decision("retry", f"verified absent ({how}): resending posts it once")
        return Decision("stop", f"verified absent ({exhausted}): report not posted")
    if same_idempotency_key:
        if left:
            return Decision(
                "retry",
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
