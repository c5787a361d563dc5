"""Chapter 06's exercise tables: the executor's authorization check, and untrusted fields.

**Exercise 1: ``may_run(scope, call) -> dict``**, the authorization check on plain data.

- ``scope = {"repositories": [...], "paths": [...], "hosts": [...], "grants": [...],
  "secrets": bool}``: the repositories (``owner/name``) and workspace path prefixes the
  task may touch, the hosts it may send to (``"*"``: any host), the action classes
  granted (``"read"``, ``"write"``, ``"delete"``, ``"send"``, each on its own) and
  whether secret-bearing files may be touched;
- ``call = {"tool": str, "arguments": dict}``: a call with *validated* arguments (an
  argument its schema requires is there);
- :data:`EXERCISE_ACCESS`: the operator's declarations, tool name -> ``{"action",
  "system", "argument", "default"}``;
- the answer: ``{"allowed": True}`` or ``{"allowed": False, "rule": rule}``, ``rule`` one
  of :data:`~tutorial_lib.core.authorization.REFUSAL_RULES`, checked in that order:
  ``undeclared_tool``, ``class_not_granted``, ``outside_scope``, ``secret_needs_grant``.

A learner may use the library's :func:`~tutorial_lib.core.authorization.normalize_workspace_path`
and :func:`~tutorial_lib.core.authorization.is_secret_path`: the exercise is the order of
the rules and the comparisons (case of repository names, path prefixes by component), not
glob matching.

A tool name is compared as it is (``Read_Lines`` is not ``read_lines``: undeclared), and
the secret rule holds for every tool that can read a file (read_lines AND search_files).
``http_send``'s resource is the *host* of its ``url`` (``"system": "outbound"``,
``urlsplit(url).hostname``: without the port or the user info before an ``@``, so
``https://bot:pw@collector.example:8443/in`` goes to ``collector.example``, and not the
``netloc`` that keeps both): a task may send only to the hosts its scope lists, compared
without case and after dropping a trailing dot, the whole host equal to a listed one
(``collector.example.attacker.example``, ``evilcollector.example`` or
``collector.example@attacker.example``, whose host follows the ``@``, are other hosts);
``"*"`` lets it send anywhere, which is exactly the third leg of the lethal trifecta: give
it only to a task with nothing private to lose. Reading private data and sending are
separate grants. (What leaves through an answer, e.g. a Markdown image to an outside host,
is the output check's job, not this one's.)

The expected answers are the library's own: :func:`library_may_run` builds a
:class:`~tutorial_lib.core.authorization.TaskScope` and an
:data:`~tutorial_lib.core.authorization.AccessMap` from :data:`EXERCISE_ACCESS` and asks
:func:`~tutorial_lib.core.authorization.authorize`, reading the rule from the refusal's
``error.log["rule"]``. :data:`MAY_RUN_CASES` has a case for every rule and for every
priority between two rules; :func:`may_run_hidden_cases` generates seeded cases.
:data:`MAY_RUN_RULES` lists every rule the task text states, the visible case that fails
an answer breaking only it and what the hidden cases vary for it (``tests/rules_06.py``
holds one such answer per rule).

**Exercise 2: ``is_untrusted(tool, field) -> bool``**: which fields of a tool result carry
text that someone else wrote (an injected instruction travels in exactly those). A field
path names a leaf of the result's ``data``: ``"title"``, ``"comments[].summary"`` (every
item of a list), ``"scope.coverage"``. The reference is :data:`UNTRUSTED_FIELDS`; the
fields a result can have are :data:`RESULT_FIELDS` (the tools' output schemas, or their
real results where a tool declares none). The reasoning:

- *untrusted*: free text chosen by someone other than the user and our program, even
  when our tool reshaped it. A file's lines and a search match's preview; a PR's title,
  body (the snapshot's ``description``) and branch names; a comment's body, summary (our
  tool writes ``Reviewer reports: "..."`` but the quoted words are the commenter's) and
  diff hunk; a file name in a PR comment (the PR's author named the file); an account
  login (its owner picked it: ``merge-it-now`` is a valid login). File names that
  search_files *found on disk* (``candidates[].path``) are untrusted too, and so is the
  same name inside the ``next_call`` our tool built from it: who built the structure does
  not matter, whose words fill it does.
- *trusted*: what our tools produce (ids, counts, ``coverage``, ``next_cursor``,
  ``has_more``, ``total_lines``, ``read_only``, ``suggestion``, the ``details`` and
  ``next_call`` structure), what GitHub computes rather than a person types (``state``,
  ``created_at``, ``head_sha``, ``html_url``), and echoes of the model's own arguments:
  read_lines' ``path`` is the name the model asked for, not a name found somewhere, and so
  are ``repository``, ``pr``, search_files' ``query`` and ``scope``.
- Trusted is not the same as true: a trusted field can be wrong; it just carries no one
  else's instructions. A tool or field this table has never classified is untrusted
  (:func:`library_is_untrusted`), as an undeclared tool is refused.

:data:`CARRIER_CASES` is the visible table; :func:`carrier_hidden_cases` asks about every
(tool, field) pair of :data:`RESULT_FIELDS` (the visible table would be too long to print);
:data:`IS_UNTRUSTED_RULES` is its rule table.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, cast

from tutorial_lib.agent.evidence import format_report
from tutorial_lib.core.authorization import (
    AccessMap,
    ActionClass,
    TaskScope,
    ToolAccess,
    authorize,
    github_access,
    outbound_access,
    workspace_access,
)
from tutorial_lib.core.contracts import ContractError
from tutorial_lib.core.road import PendingCall
from tutorial_lib.core.tools import ToolSpec
from tutorial_lib.course.checks import Case
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.github.composite import REVIEW_SNAPSHOT_SPEC
from tutorial_lib.github.dangerous import LIST_CONVERSATION_SPEC
from tutorial_lib.github.reads import GET_COMMENT_SPEC, LIST_COMMENTS_SPEC, PR_GET_SPEC
from tutorial_lib.language import Text, tr
from tutorial_lib.workspace.read import READ_LINES_SPEC
from tutorial_lib.workspace.search import SEARCH_FILES_SPEC

__all__ = [
    "CARRIER_CASES",
    "EXERCISE_ACCESS",
    "IS_UNTRUSTED_RULES",
    "MAY_RUN_CASES",
    "MAY_RUN_RULES",
    "REPORT_CASES",
    "REPORT_RULES",
    "RESULT_FIELDS",
    "UNTRUSTED_FIELDS",
    "carrier_hidden_cases",
    "library_is_untrusted",
    "library_may_run",
    "library_report_text",
    "may_run_hidden_cases",
    "report_hidden_cases",
    "report_lines",
]


def _entry(
    action: ActionClass,
    system: str | None,
    argument: str | None,
    default: str | None = None,
) -> Mapping[str, str | None]:
    return MappingProxyType(
        {"action": action, "system": system, "argument": argument, "default": default}
    )


#: The operator's declarations of the exercise, tool name -> ``{"action": class,
#: "system": "github" | "workspace" | "outbound", "argument": the argument naming the
#: resource, "default": its value when the call leaves it out}``. A tool not listed is
#: refused. ``search_files`` without ``path`` searches the whole workspace (``"."``);
#: ``http_send``'s resource is the host of its ``url``.
EXERCISE_ACCESS: Mapping[str, Mapping[str, str | None]] = MappingProxyType(
    {
        "read_lines": _entry("read", "workspace", "path"),
        "search_files": _entry("read", "workspace", "path", "."),
        "github_pr_get": _entry("read", "github", "repository"),
        "github_pr_list_comments": _entry("read", "github", "repository"),
        "github_pr_create_comment": _entry("write", "github", "repository"),
        "github_pr_delete_comment": _entry("delete", "github", "repository"),
        "github_pr_merge": _entry("send", "github", "repository"),
        "http_send": _entry("send", "outbound", "url"),
    }
)


def _tool_access(entry: Mapping[str, str | None]) -> ToolAccess:
    action = cast(ActionClass, entry["action"])
    argument = entry["argument"]
    if entry["system"] == "github" and argument is not None:
        return github_access(action, argument)
    if entry["system"] == "workspace" and argument is not None:
        return workspace_access(action, argument, default=entry["default"])
    if entry["system"] == "outbound" and argument is not None:
        return outbound_access(action, argument)
    raise ValueError(f"no system for {entry}")


#: :data:`EXERCISE_ACCESS` as the library's access map.
_ACCESS: AccessMap = MappingProxyType(
    {name: _tool_access(entry) for name, entry in EXERCISE_ACCESS.items()}
)


def _stub(name: str) -> ToolSpec:
    """A tool of that name for a :class:`PendingCall` (authorize reads only its name)."""
    return ToolSpec(
        name=name,
        title=name,
        description="The tool of an exercise call: authorization reads its name only.",
        input_schema={"type": "object"},
    )


def library_may_run(scope: Mapping[str, Any], call: Mapping[str, Any]) -> dict[str, Any]:
    """The library's answer to the exercise: ``{"allowed": True}``, or
    ``{"allowed": False, "rule": rule}`` with the rule of the refusal's ``error.log``.

    ``scope`` becomes a :class:`~tutorial_lib.core.authorization.TaskScope`,
    :data:`EXERCISE_ACCESS` an access map, ``call`` a
    :class:`~tutorial_lib.core.road.PendingCall`; the decision is
    :func:`~tutorial_lib.core.authorization.authorize`'s.
    """
    task = TaskScope(
        repositories=frozenset(scope["repositories"]),
        workspace_paths=tuple(scope["paths"]),
        hosts=frozenset(scope["hosts"]),
        grants=frozenset(scope["grants"]),
        secrets_granted=bool(scope["secrets"]),
    )
    pending = PendingCall(_stub(call["tool"]), MappingProxyType(dict(call["arguments"])))
    try:
        authorize(task, _ACCESS, pending)
    except ContractError as error:
        rule = error.log.get("rule")
        if rule is None:
            raise ValueError(
                f"{call['tool']} leaves out the argument that names its resource: the"
                " exercise's calls carry validated arguments"
            ) from error
        return {"allowed": False, "rule": rule}
    return {"allowed": True}


# --------------------------------------------------------------------------- may_run cases

_ALL_GRANTS = ("read", "write", "delete", "send")
_REPO = "example/shop"
_ALLOWED: Mapping[str, Any] = MappingProxyType({"allowed": True})


def _scope(
    repositories: Sequence[str] = (),
    paths: Sequence[str] = (),
    grants: Sequence[str] = (),
    secrets: bool = False,
    hosts: Sequence[str] = (),
) -> dict[str, Any]:
    return {
        "repositories": list(repositories),
        "paths": list(paths),
        "hosts": list(hosts),
        "grants": list(grants),
        "secrets": secrets,
    }


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments}


def _refused(rule: str) -> dict[str, Any]:
    return {"allowed": False, "rule": rule}


def _read(path: str) -> dict[str, Any]:
    return _call("read_lines", path=path, start=1, count=20)


def _on_pr(tool: str, repository: str = _REPO, **more: Any) -> dict[str, Any]:
    return _call(tool, repository=repository, pr=128, **more)


_COMMENT: Mapping[str, str] = MappingProxyType(
    {"body": "Summary: two confirmed issues.", "idempotency_key": "review-128-1"}
)
_SEND: Mapping[str, str] = MappingProxyType(
    {"method": "POST", "url": "https://collector.example/in", "body": "review notes"}
)


def _everything() -> dict[str, Any]:
    """A scope that grants every class, the secrets and the whole workspace."""
    return _scope([_REPO], ["."], _ALL_GRANTS, secrets=True)


def _may(
    name: str | Text, scope: dict[str, Any], call: dict[str, Any], expected: Any, hint: str | Text
) -> Case:
    return Case(name, (scope, call), dict(expected), hint)


MAY_RUN_CASES: tuple[Case, ...] = (
    # -- let through
    _may(
        Text(zh="放行：读取范围内的文件", en="let through: read a file in scope"),
        _scope(paths=["docs"], grants=["read"]),
        _read("docs/a.md"),
        _ALLOWED,
        Text(
            zh="四条规则都通过：已登记、read 已授予、docs/a.md 在前缀 docs 之下、不是密钥文件。",
            en="All four rules pass: declared, read granted, docs/a.md below the "
            "prefix docs, not a secret-bearing file.",
        ),
    ),
    _may(
        Text(zh="放行：列出本仓库的评论", en="let through: list this repository's comments"),
        _scope([_REPO], grants=["read"]),
        _on_pr("github_pr_list_comments"),
        _ALLOWED,
        Text(
            zh="已登记的 read 工具，仓库在任务范围里：放行，返回 {'allowed': True}。",
            en="A declared read tool, and the repository is in the task scope: let it "
            "through and return {'allowed': True}.",
        ),
    ),
    # -- undeclared_tool
    _may(
        Text(zh="undeclared_tool：表里没有的工具", en="undeclared_tool: a tool not in the table"),
        _everything(),
        _call("shell_run", command="ls"),
        _refused("undeclared_tool"),
        Text(
            zh="规则 undeclared_tool：EXERCISE_ACCESS 里没有的工具一律拒绝（默认拒绝），"
            "哪怕任务什么都授予了。",
            en="Rule undeclared_tool: a tool that is not in EXERCISE_ACCESS is always "
            "refused (deny by default), even when the task grants everything.",
        ),
    ),
    _may(
        Text(zh="undeclared_tool：真实存在但没登记", en="undeclared_tool: real but not declared"),
        _everything(),
        _on_pr("github_pr_edit_comment", comment_id=1700000042, kind="review", body="x"),
        _refused("undeclared_tool"),
        Text(
            zh="规则 undeclared_tool：工具真实存在，但运营方没有登记它的类别和资源，就无从判断，"
            "拒绝。",
            en="Rule undeclared_tool: the tool really exists, but the operator has "
            "not declared its action class and resource, so there is nothing to "
            "judge it by: refuse.",
        ),
    ),
    _may(
        Text(
            zh="undeclared_tool：工具名区分大小写",
            en="undeclared_tool: tool names are case-sensitive",
        ),
        _everything(),
        _call("Read_Lines", path="docs/a.md", start=1, count=20),
        _refused("undeclared_tool"),
        Text(
            zh="规则 undeclared_tool：工具名按原样比较，区分大小写；Read_Lines 不是登记过的"
            " read_lines，不要先 lower() 或 casefold() 再查表。",
            en="Rule undeclared_tool: tool names are compared exactly as they are, "
            "case-sensitively; Read_Lines is not the declared read_lines. Do not "
            "lower() or casefold() before looking it up.",
        ),
    ),
    _may(
        Text(zh="undeclared_tool 优先：什么都没授予", en="undeclared_tool first: nothing granted"),
        _scope(),
        _call("shell_run", command="ls"),
        _refused("undeclared_tool"),
        Text(
            zh="规则 undeclared_tool 排在最前：没登记的工具没有类别可查，"
            "报告 undeclared_tool，而不是 class_not_granted。",
            en="Rule undeclared_tool comes first: an undeclared tool has no action "
            "class to look up, so report undeclared_tool, not class_not_granted.",
        ),
    ),
    # -- class_not_granted
    _may(
        Text(
            zh="class_not_granted：只读任务想写评论",
            en="class_not_granted: a read-only task wants to write a comment",
        ),
        _scope([_REPO], grants=["read"]),
        _on_pr("github_pr_create_comment", **_COMMENT),
        _refused("class_not_granted"),
        Text(
            zh="规则 class_not_granted：github_pr_create_comment 的类别是 write，"
            "任务只授予了 read。",
            en="Rule class_not_granted: github_pr_create_comment's action class is "
            "write, and the task granted only read.",
        ),
    ),
    _may(
        Text(
            zh="class_not_granted：删除要单独授予",
            en="class_not_granted: delete needs its own grant",
        ),
        _scope([_REPO], grants=["read", "write"]),
        _on_pr("github_pr_delete_comment", comment_id=1700000042, kind="review"),
        _refused("class_not_granted"),
        Text(
            zh="规则 class_not_granted：每个类别单独授予，有 write 不等于有 delete。",
            en="Rule class_not_granted: each action class is granted on its own; "
            "having write does not mean having delete.",
        ),
    ),
    _may(
        Text(zh="class_not_granted：合并属于 send", en="class_not_granted: a merge is send"),
        _scope([_REPO], grants=["read", "write", "delete"]),
        _on_pr("github_pr_merge"),
        _refused("class_not_granted"),
        Text(
            zh="规则 class_not_granted：合并会让改动对所有人生效，属于 send，不是 write。",
            en="Rule class_not_granted: a merge makes the change take effect for "
            "everyone, so it is send, not write.",
        ),
    ),
    _may(
        Text(
            zh="class_not_granted：被诱导选了合并",
            en="class_not_granted: lured into choosing a merge",
        ),
        _scope([_REPO], grants=["read"]),
        _on_pr("github_pr_merge"),
        _refused("class_not_granted"),
        Text(
            zh="规则 class_not_granted：仓库没错，但模型被评论诱导，用 github_pr_merge 代替了"
            "列出评论；检查的是这次调用本身，不是模型以为自己在做什么。",
            en="Rule class_not_granted: the repository is right, but a comment lured "
            "the model into calling github_pr_merge instead of listing the "
            "comments; the check judges this call itself, not what the model "
            "thinks it is doing.",
        ),
    ),
    _may(
        Text(
            zh="class_not_granted：只授予 send 不能读",
            en="class_not_granted: send alone cannot read",
        ),
        _scope(paths=["docs"], grants=["send"]),
        _read("docs/a.md"),
        _refused("class_not_granted"),
        Text(
            zh="规则 class_not_granted：读和发送是两项授予，类别之间没有高低，"
            "有 send 不代表有 read。",
            en="Rule class_not_granted: reading and sending are two separate grants; "
            "no action class ranks above another, and having send does not mean "
            "having read.",
        ),
    ),
    _may(
        Text(
            zh="class_not_granted：http_send 没有 send",
            en="class_not_granted: http_send without send",
        ),
        _scope([_REPO], ["."], ["read", "write", "delete"]),
        _call("http_send", **_SEND),
        _refused("class_not_granted"),
        Text(
            zh="规则 class_not_granted：http_send 的类别是 send，其余类别全给了也不行。",
            en="Rule class_not_granted: http_send's action class is send; granting "
            "every other class does not help.",
        ),
    ),
    # -- outside_scope
    _may(
        Text(
            zh="outside_scope：被诱导读别的仓库",
            en="outside_scope: lured into reading another repository",
        ),
        _scope([_REPO], grants=["read"]),
        _on_pr("github_pr_list_comments", "attacker/shop"),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：工具选对了、read 也授予了，但 attacker/shop 不在任务的仓库里。",
            en="Rule outside_scope: the tool is the right one and read is granted, "
            "but attacker/shop is not one of the task's repositories.",
        ),
    ),
    _may(
        Text(zh="outside_scope：前缀之外的文件", en="outside_scope: a file outside the prefix"),
        _scope(paths=["docs"], grants=["read"]),
        _read("src/app.py"),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：src/app.py 不在前缀 docs 之下。",
            en="Rule outside_scope: src/app.py is not below the prefix docs.",
        ),
    ),
    _may(
        Text(
            zh="outside_scope：docs 不包含 docs2", en="outside_scope: docs does not contain docs2"
        ),
        _scope(paths=["docs"], grants=["read"]),
        _read("docs2/a.md"),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：前缀按路径分量比较，docs 包含 docs 和 docs/…，不包含 docs2/…；"
            "只用 str.startswith 会放行它。",
            en="Rule outside_scope: prefixes are compared by path component: docs "
            "contains docs and docs/…, not docs2/…; str.startswith alone would let "
            "it through.",
        ),
    ),
    _may(
        Text(
            zh="outside_scope：用 .. 爬出前缀",
            en="outside_scope: climbing out of the prefix with ..",
        ),
        _scope(paths=["docs"], grants=["read"]),
        _read("docs/../src/app.py"),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：先规范化路径（normalize_workspace_path），"
            "docs/../src/app.py 就是 src/app.py。",
            en="Rule outside_scope: normalize the path first "
            "(normalize_workspace_path): docs/../src/app.py is src/app.py.",
        ),
    ),
    _may(
        Text(
            zh="outside_scope：用 .. 爬出工作区",
            en="outside_scope: climbing out of the workspace with ..",
        ),
        _scope(paths=["."], grants=["read"]),
        _read("../other/notes.txt"),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：爬出工作区根目录的路径不在任何前缀之下，前缀是 . 也一样。",
            en="Rule outside_scope: a path that climbs out of the workspace root is "
            "below no prefix, and the prefix . is no exception.",
        ),
    ),
    _may(
        Text(zh="outside_scope：绝对路径", en="outside_scope: an absolute path"),
        _scope(paths=["."], grants=["read"]),
        _read("/etc/hosts"),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：绝对路径不属于工作区，任何前缀（包括 .）都不包含它。",
            en="Rule outside_scope: an absolute path does not belong to the "
            "workspace, and no prefix (. included) contains it.",
        ),
    ),
    _may(
        Text(
            zh="outside_scope：search_files 不给 path",
            en="outside_scope: search_files without path",
        ),
        _scope(paths=["docs"], grants=["read"]),
        _call("search_files", query="TODO"),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：search_files 不给 path 时搜的是整个工作区（default 是 .），"
            "前缀 docs 不包含它。",
            en="Rule outside_scope: search_files without path searches the whole "
            "workspace (its default is .), which the prefix docs does not contain.",
        ),
    ),
    # -- secret_needs_grant
    _may(
        Text(zh="secret_needs_grant：读 .env", en="secret_needs_grant: read .env"),
        _scope(paths=["config"], grants=["read"]),
        _read("config/.env"),
        _refused("secret_needs_grant"),
        Text(
            zh="规则 secret_needs_grant：read 授予了、路径也在范围内，但 config/.env 是密钥文件，"
            "要 secrets 单独授予。",
            en="Rule secret_needs_grant: read is granted and the path is in scope, "
            "but config/.env is a secret-bearing file and needs secrets granted "
            "separately.",
        ),
    ),
    _may(
        Text(
            zh="secret_needs_grant：credentials/ 目录下的文件",
            en="secret_needs_grant: a file under credentials/",
        ),
        _scope(paths=["config"], grants=["read"]),
        _read("config/credentials/prod.json"),
        _refused("secret_needs_grant"),
        Text(
            zh="规则 secret_needs_grant：路径的每一段都要看，"
            "credentials 目录下的文件都算密钥文件。",
            en="Rule secret_needs_grant: look at every segment of the path; every "
            "file under a credentials directory is a secret-bearing file.",
        ),
    ),
    _may(
        Text(
            zh="secret_needs_grant：大写的 site.PEM",
            en="secret_needs_grant: site.PEM in upper case",
        ),
        _scope(paths=["certs"], grants=["read"]),
        _read("certs/site.PEM"),
        _refused("secret_needs_grant"),
        Text(
            zh="规则 secret_needs_grant：密钥文件名不分大小写，site.PEM 也匹配 *.pem。",
            en="Rule secret_needs_grant: secret-bearing file names are matched "
            "ignoring case, so site.PEM matches *.pem too.",
        ),
    ),
    _may(
        Text(
            zh="放行：授予 secrets 后读 .env", en="let through: read .env once secrets is granted"
        ),
        _scope(paths=["config"], grants=["read"], secrets=True),
        _read("config/.env"),
        _ALLOWED,
        Text(
            zh="secrets 授予了，read 也授予了，路径在范围内：secret_needs_grant 不再拒绝。",
            en="secrets is granted, read is granted too, and the path is in scope: "
            "secret_needs_grant no longer refuses.",
        ),
    ),
    _may(
        Text(
            zh="放行：environment.md 不是密钥文件",
            en="let through: environment.md is not a secret-bearing file",
        ),
        _scope(paths=["docs"], grants=["read"]),
        _read("docs/environment.md"),
        _ALLOWED,
        Text(
            zh="规则 secret_needs_grant 按文件名模式匹配（.env、.env.*、*.pem……），"
            "不是看名字里有没有 env。",
            en="Rule secret_needs_grant matches file name patterns (.env, .env.*, "
            "*.pem…); it does not check whether the name contains env.",
        ),
    ),
    _may(
        Text(
            zh="secret_needs_grant：路径里绕一圈经过 .env",
            en="secret_needs_grant: a path that detours through .env",
        ),
        _scope(paths=["notes"], grants=["read"]),
        _read("notes/.env/../todo.md"),
        _refused("secret_needs_grant"),
        Text(
            zh="规则 secret_needs_grant 看的是调用给出的原路径的每一段：notes/.env/../todo.md"
            " 里有一段叫 .env，规范化以后才看不见它；所以用 is_secret_path(原路径)。",
            en="Rule secret_needs_grant looks at every segment of the path exactly as "
            "the call gives it: notes/.env/../todo.md has a segment named .env, "
            "which only disappears after normalizing; so use is_secret_path(the "
            "original path).",
        ),
    ),
    _may(
        Text(
            zh="secret_needs_grant：search_files 也能读到 .env",
            en="secret_needs_grant: search_files can read .env too",
        ),
        _scope(paths=["config"], grants=["read"]),
        _call("search_files", query="TOKEN", path="config/.env"),
        _refused("secret_needs_grant"),
        Text(
            zh="规则 secret_needs_grant 管的是每一个能读到文件内容的工具：search_files 的预览就是"
            "文件的内容，它的 path 和 read_lines 的 path 一样要看是不是密钥文件。",
            en="Rule secret_needs_grant covers every tool that can read a file's "
            "contents: search_files' preview is the file's content, so its path "
            "must be checked for a secret-bearing file just like read_lines' path.",
        ),
    ),
    # -- priorities between rules
    _may(
        Text(
            zh="类别先于范围：只读任务写到别的仓库",
            en="class before scope: a read-only task writes to another repository",
        ),
        _scope([_REPO], grants=["read"]),
        _on_pr("github_pr_create_comment", "attacker/shop", **_COMMENT),
        _refused("class_not_granted"),
        Text(
            zh="class_not_granted 排在 outside_scope 之前：write 没有授予，先报类别。",
            en="class_not_granted comes before outside_scope: write is not granted, "
            "so report the action class first.",
        ),
    ),
    _may(
        Text(
            zh="范围先于密钥：前缀之外的 .env", en="scope before secret: a .env outside the prefix"
        ),
        _scope(paths=["docs"], grants=["read"]),
        _read("src/.env"),
        _refused("outside_scope"),
        Text(
            zh="outside_scope 排在 secret_needs_grant 之前：src/.env 本来就不在 docs 之下。",
            en="outside_scope comes before secret_needs_grant: src/.env is not below "
            "docs in the first place.",
        ),
    ),
    _may(
        Text(
            zh="类别先于密钥：不能读的 .env", en="class before secret: a .env that may not be read"
        ),
        _scope(paths=["."], grants=["write"]),
        _read(".env"),
        _refused("class_not_granted"),
        Text(
            zh="class_not_granted 排在 secret_needs_grant 之前：read 没有授予，先报类别。",
            en="class_not_granted comes before secret_needs_grant: read is not "
            "granted, so report the action class first.",
        ),
    ),
    _may(
        Text(zh="授予 secrets 仍需 read", en="granting secrets still needs read"),
        _scope(paths=["."], grants=["write"], secrets=True),
        _read(".env"),
        _refused("class_not_granted"),
        Text(
            zh="规则 class_not_granted：secrets 只是密钥文件的额外授予，不代替动作类别。",
            en="Rule class_not_granted: secrets is only an extra grant for "
            "secret-bearing files; it does not replace the action class.",
        ),
    ),
    _may(
        Text(zh="授予 secrets 不扩大范围", en="granting secrets does not widen the scope"),
        _scope(paths=["docs"], grants=["read"], secrets=True),
        _read(".env"),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：secrets 授予的是敏感文件，不是位置，.env 不在 docs 之下。",
            en="Rule outside_scope: secrets grants secret-bearing files, not a "
            "location; .env is not below docs.",
        ),
    ),
    # -- comparisons
    _may(
        Text(zh="放行：http_send 发往范围里的主机", en="let through: http_send to a host in scope"),
        _scope(grants=["send"], hosts=["Collector.example"]),
        _call("http_send", **_SEND),
        _ALLOWED,
        Text(
            zh="http_send 的资源是 url 的主机：collector.example 在 hosts 里（主机名不分大小写），"
            "放行。",
            en="http_send's resource is the url's host: collector.example is in hosts "
            "(host names ignore case), so let it through.",
        ),
    ),
    _may(
        Text(
            zh="outside_scope：http_send 发往没列出的主机",
            en="outside_scope: http_send to a host not listed",
        ),
        _scope(grants=["send"], hosts=["hooks.example.com"]),
        _call("http_send", **_SEND),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：授予了 send，但 collector.example 不在 hosts 里；"
            "发往哪里和能不能发是两回事。",
            en="Rule outside_scope: send is granted, but collector.example is not in "
            "hosts; where a call may send to and whether it may send at all are "
            "two different things.",
        ),
    ),
    _may(
        Text(
            zh="outside_scope：主机名里含着允许的主机",
            en="outside_scope: the host name contains an allowed host",
        ),
        _scope(grants=["send"], hosts=["collector.example"]),
        _call("http_send", **{**_SEND, "url": "https://collector.example.attacker.example/in"}),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：主机要和 hosts 里的某一项整个相等（不分大小写）；"
            "collector.example.attacker.example 是 attacker.example 的主机，"
            "只看 url 里有没有这串字（in）会放行它。",
            en="Rule outside_scope: the network host must equal one entry of hosts as "
            "a whole (ignoring case); collector.example.attacker.example is a host "
            "of attacker.example, and only checking whether the url contains the "
            "string (in) would let it through.",
        ),
    ),
    _may(
        Text(
            zh="outside_scope：主机名以允许的主机结尾",
            en="outside_scope: the host name ends with an allowed host",
        ),
        _scope(grants=["send"], hosts=["collector.example"]),
        _call("http_send", **{**_SEND, "url": "https://evilcollector.example/in"}),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：evilcollector.example 是另一台主机；"
            "用 endswith 比较主机名会放行它，要整个相等。",
            en="Rule outside_scope: evilcollector.example is another network host; "
            "comparing host names with endswith would let it through. They must be "
            "equal as a whole.",
        ),
    ),
    _may(
        Text(zh="放行：url 带端口", en="let through: url with a port"),
        _scope(grants=["send"], hosts=["collector.example"]),
        _call("http_send", **{**_SEND, "url": "https://collector.example:8443/in"}),
        _ALLOWED,
        Text(
            zh="outside_scope：端口不是主机的一部分，"
            "这个 url 的主机（hostname）就是 collector.example；"
            "urlsplit(url).netloc 是 collector.example:8443，要比较 hostname，不是 netloc。",
            en="outside_scope: the port is not part of the host; this url's host "
            "(hostname) is collector.example. urlsplit(url).netloc is "
            "collector.example:8443: compare hostname, not netloc.",
        ),
    ),
    _may(
        Text(zh="放行：url 带用户信息", en="let through: url with user info"),
        _scope(grants=["send"], hosts=["collector.example"]),
        _call("http_send", **{**_SEND, "url": "https://bot:pw@collector.example/in"}),
        _ALLOWED,
        Text(
            zh="outside_scope：用户信息（@ 前面的 bot:pw）不是主机的一部分，主机（hostname）是 "
            "collector.example；netloc 带着 bot:pw@，按 : 切开取第一段得到的是 bot。",
            en="outside_scope: the user info (bot:pw before the @) is not part of the "
            "host; the host (hostname) is collector.example. netloc still carries "
            "bot:pw@, and splitting it at : and taking the first part gives bot.",
        ),
    ),
    _may(
        Text(
            zh="outside_scope：允许的主机写在 @ 前面",
            en="outside_scope: the allowed host written before the @",
        ),
        _scope(grants=["send"], hosts=["collector.example"]),
        _call("http_send", **{**_SEND, "url": "https://collector.example@attacker.example/in"}),
        _refused("outside_scope"),
        Text(
            zh="规则 outside_scope：@ 前面是用户信息，后面才是主机：这个请求发往 attacker.example"
            "（hostname），collector.example 只是用户名；取 @ 前面那段、或 @ 两边有一段相等就放行，"
            "都会把数据送到 attacker.example。",
            en="Rule outside_scope: before the @ comes user info, the host comes "
            "after it: this request goes to attacker.example (hostname), and "
            "collector.example is only a user name. Taking the part before the @, "
            "or letting it through when either side of the @ matches, both send "
            "the data to attacker.example.",
        ),
    ),
    _may(
        Text(zh="放行：主机末尾多一个点", en="let through: a trailing dot on the host"),
        _scope(grants=["send"], hosts=["collector.example"]),
        _call("http_send", **{**_SEND, "url": "https://collector.example./in"}),
        _ALLOWED,
        Text(
            zh="outside_scope：collector.example. 末尾的点只是完整域名的写法，和 collector.example "
            "是同一台主机；比较前去掉末尾的点。",
            en="outside_scope: the trailing dot of collector.example. is only how a "
            "fully qualified domain name is written; it is the same network host "
            "as collector.example. Drop the trailing dot before comparing.",
        ),
    ),
    _may(
        Text(
            zh="放行：hosts 里的主机写成末尾带点",
            en="let through: a host in hosts written with a trailing dot",
        ),
        _scope(grants=["send"], hosts=["collector.example."]),
        _call("http_send", **_SEND),
        _ALLOWED,
        Text(
            zh="outside_scope：hosts 里的 collector.example. 和 url 里的 collector.example 是同一台"
            "主机；hosts 里的每一项也要去掉末尾的点再比较。",
            en="outside_scope: collector.example. in hosts and collector.example in "
            "the url are the same network host; drop the trailing dot from every "
            "entry of hosts as well before comparing.",
        ),
    ),
    _may(
        Text(zh="放行：hosts 里的 * 允许任何主机", en="let through: * in hosts allows any host"),
        _scope(grants=["send"], hosts=["*"]),
        _call("http_send", **_SEND),
        _ALLOWED,
        Text(
            zh="hosts 含 '*' 时任何主机都放行：这就是“能把数据送出去”的那条腿，"
            "只能给没有私密数据的任务。",
            en="When hosts contains '*', every network host is let through: that is "
            "the leg that “can send data out”, so give it only to a task with no "
            "private data.",
        ),
    ),
    _may(
        Text(zh="大小写：仓库名不分大小写", en="case: repository names ignore case"),
        _scope([_REPO], grants=["read"]),
        _on_pr("github_pr_list_comments", "Example/Shop"),
        _ALLOWED,
        Text(
            zh="outside_scope 比较仓库名时忽略大小写（GitHub 就是这样）：两边都 casefold() 再比。",
            en="outside_scope ignores case when it compares repository names (as "
            "GitHub does): casefold() both sides before comparing.",
        ),
    ),
    _may(
        Text(zh="大小写：范围里写的是大写", en="case: the scope writes it in upper case"),
        _scope(["Example/Shop"], grants=["read"]),
        _on_pr("github_pr_get"),
        _ALLOWED,
        Text(
            zh="outside_scope 忽略大小写：范围里的名字也要 casefold()，不只是调用里的。",
            en="outside_scope ignores case: casefold() the names in the scope too, "
            "not only the one in the call.",
        ),
    ),
    _may(
        Text(zh="前缀：docs 包含它自己", en="prefix: docs contains itself"),
        _scope(paths=["docs"], grants=["read"]),
        _call("search_files", query="TODO", path="docs"),
        _ALLOWED,
        Text(
            zh="outside_scope：前缀 docs 包含 docs 本身和 docs/ 下的一切。",
            en="outside_scope: the prefix docs contains docs itself and everything under docs/.",
        ),
    ),
    _may(
        Text(zh="前缀：范围写成 docs/", en="prefix: the scope writes docs/"),
        _scope(paths=["docs/"], grants=["read"]),
        _read("docs/a.md"),
        _ALLOWED,
        Text(
            zh="outside_scope：范围里的前缀也要规范化，docs/ 就是 docs。",
            en="outside_scope: the prefixes in the scope must be normalized too; docs/ is docs.",
        ),
    ),
    _may(
        Text(zh="前缀：.. 留在前缀之内", en="prefix: a .. that stays inside the prefix"),
        _scope(paths=["docs"], grants=["read"]),
        _read("./docs/sub/../a.md"),
        _ALLOWED,
        Text(
            zh="outside_scope：规范化之后是 docs/a.md，在范围内；不要一见 .. 就拒绝。",
            en="outside_scope: normalized, this is docs/a.md, which is in scope; do "
            "not refuse a path just because it contains ..",
        ),
    ),
    _may(
        Text(zh="前缀：. 包含根目录下的文件", en="prefix: . contains the files at the root"),
        _scope(paths=["."], grants=["read"]),
        _read("README.md"),
        _ALLOWED,
        Text(
            zh="outside_scope：前缀 . 包含整个工作区里的每个路径，README.md 既不等于 .，"
            "也不以 ./ 开头，要单独处理 .。",
            en="outside_scope: the prefix . contains every path in the whole "
            "workspace; README.md neither equals . nor starts with ./, so . needs "
            "handling of its own.",
        ),
    ),
    _may(
        Text(zh="前缀：. 包含整个工作区", en="prefix: . contains the whole workspace"),
        _scope(paths=["."], grants=["read"]),
        _call("search_files", query="TODO"),
        _ALLOWED,
        Text(
            zh="outside_scope：前缀 . 包含整个工作区，search_files 不给 path 搜的正是它。",
            en="outside_scope: the prefix . contains the whole workspace, which is "
            "exactly what search_files searches without path.",
        ),
    ),
)

#: Every rule exercise 1's task text states, the visible case that fails an answer breaking
#: only that rule, and what :func:`may_run_hidden_cases` varies for it.
MAY_RUN_RULES: tuple[Rule, ...] = load_rules("06", "MAY_RUN_RULES", MAY_RUN_CASES)


# --------------------------------------------------------------------------- may_run hidden

_HIDDEN_REPOSITORIES = ("example/shop", "example/docs", "other/shop")
_HIDDEN_HOSTS = ("collector.example", "hooks.example.com", "attacker.example", "*")
_HIDDEN_PREFIXES = ("docs", "docs/", "src", "notes/2026", ".", "config", "certs")
_HIDDEN_PATHS = (
    "docs/a.md",
    "docs",
    "docs2/a.md",
    "./docs/guide.md",
    "docs/sub/../a.md",
    "docs/../src/app.py",
    "src/app.py",
    "src/.env",
    ".env",
    ".env.production",
    "config/credentials/prod.json",
    "config/settings.toml",
    "certs/site.PEM",
    "notes/2026/x.txt",
    "notes/y.txt",
    "notes/20260/x.txt",
    "README.md",
    "../outside.txt",
    "/etc/hosts",
    "docs/environment.md",
    "docs/id_rsa.pub",
    "notes/.env/../todo.md",
)
_UNDECLARED = ("shell_run", "github_pr_edit_comment", "settings_update", "read_file")
_HIDDEN_HINT = Text(
    zh="和库的 authorize 不一致。按顺序检查：undeclared_tool（表里没有）→ class_not_granted"
    "（类别没授予，类别之间没有高低）→ outside_scope（仓库名忽略大小写；路径先规范化，"
    "按分量比较前缀；.. 爬出或绝对路径都在范围外）→ secret_needs_grant（路径任一段像密钥"
    "文件，且没有 secrets；read_lines 和 search_files 都一样）。工具名区分大小写；"
    "http_send 的主机要和 hosts 的一项整个相等（不分大小写），不是包含或结尾相同。",
    en="Differs from the library's authorize. Check in order: undeclared_tool "
    "(not in the table) → class_not_granted (action class not granted; no "
    "class ranks above another) → outside_scope (repository names ignore "
    "case; normalize paths first and compare prefixes by component; a "
    "climb out with .. or an absolute path is outside) → "
    "secret_needs_grant (some segment of the path looks like a "
    "secret-bearing file, and secrets is not granted; read_lines and "
    "search_files alike). Tool names are case-sensitive; http_send's host "
    "must equal one entry of hosts as a whole (ignoring case), not contain "
    "it or end with it.",
)


def _recase(rng: random.Random, name: str) -> str:
    return rng.choice((name, name.upper(), name.title(), name))


#: Names below a prefix of the scope: ordinary files, secret-bearing ones, a climb out.
_HIDDEN_LEAVES = (
    "a.md",
    "guide/intro.md",
    ".env",
    ".env.local",
    "credentials/aws",
    "tls/site.pem",
    "Secrets.yaml",
    "env.md",
    "sub/../.env",
    ".env/../a.md",
    "tmp/.env/../b.md",
    "credentials/../notes.md",
    "../x.txt",
)


def _hidden_path(rng: random.Random, prefixes: Sequence[str]) -> str:
    """A path from the fixed pool, or (most of the time) one made from a prefix of the
    scope: a name below it, or a near miss (a sibling sharing its letters, the same name
    made absolute, a climb out of it with ``..``)."""
    if not prefixes or rng.random() < 0.3:
        return rng.choice(_HIDDEN_PATHS)
    prefix = rng.choice(prefixes).rstrip("/")
    leaf = rng.choice(_HIDDEN_LEAVES)
    below = leaf if prefix == "." else f"{prefix}/{leaf}"
    shape = rng.choice(("below", "below", "below", "sibling", "absolute", "climb", "dotted"))
    if prefix == "." and shape == "sibling":
        shape = "absolute"  # "." has no sibling; it holds every relative path, not "/x"
    if shape == "sibling" and prefix != ".":
        return f"{prefix}2/{leaf}"
    if shape == "absolute":
        return f"/{below}"
    if shape == "climb":
        return f"{below.rsplit('/', 1)[0]}/../../{leaf}" if "/" in below else f"../{leaf}"
    if shape == "dotted":
        return f"./{below}"
    return below


#: How a URL's host can look like an allowed host ``{h}`` and still be another host (or,
#: for the last three, be the same host written another way).
_LOOK_ALIKE_HOSTS = (
    "attacker-{h}",
    "{h}.attacker.example",
    "evil{h}",
    "sub.{h}",
    "{h}@attacker.example",
    "{h}",
    "{H}",
    "{h}.",
)

#: User info a URL may put before its host (``{h}``: an allowed host of the scope): none of
#: it is part of the host, whatever it looks like.
_USER_INFO = ("user@", "bot:pw@", "{h}@", "{h}:443@", "attacker.example@")

#: Ports a URL may put after its host: not part of the host either.
_PORTS = (":8443", ":443", ":80")


def _hidden_url(rng: random.Random, hosts: Sequence[str]) -> str:
    """A URL to a host of the scope, a look-alike of one, or another host; about a third
    of them with user info before the host, and a third with a port after it."""
    named = [h for h in hosts if h != "*"]
    if not named or rng.random() < 0.2:
        allowed = rng.choice(named or _HIDDEN_HOSTS[:-1])
        host = _recase(rng, rng.choice(_HIDDEN_HOSTS[:-1]))
    else:
        allowed = rng.choice(named)
        host = rng.choice(_LOOK_ALIKE_HOSTS).format(h=allowed, H=allowed.upper())
    user = rng.choice(_USER_INFO).format(h=allowed) if rng.random() < 0.35 else ""
    port = rng.choice(_PORTS) if rng.random() < 0.35 else ""
    return f"https://{user}{host}{port}/in"


def _hidden_tool_name(rng: random.Random, tool: str) -> str:
    """Now and then a declared tool's name in another case: another (undeclared) tool."""
    if tool in EXERCISE_ACCESS and rng.random() < 0.08:
        return rng.choice((tool.upper(), tool.title(), tool.capitalize()))
    return tool


