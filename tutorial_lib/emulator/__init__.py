"""The outside world: a GitHub-like service the course runs on 127.0.0.1.

- ``service``: ``serve(store)``, the REST subset (+ GraphQL review threads) over real
  HTTP, and an in-process transport for fast tests;
- ``fixtures``: ``build_store()``, the repositories and pull requests of the course;
- ``faults``: scripted per-request faults (``FaultPlan``);
- ``idempotency``: server-side idempotency keys.

It imports nothing agent-side (not even ``tutorial_lib.core``), as a real service would.
"""
