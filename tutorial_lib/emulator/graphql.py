"""GraphQL, just enough: the review threads of a pull request (``POST /graphql``).

REST has no "resolved" flag; GitHub serves it through GraphQL, and so does the emulator. It
understands exactly one query shape, :data:`REVIEW_THREADS_QUERY_SHAPE` (review threads of
one PR), and any query of that shape asking for fewer of its fields or writing an argument
as a literal; anything else gets a GraphQL ``{"errors": [...]}`` answer, as on GitHub.

:class:`GraphQL` resolves such a query against a store; :meth:`GraphQL.answer` is the whole
endpoint: a request that is not a GraphQL request (not JSON, variables that are not an
object) is refused with 400, a GraphQL request that fails (a parse error, a variable of the
wrong type, an unknown field) gets 200 + ``errors``.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tutorial_lib.emulator.fixtures import (
    GitHubStore,
    PullRequest,
    Repository,
    ReviewComment,
    ReviewThread,
)
from tutorial_lib.emulator.protocol import (
    Answer,
    ApiError,
    Json,
    parse_json,
    problems_parsing_json,
)
from tutorial_lib.emulator.shapes import Shapes, node_id

__all__ = ["GRAPHQL_DOCS", "REVIEW_THREADS_QUERY_SHAPE", "GraphQL"]

GRAPHQL_DOCS = "https://docs.github.com/graphql"

#: The GraphQL query shape this emulator understands (variables: owner, name, number, first,
#: after): it answers this query, and any query of the same shape that asks for fewer of
#: its fields or writes an argument as a literal. It is the emulator's side of the
#: contract, not what a particular client sends (the course's client has its own query).
REVIEW_THREADS_QUERY_SHAPE = """\
query($owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        nodes {
          id isResolved isOutdated path line
          comments(first: 100) { nodes { databaseId body } }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}"""


_TOKEN = re.compile(
    r'\s*(?:(\.\.\.)|([{}():!,\[\]=])|(\$?[A-Za-z_]\w*)|(-?\d+)|("(?:[^"\\]|\\.)*"))'
)


@dataclass
class _Field:
    name: str
    args: dict[str, Any]
    children: list[_Field]


class _GraphQLError(Exception):
    pass


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = re.sub(r"#[^\n]*", "", text).strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise _GraphQLError(f"Parse error near {text[pos : pos + 20]!r}")
        token = m.group(0).strip()
        if token != ",":
            out.append(token)
        pos = m.end()
    return out


def _parse_query(text: str, variables: dict[str, Any]) -> list[_Field]:
    """Parse one anonymous or named ``query``; variables are substituted while parsing."""
    toks = _tokens(text)
    i = 0

    def peek() -> str:
        return toks[i] if i < len(toks) else ""

    def take(expected: str | None = None) -> str:
        nonlocal i
        if i >= len(toks) or (expected is not None and toks[i] != expected):
            raise _GraphQLError(f"Parse error: expected {expected or 'a token'}, got {peek()!r}")
        i += 1
        return toks[i - 1]

    def value() -> Any:
        tok = take()
        if tok.startswith("$"):
            return variables.get(tok[1:])
        if tok.startswith('"'):
            return json.loads(tok)
        if re.fullmatch(r"-?\d+", tok):
            return int(tok)
        return {"true": True, "false": False, "null": None}.get(tok, tok)

    def selection() -> list[_Field]:
        take("{")
        fields: list[_Field] = []
        while peek() != "}":
            name = take()
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                raise _GraphQLError(f"Parse error: unexpected {name!r}")
            args: dict[str, Any] = {}
            if peek() == "(":
                take("(")
                while peek() != ")":
                    arg = take()
                    take(":")
                    args[arg] = value()
                take(")")
            children = selection() if peek() == "{" else []
            fields.append(_Field(name, args, children))
        take("}")
        return fields

    if peek() == "query":
        take()
        if peek() not in ("(", "{"):
            take()  # operation name
        if peek() == "(":  # variable definitions: skipped, values come from `variables`
            depth = 0
            while True:
                tok = take()
                depth += tok == "("
                depth -= tok == ")"
                if depth == 0:
                    break
    elif peek() in ("mutation", "subscription"):
        raise _GraphQLError(f"This emulator does not support {peek()} operations")
    fields = selection()
    if i != len(toks):
        raise _GraphQLError("Parse error: text after the query")
    return fields


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _cursor_index(cursor: str | None) -> int:
    if cursor is None:
        return -1
    try:
        prefix, index = base64.b64decode(cursor.encode(), validate=True).decode().rsplit(":", 1)
        if prefix != "cursor:v2":
            raise ValueError(prefix)
        return int(index)
    except ValueError as exc:
        raise _GraphQLError(f"`{cursor}` does not appear to be a valid cursor.") from exc


def _connection(field: _Field, items: list[Any], node: Callable[[_Field, Any], Any]) -> Json:
    first = field.args.get("first")
    if not isinstance(first, int) or not 1 <= first <= 100:
        raise _GraphQLError(
            f"You must provide a `first` value between 1 and 100 to paginate `{field.name}`."
        )
    start = _cursor_index(field.args.get("after")) + 1
    window = items[start : start + first]
    out: dict[str, Any] = {}
    for child in field.children:
        if child.name == "nodes":
            out["nodes"] = [node(child, item) for item in window]
        elif child.name == "totalCount":
            out["totalCount"] = len(items)
        elif child.name == "pageInfo":
            info = {
                "hasNextPage": start + len(window) < len(items),
                "hasPreviousPage": start > 0,
                "endCursor": _cursor(start + len(window) - 1) if window else None,
                "startCursor": _cursor(start) if window else None,
            }
            out["pageInfo"] = _select(child, info, "PageInfo")
        else:
            raise _unknown(child.name, "Connection")
    return out


def _unknown(name: str, type_name: str) -> _GraphQLError:
    return _GraphQLError(f"Field '{name}' doesn't exist on type '{type_name}'")


def _select(field: _Field, values: dict[str, Any], type_name: str) -> dict[str, Any]:
    out = {}
    for child in field.children:
        if child.name not in values:
            raise _unknown(child.name, type_name)
        out[child.name] = values[child.name]
    return out


class GraphQL:
    """Resolves the review-threads query against a store (``shapes``: for comment URLs)."""

    def __init__(self, store: GitHubStore, shapes: Shapes) -> None:
        self.store = store
        self.shapes = shapes

    def answer(self, raw_body: bytes) -> Answer:
        """The answer of ``POST /graphql`` with this body (see the module docstring)."""
        # A request that is not a GraphQL request (not JSON, variables that are not an
        # object) is refused with 400; a GraphQL request that fails (a parse error, a
        # variable of the wrong type, an unknown field) gets 200 + "errors", as on GitHub.
        request = parse_json(raw_body, GRAPHQL_DOCS)
        variables = request.get("variables") if isinstance(request, dict) else None
        if variables is not None and not isinstance(variables, dict):
            raise ApiError(
                400,
                {
                    "message": "Variables must be a JSON object",
                    "documentation_url": GRAPHQL_DOCS,
                    "status": "400",
                },
            )
        try:
            if not isinstance(request, dict) or not isinstance(request.get("query"), str):
                raise _GraphQLError("A query attribute must be specified and must be a string.")
            errors = _variable_errors(request["query"], variables or {})
            if errors:
                return Answer.json(200, {"errors": errors})
            fields = _parse_query(request["query"], variables or {})
            return Answer.json(200, {"data": self.execute(fields)})
        except ValueError:  # a string literal json cannot read, an int over 4,300 digits
            raise problems_parsing_json(GRAPHQL_DOCS) from None
        except RecursionError:
            too_deep = "Parse error: the query nests too deep"
            return Answer.json(200, {"errors": [{"message": too_deep}]})
        except _GraphQLError as error:
            return Answer.json(200, {"errors": [{"message": str(error)}]})

    def execute(self, fields: list[_Field]) -> Json:
        data: dict[str, Any] = {}
        for f in fields:
            if f.name != "repository":
                raise _unknown(f.name, "Query")
            repo = self.store.repository(f"{f.args.get('owner')}/{f.args.get('name')}")
            if repo is None:
                raise _GraphQLError(
                    f"Could not resolve to a Repository with the name "
                    f"'{f.args.get('owner')}/{f.args.get('name')}'."
                )
            data["repository"] = self.repository(f, repo)
        return data

    def repository(self, field: _Field, repo: Repository) -> Json:
        out: dict[str, Any] = {}
        for child in field.children:
            if child.name == "pullRequest":
                pull = self.store.pull_request(repo.full_name, child.args.get("number", -1))
                if pull is None:
                    raise _GraphQLError(
                        "Could not resolve to a PullRequest with the number of "
                        f"{child.args.get('number')}."
                    )
                out["pullRequest"] = self.pull(child, repo, pull)
            elif child.name in ("nameWithOwner", "id", "databaseId"):
                out[child.name] = {
                    "nameWithOwner": repo.full_name,
                    "id": node_id("R", repo.id),
                    "databaseId": repo.id,
                }[child.name]
            else:
                raise _unknown(child.name, "Repository")
        return out

    def pull(self, field: _Field, repo: Repository, pull: PullRequest) -> Json:
        out: dict[str, Any] = {}
        for child in field.children:
            if child.name == "reviewThreads":
                threads = self.store.review_threads(repo.full_name, pull.number)
                out[child.name] = _connection(child, threads, lambda f, t: self.thread(f, repo, t))
            elif child.name in ("number", "title", "state", "databaseId"):
                values = {
                    "number": pull.number,
                    "title": pull.title,
                    "state": pull.state.upper(),
                    "databaseId": pull.id,
                }
                out[child.name] = values[child.name]
            else:
                raise _unknown(child.name, "PullRequest")
        return out

    def thread(self, field: _Field, repo: Repository, thread: ReviewThread) -> Json:
        out: dict[str, Any] = {}
        scalars = {
            "id": node_id("PRRT", thread.id),
            "isResolved": thread.is_resolved,
            "isOutdated": thread.is_outdated,
            "path": thread.path,
            "line": thread.line,
            "originalLine": thread.original_line,
            "diffSide": "RIGHT",
        }
        for child in field.children:
            if child.name == "comments":
                comments = [
                    self.store.review_comment(repo.full_name, i) for i in thread.comment_ids
                ]
                out["comments"] = _connection(
                    child, comments, lambda f, c: self.comment(f, repo, c)
                )
            elif child.name in scalars:
                out[child.name] = scalars[child.name]
            else:
                raise _unknown(child.name, "PullRequestReviewThread")
        return out

    def comment(self, field: _Field, repo: Repository, c: ReviewComment) -> Json:
        values: dict[str, Any] = {
            "id": node_id("PRRC", c.id),
            "databaseId": c.id,
            "body": c.body,
            "path": c.path,
            "line": c.line,
            "originalLine": c.original_line,
            "createdAt": c.created_at,
            "url": self.shapes.review_comment(repo, c)["html_url"],
        }
        out: dict[str, Any] = {}
        for child in field.children:
            if child.name == "author":
                out["author"] = _select(
                    child, {"login": c.user.login, "__typename": c.user.type}, "Actor"
                )
            elif child.name in values:
                out[child.name] = values[child.name]
            else:
                raise _unknown(child.name, "PullRequestReviewComment")
        return out


#: GraphQL's Int is 32 bits: a variable outside is not coerced (GitHub says so).
_GRAPHQL_INT = range(-(2**31), 2**31)


def _variable_errors(query: str, variables: dict[str, Any]) -> list[dict[str, Any]]:
    """GraphQL errors for ``variables`` that do not fit the types the query declares (a
    list where ``Int!`` is declared, a missing non-null one...), as GitHub words them."""
    errors = []
    for name, type_tokens, has_default in _variable_definitions(_tokens(query)):
        if name not in variables and has_default:
            continue
        value = variables.get(name)
        if not _fits(value, type_tokens):
            type_text = "".join(type_tokens)
            shown = json.dumps(value)[:80]
            errors.append(
                {
                    "message": f"Variable ${name} of type {type_text} was provided invalid value",
                    "extensions": {
                        "problems": [
                            {"path": [], "explanation": f"Could not coerce {shown} to {type_text}"}
                        ]
                    },
                }
            )
    return errors


def _variable_definitions(toks: list[str]) -> list[tuple[str, list[str], bool]]:
    """``(name, type tokens, has a default)`` of each ``$name: Type`` of the operation."""
    i = 0
    if toks[:1] == ["query"]:
        i = 1 if toks[1:2] in (["("], ["{"]) else 2  # skip the operation name
    if toks[i : i + 1] != ["("]:
        return []
    out: list[tuple[str, list[str], bool]] = []
    i += 1
    while i < len(toks) and toks[i] != ")":
        name = toks[i]
        if not name.startswith("$") or toks[i + 1 : i + 2] != [":"]:
            raise _GraphQLError(f"Parse error: unexpected {name!r} in the variable definitions")
        i += 2
        type_tokens: list[str] = []
        while i < len(toks) and toks[i] not in (")", "=") and not toks[i].startswith("$"):
            type_tokens.append(toks[i])
            i += 1
        has_default = toks[i : i + 1] == ["="]
        while has_default and i < len(toks) and toks[i] != ")" and not toks[i].startswith("$"):
            i += 1  # the default value
        out.append((name[1:], type_tokens, has_default))
    return out


def _fits(value: Any, type_tokens: list[str]) -> bool:
    """Whether a variable's JSON value can be coerced to the declared GraphQL type."""
    non_null = type_tokens[-1:] == ["!"]
    base = type_tokens[:-1] if non_null else type_tokens
    if value is None:
        return not non_null
    if base[:1] == ["["] and base[-1:] == ["]"]:
        items = value if isinstance(value, list) else [value]  # a lone value is a list of one
        return all(_fits(item, base[1:-1]) for item in items)
    kind = base[0] if len(base) == 1 else ""
    if kind == "Int":
        return isinstance(value, int) and not isinstance(value, bool) and value in _GRAPHQL_INT
    if kind == "Float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "String":
        return isinstance(value, str)
    if kind == "ID":
        return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
    if kind == "Boolean":
        return isinstance(value, bool)
    return True  # enums and input objects: types this emulator does not know
