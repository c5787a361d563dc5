"""Self-check quizzes: answer first, only then read the explanation.

Each chapter ends with ``load_quiz("NN").show()``. In JupyterLab that is an ipywidgets
view (options, a submit button, the explanation revealed after submitting); elsewhere it
prints the questions as plain text. ``Quiz.answer(number, "B")`` is the same decision
without a frontend: tests, nbval and terminal users call it.

The questions live in each chapter's home, ``tutorial_lib/course/chapters/chNN_topic/quiz.json``,
and not in the notebook, so
the answers are not sitting in a code cell above the quiz. A bank question gives every
option its own reason (why it is right or wrong); the learner sees them all after answering.
A prompt may show a tool result or a cell's output as a fenced block (three backticks on a
line of their own); the widget renders it as preformatted text.

Every text of a bank has an English sibling (``title_en``, ``prompt_en``, ``explanation_en``,
and ``text_en`` / ``why_en`` in each option). A quiz speaks the language that
``tutorial_lib.language.current_language()`` names when it is loaded: its questions,
verdicts, labels and help line all stay in that language, whatever is switched later.

For a class, a quiz can record each learner's first answer to every question in a local
JSON file (opt-in): ``load_quiz("08", record_to="answers.json", learner="alice")``, or the
environment variables ``TUTORIAL_LIB_QUIZ_ANSWERS`` (the file) and ``TUTORIAL_LIB_LEARNER``.
The file is deterministic (sorted keys, no timestamps unless a ``clock`` is given);
``python tools/instructor.py items FILES...`` turns a class's files into an item analysis.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from tutorial_lib.course.chapters import quiz_file
from tutorial_lib.course.table import wrap
from tutorial_lib.language import Language, Text, checked_language, current_language

__all__ = [
    "ANSWERS_FORMAT",
    "AnswerRecorder",
    "Feedback",
    "Question",
    "Quiz",
    "QuizView",
    "load_quiz",
]

LETTERS = string.ascii_uppercase
#: Display columns of the plain-text quiz: prose wraps to fit a notebook's output area.
TEXT_WIDTH = 96
# A fenced block in a prompt: ``` (optionally with a language word) ... ``` on their own lines.
_FENCE = re.compile(r"^```[\w-]*\n(.*?)\n```$", re.DOTALL | re.MULTILINE)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
# Long JSON lines wrap instead of scrolling sideways inside the quiz; a grey box sets them off.
_CODE_STYLE = "white-space:pre-wrap;background:#f6f8fa;padding:4px 8px"
#: The ``format`` of an answers file written by :class:`AnswerRecorder`.
ANSWERS_FORMAT = "tutorial-lib-quiz-answers/1"
#: Opt-in recording without changing a notebook: the answers file and the learner's name.
ANSWERS_ENV = "TUTORIAL_LIB_QUIZ_ANSWERS"
LEARNER_ENV = "TUTORIAL_LIB_LEARNER"

# What the learner reads around the questions, in both languages; a quiz shows the language it
# was loaded in (see :meth:`Text.in_language`). Placeholders are filled with ``str.format``.
_HEADER = Text(
    zh="自测：{title}（{count} 题；提交答案后才显示解释）",
    en="Quiz: {title} ({count} {questions}; the explanations appear only after you submit)",
)
_HOW_TO_ANSWER = Text(
    zh="作答：在上方控件里选择并提交；或者运行 quiz.answer(题号, '字母')。",
    en="To answer: choose and submit in the widget above, or run quiz.answer(number, 'letter').",
)
_VERDICT_RIGHT = Text(
    zh="第 {number} 题：你选 {chosen}，正确。",
    en="Question {number}: you chose {chosen}, which is correct.",
)
_VERDICT_WRONG = Text(
    zh="第 {number} 题：你选 {chosen}，不对；正确答案是 {answer}。",
    en="Question {number}: you chose {chosen}, which is wrong; the correct answer is {answer}.",
)
_EXPLANATION = Text(zh="解释：", en="Explanation: ")
_REASONS = Text(zh="逐项：", en="Option by option:")
_SUBMIT = Text(zh="提交答案", en="Submit answer")
_HEADING = Text(zh="自测：{title}", en="Quiz: {title}")
_SCORE = Text(
    zh="已作答 {answered}/{total} 题，答对 {right} 题。",
    en="Answered {answered}/{total}, {right} correct.",
)


@dataclass(frozen=True)
class Question:
    """A multiple-choice question with exactly one correct option.

    ``answer`` is the correct option's letter (``"A"``, ``"B"``, ...). ``explanation`` is
    shown only after the learner has answered, and so are ``reasons``: one per option, in
    option order, saying why that option is right or wrong (empty: the explanation alone).
    ``original`` is the question this one translates (the bank's Chinese question, for a quiz
    loaded in English); it gives the fingerprint, so answers pool across languages.
    """

    prompt: str
    options: tuple[str, ...]
    answer: str
    explanation: str
    reasons: tuple[str, ...] = ()
    original: Question | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.prompt.strip():
            raise ValueError("a question needs a prompt")
        if not 2 <= len(self.options) <= len(LETTERS):
            raise ValueError(f"a question needs 2 to 26 options, got {len(self.options)}")
        if self.answer not in self.letters:
            raise ValueError(f"answer must be one of {list(self.letters)}, got {self.answer!r}")
        if not self.explanation.strip():
            raise ValueError("a question needs an explanation")
        if self.reasons and (
            len(self.reasons) != len(self.options) or not all(r.strip() for r in self.reasons)
        ):
            raise ValueError(
                f"reasons must give one non-empty reason per option: {len(self.options)}"
                f" options, {len(self.reasons)} reasons"
            )

    @property
    def letters(self) -> tuple[str, ...]:
        """The option letters, ``("A", "B", ...)``."""
        return tuple(LETTERS[: len(self.options)])

    @property
    def shows_output(self) -> bool:
        """Whether the prompt shows a tool result or an output as a fenced block."""
        return _FENCE.search(self.prompt) is not None

    @property
    def fingerprint(self) -> str:
        """12 hex digits that change when the prompt, the options or the answer change.

        A translation has the fingerprint of its original: the same question in any language.
        """
        if self.original is not None:
            return self.original.fingerprint
        text = json.dumps([self.prompt, list(self.options), self.answer], ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    def text(self, number: int) -> str:
        """The question and its options as plain text (no answer, no explanation)."""
        first, *rest = self.prompt.split("\n")
        # Later prompt lines (a shown output, say) are indented under the question's number;
        # prose is wrapped to fit a notebook's width, a shown output never.
        lines = wrap(f"{number}. {first}", TEXT_WIDTH, "   ")
        fenced = False
        for line in rest:
            if line.startswith("```"):
                fenced = not fenced
            if fenced or line.startswith("```") or not line:
                lines.append(f"   {line}" if line else "")
            else:
                lines += wrap(f"   {line}", TEXT_WIDTH, "   ")
        for letter, option in zip(self.letters, self.options, strict=True):
            lines += wrap(f"   {letter}. {option}", TEXT_WIDTH, "      ")
        return "\n".join(lines)


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer, with the explanation the learner has now earned."""

    number: int
    chosen: str
    correct_answer: str
    explanation: str
    reasons: tuple[str, ...] = ()
    #: The language of :attr:`verdict` and :meth:`text` (the quiz's language).
    language: Language = field(default_factory=current_language)

    @property
    def correct(self) -> bool:
        return self.chosen == self.correct_answer

    @property
    def verdict(self) -> str:
        """The first line of :meth:`text`: which option was chosen, and whether it is right."""
        verdict = _VERDICT_RIGHT if self.correct else _VERDICT_WRONG
        return verdict.in_language(self.language).format(
            number=self.number, chosen=self.chosen, answer=self.correct_answer
        )

    def reason_lines(self) -> list[str]:
        """One line per option: its letter, ✓ or ✗, and why (empty without reasons)."""
        return [
            f"{letter} {'✓' if letter == self.correct_answer else '✗'} {reason}"
            for letter, reason in zip(LETTERS, self.reasons, strict=False)
        ]

    def text(self) -> str:
        explanation = _EXPLANATION.in_language(self.language) + self.explanation
        lines = [self.verdict, *wrap(explanation, TEXT_WIDTH, "  ")]
        if self.reasons:
            lines.append(_REASONS.in_language(self.language))
            for line in self.reason_lines():
                lines += wrap(f"  {line}", TEXT_WIDTH, "    ")
        return "\n".join(lines)


