"""The core of the road: what every tool call passes through, and nothing else.

- ``contracts``: the result envelope, the immutable error catalogue, ``ContractError``,
  the operator's ``LogRecord`` and the one "what next" vocabulary (``NextStep``);
- ``arguments``: the strict schema check and its error translation (``ArgumentContract``);
- ``tools``: ``ToolSpec`` (a tool declared once), ``Annotations`` and their presets,
  ``Registry``;
- ``road``: ``call_tool``, the road itself, and its ``Station`` slots;
- ``retry``: the retry policy (what is safe after a failure, backoff with full jitter);
- ``display``: text others wrote, shown to a person with hidden characters made visible.

It imports only the standard library and, on first use, jsonschema: no tool, no course
instrument, no UI library (tests/test_layers.py keeps it so).
"""
