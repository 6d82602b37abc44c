"""Flows that drive GitHub and git end to end: merge-with-reuse and the demo."""
