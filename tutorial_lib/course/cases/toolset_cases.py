"""Chapter 02's exercise: rewrite a vague ticket tool set; the cases that check it.

The exercise asks for ``fixed_tools()``: three :class:`~tutorial_lib.core.tools.ToolSpec`
that keep the three capabilities of the original set (read one ticket by id; close one
ticket, a write, with a timeout in seconds; list the tickets page by page with a cursor)
and pass :func:`tutorial_lib.design.lint.lint` clean.

Passing the linter is not enough: any clean tool set passes it (three tools of
:data:`~tutorial_lib.course.demos.toolsets.GOOD_TOOLSET` do). So :data:`FIXED_TOOLS_CASES` also
checks each capability: :func:`capability_report` finds the tool that fits a capability
best and says, requirement by requirement, what it has; a failing case names the
requirement that is not met. :data:`TICKET_TOOLSET` is the reference, and
:func:`fixed_tools_hidden_cases` compares which generated argument objects the learner's
schemas accept with what the reference's accept.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from jsonschema import Draft202012Validator

from tutorial_lib.core.tools import Annotations, ToolSpec
from tutorial_lib.course.checks import Case
from tutorial_lib.course.rules import Rule
from tutorial_lib.design.lint import lint, name_tokens

__all__ = [
    "CAPABILITIES",
    "FIXED_TOOLS_CASES",
    "FIXED_TOOLS_RULES",
    "TICKET_TOOLSET",
    "capability_report",
    "fixed_tools_hidden_cases",
    "toolset_findings",
]

_READ_ONLY = Annotations(read_only=True, destructive=False, idempotent=True, open_world=True)

#: The reference answer: the three ticket tools, declared so that the linter is silent.
TICKET_TOOLSET: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="tickets_get",
        title="Get one ticket",
        description="Read one ticket of the project by its id: title, status, assignee. Read-only.",
        input_schema={
            "type": "object",
            "properties": {"ticket_id": {"type": "integer", "minimum": 1}},
            "required": ["ticket_id"],
            "additionalProperties": False,
        },
        annotations=_READ_ONLY,
    ),
    ToolSpec(
        name="tickets_close",
        title="Close a ticket",
        description="Close one ticket of the project by its id. Writes: the ticket's "
        "status changes to closed, visible to everyone on the project.",
        input_schema={
            "type": "object",
            "properties": {
                "ticket_id": {"type": "integer", "minimum": 1},
                "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 60},
            },
            "required": ["ticket_id"],
            "additionalProperties": False,
        },
        annotations=Annotations(read_only=False, destructive=False, idempotent=True),
    ),
    ToolSpec(
        name="tickets_list",
        title="List tickets",
        description="List the tickets of the project, at most 50 per call; next_cursor is "
        "null on the last page, otherwise pass it as cursor. Read-only.",
        input_schema={
            "type": "object",
            "properties": {"cursor": {"type": "string"}},
            "additionalProperties": False,
        },
        annotations=_READ_ONLY,
    ),
)

_SECONDS = {"s", "sec", "secs", "second", "seconds"}


def _properties(spec: ToolSpec) -> dict[str, Any]:
    properties = spec.input_schema.get("properties", {})
    return properties if isinstance(properties, dict) else {}


def _required(spec: ToolSpec) -> list[str]:
    required = spec.input_schema.get("required", [])
    return list(required) if isinstance(required, list) else []


def _typed(schema: Any, kind: str, *, only: bool = False) -> bool:
    """Whether ``schema`` declares the JSON type ``kind`` (with ``only``: that type alone)."""
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    if only:
        return declared == kind or declared == [kind]
    return declared == kind or (isinstance(declared, list) and kind in declared)


def _id_name(spec: ToolSpec) -> str | None:
    """The one required integer argument (the ticket id), if that is all that is required."""
    required = _required(spec)
    if len(required) == 1 and _typed(_properties(spec).get(required[0]), "integer", only=True):
        return required[0]
    return None


def _named(spec: ToolSpec, word: str, kind: str) -> str | None:
    for name, schema in _properties(spec).items():
        optional = name not in _required(spec)
        if word in name_tokens(name) and _typed(schema, kind, only=True) and optional:
            return name
    return None


def _timeout_name(spec: ToolSpec) -> str | None:
    for name, schema in _properties(spec).items():
        tokens = set(name_tokens(name))
        numeric = _typed(schema, "integer") or _typed(schema, "number")
        if numeric and "timeout" in tokens and tokens & _SECONDS:
            return name
    return None


def _about_tickets(spec: ToolSpec) -> bool:
    return "ticket" in spec.description.lower()


Requirement = tuple[str, Callable[[ToolSpec], bool]]

#: Each capability of the original set, as requirements a tool must meet (names in Chinese:
#: they are what a failing case lists).
CAPABILITIES: dict[str, tuple[Requirement, ...]] = {
    "get": (
        ("描述说的是工单（ticket）", _about_tickets),
        ("只读（read_only=True）", lambda s: s.annotations.read_only),
        ("唯一的必填参数是整数 id", lambda s: _id_name(s) is not None),
    ),
    "close": (
        ("描述说的是工单（ticket）", _about_tickets),
        ("写入（read_only=False）", lambda s: not s.annotations.read_only),
        ("唯一的必填参数是整数 id", lambda s: _id_name(s) is not None),
        ("有以秒为单位的超时参数（例如 timeout_seconds）", lambda s: _timeout_name(s) is not None),
    ),
    "list": (
        ("描述说的是工单（ticket）", _about_tickets),
        ("只读（read_only=True）", lambda s: s.annotations.read_only),
        ("没有必填参数（第一页不需要游标）", lambda s: not _required(s)),
        ("有可选的字符串参数 cursor", lambda s: _named(s, "cursor", "string") is not None),
    ),
}


def _best(specs: Sequence[ToolSpec], capability: str) -> ToolSpec | None:
    """The tool meeting the most requirements of ``capability`` (the first on a tie)."""
    requirements = CAPABILITIES[capability]
    best: ToolSpec | None = None
    best_score = -1
    for spec in specs:
        score = sum(bool(test(spec)) for _, test in requirements)
        if score > best_score:
            best, best_score = spec, score
    return best


def capability_report(capability: str) -> Callable[[Any], dict[str, bool]]:
    """A ``key`` for one capability: requirement -> met, for the tool that fits it best."""

    def report(specs: Any) -> dict[str, bool]:
        tools = [spec for spec in specs if isinstance(spec, ToolSpec)]
        spec = _best(tools, capability)
        return {
            name: spec is not None and bool(test(spec)) for name, test in CAPABILITIES[capability]
        }

    report.__name__ = f"capability_report_{capability}"
    return report


def toolset_findings(specs: Any) -> list[str]:
    """The linter's findings as ``"tool: rule"`` lines (``[]`` when it passes clean)."""
    return [f"{finding.tool}: {finding.rule}" for finding in lint(specs)]


