"""The instructor guide (``docs/instructor/``) in Chinese and its English edition (``en/``).

Both languages have ``README.md`` and one page per chapter, ``00.md`` to ``09.md``, each
linking to the same page in the other language. Every chapter page of a language has the
same ``##`` sections, in the same order, and its translation has as many; its goals are
the bullets of the chapter's own lesson (the English lesson for the English page).

Discussion prompts have a recognisable format: in the prompts section (``## 讨论题`` /
``## Discussion prompts``) each numbered item is followed by a talking-points label
(``要点：`` / ``Talking points:``), a nested list of 2 to 4 bullets, and a line naming the
misconception to watch for (``要留意的误解：`` / ``Misconception to watch for:``).

Time figures say where they come from: each timing section says its figures are estimated
(估算 / estimated), and every ``##`` section that contains a duration (``45 分钟``,
``25.57 s``...) names it as estimated, measured (实测 / measured) or a configured limit
(时限、上限 / limit). The READMEs run ``python tools/instructor.py`` with its four
subcommands only, and no page has students type ``--Exchange.root``: the student config
holds the exchange. Pages only, read as text: no network, no notebook is executed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.test_glossary import english_violations, violations
from tools.notebooks import ROOT

GUIDE = ROOT / "docs" / "instructor"
CHAPTERS = tuple(f"{n:02d}" for n in range(10))
PAGES = ("README", *CHAPTERS)
SUBCOMMANDS = {"course", "feedback", "grades", "items"}
FENCE = re.compile(r"^\s*```")


@dataclass(frozen=True)
class Language:
    code: str
    folder: Path
    other: str  # how a page links to its translation: a path format with {page}
    lessons: Path
    goals_intro: re.Pattern[str]  # what precedes the goals in the lesson's first cell
    prompts: str
    timing: str
    points: str
    misconception: str
    estimated: str
    duration: re.Pattern[str]
    labels: tuple[str, ...]


ZH = Language(
    code="zh",
    folder=GUIDE,
    other="en/{page}.md",
    lessons=ROOT / "notebooks",
    goals_intro=re.compile("学完本章，你能够："),
    prompts="## 讨论题",
    timing="## 时间安排",
    points="要点：",
    misconception="要留意的误解：",
    estimated="估算",
    duration=re.compile(r"\d+(?:\.\d+)?\s*(?:[–-]\s*\d+(?:\.\d+)?\s*)?(?:分钟|秒|小时)"),
    labels=("估算", "实测", "时限", "上限"),
)
EN = Language(
    code="en",
    folder=GUIDE / "en",
    other="../{page}.md",
    lessons=ROOT / "en" / "notebooks",
    goals_intro=re.compile(r"By the end of this chapter,? you (?:will be able to|can):"),
    prompts="## Discussion prompts",
    timing="## Timings",
    points="Talking points:",
    misconception="Misconception to watch for:",
    estimated="estimated",
    duration=re.compile(
        r"\b\d+(?:\.\d+)?(?:\s*[–-]\s*\d+(?:\.\d+)?)?\s*"
        r"(?:minutes?|mins?|seconds?|s|hours?|h)\b",
        re.IGNORECASE,
    ),
    labels=("estimate", "measured", "limit"),
)
LANGUAGES = (ZH, EN)


def page(language: Language, name: str) -> str:
    return (language.folder / f"{name}.md").read_text(encoding="utf-8")


def says(language: Language, text: str, words: tuple[str, ...]) -> bool:
    """Whether ``text`` contains one of ``words`` (English: case-insensitively)."""
    text = text.lower() if language is EN else text
    return any(word in text for word in words)


def sections(text: str) -> list[tuple[str, str]]:
    """``(heading, body)`` of every ``##`` section, headings inside code fences ignored."""
    found: list[tuple[str, list[str]]] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            found.append((line.strip(), []))
        elif found:
            found[-1][1].append(line)
    return [(heading, "\n".join(body)) for heading, body in found]


def section(text: str, heading: str) -> str:
    bodies = [body for title, body in sections(text) if title.startswith(heading)]
    assert len(bodies) == 1, f"expected one section {heading!r}, found {len(bodies)}"
    return bodies[0]


def prompts(body: str) -> list[list[str]]:
    """The numbered items of a prompts section, each as its lines (the item's own first)."""
    items: list[list[str]] = []
    for line in body.splitlines():
        if re.match(r"\d+\. ", line):
            items.append([line])
        elif items:
            items[-1].append(line)
    return items


def code_lines(text: str) -> list[str]:
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif fenced:
            lines.append(line.strip())
    return lines


def lesson_goals(language: Language, chapter: str) -> list[str]:
    """The goal bullets of the chapter's lesson: its first cell, after the goals' intro."""
    (notebook,) = language.lessons.glob(f"{chapter}_*.ipynb")
    first = json.loads(notebook.read_text(encoding="utf-8"))["cells"][0]["source"]
    text = "".join(first) if isinstance(first, list) else first
    after = language.goals_intro.split(text, maxsplit=1)[1].lstrip("\n")
    return [line for line in after.split("\n\n", 1)[0].splitlines() if line.startswith("- ")]