class AnswerRecorder:
    """Keeps one learner's first answer to each question in a JSON file, for the instructor.

    The file holds ``{"format", "learner", "quizzes": {chapter: {"title", "answers":
    {number: {"chosen", "correct", "question"}}}}}`` (``question``: the question's
    fingerprint, so answers to a changed question are not pooled). Like the widget, which
    locks a question once submitted, only the first answer counts: later ones are not
    written. Keys are sorted and nothing depends on the time, unless ``clock`` is given:
    then each answer also gets ``"at": clock()``. Each answer rewrites the whole file
    (through a temporary file and a rename, so a crash never leaves half a file).
    """

    def __init__(
        self, path: str | os.PathLike[str], learner: str, *, clock: Callable[[], str] | None = None
    ) -> None:
        if not isinstance(learner, str) or not learner.strip():
            raise ValueError("recording answers needs the learner's name (learner='alice')")
        self.path = Path(path)
        self.learner = learner.strip()
        self.clock = clock
        data = self._read()
        if data["learner"] != self.learner:
            raise ValueError(
                f"{self.path} holds the answers of {data['learner']!r}, not {self.learner!r}:"
                " give each learner a file of their own"
            )

    def __repr__(self) -> str:
        return f"AnswerRecorder({str(self.path)!r}, learner={self.learner!r})"

    def _read(self) -> dict[str, Any]:
        if not self.path.exists():
            return {"format": ANSWERS_FORMAT, "learner": self.learner, "quizzes": {}}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{self.path} is not a readable answers file: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != ANSWERS_FORMAT:
            raise ValueError(f"{self.path} is not an answers file (format {ANSWERS_FORMAT!r})")
        return data

    def record(self, chapter: str, title: str, question: Question, result: Feedback) -> bool:
        """Write ``result`` unless this question already has an answer; True if written."""
        data = self._read()
        quiz = data["quizzes"].setdefault(chapter, {"title": title, "answers": {}})
        key = str(result.number)
        if key in quiz["answers"]:
            return False
        entry: dict[str, Any] = {
            "chosen": result.chosen,
            "correct": result.correct_answer,
            "question": question.fingerprint,
        }
        if self.clock is not None:
            entry["at"] = self.clock()
        quiz["answers"][key] = entry
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        partial = self.path.with_name(self.path.name + ".partial")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, self.path)
        return True


