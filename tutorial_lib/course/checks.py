"""Learner checks: run a named table of cases against a learner's function.

Every exercise ends with ``check(my_function, CASES)``. The checker prints one line per
case, and for a failing case what went in, what was expected, what came back and a hint.
It never lets a learner's bug escape as a traceback and never hangs: exceptions, wrong
types, ``None`` and infinite loops (a per-case time limit) all become report lines.

A failing case's report names the place that differs (``['field']``), says a missing key
is missing (never "None"), lists every difference rather than the first one only, and
shows the whole input. :func:`check_hidden` runs generated cases (an exercise's hidden
tests: the learner's function against the library's reference) and raises on a mismatch,
as an autograder expects.

The output is deterministic (no timings, no memory addresses), so nbval can compare it.
"""

from __future__ import annotations

import copy
import math
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tutorial_lib.core.display import visible
from tutorial_lib.course.time_limit import TimeLimit
from tutorial_lib.language import Text, tr

__all__ = [
    "MISSING",
    "NOT_IMPLEMENTED_VERDICT",
    "Case",
    "CaseResult",
    "CheckReport",
    "check",
    "check_hidden",
    "describe",
    "describe_whole",
    "differences",
    "first_difference",
    "run_cases",
]

Status = Literal["pass", "fail", "error", "timeout", "not_implemented"]

#: The line a check prints while the exercise still holds nbgrader's stub (``str()`` of it
#: is the current language's text).
NOT_IMPLEMENTED_VERDICT = Text(zh="尚未实现 (not implemented yet)", en="not implemented yet")

_MARKS: dict[Status, str] = {
    "pass": "✓",
    "fail": "✗",
    "error": "✗",
    "timeout": "⏱",
    "not_implemented": "…",
}
_MAX_REPR = 160
#: A failing case lists at most this many differences, then says how many more there are.
_MAX_DIFFERENCES = 20
#: In a whole input, a string longer than this shows its start and its length.
_LONG_TEXT = 60
#: The whole rendering of one value stops here (a safety net, never reached by the tables).
_MAX_WHOLE = 2000


class _Missing:
    """The type of :data:`MISSING`."""

    def __repr__(self) -> str:
        return tr("<缺少>", "<missing>")

    def __deepcopy__(self, memo: dict[int, Any]) -> _Missing:
        return self


#: What a ``key`` function puts where the learner's result has no such key
#: (``result.get(name, MISSING)``), so the report says "missing", not "None".
MISSING: Any = _Missing()


@dataclass(frozen=True)
class Case:
    """One row of a case table: a name, the call's arguments, the expected value, a hint.

    ``args`` are passed positionally and ``kwargs`` by name. Both are deep-copied before
    each call: a function that mutates its input cannot change later cases.
    ``hint`` is shown only when the case fails: name the rule it tests, not the answer.
    ``key`` (optional) maps this case's return value to what is compared, instead of the
    ``key`` given to :func:`check`. ``via`` (optional) makes the call: ``via(function,
    *args, **kwargs)`` instead of ``function(*args, **kwargs)``, for a case that needs two
    calls; ``shown_call`` then says what it does (``{function}`` stands for the name).
    """

    name: str | Text
    args: tuple[Any, ...] = ()
    expected: Any = None
    hint: str | Text = ""
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    key: Callable[[Any], Any] | None = None
    via: Callable[..., Any] | None = None
    shown_call: str | Text = ""

    def call_text(self, function_name: str) -> str:
        """The call as a learner would type it, e.g. ``line_at(['a'], 0)``: the whole input."""
        if self.shown_call:
            return str(self.shown_call).replace("{function}", function_name)
        parts = [describe_whole(a) for a in self.args]
        parts += [f"{k}={describe_whole(v)}" for k, v in self.kwargs.items()]
        return f"{function_name}({', '.join(parts)})"


