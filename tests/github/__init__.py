"""Tests for changelog_tools.github."""
