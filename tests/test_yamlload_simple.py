"""The simple reader (`yamlload._read_simple`) against the event reader it stands in for.

`yamlload.load` reads the changelog's usual line shapes itself and leaves everything else to the
YAML parser's event stream (issue 14: importing the parser cost more than a whole `check` of one
appended entry). The contract is equality: for any text, `load` gives exactly what the event
reader gives (value, value and key positions, notes, document count) or raises exactly the
problem it raises. The tests generate texts around the edges of the shapes the simple reader
takes, so that a shape it takes wrongly shows up as a difference.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from changelog_tools import yamlload
from changelog_tools.testing import synth

INFERENCEX = Path(
    os.environ.get(
        "CHANGELOG_TOOLS_INFERENCEX",
        Path(__file__).resolve().parents[1].parent / "shared/fixtures/inferencex",
    )
)


def outcome(read: Any, text: str, line_offset: int = 0) -> tuple[Any, ...]:
    try:
        loaded = read(text, line_offset)
    except yamlload.YamlProblem as exc:
        return ("problem", exc.code, exc.message, exc.line, exc.column)
    return (
        "loaded",
        repr(loaded.value),
        sorted(loaded.marks.items(), key=repr),
        sorted(loaded.key_marks.items(), key=repr),
        loaded.notes,
        loaded.documents,
    )


def by_load(text: str, line_offset: int) -> yamlload.Loaded:
    return yamlload.load(text, line_offset=line_offset)


def by_events(text: str, line_offset: int) -> yamlload.Loaded:
    return yamlload._load_events(
        text, max_depth=yamlload.DEFAULT_MAX_DEPTH, line_offset=line_offset
    )


def assert_same(text: str, line_offset: int = 0) -> None:
    assert outcome(by_load, text, line_offset) == outcome(by_events, text, line_offset), text


def ledger_text() -> str:
    real = INFERENCEX / "perf-changelog.yaml"
    if real.is_file():
        return real.read_text(encoding="utf-8")
    return synth.ledger_of_size(200_000, seed=3).decode("utf-8")


def test_the_whole_ledger_and_each_of_its_entries_read_the_same() -> None:
    text = ledger_text()
    assert_same(text)
    assert_same(text, line_offset=41)
    entries = re.split(r"\n(?=- )", text)
    simple = 0
    for chunk in entries:
        assert_same(chunk)
        simple += yamlload._read_simple(chunk, 0).stop < 0
    # The point of the simple reader: nearly every real entry is one it reads by itself.
    assert simple >= 0.9 * len(entries)


def test_a_typical_appended_entry_is_read_without_the_yaml_parser() -> None:
    entry = (
        "- config-keys:\n"
        "    - dsr1-fp4-mi355x-sglang\n"
        "    - 'gptoss-*'\n"
        "  description:\n"
        '    - "Bump the image to v0.5.9: \\"fast\\" path"\n'
        "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n"
    )
    read = yamlload._read_simple(entry, 100)
    assert read.stop == -1
    assert read.result.value == [
        {
            "config-keys": ["dsr1-fp4-mi355x-sglang", "gptoss-*"],
            "description": ['Bump the image to v0.5.9: "fast" path'],
            "pr-link": "https://github.com/SemiAnalysisAI/InferenceX/pull/XXX",
        }
    ]
    assert read.result.key_marks[(0, "pr-link")] == (106, 3)
    assert read.result.marks[(0, "config-keys", 1)] == (103, 7)
    assert_same(entry, 100)


def test_the_rest_after_an_entry_it_cannot_read_goes_to_the_event_reader() -> None:
    simple = "- a: 1\n  b:\n    - x\n"
    odd = '- a: "two\n    lines"\n  b: [flow, list]\n'
    text = simple * 3 + odd + simple * 2
    read = yamlload._read_simple(text, 0)
    assert (read.entries, read.stop_line) == (3, 9)
    assert_same(text)
    # ... and a problem there is the whole text's problem, with the whole text's position
    broken = simple * 3 + "- a: 1\n  a: 2\n" + simple
    assert outcome(by_load, broken)[:2] == ("problem", "CL011")
    assert_same(broken)


# -- generated texts ----------------------------------------------------------------------------

SCALARS = [
    "word", "dsr1-fp4-b200-sglang", "https://github.com/o/r/pull/12", "a#b", "a # b", "a: b",
    "a:b", "a:", "x ", "", "-x", "- x", "?x", ":x", "[a, b]", "{a: b}", "a, b", "*x", "&x", "!x",
    "!!str x", "|", ">", "%x", "@x", "`x", "#x", "null", "Null", "~", "true", "yes", "no", "on",
    "off", "y", "n", "0", "12", "012", "0o17", "0x1F", "1_000", "1e3", ".5", ".inf", "-.inf",
    ".nan", "+1", "1:20", "2024-01-01", "2024-1-1 10:00:00", "<<", "=", "9" * 1001, "é",
    "naïve café", "日本語", "a\u2028b", "a\x85b", "a\tb", "a\u00a0b", "\ufeffx", "a\x7fb",
    '"dq"', '"dq \\" esc"', '"dq \\\\ bs"', '"dq \\/ sl"', '"dq \\n nl"', '"dq \\x41"',
    '"unterminated', '"a" b', '"a" # c', "'sq'", "'it''s'", "'bad' x", "'", "''", '""',
    '"a: b"', "'a # b'", '"two', "lines\"",
]  # fmt: skip
KEYS = ["config-keys", "description", "pr-link", "evals-only", "null", "true", "yes", "1",
        "k_2", "a b", "a:b", '"q"', "-k", "x" * 3, "k" * 1024, "k" * 1025]  # fmt: skip


GOOD_SCALARS = ["word", "dsr1-fp4-b200-sglang", "https://github.com/o/r/pull/12", "a#b", "a:b",
                "'sq'", '"dq"', '"dq \\" esc"', "'it''s'", "naïve café", "12", "null", "yes",
                "0o17", "2024-01-01", "'gptoss-*'", '"Bump: the image"', "x-y_z.1"]  # fmt: skip
GOOD_KEYS = ["config-keys", "description", "pr-link", "evals-only"]


@st.composite
def ledgers(draw: st.DrawFn) -> str:
    """Mostly the usual shapes; each line turns odd with a drawn probability, so texts range
    from wholly simple through a single odd line to mostly odd."""
    odd = draw(st.sampled_from([0.0, 0.02, 0.05, 0.15, 0.4]))

    def pick(good: list[str], bad: list[str]) -> str:
        return draw(st.sampled_from(bad if draw(st.floats(0, 1)) < odd else good))

    lines: list[str] = []
    if draw(st.floats(0, 1)) < odd:
        lines.append(draw(st.sampled_from(["", "# head", "---", "%YAML 1.2\n---", "  "])))
    for _ in range(draw(st.integers(1, 5))):
        keys = draw(st.lists(st.sampled_from(GOOD_KEYS), min_size=1, max_size=4, unique=True))
        if draw(st.floats(0, 1)) < odd:
            keys.append(draw(st.sampled_from(KEYS + keys)))  # an odd key, or a duplicate
        for k, key in enumerate(keys):
            lead = "- " if k == 0 else pick(["  "], [" ", "   ", "-  ", "\t"])
            if draw(st.integers(0, 2)) == 0:  # a list value
                lines.append(f"{lead}{key}:" + pick(["", " "], [" # c", " []", " |"]))
                indent = draw(st.sampled_from(["    ", "    ", "  ", "   ", "     "]))
                if draw(st.floats(0, 1)) < odd:
                    lines.append(draw(st.sampled_from(["", "    # note", "#", "   "])))
                for _ in range(draw(st.integers(0 if odd else 1, 3))):
                    step = pick([indent], ["  ", "      ", " "])
                    lines.append(f"{step}- {pick(GOOD_SCALARS, SCALARS)}")
            else:
                lines.append(f"{lead}{key}: {pick(GOOD_SCALARS, SCALARS)}")
            if draw(st.floats(0, 1)) < odd:
                lines.append(draw(st.sampled_from(["", "...", "---", "      continued", "  - x"])))
        if draw(st.booleans()):
            lines.append("")
    text = "\n".join(lines)
    return text + draw(st.sampled_from(["\n", "\n", "", "\n\n", "\n  \n"]))


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ledgers(), st.integers(0, 50))
@example("- a: 1\n  b:\n\n    # c\n    - x\n", 0)
@example("- a:\n  b: 1\n", 0)
@example("- a: x\n  - y\n", 0)
@example("- a:\n  - y\n  - z\n    - w\n", 0)
@example("- a: 1\n...\n- b: 2\n", 0)
@example("- a: 1\n---\n- b: 2\n", 3)
@example("- " + "k" * 1025 + ": v\n", 0)
@example("- a: 1\n  " + "k" * 1025 + ":\n    - x\n", 0)
def test_load_reads_every_text_as_the_event_reader_does(text: str, line_offset: int) -> None:
    assert_same(text, line_offset)


@st.composite
def mappings(draw: st.DrawFn) -> str:
    """Configuration files: a flat mapping, mostly of the usual shapes."""
    odd = draw(st.sampled_from([0.0, 0.05, 0.2]))

    def pick(good: list[str], bad: list[str]) -> str:
        return draw(st.sampled_from(bad if draw(st.floats(0, 1)) < odd else good))

    lines: list[str] = []
    keys = draw(st.lists(st.sampled_from([*GOOD_KEYS, "repository", "x"]), min_size=1,
                         max_size=5, unique=True))  # fmt: skip
    if draw(st.floats(0, 1)) < odd:
        keys.append(draw(st.sampled_from(KEYS + keys)))
    for key in keys:
        lead = pick([""], [" ", "  ", "- "])
        if draw(st.booleans()):
            lines.append(f"{lead}{key}:" + pick(["", " "], [" # c", " {}"]))
            indent = draw(st.sampled_from(["", "  ", "    ", " "]))
            for _ in range(draw(st.integers(0 if odd else 1, 3))):
                if draw(st.floats(0, 1)) < odd:
                    lines.append(draw(st.sampled_from(["", "# c", "  nested: x", "---"])))
                lines.append(f"{pick([indent], ['   ', '      '])}- {pick(GOOD_SCALARS, SCALARS)}")
        else:
            lines.append(f"{lead}{key}: {pick(GOOD_SCALARS, SCALARS)}")
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mappings(), st.integers(0, 9))
@example("repository: o/r\nmaster-configs:\n  - a.yaml\n  - b.yaml\n", 0)
@example("a:\n- x\n- y\nb: 1\n", 0)
@example("a:\n- x\n  - y\n", 0)
@example("a: 1\n- x\n", 0)
@example("k" * 1025 + ": v\n", 0)
def test_flat_mappings_read_as_the_event_reader_does(text: str, line_offset: int) -> None:
    assert_same(text, line_offset)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_synthetic_ledgers_read_the_same(size_kib: int, seed: int) -> None:
    text = synth.ledger_of_size(size_kib * 1024, seed=seed).decode("utf-8")
    assert_same(text)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_small_depth_limit_is_the_event_reader_s(depth: int) -> None:
    assert_same_depth = outcome(
        lambda t, o: yamlload.load(t, max_depth=depth, line_offset=o), "- a:\n    - x\n"
    ) == outcome(
        lambda t, o: yamlload._load_events(t, max_depth=depth, line_offset=o), "- a:\n    - x\n"
    )
    assert assert_same_depth


def test_a_control_character_is_reported_where_it_is() -> None:
    # The reader's error carries a character offset into the document; it must be counted in
    # the document, not in the last scalar read before it.
    text = "- a: word\n" * 50 + "- a: x\x01y\n"
    with pytest.raises(yamlload.YamlProblem) as caught:
        yamlload.load(text)
    assert (caught.value.line, caught.value.column) == (51, 7)


def test_the_characters_the_simple_reader_declines_are_exactly_these() -> None:
    # Every code point: the simple reader takes LF, printable ASCII, and from U+00A0 on all but
    # the line and paragraph separators, the surrogates, the byte-order mark and U+FFFE/U+FFFF.
    def taken(cp: int) -> bool:
        return (
            cp == 0x0A
            or 0x20 <= cp <= 0x7E
            or 0xA0 <= cp <= 0x2027
            or 0x202A <= cp <= 0xD7FF
            or 0xE000 <= cp <= 0xFEFE
            or 0xFF00 <= cp <= 0xFFFD
            or cp >= 0x10000
        )

    declined = yamlload._NOT_SIMPLE_CHAR
    wrong = [hex(cp) for cp in range(0x110000) if bool(declined.match(chr(cp))) == taken(cp)]
    assert wrong == []
