"""GitHub: the adapter (the only module that imports PyGithub), reuse authorization and the drift guard."""
