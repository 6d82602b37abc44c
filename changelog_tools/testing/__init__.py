"""Test support shipped with the package: a fake GitHub server and synthetic ledger generators."""
