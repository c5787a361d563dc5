"""Benchmark the PR tools: keyset paging vs offset paging, emulator throughput, context budget.

Run it from the project root, with the project's venv active::

    python benchmarks/github_pagination_benchmark.py            # 10,000 comments
    python benchmarks/github_pagination_benchmark.py --comments 2000

What it measures (see benchmarks/README.md, "PR comments: keyset vs offset"):

(a) a ``make_large_pr`` PR served by the emulator over real HTTP (127.0.0.1), listed to
    ``complete`` through ``github_pr_list_comments`` (page_size 50): wall time per tool
    page against the page index, median of the first 10 vs the last 10 pages; and the same
    for an OFFSET baseline: a naive stateless tool that answers "page k" by following the
    REST ``Link`` headers from the first page and skipping ``50 * k`` comments
    (``itertools.islice(client.iter_review_comments(...), 50 * k, 50 * k + 50)``), timed on
    the same first 10 and last 10 page indices. GraphQL requests of the keyset listing are
    counted, with the thread-state cache and without it (the cache cleared before every
    call, which is what every call did before the cache).
(b) emulator throughput: sequential GET review-comments pages (per_page 100) on one
    keep-alive connection, requests per second.
(c) characters a model reads to answer the PR 128 question on the fixture
    (:func:`tutorial_lib.agent.budget.context_budget`).

Targets: (a) last-10 median within 1.5x of the first-10 median for keyset; (c) summaries
plus TARGETED details at most 25% of dump_everything: `unresolved_plus_details` (the concise
pages of the open threads, then details only for the open human comments: bot notes are
already quoted whole in their summary). The broader `concise_plus_details` (every page, and
details for every open comment bots included) is printed too; it does not meet 25% on this
fixture (38.5% when measured). Prints PASS/FAIL and exits 1 if a target fails. Timings
depend on the machine: a script, not a test.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time

import httpx

from tutorial_lib.agent.budget import context_budget
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry
from tutorial_lib.emulator.fixtures import build_store, make_large_pr
from tutorial_lib.emulator.service import serve
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import LIST_COMMENTS_SPEC, GitHubToolContext, github_tool_specs

REPO, PR, PAGE = "example/large", 1, 50


class Counting(httpx.HTTPTransport):
    """An HTTP transport that counts GraphQL requests."""

    graphql = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/graphql":
            self.graphql += 1
        return super().handle_request(request)


def keyset(base_url: str, *, cache: bool) -> tuple[list[float], int, int]:
    """(seconds per tool page, comments seen, GraphQL requests) for one full listing."""
    transport = Counting()
    with GitHubClient(base_url, transport=transport) as client:
        context = GitHubToolContext(client, CursorCodec(b"benchmark-key-0123456789"))
        host = Host(Registry(github_tool_specs(context)))
        args: dict = {"repository": REPO, "pr": PR, "page_size": PAGE}
        times, seen = [], 0
        while True:
            if not cache:
                context.thread_cache.clear()
            start = time.perf_counter()
            envelope = host.call(LIST_COMMENTS_SPEC.name, args)
            times.append(time.perf_counter() - start)
            data = envelope["data"]
            seen += len(data["comments"])
            if data["coverage"] == "complete":
                return times, seen, transport.graphql
            args = {**args, "cursor": data["next_cursor"]}


def offset_page(client: GitHubClient, index: int) -> list[dict]:
    """The naive offset tool's page ``index`` (0-based): skip from the first REST page."""
    comments = client.iter_review_comments(REPO, PR, per_page=100)
    return list(itertools.islice(comments, PAGE * index, PAGE * index + PAGE))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--comments", type=int, default=10_000)
    options = parser.parse_args()
    failures = 0
    print(f"building a PR with {options.comments} review comments...", file=sys.stderr)
    store = make_large_pr(options.comments)
    with serve(store) as handle:
        # (a) keyset
        times, seen, graphql = keyset(handle.base_url, cache=True)
        assert seen == options.comments, (seen, options.comments)
        pages = len(times)
        first, last = statistics.median(times[1:11]), statistics.median(times[-10:])
        # page 0 fetches the thread states (GraphQL): it is reported apart
        with GitHubClient(handle.base_url, transport=Counting()) as client:
            context = GitHubToolContext(client, CursorCodec(b"benchmark-key-0123456789"))
            host = Host(Registry(github_tool_specs(context)))
            first_page = {"repository": REPO, "pr": PR, "page_size": PAGE}
            host.call(LIST_COMMENTS_SPEC.name, first_page)
            per_call = client._http._transport.graphql  # type: ignore[attr-defined]
        # offset baseline: same page indices
        with GitHubClient(handle.base_url) as client:
            indices = list(range(1, 11)) + list(range(pages - 10, pages))
            offset_times = {}
            for index in indices:
                start = time.perf_counter()
                offset_page(client, index)
                offset_times[index] = time.perf_counter() - start
        o_first = statistics.median(offset_times[i] for i in indices[:10])
        o_last = statistics.median(offset_times[i] for i in indices[10:])
        # (b) throughput
        with httpx.Client(base_url=handle.base_url) as http:
            n_pages = -(-options.comments // 100)
            requests = 300
            start = time.perf_counter()
            for i in range(requests):
                url = f"/repos/{REPO}/pulls/{PR}/comments"
                http.get(url, params={"page": i % n_pages + 1, "per_page": 100}).raise_for_status()
            throughput = requests / (time.perf_counter() - start)

    print(f"\n## (a) {options.comments} comments, {pages} tool pages of {PAGE}\n")
    print("| paging | first page | median pages 2-11 | median last 10 | last / first |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| keyset (tool) | {times[0] * 1e3:.1f} ms | {first * 1e3:.2f} ms"
        f" | {last * 1e3:.2f} ms | {last / first:.2f}x |"
    )
    print(
        f"| offset (skip from page 1) | - | {o_first * 1e3:.2f} ms"
        f" | {o_last * 1e3:.2f} ms | {o_last / o_first:.2f}x |"
    )
    print(
        f"\nGraphQL requests for the whole listing: {graphql} with the thread-state cache;"
        f" {per_call} per call without it, so {per_call * pages} for {pages} pages."
    )
    ok = last <= 1.5 * first
    failures += not ok
    print(f"{'PASS' if ok else 'FAIL'}: keyset last-10 median within 1.5x of pages 2-11")

    print("\n## (b) emulator throughput\n")
    print(
        f"| request | requests/s |\n|---|---:|\n| GET review comments, per_page 100 |"
        f" {throughput:.0f} |"
    )

    budget = context_budget(build_store())
    dump = budget["dump_everything"]
    print("\n## (c) characters to answer the PR 128 question (example/shop, page_size 10)\n")
    print("| what the model reads | characters | share of dump |\n|---|---:|---:|")
    for key, value in budget.items():
        print(f"| {key} | {value} | {value / dump:.0%} |")
    ok = budget["unresolved_plus_details"] <= 0.25 * dump
    failures += not ok
    share = budget["unresolved_plus_details"] / dump
    print(
        f"{'PASS' if ok else 'FAIL'}: summaries of open threads + targeted details"
        f" (unresolved_plus_details) are {share:.1%} of dump (<= 25%)"
    )
    share = budget["concise_plus_details"] / dump
    verdict = "within" if share <= 0.25 else "above"
    print(
        f"INFO: every page + details of every open comment, bots included"
        f" (concise_plus_details): {share:.1%} of dump ({verdict} 25%)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
