"""The chapter 05 retry policy: the next step of an error, decisions, Retry-After, backoff."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.core.contracts import CATALOGUE, STEPS, next_step
from tutorial_lib.core.retry import (
    Decision,
    RetryPolicy,
    backoff_schedule,
    decide_after_failure,
    parse_retry_after,
)

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=timezone.utc)


def err(code: str, retry: str | None = None, state: str = "not_applied") -> dict[str, str]:
    error = {"code": code, "operation_state": state}
    if retry is not None:
        error["retry"] = retry
    return error


# ------------------------------------------------------------- what an error calls for
# decide_after_failure starts from contracts.next_step: these rows pin the part of that
# vocabulary the retry policy relies on.


@pytest.mark.parametrize(
    ("error", "step"),
    [
        (err("temporary_unavailable", "with_backoff"), "retry_with_backoff"),
        (err("permission_denied", "after_authorization"), "check_authorization"),
        (err("invalid_value", "after_input_correction"), "fix_input"),
        (err("outcome_unknown", "after_status_check", "unknown"), "verify_state"),
        (err("outcome_unknown", "after_status_check", "not_applied"), "verify_state"),
        (err("binary_file", "never"), "stop"),
        # operation_state "unknown" always wins, whatever the advice
        (err("temporary_unavailable", "with_backoff", "unknown"), "verify_state"),
        (err("invalid_value", "after_input_correction", "unknown"), "verify_state"),
        (err("binary_file", "never", "unknown"), "verify_state"),
        # no advice: the catalogue's default
        (err("temporary_unavailable"), "retry_with_backoff"),
        (err("not_found"), "search_first"),
        # a whole failure envelope
        (
            {"ok": False, "error": err("permission_denied", "after_authorization")},
            "check_authorization",
        ),
    ],
)
def test_next_step_of_an_error(error, step):
    assert next_step(error) == step


def test_next_step_agrees_with_every_catalogue_default():
    for code, info in CATALOGUE.items():
        assert next_step(err(code)) == next_step(err(code, info.retry))


@pytest.mark.parametrize(
    "error",
    [{"code": "no_such_code"}, err("x", "sometimes"), {"ok": True, "data": {}}, {"ok": False}],
)
@pytest.mark.parametrize("is_write", [False, True])
def test_what_cannot_be_decided_is_refused(error, is_write):
    with pytest.raises(ValueError):
        next_step(error)
    with pytest.raises(ValueError):
        decide_after_failure(
            error,
            is_write=is_write,
            attempt=1,
            policy=RetryPolicy(),
            same_idempotency_key=False,
        )


# --------------------------------------------------------------------------- decisions

POLICY = RetryPolicy(max_attempts=3)
TEMP = err("temporary_unavailable", "with_backoff")
TEMP_NO_STATE = {"code": "temporary_unavailable", "retry": "with_backoff"}
UNKNOWN = err("outcome_unknown", "after_status_check", "unknown")
INVALID = err("invalid_value", "after_input_correction")
PERM = err("permission_denied", "after_authorization")
FINAL = err("binary_file", "never")

MISSING = err("not_found", "after_input_correction")

# (error, is_write, attempt, same_key, read_back, can_verify, earlier_unknown) -> action
# same_key: the server has SHOWN it honours the key; read_back "nothing" is NOT proof.
DECISIONS = [
    # steps that never retry, reads and writes alike
    (INVALID, False, 1, False, None, True, False, "fix_input"),
    (INVALID, True, 1, True, None, True, False, "fix_input"),
    (INVALID, True, 1, False, None, True, True, "fix_input"),  # beats an earlier unknown
    (MISSING, False, 1, False, None, True, False, "search_first"),
    (MISSING, True, 1, False, None, True, False, "search_first"),
    (PERM, False, 1, False, None, True, False, "check_authorization"),
    (PERM, True, 1, False, None, True, False, "check_authorization"),
    (PERM, True, 1, True, None, True, True, "check_authorization"),
    (FINAL, False, 1, False, None, True, False, "stop"),
    (FINAL, True, 1, True, "found", True, False, "stop"),
    (FINAL, True, 1, False, None, True, True, "stop_unknown"),  # an earlier one may have landed
    # reads retry freely within bounds (an "earlier unknown" is about writes)
    (TEMP, False, 1, False, None, True, False, "retry_with_backoff"),
    (TEMP, False, 2, False, None, True, True, "retry_with_backoff"),
    (TEMP, False, 3, False, None, True, False, "stop"),
    (UNKNOWN, False, 1, False, None, False, False, "retry_with_backoff"),
    (UNKNOWN, False, 3, False, None, True, False, "stop"),
    # writes provably not processed, with no earlier unknown attempt
    (TEMP, True, 1, False, None, True, False, "retry_with_backoff"),
    (TEMP, True, 3, False, None, True, False, "stop"),
    # ... after an earlier unknown attempt: the call's outcome is unknown
    (TEMP, True, 1, False, None, True, True, "verify_state"),
    (TEMP, True, 1, False, None, False, True, "stop_unknown"),
    (TEMP, True, 3, False, None, False, True, "stop_unknown"),
    (TEMP, True, 1, False, "nothing", True, True, "stop_unknown"),
    (TEMP, True, 1, True, "nothing", True, True, "retry_with_backoff"),
    (TEMP, True, 1, False, "found", True, True, "stop"),
    # a temporary write that is not provably "not_applied" is an unknown outcome
    (TEMP_NO_STATE, True, 1, False, None, True, False, "verify_state"),
    (
        err("temporary_unavailable", "with_backoff", "applied"),
        True,
        1,
        False,
        None,
        True,
        False,
        "verify_state",
    ),  # fmt: skip
    # unknown outcome of a write
    (UNKNOWN, True, 1, False, None, True, False, "verify_state"),
    (UNKNOWN, True, 1, False, None, False, False, "stop_unknown"),
    (UNKNOWN, True, 1, True, None, True, False, "verify_state"),  # the marker first
    (UNKNOWN, True, 1, True, None, False, False, "retry_with_backoff"),
    (UNKNOWN, True, 3, True, None, False, False, "stop_unknown"),
    (UNKNOWN, True, 1, True, "nothing", True, False, "retry_with_backoff"),
    (UNKNOWN, True, 1, False, "nothing", True, False, "stop_unknown"),  # no proof of absence
    (UNKNOWN, True, 3, False, "nothing", True, False, "stop_unknown"),
    (UNKNOWN, True, 3, True, "nothing", True, False, "stop_unknown"),
    (UNKNOWN, True, 1, True, "found", True, False, "stop"),
    (UNKNOWN, True, 3, False, "found", True, False, "stop"),
    (UNKNOWN, True, 1, False, "found", False, False, "stop"),
]


@pytest.mark.parametrize(
    (
        "error",
        "is_write",
        "attempt",
        "same_key",
        "read_back",
        "can_verify",
        "earlier_unknown",
        "action",
    ),
    DECISIONS,
)
def test_decide_after_failure(
    error, is_write, attempt, same_key, read_back, can_verify, earlier_unknown, action
):
    decision = decide_after_failure(
        error,
        is_write=is_write,
        attempt=attempt,
        policy=POLICY,
        same_idempotency_key=same_key,
        read_back=read_back,
        can_verify=can_verify,
        earlier_unknown=earlier_unknown,
    )
    assert isinstance(decision, Decision)
    assert decision.action == action
    assert decision.reason


def test_a_read_back_that_found_nothing_never_licenses_a_resend_without_a_proven_key():
    # the rule of chapter 05: "found nothing" while the request may be in flight is no proof
    for error in (UNKNOWN, TEMP_NO_STATE):
        for attempt in (1, 2):
            decision = decide_after_failure(
                error,
                is_write=True,
                attempt=attempt,
                policy=POLICY,
                same_idempotency_key=False,
                read_back="nothing",
            )
            assert decision.action == "stop_unknown"


def test_read_back_must_be_one_of_its_words():
    with pytest.raises(ValueError, match="read_back"):
        decide_after_failure(
            UNKNOWN,
            is_write=True,
            attempt=1,
            policy=POLICY,
            same_idempotency_key=False,
            read_back="absent",  # type: ignore[arg-type]
        )


def test_every_next_step_is_reachable():
    # one vocabulary: every NextStep of contracts is a possible decision, and nothing else
    assert {row[-1] for row in DECISIONS} == set(STEPS)


@given(
    error=st.sampled_from([TEMP, TEMP_NO_STATE, UNKNOWN, INVALID, MISSING, PERM, FINAL]),
    attempt=st.integers(1, 10),
    same_key=st.booleans(),
    read_back=st.sampled_from([None, "nothing", "found"]),
    can_verify=st.booleans(),
    earlier_unknown=st.booleans(),
)
@settings(max_examples=200, deadline=None)
def test_a_write_is_never_resent_blindly(
    error, attempt, same_key, read_back, can_verify, earlier_unknown
):
    """Without a proven key, a write is resent only if this attempt provably did nothing
    and no earlier attempt may have landed; a "found" write is never resent."""
    decision = decide_after_failure(
        error,
        is_write=True,
        attempt=attempt,
        policy=RetryPolicy(max_attempts=5),
        same_idempotency_key=same_key,
        read_back=read_back,
        can_verify=can_verify,
        earlier_unknown=earlier_unknown,
    )
    if decision.action == "retry_with_backoff":
        assert attempt < 5
        assert same_key or (error is TEMP and not earlier_unknown)
    unknown = earlier_unknown or error in (UNKNOWN, TEMP_NO_STATE)
    if unknown and read_back == "found" and error not in (INVALID, MISSING, PERM):
        assert decision.action == "stop"


@pytest.mark.parametrize("attempt", [0, -1, True, 1.0])
def test_decide_refuses_a_bad_attempt(attempt):
    with pytest.raises(ValueError, match="attempt"):
        decide_after_failure(
            TEMP,
            is_write=False,
            attempt=attempt,
            policy=POLICY,
            same_idempotency_key=False,
        )


def test_decision_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Decision("stop", "x").action = "retry_with_backoff"  # type: ignore[misc]


# --------------------------------------------------------------------------- Retry-After


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 0 ", 0.0),
        ("1.5", 1.5),
        (format_datetime(NOW - timedelta(hours=1), usegmt=True), 0.0),
        (format_datetime(NOW + timedelta(seconds=90), usegmt=True), 90.0),
        ("Sat, 01 Mar 2025 12:00:30 GMT", 30.0),
        ("Sat, 01 Mar 2025 12:00:30 -0000", 30.0),
        (None, None),
        ("", None),
        ("soon", None),
        ("-5", None),
        ("1e3", None),
        ("nan", None),
        ("inf", None),
        ("١٢", None),  # non-ASCII digits
        ("Sat, 99 Foo 2025 12:00:30 GMT", None),
    ],
)
def test_parse_retry_after(value, seconds):
    assert parse_retry_after(value, now=NOW) == seconds


def test_parse_retry_after_needs_an_aware_now():
    with pytest.raises(ValueError, match="timezone-aware"):
        parse_retry_after("5", now=datetime(2025, 1, 1))


@given(st.text(max_size=40))
@settings(max_examples=200, deadline=None)
def test_parse_retry_after_never_raises_and_never_negative(value):
    seconds = parse_retry_after(value, now=NOW)
    assert seconds is None or seconds >= 0


# --------------------------------------------------------------------------- policy


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"base_s": 0}, "base_s"),
        ({"base_s": float("nan")}, "base_s"),
        ({"cap_s": 0.1}, "cap_s"),
        ({"cap_s": float("inf")}, "cap_s"),
        ({"max_attempts": 0}, "max_attempts"),
        ({"max_attempts": 11}, "max_attempts"),
        ({"max_attempts": 2.0}, "max_attempts"),
        ({"max_attempts": True}, "max_attempts"),
        ({"total_backoff_cap_s": -1}, "total_backoff_cap_s"),
    ],
)
def test_policy_is_validated(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RetryPolicy(**kwargs)


def test_default_policy():
    policy = RetryPolicy()
    assert (policy.base_s, policy.cap_s, policy.max_attempts, policy.total_backoff_cap_s) == (
        0.5,
        8.0,
        5,
        20.0,
    )
    assert len(backoff_schedule(policy, seed=0)) <= 4


# --------------------------------------------------------------------------- schedules

policies = st.builds(
    lambda base, factor, attempts, total: RetryPolicy(base, base * factor, attempts, total),
    st.floats(0.01, 5),
    st.floats(1, 64),
    st.integers(1, 10),
    st.floats(0, 100),
)
seeds = st.integers(0, 2**32)
retry_afters = st.lists(st.none() | st.floats(0, 100), max_size=10)


@given(policy=policies, seed=seeds, asked=retry_afters)
@settings(max_examples=300, deadline=None)
def test_schedule_is_bounded(policy, seed, asked):
    waits = backoff_schedule(policy, seed, retry_after_s=asked)
    assert len(waits) <= policy.max_attempts - 1
    assert all(0 <= w <= policy.cap_s for w in waits)
    assert sum(waits) <= policy.total_backoff_cap_s


@given(policy=policies, seed=seeds, asked=retry_afters)
@settings(max_examples=200, deadline=None)
def test_retry_after_is_honoured_or_the_schedule_stops(policy, seed, asked):
    waits = backoff_schedule(policy, seed, retry_after_s=asked)
    for i, wait in enumerate(waits):
        if i < len(asked) and asked[i] is not None:
            assert wait >= asked[i]
    # Stopping early happens only for a reason: compare with the same schedule without a
    # total budget, which must agree up to the stop and then continue past the budget.
    unbounded = backoff_schedule(
        dataclasses.replace(policy, total_backoff_cap_s=1e12), seed, retry_after_s=asked
    )
    assert waits == unbounded[: len(waits)]
    if len(waits) < len(unbounded):
        assert sum(waits) + unbounded[len(waits)] > policy.total_backoff_cap_s
    elif len(waits) < policy.max_attempts - 1:  # stopped with budget left: Retry-After > cap
        assert asked[len(waits)] is not None and asked[len(waits)] > policy.cap_s


@given(policy=policies, seed=seeds)
@settings(max_examples=200, deadline=None)
def test_same_seed_same_schedule(policy, seed):
    assert backoff_schedule(policy, seed) == backoff_schedule(policy, seed)


def test_different_seeds_usually_differ():
    policy = RetryPolicy(base_s=1, cap_s=8, max_attempts=5, total_backoff_cap_s=1000)
    schedules = {tuple(backoff_schedule(policy, seed)) for seed in range(100)}
    assert len(schedules) == 100


def test_schedule_uses_no_global_random():
    import random

    random.seed(1)
    expected = random.random()
    random.seed(1)
    backoff_schedule(RetryPolicy(), seed=7)
    assert random.random() == expected


def test_full_jitter_ceilings_grow_then_cap():
    policy = RetryPolicy(base_s=1, cap_s=4, max_attempts=10, total_backoff_cap_s=1000)
    many = [backoff_schedule(policy, seed) for seed in range(300)]
    for i, ceiling in enumerate([1, 2, 4, 4, 4, 4, 4, 4, 4]):
        column = [waits[i] for waits in many]
        assert max(column) <= ceiling
        assert max(column) > 0.8 * ceiling  # the whole range is used


def test_retry_after_longer_than_cap_stops_rather_than_waiting_less():
    policy = RetryPolicy(base_s=0.5, cap_s=8, max_attempts=5, total_backoff_cap_s=20)
    waits = backoff_schedule(policy, 1, retry_after_s=[3.0, 30.0])
    assert len(waits) == 1 and waits[0] >= 3.0


def test_retry_after_past_the_total_budget_stops():
    policy = RetryPolicy(base_s=0.5, cap_s=8, max_attempts=5, total_backoff_cap_s=10)
    assert backoff_schedule(policy, 1, retry_after_s=[6.0, 6.0]) == [6.0]


def test_a_retry_after_does_not_shift_later_jitter():
    policy = RetryPolicy(base_s=0.5, cap_s=8, max_attempts=5, total_backoff_cap_s=100)
    plain = backoff_schedule(policy, 3)
    asked = backoff_schedule(policy, 3, retry_after_s=[5.0])
    assert asked[0] == max(plain[0], 5.0)
    assert asked[1:] == plain[1:]


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_bad_retry_after_values_are_refused(bad):
    with pytest.raises(ValueError, match="Retry-After"):
        backoff_schedule(RetryPolicy(), 0, retry_after_s=[bad])


def test_one_attempt_means_no_waits():
    assert backoff_schedule(RetryPolicy(max_attempts=1), 0, retry_after_s=[1.0]) == []
