"""Chapter 08's exercise tables: measuring a tool interface, on plain data.

**Exercise 1: ``first_call_invalid_ratio(runs)``**: in what share of the runs was the
model's FIRST call invalid?

- ``runs``: a list of runs (one task, one interface version, one run each); a run is the
  list of its tool calls in order, each ``{"tool": str, "ok": bool}``; an empty list is a
  run that made no call (the model answered straight away);
- the answer: runs whose first call failed, divided by runs that made at least one call,
  as a number (``int``, ``float`` or :class:`fractions.Fraction`; never a ``bool`` or a
  string), compared with the expected value within :data:`RATIO_TOLERANCE` (1e-9), so
  ``bad / made``, ``1 - good / made`` and ``Fraction(bad, made)`` all pass and a rounded
  value does not; ``None`` when no run made a call (there is nothing to measure, which is
  not the same as "no first call failed", ``0.0``).

The points the table makes: usability is measured on the first attempt, so a run that
failed and then succeeded on the retry still counts as invalid (the retry hides the cost,
it does not remove it); a later invalid call does not make the first one invalid; a run
without calls is left out of the denominator; the share is of runs, not of calls; the
value is a number, not rounded. A value of another type fails every case with a message
that states the type rule (:class:`RatioKey`, each case's ``key``).

The expected answers are the library's own: :func:`library_first_call_invalid_ratio` turns
the plain runs into :class:`~tutorial_lib.agent.loop.Transcript` objects
(:func:`transcripts_from_runs`) and asks
:func:`tutorial_lib.worlds.evaluation.first_call_invalid_ratio`.
:func:`first_call_hidden_cases` generates seeded cases;
:data:`FIRST_CALL_INVALID_RATIO_RULES` is the rule table.

**Exercise 2: ``fix_for(failure) -> str``**: which change of the interface removes this
failure? ``failure`` is one observed failure of a transcript, as a sentence in the language
being shown (an item of :data:`FAILURES`, which holds the descriptions only, each a
:class:`~tutorial_lib.language.Text` in both languages; a case passes it to the
learner's function as a ``str`` in the current language); the answer is one of the four
fixes of :data:`INTERFACE_FIXES`. The failures are worded as what was seen in the transcript,
not as the cure: reading the transcript and naming the mechanism is the exercise. The
table is exhaustive (every failure is a visible case), so there are no hidden cases.

The answer key is not in the exercise's reach: :data:`FIX_CASES` holds, for each failure,
a :class:`SealedAnswer` (a digest of the failure's Chinese source and its fix, shown as
"not disclosed", so both languages check the same answers) and a :class:`FixKey` that
seals the learner's answer the same way; case names are the
failures' numbers and every case has the same hint, so neither names a fix. The
reference, :func:`library_fix_for`, is for the library's own tests; the exercise never
mentions it. :data:`FIX_FOR_RULES` names only what every answer must do, never which
failure goes with which fix.
"""

from __future__ import annotations

import hashlib
import numbers
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from tutorial_lib.agent.loop import Step, Transcript
from tutorial_lib.course.checks import Case
from tutorial_lib.course.rules import Rule, load_rules
from tutorial_lib.language import Text, source_text, tr
from tutorial_lib.worlds.evaluation import first_call_invalid_ratio

__all__ = [
    "FAILURES",
    "FIRST_CALL_CASES",
    "FIRST_CALL_INVALID_RATIO_RULES",
    "FIX_CASES",
    "FIX_FOR_RULES",
    "FIX_HINT",
    "INTERFACE_FIXES",
    "RATIO_TOLERANCE",
    "FixKey",
    "RatioKey",
    "SealedAnswer",
    "first_call_hidden_cases",
    "library_first_call_invalid_ratio",
    "library_fix_for",
    "transcripts_from_runs",
]

#: The error code a failed step of the exercise's plain data gets (any code would do).
_FAILED_CODE = "x"


# --------------------------------------------------------------------------- exercise 1


