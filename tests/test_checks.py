"""The learner check helper: precise feedback, and never a crash or a hang on learner bugs."""

from __future__ import annotations

import copy
import re
import signal
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.pieces import HANG_S
from tutorial_lib.course import checks
from tutorial_lib.course.checks import (
    MISSING,
    NOT_IMPLEMENTED_VERDICT,
    Case,
    check,
    check_hidden,
    describe,
    differences,
    first_difference,
    run_cases,
)
from tutorial_lib.course.time_limit import TimeLimit
from tutorial_lib.language import Text

CASES = (
    Case("two", (2,), 4, "double it"),
    Case("zero", (0,), 0, "zero stays zero"),
)


def double(x):
    return 2 * x


def test_all_passing_report():
    report = run_cases(double, CASES)
    assert report.all_passed and report.passed == report.total == 2
    assert report.lines() == [
        "检查 double：2 个用例",
        "  ✓ two",
        "  ✓ zero",
        "结果：2/2 通过，全部正确。",
    ]


def test_wrong_answer_gets_call_expected_got_and_hint():
    def triple(x):
        return 3 * x

    lines = run_cases(triple, CASES).lines()
    assert lines[1:6] == [
        "  ✗ two",
        "      调用：triple(2)",
        "      期望：4",
        "      实际：6",
        "      提示：double it",
    ]
    assert lines[-1] == "结果：1/2 通过。先看第一个 ✗，修好再运行。"


def test_exception_becomes_a_line_not_a_traceback():
    def broken(x):
        return {"a": 1}[x]

    report = run_cases(broken, CASES)
    assert [r.status for r in report.results] == ["error", "error"]
    assert "      异常：KeyError: 2" in report.lines()


def test_none_and_wrong_types_are_reported_with_the_type():
    report = run_cases(lambda x: None, CASES[:1])
    assert report.results[0].detail == "类型不同：期望 int，实际 NoneType"
    report = run_cases(lambda x: "4", CASES[:1])
    assert report.results[0].detail == "类型不同：期望 int，实际 str"


def test_bool_is_not_accepted_for_int_and_float_not_for_int():
    assert first_difference(1, True) == "类型不同：期望 int，实际 bool"
    assert first_difference(1, 1.0) == "类型不同：期望 int，实际 float"
    assert first_difference([1], (1,)) == "类型不同：期望 list，实际 tuple"
    assert first_difference(None, None) is None


def test_nested_difference_names_the_place():
    expected = {"lines": [{"number": 2, "text": "b"}]}
    got = {"lines": [{"number": 1, "text": "b"}]}
    assert first_difference(expected, got) == "在 ['lines'][0]['number'] 处：期望 2，实际 1"
    assert first_difference({"a": 1}, {}) == "缺少键 'a'（应为 1）"
    assert first_difference({}, {"b": 1}) == "多出键 'b'（值为 1）"
    assert first_difference([1, 2], [1]) == "长度不同：期望 2 项，实际 1 项"


def test_every_difference_is_listed_not_only_the_first():
    expected = {"code": "x", "field": "path", "retry": "never", "items": [1, 2]}
    got = {"code": "y", "retry": None, "items": [1, 3, 4], "extra": 0}
    assert differences(expected, got) == [
        "在 ['code'] 处：期望 'x'，实际 'y'",
        "缺少键 'field'（应为 'path'）",
        "在 ['retry'] 处：类型不同：期望 str，实际 NoneType",
        "在 ['items'][1] 处：期望 2，实际 3",
        "在 ['items'] 处：长度不同：期望 2 项，实际 3 项",
        "多出键 'extra'（值为 0）",
    ]
    lines = run_cases(lambda: got, [Case("c", (), expected, "h")]).lines()
    assert "      差异（6 处）：" in lines
    assert "        - 缺少键 'field'（应为 'path'）" in lines


def test_a_key_function_marks_a_missing_key_as_missing_not_none():
    def shape(result):
        return {name: result.get(name, MISSING) for name in ("code", "retry")}

    report = run_cases(
        lambda: {"code": "x"}, [Case("c", (), {"code": "x", "retry": "never"})], key=shape
    )
    assert report.results[0].detail == "在 ['retry'] 处：缺少这个键（应为 'never'）"
    assert "      实际：{'code': 'x', 'retry': <缺少>}" in report.lines()