def _namespaced(specs: Any) -> bool:
    """Whether the tools' names all start with the same word, a namespace (``tickets_``)."""
    firsts = set()
    for spec in specs:
        tokens = name_tokens(spec.name)
        if len(tokens) < 2:
            return False
        firsts.add(tokens[0])
    return len(firsts) == 1


def _counts(specs: Any) -> dict[str, int]:
    tools = list(specs)
    writes = sum(not spec.annotations.read_only for spec in tools)
    return {"tools": len(tools), "read_only": len(tools) - writes, "writes": writes}


def _all_met(capability: str) -> dict[str, bool]:
    return {name: True for name, _ in CAPABILITIES[capability]}


FIXED_TOOLS_CASES: tuple[Case, ...] = (
    Case(
        "linter 没有发现",
        (),
        [],
        "逐条看 print(format_findings(lint(fixed_tools()))) 给出的 fix：名称、描述、"
        "additionalProperties、单位、注解。",
        key=toolset_findings,
    ),
    Case(
        "名称带命名空间",
        (),
        True,
        "名称要带命名空间：三个工具的名称以同一个前缀开头（例如 tickets_...），"
        "模型和接入方一眼看出它们属于同一个服务。",
        key=_namespaced,
    ),
    Case(
        "三个工具：两个只读，一个写入",
        (),
        {"tools": 3, "read_only": 2, "writes": 1},
        "能力一一对应：恰好三个工具；读一张和列出是只读的，"
        "关闭是写入（Annotations(read_only=False, ...)）。",
        key=_counts,
    ),
    Case(
        "getData 的能力：按 id 读一张工单",
        (),
        _all_met("get"),
        "读一张工单的工具：只读，唯一的必填参数是整数的工单 id，描述说明它读的是工单。",
        key=capability_report("get"),
    ),
    Case(
        "runAction 的能力：关闭一张工单（写入，超时以秒计）",
        (),
        _all_met("close"),
        "关闭工单的工具：写入，必填整数 id；原来的 timeout 是秒，保留它并把单位写进名字"
        "（timeout_seconds，不是 timeout_ms）。",
        key=capability_report("close"),
    ),
    Case(
        "sync 的能力：分页列出工单",
        (),
        _all_met("list"),
        "列出工单的工具：只读，第一页不带参数，用可选的字符串参数 cursor 取下一页。",
        key=capability_report("list"),
    ),
)


