"""tutorial_lib.examples."""
