"""The shell reading the rules rely on: comments, continuations, heredocs, added lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools.lint.shell import added_lines, heredocs, logical_lines, strip_comments


def test_comments_are_dropped_outside_quotes_only() -> None:
    text = "a # c\nb '# kept' \"#kept\" ${#ARR[@]} x#y\n# whole\n"
    assert strip_comments(text) == ["a", "b '# kept' \"#kept\" ${#ARR[@]} x#y", "", ""]


def test_continuations_join_and_keep_each_physical_line() -> None:
    (call,) = logical_lines("run \\\n  --a \\\n  --b\n")
    assert (call.line, call.last, call.text) == (1, 3, "run --a --b")
    assert call.line_at(call.text.index("--b")) == 3


def test_a_heredoc_body_does_not_carry_quotes_into_the_script() -> None:
    text = "python3 - <<'PY'\n# don't\nx = 1\nPY\nrun --flag # comment\n"
    assert strip_comments(text)[-2] == "run --flag"
    assert heredocs(text) == [(1, 4, "\nx = 1")]


LINES = st.lists(st.sampled_from(["a", "b", "c", "d", ""]), max_size=30)


@settings(max_examples=300, deadline=None)
@given(base=LINES, head=LINES)
def test_added_lines_are_the_inserted_lines_of_a_minimal_diff(
    base: list[str], head: list[str]
) -> None:
    base_text, head_text = "\n".join(base), "\n".join(head)
    got = added_lines(base_text, head_text)
    base, head = base_text.split("\n"), head_text.split("\n")  # the lines as the rules see them
    # Every line reported is in range, and the head lines not reported, in order, are base lines.
    unreported = [line for n, line in enumerate(head, 1) if n not in got]
    assert all(1 <= n <= max(1, len(head)) for n in got)
    remaining = iter(base)
    assert all(line in remaining for line in unreported)  # a subsequence of the base
    if base == head:
        assert got == frozenset()


def test_added_lines_never_match_a_whole_big_file_at_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Review finding: one SequenceMatcher over a 10,000-line master config with a change every
    # few lines (an image bump across entries) is quadratic in the repeated lines: 140 s CPU.
    # Lines unique to both sides anchor the diff, so the matcher only sees what lies between.
    import difflib

    from changelog_tools.lint import shell

    sizes: list[int] = []
    real = difflib.SequenceMatcher

    def recording(isjunk, a, b, autojunk=True):  # type: ignore[no-untyped-def]
        sizes.append(len(a) + len(b))
        return real(isjunk, a, b, autojunk=autojunk)

    monkeypatch.setattr(shell.difflib, "SequenceMatcher", recording)
    base = [
        f"entry-{k}:\n  image: v1\n  tp: 8\n  search-space:\n  - {{ tp: 8 }}" for k in range(800)
    ]
    head = [b.replace("v1", "v2") if k % 3 == 0 else b for k, b in enumerate(base)]
    got = added_lines("\n".join(base), "\n".join(head))
    assert got == frozenset(5 * k + 2 for k in range(0, 800, 3))
    assert max(sizes, default=0) < 100


@pytest.mark.parametrize("size", [100, 2_000, 20_000])
def test_added_lines_of_a_file_of_repeated_lines_are_the_changed_ones(size: int) -> None:
    # No line is unique, so no anchor splits the file: the stretch is the whole file, and past
    # the matcher's budget the lines are counted instead of diffed.
    base = "\n".join(["x=1", "y=2"] * (size // 2))
    head = "\n".join(["x=1", "y=3"] * (size // 2))
    assert added_lines(base, head) == frozenset(range(2, size + 1, 2))
    grown = head + "\nz=9\nx=1"
    assert added_lines(head, grown) == frozenset({size + 1, size + 2})
