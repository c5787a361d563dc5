"""Chapter 03's teaching example: one tiny task tool, two error styles.

``task_set_status(args, store=..., style=...)`` sets the status of a task in an in-memory
:class:`TaskStore`. Its arguments are ``task_id`` (a string such as ``"T-1"``) and
``status``, one of ``todo``, ``in_progress``, ``blocked``, ``done``.

- ``style="bare"``: a failure is ``{"error": "INVALID_ARGUMENT"}`` and nothing else. The
  caller learns that something was wrong, not what, nor whether anything changed, nor
  whether to try again;
- ``style="rich"``: the contract's failure envelope: ``code``, ``field``,
  ``allowed_values``, ``received``, ``operation_state``, ``retry`` and a *conditional*
  ``suggestion``, every one filled in from what really happened in this call.

The suggestion is conditional on purpose: only a received value that means "work has
started" (``doing``, ``started``, ``wip``...) earns the hint ``in_progress``, and even then
only with its condition stated; any other wrong value gets the list of allowed values,
because guessing the caller's intent from ``"finished"`` or ``"later"`` would be a guess.

:func:`with_bare_errors` turns any contract tool into its bare twin (e.g. ``read_lines``),
so the chapter can run the same scripted model against both styles and count the calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from tutorial_lib.core.contracts import CATALOGUE, ContractError, failure, json_safe, success
from tutorial_lib.core.tools import Annotations, ToolSpec

__all__ = [
    "BARE_INVALID",
    "STARTED_WORDS",
    "TASK_SET_STATUS_SCHEMA",
    "TASK_STATUSES",
    "TaskStore",
    "bare_error",
    "task_set_status",
    "task_set_status_spec",
    "with_bare_errors",
]

TOOL_NAME = "task_set_status"
Style = Literal["bare", "rich"]

#: The statuses a task may have, in the tool's own vocabulary.
TASK_STATUSES: tuple[str, ...] = ("todo", "in_progress", "blocked", "done")

#: Words (after lower-casing, with '-' and ' ' read as '_') that mean "work has started".
STARTED_WORDS = frozenset(
    {"doing", "started", "start", "wip", "in_work", "inprogress", "active", "working", "ongoing"}
)

#: What every bare failure says about a bad argument.
BARE_INVALID = {"error": "INVALID_ARGUMENT"}

_FIELDS = ("task_id", "status")

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
            "enum": list(TASK_STATUSES),
            "description": "The new status: todo, in_progress (work has started), blocked, done.",
        },
    },
    "required": list(_FIELDS),
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


def task_set_status(args: Any, *, store: TaskStore, style: Style = "rich") -> dict[str, Any]:
    """Set ``args["status"]`` on task ``args["task_id"]`` in ``store``; never raises.

    Returns the success envelope (``data``: ``task_id``, ``status``, ``previous_status``,
    ``changed``) or a failure in the chosen ``style``. Setting the status a task already
    has succeeds with ``changed: false`` (the call is idempotent).
    """
    try:
        task_id, status = _check(args, store)
        previous = store.tasks[task_id]
        store.tasks[task_id] = status  # execution
        store.writes += 1
        if store.lose_next_reply:
            store.lose_next_reply = False
            raise TimeoutError("the reply was lost after the write")
    except ContractError as exc:
        return failure(TOOL_NAME, exc) if style == "rich" else bare_error(exc.code)
    except TimeoutError as exc:
        # From the caller's side nothing says whether the write happened: report exactly that.
        error = ContractError(
            "outcome_unknown",
            f"no reply from the task store after sending status {status!r} for {task_id!r};"
            " the change may or may not have been made",
            field="status",
            received=status,
            suggestion=f"read the current status of {task_id} before sending anything again",
            log={"exception_class": type(exc).__name__},
        )
        return failure(TOOL_NAME, error, "unknown") if style == "rich" else bare_error(error.code)
    data = {
        "task_id": task_id,
        "status": status,
        "previous_status": previous,
        "changed": previous != status,
    }
    return success(TOOL_NAME, data)


def _check(args: Any, store: TaskStore) -> tuple[str, str]:
    """Schema and business checks, in a fixed order: object, missing, unknown, each field."""
    if not isinstance(args, Mapping):
        raise ContractError(
            "invalid_type",
            "arguments must be a JSON object with task_id and status",
            received=args,
            expected="object",
        )
    for name in _FIELDS:
        if name not in args:
            raise ContractError(
                "missing_field",
                f"the argument '{name}' is required",
                field=name,
                expected="string",
            )
    extra = sorted(str(k) for k in args if k not in _FIELDS)
    if extra:
        raise ContractError(
            "unknown_field",
            f"{TOOL_NAME} has no argument '{extra[0]}'; it accepts only task_id and status",
            field=extra[0],
            received=args[extra[0]],
            allowed_values=list(_FIELDS),
        )
    task_id, status = args["task_id"], args["status"]
    for name, value in (("task_id", task_id), ("status", status)):
        if type(value) is not str:
            raise ContractError(
                "invalid_type",
                f"'{name}' must be a JSON string",
                field=name,
                received=value,
                expected="string",
            )
    if status not in TASK_STATUSES:
        raise _invalid_status(status, task_id, store)
    if task_id not in store.tasks:
        raise ContractError(
            "not_found",
            f"there is no task {json_safe(task_id)!r}; the status was not changed",
            field="task_id",
            received=task_id,
            suggestion="look the task up first; ids look like 'T-1'",
        )
    return task_id, status


def _invalid_status(status: str, task_id: str, store: TaskStore) -> ContractError:
    """The rich error for a status outside the list, with a suggestion only when earned."""
    normalized = status.strip().lower().replace("-", "_").replace(" ", "_")
    current = store.tasks.get(task_id)
    unchanged = (
        f"task {task_id} keeps its status {current!r}" if current is not None else "nothing changed"
    )
    if normalized in STARTED_WORDS or normalized == "in_progress":
        suggestion = (
            "if work on the task has really begun, send status 'in_progress';"
            " if not, choose another allowed value"
        )
    else:
        suggestion = "send one of: " + ", ".join(TASK_STATUSES)
    return ContractError(
        "invalid_status",
        f"'status' must be one of the allowed values, got {json_safe(status)!r}; {unchanged}",
        field="status",
        received=status,
        allowed_values=list(TASK_STATUSES),
        suggestion=suggestion,
    )


def bare_error(code: str) -> dict[str, str]:
    """The bare style of a failure: one upper-case word, nothing else.

    Argument problems (codes whose advice is ``after_input_correction``) all become
    ``INVALID_ARGUMENT``; everything else becomes ``INTERNAL_ERROR``.
    """
    if CATALOGUE[code].retry == "after_input_correction":
        return dict(BARE_INVALID)
    return {"error": "INTERNAL_ERROR"}


def task_set_status_spec(store: TaskStore, *, style: Style = "rich") -> ToolSpec:
    """``task_set_status`` bound to ``store``, as a spec for a registry and the pipeline."""

    def handler(root: Any, args: Any) -> dict[str, Any]:
        return task_set_status(args, store=store, style=style)

    return ToolSpec(
        name=TOOL_NAME,
        title="Set the status of a task",
        description=(
            "Set the status of one existing task in the task tracker. Writes: changes the"
            " task's status field only; setting the current status again changes nothing."
            " status is one of todo, in_progress (work has started), blocked, done."
            ' Example: {"task_id": "T-1", "status": "in_progress"}.'
        ),
        input_schema=TASK_SET_STATUS_SCHEMA,
        annotations=Annotations(
            read_only=False, destructive=False, idempotent=True, open_world=False
        ),
        handler=handler,
    )


def with_bare_errors(spec: ToolSpec) -> ToolSpec:
    """The same tool with its failures reduced to the bare style (successes unchanged).

    For the chapter's comparison only: the twin's failures do not follow the contract, so
    the pipeline must be told not to check them (``check_envelope=False``).
    """
    inner = spec.handler
    if inner is None:
        raise ValueError(f"{spec.name} has no handler")

    def handler(root: Any, args: Any) -> dict[str, Any]:
        result = inner(root, args)
        return result if result.get("ok") else bare_error(result["error"]["code"])

    return replace(spec, handler=handler)
