"""Tests for the command layer (click modules under changelog_tools/commands)."""
