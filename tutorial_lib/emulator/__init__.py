"""tutorial_lib.emulator."""
