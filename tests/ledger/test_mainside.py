"""ledger/mainside.py: what main appended since the merge-base, and when main's side is refused."""

from __future__ import annotations

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.guard import Refusal
from changelog_tools.ledger.mainside import main_side_entries, structure
from changelog_tools.ledger.resolution import Labels
from tests.checkdata import BASE, PULL, appended, entry

LABELS = Labels.for_path("c.yaml")
NEW_1 = entry("alpha-fp8-gpu-a-vllm", link=f"{PULL}3", description="Main's first")
NEW_2 = entry("alpha-fp8-gpu-a-vllm", link=f"{PULL}4", description="Main's second")


def test_entries_main_appended_after_the_merge_base_bytes_are_new_in_mains_numbering() -> None:
    found = main_side_entries(BASE, appended(NEW_1, NEW_2), labels=LABELS)
    assert found.entries == 4
    assert [(number, line) for number, line, _ in found.new] == [(3, 13), (4, 19)]
    assert found.new[1][2]["pr-link"] == f"{PULL}4"
    assert found.ledger is None  # only the suffix was parsed


def test_main_equal_to_the_merge_base_added_nothing() -> None:
    found = main_side_entries(BASE, BASE, labels=LABELS)
    assert (found.entries, found.new) == (2, ())


def test_when_main_rewrote_history_its_new_entries_are_found_by_meaning() -> None:
    # Main moved the second entry after a new one: by meaning, only the new one was added.
    first, second = BASE.split(b"\n\n")
    main = appended(NEW_1, second, base=first + b"\n")
    found = main_side_entries(BASE, main, labels=LABELS)
    assert found.entries == 3
    assert [(number, data["pr-link"]) for number, _, data in found.new] == [(2, f"{PULL}3")]


def test_main_without_a_final_newline_is_refused() -> None:
    with pytest.raises(Refusal) as caught:
        main_side_entries(BASE, appended(NEW_1).rstrip(b"\n"), labels=LABELS)
    assert caught.value.code == dx.MAIN_SIDE_INVALID
    assert "does not end with a newline" in str(caught.value)


def test_structure_refuses_a_side_that_is_not_a_changelog_naming_it() -> None:
    with pytest.raises(Refusal) as caught:
        structure(b"- config-keys: [unclosed\n", path="c.yaml (main side)", what="main's side")
    assert caught.value.code == dx.MAIN_SIDE_INVALID
    assert str(caught.value).startswith(
        "c.yaml (main side):2: main's side is not a valid changelog: invalid YAML"
    )


def test_structure_returns_the_parse_of_a_valid_side() -> None:
    ledger = structure(appended(NEW_1), path="c.yaml", what="main's side")
    assert [b.line for b in ledger.blocks] == [1, 7, 13]
