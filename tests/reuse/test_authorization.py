"""reuse/authorization.py: which comment lines use the reuse command."""

from __future__ import annotations

from changelog_tools.reuse.authorization import command_runs

# -- hostile input -----------------------------------------------------------------------------


def test_a_reuse_command_with_a_unicode_run_id_is_no_use_of_the_command() -> None:
    assert command_runs("/reuse-sweep-run ٥\n/reuse-sweep-run 12\n", "/reuse-sweep-run") == [12]
    assert command_runs("/reuse-sweep-run ５", "/reuse-sweep-run") == []
