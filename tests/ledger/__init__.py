"""Tests for changelog_tools.ledger."""
