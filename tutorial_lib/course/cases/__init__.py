"""Every exercise's case tables (visible and hidden), one module per chapter.

``warmups`` (00), ``read_cases`` (01), ``toolset_cases`` (02), ``error_cases`` (03),
``page_cases`` (04), ``write_cases`` (05), ``authz_cases`` (06), ``approval_cases`` (07),
``eval_cases`` (08), ``mcp_cases`` (09): the ``Case`` lists that
``tutorial_lib.course.checks.check`` runs, and the ``*_hidden_cases(seed)`` generators
whose expected values come from the library.
"""
