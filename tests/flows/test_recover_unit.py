"""`recover`'s pieces on their own: run URLs, the recovery's
bytes (property-based: the default branch's bytes are kept exactly), and the git plumbing."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import config as config_mod
from changelog_tools.errors import DataError, UsageError
from changelog_tools.flows.recover import git as rg
from changelog_tools.flows.recover.base import fill as _fill
from changelog_tools.flows.recover.plan import RecoverRequest
from changelog_tools.flows.recover.scope import Scope, ScopeEntry, recovery_changelog
from changelog_tools.flows.recover.target import RunRef, parse_run_url
from changelog_tools.gitrepo import open_repo
from changelog_tools.ledger.document import parse_ledger
from tests.conftest import commit_files, git

REPO = "SemiAnalysisAI/InferenceX"
CONFIG = config_mod.defaults()


# -- run URLs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "ref"),
    [
        (f"https://github.com/{REPO}/actions/runs/123", RunRef(123)),
        (f"https://github.com/{REPO}/actions/runs/123/", RunRef(123)),
        (f"https://github.com/{REPO}/actions/runs/123/job/456", RunRef(123, 456)),
        (f"https://github.com/{REPO}/actions/runs/123/job/456?pr=9#step:3", RunRef(123, 456)),
        (f"https://github.com/{REPO.lower()}/actions/runs/7", RunRef(7)),
        (f"https://ghe.example.com/{REPO}/actions/runs/7", RunRef(7)),
        (f"  https://github.com/{REPO}/actions/runs/7\n", RunRef(7)),
    ],
)
def test_a_run_or_job_url_names_its_run(url: str, ref: RunRef) -> None:
    assert parse_run_url(url, repository=REPO) == ref


@pytest.mark.parametrize(
    "url",
    [
        "123",
        f"github.com/{REPO}/actions/runs/123",
        f"https://github.com/{REPO}/pull/123",
        f"https://github.com/{REPO}/actions/runs/123/attempts/2",
        f"https://github.com/{REPO}/actions/runs/x",
        f"ftp://github.com/{REPO}/actions/runs/1",
        f"https://github.com/{REPO}/actions/runs/{'9' * 20}",
    ],
)
def test_anything_else_is_a_usage_error_that_shows_the_shape(url: str) -> None:
    with pytest.raises(UsageError, match="not a GitHub Actions run URL") as info:
        parse_run_url(url, repository=REPO)
    assert "actions/runs/RUN_ID" in (info.value.hint or "")


def test_a_run_of_another_repository_is_refused() -> None:
    with pytest.raises(UsageError, match="is of other/repo, but the repository is"):
        parse_run_url("https://github.com/other/repo/actions/runs/1", repository=REPO)


# -- the recovery's bytes -------------------------------------------------------------------------

_TEXT = (
    st.text(
        alphabet=st.characters(
            whitelist_categories=("Lu", "Ll", "Nd"), whitelist_characters=" -_.,"
        ),
        min_size=1,
        max_size=30,
    )
    .map(str.strip)
    .filter(bool)
)
_LINKS = st.sampled_from(
    [
        "XXX",
        "'XXX'",
        '"XXX"',
        f"https://github.com/{REPO}/pull/5",
        f"'https://github.com/{REPO}/pull/5'",
    ]
)


@st.composite
def entries(draw: st.DrawFn) -> bytes:
    keys = draw(
        st.lists(
            st.from_regex(r"[a-z0-9][a-z0-9_*-]{0,20}", fullmatch=True), min_size=1, max_size=3
        )
    )
    lines = ["- config-keys:", *(f"    - {k}" for k in keys), "  description:"]
    lines += [f'    - "{d}"' for d in draw(st.lists(_TEXT, min_size=1, max_size=3))]
    if draw(st.booleans()):
        lines.append("  evals-only: true")
    lines.append(f"  pr-link: {draw(_LINKS)}")
    return ("\n".join(lines) + "\n").encode()


def scope_of(raws: list[bytes]) -> Scope:
    items = []
    for raw in raws:
        block = parse_ledger(raw, path="x", validate_entries=False).blocks[0]
        items.append(ScopeEntry(raw, block.data, 1))
    return Scope(5, "m" * 40, "b" * 40, tuple(items))


@settings(max_examples=150, deadline=None)
@given(
    history=st.sampled_from(
        [b"", b"- config-keys: [a]\n  pr-link: x\n", b"- a: 1\n\n", b"x\n\n\n"]
    ),
    raws=st.lists(entries(), min_size=1, max_size=4),
    number=st.integers(min_value=1, max_value=10**6),
)
def test_the_recovery_keeps_the_branch_bytes_and_each_entry_but_its_link(
    history: bytes, raws: list[bytes], number: int
) -> None:
    link = f"https://github.com/{REPO}/pull/{number}"
    data = recovery_changelog(history, scope_of(raws), link=link, path="x")

    assert data.startswith(history)  # the ledger's bytes, exactly
    suffix = data[len(history) :]
    added = parse_ledger(suffix, path="x", validate_entries=False).blocks
    assert len(added) == len(raws)
    for block, raw in zip(added, raws, strict=True):
        original = parse_ledger(raw, path="x", validate_entries=False).blocks[0].data
        assert block.data == {**original, "pr-link": link}
        # every line but the link's is the original's, byte for byte
        ours = suffix[block.start : block.content_end].splitlines()
        theirs = raw.splitlines()
        assert [a for a, b in zip(ours, theirs, strict=True) if a != b] == [
            next(line for line in ours if line.startswith(b"  pr-link:"))
        ] or ours == theirs
    assert data.endswith(b"\n") and not data.endswith(b"\n\n")


def test_a_link_written_on_the_next_line_becomes_one_line_and_nothing_else_moves() -> None:
    raw = b'- config-keys:\n    - a\n  description:\n    - "d"\n  pr-link: \n    XXX\n'
    data = recovery_changelog(b"", scope_of([raw]), link="https://x/pull/1", path="x")
    assert (
        data == b'- config-keys:\n    - a\n  description:\n    - "d"\n  pr-link: https://x/pull/1\n'
    )


def test_an_entry_without_a_pr_link_line_is_refused_not_guessed() -> None:
    raw = b"- config-keys:\n    - a\n  description: |\n    - d\n    PR: https://x/pull/3\n"
    with pytest.raises(DataError, match="has no pr-link line"):
        recovery_changelog(b"", scope_of([raw]), link="https://x/pull/1", path="x")


# -- git plumbing ---------------------------------------------------------------------------------


def test_the_three_commits_and_what_a_branch_holds(tmp_path: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    main = commit_files(work, {"perf-changelog.yaml": b"a\r\n", "run.sh": "echo\n"}, "base")
    (work / "perf-changelog.yaml").chmod(0o755)
    git(work, "add", "-A")
    main = commit_files(work, {}, "mode") if git(work, "status", "--porcelain") else main
    git(work, "checkout", "-q", "-b", "side")
    source = commit_files(work, {"x.txt": "x\n"}, "source")
    repo = open_repo(work)
    message = "Open the recovery of #1"

    boot = rg.bootstrap(repo, main_sha=main, message=message)
    assert rg.branch_state(repo, boot, bootstrap_message=message).kind == "bootstrap"
    assert rg.branch_state(repo, boot, bootstrap_message="other").kind == "foreign"
    rec = rg.with_file(
        repo, parent=boot, path="perf-changelog.yaml", data=b"a\r\nb\r\n", message="m"
    )
    assert repo.read_blob(rec, "perf-changelog.yaml") == b"a\r\nb\r\n"  # no filters applied
    assert (
        git(work, "ls-tree", rec, "perf-changelog.yaml").split()[0]
        == git(work, "ls-tree", main, "perf-changelog.yaml").split()[0]
    )  # the mode is kept
    assert git(work, "diff", "--name-only", boot, rec) == "perf-changelog.yaml"
    carrier = rg.carrier(repo, recovery=rec, source=source, message="c")
    state = rg.branch_state(repo, carrier, bootstrap_message=message)
    assert (state.kind, state.source, state.bootstrap, state.base) == (
        "carrier",
        source,
        boot,
        main,
    )
    assert rg.branch_state(repo, rec, bootstrap_message=message).kind == "foreign"
    assert rg.branch_state(repo, source, bootstrap_message=message).kind == "foreign"
    assert rg.branch_state(repo, None, bootstrap_message=message).kind == "absent"
    assert git(work, "status", "--porcelain") == ""  # the work tree and index were not touched


def test_without_a_git_identity_the_commits_use_the_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "w"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    main = commit_files(work, {"a": "a\n"}, "base")
    for name in (
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
    ):
        monkeypatch.delenv(name, raising=False)
    # a CI machine with no identity: git refuses to guess one from user and host names
    (tmp_path / "gitconfig").write_text("[user]\n\tuseConfigOnly = true\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = open_repo(work)
    assert repo.git_status("var", "GIT_COMMITTER_IDENT")[0] != 0
    boot = rg.bootstrap(repo, main_sha=main, message="m")
    assert git(work, "log", "-1", "--format=%an <%ae>", boot) == (
        "changelog-tools recover <changelog-tools@users.noreply.github.com>"
    )


# -- small things ---------------------------------------------------------------------------------


def test_configured_texts_fill_their_placeholders_and_keep_any_other_brace() -> None:
    assert _fill("Recover #{pr} from {run} {x} {", pr=5, run=7) == "Recover #5 from 7 {x} {"


def test_the_re_run_command_is_quoted_for_a_shell() -> None:
    url = "https://github.com/o/r/actions/runs/1?a=1&b=2"
    assert RecoverRequest(target=url, source_run=9).command() == (
        f"changelog-tools recover '{url}' --source-run 9"
    )
    assert RecoverRequest(pr=3).command() == "changelog-tools recover --pr 3"
