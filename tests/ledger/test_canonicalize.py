"""`canonicalize`: placeholder pr-links of appended entries become this PR's canonical link."""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config, defaults
from changelog_tools.ledger.canonicalize import canonicalize, unified_diff
from changelog_tools.ledger.guard import Refusal, verify
from tests import checkdata as cd
from tests.checkdata import BASE, KEY, LINK_LINE, no_crash, project
from tests.conftest import commit_files, git, run_cli

REPO = "example-org/bench"
PULL = f"https://github.com/{REPO}/pull/"


def entry(key: str, text: str, link: str, *, raw_link: str | None = None) -> bytes:
    """One entry; ``raw_link`` is written verbatim after `pr-link:` when given."""
    value = raw_link if raw_link is not None else link
    return (
        f'- config-keys:\n    - {key}\n  description:\n    - "{text}"\n  pr-link: {value}\n'
    ).encode()


# Lines 1-5 entry 1 (a placeholder that reached main long ago), 6 blank, 7-11 entry 2.
HISTORY = (
    entry("alpha-fp8-gpu-a-vllm", "Old placeholder", "XXX")
    + b"\n"
    + entry("beta-fp4-gpu-b-sglang", "Second", PULL + "2")
)
# An entry appended after HISTORY starts on line 13; its pr-link is on line 17.


def config(repository: str = REPO) -> Config:
    return dataclasses.replace(defaults(Path.cwd()), repository=repository)


def appended(*entries: bytes) -> bytes:
    return HISTORY + b"".join(b"\n" + e for e in entries)


def test_only_the_appended_placeholder_is_replaced_and_history_keeps_its_xxx() -> None:
    head = appended(entry("gamma-bf16-gpu-c-trt", "New", "XXX"))
    result = canonicalize(HISTORY, head, pr=42, config=config(), path="p.yaml")
    assert result.changed
    assert result.data == appended(entry("gamma-bf16-gpu-c-trt", "New", PULL + "42"))
    assert result.data.startswith(HISTORY)
    assert [(s.entry, s.line, s.old, s.new) for s in result.substitutions] == [
        (3, 17, "XXX", PULL + "42")
    ]


def test_both_placeholder_spellings_and_quoted_values_are_replaced_keeping_comments() -> None:
    head = appended(
        entry("a-x", "One", "", raw_link=f"{PULL}XXX"),
        entry("b-x", "Two", "", raw_link='"XXX"'),
        entry("c-x", "Three", "", raw_link="XXX  # filled in at merge time"),
    )
    result = canonicalize(HISTORY, head, pr=7, config=config(), path="p.yaml")
    assert result.data == appended(
        entry("a-x", "One", PULL + "7"),
        entry("b-x", "Two", "", raw_link=f'"{PULL}7"'),  # the quotes stay
        entry("c-x", "Three", "", raw_link=f"{PULL}7  # filled in at merge time"),
    )
    assert [s.entry for s in result.substitutions] == [3, 4, 5]


def test_a_second_run_changes_nothing_and_says_so() -> None:
    head = appended(entry("gamma-x", "New", "XXX"))
    first = canonicalize(HISTORY, head, pr=42, config=config(), path="p.yaml")
    second = canonicalize(HISTORY, first.data, pr=42, config=config(), path="p.yaml")
    assert not second.changed
    assert second.data == first.data
    assert second.substitutions == ()
    assert second.appended == 1


def test_a_link_to_another_pull_request_is_refused_with_its_line() -> None:
    head = appended(entry("gamma-x", "New", "XXX"), entry("delta-x", "Other", PULL + "9"))
    with pytest.raises(Refusal) as caught:
        canonicalize(HISTORY, head, pr=42, config=config(), path="p.yaml")
    codes = [(d.code, d.line) for d in caught.value.diagnostics]
    assert codes == [(dx.UNEXPECTED_LINK, 23), (dx.UNEXPECTED_LINK, 23)]
    assert "pull request #9, not #42" in caught.value.diagnostics[1].message


def test_a_link_that_is_not_a_pull_request_link_is_refused() -> None:
    head = appended(entry("gamma-x", "New", "https://example.com/whatever"))
    with pytest.raises(Refusal) as caught:
        canonicalize(HISTORY, head, pr=42, config=config(), path="p.yaml")
    assert caught.value.diagnostics[1].code == dx.UNEXPECTED_LINK
    assert "neither a placeholder nor a link to pull request #42" in (
        caught.value.diagnostics[1].message
    )


