"""numbers.py: the one rule for pull-request numbers, wherever one is read."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools.commands._common import PR_NUMBER
from changelog_tools.ledger.links import LinkKind, classify
from changelog_tools.numbers import parse_number
from changelog_tools.reuse.authorization import command_runs
from tests.checkdata import (
    PULL,
    REPO,
)

# -- pull-request numbers are ASCII digits everywhere ------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.characters(whitelist_categories=("Nd", "No", "Nl")), min_size=1, max_size=6
    ).filter(lambda s: not s.isascii())
)
def test_no_non_ascii_digit_string_is_ever_a_pr_number(digits: str) -> None:
    found = classify(f"{PULL}{digits}", repository=REPO, placeholders=("XXX",))
    assert found.kind is LinkKind.NEAR_MISS
    assert found.pr is None
    assert parse_number(digits) is None
    with pytest.raises(Exception, match="not a pull-request number"):
        PR_NUMBER.convert(digits, None, None)
    assert command_runs(f"/reuse-sweep-run {digits}", "/reuse-sweep-run") == []


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=10**18))
def test_every_ascii_pr_number_reads_back_as_itself(number: int) -> None:
    found = classify(f"{PULL}{number}", repository=REPO, placeholders=("XXX",))
    assert (found.kind, found.pr) == (LinkKind.CANONICAL, number)
    assert PR_NUMBER.convert(str(number), None, None) == number
    assert command_runs(f"/reuse-sweep-run {number}", "/reuse-sweep-run") == [number]
