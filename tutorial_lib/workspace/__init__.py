"""The workspace tools: files in one directory tree, and nothing outside it.

- ``sandbox``: ``open_beneath``, the race-free open that refuses to leave the root;
- ``read_schema``: read_lines' argument schema, examples and the hand-written validator;
- ``read``: ``read_lines`` (chapter 01);
- ``search``: ``search_files`` (chapter 02).
"""