@dataclass(frozen=True)
class CaseResult:
    """What happened to one case: its status and, when it did not pass, why."""

    case: Case
    status: Status
    got: str = ""
    detail: str = ""
    #: Every difference found (``detail`` is the first), in the order they were found.
    all_details: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "pass"


@dataclass(frozen=True)
class CheckReport:
    """All case results of one ``check`` run, with the text it prints."""

    function_name: str
    results: tuple[CaseResult, ...]
    time_limit_s: float

    @property
    def passed(self) -> int:
        """How many cases passed."""
        return sum(r.passed for r in self.results)

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def all_passed(self) -> bool:
        return self.total > 0 and self.passed == self.total

    @property
    def not_implemented(self) -> bool:
        """True while the function still raises ``NotImplementedError`` (the exercise stub)."""
        return any(r.status == "not_implemented" for r in self.results)

    def lines(self) -> list[str]:
        """The report, one string per printed line."""
        name = self.function_name
        cases = "case" if self.total == 1 else "cases"
        out = [tr(f"检查 {name}：{self.total} 个用例", f"Checking {name}: {self.total} {cases}")]
        if self.not_implemented:
            out.append(f"  {_MARKS['not_implemented']} {NOT_IMPLEMENTED_VERDICT}")
            out.append(
                tr(
                    f"    {name} 还在抛出 NotImplementedError：把 `raise NotImplementedError()`"
                    " 换成你的代码，再运行这个单元。",
                    f"    {name} still raises NotImplementedError: replace"
                    " `raise NotImplementedError()` with your code, then run this cell again.",
                )
            )
            return out
        for result in self.results:
            out.append(f"  {_MARKS[result.status]} {result.case.name}")
            if result.passed:
                continue
            call = result.case.call_text(name)
            out.append(tr(f"      调用：{call}", f"      Call: {call}"))
            if result.status == "fail":
                expected = describe_whole(result.case.expected)
                out.append(tr(f"      期望：{expected}", f"      Expected: {expected}"))
                out.append(tr(f"      实际：{result.got}", f"      Got: {result.got}"))
                details = result.all_details or ((result.detail,) if result.detail else ())
                if len(details) == 1:
                    out.append(tr(f"      差异：{details[0]}", f"      Difference: {details[0]}"))
                elif details:
                    count = len(details)
                    out.append(tr(f"      差异（{count} 处）：", f"      Differences ({count}):"))
                    out += [f"        - {line}" for line in details]
            elif result.status == "error":
                out.append(tr(f"      异常：{result.got}", f"      Exception: {result.got}"))
            else:
                limit = f"{self.time_limit_s:g}"
                out.append(
                    tr(
                        f"      超过 {limit} 秒仍未返回，已中止（死循环？）",
                        f"      No return after {limit} s: stopped (an infinite loop?)",
                    )
                )
            hint = str(result.case.hint)
            if hint:
                out.append(tr(f"      提示：{hint}", f"      Hint: {hint}"))
        score = f"{self.passed}/{self.total}"
        if self.all_passed:
            out.append(
                tr(f"结果：{score} 通过，全部正确。", f"Result: {score} passed, all correct.")
            )
        else:
            out.append(
                tr(
                    f"结果：{score} 通过。先看第一个 ✗，修好再运行。",
                    f"Result: {score} passed. Start with the first ✗: fix it, then run again.",
                )
            )
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


def check(
    function: Callable[..., Any],
    cases: Sequence[Case],
    *,
    key: Callable[[Any], Any] | None = None,
    time_limit_s: float = 1.0,
) -> None:
    """Run ``cases`` against ``function`` and print one line per case plus a summary.

    ``key`` (optional) maps the function's return value to what the table compares, e.g.
    ``key=lambda result: result["error"]["code"]``. A ``key`` that fails on a malformed
    return value is reported as a failing case, not raised.
    Use :func:`run_cases` to get the report as a value instead of printed text.
    """
    print(run_cases(function, cases, key=key, time_limit_s=time_limit_s))


