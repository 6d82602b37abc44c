"""Object questions against git itself: what the adapter reads and lists is what git says
(``cat-file --follow-symlinks``, ``rev-parse``, ``diff``, ``diff-tree``, ``ls-tree``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from changelog_tools import gitrepo
from changelog_tools.errors import GitError
from changelog_tools.gitrepo import objects, open_repo
from tests.conftest import commit_files, git
from tests.gitrepo.conftest import Opener


def test_tree_of_is_git_rev_parse_of_the_tree(opened: Opener, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    one = commit_files(tmp_path, {"a": "a\n", "d/b": "b\n"}, "one")
    empty = commit_files(tmp_path, {}, "empty: the same tree")
    two = commit_files(tmp_path, {"a": "a2\n"}, "two")
    repo = opened(tmp_path)
    for rev in (one, two, "HEAD", "main~1", f"{one}^{{tree}}"):
        assert repo.tree_of(rev) == git(tmp_path, "rev-parse", f"{rev}^{{tree}}")
    assert repo.tree_of(one) == repo.tree_of(empty) != repo.tree_of(two)
    subtree = git(tmp_path, "rev-parse", f"{one}:d")
    assert repo.tree_of(subtree) == subtree  # a tree names itself
    with pytest.raises(GitError, match="'nope' names no tree"):
        repo.tree_of("nope")
    blob = git(tmp_path, "rev-parse", f"{one}:a")
    with pytest.raises(GitError, match="names no tree"):
        repo.tree_of(blob)


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
def test_read_blob_follows_symlinks_as_git_cat_file_does(
    opened: Opener, links: Path, path: str
) -> None:
    repo = opened(links)
    assert repo.read_blob("HEAD", path) == cat_file(links, "HEAD", path)


def test_a_symlink_reads_as_the_file_it_names(opened: Opener, links: Path) -> None:
    repo = opened(links)
    read = {path: repo.read_blob("HEAD", path) for path in LOOKUPS}
    assert read["dir/sub/upup"] == b"impl\n"
    assert read["linkdir/sub/b.txt"] == read["to_dir/b.txt"] == b"b\n"
    assert read["chain"] == read["dir/up"] == b"top\n"
    assert read["outside"] is read["absolute"] is read["loop1"] is read["to_dir"] is None


def test_read_blob_reads_names_git_can_hold_and_refuses_unknown_revisions(
    opened: Opener,
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
    repo = opened(path)
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


@pytest.mark.parametrize("path", LOOKUPS)
def test_read_blob_once_reads_what_read_blob_reads_without_gitpython(
    links: Path, path: str
) -> None:
    once = gitrepo.open_repo(links)
    assert once.read_blob_once("HEAD", path) == gitrepo.open_repo(links).read_blob("HEAD", path)
    assert once._handle is None  # one plain process: GitPython was never opened


def test_read_blob_once_reads_names_git_can_hold_and_refuses_unknown_revisions(
    tmp_path: Path,
) -> None:
    path = tmp_path / "names"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "sp ace.txt").write_bytes(b"space\n")
    (path / "überall").mkdir()
    (path / "überall/ä.sh").write_bytes(b"umlaut\n")
    (path / "empty").write_bytes(b"")
    fd = os.open(os.fsencode(path) + b"/latin\xff.txt", os.O_CREAT | os.O_WRONLY)
    os.write(fd, b"latin-1\n")
    os.close(fd)
    first = commit_with_submodule(path, "1" * 40)
    (path / "sp ace.txt").write_bytes(b"changed\n")
    commit_files(path, {}, "two")
    repo = gitrepo.open_repo(path)
    assert repo.read_blob_once("HEAD", "sp ace.txt") == b"changed\n"
    assert repo.read_blob_once(first, "sp ace.txt") == b"space\n"
    assert repo.read_blob_once("HEAD~1", "überall/ä.sh") == b"umlaut\n"
    assert repo.read_blob_once("HEAD", os.fsdecode(b"latin\xff.txt")) == b"latin-1\n"
    assert repo.read_blob_once("HEAD", "empty") == b""
    assert repo.read_blob_once("HEAD", "sub") is None  # a submodule is not a file
    assert repo.read_blob_once("HEAD", "sub/x") is None
    for bad in ("no-such-branch", "HEAD^{tree}", "HEAD\nHEAD"):
        assert repo._handle is None  # the plain process, until a name with a line break
        with pytest.raises(GitError, match="unknown git revision"):
            repo.read_blob_once(bad, "sp ace.txt")


def test_first_commit_is_the_first_name_of_a_commit(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    sha = commit_files(tmp_path, {"a": "a\n"}, "one")
    git(tmp_path, "tag", "-a", "-m", "t", "annotated")
    tree = git(tmp_path, "rev-parse", "HEAD^{tree}")
    repo = open_repo(tmp_path)
    names = ("refs/remotes/origin/main", "refs/heads/main", "HEAD")
    assert repo.first_commit(names) == "refs/heads/main"
    assert repo.first_commit(("nope", tree, "annotated", "HEAD")) == "annotated"
    assert repo.first_commit(("nope", tree, "a b")) is None
    assert repo.first_commit(()) is None
    assert repo._handle is None  # one plain process each: GitPython was never opened
    assert repo.first_commit(("HEAD\nx", "main")) == "main"  # such a name: GitPython's reader
    loaded = open_repo(tmp_path)
    assert loaded.rev_parse("HEAD") == sha  # GitPython's reader now answers
    assert loaded.first_commit(names) == "refs/heads/main"
    assert loaded.first_commit(("nope", tree)) is None


def test_names_resolve_as_git_rev_parse_resolves_them(opened: Opener, tmp_path: Path) -> None:
    path = tmp_path / "names"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    first = commit_files(path, {"a": "1\n"}, "one")
    second = commit_files(path, {"a": "2\n"}, "two")
    git(path, "tag", "-a", "-m", "annotated", "v1", first)
    repo = opened(path)
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
    # A name that is not UTF-8 is never sent (GitPython's reader refuses it), either way.
    subprocess.run(["git", "update-ref", b"refs/heads/caf\xe9", first], cwd=path, check=True)
    assert repo.try_rev_parse(os.fsdecode(b"refs/heads/caf\xe9")) is None
    assert repo.try_rev_parse("refs/heads/café") is None  # another branch: no such name
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


def test_changed_paths_is_git_diff_name_only_in_its_order(
    opened: Opener, trees: tuple[Path, str, str]
) -> None:
    path, left, right = trees
    repo = opened(path)
    for a, b in ((left, right), (right, left), (left, left), ("main~1", "main")):
        expected = listed(path, "diff", "--name-only", "-z", "--no-renames", a, b)
        assert repo.changed_paths(a, b) == expected
    assert {"new\nline", "sub", "file_to_dir", "file_to_dir/now"} <= set(
        repo.changed_paths(left, right)
    )
    with pytest.raises(GitError, match="unknown git revision 'nope'"):
        repo.changed_paths("nope", right)


def test_tree_changes_is_git_diff_tree_in_its_order(
    opened: Opener, trees: tuple[Path, str, str]
) -> None:
    path, left, right = trees
    repo = opened(path)
    for a, b in ((left, right), (right, left), (left, left)):
        ta, tb = (git(path, "rev-parse", f"{c}^{{tree}}") for c in (a, b))
        expected = listed(path, "diff-tree", "-r", "-z", "--name-only", "--no-renames", ta, tb)
        assert repo.tree_changes(ta, tb) == expected
        assert repo.tree_changes(f"{a}^{{tree}}", f"{b}^{{tree}}") == expected
    with pytest.raises(GitError, match="names no tree"):
        repo.tree_changes(f"{left}^{{tree}}", left)


def test_same_file_only_for_one_regular_file_at_both_revisions(
    opened: Opener,
    trees: tuple[Path, str, str],
) -> None:
    path, left, right = trees
    repo = opened(path)
    assert repo.same_file(left, right, "same/deep/a.txt")
    assert not repo.same_file(left, right, "edit/x.sh")  # edited
    assert not repo.same_file(left, right, "mode.sh")  # mode changed
    assert not repo.same_file(left, left, "link")  # a symlink's target may differ
    assert not repo.same_file(left, left, "sub")  # a submodule
    assert not repo.same_file(left, right, "gone.txt")
    assert not repo.same_file("nope", right, "same/deep/a.txt")


def test_tree_entries_list_every_blob_as_git_ls_tree_with_symlinks_by_mode(
    opened: Opener, links: Path
) -> None:
    repo = opened(links)
    entries = {e.path: e for e in repo.tree_entries("HEAD")}
    listed = git(links, "ls-tree", "-r", "--name-only", "--full-tree", "HEAD").splitlines()
    assert sorted(entries) == sorted(listed)
    assert entries["same"].is_symlink and not entries["top.txt"].is_symlink
    assert entries["top.txt"].sha == git(links, "rev-parse", "HEAD:top.txt")


def test_read_blob_from_a_known_copy_is_exactly_the_blob(opened: Opener, tmp_path: Path) -> None:
    # Whatever copy the caller offers, the answer is the committed blob's bytes: taken from
    # the copy only when git's id of those bytes is the blob's id (worth_from=0: even for
    # files this small).
    git(tmp_path, "init", "-q", "-b", "main")
    base = b"- one\n\n- two\n"
    head = base + b"\n- three\n"
    first = commit_files(tmp_path, {"log.yaml": base.decode(), "other": "x\n"}, "one")
    second = commit_files(tmp_path, {"log.yaml": head.decode()}, "two")
    repo = opened(tmp_path)

    def read(rev: str, known: bytes, path: str = "log.yaml") -> bytes | None:
        return repo.read_blob_from(rev, path, known, worth_from=0)

    assert read(second, head) == head
    assert read(first, head) == base  # the start of the later version
    assert read(second, head + b"\n- four\n") == head  # a work tree with more in it
    # Same length as the blob but other bytes; shorter than the blob; empty: git's bytes.
    assert read(first, b"- ONE\n\n- TWO\n") == base
    assert read(second, base) == head
    assert read(second, b"") == head
    assert read(second, head, "other") == b"x\n"
    assert read(second, head, "missing") is None
    assert read(second, head, ".") is None  # a directory is no file
    with pytest.raises(GitError, match="unknown git revision 'nope'"):
        read("nope", head)
    for rev in (first, second):  # every answer is what git itself says
        said = subprocess.run(
            ["git", "cat-file", "blob", f"{rev}:log.yaml"], cwd=tmp_path, capture_output=True
        )
        assert read(rev, head) == said.stdout


def test_read_blob_from_proves_a_large_copy_and_reads_a_small_one_as_is(
    opened: Opener, tmp_path: Path
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    base = b"".join(b"- entry %d\n\n" % i for i in range(120_000))  # over 1 MiB
    first = commit_files(tmp_path, {"log.yaml": base.decode()}, "one")
    head = base + b"- the new one\n"
    second = commit_files(tmp_path, {"log.yaml": head.decode()}, "two")
    repo = opened(tmp_path)
    assert len(base) > 1 << 20
    assert repo.read_blob_from(second, "log.yaml", head) == head
    assert repo.read_blob_from(first, "log.yaml", head) == base
    assert repo.read_blob_from(first, "log.yaml", b"x" + head[1:]) == base  # not its start
    assert repo.read_blob_from(second, "log.yaml", b"small") == head


def counting_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a `git` first on PATH that logs each command line and runs the real git; its log."""
    real = shutil.which("git")
    assert real is not None
    log, bin_dir = tmp_path / "git.log", tmp_path / "counting-bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real} "$@"\n')
    (bin_dir / "git").chmod(0o755)
    log.write_text("")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def test_objects_named_by_full_ids_are_read_once_and_moving_names_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    first = commit_files(tmp_path, {"a": "1\n", "d/b": "b\n"}, "one")
    tree = git(tmp_path, "rev-parse", f"{first}^{{tree}}")
    repo = open_repo(tmp_path)
    log = counting_git(tmp_path, monkeypatch)

    def asked() -> list[str]:
        return log.read_text().splitlines()

    assert repo.read_blob(first, "d/b") == b"b\n"
    # the commit and its tree in one process, then the subtree and the blob
    assert asked() == ["cat-file --batch"] * 3
    assert repo.read_blob(first, "d/b") == b"b\n"
    assert repo.rev_parse(first) == first and repo.has_commit(first)
    assert repo.tree_of(first) == tree
    assert repo.read_blob(first, "a") == b"1\n"
    assert asked() == ["cat-file --batch"] * 4  # only the blob `a` was new
    # HEAD, a branch and an abbreviated id can come to name another commit: asked every time
    assert repo.read_blob("HEAD", "a") == b"1\n"
    assert repo.rev_parse(first[:12]) == first
    assert len(asked()) == 6
    second = commit_files(tmp_path, {"a": "2\n"}, "two")
    assert repo.read_blob("HEAD", "a") == repo.read_blob("main", "a") == b"2\n"
    assert repo.rev_parse("HEAD") == second
    assert repo._handle is None


