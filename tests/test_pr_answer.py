"""Chapter 04's answer for PR 128: three classes, each judgement cited from real tool results.

Also keeps the chapter's two live demonstrations honest against the emulator's fixture: an
empty page that still carries a cursor, and what each paging order does with comments that
arrive mid-read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry
from tutorial_lib.course.chapters.ch04_paged_summaries.demos import findings_text, headline
from tutorial_lib.course.table import display_width
from tutorial_lib.emulator.fixtures import (
    ARJUN,
    DOUBLE_ROUNDING_COMMENT_ID,
    MUST_NOT_MISS_COMMENT_IDS,
    build_store,
)
from tutorial_lib.emulator.service import serve
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import GitHubToolContext, github_tool_specs
from tutorial_lib.worlds.pr128 import (
    BOT_REASON,
    CATEGORIES,
    OUTDATED_REASON,
    Evidence,
    Judgement,
    PullRequestAnswer,
    build_answer,
    cite,
    judge_pr128,
    routine_set_aside,
)

SCOPE = {"repository": "example/shop", "pr": 128}
KEY = b"course-demo-key-0123456789abcdef"


def read_host(client: GitHubClient, **limits: int) -> Host:
    """The host of chapter 04's read tools on ``client`` (read-only: no guards needed)."""
    return Host(Registry(github_tool_specs(GitHubToolContext(client, CursorCodec(KEY), **limits))))


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Host, GitHubClient]]:
    with serve(build_store()) as handle, GitHubClient(handle.base_url) as client:
        yield read_host(client), client


@pytest.fixture(scope="module")
def host(served: tuple[Host, GitHubClient]) -> Host:
    return served[0]


def read_all(host: Host, **extra: Any) -> tuple[list[dict[str, Any]], list[dict]]:
    """(every comment entry, every page's data) of one listing followed to complete."""
    args: dict[str, Any] = SCOPE | extra
    entries: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    while True:
        envelope = host.call("github_pr_list_comments", args)
        assert envelope["ok"] is True, envelope
        data = envelope["data"]
        pages.append(data)
        entries += data["comments"]
        if data["coverage"] == "complete":
            return entries, pages
        args = args | {"cursor": data["next_cursor"]}


def quote(host: Host, comment_id: int, field: str, words: str, **extra: Any) -> Evidence:
    arguments = SCOPE | {"comment_id": comment_id} | extra
    return cite(host, "github_pr_get_comment", arguments, field, words)


@pytest.fixture(scope="module")
def chapter_answer(host: Host) -> PullRequestAnswer:
    entries, pages = read_all(host, page_size=50)
    judgements, agent_set_aside = judge_pr128(host, SCOPE)  # chapter 04's judgements
    aside = routine_set_aside(entries) | agent_set_aside
    return build_answer("example/shop", 128, pages[-1]["coverage"], entries, judgements, aside)


# --------------------------------------------------------------------------- the answer


def test_chapter_answer_sorts_the_unresolved_comments_into_three_classes(chapter_answer) -> None:
    assert chapter_answer.coverage == "complete" and chapter_answer.comments_read == 69
    assert chapter_answer.judged_by == "agent"
    assert chapter_answer.ids() == {
        "confirmed": [1700000035, 1700000067],
        "to_verify": [1700000042, 1700000048, 1700000055],
        "opinion": [
            1700000031, 1700000034, 1700000039, 1700000054, 1700000059, 1700000063, 1700000069,
        ],
    }  # fmt: skip
    # the fixture's "must not miss" comments are all findings, none dropped or set aside
    found = {f.comment_id for f in chapter_answer.findings if f.category != "opinion"}
    assert set(MUST_NOT_MISS_COMMENT_IDS) <= found
    reasons = [reason for _, reason in chapter_answer.set_aside]
    assert reasons.count(BOT_REASON) == 18 and reasons.count(OUTDATED_REASON) == 3


def test_findings_copy_the_listing_and_their_entries_are_callable(host, chapter_answer):
    entries = {e["comment_id"]: e for e in read_all(host, page_size=50)[0]}
    for finding in chapter_answer.findings:
        entry = entries[finding.comment_id]
        assert (finding.file, finding.line, finding.summary, finding.details) == (
            entry["file"],
            entry["line"],
            entry["summary"],
            entry["details"],
        )
        details = finding.details
        assert details["name"] == "github_pr_get_comment"
        assert set(details["arguments"]) == {"repository", "pr", "comment_id"}
        got = host.call(details["name"], details["arguments"])
        assert got["ok"] is True and got["data"]["comment_id"] == finding.comment_id


