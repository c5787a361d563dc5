"""The fault matrix of chapter 05: the safe write never posts twice and never lies.

Every fault kind of :data:`tutorial_lib.emulator.faults.FAULT_KINDS` (``slow_commit``
included) runs in every plan of zero, one and two steps (43 plans) and in seeded random
plans of three to five steps, against every server idempotency mode (``off``: ignores keys,
like GitHub; ``optional``: honours them; ``required``: refuses a POST without one) and every
client configuration: reconciliation on/off, server keys off/on, and with server keys on,
a *cold* ledger (the server has shown nothing yet) or a *warm* one (a replay of an earlier
write has shown the server honours keys; against ``off`` the same warm-up shows nothing).

For every run, after every slow commit has landed: at most one comment carries the key's
marker; ``posted``/``already_posted`` only with exactly that one comment (and never
``duplicated``: one writer makes no copies), ``not_posted`` only with none; every read-back
(``pre_check``, ``read_back``, and ``verify`` after a POST that succeeded) saw at most that
one comment; the data of both tools fits their declared output schemas; no envelope pairs
``outcome_unknown`` with ``not_applied``; ``unknown`` only after a fault whose outcome the
client cannot know, never when a read-back could find the comment, and always with the
exact status check; without a proven key nothing is resent after an unknown outcome (the
rule of the chapter); the waits respect the policy's caps; the status check agrees with the
store; the tool's account of its requests matches what the server and the plan saw.

The matrix runs through the emulator IN PROCESS (:func:`serve_in_process`: the same request
handling and fault plan, no sockets, a held answer times out at once); a slow commit still
waits for real on a worker, so runs go through a thread pool. Representative cases also
run over real HTTP (:func:`serve`: kernel RSTs, real timeouts), with the same checks, and
must give exactly the in-process answers.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tutorial_lib.core.authorization import TaskScope, github_access
from tutorial_lib.core.contracts import ENVELOPE_SCHEMA, Envelope
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry
from tutorial_lib.emulator.faults import FAULT_KINDS, Fault, FaultPlan
from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import serve, serve_in_process
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.writes import (
    COMMENT_STATUS_DATA_SCHEMA,
    CREATE_COMMENT_DATA_SCHEMA,
    WRITE_POLICY,
    WriteContext,
    WriteLedger,
    find_marked,
    write_status,
    write_tool_specs,
)

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
CREATE_DATA = Draft202012Validator(CREATE_COMMENT_DATA_SCHEMA)
STATUS_DATA = Draft202012Validator(COMMENT_STATUS_DATA_SCHEMA)
#: The steps that read the PR's comments back (each one GET, plus retries of a failed one).
READS = ("pre_check", "read_back", "verify")
KINDS: tuple[str, ...] = FAULT_KINDS
#: From the client's side these may have been processed: the outcome is unknown.
UNKNOWABLE = {"unavailable", "commit_then_timeout", "commit_then_reset", "slow_commit"}
#: Stored before the client sees the failure: a read-back right after finds them.
STORED_AT_ONCE = {"commit_then_timeout", "commit_then_reset"}
#: How a POST that met this fault fails, as the client sees it (a fault-free POST may be
#: refused, e.g. 409 while a slow commit holds the key, or 400 without a required key).
EXPECTED_FAILURE: dict[str | None, set[str | None]] = {
    None: {None, "not_applied"},
    "refuse": {"not_applied"},
    "rate_limited": {"not_applied"},
    "unavailable": {"unknown"},
    "commit_then_timeout": {"unknown"},
    "commit_then_reset": {"unknown"},
    "slow_commit": {"unknown"},
}
SHORT_PLANS = [seq for n in range(3) for seq in itertools.product(KINDS, repeat=n)]
_RNG = random.Random(20250605)
RANDOM_PLANS = [tuple(_RNG.choice(KINDS) for _ in range(_RNG.randint(3, 5))) for _ in range(40)]


@dataclass(frozen=True)
class Config:
    server: str  # the emulator's idempotency mode
    keys: bool  # the client sends Idempotency-Key
    reconcile: bool
    warm: bool  # a replay has shown the ledger the server's keys (if it honours them)

    @property
    def name(self) -> str:
        keys = ("keys-warm" if self.warm else "keys-cold") if self.keys else "no-keys"
        return f"{self.server}/{keys}/{'read-back' if self.reconcile else 'blind'}"

    @property
    def accepted(self) -> bool:
        """Whether the server stores a POST of this client at all (``required`` refuses
        one without a key, and a held or cut answer then hides the refusal)."""
        return self.keys or self.server != "required"

    @property
    def key_table_first(self) -> bool:
        """Whether the server's key table may answer a POST before its fault's slow part."""
        return (self.keys and self.server != "off") or self.server == "required"

    @property
    def proven(self) -> bool:
        """Whether the client may rely on the key (the warm-up could show it)."""
        return self.keys and self.warm and self.server != "off"


CREATE, STATUS = "github_pr_create_comment", "github_pr_get_comment_status"


def call(context: WriteContext, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """One call of a write tool, through a guarded host of the two tools bound to
    ``context`` (the write approved in advance for the task)."""
    host = Host(
        Registry(write_tool_specs(context)),
        access={CREATE: github_access("write"), STATUS: github_access("read")},
        scope=TaskScope(repositories=frozenset({REPO}), grants=frozenset({"read", "write"})),
        confirm={CREATE: None},
    )
    envelope: Envelope = host.call(name, args)
    return dict(envelope)


CONFIGS = [
    Config(server, keys, reconcile, warm)
    for server in ("off", "optional", "required")
    for keys in (False, True)
    for warm in ((False, True) if keys else (False,))
    for reconcile in (True, False)
]
REPO, PR = "example/shop", 128
IN_PROCESS_TIMING = (0.1, 0.25)  # (client timeout, server delay) in seconds
HTTP_TIMING = (0.5, 1.0)
WARM_KEY = "warm-up-key-0001"
#: Representative cases that also run over real HTTP: every fault kind, every server
#: mode, cold and warm keys, read-back on and off, plans of one to three steps.
REAL_HTTP_CASES: list[tuple[Config, tuple[str, ...]]] = [
    (Config("off", False, True, False), ("commit_then_timeout",)),
    (Config("off", False, True, False), ("slow_commit",)),
    (Config("off", False, True, False), ("refuse", "rate_limited", "commit_then_reset")),
    (Config("off", True, False, True), ("commit_then_timeout", "refuse")),
    (Config("optional", True, False, False), ("commit_then_reset",)),
    (Config("optional", True, False, True), ("commit_then_timeout", "rate_limited")),
    (Config("optional", True, True, True), ("slow_commit", "unavailable")),
    (Config("optional", False, False, False), ("unavailable", "refuse")),
    (Config("required", True, True, True), ("unavailable", "commit_then_reset", "refuse")),
    (Config("required", False, True, False), ("rate_limited",)),
]


_LONG_HTTP_PLANS = [seq for _, seq in REAL_HTTP_CASES if len(seq) > 2 and seq not in RANDOM_PLANS]
PLANS = SHORT_PLANS + RANDOM_PLANS + _LONG_HTTP_PLANS


@dataclass(frozen=True)
class Run:
    config: Config
    seed: int
    sequence: tuple[str, ...]
    envelope: dict[str, Any]
    stored: list[int]  # after every slow commit landed
    waits: list[float]
    steps: list[str]  # the tool's own account: pre_check / post / failure / read_back ...
    seen: list[tuple[int, ...]]  # per read-back that succeeded: the ids with the marker
    failures: list[str]  # "unknown" / "not_applied", in order
    consumed: list[str | None]  # the plan steps the tool's POSTs got
    gets: int  # read requests the server answered for the tool
    status_check: dict[str, Any]
    read_back_failed: bool
    keys_shown: bool

    @property
    def key(self) -> str:
        return key_of(self.config, self.seed)

    @property
    def requests(self) -> int:
        return len(self.consumed) + self.gets

    @property
    def spurious(self) -> bool:
        """A failure no scripted fault explains: a POST failed differently than its fault
        makes it (e.g. a timeout without one), or a read-back failed (an overloaded
        machine, e.g. a browser test starting on the same two cores)."""
        faults = iter(self.consumed)
        failures = iter(self.failures)
        for step, following in zip(self.steps, [*self.steps[1:], "end"], strict=True):
            if step != "post":
                continue
            fault = next(faults)
            got = next(failures) if following == "failure" else None
            expected = EXPECTED_FAILURE[fault]
            if fault == "slow_commit" and self.config.key_table_first:
                # the key table answers before the slow part runs: a replay, a 409 while
                # the first is in flight, a 400 without a required key
                expected = {None, "not_applied", "unknown"}
            if got not in expected:
                return True
        return self.read_back_failed


def key_of(config: Config, seed: int) -> str:
    return f"matrix-{config.name.replace('/', '-')}-{seed:04d}"


def landed(handle: Any, plan: FaultPlan, timeout_s: float = 10.0) -> None:
    """Wait until every slow commit the plan handed out has been answered (stored)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        slow = sum(1 for hit in plan.history if hit.fault == "slow_commit")
        if sum(1 for r in handle.requests if r.fault == "slow_commit") >= slow:
            return
        time.sleep(0.01)
    raise AssertionError("a slow commit never landed")