def test_the_object_memory_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    commit_files(tmp_path, {f"f{i}": f"{i}\n" for i in range(8)}, "eight files")
    blobs = [git(tmp_path, "rev-parse", f"HEAD:f{i}") for i in range(8)]
    monkeypatch.setattr(objects, "_MEMO_NAMES", 3)
    repo = open_repo(tmp_path)
    assert [repo.read_object(b) for b in blobs] == [f"{i}\n".encode() for i in range(8)]
    assert list(repo._objects) == blobs[-3:]  # the newest, the oldest gone
    assert repo._objects_size == 6
    log = counting_git(tmp_path, monkeypatch)
    assert repo.read_object(blobs[0]) == b"0\n"  # forgotten: asked again
    assert repo.read_object(blobs[7]) == b"7\n"  # remembered
    assert log.read_text().splitlines() == ["cat-file --batch"]


def test_a_missing_object_is_asked_again_once_git_has_it(opened: Opener, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    commit_files(tmp_path, {"a": "1\n"}, "one")
    repo = opened(tmp_path)
    sha = subprocess.run(
        ["git", "hash-object", "--stdin"], cwd=tmp_path, input=b"later\n",
        capture_output=True, check=True,
    ).stdout.decode().strip()  # fmt: skip
    for name in (sha, f"{sha}^{{commit}}", f"{sha}^{{tree}}"):
        assert repo._lookup(name) is None
    with pytest.raises(GitError, match=f"git object {sha} is missing"):
        repo.read_object(sha)
    subprocess.run(
        ["git", "hash-object", "-w", "--stdin"], cwd=tmp_path, input=b"later\n", check=True,
        capture_output=True,
    )  # fmt: skip
    assert repo.read_object(sha) == b"later\n"
    assert repo._lookup(f"{sha}^{{commit}}") is None  # a blob peels to no commit


def test_a_sha256_repository_reads_as_a_sha1_one(tmp_path: Path) -> None:
    # GitPython's reader takes 40-digit ids only; the plain reader and the tree parser take
    # either length.
    git(tmp_path, "init", "-q", "-b", "main", "--object-format=sha256")
    first = commit_files(tmp_path, {"a": "1\n", "d/b": "b\n"}, "one")
    (tmp_path / "link").symlink_to("d/b")
    second = commit_files(tmp_path, {"a": "2\n"}, "two")
    repo = open_repo(tmp_path)
    assert len(first) == 64 and repo.rev_parse("HEAD") == second
    assert repo.read_blob(first, "d/b") == repo.read_blob(second, "link") == b"b\n"
    assert repo.read_blob(second, "a") == b"2\n"
    assert repo.changed_paths(first, second) == ["a", "link"]
    assert repo.tree_of(second) == git(tmp_path, "rev-parse", f"{second}^{{tree}}")


def test_a_blob_over_the_limit_is_refused_from_its_size(opened: Opener, tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    commit_files(tmp_path, {"big": "x" * 100, "small": "y" * 99}, "one")
    repo = opened(tmp_path)
    assert repo.read_blob("HEAD", "small", max_size=99) == b"y" * 99
    assert repo.read_blob("HEAD", "big", max_size=100) == b"x" * 100
    with pytest.raises(gitrepo.BlobTooLarge) as info:
        opened(tmp_path).read_blob("HEAD", "big", max_size=99)
    assert (info.value.ref, info.value.size, info.value.limit) == ("HEAD", 100, 99)
    assert info.value.message == "big at HEAD is 100 bytes; the limit is 99 (`max-file-size`)"
    # A copy the caller holds (of any length) does not get past the limit either.
    with pytest.raises(gitrepo.BlobTooLarge):
        repo.read_blob_from("HEAD", "big", b"x" * 100, worth_from=1, max_size=99)
    with pytest.raises(gitrepo.BlobTooLarge):
        repo.read_blob_from("HEAD", "big", b"x", max_size=99)
    assert repo.read_blob("HEAD", "missing", max_size=1) is None


def _tree_with_twice(repo: Path, name: bytes, first: str, second: str) -> str:
    """A tree (written as is, git's checks bypassed) holding ``name`` twice, ``first`` first."""
    record = b"".join(b"100644 " + name + b"\0" + bytes.fromhex(oid) for oid in (first, second))
    return subprocess.run(
        ["git", "hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
        cwd=repo, input=record, capture_output=True, check=True,
    ).stdout.decode().strip()  # fmt: skip


def test_a_tree_naming_an_entry_twice_is_damaged_never_one_of_them(
    opened: Opener, tmp_path: Path
) -> None:
    """git reads the first of the two, a mapping would keep the last: neither is chosen."""
    git(tmp_path, "init", "-q", "-b", "main")
    commit_files(tmp_path, {"f": "first\n"}, "one")
    first = git(tmp_path, "rev-parse", "HEAD:f")
    second = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=tmp_path,
                            input=b"second\n", capture_output=True, check=True).stdout.decode()  # fmt: skip
    tree = _tree_with_twice(tmp_path, b"f", first, second.strip())
    commit = git(tmp_path, "commit-tree", tree, "-m", "dup")
    assert git(tmp_path, "show", f"{commit}:f") == "first"  # what git itself reads
    repo = opened(tmp_path)
    with pytest.raises(GitError, match=f"git tree {tree} is damaged: it names 'f' twice"):
        repo.read_blob(commit, "f")
    with pytest.raises(GitError, match="is damaged"):
        repo.changed_paths("HEAD", commit)


def test_names_that_run_to_their_end_are_resolved_before_they_are_peeled(
    opened: Opener, tmp_path: Path
) -> None:
    """`:/text` searches commit messages for everything after `:/`, `REV:path` names a path:
    a peel appended to them searched for "text^{commit}" (nothing) or another path."""
    git(tmp_path, "init", "-q", "-b", "main")
    init = commit_files(tmp_path, {"a": "a\n", "d/b": "b\n"}, "initial import")
    commit_files(tmp_path, {"a": "a2\n"}, "second")
    repo = opened(tmp_path)
    for name in (":/initial", ":/second", ":/^initial imp"):
        assert repo.rev_parse(name) == git(tmp_path, "rev-parse", name)
    assert repo.user_commit(":/initial") == init
    assert repo.has_commit(":/init") and not repo.has_commit(":/no such message")
    assert repo.read_blob(":/initial", "a") == b"a\n"
    assert repo.read_blob_once(":/initial", "a") == b"a\n"
    assert repo.changed_paths(":/initial", "HEAD") == ["a"]
    assert repo.tree_of("HEAD:d") == git(tmp_path, "rev-parse", "HEAD:d")
    assert repo.first_commit(("nope", ":/second")) == ":/second"
    with pytest.raises(GitError, match="names no commit"):
        repo.rev_parse("HEAD:d")  # a tree is no commit, however it is named
