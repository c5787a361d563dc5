"""Chapter 06's home (authorization and injection): its cases, demos and quiz."""
