"""The resolver inside real git: the merge driver in merges and rebases, and the index path."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from changelog_tools import __version__
from changelog_tools import diagnostics as dx
from changelog_tools.config import defaults
from changelog_tools.ledger import driverentry, knownvalid, schema
from changelog_tools.ledger.driverinstall import driver_command
from changelog_tools.ledger.mergedriver import VERDICTS_FILE, run_merge_driver
from tests.conftest import commit_files, git, run_cli
from tests.ledger.test_resolve import (
    BASE,
    MAIN_1,
    MAIN_2,
    PR_1,
    PR_2,
    PULL,
    REPO,
    canon,
    entry,
    ledger,
)

CHANGELOG = "perf-changelog.yaml"
CONFIG = f"repository: {REPO}\n"
WRONG = "https://github.com/NVIDIA/InferenceMAX/pull/3"
# The last base entry carries a wrong link; a correction of it touches the file's last line, so
# without the driver git's text merge conflicts with main's append right after it.
CBASE = BASE.replace(f"{PULL}3".encode(), WRONG.encode())


def run_git(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def unmerged(repo: Path) -> list[str]:
    return git(repo, "diff", "--name-only", "--diff-filter=U").split()


def read(repo: Path) -> bytes:
    return (repo / CHANGELOG).read_bytes()


@pytest.fixture
def world(make_repo: Callable[..., Path]) -> Callable[..., Path]:
    """``world(base, pr_commits, main_commits, driver=True)``: a repo on branch `pr`."""

    def build(
        base: bytes,
        pr_commits: list[dict[str, bytes | str]],
        main_commits: list[dict[str, bytes | str]],
        *,
        driver: bool = True,
    ) -> Path:
        repo: Path = make_repo("repo", {CHANGELOG: base, ".changelog-tools.yaml": CONFIG})
        if driver:
            proc = run_cli("install-merge-driver", cwd=repo)
            assert proc.returncode == 0, proc.stderr
            commit_files(repo, {}, "install the changelog merge driver")
        git(repo, "checkout", "-q", "-b", "pr")
        for i, files in enumerate(pr_commits):
            commit_files(repo, files, f"pr {i}")
        git(repo, "checkout", "-q", "main")
        for i, files in enumerate(main_commits):
            commit_files(repo, files, f"main {i}")
        git(repo, "checkout", "-q", "pr")
        return repo

    return build


TWO_PR_COMMITS = [{CHANGELOG: ledger(BASE, PR_1)}, {CHANGELOG: ledger(BASE, PR_1, PR_2)}]
MAIN_COMMITS = [{CHANGELOG: ledger(BASE, MAIN_1)}, {CHANGELOG: ledger(BASE, MAIN_1, MAIN_2)}]
EXPECTED = ledger(BASE, MAIN_1, MAIN_2, PR_1, PR_2)


# -- installing ------------------------------------------------------------------------------


def test_install_writes_the_attributes_line_and_config_and_is_idempotent(make_repo) -> None:
    repo = make_repo("r", {".gitattributes": "*.png binary", CHANGELOG: BASE})
    first = run_cli("install-merge-driver", cwd=repo)
    assert first.returncode == 0, first.stderr
    assert (repo / ".gitattributes").read_text() == (
        "*.png binary\n/perf-changelog.yaml merge=perf-changelog\n"
    )
    command = git(repo, "config", "--local", "merge.perf-changelog.driver")
    python, *rest = shlex.split(command.rsplit("; exec ", 1)[1])
    # The interpreter by absolute path (it runs from whatever cwd and PATH git has).
    assert Path(python).is_absolute() and os.access(python, os.X_OK)
    assert command.startswith(f"[ -x {shlex.quote(python)} ] && [ -f ")
    assert rest == [
        "-m",
        "changelog_tools",
        "merge-driver",
        "--marker-size",
        "%L",
        "%O",
        "%A",
        "%B",
        "%P",
    ]
    assert f"exec {shlex.quote(sys.executable)} -m changelog_tools " in driver_command()
    assert git(repo, "config", "--local", "merge.perf-changelog.recursive") == "binary"
    assert "GitHub's own merges" in first.stderr and "ignore custom merge drivers" in first.stderr
    assert "(added)" in first.stdout and "git config (local): written" in first.stdout
    second = run_cli("install-merge-driver", cwd=repo)
    assert second.returncode == 0
    # nothing changed: one line, and no note repeated on every run of a setup script
    assert second.stdout == (
        "install-merge-driver: already installed for /perf-changelog.yaml merge=perf-changelog\n"
    )
    assert second.stderr == ""
    assert (repo / ".gitattributes").read_text().count("merge=perf-changelog") == 1


def test_install_global_writes_the_driver_into_the_global_config(make_repo) -> None:
    repo = make_repo("r", {CHANGELOG: BASE})
    proc = run_cli("install-merge-driver", "--global", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert git(repo, "config", "--global", "merge.perf-changelog.driver").endswith(
        " -m changelog_tools merge-driver --marker-size %L %O %A %B %P"
    )
    assert run_git(repo, "config", "--local", "merge.perf-changelog.driver").returncode == 1


# -- the driver in real merges and rebases --------------------------------------------------


def test_git_merge_of_main_resolves_the_changelog_by_itself_whatever_path_git_has(world) -> None:
    repo = world(BASE, TWO_PR_COMMITS, MAIN_COMMITS)
    # The driver is this Python by absolute path: a PATH without the venv must not matter.
    proc = run_git(repo, "merge", "--no-edit", "main", env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read(repo) == EXPECTED  # placeholders stay: the driver does not know the PR number
    assert "perf-changelog.yaml: resolved (merge: the PR is ours, main is theirs" in proc.stderr
    assert git(repo, "status", "--porcelain") == ""
    assert "Traceback" not in proc.stderr


def test_git_rebase_onto_main_resolves_every_replayed_commit(world) -> None:
    repo = world(BASE, TWO_PR_COMMITS, MAIN_COMMITS)
    proc = run_git(repo, "rebase", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read(repo) == EXPECTED
    assert proc.stderr.count("resolved (rebase: the PR is theirs, main is ours") == 2
    assert git(repo, "log", "--format=%s", "-4").splitlines() == [
        "pr 1",
        "pr 0",
        "main 1",
        "main 0",
    ]


def test_merging_a_pr_branch_into_main_keeps_main_first(world) -> None:
    repo = world(BASE, TWO_PR_COMMITS, MAIN_COMMITS)
    git(repo, "checkout", "-q", "main")
    proc = run_git(repo, "merge", "--no-edit", "pr")
    assert proc.returncode == 0, proc.stderr
    assert read(repo) == EXPECTED
    assert "the PR is theirs, main is ours (you are on main)" in proc.stderr


def test_a_changelog_the_driver_cannot_resolve_keeps_gits_usual_conflict(world) -> None:
    broken = {CHANGELOG: ledger(BASE, b"- config-keys: [unclosed\n")}
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], [broken])
    proc = run_git(repo, "merge", "--no-edit", "main")
    assert proc.returncode == 1
    assert unmerged(repo) == [CHANGELOG]
    text = read(repo).decode()
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text
    lines = [ln for ln in proc.stderr.splitlines() if "changelog-tools merge-driver" in ln]
    assert len(lines) == 1
    assert (
        "not resolved, leaving a conflict with markers in the file: perf-changelog.yaml (main side)"
        in lines[0]
    )
    assert "Traceback" not in proc.stderr
    # The index still holds the three original versions for a manual or tool resolution.
    assert len(git(repo, "ls-files", "-u", CHANGELOG).splitlines()) == 3


def test_a_non_changelog_conflict_is_left_to_git(world) -> None:
    repo = world(
        BASE,
        [{CHANGELOG: ledger(BASE, PR_1), "README": "pr\n"}],
        [{CHANGELOG: ledger(BASE, MAIN_1), "README": "main\n"}],
    )
    proc = run_git(repo, "merge", "--no-edit", "main")
    assert proc.returncode == 1
    assert unmerged(repo) == ["README"]
    assert read(repo) == ledger(BASE, MAIN_1, PR_1)
    assert (repo / "README").read_text() == "<<<<<<< HEAD\npr\n=======\nmain\n>>>>>>> main\n"


def test_merging_two_branches_neither_on_main_is_not_guessed(world) -> None:
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], [])
    git(repo, "checkout", "-q", "-b", "other", "main")
    commit_files(repo, {CHANGELOG: ledger(BASE, MAIN_1)}, "other")
    git(repo, "checkout", "-q", "pr")
    proc = run_git(repo, "merge", "--no-edit", "other")
    assert proc.returncode == 1
    assert "which side is main cannot be told" in proc.stderr
    refused = run_cli("resolve", cwd=repo)
    assert refused.returncode == 1
    assert "CL516" in refused.stdout and "--pr-side" in refused.stdout
    given = run_cli("resolve", "--pr-side", "ours", "--add", cwd=repo)
    assert given.returncode == 0, given.stdout + given.stderr
    assert read(repo) == ledger(BASE, MAIN_1, PR_1)
    assert unmerged(repo) == []


# -- the index-stage path (no driver) ---------------------------------------------------------


def test_after_a_conflicted_merge_resolve_reads_the_stages_and_canonicalizes(world) -> None:
    repo = world(BASE, TWO_PR_COMMITS, MAIN_COMMITS, driver=False)
    assert run_git(repo, "merge", "--no-edit", "main").returncode == 1
    proc = run_cli("resolve", "--pr", "77", "--add", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read(repo) == canon(EXPECTED)
    assert proc.stderr.splitlines()[0].startswith(
        "perf-changelog.yaml: merge: the PR is ours, main is theirs (theirs, commit "
    )
    assert "perf-changelog.yaml: appended the PR's entry as entry 6 (line 31)" in proc.stdout
    assert unmerged(repo) == []
    git(repo, "commit", "-q", "--no-edit")
    check = run_cli("check", "--main", "--base-ref", "main", "--no-config-keys", cwd=repo)
    assert check.returncode == 0, check.stdout


def _conflicted(world) -> tuple[Path, bytes]:
    repo = world(BASE, TWO_PR_COMMITS, MAIN_COMMITS, driver=False)
    assert run_git(repo, "merge", "--no-edit", "main").returncode == 1
    return repo, read(repo)


def test_resolve_waits_for_the_writers_lock_and_writes_nothing_while_it_is_held(
    world, monkeypatch: pytest.MonkeyPatch
) -> None:
    import functools

    from changelog_tools.errors import UsageError
    from changelog_tools.fsutil import locked
    from changelog_tools.gitrepo import open_repo
    from changelog_tools.ledger import indexconflict
    from changelog_tools.ledger.conflictrequest import ConflictRequest

    repo, conflicted = _conflicted(world)
    lock = repo / f"{CHANGELOG}.lock"
    lock.write_text(f"{os.uname().nodename} {os.getpid()}\n")  # a live writer: this process
    monkeypatch.setattr(indexconflict, "locked", functools.partial(locked, wait=0.2))
    with pytest.raises(UsageError, match="another writer holds"):
        indexconflict.resolve_conflict(
            open_repo(repo), CHANGELOG, ConflictRequest(_config(repo), pr=77)
        )
    assert read(repo) == conflicted and unmerged(repo) == [CHANGELOG]
    lock.unlink()
    indexconflict.resolve_conflict(
        open_repo(repo), CHANGELOG, ConflictRequest(_config(repo), pr=77)
    )
    assert read(repo) == canon(EXPECTED)


def test_resolve_does_not_overwrite_a_change_made_while_it_ran(
    world, monkeypatch: pytest.MonkeyPatch
) -> None:
    from changelog_tools.errors import UsageError
    from changelog_tools.gitrepo import open_repo
    from changelog_tools.ledger import indexconflict
    from changelog_tools.ledger.conflictrequest import ConflictRequest

    repo, conflicted = _conflicted(world)
    original = indexconflict.read_conflict

    def racing(*args: object, **kwargs: object) -> object:
        found = original(*args, **kwargs)  # type: ignore[arg-type]
        with (repo / CHANGELOG).open("ab") as handle:  # another writer appends meanwhile
            handle.write(b"\n- config-keys: [x]\n")
        return found

    monkeypatch.setattr(indexconflict, "read_conflict", racing)
    with pytest.raises(UsageError, match="changed while it was being resolved"):
        indexconflict.resolve_conflict(
            open_repo(repo), CHANGELOG, ConflictRequest(_config(repo), pr=77)
        )
    assert read(repo) == conflicted + b"\n- config-keys: [x]\n"  # the other writer's bytes kept
    assert not (repo / f"{CHANGELOG}.lock").exists()


def _config(repo: Path):  # type: ignore[no-untyped-def]
    from changelog_tools.config import load_config

    return load_config(start=repo)


def test_after_a_conflicted_rebase_resolve_knows_theirs_is_the_pr(world) -> None:
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], MAIN_COMMITS, driver=False)
    assert run_git(repo, "rebase", "main").returncode == 1
    proc = run_cli("resolve", "--add", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rebase: the PR is theirs, main is ours" in proc.stderr
    assert run_git(repo, "rebase", "--continue").returncode == 0
    assert read(repo) == ledger(BASE, MAIN_1, MAIN_2, PR_1)


def test_after_a_conflicted_cherry_pick_onto_main_the_picked_commit_is_the_pr(world) -> None:
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], MAIN_COMMITS)
    git(repo, "checkout", "-q", "main")
    proc = run_git(repo, "cherry-pick", "pr")
    # Inside the driver a cherry-pick leaves no trace to tell the sides apart: it refuses.
    assert proc.returncode == 1
    assert "no merge, rebase or cherry-pick that this tool recognizes" in proc.stderr
    resolved = run_cli("resolve", "--add", cwd=repo)
    assert resolved.returncode == 0, resolved.stdout + resolved.stderr
    assert "cherry-pick: the PR is theirs, main is ours (you are on main)" in resolved.stderr
    assert read(repo) == ledger(BASE, MAIN_1, MAIN_2, PR_1)


def test_resolve_refuses_when_a_side_deleted_the_file_and_writes_nothing(world) -> None:
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], [], driver=False)
    git(repo, "checkout", "-q", "main")
    git(repo, "rm", "-q", CHANGELOG)
    git(repo, "commit", "-q", "-m", "drop the changelog")
    git(repo, "checkout", "-q", "pr")
    assert run_git(repo, "merge", "--no-edit", "main").returncode == 1
    before = read(repo)
    proc = run_cli("resolve", cwd=repo)
    assert proc.returncode == 1
    assert proc.stdout == (
        "perf-changelog.yaml: CL512 index stage 3 (theirs, main) is missing: that side deleted "
        "the file; resolve this by hand\nresolve: 1 problem (1 error, 0 warnings)\n"
    )
    assert read(repo) == before


def test_resolve_without_a_conflict_says_there_is_nothing_to_resolve(world) -> None:
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], [])
    proc = run_cli("resolve", cwd=repo)
    assert proc.returncode == 1
    assert "CL512 has no merge conflict" in proc.stdout


# -- pr-link corrections ----------------------------------------------------------------------

CFIX = BASE  # the PR's side: entry 3's link corrected to its canonical form
CMAIN = ledger(CBASE, MAIN_1)
CEXPECTED = ledger(BASE, MAIN_1)


def test_a_correction_merges_through_the_driver(world) -> None:
    repo = world(CBASE, [{CHANGELOG: CFIX}], [{CHANGELOG: CMAIN}])
    proc = run_git(repo, "merge", "--no-edit", "main")
    assert proc.returncode == 0, proc.stderr
    assert read(repo) == CEXPECTED


def test_a_correction_rebases_through_the_driver(world) -> None:
    repo = world(CBASE, [{CHANGELOG: CFIX}], [{CHANGELOG: CMAIN}])
    proc = run_git(repo, "rebase", "main")
    assert proc.returncode == 0, proc.stderr
    assert read(repo) == CEXPECTED


def test_a_correction_conflict_resolves_from_the_index_without_the_driver(world) -> None:
    repo = world(CBASE, [{CHANGELOG: CFIX}], [{CHANGELOG: CMAIN}], driver=False)
    assert run_git(repo, "merge", "--no-edit", "main").returncode == 1
    proc = run_cli("resolve", "--pr", "9", "--add", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"entry 3: pr-link corrected '{WRONG}' -> '{PULL}3'" in proc.stdout
    assert read(repo) == CEXPECTED


def test_main_changing_the_corrected_link_stops_both_driver_and_resolve(world) -> None:
    other = CBASE.replace(WRONG.encode(), f"{PULL}300".encode())
    repo = world(CBASE, [{CHANGELOG: CFIX}], [{CHANGELOG: ledger(other, MAIN_1)}])
    proc = run_git(repo, "merge", "--no-edit", "main")
    assert proc.returncode == 1
    assert "entry 3: main changed its pr-link to" in proc.stderr
    marked = read(repo)
    assert b"<<<<<<< ours" in marked
    refused = run_cli("resolve", cwd=repo)
    assert refused.returncode == 1
    assert "CL513 entry 3: main changed its pr-link to" in refused.stdout
    assert read(repo) == marked


# -- the driver as a function: it never raises ------------------------------------------------


def test_the_driver_turns_an_unexpected_error_into_exit_1_and_one_log_line(tmp_path: Path) -> None:
    for name, data in (("o", BASE), ("a", ledger(BASE, PR_1)), ("b", ledger(BASE, MAIN_1))):
        (tmp_path / name).write_bytes(data)
    logged: list[str] = []

    def broken_config():  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    code = run_merge_driver(
        ancestor=tmp_path / "o",
        current=tmp_path / "a",
        other=tmp_path / "b",
        path=CHANGELOG,
        load_config=broken_config,
        environ={},
        open_repo=lambda: pytest.fail("not reached"),
        log=logged.append,
    )
    assert code == 1
    assert logged == [
        "changelog-tools merge-driver: perf-changelog.yaml: not resolved, leaving a conflict "
        "with markers in the file: internal error: RuntimeError: boom"
    ]
    assert b"<<<<<<< ours" in (tmp_path / "a").read_bytes()


def test_the_driver_with_an_explicit_side_resolves_without_asking_git(tmp_path: Path) -> None:
    for name, data in (("o", BASE), ("a", ledger(BASE, MAIN_1)), ("b", ledger(BASE, PR_1))):
        (tmp_path / name).write_bytes(data)
    logged: list[str] = []
    cfg = defaults(tmp_path)
    code = run_merge_driver(
        ancestor=tmp_path / "o",
        current=tmp_path / "a",
        other=tmp_path / "b",
        path=CHANGELOG,
        load_config=lambda: cfg,
        given="theirs",
        environ={},
        open_repo=lambda: None,  # type: ignore[arg-type,return-value]
        log=logged.append,
    )
    assert code == 0, logged
    assert (tmp_path / "a").read_bytes() == ledger(BASE, MAIN_1, PR_1)
    assert logged[0].startswith(
        "changelog-tools merge-driver: perf-changelog.yaml: resolved (given:"
    )


def test_the_codes_the_driver_and_resolve_use_are_registered() -> None:
    for code in ("CL510", "CL511", "CL512", "CL513", "CL514", "CL515", "CL516"):
        assert code in dx.CODES
    assert entry("x-x", "y", "z").startswith(b"- config-keys:")


# -- a multi-commit rebase, markers whenever unresolved, a vanished interpreter ----------------

PR_1_EDITED = PR_1.replace(b"The PR's entry", b"The PR's entry, reworded in review")


def test_a_rebase_replays_a_later_commits_edit_of_the_prs_own_entry(world) -> None:
    # Commit 1 appends the PR's entry, commit 2 rewords it: the second replay's merge-base is
    # commit 1, so the edit looks like an edit of history; the entry is not on main, so it is
    # the PR's to edit.
    edits = [{CHANGELOG: ledger(BASE, PR_1)}, {CHANGELOG: ledger(BASE, PR_1_EDITED, PR_2)}]
    repo = world(BASE, edits, MAIN_COMMITS)
    proc = run_git(repo, "rebase", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read(repo) == ledger(BASE, MAIN_1, MAIN_2, PR_1_EDITED, PR_2)
    assert "replayed this commit's edit of the PR's own entries" in proc.stderr
    # Each replayed commit holds main's bytes first.
    first = git(repo, "show", f"HEAD~1:{CHANGELOG}").encode() + b"\n"
    assert first == ledger(BASE, MAIN_1, MAIN_2, PR_1)


def test_a_rebase_whose_later_commit_edits_an_entry_of_main_still_conflicts_with_markers(
    world,
) -> None:
    # The PR's second commit edits history (an entry that is on main): never replayed.
    edit_history = BASE.replace(b'"Second"', b'"Second, rewritten"')
    commits = [{CHANGELOG: ledger(BASE, PR_1)}, {CHANGELOG: ledger(edit_history, PR_1)}]
    repo = world(BASE, commits, MAIN_COMMITS)
    proc = run_git(repo, "rebase", "main")
    assert proc.returncode != 0
    assert unmerged(repo) == [CHANGELOG]
    text = read(repo)
    assert b"<<<<<<< ours\n" in text and b"\n=======\n" in text and b">>>>>>> theirs\n" in text
    assert "not resolved, leaving a conflict with markers in the file" in proc.stderr
    run_git(repo, "rebase", "--abort")


def test_unresolved_with_a_clean_text_merge_still_leaves_markers(tmp_path: Path) -> None:
    # git's own text merge of these sides is clean (the edit and main's append are far apart),
    # yet the driver refuses: the file must not look resolved.
    from changelog_tools.ledger.mergedriver import conflict_text

    base = ledger(BASE, PR_1)
    ours = ledger(BASE.replace(b'"First"', b'"First, rewritten"'), PR_1)
    theirs = ledger(BASE, PR_1_EDITED)
    for name, data in (("o", base), ("a", ours), ("b", theirs)):
        (tmp_path / name).write_bytes(data)
    clean = subprocess.run(
        ["git", "merge-file", "--stdout", str(tmp_path / "a"), str(tmp_path / "o"), str(tmp_path / "b")],
        capture_output=True, check=False,
    )  # fmt: skip
    assert clean.returncode == 0  # git would have written a marker-less file
    text = conflict_text(tmp_path / "o", tmp_path / "a", tmp_path / "b", 7)
    assert text.startswith(b"- config-keys:\n") and b"<<<<<<< ours\n" in text
    assert b">>>>>>> theirs\n" in text and ours.splitlines()[-1] in text.splitlines()


def test_a_vanished_driver_interpreter_says_how_to_reinstall_and_leaves_markers(
    world, tmp_path: Path
) -> None:
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], MAIN_COMMITS)
    gone = tmp_path / "removed-venv" / "bin" / "python"
    git(repo, "config", "merge.perf-changelog.driver", driver_command(str(gone)))
    proc = run_git(repo, "merge", "--no-edit", "main")
    assert proc.returncode == 1
    assert unmerged(repo) == [CHANGELOG]
    assert f"({gone}) is gone (was its virtualenv removed?)" in proc.stderr
    assert "changelog-tools install-merge-driver" in proc.stderr
    # The reinstall command is the one docs/merging.md gives: the distribution, this release.
    reinstall = f"pip install perf-changelog-tools=={__version__}"
    assert f"`{reinstall}`" in proc.stderr
    docs = Path(__file__).resolve().parents[2] / "docs" / "merging.md"
    assert f"`{reinstall}`" in docs.read_text(encoding="utf-8")
    assert "perf-changelog.yaml" in proc.stderr.split("is gone")[0]
    text = read(repo)
    assert b"<<<<<<< ours" in text and b">>>>>>> theirs" in text
    # Reinstalled, `resolve` finishes the job from the index.
    assert run_cli("install-merge-driver", cwd=repo).returncode == 0
    done = run_cli("resolve", "--add", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert read(repo) == ledger(BASE, MAIN_1, MAIN_2, PR_1)


def test_an_uninstalled_package_under_a_living_interpreter_leaves_markers(
    world, tmp_path: Path
) -> None:
    # Review finding: `pip uninstall changelog-tools` keeps the Python, so the driver ran
    # `python -m changelog_tools`, which failed with "No module named", and git left the
    # PR's side out of a file with no conflict markers (it looked resolved).
    bare = tmp_path / "bare-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    python = bare / "bin" / "python"
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], MAIN_COMMITS)
    gone = tmp_path / "removed-venv" / "changelog_tools" / "__main__.py"
    command = driver_command(str(python), package_main=str(gone))
    git(repo, "config", "merge.perf-changelog.driver", command)
    proc = run_git(repo, "merge", "--no-edit", "main")
    assert proc.returncode == 1
    assert unmerged(repo) == [CHANGELOG]
    assert "changelog-tools install-merge-driver" in proc.stderr
    text = read(repo)
    assert b"<<<<<<< ours" in text and b">>>>>>> theirs" in text


# -- the PR's own entry is never dropped; main's bytes, then the PR's separator -----------------


def test_git_merge_keeps_the_prs_entry_that_reads_like_mains_new_one(world) -> None:
    # A re-sweep: the same keys and description as main's new entry, under the PR's placeholder.
    resweep = entry("main-x", "Main's new entry", "XXX")
    repo = world(BASE, [{CHANGELOG: ledger(BASE, resweep)}], [{CHANGELOG: ledger(BASE, MAIN_1)}])
    proc = run_git(repo, "merge", "--no-edit", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read(repo) == ledger(BASE, MAIN_1, resweep)
    done = run_cli("resolve", "--help", cwd=repo)
    assert "equal fields" in done.stdout


def test_git_merge_after_mains_whitespace_only_last_line_brings_the_prs_empty_line(world) -> None:
    main_side = ledger(BASE, MAIN_1) + b"  \n"  # an old irregular last line on main
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], [{CHANGELOG: main_side}])
    proc = run_git(repo, "merge", "--no-edit", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read(repo) == main_side + b"\n" + PR_1
    assert (
        run_cli("check", "--local", "--base-ref", "main", "--no-config-keys", cwd=repo).returncode
        == 0
    )


def test_git_merge_of_a_cherry_pick_from_main_drops_the_copy(world) -> None:
    repo = world(
        BASE, [{CHANGELOG: ledger(BASE, MAIN_1, PR_1)}], [{CHANGELOG: ledger(BASE, MAIN_1, MAIN_2)}]
    )
    proc = run_git(repo, "merge", "--no-edit", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read(repo) == ledger(BASE, MAIN_1, MAIN_2, PR_1)


# -- verdicts remembered between the driver's runs ------------------------------------------


def _verdicts(repo: Path) -> Path:
    return Path(git(repo, "rev-parse", "--absolute-git-dir")).joinpath(*VERDICTS_FILE)


def _current_key() -> str:
    key = knownvalid.current_key(schema.entry_schema_bytes())
    assert key is not None  # this environment's jsonschema has a dist-info: the memory is on
    return key


def test_a_rebase_remembers_its_results_verdicts_under_the_exact_key(world) -> None:
    repo = world(BASE, TWO_PR_COMMITS, MAIN_COMMITS)
    proc = run_git(repo, "rebase", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read(repo) == EXPECTED
    header, *lines = _verdicts(repo).read_text().splitlines()
    assert header == f"changelog-tools entry verdicts v1 {_current_key()}"
    # The last run's result, whole (the second run began with the first run's result) ...
    final = knownvalid.whole_digest(EXPECTED, defaults(repo).max_file_size)
    assert f"whole {len(EXPECTED)} {final}" in lines
    # ... and every entry of it that was validated, by the digest of its value.
    assert knownvalid.entry_digest({**_entry_value(PR_2)}) in lines
    # Running again over the remembered verdicts gives the same bytes.
    git(repo, "reset", "-q", "--hard", "ORIG_HEAD")
    again = run_git(repo, "rebase", "main")
    assert again.returncode == 0, again.stdout + again.stderr
    assert read(repo) == EXPECTED


def _entry_value(raw: bytes) -> dict[str, object]:
    from changelog_tools.ledger.document import parse_ledger

    value: dict[str, object] = parse_ledger(raw, path="x").blocks[0].data
    return value


BAD_MAIN = MAIN_1.replace(b"  description:", b"  descripton:")


def _rebase_onto_an_invalid_main(world, verdicts: str) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    repo = world(BASE, [{CHANGELOG: ledger(BASE, PR_1)}], [{CHANGELOG: ledger(BASE, BAD_MAIN)}])
    store = _verdicts(repo)
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text(verdicts)
    return run_git(repo, "rebase", "main")


def _claims(key: str, *, whole_of: bytes | None = None, extra: str = "") -> str:
    """A verdicts file that holds main's invalid entry (and main's whole file) as valid."""
    lines = [f"changelog-tools entry verdicts v1 {key}"]
    if whole_of is not None:
        digest = knownvalid.whole_digest(whole_of, defaults(Path()).max_file_size)
        lines.append(f"whole {len(whole_of)} {digest}")
    digest = knownvalid.entry_digest(_entry_value(BAD_MAIN))
    assert digest is not None
    lines.append(digest)
    return "\n".join(lines) + "\n" + extra


@pytest.mark.parametrize(
    "verdicts",
    [
        # written by another release of the tool (or before the schema changed): the key differs
        pytest.param(
            lambda: _claims(
                knownvalid.verdict_key(
                    schema.entry_schema_bytes(),
                    tool_version="0.0.1",
                    jsonschema_version="4.21.0",
                    yaml_version=knownvalid._yaml_release(),
                )
                or ""
            ),
            id="another-tool-version",
        ),
        pytest.param(
            lambda: _claims(
                knownvalid.verdict_key(
                    schema.entry_schema_bytes().replace(b'"description"', b'"descripton"'),
                    tool_version=__version__,
                    jsonschema_version=knownvalid._jsonschema_release(),
                    yaml_version=knownvalid._yaml_release(),
                )
                or ""
            ),
            id="another-schema",
        ),
        # written before ruamel.yaml (which decides what value an entry has) was upgraded
        pytest.param(
            lambda: _claims(
                knownvalid.verdict_key(
                    schema.entry_schema_bytes(),
                    tool_version=__version__,
                    jsonschema_version=knownvalid._jsonschema_release(),
                    yaml_version="0.17.21 clib 0.2.7",
                )
                or ""
            ),
            id="another-yaml-parser",
        ),
        pytest.param(
            lambda: _claims(_current_key()[::-1], whole_of=ledger(BASE, BAD_MAIN)),
            id="another-key-with-the-whole-file",
        ),
        # the current key, but the file claims other bytes than main's whole, and its lines
        # were edited: a changed character, a truncated digest, garbage
        pytest.param(
            lambda: (
                _claims(_current_key(), whole_of=ledger(BASE, MAIN_1)).replace(
                    knownvalid.entry_digest(_entry_value(BAD_MAIN)) or "", "0" * 64
                )
                + "not a digest\n"
                + "ab" * 31
                + "\n"
            ),
            id="edited-lines",
        ),
        pytest.param(lambda: "\x00\xff garbage", id="garbage"),
    ],
)
def test_remembered_verdicts_never_let_invalid_history_through(world, verdicts) -> None:  # type: ignore[no-untyped-def]
    proc = _rebase_onto_an_invalid_main(world, verdicts())
    assert proc.returncode != 0
    assert "not resolved, leaving a conflict with markers" in proc.stderr
    assert "would not pass `validate` as a whole file" in proc.stderr, proc.stderr


def test_the_key_changes_with_the_schema_the_tool_jsonschema_and_the_yaml_parser() -> None:
    text = schema.entry_schema_bytes()
    versions = {"jsonschema_version": "4.26.0", "yaml_version": "0.18.6 clib 0.2.8"}
    key = knownvalid.verdict_key(text, tool_version="1.0", **versions)
    assert key is not None
    assert knownvalid.verdict_key(text, tool_version="1.0", **versions) == key
    others = {
        knownvalid.verdict_key(text + b" ", tool_version="1.0", **versions),
        knownvalid.verdict_key(text, tool_version="1.1", **versions),
        knownvalid.verdict_key(
            text, tool_version="1.0", jsonschema_version="4.25.1", yaml_version="0.18.6 clib 0.2.8"
        ),
        knownvalid.verdict_key(
            text, tool_version="1.0", jsonschema_version="4.26.0", yaml_version="0.18.7 clib 0.2.8"
        ),
        knownvalid.verdict_key(
            text, tool_version="1.0", jsonschema_version="4.26.0", yaml_version="0.18.6 pure"
        ),
    }
    assert key not in others and None not in others and len(others) == 5
    # A schema with `format` is judged by whichever format checkers are installed: no memory.
    assert (
        knownvalid.verdict_key(
            text.replace(b'"type"', b'"format": "uri", "type"', 1), tool_version="1.0", **versions
        )
        is None
    )
    assert (
        knownvalid.verdict_key(
            text, tool_version="1.0", jsonschema_version=None, yaml_version="0.18.6 pure"
        )
        is None
    )
    assert (
        knownvalid.verdict_key(
            text, tool_version="1.0", jsonschema_version="4.26.0", yaml_version=None
        )
        is None
    )


def test_the_current_key_names_the_installed_ruamel_yaml_and_its_c_parser() -> None:
    import importlib.util

    import ruamel.yaml

    found = knownvalid._yaml_release()
    assert found is not None and found.split()[0] == ruamel.yaml.__version__
    assert found.split()[1] == ("clib" if importlib.util.find_spec("_ruamel_yaml") else "pure")
    assert knownvalid.current_key(schema.entry_schema_bytes()) == knownvalid.verdict_key(
        schema.entry_schema_bytes(),
        tool_version=__version__,
        jsonschema_version=knownvalid._jsonschema_release(),
        yaml_version=found,
    )


def test_a_fifo_in_place_of_the_verdicts_file_is_no_memory_and_no_hang(world) -> None:  # type: ignore[no-untyped-def]
    repo = world(BASE, TWO_PR_COMMITS, MAIN_COMMITS)
    store = _verdicts(repo)
    store.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(store)
    # Opening a FIFO for reading waits for a writer: the rebase would never end.
    proc = subprocess.run(
        ["git", "rebase", "main"], cwd=repo, capture_output=True, text=True, check=False,
        timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read(repo) == EXPECTED
    assert proc.stderr.count("resolved (rebase: the PR is theirs") == 2


def test_whole_file_digests_depend_on_the_size_limit() -> None:
    assert knownvalid.whole_digest(BASE, 100) != knownvalid.whole_digest(BASE, 200)
    assert knownvalid.whole_digest(BASE, None) == knownvalid.whole_digest(BASE, None)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ({"k": 1}, {"k": True}),
        ({"k": 1}, {"k": 1.0}),
        ({"k": "1"}, {"k": 1}),
        ({"k": [1, 2]}, {"k": [2, 1]}),
        ({"k": None}, {"k": "null"}),
    ],
)
def test_values_json_would_confuse_get_different_digests(a, b) -> None:  # type: ignore[no-untyped-def]
    assert knownvalid.entry_digest(a) != knownvalid.entry_digest(b)


def test_a_value_with_a_non_text_key_is_never_remembered() -> None:
    # JSON writes the key 1 as "1": such a value gets no digest, so it is always validated.
    assert knownvalid.entry_digest({1: "x"}) is None
    assert knownvalid.entry_digest({"a": {2: "x"}}) is None
    assert knownvalid.entry_digest({"a": "x"}) is not None


# -- the driver's own entry point ----------------------------------------------------------------


def test_only_the_installed_command_line_takes_the_short_way() -> None:
    assert driverentry.parse(["--marker-size", "7", "o", "a", "b", "p"]) == (
        7,
        ["o", "a", "b", "p"],
    )
    assert driverentry.parse(["--marker-size", "9", "o", "a", "b"]) == (9, ["o", "a", "b"])
    for argv in (
        ["--help"],
        ["--pr-side", "ours", "o", "a", "b"],
        ["--marker-size", "0", "o", "a", "b"],
        ["--marker-size", "x", "o", "a", "b"],
        ["--marker-size", "٣", "o", "a", "b"],
        ["o", "a", "b"],
        ["--marker-size", "7", "--config", "a", "b"],
        ["--marker-size", "7", "o", "a", "b", "p", "extra"],
    ):
        assert driverentry.parse(argv) is None, argv


DRIVER_PROBE = """
import json, runpy, sys
out = sys.argv[1]
sys.argv = ["changelog-tools", *sys.argv[2:]]
try:
    runpy.run_module("changelog_tools", run_name="__main__")
