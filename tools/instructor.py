"""Instructor tools for a class: an nbgrader course, feedback, grades, and the quizzes'
item analysis.

    python tools/instructor.py course DIR [--chapters 00 07] [--language en] [--students A B]
                                          [--timeout 60] [--exchange EX]
    python tools/instructor.py feedback DIR ASSIGNMENT
    python tools/instructor.py grades DIR --csv grades.csv
    python tools/instructor.py items answers/*.json [--csv items.csv]

``course`` writes a standard nbgrader course directory from ``solutions/`` (the single
source; ``--language en``: from ``en/solutions/``): ``nbgrader_config.py`` (course id,
exchange, per-cell timeout, the trusted autograding of :mod:`tutorial_lib.course.grading`),
``student/nbgrader_config.py`` (what students need: the exchange and the course id) and
``source/NN_topic/NN_topic.ipynb`` for every chapter with a graded exercise. Then::

    cd DIR
    nbgrader generate_assignment 00_tool_contracts   # release/: no solutions, no hidden tests
    nbgrader release_assignment 00_tool_contracts    # to the exchange
    # students, in a folder with the student config: nbgrader fetch_assignment 00_tool_contracts,
    #   then nbgrader submit 00_tool_contracts
    nbgrader collect 00_tool_contracts
    nbgrader autograde 00_tool_contracts             # records in the kernel, judged outside
    # hand-grade the written answers (formgrader), then
    python tools/instructor.py feedback DIR 00_tool_contracts

``feedback`` generates and releases feedback for each submission whose cells are all
scored, and lists the others (written answers waiting, grading failed). ``grades`` exports
the gradebook as CSV rows ``student, assignment, notebook, cell, score, max_score, note``
(``score`` blank: not scored yet or grading failed; ``note``: why, and what autograding
put back or flagged). ``items`` reads the answer files the quiz widget writes
(``load_quiz("08", record_to=..., learner=...)``) and prints, per question, how many
answered, the share correct, and how often each option was chosen.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import csv
import io
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make `tools` and `tutorial_lib` importable
    sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from tutorial_lib.course.grading import RESTORED_KEY, hidden_test_problems  # noqa: E402
from tutorial_lib.course.submission_flags import library_use  # noqa: E402
from tutorial_lib.course.table import text_table  # noqa: E402
from tutorial_lib.language import LANGUAGE_VARIABLE  # noqa: E402

SOLUTIONS = ROOT / "solutions"
#: Where each language's class is built from.
SOLUTIONS_BY_LANGUAGE = {"zh": SOLUTIONS, "en": ROOT / "en" / "solutions"}
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
SOLUTION_NAME = re.compile(r"^(?P<stem>(?P<chapter>\d\d)_[a-z0-9_]+)_solution\.ipynb$")
DEFAULT_COURSE_ID = "reliable-tool-interfaces"
DEFAULT_TIMEOUT_S = 60
GRADES_HEADER = ("student", "assignment", "notebook", "cell", "score", "max_score", "note")


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


def config_text(
    course_id: str,
    exchange: str,
    timeout_s: int,
    *,
    language: str = "zh",
    checkout: str = str(ROOT),
    one_account: bool = False,
) -> str:
    """The course's ``nbgrader_config.py`` (the teacher's)."""
    lines = [
        f'"""nbgrader configuration of {course_id!r}: written by tools/instructor.py course."""',
        "",
        "import os",
        "from pathlib import Path",
        "",
        "from tutorial_lib.course.grading import (",
        "    course_sanitize_preprocessors,",
        "    trusted_autograde_preprocessors,",
        ")",
        "",
        "c = get_config()  # noqa: F821 - nbgrader provides it",
        "",
        "c.CourseDirectory.root = str(Path(__file__).resolve().parent)",
        f"c.CourseDirectory.course_id = {course_id!r}",
        f"c.Exchange.root = {exchange!r}",
        "",
        "# The language of the checks' reports and of the feedback (the kernel and the judge",
        "# inherit it).",
        f"os.environ[{LANGUAGE_VARIABLE!r}] = {language!r}",
        "",
        "# Each cell may run this many seconds; a cell still running then is interrupted and",
        "# scores 0.",
        f"c.Execute.timeout = {timeout_s}",
        "c.Execute.interrupt_on_timeout = True",
        "",
        "# Autograding: hidden tests record in the learner's kernel and are judged in a fresh",
        "# process, the kernel runs in a file sandbox (tutorial_lib.course.grading explains both).",
        "c.Autograde.autograde_preprocessors = trusted_autograde_preprocessors()",
        "# A deleted or edited hidden-test cell is put back from the source and run",
        "# (nbgrader's own step fails on a deleted one); the grades CSV says so.",
        "c.Autograde.sanitize_preprocessors = course_sanitize_preprocessors()",
        "c.OverwriteCells.add_missing_cells = True",
        "# The checkout the course was built from holds every copy of the solutions: the kernel",
        "# cannot read it (its tutorial_lib package and a Python environment kept there stay",
        "# readable). Add any other copy you keep (e.g. a printout folder) to this list.",
        f"c.TrustedExecute.extra_protected = [{checkout!r}]",
        "# Set to True to refuse grading where the sandbox is not available (Linux Landlock).",
        "c.TrustedExecute.require_sandbox = False",
    ]
    if one_account:
        lines += [
            "",
            "# Every student of this class submits from the same Unix account (--students: a dry",
            "# run or a shared lab account), so every submission is owned by that account and",
            "# nbgrader's owner check would call each one a cheating attempt. With one account",
            "# per student, rebuild without --students: the check is then on.",
            "c.ExchangeCollect.check_owner = False",
        ]
    return "\n".join(lines) + "\n"


def student_config_text(course_id: str, exchange: str, student: str | None = None) -> str:
    """The students' ``nbgrader_config.py``: the exchange and the course id (and, for one
    shared account, the student's id)."""
    lines = [
        f'"""nbgrader configuration for the students of {course_id!r}: written by',
        "tools/instructor.py course.",
        "",
        "Put it where nbgrader finds it: in the folder a student works in, or once for everyone",
        "at /etc/jupyter/nbgrader_config.py. Then, in that folder:",
        "",
        "    nbgrader fetch_assignment 00_tool_contracts",
        "    nbgrader submit 00_tool_contracts",
        "    nbgrader fetch_feedback 00_tool_contracts",
        '"""',
        "",
        "c = get_config()  # noqa: F821 - nbgrader provides it",
        "",
        f"c.CourseDirectory.course_id = {course_id!r}",
        f"c.Exchange.root = {exchange!r}",
    ]
    if student is not None:
        lines += [
            "",
            "# This folder's student, on an account the whole class shares (--students). nbgrader",
            "# remembers an account's submissions in one cache, which fetch_feedback reads: one",
            "# cache per student folder keeps each student to their own feedback.",
            "from pathlib import Path",
            "",
            f"c.CourseDirectory.student_id = {student!r}",
            'c.Exchange.cache = str(Path(__file__).resolve().parent / ".nbgrader_cache")',
        ]
    return "\n".join(lines) + "\n"


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
    language: str = "zh",
    students: Sequence[str] = (),
    solutions: Path | None = None,
) -> list[tuple[str, list[tuple[str, float]], list[tuple[str, float]]]]:
    """Write the course directory; return each assignment's autograded and written cells.

    ``language``: ``"zh"`` builds from ``solutions/``, ``"en"`` from ``en/solutions/``, and
    the checks report in that language. ``students``: one shared account (see
    :func:`config_text`): a student config per name under ``students/NAME/``.
    """
    if language not in SOLUTIONS_BY_LANGUAGE:
        raise InstructorError(f"--language {language!r}: one of {', '.join(SOLUTIONS_BY_LANGUAGE)}")
    solutions = solutions or SOLUTIONS_BY_LANGUAGE[language]
    bad = [name for name in students if not STUDENT_ID.fullmatch(name)]
    if bad:
        raise InstructorError(f"student id {bad[0]!r}: use letters, digits, '.', '_', '-'")
    if len(set(students)) != len(students):
        raise InstructorError("--students: a name appears twice")
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
        config_text(
            course_id, str(exchange), timeout_s, language=language, one_account=bool(students)
        ),
        force,
        changed,
    )
    _write(
        directory / "student" / "nbgrader_config.py",
        student_config_text(course_id, str(exchange)),
        force,
        changed,
    )
    for student in students:
        _write(
            directory / "students" / student / "nbgrader_config.py",
            student_config_text(course_id, str(exchange), student),
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
        language=args.language,
        students=args.students,
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
    print(f"course directory: {directory} ({args.language})")
    print(text_table(rows, rule=True))
    first = summary[0][0]
    print(
        f"\nstudents' config: {directory / 'student' / 'nbgrader_config.py'} (install it as"
        " /etc/jupyter/nbgrader_config.py, or copy it into each student's folder)"
    )
    if args.students:
        print(f"one shared account: a folder per student under {directory / 'students'}")
    print(f"next: cd {directory} && nbgrader generate_assignment {first}")
    return 0


# ----------------------------------------------------------------------------- grades

#: The note of a written answer nobody has scored yet.
WAITING = "waiting for hand grading"


def grade_rows(directory: Path, db_url: str) -> list[tuple[str, ...]]:
    """Every graded cell of every submission, sorted: ``GRADES_HEADER`` columns as text.

    ``score`` is blank where nobody has scored the cell (a written answer waiting for
    formgrader) or where grading failed; ``note`` says which, and what autograding put
    back or flagged (see :func:`notebook_notes`). A student who submitted (``submitted/``)
    but has no graded notebook gets a row per graded cell, noted "grading failed".
    """
    from nbgrader.api import Gradebook, MissingEntry

    rows: list[tuple[str, ...]] = []
    with Gradebook(db_url) as gb:
        for assignment in gb.assignments:
            graded_students = set()
            for student in gb.students:
                try:
                    submission = gb.find_submission(assignment.name, student.id)
                except MissingEntry:
                    continue
                graded_students.add(student.id)
                for notebook in submission.notebooks:
                    cells = notebook.notebook.source_cells
                    order = {cell.name: i for i, cell in enumerate(cells)}
                    autograded = (
                        directory / "autograded" / student.id / assignment.name
                        / f"{notebook.name}.ipynb"
                    )  # fmt: skip
                    notes = notebook_notes(autograded)
                    failed = not autograded.is_file()  # nbgrader removes what it could not grade
                    for grade in sorted(notebook.grades, key=lambda g: order.get(g.name, 0)):
                        # nbgrader counts a cell nobody has scored yet (a written answer
                        # waiting for formgrader) as 0: the CSV leaves it blank instead
                        pending = failed or (
                            grade.auto_score is None and grade.manual_score is None
                        )
                        note = notes.get(grade.name, [])
                        if failed:
                            note = [_failed(student.id)]
                        elif pending:
                            note = [WAITING, *note]
                        rows.append(
                            (
                                student.id,
                                assignment.name,
                                notebook.name,
                                grade.name,
                                "" if pending else f"{grade.score:g}",
                                f"{grade.max_score:g}",
                                "; ".join(note),
                            )
                        )
            for student_id in _submitted(directory, assignment.name) - graded_students:
                for notebook in assignment.notebooks:
                    for cell in notebook.grade_cells:
                        rows.append(
                            (
                                student_id,
                                assignment.name,
                                notebook.name,
                                cell.name,
                                "",
                                f"{cell.max_score:g}",
                                _failed(student_id),
                            )
                        )
    return sorted(rows, key=lambda r: (r[0], r[1], r[2]))


def _failed(student: str) -> str:
    return f"grading failed: see nbgrader autograde's log for {student}"


def _submitted(directory: Path, assignment: str) -> set[str]:
    """The students with a collected submission of ``assignment``."""
    root = directory / "submitted"
    if not root.is_dir():
        return set()
    return {p.name for p in root.iterdir() if (p / assignment).is_dir()}


def notebook_notes(path: Path) -> dict[str, list[str]]:
    """What the teacher should know about each graded cell of an autograded notebook,
    ``{grade_id: [note, ...]}``: cells put back from the source (a deleted or edited
    hidden-test cell), and answers that use the library's code (a flag on the hidden-test
    cells that test them). Read, never run. A locked cell that is not graded and was
    edited is noted on every graded cell of the notebook."""
    try:
        nb = nbformat.read(path, as_version=4)
    except (OSError, ValueError):
        return {}
    notes: dict[str, list[str]] = {}
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    everywhere: list[str] = []
    flagged: dict[str, list[str]] = {}  # function name -> evidence
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id")
        restored = cell.metadata.get(RESTORED_KEY)
        if restored:
            what = "missing from" if restored == "missing" else "edited in"
            note = f"restored: cell {grade_id} was {what} the submission; put back from the source"
            if meta.get("grade"):
                notes.setdefault(str(grade_id), []).append(note + " and run")
            else:
                everywhere.append(note)
        if meta.get("solution") and cell.cell_type == "code":
            evidence = library_use(cell.source)
            if evidence:
                for name in _defined_names(cell.source) or {"*"}:
                    flagged.setdefault(name, []).extend(evidence)
    for cell in graded:
        grade_id = str(cell.metadata["nbgrader"]["grade_id"])
        if cell.cell_type != "code":
            continue
        tested = _tested_names(cell.source)
        evidence = [e for name in sorted(tested | {"*"}) for e in flagged.get(name, [])]
        if evidence:
            notes.setdefault(grade_id, []).append(
                "flag: the answer uses the library's code: " + " | ".join(dict.fromkeys(evidence))
            )
    for cell in graded:
        notes.setdefault(str(cell.metadata["nbgrader"]["grade_id"]), []).extend(everywhere)
    return {k: v for k, v in notes.items() if v}


def _defined_names(source: str) -> set[str]:
    """The functions and classes a cell defines, wherever (an answer may define its
    function inside an ``if``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def _tested_names(source: str) -> set[str]:
    """The names in the first argument of each ``check_hidden(...)`` call of a cell."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "check_hidden"
            and node.args
        ):
            names |= {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)}
    return names


