"""The instructor's class workflow with real nbgrader, end to end, on chapter 00's assignment.

``tools/instructor.py course`` writes the course from ``solutions/``; nbgrader generates,
releases, the class fetches and submits through the exchange, the instructor collects,
autogrades (the ``nbgrader autograde`` command with the course's ``nbgrader_config.py``),
generates feedback, and ``tools/instructor.py grades`` exports the CSV. Six submissions:

- ``correct``: the solution; ``partial``: ``line_at`` with ``isinstance`` (breaks the
  one rule "拒绝 True");
- ``looping``: ``line_at`` spins for negative line numbers (the checks' per-case time limit
  stops it), and the ``read_all_pages`` cell spins at top level before its ``def`` (the
  per-cell timeout interrupts it);
- ``raising``: the ``line_at`` cell fails at import;
- ``reader``: tries to read the instructor's source notebook, the gradebook, the other
  students' work and the repository's solutions from disk, through ``open``, ``sqlite3``
  and a ``cat`` subprocess, and would run any solution it found;
- ``patcher``: wrong functions, and it replaces ``check_hidden``, the recorder, the
  reference, the case generator and ``differences``, hides tracebacks, prints a forged
  pass, displays a partial-credit ``1.0`` and forges a record.

Chapter 00 runs fast: two graded cells of 1 point, a written answer graded by hand.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.pieces import unavailable
from tools import instructor
from tutorial_lib.course import checks, grading
from tutorial_lib.course.chapters.ch00_tool_contracts import cases as warmups
from tutorial_lib.course.checks import Case, check_hidden
from tutorial_lib.course.submission_flags import library_use

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "00_tool_contracts"
COURSE_ID = "reliable-tool-interfaces"
CELL_TIMEOUT_S = 8
LINE_AT, READ_ALL = "ex00-hidden-line-at", "ex00-hidden-read-all-pages"
WRITTEN = "ex00-a3"
ARTIFACT = ROOT / "test-artifacts" / "instructor_workflow.json"


def _solution_code(grade_id: str) -> str:
    nb = nbformat.read(ROOT / "solutions" / f"{ASSIGNMENT}_solution.ipynb", as_version=4)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return "\n".join(line for line in cell.source.split("\n") if "### " not in line)


CORRECT_LINE_AT = _solution_code("ex00-line-at")
CORRECT_READ_ALL = _solution_code("ex00-read-all-pages")

PARTIAL_LINE_AT = """def line_at(lines, number):
    if not isinstance(number, int) or not 1 <= number <= len(lines):
        return None
    return {"number": number, "text": lines[number - 1]}
"""

LOOPING_LINE_AT = """def line_at(lines, number):
    while type(number) is int and number < 0:  # meant to "fix" the number, never changes it
        pass
    if type(number) is not int or number > len(lines):
        return None
    return {"number": number, "text": lines[number - 1]}
"""
LOOPING_READ_ALL = (
    """while True:  # a top-level loop: only the per-cell timeout ends it
    pass

"""
    + CORRECT_READ_ALL
)

RAISING_LINE_AT = (
    "from tutorial_lib.course.chapters.ch00_tool_contracts.cases import line_at_answer\n\n"
    + CORRECT_LINE_AT
)

READER_LINE_AT = """import json, sqlite3, subprocess
from pathlib import Path

import tutorial_lib

attempts = []
found = []


def attempt(what, action):
    try:
        result = action()
    except Exception as exc:
        attempts.append(f"{what}: {type(exc).__name__}")
        return None
    attempts.append(f"{what}: read")
    return result


here = Path.cwd()
course = next(p for p in here.parents if (p / "nbgrader_config.py").exists())
source = course / "source" / "00_tool_contracts" / "00_tool_contracts.ipynb"
checkout = Path(tutorial_lib.__file__).parents[1]
found.append(attempt("source notebook", source.read_text))
found.append(attempt("source listing", lambda: str(list((course / "source").iterdir()))))
for copy in ("solutions/00_tool_contracts_solution.ipynb",
             "en/solutions/00_tool_contracts_solution.ipynb",
             "translations/en/solutions/00_tool_contracts_solution.md",
             "docs/instructor/00.md", "tests/rules_00.py", ".git/HEAD"):
    found.append(attempt(f"checkout {copy}", (checkout / copy).read_text))
found.append(attempt("checkout listing", lambda: str(list(checkout.iterdir()))))
other = course / "autograded" / "correct" / "00_tool_contracts" / "00_tool_contracts.ipynb"
found.append(attempt("correct student's work", other.read_text))
found.append(attempt("gradebook", lambda: str(sqlite3.connect(course / "gradebook.db")
    .execute("select source from source_cell").fetchall())))
found.append(attempt("cat the source", lambda: subprocess.run(
    ["cat", str(source)], capture_output=True, text=True, check=True).stdout))
print("\\n".join(attempts))

for text in filter(None, found):  # any solution found would be run
    try:
        cells = json.loads(text)["cells"]
    except Exception:
        continue
    for cell in cells:
        code = "".join(cell["source"])
        if "### BEGIN SOLUTION" in code:
            exec(code.replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""))

if "line_at" not in globals():

    def line_at(lines, number):
        raise NotImplementedError()
"""
READER_READ_ALL = """if "read_all_pages" not in globals():

    def read_all_pages(fetch_page):
        raise NotImplementedError()
