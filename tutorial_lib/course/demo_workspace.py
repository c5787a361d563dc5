"""A small workspace with the classic escape routes, for chapter 01's lesson and exercise.

    <base>/secret.txt            outside: must never be read
    <base>/ws_evil/x.txt         a sibling whose name extends the root's ("ws" + "_evil")
    <base>/ws/notes.txt          the root and its files
    <base>/ws/src/app.py
    <base>/ws/link_in  -> notes.txt        a symlink that stays inside
    <base>/ws/src_link -> src              a directory symlink that stays inside
    <base>/ws/link_out -> ../secret.txt    a symlink that leads out

:func:`inside_cases` is the table for the exercise "is this path inside the workspace?".
"""

from __future__ import annotations

import os
from pathlib import Path

from tutorial_lib.course.checks import Case

__all__ = ["SECRET_TEXT", "inside_cases", "make_demo_workspace"]

SECRET_TEXT = "TOP-SECRET: outside the workspace"


def make_demo_workspace(base: str | os.PathLike[str]) -> Path:
    """Create the demo tree under ``base`` (an empty directory); return the root ``ws``."""
    base = Path(base)
    root = base / "ws"
    (root / "src").mkdir(parents=True)
    (base / "ws_evil").mkdir()
    (base / "secret.txt").write_text(SECRET_TEXT + "\n", encoding="utf-8")
    (base / "ws_evil" / "x.txt").write_text("evil twin\n", encoding="utf-8")
    (root / "notes.txt").write_text("first\nsecond\nthird\n", encoding="utf-8")
    (root / "src" / "app.py").write_text("print('hello')\n", encoding="utf-8")
    os.symlink("notes.txt", root / "link_in")
    os.symlink("src", root / "src_link")
    os.symlink("../secret.txt", root / "link_out")
    return root


def inside_cases(root: Path) -> tuple[Case, ...]:
    """Cases for ``is_inside(root, path) -> bool`` on a tree from :func:`make_demo_workspace`."""
    prefix_hint = (
        "字符串前缀比较会把 ws_evil 当成 ws 的一部分：比较路径部件，例如 Path.is_relative_to。"
    )
    rows = [
        ("a file in the root", "notes.txt", True, "root 下的普通文件当然在里面。"),
        ("a nested file", "src/app.py", True, "子目录里的文件也在里面。"),
        ("a missing file", "drafts/todo.txt", True, "“在不在里面”与“存不存在”是两回事。"),
        ("'..' climbs out", "../secret.txt", False, "先解析出真实路径，再比较。"),
        ("a prefix sibling", "../ws_evil/x.txt", False, prefix_hint),
        ("'..' that stays inside", "src/../notes.txt", True, "解析以后仍在 root 下。"),
        ("an absolute path", "/etc/passwd", False, "root / '/etc/passwd' 的结果是 /etc/passwd。"),
        ("a symlink inside", "link_in", True, "指向 root 内部的链接可以接受。"),
        ("a directory symlink inside", "src_link/app.py", True, "目录链接也要解析后再判断。"),
        (
            "a symlink leading out",
            "link_out",
            False,
            "要跟随符号链接：用 Path.resolve()，而不是只做字符串规范化。",
        ),
    ]
    return tuple(Case(name, (root, path), expected, hint) for name, path, expected, hint in rows)
