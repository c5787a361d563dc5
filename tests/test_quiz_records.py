"""A class's quiz answers: each learner's first answers in a JSON file, then an item analysis."""

from __future__ import annotations

import json

import pytest

from tools import instructor
from tutorial_lib.course.quiz import (
    ANSWERS_FORMAT,
    AnswerRecorder,
    Question,
    Quiz,
    load_quiz,
)

CHAPTER = "08"


def answers_of(path):
    return json.loads(path.read_text(encoding="utf-8"))


def wrong_letter(question: Question) -> str:
    return next(letter for letter in question.letters if letter != question.answer)


def test_nothing_is_recorded_unless_asked(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("TUTORIAL_LIB_QUIZ_ANSWERS", raising=False)
    monkeypatch.chdir(tmp_path)
    quiz = load_quiz(CHAPTER)
    quiz.answer(1, "A")
    assert quiz.recorder is None and list(tmp_path.iterdir()) == []
    capsys.readouterr()


def test_answer_records_the_first_choice_of_each_question(tmp_path, capsys):
    path = tmp_path / "alice.json"
    quiz = load_quiz(CHAPTER, record_to=path, learner="alice")
    first = quiz.questions[0]
    quiz.answer(1, wrong_letter(first))
    quiz.answer(1, first.answer)  # a second try is not recorded: the first answer counts
    quiz.answer(2, quiz.questions[1].answer.lower())
    capsys.readouterr()
    data = answers_of(path)
    assert data == {
        "format": ANSWERS_FORMAT,
        "learner": "alice",
        "quizzes": {
            CHAPTER: {
                "title": quiz.title,
                "answers": {
                    "1": {
                        "chosen": wrong_letter(first),
                        "correct": first.answer,
                        "question": first.fingerprint,
                    },
                    "2": {
                        "chosen": quiz.questions[1].answer,
                        "correct": quiz.questions[1].answer,
                        "question": quiz.questions[1].fingerprint,
                    },
                },
            }
        },
    }


def test_the_widget_records_what_is_submitted(tmp_path):
    path = tmp_path / "bob.json"
    quiz = load_quiz(CHAPTER, record_to=path, learner="bob")
    view = quiz.widget()
    view.choose(3, quiz.questions[2].answer)
    assert (
        answers_of(path)["quizzes"][CHAPTER]["answers"]["3"]["chosen"] == quiz.questions[2].answer
    )
    # judging without submitting (feedback) records nothing
    quiz.feedback(4, "A")
    assert set(answers_of(path)["quizzes"][CHAPTER]["answers"]) == {"3"}


def test_the_file_is_the_same_whatever_the_order_of_answers(tmp_path, capsys):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    quiz_one = load_quiz(CHAPTER, record_to=one, learner="carol")
    quiz_two = load_quiz(CHAPTER, record_to=two, learner="carol")
    for number in (1, 2, 3):
        quiz_one.answer(number, "A")
    for number in (3, 1, 2):
        quiz_two.answer(number, "A")
    capsys.readouterr()
    assert one.read_bytes() == two.read_bytes()
    assert one.read_text(encoding="utf-8").endswith("}\n")
    answers = answers_of(one)["quizzes"][CHAPTER]["answers"].values()
    assert all(set(answer) == {"chosen", "correct", "question"} for answer in answers)  # no time


def test_a_clock_adds_the_time_of_each_answer(tmp_path):
    path = tmp_path / "dan.json"
    quiz = load_quiz(CHAPTER, record_to=path, learner="dan", clock=lambda: "2026-03-02T09:15")
    quiz.submit(1, "B")
    assert answers_of(path)["quizzes"][CHAPTER]["answers"]["1"]["at"] == "2026-03-02T09:15"


def test_environment_variables_turn_recording_on(tmp_path, monkeypatch, capsys):
    path = tmp_path / "class" / "erin.json"
    monkeypatch.setenv("TUTORIAL_LIB_QUIZ_ANSWERS", str(path))
    monkeypatch.setenv("TUTORIAL_LIB_LEARNER", "erin")
    load_quiz("00").answer(1, "C")
    load_quiz(CHAPTER).answer(1, "D")
    capsys.readouterr()
    data = answers_of(path)
    assert data["learner"] == "erin" and sorted(data["quizzes"]) == ["00", CHAPTER]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"learner": "alice"}, "needs record_to"),
        ({"record_to": "x.json"}, "learner's name"),
        ({"record_to": "x.json", "learner": "  "}, "learner's name"),
    ],
)
def test_recording_needs_a_file_and_a_learner(tmp_path, monkeypatch, kwargs, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=message):
        load_quiz(CHAPTER, **kwargs)


