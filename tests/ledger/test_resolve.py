"""Three-way resolution on bytes: main kept exactly, the PR's entries after it, nothing lost."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config, defaults
from changelog_tools.ledger.check import check_change
from changelog_tools.ledger.document import parse_ledger
from changelog_tools.ledger.guard import Refusal, verify
from changelog_tools.ledger.resolve import carried, join_after, resolve
from tests.conftest import run_cli

REPO = "example-org/bench"
PULL = f"https://github.com/{REPO}/pull/"
CFG: Config = dataclasses.replace(defaults(Path("/nonexistent")), repository=REPO)


def entry(key: str, text: str, link: str) -> bytes:
    return (
        f'- config-keys:\n    - {key}\n  description:\n    - "{text}"\n  pr-link: {link}\n'.encode()
    )


def ledger(*entries: bytes) -> bytes:
    return b"\n".join(entries)


A = entry("alpha-x", "First", PULL + "1")
B = entry("beta-x", "Second", PULL + "2")
C = entry("gamma-x", "Third", PULL + "3")
BASE = ledger(A, B, C)  # 17 lines; entry 4 would start on line 19
MAIN_1 = entry("main-x", "Main's new entry", PULL + "10")
MAIN_2 = entry("main-y", "Main's second entry", PULL + "11")
PR_1 = entry("pr-x", "The PR's entry", "XXX")
PR_2 = entry("pr-y", "The PR's second entry", "XXX")


def canon(raw: bytes, pr: int = 77) -> bytes:
    return raw.replace(b"pr-link: XXX", f"pr-link: {PULL}{pr}".encode())


def errors_of(base: bytes, head: bytes, mode: str) -> list[dx.Diagnostic]:
    found = verify(base, head, config=CFG, mode=mode, path="p", base_label="b")
    return [d for d in found if d.severity is dx.Severity.ERROR]


# -- appends ------------------------------------------------------------------------------


def test_main_bytes_then_the_prs_entry_with_its_link_canonicalized() -> None:
    main = ledger(BASE, MAIN_1)
    result = resolve(BASE, ledger(BASE, PR_1), main, config=CFG, pr=77, path="p.yaml")
    assert result.data == ledger(BASE, MAIN_1, canon(PR_1))
    assert result.kind == "appended"
    assert result.data[: result.main_bytes] == main
    assert result.as_json() == {
        "kind": "appended",
        "main-bytes-kept": len(main),
        "main-entries": 4,
        "main-appended-since-base": 1,
        "appended": [{"entry": 5, "line": 25, "pr-line": 19, "pr-link": PULL + "77"}],
        "dropped-already-on-main": [],
        "substitutions": [
            {"entry": 5, "line": 29, "old": "XXX", "new": PULL + "77", "near-miss": None}
        ],
        "corrections": [],
        "verified": "check, main mode",
    }
    assert result.summary() == [
        "kept main's 4 entries byte for byte (1 appended on main since the merge-base)",
        "appended the PR's entry as entry 5 (line 25)",
        f"entry 5: pr-link 'XXX' -> {PULL}77",
        "the result passes `check` in main mode against main's side",
    ]


def test_main_keeps_its_own_irregular_whitespace_byte_for_byte() -> None:
    # Trailing spaces in history, a whitespace-only separator, a whitespace-only last line.
    odd_base = BASE.replace(b'"Second"\n', b'"Second"   \n')
    main = odd_base + b"  \n" + MAIN_1 + b"  \n"
    result = resolve(odd_base, ledger(odd_base, PR_1), main, config=CFG, pr=5, path="p.yaml")
    # Main's bytes exactly, its whitespace-only last line included, then the PR's empty line.
    assert result.data == main + b"\n" + canon(PR_1, 5)
    assert errors_of(main, result.data, "main") == []


def test_several_pr_entries_are_one_empty_line_apart_and_the_file_ends_with_one_newline() -> None:
    pr_side = ledger(BASE, PR_1, PR_2, entry("pr-z", "Third of the PR", "XXX"))
    result = resolve(BASE, pr_side, ledger(BASE, MAIN_1), config=CFG, pr=9, path="p.yaml")
    suffix = result.data[len(ledger(BASE, MAIN_1)) :]
    assert suffix.count(b"\n\n- config-keys:") == 2
    assert b"\n\n\n" not in result.data and result.data.endswith(b"9\n")
    assert result.data == canon(
        ledger(BASE, MAIN_1, PR_1, PR_2, entry("pr-z", "Third of the PR", "XXX")), 9
    )
    assert [a.entry for a in result.appended] == [5, 6, 7]


def test_separator_slips_on_the_pr_side_are_rebuilt_as_one_empty_line() -> None:
    pr_side = BASE + b"\n\n\n" + PR_1 + b"\n\n" + PR_2 + b"\n"
    result = resolve(BASE, pr_side, ledger(BASE, MAIN_1), config=CFG, path="p.yaml")
    assert result.data == ledger(BASE, MAIN_1, PR_1, PR_2)


def test_without_a_pr_number_placeholders_stay_and_local_mode_is_checked() -> None:
    result = resolve(BASE, ledger(BASE, PR_1), ledger(BASE, MAIN_1), config=CFG, path="p.yaml")
    assert result.data == ledger(BASE, MAIN_1, PR_1)
    assert result.verified_mode == "local"
    assert result.substitutions == ()


def test_an_entry_repeating_old_history_is_kept_because_main_did_not_append_it() -> None:
    # A recovery entry copies an old description and changes only the link (the reference
    # resolver dropped these because it compared against all of main's history).
    recovery = entry("beta-x", "Second", "XXX")
    result = resolve(
        BASE, ledger(BASE, recovery), ledger(BASE, MAIN_1), config=CFG, pr=40, path="p"
    )
    assert result.data == ledger(BASE, MAIN_1, canon(recovery, 40))
    assert result.dropped == ()


def test_an_entry_main_appended_since_the_merge_base_is_dropped_and_reported() -> None:
    already = MAIN_1  # cherry-picked from main: the same entry, its link included
    pr_side = ledger(BASE, already, PR_1)
    result = resolve(BASE, pr_side, ledger(BASE, MAIN_1), config=CFG, pr=77, path="p.yaml")
    assert result.data == ledger(BASE, MAIN_1, canon(PR_1))
    assert [d.as_json() for d in result.dropped] == [
        {"pr-entry": 4, "pr-line": 19, "main-entry": 4, "main-line": 19}
    ]
    assert "dropped the PR's entry 4 (PR side line 19): main already appended it as entry 4" in (
        result.summary()
    )


def test_each_main_entry_absorbs_at_most_one_equal_pr_entry() -> None:
    twice = MAIN_1
    result = resolve(BASE, ledger(BASE, twice, twice), ledger(BASE, MAIN_1), config=CFG, path="p")
    assert result.data == ledger(BASE, MAIN_1, twice)
    assert len(result.dropped) == 1


@pytest.mark.parametrize("link", ["XXX", f"{PULL}XXX", f"{PULL}77"])
@pytest.mark.parametrize("pr", [77, None])
def test_the_same_fields_as_mains_new_entry_under_the_prs_own_link_are_the_prs_entry(
    link: str, pr: int | None
) -> None:
    # Two PRs may append the same description for the same keys (a re-sweep, a follow-up):
    # only the link tells them apart, so the PR's entry is kept, never refused or dropped.
    own = entry("main-x", "Main's new entry", link)
    main = ledger(BASE, MAIN_1)
    result = resolve(BASE, ledger(BASE, own), main, config=CFG, pr=pr, path="p")
    assert result.data == ledger(
        main, entry("main-x", "Main's new entry", PULL + "77") if pr else own
    )
    assert result.dropped == ()
    assert [a.entry for a in result.appended] == [5]


def test_nothing_remains_when_every_pr_entry_is_already_on_main() -> None:
    with pytest.raises(Refusal) as caught:
        resolve(BASE, ledger(BASE, canon(MAIN_1)), ledger(BASE, MAIN_1), config=CFG, path="p")
    assert caught.value.code == dx.NOTHING_REMAINS
    assert caught.value.diagnostics[0].line == 19
    assert "PR entries 4 (as main's 4)" in caught.value.message


def test_a_pr_side_equal_to_the_merge_base_leaves_nothing_of_the_pr() -> None:
    with pytest.raises(Refusal) as caught:
        resolve(BASE, BASE, ledger(BASE, MAIN_1), config=CFG, path="p")
    assert caught.value.code == dx.NOTHING_REMAINS


def test_main_unchanged_since_the_merge_base_gives_the_prs_own_file() -> None:
    pr_side = ledger(BASE, PR_1, PR_2)
    result = resolve(BASE, pr_side, BASE, config=CFG, pr=3, path="p")
    assert result.data == canon(pr_side, 3)
    assert result.main_appended == 0


def test_add_add_without_a_merge_base_keeps_main_and_appends_what_only_the_pr_has() -> None:
    main = ledger(A, B, MAIN_1)
    result = resolve(None, ledger(A, B, PR_1), main, config=CFG, path="p")
    assert result.data == ledger(A, B, MAIN_1, PR_1)
    assert [d.pr_entry for d in result.dropped] == [1, 2]


def test_a_rebase_step_whose_main_side_already_holds_earlier_pr_commits_resolves() -> None:
    # Replaying the PR's second commit: %O is its first commit, %A is main plus that commit.
    first_commit = ledger(BASE, PR_1)
    upstream = ledger(BASE, MAIN_1, PR_1)
    second_commit = ledger(BASE, PR_1, PR_2)
    result = resolve(first_commit, second_commit, upstream, config=CFG, path="p")
    assert result.data == ledger(BASE, MAIN_1, PR_1, PR_2)
    assert result.main_appended == 1


def test_main_that_corrected_a_link_since_the_merge_base_still_gets_the_pr_appended() -> None:
    base = ledger(A, entry("beta-x", "Second", "XXX"), C)
    main = ledger(A, B, C, MAIN_1)  # main fixed entry 2's link, then appended
    result = resolve(base, ledger(base, PR_1), main, config=CFG, pr=8, path="p")
    assert result.data == ledger(main, canon(PR_1, 8))
    assert result.main_appended == 1


def test_a_pr_entry_linking_another_pr_is_refused_when_canonicalizing() -> None:
    with pytest.raises(Refusal) as caught:
        resolve(
            BASE, ledger(BASE, canon(PR_1, 5)), ledger(BASE, MAIN_1), config=CFG, pr=6, path="p"
        )
    assert caught.value.diagnostics[1].code == dx.UNEXPECTED_LINK
    assert caught.value.diagnostics[1].path == "p (PR side)"


def test_a_whitespace_only_line_a_pr_entry_carries_is_kept_and_only_warns() -> None:
    pr_side = BASE + b"\n" + PR_1 + b"  \n\n" + PR_2
    block = parse_ledger(pr_side, path="p").blocks[3]
    assert carried(pr_side, block) == b"  \n"
    assert join_after(BASE, [PR_1 + b"  \n", PR_2]) == pr_side
    main_side = ledger(BASE, MAIN_1)
    result = resolve(BASE, pr_side, main_side, config=CFG, path="p")
    # The PR's bytes are the PR's: not silently normalized; `check` warns about the line (the
    # empty line after it is the separator).
    assert result.data == main_side + b"\n" + PR_1 + b"  \n\n" + PR_2
    warned = check_change(base=main_side, head=result.data, config=CFG, mode="local")
    assert [(d.code, d.severity.value) for d in warned.report.diagnostics] == [
        (dx.WHITESPACE_ONLY_LINE, "warning")
    ]


# -- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pr_side", "line"),
    [
        (ledger(A, B.replace(b"Second", b"Rewritten"), C, PR_1), 10),  # edited an entry
        (ledger(A, C, PR_1), 7),  # deleted an entry
        (ledger(A, B, C).replace(b'"First"\n', b'"First"  \n') + b"\n" + PR_1, 4),  # whitespace
    ],
    ids=["edited", "deleted", "reformatted"],
)
def test_a_pr_side_that_rewrote_history_is_refused(pr_side: bytes, line: int) -> None:
    with pytest.raises(Refusal) as caught:
        resolve(BASE, pr_side, ledger(BASE, MAIN_1), config=CFG, path="p")
    assert caught.value.code == dx.PR_REWROTE_HISTORY
    assert caught.value.diagnostics[0].path == "p (PR side)"
    assert caught.value.diagnostics[0].line == line


def test_a_pr_mixing_a_correction_with_new_entries_is_refused() -> None:
    pr_side = ledger(A, B.replace(PULL.encode() + b"2", PULL.encode() + b"20"), C, PR_1)
    with pytest.raises(Refusal) as caught:
        resolve(BASE, pr_side, ledger(BASE, MAIN_1), config=CFG, path="p")
    assert caught.value.code == dx.PR_REWROTE_HISTORY
    assert dx.MIXED_CORRECTION_APPEND in {d.code for d in caught.value.diagnostics}


def test_an_invalid_pr_entry_is_refused_with_its_pr_side_line() -> None:
    bad = PR_1.replace(b"  description:", b"  descripton:")
    with pytest.raises(Refusal) as caught:
        resolve(BASE, ledger(BASE, bad), ledger(BASE, MAIN_1), config=CFG, path="p")
    assert caught.value.code == dx.PR_SIDE_INVALID
    assert [(d.code, d.line) for d in caught.value.diagnostics[1:]] == [
        (dx.MISSING_FIELD, 19),
        (dx.UNKNOWN_FIELD, 21),
    ]


def test_main_without_a_final_newline_is_refused() -> None:
    main = ledger(BASE, MAIN_1).rstrip(b"\n")
    with pytest.raises(Refusal) as caught:
        resolve(BASE, ledger(BASE, PR_1), main, config=CFG, path="p")
    assert caught.value.code == dx.MAIN_SIDE_INVALID
    assert "does not end with a newline" in caught.value.message


def test_main_whose_new_entries_do_not_parse_is_refused() -> None:
    main = ledger(BASE, b"- config-keys: [unclosed\n")
    with pytest.raises(Refusal) as caught:
        resolve(BASE, ledger(BASE, PR_1), main, config=CFG, path="p")
    assert caught.value.code == dx.MAIN_SIDE_INVALID


# -- pr-link corrections ------------------------------------------------------------------------

WRONG = "https://github.com/NVIDIA/InferenceMAX/pull/2"
CBASE = ledger(A, entry("beta-x", "Second", WRONG), C)
CFIX = ledger(A, B, C)  # the PR corrects entry 2's link (line 11)


def test_a_correction_is_replayed_onto_mains_bytes_changing_only_that_line() -> None:
    main = ledger(CBASE, MAIN_1)
    result = resolve(CBASE, CFIX, main, config=CFG, path="p")
    assert result.data == ledger(CFIX, MAIN_1)
    assert result.kind == "corrected"
    assert [c.as_json() for c in result.corrections] == [
        {"entry": 2, "line": 11, "old": WRONG, "new": PULL + "2", "already-on-main": False}
    ]


def test_a_correction_main_already_has_leaves_nothing_of_the_pr() -> None:
    with pytest.raises(Refusal) as caught:
        resolve(CBASE, CFIX, ledger(CFIX, MAIN_1), config=CFG, path="p")
    assert caught.value.code == dx.NOTHING_REMAINS
    assert "already on main" in caught.value.message


def test_main_changing_the_same_link_differently_stops_with_the_entry_number() -> None:
    main = ledger(A, entry("beta-x", "Second", PULL + "200"), C, MAIN_1)
    with pytest.raises(Refusal) as caught:
        resolve(CBASE, CFIX, main, config=CFG, path="p")
    assert caught.value.code == dx.CORRECTION_CONFLICT
    assert caught.value.message == (
        f"p (main side):11: entry 2: main changed its pr-link to '{PULL}200' since the "
        f"merge-base; the PR changes it from '{WRONG}' to '{PULL}2'"
    )


def test_main_changing_the_corrected_entry_itself_stops_with_the_entry_number() -> None:
    main = ledger(A, entry("beta-x", "Second, edited on main", WRONG), C)
    with pytest.raises(Refusal) as caught:
        resolve(CBASE, CFIX, main, config=CFG, path="p")
    assert caught.value.code == dx.CORRECTION_CONFLICT
    assert "entry 2: the PR corrects its pr-link, but main changed" in caught.value.message


def test_a_correction_that_is_not_canonical_fails_the_check_of_the_result() -> None:
    pr_side = ledger(A, entry("beta-x", "Second", "https://example.com/2"), C)
    with pytest.raises(Refusal) as caught:
        resolve(CBASE, pr_side, ledger(CBASE, MAIN_1), config=CFG, path="p")
    assert caught.value.code == dx.RESULT_INVALID
    assert [d.code for d in caught.value.diagnostics[1:]] == [dx.BAD_CORRECTION]


# -- properties ---------------------------------------------------------------------------------

keys = st.from_regex(r"[a-z][a-z0-9]{0,5}-x", fullmatch=True)
texts = st.sampled_from(["Tune", "Bump image", "Re-run", "Add TP8", "Fix eval"])
contents = st.tuples(keys, texts)
separators = st.sampled_from([b"\n", b"\n", b"\n", b"  \n", b"  \n\n"])


Item = tuple[str, str, str]  # key, description, link


@st.composite
def scenario(draw: st.DrawFn) -> tuple[bytes, bytes, bytes, list[Item], list[Item | int]]:
    """Two branches appending to one history: main's new entries and the PR's.

    The PR's items are fresh entries, entries that read like main's new ones or like old
    history under the PR's own link (placeholder or pull/77: a re-sweep, a recovery), and (an
    ``int``) a cherry-pick of main's new entry of that index, link and all.
    """
    history = draw(st.lists(contents, min_size=1, max_size=4))
    main_new = [
        (k, t, PULL + str(100 + i)) for i, (k, t) in enumerate(draw(st.lists(contents, max_size=3)))
    ]
    own = st.sampled_from(["XXX", f"{PULL}XXX", PULL + "77"])
    lookalike = st.one_of(
        contents, st.sampled_from(history), *([st.sampled_from(main_new)] if main_new else [])
    )
    pr_new: list[Item | int] = [
        (item[0], item[1], draw(own)) for item in draw(st.lists(lookalike, min_size=1, max_size=4))
    ]
    if main_new:
        for index in draw(st.sets(st.integers(0, len(main_new) - 1), max_size=2)):
            pr_new.insert(draw(st.integers(0, len(pr_new))), index)
    base = b"\n".join(entry(k, t, PULL + str(i + 1)) for i, (k, t) in enumerate(history))
    # Main's own bytes may be irregular: whitespace-only separators and a last line of spaces.
    main = base
    for i, (k, t, link) in enumerate(main_new):
        main += (b"\n" if not main.endswith(b"  \n") else b"") + entry(k, t, link)
        if i < len(main_new) - 1:
            main += draw(separators)[:-1]
    if main_new and draw(st.booleans()):
        main += b"  \n"
    pr_side = base + b"".join(
        b"\n" + entry(*(main_new[item] if isinstance(item, int) else item)) for item in pr_new
    )
    return base, main, pr_side, main_new, pr_new


@settings(max_examples=80, deadline=None)
@given(scenario())
def test_resolution_keeps_every_entry_of_both_sides_in_order_after_mains_bytes(
    case: tuple[bytes, bytes, bytes, list[Item], list[Item | int]],
) -> None:
    base, main, pr_side, _main_new, pr_new = case
    # Only a cherry-pick of main's entry (same link) is already on main; every other PR entry,
    # however alike its fields, is kept, in the PR's order, with its link canonicalized.
    kept = [(k, t) for item in pr_new if not isinstance(item, int) for k, t, _ in [item]]
    if not kept:
        with pytest.raises(Refusal) as caught:
            resolve(base, pr_side, main, config=CFG, pr=77, path="p")
        assert caught.value.code == dx.NOTHING_REMAINS
        return
    result = resolve(base, pr_side, main, config=CFG, pr=77, path="p")
    # Main's bytes exactly, then one empty line (a whitespace-only line main ends with is main's
    # byte, not a separator), then the PR's entries one empty line apart.
    expected = main + b"\n" + b"\n".join(entry(k, t, PULL + "77") for k, t in kept)
    assert result.data.startswith(main)
    assert result.data == expected
    assert len(result.dropped) == sum(isinstance(item, int) for item in pr_new)
    assert errors_of(main, result.data, "main") == []
    again = resolve(base, result.data, main, config=CFG, pr=77, path="p")
    assert again.data == result.data
    assert resolve(main, result.data, main, config=CFG, pr=77, path="p").data == result.data


# -- the command (file mode) --------------------------------------------------------------------


@pytest.fixture
def sides(tmp_path: Path) -> Path:
    (tmp_path / ".changelog-tools.yaml").write_text(f"repository: {REPO}\n")
    (tmp_path / "base.yaml").write_bytes(BASE)
    (tmp_path / "pr.yaml").write_bytes(ledger(BASE, PR_1))
    (tmp_path / "main.yaml").write_bytes(ledger(BASE, MAIN_1))
    return tmp_path


FILES = ("--base-file", "base.yaml", "--pr-file", "pr.yaml", "--main-file", "main.yaml")


def test_cli_file_mode_writes_stdout_and_reports_on_stderr(sides: Path) -> None:
    proc = run_cli("resolve", *FILES, "--pr", "77", "-o", "-", cwd=sides)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ledger(BASE, MAIN_1, canon(PR_1)).decode()
    assert proc.stderr.splitlines() == [
        "perf-changelog.yaml: kept main's 4 entries byte for byte (1 appended on main since the "
        "merge-base)",
        "perf-changelog.yaml: appended the PR's entry as entry 5 (line 25)",
        f"perf-changelog.yaml: entry 5: pr-link 'XXX' -> {PULL}77",
        "perf-changelog.yaml: the result passes `check` in main mode against main's side",
        "resolve: wrote stdout",
    ]


def test_cli_file_mode_json_account_and_output_file(sides: Path) -> None:
    proc = run_cli("resolve", *FILES, "-o", "out.yaml", "--format", "json", cwd=sides)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["ok"] is True and doc["written"] == "out.yaml"
    assert doc["resolution"]["appended"] == [
        {"entry": 5, "line": 25, "pr-line": 19, "pr-link": "XXX"}
    ]
    assert (sides / "out.yaml").read_bytes() == ledger(BASE, MAIN_1, PR_1)


def test_cli_refusal_writes_nothing_and_exits_1(sides: Path) -> None:
    (sides / "out.yaml").write_bytes(b"untouched\n")
    (sides / "pr.yaml").write_bytes(ledger(A, C, PR_1))
    proc = run_cli("resolve", *FILES, "-o", "out.yaml", cwd=sides)
    assert proc.returncode == 1
    assert "perf-changelog.yaml (PR side):7:1: CL510 the PR side changed the history" in proc.stdout
    assert (
        "perf-changelog.yaml (PR side):7:1: CL101 existing entry 2 (beta-x) was deleted"
        in proc.stdout
    )
    assert (sides / "out.yaml").read_bytes() == b"untouched\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--base-file", "base.yaml", "-o", "-"), "needs all of --base-file, --pr-file"),
        (FILES, "file mode needs --output"),
        ((*FILES, "-o", "-", "--pr-side", "ours"), "apply to index mode only"),
        ((*FILES, "-o", "-", "--format", "json"), "both want stdout"),
    ],
)
def test_cli_usage_errors_exit_2(sides: Path, args: tuple[str, ...], message: str) -> None:
    proc = run_cli("resolve", *args, cwd=sides)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_near_miss_placeholders_are_refused_unless_fixing_is_asked_for() -> None:
    near = entry("pr-x", "The PR's entry", "TBD")
    pr_side, main = ledger(BASE, near), ledger(BASE, MAIN_1)
    with pytest.raises(Refusal) as caught:
        resolve(BASE, pr_side, main, config=CFG, pr=5, path="p")
    assert [(d.code, d.line) for d in caught.value.diagnostics[1:]] == [
        (dx.NEAR_MISS_PLACEHOLDER, 23)
    ]
    result = resolve(BASE, pr_side, main, config=CFG, pr=5, path="p", fix_near_misses=True)
    assert result.data == ledger(main, canon(PR_1, 5))
    assert [w.code for w in result.warnings] == [dx.NEAR_MISS_FIXED]