def run_once(config: Config, seed: int, sequence: tuple[str, ...], *, http: bool = False) -> Run:
    """One write under ``sequence``: in process, or over real HTTP with ``http=True``."""
    timeout_s, delay_s = HTTP_TIMING if http else IN_PROCESS_TIMING
    store = build_store()
    faults = [Fault(kind, retry_after_s=1, delay_s=delay_s) for kind in sequence]  # type: ignore[arg-type]
    warm_up = [None, None] if config.warm else []  # the warm-up's two POSTs get no fault
    plan = FaultPlan([*warm_up, *faults])
    key = key_of(config, seed)
    args = {
        "repository": REPO,
        "pr": PR,
        "body": f"Summary for seed {seed}.",
        "idempotency_key": key,
    }
    emulator = serve if http else serve_in_process
    with (
        emulator(store, faults=plan, idempotency=config.server) as handle,  # type: ignore[arg-type]
        GitHubClient(handle.base_url, timeout_s=timeout_s, transport=handle.transport()) as client,
    ):
        ledger = WriteLedger()
        if config.warm:  # the same process wrote before: did the server show its keys?
            warm = args | {"idempotency_key": WARM_KEY, "body": "Warm-up."}
            for _ in range(2):
                other = WriteContext(
                    client, server_keys=True, reconcile=False, ledger=WriteLedger()
                )
                call(other, CREATE, warm)
                if other.ledger.keys_shown_by(client.base_url):
                    ledger.note_key_support("replayed", client.base_url)
        before = len(handle.requests)
        waits: list[float] = []
        context = WriteContext(
            client,
            server_keys=config.keys,
            reconcile=config.reconcile,
            sleep=waits.append,
            seed=seed,
            ledger=ledger,
        )
        envelope = call(context, CREATE, args)
        gets = sum(1 for r in handle.requests[before:] if r.method == "GET")
        landed(handle, plan)
        comments = [{"id": c.id, "body": c.body} for c in store.issue_comments(REPO, PR)]
        # the test's own check, after the landing: a patient client, a registry of its own
        patient = GitHubClient(handle.base_url, timeout_s=10, transport=handle.transport())
        with patient:
            check = call(
                WriteContext(patient),
                STATUS,
                {"repository": REPO, "pr": PR, "idempotency_key": key},
            )
    events = context.events
    return Run(
        config,
        seed,
        sequence,
        envelope,
        [c["id"] for c in find_marked(comments, key)],
        waits,
        [e.step for e in events],
        [e.comment_ids for e in events if e.step in READS and e.code is None],
        [str(e.operation_state) for e in events if e.step == "failure"],
        [hit.fault for hit in plan.history[len(warm_up) :]],
        gets,
        check,
        any(e.step in READS and e.code is not None for e in events),
        ledger.keys_shown_by(client.base_url),
    )


