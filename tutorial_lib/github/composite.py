"""A composite read-only tool: github_pr_get_review_snapshot (syllabus B10).

One call runs a stable internal order that a model would otherwise run in several calls::

    locate the repository -> read the PR -> read every comment page (in ascending id)

and still answers like the separate read tools, so nothing the model needs to trust the
result is hidden inside the composite:

- the OBJECT: ``repository``, ``pr`` and the PR's ``title``, ``description`` (its body, at
  most :data:`DESCRIPTION_CHARS` characters: text its author wrote), ``state``, ``author``,
  ``head_sha`` (every request names the repository: never another repository's PR 128);
- the SCOPE read: ``scope`` with the filter, how many comments and pages were read, and
  ``coverage``: ``"complete"`` only when the last page was read, else ``"partial"`` with a
  ``reason`` (the comment cap was reached, or the page cap) and the ``next_cursor`` of
  github_pr_list_comments to go on from there;
- the EVIDENCE: per comment ``comment_id``, ``file``, ``line``, ``summary``, ``resolved``,
  ``outdated`` and ``details`` (the github_pr_get_comment call for the full body);
- ``read_only: true``: the composite made no write. It is declared with
  :data:`~tutorial_lib.core.tools.GITHUB_READ_ONLY` and its code sends GET requests (and the
  GraphQL read of the thread states) only.

The composite adds no paging of its own: it CALLS github_pr_list_comments page after page,
following its cursors, through the host that runs it (``composes``: the host gives its
context a caller), so every page is authorized and logged like a call of the model's, and
its comments are exactly those of paging github_pr_list_comments to the end, in the same
order, with the same errors. The PR object itself (title, description, head sha) is the
composite's own read of the repository the outer call was authorized for, worded on
failure as :data:`~tutorial_lib.github.reads.PR_GET_SPEC` words it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from tutorial_lib.core.authorization import github_access
from tutorial_lib.core.contracts import ContractError, Source, safe_text
from tutorial_lib.core.road import StationBug
from tutorial_lib.core.tools import GITHUB_READ_ONLY, ToolSpec
from tutorial_lib.github.reads import (
    COMMENT_WORDS,
    LIST_COMMENTS_DATA_SCHEMA,
    LIST_COMMENTS_SCHEMA,
    LIST_COMMENTS_SPEC,
    MAX_PAGE_SIZE,
    PR_PROPERTY,
    REPOSITORY_PROPERTY,
    GitHubToolContext,
    pr_argument_error,
    pr_not_found,
)

__all__ = [
    "DEFAULT_MAX_COMMENTS",
    "DESCRIPTION_CHARS",
    "DEFAULT_MAX_PAGES",
    "REVIEW_SNAPSHOT",
    "REVIEW_SNAPSHOT_DATA_SCHEMA",
    "REVIEW_SNAPSHOT_SCHEMA",
    "REVIEW_SNAPSHOT_SPEC",
    "CompositeContext",
    "composite_tool_specs",
    "review_snapshot",
]

REVIEW_SNAPSHOT = "github_pr_get_review_snapshot"
#: The PR description is cut to this many characters (``…`` marks a cut).
DESCRIPTION_CHARS = 1000
#: At most this many comments in one answer: beyond it, coverage is "partial".
DEFAULT_MAX_COMMENTS = 500
#: At most this many github_pr_list_comments pages per call (a page may be empty before
#: the end with the unresolved filter): beyond it, coverage is "partial".
DEFAULT_MAX_PAGES = 100


@dataclass(frozen=True)
class CompositeContext:
    """What the composite needs: the read tools' context, its two caps, and the host's
    caller for its inner calls (set by the host, never by hand: :meth:`with_caller`)."""

    reads: GitHubToolContext
    max_comments: int = DEFAULT_MAX_COMMENTS
    max_pages: int = DEFAULT_MAX_PAGES
    call: Callable[[str, dict[str, Any]], Any] | None = None

    def with_caller(self, call: Callable[[str, dict[str, Any]], Any]) -> CompositeContext:
        """This context, with inner calls going to ``call`` (the host's)."""
        return replace(self, call=call)

    def __post_init__(self) -> None:
        if self.max_comments < 1 or self.max_pages < 1:
            raise ValueError("max_comments and max_pages must be at least 1")


REVIEW_SNAPSHOT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "repository": REPOSITORY_PROPERTY,
        "pr": PR_PROPERTY,
        # The same values and wording as github_pr_list_comments' filter.
        "filter": LIST_COMMENTS_SCHEMA["properties"]["filter"],
    },
    "required": ["repository", "pr"],
    "additionalProperties": False,
}


