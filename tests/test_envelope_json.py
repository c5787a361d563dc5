"""The road's strict-JSON check of every envelope (tutorial_lib.core.road._check) refuses
exactly what ``json.dumps(..., allow_nan=False)`` refuses, with json.dumps' own words,
though it no longer writes a large result to know: :func:`surely_json` proves most
results JSON without writing them, and only what it is not sure of is written.

Properties on generated values (JSON and everything json.dumps meets in a bug: sets, bytes,
tuples, NaN, infinities, unprintable ints, keys of every type, subclasses, records that
differ in one value among many), then the cases a generator hardly reaches: circular and
shared structures, nesting near the recursion limit, the int digit limit."""

from __future__ import annotations

import enum
import json
import math
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tutorial_lib.core.contracts import SURELY_JSON_DEPTH, success, surely_json
from tutorial_lib.core.host import Host
from tutorial_lib.core.road import MalformedEnvelope, _check
from tutorial_lib.core.tools import Registry, ToolSpec

TOOL = "fake_tool"
BIG = 10**4300  # the first int Python refuses to print (default limit: 4300 digits)


class Level(enum.IntEnum):
    LOW = 1


class Name(str):
    """A str subclass: json.dumps writes it (as a value and as a key)."""


class Ratio(float):
    """A float subclass: json.dumps writes it."""


def refusal(value: Any) -> str | None:
    """json.dumps' verdict on ``value`` as data: None if it writes it, else its words.

    Called as the road always called it: without the circular-reference bookkeeping, so a
    circular value is refused for its depth (the same values are refused either way)."""
    envelope = success(TOOL, {"x": value})
    try:
        json.dumps(envelope, allow_nan=False, check_circular=False)
    except (TypeError, ValueError, RecursionError) as exc:
        with pytest.raises((TypeError, ValueError, RecursionError)):
            json.dumps(envelope, allow_nan=False)
        return str(exc)
    json.dumps(envelope, allow_nan=False)
    return None


def assert_the_check_agrees(value: Any) -> None:
    """The road's check accepts ``value`` (as data) iff json.dumps does, and refuses it in
    the same words as before: '<tool> returned an envelope that is not JSON: <reason>'."""
    expected = refusal(value)
    envelope = success(TOOL, {"x": value})
    if expected is None:
        _check(envelope, TOOL)
        return
    with pytest.raises(MalformedEnvelope) as caught:
        _check(envelope, TOOL)
    assert str(caught.value) == f"{TOOL} returned an envelope that is not JSON: {expected}"
    assert caught.value.station == "envelope_check"


# --------------------------------------------------------------------------- generated values

# any code point, lone surrogates included (json.dumps writes them, escaped)
TEXT = st.text(st.characters(exclude_categories=()), max_size=8)
# (a strategy's repr, and hypothesis' report of an example, print their ints: the ones
# of 4300 digits or more are made by map, never written in a strategy)
JSON_NUMBERS = st.one_of(
    st.integers(),
    st.integers(-(2**14270), 2**14270),  # up to 4296 digits
    st.sampled_from([-2, -1]).map(lambda d: BIG + d),  # 4300 digits: the largest printable
    st.floats(allow_nan=False, allow_infinity=False),
)
JSON_ATOMS = st.one_of(st.none(), st.booleans(), TEXT, JSON_NUMBERS)
#: What json.dumps refuses, or writes only by converting it.
ODD_ATOMS = st.one_of(
    st.sampled_from([math.nan, -math.inf, math.inf]),
    st.sampled_from([1, -1, 10]).map(lambda k: k * BIG),  # 4301 digits or more
    st.binary(max_size=3),
    st.frozensets(st.integers(), max_size=2),
    st.sets(st.integers(), max_size=2),
    st.complex_numbers(max_magnitude=10),
    st.builds(object),
    st.just(Level.LOW),
    st.builds(Name, TEXT),
    st.builds(Ratio, st.floats()),
    st.builds(int),  # 0, an ordinary int
)
ODD_KEYS = st.one_of(
    st.integers(),
    st.floats(),  # NaN and infinities included: refused as keys too
    st.none(),
    st.booleans(),
    st.tuples(st.integers()),
    st.frozensets(st.integers(), max_size=2),
    st.builds(Name, TEXT),
    st.binary(max_size=2),
)


def json_values(
    atoms: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]
) -> st.SearchStrategy[Any]:
    """Nested lists and dicts (and tuples, when ``atoms`` may be odd) of ``atoms``."""
    return st.recursive(
        atoms,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(keys, inner, max_size=4),
        ),
        max_leaves=20,
    )


