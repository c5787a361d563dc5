"""Rule tables of chapter 06's exercises (see tests/rule_harness.py): one mutant per rule,
each the solution's answer with exactly that rule broken the way a learner might."""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.agent.evidence import MODEL_WORDS_LEFT_OUT
from tutorial_lib.core.authorization import is_secret_path, normalize_workspace_path
from tutorial_lib.core.display import hidden_class, visible
from tutorial_lib.course.chapters.ch06_authorization_and_injection.cases import (
    CARRIER_CASES,
    EXERCISE_ACCESS,
    IS_UNTRUSTED_RULES,
    MAY_RUN_CASES,
    MAY_RUN_RULES,
    REPORT_CASES,
    REPORT_RULES,
    RESULT_FIELDS,
    carrier_hidden_cases,
    library_is_untrusted,
    library_may_run,
    library_report_text,
    may_run_hidden_cases,
    report_hidden_cases,
)
from tutorial_lib.language import source_text

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
#: rule -> the leaves an answer breaking it takes for trusted although someone else wrote them
_TRUSTED_BY_MISTAKE = {
    "文件的行": {"text"},
    "搜索预览": {"preview"},
    "PR 的标题": {"title"},
    "快照里的 PR 正文": {"description"},
    "分支名": {"head"},
    "目标分支名": {"base"},  # "branch names head and base": only head has a visible case
    "经过改写也不可信": {"summary"},
    "代码片段": {"diff_hunk"},
    "评论所在的文件名": {"file"},
    "账号名": {"author"},
}
#: rule -> the leaves an answer breaking it distrusts although our tools, GitHub or the
#: model's own arguments wrote them
_DISTRUSTED_BY_MISTAKE = {
    "id": {"comment_id"},
    "计数": {"total_lines", "review_comments", "total", "total_matches", "files_searched"},
    "coverage": {"coverage"},
    "next_cursor": {"next_cursor"},  # "an opaque string could hold anything"
    "has_more": {"has_more"},
    "suggestion": {"suggestion", "reason"},  # "a sentence is text": but our tool wrote it
    "read_only": {"read_only"},
    "state": {"state"},
    "created_at": {"created_at"},
    "html_url": {"html_url"},  # "a URL is text"
    "repository": {"repository"},  # "the repository's owner chose its name"
    "pr": {"pr"},
    "query": {"query"},  # "the model's query may be injected": but it is the model's own
}
_COMMENT_TOOLS = {
    "github_pr_list_comments",
    "github_pr_get_comment",
    "github_pr_get_review_snapshot",
}


def _leaf(field: str) -> str:
    return field.rsplit(".", 1)[-1].removesuffix("[]")


def _by_leaf(field: str) -> bool:
    """How a learner who judges by the field's name alone classifies a field never seen:
    as the known fields with that leaf name are classified (untrusted if none is)."""
    seen = {
        library_is_untrusted(tool, known)
        for tool, fields in RESULT_FIELDS.items()
        for known in fields
        if _leaf(known) == _leaf(field)
    }
    return seen != {False}


def make_is_untrusted(flaw: str = "") -> Any:
    """The solution's is_untrusted, with the one rule ``flaw`` names broken."""

    def is_untrusted(tool: str, field: str) -> bool:
        known = RESULT_FIELDS.get(tool)
        if known is None:
            if flaw == "不认识的工具":
                return False
            return _by_leaf(field) if flaw == "不认识的工具不看字段名" else True
        if field not in known:
            if flaw == "不认识的字段":
                return False
            return _by_leaf(field) if flaw == "不认识的字段不看字段名" else True
        leaf = _leaf(field)
        if flaw == "next_call 的其余部分" and "next_call" in field:
            return True  # "our tool built the call from a found name": the whole call
        if leaf == "path":
            if flaw == "磁盘上找到的文件名" and field == "candidates[].path":
                return False
            if flaw == "next_call 里的文件名":
                return field == "candidates[].path"
            if flaw == "参数的回声可信":
                return True
            return field.startswith("candidates[]")
        if flaw == "scope" and field == "scope":
            return True  # search_files' scope taken for a found path
        if flaw == "head_sha" and leaf.startswith("head"):
            return True  # head_sha taken for the branch name
        if leaf == "body":
            if flaw == "PR 的正文" and tool == "github_pr_get":
                return False  # "body" taken for a comment's body only
            if flaw == "评论正文" and tool in _COMMENT_TOOLS:
                return False  # "body" taken for the PR's body only
        if leaf in _DISTRUSTED_BY_MISTAKE.get(flaw, set()):
            return True
        return leaf in _OTHERS - _TRUSTED_BY_MISTAKE.get(flaw, set())

    return is_untrusted