def test_a_file_holds_one_learner(tmp_path, capsys):
    path = tmp_path / "shared.json"
    load_quiz(CHAPTER, record_to=path, learner="alice").answer(1, "A")
    capsys.readouterr()
    with pytest.raises(ValueError, match="holds the answers of 'alice', not 'bob'"):
        load_quiz(CHAPTER, record_to=path, learner="bob")


def test_a_broken_file_is_reported_not_overwritten(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not a readable answers file"):
        AnswerRecorder(path, "alice")
    path.write_text('{"format": "other"}', encoding="utf-8")
    with pytest.raises(ValueError, match="not an answers file"):
        AnswerRecorder(path, "alice")
    assert path.read_text(encoding="utf-8") == '{"format": "other"}'


def test_a_recording_quiz_needs_its_chapter(tmp_path):
    question = Question("2 + 2?", ("3", "4"), "B", "Four.")
    with pytest.raises(ValueError, match="needs its chapter"):
        Quiz("t", [question], recorder=AnswerRecorder(tmp_path / "a.json", "alice"))


def test_the_fingerprint_changes_with_the_question():
    question = Question("2 + 2?", ("3", "4"), "B", "Four.")
    assert question.fingerprint == Question("2 + 2?", ("3", "4"), "B", "Other words.").fingerprint
    assert question.fingerprint != Question("2 + 2?", ("4", "3"), "A", "Four.").fingerprint


# -- the item analysis --------------------------------------------------------------------


def class_files(tmp_path, capsys):
    """Four learners answer questions 1 and 2 of chapter 08; question 3 only alice."""
    quiz = load_quiz(CHAPTER)
    q1, q2 = quiz.questions[0], quiz.questions[1]
    wrong1, wrong2 = wrong_letter(q1), wrong_letter(q2)
    choices = {
        "alice": [q1.answer, q2.answer],
        "bob": [q1.answer, wrong2],
        "carol": [wrong1, wrong2],
        "dan": [q1.answer, q2.answer],
    }
    paths = []
    for learner, (first, second) in choices.items():
        path = tmp_path / f"{learner}.json"
        recorded = load_quiz(CHAPTER, record_to=path, learner=learner)
        recorded.answer(1, first)
        recorded.answer(2, second)
        if learner == "alice":
            recorded.answer(3, quiz.questions[2].answer)
        paths.append(path)
    capsys.readouterr()
    return paths, (q1, q2, wrong1, wrong2)


def test_items_counts_each_option_and_the_share_correct(tmp_path, capsys):
    paths, (q1, q2, wrong1, wrong2) = class_files(tmp_path, capsys)
    rows = instructor.item_rows(instructor.read_answers(paths))
    assert [(r["chapter"], r["question"], r["answered"]) for r in rows] == [
        (CHAPTER, 1, 4),
        (CHAPTER, 2, 4),
        (CHAPTER, 3, 1),
    ]
    assert rows[0]["correct"] == q1.answer and rows[0]["share_correct"] == 0.75
    assert rows[0]["counts"] == {q1.answer: 3, wrong1: 1}
    assert rows[1]["share_correct"] == 0.5 and rows[1]["counts"] == {q2.answer: 2, wrong2: 2}


def test_items_prints_a_table_and_writes_csv(tmp_path, capsys):
    paths, (q1, _q2, wrong1, _wrong2) = class_files(tmp_path, capsys)
    out = tmp_path / "items.csv"
    assert instructor.main(["items", *map(str, paths), "--csv", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "4 answer file(s)" in printed and "75%" in printed and "3*" in printed
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "chapter,question,answered,correct,share_correct,A,B,C,D"
    counts = {letter: 0 for letter in "ABCD"} | {q1.answer: 3, wrong1: 1}
    expected = ",".join(["08", "1", "4", q1.answer, "0.7500", *(str(counts[x]) for x in "ABCD")])
    assert lines[1] == expected
    assert len(lines) == 4


def test_items_refuses_a_learner_twice_and_changed_questions(tmp_path, capsys):
    paths, _ = class_files(tmp_path, capsys)
    copy = tmp_path / "alice-again.json"
    copy.write_bytes(paths[0].read_bytes())
    assert instructor.main(["items", str(paths[0]), str(copy)]) == 2
    assert "appears in two files" in capsys.readouterr().err
    changed = json.loads(paths[1].read_text(encoding="utf-8"))
    changed["quizzes"][CHAPTER]["answers"]["1"]["question"] = "000000000000"
    paths[1].write_text(json.dumps(changed), encoding="utf-8")
    assert instructor.main(["items", *map(str, paths)]) == 2
    assert "another version of the question" in capsys.readouterr().err


def test_items_refuses_files_that_are_not_answers(tmp_path, capsys):
    other = tmp_path / "grades.json"
    other.write_text("{}", encoding="utf-8")
    assert instructor.main(["items", str(other)]) == 2
    assert "not a quiz answers file" in capsys.readouterr().err