def settled(run: Run, rerun: Callable[[], Run], reruns: list[int]) -> Run:
    """``run``, or when a failure no scripted fault explains happened (an overloaded
    machine), a re-run of the same case for the exact expectations; truth is checked on
    every run, re-runs included."""
    check_truth(run)  # holds whatever the machine's load
    while run.spurious and reruns[0] < 30:
        reruns[0] += 1
        run = rerun()
        check_truth(run)
    assert not run.spurious, f"{where(run)}: too many unexplained timeouts"
    return run


def matrix(config: Config) -> tuple[list[Run], int]:
    """Every plan under ``config``, seed ``i`` for plan ``i``; and the re-runs needed."""
    cases = list(enumerate(PLANS))
    with ThreadPoolExecutor(max_workers=12) as pool:  # slow commits wait for real
        runs = list(pool.map(lambda case: run_once(config, *case), cases))
    reruns = [0]

    def again(run: Run) -> Callable[[], Run]:
        return lambda: run_once(config, run.seed, run.sequence)

    done = [settled(run, again(run), reruns) for run in runs]
    return done, reruns[0]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name)
def test_fault_matrix(config: Config) -> None:
    started = time.perf_counter()
    runs, reruns = matrix(config)
    outcomes: dict[str, int] = {}
    for run in runs:
        status = check_exact(run)
        outcomes[status] = outcomes.get(status, 0) + 1
    assert {run.sequence for run in runs} == set(PLANS)
    assert {kind for run in runs for kind in run.consumed if kind} == set(KINDS)
    requests = [run.requests for run in runs]
    print(
        f"{config.name}: {len(runs)} runs {outcomes}"
        f" unknown {outcomes.get('unknown', 0) / len(runs):.0%}"
        f" requests mean {sum(requests) / len(runs):.2f} max {max(requests)}"
        f" re-runs {reruns} {time.perf_counter() - started:.1f} s"
    )


