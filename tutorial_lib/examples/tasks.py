"""Chapter 03's teaching example: one tiny task tool, two error styles.

``task_set_status`` sets the status of a task in an in-memory :class:`TaskStore`. Its
arguments are ``task_id`` (a string such as ``"T-1"``) and ``status``, one of ``backlog``,
``active``, ``on_hold``, ``shipped``. It is declared once, :data:`TASK_SET_STATUS_SPEC`,
and travels the road like every tool:

    find the tool -> schema check (TASK_SET_STATUS_SCHEMA, status worded by
    status_value_error) -> authorization -> business check (the task exists)
    -> confirmation -> execution (the write) -> envelope

Its failures come in two styles (``error_style`` of the spec):

- ``"bare"``: a failure is ``{"error": "INVALID_ARGUMENT"}`` and nothing else. The caller
  learns that something was wrong, not what, nor whether anything changed, nor whether to
  try again;
- ``"rich"``: the contract's failure envelope: ``code``, ``field``, ``allowed_values``,
  ``received``, ``operation_state``, ``retry`` and a *conditional* ``suggestion``, every
  one filled in from what really happened in this call.

The suggestion is conditional on purpose: only a received value that means "work has
started" (``started``, ``working``, ``wip``...) earns the hint ``active``, and even then
only with its condition stated; any other wrong value gets the list of allowed values,
because guessing the caller's intent from ``"finished"`` or ``"later"`` would be a guess.

:func:`with_bare_errors` turns any tool into its bare twin (e.g. ``read_lines``), so the
chapter can run the same scripted model against both styles and count the calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tutorial_lib.core.authorization import TaskScope, declared_access, local_access
from tutorial_lib.core.contracts import ContractError, Envelope, Source, json_safe
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import LOCAL_WRITE, ErrorStyle, Registry, ToolSpec

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = [
    "BARE_INVALID",
    "STARTED_WORDS",
    "TASK_SET_STATUS_SCHEMA",
    "TASK_SET_STATUS_SPEC",
    "TASK_STATUSES",
    "TaskStore",
    "status_value_error",
    "task_set_status",
    "task_set_status_spec",
    "task_source",
    "with_bare_errors",
]

TOOL_NAME = "task_set_status"

#: The statuses a task may have, in the tool's own vocabulary.
TASK_STATUSES: tuple[str, ...] = ("backlog", "active", "on_hold", "shipped")

#: Words (after lower-casing, with '-' and ' ' read as '_') that mean "work has started".
#: None of them is an allowed status: each is a way of saying ``active`` otherwise.
STARTED_WORDS = frozenset(
    {
        "started",
        "start",
        "working",
        "wip",
        "doing",
        "in_progress",
        "inprogress",
        "underway",
        "ongoing",
    }
)

#: What every bare failure says about a bad argument.
BARE_INVALID = {"error": "INVALID_ARGUMENT"}

TASK_SET_STATUS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "task_id": {
            "type": "string",
            "minLength": 1,
            "description": "Id of an existing task, e.g. 'T-1'.",
        },
        "status": {
            "type": "string",
            "enum": list(TASK_STATUSES),
            "description": (
                "The new status: backlog (not started), active (work has started),"
                " on_hold (paused, waiting on someone) or shipped (finished and delivered)."
            ),
        },
    },
    "required": ["task_id", "status"],
    "additionalProperties": False,
}


@dataclass
class TaskStore:
    """An in-memory task tracker: ``tasks`` maps a task id to its status.

    ``lose_next_reply`` simulates the classic unknown outcome: the next write is applied,
    then its reply is lost (as after a timeout), so the tool cannot tell the caller whether
    it happened. ``writes`` counts applied writes (tests and the chapter read it).
    """

    tasks: dict[str, str] = field(default_factory=dict)
    lose_next_reply: bool = False
    writes: int = 0

    def set_status(self, task_id: str, status: str) -> None:
        """Write ``status`` on ``task_id``; raises TimeoutError *after* the write if the
        reply is to be lost (the change is made, the caller is not told)."""
        self.tasks[task_id] = status
        self.writes += 1
        if self.lose_next_reply:
            self.lose_next_reply = False
            raise TimeoutError("the reply was lost after the write")


def status_value_error(name: str, value: Any, error: ValidationError) -> ContractError:
    """The schema check's wording for task_set_status's value errors.

    A status outside the list is ``invalid_status``, with a suggestion only when earned
    (see the module docstring). The schema check runs before anything touches the store,
    so the message says what is certain: nothing was changed (it cannot name the task's
    current status: the task may not even exist).
    """
    if name == "status":
        return _invalid_status(str(value))
    return ContractError(
        "invalid_value",
        f"'{name}' must not be empty; ids look like 'T-1'",
        field=name,
        received=value,
        expected="non-empty string",
    )


def _invalid_status(status: str) -> ContractError:
    normalized = status.strip().lower().replace("-", "_").replace(" ", "_")
    if normalized in STARTED_WORDS or normalized == "active":
        suggestion = (
            "if work on the task has really begun, send status 'active';"
            " if not, choose another allowed value"
        )
    else:
        suggestion = "send one of: " + ", ".join(TASK_STATUSES)
    return ContractError(
        "invalid_status",
        f"'status' must be one of the allowed values, got {json_safe(status)!r};"
        " no status was changed",
        field="status",
        received=status,
        allowed_values=list(TASK_STATUSES),
        suggestion=suggestion,
    )


def _find_task(store: TaskStore, args: Mapping[str, Any]) -> str:
    """The business check: the task exists. Hands its current status on to execution."""
    task_id = args["task_id"]
    if task_id not in store.tasks:
        raise ContractError(
            "not_found",
            f"there is no task {json_safe(task_id)!r}; the status was not changed",
            field="task_id",
            received=task_id,
            suggestion="look the task up first; ids look like 'T-1'",
        )
    return store.tasks[task_id]


def _write(store: TaskStore, args: Mapping[str, Any], previous: str) -> dict[str, Any]:
    """Execution: the write. A lost reply is reported as unknown, never as failed."""
    task_id, status = args["task_id"], args["status"]
    try:
        store.set_status(task_id, status)
    except TimeoutError as exc:
        # From the caller's side nothing says whether the write happened: report exactly that.
        raise ContractError(
            "outcome_unknown",
            f"no reply from the task store after sending status {status!r} for {task_id!r};"
            " the change may or may not have been made",
            field="status",
            received=status,
            suggestion=f"read the current status of {task_id} before sending anything again",
            operation_state="unknown",
        ) from exc  # the log records the TimeoutError, the envelope does not
    return {
        "task_id": task_id,
        "status": status,
        "previous_status": previous,
        "changed": previous != status,
    }


def task_source(store: Any, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    """Where task_set_status's data came from: the task it changed, in the task tracker."""
    return {"system": "task_tracker", "resource": f"tasks/{data['task_id']}"}


