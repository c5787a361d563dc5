"""Chapter 08's exercise tables: ``first_call_invalid_ratio`` and ``fix_for``.

- the library's reference passes every visible and hidden case, and it agrees with
  :class:`Transcript`'s own ``first_call_valid`` and with the plain data of a real run of
  the scripted model;
- a learner-style solution in plain code passes every case, and each of its wrong
  variants fails a visible case whose name names its rule; a solution fitted to the
  visible rows fails the hidden ones;
- a correct ratio passes whatever its numeric form (``bad / made``, ``1 - good / made``,
  ``Fraction``, an ``int`` for 0 and 1) within the stated tolerance; a rounded one, a
  string or a bool fails, the wrong types with the type rule in the report;
- the ``fix_for`` table is exhaustive, names only the four fixes, and its failures are
  worded as symptoms: no failure carries its fix's give-away words;
- the exercise's setup names (``FAILURES``, ``FIX_CASES``, ``INTERFACE_FIXES``) never
  hold a fix in the clear, in either language: no case's name, hint or expected value
  tells the answer;
- the failures reach the learner's ``fix_for`` in the language being shown, and the
  answers are sealed with the Chinese source, so one answer key serves both languages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tests.rule_harness import languages
from tutorial_lib.agent.loop import (
    ReadWholeFile,
    ScriptedModel,
    Transcript,
    run_agent,
    zero_based_lines,
)
from tutorial_lib.core.host import Host
from tutorial_lib.core.tools import Registry
from tutorial_lib.course.chapters.ch08_walkthrough_and_evaluation.cases import (
    FAILURES,
    FIRST_CALL_CASES,
    FIX_CASES,
    FIX_HINT,
    INTERFACE_FIXES,
    RATIO_TOLERANCE,
    FixKey,
    RatioKey,
    SealedAnswer,
    first_call_hidden_cases,
    library_first_call_invalid_ratio,
    library_fix_for,
    transcripts_from_runs,
)
from tutorial_lib.course.checks import Case, check_hidden, describe_whole, run_cases
from tutorial_lib.examples.tasks import with_bare_errors
from tutorial_lib.language import LANGUAGE_VARIABLE, LANGUAGES, Text, source_text
from tutorial_lib.workspace.read import read_lines_tool

Runs = list[list[dict[str, Any]]]


def failing(function: Callable[..., Any], cases: tuple[Case, ...]) -> list[str]:
    """The names (Chinese source) of the cases ``function`` does not pass."""
    return [source_text(r.case.name) for r in run_cases(function, cases).results if not r.passed]


# --------------------------------------------------------------------------- exercise 1: reference


def test_the_library_passes_every_visible_case() -> None:
    report = run_cases(library_first_call_invalid_ratio, FIRST_CALL_CASES)
    assert report.all_passed, "\n".join(report.lines())


def test_the_library_passes_every_hidden_case(capsys: pytest.CaptureFixture[str]) -> None:
    hidden = first_call_hidden_cases()
    assert len(hidden) == 200
    check_hidden(library_first_call_invalid_ratio, hidden)
    out = capsys.readouterr().out
    assert out.startswith("隐藏测试 library_first_call_invalid_ratio：200 个生成的输入")
    assert hidden == first_call_hidden_cases()  # seeded: the same on every run
    assert hidden != first_call_hidden_cases(seed=1)
    assert len(first_call_hidden_cases(n=17)) == 17


def by_first_call_valid(runs: Runs) -> float | None:
    """The figure from Transcript's own ``first_call_valid``, independently of the library."""
    firsts = [t.first_call_valid for t in transcripts_from_runs(runs)]
    made = [valid for valid in firsts if valid is not None]
    return sum(valid is False for valid in made) / len(made) if made else None


def test_every_expected_value_agrees_with_transcripts_first_call_valid() -> None:
    for case in (*FIRST_CALL_CASES, *first_call_hidden_cases()):
        assert case.expected == by_first_call_valid(case.args[0]), case.name