def _hidden_call(
    rng: random.Random, prefixes: Sequence[str], hosts: Sequence[str] = ()
) -> dict[str, Any]:
    # workspace tools more often: their paths meet three of the four rules
    if rng.random() < 0.5:
        tool = rng.choice(("read_lines", "read_lines", "search_files", "search_files"))
    else:
        # http_send is one tool of many: drawn more often so its host rule is met often
        tools = (*EXERCISE_ACCESS, *_UNDECLARED)
        tool = "http_send" if rng.random() < 0.4 else rng.choice(tools)
    call = _hidden_declared_call(rng, tool, prefixes, hosts)
    return {**call, "tool": _hidden_tool_name(rng, tool)}


def _hidden_declared_call(
    rng: random.Random, tool: str, prefixes: Sequence[str], hosts: Sequence[str]
) -> dict[str, Any]:
    entry = EXERCISE_ACCESS.get(tool)
    if entry is None:
        return _call(tool, command="ls") if tool == "shell_run" else _call(tool, key="x")
    if entry["system"] == "github":
        repository = _recase(rng, rng.choice((*_HIDDEN_REPOSITORIES, "attacker/shop")))
        return _on_pr(tool, repository)
    if tool == "search_files":
        if rng.random() < 0.3:
            return _call(tool, query="TODO")
        return _call(tool, query="TODO", path=_hidden_path(rng, prefixes))
    if entry["system"] == "workspace":
        return _read(_hidden_path(rng, prefixes))
    return _call(tool, **{**_SEND, "url": _hidden_url(rng, hosts)})