@pytest.mark.parametrize(
    "near", ["TBD", "xxxx", f"{PULL}", f"{PULL}TBD", "http://github.com/example-org/bench/pull/42"]
)
def test_near_miss_placeholders_are_refused_without_the_flag(near: str) -> None:
    head = appended(entry("gamma-x", "New", near))
    with pytest.raises(Refusal) as caught:
        canonicalize(HISTORY, head, pr=42, config=config(), path="p.yaml")
    detail = caught.value.diagnostics[1]
    assert (detail.code, detail.line) == (dx.NEAR_MISS_PLACEHOLDER, 17)
    assert "--fix-near-misses" in (detail.hint or "")


@pytest.mark.parametrize(
    "near", ["TBD", "xxxx", f"{PULL}", "https://github.com/someone/else/pull/3"]
)
def test_near_misses_are_canonicalized_and_reported_with_the_flag(near: str) -> None:
    head = appended(entry("gamma-x", "New", near))
    result = canonicalize(
        HISTORY, head, pr=42, config=config(), path="p.yaml", fix_near_misses=True
    )
    assert result.data == appended(entry("gamma-x", "New", PULL + "42"))
    assert [(w.code, w.severity, w.line) for w in result.warnings] == [
        (dx.NEAR_MISS_FIXED, dx.Severity.WARNING, 17)
    ]
    assert result.substitutions[0].near_miss


def test_a_near_miss_naming_another_pr_number_is_not_rewritten_even_with_the_flag() -> None:
    head = appended(entry("gamma-x", "New", f"{PULL}9/changes"))
    with pytest.raises(Refusal) as caught:
        canonicalize(HISTORY, head, pr=42, config=config(), path="p.yaml", fix_near_misses=True)
    assert caught.value.diagnostics[1].code == dx.UNEXPECTED_LINK


def test_an_empty_pr_link_gets_a_space_and_the_link_with_the_flag() -> None:
    head = appended(entry("gamma-x", "New", "", raw_link="").replace(b"pr-link: \n", b"pr-link:\n"))
    result = canonicalize(HISTORY, head, pr=5, config=config(), path="p.yaml", fix_near_misses=True)
    assert result.data == appended(entry("gamma-x", "New", PULL + "5"))


def test_a_pr_link_written_as_a_block_scalar_is_refused_rather_than_half_replaced() -> None:
    head = appended(entry("gamma-x", "New", "", raw_link=">-\n    XXX"))
    with pytest.raises(Refusal) as caught:
        canonicalize(HISTORY, head, pr=5, config=config(), path="p.yaml")
    assert caught.value.diagnostics[1].code == dx.LINK_LINE


def test_the_repository_comes_from_configuration_for_both_writing_and_validating() -> None:
    other = config(repository="acme/widgets")
    head = appended(entry("gamma-x", "New", "https://github.com/acme/widgets/pull/XXX"))
    result = canonicalize(HISTORY, head, pr=3, config=other, path="p.yaml")
    assert result.data.endswith(b"  pr-link: https://github.com/acme/widgets/pull/3\n")
    # The reference tool validated against a hard-coded repository; here the check agrees.
    assert not [
        d
        for d in verify(HISTORY, result.data, config=other, mode="main", path="p", base_label="b")
        if d.severity is dx.Severity.ERROR
    ]


def test_a_change_that_edits_history_is_not_canonicalized() -> None:
    head = HISTORY.replace(b"Second", b"Changed") + b"\n" + entry("gamma-x", "New", "XXX")
    with pytest.raises(Refusal) as caught:
        canonicalize(HISTORY, head, pr=5, config=config(), path="p.yaml")
    assert caught.value.code == dx.NOT_AN_APPEND
    assert {d.code for d in caught.value.diagnostics[1:]} == {dx.ENTRY_CHANGED}


def test_nothing_appended_means_nothing_to_do() -> None:
    result = canonicalize(HISTORY, HISTORY, pr=5, config=config(), path="p.yaml")
    assert (result.changed, result.appended, result.data) == (False, 0, HISTORY)


