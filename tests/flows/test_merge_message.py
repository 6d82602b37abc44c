"""flows/merge/message.py: the squash commit's title and body."""

from __future__ import annotations

import pytest

from changelog_tools.flows.merge.flow import SourceRun, has_ci_skip, squash_message

# -- hostile and failing GitHub-side situations ------------------------------------------------


@pytest.mark.parametrize(
    "title", ["Tune [skip\tci]", "Tune [skip\nci]", "Tune [skip  ci]", "[ci \t skip] Tune"]
)
def test_a_marker_split_by_other_whitespace_in_the_pr_title_is_removed_not_a_crash(
    title: str,
) -> None:
    # Before the fix the title was stripped first and collapsed after, which formed
    # "[skip ci]" and tripped the final assertion: exit 70 on a PR author's title.
    source = SourceRun(5, 1, None, None, "success", True)
    got_title, body = squash_message(
        pr=4, title=title, commit_messages=["tune"], source=source, skip_marker="[skip-sweep]"
    )
    assert got_title == "Tune (#4)"
    assert not has_ci_skip(got_title + "\n" + body, extra=["[skip-sweep]"])
