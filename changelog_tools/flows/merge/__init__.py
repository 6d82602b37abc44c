"""``merge``: merge-with-reuse of one pull request, from preflight to main's push run."""