def records(
    inner: st.SearchStrategy[Any], keys: st.SearchStrategy[Any] = TEXT
) -> st.SearchStrategy[list[dict[Any, Any]]]:
    """Eight or more dicts of mostly the same keys, the shape of search candidates (the
    check takes them a key at a time): one of them has one more item, ``keys: inner``."""
    base = st.fixed_dictionaries(
        {"path": TEXT, "line": st.integers(1, 10**6)},
        optional={"preview": TEXT, "cut": st.just(True)},
    )
    return st.tuples(
        st.lists(base, min_size=8, max_size=12),
        st.integers(0, 11),
        keys,
        inner,
    ).map(_one_differs)


def _one_differs(drawn: tuple[list[dict[Any, Any]], int, Any, Any]) -> list[dict[Any, Any]]:
    rows, index, key, value = drawn
    rows[index % len(rows)][key] = value
    return rows


STRICT_JSON = json_values(JSON_ATOMS, TEXT)
ANYTHING = st.one_of(
    json_values(st.one_of(JSON_ATOMS, ODD_ATOMS), st.one_of(TEXT, ODD_KEYS)),
    st.tuples(JSON_ATOMS, JSON_ATOMS),
    records(st.one_of(JSON_ATOMS, ODD_ATOMS, STRICT_JSON), st.one_of(TEXT, ODD_KEYS)),
)
PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(value=ANYTHING)
def test_the_check_refuses_exactly_what_json_dumps_refuses_in_its_words(value: Any) -> None:
    assert_the_check_agrees(value)


@PROPERTY
@given(value=ANYTHING)
def test_surely_json_is_only_said_of_what_json_dumps_writes(value: Any) -> None:
    if surely_json(value):
        json.dumps(value, allow_nan=False)


@PROPERTY
@given(value=st.one_of(STRICT_JSON, records(STRICT_JSON)))
def test_plain_json_is_proved_without_writing_it(value: Any) -> None:
    # the fast answer for what tools return: json.dumps is not asked
    assert surely_json(value)
    assert surely_json(success(TOOL, {"x": value}))


# --------------------------------------------------------------------------- hand-picked


def circular_list() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


def circular_dict() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    return loop


def doubling_circle() -> list[Any]:
    """A list holding itself twice: every level of it is twice as wide as the one above."""
    loop: list[Any] = []
    loop.extend([loop, loop])
    return loop


def circular_records() -> list[dict[str, Any]]:
    """Records whose every column leads back to all the records."""
    rows: list[dict[str, Any]] = [{} for _ in range(10)]
    for row in rows:
        row["a"] = rows
        row["b"] = rows
    return rows


@pytest.mark.parametrize(
    "make",
    [circular_list, circular_dict, doubling_circle, circular_records],
    ids=lambda f: f.__name__,
)
def test_a_circular_result_is_refused_as_before_and_at_once(make: Callable[[], Any]) -> None:
    value = make()
    assert not surely_json(value)
    assert_the_check_agrees(value)  # json.dumps: "maximum recursion depth exceeded ..."


def test_shared_parts_are_json_and_accepted() -> None:
    shared = {"k": [1, 2.5, "x"]}
    value = {"a": shared, "b": [shared, shared], "rows": [shared] * 20}
    assert refusal(value) is None
    assert surely_json(value)
    assert_the_check_agrees(value)


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [SURELY_JSON_DEPTH - 1, SURELY_JSON_DEPTH + 1, 500, 2000])
def test_deep_nesting_is_judged_by_json_dumps(depth: int) -> None:
    assert surely_json(nested(depth)) == (depth <= SURELY_JSON_DEPTH)
    assert_the_check_agrees(nested(depth))


def at_stack_depth(frames: int, then: Callable[[], Any]) -> Any:
    """``then()`` called with ``frames`` more frames on the stack."""
    return then() if frames == 0 else at_stack_depth(frames - 1, then)


def stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1  # type: ignore[assignment]
    return depth


@pytest.mark.parametrize("room", [10, 30, 45, 60, 80, 150])
def test_nesting_json_dumps_cannot_reach_from_a_deep_stack_is_never_sure(room: int) -> None:
    """json.dumps recurses once per level, within Python's recursion limit: from a deep
    stack even a shallow value fails. surely_json, asked from the same frame, never says
    sure of what json.dumps would then refuse (the road asks both from one frame)."""
    value = nested(30)
    frames = sys.getrecursionlimit() - stack_depth() - room
    surely, written = at_stack_depth(frames, lambda: both_verdicts(value))
    assert written or not surely
    if room == 150:  # an ordinary stack: sure, without json.dumps
        assert surely and written


