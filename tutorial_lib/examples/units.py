"""Chapter 03's units example: a wait whose length says its unit.

``job_get_result`` reports the result of one job of an in-memory :class:`JobRunner`,
waiting for the job to finish, but no longer than ``timeout_ms`` **milliseconds**. The
unit is in the name, in the schema's bounds (1000 to 300000, that is 1 s to 5 min) and in
the description's example (``30000`` for 30 seconds); its result fields name their units
too (``elapsed_ms``, ``timeout_ms``). A caller who still thinks in seconds and sends
``30`` is refused by the schema check (``invalid_range``), with a *conditional*
suggestion (``if you meant 30 seconds, send 30000``); one who sends the bare ``timeout``
is told that ``timeout_ms`` is required. Neither waits 30 ms believing it waited 30 s.

The counter-example, a ``timeout`` with no unit that one side reads as seconds and the
other as milliseconds, is written inline in the chapter.

Time is a :class:`FakeClock`: waiting advances it, nothing sleeps, so every figure the
chapter prints (how long the wait lasted, how many polls) is the same on every run.

:data:`JOB_GET_RESULT_EXAMPLES` holds the normal and counter examples that the
description quotes and the tests check against the schema check.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tutorial_lib.core.arguments import ArgumentExample, description_with_examples
from tutorial_lib.core.authorization import local_access
from tutorial_lib.core.contracts import ContractError, Source, json_safe
from tutorial_lib.core.tools import READ_ONLY_LOCAL, ToolSpec

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = [
    "JOB_GET_RESULT_DATA_SCHEMA",
    "JOB_GET_RESULT_EXAMPLES",
    "JOB_GET_RESULT_SCHEMA",
    "JOB_GET_RESULT_SPEC",
    "MAX_TIMEOUT_MS",
    "MIN_TIMEOUT_MS",
    "POLL_INTERVAL_MS",
    "FakeClock",
    "JobRunner",
    "find_job",
    "job_get_result_spec",
    "job_value_error",
    "wait_for_job",
]

TOOL_NAME = "job_get_result"
#: The shortest and the longest wait the tool accepts, in milliseconds (1 s and 5 min).
MIN_TIMEOUT_MS = 1_000
MAX_TIMEOUT_MS = 300_000
#: How often the tool asks the runner whether the job has finished.
POLL_INTERVAL_MS = 500


@dataclass
class FakeClock:
    """Milliseconds since the start; :meth:`sleep_ms` advances them instantly."""

    now_ms: int = 0

    def sleep_ms(self, duration_ms: int) -> None:
        """Let ``duration_ms`` milliseconds pass (at once: nothing really sleeps)."""
        if duration_ms < 0:
            raise ValueError(f"cannot sleep {duration_ms} ms")
        self.now_ms += duration_ms


@dataclass
class JobRunner:
    """Jobs that each finish at a known moment: ``finishes_at_ms`` maps an id to it.

    A job is ``"running"`` until its clock reaches that moment, then ``"succeeded"``.
    ``polls`` counts the status reads (the chapter prints it).
    """

    finishes_at_ms: dict[str, int]
    clock: FakeClock = field(default_factory=FakeClock)
    polls: int = 0

    def status(self, job_id: str) -> str:
        """``"running"`` or ``"succeeded"`` at the clock's current time."""
        self.polls += 1
        return "running" if self.clock.now_ms < self.finishes_at_ms[job_id] else "succeeded"


JOB_GET_RESULT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "job_id": {
            "type": "string",
            "minLength": 1,
            "description": "Id of a job in the job runner, e.g. 'J-1'.",
        },
        "timeout_ms": {
            "type": "integer",
            "minimum": MIN_TIMEOUT_MS,
            "maximum": MAX_TIMEOUT_MS,
            "description": (
                "How long to wait at most for the job to finish, in milliseconds:"
                f" 30000 is 30 seconds. From {MIN_TIMEOUT_MS} (1 s) to {MAX_TIMEOUT_MS}"
                " (5 min)."
            ),
        },
    },
    "required": ["job_id", "timeout_ms"],
    "additionalProperties": False,
}

JOB_GET_RESULT_DATA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "job_id": {"type": "string"},
        "status": {"enum": ["running", "succeeded"]},
        "finished": {"type": "boolean"},
        "elapsed_ms": {"type": "integer", "minimum": 0},
        "timeout_ms": {"type": "integer"},
        "polls": {"type": "integer", "minimum": 1},
    },
    "required": ["job_id", "status", "finished", "elapsed_ms", "timeout_ms", "polls"],
    "additionalProperties": False,
}

_J = "J-1"

