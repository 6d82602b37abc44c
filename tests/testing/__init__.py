"""Tests for the shipped test doubles (changelog_tools/testing)."""