except SystemExit as exc:
    code = exc.code
with open(out, "w", encoding="utf-8") as handle:
    json.dump({"code": code, "click": "click" in sys.modules}, handle)
"""


def _pr_behind_main(tmp_path: Path) -> Path:
    """A repository whose branch `pr` (checked out) appended PR_1 while main appended MAIN_1."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit_files(repo, {CHANGELOG: BASE, ".changelog-tools.yaml": CONFIG}, "base")
    git(repo, "checkout", "-q", "-b", "pr")
    commit_files(repo, {CHANGELOG: ledger(BASE, PR_1)}, "pr")
    git(repo, "checkout", "-q", "main")
    commit_files(repo, {CHANGELOG: ledger(BASE, MAIN_1)}, "main")
    git(repo, "checkout", "-q", "pr")
    return repo


def test_git_s_command_line_resolves_without_loading_click_and_help_still_works(
    tmp_path: Path,
) -> None:
    import json

    repo = _pr_behind_main(tmp_path)
    (tmp_path / "o").write_bytes(BASE)
    (tmp_path / "b").write_bytes(ledger(BASE, MAIN_1))
    probe = tmp_path / "probe.json"
    files = [str(tmp_path / n) for n in ("o", "a", "b")]
    # `git merge main` on the PR branch: ours (%A) is the PR, main's commit is theirs.
    for extra, uses_click in (([], False), (["--pr-side", "ours"], True)):
        (tmp_path / "a").write_bytes(ledger(BASE, PR_1))
        proc = subprocess.run(
            [sys.executable, "-c", DRIVER_PROBE, str(probe), "merge-driver", *extra,
             "--marker-size", "7", *files, CHANGELOG],
            cwd=repo, capture_output=True, text=True, check=False,
            env={**os.environ, "GIT_REFLOG_ACTION": "merge main"},
        )  # fmt: skip
        result = json.loads(probe.read_text())
        assert result["click"] is uses_click, extra
        assert result["code"] == 0, proc.stderr
        assert (tmp_path / "a").read_bytes() == ledger(BASE, MAIN_1, PR_1), proc.stderr
        assert "resolved (" in proc.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "changelog_tools", "merge-driver", "--help"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert helped.returncode == 0
    assert "git merge driver for the changelog" in helped.stdout


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        # a rebase's second step: main plus the PR's first entry against the PR's first commit
        # (they part inside the entry after history: that entry is parsed on both sides)
        (ledger(BASE, PR_1), ledger(BASE, MAIN_1, PR_1), len(BASE) + 1),
        (ledger(BASE, PR_1), ledger(BASE, PR_1), len(ledger(BASE)) + 1),
        (BASE, b"x" + BASE, 0),
        (b"", BASE, 0),
    ],
)
def test_the_shared_entries_end_where_both_sides_start_the_same_entry(a, b, expected) -> None:  # type: ignore[no-untyped-def]
    from changelog_tools.ledger.resolve import shared_entries_end

    cut = shared_entries_end(a, b)
    assert cut == expected
    assert a[:cut] == b[:cut]
    if cut:
        assert a[cut:].startswith(b"- config-keys:") and b[cut:].startswith(b"- config-keys:")
        assert a[cut - 1 : cut] == b"\n"


