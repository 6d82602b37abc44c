"""A file known to pass `validate` whole, with more appended: only the joint and what follows
are checked again, and anything that breaks the file there is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools.ledger import knownvalid
from changelog_tools.ledger.guard import Refusal, require_whole_valid
from tests.ledger.test_resolve import BASE, MAIN_1, PR_1, ledger

MAX = 10_000_000


def _known(*whole: bytes) -> knownvalid.KnownValid:
    known = knownvalid.KnownValid("k")
    for data in whole:
        known.whole.add((len(data), knownvalid.whole_digest(data, MAX)))
    return known


def test_a_valid_file_after_a_known_one_passes_and_is_remembered() -> None:
    data = ledger(BASE, MAIN_1)
    known = _known(BASE)
    with knownvalid.remembering(known):
        assert require_whole_valid(data, path="p", what="t", max_size=MAX) == ()
    assert (len(data), knownvalid.whole_digest(data, MAX)) in known.whole_now
    # only the known file's last entry and what follows were validated by the schema
    assert len(known.used) == 2


@pytest.mark.parametrize(
    ("appended", "code"),
    [
        # an indented line right after the known file joins its last entry: a field it lacks
        (b"  extra: field\n", dx.UNKNOWN_FIELD),
        # an appended entry the schema rejects
        (b"\n" + PR_1.replace(b"  description:", b"  descripton:"), dx.UNKNOWN_FIELD),
        # a TAB between the known file and the next entry
        (b"\t\n" + PR_1, None),
        # a document end marker, then an entry
        (b"...\n" + PR_1, dx.MULTI_DOCUMENT),
    ],
)
def test_what_breaks_the_file_after_a_known_start_is_still_refused(
    appended: bytes, code: str | None
) -> None:
    data = BASE + appended
    known = _known(BASE)
    with knownvalid.remembering(known), pytest.raises(Refusal) as caught:
        require_whole_valid(data, path="p", what="t", max_size=MAX)
    assert caught.value.code == dx.RESULT_INVALID
    if code is not None:
        assert code in {d.code for d in caught.value.diagnostics[1:]}
    assert not known.whole_now
    # the same verdict as without any memory
    with pytest.raises(Refusal) as plain:
        require_whole_valid(data, path="p", what="t", max_size=MAX)
    assert [d.code for d in plain.value.diagnostics] == [d.code for d in caught.value.diagnostics]


def test_a_known_file_under_another_size_limit_is_not_known() -> None:
    known = knownvalid.KnownValid("k")
    known.whole.add((len(BASE), knownvalid.whole_digest(BASE, MAX)))
    assert known.valid_prefix(ledger(BASE, MAIN_1), MAX) == len(BASE)
    assert known.valid_prefix(ledger(BASE, MAIN_1), MAX + 1) == 0
    assert known.valid_prefix(b"x" + ledger(BASE, MAIN_1), MAX) == 0


def test_the_size_limit_applies_to_the_whole_file() -> None:
    data = ledger(BASE, MAIN_1)
    known = _known(BASE)
    with knownvalid.remembering(known), pytest.raises(Refusal):
        require_whole_valid(data, path="p", what="t", max_size=len(data) - 1)


def _stored(tmp_path: Path) -> tuple[Path, knownvalid.KnownValid]:
    known = knownvalid.KnownValid("k" * 64)
    for n in range(3):
        known.accept(knownvalid.entry_digest({"entry": n}))
    known.accept_whole(BASE, MAX)
    store = tmp_path / "verdicts" / "entry-verdicts"
    knownvalid.save(store, known)
    return store, known


def test_saved_verdicts_load_back_and_leave_no_temporary_file(tmp_path: Path) -> None:
    store, known = _stored(tmp_path)
    loaded = knownvalid.load(store, known.key)
    assert loaded.valid == known.used and loaded.whole == known.whole_now
    assert sorted(p.name for p in store.parent.iterdir()) == ["entry-verdicts"]
    assert knownvalid.load(store, "x" * 64).valid == set()  # another key: nothing


def test_a_verdicts_file_cut_short_reads_as_fewer_verdicts_never_as_others(tmp_path: Path) -> None:
    # The file is not synced to disk: after a crash it may end anywhere.
    store, known = _stored(tmp_path)
    text = store.read_bytes()
    for cut in range(len(text)):
        store.write_bytes(text[:cut])
        loaded = knownvalid.load(store, known.key)
        assert loaded.valid <= known.used and loaded.whole <= known.whole_now, cut
    store.write_bytes(text[: text.index(b"\n") + 10])  # the header and part of a line
    assert knownvalid.load(store, known.key).whole == set()


def test_a_verdicts_file_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    (tmp_path / "verdicts").write_text("a file where the directory would be")
    store = tmp_path / "verdicts" / "entry-verdicts"
    knownvalid.save(store, knownvalid.KnownValid("k"))  # nothing raised: only a memory
    assert not store.exists()


@pytest.mark.parametrize("own", [True, False])
def test_the_digest_is_sha256_whichever_implementation_makes_it(
    own: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib
    import sys

    if not own:  # an interpreter built without its own hashes: hashlib's is used
        monkeypatch.setitem(sys.modules, "_sha256", None)
        monkeypatch.setitem(sys.modules, "_sha2", None)
    for data in (b"", b"abc", bytes(range(256)) * 300):
        assert knownvalid.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    digest = knownvalid.sha256(b"max-size 7\n")
    digest.update(b"- config-keys: []\n")
    assert digest.hexdigest() == hashlib.sha256(b"max-size 7\n- config-keys: []\n").hexdigest()
    assert knownvalid.whole_digest(b"x\n", 7) == hashlib.sha256(b"max-size 7\nx\n").hexdigest()
    assert knownvalid.entry_digest({"a": "é"}) == hashlib.sha256('{"a":"é"}'.encode()).hexdigest()