def test_the_hedged_risk_keeps_the_reviewers_hedging(chapter_answer) -> None:
    rounding = next(
        f for f in chapter_answer.findings if f.comment_id == DOUBLE_ROUNDING_COMMENT_ID
    )
    assert rounding.category == "to_verify"
    cue = "possible double processing (unconfirmed)"
    assert cue in rounding.summary and "I think" in rounding.summary
    assert cue in findings_text(chapter_answer, ["to_verify"])


def test_every_cited_quote_is_in_the_result_of_its_call(host, chapter_answer) -> None:
    for finding in chapter_answer.findings:
        assert finding.cue or finding.evidence
        for evidence in finding.evidence:
            data = host.call(evidence.call["name"], evidence.call["arguments"])["data"]
            value = data[evidence.field]
            assert (
                evidence.quote in value if isinstance(value, str) else str(value) == evidence.quote
            )


def test_the_text_fits_100_columns_and_names_every_finding(chapter_answer) -> None:
    text = headline(chapter_answer) + "\n" + findings_text(chapter_answer)
    assert max(display_width(line) for line in text.splitlines()) <= 100
    for finding in chapter_answer.findings:
        assert str(finding.comment_id) in text
    assert "Agent 的判断" in headline(chapter_answer)
    for category in CATEGORIES:
        assert len(findings_text(chapter_answer, [category])) <= 1500


def test_a_partial_reading_says_so() -> None:
    answer = build_answer("o/r", 1, "partial", [], {}, {})
    assert "只读了一部分" in answer.summary_line()
    assert "只读了一部分" not in build_answer("o/r", 1, "complete", [], {}, {}).summary_line()


# --------------------------------------------------------------------------- cite


def test_cite_refuses_words_the_result_does_not_hold(host) -> None:
    with pytest.raises(ValueError, match="does not contain"):
        quote(host, 1700000042, "body", "The discount is rounded twice")
    with pytest.raises(ValueError, match="does not contain"):
        quote(host, 1700000036, "in_reply_to_id", "17000000", response_format="detailed")
    with pytest.raises(ValueError, match="no field"):
        quote(host, 1700000042, "verdict", "blocking")
    with pytest.raises(ValueError, match="does not contain"):
        quote(host, 1700000042, "body", "")


def test_cite_refuses_a_failed_call(host) -> None:
    other = {"repository": "other/shop", "pr": 128, "comment_id": DOUBLE_ROUNDING_COMMENT_ID}
    with pytest.raises(ValueError, match="not_found"):
        cite(host, "github_pr_get_comment", other, "body", "I think")


def test_cite_records_the_call_as_sent(host) -> None:
    arguments = SCOPE | {"comment_id": 1700000042}
    evidence = cite(host, "github_pr_get_comment", arguments, "body", "I think")
    arguments["comment_id"] = 1
    assert evidence.call == {
        "name": "github_pr_get_comment",
        "arguments": SCOPE | {"comment_id": 1700000042},
    }
    assert evidence.line() == 'github_pr_get_comment(comment_id=1700000042).body: "I think"'


# --------------------------------------------------------------------------- build_answer


def entry(comment_id: int, summary: str, *, resolved=False, outdated=False) -> dict[str, Any]:
    return {
        "comment_id": comment_id,
        "file": "a.py",
        "line": 1,
        "summary": summary,
        "resolved": resolved,
        "outdated": outdated,
        "details": {"name": "github_pr_get_comment", "arguments": {"comment_id": comment_id}},
    }


ENTRIES = [
    entry(1, 'Reviewer nit: "rename"'),
    entry(2, 'Bot: "Added line #L1 was not covered by tests"'),
    entry(3, 'Reviewer reports: "old"', outdated=True),
    entry(4, 'Reviewer requests: "fix it"', resolved=True),
]
BODY = Evidence("crash", "body", {"name": "github_pr_get_comment", "arguments": SCOPE})


