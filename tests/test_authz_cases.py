"""Chapter 06's exercise tables: ``may_run`` (authorization) and ``is_untrusted`` (carriers).

- the library's reference passes every visible and hidden case, and the tables cover every
  refusal rule and every priority between two rules;
- a learner-style solution (plain code on the library's two path helpers) passes them too,
  and each of its wrong variants, breaking one rule or priority, fails a visible case
  whose name names that rule; a solution fitted to the visible rows fails the hidden ones;
- :data:`EXERCISE_ACCESS` declares real tools by their real argument names, and
  :data:`RESULT_FIELDS` names the fields the real tools return (their output schemas, and
  calls on the in-process emulator and a temporary workspace).
"""

from __future__ import annotations

import posixpath
import re
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from tests.rule_harness import languages
from tutorial_lib.agent.evidence import MODEL_WORDS_LEFT_OUT, format_report
from tutorial_lib.core.authorization import (
    ACTION_CLASSES,
    REFUSAL_RULES,
    TaskScope,
    is_secret_path,
    normalize_workspace_path,
)
from tutorial_lib.core.display import HIDDEN_CLASSES, hidden_characters
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry, ToolSpec
from tutorial_lib.course.chapters.ch06_authorization_and_injection.cases import (
    CARRIER_CASES,
    EXERCISE_ACCESS,
    MAY_RUN_CASES,
    REPORT_CASES,
    RESULT_FIELDS,
    UNTRUSTED_FIELDS,
    carrier_hidden_cases,
    library_is_untrusted,
    library_may_run,
    library_report_text,
    may_run_hidden_cases,
    report_hidden_cases,
)
from tutorial_lib.course.checks import Case, check_hidden, run_cases
from tutorial_lib.emulator.fixtures import build_store
from tutorial_lib.emulator.service import serve_in_process
from tutorial_lib.examples.outbound import HTTP_SEND_SPEC
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.composite import REVIEW_SNAPSHOT_SPEC, composite_tool_specs
from tutorial_lib.github.dangerous import (
    DANGEROUS_SPECS,
    DangerousContext,
    PendingActions,
    Settings,
    dangerous_tool_specs,
)
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import READ_SPECS, GitHubToolContext, github_tool_specs
from tutorial_lib.github.writes import WRITE_SPECS
from tutorial_lib.language import LANGUAGE_VARIABLE, source_text
from tutorial_lib.workspace.read import READ_LINES_SPEC, read_lines_tool
from tutorial_lib.workspace.search import SEARCH_FILES_SPEC, search_files_tool
from tutorial_lib.worlds.injection import CHAPTER_ACCESS

ALLOWED = {"allowed": True}
LIBRARY_SPECS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        READ_LINES_SPEC,
        SEARCH_FILES_SPEC,
        *READ_SPECS,
        *WRITE_SPECS,
        *DANGEROUS_SPECS,
        HTTP_SEND_SPEC,
        REVIEW_SNAPSHOT_SPEC,
    )
}


def refused(rule: str) -> dict[str, Any]:
    return {"allowed": False, "rule": rule}


def failing(function: Callable[..., Any], cases: tuple[Case, ...]) -> list[str]:
    """The names (Chinese source) of the cases ``function`` does not pass."""
    return [source_text(r.case.name) for r in run_cases(function, cases).results if not r.passed]


# --------------------------------------------------------------------------- the reference


def test_the_library_passes_every_visible_case() -> None:
    report = run_cases(library_may_run, MAY_RUN_CASES)
    assert report.all_passed, "\n".join(report.lines())


def test_the_library_passes_every_hidden_case(capsys: pytest.CaptureFixture[str]) -> None:
    hidden = may_run_hidden_cases()
    assert len(hidden) == 200
    check_hidden(library_may_run, hidden)
    assert capsys.readouterr().out.startswith("隐藏测试 library_may_run：200 个生成的输入")
    assert hidden == may_run_hidden_cases()  # seeded: the same on every run
    assert hidden != may_run_hidden_cases(seed=1)
    assert len(may_run_hidden_cases(n=17)) == 17


