"""Load the GitHub emulator over real HTTP: N client threads x M requests (issue 12 §2).

Each client thread mixes the two ways a real client connects: a run of requests on one
keep-alive connection, then a request on a fresh connection, and so on (every
``--fresh-every``-th request opens a new connection; the others reuse the current one).
The requests are the reads an agent makes (a pull request, a page of review comments, a
repository, a user) plus a conversation-comment write every ``--write-every``-th request.

It prints the wall time, the request rate, latency percentiles (p50, p90, p99, max, per
request, connect included for fresh connections), the requests that stalled for a second or
more (a connection attempt dropped by a full listen backlog, resent by the kernel after 1 s)
and every error by kind: a connection
reset, a refused connection, a timeout or a status other than the expected one. The target
of issue 12 is 0 errors at 50 x 200.

    python benchmarks/emulator_load_benchmark.py                     # 50 x 200
    python benchmarks/emulator_load_benchmark.py --clients 50 --requests 20

The test suite runs a smaller but still concurrent version
(tests/test_emulator_robustness.py); timings depend on the machine, so this is a script.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event

from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import serve

#: (method, path, expected status): the requests a client cycles through.
READS = [
    ("GET", "/repos/example/shop/pulls/128", 200),
    ("GET", "/repos/example/shop/pulls/128/comments?per_page=5", 200),
    ("GET", "/repos/example/shop", 200),
    ("GET", "/users/course-agent", 200),  # the store's viewer
    ("GET", "/repos/example/shop/issues/128/comments?per_page=5", 200),
]
WRITE = ("POST", "/repos/example/shop/issues/128/comments", 201)


@dataclass
class Tally:
    """What the clients saw, merged under a lock."""

    latencies_s: list[float] = field(default_factory=list)
    fresh_s: list[float] = field(default_factory=list)  # requests on a new connection
    errors: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _request(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None) -> int:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    return response.status


def client(
    port: int, index: int, requests: int, fresh_every: int, write_every: int, tally: Tally
) -> None:
    """One client thread: ``requests`` requests, keep-alive runs and fresh connections."""
    latencies: list[float] = []
    fresh: list[float] = []
    errors: Counter[str] = Counter()
    conn: http.client.HTTPConnection | None = None
    for n in range(requests):
        if n % write_every == write_every - 1:
            method, path, expected = WRITE
            body: bytes | None = json.dumps({"body": f"load {index}/{n}"}).encode()
        else:
            method, path, expected = READS[(index + n) % len(READS)]
            body = None
        is_fresh = conn is None or n % fresh_every == 0
        if is_fresh:
            if conn is not None:
                conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        started = time.perf_counter()
        try:
            status = _request(conn, method, path, body)
        except (ConnectionResetError, BrokenPipeError) as exc:
            errors[f"connection reset ({type(exc).__name__})"] += 1
            conn.close()
            conn = None
            continue
        except ConnectionRefusedError:
            errors["connection refused"] += 1
            conn = None
            continue
        except TimeoutError:
            errors["timeout"] += 1
            conn.close()
            conn = None
            continue
        except (http.client.HTTPException, OSError) as exc:
            errors[type(exc).__name__] += 1
            conn.close()
            conn = None
            continue
        latencies.append(time.perf_counter() - started)
        if is_fresh:
            fresh.append(latencies[-1])
        if status != expected:
            errors[f"status {status}"] += 1
    if conn is not None:
        conn.close()
    with tally.lock:
        tally.latencies_s.extend(latencies)
        tally.fresh_s.extend(fresh)
        tally.errors.update(errors)


def _serve(port_out: Connection, stop: Event) -> None:
    """The server process: serve a fresh store until ``stop`` is set."""
    with serve(build_store()) as handle:
        port_out.send(handle.port)
        stop.wait()


def run(
    clients: int, requests: int, fresh_every: int, write_every: int, same_process: bool
) -> tuple[Tally, float]:
    """Serve a fresh store and run the clients; the tally and the wall time in seconds.

    The server runs in a process of its own (unless ``same_process``), as it does for a
    real client: 50 client threads in the server's process would compete with its
    threads for one interpreter lock and measure that competition."""
    tally = Tally()
    with contextlib.ExitStack() as stack:
        if same_process:
            port = stack.enter_context(serve(build_store())).port
        else:
            receive, send = multiprocessing.Pipe(duplex=False)
            stop = multiprocessing.Event()
            server = multiprocessing.Process(target=_serve, args=(send, stop), daemon=True)
            server.start()
            stack.callback(server.join, 10)
            stack.callback(stop.set)
            port = receive.recv()
        threads = [
            threading.Thread(
                target=client, args=(port, i, requests, fresh_every, write_every, tally)
            )
            for i in range(clients)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall_s = time.perf_counter() - started
    return tally, wall_s


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q``-quantile (0..1) of sorted values, nearest rank."""
    if not sorted_values:
        return float("nan")
    rank = min(len(sorted_values) - 1, max(0, round(q * len(sorted_values)) - 1))
    return sorted_values[rank]


def set_difference(values: list[float], taken: list[float]) -> list[float]:
    """``values`` without one occurrence of each of ``taken`` (a multiset difference)."""
    left = Counter(values)
    left.subtract(Counter(taken))
    return list(left.elements())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=200, help="per client")
    parser.add_argument("--fresh-every", type=int, default=4, help="new connection every Nth")
    parser.add_argument("--write-every", type=int, default=10, help="a POST every Nth")
    parser.add_argument("--same-process", action="store_true", help="serve in the clients' process")
    args = parser.parse_args()
    tally, wall_s = run(
        args.clients, args.requests, args.fresh_every, args.write_every, args.same_process
    )
    total = args.clients * args.requests
    lat = sorted(tally.latencies_s)
    ms = {q: 1000 * percentile(lat, q) for q in (0.5, 0.9, 0.99, 1.0)}
    errors = sum(tally.errors.values())
    fresh = sorted(tally.fresh_s)
    reused = sorted(set_difference(tally.latencies_s, tally.fresh_s))
    # A connection the full listen backlog dropped is retried by the kernel after 1 s (then
    # 3 s, 7 s...): not an error the client sees, but a stall; counted apart.
    stalled = sum(1 for s in lat if s >= 0.9)
    print(f"{args.clients} clients x {args.requests} requests = {total} requests")
    print(f"wall {wall_s:.2f} s, {total / wall_s:.0f} requests/s")
    print(
        f"latency ms: p50 {ms[0.5]:.1f}  p90 {ms[0.9]:.1f}  p99 {ms[0.99]:.1f}"
        f"  max {ms[1.0]:.1f}  (mean {1000 * statistics.fmean(lat or [0.0]):.1f})"
    )
    for label, values in (("new connection", fresh), ("keep-alive", reused)):
        print(
            f"  {label} ({len(values)}): p50 {1000 * percentile(values, 0.5):.1f}"
            f"  p90 {1000 * percentile(values, 0.9):.1f}  p99 {1000 * percentile(values, 0.99):.1f}"
        )
    print(f"stalled >= 0.9 s (a dropped connection attempt resent): {stalled}")
    print(f"errors: {errors}" + "".join(f"\n  {k}: {v}" for k, v in tally.errors.most_common()))
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
