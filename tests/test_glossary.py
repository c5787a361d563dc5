"""The course's vocabulary (docs/glossary.md) holds everywhere a learner reads prose.

The glossary has two Markdown tables: the terms (中文术语 | English term | 一句话定义 | 首次出现)
and the banned variants (禁用的写法 | 匹配 | 应写作 | 例外 | 说明). No markdown cell of a chapter
notebook or solution and no text of a quiz bank may use a banned variant; each failure names
the file, the cell (or quiz question and field) and the variant.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from tools.notebooks import ROOT

GLOSSARY = ROOT / "docs" / "glossary.md"
NOTEBOOKS = sorted(ROOT.glob("notebooks/*.ipynb")) + sorted(ROOT.glob("solutions/*.ipynb"))
QUIZ_BANKS = sorted(ROOT.glob("tutorial_lib/course/chapters/ch*/quiz.json"))
CODE_SPAN = re.compile(r"`([^`]+)`")

# Terms the course cannot do without: the glossary must define each of them.
REQUIRED_TERMS = {
    "调用之路",
    "宿主",
    "站",
    "授权站",
    "解析",
    "业务检查",
    "复核",
    "确认站",
    "执行",
    "结果信封",
    "错误契约",
    "覆盖率",
    "游标",
    "幂等键",
    "结果未知",
    "提示注入",
    "任务范围",
    "动作类别",
    "密钥文件",
    "脚本模型",
    "Agent",
    "工具注解",
    "沙箱",
    "主机",
}


@dataclass(frozen=True)
class Term:
    chinese: str
    english: str
    definition: str
    first_chapter: str

    @property
    def word(self) -> str:
        """The word without its parenthesised alias: 'Schema 检查（参数检查）' -> 'Schema 检查'."""
        return re.split(r"[（(]", self.chinese, maxsplit=1)[0].strip()


@dataclass(frozen=True)
class Banned:
    variant: str
    regex: bool
    preferred: str
    exceptions: tuple[str, ...]

    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.variant if self.regex else re.escape(self.variant))

    def find(self, text: str) -> list[str]:
        """Each occurrence (with a little context) that is not inside an allowed longer word."""
        for allowed in self.exceptions:
            text = text.replace(allowed, "\0" * len(allowed))
        return [
            text[max(0, m.start() - 12) : m.end() + 12].replace("\0", "·").replace("\n", " ")
            for m in self.pattern().finditer(text)
        ]


def table_rows(markdown: str, heading: str) -> list[list[str]]:
    """The body rows of the first table under the ``## heading`` section, cell by cell."""
    section = re.search(rf"^## {re.escape(heading)}\s*$(.*?)(?=^## |\Z)", markdown, re.M | re.S)
    assert section, f"docs/glossary.md has no '## {heading}' section"
    rows = []
    for line in section.group(1).splitlines():
        line = line.strip()
        if not line.startswith("|"):
            if rows:
                break
            continue
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    assert len(rows) > 2 and set(rows[1][0]) <= set(":-"), f"'## {heading}': no table"
    return rows[2:]


def unquote(cell: str) -> str:
    spans = CODE_SPAN.findall(cell)
    return spans[0] if len(spans) == 1 and cell.startswith("`") else cell


def parse_glossary() -> tuple[list[Term], list[Banned]]:
    text = GLOSSARY.read_text(encoding="utf-8")
    terms = []
    for row in table_rows(text, "术语"):
        assert len(row) == 4, f"a term row needs 4 cells: {row}"
        terms.append(Term(*row))
    banned = []
    for row in table_rows(text, "禁用的写法"):
        assert len(row) == 5, f"a banned row needs 5 cells: {row}"
        variant, how, preferred, exceptions, _why = row
        assert how in ("字面", "正则"), f"匹配 must be 字面 or 正则: {row}"
        banned.append(
            Banned(unquote(variant), how == "正则", preferred, tuple(CODE_SPAN.findall(exceptions)))
        )
    return terms, banned


TERMS, BANNED = parse_glossary()


def markdown_cells(path: Path) -> list[tuple[int, str]]:
    cells = nbformat.read(path, as_version=4).cells
    return [(i, c.source) for i, c in enumerate(cells) if c.cell_type == "markdown"]


def quiz_texts(path: Path) -> list[tuple[str, str]]:
    """(where, text) of every string in a quiz bank: 'question 3 options[1].why', ..."""
    found: list[tuple[str, str]] = []

    def walk(node: object, where: str) -> None:
        if isinstance(node, str):
            found.append((where, node))
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{where}.{key}" if where else str(key))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}[{index}]")

    data = json.loads(path.read_text(encoding="utf-8"))
    questions = data.get("questions", data) if isinstance(data, dict) else data
    if isinstance(questions, list):
        if isinstance(data, dict):
            walk({k: v for k, v in data.items() if k != "questions"}, "")
        for number, question in enumerate(questions, start=1):
            walk(question, f"question {number}")
    else:
        walk(data, "")
    return found


def violations(texts: list[tuple[str, str]]) -> list[str]:
    problems = []
    for where, text in texts:
        for banned in BANNED:
            for context in banned.find(text):
                problems.append(
                    f"{where}: '{banned.variant}' (write {banned.preferred}) in …{context}…"
                )
    return problems


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


