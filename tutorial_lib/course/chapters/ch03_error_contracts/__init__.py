"""Chapter 03's home (error contracts): its cases, demos and quiz."""
