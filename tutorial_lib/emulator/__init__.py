"""The outside world: a GitHub-like service the course runs on 127.0.0.1.

- ``service``: the public face: ``serve(store)``, the REST subset (+ GraphQL review
  threads) over real HTTP, and ``serve_in_process(store)``, the same without sockets;
- ``fixtures``: ``build_store()``, the repositories and pull requests of the course (a
  store also keeps the service's idempotency-key table);
- ``faults``: scripted per-request faults (``FaultPlan``);
- ``idempotency``: server-side idempotency keys.

``service`` is built from one module per concern, which the other layers do not import:
``http`` (socket server, HTTP framing, answers to malformed requests, in-process
transport), ``app`` (counting, authentication, fault steps, served requests), ``rest``
(routes and handlers), ``graphql`` (review threads), ``shapes`` (GitHub's JSON) and
``protocol`` (the request, the answer and the refusals they share).

It imports nothing agent-side (not even ``tutorial_lib.core``), as a real service would.
"""