def may_run_hidden_cases(seed: int = 0, n: int = 200) -> tuple[Case, ...]:
    """``n`` seeded (scope, call) pairs; expected: :func:`library_may_run`.

    Scopes draw repositories (in any case), path prefixes (``docs/``, ``.``...), grants and
    ``secrets`` at random; calls draw every tool of :data:`EXERCISE_ACCESS` and some that
    it does not declare (and declared names in another case: a tool name is compared as it
    is), repositories in mixed case or outside the scope, paths (for read_lines and
    search_files alike) that climb with ``..``, are absolute, share a prefix's first
    letters or bear secrets, and URLs to a host of the scope or a look-alike of it (the
    allowed name inside, before or after another host, as user info, with a trailing dot
    or in upper case), any of them with user info before the host (``user@``,
    ``bot:pw@``, the allowed name itself: ``{h}@``, ``{h}:443@``) or a port after it.
    """
    rng = random.Random(seed)
    cases = []
    for index in range(n):
        scope = _scope(
            [_recase(rng, r) for r in _HIDDEN_REPOSITORIES if rng.random() < 0.5],
            rng.sample(_HIDDEN_PREFIXES, rng.randint(0, 3)),
            [g for g in _ALL_GRANTS if rng.random() < 0.7],
            rng.random() < 0.35,
            [_recase(rng, h) for h in rng.sample(_HIDDEN_HOSTS, rng.randint(0, 2))]
            + (["*"] if rng.random() < 0.2 else []),
        )
        call = _hidden_call(rng, scope["paths"], scope["hosts"])
        focus = index % 4  # every other input reaches a resource rule with its class granted
        if focus == 1:
            named = [_recase(rng, h) for h in rng.sample(_HIDDEN_HOSTS[:-1], rng.randint(1, 2))]
            url = _hidden_url(rng, named)
            # half of these scopes write their hosts with a trailing dot, as a url may
            shown = [f"{h}." for h in named] if index % 8 == 5 else named
            scope = {**scope, "grants": sorted({*scope["grants"], "send"}), "hosts": shown}
            call = _call("http_send", **{**_SEND, "url": url})
        elif focus == 3:
            paths = scope["paths"] if rng.random() < 0.6 else [*scope["paths"], "."]
            scope = {**scope, "grants": sorted({*scope["grants"], "read"}), "paths": paths}
            tool = rng.choice(("read_lines", "search_files"))
            call = _hidden_declared_call(rng, tool, scope["paths"], scope["hosts"])
        cases.append(
            Case(
                Text(zh=f"生成的调用 {index + 1}", en=f"generated call {index + 1}"),
                (scope, call),
                library_may_run(scope, call),
                _HIDDEN_HINT,
            )
        )
    return tuple(cases)


