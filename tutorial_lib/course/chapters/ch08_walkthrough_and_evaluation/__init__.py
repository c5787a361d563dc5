"""Chapter 08's home (walkthrough and evaluation): its cases, demos and quiz."""
