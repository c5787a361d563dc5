"""What a model reads to answer one question about a PR: the context budget of chapter 04.

:func:`context_budget` serves a store with the course's GitHub emulator, then reads PR
comments in five ways and counts the characters each hands the model. The read tools are
called exactly as an agent calls them: bound once in a :class:`Registry`, every call
through a :class:`~tutorial_lib.core.host.Host`. This module, on the agent side, may
start the emulator; the agent-facing tools of :mod:`tutorial_lib.github` never do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tutorial_lib.core.contracts import ContractError, SuccessEnvelope, dumps
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry
from tutorial_lib.emulator.fixtures import GitHubStore
from tutorial_lib.emulator.service import serve
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import (
    DEFAULT_PAGE_SIZE,
    GET_COMMENT_SPEC,
    LIST_COMMENTS_SPEC,
    GitHubToolContext,
    github_tool_specs,
)

__all__ = ["BUDGET_ORIGIN", "RAW_PER_PAGE", "context_budget"]

#: The origin written into URLs when counting characters, instead of the emulator's port.
BUDGET_ORIGIN = "https://api.github.com"
#: GitHub's default ``per_page``: the pages a client pastes when it dumps everything.
RAW_PER_PAGE = 30
#: A fixed cursor key: the cursors, hence the character counts, are the same on every run.
_BUDGET_KEY = b"context-budget-fixed-key"


def context_budget(
    store: GitHubStore,
    *,
    repository: str = "example/shop",
    pr: int = 128,
    page_size: int = DEFAULT_PAGE_SIZE,
) -> dict[str, int]:
    """Characters a model reads to answer "what is still open on ``repository#pr``?".

    ``store`` is served by the emulator for the duration of the call; nothing is timed and
    the store is not changed. Every figure is the length of compact JSON
    (:func:`tutorial_lib.core.contracts.dumps`), with the emulator's
    ``http://127.0.0.1:PORT`` replaced by :data:`BUDGET_ORIGIN` so the numbers do not
    depend on the port:

    - ``dump_everything``: every REST page of review comments (GitHub's default
      ``per_page`` 30), each page's JSON list as a client would paste it for the model;
    - ``detailed_pages``: every envelope of ``github_pr_list_comments`` read to
      ``complete`` with ``response_format="detailed"`` (``page_size`` comments a page);
    - ``concise_pages``: the same with ``"concise"`` (the default);
    - ``concise_plus_details``: ``concise_pages`` plus one ``github_pr_get_comment``
      envelope per comment that is neither resolved nor outdated (the ones to look at);
    - ``unresolved_plus_details``: a narrower reading, for comparison: the concise pages
      of ``filter="unresolved"`` plus details only for the comments that are neither
      outdated nor from a bot (summary ``Bot: ...``, which already quotes the short body).

    Deterministic for a given store: two calls give the same dict. A tool call that fails
    raises its ``ContractError`` (code and message of the failure envelope).
    """
    with serve(store) as handle, GitHubClient(handle.base_url) as client:

        def chars(value: Any) -> int:
            return len(dumps(value).replace(handle.base_url, BUDGET_ORIGIN))

        first = client.list_review_comments_page(repository, pr, per_page=RAW_PER_PAGE)
        dump = sum(chars(page.comments) for page in client.iter_pages(first))
        registry = Registry(github_tool_specs(GitHubToolContext(client, CursorCodec(_BUDGET_KEY))))
        call = _caller(registry)
        scope = {"repository": repository, "pr": pr}
        detailed, _ = _read_to_complete(
            call, chars, {**scope, "page_size": page_size, "response_format": "detailed"}
        )
        concise, every = _read_to_complete(call, chars, {**scope, "page_size": page_size})
        unresolved, open_threads = _read_to_complete(
            call, chars, {**scope, "page_size": page_size, "filter": "unresolved"}
        )
        open_ids = [c["comment_id"] for c in every if not c["resolved"] and not c["outdated"]]
        human_ids = [
            c["comment_id"]
            for c in open_threads
            if not c["outdated"] and not c["summary"].startswith("Bot:")
        ]

        def details(ids: list[int]) -> int:
            return sum(
                chars(call(GET_COMMENT_SPEC.name, {**scope, "comment_id": comment_id}))
                for comment_id in ids
            )

        return {
            "dump_everything": dump,
            "detailed_pages": detailed,
            "concise_pages": concise,
            "concise_plus_details": concise + details(open_ids),
            "unresolved_plus_details": unresolved + details(human_ids),
        }


def _caller(registry: Registry) -> Callable[[str, dict[str, Any]], SuccessEnvelope]:
    """``call(name, args)``: one call along the road; a failure raises its ContractError."""

    host = Host(registry)

    def call(name: str, args: dict[str, Any]) -> SuccessEnvelope:
        envelope = host.call(name, args)
        if envelope["ok"] is False:
            raise ContractError(envelope["error"]["code"], envelope["error"]["message"])
        return envelope

    return call


def _read_to_complete(
    call: Callable[[str, dict[str, Any]], SuccessEnvelope],
    chars: Callable[[Any], int],
    args: dict[str, Any],
) -> tuple[int, list[dict[str, Any]]]:
    """(characters of every page, every comment) of one listing followed to ``complete``."""
    total = 0
    comments: list[dict[str, Any]] = []
    while True:
        envelope = call(LIST_COMMENTS_SPEC.name, args)
        total += chars(envelope)
        data = envelope["data"]
        comments += data["comments"]
        if data["coverage"] == "complete":
            return total, comments
        args = {**args, "cursor": data["next_cursor"]}
