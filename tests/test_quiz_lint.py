"""Quiz lint: a question must not be solvable by elimination or by reading skill alone.

A test-wise learner picks the longest option and strikes out options that say "always",
"never", "completely". These tests keep both tricks from paying off in the bank:

- **length**: in each bank at most 25% of the questions (rounded down: 1 of 6 or 7, 2 of 9)
  have a correct option that is the strictly longest one. Length is measured twice and both
  must pass: as the character count (``len``, the measure tests/test_quiz.py uses for the
  whole bank) and as display columns (``display_width``: a CJK character takes 2 columns,
  ASCII 1), which is how long an option looks in the widget and the text quiz;
- **absolute words**: no distractor leans on an absolute such as 总是、一定、完全、根本、
  越…越好 (the list is :data:`ABSOLUTES`; each pattern skips the ordinary uses that are not
  absolutes, such as 绝对路径、一定程度、从不同、所有权);
- **lone hedge**: the correct option is never the only one without an absolute word;
- **reasons**: every option carries its own non-empty ``why``;
- **vocabulary**: the course's fixed terms (Agent, 提示注入, 调用之路, 脚本模型, 宿主).

Messages name the bank, the question number and the option.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tutorial_lib.course.chapters import homes
from tutorial_lib.course.table import display_width

LONGEST_SHARE = 0.25  # at most this share of a bank's questions: correct option strictly longest

#: Words that make an option easy to strike out: a claim that holds always, never or completely.
#: Each is a pattern so that ordinary uses (绝对路径, 一定程度, 从不同的角度 ...) do not count.
ABSOLUTES: dict[str, re.Pattern[str]] = {
    word: re.compile(pattern)
    for word, pattern in {
        "毫无": r"毫无",  # 毫无用处, 毫无意义
        "总会": r"总会",
        "总是": r"总是",
        "一定": r"一定(?!程度|的|范围|数量)",
        "永远": r"永远",
        "绝对": r"绝对(?!路径|值|地址|时间)",
        "完全": r"完全",  # 完全相同, 完全一样, 完全没有
        "所有": r"所有(?!权|者|人)",
        "从不": r"从不(?!同)",
        "从来": r"从来",
        "根本": r"根本(?!原因|问题|上的区别)",
        "彻底": r"彻底",
        "再也": r"再也",
        "必然": r"必然",
        "任何情况下": r"任何情况下|无论如何|不论如何",
        "万无一失": r"万无一失|一劳永逸|百分之百",
        "越…越好": r"越[^，。；：、,.;:]{1,10}越(好|安全|可靠|稳妥|准)",
    }.items()
}

#: Terms the course has fixed, with the word a text must use instead.
VOCABULARY: dict[str, tuple[re.Pattern[str], str]] = {
    "代理": (re.compile(r"代理"), "Agent"),
    "指令注入": (re.compile(r"指令注入"), "提示注入"),
    "道路": (re.compile(r"(?<!知)道路"), "调用之路"),
    "脚本化模型": (re.compile(r"脚本化模型"), "脚本模型"),
    # The Host object is 宿主; 主机 only names a network host.
    "主机": (re.compile(r"(?<!外部)(?<!列出的)(?<!目标)主机(?!名)"), "宿主（或写明外部主机）"),
}


def banks() -> dict[str, dict[str, Any]]:
    return {
        number: json.loads(home.joinpath("quiz.json").read_text(encoding="utf-8"))
        for number, home in homes().items()
    }


BANKS = banks()


def absolutes_in(text: str) -> list[str]:
    """The absolute words :data:`ABSOLUTES` finds in ``text``."""
    return [word for word, pattern in ABSOLUTES.items() if pattern.search(text)]


def letter(index: int) -> str:
    return chr(ord("A") + index)


def answer_index(question: dict[str, Any]) -> int:
    return ord(question["answer"]) - ord("A")


MEASURES = {"characters": len, "display columns": display_width}


def is_strictly_longest(question: dict[str, Any], measure: str) -> bool:
    widths = [MEASURES[measure](option["text"]) for option in question["options"]]
    correct = answer_index(question)
    return widths[correct] > max(w for i, w in enumerate(widths) if i != correct)


@pytest.mark.parametrize("measure", sorted(MEASURES))
@pytest.mark.parametrize("chapter", sorted(BANKS))
def test_the_correct_option_is_rarely_the_longest_in_each_bank(chapter, measure):
    questions = BANKS[chapter]["questions"]
    longest = [
        f"Q{number} (option {q['answer']})"
        for number, q in enumerate(questions, start=1)
        if is_strictly_longest(q, measure)
    ]
    limit = int(LONGEST_SHARE * len(questions))
    assert len(longest) <= limit, (
        f"bank {chapter}: the correct option is the strictly longest ({measure}) in "
        f"{len(longest)}/{len(questions)} questions, at most {limit} allowed: {longest}"
    )


@pytest.mark.parametrize("chapter", sorted(BANKS))
def test_no_distractor_leans_on_an_absolute_word(chapter):
    problems = []
    for number, question in enumerate(BANKS[chapter]["questions"], start=1):
        for index, option in enumerate(question["options"]):
            if index == answer_index(question):
                continue
            if words := absolutes_in(option["text"]):
                problems.append(f"bank {chapter} Q{number} option {letter(index)}: {words}")
    assert not problems, "distractors that elimination strikes out:\n" + "\n".join(problems)


@pytest.mark.parametrize("chapter", sorted(BANKS))
def test_the_correct_option_is_not_the_only_one_without_absolutes(chapter):
    for number, question in enumerate(BANKS[chapter]["questions"], start=1):
        correct = answer_index(question)
        hedged = [i for i, o in enumerate(question["options"]) if not absolutes_in(o["text"])]
        assert hedged != [correct], (
            f"bank {chapter} Q{number}: option {letter(correct)} is the only option without an"
            " absolute word"
        )


@pytest.mark.parametrize("chapter", sorted(BANKS))
def test_every_option_has_its_own_reason(chapter):
    for number, question in enumerate(BANKS[chapter]["questions"], start=1):
        reasons = []
        for index, option in enumerate(question["options"]):
            where = f"bank {chapter} Q{number} option {letter(index)}"
            assert isinstance(option, dict), f"{where}: give the option as {{'text', 'why'}}"
            assert set(option) == {"text", "text_en", "why", "why_en"}, (
                f"{where}: keys {sorted(option)}"
            )
            assert option["text"].strip(), f"{where}: empty text"
            assert option["why"].strip(), f"{where}: empty why"
            assert option["why"] not in reasons, f"{where}: the same why as another option"
            reasons.append(option["why"])


@pytest.mark.parametrize("chapter", sorted(BANKS))
def test_the_bank_uses_the_course_vocabulary(chapter):
    bank = BANKS[chapter]
    texts = [("title", bank["title"])]
    for number, question in enumerate(bank["questions"], start=1):
        texts += [(f"Q{number} prompt", question["prompt"])]
        texts += [(f"Q{number} explanation", question["explanation"])]
        for index, option in enumerate(question["options"]):
            texts += [(f"Q{number} option {letter(index)}", option["text"])]
            texts += [(f"Q{number} option {letter(index)} why", option["why"])]
    problems = [
        f"bank {chapter} {where}: {word!r} -> {instead}"
        for where, text in texts
        for word, (pattern, instead) in VOCABULARY.items()
        if pattern.search(text)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("分字段毫无用处：模型看到的终归是一串文字", ["毫无"]),
        ("描述写得越详细越好", ["越…越好"]),
        ("两者的意思完全相同", ["完全"]),
        ("第四次的写入一定失败了", ["一定"]),
        ("模型总会以最后读到的规则为准", ["总会"]),
        ("绝对路径本身也会被工具拒绝", []),
        ("在一定程度上减少了猜测", []),
        ("从不同的角度看同一个结果", []),
        ("找到问题的根本原因", []),
    ],
)
def test_the_absolute_word_list_catches_absolutes_and_spares_ordinary_words(text, words):
    assert absolutes_in(text) == words
