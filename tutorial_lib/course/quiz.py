"""Self-check quizzes: answer first, only then read the explanation.

Each chapter ends with ``load_quiz("NN").show()``. In JupyterLab that is an ipywidgets
view (options, a submit button, the explanation revealed after submitting); elsewhere it
prints the questions as plain text. ``Quiz.answer(number, "B")`` is the same decision
without a frontend: tests, nbval and terminal users call it.

The questions live in ``tutorial_lib/course/quiz_bank/NN.json`` and not in the notebook, so
the answers are not sitting in a code cell above the quiz. A bank question gives every
option its own reason (why it is right or wrong); the learner sees them all after answering.
A prompt may show a tool result or a cell's output as a fenced block (three backticks on a
line of their own); the widget renders it as preformatted text.
"""

from __future__ import annotations

import html
import json
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import ipywidgets as widgets

from tutorial_lib.course.table import wrap

__all__ = ["Feedback", "Question", "Quiz", "QuizView", "load_quiz"]

LETTERS = string.ascii_uppercase
#: Display columns of the plain-text quiz: prose wraps to fit a notebook's output area.
TEXT_WIDTH = 96
# A fenced block in a prompt: ``` (optionally with a language word) ... ``` on their own lines.
_FENCE = re.compile(r"^```[\w-]*\n(.*?)\n```$", re.DOTALL | re.MULTILINE)
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
# Long JSON lines wrap instead of scrolling sideways inside the quiz; a grey box sets them off.
_CODE_STYLE = "white-space:pre-wrap;background:#f6f8fa;padding:4px 8px"


@dataclass(frozen=True)
class Question:
    """A multiple-choice question with exactly one correct option.

    ``answer`` is the correct option's letter (``"A"``, ``"B"``, ...). ``explanation`` is
    shown only after the learner has answered, and so are ``reasons``: one per option, in
    option order, saying why that option is right or wrong (empty: the explanation alone).
    """

    prompt: str
    options: tuple[str, ...]
    answer: str
    explanation: str
    reasons: tuple[str, ...] = ()

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

    @property
    def correct(self) -> bool:
        return self.chosen == self.correct_answer

    @property
    def verdict(self) -> str:
        """The first line of :meth:`text`: which option was chosen, and whether it is right."""
        if self.correct:
            return f"第 {self.number} 题：你选 {self.chosen}，正确。"
        return f"第 {self.number} 题：你选 {self.chosen}，不对；正确答案是 {self.correct_answer}。"

    def reason_lines(self) -> list[str]:
        """One line per option: its letter, ✓ or ✗, and why (empty without reasons)."""
        return [
            f"{letter} {'✓' if letter == self.correct_answer else '✗'} {reason}"
            for letter, reason in zip(LETTERS, self.reasons, strict=False)
        ]

    def text(self) -> str:
        lines = [self.verdict, *wrap(f"解释：{self.explanation}", TEXT_WIDTH, "  ")]
        if self.reasons:
            lines.append("逐项：")
            for line in self.reason_lines():
                lines += wrap(f"  {line}", TEXT_WIDTH, "    ")
        return "\n".join(lines)


class Quiz:
    """A titled list of questions. Show it with :meth:`show`, answer with :meth:`answer`."""

    def __init__(self, title: str, questions: Sequence[Question]) -> None:
        if not questions:
            raise ValueError("a quiz needs at least one question")
        self.title = title
        self.questions: tuple[Question, ...] = tuple(questions)

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
        return Feedback(number, letter, question.answer, question.explanation, question.reasons)

    def answer(self, number: int, choice: str) -> None:
        """Answer question ``number`` with an option letter; prints the verdict and explanation.

        The headless path of the widget: same decision, same text. Use :meth:`feedback`
        to get the verdict as a value.
        """
        print(self.feedback(number, choice).text())

    def text(self) -> str:
        """The whole quiz as plain text, without answers or explanations."""
        parts = [f"自测：{self.title}（{len(self)} 题；提交答案后才显示解释）"]
        parts += [q.text(i) for i, q in enumerate(self.questions, start=1)]
        parts.append("作答：在上方控件里选择并提交；或者运行 quiz.answer(题号, '字母')。")
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


def load_quiz(chapter: str) -> Quiz:
    """Load a chapter's quiz from the quiz bank, e.g. ``load_quiz("00")``."""
    if not (isinstance(chapter, str) and len(chapter) == 2 and chapter.isdigit()):
        raise ValueError(f"chapter must be two digits such as '00', got {chapter!r}")
    bank = resources.files("tutorial_lib.course.quiz_bank")
    source = bank.joinpath(f"{chapter}.json")
    if not source.is_file():
        raise ValueError(f"no quiz for chapter {chapter!r}")
    return quiz_from_dict(json.loads(source.read_text(encoding="utf-8")))


def quiz_from_dict(data: dict[str, Any]) -> Quiz:
    """Build a :class:`Quiz` from the quiz-bank JSON shape (see ``quiz_bank/00.json``).

    Each option is either a string or ``{"text": ..., "why": ...}``; a question gives
    reasons for all of its options or for none.
    """
    return Quiz(data["title"], [_question_from_dict(q) for q in data["questions"]])


def _question_from_dict(data: dict[str, Any]) -> Question:
    raw = data["options"]
    with_reasons = [isinstance(option, dict) for option in raw]
    if any(with_reasons) and not all(with_reasons):
        raise ValueError("give every option a reason ({'text', 'why'}) or none")
    options = tuple(o["text"] for o in raw) if any(with_reasons) else tuple(raw)
    reasons = tuple(o["why"] for o in raw) if any(with_reasons) else ()
    return Question(
        prompt=data["prompt"],
        options=options,
        answer=data["answer"],
        explanation=data["explanation"],
        reasons=reasons,
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
            description="提交答案", disabled=True, button_style="primary"
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
        result = self.quiz.feedback(self.number, self.options.value)
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
        f'<div class="tl-quiz-explanation">{html.escape("解释：" + result.explanation)}</div>',
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
        self.heading = widgets.HTML(f"<h3>自测：{html.escape(quiz.title)}</h3>")
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
        return f"已作答 {len(self.answers)}/{len(self.quiz)} 题，答对 {right} 题。"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            # Frontends without widgets (and nbval) see the readable text quiz.
            bundle["text/plain"] = self.quiz.text()
        return bundle
