"""Small teaching tools that are not part of any real integration.

- ``tasks``: chapter 03's ``task_set_status`` on an in-memory task store, with its
  counter-example twin whose failures are bare.
"""
