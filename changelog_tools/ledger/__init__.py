"""The ledger: bytes to entries, and every rule on them (validate, check, canonicalize, resolve, the merge driver)."""