def transcripts_from_runs(runs: Sequence[Sequence[Mapping[str, Any]]]) -> list[Transcript]:
    """The exercise's plain ``runs`` as :class:`~tutorial_lib.agent.loop.Transcript` objects.

    Each ``{"tool": str, "ok": bool}`` becomes a :class:`~tutorial_lib.agent.loop.Step`
    numbered from 1, with empty arguments, ``result_chars=0`` and an error code for a
    failed call. A step without a string ``tool`` or a boolean ``ok`` raises ValueError.
    """
    transcripts = []
    for run in runs:
        transcript = Transcript()
        for number, step in enumerate(run, start=1):
            tool, ok = step.get("tool"), step.get("ok")
            if not isinstance(tool, str) or not isinstance(ok, bool):
                raise ValueError(f"a step is {{'tool': str, 'ok': bool}}, got {step!r}")
            result: dict[str, Any] = (
                {"ok": True} if ok else {"ok": False, "error": {"code": _FAILED_CODE}}
            )
            code = None if ok else _FAILED_CODE
            transcript.steps.append(Step(number, tool, {}, result, 0, code, ok))
        transcripts.append(transcript)
    return transcripts


def library_first_call_invalid_ratio(runs: Sequence[Sequence[Mapping[str, Any]]]) -> float | None:
    """The library's answer to exercise 1: the share of runs (with at least one call) whose
    first call was invalid, or None when no run made a call.

    The runs become transcripts (:func:`transcripts_from_runs`); the figure is
    :func:`tutorial_lib.worlds.evaluation.first_call_invalid_ratio`'s.
    """
    return first_call_invalid_ratio(transcripts_from_runs(runs))


_LINES = "read_lines"
_COMMENTS = "github_pr_list_comments"
_STATUS = "task_set_status"
_VAGUE = "getData"


def _ok(tool: str = _COMMENTS) -> dict[str, Any]:
    return {"tool": tool, "ok": True}


def _bad(tool: str = _COMMENTS) -> dict[str, Any]:
    return {"tool": tool, "ok": False}


#: How far a learner's ratio may be from the expected one and still pass.
RATIO_TOLERANCE = 1e-9

_RATIO_TYPE_RULE = Text(
    zh=(
        "first_call_invalid_ratio 要返回一个数（int、float 或 fractions.Fraction，按 1e-9 的容差"
        "比较）或 None；{kind} 不行"
    ),
    en="first_call_invalid_ratio must return a number (int, float or fractions.Fraction,"
    " compared within 1e-9) or None, not {kind}",
)


@dataclass(frozen=True)
class RatioKey:
    """A ratio case's ``key``: what the check compares instead of the learner's value.

    ``None`` stays ``None``. A number (any :class:`numbers.Real` but ``bool``: ``int``,
    ``float``, :class:`~fractions.Fraction`) within :data:`RATIO_TOLERANCE` of
    ``expected`` becomes ``expected`` itself (the case passes); another number becomes
    its ``float`` (the report shows "expected X, got Y"). Any other type (a string, a
    bool, a list) raises TypeError with the type rule, which the report shows.
    """

    expected: float | None

    def __call__(self, value: Any) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            kind = (
                tr("bool（True/False 不算数）", "bool (True/False are not numbers)")
                if isinstance(value, bool)
                else type(value).__name__
            )
            raise TypeError(_RATIO_TYPE_RULE.format(kind=kind))
        if self.expected is not None and abs(float(value) - self.expected) <= RATIO_TOLERANCE:
            return self.expected
        return float(value)


def _ratio_case(name: str | Text, runs: list[list[dict[str, Any]]], hint: Text) -> Case:
    expected = library_first_call_invalid_ratio(runs)
    return Case(name, (runs,), expected, hint, key=RatioKey(expected))


