"""The course teaches its two source articles in its own words and its own code.

The articles live beside the project (``../shared/sources/``), never inside it. This test
reads them and fails if any run of :data:`COPY_RUN` Chinese characters (punctuation and
whitespace dropped) or :data:`CODE_RUN` characters of their Python code (whitespace
dropped) appears anywhere in the project's text: notebooks (cells and outputs), quiz banks,
README, the library, the tools and the tests.

On a learner's machine without the articles the test is skipped with a note; under
``CI=true`` (``.ci/run``) a missing copy fails the run, since CI is where the promise is kept.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pieces import unavailable
from tools.notebooks import ROOT

COPY_RUN = 14  # Chinese characters in a row that count as copied
CODE_RUN = 60  # characters of code in a row (whitespace dropped) that count as copied
CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
PYTHON_LINE = re.compile(r"\s*(def|class|from|import|return|if|for|with|print|try|except)\b")
TEXT_SUFFIXES = {".py", ".ipynb", ".json", ".md", ".toml", ".txt", ".cfg", ".sh", ".yml", ""}


def source_dirs() -> list[Path]:
    """Where the articles may be: $COURSE_SOURCES, beside this checkout, beside /work/main."""
    candidates = [ROOT.parent / "shared" / "sources", Path("/work/shared/sources")]
    if os.environ.get("COURSE_SOURCES"):
        candidates.insert(0, Path(os.environ["COURSE_SOURCES"]))
    return [path for path in candidates if path.is_dir() and any(path.glob("*.txt"))]


def without_punctuation(text: str) -> str:
    """``text`` without punctuation, symbols, whitespace and control characters."""
    return "".join(ch for ch in text if unicodedata.category(ch)[0] not in "PSZC")


def chinese_runs(text: str, length: int = COPY_RUN) -> set[str]:
    """Every run of ``length`` Chinese characters in ``text`` once punctuation is dropped."""
    return {
        run[i : i + length]
        for run in CJK_RUN.findall(without_punctuation(text))
        for i in range(len(run) - length + 1)
    }


def code_lines(article: str) -> list[str]:
    """The article's code: the lines with no Chinese character that look like code."""
    return [
        line
        for line in article.splitlines()
        if line.strip() and not CJK_CHAR.search(line) and re.search(r"[(){}\[\]=:]", line)
    ]


def code_runs(article: str, length: int = CODE_RUN) -> set[str]:
    """Every ``length``-character window of the article's code, whitespace dropped.

    Consecutive code lines are joined first, so a copy that re-wraps lines is still seen.
    """
    blocks: list[list[str]] = [[]]
    lines = article.splitlines()
    code = set(code_lines(article))
    for line in lines:
        if line in code:
            blocks[-1].append(line)
        elif line.strip() and blocks[-1]:
            blocks.append([])
    runs: set[str] = set()
    for block in blocks:
        if not any(PYTHON_LINE.match(line) for line in block):
            continue  # a JSON example: the course's contracts share their shape on purpose
        joined = re.sub(r"\s+", "", "".join(block))
        runs |= {joined[i : i + length] for i in range(len(joined) - length + 1)}
    return runs


def project_files() -> list[Path]:
    """Every text file of the project that git tracks or would track."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    files = [ROOT / name for name in listed if name]
    return [path for path in files if path.is_file() and path.suffix in TEXT_SUFFIXES]


def json_strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from json_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_strings(item)


def readable_text(path: Path) -> str:
    """What a reader sees of ``path``: a notebook's or a JSON file's strings, else the file."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in {".ipynb", ".json"}:
        try:
            return "\n".join(json_strings(json.loads(raw)))
        except json.JSONDecodeError:
            return raw
    return raw


def copied_in(text: str, prose: set[str], code: set[str], length: int = CODE_RUN) -> list[str]:
    """The runs of ``prose`` and the windows of ``code`` that ``text`` contains."""
    found = sorted(chinese_runs(text) & prose)
    squeezed = re.sub(r"\s+", "", text)
    windows = (squeezed[i : i + length] for i in range(len(squeezed) - length + 1))
    return found + sorted({window for window in windows if window in code})


@pytest.fixture(scope="module")
def articles() -> list[str]:
    dirs = source_dirs()
    if not dirs:
        unavailable("no source articles (../shared/sources): the originality check did not run")
    return [p.read_text(encoding="utf-8") for p in sorted(dirs[0].glob("*.txt"))]


def test_the_project_copies_no_run_of_the_source_articles(articles):
    prose: set[str] = set().union(*(chinese_runs(a) for a in articles))
    code: set[str] = set().union(*(code_runs(a) for a in articles))
    assert len(code) > 100, "the articles' code was not found: the check would see nothing"
    copied = [
        f"{path.relative_to(ROOT)}: {run}"
        for path in project_files()
        for run in copied_in(readable_text(path), prose, code)
    ]
    assert not copied, (
        f"{len(copied)} runs copied from the source articles "
        f"({COPY_RUN}+ Chinese characters or {CODE_RUN}+ characters of code):\n"
        + "\n".join(copied[:40])
    )


def test_the_project_never_points_learners_at_the_source_articles():
    mentions = [
        str(path.relative_to(ROOT))
        for path in project_files()
        if path.parts[len(ROOT.parts)] != "tests" and "源文章" in readable_text(path)
    ]
    assert not mentions, mentions


def test_chinese_runs_ignore_punctuation_and_whitespace():
    # The check must see through re-punctuated copies.
    copied = "一二三四五六七，八九十\n一二三四五六七"
    assert "一二三四五六七八九十一二三四" in chinese_runs(copied)
    assert chinese_runs("一二三 four 五六七八九十一二三四五") == set()


def test_code_runs_ignore_whitespace_and_line_breaks():
    article = "说明文字。\nif ready:\nvalue = compute(first_argument,\n    second_argument)\n" * 2
    runs = code_runs(article, length=20)
    rewrapped = "value=compute( first_argument ,second_argument)"
    assert copied_in(rewrapped, set(), runs, length=20)
    assert not copied_in("value = other(first_argument)", set(), runs, length=20)
    # a block with no Python statement (a JSON example) is not code of the article
    assert code_runs('说明。\n{"type": "object", "required": ["path", "start"]}\n', 20) == set()
