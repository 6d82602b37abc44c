"""The git adapter against git itself: what it reads, lists and answers is what git says.

git is the reference throughout (``cat-file --follow-symlinks``, ``diff``, ``diff-tree``,
``status``); GitPython stays behind the adapter, imported only when a question needs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from changelog_tools import gitrepo
from changelog_tools.errors import GitError, UsageError
from tests.checkdata import (
    BASE,
    KEY,
    MASTER_A,
    MASTER_B,
    PULL,
    appended,
    commit_feature,
    entry,
)
from tests.conftest import commit_files, git, run_cli


def cat_file(repo: Path, rev: str, path: str) -> bytes | None:
    """What `git cat-file --batch --follow-symlinks` answers for REV:PATH (a blob's bytes)."""
    proc = subprocess.run(
        ["git", "cat-file", "--batch", "--follow-symlinks"],
        cwd=repo, input=f"{rev}:{path}\n".encode(), capture_output=True, check=True,
    )  # fmt: skip
    header, _, rest = proc.stdout.partition(b"\n")
    fields = header.split()
    if len(fields) == 3 and fields[1] == b"blob":
        return rest[: int(fields[2])]
    return None


def commit_with_submodule(path: Path, sha: str) -> str:
    """Commit the work tree plus a submodule entry ``sub`` at ``sha`` (no checkout of it)."""
    git(path, "add", "-A")
    git(path, "update-index", "--add", "--cacheinfo", f"160000,{sha},sub")
    git(path, "commit", "-q", "-m", f"with sub at {sha[:7]}")
    return git(path, "rev-parse", "HEAD")


@pytest.fixture
def links(tmp_path: Path) -> Path:
    """A repository whose tree holds every kind of symlink a lookup can meet."""
    repo = tmp_path / "links"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for name, text in {"top.txt": "top\n", "dir/a.txt": "a\n", "dir/sub/b.txt": "b\n",
                       "helpers/impl.sh": "impl\n"}.items():  # fmt: skip
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    for name, target in {
        "same": "top.txt", "dir/up": "../top.txt", "dir/sub/upup": "../../helpers/impl.sh",
        "linkdir": "dir", "linkdir_slash": "dir/", "chain": "same", "outside": "../x",
        "absolute": "/etc/hostname", "dangling": "nope", "loop1": "loop2", "loop2": "loop1",
        "through_file": "top.txt/x", "dir/sub/dot": "./b.txt", "to_dir": "dir/sub",
        "doubled": "dir//a.txt",
    }.items():  # fmt: skip
        (repo / name).symlink_to(target)
    commit_files(repo, {}, "links")
    return repo


LOOKUPS = [
    "top.txt", "dir/a.txt", "dir/sub/b.txt", "same", "dir/up", "dir/sub/upup", "linkdir/a.txt",
    "linkdir/sub/b.txt", "linkdir_slash/a.txt", "linkdir/up", "chain", "outside", "absolute",
    "dangling", "loop1", "through_file", "dir/sub/dot", "to_dir", "to_dir/b.txt", "dir",
    "missing", "dir/missing", "top.txt/x", "linkdir/../top.txt", "", "doubled",
]  # fmt: skip


@pytest.mark.parametrize("path", LOOKUPS)
def test_read_blob_follows_symlinks_as_git_cat_file_does(links: Path, path: str) -> None:
    repo = gitrepo.open_repo(links)
    assert repo.read_blob("HEAD", path) == cat_file(links, "HEAD", path)


def test_a_symlink_reads_as_the_file_it_names(links: Path) -> None:
    repo = gitrepo.open_repo(links)
    read = {path: repo.read_blob("HEAD", path) for path in LOOKUPS}
    assert read["dir/sub/upup"] == b"impl\n"
    assert read["linkdir/sub/b.txt"] == read["to_dir/b.txt"] == b"b\n"
    assert read["chain"] == read["dir/up"] == b"top\n"
    assert read["outside"] is read["absolute"] is read["loop1"] is read["to_dir"] is None


def test_read_blob_reads_names_git_can_hold_and_refuses_unknown_revisions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "names"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "new\nline.txt").write_bytes(b"newline\n")
    (path / "sp ace.txt").write_bytes(b"space\n")
    (path / "überall").mkdir()
    (path / "überall/ä.sh").write_bytes(b"umlaut\n")
    fd = os.open(os.fsencode(path) + b"/latin\xff.txt", os.O_CREAT | os.O_WRONLY)
    os.write(fd, b"latin-1\n")
    os.close(fd)
    commit_with_submodule(path, "1" * 40)
    repo = gitrepo.open_repo(path)
    assert repo.read_blob("HEAD", "new\nline.txt") == b"newline\n"
    assert repo.read_blob("HEAD", "sp ace.txt") == b"space\n"
    assert repo.read_blob("HEAD", "überall/ä.sh") == b"umlaut\n"
    assert repo.read_blob("HEAD", os.fsdecode(b"latin\xff.txt")) == b"latin-1\n"
    assert repo.read_blob("HEAD", "sub") is None  # a submodule is not a file
    assert repo.read_blob("HEAD", "sub/x") is None
    for bad in ("no-such-branch", "HEAD\nHEAD", "HEAD^{tree}"):
        with pytest.raises(GitError, match="unknown git revision"):
            repo.read_blob(bad, "sp ace.txt")
    blob = git(path, "rev-parse", "HEAD:sp ace.txt")
    assert repo.read_object(blob) == b"space\n"
    with pytest.raises(GitError, match=f"git object {'0' * 40} is missing"):
        repo.read_object("0" * 40)


