"""tutorial_lib.workspace.sandbox."""