def run_cases(
    function: Callable[..., Any],
    cases: Sequence[Case],
    *,
    key: Callable[[Any], Any] | None = None,
    time_limit_s: float = 1.0,
) -> CheckReport:
    """Run ``cases`` against ``function`` and return a :class:`CheckReport` (prints nothing)."""
    if not callable(function):
        raise TypeError(f"check() needs a function, got {describe(function)}")
    if not cases:
        raise ValueError("check() needs at least one Case")
    if not time_limit_s > 0:
        raise ValueError(f"time_limit_s must be > 0, got {time_limit_s!r}")
    name = getattr(function, "__name__", type(function).__name__)
    results = tuple(_run_one(function, case, key, time_limit_s) for case in cases)
    return CheckReport(function_name=name, results=results, time_limit_s=time_limit_s)


def check_hidden(
    function: Callable[..., Any],
    cases: Sequence[Case],
    *,
    key: Callable[[Any], Any] | None = None,
    time_limit_s: float = 1.0,
    stop_after: int = 3,
) -> None:
    """Hidden tests: run generated ``cases`` and raise ``AssertionError`` on any failure.

    The cases come from a generator that computed each expected value with the library's
    reference, so a function written for the visible cases only fails here. On success
    it prints one line; on failure the report of the first ``stop_after`` failing cases
    (later cases are not run: a looping function would otherwise cost a second per case)
    and raises, so nbgrader's autograder marks the cell as failed. A function that still
    raises ``NotImplementedError`` raises it again.
    """
    if not callable(function):
        raise TypeError(f"check_hidden() needs a function, got {describe(function)}")
    if not cases:
        raise ValueError("check_hidden() needs at least one Case")
    name = getattr(function, "__name__", type(function).__name__)
    failed: list[CaseResult] = []
    ran = 0
    for case in cases:
        result = _run_one(function, case, key, time_limit_s)
        ran += 1
        if result.status == "not_implemented":
            raise NotImplementedError(f"{name} is not implemented yet")
        if not result.passed:
            failed.append(result)
            if len(failed) >= stop_after:
                break
    if not failed:
        print(
            tr(
                f"隐藏测试 {name}：{ran} 个生成的输入，结果都与参考实现一致。",
                f"Hidden tests {name}: {ran} generated {_inputs(ran)}, all results match the"
                " reference implementation.",
            )
        )
        return
    report = CheckReport(name, tuple(failed), time_limit_s)
    lines = report.lines()[1:-1]  # the failing cases only, without header and summary
    skipped = len(cases) - ran
    later = tr(f"，其余 {skipped} 个未运行", f"; {skipped} more not run") if skipped else ""
    print(
        tr(
            f"隐藏测试 {name}：与参考实现不一致（运行了 {ran} 个生成的输入{later}）",
            f"Hidden tests {name}: results differ from the reference implementation"
            f" ({ran} generated {_inputs(ran)} run{later})",
        )
    )
    print("\n".join(lines))
    raise AssertionError(
        f"{name}: {len(failed)} of {ran} generated inputs differ from the reference"
    )


def _inputs(count: int) -> str:
    return "input" if count == 1 else "inputs"