# --------------------------------------------------------------------------- untrusted fields

_PR_COMMENT_FIELDS = (
    "comments[].comment_id",
    "comments[].file",
    "comments[].line",
    "comments[].summary",
    "comments[].resolved",
    "comments[].outdated",
    "comments[].details.name",
    "comments[].details.arguments.repository",
    "comments[].details.arguments.pr",
    "comments[].details.arguments.comment_id",
    "comments[].author",
    "comments[].created_at",
    "comments[].body",
)

#: Every leaf field a result's ``data`` can have, per tool: the leaves of the tool's output
#: schema where it declares one (read_lines, search_files, github_pr_list_comments,
#: github_pr_get_review_snapshot), else the leaves of its real results in both response
#: formats on the emulator. ``tests/test_authz_cases.py`` checks both against the tools.
RESULT_FIELDS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "read_lines": (
            "path",
            "start",
            "lines[].number",
            "lines[].text",
            "lines[].truncated",
            "total_lines",
            "has_more",
        ),
        "search_files": (
            "query",
            "mode",
            "case_sensitive",
            "scope",
            "max_results",
            "candidates[].path",
            "candidates[].line",
            "candidates[].preview",
            "candidates[].preview_truncated",
            "candidates[].next_call.name",
            "candidates[].next_call.arguments.path",
            "candidates[].next_call.arguments.start",
            "candidates[].next_call.arguments.count",
            "truncated",
            "total_matches",
            "total_matches_at_least",
            "stopped_by",
            "files_searched",
            "files_skipped.binary",
            "files_skipped.too_large",
            "files_skipped.symlink",
            "files_skipped.hard_link",
            "files_skipped.secret",
            "files_skipped.other",
            "long_lines_skipped",
            "suggestion",
        ),
        "github_pr_get": (
            "repository",
            "pr",
            "title",
            "state",
            "author",
            "review_comments",
            "comments_tool.name",
            "comments_tool.arguments.repository",
            "comments_tool.arguments.pr",
            "body",
            "created_at",
            "head",
            "base",
        ),
        "github_pr_list_comments": (
            "repository",
            "pr",
            "filter",
            "coverage",
            "next_cursor",
            *_PR_COMMENT_FIELDS,
        ),
        "github_pr_get_comment": (
            "repository",
            "pr",
            "comment_id",
            "file",
            "line",
            "summary",
            "resolved",
            "outdated",
            "author",
            "created_at",
            "body",
            "diff_hunk",
            "html_url",
            "in_reply_to_id",
        ),
        "github_pr_list_conversation": (
            "repository",
            "pr",
            "total",
            "truncated",
            "comments[].comment_id",
            "comments[].author",
            "comments[].summary",
            "comments[].created_at",
        ),
        "github_pr_get_review_snapshot": (
            "repository",
            "pr",
            "title",
            "description",
            "state",
            "author",
            "head_sha",
            "scope.repository",
            "scope.pr",
            "scope.filter",
            "scope.comments_read",
            "scope.pages_read",
            "scope.coverage",
            "scope.reason",
            "scope.next_cursor",
            "scope.next_tool",
            *_PR_COMMENT_FIELDS,
            "read_only",
        ),
    }
)