class Quiz:
    """A titled list of questions. Show it with :meth:`show`, answer with :meth:`answer`.

    With a ``recorder`` (and the ``chapter`` it files the answers under), every submitted
    answer, from the widget or from :meth:`answer`, is also recorded. ``language`` (``"zh"``
    or ``"en"``; default: the current language) is the language of the verdicts, labels and
    help line; the questions are given in it.
    """

    def __init__(
        self,
        title: str,
        questions: Sequence[Question],
        *,
        chapter: str | None = None,
        recorder: AnswerRecorder | None = None,
        language: Language | None = None,
    ) -> None:
        if not questions:
            raise ValueError("a quiz needs at least one question")
        if recorder is not None and not chapter:
            raise ValueError("a quiz that records answers needs its chapter ('08')")
        self.title = title
        self.questions: tuple[Question, ...] = tuple(questions)
        self.chapter = chapter
        self.recorder = recorder
        self.language: Language = (
            current_language() if language is None else checked_language(language)
        )

    def __len__(self) -> int:
        return len(self.questions)

    def __repr__(self) -> str:
        return f"Quiz({self.title!r}, {len(self)} questions)"

    def question(self, number: int) -> Question:
        """Question ``number``, counted from 1 as printed."""
        if type(number) is not int or not 1 <= number <= len(self):
            raise ValueError(f"question number must be an integer from 1 to {len(self)}")
        return self.questions[number - 1]

    def feedback(self, number: int, choice: str) -> Feedback:
        """Judge ``choice`` for question ``number`` without printing anything."""
        question = self.question(number)
        letter = choice.strip().upper() if isinstance(choice, str) else choice
        if letter not in question.letters:
            raise ValueError(
                f"choice for question {number} must be one of {list(question.letters)},"
                f" got {choice!r}"
            )
        return Feedback(
            number,
            letter,
            question.answer,
            question.explanation,
            question.reasons,
            language=self.language,
        )

    def submit(self, number: int, choice: str) -> Feedback:
        """Judge ``choice`` as a submitted answer: like :meth:`feedback`, and recorded if set up."""
        result = self.feedback(number, choice)
        if self.recorder is not None and self.chapter is not None:
            self.recorder.record(self.chapter, self.title, self.question(number), result)
        return result

    def answer(self, number: int, choice: str) -> None:
        """Answer question ``number`` with an option letter; prints the verdict and explanation.

        The headless path of the widget: same decision, same text, recorded the same way.
        Use :meth:`feedback` to get the verdict as a value without submitting it.
        """
        print(self.submit(number, choice).text())

    def text(self) -> str:
        """The whole quiz as plain text, without answers or explanations."""
        questions = "question" if len(self) == 1 else "questions"
        header = _HEADER.in_language(self.language)
        parts = [header.format(title=self.title, count=len(self), questions=questions)]
        parts += [q.text(i) for i, q in enumerate(self.questions, start=1)]
        parts.append(_HOW_TO_ANSWER.in_language(self.language))
        return "\n\n".join(parts)

    def show(self) -> None:
        """Display the quiz: a widget in a Jupyter frontend, plain text elsewhere."""
        try:
            from IPython import get_ipython
            from IPython.display import display
        except ImportError:  # plain Python: no IPython at all
            print(self.text())
            return
        shell = get_ipython()
        if shell is None or not hasattr(shell, "kernel"):
            print(self.text())  # a terminal IPython has no widget frontend
            return
        display(self.widget())

    def widget(self) -> QuizView:
        """A new interactive view of this quiz."""
        return QuizView(self)


