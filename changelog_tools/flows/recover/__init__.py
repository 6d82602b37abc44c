"""``recover``: a lost main-branch ingest recovered by a recovery PR that reuses the sweep."""