def _pull_object(context: GitHubToolContext, repository: str, pr: int) -> dict[str, Any]:
    """Read the PR once (head sha included); a failure is worded as github_pr_get words it."""
    try:
        pull = context.client.get_pull(repository, pr)
    except ContractError as exc:
        # worded as github_pr_get words it (which repository, which PR, what to check)
        raise pr_not_found(exc, repository, pr) from None
    user = pull.get("user")
    return {
        "title": str(pull.get("title") or ""),
        "description": safe_text(str(pull.get("body") or ""), DESCRIPTION_CHARS),
        "state": str(pull.get("state") or ""),
        "author": str(user.get("login") or "") if isinstance(user, dict) else "",
        "head_sha": str((pull.get("head") or {}).get("sha") or ""),
    }


def _inner(context: CompositeContext, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """One inner call through the host; its failure becomes the composite's, restated."""
    if context.call is None:  # pragma: no cover - review_snapshot checked it first
        raise StationBug(f"{name}: no caller for inner calls", station="execution")
    envelope = context.call(name, args)
    if envelope.get("ok") is True:
        return dict(envelope["data"])
    error = dict(envelope["error"])
    raise ContractError(
        error["code"],
        f"{name} failed inside the snapshot: {error['message']}",
        field=error.get("field"),
        suggestion=error.get("suggestion"),
        next_tool=error.get("next_tool"),
        operation_state=error.get("operation_state"),
    )


def review_snapshot(
    context: CompositeContext, args: Mapping[str, Any], checked: None = None
) -> dict[str, Any]:
    """Execution of github_pr_get_review_snapshot: the PR, then every comment page, in order.

    Pages are github_pr_list_comments pages of :data:`MAX_PAGE_SIZE` (or of the cap, if
    smaller), each continuing the previous one's cursor; reading stops at the end
    (coverage "complete"), or at a cap (coverage "partial", with the reason and the cursor).
    """
    if context.call is None:
        raise StationBug(
            f"{REVIEW_SNAPSHOT} runs only through a host: it has no caller for its inner calls",
            station="execution",
        )
    repository, pr = args["repository"], args["pr"]
    query_filter = args.get("filter", "all")
    pull = _pull_object(context.reads, repository, pr)
    page_size = min(MAX_PAGE_SIZE, context.max_comments)
    list_args: dict[str, Any] = {
        "repository": repository,
        "pr": pr,
        "filter": query_filter,
        "page_size": page_size,
    }
    comments: list[dict[str, Any]] = []
    pages = 0
    cursor: str | None = None
    reason: str | None = None
    while True:
        if cursor is not None:
            list_args["cursor"] = cursor
        # A call of the list tool through the host: authorized, checked, logged; the keyset
        # paging and the thread states are the read tool's, not ours.
        page = _inner(context, LIST_COMMENTS_SPEC.name, dict(list_args))
        pages += 1
        room = context.max_comments - len(comments)
        comments.extend(page["comments"][:room])
        cursor = page["next_cursor"]
        if len(page["comments"]) > room:
            # Comments were read but not returned: say so, the cursor cannot resume mid-page.
            reason = f"comment cap of {context.max_comments} reached; more comments exist"
            cursor = None
            break
        if cursor is None:
            break
        if len(comments) >= context.max_comments:
            reason = f"comment cap of {context.max_comments} reached before the last page"
            break
        if pages >= context.max_pages:
            reason = f"page cap of {context.max_pages} pages reached before the last page"
            break
    scope: dict[str, Any] = {
        "repository": repository,
        "pr": pr,
        "filter": query_filter,
        "comments_read": len(comments),
        "pages_read": pages,
        "coverage": "partial" if reason else "complete",
    }
    if reason is not None:
        scope["reason"] = reason
        scope["next_cursor"] = cursor
        scope["next_tool"] = LIST_COMMENTS_SPEC.name if cursor else None
    return {
        "repository": repository,
        "pr": pr,
        **pull,
        "scope": scope,
        "comments": comments,
        "read_only": True,
    }


_SCOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["repository", "pr", "filter", "comments_read", "pages_read", "coverage"],
    "additionalProperties": False,
    "properties": {
        "repository": {"type": "string"},
        "pr": {"type": "integer"},
        "filter": LIST_COMMENTS_DATA_SCHEMA["properties"]["filter"],
        "comments_read": {"type": "integer", "minimum": 0},
        "pages_read": {"type": "integer", "minimum": 1},
        "coverage": {"enum": ["partial", "complete"]},
        "reason": {"type": "string"},
        "next_cursor": {"type": ["string", "null"]},
        "next_tool": {"type": ["string", "null"]},
    },
    "oneOf": [
        {
            "properties": {"coverage": {"const": "complete"}},
            "not": {"anyOf": [{"required": ["reason"]}, {"required": ["next_cursor"]}]},
        },
        {
            "properties": {"coverage": {"const": "partial"}},
            "required": ["reason", "next_cursor", "next_tool"],
        },
    ],
}

