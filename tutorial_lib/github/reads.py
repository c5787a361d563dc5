"""The agent-facing PR tools: github_pr_get, github_pr_list_comments, github_pr_get_comment.

Each tool is declared once (:data:`PR_GET_SPEC`, :data:`LIST_COMMENTS_SPEC`,
:data:`GET_COMMENT_SPEC`) and every call travels the road of its
:class:`~tutorial_lib.core.host.Host`::

    find the tool -> schema check (the tool's schema, worded by pr_argument_error)
      -> authorization -> resolution -> business check -> recheck -> confirmation
      -> execution -> envelope

The business check holds only what can be verified without asking GitHub (the cursor of
github_pr_list_comments is authentic and continues this very query); every GitHub request
is made in execution, after the authorization and confirmation stations, so a call they
refuse never reaches GitHub. A client ``not_found`` is restated for the model (which
repository, which PR, what to check). The answer is a *paged summary* an agent can trust:

- the OBJECT it read: ``repository`` and ``pr`` (never another repository's PR of the same
  number: every request names the repository, and a comment of another PR is not found);
- the COVERAGE: ``coverage`` is ``"complete"`` only after the last page of the agreed
  scope (repository, pr, filter) was read; then ``next_cursor`` is null. Otherwise
  ``"partial"`` with a cursor, even when this page holds no comments (a page may be empty
  before the end, e.g. when every comment it looked at was filtered out). ``complete``
  describes reading only: whether the remarks are right is another question;
- the EVIDENCE, short: per comment ``comment_id``, ``file``, ``line``, a deterministic
  ``summary`` that keeps the reviewer's hedging (:func:`summarize_comment`), ``resolved``
  and ``outdated``, and ``details``: the exact ``github_pr_get_comment`` call for the body.

**Keyset pagination over GitHub's page numbers.** GitHub lists review comments in
ascending id with ``page``/``per_page``. The cursor (:mod:`tutorial_lib.github.pagination`)
holds the id of the last comment this tool looked at; the next call reads upstream pages
from an offset hint, steps back while the page could still hold older unseen ids
(deletions shift pages), and keeps only ids above the position. Comments added between
calls have larger ids and appear on a later page: none is skipped or repeated, whatever
the hint.

The tools reach GitHub through a :class:`GitHubToolContext` (client, cursor codec, limits),
bound once when the registry is built: ``Registry(github_tool_specs(context))``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tutorial_lib.core.arguments import out_of_range_error
from tutorial_lib.core.authorization import github_access
from tutorial_lib.core.contracts import ContractError, Source
from tutorial_lib.core.tools import GITHUB_READ_ONLY, ToolSpec
from tutorial_lib.github.client import GitHubClient, ThreadState
from tutorial_lib.github.pagination import MAX_CURSOR_CHARS, CursorCodec, CursorQuery, CursorState

if TYPE_CHECKING:
    from jsonschema import ValidationError

__all__ = [
    "COMMENT_WORDS",
    "DEFAULT_PAGE_SIZE",
    "GET_COMMENT_SCHEMA",
    "GET_COMMENT_SPEC",
    "LIST_COMMENTS_DATA_SCHEMA",
    "LIST_COMMENTS_SCHEMA",
    "LIST_COMMENTS_SPEC",
    "MAX_PAGE_SIZE",
    "PR_GET_SCHEMA",
    "PR_GET_SPEC",
    "PR_PROPERTY",
    "READ_SPECS",
    "REPOSITORY_PROPERTY",
    "SUMMARY_CHARS",
    "GitHubToolContext",
    "github_tool_specs",
    "pr_argument_error",
    "pr_not_found",
    "summarize_comment",
    "thread_states",
]

#: The tools' names, written once (the specs, the details entries and the schemas use them).
PR_GET = "github_pr_get"
LIST_COMMENTS = "github_pr_list_comments"
GET_COMMENT = "github_pr_get_comment"

DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 50
SUMMARY_CHARS = 140
#: GraphQL's Int is 32-bit: a larger PR number cannot exist.
MAX_PR = 2**31 - 1
MAX_COMMENT_ID = 2**53 - 1
FILTERS = ("all", "unresolved")
FORMATS = ("concise", "detailed")
REPOSITORY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/(?!\.\.?$)[A-Za-z0-9_.-]{1,100}$"


@dataclass
class GitHubToolContext:
    """What the tools need, bound once: the REST client, the cursor codec, server limits.

    - ``upstream_per_page``: GitHub's ``per_page`` for the tool's own reads (max 100);
    - ``max_upstream_pages``: at most this many upstream pages per call; if the page is not
      full by then, the call returns what it has (maybe nothing) with a cursor.
    """

    client: GitHubClient
    codec: CursorCodec
    upstream_per_page: int = 100
    max_upstream_pages: int = 5
    #: How many PRs' thread states :attr:`thread_cache` keeps (least recently used dropped).
    thread_cache_size: int = 8
    #: ``{(repository, pr): {comment id: ThreadState}}``, see :func:`thread_states`.
    thread_cache: dict[tuple[str, int], dict[int, ThreadState]] = field(
        default_factory=dict, repr=False
    )


def thread_states(
    context: GitHubToolContext,
    repository: str,
    pr: int,
    *,
    fresh: bool = False,
    needed: Iterable[int] = (),
) -> dict[int, ThreadState]:
    """The PR's ``{comment id: ThreadState}``, from the context's cache when allowed.

    Resolution state costs GraphQL requests proportional to the number of threads (100
    threads per request: 75 requests for a 10,000-comment PR), so it is NOT fetched on
    every page. The freshness rule:

    - ``fresh=True`` (a listing that starts, i.e. a call without ``cursor``): fetch;
    - otherwise (following cursors of a listing, or getting one comment): reuse the map
      cached for ``(repository, pr)``, fetching only if there is none, or if one of the
      ``needed`` comment ids is not in it (a comment added since the map was fetched):
      then ONE refresh per call, whatever it finds;
    - a comment still unknown after that refresh (a real GitHub race) is shown as
      unresolved, and outdated iff REST says it has no ``line``.

    So every page after the first costs no GraphQL request unless new comments appeared,
    and the flags of one listing are those of the moment it started (or of the last
    refresh): a thread resolved while the model reads later pages keeps its earlier flag
    until the next listing from the start.
    """
    key = (repository, pr)
    cache = context.thread_cache
    states = None if fresh else cache.get(key)
    if states is not None and any(cid not in states for cid in needed):
        states = None
    if states is None:
        states = context.client.review_threads(repository, pr)
    cache.pop(key, None)
    cache[key] = states  # most recently used last
    while len(cache) > max(context.thread_cache_size, 1):
        del cache[next(iter(cache))]
    return states


class _Threads:
    """The thread states one call uses: loaded on first need, refreshed at most once."""

    def __init__(self, context: GitHubToolContext, repository: str, pr: int, fresh: bool):
        self.context, self.repository, self.pr = context, repository, pr
        self.fresh = fresh
        self.states: dict[int, ThreadState] | None = None
        self.fetched = False  # fetched during this call: an unknown id is not retried

    def state(self, comment: dict[str, Any]) -> ThreadState:
        cid = comment["id"]
        if self.states is None or (cid not in self.states and not self.fetched):
            before = self.context.thread_cache.get((self.repository, self.pr))
            self.states = thread_states(
                self.context,
                self.repository,
                self.pr,
                fresh=self.fresh or self.states is not None,
                needed=(cid,),
            )
            self.fetched = self.states is not before
        return _state(comment, self.states)


# --------------------------------------------------------------------------- the summarizer

_HEDGES = re.compile(
    r"\b(i think|i believe|i suspect|i guess|maybe|perhaps|might|could|possibl[ey]|"
    r"probabl[ey]|not sure|unsure|i wonder|seems?|appears?|potential(?:ly)?|"
    r"i haven't checked|not certain)\b|\?",
    re.IGNORECASE,
)
_TOPICS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b(race|racy|at the same time|concurrent(?:ly)?|simultaneous(?:ly)?|in parallel)\b",
            re.I,
        ),
        "race condition",
    ),
    (re.compile(r"\b(double[- ]\w+|twice|duplicate[sd]?)\b", re.I), "double processing"),
    (re.compile(r"\b(sql injection|injection|xss)\b", re.I), "injection vulnerability"),
    (re.compile(r"\b(leaks?|leaking)\b", re.I), "leak"),
    (re.compile(r"\b(deadlock)\b", re.I), "deadlock"),
)
_TENTATIVE = re.compile(
    r"\b(maybe we should|should we|could we|could this|could you|might want|what about|"
    r"how about|would it)\b",
    re.I,
)
_IMPERATIVE_VERBS = (
    "add|remove|rename|use|extract|move|fix|handle|avoid|replace|make|change|update|drop|"
    "split|document|check|return|inline|revert|delete|wrap|prefer"
)
_REQUEST = re.compile(
    rf"^(please\b|(?:{_IMPERATIVE_VERBS})\b)|\b(please|must|needs? to|needs fixing)\b", re.I
)
_SUGGEST = re.compile(r"\b(consider|suggest|would be nice|could be)\b", re.I)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_NIT = re.compile(r"^\s*nit\s*:\s*", re.I)


def summarize_comment(body: str, author: str, *, author_type: str | None = None) -> str:
    """A deterministic one-line summary (at most :data:`SUMMARY_CHARS` characters).

    The reviewer's words are quoted, never restated as fact, behind a prefix that says
    what kind of remark it is; rules in order:

    1. a bot (``author_type == "Bot"`` or a login ending in ``[bot]``): ``Bot: "..."``;
    2. ``nit:``: ``Reviewer nit: "..."``;
    3. hedged (I think, maybe, might, could, possible, probably, not sure, a question...):
       with a known topic (race, double processing, injection, leak, deadlock)
       ``Reviewer reports a possible <topic> (unconfirmed): "..."``; else a tentative
       suggestion ``Reviewer tentatively suggests: "..."``, a question ``Reviewer asks:
       "..."``, or ``Reviewer suspects (unconfirmed): "..."``;
    4. a request (imperative verb first, please, must, needs to): ``Reviewer requests:
       "..."``; ``consider``: ``Reviewer suggests: "..."``;
    5. anything else: ``Reviewer reports: "..."`` (their statement, attributed to them).

    The quote starts at the sentence that carries the hedge (else the first) and is cut at
    a word boundary with an ellipsis.
    """
    text = _plain(body)
    if not text:
        return "Reviewer left an empty comment"
    bot = author_type == "Bot" or author.lower().endswith("[bot]")
    sentences = _SENTENCE.split(text)
    if bot:
        return _quoted("Bot", text)
    nit = _NIT.match(text)
    if nit:
        return _quoted("Reviewer nit", text[nit.end() :])
    hedged = [s for s in sentences if _HEDGES.search(s)]
    if hedged:
        start = text[text.index(hedged[0]) :]
        topic = next((name for pattern, name in _TOPICS if pattern.search(text)), None)
        if topic is not None:
            return _quoted(f"Reviewer reports a possible {topic} (unconfirmed)", start)
        if _TENTATIVE.search(hedged[0]):
            return _quoted("Reviewer tentatively suggests", start)
        if hedged[0].rstrip().endswith("?"):
            return _quoted("Reviewer asks", start)
        return _quoted("Reviewer suspects (unconfirmed)", start)
    if any(_REQUEST.search(s) for s in sentences):
        return _quoted("Reviewer requests", text)
    if _SUGGEST.search(text):
        return _quoted("Reviewer suggests", text)
    return _quoted("Reviewer reports", text)


def _plain(body: str) -> str:
    """The body without code blocks and quoted lines, whitespace collapsed."""
    body = re.sub(r"```.*?(```|$)", " [code] ", body or "", flags=re.S)
    lines = [line for line in body.splitlines() if not line.lstrip().startswith(">")]
    return " ".join(" ".join(lines).split())


def _quoted(prefix: str, text: str) -> str:
    room = SUMMARY_CHARS - len(prefix) - 4  # ': "' and the closing quote
    if len(text) > room:
        cut = text[: room - 1]
        cut = cut[: cut.rfind(" ")] if " " in cut else cut
        text = cut.rstrip(" ,;:") + "…"
    return f'{prefix}: "{text}"'


# --------------------------------------------------------------------------- the contracts

#: ``repository`` as every GitHub tool declares it (the write tools of
#: :mod:`tutorial_lib.github.writes` share it: same wording everywhere).
REPOSITORY_PROPERTY: dict[str, Any] = {
    "type": "string",
    "minLength": 3,
    "maxLength": 140,
    "pattern": REPOSITORY_PATTERN,
    "description": "The repository as 'owner/name', e.g. 'example/shop'. Only this"
    " repository is read: a PR number in another repository is another PR.",
}
#: ``pr`` as every GitHub tool declares it.
PR_PROPERTY: dict[str, Any] = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_PR,
    "description": "The pull request number in that repository, e.g. 128.",
}
_FORMAT = {
    "type": "string",
    "enum": list(FORMATS),
    "default": "concise",
    "description": "'concise' (default): what a decision needs. 'detailed': also author,"
    " created_at and the full body (several times longer).",
}

PR_GET_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "repository": REPOSITORY_PROPERTY,
        "pr": PR_PROPERTY,
        "response_format": _FORMAT,
    },
    "required": ["repository", "pr"],
    "additionalProperties": False,
}

LIST_COMMENTS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "repository": REPOSITORY_PROPERTY,
        "pr": PR_PROPERTY,
        "cursor": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_CURSOR_CHARS,
            "description": "Omit on the first call. Then pass next_cursor of the previous"
            " result unchanged, with the same repository, pr, filter and page_size.",
        },
        "page_size": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_PAGE_SIZE,
            "default": DEFAULT_PAGE_SIZE,
            "description": f"Comments per call, 1 to {MAX_PAGE_SIZE} (default"
            f" {DEFAULT_PAGE_SIZE}). A page may hold fewer, even none, before the end.",
        },
        "response_format": _FORMAT,
        "filter": {
            "type": "string",
            "enum": list(FILTERS),
            "default": "all",
            "description": "'all' (default) or 'unresolved': only comments whose review"
            " thread is not resolved. Unresolved is not the same as blocking.",
        },
    },
    "required": ["repository", "pr"],
    "additionalProperties": False,
}

GET_COMMENT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "repository": REPOSITORY_PROPERTY,
        "pr": PR_PROPERTY,
        "comment_id": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_COMMENT_ID,
            "description": f"A comment_id from {LIST_COMMENTS}, e.g. 1700000042.",
        },
        "response_format": _FORMAT,
    },
    "required": ["repository", "pr", "comment_id"],
    "additionalProperties": False,
}


def pr_argument_error(name: str, value: Any, error: ValidationError) -> ContractError:
    """The wording of a value the schema refused, for every GitHub PR tool.

    The ``value_error`` of the read specs (and of the write tools): ``repository`` not
    ``owner/name``, an id or ``page_size`` out of range, a ``response_format`` or
    ``filter`` not allowed, a ``cursor`` that cannot be one this tool returned.
    """
    if name == "repository":
        return ContractError(
            "invalid_value",
            "'repository' must be 'owner/name', e.g. 'example/shop'",
            field="repository",
            received=value,
            expected="owner/name",
        )
    if name in ("pr", "comment_id", "page_size"):
        schema = error.schema if isinstance(error.schema, dict) else {}
        return out_of_range_error(name, value, schema.get("minimum", 1), schema.get("maximum"))
    if name in ("response_format", "filter"):
        allowed = list(FORMATS if name == "response_format" else FILTERS)
        return ContractError(
            "invalid_value",
            f"'{name}' must be one of {', '.join(allowed)}",
            field=name,
            received=value,
            allowed_values=allowed,
        )
    if name == "cursor":
        return ContractError(
            "invalid_cursor",
            "'cursor' must be a next_cursor this tool returned; omit it for the first page",
            field="cursor",
            received=value,
            suggestion="call again without 'cursor' to restart from the first page",
        )
    raise AssertionError(
        f"untranslated schema error: {error.validator} on {name}"
    )  # pragma: no cover


def pr_not_found(error: ContractError, repository: str, pr: int) -> ContractError:
    """A client ``not_found`` restated for the model, with what to check (any other
    error as it is): github_pr_get's wording, which the composite snapshot shares."""
    if error.code != "not_found":
        return error
    return ContractError(
        "not_found",
        f"no pull request {pr} in repository '{repository}' is visible to this tool",
        log=error.log,
        field="pr",
        received=pr,
        suggestion="check the spelling of 'owner/name' and the PR number with the user;"
        " a PR with the same number in another repository is a different PR",
    )