def test_the_hidden_cases_mix_none_zero_one_and_fractions() -> None:
    expected = [case.expected for case in first_call_hidden_cases()]
    kinds = Counter(
        "none" if e is None else "zero" if e == 0 else "one" if e == 1 else "part" for e in expected
    )
    assert min(kinds.values()) >= 10, kinds
    assert all(e is None or type(e) is float for e in expected)


def test_the_hidden_cases_tell_first_last_and_any_call_apart() -> None:
    """The wrong readings give another answer on many hidden inputs, not on a few."""
    hidden = first_call_hidden_cases()
    for flaw in ("any_invalid", "last_call", "empty_in_denominator", "invalid_over_calls"):
        assert len(failing(make_first_call_invalid_ratio(flaw), hidden)) >= 40, flaw


def test_the_visible_table_fits_a_cell_and_names_are_distinct() -> None:
    for index in range(len(LANGUAGES)):
        names = [languages(case.name)[index] for case in FIRST_CALL_CASES]
        assert len(set(names)) == len(names), names
    assert len(FIRST_CALL_CASES) <= 15
    assert all(text.strip() for case in FIRST_CALL_CASES for text in languages(case.hint))
    assert {type(case.expected) for case in FIRST_CALL_CASES} == {float, type(None)}
    assert all(case.key == RatioKey(case.expected) for case in FIRST_CALL_CASES)


def test_transcripts_from_runs_builds_real_steps() -> None:
    (transcript,) = transcripts_from_runs(
        [[{"tool": "read_lines", "ok": False}, {"tool": "read_lines", "ok": True}]]
    )
    assert [step.number for step in transcript.steps] == [1, 2]
    assert transcript.first_call_valid is False
    assert transcript.invalid_calls == 1
    assert transcript.steps[0].error_code == "x" and transcript.steps[1].error_code is None
    assert transcripts_from_runs([[]])[0].first_call_valid is None
    with pytest.raises(ValueError, match="'ok': bool"):
        transcripts_from_runs([[{"tool": "read_lines", "ok": "yes"}]])
    with pytest.raises(ValueError, match="'tool': str"):
        transcripts_from_runs([[{"ok": True}]])


def plain(transcript: Transcript) -> list[dict[str, Any]]:
    """A real transcript as the exercise's plain data."""
    return [{"tool": step.name, "ok": step.ok} for step in transcript.steps]


