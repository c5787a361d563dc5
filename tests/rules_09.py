"""Rule tables of chapter 09's exercise (see tests/rule_harness.py): one mutant per rule,
each the reference declaration of ``word_count`` with exactly that rule broken the way a
learner might (a camelCase name, the pessimistic default annotations, a schema keyword
left out...). Every mutant is served by the course's MCP server and called through the
SDK client, like a learner's answer."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

from tests.rule_harness import Exercise
from tutorial_lib.core.tools import Annotations, ToolSpec
from tutorial_lib.course.chapters.ch09_mcp_server.cases import (
    WORD_COUNT_CASES,
    WORD_COUNT_SPEC_RULES,
    library_word_count_spec,
    word_count_hidden_cases,
)


def _changed(**changes: Any) -> Callable[[Any], ToolSpec]:
    """``word_count_spec`` returning the reference with ``changes``."""

    def word_count_spec(steps: Any) -> ToolSpec:
        return dataclasses.replace(library_word_count_spec(steps), **changes)

    return word_count_spec


def _input(edit: Callable[[dict[str, Any]], object]) -> Callable[[Any], ToolSpec]:
    """``word_count_spec`` whose input schema ``edit`` changed."""
    schema = copy.deepcopy(library_word_count_spec().input_schema)
    edit(schema)
    return _changed(input_schema=schema)


def _output(edit: Callable[[dict[str, Any]], object]) -> Callable[[Any], ToolSpec]:
    """``word_count_spec`` whose output schema ``edit`` changed."""
    schema = copy.deepcopy(library_word_count_spec().output_schema)
    assert schema is not None
    edit(schema)
    return _changed(output_schema=schema)


def _path(schema: dict[str, Any]) -> dict[str, Any]:
    return schema["properties"]["path"]


def _min_length(schema: dict[str, Any]) -> dict[str, Any]:
    return schema["properties"]["min_length"]


_HONEST = Annotations(read_only=True, destructive=False, idempotent=True, open_world=False)

WORD_COUNT_MUTANTS = {
    "名字": _changed(name="wordCount"),
    "title": _changed(title="word_count"),
    # the learner trial's answer: the whole description again as the title
    "title 要短": _changed(title=library_word_count_spec().description),
    "描述写明只读": _changed(
        description="Count the words and lines of one UTF-8 text file of the workspace."
    ),
    "readOnlyHint": _changed(annotations=dataclasses.replace(_HONEST, read_only=False)),
    # only read_only said: MCP's (and Annotations') pessimistic defaults do the rest
    "另外三个注解": _changed(annotations=Annotations(read_only=True)),
    "path 必填": _input(lambda s: s.pop("required")),
    "path 是字符串": _input(lambda s: _path(s).pop("type")),
    # the learner trial's answer: "optional" written as a nullable type
    "path 不可为 null": _input(lambda s: _path(s).update(type=["string", "null"])),
    "path 至少一个字符": _input(lambda s: _path(s).pop("minLength")),
    "min_length 可选": _input(lambda s: s.update(required=["path", "min_length"])),
    "min_length 是整数": _input(lambda s: _min_length(s).update(type="number")),
    "min_length 至少为 1": _input(lambda s: _min_length(s).pop("minimum")),
    "只收 path 和 min_length": _input(lambda s: s.pop("additionalProperties")),
    "outputSchema 描述 data": _output(lambda s: s["properties"]["words"].update(type="string")),
    "三个字段都必填": _output(lambda s: s.update(required=["path", "words"])),
    "不许多出字段": _output(lambda s: s.pop("additionalProperties")),
}


def word_count_spec(steps: Any) -> ToolSpec:
    """The reference as a learner would call it (the harness passes no arguments)."""
    return library_word_count_spec(steps)


EXERCISES = [
    Exercise(
        name="09.word_count_spec",
        rules=WORD_COUNT_SPEC_RULES,
        visible=WORD_COUNT_CASES,
        hidden=lambda: word_count_hidden_cases(),
        reference=word_count_spec,
        mutants=WORD_COUNT_MUTANTS,
    ),
]