# --------------------------------------------------------------------------- the tools


def _get_pull(context: GitHubToolContext, args: Mapping[str, Any], checked: None) -> dict[str, Any]:
    """Execution of github_pr_get: the PR's title, state, author and comment count."""
    repository, pr = args["repository"], args["pr"]
    try:
        pull = context.client.get_pull(repository, pr)
    except ContractError as exc:
        raise pr_not_found(exc, repository, pr) from None
    data: dict[str, Any] = {
        "repository": repository,
        "pr": pr,
        "title": str(pull.get("title") or ""),
        "state": str(pull.get("state") or ""),
        "author": _login(pull.get("user")),
        "review_comments": pull.get("review_comments"),
        "comments_tool": {
            "name": LIST_COMMENTS,
            "arguments": {"repository": repository, "pr": pr},
        },
    }
    if args.get("response_format", "concise") == "detailed":
        data["body"] = str(pull.get("body") or "")
        data["created_at"] = pull.get("created_at")
        data["head"] = (pull.get("head") or {}).get("ref")
        data["base"] = (pull.get("base") or {}).get("ref")
    return data


def _list_query(args: Mapping[str, Any]) -> CursorQuery:
    """The query a github_pr_list_comments call reads (what its cursor is bound to)."""
    return CursorQuery(
        args["repository"],
        args["pr"],
        args.get("filter", "all"),
        args.get("page_size", DEFAULT_PAGE_SIZE),
    )


