"""Interface versions for chapter 08's evaluation: v1, v2, and v2 with one fix taken out.

An :class:`InterfaceVersion` is a set of :class:`Fixes` (which of the course's improvements
it has) and knows how to build a :class:`~tutorial_lib.core.tools.Registry` for a
:class:`World`, the fresh state one evaluation run acts on: a workspace directory, a task
tracker, a job runner, a ticket desk and the GitHub emulator (in process, no sockets).

The eight fixes, each one a difference a learner has met in an earlier chapter, and each
one a single factor (the ablations take out one at a time):

- ``names``: namespaced tool names (``read_lines``) instead of vague ones (``getFile``);
- ``descriptions``: descriptions that state scope, vocabulary (with a gloss per value),
  units, bounds and examples, per tool and per property; instead of one vague line;
- ``constraints``: schemas with ``enum``, ``minimum``/``maximum``, ``pattern`` and
  ``additionalProperties``; instead of types only (the real schema still checks what
  runs: a looser declaration shows less and refuses the same values);
- ``required_scope``: a required ``repository``; instead of an optional one that silently
  defaults to the first repository holding that PR number;
- ``units``: ``job_get_result`` waits ``timeout_ms`` (bounded, example in the
  description) instead of a ``timeout`` with no unit and no bounds;
- ``paging``: lists say ``coverage``/``next_cursor`` (``read_lines`` says
  ``has_more``/``total_lines``) instead of handing back a raw first page of full bodies;
- ``rich_errors``: contract failure envelopes (``field``, ``expected``,
  ``allowed_values``, retry advice) instead of the bare ``{"error": "INVALID_ARGUMENT"}``;
- ``safe_write``: the chapter 05 comment write (idempotency key, read-back after an
  unknown outcome, a status check tool) instead of a plain POST.

Every version also has ``submit_answer`` (:data:`SUBMIT_ANSWER_SPEC`), the same in all:
the tool a run answers through, so success is judged on structured values.

Every tool of every version is a :class:`ToolSpec` called through a
:class:`~tutorial_lib.core.host.Host`. The v1 and ablation tools are thin wrappers over
the course's real tools and the same stores: a vague declaration still runs the real
tool's checks and execution (its arguments adapted before the schema check, in view of
every station: ``ToolSpec.adapt``), so a vague tool refuses the same values; only its
error style and its declaration differ. The example of a non-GitHub tool,
``tickets_set_status`` over a :class:`TicketDesk`, is declared here too.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from tutorial_lib.core.contracts import ContractError, Source, json_safe
from tutorial_lib.core.tools import (
    GITHUB_WRITE,
    LOCAL_WRITE,
    READ_ONLY_LOCAL,
    ErrorStyle,
    Registry,
    ToolSpec,
)
from tutorial_lib.emulator.faults import Fault, FaultKind, FaultPlan
from tutorial_lib.emulator.fixtures import GitHubStore, build_store
from tutorial_lib.emulator.service import serve_in_process
from tutorial_lib.examples.tasks import TaskStore, task_set_status_spec
from tutorial_lib.examples.units import (
    JobRunner,
    find_job,
    job_get_result_spec,
    wait_for_job,
)
from tutorial_lib.github.client import GitHubClient
from tutorial_lib.github.pagination import CursorCodec
from tutorial_lib.github.reads import (
    LIST_COMMENTS_SPEC,
    PR_PROPERTY,
    REPOSITORY_PROPERTY,
    GitHubToolContext,
)
from tutorial_lib.github.writes import WriteContext, write_tool_specs
from tutorial_lib.workspace.read import read_lines_tool

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = [
    "ABLATIONS",
    "FIX_LABELS",
    "FIX_NAMES",
    "JOBS",
    "REPOSITORIES",
    "ROLES",
    "TASKS_IN_TRACKER",
    "TICKETS",
    "TICKET_STATUSES",
    "TICKET_SET_STATUS_SPEC",
    "SUBMIT_ANSWER_SPEC",
    "VAGUE_DESCRIPTIONS",
    "CONSTRAINT_KEYWORDS",
    "ABLATION_CHANGES",
    "AnswerBox",
    "strip_schema",
    "V1",
    "V2",
    "VERSIONS",
    "WORKSPACE_FILES",
    "Fixes",
    "InterfaceVersion",
    "TicketDesk",
    "World",
    "ablation",
    "open_world",
    "tool_list_chars",
]

#: The fixes, in the order the ablation table lists them.
FIX_NAMES: tuple[str, ...] = (
    "names",
    "descriptions",
    "constraints",
    "required_scope",
    "units",
    "paging",
    "rich_errors",
    "safe_write",
)
#: How the tables name each fix.
FIX_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "names": "names",
        "descriptions": "descriptions",
        "constraints": "constraints",
        "required_scope": "required scope",
        "units": "units",
        "paging": "paging",
        "rich_errors": "rich errors",
        "safe_write": "safe write",
    }
)
#: The roles a tool plays, and its name with good and with vague declarations.
ROLES: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "read": ("read_lines", "getFile"),
        "status": ("task_set_status", "setStatus"),
        "job": ("job_get_result", "getJob"),
        "comments": ("github_pr_list_comments", "getData"),
        "write": ("github_pr_create_comment", "postData"),
        "ticket": ("tickets_set_status", "update"),
        "verify": ("github_pr_get_comment_status", "checkData"),
    }
)

#: The workspace of every world: file name -> number of lines (``"<stem> line <n>"``).
WORKSPACE_FILES: Mapping[str, int] = MappingProxyType(
    {
        "notes.txt": 3,
        "config.toml": 20,
        "report.md": 33,
        "long.txt": 45,
        "app.log": 120,
    }
)
#: The task tracker of every world (task id -> status).
TASKS_IN_TRACKER: Mapping[str, str] = MappingProxyType(
    {
        "T-1": "backlog",
        "T-2": "active",
        "T-3": "active",
        "T-4": "shipped",
    }
)
#: The job runner of every world: job id -> the moment it finishes, in milliseconds.
JOBS: Mapping[str, int] = MappingProxyType(
    {"J-1": 12_000, "J-2": 90_000, "J-3": 2_000, "J-4": 40_000}
)
#: The ticket desk of every world (ticket id -> status).
TICKETS: Mapping[str, str] = MappingProxyType(
    {"SUP-7": "open", "SUP-9": "open", "SUP-12": "pending"}
)
#: The repositories of the GitHub fixture, in the order a vague tool tries them.
REPOSITORIES: tuple[str, ...] = ("example/shop", "other/shop")
#: A fixed cursor key and clock: cursors, hence character counts, are the same every run.
_CURSOR_KEY = b"evaluation-fixed-cursor-key-0001"


# --------------------------------------------------------------------------- the B14 tool

#: The statuses a support ticket may have.
TICKET_STATUSES: tuple[str, ...] = ("open", "pending", "solved", "closed")


@dataclass
class TicketDesk:
    """An in-memory support desk: ``tickets`` maps an id (``"SUP-7"``) to its status."""

    tickets: dict[str, str] = field(default_factory=dict)


def _ticket_value_error(name: str, value: Any, error: ValidationError) -> ContractError:
    if name == "status":
        return ContractError(
            "invalid_value",
            f"'status' must be one of {', '.join(TICKET_STATUSES)}, got {json_safe(value)!r};"
            " no ticket was changed",
            field="status",
            received=value,
            allowed_values=list(TICKET_STATUSES),
        )
    return ContractError(
        "invalid_value",
        "'ticket_id' must look like 'SUP-7'",
        field=name,
        received=value,
        expected="SUP-<number>",
    )


def _find_ticket(desk: TicketDesk, args: Mapping[str, Any]) -> str:
    if args["ticket_id"] not in desk.tickets:
        raise ContractError(
            "not_found",
            f"there is no ticket {json_safe(args['ticket_id'])!r}; nothing was changed",
            field="ticket_id",
            received=args["ticket_id"],
        )
    return desk.tickets[args["ticket_id"]]


def _set_ticket(desk: TicketDesk, args: Mapping[str, Any], previous: str) -> dict[str, Any]:
    desk.tickets[args["ticket_id"]] = args["status"]
    return {"ticket_id": args["ticket_id"], "status": args["status"], "previous_status": previous}


def _ticket_source(desk: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "support_desk", "resource": f"tickets/{data['ticket_id']}"}


#: tickets_set_status, declared once (bind a :class:`TicketDesk`).
TICKET_SET_STATUS_SPEC = ToolSpec(
    name="tickets_set_status",
    title="Set the status of a support ticket",
    description=(
        "Set the status of one existing ticket of the support desk. Writes: changes the"
        " ticket's status only. status is one of open, pending (waiting for the customer),"
        ' solved (answered), closed (archived). Example: {"ticket_id": "SUP-7", "status":'
        ' "solved"}.'
    ),
    input_schema={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "ticket_id": {
                "type": "string",
                "pattern": "^SUP-[0-9]+$",
                "description": "Id of an existing ticket, e.g. 'SUP-7'.",
            },
            "status": {
                "type": "string",
                "enum": list(TICKET_STATUSES),
                "description": "The new status: open, pending, solved or closed.",
            },
        },
        "required": ["ticket_id", "status"],
        "additionalProperties": False,
    },
    annotations=LOCAL_WRITE,
    check=_find_ticket,
    execute=_set_ticket,
    source=_ticket_source,
    value_error=_ticket_value_error,
)


# --------------------------------------------------------------------------- the world


@dataclass
class World:
    """The fresh state of one run: what the tools act on and what the checks look at."""

    root: Path
    tasks: TaskStore
    jobs: JobRunner
    desk: TicketDesk
    store: GitHubStore
    client: GitHubClient
    codec: CursorCodec
    faults: FaultPlan
    answers: AnswerBox = field(default_factory=lambda: AnswerBox())


@contextlib.contextmanager
def open_world(faults: Sequence[FaultKind] = ()) -> Iterator[World]:
    """A fresh :class:`World` for the ``with`` block: files written, stores filled, the
    GitHub emulator served in process with ``faults`` applied to comment writes in order."""
    plan = FaultPlan([Fault(kind) for kind in faults])
    with (
        tempfile.TemporaryDirectory(prefix="evaluation-") as tmp,
        serve_in_process(build_store(), faults=plan) as handle,
        GitHubClient(handle.base_url, timeout_s=0.2, transport=handle.transport()) as client,
    ):
        root = Path(tmp)
        for name, count in WORKSPACE_FILES.items():
            stem = name.split(".")[0]
            text = "".join(f"{stem} line {n}\n" for n in range(1, count + 1))
            (root / name).write_text(text, encoding="utf-8")
        yield World(
            root,
            TaskStore(dict(TASKS_IN_TRACKER)),
            JobRunner(dict(JOBS)),
            TicketDesk(dict(TICKETS)),
            handle.store,
            client,
            CursorCodec(_CURSOR_KEY, clock=lambda: 0.0),
            plan,
        )


# --------------------------------------------------------------------------- declarations

#: The one-line descriptions of a version without the ``descriptions`` fix, per role.
VAGUE_DESCRIPTIONS: Mapping[str, str] = MappingProxyType(
    {
        "read": "Gets the file.",
        "status": "Sets the status.",
        "job": "Gets the job.",
        "comments": "Gets the data you need.",
        "write": "Posts the data.",
        "ticket": "Updates the item.",
        "verify": "Checks the data.",
    }
)

#: Schema keywords that constrain a value (the ``constraints`` fix keeps them).
CONSTRAINT_KEYWORDS: frozenset[str] = frozenset(
    {
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "format",
    }
)


def strip_schema(
    schema: Mapping[str, Any], *, descriptions: bool = False, constraints: bool = False
) -> dict[str, Any]:
    """A copy of an object schema without its property ``descriptions`` and/or its
    constraints (:data:`CONSTRAINT_KEYWORDS` and ``additionalProperties``); types and
    ``required`` stay."""
    out = json.loads(json.dumps(schema))
    if constraints:
        out.pop("additionalProperties", None)
    for prop in (out.get("properties") or {}).values():
        if not isinstance(prop, dict):
            continue
        if descriptions:
            prop.pop("description", None)
            prop.pop("examples", None)
        if constraints:
            for keyword in CONSTRAINT_KEYWORDS:
                prop.pop(keyword, None)
    return out


def _declared(
    real: ToolSpec,
    role: str,
    fixes: Fixes,
    *,
    scope_default: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None,
) -> ToolSpec:
    """``real`` as ``fixes`` declares it: its name, description and schema as shown to
    the model, the same checks and execution behind them.

    Without ``names`` the name is vague; without ``descriptions`` the description is one
    vague line and the properties lose theirs; without ``constraints`` the schema keeps
    only types and ``required``; without ``required_scope`` (``scope_default`` given) the
    ``repository`` is optional and ``scope_default`` fills it in silently. What is shown
    changes; the real schema still checks what runs (``ToolSpec.adapt`` and
    ``adapted_schema``), so a vaguer declaration refuses the same values.
    """
    loose_scope = scope_default is not None and not fixes.required_scope
    if fixes.names and fixes.descriptions and fixes.constraints and not loose_scope:
        return real
    name = real.name if fixes.names else ROLES[role][1]
    description = real.description if fixes.descriptions else VAGUE_DESCRIPTIONS[role]
    schema = strip_schema(
        real.input_schema,
        descriptions=not fixes.descriptions,
        constraints=not fixes.constraints,
    )
    prepare: Callable[[Mapping[str, Any]], dict[str, Any]] = dict
    if loose_scope and scope_default is not None:
        schema["required"] = [f for f in schema.get("required", ()) if f != "repository"]
        prepare = scope_default

    def source(context: Any, args: Mapping[str, Any], data: Any) -> Source:
        return (
            real.source(context, args, data)
            if real.source
            else {"system": "tool", "resource": name}
        )

    spec = ToolSpec(
        name,
        name,
        description,
        schema,
        annotations=real.annotations,
        check=real.check,
        execute=real.execute,
        source=source,
        adapt=prepare,
        adapted_schema=real.input_schema,
        output_schema=real.output_schema,
        context=real.context,
        value_error=real.value_error,
    )
    # the adapted arguments are worded as the real tool words its own errors
    object.__setattr__(spec, "adapted_arguments", real.arguments)
    return spec


def _reshaped(real: ToolSpec, reshape: Callable[[dict[str, Any]], dict[str, Any]]) -> ToolSpec:
    """``real`` with the data of each success reshaped (what a cruder tool would return)."""
    assert real.execute is not None
    execute = real.execute

    def reshaped(context: Any, args: Mapping[str, Any], checked: Any) -> Any:
        return reshape(execute(context, args, checked))

    return replace(real, execute=reshaped, output_schema=None)


# --------------------------------------------------------------------------- the tools


def _read_tool(world: World, fixes: Fixes) -> ToolSpec:
    spec = read_lines_tool(world.root)
    if not fixes.paging:  # no has_more, no total_lines: a page looks like the whole file
        spec = _reshaped(spec, lambda d: {k: d[k] for k in ("path", "start", "lines")})
        spec = replace(
            spec,
            description=spec.description.split(" Returns ")[0]
            + " Returns path, start and the lines. Read-only.",
        )
    return _declared(spec, "read", fixes)


def _status_tool(world: World, fixes: Fixes) -> ToolSpec:
    return _declared(task_set_status_spec(world.tasks), "status", fixes)


_UNITLESS_JOB_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "job_id": {"type": "string", "minLength": 1, "description": "Id of a job, e.g. 'J-1'."},
        "timeout": {"type": "integer", "minimum": 0, "description": "How long to wait."},
    },
    "required": ["job_id", "timeout"],
    "additionalProperties": False,
}


def _unitless_job(runner: JobRunner) -> ToolSpec:
    """job_get_result with a ``timeout`` that says no unit (the runner reads milliseconds)."""

    def execute(context: JobRunner, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        data = wait_for_job(context, args["job_id"], args["timeout"])
        return {
            "job_id": data["job_id"],
            "status": data["status"],
            "finished": data["finished"],
            "elapsed": data["elapsed_ms"],
        }

    def source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
        return {"system": "job_runner", "resource": f"jobs/{data['job_id']}"}

    return ToolSpec(
        ROLES["job"][0],
        "Get the result of a job",
        "Get the result of one job in the job runner, waiting at most timeout for it to"
        " finish. Read-only. Returns status (running or succeeded) and finished.",
        _UNITLESS_JOB_SCHEMA,
        annotations=READ_ONLY_LOCAL,
        execute=execute,
        check=find_job,
        source=source,
    ).bind(runner)


def _job_tool(world: World, fixes: Fixes) -> ToolSpec:
    spec = job_get_result_spec(world.jobs) if fixes.units else _unitless_job(world.jobs)
    return _declared(spec, "job", fixes)


def _first_holding(world: World, repository: Any, pr: Any) -> str:
    """The vague default: the first known repository that holds PR ``pr`` (and, when a
    bare name such as ``shop`` was given, whose name part matches it)."""
    for full in REPOSITORIES:
        if isinstance(repository, str) and repository not in (full, full.split("/")[1]):
            continue
        with contextlib.suppress(ContractError, TypeError, ValueError):
            world.client.get_pull(full, int(pr))
            return full
    return repository if isinstance(repository, str) else REPOSITORIES[0]


def _raw_first_page(context: GitHubToolContext) -> ToolSpec:
    """The listing without coverage or cursor: GitHub's first REST page (30 comments) as
    the client returns it, full bodies and every field; REST says nothing of resolution."""
    real = LIST_COMMENTS_SPEC.bind(context)

    def first_page(client: GitHubClient, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        repository, pr = args["repository"], args["pr"]
        page = client.list_review_comments_page(repository, pr, per_page=30)
        return {"repository": repository, "pr": pr, "comments": page.comments}

    return ToolSpec(
        real.name,
        "List a pull request's review comments",
        "List the review comments of one pull request with their full bodies. Read-only."
        ' Example: {"repository": "example/shop", "pr": 128}',
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"repository": REPOSITORY_PROPERTY, "pr": PR_PROPERTY},
            "required": ["repository", "pr"],
            "additionalProperties": False,
        },
        annotations=real.annotations,
        execute=first_page,
        source=real.source,
        value_error=real.value_error,
    ).bind(context.client)


def _comments_tool(world: World, fixes: Fixes) -> ToolSpec:
    context = GitHubToolContext(world.client, world.codec)
    spec = LIST_COMMENTS_SPEC.bind(context) if fixes.paging else _raw_first_page(context)

    def scope_default(args: Mapping[str, Any]) -> dict[str, Any]:
        return {**args, "repository": _first_holding(world, args.get("repository"), args.get("pr"))}

    return _declared(spec, "comments", fixes, scope_default=scope_default)


_PLAIN_POST_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "repository": REPOSITORY_PROPERTY,
        "pr": PR_PROPERTY,
        "body": {"type": "string", "minLength": 1, "description": "The comment text."},
    },
    "required": ["repository", "pr", "body"],
    "additionalProperties": False,
}


def _plain_post(client: GitHubClient) -> ToolSpec:
    """A comment write without key or read-back: one POST, its failure passed on."""

    def execute(context: GitHubClient, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
        comment = context.create_issue_comment(args["repository"], args["pr"], args["body"])
        return {"comment_id": comment["id"], "status": "posted"}

    def source(context: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
        return {"system": "github", "resource": f"repos/{args['repository']}/issues/{args['pr']}"}

    return ToolSpec(
        ROLES["write"][0],
        "Post a comment on a pull request",
        "Post a conversation comment on one pull request. Writes to GitHub.",
        _PLAIN_POST_SCHEMA,
        annotations=GITHUB_WRITE,
        execute=execute,
        source=source,
    ).bind(client)


def _write_tools(world: World, fixes: Fixes) -> list[ToolSpec]:
    if fixes.safe_write:
        context = WriteContext(world.client, sleep=lambda seconds: None, seed=0)
        post, verify = write_tool_specs(context)
        return [_declared(post, "write", fixes), _declared(verify, "verify", fixes)]
    return [_declared(_plain_post(world.client), "write", fixes)]


def _ticket_tool(world: World, fixes: Fixes) -> ToolSpec:
    return _declared(TICKET_SET_STATUS_SPEC.bind(world.desk), "ticket", fixes)


# --------------------------------------------------------------------------- the answer tool


@dataclass
class AnswerBox:
    """Where a run's structured answers land (the last one is the run's answer)."""

    submitted: list[dict[str, Any]] = field(default_factory=list)

    @property
    def last(self) -> dict[str, Any] | None:
        """The last answer submitted, or None."""
        return self.submitted[-1] if self.submitted else None


def _submit(box: AnswerBox, args: Mapping[str, Any], checked: Any) -> dict[str, Any]:
    box.submitted.append(json.loads(json.dumps(dict(args))))
    return {"received": True, "kind": args["kind"]}


def _answer_source(box: Any, args: Mapping[str, Any], data: Any) -> Source:
    return {"system": "evaluation", "resource": "answers"}


#: submit_answer, declared once: the channel every run answers through (bind an AnswerBox).
SUBMIT_ANSWER_SPEC = ToolSpec(
    name="submit_answer",
    title="Submit the answer to the user's request",
    description=(
        "Finish the task: submit your answer to the user's request, a question for the user"
        " when the request is ambiguous, or that the task cannot be completed. Call it once,"
        " last. kind: answer, question or cannot_complete. values: the answer's fields the"
        " request asks for (e.g. line_count, status, comment_ids, posted)."
    ),
    input_schema={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["answer", "question", "cannot_complete"]},
            "text": {"type": "string", "description": "The answer or question, in words."},
            "values": {"type": "object", "description": "The answer's fields."},
        },
        "required": ["kind", "text"],
        "additionalProperties": False,
    },
    annotations=READ_ONLY_LOCAL,
    execute=_submit,
    source=_answer_source,
)


@dataclass(frozen=True)
class Fixes:
    """Which of the course's fixes an interface has (all of them: v2). See the module
    docstring for what each one changes."""

    names: bool = True
    descriptions: bool = True
    constraints: bool = True
    required_scope: bool = True
    units: bool = True
    paging: bool = True
    rich_errors: bool = True
    safe_write: bool = True

    def without(self, fix: str) -> Fixes:
        """These fixes with ``fix`` (a name of :data:`FIX_NAMES`) taken out."""
        if fix not in FIX_NAMES:
            raise KeyError(f"no fix {fix!r}; fixes: {', '.join(FIX_NAMES)}")
        return replace(self, **{fix: False})

    def missing(self) -> list[str]:
        """The names of the fixes this interface lacks, in :data:`FIX_NAMES` order."""
        return [name for name in FIX_NAMES if not getattr(self, name)]


@dataclass(frozen=True)
class InterfaceVersion:
    """One version of the tool interface: its ``name``, what it ``changes`` compared with
    v2, and its :class:`Fixes`; :meth:`registry` builds its tools for a :class:`World`."""

    name: str
    changes: str
    fixes: Fixes
    #: Changes applied to the exported tool list before the model sees it (the tools
    #: behave the same): a counterfactual of the text alone.
    shown: tuple[Callable[[Sequence[Mapping[str, Any]]], list[dict[str, Any]]], ...] = ()

    def tool_name(self, role: str) -> str:
        """The name the tool of ``role`` (a key of :data:`ROLES`) has in this version."""
        good, vague = ROLES[role]
        return good if self.fixes.names else vague

    def specs(self, world: World) -> list[ToolSpec]:
        """This version's tools, bound to ``world``, failures in its error style; the
        answer tool (:data:`SUBMIT_ANSWER_SPEC`) last, the same in every version."""
        fixes = self.fixes
        specs = [
            _read_tool(world, fixes),
            _status_tool(world, fixes),
            _job_tool(world, fixes),
            _comments_tool(world, fixes),
            *_write_tools(world, fixes),
            _ticket_tool(world, fixes),
        ]
        style: ErrorStyle = "rich" if fixes.rich_errors else "bare"
        return [spec.with_error_style(style) for spec in specs] + [
            SUBMIT_ANSWER_SPEC.bind(world.answers)
        ]

    def registry(self, world: World) -> Registry:
        """A :class:`Registry` of :meth:`specs` for ``world``."""
        return Registry(self.specs(world))


def tool_list_chars(specs: Sequence[ToolSpec]) -> int:
    """Characters of the tool list as an Anthropic request carries it: compact JSON of
    ``[{"name", "description", "input_schema"}]`` (the same text as
    ``tutorial_lib.design.exports.tool_list_json(specs)``, kept apart from the exports it
    measures: ``tests/test_evaluation.py`` checks that the two agree); resent with every
    turn of a conversation."""
    tools = [
        {"name": s.name, "description": s.description, "input_schema": s.input_schema}
        for s in specs
    ]
    return len(json.dumps(tools, ensure_ascii=False, separators=(",", ":")))


#: The course's tools, every fix in.
V2 = InterfaceVersion("v2", "the course's tools: every fix in", Fixes())
#: The first draft: every fix out.
V1 = InterfaceVersion(
    "v1",
    "vague names and descriptions, loose schemas, optional repository, no units, raw"
    " first pages, bare errors, a plain POST",
    Fixes(*([False] * 8)),
)

#: What each ablation takes out of v2.
ABLATION_CHANGES: Mapping[str, str] = MappingProxyType(
    {
        "names": "vague tool names (getFile, setStatus...)",
        "descriptions": "one-line vague descriptions, no property descriptions or examples",
        "constraints": "schemas with types only: no enum, bounds or pattern",
        "required_scope": "repository optional: the first repository with that PR is used",
        "units": "the job timeout has no unit and no bounds",
        "paging": "lists are a raw first page, with no coverage, cursor or has_more",
        "rich_errors": "failures are bare words",
        "safe_write": "the comment write is a plain POST",
    }
)


def ablation(fix: str) -> InterfaceVersion:
    """v2 with exactly one fix (a name of :data:`FIX_NAMES`) taken out: ``v2 - <label>``."""
    return InterfaceVersion(f"v2 - {FIX_LABELS[fix]}", ABLATION_CHANGES[fix], V2.fixes.without(fix))


#: Each fix taken out of v2, one at a time.
ABLATIONS: tuple[InterfaceVersion, ...] = tuple(ablation(fix) for fix in FIX_NAMES)
#: Every version the chapter compares: v1, v2, then the ablations.
VERSIONS: tuple[InterfaceVersion, ...] = (V1, V2, *ABLATIONS)
