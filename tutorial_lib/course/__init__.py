"""The course's own instruments: the only place IPython, ipywidgets and matplotlib appear.

- ``checks``: ``check`` / ``run_cases`` for learners' exercise code (one line per case);
- ``quiz``: self-check quizzes (``load_quiz``) and their bank ``quiz_bank``;
- ``source``: ``show_source``, to display library code instead of copying it;
- ``warmups``, ``read_cases``, ``write_cases``, ``toolsets``: the exercises' case tables;
- ``demo_workspace``: the chapters' demo workspaces.
"""