# --- the glossary itself ---------------------------------------------------------------------


def test_the_glossary_defines_the_course_vocabulary():
    defined = {term.word for term in TERMS}
    assert not REQUIRED_TERMS - defined, f"missing terms: {sorted(REQUIRED_TERMS - defined)}"
    assert len(defined) == len(TERMS), "a term is defined twice"
    for term in TERMS:
        assert term.english and term.definition, term
        assert re.fullmatch(r"0\d", term.first_chapter), (
            f"{term.word}: chapter {term.first_chapter}"
        )


def test_banned_variants_are_well_formed_and_point_at_a_defined_term():
    defined = {term.word for term in TERMS}
    for banned in BANNED:
        banned.pattern()  # compiles
        assert banned.preferred in defined, f"'{banned.variant}' -> undefined '{banned.preferred}'"
        assert all(banned.pattern().search(allowed) for allowed in banned.exceptions), banned
        assert not banned.find(banned.preferred), f"'{banned.variant}' bans its own replacement"


def test_no_defined_term_is_itself_banned():
    for term in TERMS:
        text = f"{term.chinese} {term.definition}"
        for banned in BANNED:
            assert not banned.find(text), f"the glossary's own '{term.chinese}' uses {banned}"


def test_the_banned_variants_match_what_they_should_and_nothing_else():
    assert violations([("s", "宿主把授权站装上道路。")])
    assert not violations([("s", "你需要知道路径解析成了哪个目录")])
    assert violations([("s", "一个代理的任务是读评论")])
    assert not violations([("s", "走公司的 HTTP 代理出去")])
    assert violations([("s", "主机（`Host`）拥有调用之路")])
    assert violations([("s", "`Host`（主机）拥有调用之路")])
    assert not violations([("s", "能往哪些主机发送；宿主 `Host` 拥有调用之路")])


@pytest.mark.parametrize("term", TERMS, ids=lambda t: t.english.split(" (")[0])
def test_each_term_first_appears_in_the_chapter_the_glossary_names(term):
    chapters = sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb"))
    using = [p.name[:2] for p in chapters if any(term.word in s for _, s in markdown_cells(p))]
    assert using, f"'{term.word}' appears in no chapter's prose"
    assert using[0] == term.first_chapter, (
        f"'{term.word}' first appears in chapter {using[0]}, the glossary says {term.first_chapter}"
    )


# --- where learners read prose ---------------------------------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=rel)
def test_notebook_prose_uses_no_banned_variant(path):
    texts = [(f"{rel(path)} cell {index}", source) for index, source in markdown_cells(path)]
    problems = violations(texts)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", QUIZ_BANKS, ids=rel)
def test_quiz_text_uses_no_banned_variant(path):
    texts = [(f"{rel(path)} {where}", text) for where, text in quiz_texts(path)]
    problems = violations(texts)
    assert not problems, "\n".join(problems)


# --- the English edition's term base ---------------------------------------------------------

ENGLISH_BANNED_HEADING = "英文版禁用的写法"
TRANSLATIONS = sorted(ROOT.glob("translations/en/*/*.md"))


def parse_english_banned() -> list[Banned]:
    """The English renderings that must not appear (matched case-insensitively)."""
    text = GLOSSARY.read_text(encoding="utf-8")
    banned = []
    for row in table_rows(text, ENGLISH_BANNED_HEADING):
        assert len(row) == 5, f"a banned row needs 5 cells: {row}"
        variant, how, preferred, exceptions, _why = row
        assert how in ("字面", "正则"), f"匹配 must be 字面 or 正则: {row}"
        pattern = unquote(variant) if how == "正则" else re.escape(unquote(variant))
        banned.append(
            Banned(f"(?i){pattern}", True, preferred, tuple(CODE_SPAN.findall(exceptions)))
        )
    return banned


ENGLISH_BANNED = parse_english_banned()


def english_violations(texts: list[tuple[str, str]]) -> list[str]:
    return [
        f"{where}: '{banned.variant[4:]}' (write {banned.preferred}) in …{context}…"
        for where, text in texts
        for banned in ENGLISH_BANNED
        for context in banned.find(text)
    ]


def test_the_english_banned_renderings_match_what_they_should():
    assert english_violations([("s", "Every call travels the Call Chain.")])
    assert english_violations([("s", "the idempotence key of the write")])
    assert not english_violations([("s", "the idempotency key of the write")])
    assert not english_violations([("s", "GitHub's `next_page_token`")])
    preferred = {term.english.split(" (")[0].lower() for term in TERMS}
    for banned in ENGLISH_BANNED:
        banned.pattern()  # compiles
        assert not banned.find(banned.preferred), f"'{banned.variant}' bans its own replacement"
        assert banned.variant[4:].lower() not in preferred, f"{banned.variant} is a term"


@pytest.mark.parametrize("path", TRANSLATIONS, ids=rel)
def test_english_prose_uses_no_banned_rendering(path):
    problems = english_violations([(rel(path), path.read_text(encoding="utf-8"))])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", QUIZ_BANKS, ids=rel)
def test_english_quiz_text_uses_no_banned_rendering(path):
    texts = [(f"{rel(path)} {w}", t) for w, t in quiz_texts(path) if w.endswith("_en")]
    problems = english_violations(texts)
    assert not problems, "\n".join(problems)