def load_quiz(
    chapter: str,
    *,
    record_to: str | os.PathLike[str] | None = None,
    learner: str | None = None,
    clock: Callable[[], str] | None = None,
) -> Quiz:
    """Load a chapter's quiz from the quiz bank, e.g. ``load_quiz("00")``.

    ``record_to`` and ``learner`` (or the environment variables ``TUTORIAL_LIB_QUIZ_ANSWERS``
    and ``TUTORIAL_LIB_LEARNER``) record the learner's submitted answers there, for the
    class's item analysis (:class:`AnswerRecorder`; ``clock`` adds a time to each answer).
    The quiz is in the current language (``tutorial_lib.language.current_language``).
    """
    if not (isinstance(chapter, str) and len(chapter) == 2 and chapter.isdigit()):
        raise ValueError(f"chapter must be two digits such as '00', got {chapter!r}")
    try:
        source = quiz_file(chapter)
    except ValueError:
        raise ValueError(f"no quiz for chapter {chapter!r}") from None
    if not source.is_file():
        raise ValueError(f"no quiz for chapter {chapter!r}")
    quiz = quiz_from_dict(json.loads(source.read_text(encoding="utf-8")))
    if record_to is None and learner is not None:
        raise ValueError("learner= needs record_to= (the file to record the answers in)")
    if record_to is None:
        record_to = os.environ.get(ANSWERS_ENV) or None
        learner = os.environ.get(LEARNER_ENV)
    if record_to is None:
        return quiz
    recorder = AnswerRecorder(record_to, learner or "", clock=clock)
    return Quiz(
        quiz.title, quiz.questions, chapter=chapter, recorder=recorder, language=quiz.language
    )


