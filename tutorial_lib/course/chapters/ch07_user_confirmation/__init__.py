"""Chapter 07's home (user confirmation): its cases, demos and quiz."""