def test_the_unified_diff_matches_difflib_on_a_change_inside_lines() -> None:
    before = appended(*(entry(f"k{i}-x", "New", "XXX") for i in range(6)))
    after = before.replace(b"pr-link: XXX", b"pr-link: " + (PULL + "8").encode())
    expected = "".join(
        difflib.unified_diff(
            before.decode().splitlines(True), after.decode().splitlines(True), "a/f", "b/f"
        )
    )
    assert unified_diff(before, after, "f") == expected


# -- hypothesis -----------------------------------------------------------------------------

keys = st.from_regex(r"[a-z][a-z0-9-]{0,8}-x", fullmatch=True)
texts = st.text(alphabet="abc XYZ,.:-", max_size=12).map(lambda s: s.strip() or "t")
# Every quoting style of both placeholder spellings (and of this PR's own link).
links = st.tuples(
    st.sampled_from(["XXX", f"{PULL}XXX", f"{PULL}77"]), st.sampled_from(["", '"', "'"])
).map(lambda v: f"{v[1]}{v[0]}{v[1]}")
new_entries = st.lists(st.tuples(keys, texts, links), min_size=1, max_size=4)
history_entries = st.lists(
    st.tuples(keys, texts, st.sampled_from(["XXX", f"{PULL}1", f"{PULL}2"])), min_size=1, max_size=4
)


@settings(max_examples=80, deadline=None)
@given(history_entries, new_entries)
def test_canonicalize_never_changes_a_byte_outside_pr_link_lines_of_appended_entries(
    old: list[tuple[str, str, str]], new: list[tuple[str, str, str]]
) -> None:
    base = b"\n".join(entry(k, t, "", raw_link=link) for k, t, link in old)
    head = base + b"".join(b"\n" + entry(k, t, "", raw_link=link) for k, t, link in new)
    result = canonicalize(base, head, pr=77, config=config(), path="p.yaml")
    assert result.data.startswith(base)
    before_lines = head.splitlines(keepends=True)
    after_lines = result.data.splitlines(keepends=True)
    assert len(before_lines) == len(after_lines)
    first_new = base.count(b"\n")
    for i, (a, b) in enumerate(zip(before_lines, after_lines, strict=True)):
        if a != b:
            assert i >= first_new
            # Only the value changes, in the quoting style it was written in.
            quote = a[len(b"  pr-link: ") : len(b"  pr-link: ") + 1].decode()
            quote = quote if quote in ("'", '"') else ""
            assert (
                a.startswith(b"  pr-link: ")
                and b == f"  pr-link: {quote}{PULL}77{quote}\n".encode()
            )
    # Every appended link is now this PR's; again is a no-op; the result passes main mode.
    own = [f"pr-link: {q}{PULL}77{q}\n".encode() for q in ("", '"', "'")]
    assert sum(result.data.count(o) - base.count(o) for o in own) == len(new)
    assert not canonicalize(base, result.data, pr=77, config=config(), path="p.yaml").changed
    errors = [
        d
        for d in verify(base, result.data, config=config(), mode="main", path="p", base_label="b")
        if d.severity is dx.Severity.ERROR
    ]
    assert errors == []


# -- the command ------------------------------------------------------------------------------


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / ".changelog-tools.yaml").write_text(f"repository: {REPO}\n")
    (tmp_path / "base.yaml").write_bytes(HISTORY)
    return tmp_path


def test_cli_writes_the_link_and_prints_each_substitution(workdir: Path) -> None:
    (workdir / "perf-changelog.yaml").write_bytes(appended(entry("g-x", "New", "XXX")))
    proc = run_cli("canonicalize", "--pr", "42", "--base-file", "base.yaml", cwd=workdir)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        f"perf-changelog.yaml:17: entry 3: pr-link 'XXX' -> {PULL}42\ncanonicalize: OK\n"
    )
    assert proc.stderr == "perf-changelog.yaml: replaced 1 pr-link (written atomically)\n"
    assert (workdir / "perf-changelog.yaml").read_bytes() == appended(
        entry("g-x", "New", PULL + "42")
    )
    again = run_cli("canonicalize", "--pr", "42", "--base-file", "base.yaml", cwd=workdir)
    assert again.returncode == 0
    assert again.stderr == (
        "perf-changelog.yaml: nothing to canonicalize (all 1 appended entry links to #42 already)\n"
    )


