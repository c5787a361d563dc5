"""The agent side: the loop that calls tools, the scripted model, and measurements.

- ``loop``: ``run_agent`` and ``ScriptedModel`` (deterministic model habits);
- ``budget``: ``context_budget``, the characters a model reads per interface.
"""
