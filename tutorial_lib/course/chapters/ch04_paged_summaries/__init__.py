"""Chapter 04's home (paged summaries): its cases, demos and quiz."""
