"""Instructor tools for a class: an nbgrader course, its grades, and the quizzes' item analysis.

    python tools/instructor.py course DIR [--chapters 00 07] [--timeout 60] [--exchange EX]
    python tools/instructor.py grades DIR --csv grades.csv
    python tools/instructor.py items answers/*.json [--csv items.csv]

``course`` writes a standard nbgrader course directory from ``solutions/`` (the single
source): ``nbgrader_config.py`` (course id, exchange, per-cell timeout, the trusted
autograding of :mod:`tutorial_lib.course.grading`) and ``source/NN_topic/NN_topic.ipynb``
for every chapter with a graded exercise. Then nbgrader does the rest::

    cd DIR
    nbgrader generate_assignment 00_tool_contracts   # release/: no solutions, no hidden tests
    nbgrader release_assignment 00_tool_contracts    # to the exchange
    # students: nbgrader fetch_assignment / nbgrader submit
    nbgrader collect 00_tool_contracts
    nbgrader autograde 00_tool_contracts             # records in the kernel, judged outside
    nbgrader generate_feedback 00_tool_contracts

``grades`` exports the gradebook (nbgrader's Gradebook API) as CSV rows
``student, assignment, notebook, cell, score, max_score`` (``score`` blank: not scored yet,
a written answer waiting to be graded by hand). ``items`` reads the answer files
the quiz widget writes (``load_quiz("08", record_to=..., learner=...)``) and prints, per
question, how many answered, the share correct, and how often each option was chosen.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `tools` and `tutorial_lib` importable
    sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from tutorial_lib.course.grading import hidden_test_problems  # noqa: E402
from tutorial_lib.course.table import text_table  # noqa: E402

SOLUTIONS = ROOT / "solutions"
SOLUTION_NAME = re.compile(r"^(?P<stem>(?P<chapter>\d\d)_[a-z0-9_]+)_solution\.ipynb$")
DEFAULT_COURSE_ID = "reliable-tool-interfaces"
DEFAULT_TIMEOUT_S = 60
GRADES_HEADER = ("student", "assignment", "notebook", "cell", "score", "max_score")


class InstructorError(Exception):
    """A problem the instructor can fix: printed without a traceback, exit status 2."""


# ----------------------------------------------------------------------------- course


def graded_cells(nb: nbformat.NotebookNode) -> list[tuple[str, float]]:
    """``(grade_id, points)`` of every graded cell, in notebook order."""
    found = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            found.append((str(meta.get("grade_id")), float(meta.get("points", 0))))
    return found


def _cell_views(nb: nbformat.NotebookNode) -> list[dict[str, object]]:
    views = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        views.append(
            {
                "cell_type": cell.cell_type,
                "source": cell.source,
                "locked": bool(meta.get("locked")),
                "solution": bool(meta.get("solution")),
                "grade": bool(meta.get("grade")),
                "grade_id": meta.get("grade_id"),
            }
        )
    return views


def assignments(solutions: Path, chapters: Sequence[str]) -> list[tuple[str, Path]]:
    """``(assignment id, solution path)`` of each chapter with a graded exercise."""
    found = []
    for path in sorted(solutions.glob("*_solution.ipynb")):
        match = SOLUTION_NAME.match(path.name)
        if not match or (chapters and match["chapter"] not in chapters):
            continue
        nb = nbformat.read(path, as_version=4)
        if any(points > 0 for _, points in graded_cells(nb)):
            found.append((match["stem"], path))
    missing = sorted(set(chapters) - {a[:2] for a, _ in found})
    if missing:
        raise InstructorError(f"no graded exercise for chapter(s) {', '.join(missing)}")
    return found


def config_text(course_id: str, exchange: str, timeout_s: int) -> str:
    """The course's ``nbgrader_config.py``."""
    return f'''"""nbgrader configuration of {course_id!r}: written by tools/instructor.py course."""

from pathlib import Path

from tutorial_lib.course.grading import trusted_autograde_preprocessors

c = get_config()  # noqa: F821 - nbgrader provides it

c.CourseDirectory.root = str(Path(__file__).resolve().parent)
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}

# Each cell may run this many seconds; a cell still running then is interrupted and scores 0.
c.Execute.timeout = {timeout_s}
c.Execute.interrupt_on_timeout = True

# Autograding: hidden tests record in the learner's kernel and are judged in a fresh process,
# the kernel runs in a file sandbox (tutorial_lib.course.grading explains both).
c.Autograde.autograde_preprocessors = trusted_autograde_preprocessors()
# Set to True to refuse grading where the sandbox is not available (Linux Landlock).
c.TrustedExecute.require_sandbox = False
# A deleted hidden-test cell is put back (and scores 0), not silently skipped.
c.OverwriteCells.add_missing_cells = True
'''