def test_the_hidden_cases_meet_every_rule_and_let_some_through() -> None:
    outcomes = Counter(case.expected.get("rule", "allowed") for case in may_run_hidden_cases())
    assert set(outcomes) == {*REFUSAL_RULES, "allowed"}
    assert min(outcomes.values()) >= 10, outcomes
    tools = Counter(case.args[1]["tool"] for case in may_run_hidden_cases())
    assert set(EXERCISE_ACCESS) <= set(tools)


def test_the_visible_table_has_a_case_for_every_rule() -> None:
    outcomes = Counter(case.expected.get("rule", "allowed") for case in MAY_RUN_CASES)
    assert set(outcomes) == {*REFUSAL_RULES, "allowed"}
    assert all(case.expected["allowed"] is (case.expected == ALLOWED) for case in MAY_RUN_CASES)
    assert len(MAY_RUN_CASES) <= 48  # one printed line each: the check fits a notebook cell


def test_names_are_distinct_and_hints_name_the_rule() -> None:
    for cases in (MAY_RUN_CASES, CARRIER_CASES):
        for shown in (source_text, str):
            names = [shown(case.name) for case in cases]
            assert len(set(names)) == len(names), names
        assert all(text.strip() for case in cases for text in languages(case.hint))
    for case in MAY_RUN_CASES:
        if not case.expected["allowed"]:
            assert all(case.expected["rule"] in text for text in languages(case.hint)), case.name


def with_grants(scope: dict[str, Any]) -> dict[str, Any]:
    """``scope`` with every action class granted."""
    return {**scope, "grants": list(ACTION_CLASSES)}


def with_resource(scope: dict[str, Any], call: dict[str, Any]) -> dict[str, Any]:
    """``scope`` widened to hold the call's repository or the whole workspace."""
    repository = call["arguments"].get("repository")
    repositories = [*scope["repositories"], *([repository] if repository else [])]
    return {**scope, "repositories": repositories, "paths": [*scope["paths"], "."]}


def test_the_visible_table_shows_every_priority_between_two_rules() -> None:
    """For each pair of rules, a case refused by the first where the second would refuse
    too: lifting the first rule's reason leaves the library refusing by the second."""
    shown = set()
    for case in MAY_RUN_CASES:
        scope, call = case.args
        rule = case.expected.get("rule")
        if rule == "class_not_granted":
            shown.add((rule, library_may_run(with_grants(scope), call).get("rule")))
        elif rule == "outside_scope":
            shown.add((rule, library_may_run(with_resource(scope, call), call).get("rule")))
        elif rule == "undeclared_tool" and not scope["grants"]:
            shown.add((rule, "class_not_granted"))  # nothing granted: class would refuse too
    assert {
        ("undeclared_tool", "class_not_granted"),
        ("class_not_granted", "outside_scope"),
        ("class_not_granted", "secret_needs_grant"),
        ("outside_scope", "secret_needs_grant"),
    } <= shown
    # the secrets grant needs the class, and does not widen the scope
    assert any(
        c.args[0]["secrets"] and c.expected.get("rule") == "class_not_granted"
        for c in MAY_RUN_CASES
    )
    assert any(
        c.args[0]["secrets"] and c.expected.get("rule") == "outside_scope" for c in MAY_RUN_CASES
    )


# --------------------------------------------------------------------------- the access table


def test_the_access_table_declares_real_tools_by_their_real_arguments() -> None:
    for name, entry in EXERCISE_ACCESS.items():
        spec = LIBRARY_SPECS[name]
        assert entry["action"] in ACTION_CLASSES
        assert spec.annotations.read_only is (entry["action"] == "read"), name
        properties = spec.input_schema["properties"]
        required = spec.input_schema.get("required", [])
        if entry["system"] is None:
            assert entry["argument"] is None
            assert not {"repository", "path"} & set(properties), name
            continue
        assert entry["system"] in ("github", "workspace", "outbound")
        assert entry["argument"] in properties, name
        # an argument the schema requires needs no default; one it may leave out has one
        assert (entry["argument"] in required) is (entry["default"] is None), name
    assert EXERCISE_ACCESS["search_files"]["default"] == "."
    assert EXERCISE_ACCESS["github_pr_merge"]["action"] == "send"


