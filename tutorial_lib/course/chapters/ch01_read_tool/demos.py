"""A small workspace with the classic escape routes, for chapter 01's lesson and exercise.

    <base>/secret.txt            outside: must never be read
    <base>/ws_evil/x.txt         a sibling whose name extends the root's ("ws" + "_evil")
    <base>/ws/notes.txt          the root and its files
    <base>/ws/src/app.py
    <base>/ws/link_in  -> notes.txt        a symlink that stays inside
    <base>/ws/src_link -> src              a directory symlink that stays inside
    <base>/ws/link_out -> ../secret.txt    a symlink that leads out
    <base>/ws_alias -> ws                  another name for the root itself

:func:`inside_cases` is the table for the exercise "is this path inside the workspace?",
:func:`reference_is_inside` its reference and :func:`inside_hidden_cases` the seeded
hidden cases that compare a learner's function with it.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from tutorial_lib.course.checks import Case
from tutorial_lib.language import Text

__all__ = [
    "SECRET_TEXT",
    "inside_cases",
    "inside_hidden_cases",
    "make_demo_workspace",
    "reference_is_inside",
]

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
    os.symlink("ws", base / "ws_alias")
    return root


def reference_is_inside(root: str | os.PathLike[str], path: str) -> bool:
    """The reference: ``root / path``, resolved (links, ``..``), lies within resolved ``root``."""
    real_root = Path(root).resolve()
    return (real_root / path).resolve().is_relative_to(real_root)


def inside_cases(root: Path) -> tuple[Case, ...]:
    """Cases for ``is_inside(root, path) -> bool`` on a tree from :func:`make_demo_workspace`."""
    prefix_hint = Text(
        zh="字符串前缀比较会把 ws_evil 当成 ws 的一部分：比较路径部件，例如 Path.is_relative_to。",
        en="Comparing string prefixes takes ws_evil for part of ws: compare path components, e.g."
        " with Path.is_relative_to.",
    )
    rows = [
        (
            "a file in the root",
            "notes.txt",
            True,
            Text(
                zh="root 下的普通文件当然在里面。",
                en="An ordinary file under root is inside, of course.",
            ),
        ),
        (
            "a nested file",
            "src/app.py",
            True,
            Text(zh="子目录里的文件也在里面。", en="A file in a subdirectory is inside too."),
        ),
        (
            "a missing file",
            "drafts/todo.txt",
            True,
            Text(
                zh="“在不在里面”与“存不存在”是两回事。",
                en='"Is it inside?" and "does it exist?" are two different questions.',
            ),
        ),
        (
            "'..' climbs out",
            "../secret.txt",
            False,
            Text(zh="先解析出真实路径，再比较。", en="Resolve the real path first, then compare."),
        ),
        ("a prefix sibling", "../ws_evil/x.txt", False, prefix_hint),
        (
            "'..' that stays inside",
            "src/../notes.txt",
            True,
            Text(zh="解析以后仍在 root 下。", en="After resolving, it is still under root."),
        ),
        (
            "an absolute path",
            "/etc/passwd",
            False,
            Text(
                zh="root / '/etc/passwd' 的结果是 /etc/passwd。",
                en="root / '/etc/passwd' gives /etc/passwd.",
            ),
        ),
        (
            "a symlink inside",
            "link_in",
            True,
            Text(
                zh="指向 root 内部的链接可以接受。",
                en="A link that points inside root is acceptable.",
            ),
        ),
        (
            "a directory symlink inside",
            "src_link/app.py",
            True,
            Text(
                zh="目录链接也要解析后再判断。",
                en="A directory link, too, must be resolved before you decide.",
            ),
        ),
        (
            "a symlink leading out",
            "link_out",
            False,
            Text(
                zh="要跟随符号链接：用 Path.resolve()，而不是只做字符串规范化。",
                en="Follow symbolic links: use Path.resolve(), not just string normalization.",
            ),
        ),
    ]
    cases = [Case(name, (root, path), expected, hint) for name, path, expected, hint in rows]
    alias = root.parent / "ws_alias"
    alias_hint = Text(
        zh="root 本身也可能经过符号链接（这里 ws_alias -> ws）：root 和 root / path"
        " 都要解析后再比较。",
        en="root itself may be reached through a symbolic link (here ws_alias -> ws): resolve"
        " both root and root / path, then compare.",
    )
    cases += [
        Case("a root reached through a symlink", (alias, "notes.txt"), True, alias_hint),
        Case(
            "leaving a root reached through a symlink", (alias, "../secret.txt"), False, alias_hint
        ),
    ]
    return tuple(cases)


_PARTS = (
    "notes.txt",
    "src",
    "app.py",
    "..",
    ".",
    "link_in",
    "link_out",
    "src_link",
    "ws",
    "ws_evil",
    "../ws_evil",
    "x.txt",
    "secret.txt",
    "drafts",
)


def inside_hidden_cases(root: Path, seed: int = 0, count: int = 150) -> tuple[Case, ...]:
    """``count`` seeded paths on the demo tree (and its alias root), expected from the reference."""
    rng = random.Random(seed)
    roots = (root, root.parent / "ws_alias")
    cases = []
    for index in range(count):
        path = "/".join(rng.choice(_PARTS) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.1:
            path = "/" + path
        base = rng.choice(roots)
        cases.append(
            Case(
                Text(zh=f"生成的路径 {index + 1}", en=f"generated path {index + 1}"),
                (base, path),
                reference_is_inside(base, path),
                Text(
                    zh=(
                        "和参考实现不一致：解析 root 和 root / path（跟随链接、折叠 ..）之后，"
                        "再比较路径部件。"
                    ),
                    en="Differs from the reference implementation: resolve root and root / path"
                    " (following links, collapsing ..), then compare path components.",
                ),
            )
        )
    return tuple(cases)