# --- pages and links -------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
def test_both_languages_have_the_readme_and_every_chapter(language):
    assert sorted(p.stem for p in language.folder.glob("*.md")) == sorted(PAGES)


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
@pytest.mark.parametrize("name", PAGES)
def test_each_page_links_to_its_translation_at_the_top(language, name):
    top = "\n".join(page(language, name).splitlines()[:5])
    assert f"({language.other.format(page=name)})" in top


@pytest.mark.parametrize("name", PAGES)
def test_the_guide_uses_the_glossary(name):
    assert violations([(f"{name}.md", page(ZH, name))]) == []
    assert english_violations([(f"en/{name}.md", page(EN, name))]) == []


# --- chapter pages ---------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
def test_every_chapter_page_has_the_same_sections(language):
    first = [heading for heading, _ in sections(page(language, CHAPTERS[0]))]
    assert len(first) >= 7
    for chapter in CHAPTERS[1:]:
        headings = [heading for heading, _ in sections(page(language, chapter))]
        assert headings == first, f"{language.code}/{chapter}.md"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_chapter_and_its_translation_have_as_many_sections(chapter):
    assert len(sections(page(ZH, chapter))) == len(sections(page(EN, chapter)))


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_goals_are_the_lessons_own(language, chapter):
    text = page(language, chapter)
    for goal in lesson_goals(language, chapter):
        assert goal in text, f"{language.code}/{chapter}.md: goal missing: {goal}"


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_timing_section_has_a_45_and_90_minute_table_labelled_estimated(language, chapter):
    body = section(page(language, chapter), language.timing)
    header = next(line for line in body.splitlines() if line.startswith("|"))
    assert "45" in header and "90" in header, header
    assert sum(line.startswith("|") for line in body.splitlines()) >= 4
    assert says(language, body, (language.estimated,)), f"{language.code}/{chapter}.md"


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_discussion_prompt_has_talking_points_and_a_misconception(language, chapter):
    items = prompts(section(page(language, chapter), language.prompts))
    assert items, f"{language.code}/{chapter}.md has no numbered prompt"
    numbers = [int(item[0].split(".", 1)[0]) for item in items]
    assert numbers == list(range(1, len(items) + 1))
    for item in items:
        where = f"{language.code}/{chapter}.md prompt {item[0][:40]!r}"
        lines = [line.strip() for line in item[1:]]
        assert language.points in lines, f"{where}: no {language.points!r}"
        after = item[1 + lines.index(language.points) + 1 :]
        bullets = []
        for line in after:
            if re.match(r"\s{2,}- ", line):
                bullets.append(line)
            elif line.strip():
                break
        assert 2 <= len(bullets) <= 4, f"{where}: {len(bullets)} talking points"
        misconceptions = [line for line in lines if line.startswith(language.misconception)]
        assert len(misconceptions) == 1, f"{where}: no {language.misconception!r}"
        assert len(misconceptions[0]) > len(language.misconception) + 5, where


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_both_languages_ask_the_same_number_of_prompts(chapter):
    zh = prompts(section(page(ZH, chapter), ZH.prompts))
    en = prompts(section(page(EN, chapter), EN.prompts))
    assert len(zh) == len(en)


# --- time figures ----------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
@pytest.mark.parametrize("name", PAGES)
def test_every_section_with_a_time_figure_says_where_it_comes_from(language, name):
    for heading, body in sections(page(language, name)):
        figures = language.duration.findall(body)
        if not figures:
            continue
        assert says(language, body, language.labels), (
            f"{language.code}/{name}.md {heading}: {figures[:3]} without"
            f" {' / '.join(language.labels)}"
        )


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
def test_the_readme_names_where_its_measured_figures_come_from(language):
    text = page(language, "README")
    artifact = "test-artifacts/instructor_workflow.json"
    measured = [body for _, body in sections(text) if artifact in body]
    assert measured, f"no section names {artifact}"
    assert all(says(language, body, ("实测", "measured")) for body in measured)
    assert "tests/test_instructor.py" in text


# --- the class commands ----------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
def test_the_readme_runs_only_the_instructor_tools_subcommands(language):
    text = page(language, "README")
    used = set()
    for line in code_lines(text):
        if line.startswith("python tools/instructor.py"):
            words = line.split()
            assert len(words) > 2 and words[2] in SUBCOMMANDS, line
            used.add(words[2])
    assert used == SUBCOMMANDS
    for step in ("generate_assignment", "release_assignment", "collect", "autograde"):
        assert f"nbgrader {step} 00_tool_contracts" in text
    for step in ("fetch_assignment", "submit", "fetch_feedback"):
        assert f"nbgrader {step} 00_tool_contracts" in text
    assert all(f"({chapter}.md)" in text for chapter in CHAPTERS)


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda lang: lang.code)
@pytest.mark.parametrize("name", PAGES)
def test_no_page_has_students_type_the_exchange_root(language, name):
    assert "--Exchange.root" not in page(language, name)