def _check_cursor(context: GitHubToolContext, args: Mapping[str, Any]) -> CursorState | None:
    """The business check of github_pr_list_comments: a ``cursor``, if given, is one this
    tool issued, unaltered, unexpired, for this very query (None on a first page)."""
    if "cursor" not in args:
        return None
    return context.codec.decode(args["cursor"], _list_query(args))


def _list_comments(
    context: GitHubToolContext, args: Mapping[str, Any], position: CursorState | None
) -> dict[str, Any]:
    """Execution of github_pr_list_comments: one page, with ``coverage``, ``next_cursor``."""
    repository, pr = args["repository"], args["pr"]
    query = _list_query(args)
    try:
        if position is None:
            context.client.get_pull(repository, pr)  # the object exists, in THIS repository
            after_id, offset = 0, 0
        else:
            after_id, offset = position.after_id, position.offset_hint
        threads = _Threads(context, repository, pr, fresh=position is None)
        picked, last_id, last_offset, done = _read_page(context, query, after_id, offset, threads)
        states = [threads.state(c) for c in picked]
    except ContractError as exc:
        raise pr_not_found(exc, repository, pr) from None
    detailed = args.get("response_format", "concise") == "detailed"
    return {
        "repository": repository,
        "pr": pr,
        "filter": query.filter,
        "coverage": "complete" if done else "partial",
        "next_cursor": None if done else context.codec.encode(query, last_id, last_offset),
        "comments": [
            _entry(c, state, repository, pr, detailed)
            for c, state in zip(picked, states, strict=True)
        ],
    }