def test_names_resolve_as_git_rev_parse_resolves_them(tmp_path: Path) -> None:
    path = tmp_path / "names"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    first = commit_files(path, {"a": "1\n"}, "one")
    second = commit_files(path, {"a": "2\n"}, "two")
    git(path, "tag", "-a", "-m", "annotated", "v1", first)
    repo = gitrepo.open_repo(path)
    assert repo.rev_parse("HEAD") == second
    assert repo.rev_parse("main~1") == repo.rev_parse("v1") == first  # a tag peels to its commit
    assert repo.rev_parse(second[:10]) == second
    assert repo.has_commit(first) and not repo.has_commit("f" * 40)
    tree = git(path, "rev-parse", "HEAD^{tree}")
    for bad in (tree, "nope", "HEAD\nHEAD", "", "main..HEAD"):
        assert repo.try_rev_parse(bad) is None
        assert not repo.has_commit(bad)
    with pytest.raises(GitError, match="'nope' names no commit"):
        repo.rev_parse("nope")
    # the reader is still in step after every refusal
    assert repo.rev_parse("HEAD") == second


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository with two commits whose trees differ in every way a tree entry can."""
    path = tmp_path / "trees"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    files = {
        "same/deep/a.txt": "a\n", "edit/x.sh": "v1\n", "gone.txt": "g\n", "gone_dir/sub/two": "2\n",
        "file_to_dir": "f\n", "dir_to_file/inner": "i\n", "mode.sh": "m\n", "a.b": "1\n",
        "a/x": "1\n", "a0": "1\n", "überall/ä.sh": "u\n", "new\nline": "n\n",
    }  # fmt: skip
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    (path / "link").symlink_to("same")
    left = commit_with_submodule(path, "1" * 40)
    (path / "edit/x.sh").write_text("v2\n")
    (path / "gone.txt").unlink()
    for name in ("gone_dir/sub/two", "file_to_dir", "dir_to_file/inner"):
        (path / name).unlink()
    (path / "dir_to_file").rmdir()
    (path / "file_to_dir").mkdir()
    (path / "file_to_dir/now").write_text("n\n")
    (path / "dir_to_file").write_text("d\n")
    (path / "mode.sh").chmod(0o755)
    for name in ("a.b", "a/x", "a0", "überall/ä.sh", "new\nline"):
        (path / name).write_text("2\n")
    (path / "link").unlink()
    (path / "link").symlink_to("edit")
    right = commit_with_submodule(path, "2" * 40)
    return path, left, right


def listed(path: Path, *args: str) -> list[str]:
    proc = subprocess.run(["git", *args], cwd=path, capture_output=True, check=True)
    return [name for name in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if name]


def test_changed_paths_is_git_diff_name_only_in_its_order(trees: tuple[Path, str, str]) -> None:
    path, left, right = trees
    repo = gitrepo.open_repo(path)
    for a, b in ((left, right), (right, left), (left, left), ("main~1", "main")):
        expected = listed(path, "diff", "--name-only", "-z", "--no-renames", a, b)
        assert repo.changed_paths(a, b) == expected
    assert {"new\nline", "sub", "file_to_dir", "file_to_dir/now"} <= set(
        repo.changed_paths(left, right)
    )
    with pytest.raises(GitError, match="unknown git revision 'nope'"):
        repo.changed_paths("nope", right)


def test_tree_changes_is_git_diff_tree_in_its_order(trees: tuple[Path, str, str]) -> None:
    path, left, right = trees
    repo = gitrepo.open_repo(path)
    for a, b in ((left, right), (right, left), (left, left)):
        ta, tb = (git(path, "rev-parse", f"{c}^{{tree}}") for c in (a, b))
        expected = listed(path, "diff-tree", "-r", "-z", "--name-only", "--no-renames", ta, tb)
        assert repo.tree_changes(ta, tb) == expected
        assert repo.tree_changes(f"{a}^{{tree}}", f"{b}^{{tree}}") == expected
    with pytest.raises(GitError, match="names no tree"):
        repo.tree_changes(f"{left}^{{tree}}", left)


def test_same_file_only_for_one_regular_file_at_both_revisions(
    trees: tuple[Path, str, str],
) -> None:
    path, left, right = trees
    repo = gitrepo.open_repo(path)
    assert repo.same_file(left, right, "same/deep/a.txt")
    assert not repo.same_file(left, right, "edit/x.sh")  # edited
    assert not repo.same_file(left, right, "mode.sh")  # mode changed
    assert not repo.same_file(left, left, "link")  # a symlink's target may differ
    assert not repo.same_file(left, left, "sub")  # a submodule
    assert not repo.same_file(left, right, "gone.txt")
    assert not repo.same_file("nope", right, "same/deep/a.txt")


def test_history_questions(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    base = commit_files(path, {"a": "1\n"}, "base")
    git(path, "checkout", "-q", "-b", "feature/x")
    feature = commit_files(path, {"b": "1\n"}, "feature")
    git(path, "checkout", "-q", "main")
    main = commit_files(path, {"c": "1\n"}, "main")
    repo = gitrepo.open_repo(path)
    assert repo.merge_base("feature/x", "main") == base
    assert repo.is_ancestor(base, feature) and repo.is_ancestor(main, main)
    assert not repo.is_ancestor(feature, main)
    assert not repo.is_ancestor("nope", main)
    with pytest.raises(GitError, match="git merge-base nope main failed: fatal: Not a valid"):
        repo.merge_base("nope", "main")
    assert repo.current_branch() == "main"
    git(path, "checkout", "-q", "feature/x")
    assert repo.current_branch() == "feature/x"
    git(path, "checkout", "-q", "--detach")
    assert repo.current_branch() is None


def test_is_clean_counts_tracked_changes_only(tmp_path: Path) -> None:
    path = tmp_path / "clean"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"a": "1\n"}, "base")
    repo = gitrepo.open_repo(path)
    assert repo.is_clean()
    (path / "untracked").write_text("u\n")
    os.utime(path / "a", (1, 1))  # only the stat information changed
    assert repo.is_clean()
    (path / "a").write_text("2\n")
    assert not repo.is_clean()
    git(path, "add", "a")
    assert not repo.is_clean()
    git(path, "commit", "-q", "-m", "two")
    assert repo.is_clean()


def test_git_commands_answer_in_plain_values_and_fail_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"a": "1\n"}, "base")
    repo = gitrepo.open_repo(path)
    assert repo.git("rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert repo.git("ls-files", "-z", strip=False) == "a\0"
    assert repo.git("cat-file", "-p", "HEAD:a", strip=False) == "1\n"
    assert repo.git_ok("rev-parse", "--verify", "HEAD")
    assert not repo.git_ok("rev-parse", "--verify", "nope")
    status, out, err = gitrepo.git_status(repo, "rev-parse", "--verify", "nope")
    assert (status, out) == (128, "") and err == "fatal: Needed a single revision"
    with pytest.raises(GitError) as caught:
        repo.git("checkout", "no-such-branch")
    assert caught.value.message == (
        "git checkout no-such-branch failed: error: pathspec 'no-such-branch' did not match "
        "any file(s) known to git"
    )
    # every later command sees a variable set for the repository (the reader restarts for it)
    assert repo.read_blob("HEAD", "a") == b"1\n"
    repo.update_environment(
        GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="tool.probe", GIT_CONFIG_VALUE_0="yes"
    )
    assert repo.git("config", "--get", "tool.probe") == "yes"
    assert repo.read_blob("HEAD", "a") == b"1\n"
    repo.close()
    assert repo.rev_parse("HEAD") == git(path, "rev-parse", "HEAD")


def test_open_repo_finds_the_top_a_bare_repository_and_a_worktree(tmp_path: Path) -> None:
    path = tmp_path / "top"
    (path / "sub/deeper").mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    head = commit_files(path, {"sub/deeper/f": "f\n"}, "base")
    repo = gitrepo.open_repo(path / "sub/deeper")
    assert repo.path == path and repo.git_dir == path / ".git"
    assert repo.read_blob("HEAD", "sub/deeper/f") == b"f\n"
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(path), str(bare))
    opened = gitrepo.open_repo(bare)
    assert opened.path == opened.git_dir == bare
    assert opened.rev_parse("main") == head and opened.current_branch() == "main"
    assert opened.is_clean()
    worktree = tmp_path / "wt"
    git(path, "worktree", "add", "-q", "-b", "side", str(worktree))
    side = gitrepo.open_repo(worktree)
    assert side.path == worktree and side.git_dir == path / ".git/worktrees/wt"
    assert side.current_branch() == "side" and repo.current_branch() == "main"
    assert side.read_blob("side", "sub/deeper/f") == b"f\n"
    with pytest.raises(UsageError, match="not inside a git repository"):
        gitrepo.open_repo(tmp_path)
    with pytest.raises(UsageError, match="not inside a git repository"):
        gitrepo.open_repo(tmp_path / "missing")


def run_python(code: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip


def test_hook_variables_and_gitpythons_executable_never_redirect_the_tool(tmp_path: Path) -> None:
    mine, other = tmp_path / "mine", tmp_path / "other"
    for path, text in ((mine, "mine\n"), (other, "other\n")):
        path.mkdir()
        git(path, "init", "-q", "-b", "main")
        commit_files(path, {"f": text}, "base")
    trap = tmp_path / "fake-git"
    trap.write_text(f"#!/bin/sh\necho ran >> {tmp_path / 'trapped'}\nexit 1\n")
    trap.chmod(0o755)
    env = {
        **os.environ,
        "GIT_DIR": str(other / ".git"),
        "GIT_WORK_TREE": str(other),
        "GIT_INDEX_FILE": str(other / ".git/index"),
        "GIT_PYTHON_GIT_EXECUTABLE": str(trap),
    }
    code = (
        "from changelog_tools.gitrepo import open_repo\n"
        "repo = open_repo('.')\n"
        "print(repo.read_blob('HEAD', 'f').decode(), end='')\n"
        "print(repo.git('show', 'HEAD:f'))\n"
        "print(repo.is_clean(), repo.current_branch())\n"
    )
    proc = run_python(code, mine, env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "mine\nmine\nTrue main\n"
    assert not (tmp_path / "trapped").exists()


def test_gitpython_is_imported_only_when_a_question_needs_it(tmp_path: Path) -> None:
    path = tmp_path / "lazy"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"f": "f\n"}, "base")
    code = (
        "import sys\n"
        "from changelog_tools import gitrepo\n"
        "repo = gitrepo.open_repo('.')\n"
        "gitrepo.operation_in_progress(repo), gitrepo.repo_relative(repo, 'f')\n"
        "print(sorted(m for m in ('git', 'gitdb') if m in sys.modules))\n"
        "repo.rev_parse('HEAD')\n"
        "print(sorted(m for m in ('git', 'gitdb') if m in sys.modules))\n"
    )
    proc = run_python(code, path, dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[]", "['git', 'gitdb']"]


def test_without_git_every_question_is_one_git_error(tmp_path: Path) -> None:
    path = tmp_path / "nogit"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"f": "f\n"}, "base")
    code = (
        "from pathlib import Path\n"
        "from changelog_tools.errors import GitError\n"
        "from changelog_tools.gitrepo import GitRepo, open_repo\n"
        "for ask in (lambda: open_repo('.'),\n"
        "            lambda: GitRepo(path=Path('.'), git_dir=Path('.git')).rev_parse('HEAD')):\n"
        "    try:\n"
        "        ask()\n"
        "    except GitError as exc:\n"
        "        print(exc.message)\n"
    )
    empty = tmp_path / "empty-path"
    empty.mkdir()
    proc = run_python(code, path, {**os.environ, "PATH": str(empty)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["git is not installed (no `git` on PATH)"] * 2


def test_first_parent_changes_are_the_main_line_commits_that_changed_the_file(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    added = commit_files(repo, {"log.yaml": "a\n", "other": "x\n"}, "add (#1)")
    commit_files(repo, {"other": "y\n"}, "other only (#2)")
    git(repo, "checkout", "-qb", "side")
    side = commit_files(repo, {"log.yaml": "a\nb\n"}, "side work")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "side", "-m", "Merge pull request #3 from o/side")
    merge = git(repo, "rev-parse", "HEAD")
    git(repo, "rm", "-q", "log.yaml")
    git(repo, "commit", "-qm", "drop it")
    dropped = git(repo, "rev-parse", "HEAD")
    handle = gitrepo.open_repo(repo)
    changes = list(handle.first_parent_changes("main", "log.yaml"))
    # newest first; the side branch's own commit and the commit that left the file alone are
    # not main-line changes of it; the root commit has no parent
    assert [(sha, subject) for sha, _parent, subject in changes] == [
        (dropped, "drop it"),
        (merge, "Merge pull request #3 from o/side"),
        (added, "add (#1)"),
    ]
    assert changes[1][1] == git(repo, "rev-parse", f"{merge}^1") and changes[2][1] is None
    assert side not in {sha for sha, _, _ in changes}


# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def test_git_mode_accepts_dot_slash_and_absolute_paths(repo: Path) -> None:
    commit_feature(repo, appended(entry(KEY, link=f"{PULL}2557")))
    expected = "perf-changelog.yaml:17:3: CL201 entry 3: pr-link points at pull request #2557"
    for spelling in ("./perf-changelog.yaml", str(repo / "perf-changelog.yaml")):
        proc = run_cli(
            "check", "--pr", "2607", "--changelog-file", spelling,
            "--master-config", f"./{MASTER_A}", "--master-config", str(repo / MASTER_B),
            cwd=repo,
        )  # fmt: skip
        assert proc.returncode == 1, proc.stderr
        assert proc.stdout.startswith(expected + ", but this is pull request #2607\n")


def test_a_path_outside_the_repository_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_bytes(BASE)
    proc = run_cli("check", "--changelog-file", str(outside), cwd=repo)
    assert proc.returncode == 2
    assert f"{outside} is outside the repository" in proc.stderr


def test_a_shallow_ci_checkout_says_to_fetch_the_history(repo: Path, tmp_path: Path) -> None:
    commit_feature(repo, appended(entry(KEY)))
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{repo}", "shallow")
    git(clone, "fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main")
    proc = run_cli("check", "--pr", "7", cwd=clone)
    assert proc.returncode == 3
    assert proc.stderr.splitlines() == [
        f"error: {git(clone, 'rev-parse', 'HEAD')[:12]} and refs/remotes/origin/main have no "
        "common ancestor in this shallow clone",
        "hint: fetch the whole history (actions/checkout: `fetch-depth: 0`) or pass --base-ref",
    ]


def test_a_failing_git_command_is_one_line_even_when_git_prints_nothing(repo: Path) -> None:
    from changelog_tools.errors import GitError

    git(repo, "checkout", "-q", "--orphan", "unrelated")
    commit_files(repo, {"x": "y\n"}, "unrelated root")
    handle = gitrepo.open_repo(repo)
    with pytest.raises(GitError) as caught:
        handle.git("merge-base", "unrelated", "main")  # exits 1 and says nothing
    assert caught.value.message == "git merge-base unrelated main failed: exit status 1"
    with pytest.raises(GitError) as caught:
        handle.merge_base("unrelated", "main")
    assert caught.value.message == "unrelated and main have no common ancestor"


# -- the named methods other modules call instead of running git themselves -------------------


def test_tree_entries_list_every_blob_as_git_ls_tree_with_symlinks_by_mode(links: Path) -> None:
    repo = gitrepo.open_repo(links)
    entries = {e.path: e for e in repo.tree_entries("HEAD")}
    listed = git(links, "ls-tree", "-r", "--name-only", "--full-tree", "HEAD").splitlines()
    assert sorted(entries) == sorted(listed)
    assert entries["same"].is_symlink and not entries["top.txt"].is_symlink
    assert entries["top.txt"].sha == git(links, "rev-parse", "HEAD:top.txt")


def test_file_history_is_git_log_of_the_path_newest_first(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    first = commit_files(tmp_path, {"a.md": "one\n"}, "first")
    commit_files(tmp_path, {"b.md": "other\n"}, "unrelated")
    second = commit_files(tmp_path, {"a.md": "two\n"}, "second")
    history = gitrepo.open_repo(tmp_path).file_history("HEAD", "a.md")
    assert [(v.commit, v.subject) for v in history] == [(second, "second"), (first, "first")]
    assert history[0].date.startswith("20")  # ISO 8601 committer date


def test_symbolic_head_names_the_branch_and_none_when_detached(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    sha = commit_files(tmp_path, {"a": "a\n"}, "a")
    repo = gitrepo.open_repo(tmp_path)
    assert repo.symbolic_head() == "refs/heads/main"
    git(tmp_path, "checkout", "-q", "--detach", sha)
    assert repo.symbolic_head() is None


def test_config_get_and_set_and_stage(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    repo = gitrepo.open_repo(tmp_path)
    assert repo.config_get("merge.x.driver") is None
    repo.config_set("merge.x.driver", "tool %O %A %B")
    assert repo.config_get("merge.x.driver") == "tool %O %A %B"
    assert git(tmp_path, "config", "--local", "--get", "merge.x.driver") == "tool %O %A %B"
    (tmp_path / "new.txt").write_text("new\n")
    repo.stage("new.txt")
    assert git(tmp_path, "diff", "--cached", "--name-only") == "new.txt"


def test_merge_file_marks_a_conflict_with_the_given_labels(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("a\nb\nc\n")
    ours.write_text("a\nB1\nc\n")
    theirs.write_text("a\nB2\nc\n")
    merged = gitrepo.merge_file(ours, base, theirs, labels=("mine", "old", "yours"), marker_size=3)
    assert merged == b"a\n<<< mine\nB1\n===\nB2\n>>> yours\nc\n"
    theirs.write_text("a\nb\nc\nd\n")
    assert gitrepo.merge_file(ours, base, theirs, labels=("m", "o", "y"), marker_size=7) == (
        b"a\nB1\nc\nd\n"
    )
    assert gitrepo.merge_file(ours, tmp_path / "missing", theirs, labels=("m", "o", "y"),
                              marker_size=7) is None  # fmt: skip


def test_commits_between_subject_shallow_and_merge_tree(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    base = commit_files(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"}, "base")
    one = commit_files(tmp_path, {"a.txt": "a1\n"}, "touch a (#12)")
    two = commit_files(tmp_path, {"b.txt": "b1\n"}, "touch b")
    three = commit_files(tmp_path, {"a.txt": "a2\n"}, "touch a again")
    repo = gitrepo.open_repo(tmp_path)
    assert repo.commits_between(base, three, ["a.txt"]) == [three, one]
    assert repo.commits_between(base, three, ["a.txt", "b.txt"], limit=2) == [three, two]
    assert repo.commits_between(three, three, ["a.txt"]) == []
    assert repo.subject(one) == "touch a (#12)"
    assert repo.is_shallow() is False
    git(tmp_path, "checkout", "-qb", "side", base)
    side = commit_files(tmp_path, {"a.txt": "side\n", "c.txt": "c\n"}, "side")
    tree, conflicts = repo.merge_tree(three, side)
    assert conflicts == ("a.txt",) and len(tree) == 40
    clean_tree, none = repo.merge_tree(two, base)
    assert none == () and clean_tree == git(tmp_path, "rev-parse", f"{two}^{{tree}}")
