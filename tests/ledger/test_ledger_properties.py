"""Property-based invariants of the ledger model (hypothesis)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools.errors import UsageError
from changelog_tools.fsutil import atomic_write
from changelog_tools.ledger import appendonly
from changelog_tools.ledger.document import Splice, apply_splices, parse_ledger
from changelog_tools.testing.synth import SynthEntry
from changelog_tools.yamlload import resolve_plain, yaml11_difference

SETTINGS = settings(max_examples=60, deadline=None)

# Config keys as people write them: a letter first, then letters, digits, dots and dashes.
# Words YAML would read as another type (true, null, ...), or YAML 1.1 would (on, n, ...), are
# excluded: the tool rightly rejects them unquoted, which test_validate_rules covers.
words = st.from_regex(r"[a-z][a-z0-9.*-]{0,11}", fullmatch=True).filter(
    lambda s: isinstance(resolve_plain(s), str) and yaml11_difference(s, s) is None
)
entries = st.builds(
    SynthEntry,
    config_keys=st.lists(words, min_size=1, max_size=3).map(tuple),
    description=st.lists(
        st.text(
            alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=30
        ).map(lambda s: s.replace("\\", "/").replace('"', "'")),
        min_size=1,
        max_size=3,
    ).map(tuple),
    pr_link=st.integers(1, 99999).map(lambda n: f"https://github.com/acme/bench/pull/{n}"),
    scenario_type=st.sampled_from([(), ("fixed-seq-len",), ("agentic-coding",)]),
    evals_only=st.booleans(),
)


def render(items: list[SynthEntry]) -> bytes:
    return b"\n".join(e.render() for e in items)


@SETTINGS
@given(st.lists(entries, min_size=1, max_size=8))
def test_rendered_entries_parse_back_into_one_block_each(items: list[SynthEntry]) -> None:
    raw = render(items)
    ledger = parse_ledger(raw, path="p.yaml")
    assert ledger.diagnostics == ()
    assert len(ledger.blocks) == len(items)
    for block, item in zip(ledger.blocks, items, strict=True):
        assert block.content(raw) == item.render()
        assert block.data["config-keys"] == list(item.config_keys)
        assert block.data["description"] == list(item.description)
    # Blocks tile the file: no byte belongs to two blocks and none is lost.
    assert b"".join(raw[b.start : b.end] for b in ledger.blocks) == raw


@SETTINGS
@given(st.lists(entries, min_size=1, max_size=6), st.lists(entries, min_size=1, max_size=3))
def test_appending_valid_entries_is_classified_as_an_append_of_exactly_those(
    history: list[SynthEntry], new: list[SynthEntry]
) -> None:
    base = render(history)
    head = base + b"\n" + render(new)
    change = appendonly.compare(base, head, path="p.yaml")
    assert change.kind is appendonly.ChangeKind.APPENDED
    assert change.diagnostics == ()
    assert [b.content(head) for b in change.appended] == [e.render() for e in new]


@SETTINGS
@given(
    st.lists(entries, min_size=2, max_size=6),
    st.data(),
)
def test_any_single_byte_edit_inside_history_is_caught(
    history: list[SynthEntry], data: st.DataObject
) -> None:
    base = render(history)
    pos = data.draw(st.integers(0, len(base) - 1))
    replacement = data.draw(st.sampled_from([b" ", b"x", b"\n", b"", b"-", b":"]))
    head = base[:pos] + replacement + base[pos + 1 :]
    if head == base:
        return
    change = appendonly.compare(base, head, path="p.yaml")
    corrected_only = change.kind is appendonly.ChangeKind.CORRECTED
    # An edit of a pr-link value can be a legitimate correction; anything else is an error.
    assert not change.ok or corrected_only
    if corrected_only:
        assert all(c.old != c.new for c in change.corrections)


@SETTINGS
@given(st.binary(max_size=200), st.data())
def test_splices_keep_every_byte_outside_their_spans(raw: bytes, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), min_size=2, max_size=6)))
    spans = list(zip(cuts[::2], cuts[1::2], strict=False))
    splices = [Splice(a, b, b"<%d>" % i) for i, (a, b) in enumerate(spans)]
    out = apply_splices(raw, splices)
    pos = 0
    rebuilt = b""
    for i, (a, b) in enumerate(spans):
        rebuilt += raw[pos:a] + b"<%d>" % i
        pos = b
    assert out == rebuilt + raw[pos:]


def test_overlapping_splices_are_refused() -> None:
    with pytest.raises(ValueError):
        apply_splices(b"abcdef", [Splice(0, 3, b""), Splice(2, 4, b"")])


def test_atomic_write_replaces_the_file_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "perf-changelog.yaml"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    atomic_write(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["perf-changelog.yaml"]


def test_atomic_write_failure_leaves_the_original_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "perf-changelog.yaml"
    target.write_bytes(b"old\n")

    def fail(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", fail)
    with pytest.raises(UsageError, match="cannot write: disk full"):
        atomic_write(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["perf-changelog.yaml"]