def test_the_access_table_cannot_be_changed() -> None:
    with pytest.raises(TypeError):
        EXERCISE_ACCESS["shell_run"] = EXERCISE_ACCESS["read_lines"]  # type: ignore[index]
    with pytest.raises(TypeError):
        EXERCISE_ACCESS["read_lines"]["action"] = "send"  # type: ignore[index]
    assert isinstance(UNTRUSTED_FIELDS, MappingProxyType)
    assert isinstance(RESULT_FIELDS, MappingProxyType)


def test_a_call_without_its_required_argument_is_not_an_exercise_input() -> None:
    scope = {
        "repositories": [],
        "paths": ["."],
        "hosts": [],
        "grants": ["read"],
        "secrets": False,
    }
    with pytest.raises(ValueError, match="validated arguments"):
        library_may_run(scope, {"tool": "read_lines", "arguments": {"start": 1}})


# --------------------------------------------------------------------------- learner solutions


def make_may_run(flaw: str | None = None) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
    """A learner's ``may_run`` in plain code; ``flaw`` breaks one rule or one priority."""

    def holds_repository(scope: dict[str, Any], repository: str) -> bool:
        if flaw == "case_sensitive":
            return repository in scope["repositories"]
        if flaw == "casefold_call_only":
            return repository.casefold() in scope["repositories"]
        return repository.casefold() in {r.casefold() for r in scope["repositories"]}

    def normal(path: str) -> str | None:
        if flaw == "no_normalize":
            return path
        if flaw in ("absolute_ok", "climb_ok"):
            shaped = posixpath.normpath(path)
            if flaw == "absolute_ok":
                return None if shaped.startswith("..") else shaped
            return None if shaped.startswith("/") else shaped
        return normalize_workspace_path(path)

    def holds_path(scope: dict[str, Any], path: str) -> bool:
        wanted = normal(path)
        if wanted is None:
            return False
        for given in scope["paths"]:
            prefix = given if flaw == "raw_prefix" else normalize_workspace_path(given)
            if prefix == ".":
                return True
            if flaw == "startswith" and wanted.startswith(str(prefix)):
                return True
            if wanted == prefix or wanted.startswith(f"{prefix}/"):
                return True
        return False

    def may_run(scope: dict[str, Any], call: dict[str, Any]) -> dict[str, Any]:
        entry = EXERCISE_ACCESS.get(call["tool"])
        grants = set(scope["grants"])
        if flaw == "grants_nest":  # wrong: a "higher" class would imply the lower ones
            for index, action in enumerate(ACTION_CLASSES):
                if action in grants:
                    grants |= set(ACTION_CLASSES[:index])
        if flaw == "class_before_declared" and (entry or {}).get("action") not in grants:
            return refused("class_not_granted")
        if entry is None:
            return ALLOWED if flaw == "allow_undeclared" else refused("undeclared_tool")
        class_ok = entry["action"] in grants
        if entry["system"] == "outbound":
            if not class_ok:
                return refused("class_not_granted")
            host = urllib.parse.urlsplit(call["arguments"]["url"]).hostname or ""
            netloc = urllib.parse.urlsplit(call["arguments"]["url"]).netloc.lower()
            if flaw == "netloc":  # wrong: netloc keeps the port and the user info
                host = netloc
            elif flaw == "netloc_cut_at_colon":  # drops a port, but bot:pw@h gives "bot"
                host = netloc.split(":")[0]
            elif flaw == "netloc_cut_at_at":  # takes the user info for the host
                host = netloc.split("@")[0].split(":")[0]
            host = host.rstrip(".")  # the task text: a trailing dot is the same host
            hosts = [h.rstrip(".") for h in scope["hosts"]]  # the same rule for the scope's
            if flaw != "host_case_sensitive":
                hosts = [h.lower() for h in hosts]
            else:
                host = urllib.parse.urlsplit(call["arguments"]["url"]).netloc
            if flaw == "host_ignored" or host in hosts or ("*" in hosts and flaw != "no_star"):
                return ALLOWED
            return refused("outside_scope")
        # wrong with no_default: "no path given, nothing to check" (the default is ".")
        default = None if flaw == "no_default" else entry["default"]
        value = call["arguments"].get(entry["argument"], default)
        if value is None:
            return ALLOWED if class_ok else refused("class_not_granted")
        secret_file = entry["system"] == "workspace" and is_secret_path(value)
        if flaw == "secret_before_class" and secret_file and not scope["secrets"]:
            return refused("secret_needs_grant")
        if flaw == "secrets_replace_class" and secret_file and scope["secrets"]:
            class_ok = True
        if not class_ok and flaw != "scope_before_class":
            return refused("class_not_granted")
        if entry["system"] == "github":
            if not holds_repository(scope, value):
                return refused("outside_scope")
        else:
            secret_refused = secret_file and not scope["secrets"] and flaw != "ignore_secrets"
            if flaw == "secret_before_scope" and secret_refused:
                return refused("secret_needs_grant")
            widened = flaw == "secrets_widen_scope" and secret_file and scope["secrets"]
            if not holds_path(scope, value) and not widened:
                return refused("outside_scope")
            if not class_ok:
                return refused("class_not_granted")
            if secret_refused:
                return refused("secret_needs_grant")
        if not class_ok:
            return refused("class_not_granted")
        return ALLOWED

    return may_run


