"""Rule tables of chapter 06's exercises (see tests/rule_harness.py): one mutant per rule,
each the solution's answer with exactly that rule broken the way a learner might."""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.core.authorization import is_secret_path, normalize_workspace_path
from tutorial_lib.core.language import source_text
from tutorial_lib.course.cases.authz_cases import (
    CARRIER_CASES,
    EXERCISE_ACCESS,
    IS_UNTRUSTED_RULES,
    MAY_RUN_CASES,
    MAY_RUN_RULES,
    RESULT_FIELDS,
    carrier_hidden_cases,
    library_is_untrusted,
    library_may_run,
    may_run_hidden_cases,
)

_RANK = {"read": 0, "write": 1, "delete": 2, "send": 3}


def _refused(rule: str) -> dict[str, Any]:
    return {"allowed": False, "rule": rule}


def _url_hosts(flaw: str, url: str) -> list[str]:
    """The host(s) the answer reads from ``url``: ``hostname``, or a learner's own cut of
    ``netloc`` (which keeps the user info, the port and the case) for the three flaws
    about them."""
    netloc = urllib.parse.urlsplit(url).netloc.lower()
    if flaw == "端口不是主机的一部分":  # drops the user info, keeps the port
        return [netloc.rpartition("@")[2]]
    if flaw == "用户信息不是主机的一部分":  # drops the port, keeps the user info
        return [re.sub(r":\d*$", "", netloc)]
    if flaw == "@ 后面才是主机":  # either side of an @ may be the host
        return [part.partition(":")[0] for part in netloc.split("@")]
    return [urllib.parse.urlsplit(url).hostname or ""]


def _host_ok(flaw: str, url: str, hosts: list[str]) -> bool:
    found = _url_hosts(flaw, url)
    if flaw != "主机末尾的点":
        found = [host.rstrip(".") for host in found]
    if flaw != "hosts 里的点也去掉":
        hosts = [h.rstrip(".") for h in hosts]
    if flaw != "主机不分大小写":
        found, hosts = [host.lower() for host in found], [h.lower() for h in hosts]
    if "*" in hosts and flaw != "* 允许任何主机":
        return True
    if flaw == "主机整个相等":
        return any(h in url.lower() for h in hosts)
    if flaw == "主机不是结尾相同":
        return any(host.endswith(h) for host in found for h in hosts)
    return any(host in hosts for host in found)


def make_may_run(flaw: str = "") -> Any:
    """The solution's may_run, with the one rule ``flaw`` names broken."""

    def may_run(scope: dict[str, Any], call: dict[str, Any]) -> dict[str, Any]:
        tool = call["tool"]
        if flaw == "工具名区分大小写":
            tool = next((t for t in EXERCISE_ACCESS if t.casefold() == tool.casefold()), tool)
        entry = EXERCISE_ACCESS.get(tool) if flaw != "undeclared_tool" else EXERCISE_ACCESS[tool]
        if entry is None:
            return _refused("undeclared_tool")
        action = str(entry["action"])
        if flaw == "class_not_granted":
            granted = any(_RANK[g] >= _RANK[action] for g in scope["grants"])
        else:
            granted = action in scope["grants"]
        if not granted and flaw != "按顺序检查":
            return _refused("class_not_granted")
        outcome = _resource(flaw, scope, call, entry)
        if outcome is not None:
            return outcome
        if not granted:
            return _refused("class_not_granted")
        return {"allowed": True}

    return may_run


def _resource(
    flaw: str, scope: dict[str, Any], call: dict[str, Any], entry: Any
) -> dict[str, Any] | None:
    value = call["arguments"].get(entry["argument"], entry["default"])
    if flaw == "参数缺省用 default":
        value = call["arguments"].get(entry["argument"])
        if value is None:
            return None
    if entry["system"] == "github":
        if flaw == "仓库名不分大小写":
            inside = value in scope["repositories"]
        else:
            inside = any(value.casefold() == r.casefold() for r in scope["repositories"])
        return None if inside else _refused("outside_scope")
    if entry["system"] == "outbound":
        return None if _host_ok(flaw, value, scope["hosts"]) else _refused("outside_scope")
    if flaw == "路径先规范化":
        path: str | None = value.removeprefix("./")
    else:
        path = normalize_workspace_path(value)
    inside = False
    for given in scope["paths"]:
        prefix = given if flaw == "前缀也规范化" else normalize_workspace_path(given)
        if path is None or prefix is None:
            continue
        if flaw == "前缀按分量比较":
            below = path.startswith(prefix)
        else:
            below = path == prefix or path.startswith(f"{prefix}/")
        if (prefix == "." and flaw != ". 包含一切") or below:
            inside = True
    if not inside:
        return _refused("outside_scope")
    secret = is_secret_path(path if flaw == "看原路径" and path else value)
    if flaw == "secret_needs_grant":
        secret = False
    if flaw == "每个能读到文件的工具" and call["tool"] != "read_lines":
        secret = False
    granted = scope["secrets"] and flaw != "secrets 授予后放行"
    if secret and not granted:
        return _refused("secret_needs_grant")
    return None


_OTHERS = {"text", "preview", "title", "description", "body", "summary", "author", "file"}
_OTHERS |= {"diff_hunk", "head", "base"}
_LEAVES_OF = {
    "文件内容": {"text", "preview"},
    "PR 的标题和正文": {"description"},
    "分支名": {"head", "base"},
    "评论正文和代码片段": {"diff_hunk"},
    "经过改写也不可信": {"summary"},
    "评论所在的文件名": {"file"},
    "账号名": {"author"},
}


def make_is_untrusted(flaw: str = "") -> Any:
    """The solution's is_untrusted, with the one rule ``flaw`` names broken."""

    def is_untrusted(tool: str, field: str) -> bool:
        known = RESULT_FIELDS.get(tool)
        if known is None and flaw == "不认识的工具":
            return False
        if field not in (known or ()):
            return flaw != "不认识的字段" or known is None
        leaf = field.rsplit(".", 1)[-1].removesuffix("[]")
        if leaf == "path":
            if flaw == "磁盘上找到的文件名" and field == "candidates[].path":
                return False
            if flaw == "next_call 里的文件名":
                return field == "candidates[].path"
            if flaw == "参数的回声可信":
                return True
            return field.startswith("candidates[]")
        if flaw == "我们的工具算出来的可信" and leaf in {"suggestion", "coverage", "reason"}:
            return True  # "a sentence is text": but our tool wrote it
        if flaw == "GitHub 计算的可信" and leaf.startswith("head"):
            return True  # head_sha taken for the branch name
        return leaf in _OTHERS - _LEAVES_OF.get(flaw, set())

    return is_untrusted


EXERCISES = [
    Exercise(
        name="06.may_run",
        rules=MAY_RUN_RULES,
        visible=MAY_RUN_CASES,
        hidden=lambda: may_run_hidden_cases(),
        reference=library_may_run,
        mutants={
            source_text(rule.name): make_may_run(source_text(rule.name)) for rule in MAY_RUN_RULES
        },
    ),
    Exercise(
        name="06.is_untrusted",
        rules=IS_UNTRUSTED_RULES,
        visible=CARRIER_CASES,
        hidden=lambda: carrier_hidden_cases(),
        reference=library_is_untrusted,
        mutants={
            source_text(rule.name): make_is_untrusted(source_text(rule.name))
            for rule in IS_UNTRUSTED_RULES
        },
    ),
]