def test_the_whole_input_of_a_failing_case_is_shown():
    args = {"path": "a" * 4097, "start": 1, "count": 2, "z": list(range(60))}
    lines = run_cases(lambda a: 0, [Case("c", (args,), 1)]).lines()
    call = lines[2]
    assert "（共 4097 个字符）" in call and "'count': 2" in call and "59]" in call


def test_a_case_can_bring_its_own_key_and_call():
    cases = [
        Case("k", (3,), 12, key=lambda r: r * 2),
        Case("v", (3,), [2, 4], via=lambda f, x: [f(1), f(x) - 3], shown_call="{function} twice"),
    ]
    report = run_cases(double, cases)
    assert [r.status for r in report.results] == ["pass", "fail"]
    assert "      调用：double twice" in report.lines()


def test_hidden_checks_print_one_line_or_raise_with_the_failing_cases(capsys):
    check_hidden(double, CASES)
    assert capsys.readouterr().out == "隐藏测试 double：2 个生成的输入，结果都与参考实现一致。\n"
    many = [Case(f"c{i}", (i,), 2 * i) for i in range(10)]
    with pytest.raises(AssertionError, match="3 of 3 generated inputs differ"):
        check_hidden(lambda x: -1, many)
    out = capsys.readouterr().out
    assert "其余 7 个未运行" in out and "✗ c0" in out and "✗ c3" not in out


def test_hidden_checks_of_a_stub_raise_not_implemented():
    def stub(x):
        raise NotImplementedError()

    with pytest.raises(NotImplementedError):
        check_hidden(stub, CASES)


def test_infinite_loop_is_cut_off_in_the_main_thread():
    def spin(x):
        while True:
            pass

    started = time.monotonic()
    report = run_cases(spin, CASES, time_limit_s=0.2)
    elapsed = time.monotonic() - started
    assert [r.status for r in report.results] == ["timeout", "timeout"]
    assert "      超过 0.2 秒仍未返回，已中止（死循环？）" in report.lines()
    assert elapsed < HANG_S  # stopped by the limit, not by anything slower


def test_blocking_sleep_is_cut_off():
    report = run_cases(lambda x: time.sleep(30), CASES[:1], time_limit_s=0.2)
    assert report.results[0].status == "timeout"


def test_except_exception_cannot_swallow_the_time_limit():
    def stubborn(x):
        while True:
            try:  # noqa: SIM105 - the learner-style swallowing is the point
                time.sleep(0.01)
            except Exception:
                pass

    report = run_cases(stubborn, CASES[:1], time_limit_s=0.2)
    assert report.results[0].status == "timeout"


def test_infinite_loop_is_cut_off_outside_the_main_thread():
    def spin(x):
        while True:
            pass

    box = {}
    worker = threading.Thread(target=lambda: box.update(r=run_cases(spin, CASES, time_limit_s=0.2)))
    worker.start()
    worker.join(timeout=HANG_S)
    assert not worker.is_alive()
    assert [r.status for r in box["r"].results] == ["timeout", "timeout"]


def test_timer_is_disarmed_after_a_fast_case():
    run_cases(double, CASES, time_limit_s=0.05)
    time.sleep(0.15)  # a leftover alarm would raise here


def test_the_stop_fires_again_after_a_bare_except():
    def swallow_once(x):
        try:
            while True:
                pass
        except BaseException:  # noqa: BLE001 - a learner's bare except, once
            pass
        while True:
            pass

    started = time.monotonic()
    report = run_cases(swallow_once, CASES[:1], time_limit_s=0.2)
    assert report.results[0].status == "timeout"
    assert time.monotonic() - started < HANG_S


# ------------------------------------------------------------------ the core time limit


class Late(Exception):
    pass