#: task_set_status, declared once (unbound: bind a :class:`TaskStore` with
#: :func:`task_set_status_spec`).
TASK_SET_STATUS_SPEC = ToolSpec(
    name=TOOL_NAME,
    title="Set the status of a task",
    description=(
        "Set the status of one existing task in the task tracker. Writes: changes the"
        " task's status field only; setting the current status again changes nothing."
        " status is one of backlog (not started), active (work has started), on_hold"
        " (paused, waiting on someone), shipped (finished and delivered)."
        ' Example: {"task_id": "T-1", "status": "active"}.'
    ),
    input_schema=TASK_SET_STATUS_SCHEMA,
    annotations=LOCAL_WRITE,
    access=local_access("write", "tasks"),
    check=_find_task,
    execute=_write,
    source=task_source,
    value_error=status_value_error,
)


def task_set_status_spec(store: TaskStore, *, style: ErrorStyle = "rich") -> ToolSpec:
    """``task_set_status`` bound to ``store``, its failures in ``style``: for a registry."""
    return TASK_SET_STATUS_SPEC.bind(store).with_error_style(style)


def task_set_status(args: Any, *, store: TaskStore, style: ErrorStyle = "rich") -> Envelope:
    """Set ``args["status"]`` on task ``args["task_id"]`` in ``store``; never raises.

    ``args`` is the raw argument object a model sent. Returns the success envelope
    (``data``: ``task_id``, ``status``, ``previous_status``, ``changed``) or a failure in
    the chosen ``style``. Setting the status a task already has succeeds with
    ``changed: false`` (the call is idempotent).

    A direct call is the same tool on the same road: a host of one tool whose caller
    granted it this write in advance (the caller of this function is the user).
    """
    registry = Registry([task_set_status_spec(store, style=style)])
    host = Host(
        registry,
        access=declared_access(registry),
        scope=TaskScope(grants=frozenset({"write"})),
        confirm={TOOL_NAME: None},
    )
    return host.call(TOOL_NAME, args)


def with_bare_errors(spec: ToolSpec) -> ToolSpec:
    """The same tool with its failures reduced to the bare style (successes unchanged).

    For the chapter's comparison only: a bare failure is not a contract envelope, so the
    road does not check it (``spec.with_error_style("bare")``, see
    :func:`tutorial_lib.core.road.bare_error`).
    """
    return spec.with_error_style("bare")