def test_cli_check_prints_the_diff_writes_nothing_and_exits_1(workdir: Path) -> None:
    head = appended(entry("g-x", "New", "XXX"))
    (workdir / "perf-changelog.yaml").write_bytes(head)
    proc = run_cli("canonicalize", "--pr", "42", "--base-file", "base.yaml", "--check", cwd=workdir)
    assert proc.returncode == 1
    assert proc.stdout == (
        "--- a/perf-changelog.yaml\n+++ b/perf-changelog.yaml\n@@ -14,4 +14,4 @@\n"
        '     - g-x\n   description:\n     - "New"\n-  pr-link: XXX\n'
        f"+  pr-link: {PULL}42\n"
    )
    assert (workdir / "perf-changelog.yaml").read_bytes() == head


def test_cli_refusal_names_entry_and_line_and_leaves_the_file_untouched(workdir: Path) -> None:
    head = appended(entry("g-x", "New", "TBD"))
    (workdir / "perf-changelog.yaml").write_bytes(head)
    proc = run_cli("canonicalize", "--pr", "42", "--base-file", "base.yaml", cwd=workdir)
    assert proc.returncode == 1
    assert (
        "perf-changelog.yaml:17:1: CL502 entry 3: pr-link 'TBD' is not an accepted " in proc.stdout
    )
    assert (workdir / "perf-changelog.yaml").read_bytes() == head
    fixed = run_cli(
        "canonicalize", "--pr", "42", "--base-file", "base.yaml", "--fix-near-misses",
        "--format", "json", cwd=workdir,
    )  # fmt: skip
    assert fixed.returncode == 0
    doc = json.loads(fixed.stdout)
    assert [d["code"] for d in doc["diagnostics"]] == ["CL503"]
    assert doc["substitutions"][0]["old"] == "TBD"
    assert doc["written"] is True


def test_cli_repo_option_overrides_the_configured_repository(workdir: Path) -> None:
    (workdir / "perf-changelog.yaml").write_bytes(appended(entry("g-x", "New", "XXX")))
    proc = run_cli(
        "canonicalize", "--pr", "3", "--repo", "acme/widgets", "--base-file", "base.yaml",
        cwd=workdir,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        (workdir / "perf-changelog.yaml")
        .read_bytes()
        .endswith(b"pr-link: https://github.com/acme/widgets/pull/3\n")
    )
    bad = run_cli("canonicalize", "--pr", "3", "--repo", "not a repo", cwd=workdir)
    assert bad.returncode == 2
    assert "--repo must be OWNER/NAME" in bad.stderr


def test_cli_git_mode_uses_the_merge_base_with_main_as_the_base(make_repo, tmp_path: Path) -> None:
    repo = make_repo(
        "r", {"perf-changelog.yaml": HISTORY, ".changelog-tools.yaml": f"repository: {REPO}\n"}
    )
    git(repo, "checkout", "-q", "-b", "pr")
    commit_files(repo, {"perf-changelog.yaml": appended(entry("g-x", "New", "XXX"))}, "pr")
    git(repo, "checkout", "-q", "main")
    # main moves on: an entry the branch does not have must not count as "appended" by it.
    commit_files(repo, {"perf-changelog.yaml": appended(entry("m-x", "Main", PULL + "5"))}, "main")
    git(repo, "checkout", "-q", "pr")
    proc = run_cli("canonicalize", "--pr", "8", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "perf-changelog.yaml").read_bytes() == appended(entry("g-x", "New", PULL + "8"))
    explicit = run_cli("canonicalize", "--pr", "8", "--base-ref", "main~1", "--check", cwd=repo)
    assert explicit.returncode == 0
    assert "nothing to canonicalize" in explicit.stderr


def test_the_unified_diff_of_added_lines_is_a_valid_patch_with_correct_ranges() -> None:
    before = b"a\nb\nc\nd\ne\nf\ng\nh\n"
    after = b"a\nb\nc\nd\nX\ne\nf\ng\nh\n"
    assert unified_diff(before, after, "f") == (
        "--- a/f\n+++ b/f\n@@ -2,6 +2,7 @@\n b\n c\n d\n+X\n e\n f\n g\n"
    )
    assert unified_diff(before, before, "f") == ""


