"""Chapter 02's demonstration that a read-only query only reads (syllabus B6).

A list tool with an optional argument that writes (``resolve_outdated: true``: "while
listing, mark outdated threads resolved") is still declared read-only, so every decision
made from that declaration goes wrong. Chapter 02 writes such a tool inline and shows it;
this module holds the two pieces of the course's design it is compared with:

- :data:`READ_ONLY_SESSION`: an authorization :class:`~tutorial_lib.core.road.Station`
  for a session that was granted reads only. Like any policy that decides per tool, it
  can only go by what a tool declares: it lets a tool marked read-only through and
  stops every other one before execution (``permission_denied``, ``not_applied``);
- :data:`RESOLVE_THREAD_SPEC`: the write as its own tool, ``github_pr_resolve_thread``,
  with write annotations (not read-only, not destructive: a thread can be reopened;
  idempotent: resolving a resolved thread changes nothing).

The emulator serves GitHub's GraphQL *queries* but no mutation, so this demonstration
tool changes the emulator's :class:`~tutorial_lib.emulator.fixtures.GitHubStore`
directly (bind the store: ``RESOLVE_THREAD_SPEC.bind(store)``); on GitHub it would be the
GraphQL mutation ``resolveReviewThread``. The library's read tools never write.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tutorial_lib.core.contracts import ContractError, Source
from tutorial_lib.core.road import PendingCall, Station
from tutorial_lib.core.tools import Annotations, ToolSpec
from tutorial_lib.emulator.fixtures import GitHubStore
from tutorial_lib.github.reads import (
    MAX_COMMENT_ID,
    PR_PROPERTY,
    REPOSITORY_PROPERTY,
    pr_argument_error,
)

__all__ = ["READ_ONLY_SESSION", "RESOLVE_THREAD_SPEC", "RESOLVE_THREAD_ANNOTATIONS"]

#: A write that destroys nothing (a resolved thread can be reopened) and that the same
#: call repeated does not change further.
RESOLVE_THREAD_ANNOTATIONS = Annotations(
    read_only=False, destructive=False, idempotent=True, open_world=True
)


def _reads_only(call: PendingCall) -> None:
    """Let a tool declared read-only through; stop any other before it runs."""
    if call.tool.annotations.read_only:
        return
    raise ContractError(
        "permission_denied",
        f"this session may only read, and '{call.tool.name}' is declared as a write",
        suggestion="ask the user to grant write access for this change, or only read",
    )


#: The authorization station of a session granted reads only.
READ_ONLY_SESSION = Station("read_only_session", "authorization", _reads_only)


def _resolve(store: GitHubStore, args: Mapping[str, Any], checked: None) -> dict[str, Any]:
    """Execution of github_pr_resolve_thread: resolve the thread of one review comment."""
    repository, pr, comment_id = args["repository"], args["pr"], args["comment_id"]
    comment = store.review_comment(repository, comment_id)
    if comment is None or comment.pr != pr:
        raise ContractError(
            "not_found",
            f"pull request {pr} of '{repository}' has no review comment {comment_id}",
            field="comment_id",
            received=comment_id,
            suggestion="take comment ids from github_pr_list_comments for this repository and pr",
        )
    thread = store.thread_of(comment_id)
    changed = not thread.is_resolved
    store.resolve_thread(thread.id)
    return {
        "repository": repository,
        "pr": pr,
        "comment_id": comment_id,
        "resolved": True,
        "changed": changed,
    }


def _source(store: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    resource = f"repos/{args['repository']}/pulls/{args['pr']}/threads"
    return {"system": "github", "resource": resource}


#: github_pr_resolve_thread: the write, declared as a write, in a tool of its own.
RESOLVE_THREAD_SPEC = ToolSpec(
    name="github_pr_resolve_thread",
    title="Resolve the review thread of a comment",
    description="Resolve the review thread that holds one review comment of one pull"
    " request. Writes to GitHub: the thread is marked resolved for everyone on the PR."
    " Resolving a thread that is already resolved changes nothing (data.changed false)."
    ' Example: {"repository": "example/shop", "pr": 128, "comment_id": 1700000009}',
    input_schema={
        "type": "object",
        "properties": {
            "repository": REPOSITORY_PROPERTY,
            "pr": PR_PROPERTY,
            "comment_id": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_COMMENT_ID,
                "description": "A comment_id from github_pr_list_comments.",
            },
        },
        "required": ["repository", "pr", "comment_id"],
        "additionalProperties": False,
    },
    annotations=RESOLVE_THREAD_ANNOTATIONS,
    output_schema={
        "type": "object",
        "required": ["repository", "pr", "comment_id", "resolved", "changed"],
        "properties": {
            "repository": {"type": "string"},
            "pr": {"type": "integer"},
            "comment_id": {"type": "integer"},
            "resolved": {"const": True},
            "changed": {"type": "boolean"},
        },
        "additionalProperties": False,
    },
    execute=_resolve,
    source=_source,
    value_error=pr_argument_error,
)
