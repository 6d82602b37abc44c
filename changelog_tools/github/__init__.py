"""GitHub: the adapter (records, transport, HTTP client, Actions environment), reuse authorization and the drift guard."""
