"""The emulator stays up under load and bad requests (issue 12 §2).

Malformed requests go over raw sockets (http.client and httpx refuse to send them); each
must get one GitHub-shaped answer (``message`` + ``documentation_url``), no traceback on
the server's stderr, and the server must answer the next request. Then: a concurrent load
with no connection error, an idle timeout per connection, and no write landing after
``serve()`` has returned.
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.pieces import HANG_S
from tutorial_lib.emulator.faults import FaultPlan
from tutorial_lib.emulator.fixtures import GitHubStore, build_store
from tutorial_lib.emulator.service import REVIEW_THREADS_QUERY_SHAPE, ServiceHandle, serve

COMMENTS = "/repos/example/shop/issues/128/comments"
HUGE = "9" * 5000


@pytest.fixture(scope="module")
def handle() -> Iterator[ServiceHandle]:
    with serve(build_store(), idempotency="optional") as running:
        yield running


def _request(method: str, path: str, body: bytes = b"", headers: str = "") -> bytes:
    """A request with a correct Content-Length (unless ``headers`` brings its own framing)."""
    framing = (
        ""
        if "Content-Length" in headers or "Transfer-Encoding" in headers
        else (f"Content-Length: {len(body)}\r\n" if body or method == "POST" else "")
    )
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}{framing}\r\n"
    return head.encode("latin-1") + body


def _responses(raw: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """Every HTTP response in ``raw`` (status, lower-cased headers, body)."""
    out = []
    while raw:
        head, sep, rest = raw.partition(b"\r\n\r\n")
        assert sep, f"a truncated response: {raw[:200]!r}"
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines)}
        length = int(headers.get("content-length", "0"))
        assert len(rest) >= length, "a response shorter than its Content-Length"
        out.append((int(status_line.split(" ", 2)[1]), headers, rest[:length]))
        raw = rest[length:]
    return out


def _exchange(port: int, raw: bytes, *, timeout_s: float = HANG_S) -> bytes:
    """Send ``raw``, half-close, and read everything the server sends until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def _graphql(variables: str, query: str = REVIEW_THREADS_QUERY_SHAPE) -> bytes:
    return f'{{"query": {json.dumps(query)}, "variables": {variables}}}'.encode()


GOOD_VARIABLES = '{"owner": "example", "name": "shop", "number": 128, "first": 5}'


def _post(body: bytes = b"", headers: str = "", path: str = COMMENTS) -> bytes:
    return _request("POST", path, body, headers)


def _get(path: str) -> bytes:
    return _request("GET", path)


def _cl(*values: str) -> str:
    return "".join(f"Content-Length: {v}\r\n" for v in values)


CHUNKED = "Transfer-Encoding: chunked\r\n"
DEEP_BODY = ('{"body": ' + _deep(100_000) + "}").encode()
LONG_BODY = json.dumps({"body": "x" * 65_537}).encode()
SURROGATE = b'{"body": "a\\ud800b"}'
SURROGATE_KEY = b'{"body": "x", "\\udc00": 1}'
REPO = "/repos/example/shop"