def _gradebook(directory: Path, db: str | None) -> str:
    path = Path(db).resolve() if db else directory / "gradebook.db"
    if not path.is_file():
        raise InstructorError(
            f"no gradebook at {path}: run nbgrader autograde in {directory} first"
        )
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        raise InstructorError("nbgrader is not installed: pip install -e '.[instructor]'") from None
    return f"sqlite:///{path}"


def cmd_grades(args: argparse.Namespace) -> int:
    directory = Path(args.directory).resolve()
    rows = grade_rows(directory, _gradebook(directory, args.db))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(GRADES_HEADER)
    writer.writerows(rows)
    Path(args.csv).write_text(out.getvalue(), encoding="utf-8")
    students = len({r[0] for r in rows})
    noted = sorted({r[0] for r in rows if r[-1] and r[-1] != WAITING})
    print(f"{len(rows)} graded cells of {students} student(s) written to {args.csv}")
    if noted:
        print(f"see the note column for: {', '.join(noted)}")
    return 0


# ----------------------------------------------------------------------------- feedback


def feedback_plan(directory: Path, db_url: str, assignment: str) -> dict[str, list[str]]:
    """Each student who submitted ``assignment``: ``[]`` when every cell is scored
    (feedback can go out), else what holds it back (written answers waiting, or grading
    failed)."""
    waiting: dict[str, list[str]] = {}
    for row in grade_rows(directory, db_url):
        student, assignment_id, _notebook, cell, score, _max, note = row
        if assignment_id != assignment:
            continue
        holds = waiting.setdefault(student, [])
        if score == "":
            holds.append(f"{cell}: {note.split(';')[0]}")
    return waiting


