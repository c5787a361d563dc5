"""Chapter 02's exercise: rewrite a vague ticket tool set; the cases that check it.

The exercise asks for ``fixed_tools()``: three :class:`~tutorial_lib.core.tools.ToolSpec`
that keep the three capabilities of the original set (read one ticket by id; close one
ticket, a write, with a timeout in seconds; list the tickets page by page with a cursor)
and pass :func:`tutorial_lib.design.lint.lint` clean.

Passing the linter is not enough: any clean tool set passes it (three tools of
:data:`~tutorial_lib.course.chapters.ch02_tool_set.demos.GOOD_TOOLSET` do). So
:data:`FIXED_TOOLS_CASES` also
checks each capability: :func:`capability_report` finds the tool that fits a capability
best and says, requirement by requirement, what it has; a failing case names the
requirement that is not met. Two requirements concern the description beyond the linter:
its opening sentence names tickets (:func:`about_tickets`: the whole word, not negated), and
a read-only tool says it is read-only (:func:`says_read_only`). :data:`TICKET_TOOLSET` is
the reference, and :func:`fixed_tools_hidden_cases` compares which generated argument
objects the learner's schemas accept with what the reference's accept, then checks every
tool's description.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from jsonschema import Draft202012Validator

from tutorial_lib.core.tools import Annotations, ToolSpec
from tutorial_lib.course.checks import Case
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.design.lint import lint, name_tokens
from tutorial_lib.language import Text, tr

__all__ = [
    "CAPABILITIES",
    "FIXED_TOOLS_CASES",
    "FIXED_TOOLS_RULES",
    "TICKET_TOOLSET",
    "about_tickets",
    "capability_report",
    "fixed_tools_hidden_cases",
    "opening_sentence",
    "says_read_only",
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


#: Where the opening sentence ends: ``.``, ``!`` or ``?`` followed by a space or the end.
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
#: Words of a description: letters and digits, joined by ``-`` or ``_`` into one word
#: (``ticket_id``, ``ticket-based`` and ``ticketing`` are not the word ``ticket``).
_WORD = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")
_SUBJECT = frozenset({"ticket", "tickets"})
#: Words that negate what follows them in a sentence (``n't`` is read as ``not``).
_NEGATIONS = frozenset({"not", "never", "without", "nor"})
#: What counts as saying "read-only": the claims the linter's ``write_not_marked`` reads.
_READ_ONLY_STATEMENT = re.compile(
    r"(?<!not )\bread[- ]only\b|\bdoes not (modify|change|write)\b|\bno side[- ]effects?\b"
    r"|\bnever (modifies|changes|writes)\b",
    re.IGNORECASE,
)


def _not(text: str) -> str:
    """``text`` with every ``n't`` spelt out as `` not`` ("doesn't" -> "does not")."""
    return re.sub(r"n['’]t\b", " not", text)


def opening_sentence(text: str) -> str:
    """``text`` up to its first ``.``, ``!`` or ``?`` that a space or the end follows."""
    end = _SENTENCE_END.search(text)
    return text[: end.start()] if end else text


def about_tickets(spec: ToolSpec) -> bool:
    """Whether the opening sentence of the description says it is about tickets.

    The whole word ``ticket`` or ``tickets`` (any case) must be in the opening sentence,
    and no negation before it in that sentence: ``not``, ``never``, ``without``, ``nor``
    (``doesn't`` counts as ``not``), or a ``no`` right before it. So "Read one ticket ..."
    passes; "Not about tickets.", "Lists users, not tickets.", "Touches no tickets.",
    "Read one record of the ticketing project." and a ticket named only in a later
    sentence do not.
    """
    text = _not(opening_sentence(spec.description).lower())
    previous = ""
    for word in _WORD.findall(text):
        if word in _NEGATIONS:
            return False
        if word in _SUBJECT:
            return previous != "no"
        previous = word
    return False


def says_read_only(spec: ToolSpec) -> bool:
    """Whether the description says the tool is read-only: "read-only" (not "not
    read-only"), "does not modify/change/write", "no side effects", "never modifies"."""
    return bool(_READ_ONLY_STATEMENT.search(_not(spec.description)))


Requirement = tuple[Text, Callable[[ToolSpec], bool]]

_ABOUT = Text(
    zh="描述的第一句说出工单（整词 ticket 或 tickets，前面没有否定）",
    en="the description's opening sentence names tickets (the whole word ticket or tickets, with"
    " no negation before it)",
)
_SAYS_READ_ONLY = Text(
    zh="描述写明只读（例如 Read-only.）",
    en="the description says it is read-only (e.g. Read-only.)",
)

