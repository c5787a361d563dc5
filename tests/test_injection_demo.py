"""Chapter 06's demonstrations print what really happened
(``course.chapters.ch06_authorization_and_injection.demos``)."""

from __future__ import annotations

import pytest

from tutorial_lib.core.authorization import TaskScope
from tutorial_lib.course.chapters.ch06_authorization_and_injection.demos import (
    BOUNDARY_CALLS,
    access_rows,
    boundary_rows,
    call_lines,
    effects_of,
    trifecta_rows,
)
from tutorial_lib.course.progress import progress
from tutorial_lib.worlds.injection import READ_SCOPE, TASKS, open_world, run_task

WRITE_SCOPE = TaskScope(
    repositories=frozenset({"example/shop"}),
    workspace_paths=("docs",),
    grants=frozenset({"read", "write"}),
)


def test_the_boundary_table_runs_each_class_for_real() -> None:
    rows = boundary_rows({"read": READ_SCOPE, "write": WRITE_SCOPE})
    assert rows[0] == ["类别", "调用", "read", "write"]
    by_tool = {row[1]: row[2:] for row in rows[1:]}
    assert len(by_tool) == len(BOUNDARY_CALLS)
    assert by_tool["github_pr_list_comments"] == ["执行：—", "执行：—"]
    assert by_tool["github_pr_create_comment"] == [
        "拒绝 (class_not_granted)：—",
        "执行：评论 10→11",
    ]
    for tool in ("github_pr_delete_comment", "github_pr_merge", "http_send"):
        assert all(cell == "拒绝 (class_not_granted)：—" for cell in by_tool[tool]), tool


def test_the_trifecta_leaks_only_with_all_three_legs() -> None:
    rows = trifecta_rows()
    assert [row[-1] for row in rows[1:]] == ["是", "否", "否", "否"]
    assert [row[2] for row in rows[1:]] == ["0", "1", "0", "1"]  # refusals by the station


def test_effects_and_call_lines_describe_a_run() -> None:
    with open_world() as world:
        before = effects_of(world)
        run = run_task(world, TASKS[0], defences="all")
        assert effects_of(world).since(before) == "—"
    lines = call_lines(run.transcript, width=60)
    assert lines[0] == '1. github_pr_get {"repository": "example/shop"} -> ok'
    assert all(len(line) <= 60 for line in lines) and len(lines) == 4
    assert ("github_pr_merge", "send", "github: repository") in access_rows()


def test_progress_outside_a_kernel_yields_the_items_and_shows_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert list(progress([1, 2, 3], "x")) == [1, 2, 3]
    assert capsys.readouterr().out == ""