def both_verdicts(value: Any) -> tuple[bool | None, bool]:
    """(surely_json's answer, None if it could not even start; whether json.dumps wrote
    ``value``), both asked from this frame."""
    try:
        surely: bool | None = surely_json(value)
    except RecursionError:
        surely = None
    try:
        json.dumps(value, allow_nan=False, check_circular=False)
    except RecursionError:
        return surely, False
    return surely, True


@pytest.fixture()
def no_int_limit() -> Iterator[None]:
    get_limit = getattr(sys, "get_int_max_str_digits", None)
    if get_limit is None:
        pytest.skip("this Python has no limit on the digits of an int")
    before = get_limit()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


@pytest.mark.parametrize(
    "number",
    [BIG - 1, -(BIG - 1), BIG, -BIG, [1, BIG]],
    ids=["4300_digits", "minus_4300_digits", "4301_digits", "minus_4301_digits", "in_a_list"],
)
def test_the_int_digit_limit_is_json_dumps_own(number: Any) -> None:
    assert_the_check_agrees(number)


@pytest.mark.usefixtures("no_int_limit")
def test_without_a_digit_limit_every_int_is_written() -> None:
    assert surely_json([BIG * 10, -BIG])
    assert_the_check_agrees([BIG * 10, -BIG])


def candidates(count: int) -> list[dict[str, Any]]:
    """Search candidates, as search_files returns them."""
    return [
        {
            "path": f"pkg/m{i // 7}.py",
            "line": i + 1,
            "preview": f"import x{i}",
            **({"preview_truncated": True} if i % 13 == 0 else {}),
            "next_call": {
                "name": "read_lines",
                "arguments": {"path": f"pkg/m{i // 7}.py", "start": max(1, i - 1), "count": 5},
            },
        }
        for i in range(count)
    ]


@pytest.mark.parametrize(
    ("where", "bad"),
    [
        (("preview",), math.nan),
        (("line",), BIG),
        (("next_call", "arguments", "start"), b"3"),
        (("next_call", "arguments"), {(1, 2): 3}),
        (("next_call", "name"), {"read_lines"}),
        (("next_call",), (1, 2)),  # a tuple: written as a list
        (("path",), Name("pkg/m.py")),
        (("line",), Level.LOW),
        (("next_call", "arguments"), {1: "int keys are written as strings"}),
    ],
    ids=[
        "nan",
        "big_int",
        "bytes",
        "tuple_key",
        "set",
        "tuple",
        "str_subclass",
        "int_enum",
        "int_key",
    ],
)
def test_one_odd_value_among_thousands_of_candidates_is_judged_as_json_dumps_does(
    where: tuple[str, ...], bad: Any
) -> None:
    rows = candidates(5000)
    target: dict[str, Any] = rows[3217]
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = bad
    # a subclass of str or int in a column of them is written as one: proved at once
    assert surely_json(rows) == isinstance(bad, (Name, Level))
    assert_the_check_agrees(rows)


def test_thousands_of_candidates_are_proved_json_without_writing_them() -> None:
    rows = candidates(5000)
    assert surely_json(success("search_files", {"candidates": rows}))


# --------------------------------------------------------------------------- on the road


def returning(data: Any) -> ToolSpec:
    def execute(context: Any, args: Mapping[str, Any], checked: Any) -> Any:
        return data

    return ToolSpec(TOOL, "Fake", "A fake tool for tests.", {"type": "object"}, execute=execute)


@pytest.mark.parametrize(
    "data",
    [
        {"rows": candidates(300)},
        {"x": (1, "tuple")},
        {"x": {7: "an int key"}},
        {"x": Level.LOW},
    ],
    ids=["candidates", "tuple", "int_key", "int_enum"],
)
def test_what_json_dumps_writes_travels_the_road(data: dict[str, Any]) -> None:
    host = Host(Registry([returning(data)]), unguarded=True)
    assert host.call(TOOL, {})["data"] is data
    assert host.log[-1].outcome == "ok"


@pytest.mark.parametrize(
    "data",
    [{"rows": [*candidates(300), {"x": math.inf}]}, {"x": circular_list()}, {"x": {(1,): 2}}],
    ids=["infinity", "circular", "tuple_key"],
)
def test_what_json_dumps_refuses_is_a_malformed_envelope_on_the_road(data: dict[str, Any]) -> None:
    host = Host(Registry([returning(data)]), unguarded=True)
    with pytest.raises(MalformedEnvelope, match="returned an envelope that is not JSON"):
        host.call(TOOL, {})
    assert (host.log[-1].outcome, host.log[-1].station) == ("bug", "envelope_check")
