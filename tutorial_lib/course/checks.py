"""Learner checks: run a named table of cases against a learner's function.

Every exercise ends with ``check(my_function, CASES)``. The checker prints one line per
case, and for a failing case what went in, what was expected, what came back and a hint.
It never lets a learner's bug escape as a traceback and never hangs: exceptions, wrong
types, ``None`` and infinite loops (a per-case time limit) all become report lines.

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

from tutorial_lib.core.time_limit import TimeLimit

__all__ = [
    "NOT_IMPLEMENTED_VERDICT",
    "Case",
    "CaseResult",
    "CheckReport",
    "check",
    "describe",
    "first_difference",
    "run_cases",
]

Status = Literal["pass", "fail", "error", "timeout", "not_implemented"]

#: The line a check prints while the exercise still holds nbgrader's stub.
NOT_IMPLEMENTED_VERDICT = "尚未实现 (not implemented yet)"

_MARKS: dict[Status, str] = {
    "pass": "✓",
    "fail": "✗",
    "error": "✗",
    "timeout": "⏱",
    "not_implemented": "…",
}
_MAX_REPR = 160


@dataclass(frozen=True)
class Case:
    """One row of a case table: a name, the call's arguments, the expected value, a hint.

    ``args`` are passed positionally and ``kwargs`` by name. Both are deep-copied before
    each call, so a function that mutates its input cannot change later cases.
    ``hint`` is shown only when the case fails: name the likely mistake, not the answer.
    """

    name: str
    args: tuple[Any, ...] = ()
    expected: Any = None
    hint: str = ""
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def call_text(self, function_name: str) -> str:
        """The call as a learner would type it, e.g. ``line_at(['a'], 0)``."""
        parts = [describe(a) for a in self.args]
        parts += [f"{k}={describe(v)}" for k, v in self.kwargs.items()]
        return f"{function_name}({', '.join(parts)})"


@dataclass(frozen=True)
class CaseResult:
    """What happened to one case: its status and, when it did not pass, why."""

    case: Case
    status: Status
    got: str = ""
    detail: str = ""

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
        out = [f"检查 {name}：{self.total} 个用例"]
        if self.not_implemented:
            out.append(f"  {_MARKS['not_implemented']} {NOT_IMPLEMENTED_VERDICT}")
            out.append(
                f"    {name} 还在抛出 NotImplementedError：把 `raise NotImplementedError()`"
                " 换成你的代码，再运行这个单元。"
            )
            return out
        for result in self.results:
            out.append(f"  {_MARKS[result.status]} {result.case.name}")
            if result.passed:
                continue
            out.append(f"      调用：{result.case.call_text(name)}")
            if result.status == "fail":
                out.append(f"      期望：{describe(result.case.expected)}")
                out.append(f"      实际：{result.got}")
                if result.detail:
                    out.append(f"      差异：{result.detail}")
            elif result.status == "error":
                out.append(f"      异常：{result.got}")
            else:
                out.append(f"      超过 {self.time_limit_s:g} 秒仍未返回，已中止（死循环？）")
            if result.case.hint:
                out.append(f"      提示：{result.case.hint}")
        if self.all_passed:
            out.append(f"结果：{self.passed}/{self.total} 通过，全部正确。")
        else:
            out.append(f"结果：{self.passed}/{self.total} 通过。先看第一个 ✗，修好再运行。")
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


def _run_one(
    function: Callable[..., Any],
    case: Case,
    key: Callable[[Any], Any] | None,
    limit_s: float,
) -> CaseResult:
    args = copy.deepcopy(case.args)
    kwargs = copy.deepcopy(dict(case.kwargs))
    try:
        with _time_limit(limit_s):
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
                got=describe(value),
                detail=f"返回值的形状不对，无法取出要比较的部分（{_describe_exception(exc)}）",
            )
    difference = first_difference(case.expected, value)
    if difference is None:
        return CaseResult(case, "pass")
    # For two plain values of the same type, "expected X, got Y" already says it all.
    same_scalar_type = type(case.expected) is type(value) and not isinstance(
        value, (Mapping, list, tuple)
    )
    return CaseResult(
        case, "fail", got=describe(value), detail="" if same_scalar_type else difference
    )


def first_difference(expected: Any, got: Any, where: str = "") -> str | None:
    """Describe the first place where ``got`` differs from ``expected``, or None if equal.

    Stricter than ``==``: ``True`` is not ``1``, ``1.0`` is not ``1``, a tuple is not a
    list. That strictness is the point: a tool contract that says "integer" means it.
    """
    at = f"在 {where} 处：" if where else ""
    if type(expected) is not type(got) and not (
        isinstance(expected, Mapping) and isinstance(got, Mapping)
    ):
        return f"{at}类型不同：期望 {type(expected).__name__}，实际 {type(got).__name__}"
    if isinstance(expected, Mapping):
        missing = [k for k in expected if k not in got]
        extra = [k for k in got if k not in expected]
        if missing:
            return f"{at}缺少键 {describe(missing[0])}"
        if extra:
            return f"{at}多出键 {describe(extra[0])}"
        for k in expected:
            diff = first_difference(expected[k], got[k], f"{where}[{k!r}]")
            if diff:
                return diff
        return None
    if isinstance(expected, (list, tuple)):
        # Compare item by item first (the first differing item is the most useful hint);
        # the lengths are compared after the loop.
        for i, (e, g) in enumerate(zip(expected, got, strict=False)):
            diff = first_difference(e, g, f"{where}[{i}]")
            if diff:
                return diff
        if len(expected) != len(got):
            return f"{at}长度不同：期望 {len(expected)} 项，实际 {len(got)} 项"
        return None
    if isinstance(expected, float) and math.isnan(expected) and math.isnan(got):
        return None
    if expected != got:
        return f"{at}期望 {describe(expected)}，实际 {describe(got)}"
    return None


def describe(value: Any) -> str:
    """A short, deterministic repr: memory addresses and temp dirs hidden, long values cut.

    A path inside a fresh temporary directory prints as ``<tmp>/...``: the random part
    would change on every run (and leak a machine path into the notebook).
    """
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - a learner's broken __repr__
        text = f"<{type(value).__name__} whose repr raised {type(exc).__name__}>"
    text = _ADDRESS.sub("", text)
    text = _TEMP_DIR.sub("<tmp>", text)
    if len(text) > _MAX_REPR:
        text = text[: _MAX_REPR - 1] + "…"
    return text


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

    The core limiter (:class:`~tutorial_lib.core.time_limit.TimeLimit`) with the checks'
    policy: in the main thread (a Jupyter kernel, pytest) SIGALRM raises
    ``_CaseTimeout`` and re-fires every 50 ms; elsewhere (other threads, Windows) a
    watchdog injects it. One bug no in-process limit can stop: a loop that swallows
    *every* exception (a bare ``except:`` around its body). The kernel's restart button
    remains for that.
    """
    return TimeLimit(limit_s, _CaseTimeout, refire_s=_REFIRE_S, other_threads="inject")