@pytest.mark.parametrize(("config", "sequence"), REAL_HTTP_CASES, ids=lambda v: str(v))
def test_real_http_agrees_with_in_process(config: Config, sequence: tuple[str, ...]) -> None:
    seed = PLANS.index(sequence)  # the seed the matrix runs this plan with
    reruns = [0]
    over_http = settled(
        run_once(config, seed, sequence, http=True),
        lambda: run_once(config, seed, sequence, http=True),
        reruns,
    )
    check_exact(over_http)
    in_process = settled(
        run_once(config, seed, sequence), lambda: run_once(config, seed, sequence), reruns
    )
    # the same answer, step for step (only the URLs name where the emulator listened)
    assert without_urls(over_http.envelope) == without_urls(in_process.envelope)
    for name in ("stored", "waits", "steps", "seen", "failures", "consumed", "gets", "keys_shown"):
        assert getattr(over_http, name) == getattr(in_process, name), name
    assert without_urls(over_http.status_check) == without_urls(in_process.status_check)


def test_the_matrix_covers_every_kind_mode_and_configuration() -> None:
    assert set(KINDS) == {
        "refuse",
        "unavailable",
        "rate_limited",
        "commit_then_timeout",
        "commit_then_reset",
        "slow_commit",
    }
    assert len(SHORT_PLANS) == 1 + len(KINDS) + len(KINDS) ** 2
    assert {len(plan) for plan in RANDOM_PLANS} == {3, 4, 5}
    assert {c.server for c in CONFIGS} == {"off", "optional", "required"}
    assert len(CONFIGS) == 3 * 2 * 3  # reconcile x (no keys, cold keys, warm keys)
    assert {config.server for config, _ in REAL_HTTP_CASES} == {"off", "optional", "required"}
    assert {kind for _, sequence in REAL_HTTP_CASES for kind in sequence} == set(KINDS)
    assert {len(sequence) for _, sequence in REAL_HTTP_CASES} == {1, 2, 3}
    assert all(sequence in PLANS for _, sequence in REAL_HTTP_CASES)


def without_urls(envelope: dict[str, Any]) -> dict[str, Any]:
    if not envelope.get("ok"):
        return envelope
    return envelope | {"data": {k: v for k, v in envelope["data"].items() if k != "url"}}


def where(run: Run) -> str:
    return f"{run.config.name} seed={run.seed} faults={run.sequence}: {json.dumps(run.envelope)}"


