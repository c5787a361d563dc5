"""Quizzes: the learner answers first, only then sees the explanation; widget and text agree."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from tutorial_lib.course.quiz import Question, Quiz, QuizView, load_quiz, quiz_from_dict

QUESTION = Question("2 + 2?", ("3", "4"), "B", "Two and two make four.")


def bank_chapters() -> list[str]:
    bank = resources.files("tutorial_lib.course.quiz_bank")
    return sorted(p.name[:2] for p in bank.iterdir() if p.name.endswith(".json"))


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
        answers = {q.answer for q in load_quiz(chapter).questions}
        assert len(answers) >= 2, f"quiz {chapter}: all answers are the same letter"


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
