"""Chapter 02's example tool sets for the linter and the exports: one good, one bad.

:data:`GOOD_TOOLSET` passes :func:`tutorial_lib.design.lint.lint` clean; :data:`BAD_TOOLSET`
makes every rule fire at least once::

    from tutorial_lib.course.toolsets import BAD_TOOLSET, GOOD_TOOLSET
    from tutorial_lib.design.lint import format_findings, lint
    print(format_findings(lint(BAD_TOOLSET)))
    lint(GOOD_TOOLSET)  # -> []

The GitHub tools here are declarations only (no ``execute``): they show what a model sees
and are linted and exported, not called. ``read_lines`` is the real tool of chapter 01.
The sets live with the course, not with the linter: a design instrument depends on the
core only, never on a tool package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tutorial_lib.core.tools import GITHUB_READ_ONLY, READ_ONLY_LOCAL, Annotations, ToolSpec
from tutorial_lib.workspace.read import READ_LINES_SPEC

__all__ = ["BAD_TOOLSET", "GOOD_TOOLSET"]


def _object(properties: dict[str, Any], required: Sequence[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties if required is None else required),
        "additionalProperties": False,
    }


_OWNER = {"type": "string", "minLength": 1, "description": "Owner of the repository, e.g. 'octo'."}
_REPO = {"type": "string", "minLength": 1, "description": "Name of the repository, e.g. 'app'."}
_NUMBER = {"type": "integer", "minimum": 1, "description": "Number of the pull request."}
_USER = {"type": "string", "description": "Login of the author."}

_GITHUB_PR_GET = ToolSpec(
    name="github_pr_get",
    title="Get a GitHub pull request",
    description=(
        "Get one pull request of a GitHub repository by its number: title, state, author,"
        " base and head branches, and whether it can be merged. Scope: the single pull"
        " request owner/repo#pull_number; comments and diffs are not included (use"
        " github_pr_list_comments). Read-only."
    ),
    input_schema=_object({"owner": _OWNER, "repo": _REPO, "pull_number": _NUMBER}),
    annotations=GITHUB_READ_ONLY,
    output_schema=_object(
        {
            "number": {"type": "integer", "minimum": 1},
            "title": {"type": "string"},
            "state": {"enum": ["open", "closed"]},
            "user": _USER,
            "base": {"type": "string"},
            "head": {"type": "string"},
            "mergeable": {"type": ["boolean", "null"]},
        }
    ),
)

_GITHUB_PR_LIST_COMMENTS = ToolSpec(
    name="github_pr_list_comments",
    title="List review comments of a GitHub pull request",
    description=(
        "List the review comments (comments on lines of the diff) of one pull request in a"
        " GitHub repository, oldest first. Paged: at most per_page comments per call"
        " (default 30, up to 100); next_page is null on the last page, otherwise call again"
        " with page=next_page. Conversation comments are not included. Read-only."
    ),
    input_schema=_object(
        {
            "owner": _OWNER,
            "repo": _REPO,
            "pull_number": _NUMBER,
            "per_page": {
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "default": 30,
                "description": "Comments per page, from 1 to 100.",
            },
            "page": {
                "type": "integer",
                "minimum": 1,
                "default": 1,
                "description": "Page to return, counted from 1.",
            },
        },
        required=["owner", "repo", "pull_number"],
    ),
    annotations=GITHUB_READ_ONLY,
    output_schema=_object(
        {
            "comments": {
                "type": "array",
                "items": _object(
                    {
                        "id": {"type": "integer"},
                        "path": {"type": "string"},
                        "line": {"type": ["integer", "null"]},
                        "user": _USER,
                        "body": {"type": "string"},
                    }
                ),
            },
            "next_page": {"type": ["integer", "null"], "minimum": 2},
        }
    ),
)

_GITHUB_PR_CREATE_REVIEW = ToolSpec(
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
            "owner": _OWNER,
            "repo": _REPO,
            "pull_number": _NUMBER,
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
        required=["owner", "repo", "pull_number", "event"],
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
    _GITHUB_PR_GET,
    _GITHUB_PR_LIST_COMMENTS,
    _GITHUB_PR_CREATE_REVIEW,
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