def _run_one(
    function: Callable[..., Any],
    case: Case,
    key: Callable[[Any], Any] | None,
    limit_s: float,
) -> CaseResult:
    args = copy.deepcopy(case.args)
    kwargs = copy.deepcopy(dict(case.kwargs))
    key = case.key if case.key is not None else key
    try:
        with _time_limit(limit_s):
            if case.via is not None:
                value = case.via(function, *args, **kwargs)
            else:
                value = function(*args, **kwargs)
    except _CaseTimeout:
        return CaseResult(case, "timeout")
    except NotImplementedError:
        return CaseResult(case, "not_implemented")
    except KeyboardInterrupt:
        raise  # the learner pressed stop: respect it
    except BaseException as exc:  # noqa: BLE001 - a learner's bug must become a report line
        return CaseResult(case, "error", got=_describe_exception(exc))
    if key is not None:
        try:
            value = key(value)
        except Exception as exc:  # noqa: BLE001
            return CaseResult(
                case,
                "fail",
                got=describe_whole(value),
                detail=tr(
                    f"返回值的形状不对，无法取出要比较的部分（{_describe_exception(exc)}）",
                    "the return value has the wrong shape: the part to compare cannot be taken"
                    f" from it ({_describe_exception(exc)})",
                ),
            )
    found = differences(case.expected, value)
    if not found:
        return CaseResult(case, "pass")
    # For two plain values of the same type, "expected X, got Y" already says it all.
    same_scalar_type = type(case.expected) is type(value) and not isinstance(
        value, (Mapping, list, tuple)
    )
    if same_scalar_type:
        return CaseResult(case, "fail", got=describe_whole(value))
    if len(found) > _MAX_DIFFERENCES:
        more = len(found) - _MAX_DIFFERENCES
        found = [
            *found[:_MAX_DIFFERENCES],
            tr(f"……另外还有 {more} 处不同", f"… and {more} more differences"),
        ]
    return CaseResult(
        case, "fail", got=describe_whole(value), detail=found[0], all_details=tuple(found)
    )


def first_difference(expected: Any, got: Any, where: str = "") -> str | None:
    """The first entry of :func:`differences`, or None if the two values are equal."""
    found = differences(expected, got, where)
    return found[0] if found else None


def differences(expected: Any, got: Any, where: str = "") -> list[str]:
    """Every place where ``got`` differs from ``expected`` (``[]`` if they are equal).

    Stricter than ``==``: ``True`` is not ``1``, ``1.0`` is not ``1``, a tuple is not a
    list. That strictness is the point: a tool contract that says "integer" means it.
    Each entry names the place (``在 ['field'] 处``); a key that is absent, or marked
    :data:`MISSING` by a ``key`` function, is reported as missing, not as a value.
    """
    at = tr(f"在 {where} 处：", f"at {where}: ") if where else ""
    if got is MISSING and expected is not MISSING:
        should = describe(expected)
        return [
            tr(f"{at}缺少这个键（应为 {should}）", f"{at}this key is missing (should be {should})")
        ]
    if type(expected) is not type(got) and not (
        isinstance(expected, Mapping) and isinstance(got, Mapping)
    ):
        want, have = type(expected).__name__, type(got).__name__
        return [
            tr(
                f"{at}类型不同：期望 {want}，实际 {have}",
                f"{at}wrong type: expected {want}, got {have}",
            )
        ]
    if isinstance(expected, Mapping):
        found: list[str] = []
        for k in expected:
            if k not in got:
                key, should = describe(k), describe(expected[k])
                found.append(
                    tr(
                        f"{at}缺少键 {key}（应为 {should}）",
                        f"{at}missing key {key} (should be {should})",
                    )
                )
            else:
                found += differences(expected[k], got[k], f"{where}[{_key_repr(k)}]")
        for k in got:
            if k not in expected:
                key, value = describe(k), describe(got[k])
                found.append(
                    tr(
                        f"{at}多出键 {key}（值为 {value}）",
                        f"{at}extra key {key} (its value: {value})",
                    )
                )
        return found
    if isinstance(expected, (list, tuple)):
        # Item by item first (each differing item is a useful hint), then the lengths.
        found = []
        for i, (e, g) in enumerate(zip(expected, got, strict=False)):
            found += differences(e, g, f"{where}[{i}]")
        if len(expected) != len(got):
            items, had = len(expected), len(got)
            found.append(
                tr(
                    f"{at}长度不同：期望 {items} 项，实际 {had} 项",
                    f"{at}wrong length: expected {items} items, got {had}",
                )
            )
        return found
    if isinstance(expected, float) and math.isnan(expected) and math.isnan(got):
        return []
    if expected != got:
        want, have = describe(expected), describe(got)
        return [tr(f"{at}期望 {want}，实际 {have}", f"{at}expected {want}, got {have}")]
    return []


