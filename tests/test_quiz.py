"""Quizzes: the learner answers first, only then sees the explanation; widget and text agree."""

from __future__ import annotations

import json
import math
import re
import string
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from tutorial_lib.course.chapters import homes, quiz_file
from tutorial_lib.course.quiz import Question, Quiz, QuizView, load_quiz, quiz_from_dict
from tutorial_lib.language import LANGUAGE_VARIABLE

QUESTION = Question("2 + 2?", ("3", "4"), "B", "Two and two make four.")
REASONED = Question(
    "Which is even?\n```\n>>> [n % 2 for n in (3, 4)]\n[1, 0]\n```\nPick one.",
    ("3", "4"),
    "B",
    "An even number leaves no remainder.",
    ("3 % 2 is 1: a remainder is left.", "4 % 2 is 0: no remainder."),
)


def bank_chapters() -> list[str]:
    return [number for number, home in homes().items() if home.joinpath("quiz.json").is_file()]


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
    data = json.loads(quiz_file(chapter).read_text("utf-8"))
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


# --- the English edition ---------------------------------------------------------------------

#: Chinese characters and full-width punctuation: none may be left in an English text.
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
FENCE = re.compile(r"^```[\w-]*\n(.*?)\n```$", re.DOTALL | re.MULTILINE)
CODE_SPAN = re.compile(r"`([^`\n]+)`")


def bank_data(chapter: str) -> dict[str, Any]:
    return json.loads(quiz_file(chapter).read_text("utf-8"))


def bank_pairs(chapter: str) -> Iterator[tuple[str, str, str]]:
    """(where, Chinese text, its English sibling or "") for every text of a bank."""
    data = bank_data(chapter)
    yield "title", data["title"], data.get("title_en") or ""
    for number, question in enumerate(data["questions"], start=1):
        where = f"Q{number}"
        yield f"{where} prompt", question["prompt"], question.get("prompt_en") or ""
        yield (
            f"{where} explanation",
            question["explanation"],
            question.get("explanation_en") or "",
        )
        for letter, option in zip(string.ascii_uppercase, question["options"], strict=False):
            yield f"{where} option {letter} text", option["text"], option.get("text_en") or ""
            yield f"{where} option {letter} why", option["why"], option.get("why_en") or ""


@pytest.mark.parametrize("chapter", bank_chapters())
def test_every_bank_text_has_a_non_empty_english_sibling(chapter):
    data = bank_data(chapter)
    assert set(data) == {"chapter", "title", "title_en", "questions"}, sorted(data)
    for number, question in enumerate(data["questions"], start=1):
        keys = {"prompt", "prompt_en", "options", "answer", "explanation", "explanation_en"}
        assert set(question) == keys, f"bank {chapter} Q{number}: keys {sorted(question)}"
        for letter, option in zip(string.ascii_uppercase, question["options"], strict=False):
            assert set(option) == {"text", "text_en", "why", "why_en"}, (
                f"bank {chapter} Q{number} option {letter}: keys {sorted(option)}"
            )
        for key in ("text_en", "why_en"):
            english = [option.get(key) for option in question["options"]]
            assert len(set(english)) == len(english), f"bank {chapter} Q{number}: repeated {key}"
    missing = [where for where, _, english in bank_pairs(chapter) if not english.strip()]
    assert not missing, f"bank {chapter}: no English text for {missing}"
    untranslated = [
        f"{where}: {CJK.findall(english)}"
        for where, _, english in bank_pairs(chapter)
        if CJK.search(english)
    ]
    assert not untranslated, f"bank {chapter}: Chinese left in the English text: {untranslated}"


@pytest.mark.parametrize("chapter", bank_chapters())
def test_english_keeps_the_shown_outputs_and_the_code(chapter):
    for where, chinese, english in bank_pairs(chapter):
        assert len(FENCE.findall(english)) == len(FENCE.findall(chinese)), (
            f"bank {chapter} {where}: the English shows another number of outputs"
        )
        spans = {span for span in CODE_SPAN.findall(FENCE.sub("", chinese)) if not CJK.search(span)}
        lost = spans - set(CODE_SPAN.findall(FENCE.sub("", english)))
        assert not lost, f"bank {chapter} {where}: code spans missing in English: {sorted(lost)}"
        for shown_zh, shown_en in zip(FENCE.findall(chinese), FENCE.findall(english), strict=True):
            # A shown output keeps every line without Chinese (spacing may differ in a table).
            english_lines = [line.split() for line in shown_en.split("\n")]
            changed = [
                line
                for line in shown_zh.split("\n")
                if not CJK.search(line) and set(line) - set("- ")
                if line.split() not in english_lines
            ]
            assert not changed, f"bank {chapter} {where}: shown output changed: {changed}"


