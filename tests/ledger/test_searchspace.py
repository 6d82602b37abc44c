"""Search-space rows: the concurrencies a row runs, and a row's identity apart from them."""

from __future__ import annotations

import pytest

from changelog_tools.ledger import searchspace as ss


@pytest.mark.parametrize(
    ("row", "points"),
    [
        ({"conc-start": 4, "conc-end": 64}, {4, 8, 16, 32, 64}),
        ({"conc-start": 4, "conc-end": 48}, {4, 8, 16, 32, 48}),
        ({"conc-start": 8, "conc-end": 8}, {8}),
        ({"conc-list": [1, 2, 6]}, {1, 2, 6}),
        ({"conc": 3}, {3}),
        ({"conc-list": [1, True]}, None),
        ({"tp": 8}, None),
        ({"conc-start": 0, "conc-end": 8}, None),
    ],
)
def test_concurrency_points_follow_the_generator(
    row: dict[str, object], points: set[int] | None
) -> None:
    found = ss.concurrency_points(row)
    assert (None if found is None else set(found)) == points


def test_a_row_keeps_its_identity_when_only_its_concurrencies_change() -> None:
    old = [{"isl": 1024, "search-space": [{"tp": 4, "conc-start": 4, "conc-end": 8}]}]
    new = [{"isl": 1024, "search-space": [{"tp": 4, "conc-list": [2, 4, 8]}]}]
    other = [{"isl": 2048, "search-space": [{"tp": 4, "conc-start": 4, "conc-end": 8}]}]
    (row,) = ss.search_space_rows(old)
    assert ss.search_space_rows(new)[0].identity == row.identity
    assert ss.search_space_rows(other)[0].identity != row.identity
