"""Chapter 05's home (writes and retries): its cases, demos and quiz."""