def test_the_limit_uses_the_signal_in_the_main_thread_and_restores_the_handler():
    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(Late), TimeLimit(0.05, Late) as limit:
        time.sleep(5)
    assert limit.mechanism == "signal"
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_limit_raises_only_when_its_policy_allows():
    allowed = {"now": False}
    with TimeLimit(0.05, Late, refire_s=0.02, when=lambda: allowed["now"]) as limit:
        time.sleep(0.15)  # fired (and re-fired) while not allowed: nothing raised
        allowed["now"] = True
        with pytest.raises(Late):
            time.sleep(5)
    assert limit.mechanism == "signal"


def test_a_timer_in_use_is_left_alone():
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30)
        with TimeLimit(0.05, Late, other_threads="none") as limit:
            time.sleep(0.1)
        assert limit.mechanism == "none"
        remaining, _interval = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < remaining <= 30 and fired == []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_outside_the_main_thread_the_policy_chooses_inject_or_nothing():
    box: dict[str, object] = {}

    def limited(policy):
        # "inject" must stop the loop, however late a busy machine delivers the stop: its
        # loop would run for minutes. "none" never stops it: its loop ends by itself.
        try:
            with TimeLimit(0.05, Late, other_threads=policy) as limit:
                deadline = time.monotonic() + (HANG_S / 2 if policy == "inject" else 0.5)
                while time.monotonic() < deadline:
                    pass
            box[policy] = limit.mechanism
        except Late:
            box[policy] = "stopped"

    for policy in ("inject", "none"):
        worker = threading.Thread(target=limited, args=(policy,))
        worker.start()
        worker.join(timeout=HANG_S)
        assert not worker.is_alive()
    assert box == {"inject": "stopped", "none": "none"}


def test_a_limit_needs_a_positive_time():
    with pytest.raises(ValueError, match="> 0"):
        TimeLimit(0, Late)


def test_not_implemented_stub_gets_one_verdict():
    def stub(x):
        raise NotImplementedError()

    report = run_cases(stub, CASES)
    assert report.not_implemented
    assert report.lines()[1] == f"  … {NOT_IMPLEMENTED_VERDICT}"
    assert len(report.lines()) == 3


def test_key_failure_is_a_failing_case():
    report = run_cases(lambda x: None, [Case("c", (1,), "e")], key=lambda r: r["error"]["code"])
    result = report.results[0]
    assert result.status == "fail"
    assert result.detail.startswith("返回值的形状不对")


def test_key_selects_what_is_compared():
    report = run_cases(
        lambda x: {"error": {"code": "invalid_range", "message": "..."}},
        [Case("c", (0,), "invalid_range")],
        key=lambda r: r["error"]["code"],
    )
    assert report.all_passed


def test_learner_mutation_does_not_leak_into_later_cases():
    shared = [1, 2]
    cases = [Case("a", (shared,), 2), Case("b", (shared,), 2)]

    def pop_and_len(items):
        items.pop()
        return len(items) + 1

    assert run_cases(pop_and_len, cases).all_passed
    assert shared == [1, 2]


def test_check_prints_the_report(capsys):
    check(double, CASES)
    assert capsys.readouterr().out.splitlines()[-1] == "结果：2/2 通过，全部正确。"


@pytest.mark.parametrize(
    ("function", "cases", "message"),
    [
        (None, CASES, "needs a function"),
        (double, [], "at least one Case"),
    ],
)
def test_misuse_by_the_author_is_a_clear_error(function, cases, message):
    with pytest.raises((TypeError, ValueError), match=message):
        run_cases(function, cases)


def test_describe_hides_memory_addresses_and_cuts_long_values():
    assert " at 0x" not in describe(object())
    assert describe("x" * 1000).endswith("…")
    assert len(describe(list(range(1000)))) == 160

    class BadRepr:
        def __repr__(self):
            raise RuntimeError("boom")

    assert describe(BadRepr()) == "<BadRepr whose repr raised RuntimeError>"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(expected=json_values, returned=json_values)
def test_any_return_value_gives_a_deterministic_report(expected, returned):
    cases = [Case("case", (), expected, "hint")]
    first = run_cases(lambda: returned, cases)
    second = run_cases(lambda: returned, cases)
    assert first.lines() == second.lines()
    assert first.results[0].status in {"pass", "fail"}
    assert (first.results[0].status == "pass") == (first_difference(expected, returned) is None)


