"""Rule tables of chapter 01's exercises (see tests/rule_harness.py).

Each mutant starts from the reference's logic and changes one thing: the one rule it is
named after.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.course.chapters.ch01_read_tool import cases as r
from tutorial_lib.course.chapters.ch01_read_tool.demos import (
    inside_cases,
    inside_hidden_cases,
    make_demo_workspace,
    reference_is_inside,
)
from tutorial_lib.workspace.read_schema import validate_manually

FIELDS = ("path", "start", "count")
MAX_PATH, MAX_START, MAX_COUNT = 4096, 2**53 - 1, 20

# ------------------------------------------------------------------------- validate_args


def _validator(**broken: bool):
    """The reference validator with one switch per rule; no switch set is the reference."""
    on = broken.get

    def check_field(args: dict[str, Any], name: str) -> dict[str, Any] | None:
        value = args.get(name)
        if name == "path":
            if on("path_any_type"):
                value = str(value)
            elif not isinstance(value, str):
                return {"code": "invalid_type", "field": name}
            blank = not value if on("no_strip") else not value.strip()
            padded = on("reject_padded") and value != value.strip()
            cap = len(value) >= MAX_PATH if on("cap_exclusive") else len(value) > MAX_PATH
            if blank or padded or (cap and not on("no_path_cap")):
                return {"code": "invalid_path", "field": name}
            return None
        if on("digit_strings") and isinstance(value, str) and value.isdigit():
            value = int(value)
        if on("whole_floats") and isinstance(value, float) and value.is_integer():
            value = int(value)
        if on("start_only") and name == "count":  # numbers for count, bool still refused
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return {"code": "invalid_type", "field": name}
        elif on("isinstance"):
            if not isinstance(value, int):
                return {"code": "invalid_type", "field": name}
        elif type(value) is not int:
            return {"code": "invalid_type", "field": name}
        high = MAX_START if name == "start" else MAX_COUNT
        if (name == "start" and on("no_start_cap")) or (name == "count" and on("no_count_cap")):
            high = float("inf")
        if not 1 <= value <= high:
            return {"code": "invalid_range", "field": name}
        return None

    def missing(args: dict[str, Any]) -> dict[str, Any] | None:
        if on("missing_as_type"):
            return None
        for name in reversed(FIELDS) if on("missing_reversed") else FIELDS:
            if name not in args:
                return {"code": "missing_field", "field": name}
            if on("missing_per_field") and (error := check_field(args, name)):
                return error
        return None

    def unknown(args: dict[str, Any]) -> dict[str, Any] | None:
        if on("no_unknown"):
            return None
        for name in args if on("unsorted") else sorted(args):
            known = name.lower() if on("casefold") else name
            if known not in FIELDS:
                return {"code": "unknown_field", "field": name}
        return None

    def fields(args: dict[str, Any]) -> dict[str, Any] | None:
        order = ("start", "count", "path") if on("path_last") else FIELDS
        if on("types_first"):
            for name in order:
                error = check_field(args, name)
                if error and error["code"] == "invalid_type":
                    return error
        for name in order:
            if error := check_field(args, name):
                return error
        return None

    def validate_args(args: Any) -> dict[str, Any] | None:
        if not isinstance(args, dict):
            if on("no_object_check"):
                args = dict.fromkeys(args) if isinstance(args, list) else {}
            else:
                whole = {"code": "invalid_type"}
                return whole | {"field": None} if on("field_none") else whole
        steps = [missing, unknown, fields]
        if on("unknown_first"):
            steps = [unknown, missing, fields]
        if on("unknown_last"):
            steps = [missing, fields, unknown]
        for step in steps:
            if error := step(args):
                return error
        return None

    validate_args.__name__ = "validate_args_" + "_".join(broken) if broken else "validate_args"
    return validate_args


VALIDATE_ARGS_MUTANTS = {
    "整体是对象": _validator(no_object_check=True),
    "整体不写 field": _validator(field_none=True),
    "缺字段": _validator(missing_as_type=True),
    "多字段": _validator(no_unknown=True),
    "恰好三个名字": _validator(casefold=True),
    "path 是字符串": _validator(path_any_type=True),
    "path 不为空": _validator(no_strip=True),
    "只看去掉空白后": _validator(reject_padded=True),
    "path 有上限": _validator(no_path_cap=True),
    "4096 本身可以": _validator(cap_exclusive=True),
    "start 的范围": _validator(no_start_cap=True),
    "count 的范围": _validator(no_count_cap=True),
    "bool 不是整数": _validator(isinstance=True),
    "字符串不是整数": _validator(digit_strings=True),
    "浮点数不是整数": _validator(whole_floats=True),
    "每个字段都一样": _validator(start_only=True),
    "缺失先于多余": _validator(unknown_first=True),
    "先查完缺失": _validator(missing_per_field=True),
    "缺失按顺序": _validator(missing_reversed=True),
    "多余先于字段": _validator(unknown_last=True),
    "多余按名字排序": _validator(unsorted=True),
    "字段按顺序": _validator(path_last=True),
    "逐个字段查": _validator(types_first=True),
}

# ----------------------------------------------------------------------------- is_inside

_WORKDIR = tempfile.TemporaryDirectory(prefix="rules_01_")  # removed at interpreter exit
ROOT = make_demo_workspace(_WORKDIR.name)


def no_dotdot(root, path):
    # follows a link it meets, but never collapses "..": root/../x still "starts with" root
    real_root = Path(root).resolve()
    target = real_root / path
    if target.is_symlink():
        return target.resolve().is_relative_to(real_root)
    return target.is_relative_to(real_root)


def no_symlinks(root, path):
    real_root = Path(root).resolve()
    return Path(os.path.normpath(real_root / path)).is_relative_to(real_root)


def string_prefix(root, path):
    real_root = Path(root).resolve()
    return str((real_root / path).resolve()).startswith(str(real_root))


def root_unresolved(root, path):
    return (Path(root) / path).resolve().is_relative_to(Path(root))


def must_exist(root, path):
    real_root = Path(root).resolve()
    target = real_root / path
    return target.exists() and target.resolve().is_relative_to(real_root)


def absolute_as_relative(root, path):
    real_root = Path(root).resolve()
    return (real_root / path.lstrip("/")).resolve().is_relative_to(real_root)


IS_INSIDE_MUTANTS = {
    "解析 ..": no_dotdot,
    "跟随符号链接": no_symlinks,
    "比较路径而不是字符串": string_prefix,
    "root 也要解析": root_unresolved,
    "文件不必存在": must_exist,
    "绝对路径": absolute_as_relative,
}


EXERCISES: list[Exercise] = [
    Exercise(
        name="01.validate_args",
        rules=r.VALIDATE_ARGS_RULES,
        visible=r.validator_cases(),
        hidden=lambda: r.validator_hidden_cases(),
        reference=validate_manually,
        mutants=VALIDATE_ARGS_MUTANTS,
        key=r.verdict_of,
        extra={"configurable_reference": _validator()},
    ),
    Exercise(
        name="01.is_inside",
        rules=r.IS_INSIDE_RULES,
        visible=inside_cases(ROOT),
        hidden=lambda: inside_hidden_cases(ROOT),
        reference=reference_is_inside,
        mutants=IS_INSIDE_MUTANTS,
    ),
]