#: The claims a learner's word list knows (English only, or both languages).
_WORDS_EN = ("nothing", "no issues", "all good", "all clear", "complete")
_WORDS_ZH = ("没有问题", "一切正常", "不用处理", "无需处理", "都读完了")
#: rule -> the class of hidden characters an answer breaking it leaves in content lines
_CLASS_LEFT = {
    "内容里的控制字符": "control",
    "内容里的方向字符": "direction",
    "内容里的不可见字符": "invisible",
    "内容里的标签字符": "tag",
}


def _shown_but(kind: str, text: str) -> str:
    """A learner's own list of hidden characters that misses one class: ``text`` with the
    others shown as [U+XXXX], that class left as it is."""
    return "".join(f"[U+{ord(c):04X}]" if hidden_class(c) not in (None, kind) else c for c in text)


def make_report_text(flaw: str = "") -> Any:
    """The solution's report_text, with the one rule ``flaw`` names broken."""

    def report_text(
        task: str, coverage: str, items: list[str], content: list[str], model_text: str
    ) -> str:
        shown_items = items if flaw == "条目里的隐藏字符" else [visible(i, keep="") for i in items]
        if flaw in _CLASS_LEFT:
            shown = [_shown_but(_CLASS_LEFT[flaw], line) for line in content]
        elif flaw == "换行也写出来":
            shown = [visible(line) for line in content]  # keeps the newline
        else:
            shown = [visible(line, keep="") for line in content]
        if flaw == "内容保持原来的顺序":
            shown = sorted(shown)
        joined = ("," if flaw == "条目用逗号加空格隔开" else ", ").join(shown_items)
        listed = joined if joined or flaw == "没有条目写 none" else "none"
        first = (
            f"{task}: coverage: {coverage}; items: {listed}"
            if flaw == "第一行的格式"
            else f"{task}: coverage {coverage}; items: {listed}"
        )
        lines = [first]
        indent = "    " if flaw == "内容行缩进两个空格" else "  "
        if flaw == "没有内容就没有内容行":
            lines.append(indent + f"\n{indent}".join(shown))  # a blank line when empty
        else:
            lines += [indent + line for line in shown]
        words = {"不看措辞": _WORDS_EN + _WORDS_ZH, "哪种语言都一样": _WORDS_EN}.get(flaw)
        if words is not None and model_text and not any(w in model_text for w in words):
            lines.append(model_text)  # a claim the word list does not know
        if flaw == "模型的话不进报告" and model_text:
            lines.append(model_text)  # the model's notes, as its answer carried them
        if flaw != "最后一行总是那句话" or model_text:
            lines.append(MODEL_WORDS_LEFT_OUT)
        return "\n".join(lines) + ("\n" if flaw == "末尾不加换行" else "")

    return report_text


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
    Exercise(
        name="06.report_text",
        rules=REPORT_RULES,
        visible=REPORT_CASES,
        hidden=lambda: report_hidden_cases(),
        reference=library_report_text,
        mutants={
            source_text(rule.name): make_report_text(source_text(rule.name))
            for rule in REPORT_RULES
        },
    ),
]
