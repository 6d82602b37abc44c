"""The git adapter: short typed functions over the `git` command, handing plain values to the core.

It runs git itself (``subprocess``), and reads file contents at a revision through one
``git cat-file --batch`` process per repository: importing GitPython cost a `check` more than
its whole diff, and a pipe round trip per file is cheaper than a process per file. Every git
failure becomes :class:`~changelog_tools.errors.GitError` with the command's message.
Variables git exports to hooks (GIT_DIR, GIT_INDEX_FILE, ...) are scrubbed so the tool never
acts on a repository other than the one it was pointed at.
"""

from __future__ import annotations

import os
import subprocess
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from changelog_tools.errors import GitError, UsageError

# `git rev-parse --local-env-vars` on git 2.39: set by git for hooks, poison for a tool.
GIT_LOCAL_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_SHALLOW_FILE",
    "GIT_INTERNAL_SUPER_PREFIX",
)


def scrub_environment() -> None:
    """Remove hook-exported git variables from this process and make git non-interactive."""
    for name in GIT_LOCAL_VARS:
        os.environ.pop(name, None)
    os.environ["GIT_TERMINAL_PROMPT"] = "0"
    os.environ.setdefault("GIT_EDITOR", "true")


class GitRepo:
    """A local repository (work tree or bare); every git command runs in it."""

    def __init__(self, *, path: Path, git_dir: Path) -> None:
        self.path = path  # the work tree's top (the git dir for a bare repository)
        self.git_dir = git_dir
        self._env: dict[str, str] = {}
        self._reader: _BlobReader | None = None

    def __repr__(self) -> str:
        return f"GitRepo({str(self.path)!r})"

    def _run(self, args: tuple[str, ...]) -> subprocess.CompletedProcess[bytes]:
        env = {**os.environ, **self._env, **_C_LOCALE}
        try:
            return subprocess.run(
                ["git", *args],
                cwd=self.path,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=False,
            )
        except FileNotFoundError:
            raise GitError("git is not installed (no `git` on PATH)") from None

    def git(self, *args: str, strip: bool = True) -> str:
        """Run ``git ARGS`` in this repository and return stdout; raise GitError on failure.

        With ``strip`` one trailing newline is removed (git ends its answers with one).
        """
        proc = self._run(args)
        if proc.returncode != 0:
            # git's message can span lines: one line instead.
            reason = " ".join(_text(proc.stderr).split()) or f"exit status {proc.returncode}"
            raise GitError(f"git {' '.join(args)} failed: {reason}")
        return _strip(_text(proc.stdout), strip)

    def git_status(self, *args: str) -> tuple[int, str, str]:
        """Run ``git ARGS`` without raising: (exit status, stdout, stderr), each one trailing
        newline removed."""
        proc = self._run(args)
        return proc.returncode, _strip(_text(proc.stdout), True), _strip(_text(proc.stderr), True)

    def update_environment(self, **env: str) -> None:
        """Set variables for every later git command run in this repository."""
        self._env.update(env)
        self.close()  # a running blob reader would not see them

    def git_ok(self, *args: str) -> bool:
        """Run ``git ARGS``; True when it exits 0 (for yes/no questions such as is-ancestor)."""
        return self._run(args).returncode == 0

    def rev_parse(self, ref: str) -> str:
        """The commit ``ref`` names; GitError when it names none.

        Asked of the blob reader (a pipe round trip) rather than a `git rev-parse` process:
        a check resolves HEAD and the main branch's candidates before it reads a file.
        """
        found = self._blobs().lookup(f"{ref}^{{commit}}") if "\n" not in ref else None
        if found is None:
            raise GitError(f"{ref!r} names no commit in {self.path}")
        return found[0]

    def has_commit(self, ref: str) -> bool:
        """True when ``ref`` names a commit present in the repository."""
        return "\n" not in ref and self._blobs().lookup(f"{ref}^{{commit}}") is not None

    def try_rev_parse(self, ref: str) -> str | None:
        try:
            return self.rev_parse(ref)
        except GitError:
            return None

    def _blobs(self) -> _BlobReader:
        if self._reader is None:
            env = {**os.environ, **self._env, **_C_LOCALE}
            self._reader = _BlobReader(self.path, env)
        return self._reader

    def read_blob(self, ref: str, path: str) -> bytes | None:
        """Exact bytes of ``path`` at ``ref``; None when the path does not exist there."""
        reader = self._blobs()
        if "\n" in ref or reader.lookup(f"{ref}^{{commit}}") is None:
            raise GitError(f"unknown git revision {ref!r}")
        found = reader.lookup(f"{ref}:{path}") if "\n" not in path else self._slow_blob(ref, path)
        if found is None or found[1] != "blob":
            return None  # absent, a directory or a submodule: there is no file of that name
        return found[2]

    def _slow_blob(self, ref: str, path: str) -> tuple[str, str, bytes] | None:
        # `git cat-file --batch` reads one object name a line; a path holding a newline cannot
        # be one, so ask a process of its own.
        kind = self._run(("cat-file", "-t", f"{ref}:{path}"))
        if kind.returncode != 0:
            return None
        data = self._run(("cat-file", "blob", f"{ref}:{path}"))
        return ("", _text(kind.stdout).strip(), data.stdout) if data.returncode == 0 else None

    def read_object(self, sha: str) -> bytes:
        """Exact bytes of the blob ``sha``."""
        found = self._blobs().lookup(sha)
        if found is None:
            raise GitError(f"git object {sha} is missing")
        return found[2]

    def close(self) -> None:
        """Stop the blob reader, if one runs (it also stops when this process ends)."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def merge_base(self, a: str, b: str) -> str:
        return self.git("merge-base", a, b)

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return self.git_ok("merge-base", "--is-ancestor", ancestor, descendant)

    def changed_paths(self, a: str, b: str) -> list[str]:
        # -z: without it git C-quotes a path holding non-ASCII bytes, quotes or control
        # characters ("a/\303\274.sh"), and no rule would match that name.
        out = self.git("diff", "--name-only", "-z", "--no-renames", a, b, strip=False)
        return [name for name in out.split("\0") if name]

    def tree_changes(self, a: str, b: str) -> list[str]:
        """Paths whose entries differ between the trees ``a`` and ``b`` name (tree ids or
        ``REV^{tree}``): the paths ``git diff-tree -r --name-only --no-renames A B`` lists
        (the same set; sorted by name, not in git's tree order), read
        through the blob reader instead of a process of its own (the drift guard asks this
        of a fresh merge tree on every reuse). Only the subtrees that differ are read."""
        reader = self._blobs()

        def entries(name: str | None) -> dict[bytes, tuple[int, str]]:
            if name is None:
                return {}
            found = reader.lookup(name) if "\n" not in name else None
            if found is None or found[1] != "tree":
                raise GitError(f"{name!r} names no tree in {self.path}")
            return {name: (_canon_mode(mode), oid) for name, mode, oid in _tree_entries(found)}

        changed: list[str] = []

        def walk(left: str | None, right: str | None, prefix: bytes) -> None:
            old, new = entries(left), entries(right)
            for name in sorted(old.keys() | new.keys()):
                x, y = old.get(name), new.get(name)
                if x == y:
                    continue
                path = prefix + name
                x_tree = x is not None and x[0] == _TREE
                y_tree = y is not None and y[0] == _TREE
                if (x is not None and not x_tree) or (y is not None and not y_tree):
                    changed.append(_text(path))  # a file, link or submodule changed
                if x_tree or y_tree:
                    walk(
                        x[1] if x and x_tree else None, y[1] if y and y_tree else None, path + b"/"
                    )

        walk(a, b, b"")
        return changed

    def same_file(self, a: str, b: str, path: str) -> bool:
        """Whether ``path`` is the same regular file (mode and blob) at revisions ``a`` and
        ``b``: then its bytes at one are its bytes at the other, and need not be read twice.
        Answered from the two parent trees (small) through the blob reader; False whenever
        that cannot be told cheaply (a symlink, whose target may differ; a missing path)."""
        if "\n" in a or "\n" in b or "\n" in path:
            return False
        directory, _, name = path.rpartition("/")
        reader = self._blobs()
        seen = []
        for rev in (a, b):
            tree = reader.lookup(f"{rev}:{directory}")
            if tree is None or tree[1] != "tree":
                return False
            entry = next(
                ((mode, oid) for n, mode, oid in _tree_entries(tree) if n == name.encode()),
                None,
            )
            if entry is None or entry[0] not in (0o100644, 0o100755):
                return False
            seen.append(entry)
        return seen[0] == seen[1]

    def current_branch(self) -> str | None:
        out = self.git("symbolic-ref", "--quiet", "--short", "HEAD") if self._on_branch() else ""
        return out or None

    def _on_branch(self) -> bool:
        return self.git_ok("symbolic-ref", "--quiet", "HEAD")

    def is_clean(self) -> bool:
        return not self.git("status", "--porcelain", "--untracked-files=no")


_TREE = 0o040000


def _tree_entries(found: tuple[str, str, bytes]) -> Iterator[tuple[bytes, int, str]]:
    """(name, mode, object id) of each entry of a tree object the blob reader returned."""
    width = len(found[0]) // 2  # the hash's size in bytes: 20 for SHA-1, 32 for SHA-256
    raw, i = found[2], 0
    while i < len(raw):  # "<mode> <name>\0<id>" per entry
        space = raw.index(b" ", i)
        nul = raw.index(b"\0", space)
        yield raw[space + 1 : nul], int(raw[i:space], 8), raw[nul + 1 : nul + 1 + width].hex()
        i = nul + 1 + width


def _canon_mode(mode: int) -> int:
    """A tree entry's mode as git compares it: a file is 644 or 755 whatever else it says."""
    kind = mode & 0o170000
    if kind == 0o100000:
        return 0o100755 if mode & 0o100 else 0o100644
    if kind in (0o120000, _TREE):
        return kind
    return 0o160000  # a gitlink (submodule)


# git's messages in English whatever the user's locale, so errors read the same everywhere.
_C_LOCALE = {"LC_ALL": "C", "LANGUAGE": "C"}


def _text(data: bytes) -> str:
    # Paths and messages are bytes to git; undecodable ones survive a round trip.
    return data.decode("utf-8", "surrogateescape")


def _strip(text: str, strip: bool) -> str:
    return text[:-1] if strip and text.endswith("\n") else text


class _BlobReader:
    """One ``git cat-file --batch`` process that answers every object read of a command.

    A check reads the changelog and each master config at two revisions; one long-lived
    process instead of a git process (or GitPython's pure-Python object reader) per read keeps
    that to a pipe round trip each.
    """

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        try:
            self._proc = subprocess.Popen(
                # --follow-symlinks: a symlink in a tree reads as its target's bytes, as in a
                # checkout (without it, a `*_mtp.sh` symlink read as the target's name).
                ["git", "cat-file", "--batch", "--follow-symlinks"],
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except FileNotFoundError:
            raise GitError("git is not installed (no `git` on PATH)") from None
        # Closing stdin ends the process when this reader is collected or the process exits.
        self._finalizer = weakref.finalize(self, _stop, self._proc)

    def lookup(self, name: str) -> tuple[str, str, bytes] | None:
        """(object id, type, bytes) of the object ``name`` names, or None when there is none."""
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline()
        except OSError:
            header = b""
        if not header:
            raise GitError(f"git cat-file stopped while reading {name!r}")
        if header.endswith((b" missing\n", b" ambiguous\n")):
            return None  # "<name> missing": a name may hold spaces, so match the end
        fields = header.split()
        if len(fields) == 2 and fields[0] in _NO_TARGET and fields[1].isdigit():
            # A symlink leaving the tree, dangling, looping or through a file: no file here.
            # The reply is "<kind> <size>" then that many bytes and a newline.
            proc.stdout.read(int(fields[1].decode("ascii")) + 1)
            return None
        if len(fields) != 3 or not fields[2].isdigit():
            raise GitError(f"git cat-file answered {header!r} for {name!r}")
        size = int(fields[2].decode("ascii"))
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # the newline after the contents
        if len(data) != size:
            raise GitError(f"git cat-file stopped while reading {name!r}")
        return fields[0].decode("ascii"), fields[1].decode("ascii"), data

    def close(self) -> None:
        self._finalizer()


# `git cat-file --follow-symlinks` replies for a symlink it cannot follow inside the tree.
_NO_TARGET = (b"symlink", b"dangling", b"loop", b"notdir")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.stdin is not None:
        proc.stdin.close()
    if proc.stdout is not None:
        proc.stdout.close()
    proc.wait()


def open_repo(path: Path | str = ".") -> GitRepo:
    """Open the repository containing ``path``."""
    scrub_environment()
    where = Path(path).absolute()
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--is-bare-repository", "--absolute-git-dir", "--show-cdup"],
            cwd=where,
            env={**os.environ, **_C_LOCALE},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:
        if not where.is_dir():
            raise UsageError(f"{path} is not inside a git repository") from None
        raise GitError("git is not installed (no `git` on PATH)") from None
    except NotADirectoryError:
        raise UsageError(f"{path} is not inside a git repository") from None
    lines = _text(proc.stdout).split("\n")
    if proc.returncode != 0 or len(lines) < 2:
        raise UsageError(f"{path} is not inside a git repository")
    git_dir = Path(lines[1])
    if lines[0] == "true":
        return GitRepo(path=git_dir, git_dir=git_dir)
    # The top as the user's path names it (not symlink-resolved), like the caller's paths.
    top = Path(os.path.normpath(where / lines[2])) if len(lines) > 2 and lines[2] else where
    return GitRepo(path=top, git_dir=git_dir)


@contextmanager
def working_directory(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def main_ref(repo: GitRepo, main_branch: str, remote: str) -> str:
    """The best local name of the main branch: the remote-tracking ref when present."""
    for candidate in (f"refs/remotes/{remote}/{main_branch}", f"refs/heads/{main_branch}"):
        if repo.try_rev_parse(candidate):
            return candidate
    raise GitError(
        f"neither {remote}/{main_branch} nor {main_branch} exists in {repo.path}; "
        f"fetch it (git fetch {remote} {main_branch}) or pass --base-ref"
    )


def default_base(repo: GitRepo, *, head: str, main_branch: str, remote: str) -> str:
    """The merge-base of ``head`` and the main branch: what a pull request's change is against.

    Diffing against main's tip instead would make every branch that is behind main look like it
    deleted main's new entries.
    """
    main = main_ref(repo, main_branch, remote)
    try:
        return repo.merge_base(head, main)
    except GitError:
        shallow = repo.git_ok("rev-parse", "--is-shallow-repository") and (
            repo.git("rev-parse", "--is-shallow-repository") == "true"
        )
        raise GitError(
            f"{head[:12]} and {main} have no common ancestor"
            + (" in this shallow clone" if shallow else ""),
            hint="fetch the whole history (actions/checkout: `fetch-depth: 0`) or pass --base-ref",
        ) from None


def read_index_stages(repo: GitRepo, path: str) -> dict[int, bytes]:
    """Exact bytes of every index stage of ``path``: 1 merge-base, 2 ours, 3 theirs (0 if clean).

    A stage that is absent (add/add has no 1, delete/modify lacks 2 or 3) is simply not in the
    result; an untracked path gives ``{}``.
    """
    listed = repo.git("ls-files", "--stage", "-z", "--", f":(top,literal){path}", strip=False)
    stages: dict[int, bytes] = {}
    for record in listed.split("\0"):
        meta, tab, name = record.partition("\t")
        if tab and name == path:
            _mode, sha, stage = meta.split()
            stages[int(stage)] = read_object(repo, sha)
    return stages


def read_object(repo: GitRepo, sha: str) -> bytes:
    """Exact bytes of the object ``sha`` (a blob), trailing newline included."""
    return repo.read_object(sha)


def operation_in_progress(repo: GitRepo) -> str | None:
    """The git operation under way: rebase, am, cherry-pick, revert or merge; None when idle.

    During a merge driver's run only the rebase markers exist yet (MERGE_HEAD and
    CHERRY_PICK_HEAD are written after the merge machinery returns).
    """
    gd = repo.git_dir
    if (gd / "rebase-merge").is_dir():
        return "rebase"
    if (gd / "rebase-apply").is_dir():
        return "am" if (gd / "rebase-apply" / "applying").exists() else "rebase"
    for name, operation in (
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("MERGE_HEAD", "merge"),
    ):
        if (gd / name).is_file():
            return operation
    return None


def special_head(repo: GitRepo, name: str) -> str | None:
    """The commit in ``$GIT_DIR/NAME`` (MERGE_HEAD, CHERRY_PICK_HEAD, FETCH_HEAD for merge)."""
    try:
        text = (repo.git_dir / name).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        # FETCH_HEAD lines: "<sha>\t[not-for-merge]\t<description>"; the first mergeable wins.
        sha, _, rest = line.partition("\t")
        if sha and not rest.startswith("not-for-merge"):
            return sha.strip()
    return None


def git_status(repo: GitRepo, *args: str) -> tuple[int, str, str]:
    """Run ``git ARGS`` without raising: (exit status, stdout, stderr), for commands such as
    ``merge-tree`` whose non-zero status is an answer rather than a failure."""
    return repo.git_status(*args)


def repo_relative(repo: GitRepo, path: Path | str, *, start: Path | None = None) -> str:
    """``path`` as git names it in a tree: relative to the work tree's top, ``/``-separated.

    A relative ``path`` starts from ``start`` (default: the top), so a configuration file in a
    subdirectory, ``./x`` and absolute paths all name the same tree entry. Raises
    :class:`UsageError` for a path outside the work tree.
    """
    top = repo.path.resolve()
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = (start.resolve() if start is not None else top) / candidate
    # normpath, not resolve(): the path need not exist in the work tree, only at the revision.
    normal = Path(os.path.normpath(candidate))
    for root in (top, repo.path.absolute()):
        try:
            return normal.relative_to(root).as_posix()
        except ValueError:
            continue
    try:
        return normal.resolve().relative_to(top).as_posix()
    except ValueError:
        raise UsageError(f"{path} is outside the repository {top}") from None