FIRST_CALL_CASES: tuple[Case, ...] = (
    _ratio_case(
        Text(
            zh="类型：返回一个数，不是字符串或 bool",
            en="type: return a number, not a string or a bool",
        ),
        [[_bad(_LINES)], [_ok(_LINES)]],
        Text(
            zh=(
                "返回一个数：int、float 或 fractions.Fraction 都可以，检查按 1e-9 的容差比较；"
                "没有可衡量的运行时返回 None。'1/2' 这样的字符串、True/False 都不是比值。"
            ),
            en="Return a number: int, float or fractions.Fraction all work, and the check"
            " compares within a tolerance of 1e-9; return None when no run can be measured. A"
            " string such as '1/2' is not a ratio, and neither is True/False.",
        ),
    ),
    _ratio_case(
        Text(zh="不要四舍五入：2/3 就是 2/3", en="do not round: 2/3 is 2/3"),
        [[_bad(_STATUS)], [_ok(_STATUS)], [_bad(_STATUS), _ok(_STATUS)]],
        Text(
            zh=(
                "三次运行里两次第一次调用无效：2/3。返回精确的比值，不要 round()，也不要只留几位"
                "小数：0.67 和 2/3 差了 0.003，远超 1e-9 的容差。Fraction(2, 3) 也可以。"
            ),
            en="In three runs, two first calls were invalid: 2/3. Return the exact ratio: no"
            " round(), and do not keep just a few decimals: 0.67 and 2/3 differ by 0.003, far"
            " beyond the tolerance of 1e-9. Fraction(2, 3) works too.",
        ),
    ),
    _ratio_case(
        Text(
            zh="看第一次：重试成功了，第一次仍算无效",
            en="the first call: the retry succeeded, the first still counts as invalid",
        ),
        [[_bad(_LINES), _ok(_LINES)], [_ok(_LINES)]],
        Text(
            zh=(
                "只看每次运行的第一次调用：第一次失败、重试成功，这次运行仍算“第一次无效”。"
                "重试掩盖了代价，没有消除它；也不要看最后一次调用。"
            ),
            en="Look only at each run's first call: the first failed and the retry succeeded, so"
            ' this run still counts as "first call invalid". The retry hid the cost, it did not'
            " remove it; do not look at the last call either.",
        ),
    ),
    _ratio_case(
        Text(
            zh="看第一次：换了工具再试，第一次仍算无效",
            en="the first call: retried with another tool, the first still counts as invalid",
        ),
        [[_bad(_VAGUE), _ok(_COMMENTS), _ok(_COMMENTS)], [_ok(_COMMENTS)], [_ok(_COMMENTS)]],
        Text(
            zh=(
                "第一次调用选错了工具（getData）并失败，后面换对了工具也改变不了第一次；"
                "看的是第一次调用，不是最后一次。"
            ),
            en="The first call picked the wrong tool (getData) and failed; switching to the right"
            " tool later does not change the first call: what counts is the first call, not the"
            " last.",
        ),
    ),
    _ratio_case(
        Text(
            zh="只看第一次：后来的无效调用不算",
            en="only the first call: a later invalid call does not count",
        ),
        [[_ok(_LINES), _bad(_LINES), _ok(_LINES)], [_ok(_LINES)]],
        Text(
            zh="第一次调用成功了，之后某次调用失败，不让第一次变成无效：两次运行都是第一次有效。",
            en="The first call succeeded; a later call failing does not make the first one"
            " invalid: both runs have a valid first call.",
        ),
    ),
    _ratio_case(
        Text(
            zh="按运行数：同一次运行失败三次只算一次",
            en="by runs: three failures in one run count once",
        ),
        [[_bad(_STATUS), _bad(_STATUS), _bad(_STATUS)], [_ok(_STATUS)]],
        Text(
            zh="分子是“第一次调用无效的运行”有几次，不是无效调用有几次；一次运行最多算 1。",
            en="The numerator is how many runs had an invalid first call, not how many invalid"
            " calls there were; one run counts at most 1.",
        ),
    ),
    _ratio_case(
        Text(zh="按运行数：分母是运行，不是调用", en="by runs: the denominator is runs, not calls"),
        [[_bad(_LINES), _ok(_LINES), _ok(_LINES), _ok(_LINES)], [_ok(_LINES)]],
        Text(
            zh="两次运行里一次的第一次调用无效：1/2。不是无效调用数除以调用总数（1/5）。",
            en="Of two runs, one had an invalid first call: 1/2. Not invalid calls divided by all"
            " calls (1/5).",
        ),
    ),
    _ratio_case(
        Text(zh="分母：没有调用的运行不算", en="denominator: a run without calls does not count"),
        [[_bad(_COMMENTS)], [], [_ok(_COMMENTS)], []],
        Text(
            zh=(
                "空列表是一次没有调用任何工具的运行：它没有第一次调用，既不算有效也不算无效，"
                "不进分母。这里是 1/2，不是 1/4。"
            ),
            en="An empty list is a run that called no tool: it has no first call, counts as"
            " neither valid nor invalid and stays out of the denominator. Here it is 1/2, not"
            " 1/4.",
        ),
    ),
    _ratio_case(
        Text(zh="None：所有运行都没有调用", en="None: no run made a call"),
        [[], [], []],
        Text(
            zh=(
                "没有一次运行调用过工具，就没有可以衡量的第一次调用：返回 None。"
                "0.0 的意思是“衡量了，没有一次失败”，两者不同。"
            ),
            en="No run called a tool, so there is no first call to measure: return None. 0.0"
            ' means "measured, and none failed": the two are different.',
        ),
    ),
    _ratio_case(
        Text(zh="None：一次运行也没有", en="None: no runs at all"),
        [],
        Text(
            zh="没有运行，也就没有第一次调用：返回 None，不是 0.0，也不要除以零。",
            en="No runs means no first call either: return None, not 0.0, and do not divide by"
            " zero.",
        ),
    ),
    _ratio_case(
        Text(zh="一次运行：第一次就失败", en="one run: its first call failed"),
        [[_bad(_STATUS), _ok(_STATUS)]],
        Text(
            zh="只有一次运行、它的第一次调用失败：1/1，即 1（1、1.0 或 Fraction(1) 都可以）。",
            en="A single run, whose first call failed: 1/1, that is 1 (1, 1.0 or Fraction(1) all"
            " work).",
        ),
    ),
    _ratio_case(
        Text(zh="全都有效：0.0 不是 None", en="all valid: 0.0 is not None"),
        [[_ok(_COMMENTS), _ok(_COMMENTS)], [_ok(_COMMENTS)], [_ok(_LINES), _bad(_LINES)]],
        Text(
            zh="三次运行的第一次调用都成功：0/3 = 0.0。有调用可以衡量，所以是 0.0 而不是 None。",
            en="The first calls of all three runs succeeded: 0/3 = 0.0. There are calls to"
            " measure, so it is 0.0, not None.",
        ),
    ),
    _ratio_case(
        Text(
            zh="混合：重试、后来失败、空运行都有",
            en="mixed: retries, later failures and empty runs",
        ),
        [
            [_bad(_LINES), _ok(_LINES)],
            [_ok(_COMMENTS), _bad(_COMMENTS)],
            [],
            [_ok(_STATUS)],
            [_bad(_VAGUE), _ok(_COMMENTS), _ok(_COMMENTS)],
            [_ok(_LINES)],
        ],
        Text(
            zh="逐次运行看第一次调用：第 1、5 次无效，第 2、4、6 次有效，第 3 次没有调用不算：2/5"
            " = 0.4。",
            en="Look at each run's first call: runs 1 and 5 are invalid, runs 2, 4 and 6 valid,"
            " and run 3 made no call and does not count: 2/5 = 0.4.",
        ),
    ),
)