def _read_page(
    context: GitHubToolContext,
    query: CursorQuery,
    after_id: int,
    offset_hint: int,
    threads: _Threads,
) -> tuple[list[dict[str, Any]], int, int, bool]:
    """(comments for this page, last id looked at, its offset, whether the list ended)."""
    client, per_page = context.client, context.upstream_per_page
    page = max(offset_hint - 1, 0) // per_page + 1  # the page that held the last id seen
    # Step back while this page may not be the first to hold ids above the position.
    while True:
        upstream = client.list_review_comments_page(
            query.repository, query.pr, page=page, per_page=per_page
        )
        first = upstream.comments[0]["id"] if upstream.comments else None
        if page == 1 or (first is not None and first <= after_id):
            break
        page -= 1
    picked: list[dict[str, Any]] = []
    last_id, last_offset = after_id, offset_hint
    reads = 0  # pages holding unseen ids: a page read only to find the position is free
    while True:
        reads += any(c["id"] > after_id for c in upstream.comments)
        for index, comment in enumerate(upstream.comments):
            if comment["id"] <= after_id:
                continue
            if query.filter == "unresolved" and threads.state(comment).resolved:
                last_id, last_offset = comment["id"], (page - 1) * per_page + index + 1
                continue
            picked.append(comment)
            last_id, last_offset = comment["id"], (page - 1) * per_page + index + 1
            if len(picked) == query.page_size:
                rest = upstream.comments[index + 1 :]
                ended = upstream.next_url is None and not any(
                    c["id"] > last_id and (query.filter == "all" or not threads.state(c).resolved)
                    for c in rest
                )
                return picked, last_id, last_offset, ended
        if upstream.next_url is None or not upstream.comments:
            return picked, last_id, last_offset, True
        if reads >= context.max_upstream_pages:
            return picked, last_id, last_offset, False
        page += 1
        upstream = client.list_review_comments_page(
            query.repository, query.pr, page=page, per_page=per_page
        )


