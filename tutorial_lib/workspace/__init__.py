"""The workspace tools: files in one directory tree, and nothing outside it.

- ``platform_check``: ``supported`` / ``require_supported`` (``UnsupportedPlatform``): the
  operating-system features the sandbox and the checks need (``dir_fd`` support in
  ``os.open``, ``O_NOFOLLOW``, ``O_DIRECTORY``, ``SIGALRM``...). Tested on Linux; macOS
  expected to work; native Windows is refused when ``sandbox`` is imported (use WSL);
- ``sandbox``: ``open_beneath``, the race-free open that refuses to leave the root;
- ``read_schema``: read_lines' argument schema, examples and the hand-written validator;
- ``read``: ``read_lines`` (chapter 01);
- ``search``: ``search_files`` (chapter 02).
"""