@settings(max_examples=100, deadline=None)
@given(value=json_values)
def test_a_value_always_equals_its_copy(value):
    assert first_difference(value, copy.deepcopy(value)) is None  # NaN included


@settings(max_examples=50, deadline=None)
@given(exception=st.sampled_from([ValueError, TypeError, KeyError, RecursionError, SystemExit]))
def test_any_exception_is_contained(exception):
    def raiser():
        raise exception("learner bug")

    report = run_cases(raiser, [Case("case", (), 1)])
    assert report.results[0].status == "error"
    assert report.results[0].got.startswith(exception.__name__)


#: Chinese characters and full-width punctuation: none may appear in an English report
#: except inside the learner's own values.
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def test_a_failing_report_is_english_under_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUTORIAL_LIB_LANGUAGE", "en")
    own = "值"  # the learner's own value: the only Chinese the report may show

    def wrong(x):
        return {"code": own, "count": x}

    expected = {"code": "invalid_range", "count": 2, "field": "start"}
    hint = Text(zh="错误要写明 code 和 field。", en="An error names its code and field.")
    cases = [Case("names the code and the field", (2,), expected, hint), Case("ok", (1,), None)]
    lines = run_cases(wrong, cases).lines()
    assert lines[:3] == [
        "Checking wrong: 2 cases",
        "  ✗ names the code and the field",
        "      Call: wrong(2)",
    ]
    assert "      Expected: {'code': 'invalid_range', 'count': 2, 'field': 'start'}" in lines
    assert "      Got: {'code': '值', 'count': 2}" in lines
    assert "      Differences (2):" in lines
    assert "        - at ['code']: expected 'invalid_range', got '值'" in lines
    assert "        - missing key 'field' (should be 'start')" in lines
    assert "      Hint: An error names its code and field." in lines
    assert "      Difference: wrong type: expected NoneType, got dict" in lines
    assert lines[-1] == "Result: 0/2 passed. Start with the first ✗: fix it, then run again."
    text = "\n".join(lines)
    assert not _CJK.search(text.replace(own, "")), text
    # the same case, shown again in Chinese: the hint follows the language when shown
    monkeypatch.setenv("TUTORIAL_LIB_LANGUAGE", "zh")
    assert "      提示：错误要写明 code 和 field。" in run_cases(wrong, cases).lines()


def test_every_kind_of_report_line_is_english_under_english(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TUTORIAL_LIB_LANGUAGE", "en")

    def stub(x):
        raise NotImplementedError()

    def loops(x):
        while True:
            pass

    def broken(x):
        raise KeyError("three")

    stubbed = run_cases(stub, CASES).lines()
    assert stubbed[1] == "  … not implemented yet" == f"  … {checks.NOT_IMPLEMENTED_VERDICT}"
    assert "still raises NotImplementedError" in stubbed[2]
    slow = run_cases(loops, CASES[:1], time_limit_s=0.2).lines()
    assert "      No return after 0.2 s: stopped (an infinite loop?)" in slow
    assert "      Exception: KeyError: 'three'" in run_cases(broken, CASES[:1]).lines()
    keyed = run_cases(double, [Case("c", (1,), "x")], key=lambda r: r["code"]).lines()
    assert any(
        line.startswith("      Difference: the return value has the wrong shape") for line in keyed
    )
    missing = run_cases(
        lambda x: {}, [Case("m", (1,), {"a": 1})], key=lambda r: {"a": r.get("a", MISSING)}
    )
    assert "      Got: {'a': <missing>}" in missing.lines()
    assert "      Difference: at ['a']: this key is missing (should be 1)" in missing.lines()
    check_hidden(double, CASES)
    with pytest.raises(AssertionError):
        check_hidden(lambda x: x, CASES)
    printed = capsys.readouterr().out
    assert "Hidden tests double: 2 generated inputs, all results match the reference" in printed
    assert "Hidden tests <lambda>: results differ from the reference implementation" in printed
    reports = [stubbed, slow, keyed, missing.lines(), printed.splitlines()]
    for lines in reports:
        assert not _CJK.search("\n".join(lines)), lines