#: Each wrong solution, and a word that the name of a visible case it fails contains.
FLAWS = {
    "allow_undeclared": "undeclared_tool",
    "class_before_declared": "undeclared_tool 优先",
    "grants_nest": "send 不能读",
    "scope_before_class": "类别先于范围",
    "case_sensitive": "大小写",
    "casefold_call_only": "范围里写的是大写",
    "startswith": "docs2",
    "raw_prefix": "docs/",
    "no_normalize": "..",
    "absolute_ok": "绝对路径",
    "climb_ok": "爬出工作区",
    "no_default": "search_files 不给 path",
    "ignore_secrets": "secret_needs_grant",
    "secret_before_scope": "范围先于密钥",
    "secret_before_class": "类别先于密钥",
    "secrets_replace_class": "授予 secrets 仍需 read",
    "secrets_widen_scope": "不扩大范围",
    "host_ignored": "没列出的主机",
    "host_case_sensitive": "主机",
    "no_star": "* 允许任何主机",
    "netloc": "url 带端口",
    "netloc_cut_at_colon": "url 带用户信息",
    "netloc_cut_at_at": "允许的主机写在 @ 前面",
}


def test_a_learner_solution_in_plain_code_passes_every_case() -> None:
    may_run = make_may_run()
    report = run_cases(may_run, MAY_RUN_CASES)
    assert report.all_passed, "\n".join(report.lines())
    hidden = run_cases(may_run, may_run_hidden_cases())
    assert hidden.all_passed, "\n".join(hidden.lines())


@pytest.mark.parametrize(("flaw", "marker"), FLAWS.items())
def test_each_wrong_solution_fails_a_case_that_names_its_rule(flaw: str, marker: str) -> None:
    failed = failing(make_may_run(flaw), MAY_RUN_CASES)
    assert failed, f"{flaw} passes every visible case"
    assert any(marker in name for name in failed), (flaw, failed)


