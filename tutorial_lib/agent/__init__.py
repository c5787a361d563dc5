"""The agent side: the loop that calls tools, the scripted model, and measurements.

- ``loop``: ``run_agent`` and ``ScriptedModel`` (deterministic model habits);
- ``budget``: ``context_budget``, the characters a model reads per interface;
- ``outbound``: a recording outbound gateway and ``http_send`` (never leaves the machine);
- ``provenance``: the model's input in separate fields (request, rules, retrieved text);
- ``payloads``, ``obedient``: chapter 06's injections and the model that obeys them;
- ``evidence``: reports built from tool results; ``output_check``: no outside links;
- ``suite``: chapter 06's world, read tasks and AgentDojo-style injection suite;
- ``evaluation``, ``interfaces``: chapter 08's harness: tasks x interface versions;
- ``real_models``: optional adapters for real models (never needed, never in CI).
"""