def _get_comment(
    context: GitHubToolContext, args: Mapping[str, Any], checked: None
) -> dict[str, Any]:
    """Execution of github_pr_get_comment: one comment of THIS PR, with its full body."""
    repository, pr, comment_id = args["repository"], args["pr"], args["comment_id"]
    try:
        comment = context.client.get_review_comment(repository, comment_id)
        if not _on_pull(comment, pr):
            raise ContractError("not_found", "comment of another PR")
        state = _Threads(context, repository, pr, fresh=False).state(comment)
    except ContractError as exc:
        if exc.code != "not_found":
            raise
        raise ContractError(
            "not_found",
            f"pull request {pr} of '{repository}' has no review comment {comment_id}",
            log=exc.log,
            field="comment_id",
            received=comment_id,
            suggestion=f"take comment ids from {LIST_COMMENTS} for this same repository and pr",
            next_tool={
                "name": LIST_COMMENTS,
                "arguments": {"repository": repository, "pr": pr},
            },
        ) from None
    detailed = args.get("response_format", "concise") == "detailed"
    data = _entry(comment, state, repository, pr, detailed=True)
    data.pop("details")
    if detailed:
        data["diff_hunk"] = str(comment.get("diff_hunk") or "")
        data["html_url"] = comment.get("html_url")
        data["in_reply_to_id"] = comment.get("in_reply_to_id")
    return {"repository": repository, "pr": pr, **data}