def test_a_netloc_answer_is_first_told_the_port_is_not_the_host() -> None:
    """The learner trial's answer (``netloc`` for ``hostname``): its first ✗ is the port
    case, whose hint names the rule and shows the whole URL. (The hand-cut netloc answers
    are FLAWS above: each fails the case of the rule it breaks.)"""
    report = run_cases(make_may_run("netloc"), MAY_RUN_CASES)
    first = next(r for r in report.results if not r.passed)
    assert source_text(first.case.name) == "放行：url 带端口"
    assert "端口" in str(first.case.hint) and "netloc" in str(first.case.hint)
    assert "port" in first.case.hint.en and "netloc" in first.case.hint.en
    assert "https://collector.example:8443/in" in "\n".join(report.lines())  # the whole input
    # netloc refuses collector.example@attacker.example as the reference does: the @ case
    # is there for the hand-cut netloc answers (netloc_cut_at_at)
    assert failing(make_may_run("netloc"), MAY_RUN_CASES) == [
        "放行：url 带端口",
        "放行：url 带用户信息",
    ]


def test_every_wrong_solution_fails_the_hidden_cases_too() -> None:
    # the generator makes near misses of the scope's own prefixes, so each flaw meets one
    hidden = may_run_hidden_cases()
    missed = [flaw for flaw in FLAWS if not failing(make_may_run(flaw), hidden)]
    assert missed == []


def test_a_solution_fitted_to_the_visible_cases_fails_the_hidden_ones() -> None:
    visible = {repr(case.args): case.expected for case in MAY_RUN_CASES}

    def may_run(scope: dict[str, Any], call: dict[str, Any]) -> Any:
        return visible.get(repr((scope, call)), ALLOWED)

    assert run_cases(may_run, MAY_RUN_CASES).all_passed
    hidden = may_run_hidden_cases()
    assert run_cases(may_run, hidden).passed < 0.4 * len(hidden)
    with pytest.raises(AssertionError, match="differ from the reference"):
        check_hidden(may_run, hidden)


# --------------------------------------------------------------------------- is_untrusted


def test_the_carrier_reference_passes_every_case() -> None:
    report = run_cases(library_is_untrusted, CARRIER_CASES)
    assert report.all_passed, "\n".join(report.lines())
    hidden = carrier_hidden_cases()
    assert run_cases(library_is_untrusted, hidden).all_passed
    assert len(hidden) == sum(len(fields) for fields in RESULT_FIELDS.values()) + 8


def test_the_carrier_tables_agree_with_each_other() -> None:
    assert set(UNTRUSTED_FIELDS) == set(RESULT_FIELDS)
    for tool, fields in RESULT_FIELDS.items():
        assert len(set(fields)) == len(fields), tool
        assert UNTRUSTED_FIELDS[tool] <= set(fields), tool
        assert UNTRUSTED_FIELDS[tool], tool
        assert set(fields) - UNTRUSTED_FIELDS[tool], tool
    # the visible table asks about real fields, apart from its "never classified" rows (two
    # of them named like a trusted field of another tool)
    unknown = [
        source_text(c.name)
        for c in CARRIER_CASES
        if c.args[1] not in RESULT_FIELDS.get(c.args[0], ())
    ]
    assert unknown == [
        "没登记的工具",
        "没登记的工具，字段名看着可信",
        "没见过的字段",
        "没见过的字段，名字看着可信",
    ]
    assert {c.args[0] for c in CARRIER_CASES} >= set(RESULT_FIELDS)
    assert Counter(c.expected for c in CARRIER_CASES)[False] >= 10


def leaves(data: Any, prefix: str = "") -> set[str]:
    """The leaf field paths of ``data`` (``comments[].summary`` for every list item)."""
    if isinstance(data, Mapping):
        return {
            path
            for key, value in data.items()
            for path in leaves(value, f"{prefix}.{key}" if prefix else key)
        }
    if isinstance(data, list):
        return {path for item in data for path in leaves(item, f"{prefix}[]")}
    return {prefix}


def schema_leaves(schema: Mapping[str, Any], prefix: str = "") -> set[str]:
    """The leaf field paths an output schema allows (objects, arrays of objects)."""
    if "properties" in schema:
        return {
            path
            for key, value in schema["properties"].items()
            for path in schema_leaves(value, f"{prefix}.{key}" if prefix else key)
        }
    if "items" in schema:
        return schema_leaves(schema["items"], f"{prefix}[]")
    return {prefix}


