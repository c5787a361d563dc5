"""tutorial_lib.design."""