def source_notebook(
    solution: nbformat.NotebookNode, written_points: float
) -> nbformat.NotebookNode:
    """The solution as nbgrader's source: written answers become manually graded cells.

    nbgrader refuses a markdown solution cell that is not also a grade cell (it would have
    nothing to score it with); the course's written answers get ``written_points`` each and
    are graded by hand (formgrader). Code cells and hidden tests are kept as they are.
    """
    nb = nbformat.from_dict(solution)  # a deep copy
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "markdown" and meta.get("solution") and not meta.get("grade"):
            meta["grade"] = True
            meta["points"] = written_points
    return nb


def _write(path: Path, text: str, force: bool, written: list[str]) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    if path.exists() and not force:
        raise InstructorError(f"{path} exists and differs: pass --force to overwrite it")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    written.append(str(path))


def make_course(
    directory: Path,
    *,
    chapters: Sequence[str] = (),
    course_id: str = DEFAULT_COURSE_ID,
    exchange: Path | None = None,
    timeout_s: int = DEFAULT_TIMEOUT_S,
    written_points: float = 1,
    force: bool = False,
    solutions: Path = SOLUTIONS,
) -> list[tuple[str, list[tuple[str, float]], list[tuple[str, float]]]]:
    """Write the course directory; return each assignment's autograded and written cells."""
    if not written_points > 0:
        raise InstructorError(f"--written-points must be > 0, got {written_points:g}")
    if timeout_s < 1:
        raise InstructorError(f"--timeout must be at least 1 second, got {timeout_s}")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", course_id):
        raise InstructorError(f"course id {course_id!r}: use letters, digits, '.', '_', '-'")
    if directory.exists() and not directory.is_dir():
        raise InstructorError(f"{directory} exists and is not a directory")
    exchange = (exchange or directory / "exchange").resolve()
    found = assignments(solutions, chapters)
    summary = []
    problems = []
    sources = {}
    for assignment, path in found:
        nb = nbformat.read(path, as_version=4)
        problems += [f"{path.name}: {p}" for p in hidden_test_problems(_cell_views(nb))]
        cells = graded_cells(nb)
        problems += [f"{path.name}: {g} has no points" for g, points in cells if points <= 0]
        sources[assignment] = source_notebook(nb, written_points)
        written = [c for c in graded_cells(sources[assignment]) if c not in cells]
        summary.append((assignment, cells, written))
    if problems:
        raise InstructorError(
            "the solutions cannot be graded as they are:\n  " + "\n  ".join(problems)
        )
    changed: list[str] = []
    directory.mkdir(parents=True, exist_ok=True)
    _write(
        directory / "nbgrader_config.py",
        config_text(course_id, str(exchange), timeout_s),
        force,
        changed,
    )
    for assignment, nb in sources.items():
        text = nbformat.writes(nb) + "\n"
        _write(directory / "source" / assignment / f"{assignment}.ipynb", text, force, changed)
    exchange.mkdir(parents=True, exist_ok=True)
    return summary


def cmd_course(args: argparse.Namespace) -> int:
    directory = Path(args.directory).resolve()
    summary = make_course(
        directory,
        chapters=args.chapters,
        course_id=args.course_id,
        exchange=Path(args.exchange) if args.exchange else None,
        timeout_s=args.timeout,
        written_points=args.written_points,
        force=args.force,
    )
    rows: list[list[object]] = [
        ["assignment", "autograded (hidden tests)", "points", "written", "points"]
    ]
    for assignment, cells, written in summary:
        rows.append(
            [
                assignment,
                ", ".join(g for g, _ in cells),
                f"{sum(p for _, p in cells):g}",
                ", ".join(g for g, _ in written) or "-",
                f"{sum(p for _, p in written):g}",
            ]
        )
    print(f"course directory: {directory}")
    print(text_table(rows, rule=True))
    first = summary[0][0]
    print(f"\nnext: cd {directory} && nbgrader generate_assignment {first}")
    return 0