#: ``data`` of a github_pr_get_review_snapshot success.
REVIEW_SNAPSHOT_DATA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "repository",
        "pr",
        "title",
        "description",
        "state",
        "author",
        "head_sha",
        "scope",
        "comments",
        "read_only",
    ],
    "additionalProperties": False,
    "properties": {
        "repository": {"type": "string"},
        "pr": {"type": "integer"},
        "title": {"type": "string"},
        "description": {"type": "string", "maxLength": DESCRIPTION_CHARS},
        "state": {"type": "string"},
        "author": {"type": "string"},
        "head_sha": {"type": "string"},
        "scope": _SCOPE_SCHEMA,
        "comments": LIST_COMMENTS_DATA_SCHEMA["properties"]["comments"],
        "read_only": {"const": True},
    },
}


def _snapshot_source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "github", "resource": f"repos/{args['repository']}/pulls/{args['pr']}"}


#: github_pr_get_review_snapshot, declared once (bind with :func:`composite_tool_specs`).
REVIEW_SNAPSHOT_SPEC = ToolSpec(
    name=REVIEW_SNAPSHOT,
    title="Read a pull request and all its review comments (read-only snapshot)",
    description="Read one pull request of one repository and ALL its review comments in"
    " one call, in ascending comment id. Read-only: it never writes, comments, approves"
    " or merges. Returns the PR (title, state, author, head_sha), scope (filter,"
    " comments_read, pages_read, coverage) and per comment comment_id, file, line,"
    " summary, resolved, outdated and details (the github_pr_get_comment call for the"
    f" full body). coverage is 'complete' only when every page was read; at a cap of"
    f" {DEFAULT_MAX_COMMENTS} comments it is 'partial' with a reason.\n"
    'Example: {"repository": "example/shop", "pr": 128, "filter": "unresolved"}',
    input_schema=REVIEW_SNAPSHOT_SCHEMA,
    annotations=GITHUB_READ_ONLY,
    access=github_access("read"),
    output_schema=REVIEW_SNAPSHOT_DATA_SCHEMA,
    execute=review_snapshot,
    source=_snapshot_source,
    value_error=pr_argument_error,
    composes=(LIST_COMMENTS_SPEC.name,),
    untrusted_fields=frozenset({"title", "description", "author"}) | COMMENT_WORDS,
)


def composite_tool_specs(
    context: GitHubToolContext,
    *,
    max_comments: int = DEFAULT_MAX_COMMENTS,
    max_pages: int = DEFAULT_MAX_PAGES,
) -> list[ToolSpec]:
    """The composite read tool bound to ``context`` (the read tools' own context)."""
    return [REVIEW_SNAPSHOT_SPEC.bind(CompositeContext(context, max_comments, max_pages))]
