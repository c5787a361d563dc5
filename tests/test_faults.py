"""Scripted faults and idempotency keys of the GitHub emulator, and the client's error mapping.

Three layers: :class:`FaultPlan` alone (parsing, matching, steps, history); the emulator over
real HTTP with ``httpx`` (each fault kind as the client sees it, and what was stored;
``idempotency`` off/optional/required); and :class:`GitHubClient` turning those failures into
contract errors. Delays are short (client timeouts 0.1-0.2 s, server delays 0.5 s), and a
server-side effect is awaited by polling with a deadline, never by a bare sleep.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack
from typing import Any

import httpx
import pytest

from tests.pieces import HANG_S
from tutorial_lib.core.contracts import ContractError
from tutorial_lib.emulator.faults import (
    COMMENT_WRITE_PATH,
    FAULT_KINDS,
    Fault,
    FaultPlan,
    RefusingTransport,
)
from tutorial_lib.emulator.fixtures import GitHubStore, build_store
from tutorial_lib.emulator.service import (
    InProcessHandle,
    ServedRequest,
    ServiceHandle,
    serve,
    serve_in_process,
)
from tutorial_lib.github.client import GitHubClient, PostedComment

REPO = "example/shop"
PR = 128
COMMENTS = f"/repos/{REPO}/issues/{PR}/comments"
STORING = ("commit_then_timeout", "commit_then_reset", "slow_commit")


def wait_until(condition: Callable[[], bool], timeout_s: float = HANG_S) -> bool:
    """Poll ``condition`` until it holds or the deadline passes; its last value."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return condition()
        time.sleep(0.01)
    return True


def bodies(store: GitHubStore) -> list[str]:
    return [c.body for c in store.issue_comments(REPO, PR)]


def count(store: GitHubStore) -> int:
    return len(store.issue_comments(REPO, PR))


Handle = ServiceHandle | InProcessHandle
#: ``serve`` or ``serve_in_process``: the emulator over real HTTP, or without sockets.
Emulate = Callable[..., AbstractContextManager[Handle]]


@pytest.fixture(params=["http", "in_process"])
def emulate(request: pytest.FixtureRequest) -> Emulate:
    """The tests that take this fixture run twice: over real HTTP (:func:`serve`), and in
    process (:func:`serve_in_process`), where every fault must look the same to httpx."""
    return serve if request.param == "http" else serve_in_process  # type: ignore[return-value]


def transport_for(handle: Handle) -> httpx.BaseTransport:
    """``handle.transport()`` when there is a plan, else a plain transport.

    ``verify=False`` only skips loading the CA bundle (~50 ms per transport, which adds up
    over this file); it changes nothing on ``http://127.0.0.1``.
    """
    return handle.transport() or httpx.HTTPTransport(verify=False)


def http(handle: Handle, timeout_s: float = 2.0) -> httpx.Client:
    """A raw httpx client on the emulator that honours the plan's ``refuse`` steps."""
    transport = transport_for(handle)
    return httpx.Client(base_url=handle.base_url, transport=transport, timeout=timeout_s)


def post(
    client: httpx.Client, body: Any = "hello", key: str | bytes | None = None, path: str = COMMENTS
) -> httpx.Response:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return client.post(path, json={"body": body}, headers=headers)


@pytest.fixture
def store() -> GitHubStore:
    return build_store()


# =========================================================================== FaultPlan alone

# --------------------------------------------------------------------------- parse


def test_parse_a_mixed_script() -> None:
    plan = FaultPlan.parse("unavailable:2, ok, refuse")
    assert plan.steps == (Fault("unavailable", retry_after_s=2), None, Fault("refuse"))
    assert plan.remaining == 3
    assert plan.method == "POST" and plan.path.pattern == COMMENT_WRITE_PATH


@pytest.mark.parametrize("text", ["", "   ", ",", " , ,, "])
def test_parse_empty_texts_give_an_empty_plan(text: str) -> None:
    plan = FaultPlan.parse(text)
    assert plan.steps == () and plan.remaining == 0


def test_parse_ok_is_a_normal_request() -> None:
    assert FaultPlan.parse("ok").steps == (None,)
    assert FaultPlan.parse("ok,ok , ok").steps == (None, None, None)


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_parse_each_kind_alone_has_defaults(kind: str) -> None:
    (step,) = FaultPlan.parse(kind).steps
    assert step == Fault(kind)  # type: ignore[arg-type]
    assert (step.retry_after_s, step.delay_s) == (1, 0.5)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("unavailable:3", Fault("unavailable", retry_after_s=3)),
        ("rate_limited:7", Fault("rate_limited", retry_after_s=7)),
        ("rate_limited:0", Fault("rate_limited", retry_after_s=0)),
        ("commit_then_timeout:0.25", Fault("commit_then_timeout", delay_s=0.25)),
        ("slow_commit:1.5", Fault("slow_commit", delay_s=1.5)),
        ("slow_commit:2", Fault("slow_commit", delay_s=2.0)),
    ],
)
def test_parse_kind_with_a_number(text: str, expected: Fault) -> None:
    assert FaultPlan.parse(text).steps == (expected,)