# ----------------------------------------------------------------------------- grades


def grade_rows(db_url: str) -> list[tuple[str, str, str, str, str, str]]:
    """Every graded cell of every submission, sorted: ``GRADES_HEADER`` columns as text."""
    from nbgrader.api import Gradebook, MissingEntry

    rows = []
    with Gradebook(db_url) as gb:
        for assignment in gb.assignments:
            for student in gb.students:
                try:
                    submission = gb.find_submission(assignment.name, student.id)
                except MissingEntry:
                    continue
                for notebook in submission.notebooks:
                    order = {cell.name: i for i, cell in enumerate(notebook.notebook.source_cells)}
                    for grade in sorted(notebook.grades, key=lambda g: order.get(g.name, 0)):
                        # nbgrader counts a cell nobody has scored yet (a written answer
                        # waiting for formgrader) as 0: the CSV leaves it blank instead
                        pending = grade.auto_score is None and grade.manual_score is None
                        score = "" if pending else f"{grade.score:g}"
                        rows.append(
                            (
                                student.id,
                                assignment.name,
                                notebook.name,
                                grade.name,
                                score,
                                f"{grade.max_score:g}",
                            )
                        )
    return sorted(rows, key=lambda r: (r[0], r[1], r[2]))


def cmd_grades(args: argparse.Namespace) -> int:
    directory = Path(args.directory).resolve()
    db = Path(args.db).resolve() if args.db else directory / "gradebook.db"
    if not db.is_file():
        raise InstructorError(f"no gradebook at {db}: run nbgrader autograde in {directory} first")
    try:
        rows = grade_rows(f"sqlite:///{db}")
    except ImportError:
        raise InstructorError("nbgrader is not installed: pip install -e '.[instructor]'") from None
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(GRADES_HEADER)
    writer.writerows(rows)
    Path(args.csv).write_text(out.getvalue(), encoding="utf-8")
    students = len({r[0] for r in rows})
    print(f"{len(rows)} graded cells of {students} student(s) written to {args.csv}")
    return 0


# ----------------------------------------------------------------------------- items


