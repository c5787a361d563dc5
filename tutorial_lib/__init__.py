"""tutorial_lib: the library the course "Designing Reliable Tool Interfaces for Agents" builds.

Every tool call travels one road, owned by one object, :class:`tutorial_lib.core.host.Host`
(``host.call(name, args)``), and each chapter adds or sharpens one station:

    find the tool -> schema check -> authorization (on what the arguments name, no I/O)
      -> business check -> re-check of what it resolved -> confirmation
      -> execution -> envelope check (+ log record)

The learner-facing names can be imported from the package root, lazily (PEP 562): the root
imports nothing until a name is used, so ``from tutorial_lib import Host, read_lines``
loads the core and the workspace tools and no UI or network library::

    from tutorial_lib import Host, Registry, read_lines_tool

The subpackages say which side of the wire their code is on:

- ``core``: the road itself: result envelope and error catalogue (``contracts``), argument
  checking (``arguments``), tool declarations and the registry (``tools``), the road
  (``road``) and its owner (``host``), authorization (``authorization``), secrets
  (``secrets``), confirmation (``confirmation``), the retry policy (``retry``) and what
  a person is shown of text others wrote (``display``);
- ``language``: the course's one language switch (``Text``, ``tr``, ``use_language``):
  what a learner reads, in Chinese or in English;
- ``workspace``: the file tools: the sandbox (``sandbox``), ``read_lines`` (``read``) and
  ``search_files`` (``search``);
- ``github``: the agent-facing GitHub tools: REST client, cursors, reads, the safe write;
- ``emulator``: the outside world: a GitHub-like service, its fixtures, fault plans and
  idempotency keys (it imports nothing agent-side);
- ``design``: tool-design instruments: the linter and the exports to model APIs;
- ``examples``: small teaching tools (chapter 03's task tracker and job runner, chapter
  06's ``http_send``, chapter 07's deploy tool);
- ``agent``: the agent loop, the models, and the host-side defences (provenance, reports
  from evidence, the output check);
- ``worlds``: chapter worlds and harnesses: what a chapter runs and measures (chapter 02's
  read-only demonstration, PR 128's judgements, chapter 06's injection suite, the desks of
  chapters 07 and 08, chapter 08's evaluation);
- ``course``: the course's own instruments: checks, quizzes, source display, tables,
  widgets, with ``cases`` (exercise case tables) and ``demos`` (chapter demonstrations)
  (the only place that imports IPython, ipywidgets or matplotlib).
"""

from __future__ import annotations

import importlib
from typing import Any

#: Public name -> the module that defines it (its one import path).
_EXPORTS: dict[str, str] = {
    # the road and its owner
    "Host": "tutorial_lib.core.host",
    "StepClock": "tutorial_lib.core.road",
    "ROAD": "tutorial_lib.core.road",
    # declaring tools
    "ToolSpec": "tutorial_lib.core.tools",
    "Registry": "tutorial_lib.core.tools",
    "Annotations": "tutorial_lib.core.tools",
    "READ_ONLY_LOCAL": "tutorial_lib.core.tools",
    "LOCAL_WRITE": "tutorial_lib.core.tools",
    "GITHUB_READ_ONLY": "tutorial_lib.core.tools",
    "GITHUB_WRITE": "tutorial_lib.core.tools",
    # results and errors
    "ContractError": "tutorial_lib.core.contracts",
    "TutorialLibError": "tutorial_lib.core.contracts",
    "CATALOGUE": "tutorial_lib.core.contracts",
    "ENVELOPE_SCHEMA": "tutorial_lib.core.contracts",
    "success": "tutorial_lib.core.contracts",
    "failure": "tutorial_lib.core.contracts",
    # authorization and confirmation
    "TaskScope": "tutorial_lib.core.authorization",
    "github_access": "tutorial_lib.core.authorization",
    "workspace_access": "tutorial_lib.core.authorization",
    "outbound_access": "tutorial_lib.core.authorization",
    "local_access": "tutorial_lib.core.authorization",
    "declared_access": "tutorial_lib.core.authorization",
    "HostConfigError": "tutorial_lib.core.contracts",
    "SecretPolicy": "tutorial_lib.core.secrets",
    "Question": "tutorial_lib.core.confirmation",
    # what a person is shown of text others wrote
    "visible": "tutorial_lib.core.display",
    # the workspace tools
    "read_lines": "tutorial_lib.workspace.read",
    "read_lines_tool": "tutorial_lib.workspace.read",
    "search_files": "tutorial_lib.workspace.search",
    "search_files_tool": "tutorial_lib.workspace.search",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Load a public name on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tutorial_lib' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
