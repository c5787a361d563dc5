"""tutorial_lib: the library the course "Designing Reliable Tool Interfaces for Agents" builds.

Every tool call travels one road, and each chapter adds or sharpens one station:

    arguments -> schema check -> business check -> authorization
              -> (confirmation) -> execution -> result envelope (+ log record)

Chapter 00 provides the course's own instruments: learner checks (:func:`check`) and
self-check quizzes (:func:`load_quiz`), plus :func:`show_source` for reading library code.
Chapter 01 adds the first tool, :func:`read_lines` (modules ``schemas``, ``workspace``,
``files``), returning the result envelope of ``contracts``.
"""

from tutorial_lib.checks import NOT_IMPLEMENTED_VERDICT, Case, CheckReport, check, run_cases
from tutorial_lib.files import ReadLimits, read_lines
from tutorial_lib.quiz import Feedback, Question, Quiz, load_quiz
from tutorial_lib.search import SearchLimits, search_files
from tutorial_lib.source import show_source

__all__ = [
    "NOT_IMPLEMENTED_VERDICT",
    "Case",
    "CheckReport",
    "Feedback",
    "Question",
    "Quiz",
    "ReadLimits",
    "SearchLimits",
    "check",
    "load_quiz",
    "read_lines",
    "run_cases",
    "search_files",
    "show_source",
]