_HIDDEN_TOOLS = (_LINES, _COMMENTS, _STATUS, _VAGUE)
_HIDDEN_HINT = Text(
    zh=(
        "和库的 first_call_invalid_ratio 不一致。每次运行只看第一次调用；分子是第一次调用"
        "失败的运行数，分母是至少调用过一次的运行数（空运行不算）；没有这样的运行就返回 None。"
    ),
    en="Differs from the library's first_call_invalid_ratio. Look only at each run's first call;"
    " the numerator is the number of runs whose first call failed, the denominator the number of"
    " runs with at least one call (empty runs do not count); with no such run, return None.",
)


def _hidden_run(rng: random.Random) -> list[dict[str, Any]]:
    length = rng.choices((0, 1, 2, 3, 4, 6), weights=(15, 25, 25, 15, 12, 8))[0]
    tool = rng.choice(_HIDDEN_TOOLS)
    first_ok_rate = rng.choice((0.3, 0.6, 0.9))
    steps = []
    for index in range(length):
        if index and rng.random() < 0.2:
            tool = rng.choice(_HIDDEN_TOOLS)
        ok = rng.random() < (first_ok_rate if index == 0 else 0.7)
        steps.append({"tool": tool, "ok": ok})
    return steps


def first_call_hidden_cases(seed: int = 0, n: int = 200) -> tuple[Case, ...]:
    """``n`` seeded ``runs`` inputs; expected: :func:`library_first_call_invalid_ratio`.

    About one input in ten is 0 to 4 empty runs (expected None); the others have 1 to 8
    runs of 0 to 6 calls, which mix first calls that fail and succeed with retries and later
    failures, so the share of runs, of calls and of last calls differ.
    """
    rng = random.Random(seed)
    cases = []
    for index in range(n):
        if rng.random() < 0.1:
            runs: list[list[dict[str, Any]]] = [[] for _ in range(rng.choice((0, 1, 2, 4)))]
        else:
            runs = [_hidden_run(rng) for _ in range(rng.choice((1, 2, 3, 4, 5, 6, 8)))]
        cases.append(
            _ratio_case(
                Text(zh=f"生成的输入 {index + 1}", en=f"generated input {index + 1}"),
                runs,
                _HIDDEN_HINT,
            )
        )
    return tuple(cases)