def test_routine_set_aside_takes_bots_and_outdated_only() -> None:
    assert routine_set_aside(ENTRIES) == {2: BOT_REASON, 3: OUTDATED_REASON}


@pytest.mark.parametrize(
    ("judgements", "aside", "message"),
    [
        ({}, {2: "bot", 3: "old"}, r"neither judged nor set aside: \[1\]"),
        ({1: Judgement("opinion", "nit", cue="nit")}, {1: "x", 2: "b", 3: "o"}, "at once"),
        (
            {1: Judgement("opinion", "nit", cue="nit"), 4: Judgement("opinion", "r", cue="fix")},
            {2: "b", 3: "o"},
            r"not unresolved comments of this reading: \[4\]",
        ),
        ({1: Judgement("blocking", "nit", cue="nit")}, {2: "b", 3: "o"}, "is not one of"),
        ({1: Judgement("opinion", " ", cue="nit")}, {2: "b", 3: "o"}, "needs a reason"),
        ({1: Judgement("opinion", "nit")}, {2: "b", 3: "o"}, "must cite"),
        ({1: Judgement("opinion", "nit", cue="Up to you")}, {2: "b", 3: "o"}, "does not say"),
        ({1: Judgement("confirmed", "nit", cue="nit")}, {2: "b", 3: "o"}, "full comment"),
        (
            {1: Judgement("confirmed", "bug", evidence=(BODY,))},
            {2: "b", 3: " "},
            "without a reason",
        ),
    ],
)
def test_build_answer_refuses_a_dishonest_answer(judgements, aside, message) -> None:
    with pytest.raises(ValueError, match=message):
        build_answer("example/shop", 128, "complete", ENTRIES, judgements, aside)


def test_build_answer_refuses_evidence_from_another_pr() -> None:
    elsewhere = Evidence(
        "crash", "body", {"name": "github_pr_get_comment", "arguments": SCOPE | {"pr": 7}}
    )
    with pytest.raises(ValueError, match="another repository or PR"):
        build_answer(
            "example/shop",
            128,
            "complete",
            ENTRIES,
            {1: Judgement("confirmed", "bug", evidence=(elsewhere,))},
            {2: "b", 3: "o"},
        )


def test_build_answer_accepts_a_confirmed_finding_that_cites_the_body() -> None:
    answer = build_answer(
        "example/shop",
        128,
        "complete",
        ENTRIES,
        {1: Judgement("confirmed", "bug", evidence=(BODY,))},
        {2: "b", 3: "o"},
    )
    assert answer.ids()["confirmed"] == [1] and answer.set_aside == ((2, "b"), (3, "o"))


# --------------------------------------------------------------------------- live demonstrations


def test_a_tight_upstream_budget_gives_an_empty_page_with_a_cursor(served) -> None:
    host, client = served
    tight = read_host(client, upstream_per_page=5, max_upstream_pages=1)
    _, pages = read_all(tight, filter="unresolved", page_size=3)
    empty = [n for n, page in enumerate(pages, start=1) if not page["comments"]]
    assert empty and empty[0] == 2
    for number in empty:
        page = pages[number - 1]
        assert page["coverage"] == "partial" and page["next_cursor"]
    tight_ids = [c["comment_id"] for page in pages for c in page["comments"]]
    default_ids = [c["comment_id"] for c in read_all(host, filter="unresolved", page_size=50)[0]]
    assert tight_ids == default_ids and len(default_ids) == 36


def test_comments_arriving_mid_read_appear_at_the_end_of_the_ascending_keyset() -> None:
    store = build_store()
    with serve(store) as handle, GitHubClient(handle.base_url) as client:
        host = read_host(client)
        args: dict[str, Any] = SCOPE | {"page_size": 10}
        data = host.call("github_pr_list_comments", args)["data"]
        seen = [c["comment_id"] for c in data["comments"]]
        new = [
            store.add_review_comment(
                "example/shop", 128, user=ARJUN, body="late", path="a", line=1
            ).id
            for _ in range(3)
        ]
        while data["coverage"] != "complete":
            args = args | {"cursor": data["next_cursor"]}
            data = host.call("github_pr_list_comments", args)["data"]
            seen += [c["comment_id"] for c in data["comments"]]
    assert len(seen) == len(set(seen)) == 72 and seen[-3:] == new
