"""tutorial_lib: the library the course "Designing Reliable Tool Interfaces for Agents" builds.

Every tool call travels one road, :func:`tutorial_lib.core.road.call_tool`, and each chapter
adds or sharpens one station:

    find the tool -> schema check -> business check -> authorization
                  -> confirmation -> execution -> envelope check (+ log record)

The subpackages say which side of the wire their code is on:

- ``core``: the road itself: result envelope and error catalogue (``contracts``), argument
  checking (``arguments``), tool declarations and the registry (``tools``), the road
  (``road``), the retry policy (``retry``) and one time limit (``time_limit``);
- ``workspace``: the file tools: the sandbox (``sandbox``), ``read_lines`` (``read``) and
  ``search_files`` (``search``);
- ``github``: the agent-facing GitHub tools: REST client, cursors, reads, the safe write;
- ``emulator``: the outside world: a GitHub-like service, its fixtures, fault plans and
  idempotency keys (it imports nothing agent-side);
- ``design``: tool-design instruments: the linter and the exports to model APIs;
- ``agent``: the agent loop and the scripted model;
- ``examples``: small teaching tools (chapter 03's task tracker);
- ``course``: the course's own instruments: checks, quizzes, source display, case tables
  (the only place that imports IPython, ipywidgets or matplotlib).

The package root imports nothing, so ``import tutorial_lib.core.road`` stays light.
"""