def read_answers(paths: Sequence[Path]) -> dict[str, dict[str, dict[str, dict[str, str]]]]:
    """``{learner: {chapter: {question: answer}}}`` from the quiz widget's answer files."""
    from tutorial_lib.course.quiz import ANSWERS_FORMAT  # imports ipywidgets: only when needed

    learners: dict[str, dict[str, dict[str, dict[str, str]]]] = {}
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InstructorError(f"{path}: not a readable answers file ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != ANSWERS_FORMAT:
            raise InstructorError(f"{path}: not a quiz answers file (format {ANSWERS_FORMAT!r})")
        learner = str(data.get("learner", ""))
        if learner in learners:
            raise InstructorError(f"{path}: learner {learner!r} appears in two files")
        learners[learner] = {
            chapter: dict(quiz.get("answers", {}))
            for chapter, quiz in data.get("quizzes", {}).items()
        }
    return learners


def item_rows(answers: dict[str, dict[str, dict[str, dict[str, str]]]]) -> list[dict[str, object]]:
    """One row per (chapter, question): answered, correct letter, share correct, option counts."""
    items: dict[tuple[str, int], dict[str, object]] = {}
    for learner, quizzes in answers.items():
        for chapter, questions in quizzes.items():
            for number, answer in questions.items():
                item = items.setdefault(
                    (chapter, int(number)),
                    {
                        "correct": answer["correct"],
                        "question": answer.get("question"),
                        "counts": {},
                    },
                )
                if (item["correct"], item["question"]) != (
                    answer["correct"],
                    answer.get("question"),
                ):
                    raise InstructorError(
                        f"chapter {chapter} question {number}: {learner}'s file was recorded with"
                        " another version of the question (the quiz bank changed in between)"
                    )
                counts = item["counts"]
                assert isinstance(counts, dict)
                counts[answer["chosen"]] = counts.get(answer["chosen"], 0) + 1
    rows = []
    for (chapter, number), item in sorted(items.items()):
        counts = item["counts"]
        assert isinstance(counts, dict)
        answered = sum(counts.values())
        right = counts.get(item["correct"], 0)
        rows.append(
            {
                "chapter": chapter,
                "question": number,
                "answered": answered,
                "correct": item["correct"],
                "share_correct": right / answered,
                "counts": dict(sorted(counts.items())),
            }
        )
    return rows


def cmd_items(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.files]
    rows = item_rows(read_answers(paths))
    if not rows:
        raise InstructorError("the answer files hold no answers")
    letters = sorted({letter for row in rows for letter in row["counts"]} | {"A", "B", "C", "D"})  # type: ignore[attr-defined]
    header = ["chapter", "question", "answered", "correct", "share correct", *letters]
    table: list[list[object]] = [header]
    for row in rows:
        counts = row["counts"]
        assert isinstance(counts, dict)
        marks = [f"{counts.get(x, 0)}{'*' if x == row['correct'] else ''}" for x in letters]
        share = row["share_correct"]
        assert isinstance(share, float)
        table.append(
            [
                row["chapter"],
                row["question"],
                row["answered"],
                row["correct"],
                f"{share:.0%}",
                *marks,
            ]
        )
    print(f"{len(paths)} answer file(s); * marks the correct option")
    print(text_table(table, align="<>>>>" + ">" * len(letters), rule=True))
    if args.csv:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["chapter", "question", "answered", "correct", "share_correct", *letters])
        for row in rows:
            counts = row["counts"]
            assert isinstance(counts, dict)
            share = row["share_correct"]
            assert isinstance(share, float)
            writer.writerow(
                [row["chapter"], row["question"], row["answered"], row["correct"], f"{share:.4f}"]
                + [counts.get(x, 0) for x in letters]
            )
        Path(args.csv).write_text(out.getvalue(), encoding="utf-8")
        print(f"written to {args.csv}")
    return 0


# ----------------------------------------------------------------------------- main


def _chapter(text: str) -> str:
    if not re.fullmatch(r"\d\d", text):
        raise argparse.ArgumentTypeError(f"a chapter is two digits such as 00, got {text!r}")
    return text


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="tools/instructor.py", description=__doc__.split("\n")[0])
    commands = main.add_subparsers(dest="command", required=True)

    course = commands.add_parser(
        "course", help="write an nbgrader course directory from solutions/"
    )
    course.add_argument("directory", help="the course directory (created if missing)")
    course.add_argument(
        "--chapters", nargs="+", type=_chapter, default=[], help="only these chapters"
    )
    course.add_argument(
        "--course-id", default=DEFAULT_COURSE_ID, help=f"default: {DEFAULT_COURSE_ID}"
    )
    course.add_argument("--exchange", help="nbgrader's exchange directory (default: DIR/exchange)")
    course.add_argument(
        "--timeout", type=int, default=DEFAULT_TIMEOUT_S, help="seconds per cell when autograding"
    )
    course.add_argument(
        "--written-points",
        type=float,
        default=1,
        help="points of each written answer (graded by hand)",
    )
    course.add_argument("--force", action="store_true", help="overwrite files that differ")
    course.set_defaults(run=cmd_course)

    grades = commands.add_parser("grades", help="export the gradebook to CSV")
    grades.add_argument("directory", help="the course directory")
    grades.add_argument("--csv", required=True, help="the CSV file to write")
    grades.add_argument("--db", help="the gradebook (default: DIR/gradebook.db)")
    grades.set_defaults(run=cmd_grades)

    items = commands.add_parser("items", help="item analysis of the class's quiz answer files")
    items.add_argument("files", nargs="+", help="answer files written by the quiz widget")
    items.add_argument("--csv", help="also write the table as CSV")
    items.set_defaults(run=cmd_items)
    return main


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except InstructorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