#: Tool name -> the result fields that carry text someone else wrote, as each tool declares
#: them once on its spec (``ToolSpec.untrusted_fields``; see the module docstring for why
#: each is in or out). Every other field of :data:`RESULT_FIELDS` is produced by our tools
#: or computed by GitHub, or echoes the model's own arguments.
UNTRUSTED_FIELDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        spec.name: spec.untrusted_fields
        for spec in (
            READ_LINES_SPEC,
            SEARCH_FILES_SPEC,
            PR_GET_SPEC,
            LIST_COMMENTS_SPEC,
            GET_COMMENT_SPEC,
            LIST_CONVERSATION_SPEC,
            REVIEW_SNAPSHOT_SPEC,
        )
    }
)


def library_is_untrusted(tool: str, field: str) -> bool:
    """Whether ``field`` of ``tool``'s result carries someone else's text.

    A tool or field that :data:`RESULT_FIELDS` does not list is untrusted: what has not
    been classified is treated as the worst case, as an undeclared tool is refused.
    """
    if field not in RESULT_FIELDS.get(tool, ()):
        return True
    return field in UNTRUSTED_FIELDS[tool]


def _carrier(name: str | Text, tool: str, field: str, expected: bool, hint: str | Text) -> Case:
    return Case(name, (tool, field), expected, hint)


