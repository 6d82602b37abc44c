"""github/convert.py: PyGithub objects to plain records."""

from __future__ import annotations

from changelog_tools.github.adapter import GitHub
from changelog_tools.reuse.authorization import find_authorization
from changelog_tools.testing.fakegithub import FakeGitHub

# -- hostile and failing GitHub-side situations ------------------------------------------------


def test_timestamps_without_an_offset_are_utc_and_sort_with_the_others(
    fake: FakeGitHub, gh: GitHub
) -> None:
    fake.add_comment(7, "/reuse-sweep-run 5").created_at = "2024-01-01T00:00:00"
    fake.add_comment(7, "/reuse-sweep-run").created_at = "2024-01-02T00:00:00Z"
    old, new = gh.list_issue_comments(7)
    assert old.created_at is not None and old.created_at.utcoffset() is not None
    auth = find_authorization([new, old], command="/reuse-sweep-run", allowed=["MEMBER"])
    assert auth is not None and auth.comment_id == new.id
