"""signoff/events.py: reading the pull request from an Actions event."""

from __future__ import annotations

import pytest

# -- hostile input, pinned through the installed CLI -------------------------------------------


@pytest.mark.parametrize("text", ["٥", "５", "1_0", "²", "9" * 5000])
def test_a_dispatch_input_that_is_not_ascii_digits_names_no_pull_request(text: str) -> None:
    from changelog_tools.errors import UsageError
    from changelog_tools.signoff.events import pr_from_event

    with pytest.raises(UsageError, match="names no pull request number"):
        pr_from_event("workflow_dispatch", {"inputs": {"pr": text}})
    assert pr_from_event("workflow_dispatch", {"inputs": {"pr": " 42 "}}) == 42
