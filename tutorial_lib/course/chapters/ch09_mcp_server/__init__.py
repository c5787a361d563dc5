"""Chapter 09's home (mcp server): its cases, demos and quiz."""
