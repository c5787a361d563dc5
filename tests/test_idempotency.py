"""Server-side idempotency keys (chapter 05): run, replay, 409, 422, abandon, expiry, fingerprints.

Every test of the table injects a fake clock, so expiry is exact and nothing sleeps. The
last section serves a store: its key table lives with the store, so it survives an
emulator restart as a real service's does.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.emulator.fixtures import GitHubStore, build_store
from tutorial_lib.emulator.idempotency import (
    DEFAULT_WINDOW_S,
    IdempotencyKeys,
    StoredResponse,
    fingerprint,
)
from tutorial_lib.emulator.service import serve, serve_in_process

PATH = "/repositories/1/issues/128/comments"
FP_A = fingerprint("POST", PATH, {"body": "a"})
FP_B = fingerprint("POST", PATH, {"body": "b"})
CREATED = StoredResponse(201, b'{"id": 1}', {"Location": "/issues/comments/1"})


class FakeClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def keys(clock: FakeClock) -> IdempotencyKeys:
    return IdempotencyKeys(window_s=60.0, clock=clock)


# --------------------------------------------------------------------------- begin outcomes


def test_new_key_runs(keys: IdempotencyKeys) -> None:
    begin = keys.begin("k1", FP_A)
    assert begin.outcome == "run" and begin.response is None
    assert len(keys) == 1


def test_same_key_same_payload_while_running_is_in_progress(keys: IdempotencyKeys) -> None:
    keys.begin("k1", FP_A)
    again = keys.begin("k1", FP_A)
    assert again.outcome == "in_progress" and again.response is None


def test_completed_key_replays_the_stored_response(keys: IdempotencyKeys) -> None:
    keys.begin("k1", FP_A)
    keys.complete("k1", CREATED)
    for _ in range(3):  # every duplicate gets the same answer, nothing runs again
        replay = keys.begin("k1", FP_A)
        assert replay.outcome == "replay"
        assert replay.response == CREATED
    assert len(keys) == 1


def test_same_key_other_payload_is_a_mismatch_while_running(keys: IdempotencyKeys) -> None:
    keys.begin("k1", FP_A)
    assert keys.begin("k1", FP_B).outcome == "mismatch"


def test_same_key_other_payload_is_a_mismatch_after_completion(keys: IdempotencyKeys) -> None:
    keys.begin("k1", FP_A)
    keys.complete("k1", CREATED)
    mismatch = keys.begin("k1", FP_B)
    assert mismatch.outcome == "mismatch" and mismatch.response is None
    # the mismatch did not overwrite the entry: the original payload still replays
    assert keys.begin("k1", FP_A).outcome == "replay"


def test_keys_are_independent(keys: IdempotencyKeys) -> None:
    keys.begin("k1", FP_A)
    keys.complete("k1", CREATED)
    assert keys.begin("k2", FP_A).outcome == "run"  # same payload, another key: a new request
    assert keys.begin("k3", FP_B).outcome == "run"
    assert len(keys) == 3


def test_a_replayed_error_is_still_the_stored_error(keys: IdempotencyKeys) -> None:
    failed = StoredResponse(500, b'{"message": "boom"}')
    keys.begin("k1", FP_A)
    keys.complete("k1", failed)
    assert keys.begin("k1", FP_A).response == failed
    assert failed.headers == {}


# --------------------------------------------------------------------------- abandon


def test_abandon_frees_the_key(keys: IdempotencyKeys) -> None:
    keys.begin("k1", FP_A)
    keys.abandon("k1")
    assert len(keys) == 0
    # freed: even another payload may now use the key (the caller fixed its request)
    assert keys.begin("k1", FP_B).outcome == "run"


def test_abandon_of_an_unknown_key_is_harmless(keys: IdempotencyKeys) -> None:
    keys.abandon("never-seen")
    assert len(keys) == 0


# --------------------------------------------------------------------------- expiry


def test_completed_key_is_kept_until_just_before_the_window(
    keys: IdempotencyKeys, clock: FakeClock
) -> None:
    keys.begin("k1", FP_A)
    keys.complete("k1", CREATED)
    clock.advance(59.999)
    assert keys.begin("k1", FP_A).outcome == "replay"
    assert len(keys) == 1


def test_completed_key_expires_after_the_window(keys: IdempotencyKeys, clock: FakeClock) -> None:
    keys.begin("k1", FP_A)
    keys.complete("k1", CREATED)
    clock.advance(60.0)
    assert len(keys) == 0
    assert keys.begin("k1", FP_A).outcome == "run"  # forgotten: the request runs again


def test_expired_key_may_be_reused_for_another_payload(
    keys: IdempotencyKeys, clock: FakeClock
) -> None:
    keys.begin("k1", FP_A)
    keys.complete("k1", CREATED)
    clock.advance(61.0)
    assert keys.begin("k1", FP_B).outcome == "run"


def test_window_counts_from_completion_not_from_begin(
    keys: IdempotencyKeys, clock: FakeClock
) -> None:
    keys.begin("k1", FP_A)
    clock.advance(30.0)  # a slow request
    keys.complete("k1", CREATED)
    clock.advance(59.0)  # 89 s after begin, 59 s after completion
    assert keys.begin("k1", FP_A).outcome == "replay"
    clock.advance(1.0)
    assert keys.begin("k1", FP_A).outcome == "run"


def test_a_running_key_never_expires(keys: IdempotencyKeys, clock: FakeClock) -> None:
    keys.begin("k1", FP_A)
    clock.advance(10 * 60.0)
    assert keys.begin("k1", FP_A).outcome == "in_progress"


def test_expiry_is_per_key(keys: IdempotencyKeys, clock: FakeClock) -> None:
    keys.begin("old", FP_A)
    keys.complete("old", CREATED)
    clock.advance(40.0)
    keys.begin("new", FP_A)
    keys.complete("new", CREATED)
    clock.advance(20.0)  # "old" is 60 s old, "new" 20 s
    assert keys.begin("old", FP_A).outcome == "run"
    assert keys.begin("new", FP_A).outcome == "replay"


def test_default_window_is_a_day() -> None:
    assert DEFAULT_WINDOW_S == 24 * 3600
    assert IdempotencyKeys().window_s == DEFAULT_WINDOW_S


@pytest.mark.parametrize("window", [0, 0.0, -1, -0.5, math.nan])
def test_invalid_window_raises(window: float) -> None:
    with pytest.raises(ValueError, match="window_s must be > 0"):
        IdempotencyKeys(window_s=window)


# --------------------------------------------------------------------------- threads


def test_concurrent_begins_let_exactly_one_request_run() -> None:
    keys = IdempotencyKeys(clock=FakeClock())
    barrier = threading.Barrier(16)
    outcomes: list[str] = []
    lock = threading.Lock()

    def claim() -> None:
        barrier.wait()
        outcome = keys.begin("shared", FP_A).outcome
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=claim) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=5)
    assert sorted(outcomes) == ["in_progress"] * 15 + ["run"]


# --------------------------------------------------------------------------- fingerprint


def test_fingerprint_ignores_json_key_order() -> None:
    one = {"body": "hi", "meta": {"a": 1, "b": [1, 2]}}
    two = {"meta": {"b": [1, 2], "a": 1}, "body": "hi"}
    assert fingerprint("POST", PATH, one) == fingerprint("POST", PATH, two)


def test_fingerprint_ignores_method_case() -> None:
    assert fingerprint("post", PATH, {"body": "hi"}) == fingerprint("POST", PATH, {"body": "hi"})


@pytest.mark.parametrize(
    ("method", "path", "payload"),
    [
        ("POST", PATH, {"body": "hi!"}),  # another value
        ("POST", PATH, {"body": "hi", "extra": None}),  # another field
        ("POST", PATH, {"Body": "hi"}),  # key names are case-sensitive
        ("POST", PATH, ["hi"]),  # another shape
        ("POST", PATH, None),
        ("PUT", PATH, {"body": "hi"}),  # another method
        ("POST", "/repositories/1/issues/129/comments", {"body": "hi"}),  # another path
    ],
)
def test_fingerprint_sees_values_method_and_path(method: str, path: str, payload: object) -> None:
    assert fingerprint(method, path, payload) != fingerprint("POST", PATH, {"body": "hi"})


def test_fingerprint_list_order_matters() -> None:
    assert fingerprint("POST", PATH, [1, 2]) != fingerprint("POST", PATH, [2, 1])


def test_fingerprint_is_a_sha256_hex_digest() -> None:
    digest = fingerprint("POST", PATH, {"body": "ünïcödé ✓"})
    assert len(digest) == 64 and int(digest, 16) >= 0
    assert digest == fingerprint("POST", PATH, {"body": "ünïcödé ✓"})  # stable


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=10,
)


@given(payload=st.dictionaries(st.text(max_size=4), json_values, max_size=6), data=st.data())
@settings(max_examples=30, deadline=None)
def test_fingerprint_is_invariant_under_key_permutation(payload: dict, data: st.DataObject) -> None:
    order = data.draw(st.permutations(list(payload)))
    reordered = {key: payload[key] for key in order}
    assert reordered == payload  # the same content, maybe in another order
    assert fingerprint("POST", PATH, reordered) == fingerprint("POST", PATH, payload)


# --------------------------------------------------------------------------- property


requests = st.lists(
    st.tuples(st.sampled_from(["k1", "k2", "k3", "k4"]), st.sampled_from(["a", "b", "c"])),
    max_size=30,
)


@given(requests)
@settings(max_examples=200, deadline=None)
def test_each_distinct_key_runs_once_and_replays_its_stored_response(
    sequence: list[tuple[str, str]],
) -> None:
    """Requests completed one after the other: the first of a key runs, every later one with
    the same payload replays the first response, another payload is a mismatch."""
    keys = IdempotencyKeys(clock=FakeClock())
    first: dict[str, tuple[str, StoredResponse]] = {}  # key -> (payload body, stored response)
    runs: list[str] = []
    for n, (key, body) in enumerate(sequence):
        begin = keys.begin(key, fingerprint("POST", PATH, {"body": body}))
        if key not in first:
            assert begin.outcome == "run"
            response = StoredResponse(201, json.dumps({"id": n, "body": body}).encode())
            keys.complete(key, response)
            first[key] = (body, response)
            runs.append(key)
        elif first[key][0] == body:
            assert begin.outcome == "replay"
            assert begin.response == first[key][1]
        else:
            assert begin.outcome == "mismatch"
    assert sorted(runs) == sorted({key for key, _ in sequence})  # each key ran exactly once
    assert len(keys) == len(first)


# --------------------------------------------------------------------------- with the store

REPO, PR = "example/shop", 128
COMMENTS = f"/repos/{REPO}/issues/{PR}/comments"
#: serve (real HTTP) and serve_in_process: the key table must behave the same in both.
EMULATORS: dict[str, Callable[..., Any]] = {"http": serve, "in_process": serve_in_process}


def post(handle: Any, body: str, key: str) -> httpx.Response:
    """One keyed comment write to the emulator of ``handle``."""
    # serve's handle has no transport without a fault plan (None: httpx's own)
    with httpx.Client(base_url=handle.base_url, transport=handle.transport()) as client:
        return client.post(COMMENTS, json={"body": body}, headers={"Idempotency-Key": key})


def copies(store: GitHubStore, body: str) -> int:
    return sum(c.body == body for c in store.issue_comments(REPO, PR))


@pytest.mark.parametrize("emulator", list(EMULATORS.values()), ids=list(EMULATORS))
def test_a_restarted_emulator_on_the_same_store_replays_the_key(
    emulator: Callable[..., Any],
) -> None:
    # Filed: the key table was made per serve(), so a restart on the same store forgot
    # every key and a client that trusted the server's keys posted twice.
    store = build_store()
    with emulator(store, idempotency="optional") as handle:
        first = post(handle, "Summary: two issues.", "restart-key-1")
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    with emulator(store, idempotency="optional") as handle:  # the restart
        again = post(handle, "Summary: two issues.", "restart-key-1")
        assert handle.requests[-1].replayed
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"] and again.content == first.content
    assert again.headers["Location"] == first.headers["Location"]
    assert copies(store, "Summary: two issues.") == 1


def test_after_a_restart_the_same_key_with_another_body_is_still_422() -> None:
    store = build_store()
    with serve(store, idempotency="optional") as handle:
        assert post(handle, "first", "restart-key-2").status_code == 201
    with serve(store, idempotency="required") as handle:  # another mode: the same table
        assert post(handle, "second", "restart-key-2").status_code == 422
    assert copies(store, "first") == 1 and copies(store, "second") == 0


def test_two_emulators_of_one_store_at_once_share_its_key_table() -> None:
    store = build_store()
    with (
        serve(store, idempotency="optional") as one,
        serve_in_process(store, idempotency="optional") as other,
    ):
        first = post(one, "shared", "shared-key-1")
        replay = post(other, "shared", "shared-key-1")
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json()["id"] == first.json()["id"] and copies(store, "shared") == 1


def test_another_store_has_its_own_key_table() -> None:
    stores = build_store(), build_store()
    for store in stores:
        with serve_in_process(store, idempotency="optional") as handle:
            answer = post(handle, "per store", "store-key-1")
            assert "Idempotent-Replayed" not in answer.headers
    assert [copies(store, "per store") for store in stores] == [1, 1]


def test_a_serve_with_keys_off_neither_uses_nor_creates_the_table() -> None:
    store = build_store()
    with serve(store) as handle:  # "off", as GitHub: the header is ignored
        assert post(handle, "twice", "off-key-1").status_code == 201
        assert post(handle, "twice", "off-key-1").status_code == 201
    assert copies(store, "twice") == 2
    # no table was made with the default window: a later serve may choose its own
    with serve(store, idempotency="optional", idempotency_window_s=5.0) as handle:
        assert post(handle, "once", "off-key-2").status_code == 201
    assert store.idempotency_keys().window_s == 5.0


@pytest.mark.parametrize("emulator", list(EMULATORS.values()), ids=list(EMULATORS))
def test_one_store_keeps_one_window_and_refuses_another(emulator: Callable[..., Any]) -> None:
    store = build_store()
    with emulator(store, idempotency="optional", idempotency_window_s=30.0):
        pass
    assert store.idempotency_keys().window_s == 30.0
    with (
        pytest.raises(ValueError, match="kept 30.0 s") as refused,
        emulator(store, idempotency="optional", idempotency_window_s=60.0),
    ):
        pytest.fail("an emulator with another window started")  # pragma: no cover
    assert "idempotency_window_s" in str(refused.value)
    with emulator(store, idempotency="required", idempotency_window_s=30.0):
        pass  # the same window again is fine
    with emulator(store, idempotency="off", idempotency_window_s=60.0):
        pass  # keys off: the window is not used, so it is not checked


def test_the_store_table_is_the_one_the_emulator_uses() -> None:
    store = build_store()
    keys = store.idempotency_keys()
    assert store.idempotency_keys() is keys and keys.window_s == DEFAULT_WINDOW_S
    assert store.idempotency_keys(DEFAULT_WINDOW_S) is keys
    with serve_in_process(store, idempotency="optional") as handle:
        post(handle, "counted", "table-key-1")
    assert len(keys) == 1


@pytest.mark.parametrize("window", [0.0, -1.0, math.nan])
def test_a_serve_refuses_a_window_that_is_not_positive(window: float) -> None:
    with (
        pytest.raises(ValueError, match="idempotency_window_s must be > 0"),
        serve(build_store(), idempotency="optional", idempotency_window_s=window),
    ):
        pytest.fail("started")  # pragma: no cover


def test_forgetting_the_keys_empties_the_table_and_keeps_its_window() -> None:
    store = build_store()
    with serve_in_process(store, idempotency="optional", idempotency_window_s=40.0) as handle:
        assert post(handle, "lost key", "forget-key-1").status_code == 201
        handle.forget_idempotency_keys()  # a service that loses its key table
        again = post(handle, "lost key", "forget-key-1")
        assert "Idempotent-Replayed" not in again.headers
    assert copies(store, "lost key") == 2  # why clients read back even with keys
    assert store.idempotency_keys().window_s == 40.0 and len(store.idempotency_keys()) == 1
