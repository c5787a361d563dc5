"""Rule tables of chapter 02's exercise (see tests/rule_harness.py).

Each mutant is the reference tool set with one thing changed: the one rule it is named
after.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.core.tools import Annotations
from tutorial_lib.course.chapters.ch02_tool_set import cases as t

GET, CLOSE, LIST = range(3)


def _changed(index: int, **changes: Any):
    """``fixed_tools`` returning the reference with tool ``index`` changed."""

    def fixed_tools():
        tools = list(t.TICKET_TOOLSET)
        tools[index] = dataclasses.replace(tools[index], **changes)
        return tools

    return fixed_tools


def _schema(index: int, edit) -> dict[str, Any]:
    schema = copy.deepcopy(t.TICKET_TOOLSET[index].input_schema)
    edit(schema)
    return schema


def _renamed():
    tools = list(t.TICKET_TOOLSET)
    names = ("get_ticket", "close_ticket", "list_tickets")  # verb first: no shared prefix
    return [dataclasses.replace(spec, name=name) for spec, name in zip(tools, names, strict=True)]


def _rename_timeout(new: str):
    def edit(schema):
        schema["properties"][new] = schema["properties"].pop("timeout_seconds")

    return _schema(CLOSE, edit)


FIXED_TOOLS_MUTANTS = {
    "命名空间": _renamed,
    "描述写全": _changed(LIST, description="List the tickets of the project. Read-only."),
    "不收未声明的参数": _changed(
        GET, input_schema=_schema(GET, lambda s: s.pop("additionalProperties"))
    ),
    "数字带单位": _changed(CLOSE, input_schema=_rename_timeout("timeout")),
    "注解正确": _changed(
        LIST, annotations=Annotations(read_only=False, destructive=False, idempotent=True)
    ),
    "读一张工单": _changed(GET, input_schema=_schema(GET, lambda s: s.pop("required"))),
    "关闭一张工单": _changed(
        CLOSE,
        input_schema=_schema(
            CLOSE, lambda s: s["properties"]["ticket_id"].update(type=["integer", "string"])
        ),
    ),
    "超时以秒计": _changed(CLOSE, input_schema=_rename_timeout("timeout_ms")),
    "列出工单": _changed(LIST, input_schema=_schema(LIST, lambda s: s.update(required=["cursor"]))),
    # The descriptions below keep the word "ticket" somewhere, so the linter still finds
    # the target; only the opening sentence stops saying it is about tickets.
    "第一句说的是工单（读一张工单）": _changed(  # negated
        GET,
        description="Not about tickets: read one record of the project by its id: title, "
        "status, assignee. Read-only.",
    ),
    "第一句说的是工单（关闭工单）": _changed(  # only in a later sentence
        CLOSE,
        description="Close one record of the project by its id. Writes: the ticket's status "
        "changes to closed, visible to everyone on the project.",
    ),
    "第一句说的是工单（列出工单）": _changed(  # inside another word, then in a later sentence
        LIST,
        description="List the records of the ticketing project, at most 50 per call; "
        "next_cursor is null on the last page, otherwise pass it as cursor. Read-only: each "
        "record is one ticket.",
    ),
    "副作用写进描述（关闭工单）": _changed(
        CLOSE, description="Close one ticket of the project by its id."
    ),
    "只读写进描述（读一张工单）": _changed(
        GET, description="Read one ticket of the project by its id: title, status, assignee."
    ),
    "只读写进描述（列出工单）": _changed(
        LIST,
        description="List the tickets of the project, at most 50 per call; next_cursor is "
        "null on the last page, otherwise pass it as cursor.",
    ),
}


EXERCISES: list[Exercise] = [
    Exercise(
        name="02.fixed_tools",
        rules=t.FIXED_TOOLS_RULES,
        visible=t.FIXED_TOOLS_CASES,
        hidden=lambda: t.fixed_tools_hidden_cases(),
        reference=lambda: list(t.TICKET_TOOLSET),
        mutants=FIXED_TOOLS_MUTANTS,
    ),
]
