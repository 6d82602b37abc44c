"""reuse/gate.py: the reuse decision."""

from __future__ import annotations

import pytest

from changelog_tools import config as config_mod
from changelog_tools.github.adapter import GitHub, NotFoundError
from changelog_tools.reuse.gate import Event, Policy, decide
from changelog_tools.testing.fakegithub import FakeGitHub
from tests.fakegithub_fixtures import merged_pull, sha_of

# -- hostile and failing GitHub-side situations ------------------------------------------------


def test_an_unknown_sweep_workflow_fails_closed_and_says_which_setting_to_check(
    fake: FakeGitHub, gh: GitHub
) -> None:
    merged_pull(fake)
    fake.add_comment(7, "/reuse-sweep-run", "bob", "MEMBER")
    event = Event("push", sha=sha_of("merge7"), ref="refs/heads/main")
    with pytest.raises(NotFoundError) as caught:
        decide(event, Policy.from_config(config_mod.defaults()), gh)
    assert caught.value.exit_code == 3 and caught.value.status == 404
    assert caught.value.hint == (
        "is `sweep-workflow` (run-sweep.yml) the file name of a workflow in .github/workflows, "
        "and may the token read Actions?"
    )