@pytest.mark.parametrize(
    "text",
    [
        "unavailable=2",
        "unavailable:",
        "unavailable:two",
        "Unavailable",
        "slow commit",
        "refuse;ok",
        "unavailable:-1",
    ],
)
def test_parse_unreadable_step_is_a_clear_value_error(text: str) -> None:
    with pytest.raises(ValueError, match=r"cannot read fault step .*write e\.g\. 'unavailable:2'"):
        FaultPlan.parse(text)


@pytest.mark.parametrize("text", ["unavailable:1.2.3", "slow_commit:1..5"])
def test_parse_malformed_number_is_a_clear_value_error(text: str) -> None:
    with pytest.raises(ValueError, match="cannot read fault step"):
        FaultPlan.parse(text)


def test_parse_error_names_the_bad_step_only() -> None:
    with pytest.raises(ValueError, match=r"^cannot read fault step 'boom!': "):
        FaultPlan.parse("ok, unavailable:2, boom!, refuse")


def test_parse_unknown_kind_lists_the_known_kinds() -> None:
    with pytest.raises(ValueError, match="unknown fault kind 'explode'") as info:
        FaultPlan.parse("ok, explode")
    for kind in FAULT_KINDS:
        assert kind in str(info.value)


def test_parse_out_of_range_number_is_refused() -> None:
    with pytest.raises(ValueError, match="delay_s"):
        FaultPlan.parse("slow_commit:61")


def test_parse_passes_method_and_path() -> None:
    plan = FaultPlan.parse("refuse", method="get", path=r"/pulls/\d+$")
    assert plan.method == "GET"
    assert plan.matches("GET", "/repos/a/b/pulls/1")
    assert not plan.matches("POST", COMMENTS)


# --------------------------------------------------------------------------- Fault


def test_fault_stores_only_for_the_commit_kinds() -> None:
    assert {kind for kind in FAULT_KINDS if Fault(kind).stores} == set(STORING)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "explode"}, "unknown fault kind"),
        ({"kind": "ok"}, "unknown fault kind"),
        ({"kind": "unavailable", "retry_after_s": -1}, "retry_after_s must be >= 0"),
        ({"kind": "unavailable", "retry_after_s": 1.5}, "whole seconds"),
        ({"kind": "unavailable", "retry_after_s": "2"}, "whole seconds"),
        ({"kind": "unavailable", "retry_after_s": True}, "whole seconds"),
        ({"kind": "slow_commit", "delay_s": -0.1}, "delay_s must be between 0 and 60"),
        ({"kind": "slow_commit", "delay_s": 60.5}, "delay_s must be between 0 and 60"),
        ({"kind": "slow_commit", "delay_s": float("nan")}, "delay_s must be between 0 and 60"),
    ],
)
def test_fault_validation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Fault(**kwargs)


@pytest.mark.parametrize("delay", [0, 0.0, 60, 60.0])
def test_fault_delay_bounds_are_inclusive(delay: float) -> None:
    assert Fault("commit_then_timeout", delay_s=delay).delay_s == delay


def test_plan_accepts_faults_kind_names_ok_and_none() -> None:
    plan = FaultPlan([Fault("unavailable", retry_after_s=4), "refuse", "ok", None])
    assert plan.steps == (Fault("unavailable", retry_after_s=4), Fault("refuse"), None, None)


def test_plan_refuses_an_unknown_kind_name() -> None:
    with pytest.raises(ValueError, match="unknown fault kind 'nope'"):
        FaultPlan(["nope"])


# --------------------------------------------------------------------------- matching, steps


@pytest.mark.parametrize(
    ("method", "path", "matches"),
    [
        ("POST", COMMENTS, True),
        ("post", COMMENTS, True),
        ("POST", "/repositories/4242/issues/7/comments", True),
        ("GET", COMMENTS, False),
        ("PATCH", COMMENTS, False),
        ("POST", "/repos/example/shop/pulls/128/comments", False),
        ("POST", "/repos/example/shop/issues/comments/5", False),
        ("POST", COMMENTS + "/extra", False),
        ("POST", "/graphql", False),
    ],
)
def test_default_plan_matches_only_the_comment_write(method: str, path: str, matches: bool) -> None:
    assert FaultPlan(["refuse"]).matches(method, path) is matches


def test_non_matching_requests_consume_nothing() -> None:
    plan = FaultPlan(["unavailable"])
    assert plan.take("GET", COMMENTS) is None
    assert plan.take("POST", "/graphql") is None
    assert plan.take_refusal("GET", COMMENTS) is False
    assert plan.remaining == 1 and plan.history == []