"""

PATCHER_LINE_AT = """import sys

from IPython import get_ipython
from IPython.display import display

import tutorial_lib.course.chapters.ch00_tool_contracts.cases as warmups
import tutorial_lib.course.checks as checks
import tutorial_lib.course.grading as grading


def line_at(lines, number):
    return None


def read_all_pages(fetch_page):
    return {"items": [], "pages_read": 1, "coverage": "complete"}


def everything_passes(function, cases, **kwargs):
    print("隐藏测试：全部通过。")
    forged = [[f"生成的输入 {i}", "return", None] for i in range(1, 201)]
    record = {"format": 1, "function": function.__name__, "cases": forged}
    display({grading.LOG_MIME: record}, raw=True)
    sys.displayhook(1.0)  # nbgrader reads a number as partial credit
    raise AssertionError("hidden")  # and hides the traceback below


checks.check_hidden = everything_passes
grading.record_hidden = everything_passes
grading.install_recorder = lambda: None
checks.differences = lambda expected, got, where="": []
warmups.reference_line_at = line_at
warmups.reference_read_all_pages = read_all_pages
warmups.line_at_hidden_cases = lambda *a, **k: ()
get_ipython()._showtraceback = lambda *args, **kwargs: None
"""
PATCHER_READ_ALL = "pass\n"

BORROWER_LINE_AT = (
    "from tutorial_lib.course.chapters.ch00_tool_contracts.cases import reference_line_at\n"
    """

def line_at(lines, number):
    return reference_line_at(lines, number)