# What a resolved rebase step must not load: each costs every replayed commit its import.
NOT_ON_A_STEP = (
    "subprocess",
    "git",
    "gitdb",
    "click",
    "changelog_tools.ledger.historywalk",
    "changelog_tools.ledger.canonicalize",
    "changelog_tools.ledger.driverinstall",
    "changelog_tools.ledger.indexconflict",
)


def test_a_rebase_step_resolves_without_starting_a_process_or_loading_git_libraries(
    tmp_path: Path,
) -> None:
    # git runs the driver at the top of the work tree during a real rebase: the repository is
    # read from .git (no `git rev-parse`), the rebase markers decide the sides (replaying onto
    # main's tip, read from .git too, nothing of main's is replayed), and the step loads
    # neither subprocess nor GitPython nor click, nor the code of what an append step
    # never does (walking edited history, planning link substitutions, installing the driver,
    # resolving from git's index).
    import json
    import shlex

    repo = _pr_behind_main(tmp_path)
    probe, out = tmp_path / "probe.py", tmp_path / "probe.json"
    probe.write_text(
        DRIVER_PROBE.replace(
            '"click": "click" in sys.modules',
            '"modules": sorted(m for m in sys.modules if m in NOT_ON_A_STEP '
            'or m.split(".")[0] in NOT_ON_A_STEP)',
        ).replace(
            "import json, runpy, sys", f"import json, runpy, sys\nNOT_ON_A_STEP = {NOT_ON_A_STEP!r}"
        )
    )
    (repo / ".git" / "info" / "attributes").write_text(f"/{CHANGELOG} merge=probe\n")
    command = " ".join(shlex.quote(p) for p in (sys.executable, str(probe), str(out)))
    git(repo, "config", "merge.probe.driver",
        f"{command} merge-driver --marker-size %L %O %A %B %P")  # fmt: skip
    done = run_git(repo, "rebase", "main")
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    assert result["code"] == 0
    assert result["modules"] == []
    assert "resolved (rebase: the PR is theirs" in done.stderr
    assert (repo / CHANGELOG).read_bytes() == ledger(BASE, MAIN_1, PR_1)