def _on_pull(comment: dict[str, Any], pr: int) -> bool:
    url = str(comment.get("pull_request_url") or "")
    return url.rstrip("/").endswith(f"/pulls/{pr}")


def _state(comment: dict[str, Any], threads: dict[int, ThreadState]) -> ThreadState:
    known = threads.get(comment["id"])
    if known is not None:
        return known
    return ThreadState(resolved=False, outdated=comment.get("line") is None)


def _login(user: Any) -> str:
    return str((user or {}).get("login") or "") if isinstance(user, dict) else ""


def _entry(
    comment: dict[str, Any],
    state: ThreadState,
    repository: str,
    pr: int,
    detailed: bool,
) -> dict[str, Any]:
    user = comment.get("user")
    user = user if isinstance(user, dict) else {}
    body = str(comment.get("body") or "")
    line = comment.get("line")
    entry: dict[str, Any] = {
        "comment_id": comment["id"],
        "file": str(comment.get("path") or ""),
        "line": line if line is not None else comment.get("original_line"),
        "summary": summarize_comment(body, _login(user), author_type=user.get("type")),
        "resolved": state.resolved,
        "outdated": state.outdated,
        "details": {
            "name": GET_COMMENT,
            "arguments": {"repository": repository, "pr": pr, "comment_id": comment["id"]},
        },
    }
    if detailed:
        entry["author"] = _login(user)
        entry["created_at"] = comment.get("created_at")
        entry["body"] = body
    return entry


# --------------------------------------------------------------------------- specs

_COMMENT_ITEM: dict[str, Any] = {
    "type": "object",
    "required": ["comment_id", "file", "line", "summary", "resolved", "outdated", "details"],
    "properties": {
        "comment_id": {"type": "integer"},
        "file": {"type": "string"},
        "line": {"type": ["integer", "null"]},
        "summary": {"type": "string", "maxLength": SUMMARY_CHARS},
        "resolved": {"type": "boolean"},
        "outdated": {"type": "boolean"},
        "details": {
            "type": "object",
            "required": ["name", "arguments"],
            "properties": {
                "name": {"const": GET_COMMENT},
                "arguments": {
                    "type": "object",
                    "required": ["repository", "pr", "comment_id"],
                    "properties": {
                        "repository": {"type": "string"},
                        "pr": {"type": "integer"},
                        "comment_id": {"type": "integer"},
                    },
                    "additionalProperties": False,
                },
            },
        },
        "author": {"type": "string"},
        "created_at": {"type": ["string", "null"]},
        "body": {"type": "string"},
    },
}

