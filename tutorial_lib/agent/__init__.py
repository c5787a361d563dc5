"""The agent side: the loop that calls tools, the models, and the host-side defences.

- ``loop``: ``run_agent`` and ``ScriptedModel`` (deterministic model habits);
- ``real_models``: optional adapters for real models (never needed, never in CI);
- ``recording``: runs recorded as JSON Lines (``RecordingModel``, ``TranscriptLog``) and
  replayed without the model (``ReplayModel``, which checks every result again);
- ``budget``: ``context_budget``, the characters a model reads per interface;
- ``provenance``: the model's input in separate fields (request, rules, retrieved text);
- ``evidence``: reports built from tool results (and the read plan and answer form they
  read); ``output_check``: no outside links in what the user sees.

The worlds a chapter measures with them (chapter 06's injection suite, chapter 08's
harness) are in ``tutorial_lib.worlds``; this package never imports it.
"""