#: Every rule the exercise states, with the visible case that catches an answer breaking it.
FIXED_TOOLS_RULES: tuple[Rule, ...] = (
    Rule("命名空间", "带命名空间的名称（例如 tickets_...）。", "名称带命名空间", "每个工具的名称"),
    Rule(
        "描述写全",
        "描述写明目标、范围、分页、副作用。",
        "linter 没有发现",
        "每个工具的 linter 发现",
    ),
    Rule(
        "不收未声明的参数",
        "additionalProperties: false。",
        "linter 没有发现",
        "调用里多出一个未声明的参数",
    ),
    Rule("数字带单位", "带单位的数字。", "linter 没有发现", "超时参数的名字和取值"),
    Rule(
        "注解正确",
        "正确的工具注解（两个只读，一个写入）。",
        "三个工具：两个只读，一个写入",
        "每个工具的 read_only",
    ),
    Rule(
        "读一张工单",
        "只读；唯一的必填参数是整数的工单 id。",
        "getData 的能力：按 id 读一张工单",
        "id 缺失，或是字符串、小数、bool、null",
    ),
    Rule(
        "关闭一张工单",
        "写入；唯一的必填参数是整数的工单 id。",
        "runAction 的能力：关闭一张工单（写入，超时以秒计）",
        "id 缺失，或是字符串、小数、bool、null",
    ),
    Rule(
        "超时以秒计",
        "保留超时参数，单位是秒，写进名字（例如 timeout_seconds）。",
        "runAction 的能力：关闭一张工单（写入，超时以秒计）",
        "带或不带超时、超时的类型",
    ),
    Rule(
        "列出工单",
        "只读；没有必填参数，用可选的字符串参数 cursor 取下一页。",
        "sync 的能力：分页列出工单",
        "带或不带 cursor、cursor 的类型",
    ),
    Rule(
        "说的是工单",
        "三个描述都要说清楚操作的是工单（ticket）。",
        "getData 的能力：按 id 读一张工单",
        "每个工具的描述",
    ),
)


def _declaration(fixed_tools: Callable[[], Any], capability: str) -> dict[str, Any]:
    """What the model sees of the tool for ``capability``: its findings, annotation, fit."""
    tools = [spec for spec in fixed_tools() if isinstance(spec, ToolSpec)]
    spec = _best(tools, capability)
    if spec is None:
        return {"tool": "没有这个能力的工具"}
    return {
        "namespaced": _namespaced(tools),
        "findings": sorted({f.rule for f in lint(tools) if f.tool == spec.name}),
        "read_only": bool(spec.annotations.read_only),
        "requirements": capability_report(capability)(tools),
    }


def _accepts(fixed_tools: Callable[[], Any], capability: str, args: dict[str, Any]) -> Any:
    """Whether the learner's tool for ``capability`` accepts ``args`` (reference names)."""
    tools = [spec for spec in fixed_tools() if isinstance(spec, ToolSpec)]
    spec = _best(tools, capability)
    if spec is None:
        return "没有这个能力的工具"
    names = {
        "ticket_id": _id_name(spec),
        "timeout_seconds": _timeout_name(spec),
        "cursor": _named(spec, "cursor", "string"),
    }
    renamed = {}
    for name, value in args.items():
        mapped = names.get(name, name)
        if mapped is None:
            return f"没有对应 {name} 的参数"
        renamed[mapped] = value
    return Draft202012Validator(spec.input_schema).is_valid(renamed)


def _reference_accepts(capability: str, args: dict[str, Any]) -> bool:
    spec = {"get": TICKET_TOOLSET[0], "close": TICKET_TOOLSET[1], "list": TICKET_TOOLSET[2]}
    return Draft202012Validator(spec[capability].input_schema).is_valid(args)


def _generated_args(rng: random.Random, capability: str) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if capability in ("get", "close") and rng.random() < 0.85:
        args["ticket_id"] = rng.choice((1, 7, 4096, "7", 7.5, True, None))
    if capability == "close" and rng.random() < 0.6:
        args["timeout_seconds"] = rng.choice((1, 30, 60, "30", 2.5))
    if capability == "list" and rng.random() < 0.7:
        args["cursor"] = rng.choice(("abc", "c2", 5, None))
    if rng.random() < 0.15:
        args["status"] = "open"  # a property the tool does not declare
    return args


def fixed_tools_hidden_cases(seed: int = 0, count: int = 90) -> tuple[Case, ...]:
    """``count`` seeded calls: does each tool accept the same arguments as the reference?

    Then one declaration case per capability: the learner's tool for it has the reference's
    namespace, linter findings (none), ``read_only`` annotation and capability requirements.
    """
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        capability = ("get", "close", "list")[index % 3]
        args = _generated_args(rng, capability)
        cases.append(
            Case(
                f"生成的调用 {index + 1}（{capability}）",
                (capability, args),
                _reference_accepts(capability, args),
                "和参考实现的 schema 判断不同：参数的类型、必填与否、additionalProperties。",
                via=_accepts,
                shown_call=f"{{function}}() 里 {capability} 能力的工具收到 {args!r}"
                "（名字按你的参数改写）",
            )
        )
    for capability in ("get", "close", "list"):
        cases.append(
            Case(
                f"声明检查（{capability}）",
                (capability,),
                _declaration(lambda: list(TICKET_TOOLSET), capability),
                "和参考实现的声明不同：名称、linter 发现、注解、能力要求。",
                via=_declaration,
                shown_call=f"{{function}}() 里 {capability} 能力的工具的声明",
            )
        )
    return tuple(cases)