# -- hostile input, pinned through the installed CLI -------------------------------------------


def test_canonicalize_and_resolve_refuse_a_unicode_digit_link_instead_of_exit_70(
    tmp_path: Path,
) -> None:
    project(tmp_path, cd.appended(cd.entry(KEY, link=f"{PULL}²")))
    (tmp_path / "perf-changelog.yaml").write_bytes(cd.appended(cd.entry(KEY, link=f"{PULL}²")))
    proc = run_cli(
        "canonicalize", "--pr", "5", "--base-file", "base.yaml", "perf-changelog.yaml",
        cwd=tmp_path,
    )  # fmt: skip
    no_crash(proc)
    assert proc.returncode == 1
    assert f"perf-changelog.yaml:{LINK_LINE}:" in proc.stdout + proc.stderr
    assert (tmp_path / "perf-changelog.yaml").read_bytes() == cd.appended(
        cd.entry(KEY, link=f"{PULL}²")
    )
    (tmp_path / "main.yaml").write_bytes(
        cd.appended(cd.entry("beta-fp4-gpu-b-trt", link=f"{PULL}7"))
    )
    proc = run_cli(
        "resolve", "--base-file", "base.yaml", "--pr-file", "head.yaml", "--main-file",
        "main.yaml", "--pr", "5", "-o", "out.yaml", cwd=tmp_path,
    )  # fmt: skip
    no_crash(proc)
    assert proc.returncode == 1
    assert not (tmp_path / "out.yaml").exists()


@pytest.mark.parametrize("quote", ['"', "'"])
def test_canonicalize_keeps_the_quotes_around_a_placeholder(tmp_path: Path, quote: str) -> None:
    head = cd.appended(cd.entry(KEY, link=f"{quote}XXX{quote}  # filled at merge"))
    project(tmp_path, head)
    (tmp_path / "perf-changelog.yaml").write_bytes(head)
    proc = run_cli(
        "canonicalize", "--pr", "5", "--base-file", "base.yaml", "perf-changelog.yaml",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "perf-changelog.yaml").read_bytes() == cd.appended(
        cd.entry(KEY, link=f"{quote}{PULL}5{quote}  # filled at merge")
    )


# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def _canon_entry(link_line: str) -> bytes:
    return f'- config-keys:\n    - {KEY}\n  description:\n    - "New"\n{link_line}\n'.encode()


def test_a_near_miss_with_a_hash_inside_the_url_is_fixed_keeping_the_comment() -> None:
    from changelog_tools.ledger.canonicalize import canonicalize
    from tests.checkdata import config

    head = cd.appended(_canon_entry(f"  pr-link: {PULL}XXX#frag  # mine"))
    result = canonicalize(BASE, head, pr=42, config=config(), fix_near_misses=True)
    assert result.data == cd.appended(_canon_entry(f"  pr-link: {PULL}42  # mine"))
    assert [(s.line, s.old) for s in result.substitutions] == [(17, f"{PULL}XXX#frag")]


def test_a_pr_link_under_a_quoted_key_is_refused_on_the_keys_line() -> None:
    from changelog_tools.ledger.canonicalize import canonicalize
    from changelog_tools.ledger.guard import Refusal
    from tests.checkdata import config

    head = cd.appended(_canon_entry('  "pr-link": XXX'))
    with pytest.raises(Refusal) as caught:
        canonicalize(BASE, head, pr=42, config=config())
    assert [(d.code, d.line) for d in caught.value.diagnostics] == [("CL504", 17), ("CL504", 17)]


_OLD_VALUE_RE = re.compile(  # the regex _value_core replaced (quadratic on long lines)
    r"""^(?P<core>"[^"\\]*"|'[^']*'|[^\s#'"](?:[^#]|(?<=\S)\#)*?|)(?P<rest>\s+#.*)?$"""
)


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet="Xa\"'# \\", max_size=10).filter(lambda t: t == t.strip(" ")))
def test_the_pr_link_value_scan_agrees_with_the_regex_it_replaced(text: str) -> None:
    # pr_link_lines never hands over leading or trailing spaces, hence the filter.
    from changelog_tools.ledger.document import _value_core

    old = _OLD_VALUE_RE.match(text)
    assert _value_core(text) == (old["core"] if old else None)