#: Each capability of the original set, as requirements a tool must meet (names in Chinese:
#: they are what a failing case lists).
CAPABILITIES: dict[str, tuple[Requirement, ...]] = {
    "get": (
        (_ABOUT, about_tickets),
        (
            Text(zh="只读（read_only=True）", en="read-only (read_only=True)"),
            lambda s: s.annotations.read_only,
        ),
        (_SAYS_READ_ONLY, says_read_only),
        (
            Text(zh="唯一的必填参数是整数 id", en="the only required argument is an integer id"),
            lambda s: _id_name(s) is not None,
        ),
    ),
    "close": (
        (_ABOUT, about_tickets),
        (
            Text(zh="写入（read_only=False）", en="writes (read_only=False)"),
            lambda s: not s.annotations.read_only,
        ),
        (
            Text(zh="唯一的必填参数是整数 id", en="the only required argument is an integer id"),
            lambda s: _id_name(s) is not None,
        ),
        (
            Text(
                zh="有以秒为单位的超时参数（例如 timeout_seconds）",
                en="has a timeout argument in seconds (e.g. timeout_seconds)",
            ),
            lambda s: _timeout_name(s) is not None,
        ),
    ),
    "list": (
        (_ABOUT, about_tickets),
        (
            Text(zh="只读（read_only=True）", en="read-only (read_only=True)"),
            lambda s: s.annotations.read_only,
        ),
        (_SAYS_READ_ONLY, says_read_only),
        (
            Text(
                zh="没有必填参数（第一页不需要游标）",
                en="no required argument (the first page needs no cursor)",
            ),
            lambda s: not _required(s),
        ),
        (
            Text(zh="有可选的字符串参数 cursor", en="has an optional string argument cursor"),
            lambda s: _named(s, "cursor", "string") is not None,
        ),
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


def capability_report(capability: str) -> Callable[[Any], dict[Text, bool]]:
    """A ``key`` for one capability: requirement -> met, for the tool that fits it best."""

    def report(specs: Any) -> dict[Text, bool]:
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


def _all_met(capability: str) -> dict[Text, bool]:
    return {name: True for name, _ in CAPABILITIES[capability]}


FIXED_TOOLS_CASES: tuple[Case, ...] = (
    Case(
        Text(zh="linter 没有发现", en="no linter findings"),
        (),
        [],
        Text(
            zh=(
                "逐条看 print(format_findings(lint(fixed_tools()))) 给出的 fix：名称、描述、"
                "additionalProperties、单位、注解。"
            ),
            en="Go through the fixes that print(format_findings(lint(fixed_tools()))) gives, one"
            " by one: names, descriptions, additionalProperties, units, annotations.",
        ),
        key=toolset_findings,
    ),
    Case(
        Text(zh="名称带命名空间", en="names with a namespace"),
        (),
        True,
        Text(
            zh=(
                "名称要带命名空间：三个工具的名称以同一个前缀开头（例如 tickets_...），"
                "模型和接入方一眼看出它们属于同一个服务。"
            ),
            en="Names need a namespace: the three tools' names start with the same prefix (e.g."
            " tickets_...), so that the model and integrators see at a glance that they belong"
            " to one service.",
        ),
        key=_namespaced,
    ),
    Case(
        Text(zh="三个工具：两个只读，一个写入", en="three tools: two read-only, one that writes"),
        (),
        {"tools": 3, "read_only": 2, "writes": 1},
        Text(
            zh=(
                "能力一一对应：恰好三个工具；读一张和列出是只读的，"
                "关闭是写入（Annotations(read_only=False, ...)）。"
            ),
            en="One tool per capability: exactly three tools; reading one and listing are"
            " read-only, closing writes (Annotations(read_only=False, ...)).",
        ),
        key=_counts,
    ),
    Case(
        Text(
            zh="getData 的能力：按 id 读一张工单", en="getData's capability: read one ticket by id"
        ),
        (),
        _all_met("get"),
        Text(
            zh=(
                "读一张工单的工具：只读，注解和描述都要说（描述里写 Read-only.）；唯一的必填参数"
                "是整数的工单 id；描述的第一句就说出它读的是 ticket，前面没有否定。"
            ),
            en="The tool that reads one ticket: read-only, said by both the annotation and the"
            " description (write Read-only. in the description); its only required argument is"
            " the ticket's integer id; the description's opening sentence says it reads a"
            " ticket, with no negation before it.",
        ),
        key=capability_report("get"),
    ),
    Case(
        Text(
            zh="runAction 的能力：关闭一张工单（写入，超时以秒计）",
            en="runAction's capability: close one ticket (writes, timeout in seconds)",
        ),
        (),
        _all_met("close"),
        Text(
            zh=(
                "关闭工单的工具：写入，必填整数 id，描述的第一句就说出它关闭的是 ticket；原来的"
                " timeout 是秒，保留它并把单位写进名字（timeout_seconds，不是 timeout_ms）。"
            ),
            en="The tool that closes a ticket: it writes, requires an integer id, and the"
            " description's opening sentence says it closes a ticket; the original timeout is in"
            " seconds: keep it and put the unit in its name (timeout_seconds, not timeout_ms).",
        ),
        key=capability_report("close"),
    ),
    Case(
        Text(zh="sync 的能力：分页列出工单", en="sync's capability: list the tickets page by page"),
        (),
        _all_met("list"),
        Text(
            zh=(
                "列出工单的工具：只读，注解和描述都要说（描述里写 Read-only.）；描述的第一句就说出"
                "它列的是 tickets；第一页不带参数，用可选的字符串参数 cursor 取下一页。"
            ),
            en="The tool that lists tickets: read-only, said by both the annotation and the"
            " description (write Read-only. in the description); the description's opening"
            " sentence says it lists tickets; the first page takes no argument, and an optional"
            " string argument cursor fetches the next page.",
        ),
        key=capability_report("list"),
    ),
)


#: Every rule the exercise states, with the visible case that catches an answer breaking it.
#: A rule that holds for each tool has one row per tool: an answer that breaks it for one
#: tool only fails that tool's case.
FIXED_TOOLS_RULES: tuple[Rule, ...] = load_rules("02", "FIXED_TOOLS_RULES", FIXED_TOOLS_CASES)


def _declaration(fixed_tools: Callable[[], Any], capability: str) -> dict[str, Any]:
    """What the model sees of the tool for ``capability``: its findings, annotation, fit."""
    tools = [spec for spec in fixed_tools() if isinstance(spec, ToolSpec)]
    spec = _best(tools, capability)
    if spec is None:
        return {"tool": tr("没有这个能力的工具", "no tool with this capability")}
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
        return tr("没有这个能力的工具", "no tool with this capability")
    names = {
        "ticket_id": _id_name(spec),
        "timeout_seconds": _timeout_name(spec),
        "cursor": _named(spec, "cursor", "string"),
    }
    renamed = {}
    for name, value in args.items():
        mapped = names.get(name, name)
        if mapped is None:
            return tr(f"没有对应 {name} 的参数", f"no argument for {name}")
        renamed[mapped] = value
    return Draft202012Validator(spec.input_schema).is_valid(renamed)


_OPENS_WITH_TICKETS = Text(zh="第一句说的是工单", en="the opening sentence is about tickets")
_READ_ONLY_IFF = Text(
    zh="写明只读，当且仅当注解是只读",
    en="says read-only if and only if the annotation is read-only",
)


def _description_facts(fixed_tools: Callable[[], Any], index: int) -> Any:
    """What the description of the learner's tool ``index`` says: tickets? read-only?"""
    tools = [spec for spec in fixed_tools() if isinstance(spec, ToolSpec)]
    if index >= len(tools):
        return tr(f"没有第 {index + 1} 个工具", f"there is no tool number {index + 1}")
    spec = tools[index]
    return {
        _OPENS_WITH_TICKETS: about_tickets(spec),
        _READ_ONLY_IFF: says_read_only(spec) == bool(spec.annotations.read_only),
    }


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
    Last, one case per tool, in the learner's order: its description's opening sentence
    names tickets, and it says "read-only" exactly when the annotation does.
    """
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        capability = ("get", "close", "list")[index % 3]
        args = _generated_args(rng, capability)
        cases.append(
            Case(
                Text(
                    zh=f"生成的调用 {index + 1}（{capability}）",
                    en=f"generated call {index + 1} ({capability})",
                ),
                (capability, args),
                _reference_accepts(capability, args),
                Text(
                    zh="和参考实现的 schema 判断不同：参数的类型、必填与否、additionalProperties。",
                    en="The schema decides differently from the reference implementation's: the"
                    " arguments' types, whether they are required, additionalProperties.",
                ),
                via=_accepts,
                shown_call=Text(
                    zh=(
                        f"{{function}}() 里 {capability} 能力的工具收到 {args!r}"
                        "（名字按你的参数改写）"
                    ),
                    en=f"the tool for the {capability} capability in {{function}}() receives"
                    f" {args!r} (the names rewritten to your arguments)",
                ),
            )
        )
    for capability in ("get", "close", "list"):
        cases.append(
            Case(
                Text(zh=f"声明检查（{capability}）", en=f"declaration check ({capability})"),
                (capability,),
                _declaration(lambda: list(TICKET_TOOLSET), capability),
                Text(
                    zh="和参考实现的声明不同：名称、linter 发现、注解、能力要求。",
                    en="The declaration differs from the reference implementation's: names,"
                    " linter findings, annotations, capability requirements.",
                ),
                via=_declaration,
                shown_call=Text(
                    zh=f"{{function}}() 里 {capability} 能力的工具的声明",
                    en=f"the declaration of the tool for the {capability} capability in"
                    f" {{function}}()",
                ),
            )
        )
    for index in range(len(TICKET_TOOLSET)):
        cases.append(
            Case(
                Text(
                    zh=f"描述检查（第 {index + 1} 个工具）",
                    en=f"description check (tool number {index + 1})",
                ),
                (index,),
                _description_facts(lambda: list(TICKET_TOOLSET), index),
                Text(
                    zh=(
                        "描述的第一句要说出 ticket 或 tickets（整词，前面没有否定）；"
                        "只读的工具在描述里写明只读，写入的工具不能这么写。"
                    ),
                    en="The description's opening sentence must name ticket or tickets (the whole"
                    " word, with no negation before it); a read-only tool says read-only in its"
                    " description, and a tool that writes must not say so.",
                ),
                via=_description_facts,
                shown_call=Text(
                    zh=f"{{function}}() 的第 {index + 1} 个工具的描述",
                    en=f"the description of tool number {index + 1} of {{function}}()",
                ),
            )
        )
    return tuple(cases)
