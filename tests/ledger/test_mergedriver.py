"""ledger/mergedriver.py: detecting the sides of a merge."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools import gitrepo

# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def test_a_blank_reflog_action_is_a_refusal_not_an_internal_error(repo: Path) -> None:
    from changelog_tools.config import defaults
    from changelog_tools.ledger.guard import Refusal
    from changelog_tools.ledger.mergedriver import detect_sides

    with pytest.raises(Refusal, match="no merge, rebase or cherry-pick"):
        detect_sides(gitrepo.open_repo(repo), config=defaults(repo), reflog_action="  ")