def quiz_from_dict(data: dict[str, Any], *, language: Language | None = None) -> Quiz:
    """Build a :class:`Quiz` from the quiz JSON shape (see
    ``chapters/ch00_tool_contracts/quiz.json``).

    Each option is either a string or ``{"text": ..., "why": ...}``; a question gives
    reasons for all of its options or for none. In English (``language``, default: the
    current language) each text is read from its ``_en`` sibling (``title_en``,
    ``prompt_en``, ``explanation_en``, ``text_en``, ``why_en``); a text without one is shown
    as it is. The bank's tests make sure every bank text has its sibling.
    """
    chosen = current_language() if language is None else checked_language(language)
    questions = [_question_from_dict(q, chosen) for q in data["questions"]]
    return Quiz(_field(data, "title", chosen), questions, language=chosen)


def _field(data: dict[str, Any], key: str, language: Language) -> Any:
    """``data[key]``, or in English its ``key_en`` sibling when there is one."""
    if language == "en" and data.get(f"{key}_en"):
        return data[f"{key}_en"]
    return data[key]


def _question_from_dict(data: dict[str, Any], language: Language = "zh") -> Question:
    raw = data["options"]
    with_reasons = [isinstance(option, dict) for option in raw]
    if any(with_reasons) and not all(with_reasons):
        raise ValueError("give every option a reason ({'text', 'why'}) or none")
    original = None
    if language != "zh":
        original = _question_from_dict(data)
    options = tuple(_field(o, "text", language) for o in raw) if any(with_reasons) else tuple(raw)
    reasons = tuple(_field(o, "why", language) for o in raw) if any(with_reasons) else ()
    return Question(
        prompt=_field(data, "prompt", language),
        options=options,
        answer=data["answer"],
        explanation=_field(data, "explanation", language),
        reasons=reasons,
        original=original,
    )


def _prompt_html(number: int, prompt: str) -> str:
    """The prompt as HTML: fenced blocks become <pre>, `inline code` becomes <code>."""
    parts = [f"<b>{number}.</b> "]
    position = 0
    for block in _FENCE.finditer(prompt):
        parts.append(_prose_html(prompt[position : block.start()]))
        code = html.escape(block.group(1))
        parts.append(f'<pre class="tl-quiz-code" style="{_CODE_STYLE}">{code}</pre>')
        position = block.end()
    parts.append(_prose_html(prompt[position:]))
    return "".join(parts)


def _prose_html(text: str) -> str:
    escaped = html.escape(text.strip("\n"))
    return _INLINE_CODE.sub(r"<code>\1</code>", escaped).replace("\n", "<br>")


