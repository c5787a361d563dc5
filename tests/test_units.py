"""Chapter 03's units example: job_get_result, whose wait is timeout_ms, on the road."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tutorial_lib.core.contracts import ENVELOPE_SCHEMA
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry
from tutorial_lib.design.lint import lint
from tutorial_lib.examples.units import (
    JOB_GET_RESULT_DATA_SCHEMA,
    JOB_GET_RESULT_EXAMPLES,
    JOB_GET_RESULT_SPEC,
    MAX_TIMEOUT_MS,
    MIN_TIMEOUT_MS,
    POLL_INTERVAL_MS,
    FakeClock,
    JobRunner,
    job_get_result_spec,
)

ENVELOPE = Draft202012Validator(ENVELOPE_SCHEMA)
DATA = Draft202012Validator(JOB_GET_RESULT_DATA_SCHEMA)


def call(args: Any, finishes_at_ms: int = 12_000) -> tuple[dict[str, Any], JobRunner]:
    runner = JobRunner({"J-1": finishes_at_ms})
    result = Host(Registry([job_get_result_spec(runner)])).call("job_get_result", args)
    assert ENVELOPE.is_valid(result), result
    return dict(result), runner


@pytest.mark.parametrize("example", JOB_GET_RESULT_EXAMPLES, ids=lambda e: e.name)
def test_every_example_gets_its_stated_verdict(example: Any) -> None:
    result, runner = call(example.args)
    if example.code is None:
        assert result["ok"] is True
    else:
        assert (result["error"]["code"], result["error"].get("field")) == example.verdict
        assert runner.polls == 0  # refused before the runner was asked anything


def test_the_description_quotes_the_examples_marked_for_it() -> None:
    description = JOB_GET_RESULT_SPEC.description
    assert 'Example: {"job_id": "J-1", "timeout_ms": 30000}' in description
    assert 'Not: {"job_id": "J-1", "timeout_ms": 30} (that is 30 ms; 30 seconds is 30000)' in (
        description
    )
    assert "timeout_ms milliseconds (30000 = 30 s)" in description


def test_the_schema_states_the_unit_and_its_bounds() -> None:
    timeout = JOB_GET_RESULT_SPEC.input_schema["properties"]["timeout_ms"]
    assert (timeout["minimum"], timeout["maximum"]) == (MIN_TIMEOUT_MS, MAX_TIMEOUT_MS)
    assert "in milliseconds" in timeout["description"] and "30000" in timeout["description"]
    assert JOB_GET_RESULT_SPEC.input_schema["additionalProperties"] is False


def test_the_tool_passes_the_linter_clean() -> None:
    assert lint([JOB_GET_RESULT_SPEC]) == []


def test_a_wait_long_enough_returns_when_the_job_finishes() -> None:
    result, runner = call({"job_id": "J-1", "timeout_ms": 30_000})
    assert result["source"] == {"system": "job_runner", "resource": "jobs/J-1"}
    assert result["data"] == {
        "job_id": "J-1",
        "status": "succeeded",
        "finished": True,
        "elapsed_ms": 12_000,
        "timeout_ms": 30_000,
        "polls": 12_000 // POLL_INTERVAL_MS + 1,
    }
    assert runner.clock.now_ms == 12_000
    assert DATA.is_valid(result["data"])


def test_a_wait_too_short_says_finished_false_and_waits_exactly_timeout_ms() -> None:
    result, runner = call({"job_id": "J-1", "timeout_ms": 1_200})
    data = result["data"]
    assert result["ok"] is True
    assert (data["status"], data["finished"], data["elapsed_ms"]) == ("running", False, 1_200)
    assert data["polls"] == 4  # at 0, 500, 1000 and 1200 ms: the last wait is cut short
    assert runner.clock.now_ms == 1_200
    assert DATA.is_valid(data)


def test_seconds_sent_as_milliseconds_get_a_conditional_suggestion() -> None:
    result, _ = call({"job_id": "J-1", "timeout_ms": 30})
    error = result["error"]
    assert error["code"] == "invalid_range" and error["received"] == 30
    assert error["expected"] == "integer from 1000 to 300000 (milliseconds)"
    assert error["suggestion"] == (
        "timeout_ms counts milliseconds: if you meant 30 seconds, send 30000"
    )
    assert error["operation_state"] == "not_applied"


@pytest.mark.parametrize("value", [0, -5, 301, 10_000_000, MAX_TIMEOUT_MS + 1])
def test_a_value_that_is_no_number_of_seconds_in_range_gets_the_bounds(value: int) -> None:
    error = call({"job_id": "J-1", "timeout_ms": value})[0]["error"]
    assert error["code"] == "invalid_range"
    assert error["suggestion"] == "send a wait from 1000 (1 s) to 300000 (5 min) milliseconds"


def test_an_unknown_job_is_not_found_before_any_wait() -> None:
    result, runner = call({"job_id": "J-9", "timeout_ms": 30_000})
    assert result["error"]["code"] == "not_found" and result["error"]["field"] == "job_id"
    assert runner.polls == 0 and runner.clock.now_ms == 0


def test_the_fake_clock_refuses_to_go_back() -> None:
    clock = FakeClock()
    clock.sleep_ms(250)
    assert clock.now_ms == 250
    with pytest.raises(ValueError, match="cannot sleep"):
        clock.sleep_ms(-1)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=6,
)
arguments = json_values | st.fixed_dictionaries(
    {},
    optional={
        "job_id": st.sampled_from(["J-1", "J-2", ""]) | json_values,
        "timeout_ms": st.integers(-10, 400_000) | json_values,
        "timeout": st.integers(0, 100),
    },
)


@settings(max_examples=300, deadline=None)
@given(args=arguments, finishes_at_ms=st.integers(0, 400_000))
def test_arbitrary_arguments_give_a_valid_envelope_and_an_honest_wait(
    args: Any, finishes_at_ms: int
) -> None:
    result, runner = call(args, finishes_at_ms)
    if not result["ok"]:
        assert "source" not in result and runner.clock.now_ms == 0
        return
    data = result["data"]
    assert DATA.is_valid(data)
    assert data["elapsed_ms"] == runner.clock.now_ms <= data["timeout_ms"]
    assert data["finished"] == (finishes_at_ms <= data["elapsed_ms"])
    if not data["finished"]:
        assert data["elapsed_ms"] == data["timeout_ms"]