def check_exact(run: Run) -> str:
    """What a run without unexplained failures must answer; the status check and the
    request counts agree with the server."""
    status = write_status(run.envelope)
    met = [kind for kind in run.consumed if kind is not None]
    unknowable = [kind for kind in met if kind in UNKNOWABLE]
    # Unknown only where the client cannot know: after a fault of unknown outcome...
    if status == "unknown":
        assert unknowable, where(run)
        # ... and never when a read-back right after it could find the comment
        findable = run.config.accepted and unknowable[0] in STORED_AT_ONCE
        assert not (run.config.reconcile and findable), where(run)
    if (
        run.config.reconcile
        and run.config.accepted
        and unknowable[:1]
        in (
            ["commit_then_timeout"],
            ["commit_then_reset"],
        )
    ):
        assert status == "already_posted", where(run)
        assert run.envelope["data"]["evidence"] == "found_by_marker", where(run)
    if not unknowable:
        assert status in ("posted", "not_posted"), where(run)
    if not run.config.accepted:
        assert run.stored == [] and status in ("not_posted", "unknown"), where(run)
    # The rule: without a proven key, nothing is resent after an unknown outcome.
    if not run.keys_shown and "unknown" in run.failures:
        # every POST before the first unknown one failed (a success ends the call)
        first_unknown = run.failures.index("unknown")
        assert run.steps.count("post") == first_unknown + 1, f"resent blindly: {where(run)}"
    assert run.keys_shown == run.config.proven, where(run)
    # The status check tells the truth afterwards, in every configuration.
    expected_state = "posted" if run.stored else "absent"
    assert run.status_check["data"]["state"] == expected_state, where(run)
    # The tool's account matches the server's: every POST consumed a plan step (refused
    # ones included), every read-back reached the server.
    assert run.steps.count("post") == len(run.consumed), where(run)
    assert sum(run.steps.count(step) for step in READS) == run.gets, where(run)
    # With reconciliation on, a POST that succeeded is checked for copies right after.
    if run.config.reconcile and status == "posted":
        assert run.steps[-2:] == ["verify", "result"], where(run)
    if not run.config.reconcile:
        assert not set(READS) & set(run.steps), where(run)
    return status


def check_truth(run: Run) -> None:
    """What every run must satisfy, even on an overloaded machine: never twice, never a
    false word, an unknown that names its status check, bounded waits and requests."""
    ENVELOPE.validate(run.envelope)
    if run.envelope["ok"]:
        CREATE_DATA.validate(run.envelope["data"])
    STATUS_DATA.validate(run.status_check["data"])
    status = write_status(run.envelope)
    assert len(run.stored) <= 1, f"duplicate comments: {where(run)}"
    assert status != "duplicated", where(run)  # one writer, and it made no copy
    assert all(len(ids) <= 1 for ids in run.seen), where(run)
    assert all(set(ids) <= set(run.stored) for ids in run.seen), where(run)
    if status in ("posted", "already_posted"):
        assert run.stored == [run.envelope["data"]["comment_id"]], where(run)
        assert "duplicate_ids" not in run.envelope["data"], where(run)
    if status == "not_posted":
        assert run.stored == [], f"not_posted, yet it landed: {where(run)}"
    if not run.envelope["ok"]:
        error = run.envelope["error"]
        if error["code"] == "outcome_unknown":  # one state per envelope
            assert error["operation_state"] == "unknown", where(run)
    if status == "unknown":
        error = run.envelope["error"]
        assert error["operation_state"] == "unknown" and error["retry"] == "after_status_check"
        assert error["next_tool"] == {
            "name": "github_pr_get_comment_status",
            "arguments": {"repository": REPO, "pr": PR, "idempotency_key": run.key},
        }, where(run)
    # Backoff bounds.
    policy = WRITE_POLICY
    assert len(run.waits) <= policy.max_attempts - 1, where(run)
    assert all(0 <= w <= policy.cap_s for w in run.waits), where(run)
    assert sum(run.waits) <= policy.total_backoff_cap_s + 1e-9, where(run)
    assert run.steps.count("post") <= policy.max_attempts, where(run)

    # Settling an unknown outcome takes at most two more requests: counted from each
    # unknown failure to the next failure (or the end), over requests that met no fault.
    # The ``verify`` read after a POST that succeeded is not counted: every success with
    # reconciliation on pays it, faults or not (it looks for copies, it settles nothing).
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
