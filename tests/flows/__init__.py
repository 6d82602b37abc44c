"""Tests for changelog_tools.flows."""