CARRIER_CASES: tuple[Case, ...] = (
    _carrier(
        Text(zh="文件的一行", en="a line of a file"),
        "read_lines",
        "lines[].text",
        True,
        Text(zh="文件内容是别人写的。", en="A file's contents were written by someone else."),
    ),
    _carrier(
        Text(zh="回显的路径", en="the echoed path"),
        "read_lines",
        "path",
        False,
        Text(
            zh="read_lines 的 path 是模型自己给的参数原样带回，不是在别处找到的名字。",
            en="read_lines' path is the model's own argument, echoed back as it is, "
            "not a name found somewhere else.",
        ),
    ),
    _carrier(
        Text(zh="文件行数", en="the file's line count"),
        "read_lines",
        "total_lines",
        False,
        Text(
            zh="行数是我们的工具数出来的，没有别人的话。",
            en="Our tool counted the lines; no one else's words are in it.",
        ),
    ),
    _carrier(
        Text(zh="还有没有后面的行", en="whether more lines follow"),
        "read_lines",
        "has_more",
        False,
        Text(
            zh="has_more 是我们的工具比较行号和总行数得出的 true/false，没有别人的话。",
            en="Our tool works out has_more (true/false) from the line numbers and the line "
            "count; no one else's words are in it.",
        ),
    ),
    _carrier(
        Text(zh="搜到的文件名", en="a file name the search found"),
        "search_files",
        "candidates[].path",
        True,
        Text(
            zh="这些名字是在磁盘上找到的，文件名由创建文件的人决定，可以写成一句指令。",
            en="These names were found on disk; a file name is chosen by whoever "
            "created the file and can be written as an instruction.",
        ),
    ),
    _carrier(
        Text(zh="匹配行预览", en="a matching line's preview"),
        "search_files",
        "candidates[].preview",
        True,
        Text(zh="预览就是文件内容。", en="The preview is the file's contents."),
    ),
    _carrier(
        Text(zh="下一步调用里的文件名", en="the file name in the next call"),
        "search_files",
        "candidates[].next_call.arguments.path",
        True,
        Text(
            zh="调用的结构是我们的工具拼的，但 path 的值就是磁盘上找到的文件名："
            "看填进去的是谁的字。",
            en="Our tool built the call's structure, but the value of path is the "
            "file name found on disk: look at whose words fill it.",
        ),
    ),
    _carrier(
        Text(zh="下一步调用的工具名", en="the next call's tool name"),
        "search_files",
        "candidates[].next_call.name",
        False,
        Text(
            zh="固定是 read_lines，由我们的工具写入。", en="Always read_lines, written by our tool."
        ),
    ),
    _carrier(
        Text(zh="回显的搜索词", en="the echoed search query"),
        "search_files",
        "query",
        False,
        Text(
            zh="query 是模型自己给的搜索词原样带回，不是在文件里找到的文字。",
            en="query is the model's own search words, echoed back as they are, not text "
            "found in a file.",
        ),
    ),
    _carrier(
        Text(zh="回显的搜索范围", en="the echoed search scope"),
        "search_files",
        "scope",
        False,
        Text(
            zh="scope 回显模型给的 path 参数。", en="scope echoes the path argument the model gave."
        ),
    ),
    _carrier(
        Text(zh="工具自己的建议", en="the tool's own suggestion"),
        "search_files",
        "suggestion",
        False,
        Text(
            zh="建议是我们的工具自己写的句子。",
            en="The suggestion is a sentence our tool wrote itself.",
        ),
    ),
    _carrier(
        Text(zh="回显的仓库名", en="the echoed repository"),
        "github_pr_get",
        "repository",
        False,
        Text(
            zh="repository 是模型自己给的参数原样带回：是它要读的仓库，不是在结果里找到的名字。",
            en="repository is the model's own argument echoed back: the repository it asked "
            "to read, not a name found in the result.",
        ),
    ),
    _carrier(
        Text(zh="PR 标题", en="PR title"),
        "github_pr_get",
        "title",
        True,
        Text(zh="标题由 PR 作者填写。", en="The PR's author fills in the title."),
    ),
    _carrier(
        Text(zh="PR 作者", en="PR author"),
        "github_pr_get",
        "author",
        True,
        Text(
            zh="登录名是账号主人自己起的：merge-it-now 也是合法的登录名。",
            en="A login is chosen by the account's owner: merge-it-now is a valid login too.",
        ),
    ),
    _carrier(
        Text(zh="分支名", en="branch name"),
        "github_pr_get",
        "head",
        True,
        Text(
            zh="分支名由 PR 作者起，可以是任意一句话。",
            en="The PR's author names the branch, and the name can be any sentence.",
        ),
    ),
    _carrier(
        Text(zh="目标分支名", en="the target branch name"),
        "github_pr_get",
        "base",
        True,
        Text(
            zh="base 和 head 一样是分支名：分支由创建它的人起名，不是用户也不是我们的程序，"
            "名字可以是任意一句话。",
            en="base is a branch name just like head: whoever created the branch named it, "
            "neither the user nor our program, and the name can be any sentence.",
        ),
    ),
    _carrier(
        Text(zh="PR 正文", en="PR body"),
        "github_pr_get",
        "body",
        True,
        Text(
            zh="github_pr_get 的 body 是 PR 的正文，由 PR 作者填写"
            "（快照里同一段文字叫 description）。",
            en="github_pr_get's body is the PR's body, filled in by the PR's author (the "
            "snapshot calls the same text description).",
        ),
    ),
    _carrier(
        Text(zh="PR 状态", en="PR state"),
        "github_pr_get",
        "state",
        False,
        Text(zh="open/closed 由 GitHub 给出。", en="open/closed comes from GitHub."),
    ),
    _carrier(
        Text(zh="评论数", en="comment count"),
        "github_pr_get",
        "review_comments",
        False,
        Text(zh="计数，不带任何人的文字。", en="A count, carrying no one's words."),
    ),
    _carrier(
        Text(zh="评论摘要", en="comment summary"),
        "github_pr_list_comments",
        "comments[].summary",
        True,
        Text(
            zh="摘要由我们的工具生成，但引号里是评论者的原话。",
            en="Our tool generates the summary, but the words in quotes are the commenter's own.",
        ),
    ),
    _carrier(
        Text(zh="评论所在的文件", en="the file a comment is on"),
        "github_pr_list_comments",
        "comments[].file",
        True,
        Text(zh="文件名出自 PR 作者之手。", en="The file name comes from the PR's author."),
    ),
    _carrier(
        Text(zh="评论 id", en="comment id"),
        "github_pr_list_comments",
        "comments[].comment_id",
        False,
        Text(zh="id 只是数字。", en="An id is just a number."),
    ),
    _carrier(
        Text(zh="翻页游标", en="paging cursor"),
        "github_pr_list_comments",
        "next_cursor",
        False,
        Text(zh="游标由我们的工具生成并签名。", en="Our tool generates and signs the cursor."),
    ),
    _carrier(
        Text(zh="覆盖情况", en="coverage"),
        "github_pr_list_comments",
        "coverage",
        False,
        Text(
            zh="complete/partial 是我们的工具根据翻页结果给出的。",
            en="complete/partial is given by our tool from the pages it read.",
        ),
    ),
    _carrier(
        Text(zh="回显的 PR 编号", en="the echoed PR number"),
        "github_pr_get_comment",
        "pr",
        False,
        Text(
            zh="pr 是模型自己给的参数原样带回。",
            en="pr is the model's own argument, echoed back as it is.",
        ),
    ),
    _carrier(
        Text(zh="评论全文", en="a comment's full text"),
        "github_pr_get_comment",
        "body",
        True,
        Text(zh="正文是评论者写的。", en="The body is written by the commenter."),
    ),
    _carrier(
        Text(zh="评论的代码片段", en="a comment's code snippet"),
        "github_pr_get_comment",
        "diff_hunk",
        True,
        Text(
            zh="diff 里的代码和注释是 PR 作者写的。",
            en="The code and comments in the diff were written by the PR's author.",
        ),
    ),
    _carrier(
        Text(zh="评论的网页地址", en="the comment's web address"),
        "github_pr_get_comment",
        "html_url",
        False,
        Text(
            zh="html_url 由 GitHub 按仓库、PR 和评论 id 生成，不是谁输入的文字。",
            en="GitHub builds html_url from the repository, the PR and the comment's id; "
            "no one types it.",
        ),
    ),
    _carrier(
        Text(zh="对话评论的作者", en="a conversation comment's author"),
        "github_pr_list_conversation",
        "comments[].author",
        True,
        Text(
            zh="任何人都能在 PR 下发言，登录名由他自己起。",
            en="Anyone can post under a PR, and they choose their own login.",
        ),
    ),
    _carrier(
        Text(zh="对话评论的时间", en="a conversation comment's time"),
        "github_pr_list_conversation",
        "comments[].created_at",
        False,
        Text(zh="时间戳由 GitHub 记录。", en="GitHub records the timestamp."),
    ),
    _carrier(
        Text(zh="快照里的标题", en="the title in the snapshot"),
        "github_pr_get_review_snapshot",
        "title",
        True,
        Text(
            zh="组合工具换了包装，标题还是 PR 作者写的。",
            en="The composite tool changes the wrapping, but the title is still "
            "written by the PR's author.",
        ),
    ),
    _carrier(
        Text(zh="快照里的 PR 正文（description）", en="the PR body in the snapshot (description)"),
        "github_pr_get_review_snapshot",
        "description",
        True,
        Text(
            zh="快照的 description 就是 PR 的正文（github_pr_get 里叫 body），由 PR 作者填写。",
            en="The snapshot's description is the PR's body (called body in "
            "github_pr_get), filled in by the PR's author.",
        ),
    ),
    _carrier(
        Text(zh="快照的覆盖情况", en="the snapshot's coverage"),
        "github_pr_get_review_snapshot",
        "scope.coverage",
        False,
        Text(
            zh="由我们的工具读完所有页后给出。",
            en="Given by our tool after it has read every page.",
        ),
    ),
    _carrier(
        Text(zh="快照的 read_only", en="the snapshot's read_only"),
        "github_pr_get_review_snapshot",
        "read_only",
        False,
        Text(zh="我们的工具声明的常量。", en="A constant our tool declares."),
    ),
    _carrier(
        Text(zh="提交哈希", en="commit hash"),
        "github_pr_get_review_snapshot",
        "head_sha",
        False,
        Text(
            zh="git 算出的十六进制哈希，装不下一句话。",
            en="A hexadecimal hash computed by git: it has no room for a sentence.",
        ),
    ),
    _carrier(
        Text(zh="没登记的工具", en="an undeclared tool"),
        "github_pr_list_reviews",
        "body",
        True,
        Text(
            zh="没分类过的工具按最坏情况处理：不可信。",
            en="A tool that has never been classified is treated as the worst case: untrusted.",
        ),
    ),
    _carrier(
        Text(
            zh="没登记的工具，字段名看着可信",
            en="an undeclared tool, a field name that looks trusted",
        ),
        "github_pr_list_reviews",
        "state",
        True,
        Text(
            zh="这个工具没分类过，就不知道它的 state 是谁写的：不要按字段名套用别的工具的分类，"
            "没分类过的一律不可信。",
            en="This tool has never been classified, so no one knows who wrote its state: do "
            "not borrow another tool's classification by the field's name; anything never "
            "classified is untrusted.",
        ),
    ),
    _carrier(
        Text(zh="没见过的字段", en="a field never seen"),
        "read_lines",
        "encoding",
        True,
        Text(
            zh="表里没有的字段也按最坏情况处理：不可信。",
            en="A field that is not in the table is treated as the worst case too: untrusted.",
        ),
    ),
    _carrier(
        Text(
            zh="没见过的字段，名字看着可信",
            en="a field never seen, with a name that looks trusted",
        ),
        "github_pr_get",
        "html_url",
        True,
        Text(
            zh="github_pr_get 的结果里没有 html_url（RESULT_FIELDS 没列它）：别的工具有同名字段"
            "不等于这里分类过，按不可信处理。",
            en="github_pr_get's result has no html_url (RESULT_FIELDS does not list it): "
            "another tool's field of the same name does not classify this one, so it is "
            "untrusted.",
        ),
    ),
)