@contextlib.contextmanager
def _in_directory(directory: Path) -> Iterator[None]:
    """Run in ``directory``, then return (``contextlib.chdir`` is Python 3.11+)."""
    before = Path.cwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(before)


def cmd_feedback(args: argparse.Namespace) -> int:
    directory = Path(args.directory).resolve()
    plan = feedback_plan(directory, _gradebook(directory, args.db), args.assignment)
    if not plan:
        raise InstructorError(f"no graded submission of {args.assignment} in {directory}")
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(directory)).load_config()
    rows: list[list[object]] = [["student", "feedback"]]
    failed = 0
    with _in_directory(directory):  # nbgrader's API works relative to the course
        api = NbGraderAPI(CourseDirectory(config=config), config=config)
        for student, holds in sorted(plan.items()):
            if holds:
                rows.append([student, "not yet: " + "; ".join(holds)])
                continue
            made = api.generate_feedback(args.assignment, student)
            released = made["success"] and api.release_feedback(args.assignment, student)["success"]
            failed += not released
            rows.append([student, "released" if released else "FAILED (see nbgrader's log)"])
    print(text_table(rows, rule=True))
    print("students fetch it with: nbgrader fetch_feedback " + args.assignment)
    return 1 if failed else 0


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
    course.add_argument(
        "--language",
        choices=sorted(SOLUTIONS_BY_LANGUAGE),
        default="zh",
        help="zh: from solutions/; en: the English class, from en/solutions/",
    )
    course.add_argument(
        "--students",
        nargs="+",
        default=[],
        metavar="NAME",
        help="one account shared by the class: a config folder per student",
    )
    course.set_defaults(run=cmd_course)

    feedback = commands.add_parser(
        "feedback", help="feedback for every submission whose written answers are graded"
    )
    feedback.add_argument("directory", help="the course directory")
    feedback.add_argument("assignment", help="e.g. 00_tool_contracts")
    feedback.add_argument("--db", help="the gradebook (default: DIR/gradebook.db)")
    feedback.set_defaults(run=cmd_feedback)

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