# The widget lives in the same module as the quiz it shows: one concept, one place.
class _QuestionView:
    """Widgets of one question: prompt, options, submit button, feedback."""

    def __init__(self, quiz: Quiz, number: int, on_answered: Any) -> None:
        question = quiz.question(number)
        self.quiz = quiz
        self.number = number
        self.on_answered = on_answered
        self.prompt = widgets.HTML(_prompt_html(number, question.prompt)).add_class(
            "tl-quiz-prompt"
        )
        self.options = widgets.RadioButtons(
            options=[
                (f"{letter}. {text}", letter)
                for letter, text in zip(question.letters, question.options, strict=True)
            ],
            value=None,
            layout=widgets.Layout(width="auto"),
        ).add_class("tl-quiz-options")
        self.submit = widgets.Button(
            description=_SUBMIT.in_language(quiz.language), disabled=True, button_style="primary"
        ).add_class("tl-quiz-submit")
        self.feedback = widgets.HTML("").add_class("tl-quiz-feedback")
        self.box = widgets.VBox([self.prompt, self.options, self.submit, self.feedback])
        self.box.add_class("tl-quiz-question")
        self.options.observe(self._on_select, names="value")
        self.submit.on_click(self._on_submit)

    def _on_select(self, change: dict[str, Any]) -> None:
        self.submit.disabled = change["new"] is None

    def _on_submit(self, _button: Any) -> None:
        if self.options.value is None:
            return
        result = self.quiz.submit(self.number, self.options.value)
        # The first answer counts: lock the question so the score stays honest.
        self.options.disabled = True
        self.submit.disabled = True
        self.feedback.value = _feedback_html(result)
        self.on_answered(result)


def _feedback_html(result: Feedback) -> str:
    css = "tl-quiz-correct" if result.correct else "tl-quiz-wrong"
    color = "#1a7f37" if result.correct else "#cf222e"  # green / red, readable on white
    parts = [
        f'<div class="tl-quiz-verdict {css}" style="color:{color};font-weight:bold">'
        f"{html.escape(result.verdict)}</div>",
        f'<div class="tl-quiz-explanation">'
        f"{html.escape(_EXPLANATION.in_language(result.language) + result.explanation)}</div>",
    ]
    if result.reasons:
        items = "".join(
            f'<li class="tl-quiz-reason">{html.escape(line)}</li>' for line in result.reason_lines()
        )
        parts.append(f'<ul class="tl-quiz-reasons">{items}</ul>')
    return "".join(parts)


class QuizView(widgets.VBox):
    """The quiz as widgets. Its plain-text form is the quiz's text fallback.

    Stable CSS classes for tests and styling: ``tl-quiz``, ``tl-quiz-question``,
    ``tl-quiz-prompt``, ``tl-quiz-options``, ``tl-quiz-submit``, ``tl-quiz-feedback``,
    ``tl-quiz-verdict``, ``tl-quiz-explanation``, ``tl-quiz-reasons`` (one
    ``tl-quiz-reason`` per option), ``tl-quiz-code`` (an output shown in a prompt),
    ``tl-quiz-score``.
    """

    def __init__(self, quiz: Quiz) -> None:
        self.quiz = quiz
        self.answers: dict[int, Feedback] = {}
        heading = _HEADING.in_language(quiz.language).format(title=quiz.title)
        self.heading = widgets.HTML(f"<h3>{html.escape(heading)}</h3>")
        self.question_views = [
            _QuestionView(quiz, n, self._record) for n in range(1, len(quiz) + 1)
        ]
        self.score = widgets.HTML(self._score_text()).add_class("tl-quiz-score")
        super().__init__([self.heading, *(q.box for q in self.question_views), self.score])
        self.add_class("tl-quiz")

    def choose(self, number: int, choice: str) -> Feedback:
        """Select ``choice`` and press submit for question ``number``, as a learner would."""
        self.quiz.question(number)  # validates the number
        view = self.question_views[number - 1]
        view.options.value = self.quiz.feedback(number, choice).chosen
        view.submit.click()
        return self.answers[number]

    def _record(self, result: Feedback) -> None:
        self.answers[result.number] = result
        self.score.value = self._score_text()

    def _score_text(self) -> str:
        right = sum(f.correct for f in self.answers.values())
        score = _SCORE.in_language(self.quiz.language)
        return score.format(answered=len(self.answers), total=len(self.quiz), right=right)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            # Frontends without widgets (and nbval) see the readable text quiz.
            bundle["text/plain"] = self.quiz.text()
        return bundle
