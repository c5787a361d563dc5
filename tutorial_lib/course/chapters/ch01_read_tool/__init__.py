"""Chapter 01's home (read tool): its cases, demos and quiz."""
