"""The English edition: translations kept as data, one entry per markdown cell, and its build.

    python tools/translate.py status          # list missing and stale entries (exit 1 if any)
    python tools/translate.py stub PATH...    # add a placeholder entry for every missing cell
    python tools/translate.py build           # write en/notebooks, en/solutions, en/exercises
    python tools/translate.py build --release # same, but mark stale cells instead of failing
    python tools/translate.py build --check   # write nothing; exit 1 if en/ is out of date

A translation file ``translations/en/<folder>/<stem>.md`` holds, for each markdown cell of
``<folder>/<stem>.ipynb`` (``notebooks/`` or ``solutions/``), one entry::

    <!-- cell ch00-03 zh:1f2e3d4c5b6a -->
    The English markdown of cell ch00-03 ...

``ch00-03`` is the cell's nbformat id; ``1f2e3d4c5b6a`` is the start of the SHA-256 of the
Chinese source the entry translates. When that cell's Chinese source changes, the hash no
longer matches and the entry is *stale*; a cell with no entry is *missing*; an entry whose
header says ``todo`` (written by ``stub``) is missing too. The build copies code cells and
their outputs unchanged, adds one code cell that switches the library's text to English, and
generates the English exercises from the English solutions with ``tools/exercises.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `tools` importable
    sys.path.insert(0, str(ROOT))

from tools import exercises, notebooks  # noqa: E402

TRANSLATIONS = ROOT / "translations" / "en"
EDITION = ROOT / "en"
#: The folders whose markdown is translated (exercises are generated from solutions).
TRANSLATED_FOLDERS = ("notebooks", "solutions")
HASH_CHARS = 12
ENTRY = re.compile(
    r"^<!-- cell (?P<id>[A-Za-z0-9_-]+) zh:(?P<hash>[0-9a-f]+)(?P<todo> todo)? -->$", re.M
)
LANGUAGE_CELL_ID = "en-language"
LANGUAGE_CELL = (
    "from tutorial_lib.language import use_language\n"
    "\n"
    'use_language("en")  # the quiz, the checks and the widgets speak English from here on'
)
OUTPUTS_NOTE_ID = "en-outputs-note"
OUTPUTS_NOTE = (
    "> **English edition.** The prose is translated; the code is the Chinese edition's, cell"
    " for cell. The outputs saved in this file were recorded when the Chinese edition ran, so"
    " messages from the course's checks and quizzes appear in Chinese until you run the"
    " notebook: the first code cell switches them to English."
)
STALE_NOTE = (
    "> ⚠ *Behind the Chinese source: this cell changed after it was translated"
    " (`python tools/translate.py status`).*"
)
MISSING_NOTE = "> ⚠ *Not translated yet: the Chinese source is shown.*"


def source_hash(source: str) -> str:
    """The start of the SHA-256 of a cell's Chinese source (what an entry says it translates)."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:HASH_CHARS]


@dataclass(frozen=True)
class Entry:
    """One translated cell: its id, the hash of the source it translates, the English text."""

    cell_id: str
    source_hash: str
    english: str
    todo: bool = False


@dataclass(frozen=True)
class Problem:
    """A cell the English edition cannot take as is: ``missing``, ``stale`` or ``orphan``."""

    notebook: str
    cell_id: str
    kind: str

    def __str__(self) -> str:
        what = {
            "missing": "has no English entry",
            "stale": "changed after its English entry was written",
            "orphan": "is an entry for a cell the notebook no longer has",
        }[self.kind]
        return f"{self.notebook} cell {self.cell_id} {what}"


def translated_notebooks() -> list[Path]:
    """The notebooks whose markdown the English edition translates, in folder and chapter order."""
    return notebooks.chapter_notebooks() + notebooks.solution_notebooks()


def translation_path(notebook: Path) -> Path:
    """``notebooks/00_x.ipynb`` -> ``translations/en/notebooks/00_x.md``."""
    return TRANSLATIONS / notebook.parent.name / f"{notebook.stem}.md"


def edition_path(notebook: Path) -> Path:
    """``notebooks/00_x.ipynb`` -> ``en/notebooks/00_x.ipynb``."""
    return EDITION / notebook.parent.name / notebook.name


def parse(text: str, where: str = "translation") -> dict[str, Entry]:
    """The entries of a translation file, by cell id (a repeated id is an error)."""
    entries: dict[str, Entry] = {}
    headers = list(ENTRY.finditer(text))
    for index, header in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        cell_id = header["id"]
        if cell_id in entries:
            raise ValueError(f"{where}: cell {cell_id} has two entries")
        english = text[header.end() : end].strip("\n")
        entries[cell_id] = Entry(cell_id, header["hash"], english, bool(header["todo"]))
    return entries


def render(entries: list[Entry], notebook: str) -> str:
    """A translation file's text for ``entries`` (in cell order)."""
    parts = [f"<!-- English translation of {notebook}: one entry per markdown cell -->\n"]
    for entry in entries:
        todo = " todo" if entry.todo else ""
        parts.append(f"<!-- cell {entry.cell_id} zh:{entry.source_hash}{todo} -->\n")
        parts.append(entry.english.strip("\n") + "\n\n")
    return "\n".join(parts).rstrip("\n") + "\n"