def test_result_fields_are_the_output_schemas_leaves() -> None:
    declared = [name for name in RESULT_FIELDS if LIBRARY_SPECS[name].output_schema is not None]
    assert sorted(declared) == sorted(
        ["read_lines", "search_files", "github_pr_list_comments", "github_pr_get_review_snapshot"]
    )
    for name in declared:
        schema = LIBRARY_SPECS[name].output_schema
        assert schema is not None
        assert set(RESULT_FIELDS[name]) == schema_leaves(schema), name


@pytest.fixture
def real_results(tmp_path: Path) -> Iterator[dict[str, set[str]]]:
    """Tool name -> the leaf fields of its real results (every response format)."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Notes\nTODO: ship it\n", encoding="utf-8")
    with (
        serve_in_process(build_store()) as handle,
        GitHubClient(handle.base_url, transport=handle.transport()) as client,
    ):
        context = GitHubToolContext(client, CursorCodec(b"q" * 32))
        dangerous = DangerousContext(client, Settings({}), PendingActions())
        registry = Registry(
            [
                read_lines_tool(tmp_path),
                search_files_tool(tmp_path),
                *github_tool_specs(context),
                *composite_tool_specs(context),
                *dangerous_tool_specs(dangerous),
            ]
        )
        # a read task: chapter 06's declarations of the registered tools, reads granted on
        # the repository and the whole workspace (the dangerous tools stay undeclared)
        host = Host(
            registry,
            access={n: a for n, a in CHAPTER_ACCESS.items() if n in registry.names},
            scope=TaskScope(
                repositories=frozenset({"example/shop"}),
                workspace_paths=(".",),
                grants=frozenset({"read"}),
            ),
        )
        pr = {"repository": "example/shop", "pr": 128}
        listed: Any = host.call("github_pr_list_comments", pr)
        first = listed["data"]["comments"][0]
        one = {**pr, "comment_id": first["comment_id"]}
        detailed = {"response_format": "detailed"}
        calls: list[tuple[str, dict[str, Any]]] = [
            ("read_lines", {"path": "docs/a.md", "start": 1, "count": 5}),
            ("search_files", {"query": "TODO"}),
            ("github_pr_get", pr),
            ("github_pr_get", {**pr, **detailed}),
            ("github_pr_list_comments", pr),
            ("github_pr_list_comments", {**pr, **detailed}),
            ("github_pr_get_comment", one),
            ("github_pr_get_comment", {**one, **detailed}),
            ("github_pr_list_conversation", pr),
            ("github_pr_get_review_snapshot", pr),
        ]
        found: dict[str, set[str]] = {}
        for name, args in calls:
            result: Any = host.call(name, args)
            assert result["ok"] is True, (name, result)
            found.setdefault(name, set()).update(leaves(result["data"]))
        yield found


def test_result_fields_name_what_the_real_tools_return(real_results: dict[str, set[str]]) -> None:
    assert set(real_results) == set(RESULT_FIELDS)
    for name, got in real_results.items():
        assert got <= set(RESULT_FIELDS[name]), (name, got - set(RESULT_FIELDS[name]))
        if LIBRARY_SPECS[name].output_schema is None:
            # no schema to read: the table is exactly what the tool was seen to return
            assert got == set(RESULT_FIELDS[name]), name
    # every untrusted field of the visible table was really seen in a result
    for case in CARRIER_CASES:
        tool, field = case.args
        if tool in real_results and case.expected and field in RESULT_FIELDS[tool]:
            assert field in real_results[tool], case.name


def make_is_untrusted(flaw: str) -> Callable[[str, str], bool]:
    """A learner's ``is_untrusted`` built on the table; ``flaw`` gets one idea wrong."""
    words = {"text", "preview", "title", "body", "summary", "diff_hunk"}

    def is_untrusted(tool: str, field: str) -> bool:
        known = field in RESULT_FIELDS.get(tool, ())
        if flaw == "keywords":  # wrong: only fields that look like prose
            return field.split(".")[-1] in words
        if not known:
            return flaw != "unknown_trusted"
        if flaw == "echoes_untrusted" and field in ("path", "scope", "query", "repository"):
            return True
        if flaw == "built_structure_trusted" and ("next_call" in field or "details" in field):
            return False
        if flaw == "summaries_are_ours" and field.endswith("summary"):
            return False
        return field in UNTRUSTED_FIELDS[tool]

    return is_untrusted


