"""tutorial_lib.core."""
