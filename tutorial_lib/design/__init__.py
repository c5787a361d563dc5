"""Tool-design instruments: they read tool declarations, they never run tools.

- ``lint``: findings with fixes for names, descriptions, units, schemas and annotations;
- ``exports``: the same ``ToolSpec`` for Anthropic, OpenAI (strict mode) and MCP.
"""