def test_the_plain_data_of_real_runs_gets_the_same_figure(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("first\nsecond\nthird\n", encoding="utf-8")
    rich = Host(Registry([read_lines_tool(tmp_path)]))  # read-only: no guards needed
    bare = Host(Registry([with_bare_errors(read_lines_tool(tmp_path))]))
    runs = [
        run_agent(ScriptedModel(ReadWholeFile("notes.txt"), [zero_based_lines()]), rich),
        run_agent(ScriptedModel(ReadWholeFile("notes.txt"), [zero_based_lines()]), bare),
        run_agent(ScriptedModel(ReadWholeFile("notes.txt"), []), rich),
    ]
    # The rich error is fixed on the retry, the bare one never: both first calls failed.
    assert [t.first_call_valid for t in runs] == [False, False, True]
    assert runs[0].steps_to_answer == 2 and runs[1].steps_to_answer is None
    assert library_first_call_invalid_ratio([plain(t) for t in runs]) == 2 / 3


# --------------------------------------------------------------------------- exercise 1: learners


def make_first_call_invalid_ratio(flaw: str | None = None) -> Callable[[Runs], Any]:
    """A learner's ``first_call_invalid_ratio`` in plain code; ``flaw`` breaks one rule."""

    def first_call_invalid_ratio(runs: Runs) -> Any:
        made = runs if flaw == "empty_in_denominator" else [run for run in runs if run]
        if flaw == "invalid_over_calls":
            calls = [step for run in runs for step in run]
            return sum(not s["ok"] for s in calls) / len(calls) if calls else None
        if not made:
            if flaw == "zero_not_none":
                return 0.0
            if flaw == "no_guard":
                return 0 / len(made)
            return None
        if flaw == "any_invalid":
            bad = sum(any(not s["ok"] for s in run) for run in made)
        elif flaw == "last_call":
            bad = sum(not run[-1]["ok"] for run in made)
        elif flaw == "invalid_calls_over_runs":
            bad = sum(not s["ok"] for run in made for s in run)
        elif flaw == "valid_share":
            bad = sum(run[0]["ok"] for run in made)
        else:
            bad = sum(not run[0]["ok"] for run in made if run)
        if flaw == "none_for_zero" and bad == 0:
            return None
        if flaw == "rounded":
            return round(bad / len(made), 2)
        if flaw == "as_string":
            return f"{bad}/{len(made)}"
        if flaw == "one_minus":
            return 1 - (len(made) - bad) / len(made)
        if flaw == "fraction":
            return Fraction(bad, len(made))
        if flaw == "int_when_whole" and bad % len(made) == 0:
            return bad // len(made)
        return bad / len(made)

    return first_call_invalid_ratio


#: Each wrong solution, and a word that the name of a visible case it fails contains.
RATIO_FLAWS = {
    "any_invalid": "后来的无效调用不算",
    "last_call": "重试成功了",
    "empty_in_denominator": "没有调用的运行不算",
    "zero_not_none": "None：所有运行都没有调用",
    "no_guard": "None：一次运行也没有",
    "invalid_over_calls": "分母是运行，不是调用",
    "invalid_calls_over_runs": "失败三次只算一次",
    "valid_share": "第一次就失败",
    "none_for_zero": "0.0 不是 None",
    "rounded": "不要四舍五入",
    "as_string": "类型：返回一个数",
}

#: Correct answers in another numeric form: they pass every visible and hidden case.
RATIO_FORMS = ("one_minus", "fraction", "int_when_whole")


@pytest.mark.parametrize("form", [None, *RATIO_FORMS])
def test_a_learner_solution_in_plain_code_passes_every_case(form: str | None) -> None:
    ratio = make_first_call_invalid_ratio(form)
    report = run_cases(ratio, FIRST_CALL_CASES)
    assert report.all_passed, "\n".join(report.lines())
    hidden = run_cases(ratio, first_call_hidden_cases())
    assert hidden.all_passed, "\n".join(hidden.lines())


@pytest.mark.parametrize(("flaw", "marker"), RATIO_FLAWS.items())
def test_each_wrong_ratio_fails_a_case_that_names_its_rule(flaw: str, marker: str) -> None:
    failed = failing(make_first_call_invalid_ratio(flaw), FIRST_CALL_CASES)
    assert failed, f"{flaw} passes every visible case"
    assert any(marker in name for name in failed), (flaw, failed)


def test_a_wrong_type_fails_with_the_type_rule_and_the_type_case_comes_first() -> None:
    def as_bool(runs: Runs) -> Any:
        made = [run for run in runs if run]
        return any(not run[0]["ok"] for run in made) if made else None

    for wrong, kind in ((as_bool, "bool"), (make_first_call_invalid_ratio("as_string"), "str")):
        report = run_cases(wrong, FIRST_CALL_CASES)
        first = next(r for r in report.results if not r.passed)
        assert first.case is FIRST_CALL_CASES[0] and "类型" in source_text(first.case.name)
        assert "int、float 或 fractions.Fraction" in str(first.case.hint)
        assert "fractions.Fraction" in first.case.hint.en
        text = "\n".join(report.lines())
        assert f"1e-9 的容差比较）或 None；{kind}" in text, text


def test_the_ratio_key_accepts_numbers_within_the_tolerance_only() -> None:
    key = RatioKey(2 / 3)
    assert key(Fraction(2, 3)) == 2 / 3 and key(2 / 3 + RATIO_TOLERANCE / 2) == 2 / 3
    assert key(0.67) == 0.67 and key(None) is None
    assert RatioKey(None)(0) == 0.0 and type(RatioKey(None)(0)) is float
    assert RatioKey(1.0)(1) == 1.0
    for wrong in (True, "2/3", [2 / 3]):
        with pytest.raises(TypeError, match="要返回一个数"):
            key(wrong)
    assert RatioKey(0.5) == RatioKey(0.5)  # cases stay comparable (seeded == seeded)


def test_every_wrong_ratio_fails_the_hidden_cases_too() -> None:
    hidden = first_call_hidden_cases()
    missed = [f for f in RATIO_FLAWS if not failing(make_first_call_invalid_ratio(f), hidden)]
    assert missed == []


def test_a_solution_fitted_to_the_visible_cases_fails_the_hidden_ones() -> None:
    visible = {repr(case.args): case.expected for case in FIRST_CALL_CASES}

    def first_call_invalid_ratio(runs: Runs) -> Any:
        return visible.get(repr((runs,)), 0.5)

    assert run_cases(first_call_invalid_ratio, FIRST_CALL_CASES).all_passed
    hidden = first_call_hidden_cases()
    assert run_cases(first_call_invalid_ratio, hidden).passed < 0.3 * len(hidden)
    with pytest.raises(AssertionError, match="differ from the reference"):
        check_hidden(first_call_invalid_ratio, hidden)


# --------------------------------------------------------------------------- exercise 2: fix_for

#: Words that would name the cure instead of describing the symptom.
GIVE_AWAY = {
    "rich_errors": ("rich", "field", "expected", "allowed", "错误信息", "哪个参数", "期望"),
    "coverage": ("coverage", "cursor", "has_more", "覆盖", "游标", "下一页", "分页"),
    "units": ("unit", "单位", "_ms", "_seconds", "_bytes", "量纲"),
    "declarations": ("description", "名字", "名称", "命名", "描述", "声明"),
}


#: The instructor's key, taken from the reference (the exercise never sees it).
ANSWERS = {failure: library_fix_for(failure) for failure in FAILURES}


def test_the_library_passes_every_fix_case() -> None:
    report = run_cases(library_fix_for, FIX_CASES)
    assert report.all_passed, "\n".join(report.lines())


def test_the_fix_table_is_exhaustive_and_uses_only_the_four_fixes() -> None:
    assert list(INTERFACE_FIXES) == [
        "rich_errors",
        "coverage",
        "units",
        "declarations",
    ]
    assert len(FAILURES) == len(set(FAILURES)) == 10
    assert [case.args for case in FIX_CASES] == [(failure,) for failure in FAILURES]
    assert [case.key for case in FIX_CASES] == [FixKey(source_text(f)) for f in FAILURES]
    per_fix = Counter(ANSWERS.values())
    assert set(per_fix) == set(INTERFACE_FIXES)
    assert min(per_fix.values()) >= 2, per_fix
    assert [source_text(case.name) for case in FIX_CASES] == [f"失败 {n}" for n in range(1, 11)]
    assert [languages(case.name)[1] for case in FIX_CASES] == [f"failure {n}" for n in range(1, 11)]
    assert all(description.strip() for description in INTERFACE_FIXES.values())


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_setup_names_do_not_hold_the_answer_key(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the exercise imports shows no fix per failure, in either language: not in
    names, hints, values or the call the report prints."""
    import tutorial_lib.course.chapters.ch08_walkthrough_and_evaluation.cases as module

    monkeypatch.setenv(LANGUAGE_VARIABLE, language)
    assert "FAILURE_FIXES" not in module.__all__ and not hasattr(module, "FAILURE_FIXES")
    assert isinstance(FAILURES, tuple) and all(type(f) is Text for f in FAILURES)
    assert all(type(w) is str and w.strip() for f in FAILURES for w in languages(f))
    for case in FIX_CASES:
        assert case.hint == FIX_HINT
        shown = f"{case.name} {case.hint} {case.expected!r} {case!r} {case.call_text('fix_for')}"
        assert not [fix for fix in INTERFACE_FIXES if fix in shown], shown
        assert isinstance(case.expected, SealedAnswer)
    # Every expected value is sealed with its own failure: equal fixes look different.
    assert len({case.expected.digest for case in FIX_CASES}) == len(FIX_CASES)
    for case in FIX_CASES:
        assert case.key is not None
        assert case.key(ANSWERS[case.args[0]]) == case.expected
        assert [case.key(f) == case.expected for f in INTERFACE_FIXES].count(True) == 1


def test_a_fix_of_the_wrong_type_or_name_fails_with_the_rule() -> None:
    for wrong, message in ((None, "要返回一个改进名（str）"), ("Units", "不是上表的改进名")):
        report = run_cases(lambda failure, w=wrong: w, FIX_CASES)
        assert report.passed == 0
        assert message in "\n".join(report.lines())


def test_no_failure_gives_its_fix_away_by_keywords() -> None:
    for failure, fix in ANSWERS.items():
        words = [part for part in fix.split("_") if len(part) > 3] + list(GIVE_AWAY[fix])
        for wording in languages(failure):
            found = [word for word in words if word.lower() in wording.lower()]
            assert not found, (wording, found)


def test_no_fix_description_repeats_a_failures_telltale_token() -> None:
    telltales = ("INVALID_ARGUMENT", "getData", "runAction", "sync", "timeout", "max_size")
    for fix, description in INTERFACE_FIXES.items():
        assert not [t for t in telltales if t in description], fix


def test_an_unknown_failure_is_not_an_exercise_input() -> None:
    with pytest.raises(KeyError, match="not a failure of the exercise"):
        library_fix_for("the model was tired")
    for failure, fix in ANSWERS.items():  # a Text, or its wording in either language
        assert [library_fix_for(f) for f in (failure, failure.zh, failure.en)] == [fix] * 3


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_learner_reads_each_failure_in_the_language_shown(
    language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fix_for`` gets the failure as a ``str`` in the current language, the report's call
    shows that wording, and the answers sealed with the Chinese source check it."""
    monkeypatch.setenv(LANGUAGE_VARIABLE, language)
    wordings = {
        languages(failure)[LANGUAGES.index(language)]: fix for failure, fix in ANSWERS.items()
    }
    seen: list[Any] = []

    def fix_for(failure: Any) -> str:
        seen.append(failure)
        return wordings[failure]

    report = run_cases(fix_for, FIX_CASES)
    assert report.all_passed, "\n".join(report.lines())
    assert seen == [str(failure) for failure in FAILURES] and all(type(f) is str for f in seen)
    wrong = run_cases(lambda failure: "units", FIX_CASES)
    text = "\n".join(wrong.lines())
    for result in wrong.results:  # a failing case shows the call with the wording it passed
        (failure,) = result.case.args
        call = f"<lambda>({describe_whole(str(failure))})"
        assert (call in text) is (not result.passed), (call, text)


def test_shortcuts_fail_the_fix_table() -> None:
    def always(fix: str) -> Callable[[str], str]:
        return lambda failure: fix

    for fix in INTERFACE_FIXES:
        report = run_cases(always(fix), FIX_CASES)
        assert report.passed == Counter(ANSWERS.values())[fix]

    def by_surface_words(failure: str) -> str:
        # The error code in the text suggests an error fix; anything about numbers, units.
        if "INVALID_ARGUMENT" in failure or "无效" in failure:
            return "rich_errors"
        if any(ch.isdigit() for ch in failure):
            return "units"
        return "declarations"

    assert not run_cases(by_surface_words, FIX_CASES).all_passed


def test_the_listed_order_does_not_group_the_failures_by_fix() -> None:
    fixes = [ANSWERS[failure] for failure in FAILURES]
    runs = sum(1 for a, b in zip(fixes, fixes[1:], strict=False) if a == b)
    assert runs <= 1, fixes
