"""The course's own instruments: the only place IPython, ipywidgets and matplotlib appear.

- ``checks``: ``check`` / ``run_cases`` for learners' exercise code (one line per case);
- ``quiz``: self-check quizzes (``load_quiz``), each in its chapter's home;
- ``chapters``: each chapter's home (``chNN_topic``): its cases, demos and quiz;
- ``source``: ``show_source``, to display library code instead of copying it;
- ``table``: aligned text tables; ``progress``: a progress bar;
- ``confirm_widgets``: chapter 07's confirmation widgets;
- ``cases``: every exercise's case tables, one module per chapter;
- ``demos``: the chapters' demonstrations (demo workspace, tool sets, PR 128's answer on
  screen, chapter 06's tables, chapter 07's desk with widgets).

Library logic a chapter runs (its world, its tools) is not here: tools live in their tool
package, worlds and harnesses in ``tutorial_lib.worlds``.
"""