@pytest.mark.parametrize("chapter", bank_chapters())
def test_the_english_correct_option_is_rarely_the_longest(chapter, monkeypatch):
    # The Chinese bank's length balance must survive translation.
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    questions = load_quiz(chapter).questions
    longest = [n for n, q in enumerate(questions, start=1) if correct_is_strictly_longest(q)]
    assert len(longest) <= int(0.25 * len(questions)), f"quiz {chapter} in English: Q{longest}"


def test_a_quiz_loaded_in_english_speaks_english(monkeypatch):
    data = bank_data("00")
    first = data["questions"][0]
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    quiz = load_quiz("00")
    question = quiz.questions[0]
    assert quiz.language == "en"
    assert quiz.title == data["title_en"]
    assert question.prompt == first["prompt_en"]
    assert question.options == tuple(option["text_en"] for option in first["options"])
    assert question.reasons == tuple(option["why_en"] for option in first["options"])
    assert question.explanation == first["explanation_en"]
    wrong = next(letter for letter in question.letters if letter != question.answer)
    feedback = quiz.feedback(1, wrong)
    assert feedback.verdict == (
        f"Question 1: you chose {wrong}, which is wrong; the correct answer is {question.answer}."
    )
    assert quiz.feedback(1, question.answer).verdict == (
        f"Question 1: you chose {question.answer}, which is correct."
    )
    shown = feedback.text()
    assert "Explanation: " in shown and "Option by option:" in shown
    assert first["options"][0]["why_en"].split()[0] in shown
    text = quiz.text()
    assert text.startswith(f"Quiz: {data['title_en']} (6 questions;")
    assert text.endswith("or run quiz.answer(number, 'letter').")
    assert not CJK.search(text + shown), "Chinese left in the English quiz"


def test_the_english_widget_has_english_labels(monkeypatch):
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    quiz = load_quiz("00")
    view = quiz.widget()
    question = view.question_views[0]
    assert view.heading.value == f"<h3>Quiz: {bank_data('00')['title_en']}</h3>"
    assert question.submit.description == "Submit answer"
    assert view.score.value == "Answered 0/6, 0 correct."
    view.choose(1, quiz.questions[0].answer)
    assert '<div class="tl-quiz-explanation">Explanation: ' in question.feedback.value
    assert view.score.value == "Answered 1/6, 1 correct."
    assert not CJK.search(question.prompt.value + question.feedback.value)
    assert not any(CJK.search(label) for label, _ in question.options.options)


def test_a_quiz_keeps_the_language_it_was_loaded_in(monkeypatch):
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    english = load_quiz("00")
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")
    chinese = load_quiz("00")
    assert english.feedback(1, "A").verdict.startswith("Question 1: you chose A")
    assert english.text().startswith("Quiz: ")
    assert chinese.feedback(1, "A").verdict.startswith("第 1 题：你选 A")
    assert chinese.questions[0].prompt == bank_data("00")["questions"][0]["prompt"]
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    assert chinese.text().startswith("自测：")
    assert chinese.widget().question_views[0].submit.description == "提交答案"


def test_chinese_stays_the_default(monkeypatch):
    monkeypatch.delenv(LANGUAGE_VARIABLE, raising=False)
    quiz = load_quiz("00")
    assert quiz.language == "zh" and quiz.title == bank_data("00")["title"]
    assert quiz.text().startswith(f"自测：{quiz.title}（6 题；提交答案后才显示解释）")


@pytest.mark.parametrize("chapter", bank_chapters())
def test_a_question_has_one_fingerprint_in_both_languages(chapter, monkeypatch):
    # Answers recorded in the English edition pool with the Chinese ones in the item analysis.
    monkeypatch.setenv(LANGUAGE_VARIABLE, "zh")
    chinese = [q.fingerprint for q in load_quiz(chapter).questions]
    monkeypatch.setenv(LANGUAGE_VARIABLE, "en")
    assert [q.fingerprint for q in load_quiz(chapter).questions] == chinese


def test_quiz_from_dict_shows_a_text_without_english_as_it_is():
    data = {
        "title": "t",
        "title_en": "T",
        "questions": [
            {
                "prompt": "p",
                "prompt_en": "P",
                "options": [{"text": "a", "why": "w"}, {"text": "b", "text_en": "B", "why": "v"}],
                "answer": "A",
                "explanation": "e",
            }
        ],
    }
    quiz = quiz_from_dict(data, language="en")
    assert quiz.title == "T" and quiz.language == "en"
    assert quiz.questions[0] == Question("P", ("a", "B"), "A", "e", ("w", "v"))
    assert quiz_from_dict(data, language="zh").questions[0].prompt == "p"
    with pytest.raises(ValueError, match="language must be one of"):
        quiz_from_dict(data, language="fr")  # type: ignore[arg-type]
