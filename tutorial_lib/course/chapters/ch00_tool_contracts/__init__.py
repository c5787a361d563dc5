"""Chapter 00's home (tool contracts): its cases, demos and quiz."""