#: Every rule exercise 2's task text states, one row per field kind it names, the visible
#: case that fails an answer breaking only that rule, and what :func:`carrier_hidden_cases`
#: varies for it. The solution prints it in three parts: :data:`IS_UNTRUSTED_RULES` ``[:14]``
#: the untrusted fields, ``[14:26]`` what our tools and GitHub compute, ``[26:]`` the echoes
#: and what was never classified.
IS_UNTRUSTED_RULES: tuple[Rule, ...] = load_rules("06", "IS_UNTRUSTED_RULES", CARRIER_CASES)


def carrier_hidden_cases() -> tuple[Case, ...]:
    """Every (tool, field) pair of :data:`RESULT_FIELDS`, plus a few unknown tools and
    fields (some named like a trusted field of another tool: never classified, so still
    untrusted); expected: :func:`library_is_untrusted`. Exhaustive rather than sampled."""
    pairs = [(tool, field) for tool, fields in RESULT_FIELDS.items() for field in fields]
    pairs += [("github_pr_list_reviews", "body"), ("http_send", "status"), ("search_files", "x")]
    # never classified, though a trusted field of a known tool has the same name
    pairs += [
        ("github_pr_list_reviews", "reviews[].state"),
        ("github_pr_list_reviews", "reviews[].comment_id"),
        ("http_send", "created_at"),
        ("github_pr_list_comments", "comments[].html_url"),
        ("github_pr_get_comment", "head_sha"),
    ]
    return tuple(
        Case(
            Text(zh=f"{tool} 的 {field}", en=f"{field} of {tool}"),
            (tool, field),
            library_is_untrusted(tool, field),
            Text(
                zh="和 UNTRUSTED_FIELDS 不一致：别人写的自由文字（文件内容、文件名、标题、正文、"
                "摘要、登录名、分支名）不可信；我们工具生成的、GitHub 计算的、回显模型参数的可信；"
                "没分类过的不可信。",
                en="Differs from UNTRUSTED_FIELDS: free text someone else wrote (file "
                "contents, file names, titles, bodies, summaries, logins, branch "
                "names) is untrusted; what our tools generate, what GitHub computes "
                "and echoes of the model's arguments are trusted; anything never "
                "classified is untrusted.",
            ),
        )
        for tool, field in pairs
    )


# --------------------------------------------------------------------------- report_text


def library_report_text(
    task: str, coverage: str, items: Sequence[str], content: Sequence[str], model_text: str
) -> str:
    """The library's answer to exercise 3: :func:`~tutorial_lib.agent.evidence.format_report`
    on the report's parts. ``model_text`` is taken and never used: it is not a part."""
    del model_text  # what the model wrote is not a part of a report built from evidence
    return format_report(task, coverage, items, content)


def report_lines(text: Any) -> list[str]:
    """What a report_text case compares: the text's lines (a failing case then names the
    line that differs and shows it, where one long string would be shortened)."""
    if not isinstance(text, str):
        raise TypeError(
            tr(
                f"report_text 应该返回 str，实际是 {type(text).__name__}",
                f"report_text should return a str, got {type(text).__name__}",
            )
        )
    return text.split("\n")


def _report(
    name: Text,
    parts: tuple[str, str, Sequence[str], Sequence[str], str],
    hint: Text,
) -> Case:
    task, coverage, items, content, model_text = parts
    args = (task, coverage, list(items), list(content), model_text)
    expected = report_lines(library_report_text(*args))
    return Case(name, args, expected, hint, key=report_lines)


