"""GitHub: the adapter over PyGithub (records, requester checks, retry policy, Actions environment), reuse authorization and the drift guard."""