#: (name, raw request, expected status): one answer each, GitHub-shaped.
MALFORMED: list[tuple[str, bytes, int]] = [
    ("non-numeric Content-Length", _post(headers=_cl("abc")), 400),
    ("negative Content-Length", _post(headers=_cl("-1")), 400),
    ("signed Content-Length", _post(b"{}", _cl("+2")), 400),
    ("two Content-Lengths", _post(b'{"body": "x"}', _cl("13", "3")), 400),
    ("a Content-Length list", _post(b'{"body": "x"}', _cl("13, 3")), 400),
    ("a huge Content-Length", _post(headers=_cl(HUGE)), 413),
    ("a body over the size limit", _post(headers=_cl("2000000")), 413),
    ("a body shorter than its Content-Length", _post(b'{"bo', _cl("40")), 400),
    ("comment body nested 100k deep", _post(DEEP_BODY), 400),
    ("comment payload nested 100k deep", _post(_deep(100_000).encode()), 400),
    ("comment body nested 101 deep", _post(('{"body": ' + _deep(100) + "}").encode()), 400),
    ("comment body not UTF-8", _post(b'{"body": "\xff\xfe"}'), 400),
    ("a lone surrogate", _post(SURROGATE), 400),
    ("a lone surrogate, keyed", _post(SURROGATE, "Idempotency-Key: lone-surrogate-1\r\n"), 400),
    ("a lone surrogate in a key", _post(SURROGATE_KEY, "Idempotency-Key: surrogate-2\r\n"), 400),
    ("a 5,000-digit number in the body", _post(b'{"body": "x", "n": ' + HUGE.encode() + b"}"), 400),
    ("a comment over 65,536 characters", _post(LONG_BODY), 422),
    ("graphql nested 100k deep", _post(_deep(100_000).encode(), path="/graphql"), 400),
    ("graphql variables nested 100k deep", _post(_graphql(_deep(100_000)), path="/graphql"), 400),
    ("graphql variables as a list", _post(_graphql("[1, 2]"), path="/graphql"), 400),
    ("graphql variables as a number", _post(_graphql("5"), path="/graphql"), 400),
    ("graphql variables as a string", _post(_graphql('"{}"'), path="/graphql"), 400),
    ("graphql not JSON", _post(b"{query", path="/graphql"), 400),
    ("a 5,000-digit pull number", _get(f"{REPO}/pulls/{HUGE}"), 404),
    ("a 5,000-digit repository id", _get(f"/repositories/{HUGE}"), 404),
    ("a 5,000-digit repository id, pulls", _get(f"/repositories/{HUGE}/pulls/128"), 404),
    ("a 5,000-digit review comment id", _get(f"{REPO}/pulls/comments/{HUGE}"), 404),
    ("a 5,000-digit issue comment id", _get(f"{REPO}/issues/comments/{HUGE}"), 404),
    ("a 5,000-digit issue number, write", _post(b"{}", path=f"{REPO}/issues/{HUGE}/comments"), 404),
    ("a 5,000-digit issue number, list", _get(f"{REPO}/issues/{HUGE}/comments"), 404),
    ("chunked, a size that is not hex", _post(b"zz\r\n{}\r\n0\r\n\r\n", CHUNKED), 400),
    ("chunked, a chunk without its CRLF", _post(b"2\r\n{}XX0\r\n\r\n", CHUNKED), 400),
    ("chunked, cut short", _post(b"10\r\n{}", CHUNKED), 400),
    ("chunked, over the size limit", _post(b"FFFFFFFF\r\n", CHUNKED), 413),
    ("chunked and a Content-Length", _post(b"2\r\n{}\r\n0\r\n\r\n", CHUNKED + _cl("12")), 400),
    ("an unknown transfer coding", _post(b"{}", "Transfer-Encoding: gzip\r\n"), 400),
    ("a request line that is not HTTP", b"HELLO\r\n\r\n", 400),
    ("a header line over 64 KiB", _request("GET", REPO, headers=f"X-Big: {'a' * 70_000}\r\n"), 431),
]


def _assert_github_error(status: int, headers: dict[str, str], body: bytes, expected: int) -> None:
    assert status == expected, body[:300]
    assert headers["content-type"].startswith("application/json")
    payload = json.loads(body)
    assert isinstance(payload["message"], str) and payload["message"]
    assert payload["documentation_url"].startswith("https://docs.github.com/")
    assert payload.get("status", str(expected)) == str(expected)
    if expected == 422:
        assert payload["errors"]


def _assert_still_serving(port: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_S)
    try:
        conn.request("GET", "/repos/example/shop")
        assert conn.getresponse().status == 200
    finally:
        conn.close()


