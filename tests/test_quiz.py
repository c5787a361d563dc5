"""Quizzes: the learner answers first, only then sees the explanation; widget and text agree."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator
from importlib import resources

import pytest

from tutorial_lib.course.quiz import Question, Quiz, QuizView, load_quiz, quiz_from_dict

QUESTION = Question("2 + 2?", ("3", "4"), "B", "Two and two make four.")
REASONED = Question(
    "Which is even?\n```\n>>> [n % 2 for n in (3, 4)]\n[1, 0]\n```\nPick one.",
    ("3", "4"),
    "B",
    "An even number leaves no remainder.",
    ("3 % 2 is 1: a remainder is left.", "4 % 2 is 0: no remainder."),
)


def bank_chapters() -> list[str]:
    bank = resources.files("tutorial_lib.course.quiz_bank")
    return sorted(p.name[:2] for p in bank.iterdir() if p.name.endswith(".json"))


def bank_questions() -> list[tuple[str, int, Question]]:
    """Every question of the bank as (chapter, number, question)."""
    return [
        (chapter, number, question)
        for chapter in bank_chapters()
        for number, question in enumerate(load_quiz(chapter).questions, start=1)
    ]


def bank_texts() -> Iterator[tuple[str, str]]:
    """Every text a learner reads in the bank, with where it is."""
    for chapter in bank_chapters():
        quiz = load_quiz(chapter)
        yield f"{chapter} title", quiz.title
        for number, question in enumerate(quiz.questions, start=1):
            where = f"{chapter} Q{number}"
            yield f"{where} prompt", question.prompt
            yield f"{where} explanation", question.explanation
            for letter, option, reason in zip(
                question.letters, question.options, question.reasons, strict=True
            ):
                yield f"{where} option {letter}", option
                yield f"{where} reason {letter}", reason


def correct_is_strictly_longest(question: Question) -> bool:
    index = question.letters.index(question.answer)
    lengths = [len(option) for option in question.options]
    return lengths[index] > max(lengths[:index] + lengths[index + 1 :])


@pytest.mark.parametrize("chapter", bank_chapters())
def test_every_quiz_in_the_bank_loads_and_is_well_formed(chapter):
    quiz = load_quiz(chapter)
    assert len(quiz) >= 3
    data = json.loads(
        resources.files("tutorial_lib.course.quiz_bank")
        .joinpath(f"{chapter}.json")
        .read_text("utf-8")
    )
    assert data["chapter"] == chapter
    for question in quiz.questions:
        assert len(set(question.options)) == len(question.options), "duplicate options"


def test_answers_are_spread_over_letters():
    # A bank where every answer is "B" teaches guessing, not reading.
    for chapter in bank_chapters():
        questions = load_quiz(chapter).questions
        counts = Counter(q.answer for q in questions)
        assert len(counts) >= 3, f"quiz {chapter}: answers use only {sorted(counts)}"
        most = math.ceil(len(questions) / 4) + 1
        assert max(counts.values()) <= most, f"quiz {chapter}: answers {dict(counts)}"


def test_each_letter_is_correct_in_15_to_35_percent_of_the_bank():
    questions = [q for _, _, q in bank_questions()]
    counts = Counter(q.answer for q in questions)
    for letter in sorted({letter for q in questions for letter in q.letters}):
        share = counts[letter] / len(questions)
        assert 0.15 <= share <= 0.35, f"{letter} is correct in {share:.0%}: {dict(counts)}"


def test_the_correct_option_is_rarely_the_longest():
    # Test-wise learners pick the longest option; it must not pay off.
    questions = bank_questions()
    longest = [f"{c} Q{n}" for c, n, q in questions if correct_is_strictly_longest(q)]
    share = len(longest) / len(questions)
    assert share <= 0.25, f"correct option strictly longest in {share:.0%}: {longest}"


def test_every_option_in_the_bank_says_why_it_is_right_or_wrong():
    for chapter, number, question in bank_questions():
        assert len(question.reasons) == len(question.options), f"{chapter} Q{number}"


@pytest.mark.parametrize("chapter", bank_chapters())
def test_every_chapter_asks_about_shown_outputs(chapter):
    # At least two questions show a tool result or an output and ask what happens next.
    shown = [q for q in load_quiz(chapter).questions if q.shows_output]
    assert len(shown) >= 2, f"quiz {chapter}: {len(shown)} questions show an output"


def test_text_fallback_shows_no_answer_and_no_explanation():
    quiz = Quiz("t", [QUESTION])
    text = quiz.text()
    assert "2 + 2?" in text and "A. 3" in text and "B. 4" in text
    assert "Two and two" not in text


def test_answer_prints_verdict_then_explanation(capsys):
    quiz = Quiz("t", [QUESTION])
    quiz.answer(1, "a")
    assert capsys.readouterr().out == (
        "第 1 题：你选 A，不对；正确答案是 B。\n解释：Two and two make four.\n"
    )
    quiz.answer(1, " B ")
    assert capsys.readouterr().out.startswith("第 1 题：你选 B，正确。")


@pytest.mark.parametrize(
    ("number", "choice", "message"),
    [
        (0, "A", "from 1 to 1"),
        (2, "A", "from 1 to 1"),
        (True, "A", "from 1 to 1"),
        (1, "C", r"one of \['A', 'B'\]"),
        (1, 1, r"one of \['A', 'B'\]"),
    ],
)
def test_bad_answers_get_a_clear_error(number, choice, message):
    with pytest.raises(ValueError, match=message):
        Quiz("t", [QUESTION]).feedback(number, choice)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"prompt": " "}, "needs a prompt"),
        ({"options": ("only",)}, "2 to 26 options"),
        ({"answer": "Z"}, "answer must be one of"),
        ({"explanation": ""}, "needs an explanation"),
    ],
)
def test_malformed_questions_are_refused(kwargs, message):
    fields = {"prompt": "p", "options": ("a", "b"), "answer": "A", "explanation": "e"} | kwargs
    with pytest.raises(ValueError, match=message):
        Question(**fields)


def test_reasons_need_one_non_empty_reason_per_option():
    with pytest.raises(ValueError, match="one non-empty reason per option"):
        Question("p", ("a", "b"), "A", "e", ("only one",))
    with pytest.raises(ValueError, match="one non-empty reason per option"):
        Question("p", ("a", "b"), "A", "e", ("fine", " "))


def test_feedback_lists_why_each_option_is_right_or_wrong(capsys):
    Quiz("t", [REASONED]).answer(1, "A")
    assert capsys.readouterr().out == (
        "第 1 题：你选 A，不对；正确答案是 B。\n"
        "解释：An even number leaves no remainder.\n"
        "逐项：\n"
        "  A ✗ 3 % 2 is 1: a remainder is left.\n"
        "  B ✓ 4 % 2 is 0: no remainder.\n"
    )


def test_text_fallback_indents_a_shown_output_and_hides_reasons():
    text = Quiz("t", [REASONED]).text()
    assert "1. Which is even?\n   ```\n   >>> [n % 2 for n in (3, 4)]\n   [1, 0]\n   ```" in text
    assert "remainder" not in text


def test_widget_shows_outputs_as_code_and_reasons_only_after_submitting():
    view = Quiz("t", [REASONED]).widget()
    question = view.question_views[0]
    assert '<pre class="tl-quiz-code"' in question.prompt.value
    assert "&gt;&gt;&gt; [n % 2 for n in (3, 4)]\n[1, 0]</pre>" in question.prompt.value
    assert "```" not in question.prompt.value
    assert question.feedback.value == ""
    view.choose(1, "B")
    feedback = question.feedback.value
    assert feedback.count('class="tl-quiz-explanation"') == 1  # the browser test finds one
    assert '<div class="tl-quiz-explanation">解释：An even number' in feedback
    assert '<ul class="tl-quiz-reasons">' in feedback
    assert feedback.count('class="tl-quiz-reason"') == 2
    assert "B ✓ 4 % 2 is 0: no remainder." in feedback


def test_shows_output_needs_a_fenced_block():
    assert REASONED.shows_output
    assert not QUESTION.shows_output
    assert not Question("Use `call_tool` here?", ("a", "b"), "A", "e").shows_output


def test_load_quiz_rejects_unknown_chapters():
    with pytest.raises(ValueError, match="two digits"):
        load_quiz("0")
    with pytest.raises(ValueError, match="no quiz"):
        load_quiz("99")


def test_widget_hides_explanation_until_submitted():
    view = Quiz("t", [QUESTION, QUESTION]).widget()
    first = view.question_views[0]
    assert first.submit.disabled, "submit must wait for a choice"
    assert first.feedback.value == ""
    first.options.value = "B"
    assert not first.submit.disabled
    assert first.feedback.value == "", "choosing alone must not reveal the explanation"
    first.submit.click()
    assert "tl-quiz-explanation" in first.feedback.value
    assert "Two and two make four." in first.feedback.value
    assert "tl-quiz-correct" in first.feedback.value
    assert first.options.disabled and first.submit.disabled, "the first answer counts"
    assert view.score.value == "已作答 1/2 题，答对 1 题。"


def test_widget_and_headless_path_agree():
    quiz = Quiz("t", [QUESTION])
    view = quiz.widget()
    assert view.choose(1, "A") == quiz.feedback(1, "A")
    assert "tl-quiz-wrong" in view.question_views[0].feedback.value
    assert view.score.value == "已作答 1/1 题，答对 0 题。"


def test_widget_escapes_html_in_content():
    quiz = Quiz("<t>", [Question("<script>x</script>?", ("<a>", "b"), "A", "<b>e</b>")])
    view = quiz.widget()
    assert "<script>" not in view.question_views[0].prompt.value
    view.choose(1, "A")
    assert "&lt;b&gt;e&lt;/b&gt;" in view.question_views[0].feedback.value


def test_widget_has_stable_css_classes():
    view = Quiz("t", [QUESTION]).widget()
    question = view.question_views[0]
    assert "tl-quiz" in view._dom_classes
    assert "tl-quiz-question" in question.box._dom_classes
    assert "tl-quiz-options" in question.options._dom_classes
    assert "tl-quiz-submit" in question.submit._dom_classes
    assert "tl-quiz-feedback" in question.feedback._dom_classes
    assert "tl-quiz-score" in view.score._dom_classes


def test_widget_plain_text_is_the_text_fallback():
    quiz = Quiz("t", [QUESTION])
    bundle = QuizView(quiz)._repr_mimebundle_()
    assert bundle["text/plain"] == quiz.text()
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_show_outside_a_kernel_prints_the_text(capsys):
    quiz = Quiz("t", [QUESTION])
    quiz.show()
    assert capsys.readouterr().out == quiz.text() + "\n"


def test_quiz_from_dict_round_trip():
    quiz = quiz_from_dict(
        {
            "title": "t",
            "questions": [
                {"prompt": "p", "options": ["a", "b"], "answer": "B", "explanation": "e"}
            ],
        }
    )
    assert quiz.questions[0] == Question("p", ("a", "b"), "B", "e")


def test_quiz_from_dict_reads_reasons_and_refuses_half_of_them():
    option = {"text": "a", "why": "because"}
    quiz = quiz_from_dict(
        {
            "title": "t",
            "questions": [
                {
                    "prompt": "p",
                    "options": [option, {"text": "b", "why": "why not"}],
                    "answer": "A",
                    "explanation": "e",
                }
            ],
        }
    )
    assert quiz.questions[0] == Question("p", ("a", "b"), "A", "e", ("because", "why not"))
    half = {"prompt": "p", "options": [option, "b"], "answer": "A", "explanation": "e"}
    with pytest.raises(ValueError, match="every option a reason"):
        quiz_from_dict({"title": "t", "questions": [half]})
