"""tutorial_lib.github."""