@pytest.mark.parametrize(("name", "raw", "expected"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_request_gets_one_github_shaped_answer(
    handle: ServiceHandle, capfd: pytest.CaptureFixture[str], name: str, raw: bytes, expected: int
) -> None:
    before = len(handle.store.issue_comments("example/shop", 128))
    answers = _responses(_exchange(handle.port, raw))
    assert len(answers) == 1, [a[0] for a in answers]  # nothing misread as a second request
    _assert_github_error(*answers[0], expected)
    _assert_still_serving(handle.port)
    assert "Traceback" not in capfd.readouterr().err
    assert len(handle.store.issue_comments("example/shop", 128)) == before  # nothing stored


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ('"number": [1], "first": 5', "$number of type Int!"),
        ('"number": {"a": 1}, "first": 5', "$number of type Int!"),
        ('"number": "128", "first": 5', "$number of type Int!"),
        ('"number": true, "first": 5', "$number of type Int!"),
        ('"number": 4294967296, "first": 5', "$number of type Int!"),
        ('"number": null, "first": 5', "$number of type Int!"),
        ('"first": 5', "$number of type Int!"),
        ('"number": 128, "first": 5, "owner": ["example"]', "$owner of type String!"),
        ('"number": 128, "first": 5, "after": 3', "$after of type String"),
        ('"number": 128, "first": 5.5', "$first of type Int!"),
    ],
)
def test_graphql_variables_of_the_wrong_type_get_graphql_errors(
    handle: ServiceHandle, capfd: pytest.CaptureFixture[str], variables: str, message: str
) -> None:
    """A well-formed GraphQL request whose variables do not fit their declared types is a
    GraphQL error (HTTP 200 + ``errors``, as GitHub answers), never a crash."""
    variables = '{"owner": "example", "name": "shop", ' + variables + "}"
    [(status, _, body)] = _responses(
        _exchange(handle.port, _post(_graphql(variables), path="/graphql"))
    )
    assert status == 200
    errors = json.loads(body)["errors"]
    assert message in errors[0]["message"] and "was provided invalid value" in errors[0]["message"]
    assert "Traceback" not in capfd.readouterr().err


def test_graphql_good_variables_still_answer(handle: ServiceHandle) -> None:
    answer = _exchange(handle.port, _post(_graphql(GOOD_VARIABLES), path="/graphql"))
    [(status, _, body)] = _responses(answer)
    assert status == 200
    assert json.loads(body)["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]


def test_a_comment_of_exactly_65536_characters_is_stored(handle: ServiceHandle) -> None:
    body = json.dumps({"body": "é" * 65_536}).encode()
    [(status, _, answer)] = _responses(_exchange(handle.port, _request("POST", COMMENTS, body)))
    assert status == 201
    assert json.loads(answer)["body"] == "é" * 65_536


def test_identical_duplicate_content_lengths_are_one_length(handle: ServiceHandle) -> None:
    """RFC 9112 §6.3: a repeated Content-Length with the same value is that value."""
    body = b'{"body": "twice the same length"}'
    headers = f"Content-Length: {len(body)}\r\nContent-Length: {len(body)}\r\n"
    [(status, _, _)] = _responses(_exchange(handle.port, _request("POST", COMMENTS, body, headers)))
    assert status == 201


def test_a_chunked_body_is_read_and_the_next_request_is_answered(handle: ServiceHandle) -> None:
    """Chunks (with an extension and a trailer) are the body; the pipelined GET after them
    is a request of its own, answered second."""
    payload = b'{"body": "sent in chunks"}'
    chunks = b"".join(
        f"{len(part):x}{';ext=1' if i == 0 else ''}\r\n".encode() + part + b"\r\n"
        for i, part in enumerate((payload[:5], payload[5:]))
    )
    post = _post(chunks + b"0\r\nX-Trailer: t\r\n\r\n", CHUNKED)
    answers = _responses(_exchange(handle.port, post + _request("GET", "/repos/example/shop")))
    assert [a[0] for a in answers] == [201, 200]
    assert json.loads(answers[0][2])["body"] == "sent in chunks"


def test_httpx_streamed_bodies_are_read(handle: ServiceHandle) -> None:
    """httpx sends a generator body with ``Transfer-Encoding: chunked``."""

    def parts() -> Iterator[bytes]:
        yield b'{"body": '
        yield b'"streamed by httpx"}'

    response = httpx.post(f"{handle.base_url}{COMMENTS}", content=parts(), timeout=HANG_S)
    assert response.request.headers["transfer-encoding"] == "chunked"
    assert response.status_code == 201
    assert response.json()["body"] == "streamed by httpx"


def test_in_process_transport_reads_streamed_bodies() -> None:
    from tutorial_lib.emulator.service import serve_in_process

    def parts() -> Iterator[bytes]:
        yield b'{"body": "streamed in process"}'

    with (
        serve_in_process(build_store()) as running,
        httpx.Client(base_url=running.base_url, transport=running.transport()) as client,
    ):
        response = client.post(COMMENTS, content=parts())
    assert response.status_code == 201, response.text
    assert response.json()["body"] == "streamed in process"


def test_paths_are_html_escaped_where_echoed(handle: ServiceHandle) -> None:
    [(status, headers, body)] = _responses(_exchange(handle.port, _get("/a<script>&'\"")))
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b"<script>" not in body
    assert b"a&lt;script&gt;&amp;&#x27;&quot;" in body


def test_an_unknown_method_gets_a_json_answer(handle: ServiceHandle) -> None:
    [(status, headers, body)] = _responses(_exchange(handle.port, _request("BREW", REPO)))
    assert status == 501 and headers["content-type"].startswith("application/json")
    assert json.loads(body)["message"]


# -- load ----------------------------------------------------------------------------------


def _listen_overflows() -> int | None:
    """The kernel's count of connections dropped by a full listen backlog (Linux)."""
    path = Path("/proc/net/netstat")
    if not path.exists():
        return None
    lines = path.read_text().splitlines()
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            return int(dict(zip(names.split(), values.split(), strict=True))["ListenOverflows"])
    return None


def _client(
    port: int, index: int, requests: int, errors: list[str], latencies: list[float]
) -> None:
    conn: http.client.HTTPConnection | None = None
    for n in range(requests):
        if conn is None or n % 4 == 0:  # a new connection every 4th request, else keep-alive
            if conn is not None:
                conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_S)
        started = time.perf_counter()
        try:
            if n % 10 == 9:
                conn.request("POST", COMMENTS, body=json.dumps({"body": f"load {index}/{n}"}))
                expected = 201
            else:
                conn.request("GET", ("/repos/example/shop/pulls/128", "/repos/example/shop")[n % 2])
                expected = 200
            response = conn.getresponse()
            response.read()
        except (OSError, http.client.HTTPException) as exc:
            errors.append(type(exc).__name__)
            conn.close()
            conn = None
            continue
        latencies.append(time.perf_counter() - started)
        if response.status != expected:
            errors.append(f"status {response.status}")
    if conn is not None:
        conn.close()


