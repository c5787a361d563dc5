"""The chapters' demonstrations: what a lesson shows, put on screen or in a table.

``demo_workspace`` (01: the demo workspace and its sandbox cases), ``toolsets`` (02: the
bad and good tool sets the linter compares), ``pr_answer`` (04 and 08: PR 128's answer
wrapped for a notebook), ``injection_demo`` (06: the rows of the chapter's tables),
``confirm_demo`` (07: the desk with its confirmation widgets). The logic they show lives
in the library (``worlds`` for a chapter's world); a demo only lays it out.
"""
