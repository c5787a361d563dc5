"""Chapter 02's example tool sets for the linter and the exports: one good, one bad.

:data:`GOOD_TOOLSET` passes :func:`tutorial_lib.design.lint.lint` clean; :data:`BAD_TOOLSET`
makes every rule fire at least once::

    from tutorial_lib.course.chapters.ch02_tool_set.demos import BAD_TOOLSET, GOOD_TOOLSET
    from tutorial_lib.design.lint import format_findings, lint
    print(format_findings(lint(BAD_TOOLSET)))
    lint(GOOD_TOOLSET)  # -> []

The good set is made of the library's real tools wherever the library has one, so a tool
has ONE contract in every chapter: ``github_pr_get`` and ``github_pr_list_comments`` are
:data:`~tutorial_lib.github.reads.PR_GET_SPEC` and
:data:`~tutorial_lib.github.reads.LIST_COMMENTS_SPEC` (the tools chapter 04 calls:
``repository``/``pr``, ``cursor``/``next_cursor``, ``coverage``), and ``read_lines`` is
chapter 01's tool. Only ``github_pr_create_review`` is a declaration (no ``execute``): the
library posts comments, not reviews, so it shows what a model would see of a remote write,
with the same ``repository``/``pr`` arguments as the real tools.

The sets live with the course, not with the linter: a design instrument depends on the
core only, never on a tool package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tutorial_lib.core.tools import READ_ONLY_LOCAL, Annotations, ToolSpec
from tutorial_lib.github.reads import (
    LIST_COMMENTS_SPEC,
    PR_GET_SPEC,
    PR_PROPERTY,
    REPOSITORY_PROPERTY,
)
from tutorial_lib.workspace.read import READ_LINES_SPEC

__all__ = ["BAD_TOOLSET", "CREATE_REVIEW_SPEC", "GOOD_TOOLSET"]


def _object(properties: dict[str, Any], required: Sequence[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties if required is None else required),
        "additionalProperties": False,
    }


#: github_pr_create_review: a declaration only (it has no execution step and cannot be
#: called), with the arguments every GitHub tool of the library declares.
CREATE_REVIEW_SPEC = ToolSpec(
    name="github_pr_create_review",
    title="Review a GitHub pull request",
    description=(
        "Create and submit a review on one pull request of a GitHub repository: approve it,"
        " request changes, or comment, with an optional summary body. Writes to GitHub: the"
        " review is posted at once, is visible to everyone who can see the repository, and"
        " sends notifications. Not idempotent: calling again posts a second review (GitHub"
        " has no idempotency key), so after an unknown outcome check the reviews before"
        " retrying."
    ),
    input_schema=_object(
        {
            "repository": REPOSITORY_PROPERTY,
            "pr": PR_PROPERTY,
            "event": {
                "type": "string",
                "enum": ["APPROVE", "REQUEST_CHANGES", "COMMENT"],
                "description": "What the review does to the pull request.",
            },
            "body": {
                "type": "string",
                "maxLength": 65536,
                "description": "Summary text; required for REQUEST_CHANGES and COMMENT.",
            },
        },
        required=["repository", "pr", "event"],
    ),
    annotations=Annotations(read_only=False, destructive=False, idempotent=False),
    output_schema=_object(
        {
            "id": {"type": "integer"},
            "state": {"type": "string"},
            "html_url": {"type": "string", "format": "uri"},
        }
    ),
)

#: A tool set that passes clean: namespaced names, descriptions stating target, scope,
#: paging and side effects, units in names, closed argument objects, honest annotations.
GOOD_TOOLSET: tuple[ToolSpec, ...] = (
    PR_GET_SPEC,
    LIST_COMMENTS_SPEC,
    CREATE_REVIEW_SPEC,
    READ_LINES_SPEC,
)

_OPEN = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
_PATH_ONLY = _object({"path": {"type": "string", "description": "Path in the workspace."}})

#: A tool set with every mistake the linter knows (each rule fires at least once).
BAD_TOOLSET: tuple[ToolSpec, ...] = (
    # vague name, no scope, default annotations with no side effect stated, open object
    ToolSpec("getData", "Get data", "Gets the data you need.", _OPEN),
    # vague name, no scope, no side effect stated, a timeout without unit
    ToolSpec(
        "runAction",
        "Run action",
        "Runs the action.",
        _object({"action": {"type": "string"}, "timeout": {"type": "integer"}}),
    ),
    ToolSpec("sync", "Sync", "Syncs everything.", _object({})),
    # a near-duplicate pair
    ToolSpec(
        "read_file",
        "Read a file",
        "Read a text file in the workspace and return its contents. Read-only.",
        _PATH_ONLY,
        annotations=READ_ONLY_LOCAL,
    ),
    ToolSpec(
        "get_file_content",
        "Get file content",
        "Get the contents of a text file in the workspace. Read-only.",
        _PATH_ONLY,
        annotations=READ_ONLY_LOCAL,
    ),
    # the description does not say what 'files_delete' deletes
    ToolSpec(
        "files_delete",
        "Delete",
        "Deletes one item in the workspace permanently.",
        _PATH_ONLY,
        annotations=Annotations(read_only=False, destructive=True, idempotent=True),
    ),
    # a write marked read-only
    ToolSpec(
        "tickets_delete",
        "Delete a ticket",
        "Delete one ticket of the support project; it cannot be restored.",
        _object({"ticket_id": {"type": "integer"}}),
        annotations=READ_ONLY_LOCAL,
    ),
    # a list with no word on paging, claiming read-only with default annotations
    ToolSpec(
        "tickets_list",
        "List tickets",
        "List the tickets of the support project, newest first. Read-only.",
        _object({"status": {"enum": ["open", "closed"]}}),
        output_schema=_object({"tickets": {"type": "array", "items": {"type": "string"}}}),
    ),
)