#: ``data`` of a github_pr_list_comments success.
LIST_COMMENTS_DATA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["repository", "pr", "filter", "coverage", "next_cursor", "comments"],
    "additionalProperties": False,
    "properties": {
        "repository": {"type": "string"},
        "pr": {"type": "integer"},
        "filter": {"enum": list(FILTERS)},
        "coverage": {"enum": ["partial", "complete"]},
        "next_cursor": {"type": ["string", "null"]},
        "comments": {"type": "array", "items": _COMMENT_ITEM},
    },
    "oneOf": [
        {"properties": {"coverage": {"const": "complete"}, "next_cursor": {"type": "null"}}},
        {"properties": {"coverage": {"const": "partial"}, "next_cursor": {"type": "string"}}},
    ],
}

LIST_COMMENTS_DESCRIPTION = (
    "List the review comments of one pull request as short summaries, one page per call,"
    " in ascending comment id. Read-only. Each comment has comment_id, file, line, summary"
    " (the reviewer's words quoted, hedging kept), resolved, outdated, and details: the"
    f" {GET_COMMENT} call that returns the full body.\n"
    f"page_size: default {DEFAULT_PAGE_SIZE}, at most {MAX_PAGE_SIZE}. coverage is"
    " 'complete' (next_cursor null) only after the last page; while it is 'partial', call"
    " again with next_cursor and the same other arguments. A page may hold fewer comments,"
    " even none, before the end: only coverage 'complete' means everything was read.\n"
    'Example: {"repository": "example/shop", "pr": 128, "filter": "unresolved"}'
)


def _pull_source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "github", "resource": f"repos/{args['repository']}/pulls/{args['pr']}"}


def _comments_source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    pull = _pull_source(context, args, data)["resource"]
    return {"system": "github", "resource": f"{pull}/comments"}


def _comment_source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    resource = f"repos/{args['repository']}/pulls/comments/{args['comment_id']}"
    return {"system": "github", "resource": resource}


#: github_pr_get, declared once (bind a context with :func:`github_tool_specs`).
#: The fields of a listed comment that carry text someone else wrote (file names are chosen
#: by the PR's author): data for a model, never instructions.
COMMENT_WORDS: frozenset[str] = frozenset(
    {"comments[].file", "comments[].summary", "comments[].author", "comments[].body"}
)

PR_GET_SPEC = ToolSpec(
    name=PR_GET,
    title="Get a GitHub pull request",
    description="Get one pull request of one repository: title, state, author and"
    f" the number of review comments. Read-only. Use {LIST_COMMENTS} for the"
    ' comments. Example: {"repository": "example/shop", "pr": 128}',
    input_schema=PR_GET_SCHEMA,
    annotations=GITHUB_READ_ONLY,
    access=github_access("read"),
    execute=_get_pull,
    source=_pull_source,
    value_error=pr_argument_error,
    untrusted_fields=frozenset({"title", "author", "body", "head", "base"}),
)

#: github_pr_list_comments, declared once.
LIST_COMMENTS_SPEC = ToolSpec(
    name=LIST_COMMENTS,
    title="List a pull request's review comments (paged summaries)",
    description=LIST_COMMENTS_DESCRIPTION,
    input_schema=LIST_COMMENTS_SCHEMA,
    annotations=GITHUB_READ_ONLY,
    access=github_access("read"),
    output_schema=LIST_COMMENTS_DATA_SCHEMA,
    check=_check_cursor,
    execute=_list_comments,
    source=_comments_source,
    value_error=pr_argument_error,
    untrusted_fields=COMMENT_WORDS,
)

#: github_pr_get_comment, declared once.
GET_COMMENT_SPEC = ToolSpec(
    name=GET_COMMENT,
    title="Get one review comment of a pull request",
    description="Get one review comment by comment_id, with its full body, file,"
    " line, resolved and outdated. Read-only. The comment must belong to this"
    " repository and pr. Example:"
    ' {"repository": "example/shop", "pr": 128, "comment_id": 1700000042}',
    input_schema=GET_COMMENT_SCHEMA,
    annotations=GITHUB_READ_ONLY,
    access=github_access("read"),
    execute=_get_comment,
    source=_comment_source,
    value_error=pr_argument_error,
    untrusted_fields=frozenset({"file", "summary", "author", "body", "diff_hunk"}),
)

#: The three read tools, unbound (for linters and exports).
READ_SPECS: tuple[ToolSpec, ...] = (PR_GET_SPEC, LIST_COMMENTS_SPEC, GET_COMMENT_SPEC)


def github_tool_specs(context: GitHubToolContext) -> list[ToolSpec]:
    """The three read tools bound to ``context``: ready for a :class:`Registry`."""
    return [spec.bind(context) for spec in READ_SPECS]
