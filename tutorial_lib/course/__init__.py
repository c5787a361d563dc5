"""tutorial_lib.course."""