#: Normal and counter examples of job_get_result's arguments (schema-level checks only).
JOB_GET_RESULT_EXAMPLES: tuple[ArgumentExample, ...] = (
    ArgumentExample("wait up to 30 s", {"job_id": _J, "timeout_ms": 30_000}, in_description=True),
    ArgumentExample("the shortest wait", {"job_id": _J, "timeout_ms": MIN_TIMEOUT_MS}),
    ArgumentExample("the longest wait", {"job_id": _J, "timeout_ms": MAX_TIMEOUT_MS}),
    ArgumentExample(
        "seconds where milliseconds are meant",
        {"job_id": _J, "timeout_ms": 30},
        "invalid_range",
        "timeout_ms",
        in_description=True,
        note="that is 30 ms; 30 seconds is 30000",
    ),
    ArgumentExample(
        "the name without its unit",
        {"job_id": _J, "timeout": 30},
        "missing_field",
        "timeout_ms",
        in_description=True,
        note="the argument is timeout_ms",
    ),
    ArgumentExample(
        "longer than five minutes",
        {"job_id": _J, "timeout_ms": MAX_TIMEOUT_MS + 1},
        "invalid_range",
        "timeout_ms",
    ),
    ArgumentExample(
        "a number as a string", {"job_id": _J, "timeout_ms": "30000"}, "invalid_type", "timeout_ms"
    ),
    ArgumentExample(
        "a fraction of a millisecond",
        {"job_id": _J, "timeout_ms": 1500.5},
        "invalid_type",
        "timeout_ms",
    ),
    ArgumentExample("the wait missing", {"job_id": _J}, "missing_field", "timeout_ms"),
    ArgumentExample("an empty id", {"job_id": "", "timeout_ms": 30_000}, "invalid_value", "job_id"),
)


def job_value_error(name: str, value: Any, error: ValidationError) -> ContractError:
    """The schema check's wording for job_get_result's value errors.

    A ``timeout_ms`` out of bounds says the unit and the bounds; when the value read as
    seconds would fit (``30`` -> ``30000``), the suggestion says so, as a condition: the
    tool cannot know what the caller meant.
    """
    if name == "timeout_ms":
        expected = f"integer from {MIN_TIMEOUT_MS} to {MAX_TIMEOUT_MS} (milliseconds)"
        if MIN_TIMEOUT_MS <= value * 1000 <= MAX_TIMEOUT_MS:
            suggestion = (
                f"timeout_ms counts milliseconds: if you meant {value} seconds, send {value * 1000}"
            )
        else:
            suggestion = "send a wait from 1000 (1 s) to 300000 (5 min) milliseconds"
        return ContractError(
            "invalid_range",
            f"'timeout_ms' must be an {expected}, got {json_safe(value)!r}",
            field="timeout_ms",
            received=value,
            expected=expected,
            suggestion=suggestion,
        )
    return ContractError(
        "invalid_value",
        f"'{name}' must not be empty; ids look like 'J-1'",
        field=name,
        received=value,
        expected="non-empty string",
    )


def find_job(runner: JobRunner, args: Mapping[str, Any]) -> None:
    """The business check: the job ``args["job_id"]`` exists (a ``not_found`` otherwise)."""
    if args["job_id"] not in runner.finishes_at_ms:
        raise ContractError(
            "not_found",
            f"there is no job {json_safe(args['job_id'])!r} in the job runner",
            field="job_id",
            received=args["job_id"],
            suggestion="look the job up first; ids look like 'J-1'",
        )


def _wait(runner: JobRunner, args: Mapping[str, Any], checked: None) -> dict[str, Any]:
    """Execution: :func:`wait_for_job` with the tool's arguments."""
    return wait_for_job(runner, args["job_id"], args["timeout_ms"])


def wait_for_job(runner: JobRunner, job_id: str, timeout_ms: int) -> dict[str, Any]:
    """Poll every POLL_INTERVAL_MS until the job finishes or ``timeout_ms`` is over: the
    job's id, status, ``finished``, ``elapsed_ms``, ``timeout_ms`` and ``polls``."""
    clock = runner.clock
    started_ms, polls = clock.now_ms, 0
    while True:
        status = runner.status(job_id)
        polls += 1
        waited_ms = clock.now_ms - started_ms
        if status != "running" or waited_ms >= timeout_ms:
            break
        clock.sleep_ms(min(POLL_INTERVAL_MS, timeout_ms - waited_ms))
    return {
        "job_id": job_id,
        "status": status,
        "finished": status != "running",
        "elapsed_ms": waited_ms,
        "timeout_ms": timeout_ms,
        "polls": polls,
    }


def _source(runner: JobRunner, args: Mapping[str, Any], data: dict[str, Any]) -> Source:
    return {"system": "job_runner", "resource": f"jobs/{data['job_id']}"}


_SUMMARY = (
    "Get the result of one job in the job runner, waiting for it to finish for at most"
    " timeout_ms milliseconds (30000 = 30 s). Read-only: it never starts, stops or changes"
    " a job. Returns status (running or succeeded), finished, elapsed_ms and polls; a job"
    " still running when the wait is over comes back with finished false, not as an error."
)

#: job_get_result, declared once (unbound: bind a :class:`JobRunner` with
#: :func:`job_get_result_spec`).
JOB_GET_RESULT_SPEC = ToolSpec(
    name=TOOL_NAME,
    title="Get the result of a job, waiting for it to finish",
    description=description_with_examples(_SUMMARY, JOB_GET_RESULT_EXAMPLES),
    input_schema=JOB_GET_RESULT_SCHEMA,
    output_schema=JOB_GET_RESULT_DATA_SCHEMA,
    annotations=READ_ONLY_LOCAL,
    access=local_access("read", "jobs"),
    check=find_job,
    execute=_wait,
    source=_source,
    value_error=job_value_error,
)


def job_get_result_spec(runner: JobRunner) -> ToolSpec:
    """``job_get_result`` bound to ``runner``: for a registry."""
    return JOB_GET_RESULT_SPEC.bind(runner)
