"""Chapter 02's home (tool set): its cases, demos and quiz."""