def test_fifty_concurrent_clients_get_no_connection_errors() -> None:
    """50 threads x 20 requests, keep-alive and new connections mixed: 0 errors, 0 drops
    from the listen backlog, and every write stored once. The full 50 x 200 run is
    benchmarks/emulator_load_benchmark.py."""
    store = build_store()
    before = len(store.issue_comments("example/shop", 128))
    errors: list[str] = []
    latencies: list[float] = []
    overflows = _listen_overflows()
    with serve(store) as running:
        threads = [
            threading.Thread(target=_client, args=(running.port, i, 20, errors, latencies))
            for i in range(50)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert len(latencies) == 1000
    if overflows is not None:
        after = _listen_overflows()
        assert after is not None and after - overflows == 0
    assert len(store.issue_comments("example/shop", 128)) == before + 100


# -- slow clients and the end of serve() -----------------------------------------------------


def _closed_within(sock: socket.socket, seconds: float) -> bytes:
    """What the server sends before it closes ``sock`` (fails if it stays open longer)."""
    sock.settimeout(seconds)
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_an_idle_connection_is_closed_after_the_idle_timeout(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with serve(build_store(), idle_timeout_s=0.3) as running:
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", running.port), timeout=HANG_S) as sock:
            assert _closed_within(sock, HANG_S) == b""  # nothing was asked: nothing answered
        # Not before the idle timeout (a busy machine can only make the close later).
        assert time.monotonic() - started >= 0.25
        _assert_still_serving(running.port)
    assert "Traceback" not in capfd.readouterr().err


def _drip_until_closed(sock: socket.socket, data: bytes, every_s: float) -> tuple[int, float]:
    """Send ``data`` a byte every ``every_s``; (bytes sent, seconds) when the server closed."""
    started = time.monotonic()
    for sent, byte in enumerate(data, start=1):
        try:
            sock.sendall(bytes([byte]))
        except OSError:  # a reset or a broken pipe: closed
            return sent, time.monotonic() - started
        time.sleep(every_s)
        if select.select([sock], [], [], 0)[0]:  # readable: end of file (or a reset)
            return sent, time.monotonic() - started
    pytest.fail(f"the server kept a dripping client for {time.monotonic() - started:.1f} s")


def test_a_client_dripping_its_headers_is_cut_at_the_deadline() -> None:
    """A byte every 0.05 s never lets one read time out; the request as a whole does: the
    server closes long before the header ends (2,000 bytes would take 100 s), and not
    before its deadline (a busy machine can only make the close later)."""
    with serve(build_store(), idle_timeout_s=0.4) as running:
        with socket.create_connection(("127.0.0.1", running.port), timeout=HANG_S) as sock:
            head = b"GET /repos/example/shop HTTP/1.1\r\nX-Slow: " + b"a" * 2000
            sent, seconds = _drip_until_closed(sock, head, 0.05)
        assert sent < len(head) and seconds >= 0.3
        _assert_still_serving(running.port)


def test_a_stalled_body_gets_408_and_stores_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    store = build_store()
    before = len(store.issue_comments("example/shop", 128))
    with serve(store, idle_timeout_s=0.3) as running:
        with socket.create_connection(("127.0.0.1", running.port), timeout=HANG_S) as sock:
            sock.sendall(_request("POST", COMMENTS, b'{"body"', "Content-Length: 20\r\n"))
            [(status, headers, body)] = _responses(_closed_within(sock, HANG_S))
        _assert_github_error(status, headers, body, 408)
        _assert_still_serving(running.port)
    assert len(store.issue_comments("example/shop", 128)) == before
    assert "Traceback" not in capfd.readouterr().err


def _post_and_give_up(port: int) -> None:
    """A write whose client gives up after 0.1 s (the slow commit is still in flight)."""
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"http://127.0.0.1:{port}{COMMENTS}", json={"body": "late"}, timeout=0.1)


def _count(store: GitHubStore) -> int:
    return len(store.issue_comments("example/shop", 128))


def test_a_slow_commit_in_flight_lands_before_serve_returns() -> None:
    """The end of serve() waits for a request still running: what the store holds when the
    block is over is final."""
    store = build_store()
    before = _count(store)
    with serve(store, faults=FaultPlan.parse("slow_commit:0.3")) as running:
        _post_and_give_up(running.port)
        assert _count(store) == before  # still sleeping
    at_exit = _count(store)
    time.sleep(0.4)  # past the slow commit's delay
    assert at_exit == _count(store) == before + 1


def test_a_slow_commit_past_the_drain_timeout_never_lands() -> None:
    """When the wait at the end of serve() runs out, the write is cancelled: it never
    stores, not even after its delay. (Had the drain waited instead, the commit would have
    landed: the count after the delay is the proof, whatever the machine's load.)"""
    store = build_store()
    before = _count(store)
    plan = FaultPlan.parse("slow_commit:1.5")  # far past the drain timeout, even when busy
    with serve(store, faults=plan, drain_timeout_s=0.1) as running:
        sent = time.monotonic()
        _post_and_give_up(running.port)
    time.sleep(max(0.0, sent + 1.7 - time.monotonic()))  # past the slow commit's delay
    assert _count(store) == before
    assert not running.thread.is_alive()
    assert [r.status for r in running.requests] == [503]  # its answer: nothing was stored


def test_a_held_answer_does_not_delay_the_end_of_serve() -> None:
    """commit_then_timeout has stored already: the end of serve() lets its answer go
    instead of waiting out the hold."""
    store = build_store()
    before = _count(store)
    hold = 60  # the longest a fault plan allows: waiting it out is unmistakable
    with serve(store, faults=FaultPlan.parse(f"commit_then_timeout:{hold}")) as running:
        _post_and_give_up(running.port)
        started = time.monotonic()
    assert time.monotonic() - started < hold / 2
    assert _count(store) == before + 1