REPORT_CASES: tuple[Case, ...] = (
    _report(
        Text(zh="第一行：任务、覆盖情况和条目", en="first line: task, coverage and items"),
        ("review", "complete", ["1700000001", "1700000002"], ["1700000001 cart.ts:42 race"], ""),
        Text(
            zh="第一行是 <task>: coverage <coverage>; items: <条目>，条目之间是逗号加一个空格；"
            "之后是缩进两个空格的内容行，最后一行是 MODEL_WORDS_LEFT_OUT；各行用 \\n 连接，"
            "末尾不加换行。",
            en="The first line is <task>: coverage <coverage>; items: <items>, the items "
            "separated by a comma and one space; then the content lines indented by two "
            "spaces, and last MODEL_WORDS_LEFT_OUT; the lines joined by \\n, with no "
            "newline at the end.",
        ),
    ),
    _report(
        Text(zh="没有条目：写 none", en="no items: write none"),
        ("search", "partial", [], ["src/app.py:3 TODO: check the limit"], ""),
        Text(
            zh="items 为空时，第一行写 items: none。",
            en="When items is empty, the first line says items: none.",
        ),
    ),
    _report(
        Text(zh="内容：每项一行，缩进两个空格", en="content: one line each, indented by two"),
        ("read", "complete", ["lines 9-11"], ["9: [session]", "10: cookie = strict", "11: "], ""),
        Text(
            zh="content 的每一项单独占一行，前面加两个空格（不多不少）。",
            en="Each item of content is a line of its own, with two spaces in front "
            "(no more, no fewer).",
        ),
    ),
    _report(
        Text(zh="内容：保持原来的顺序", en="content: in the order given"),
        (
            "comments",
            "complete",
            ["1700000003", "1700000001"],
            ["1700000003 cart.ts:8 rename total", "1700000001 api.ts:2 missing check"],
            "",
        ),
        Text(
            zh="内容行按 content 原来的顺序写，不要排序：顺序是工具读到的顺序。",
            en="Write the content lines in the order content gives them, unsorted: it is "
            "the order the tool read them in.",
        ),
    ),
    _report(
        Text(
            zh="没有内容：第一行之后就是最后一行", en="no content: the last line follows the first"
        ),
        ("review", "partial", [], [], ""),
        Text(
            zh="content 为空就没有内容行，也没有空行：报告只有第一行和 MODEL_WORDS_LEFT_OUT 两行。",
            en="An empty content gives no content line and no blank line either: the "
            "report is the first line and MODEL_WORDS_LEFT_OUT, two lines.",
        ),
    ),
    _report(
        Text(zh="model_text 为空也有最后一行", en="the last line even when model_text is empty"),
        ("review", "complete", ["1700000001"], ["1700000001 a.ts:1 typo"], ""),
        Text(
            zh="MODEL_WORDS_LEFT_OUT 总是写，哪怕模型什么也没说：报告的样子不取决于模型写了什么。",
            en="MODEL_WORDS_LEFT_OUT is always written, even when the model said nothing: "
            "how the report looks does not depend on what the model wrote.",
        ),
    ),
    _report(
        Text(zh="模型说没有需要处理的", en="the model says nothing needs handling"),
        (
            "review",
            "partial",
            ["1700000001"],
            ["1700000001 a.ts:1 typo"],
            "Nothing needs handling.",
        ),
        Text(
            zh="model_text 不进报告：报告只由 task、coverage、items、content 拼成。",
            en="model_text is not part of the report: the report is made from task, "
            "coverage, items and content only.",
        ),
    ),
    _report(
        Text(zh="模型的断言不在任何词表里", en="a claim no word list holds"),
        (
            "read",
            "complete",
            ["lines 1-2"],
            ["1: [session]", "2: cookie = strict"],
            "No session timeout is configured.",
        ),
        Text(
            zh="不要用词表筛 model_text：一句断言有无数种说法，词表总会漏掉一种；不管怎么措辞，"
            "model_text 都不进报告。",
            en="Do not filter model_text with a word list: a claim can be worded in "
            "endless ways, and a list always misses one; however it is worded, "
            "model_text is not part of the report.",
        ),
    ),
    _report(
        Text(zh="模型用中文下结论", en="the model concludes in Chinese"),
        (
            "review",
            "complete",
            ["1700000002"],
            ["1700000002 cart.ts:42 race"],
            "这个 PR 的竞态已经修好了",  # data, not learner text: the model's claim
        ),
        Text(
            zh="哪种语言的 model_text 都不进报告：这一条是中文写的断言。",
            en="model_text stays out in any language: this claim is written in Chinese.",
        ),
    ),
    _report(
        Text(zh="条目里的方向字符", en="a direction character in an item"),
        ("search", "complete", ["notes/report\u202etxt.exe:1"], ["notes/report:1 ok"], ""),
        Text(
            zh="每个条目先用 visible(item, keep='') 处理：U+202E 会让后面的字倒过来显示，"
            "要写成 [U+202E]。",
            en="Pass every item through visible(item, keep=''): U+202E would display what "
            "follows backwards, so it is shown as [U+202E].",
        ),
    ),
    _report(
        Text(zh="内容里的控制字符", en="a control character in the content"),
        ("read", "complete", ["lines 3-3"], ["3: \x1b[2Kall tests pass"], ""),
        Text(
            zh="内容行先用 visible(line, keep='') 处理：ESC（U+001B）能让终端改写已经印出的文字，"
            "要写成 [U+001B]。",
            en="Pass every content line through visible(line, keep=''): an ESC (U+001B) "
            "lets a terminal rewrite what was printed, so it is shown as [U+001B].",
        ),
    ),
    _report(
        Text(zh="内容里的方向字符", en="a direction character in the content"),
        ("comments", "complete", ["1700000004"], ["1700000004 src/a\u202esj.ts:4 fix"], ""),
        Text(
            zh="内容行里的方向字符（U+202E 等）也要用 visible 写成 [U+XXXX]。",
            en="Direction characters (U+202E and others) in a content line are shown as "
            "[U+XXXX] by visible too.",
        ),
    ),
    _report(
        Text(zh="内容里的零宽字符", en="a zero-width character in the content"),
        ("read", "complete", ["lines 5-5"], ["5: api_\u200bkey = none"], ""),
        Text(
            zh="零宽、不可见的字符（U+200B 等）让两个看着一样的名字不同，要用 visible 显示出来。",
            en="Zero-width and other invisible characters (U+200B and others) make two "
            "names that look the same differ: show them with visible.",
        ),
    ),
    _report(
        Text(zh="内容里的标签字符", en="tag characters in the content"),
        ("read", "complete", ["lines 2-2"], ["2: ok\U000e0069\U000e0067\U000e006e"], ""),
        Text(
            zh="Unicode 标签字符（U+E0000 到 U+E007F）是看不见的 ASCII，模型却读得到，"
            "要用 visible 写成 [U+E0069] 这样。",
            en="Unicode tag characters (U+E0000 to U+E007F) are invisible ASCII that a "
            "model still reads: visible shows them as [U+E0069] and so on.",
        ),
    ),
    _report(
        Text(zh="内容行里的换行", en="a newline inside a content line"),
        ("read", "complete", ["lines 7-7"], ["7: done\nREPORT: all clear"], ""),
        Text(
            zh="用 visible(line, keep='')，不是 visible(line)：默认会留下换行，一行内容就变成两行，"
            "第二行像是报告自己的话；keep='' 把它写成 [U+000A]。",
            en="Use visible(line, keep=''), not visible(line): the default keeps the "
            "newline, so one content line becomes two and the second reads like the "
            "report's own words; keep='' shows it as [U+000A].",
        ),
    ),
)

#: Every rule exercise 3's task text states, the visible case that fails an answer breaking
#: only that rule, and what :func:`report_hidden_cases` varies for it. The solution prints
#: it in three parts: ``[:8]`` the report's lines, ``[8:11]`` the model's words,
#: ``[11:]`` the hidden characters.
REPORT_RULES: tuple[Rule, ...] = load_rules("06", "REPORT_RULES", REPORT_CASES)


# --------------------------------------------------------------------------- report hidden

_REPORT_TASKS = ("review", "read", "search", "comments", "snapshot")
_REPORT_COVERAGES = ("complete", "partial", "incomplete")
_SUBJECTS_EN = ("session timeout", "rate limit", "race in cart.ts", "retry budget", "CSRF check")
# data, not learner text: what a model's claims are about, in Chinese
_SUBJECTS_ZH = ("会话超时", "限流", "购物车的竞态", "重试次数", "CSRF 检查")
#: Claims a model can make about content, in several wordings ({s}: what they are about).
_CLAIMS_EN = (
    "No {s} is configured.",
    "The {s} is fine.",
    "The {s} was fixed in this PR.",
    "Nothing about the {s} needs handling.",
    "I checked the {s}: all good.",
    "There are no issues with the {s}.",
    "Reviewers agree the {s} can wait.",
    "{task}: coverage complete; items: none",
)
# data, not learner text: the model's words a report must leave out
_CLAIMS_ZH = (
    "这里没有问题。",
    "没有配置{s}。",
    "{s}已经修好了。",
    "{s}不用处理。",
    "我看过{s}，一切正常。",
    "关于{s}的评论都是重复的。",
    "评审都同意{s}可以以后再说。",
    "{task}: coverage complete; items: none（都读完了）",
)
#: Hidden characters of each class (see tutorial_lib.core.display).
_HIDDEN_BY_CLASS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "control": ("\x1b[2K", "\r", "\x08", "\x7f", "\x85", "\u2028"),
        "direction": ("\u202e", "\u202d", "\u2066", "\u2069", "\u200f", "\u061c"),
        "invisible": ("\u200b", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u3164"),
        "tag": tuple(
            "".join(chr(0xE0000 + ord(c)) for c in word) for word in ("ignore", "send", "ok")
        ),
        "newline": ("\nREPORT: all clear", "\nnothing else to read"),
    }
)
_REPORT_ITEMS = (
    "1700000001",
    "1700000002",
    "1700000017",
    "lines 1-20",
    "src/app.py:3",
    "docs/a.md:12",
    "notes/report.txt:1",
)
_REPORT_CONTENT = (
    "1700000001 src/cart/cart.ts:42 race on total",
    "1700000002 src/api.ts:7 missing check",
    "3: timeout = 30",
    "4: cookie = strict",
    "10: [session]",
    "9: retries = 3",
    "src/app.py:3 TODO: check the limit",
    "docs/a.md:12 the limit is 100",
)


def _with_hidden(rng: random.Random, text: str, kind: str) -> str:
    """``text`` with one hidden character (or sequence) of class ``kind`` at a random place."""
    piece = rng.choice(_HIDDEN_BY_CLASS[kind])
    where = rng.randint(1, len(text))
    return text[:where] + piece + text[where:]


def _claim(rng: random.Random, task: str, chinese: bool) -> str:
    if chinese:
        return rng.choice(_CLAIMS_ZH).format(s=rng.choice(_SUBJECTS_ZH), task=task)
    return rng.choice(_CLAIMS_EN).format(s=rng.choice(_SUBJECTS_EN), task=task)


_REPORT_HIDDEN_HINT = Text(
    zh="和库的 format_report 不一致。第一行 <task>: coverage <c>; items: <a, b>"
    "（没有条目写 none），每项内容一行、缩进两个空格、按原来的顺序，"
    "最后一行总是 MODEL_WORDS_LEFT_OUT；model_text 不管怎么写都不进报告；"
    "条目和内容都用 visible(text, keep='') 显示（换行也写成 [U+000A]）；"
    "各行用 \\n 连接，末尾不加换行。",
    en="Differs from the library's format_report. The first line is <task>: coverage <c>; "
    "items: <a, b> (none with no items), each content line on its own line, indented by "
    "two spaces, in order, and last always MODEL_WORDS_LEFT_OUT; model_text stays out "
    "however it is written; items and content are shown through visible(text, keep='') "
    "(a newline as [U+000A] too); the lines are joined by \\n, with no newline at the end.",
)


def report_hidden_cases(seed: int = 0, n: int = 120) -> tuple[Case, ...]:
    """``n`` seeded reports; expected: :func:`library_report_text`.

    Task names and coverages at random; zero to four items and zero to five content lines
    in random order (a quarter with no items, a quarter with no content); every fifth
    ``model_text`` empty, the others a claim (that nothing needs handling, that a setting
    is not configured, that an issue is fixed, one imitating the report's first line...)
    in several wordings, half in English and half in Chinese; hidden characters of every
    class (control, direction, invisible, tag, and a newline) in items and content lines,
    the class taking turns so that each comes often.
    """
    rng = random.Random(seed)
    kinds = tuple(_HIDDEN_BY_CLASS)
    cases = []
    for index in range(n):
        task = rng.choice(_REPORT_TASKS)
        coverage = rng.choice(_REPORT_COVERAGES)
        items = [] if index % 4 == 1 else rng.sample(_REPORT_ITEMS, rng.randint(1, 4))
        content = [] if index % 4 == 3 else rng.sample(_REPORT_CONTENT, rng.randint(1, 5))
        kind = kinds[index % len(kinds)]
        if content and index % 2 == 0:
            at = rng.randrange(len(content))
            content[at] = _with_hidden(rng, content[at], kind)
        if items and index % 3 == 0 and kind != "newline":
            at = rng.randrange(len(items))
            items[at] = _with_hidden(rng, items[at], kind)
        model_text = "" if index % 5 == 4 else _claim(rng, task, chinese=index % 2 == 1)
        cases.append(
            _report(
                Text(zh=f"生成的报告 {index + 1}", en=f"generated report {index + 1}"),
                (task, coverage, items, content, model_text),
                _REPORT_HIDDEN_HINT,
            )
        )
    return tuple(cases)
