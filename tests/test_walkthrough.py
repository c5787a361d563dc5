"""Chapter 08's walkthrough of "check PR 128": locate, read, judge, stop, post once."""

from __future__ import annotations

from tutorial_lib.emulator.fixtures import INJECTED_COMMENT_ID
from tutorial_lib.worlds.desk import open_walkthrough
from tutorial_lib.worlds.pr128 import conclusion_text

KEY = "review-128-conclusion"


def test_an_unnamed_repository_is_asked_about_before_anything_is_read() -> None:
    with open_walkthrough(faults=None) as walk:
        first = walk.locate(None)
        assert first["error"]["code"] == "confirmation_required"
        request = walk.flow.requests[-1]
        assert request.question.candidates == ("example/shop", "other/shop")
        assert [(r.tool, r.station) for r in walk.log] == [
            ("github_pr_get_review_snapshot", "confirmation")
        ]
        walk.flow.answer(request.request_id, "accept", choice="example/shop")
        snapshot = walk.read(request)
        assert snapshot["ok"] and snapshot["data"]["repository"] == "example/shop"
        assert snapshot["data"]["scope"]["coverage"] == "complete"


def test_a_named_repository_is_read_directly_and_judged_without_writing() -> None:
    with open_walkthrough(faults=None) as walk:
        snapshot = walk.locate("example/shop")
        assert snapshot["ok"] and not walk.flow.requests
        answer = walk.judge(snapshot)
        assert {k: len(v) for k, v in answer.ids().items()} == {
            "confirmed": 2,
            "to_verify": 3,
            "opinion": 7,
        }
        aside = dict(answer.set_aside)
        assert INJECTED_COMMENT_ID in aside and ".env" in aside[INJECTED_COMMENT_ID]
        # stop: the request was to read; details were read by id, nothing written
        assert (walk.comments(), walk.comments("other/shop")) == (10, 1)
        # the snapshot composes its page reads through the host, so they are logged too
        executed = {r.tool for r in walk.log if r.station == "execution"}
        assert executed == {
            "github_pr_get_review_snapshot",
            "github_pr_list_comments",
            "github_pr_get_comment",
            "github_pr_get",
        }


def test_the_conclusion_is_posted_once_after_a_timeout_and_verified() -> None:
    with open_walkthrough() as walk:
        answer = walk.judge(walk.locate("example/shop"))
        asked = walk.post(answer, KEY)
        assert asked["error"]["code"] == "confirmation_required" and walk.comments() == 10
        request = walk.flow.requests[-1]
        shown = request.question.shown["comment"]
        assert shown == conclusion_text(answer) and "- 已确认：1700000035、1700000067" in shown
        walk.flow.answer(request.request_id, "accept", choice="example/shop")
        result = walk.run(request)
        assert result["ok"] and result["data"]["status"] == "already_posted"  # the timeout
        assert walk.comments() == 11 and walk.comments("other/shop") == 1
        status = walk.call(
            "github_pr_get_comment_status",
            {"repository": "example/shop", "pr": 128, "idempotency_key": KEY},
        )
        assert status["data"]["state"] == "posted"
        assert status["data"]["comment_id"] == result["data"]["comment_id"]
        again = walk.run(request)
        assert again["error"]["code"] == "approval_invalid" and walk.comments() == 11
