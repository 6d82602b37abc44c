"""Property-based tests of `check_change` (hypothesis): valid appends pass, history edits fail."""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from changelog_tools.ledger.check import check_change
from changelog_tools.testing import synth
from changelog_tools.testing.synth import SynthEntry
from tests.checkdata import PULL, REPO, config

SETTINGS = settings(max_examples=60, deadline=None)
PR = 4242
POOL = sorted({synth.config_key(random.Random(i)) for i in range(40)})
MASTERS = {
    "configs/a-master.yaml": synth.master_config(POOL[: len(POOL) // 2]),
    "configs/b-master.yaml": synth.master_config(POOL[len(POOL) // 2 :]),
}
# A key as an entry may select it: exactly, or with its last part replaced by `*`.
selections = st.sampled_from(POOL).flatmap(
    lambda key: st.sampled_from([key, key.rsplit("-", 1)[0] + "-*"])
)
new_entries = st.builds(
    SynthEntry,
    config_keys=st.lists(selections, min_size=1, max_size=3, unique=True).map(tuple),
    description=st.lists(
        st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30)
        .map(lambda s: s.replace("\\", "/").replace('"', "'"))
        .filter(lambda s: s.strip() == s),
        min_size=1,
        max_size=3,
    ).map(tuple),
    pr_link=st.sampled_from(["XXX", f"{PULL}XXX", f"{PULL}{PR}"]),
    scenario_type=st.sampled_from([(), ("fixed-seq-len",), ("agentic-coding",)]),
    evals_only=st.booleans(),
)
histories = st.tuples(st.integers(1, 12), st.integers(0, 10_000)).map(
    lambda t: synth.ledger(t[0], seed=t[1], repository=REPO)
)


def _check(base: bytes, head: bytes) -> list[tuple[str, int | None]]:
    result = check_change(
        base=base,
        head=head,
        config=config(),
        mode="pr",
        pr=PR,
        masters_base=MASTERS,
        masters_head=MASTERS,
    )
    return [(d.code, d.line) for d in result.report.diagnostics]


@SETTINGS
@given(histories, st.lists(new_entries, min_size=1, max_size=4))
def test_appending_valid_entries_to_a_valid_ledger_always_passes(
    base: bytes, items: list[SynthEntry]
) -> None:
    head = b"\n".join([base, *(e.render() for e in items)])
    assert _check(base, head) == []


edits = st.tuples(
    st.sampled_from(["replace", "insert", "delete"]),
    st.floats(0, 1, exclude_max=True),
    st.sampled_from([b" ", b"\n", b"x", b"0", b"7", b"-", b":", b"#", b'"', b"\xc3"]),
)


@SETTINGS
@given(histories, edits, new_entries)
def test_any_byte_edit_inside_history_is_caught(
    base: bytes, edit: tuple[str, float, bytes], item: SynthEntry
) -> None:
    op, where, byte = edit
    at = int(where * len(base))
    if op == "replace":
        history = base[:at] + byte + base[at + 1 :]
    elif op == "insert":
        history = base[:at] + byte + base[at:]
    else:
        history = base[:at] + base[at + 1 :]
    assume(history != base)
    head = history + b"\n" + item.render()
    assert _check(base, head) != []