def test_steps_are_consumed_in_order_with_history() -> None:
    plan = FaultPlan.parse("unavailable:2, ok, commit_then_reset")
    other = "/repositories/9/issues/1/comments"
    assert plan.take("POST", COMMENTS) == Fault("unavailable", retry_after_s=2)
    assert plan.remaining == 2
    assert plan.take("post", other) is None  # the "ok" step
    assert plan.take("POST", COMMENTS) == Fault("commit_then_reset")
    assert plan.remaining == 0
    assert [(h.ordinal, h.method, h.path, h.fault) for h in plan.history] == [
        (1, "POST", COMMENTS, "unavailable"),
        (2, "POST", other, None),
        (3, "POST", COMMENTS, "commit_then_reset"),
    ]


def test_exhausted_plan_serves_normally_and_keeps_counting() -> None:
    plan = FaultPlan(["unavailable"])
    plan.take("POST", COMMENTS)
    assert plan.take("POST", COMMENTS) is None
    assert plan.take("POST", COMMENTS) is None
    assert [h.fault for h in plan.history] == ["unavailable", None, None]
    assert [h.ordinal for h in plan.history] == [1, 2, 3]


def test_remaining_never_goes_negative() -> None:
    plan = FaultPlan(["ok"])
    for _ in range(3):
        plan.take("POST", COMMENTS)
    assert plan.remaining == 0
    assert repr(plan) == "FaultPlan([ok], next=1)"


def test_take_refusal_consumes_only_a_refuse_step() -> None:
    plan = FaultPlan.parse("unavailable, refuse")
    assert plan.take_refusal("POST", COMMENTS) is False  # next step is not a refusal: kept
    assert plan.remaining == 2 and plan.history == []
    assert plan.take("POST", COMMENTS) == Fault("unavailable")
    assert plan.take_refusal("POST", COMMENTS) is True
    assert plan.take_refusal("POST", COMMENTS) is False  # exhausted
    assert [(h.ordinal, h.fault) for h in plan.history] == [(1, "unavailable"), (2, "refuse")]


def test_take_refusal_leaves_an_ok_step() -> None:
    plan = FaultPlan(["ok", "refuse"])
    assert plan.take_refusal("POST", COMMENTS) is False
    assert plan.remaining == 2


def test_custom_method_and_path() -> None:
    plan = FaultPlan(["unavailable"], method="get", path=r"/pulls/\d+/comments$")
    assert plan.take("POST", COMMENTS) is None
    assert plan.take("GET", COMMENTS) is None
    assert plan.take("GET", "/repos/example/shop/pulls/128/comments") == Fault("unavailable")


def test_concurrent_takes_hand_out_each_step_once() -> None:
    plan = FaultPlan([Fault("slow_commit", delay_s=n / 100) for n in range(40)])
    barrier = threading.Barrier(8)
    got: list[float] = []
    lock = threading.Lock()

    def worker() -> None:
        barrier.wait()
        for _ in range(5):
            step = plan.take("POST", COMMENTS)
            assert step is not None
            with lock:
                got.append(step.delay_s)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=5)
    assert sorted(got) == [n / 100 for n in range(40)]
    assert sorted(h.ordinal for h in plan.history) == list(range(1, 41))


def test_repr_shows_the_script_and_position() -> None:
    plan = FaultPlan.parse("refuse, ok")
    assert repr(plan) == "FaultPlan([refuse, ok], next=0)"


# --------------------------------------------------------------------------- RefusingTransport