#: Every rule exercise 1's task text states, the visible case that fails an answer breaking
#: only that rule, and what :func:`first_call_hidden_cases` varies for it.
FIRST_CALL_INVALID_RATIO_RULES: tuple[Rule, ...] = load_rules(
    "08", "FIRST_CALL_INVALID_RATIO_RULES", FIRST_CALL_CASES
)


# --------------------------------------------------------------------------- exercise 2


#: The four changes between interface v1 and v2, each with what it changes.
class _Rendered(Mapping[str, str]):
    """A read-only mapping whose values are texts, each read in the current language."""

    def __init__(self, texts: Mapping[str, Text]) -> None:
        self._texts = MappingProxyType(dict(texts))

    def __getitem__(self, key: str) -> str:
        return str(self._texts[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def __repr__(self) -> str:
        return repr(dict(self))


INTERFACE_FIXES: Mapping[str, str] = _Rendered(
    {
        "rich_errors": (
            Text(
                zh=(
                    "一次拒绝说清楚是哪个参数、期望什么（允许的值、范围、类型），以及该改输入还是该"
                    "重试，而不是只给一个笼统的错误码。"
                ),
                en="A refusal says which argument is wrong and what was expected (the allowed"
                " values, the range, the type), and whether to change the input or to retry,"
                " instead of giving a vague error code only.",
            )
        ),
        "coverage": (
            Text(
                zh=(
                    "每页结果都说明已经读到哪里、是否读完（coverage），没读完时给出下一页的"
                    " next_cursor；调用方不必自己推算偏移量。"
                ),
                en="Every page of results says how far the read has got and whether it is done"
                " (coverage), and when it is not, gives the next page's next_cursor; the caller"
                " does not have to work out offsets.",
            )
        ),
        "units": (
            Text(
                zh=(
                    "带量纲的参数和字段把单位写进名字（…_ms、…_seconds、…_bytes），"
                    "调用方不用猜一个数是秒还是毫秒、是 MB 还是字节。"
                ),
                en="Parameters and fields with a dimension carry the unit in their name (…_ms,"
                " …_seconds, …_bytes): the caller does not have to guess whether a number is"
                " seconds or milliseconds, MB or bytes.",
            )
        ),
        "declarations": (
            Text(
                zh=(
                    "工具名说出它作用于什么、做什么（github_pr_list_comments），描述写明何时用它、"
                    "何时不用、会不会改写数据；模型凭声明就能选对工具。"
                ),
                en="The tool's name says what it acts on and what it does"
                " (github_pr_list_comments); its description says when to use it, when not to,"
                " and whether it changes data: from the declarations alone, the model can pick"
                " the right tool.",
            )
        ),
    }
)

#: The answer key: every failure of the exercise, as seen in a transcript, and the fix that
#: removes it. Private on purpose: the exercise lists :data:`FAILURES` and checks with
#: :data:`FIX_CASES`, neither of which holds a fix in the clear. Each failure is learner text
#: in both languages; a solution may match its words, so the English keeps every code token
#: of the Chinese verbatim (``INVALID_ARGUMENT``, ``timeout: 30``, ``getData``, ...).
_FAILURE_FIXES: Mapping[Text, str] = MappingProxyType(
    {
        Text(
            zh='模型把第一行写成 start: 0，只收到 {"error": "INVALID_ARGUMENT"}，'
            "于是把 count 换成 10、5、1 各试一次，最后放弃",
            en='The model wrote the first line as start: 0 and got back only {"error":'
            ' "INVALID_ARGUMENT"}, so it tried count as 10, 5 and 1, once each, and gave up',
        ): "rich_errors",
        Text(
            zh="模型把状态写成 started，被拒绝后依次试了 in-progress、working、wip，"
            "每次得到的都是同一个 INVALID_ARGUMENT",
            en="The model wrote the status as started; once refused, it tried in-progress,"
            " working and wip in turn, and got the same INVALID_ARGUMENT every time",
        ): "rich_errors",
        Text(
            zh='模型把整数写成了字符串 "1"；工具只回答“参数无效”，模型以为是路径不对，换了三个路径',
            en='The model wrote an integer as the string "1"; the tool only answered "invalid'
            ' argument", and the model, taking the path to be wrong, tried three other paths',
        ): "rich_errors",
        Text(
            zh="PR 有 23 条评论，模型读了前 10 条就回答“共 10 条，未解决的有 2 条”",
            en="The PR has 23 comments; the model read the first 10 and answered"
            ' "10 comments in all, 2 of them unresolved"',
        ): "coverage",
        Text(
            zh="报告说“已看过全部评论”，可它列出的未解决评论都来自第一次调用的结果；"
            "后面还有两页没读",
            en='The report says "all comments reviewed", yet the unresolved comments it lists'
            " all come from the first call's result; two more pages were never read",
        ): "coverage",
        Text(
            zh="模型想接着往下读，只能自己估算从第几条开始，结果漏掉一条、重复读了一条",
            en="The model wanted to read on and could only estimate by itself which item to"
            " start at: it missed one item and read another twice",
        ): "coverage",
        Text(
            zh="任务要 12 秒才跑完，模型传了 timeout: 30，30 毫秒后就报告“任务超时，构建失败”",
            en="The job takes 12 seconds to finish; the model passed timeout: 30, and 30"
            ' milliseconds later it reported "job timed out, build failed"',
        ): "units",
        Text(
            zh="模型想只预览 2 MB 以内的文件，传了 max_size: 2，工具把每个文件都当成太大而跳过",
            en="The model wanted to preview only files up to 2 MB and passed max_size: 2; the"
            " tool took every file to be too large and skipped it",
        ): "units",
        Text(
            zh="要读 PR 128 的审查意见，模型调用了 getData，拿回来的是仓库的设置",
            en="To read the review comments on PR 128, the model called getData and got back"
            " the repository's settings",
        ): "declarations",
        Text(
            zh="工具列表里有 sync 和 runAction，模型想看一眼 PR 的状态，却调用了会改写数据的那个",
            en="The tool list has sync and runAction; the model wanted a quick look at the PR's"
            " status, but called the one that changes data",
        ): "declarations",
    }
)

#: Each failure's fix by its wording in either language (what :func:`library_fix_for` reads).
_FIX_BY_WORDING: Mapping[str, str] = MappingProxyType(
    {
        wording: fix
        for failure, fix in _FAILURE_FIXES.items()
        for wording in (failure.zh, failure.en)
    }
)


#: The order the exercise lists the failures in: mixed, so that their positions do not
#: group them by fix the way the answer key above does.
_SHOWN_ORDER = (3, 0, 8, 6, 4, 1, 9, 2, 7, 5)

#: The ten failures of exercise 2, in the exercise's order: the descriptions only, each in
#: both languages (a case passes its failure to the learner's function in the language shown).
FAILURES: tuple[Text, ...] = tuple(tuple(_FAILURE_FIXES)[i] for i in _SHOWN_ORDER)


def library_fix_for(failure: str | Text) -> str:
    """The library's answer to exercise 2 (for its tests): the fix of
    :data:`INTERFACE_FIXES` that removes ``failure`` (an item of :data:`FAILURES`, or its
    text in either language). An unknown failure raises KeyError."""
    try:
        return _FIX_BY_WORDING[source_text(failure)]
    except KeyError:
        raise KeyError(f"not a failure of the exercise: {failure!r}") from None


def _in_the_shown_language(function: Any, failure: Text) -> Any:
    """How a ``fix_for`` case calls the learner's function: with the failure as a ``str``
    in the current language (the case's argument is the bilingual :class:`Text`)."""
    return function(str(failure))


def _digest(failure: str, fix: str) -> str:
    return hashlib.sha256(f"{failure}\n{fix}".encode()).hexdigest()


@dataclass(frozen=True, eq=False)
class SealedAnswer:
    """An answer the check compares without showing it: a digest of failure and fix.

    Two sealed answers are equal when their digests are; ``shown`` is what the report
    prints (for the expected value "not disclosed", for the learner's the value itself).
    """

    digest: str
    shown: str | Text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SealedAnswer) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        return str(self.shown)


@dataclass(frozen=True)
class FixKey:
    """A ``fix_for`` case's ``key``: seals the learner's answer for this case's failure
    (``failure`` is its Chinese source, whatever language the case is shown in).

    A value that is not one of the four fix names raises (TypeError for a non-string,
    ValueError for an unknown name), with the rule, which the report shows.
    """

    failure: str

    def __call__(self, value: Any) -> SealedAnswer:
        names = tr("、", ", ").join(INTERFACE_FIXES)
        if not isinstance(value, str):
            raise TypeError(
                tr(
                    f"fix_for 要返回一个改进名（str）：{names} 之一",
                    f"fix_for must return a fix name (a str): one of {names}",
                )
            )
        if value not in INTERFACE_FIXES:
            raise ValueError(
                tr(
                    f"{value!r} 不是上表的改进名：只能是 {names} 之一",
                    f"{value!r} is not a fix name from the table: it must be one of {names}",
                )
            )
        return SealedAnswer(_digest(self.failure, value), repr(value))


#: Every case's hint: the question to ask, the same for all, so no hint names a fix.
FIX_HINT = Text(
    zh=(
        "想一想模型缺了什么信息才会这样做：是拒绝没说清哪里错、结果没说有没有读完、"
        "数没有说明按什么来算，还是工具的名字和说明没说它做什么？再对应到上表的一个改进。"
    ),
    en="Think about what information the model was missing to act this way: did a refusal not say"
    " what was wrong, a result not say whether the read was done, a number not say what it is"
    " measured in, or a tool's name and description not say what it does? Then match it to one"
    " fix in the table.",
)


def _fix_cases() -> tuple[Case, ...]:
    hidden = Text(
        zh="（不公开：上表四个改进名之一）", en="(not disclosed: one of the table's four fix names)"
    )
    # Sealed with the failure's Chinese source, so both languages check the same answers.
    return tuple(
        Case(
            Text(zh=f"失败 {number}", en=f"failure {number}"),
            (failure,),
            SealedAnswer(_digest(failure.zh, _FAILURE_FIXES[failure]), hidden),
            FIX_HINT,
            key=FixKey(failure.zh),
            via=_in_the_shown_language,
        )
        for number, failure in enumerate(FAILURES, 1)
    )


FIX_CASES: tuple[Case, ...] = _fix_cases()

#: The rules of exercise 2. The visible cases ARE the whole table (no hidden cases), and a
#: rule names only what every answer must do, never which failure goes with which fix.
FIX_FOR_RULES: tuple[Rule, ...] = load_rules("08", "FIX_FOR_RULES", FIX_CASES)
