"""The fault matrix of chapter 05: the safe write never posts twice and never lies.

Every sequence of up to three faults (the five kinds of the issue: refused connection, 503
before commit, 429, commit-then-timeout, commit-then-reset; 156 sequences with the empty
one) runs against the real emulator over HTTP, across 200 seeds (the jitter seed; seed
``s`` runs sequence ``s % 156``, so every sequence runs at least once) and four modes:

- ``github``: no server keys, read-back reconciliation (what works on real GitHub);
- ``keys``: server-side ``Idempotency-Key``, no read-back;
- ``both``: keys and read-back;
- ``blind``: neither (reconciliation disabled).

For every run: at most one comment carries the key's marker; ``posted``/``already_posted``
only if it is stored (and the id matches), ``not_posted`` only if nothing is stored;
``unknown`` only in ``blind`` mode after a failure whose outcome the client cannot know,
and then always; the waits respect the policy's per-wait and total caps; after the last
unknown outcome the tool needs at most two requests to settle it; the tool's own account
of its requests matches what the server and the plan saw.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tutorial_lib.core.contracts import ENVELOPE_SCHEMA
from tutorial_lib.emulator.faults import Fault, FaultPlan
from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import serve
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.writes import (
    WRITE_POLICY,
    WriteContext,
    find_marked,
    github_pr_create_comment,
    github_pr_get_comment_status,
    write_status,
)

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
KINDS = ("refuse", "unavailable", "rate_limited", "commit_then_timeout", "commit_then_reset")
#: From the client's side these may have been processed: the outcome is unknown.
UNKNOWABLE = {"unavailable", "commit_then_timeout", "commit_then_reset"}
STORING = {"commit_then_timeout", "commit_then_reset"}
#: How a POST that met this fault fails, as the client sees it.
EXPECTED_FAILURE: dict[str | None, str | None] = {
    None: None,
    "refuse": "not_applied",
    "rate_limited": "not_applied",
    "unavailable": "unknown",
    "commit_then_timeout": "unknown",
    "commit_then_reset": "unknown",
}
SEQUENCES = [seq for n in range(4) for seq in itertools.product(KINDS, repeat=n)]
SEEDS = range(200)
MODES = {
    "github": {"server_keys": False, "reconcile": True},
    "keys": {"server_keys": True, "reconcile": False},
    "both": {"server_keys": True, "reconcile": True},
    "blind": {"server_keys": False, "reconcile": False},
}
CLIENT_TIMEOUT_S = 0.5
SERVER_DELAY_S = 1.0
REPO, PR = "example/shop", 128


@dataclass(frozen=True)
class Run:
    mode: str
    seed: int
    sequence: tuple[str, ...]
    envelope: dict[str, Any]
    stored: list[int]
    waits: list[float]
    steps: list[str]  # the tool's own account: post / read_back / pre_check / failure ...
    failures: list[str]  # "unknown" / "not_applied", in order
    consumed: list[str | None]  # the plan steps the POSTs got
    gets: int  # read requests the server answered
    status_check: dict[str, Any]
    read_back_failed: bool

    @property
    def spurious(self) -> bool:
        """A failure no scripted fault explains: a request that met no fault failed, a
        faulted one failed differently than its fault makes it, or a read-back failed (the
        machine was overloaded, e.g. a browser test starting on the same two cores)."""
        faults = iter(self.consumed)
        failures = iter(self.failures)
        for step, following in zip(self.steps, [*self.steps[1:], "end"], strict=True):
            if step != "post":
                continue
            fault = next(faults)
            got = next(failures) if following == "failure" else None
            if got != EXPECTED_FAILURE[fault]:
                return True
        return self.read_back_failed


def run_once(mode: str, seed: int, sequence: tuple[str, ...]) -> Run:
    store = build_store()
    plan = FaultPlan(
        [Fault(kind, retry_after_s=1, delay_s=SERVER_DELAY_S) for kind in sequence]  # type: ignore[arg-type]
    )
    key = f"matrix-{mode}-{seed:04d}"
    args = {
        "repository": REPO,
        "pr": PR,
        "body": f"Summary for seed {seed}.",
        "idempotency_key": key,
    }
    idempotency = "optional" if MODES[mode]["server_keys"] else "off"
    with (
        serve(store, faults=plan, idempotency=idempotency) as handle,
        GitHubClient(
            handle.base_url, timeout_s=CLIENT_TIMEOUT_S, transport=handle.transport()
        ) as client,
    ):
        waits: list[float] = []
        context = WriteContext(client, sleep=waits.append, seed=seed, **MODES[mode])
        envelope = github_pr_create_comment(context, args)
        comments = [{"id": c.id, "body": c.body} for c in store.issue_comments(REPO, PR)]
        gets = sum(1 for r in handle.requests if r.method == "GET")
        with GitHubClient(handle.base_url, timeout_s=10) as patient:  # the test's own check
            check = github_pr_get_comment_status(
                WriteContext(patient), {"repository": REPO, "pr": PR, "idempotency_key": key}
            )
    return Run(
        mode,
        seed,
        sequence,
        envelope,
        [c["id"] for c in find_marked(comments, key)],
        waits,
        [e.step for e in context.events],
        [e.detail.split("(")[1].split(")")[0] for e in context.events if e.step == "failure"],
        [hit.fault for hit in plan.history],
        gets,
        check,
        any("read-back failed" in e.detail for e in context.events),
    )


def all_runs(mode: str) -> Iterator[Run]:
    cases = [(seed, SEQUENCES[seed % len(SEQUENCES)]) for seed in SEEDS]
    with ThreadPoolExecutor(max_workers=16) as pool:
        yield from pool.map(lambda case: run_once(mode, *case), cases)


@pytest.mark.parametrize("mode", list(MODES))
def test_fault_matrix(mode: str) -> None:
    covered: set[tuple[str, ...]] = set()
    outcomes: dict[str, int] = {}
    reruns = 0
    for run in all_runs(mode):
        covered.add(run.sequence)
        check_truth(run)  # holds whatever the machine's load
        while run.spurious and reruns < 20:  # an overloaded machine, not a scripted fault:
            reruns += 1  # run the case again, alone, for the exact expectations
            run = run_once(mode, run.seed, run.sequence)
            check_truth(run)
        assert not run.spurious, f"{run.mode} seed={run.seed}: too many unexplained timeouts"
        status = check_exact(run)
        outcomes[status] = outcomes.get(status, 0) + 1
    assert covered == set(SEQUENCES), "every sequence of up to three faults ran"
    print(mode, outcomes, f"re-run after an unexplained timeout: {reruns}")


def where(run: Run) -> str:
    return f"mode={run.mode} seed={run.seed} faults={run.sequence}: {json.dumps(run.envelope)}"


def check_exact(run: Run) -> str:
    """What a run without unexplained failures must answer, exactly; and the status check
    and the request counts agree with the server (no request is still in flight)."""
    status = write_status(run.envelope)
    hit = [kind for kind in run.consumed if kind is not None]
    # Unknown exactly when the state cannot be known: blind mode after an unknowable fault.
    if run.mode == "blind":
        expected_unknown = bool(set(hit) & UNKNOWABLE)
        assert (status == "unknown") == expected_unknown, where(run)
    else:
        assert status in ("posted", "already_posted"), where(run)
        assert (status == "already_posted") == bool(set(hit) & STORING), where(run)
    # The status check tells the truth afterwards, in every mode.
    expected_state = "posted" if run.stored else "absent"
    assert run.status_check["data"]["state"] == expected_state, where(run)
    # The tool's account matches the server's: every POST consumed a plan step (refused
    # ones included), every read-back reached the server.
    assert run.steps.count("post") == len(run.consumed), where(run)
    assert run.steps.count("read_back") + run.steps.count("pre_check") == run.gets, where(run)
    return status


def check_truth(run: Run) -> None:
    """What every run must satisfy, even on an overloaded machine: never twice, never a
    false claim, an unknown that names its status check, bounded waits and requests."""
    ENVELOPE.validate(run.envelope)
    status = write_status(run.envelope)
    assert len(run.stored) <= 1, f"duplicate comments: {where(run)}"
    if status in ("posted", "already_posted"):
        assert run.stored == [run.envelope["data"]["comment_id"]], where(run)
    if status == "not_posted":
        assert run.stored == [], where(run)
    if status == "unknown":
        error = run.envelope["error"]
        assert error["operation_state"] == "unknown" and error["retry"] == "after_status_check"
        key = f"matrix-{run.mode}-{run.seed:04d}"
        assert error["next_tool"] == {
            "name": "github_pr_get_comment_status",
            "arguments": {"repository": REPO, "pr": PR, "idempotency_key": key},
        }, where(run)
    # Backoff bounds.
    policy = WRITE_POLICY
    assert len(run.waits) <= policy.max_attempts - 1, where(run)
    assert all(0 <= w <= policy.cap_s for w in run.waits), where(run)
    assert sum(run.waits) <= policy.total_backoff_cap_s + 1e-9, where(run)

    # Settling an unknown outcome takes at most two more requests: counted from each
    # unknown failure to the next failure (or the end), over requests that met no fault.
    post_faults = iter(run.consumed)
    tagged = [(s, next(post_faults) if s == "post" else None) for s in run.steps]
    kinds = iter(run.failures)
    segment: list[tuple[str, str | None]] | None = None
    for step, fault in [*tagged, ("end", None)]:
        if step in ("failure", "end"):
            if segment is not None:
                extra = [s for s, f in segment if s in ("post", "read_back") and f is None]
                assert len(extra) <= 2, f"{len(extra)} requests to settle: {where(run)}"
            segment = [] if step == "failure" and next(kinds) == "unknown" else None
        elif segment is not None:
            segment.append((step, fault))