def _key_repr(key: Any) -> str:
    """A mapping key as the place of a difference shows it (a :class:`Text` as its text)."""
    return repr(str(key)) if isinstance(key, Text) else repr(key)


def describe(value: Any) -> str:
    """A short, deterministic repr: memory addresses and temp dirs hidden, long values cut.

    A path inside a fresh temporary directory prints as ``<tmp>/...``: the random part
    would change on every run (and leak a machine path into the notebook). A
    :class:`~tutorial_lib.language.Text` shows as its text in the current language.
    A character that would hide or reorder the text shows as ``[U+XXXX]``.
    """
    if isinstance(value, Text):
        value = str(value)
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - a learner's broken __repr__
        text = f"<{type(value).__name__} whose repr raised {type(exc).__name__}>"
    text = _ADDRESS.sub("", text)
    text = _TEMP_DIR.sub("<tmp>", text)
    # repr escapes most hidden characters; a blank filler letter (U+3164) it prints as is
    text = visible(text, keep="")
    if len(text) > _MAX_REPR:
        text = text[: _MAX_REPR - 1] + "…"
    return text


def describe_whole(value: Any) -> str:
    """The whole value, deterministic: containers in full, only long strings shortened.

    A failing case must show its entire input (a cut-off dict hides the field that
    matters), but a 4,097-character path would drown the report: a string longer than
    60 characters shows its start and its length. Leaves go through :func:`describe`.
    """
    text = _whole(value)
    if len(text) > _MAX_WHOLE:
        text = text[: _MAX_WHOLE - 1] + "…"
    return text


def _whole(value: Any) -> str:
    if isinstance(value, Text):
        value = str(value)
    if isinstance(value, str) and len(value) > _LONG_TEXT:
        start, size = describe(value[:24]), len(value)
        return tr(
            f"{start[:-1]}…{start[-1]}（共 {size} 个字符）",
            f"{start[:-1]}…{start[-1]} ({size} characters)",
        )
    if type(value) is dict:
        items = ", ".join(f"{_whole(k)}: {_whole(v)}" for k, v in value.items())
        return "{" + items + "}"
    if type(value) is list:
        return "[" + ", ".join(_whole(v) for v in value) + "]"
    if type(value) is tuple:
        inner = ", ".join(_whole(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return describe(value)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# "<tempdir>/<one random name>" as made by tempfile.mkdtemp / TemporaryDirectory
_TEMP_DIR = re.compile(re.escape(tempfile.gettempdir()) + r"/[^/'\"\s)]+")


def _describe_exception(exc: BaseException) -> str:
    message = describe(str(exc)) if str(exc) else ""
    return f"{type(exc).__name__}: {message[1:-1]}" if message else type(exc).__name__


class _CaseTimeout(BaseException):
    """Raised inside the learner's function when its time is up.

    A BaseException, so a learner's ``except Exception`` cannot swallow it.
    """


#: With the signal, the stop fires again this often after the first: a bare ``except:``
#: inside the learner's loop only delays it.
_REFIRE_S = 0.05


def _time_limit(limit_s: float) -> TimeLimit:
    """Interrupt the learner's function after ``limit_s`` seconds.

    The core limiter (:class:`~tutorial_lib.course.time_limit.TimeLimit`) with the checks'
    policy: in the main thread (a Jupyter kernel, pytest) SIGALRM raises
    ``_CaseTimeout`` and re-fires every 50 ms; elsewhere (other threads, Windows) a
    watchdog injects it. One bug no in-process limit can stop: a loop that swallows
    *every* exception (a bare ``except:`` around its body). The kernel's restart button
    remains for that.
    """
    return TimeLimit(limit_s, _CaseTimeout, refire_s=_REFIRE_S, other_threads="inject")
