"""ledger/resolution.py: the account of a resolution, as JSON and as lines for people."""

from __future__ import annotations

from changelog_tools.ledger.canonicalize import Substitution
from changelog_tools.ledger.resolution import (
    AppendedEntry,
    AppliedCorrection,
    DroppedEntry,
    Labels,
    Resolution,
)

LINK = "https://github.com/o/r/pull/5"


def resolution(**fields: object) -> Resolution:
    values: dict[str, object] = {
        "data": b"",
        "kind": "appended",
        "main_bytes": 10,
        "main_entries": 3,
        "main_appended": 1,
        "appended": (),
        "dropped": (),
        "substitutions": (),
        "corrections": (),
        "warnings": (),
        "verified_mode": "main",
    }
    values.update(fields)
    return Resolution(**values)  # type: ignore[arg-type]


def test_each_record_is_written_with_kebab_case_keys() -> None:
    assert AppendedEntry(4, 20, 12, LINK).as_json() == {
        "entry": 4,
        "line": 20,
        "pr-line": 12,
        "pr-link": LINK,
    }
    assert DroppedEntry(5, 30, 4, 18).as_json() == {
        "pr-entry": 5,
        "pr-line": 30,
        "main-entry": 4,
        "main-line": 18,
    }
    assert AppliedCorrection(2, 9, "XXX", LINK, True).as_json() == {
        "entry": 2,
        "line": 9,
        "old": "XXX",
        "new": LINK,
        "already-on-main": True,
    }


def test_the_json_account_lists_every_part() -> None:
    found = resolution(
        appended=(AppendedEntry(4, 20, 12, LINK),),
        dropped=(DroppedEntry(5, 30, 4, 18),),
        substitutions=(Substitution(4, 23, "XXX", LINK),),
    ).as_json()
    assert found["appended"] == [{"entry": 4, "line": 20, "pr-line": 12, "pr-link": LINK}]
    assert found["dropped-already-on-main"] == [
        {"pr-entry": 5, "pr-line": 30, "main-entry": 4, "main-line": 18}
    ]
    assert found["substitutions"][0]["new"] == LINK
    assert (found["main-bytes-kept"], found["verified"]) == (10, "check, main mode")


def test_the_summary_of_an_append_says_what_was_kept_appended_dropped_and_relinked() -> None:
    lines = resolution(
        appended=(AppendedEntry(4, 20, 12, LINK),),
        dropped=(DroppedEntry(5, 30, 4, 18),),
        substitutions=(Substitution(4, 23, "XXX", LINK),),
    ).summary()
    assert lines == [
        "kept main's 3 entries byte for byte (1 appended on main since the merge-base)",
        "appended the PR's entry as entry 4 (line 20)",
        "dropped the PR's entry 5 (PR side line 30): main already appended it as entry 4",
        f"entry 4: pr-link 'XXX' -> {LINK}",
        "the result passes `check` in main mode against main's side",
    ]


def test_the_summary_of_corrections_tells_replayed_from_already_there() -> None:
    lines = resolution(
        kind="corrected",
        corrections=(
            AppliedCorrection(2, 9, "XXX", LINK, False),
            AppliedCorrection(3, 14, "XXX", LINK, True),
        ),
        verified_mode="local",
    ).summary()
    assert lines == [
        f"entry 2: pr-link corrected 'XXX' -> '{LINK}'",
        f"entry 3: pr-link correction already on main ({LINK})",
        "the result passes `check` in local mode against main's side",
    ]


def test_labels_name_each_version_after_the_path() -> None:
    assert Labels.for_path("c.yaml") == Labels(
        "c.yaml (merge-base)", "c.yaml (PR side)", "c.yaml (main side)", "c.yaml"
    )
