"""Where tests live: each test file is named for what it tests, never for the review that
found the bug it pins (a newcomer looking for a module's tests looks in test_<module>.py)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# `test_review_*` and `test_hardening*` name a round of review, not a module or a behaviour.
REVIEW_ROUND = re.compile(r"^test_(review(_.*)?|hardening.*)\.py$")


def review_round_files(root: Path) -> list[str]:
    """Test files under ``root`` named after a review round, relative to ``root``."""
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("test_*.py")
        if REVIEW_ROUND.match(p.name)
    )


def test_no_test_file_is_named_after_a_review_round() -> None:
    assert review_round_files(TESTS) == [], (
        "move each test into the file named for the module it covers"
    )


def test_the_rule_finds_a_review_round_file_at_any_depth(tmp_path: Path) -> None:
    for rel in (
        "test_review_x.py",
        "test_review.py",
        "ledger/test_hardening.py",
        "github/test_hardening_more.py",
        "ledger/test_check.py",
        "test_reviews_of_signoff_helpers.py",  # `reviews` is a word, not a round
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert review_round_files(tmp_path) == [
        "github/test_hardening_more.py",
        "ledger/test_hardening.py",
        "test_review.py",
        "test_review_x.py",
    ]