def read_entries(notebook: Path) -> dict[str, Entry]:
    """The entries for ``notebook`` (none when its translation file does not exist yet)."""
    path = translation_path(notebook)
    if not path.exists():
        return {}
    return parse(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))


def markdown_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in nb.cells if cell.cell_type == "markdown"]


def problems(notebook: Path) -> list[Problem]:
    """Every missing, stale or orphan entry of ``notebook``'s translation, in cell order."""
    nb = nbformat.read(notebook, as_version=4)
    entries = read_entries(notebook)
    name = str(notebook.relative_to(ROOT))
    found: list[Problem] = []
    ids = set()
    for cell in markdown_cells(nb):
        ids.add(cell.id)
        entry = entries.get(cell.id)
        if entry is None or entry.todo:
            found.append(Problem(name, cell.id, "missing"))
        elif entry.source_hash != source_hash(cell.source):
            found.append(Problem(name, cell.id, "stale"))
    found += [Problem(name, cell_id, "orphan") for cell_id in entries if cell_id not in ids]
    return found


def stub(notebook: Path) -> int:
    """Add a ``todo`` entry (holding the Chinese source) for every missing cell; keep the rest.

    Entries are rewritten in cell order; returns how many placeholders were added.
    """
    nb = nbformat.read(notebook, as_version=4)
    entries = read_entries(notebook)
    ordered: list[Entry] = []
    added = 0
    for cell in markdown_cells(nb):
        entry = entries.get(cell.id)
        if entry is None:
            entry = Entry(cell.id, source_hash(cell.source), cell.source, todo=True)
            added += 1
        ordered.append(entry)
    path = translation_path(notebook)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(ordered, str(notebook.relative_to(ROOT))), encoding="utf-8")
    return added


def english_notebook(notebook: Path, release: bool = False) -> nbformat.NotebookNode:
    """The English edition of ``notebook``: translated markdown, code and outputs unchanged.

    Raises ``ValueError`` naming every missing or stale cell, unless ``release`` is true:
    then a stale cell keeps its old English with a visible note, a missing one shows the
    Chinese source with a note.
    """
    found = [p for p in problems(notebook) if p.kind != "orphan"]
    if found and not release:
        listed = "\n  ".join(str(p) for p in found)
        raise ValueError(
            f"the English edition is behind the Chinese source:\n  {listed}\n"
            "list them with: python tools/translate.py status"
        )
    nb = nbformat.read(notebook, as_version=4)
    entries = read_entries(notebook)
    for cell in markdown_cells(nb):
        entry = entries.get(cell.id)
        if entry is None or entry.todo:
            cell.source = f"{MISSING_NOTE}\n\n{cell.source}"
        elif entry.source_hash != source_hash(cell.source):
            cell.source = f"{STALE_NOTE}\n\n{entry.english}"
        else:
            cell.source = entry.english
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    switch = nbformat.v4.new_code_cell(LANGUAGE_CELL)
    switch.id = LANGUAGE_CELL_ID
    note = nbformat.v4.new_markdown_cell(OUTPUTS_NOTE)
    note.id = OUTPUTS_NOTE_ID
    nb.cells[first_code:first_code] = [note, switch]
    nb.metadata["tutorial_lib"] = {"edition": "en", "translated_from": notebook.name}
    return nb


def built_files(release: bool = False) -> dict[Path, str]:
    """Every file of the English edition, by path, with its text (writes nothing)."""
    files: dict[Path, str] = {}
    for notebook in translated_notebooks():
        nb = english_notebook(notebook, release)
        files[edition_path(notebook)] = nbformat.writes(nb) + "\n"
        if notebook.parent.name == "solutions":
            exercise = exercises.make_exercise(nb, notebook.name)
            files[EDITION / "exercises" / exercises.exercise_path(notebook).name] = (
                nbformat.writes(exercise) + "\n"
            )
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("status", help="list missing, stale and orphan entries")
    stub_parser = sub.add_parser("stub", help="add placeholder entries for missing cells")
    stub_parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: all)")
    build = sub.add_parser("build", help="write the English edition into en/")
    build.add_argument("--release", action="store_true", help="mark stale cells, do not fail")
    build.add_argument("--check", action="store_true", help="write nothing; report stale files")
    args = parser.parse_args(argv)

    if args.command == "status":
        found = [p for nb in translated_notebooks() for p in problems(nb)]
        for problem in found:
            print(problem)
        total = sum(
            len(markdown_cells(nbformat.read(nb, as_version=4))) for nb in translated_notebooks()
        )
        print(f"{total} markdown cells, {len(found)} entries missing, stale or orphaned")
        return 1 if found else 0
    if args.command == "stub":
        for path in args.paths or translated_notebooks():
            added = stub(path.resolve())
            print(
                f"{translation_path(path.resolve()).relative_to(ROOT)}: {added} placeholders added"
            )
        return 0
    try:
        files = built_files(args.release)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    out_of_date = [p for p, text in files.items() if not p.exists() or p.read_text("utf-8") != text]
    for path in out_of_date:
        print(f"{'out of date' if args.check else 'wrote'}: {path.relative_to(ROOT)}")
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(files[path], encoding="utf-8")
    return 1 if args.check and out_of_date else 0


if __name__ == "__main__":
    raise SystemExit(main())
