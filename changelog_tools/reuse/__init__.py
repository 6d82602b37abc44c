"""The reuse decision: which sweep run a merge may reuse, who authorized it, and whether main
made it stale (drift and staleness guards). `reuse-gate`, `merge`, `recover` and the sign-off
bot all ask it; it reads GitHub only through the adapter's records."""