def test_refusing_transport_refuses_then_forwards() -> None:
    seen: list[str] = []

    def app(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return httpx.Response(201, json={"id": 1})

    plan = FaultPlan(["refuse"])
    transport = RefusingTransport(plan, inner=httpx.MockTransport(app))
    with httpx.Client(base_url="http://example.test", transport=transport) as client:
        with pytest.raises(httpx.ConnectError):
            client.post(COMMENTS, json={"body": "x"})
        assert seen == []  # the refused request never reached the inner transport
        assert client.post(COMMENTS, json={"body": "x"}).status_code == 201
        assert client.get(COMMENTS).status_code == 201
    assert seen == [COMMENTS, COMMENTS]
    assert [h.fault for h in plan.history] == ["refuse"]


def test_refused_port_is_bound_but_not_listening() -> None:
    transport = FaultPlan().transport()
    try:
        assert isinstance(transport, RefusingTransport) and transport.refused_port > 0
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{transport.refused_port}/", timeout=2)
    finally:
        transport.close()


def test_pending_says_whether_a_kind_is_still_to_come() -> None:
    plan = FaultPlan.parse("slow_commit, ok, refuse")
    assert plan.pending("slow_commit") and plan.pending("refuse")
    assert not plan.pending("unavailable")
    plan.take("POST", COMMENTS)
    assert not plan.pending("slow_commit") and plan.pending("refuse")
    assert plan.take_refusal("POST", COMMENTS) is False  # the next step is "ok"
    plan.take("POST", COMMENTS)
    assert plan.take_refusal("POST", COMMENTS) and not plan.pending("refuse")


# =========================================================================== emulator + httpx


def test_no_plan_means_no_transport(store: GitHubStore) -> None:
    with serve(store) as handle:
        assert handle.faults is None and handle.transport() is None


def test_refuse_is_a_real_connect_error(store: GitHubStore, emulate: Emulate) -> None:
    plan = FaultPlan.parse("refuse")
    with emulate(store, faults=plan) as handle, http(handle) as client:
        with pytest.raises(httpx.ConnectError):
            post(client)
        assert count(store) == 10
        assert handle.requests == []  # no server saw it
        assert [h.fault for h in plan.history] == ["refuse"]
        assert post(client).status_code == 201  # the next one goes through
        assert count(store) == 11


def test_unavailable_is_503_with_retry_after_and_nothing_stored(
    store: GitHubStore, emulate: Emulate
) -> None:
    with emulate(store, faults=FaultPlan.parse("unavailable:2")) as handle, http(handle) as client:
        response = post(client)
        assert response.status_code == 503
        assert response.headers["Retry-After"] == "2"
        assert count(store) == 10
        assert handle.requests == [
            ServedRequest(
                "POST", COMMENTS, 503, "unavailable", idempotency_key=None, replayed=False
            )
        ]


def test_rate_limited_is_429_with_retry_after(store: GitHubStore, emulate: Emulate) -> None:
    with emulate(store, faults=FaultPlan.parse("rate_limited:3")) as handle, http(handle) as client:
        response = post(client)
        assert response.status_code == 429
        assert response.headers["Retry-After"] == "3"
        assert "rate limit" in response.json()["message"]
        assert count(store) == 10


def test_commit_then_timeout_stores_then_times_out(store: GitHubStore, emulate: Emulate) -> None:
    plan = FaultPlan.parse("commit_then_timeout:0.5")
    with emulate(store, faults=plan) as handle, http(handle, timeout_s=0.2) as client:
        with pytest.raises(httpx.ReadTimeout):
            post(client, "stored anyway")
        assert wait_until(lambda: "stored anyway" in bodies(store))
        assert count(store) == 11
        (served,) = handle.requests
        assert (served.status, served.fault) == (201, "commit_then_timeout")


def test_commit_then_reset_is_a_transport_error_not_a_timeout(
    store: GitHubStore, emulate: Emulate
) -> None:
    with (
        emulate(store, faults=FaultPlan.parse("commit_then_reset")) as handle,
        http(handle) as client,
    ):
        with pytest.raises(httpx.TransportError) as info:
            post(client, "cut off")
        assert not isinstance(info.value, httpx.TimeoutException)
        assert bodies(store)[-1] == "cut off"
        assert handle.requests[-1].status is None  # no answer was sent
        assert post(client).status_code == 201  # a fresh connection works


def test_slow_commit_stores_only_after_the_delay(store: GitHubStore, emulate: Emulate) -> None:
    plan = FaultPlan.parse("slow_commit:0.5")
    with emulate(store, faults=plan) as handle, http(handle, timeout_s=0.1) as client:
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            post(client, "late")
        assert count(store) == 10  # the client gave up before the server stored
        assert wait_until(lambda: "late" in bodies(store))
        assert time.monotonic() - started >= 0.5
        assert count(store) == 11


def test_in_process_a_held_answer_times_out_at_once(store: GitHubStore) -> None:
    # The server has stored and will do nothing more: waiting out the client's timeout
    # would change nothing but the wall time, so the in-process transport does not.
    hold = 60  # the longest a fault plan allows; the client would wait as long
    plan = FaultPlan.parse(f"commit_then_timeout:{hold}")
    with serve_in_process(store, faults=plan) as handle, http(handle, timeout_s=hold) as client:
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            post(client, "stored anyway")
        assert time.monotonic() - started < hold / 2  # neither the hold nor the timeout
        assert bodies(store)[-1] == "stored anyway"


def test_in_process_a_short_hold_is_answered_late(store: GitHubStore) -> None:
    plan = FaultPlan.parse("commit_then_timeout:0.2")
    with serve_in_process(store, faults=plan) as handle, http(handle, timeout_s=5) as client:
        started = time.monotonic()
        assert post(client, "late answer").status_code == 201
        assert time.monotonic() - started >= 0.2


def test_in_process_needs_its_transport(store: GitHubStore) -> None:
    with serve_in_process(store) as handle:
        assert handle.base_url.endswith(".invalid")  # never reachable over a network
        assert handle.transport() is not handle.transport()  # one per client, cheap
        with http(handle) as client:
            response = client.get(f"/repos/{REPO}/issues/{PR}/comments?per_page=4")
        assert response.status_code == 200 and len(response.json()) == 4
        assert response.links["next"]["url"].startswith(handle.base_url)


def test_refuse_without_the_transport_is_a_500_that_says_so(store: GitHubStore) -> None:
    with serve(store, faults=FaultPlan.parse("refuse")) as handle:
        with httpx.Client(base_url=handle.base_url, timeout=2) as client:
            response = post(client)
        assert response.status_code == 500
        assert "handle.transport" in response.json()["message"]
        assert count(store) == 10


def test_a_post_plan_leaves_gets_untouched(store: GitHubStore, emulate: Emulate) -> None:
    plan = FaultPlan.parse("refuse, unavailable")
    with emulate(store, faults=plan) as handle, http(handle) as client:
        for _ in range(3):
            response = client.get(COMMENTS)
            assert response.status_code == 200 and len(response.json()) == 10
        assert client.get(f"/repos/{REPO}/pulls/{PR}").status_code == 200
        assert plan.remaining == 2 and plan.history == []
        with pytest.raises(httpx.ConnectError):
            post(client)
        assert post(client).status_code == 503


def test_a_get_plan_refuses_reads(store: GitHubStore, emulate: Emulate) -> None:
    plan = FaultPlan(["refuse", "unavailable"], method="GET")
    with emulate(store, faults=plan) as handle, http(handle) as client:
        with pytest.raises(httpx.ConnectError):
            client.get(COMMENTS)
        assert client.get(COMMENTS).status_code == 503
        assert client.get(COMMENTS).status_code == 200
        assert post(client).status_code == 201


def test_requests_lists_every_answered_request(store: GitHubStore, emulate: Emulate) -> None:
    plan = FaultPlan.parse("refuse, unavailable, ok")
    with emulate(store, faults=plan) as handle, http(handle) as client:
        with pytest.raises(httpx.ConnectError):
            post(client)
        post(client)
        post(client)
        client.get(COMMENTS)
    assert [(r.method, r.status, r.fault) for r in handle.requests] == [
        ("POST", 503, "unavailable"),
        ("POST", 201, None),
        ("GET", 200, None),
    ]


# --------------------------------------------------------------------------- idempotency


def test_unknown_idempotency_mode_is_refused(store: GitHubStore, emulate: Emulate) -> None:
    mode: Any = "on"
    with pytest.raises(ValueError, match="idempotency must be"), emulate(store, idempotency=mode):
        pass


def test_off_ignores_the_key_like_github(store: GitHubStore, emulate: Emulate) -> None:
    with emulate(store) as handle, http(handle) as client:
        first = post(client, "twice", key="k-1")
        second = post(client, "twice", key="k-1")
        assert (first.status_code, second.status_code) == (201, 201)
        assert first.json()["id"] != second.json()["id"]
        assert "Idempotent-Replayed" not in second.headers
        assert bodies(store)[-2:] == ["twice", "twice"]
        assert [r.idempotency_key for r in handle.requests] == [None, None]


def test_optional_replays_the_same_answer_once_stored(store: GitHubStore, emulate: Emulate) -> None:
    with emulate(store, idempotency="optional") as handle, http(handle) as client:
        first = post(client, "once", key="k-1")
        second = post(client, "once", key="k-1")
        assert first.status_code == second.status_code == 201
        assert second.content == first.content
        assert second.headers["Location"] == first.headers["Location"]
        assert second.headers["Idempotent-Replayed"] == "true"
        assert "Idempotent-Replayed" not in first.headers
        assert bodies(store).count("once") == 1
        assert [(r.idempotency_key, r.replayed) for r in handle.requests] == [
            ("k-1", False),
            ("k-1", True),
        ]


def test_optional_without_a_key_behaves_like_github(store: GitHubStore, emulate: Emulate) -> None:
    with emulate(store, idempotency="optional") as handle, http(handle) as client:
        assert post(client, "dup").status_code == 201
        assert post(client, "dup").status_code == 201
        assert bodies(store).count("dup") == 2


def test_optional_replay_through_the_repositories_path(
    store: GitHubStore, emulate: Emulate
) -> None:
    repo_id = store.repository(REPO).id  # type: ignore[union-attr]
    other_path = f"/repositories/{repo_id}/issues/{PR}/comments"
    with emulate(store, idempotency="optional") as handle, http(handle) as client:
        first = post(client, "same", key="k-1")
        second = post(client, "same", key="k-1", path=other_path)
        assert second.headers.get("Idempotent-Replayed") == "true"
        assert second.json()["id"] == first.json()["id"]
        assert count(store) == 11


def test_optional_key_with_another_payload_is_422(store: GitHubStore, emulate: Emulate) -> None:
    with emulate(store, idempotency="optional") as handle, http(handle) as client:
        assert post(client, "first", key="k-1").status_code == 201
        response = post(client, "second", key="k-1")
        assert response.status_code == 422
        assert "Idempotency-Key" in response.json()["message"]
        assert bodies(store)[-1] == "first" and count(store) == 11


def test_optional_key_on_another_pr_is_422(store: GitHubStore, emulate: Emulate) -> None:
    with emulate(store, idempotency="optional") as handle, http(handle) as client:
        before = store.issue_comments("other/shop", PR)
        assert post(client, "x", key="k-1").status_code == 201
        other = post(client, "x", key="k-1", path="/repos/other/shop/issues/128/comments")
        assert other.status_code == 422
        assert store.issue_comments("other/shop", PR) == before


def claim_observer(monkeypatch: pytest.MonkeyPatch, store: GitHubStore) -> threading.Event:
    """Make the store's key table (which every emulator of ``store`` uses) signal when a
    request claims an idempotency key."""
    claimed = threading.Event()
    keys = store.idempotency_keys()
    begin = keys.begin

    def observed_begin(key: str, request_fingerprint: str) -> Any:
        answer = begin(key, request_fingerprint)
        if answer.outcome == "run":
            claimed.set()
        return answer

    monkeypatch.setattr(keys, "begin", observed_begin)
    return claimed


def test_optional_duplicate_while_in_flight_is_409(
    store: GitHubStore, monkeypatch: pytest.MonkeyPatch, emulate: Emulate
) -> None:
    claimed = claim_observer(monkeypatch, store)
    plan = FaultPlan.parse("slow_commit:0.5")
    with emulate(store, faults=plan, idempotency="optional") as handle, http(handle) as client:
        answers: list[httpx.Response] = []
        first = threading.Thread(target=lambda: answers.append(post(client, "slow", key="k-1")))
        first.start()
        assert claimed.wait(timeout=3)
        duplicate = post(client, "slow", key="k-1")
        first.join(timeout=5)
        assert duplicate.status_code == 409
        assert "still being processed" in duplicate.json()["message"]
        assert [a.status_code for a in answers] == [201]
        replay = post(client, "slow", key="k-1")  # done now: the duplicate replays
        assert replay.headers["Idempotent-Replayed"] == "true"
        assert replay.json()["id"] == answers[0].json()["id"]
        assert bodies(store).count("slow") == 1


def test_optional_validation_failure_does_not_burn_the_key(
    store: GitHubStore, emulate: Emulate
) -> None:
    with emulate(store, idempotency="optional") as handle, http(handle) as client:
        failed = post(client, "   ", key="k-1")
        assert failed.status_code == 422
        assert failed.json()["errors"][0]["field"] == "body"
        assert count(store) == 10
        fixed = post(client, "fixed", key="k-1")
        assert fixed.status_code == 201
        assert "Idempotent-Replayed" not in fixed.headers
        assert bodies(store)[-1] == "fixed"


def test_optional_key_survives_commit_then_timeout(store: GitHubStore, emulate: Emulate) -> None:
    plan = FaultPlan.parse("commit_then_timeout:0.5")
    with (
        emulate(store, faults=plan, idempotency="optional") as handle,
        http(handle, timeout_s=0.2) as client,
    ):
        with pytest.raises(httpx.ReadTimeout):
            post(client, "retried", key="k-1")
        retry = post(client, "retried", key="k-1")
        assert retry.status_code == 201
        assert retry.headers["Idempotent-Replayed"] == "true"
        assert bodies(store).count("retried") == 1


def test_required_refuses_a_missing_key(store: GitHubStore, emulate: Emulate) -> None:
    with emulate(store, idempotency="required") as handle, http(handle) as client:
        response = post(client, "no key")
        assert response.status_code == 400
        assert "Idempotency-Key" in response.json()["message"]
        assert count(store) == 10
        assert client.get(COMMENTS).status_code == 200  # reads need no key
        assert post(client, "with key", key="k-1").status_code == 201


def test_required_refuses_an_invalid_key(store: GitHubStore, emulate: Emulate) -> None:
    with emulate(store, idempotency="required") as handle, http(handle) as client:
        for key in ["has space", "", "x" * 256, "tab\there", "caf\u00e9".encode()]:
            response = post(client, "bad key", key=key)
            assert response.status_code == 400, key
            assert "1 to 255 visible ASCII" in response.json()["message"]
        assert count(store) == 10
        assert post(client, "longest key", key="~" * 255).status_code == 201


def test_key_is_forgotten_after_the_window(store: GitHubStore, emulate: Emulate) -> None:
    with (
        emulate(store, idempotency="optional", idempotency_window_s=0.3) as handle,
        http(handle) as client,
    ):
        first = post(client, "again", key="k-1")
        time.sleep(0.35)  # longer than the window: a pure time condition, not a server effect
        second = post(client, "again", key="k-1")
        assert (first.status_code, second.status_code) == (201, 201)
        assert "Idempotent-Replayed" not in second.headers
        assert second.json()["id"] != first.json()["id"]
        assert bodies(store).count("again") == 2


# =========================================================================== GitHubClient


@pytest.fixture
def connect(
    store: GitHubStore, emulate: Emulate
) -> Iterator[Callable[..., tuple[Handle, GitHubClient]]]:
    """``connect(plan, **serve_kwargs)``: a served store and a client with its transport;
    ``plan`` is a :class:`FaultPlan`, its text, or None. Over HTTP and in process."""
    with ExitStack() as stack:

        def start(
            plan: FaultPlan | str | None = None, **kwargs: Any
        ) -> tuple[Handle, GitHubClient]:
            faults = FaultPlan.parse(plan) if isinstance(plan, str) else plan
            handle = stack.enter_context(emulate(store, faults=faults, **kwargs))
            transport = transport_for(handle)
            client = GitHubClient(handle.base_url, timeout_s=0.2, transport=transport)
            stack.enter_context(client)
            return handle, client

        yield start


def failure(client: GitHubClient, body: str = "hello", key: str | None = None) -> ContractError:
    with pytest.raises(ContractError) as info:
        client.post_issue_comment(REPO, PR, body, idempotency_key=key)
    return info.value


def test_client_posts_and_reports_not_replayed(connect, store: GitHubStore) -> None:
    _, client = connect()
    posted = client.post_issue_comment(REPO, PR, "plain")
    assert isinstance(posted, PostedComment) and posted.replayed is False
    assert posted.comment["body"] == "plain"
    assert posted.comment["id"] == store.issue_comments(REPO, PR)[-1].id
    assert client.create_issue_comment(REPO, PR, "compat")["body"] == "compat"


def test_client_refused_connection_is_temporary(connect, store: GitHubStore) -> None:
    _, client = connect("refuse")
    error = failure(client)
    assert error.code == "temporary_unavailable"
    assert error.log["exception_class"] == "ConnectError"
    assert count(store) == 10


def test_client_429_is_temporary_with_retry_after(connect) -> None:
    _, client = connect("rate_limited:3")
    error = failure(client)
    assert error.code == "temporary_unavailable"
    assert error.log["status"] == 429 and error.log["retry_after"] == "3"


def test_client_503_on_a_write_is_outcome_unknown(connect) -> None:
    _, client = connect("unavailable:2")
    error = failure(client)
    assert error.code == "outcome_unknown"
    assert error.log["status"] == 503 and error.log["retry_after"] == "2"
    assert "list the PR's comments" in error.fields["suggestion"]


def test_client_500_refuse_without_transport_is_outcome_unknown(store: GitHubStore) -> None:
    with (
        serve(store, faults=FaultPlan.parse("refuse")) as handle,
        GitHubClient(handle.base_url, timeout_s=0.2) as client,  # no handle.transport()
    ):
        error = failure(client)
    assert error.code == "outcome_unknown" and error.log["status"] == 500


def test_client_commit_then_timeout_is_outcome_unknown(connect, store: GitHubStore) -> None:
    _, client = connect("commit_then_timeout:0.5")
    error = failure(client, "maybe")
    assert error.code == "outcome_unknown"
    assert error.log["exception_class"] == "ReadTimeout"
    assert wait_until(lambda: "maybe" in bodies(store))


def test_client_commit_then_reset_is_outcome_unknown(connect, store: GitHubStore) -> None:
    _, client = connect("commit_then_reset")
    error = failure(client, "cut")
    assert error.code == "outcome_unknown"
    assert "Timeout" not in error.log["exception_class"]
    assert bodies(store)[-1] == "cut"


def test_client_read_failures_are_temporary_not_unknown(connect) -> None:
    _, client = connect(FaultPlan(["refuse", "unavailable"], method="GET"))
    with pytest.raises(ContractError) as refused:
        client.list_issue_comments(REPO, PR)
    with pytest.raises(ContractError) as unavailable:
        client.list_issue_comments(REPO, PR)
    assert len(client.list_issue_comments(REPO, PR)) == 10
    assert refused.value.code == "temporary_unavailable"
    assert refused.value.log["exception_class"] == "ConnectError"
    assert unavailable.value.code == "temporary_unavailable"
    assert unavailable.value.log["status"] == 503


def test_client_replay_after_an_unknown_outcome(connect, store: GitHubStore) -> None:
    _, client = connect("commit_then_timeout:0.5", idempotency="optional")
    assert failure(client, "exactly once", key="k-1").code == "outcome_unknown"
    retried = client.post_issue_comment(REPO, PR, "exactly once", idempotency_key="k-1")
    assert retried.replayed is True
    assert retried.comment["id"] == store.issue_comments(REPO, PR)[-1].id
    assert bodies(store).count("exactly once") == 1


def test_client_replayed_flag(connect) -> None:
    _, client = connect(idempotency="optional")
    first = client.post_issue_comment(REPO, PR, "twice?", idempotency_key="k-1")
    second = client.post_issue_comment(REPO, PR, "twice?", idempotency_key="k-1")
    assert (first.replayed, second.replayed) == (False, True)
    assert second.comment == first.comment


def test_client_key_ignored_when_off(connect) -> None:
    _, client = connect()
    first = client.post_issue_comment(REPO, PR, "twice", idempotency_key="k-1")
    second = client.post_issue_comment(REPO, PR, "twice", idempotency_key="k-1")
    assert not second.replayed and second.comment["id"] != first.comment["id"]


def test_client_slow_commit_is_unknown_then_409_while_in_flight(
    connect, store: GitHubStore
) -> None:
    handle, client = connect("slow_commit:0.5", idempotency="optional")
    with GitHubClient(handle.base_url, timeout_s=0.1, transport=transport_for(handle)) as impatient:
        assert failure(impatient, "in flight", key="k-1").code == "outcome_unknown"
    error = failure(client, "in flight", key="k-1")  # the server still holds the key
    assert error.code == "temporary_unavailable"
    assert error.log["status"] == 409 and "SAME key" in error.message
    assert wait_until(lambda: "in flight" in bodies(store))
    replay = client.post_issue_comment(REPO, PR, "in flight", idempotency_key="k-1")
    assert replay.replayed and bodies(store).count("in flight") == 1


def test_client_key_reused_for_another_comment_is_invalid_key(connect) -> None:
    _, client = connect(idempotency="optional")
    client.post_issue_comment(REPO, PR, "first", idempotency_key="k-1")
    error = failure(client, "second", key="k-1")
    assert error.code == "invalid_value"
    assert error.fields["field"] == "idempotency_key"
    assert error.log["status"] == 422


def test_client_validation_422_is_invalid_without_key_field(connect) -> None:
    _, client = connect(idempotency="optional")
    error = failure(client, "  ", key="k-1")
    assert error.code == "invalid_value" and "field" not in error.fields
    assert client.post_issue_comment(REPO, PR, "fixed", idempotency_key="k-1").replayed is False


def test_client_missing_key_when_required_is_invalid(connect) -> None:
    _, client = connect(idempotency="required")
    error = failure(client)
    assert error.code == "invalid_value" and error.log["status"] == 400
    assert error.fields["field"] == "idempotency_key"


def test_client_refuses_a_key_the_server_would_refuse(connect, store: GitHubStore) -> None:
    handle, client = connect(idempotency="optional")
    error = failure(client, key="has space")
    assert error.code == "invalid_value" and error.fields["field"] == "idempotency_key"
    assert handle.requests == [] and count(store) == 10  # never sent


def test_server_refuses_an_invalid_key_with_400(store: GitHubStore) -> None:
    with serve(store, idempotency="optional") as handle, http(handle) as client:
        response = post(client, key="has space")
    assert response.status_code == 400 and "Idempotency-Key" in response.json()["message"]
    assert count(store) == 10


@pytest.mark.parametrize("key", ["caf\u00e9", "a\nb"])
def test_client_unsendable_key_is_invalid_not_unknown(connect, key: str) -> None:
    _, client = connect(idempotency="optional")
    assert failure(client, key=key).code == "invalid_value"


def test_list_issue_comments_follows_every_page(connect, store: GitHubStore) -> None:
    handle, client = connect()
    for n in range(3):
        client.post_issue_comment(REPO, PR, f"extra {n}")
    listed = client.list_issue_comments(REPO, PR, per_page=3)
    expected = store.issue_comments(REPO, PR)
    assert len(expected) == 13
    assert [c["id"] for c in listed] == [c.id for c in expected]
    assert [c["body"] for c in listed] == [c.body for c in expected]
    gets = [r for r in handle.requests if r.method == "GET"]
    assert len(gets) == 5  # ceil(13 / 3)


def test_list_issue_comments_of_another_repository(connect, store: GitHubStore) -> None:
    _, client = connect()
    listed = client.list_issue_comments("other/shop", PR, per_page=1)
    assert [c["id"] for c in listed] == [c.id for c in store.issue_comments("other/shop", PR)]


def test_in_process_slow_commits_land_before_the_block_ends() -> None:
    # The client gives up on a slow commit; the worker thread that carries it must not
    # outlive serve_in_process (it would change the store of a finished test).
    store = build_store()
    before = len(store.issue_comments("example/shop", 128))
    with (
        serve_in_process(store, faults=FaultPlan.parse("slow_commit:0.4")) as handle,
        GitHubClient(handle.base_url, timeout_s=0.05, transport=handle.transport()) as client,
    ):
        with pytest.raises(ContractError) as lost:
            client.post_issue_comment("example/shop", 128, "late")
        assert lost.value.code == "outcome_unknown"
        assert len(store.issue_comments("example/shop", 128)) == before  # not yet
    assert len(store.issue_comments("example/shop", 128)) == before + 1  # landed, then ended