CARRIER_FLAWS = {
    "keywords": "搜到的文件名",
    "unknown_trusted": "没登记的工具",
    "echoes_untrusted": "回显的路径",
    "built_structure_trusted": "下一步调用里的文件名",
    "summaries_are_ours": "评论摘要",
}


@pytest.mark.parametrize(("flaw", "marker"), CARRIER_FLAWS.items())
def test_each_wrong_carrier_solution_fails_a_case_that_names_it(flaw: str, marker: str) -> None:
    failed = failing(make_is_untrusted(flaw), CARRIER_CASES)
    assert any(marker in name for name in failed), (flaw, failed)
    assert failing(make_is_untrusted(flaw), carrier_hidden_cases())


def test_a_carrier_table_fitted_to_the_visible_cases_fails_the_hidden_ones() -> None:
    visible = {case.args: case.expected for case in CARRIER_CASES}

    def is_untrusted(tool: str, field: str) -> bool:
        return visible.get((tool, field), False)

    assert run_cases(is_untrusted, CARRIER_CASES).all_passed
    hidden = carrier_hidden_cases()
    assert run_cases(is_untrusted, hidden).passed < len(hidden)
    assert len(failing(is_untrusted, hidden)) >= 10


# --------------------------------------------------------------------------- report_text


def test_the_report_reference_passes_every_case_and_is_format_report() -> None:
    assert run_cases(library_report_text, REPORT_CASES).all_passed
    hidden = report_hidden_cases()
    assert len(hidden) == 120
    assert run_cases(library_report_text, hidden).all_passed
    assert hidden == report_hidden_cases()  # seeded: the same on every run
    assert hidden != report_hidden_cases(seed=1)
    for case in (*REPORT_CASES, *hidden):
        task, coverage, items, content, _ = case.args
        assert case.expected == format_report(task, coverage, items, content).split("\n")
        assert case.expected[-1] == MODEL_WORDS_LEFT_OUT


def test_the_report_cases_meet_every_class_both_languages_and_empty_parts() -> None:
    """Hidden characters of each class in items and in content (the newline too), empty
    items, empty content, empty model_text, and claims in English and in Chinese."""
    cases = [*REPORT_CASES, *report_hidden_cases()]
    for part in (2, 3):
        found = {kind for case in cases for text in case.args[part] for kind in _kinds(text)}
        assert found >= {*HIDDEN_CLASSES, "newline"} - ({"newline"} if part == 2 else set())
    assert any(not case.args[2] for case in report_hidden_cases())
    assert any(not case.args[3] for case in report_hidden_cases())
    claims = [case.args[4] for case in report_hidden_cases()]
    assert "" in claims
    assert any(re.search(r"[\u4e00-\u9fff]", c) for c in claims)
    assert any(c.isascii() and c for c in claims)
    # no claim is shown: the model's words never reach a report
    for case in cases:
        if case.args[4]:
            assert case.args[4] not in "\n".join(case.expected)


def _kinds(text: str) -> set[str]:
    kinds = {kind for _, code, kind in hidden_characters(text) if code != "U+000A"}
    return kinds | {"newline"} if "\n" in text else kinds


def test_a_report_that_is_not_a_string_is_named_in_the_learners_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = run_cases(lambda *args: None, REPORT_CASES[:1])
    assert "report_text 应该返回 str" in "\n".join(report.lines())
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    report = run_cases(lambda *args: None, REPORT_CASES[:1])
    assert "report_text should return a str, got NoneType" in "\n".join(report.lines())
