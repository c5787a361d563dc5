"""The agent-facing GitHub tools: the agent's side of the wire.

- ``client``: ``GitHubClient``, an httpx REST client that follows ``Link`` headers;
- ``pagination``: signed keyset cursors bound to their query;
- ``reads``: ``github_pr_get``, ``github_pr_list_comments``, ``github_pr_get_comment``
  (chapter 04);
- ``writes``: the safe write ``github_pr_create_comment`` and its status check
  (chapter 05).

Nothing here imports the emulator: these tools work against https://api.github.com too.
"""
