"""The course's own instruments: the only place IPython, ipywidgets and matplotlib appear.

- ``checks``: ``check`` / ``run_cases`` for learners' exercise code (one line per case);
- ``quiz``: self-check quizzes (``load_quiz``) and their bank ``quiz_bank``;
- ``source``: ``show_source``, to display library code instead of copying it;
- ``warmups``, ``read_cases``, ``toolset_cases``, ``error_cases``, ``page_cases``,
  ``write_cases``, ``authz_cases``, ``approval_cases``, ``eval_cases``, ``toolsets``: the
  exercises' case tables;
- ``demo_workspace``, ``readonly_demo``, ``pr_answer``, ``injection_demo``, ``confirm_demo``,
  ``walkthrough``: the chapters' demonstrations; ``confirm_widgets``: chapter 07's
  confirmation widgets; ``table``: aligned text tables; ``progress``: a progress bar.
"""