"""
)

WRITTEN_ANSWER = "缺的是方法和时机，不是能力：先用 gh 和一份操作说明。"

SUBMISSIONS: dict[str, dict[str, str]] = {
    "correct": {"ex00-line-at": CORRECT_LINE_AT, "ex00-read-all-pages": CORRECT_READ_ALL},
    "partial": {"ex00-line-at": PARTIAL_LINE_AT, "ex00-read-all-pages": CORRECT_READ_ALL},
    "looping": {"ex00-line-at": LOOPING_LINE_AT, "ex00-read-all-pages": LOOPING_READ_ALL},
    "raising": {"ex00-line-at": RAISING_LINE_AT, "ex00-read-all-pages": CORRECT_READ_ALL},
    "reader": {"ex00-line-at": READER_LINE_AT, "ex00-read-all-pages": READER_READ_ALL},
    "patcher": {"ex00-line-at": PATCHER_LINE_AT, "ex00-read-all-pages": PATCHER_READ_ALL},
    # correct answers; deletes line_at's hidden-test cell and empties read_all_pages' one
    "deleter": {"ex00-line-at": CORRECT_LINE_AT, "ex00-read-all-pages": CORRECT_READ_ALL,
                LINE_AT: None, READ_ALL: "pass  # nothing to test here\n"},
    # passes by calling the library's reference: scores, and is flagged for the teacher
    "borrower": {"ex00-line-at": BORROWER_LINE_AT, "ex00-read-all-pages": CORRECT_READ_ALL},
    # a notebook file that is not JSON: its grading fails, nobody else's does
    "broken": {},
}  # fmt: skip
#: The students who run the README's commands verbatim (nbgrader fetch_assignment / submit
#: in their folder of the one-account class); the others go through nbgrader's API.
VERBATIM = ("correct", "partial")
#: Expected autograded points per student: (line_at, read_all_pages).
EXPECTED = {
    "correct": (1, 1),
    "partial": (0, 1),
    "looping": (0, 0),
    "raising": (0, 1),
    "reader": (0, 0),
    "patcher": (0, 0),
    "deleter": (1, 1),
    "borrower": (1, 1),
}


def _need_nbgrader() -> None:
    try:
        import nbgrader  # noqa: F401
    except ImportError:
        unavailable("nbgrader is not installed: pip install -e '.[instructor]'")


def _fill(notebook: Path, answers: dict[str, str | None]) -> None:
    """Write ``answers`` into the fetched notebook (``None``: delete that cell; no answers
    at all: the file is no notebook any more)."""
    if not answers:
        notebook.write_text("{not a notebook", encoding="utf-8")
        return
    nb = nbformat.read(notebook, as_version=4)
    kept = []
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            if answers[grade_id] is None:
                continue
            cell.source = answers[grade_id]
        elif grade_id == WRITTEN:
            cell.source = WRITTEN_ANSWER
        kept.append(cell)
    nb.cells = kept
    nbformat.write(nb, notebook)


def _nbgrader(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """An nbgrader command as a person types it (the venv's ``nbgrader`` script)."""
    script = Path(sys.executable).with_name("nbgrader")
    return subprocess.run(
        [str(script), *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def _verbatim_student(course_dir: Path, student: str) -> None:
    """``nbgrader fetch_assignment`` and ``nbgrader submit``, verbatim, in the student's
    folder of the one-account class (its nbgrader_config.py names the exchange, the course
    and the student)."""
    folder = course_dir / "students" / student
    fetched = _nbgrader("fetch_assignment", ASSIGNMENT, cwd=folder)
    assert fetched.returncode == 0, fetched.stderr[-2000:]
    _fill(folder / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", SUBMISSIONS[student])
    submitted = _nbgrader("submit", ASSIGNMENT, cwd=folder)
    assert submitted.returncode == 0, submitted.stderr[-2000:]


def _student_config(course_dir: Path, exchange: Path, student: str, home: Path) -> Any:
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.course_id = COURSE_ID
    config.CourseDirectory.assignment_id = ASSIGNMENT
    config.CourseDirectory.student_id = student
    config.CourseDirectory.root = str(home)
    config.Exchange.root = str(exchange)
    config.Exchange.assignment_dir = str(home)
    config.Exchange.cache = str(home / ".nbgrader_cache")  # not the account's own
    return config


def _fetch_and_submit(course_dir: Path, exchange: Path, student: str, home: Path) -> None:
    """What ``nbgrader fetch_assignment`` and ``nbgrader submit`` do, through the same classes."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default import ExchangeFetchAssignment, ExchangeSubmit

    home.mkdir(parents=True)
    config = _student_config(course_dir, exchange, student, home)
    coursedir = CourseDirectory(config=config)
    authenticator = Authenticator(config=config)
    ExchangeFetchAssignment(coursedir=coursedir, authenticator=authenticator, config=config).start()
    _fill(home / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", SUBMISSIONS[student])
    ExchangeSubmit(coursedir=coursedir, authenticator=authenticator, config=config).start()


def _api(course_dir: Path) -> Any:
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(course_dir)).load_config()
    return NbGraderAPI(CourseDirectory(config=config), config=config)


@pytest.fixture(scope="module")
def workflow(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the whole class workflow once; return paths, timings and the CSV rows."""
    _need_nbgrader()
    return run_class_workflow(tmp_path_factory.mktemp("class"))


def run_class_workflow(base: Path) -> dict[str, Any]:
    """The whole class in ``base``: course, release, six students fetch and submit,
    collect, autograde, feedback, grades CSV. Returns paths, seconds per step and the rows
    (``benchmarks/class_workflow_benchmark.py`` times it; no test decides by its speed)."""
    course_dir, exchange = base / "course", base / "exchange"
    times: dict[str, float] = {}
    started = time.monotonic()

    def step(name: str, since: float) -> float:
        now = time.monotonic()
        times[name] = round(now - since, 2)
        return now

    made = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "instructor.py"), "course", str(course_dir),
         "--chapters", "00", "--exchange", str(exchange), "--timeout", str(CELL_TIMEOUT_S),
         "--students", *SUBMISSIONS],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    cwd = os.getcwd()
    os.chdir(course_dir)  # nbgrader's API works relative to the course directory
    try:
        now = step("course", started)
        api = _api(course_dir)
        assert api.generate_assignment(ASSIGNMENT)["success"], "generate_assignment failed"
        now = step("generate_assignment", now)
        assert api.release_assignment(ASSIGNMENT)["success"], "release_assignment failed"
        now = step("release_assignment", now)
        for student in SUBMISSIONS:
            if student in VERBATIM:
                _verbatim_student(course_dir, student)
            else:
                _fetch_and_submit(course_dir, exchange, student, base / "students" / student)
        now = step("fetch_and_submit", now)
        collect = _nbgrader("collect", ASSIGNMENT, cwd=course_dir)
        assert collect.returncode == 0, collect.stderr[-3000:]
        now = step("collect", now)
        autograde = _nbgrader("autograde", ASSIGNMENT, "--force", cwd=course_dir)
        now = step("autograde", now)
        # nbgrader exits 1 because one submission could not be graded: the others are
        csv_path = base / "grades.csv"
        assert instructor.main(["grades", str(course_dir), "--csv", str(csv_path)]) == 0
        now = step("grades_csv", now)
        before_hand_grading = _run_instructor("feedback", str(course_dir), ASSIGNMENT)
        _grade_by_hand(course_dir, ("correct", "partial"))
        feedback = _run_instructor("feedback", str(course_dir), ASSIGNMENT)
        now = step("feedback", now)
        fetched_feedback = _nbgrader(
            "fetch_feedback", ASSIGNMENT, cwd=course_dir / "students" / "correct"
        )
        step("fetch_feedback", now)
        assert instructor.main(["grades", str(course_dir), "--csv", str(base / "after.csv")]) == 0
    finally:
        os.chdir(cwd)
    times["total"] = round(time.monotonic() - started, 2)
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    scores = {(r["student"], r["cell"]): r["score"] for r in rows}
    ARTIFACT.parent.mkdir(exist_ok=True)
    ARTIFACT.write_text(
        json.dumps({"seconds": times, "scores": {f"{s} {c}": v for (s, c), v in scores.items()}},
                   ensure_ascii=False, indent=1) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    return {
        "course": course_dir,
        "exchange": exchange,
        "csv": csv_path,
        "rows": rows,
        "after": list(csv.DictReader((base / "after.csv").open(encoding="utf-8"))),
        "scores": scores,
        "times": times,
        "autograde": autograde,
        "collect": collect,
        "autograde_log": autograde.stderr,
        "feedback_before": before_hand_grading,
        "feedback": feedback,
        "fetched_feedback": fetched_feedback,
    }


def _run_instructor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "instructor.py"), *args],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def _grade_by_hand(course_dir: Path, students: tuple[str, ...]) -> None:
    """What a teacher does in formgrader: score the written answer of ``students``."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        for student in students:
            grade = gb.find_grade(WRITTEN, ASSIGNMENT, ASSIGNMENT, student)
            grade.manual_score = 1
            gb.db.commit()


def _autograded(workflow: dict[str, Any], student: str) -> nbformat.NotebookNode:
    path = workflow["course"] / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    return nbformat.read(path, as_version=4)


def _cell(nb: nbformat.NotebookNode, grade_id: str) -> nbformat.NotebookNode:
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return cell


def _text(cell: nbformat.NotebookNode) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts.append(output.get("evalue", ""))
        parts.append(output.get("ename", ""))
    return "\n".join(parts)


# -- the course directory -----------------------------------------------------------------


@pytest.mark.slow
def test_the_course_is_a_standard_nbgrader_course_built_from_the_solutions(workflow):
    course = workflow["course"]
    assert (course / "nbgrader_config.py").is_file()
    source = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    solution = nbformat.read(ROOT / "solutions" / f"{ASSIGNMENT}_solution.ipynb", as_version=4)
    assert [c.source for c in nbformat.read(source, as_version=4).cells] == [
        c.source for c in solution.cells
    ]
    released = course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    text = released.read_text(encoding="utf-8")
    assert "HIDDEN TESTS" not in text and "line_at_hidden_cases" not in text
    assert "BEGIN SOLUTION" not in text and "type(number) is not int" not in text
    # nbgrader's generate_assignment and the course's own exercise generator agree
    exercise = nbformat.read(ROOT / "exercises" / f"{ASSIGNMENT}_exercise.ipynb", as_version=4)
    assert [c.source for c in nbformat.read(released, as_version=4).cells] == [
        c.source for c in exercise.cells
    ]
    outbound = workflow["exchange"] / COURSE_ID / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert outbound.read_text(encoding="utf-8") == text


# -- the grades ---------------------------------------------------------------------------


@pytest.mark.slow
def test_the_csv_has_one_row_per_student_and_graded_cell(workflow):
    rows = workflow["rows"]
    assert list(rows[0]) == list(instructor.GRADES_HEADER)
    assert {(r["student"], r["cell"]) for r in rows} == {
        (s, c) for s in SUBMISSIONS for c in (LINE_AT, READ_ALL, WRITTEN)
    }
    assert {r["assignment"] for r in rows} == {ASSIGNMENT}
    assert {r["notebook"] for r in rows} == {ASSIGNMENT}
    assert {(r["cell"], r["max_score"]) for r in rows} == {
        (LINE_AT, "1"),
        (READ_ALL, "1"),
        (WRITTEN, "1"),
    }
    # the written answer waits for the instructor (formgrader): no automatic score
    written = [r for r in rows if r["cell"] == WRITTEN and r["student"] != "broken"]
    assert {(r["score"], r["note"]) for r in written} == {("", instructor.WAITING)}
    quiet = {"correct", "partial", "looping"}
    assert {r["note"] for r in rows if r["student"] in quiet and r["cell"] != WRITTEN} == {""}
    # every answer that imports the library is flagged, whatever it scored
    flagged = {r["student"] for r in rows if r["note"].startswith("flag: ")}
    assert flagged == {"raising", "reader", "patcher", "borrower"}


@pytest.mark.slow
def test_one_submission_that_cannot_be_graded_stops_nobody(workflow):
    # nbgrader reports the failure (exit 1) and grades everyone else
    assert workflow["autograde"].returncode == 1
    assert "broken" in workflow["autograde"].stderr
    graded = {r["student"] for r in workflow["rows"] if r["score"] != ""}
    assert graded == set(SUBMISSIONS) - {"broken"}
    broken = [r for r in workflow["rows"] if r["student"] == "broken"]
    assert len(broken) == 3 and {r["score"] for r in broken} == {""}
    assert {r["note"] for r in broken} == {
        "grading failed: see nbgrader autograde's log for broken"
    }


@pytest.mark.slow
def test_a_deleted_or_edited_hidden_cell_is_put_back_run_and_reported(workflow):
    nb = _autograded(workflow, "deleter")
    for grade_id, how in ((LINE_AT, "missing"), (READ_ALL, "edited")):
        cell = _cell(nb, grade_id)
        assert cell.metadata[grading.RESTORED_KEY] == how
        assert "check_hidden(" in cell.source and "结果都与参考实现一致" in _text(cell)
    notes = {r["cell"]: r["note"] for r in workflow["rows"] if r["student"] == "deleter"}
    assert notes[LINE_AT] == (
        f"restored: cell {LINE_AT} was missing from the submission; put back from the source"
        " and run"
    )
    assert "was edited in the submission" in notes[READ_ALL]
    log = workflow["autograde_log"]
    assert f"deleter: the grade cell {LINE_AT} was missing from the submission" in log
    assert f"deleter: the locked cell {READ_ALL} was edited in the submission" in log
    # nbgrader's own warnings about unaltered hidden-test cells (issue 1961) are gone, and
    # nbgrader's KeyError on a deleted hidden cell after a locked cell never happens
    assert "has changed" not in log and "KeyError" not in log


@pytest.mark.slow
def test_an_answer_that_calls_the_reference_scores_but_is_flagged(workflow):
    notes = {r["cell"]: (r["score"], r["note"]) for r in workflow["rows"]
             if r["student"] == "borrower"}  # fmt: skip
    score, note = notes[LINE_AT]
    assert score == "1" and note.startswith("flag: the answer uses the library's code: ")
    assert (
        "line 1: from tutorial_lib.course.chapters.ch00_tool_contracts.cases"
        " import reference_line_at" in note
    )
    assert notes[READ_ALL] == ("1", "")  # the other answer is the learner's own


@pytest.mark.slow
def test_the_students_commands_run_verbatim_and_collect_trusts_the_shared_account(workflow):
    # correct and partial ran `nbgrader fetch_assignment` / `nbgrader submit` in their
    # folders; the config named the exchange, the course and the student
    inbound = workflow["exchange"] / COURSE_ID / "inbound"
    names = sorted(p.name.split("+")[0] for p in inbound.iterdir())
    assert names == sorted(SUBMISSIONS)
    assert "cheating attempt" not in workflow["collect"].stderr  # one account, said so
    config = (workflow["course"] / "nbgrader_config.py").read_text(encoding="utf-8")
    assert "c.ExchangeCollect.check_owner = False" in config


@pytest.mark.slow
def test_feedback_waits_for_the_hand_grading_and_students_fetch_it(workflow):
    before = workflow["feedback_before"]
    assert before.returncode == 0, before.stderr
    assert "released" not in before.stdout
    assert f"not yet: {WRITTEN}: {instructor.WAITING}" in before.stdout
    after = workflow["feedback"]
    assert after.returncode == 0, after.stderr
    released = {line.split()[0] for line in after.stdout.splitlines() if " released" in line}
    assert released == {"correct", "partial"}
    assert "grading failed" in after.stdout  # broken: nothing to send
    fetched = workflow["fetched_feedback"]
    assert fetched.returncode == 0, fetched.stderr
    folder = workflow["course"] / "students" / "correct" / ASSIGNMENT / "feedback"
    (html,) = folder.glob(f"*/{ASSIGNMENT}.html")
    assert "ex00-hidden-line-at" in html.read_text(encoding="utf-8")
    scored = {(r["student"], r["cell"]): r["score"] for r in workflow["after"]}
    assert scored["correct", WRITTEN] == "1" and scored["looping", WRITTEN] == ""


@pytest.mark.slow
@pytest.mark.parametrize("student", list(EXPECTED))
def test_each_submission_gets_exactly_the_points_it_earned(workflow, student):
    got = (workflow["scores"][student, LINE_AT], workflow["scores"][student, READ_ALL])
    assert got == tuple(str(points) for points in EXPECTED[student])


@pytest.mark.slow
def test_the_partial_answer_fails_on_the_rule_it_breaks(workflow):
    cell = _cell(_autograded(workflow, "partial"), LINE_AT)
    text = _text(cell)
    assert "与参考实现不一致" in text  # the genuine check_hidden's report, made by the judge
    assert "True" in text and "AssertionError" in text


@pytest.mark.slow
def test_loops_are_cut_by_the_case_limit_and_by_the_cell_timeout(workflow):
    nb = _autograded(workflow, "looping")
    assert "超过 1 秒仍未返回" in _text(_cell(nb, LINE_AT))
    (spinning,) = [
        c
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == "ex00-read-all-pages"
    ]
    assert any(o.output_type == "error" for o in spinning.outputs)  # interrupted, then went on
    assert "NameError" in _text(_cell(nb, READ_ALL))


@pytest.mark.slow
def test_an_import_error_costs_only_its_own_cell(workflow):
    nb = _autograded(workflow, "raising")
    assert "NameError" in _text(_cell(nb, LINE_AT))
    assert "结果都与参考实现一致" in _text(_cell(nb, READ_ALL))


@pytest.mark.slow
def test_the_reader_could_read_nothing_of_the_course(workflow):
    if grading.landlock_abi() < 1:
        pytest.skip("no Landlock on this system: the kernel ran without a file sandbox")
    nb = _autograded(workflow, "reader")
    (cell,) = [
        c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex00-line-at"
    ]
    report = _text(cell)
    copies = [line.split(": ")[0] for line in report.splitlines() if line.startswith("checkout")]
    assert len(copies) == 7  # every copy of the solutions in the checkout, and its listing
    for what in ("source notebook", "source listing", "gradebook", "correct student's work",
                 "cat the source", *copies):  # fmt: skip
        assert f"{what}: " in report
        assert f"{what}: read" not in report, report


@pytest.mark.slow
def test_the_patcher_is_judged_on_its_real_answers(workflow):
    nb = _autograded(workflow, "patcher")
    for grade_id in (LINE_AT, READ_ALL):
        cell = _cell(nb, grade_id)
        kinds = [o.output_type for o in cell.outputs]
        assert "execute_result" not in kinds  # the forged partial credit is dropped
        assert "error" in kinds
        assert "全部通过" not in _text(cell)  # the forged report is dropped


@pytest.mark.slow
def test_plain_nbgrader_would_have_given_the_patcher_full_marks(workflow, tmp_path):
    # the same submission through nbgrader's own Execute: scored by the kernel's outputs
    from nbgrader.preprocessors import Execute
    from nbgrader.utils import determine_grade

    nb = _autograded(workflow, "patcher")
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    Execute(timeout=CELL_TIMEOUT_S).preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    assert [determine_grade(_cell(nb, g))[0] for g in (LINE_AT, READ_ALL)] == [1.0, 1.0]


@pytest.mark.slow
def test_feedback_shows_the_judges_report(workflow):
    feedback = workflow["course"] / "feedback" / "partial" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    html = feedback.read_text(encoding="utf-8")
    assert "与参考实现不一致" in html and "ex00-hidden-line-at" in html


@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.parametrize(
    "solution", sorted(p.name for p in (ROOT / "solutions").glob("*_solution.ipynb"))
)
def test_every_chapters_solution_gets_full_marks_in_the_sandbox(solution, tmp_path):
    # nbgrader's Execute step as the course configures it, on each chapter's own solution:
    # recorded in a sandboxed kernel, judged in a fresh process, every hidden test passes
    _need_nbgrader()
    from nbgrader.utils import determine_grade, is_grade
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    config.Exchange.root = str(tmp_path / "exchange")
    nb = instructor.source_notebook(nbformat.read(ROOT / "solutions" / solution, 4), 1)
    work = tmp_path / "autograded" / "someone"
    work.mkdir(parents=True)
    trusted = grading.TrustedExecute(config=config, timeout=120)
    trusted.preprocess(nb, {"metadata": {"path": str(work)}})
    scores = [determine_grade(c) for c in nb.cells if is_grade(c) and c.cell_type == "code"]
    assert scores and all(got == full for got, full in scores), [c.outputs for c in nb.cells]


# -- the judge, without nbgrader ----------------------------------------------------------


def _record(function: Any, cases: Any, **kwargs: Any) -> dict[str, Any]:
    with grading.recording_to([]) as sink:
        grading.record_hidden(function, cases, **kwargs)
    (record,) = sink
    return record


def _hidden_cell(source: str) -> dict[str, Any]:
    return {"cell_type": "code", "source": source, "locked": True, "grade": True,
            "solution": False, "grade_id": "g"}  # fmt: skip


HIDDEN_LINE_AT = (
    "from tutorial_lib.course.chapters.ch00_tool_contracts.cases import line_at_hidden_cases\n"
    "from tutorial_lib.course.checks import check_hidden\n\n"
    "check_hidden(line_at, line_at_hidden_cases())\n"
)


def _kernel_records(source: str, line_at: Any) -> list[dict[str, Any]]:
    """What the hidden cell leaves in a kernel that started with install_recorder()."""
    genuine = checks.check_hidden
    grading.install_recorder()
    try:
        with grading.recording_to([]) as sink:
            exec(source, {"line_at": line_at})
    finally:
        checks.check_hidden = genuine
    return sink


def _judge(function: Any, source: str = HIDDEN_LINE_AT) -> grading.Verdict:
    cell = _hidden_cell(source) | {"records": _kernel_records(source, function)}
    return grading.judge_cells([cell])["g"]


def test_the_judge_prints_what_check_hidden_prints(capsys):
    verdict = _judge(warmups.reference_line_at)
    check_hidden(warmups.reference_line_at, warmups.line_at_hidden_cases())
    assert verdict.passed
    assert verdict.stdout == capsys.readouterr().out
    assert verdict.stdout.startswith("隐藏测试 reference_line_at：200 个生成的输入")


def test_a_wrong_answer_fails_with_the_same_report(capsys):
    def line_at(lines, number):
        return warmups.reference_line_at(lines, number) if number is not True else lines[:1]

    verdict = _judge(line_at)
    with pytest.raises(AssertionError):
        check_hidden(line_at, warmups.line_at_hidden_cases())
    assert not verdict.passed and verdict.ename == "AssertionError"
    assert verdict.stdout == capsys.readouterr().out


def test_timeouts_and_exceptions_replay_as_they_happened(capsys):
    def line_at(lines, number):
        if number == 0:
            while True:
                pass
        if number == 3:
            raise KeyError("three")
        return warmups.reference_line_at(lines, number)

    source = HIDDEN_LINE_AT.replace(
        "line_at_hidden_cases())", "line_at_hidden_cases()[:60], time_limit_s=0.2, stop_after=5)"
    )
    verdict = _judge(line_at, source)
    with pytest.raises(AssertionError):
        check_hidden(line_at, warmups.line_at_hidden_cases()[:60], time_limit_s=0.2, stop_after=5)
    assert verdict.stdout == capsys.readouterr().out
    assert "超过 0.2 秒仍未返回" in verdict.stdout and "KeyError: 'three'" in verdict.stdout


def test_a_stub_raises_not_implemented():
    def line_at(lines, number):
        raise NotImplementedError()

    assert _judge(line_at).ename == "NotImplementedError"


def test_a_cell_without_a_record_fails():
    verdict = grading.judge_cells([_hidden_cell(HIDDEN_LINE_AT) | {"records": []}])["g"]
    assert verdict.ename == "AssertionError" and grading.NO_RECORD in verdict.evalue


def test_a_forged_record_needs_the_right_answers():
    forged = {"format": 1, "function": "line_at",
              "cases": [[f"生成的输入 {i}", "return", None] for i in range(1, 201)]}  # fmt: skip
    verdict = grading.judge_cells([_hidden_cell(HIDDEN_LINE_AT) | {"records": [forged]}])["g"]
    assert verdict.ename == "AssertionError"


def test_the_judge_uses_its_own_library_not_the_kernels(monkeypatch):
    # a patched reference and checker in this process: the judge subprocess never sees them
    record = _record(lambda lines, number: None, warmups.line_at_hidden_cases())
    monkeypatch.setattr(warmups, "reference_line_at", lambda lines, number: None)
    cell = _hidden_cell(HIDDEN_LINE_AT) | {"records": [record]}
    verdict = grading.run_judge([cell])["g"]
    assert verdict.ename == "AssertionError"


@pytest.mark.parametrize(
    "value",
    [
        None, True, 1, 1.0, -0.0, float("nan"), float("inf"), "δ", "\ud800", b"\x00", [1, (2,)],
        {"a": [1]}, {(1, 2): {3}}, frozenset({1}), 2**70, complex(1, 2),
        __import__("fractions").Fraction(1, 3), __import__("decimal").Decimal("1.10"),
        __import__("collections").OrderedDict(a=1), Path("/x/y"), Case("n", (1,), 2),
    ],
)  # fmt: skip
def test_values_cross_the_wire_with_their_types(value):
    decoded = grading.decode_value(json.loads(json.dumps(grading.encode_value(value))))
    assert type(decoded) is type(value)
    if value == value:  # not NaN
        assert decoded == value


def test_other_values_arrive_as_their_type_name_and_repr():
    class Mine(dict):
        pass

    decoded = grading.decode_value(grading.encode_value(Mine(a=1)))
    assert type(decoded).__name__ == "Mine" and repr(decoded) == "{'a': 1}"
    assert decoded != {"a": 1}


def test_every_chapters_hidden_tests_can_be_judged():
    for path in sorted((ROOT / "solutions").glob("*_solution.ipynb")):
        nb = nbformat.read(path, as_version=4)
        assert grading.hidden_test_problems(instructor._cell_views(nb)) == [], path.name


def test_a_hidden_test_that_calls_the_learner_directly_is_refused():
    source = (
        "from tutorial_lib.course.checks import check_hidden\n"
        "assert line_at([], 1) is None\n"
        "check_hidden(line_at, [])\n"
    )
    cells = [_hidden_cell(source)]
    (problem,) = grading.hidden_test_problems(cells)
    assert "line_at" in problem and "第 2 行" in problem


# -- the command line ---------------------------------------------------------------------


def test_course_refuses_to_overwrite_a_changed_file(tmp_path, capsys):
    course = tmp_path / "course"
    assert instructor.main(["course", str(course), "--chapters", "07"]) == 0
    (course / "nbgrader_config.py").write_text("# mine\n", encoding="utf-8")
    assert instructor.main(["course", str(course), "--chapters", "07"]) == 2
    assert "--force" in capsys.readouterr().err
    assert instructor.main(["course", str(course), "--chapters", "07", "--force"]) == 0


def test_course_makes_written_answers_graded_by_hand(tmp_path):
    course = tmp_path / "course"
    assert (
        instructor.main(["course", str(course), "--chapters", "07", "--written-points", "2"]) == 0
    )
    nb = nbformat.read(course / "source" / "07_user_confirmation" / "07_user_confirmation.ipynb", 4)
    meta = [c.metadata.get("nbgrader", {}) for c in nb.cells if c.cell_type == "markdown"]
    written = [m for m in meta if m.get("solution")]
    assert written and all(m["grade"] and m["points"] == 2 for m in written)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["course", "X", "--chapters", "7"], "two digits"),
        (["course", "X", "--chapters", "99"], "no graded exercise for chapter(s) 99"),
        (["course", "X", "--timeout", "0"], "--timeout must be at least 1"),
        (["grades", "X", "--csv", "g.csv"], "no gradebook"),
    ],
)
def test_clear_errors(tmp_path, capsys, argv, message):
    argv = [str(tmp_path / a) if a == "X" else a for a in argv]
    usage = "two digits" in message  # argparse's own error: exit status 2 as SystemExit
    with pytest.raises(SystemExit) if usage else contextlib.nullcontext():
        assert instructor.main(argv) == 2
    assert message in capsys.readouterr().err


# -- the instructor guide -----------------------------------------------------------------

GUIDE = ROOT / "docs" / "instructor"
SECTIONS = (
    "## 目标",
    "## 时间安排",
    "## 现场编码的顺序",
    "## 讨论题",
    "## 常见错误",
    "## 现场运行组件单元",
    "## 时间不够时跳过",
)


def guide_chapters() -> list[str]:
    return sorted(p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("chapter", guide_chapters())
def test_every_chapter_has_instructor_notes(chapter):
    text = (GUIDE / f"{chapter}.md").read_text(encoding="utf-8")
    for heading in SECTIONS:
        assert heading in text, f"{chapter}.md lacks {heading}"
    assert "45 分钟" in text and "90 分钟" in text
    # the objectives are the chapter's own: every bullet of its frame cell
    frame = nbformat.read(next((ROOT / "notebooks").glob(f"{chapter}_*.ipynb")), 4).cells[0].source
    objectives = frame.split("学完本章，你能够：", 1)[1].split("\n\n", 2)[1]
    for line in objectives.splitlines():
        if line.startswith("- "):
            assert line in text, f"{chapter}.md: objective missing: {line}"


def test_the_guide_uses_the_glossary_and_names_real_commands():
    from tests.test_glossary import violations

    texts = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(GUIDE.glob("*.md"))]
    assert violations(texts) == []
    readme = (GUIDE / "README.md").read_text(encoding="utf-8")
    for command in ("course", "feedback", "grades", "items"):
        assert f"python tools/instructor.py {command}" in readme
    for step in ("generate_assignment", "release_assignment", "collect", "autograde",
                 "fetch_assignment", "submit", "fetch_feedback"):  # fmt: skip
        assert f"nbgrader {step} 00_tool_contracts" in readme
    assert all(f"({c}.md)" in readme for c in guide_chapters())


# -- what grading protects and flags, without nbgrader ------------------------------------


def _solution_cells(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [
        c.source
        for c in nb.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
    ]


@pytest.mark.parametrize("edition", ["solutions", "en/solutions"])
def test_no_reference_solution_is_flagged(edition):
    for path in sorted((ROOT / edition).glob("*_solution.ipynb")):
        for source in _solution_cells(path):
            assert library_use(source) == [], (path.name, source)


@pytest.mark.parametrize(
    "source",
    [
        "import tutorial_lib",
        "from tutorial_lib.course.chapters.ch00_tool_contracts import cases as warmups",
        "import tutorial_lib.course.chapters.ch00_tool_contracts.cases as w",
        "line_at = __import__('tutorial' + '_lib')",
        "import importlib\nm = importlib.import_module(name)",
        "from importlib import import_module",
        "import sys\nm = sys.modules[name]",
        "g = check.__globals__",
        "m = check.__module__",
        "import inspect\ncode = inspect.getsource(f)",
        "f = getattr(module, 'reference_line_at')",
        "eval('tutorial_lib')",
    ],
)
def test_each_way_into_the_library_is_flagged_with_its_line(source):
    evidence = library_use("x = 1\n" + source)
    assert evidence and all(e.startswith("line ") for e in evidence)
    assert all(int(e.split()[1].rstrip(":")) >= 2 for e in evidence)  # not `x = 1`


def test_a_syntax_error_is_not_a_flag():
    assert library_use("def line_at(:\n    import tutorial_lib") == []


def test_the_whole_checkout_is_protected_but_what_the_kernel_runs(tmp_path):
    protect = grading.protected_paths(tmp_path)
    assert str(ROOT) in protect and str(tmp_path) in protect
    allowed = grading.runtime_paths(protect)
    package = str(ROOT / "tutorial_lib")
    assert package in allowed  # the library stays importable
    for path in allowed:  # and nothing else of the checkout but a Python environment
        assert (
            path == package
            or sys.prefix.startswith(path)
            or path in (os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix))
        )
    for copy in ("solutions", "en/solutions", "translations", "docs", "tests", ".git"):
        assert not any(Path(ROOT / copy).is_relative_to(a) for a in allowed), copy
    # a path that holds a protected one is never granted whole
    inside = str(ROOT / "tutorial_lib" / "course" / "cases")
    assert package not in grading.runtime_paths([str(ROOT), inside])


def test_the_english_class_is_built_from_the_english_solutions(tmp_path):
    course = tmp_path / "course"
    assert instructor.main(["course", str(course), "--chapters", "00", "--language", "en"]) == 0
    source = nbformat.read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    english = nbformat.read(ROOT / "en" / "solutions" / f"{ASSIGNMENT}_solution.ipynb", 4)
    assert [c.source for c in source.cells] == [c.source for c in english.cells]
    config = (course / "nbgrader_config.py").read_text(encoding="utf-8")
    assert "os.environ['TUTORIAL_LIB_LANGUAGE'] = 'en'" in config
    assert f"c.TrustedExecute.extra_protected = [{str(ROOT)!r}]" in config
    assert "check_owner" not in config  # one account per student: nbgrader's check stays on
    student = (course / "student" / "nbgrader_config.py").read_text(encoding="utf-8")
    assert "c.CourseDirectory.course_id = 'reliable-tool-interfaces'" in student
    assert "student_id" not in student and "Exchange.root" in student


@pytest.mark.slow
def test_the_english_class_reports_in_english(tmp_path, monkeypatch):
    _need_nbgrader()
    from nbgrader.utils import determine_grade, is_grade
    from traitlets.config import Config

    monkeypatch.setenv("TUTORIAL_LIB_LANGUAGE", "en")  # what the English config sets
    config = Config()
    config.CourseDirectory.root = str(tmp_path)
    config.Exchange.root = str(tmp_path / "exchange")
    path = ROOT / "en" / "solutions" / f"{ASSIGNMENT}_solution.ipynb"
    nb = instructor.source_notebook(nbformat.read(path, 4), 1)
    _cell(nb, "ex00-line-at").source = PARTIAL_LINE_AT
    work = tmp_path / "autograded" / "someone"
    work.mkdir(parents=True)
    grading.TrustedExecute(config=config, timeout=120).preprocess(
        nb, {"metadata": {"path": str(work)}}
    )
    scores = {
        c.metadata["nbgrader"]["grade_id"]: determine_grade(c)[0]
        for c in nb.cells
        if is_grade(c) and c.cell_type == "code"
    }
    assert scores == {LINE_AT: 0.0, READ_ALL: 1.0}
    report = _text(_cell(nb, LINE_AT))
    assert "differ from the reference" in report
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in report), report


@pytest.mark.parametrize("argv", [["--students", "a+b"], ["--students", "a", "a"]])
def test_student_ids_are_checked(tmp_path, capsys, argv):
    assert instructor.main(["course", str(tmp_path / "c"), "--chapters", "00", *argv]) == 2
    assert "student" in capsys.readouterr().err
