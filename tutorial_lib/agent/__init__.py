"""tutorial_lib.agent.loop."""
