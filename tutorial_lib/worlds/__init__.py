"""Chapter worlds and harnesses: the runnable worlds a chapter measures, and their logic.

A world puts tools from the tool packages (``workspace``, ``github``, ``examples``) on a
road with the emulator and a model from ``agent``, and says what happened; it never
imports a course instrument (``course`` imports it, not the other way round).

- ``readonly``: chapter 02's ``RESOLVE_THREAD_SPEC`` tool and ``READ_ONLY_SESSION`` station;
- ``pr128``: PR 128's judgements (chapters 04 and 08): ``cite``, ``Judgement``,
  ``build_answer``, ``judge_pr128``, ``conclusion_text``;
- ``injection``: chapter 06's world, read tasks, carriers and injection suite
  (``run_suite``, ``chapter_host``); ``payloads``: its injections; ``obedient``: the
  scripted worst-case model that obeys them;
- ``desk``: the desks of chapters 07 and 08 without UI: ``EmulatorDesk``,
  ``open_emulator``, ``ManualClock``, the confirmation policies, chapter 07's road
  (``desk_host``) and chapter 08's ``Walkthrough`` (``open_walkthrough``);
- ``evaluation``, ``interfaces``: chapter 08's harness: tasks x interface versions.
"""
