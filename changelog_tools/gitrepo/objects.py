"""Objects and names, read without a process per file.

A file at a revision, a tree, a blob by id and ``rev_parse`` are asked of ``git cat-file
--batch``: while GitPython is not loaded, one short process per object (:meth:`Runner._run_plain`:
`check` and `lint` ask for about a dozen objects, fewer than importing GitPython costs, about
70 ms with its bytecode compiled and 160 ms on a fresh CI runner); once it is loaded, its
persistent reader (``Git.get_object_data``), one pipe round trip each. git's ``--batch``
replies and trees are parsed by :mod:`~changelog_tools.gitrepo.objectformat`; trees are walked
here, so a path is found, and symlinks in it followed, without a process per file.
Tree diffs (``changed_paths``, ``tree_changes``) walk the two trees the same way and read only
the subtrees that differ.

Objects never change, so an object asked for by a name that cannot move (a full object id, or
one peeled to its commit or tree) is remembered for the repository's lifetime, within a bound
(:meth:`Objects._lookup`); names that can move (HEAD, refs) are asked every time.
"""

from __future__ import annotations

from dataclasses import dataclass

from changelog_tools.errors import DataError, GitError, UsageError
from changelog_tools.gitrepo.objectformat import (
    _FILE,
    _KIND,
    _LINK,
    _TREE,
    _batch_records,
    _canon_mode,
    _header,
    _object_id,
    _tree_entries,
)
from changelog_tools.gitrepo.runner import (
    Runner,
    _ascii,
    _failures,
    _no_git,
    _one_line,
    _text,
    git_environment,
)

# GitPython's ValueError for a name git answered "missing" or "ambiguous" to (3.1.41 to 3.2).
_UNRESOLVED = "could not be resolved"
# What the object memory holds at most: the objects `check` reads twice are two commits, their
# trees and the ledger's blob (a few MiB for a long history).
_MEMO_BYTES = 64 << 20
_MEMO_NAMES = 1024
# Peeled names whose answer is as immutable as the id they peel.
_PEELS = ("^{commit}", "^{tree}")
# Below this size git sends a file faster than a second reader (for its size) starts:
# :meth:`Objects.read_blob_from` then simply reads it.
_WORTH_PROVING = 1 << 20
# git's own limit on symlinks followed in one lookup (GET_TREE_ENTRY_FOLLOW_SYMLINKS_MAX_LINKS).
_MAX_LINKS = 40


class BlobTooLarge(DataError):
    """A file at a revision is larger than the caller's limit; none of it was read."""

    def __init__(self, ref: str, path: str, size: int, limit: int) -> None:
        self.ref = ref
        self.size = size
        self.limit = limit
        super().__init__(
            f"{path} at {ref} is {size:,} bytes; the limit is {limit:,} (`max-file-size`)"
        )


@dataclass(frozen=True)
class TreeEntry:
    """One blob of a tree: its mode (``100644``, ``100755``, ``120000`` a symlink), object id
    and path."""

    mode: str
    sha: str
    path: str

    @property
    def is_symlink(self) -> bool:
        return self.mode == "120000"


class Objects(Runner):
    """What a repository holds: objects by name, files at revisions, differences of trees."""

    def _lookup(self, name: str) -> tuple[str, str, bytes] | None:
        """(object id, type, bytes) of the object ``name`` names, or None when it names none.

        A full object id, alone or peeled (``<id>^{commit}``, ``<id>^{tree}``), always names
        the same object, so its answer is remembered, and every object found is remembered by
        its id; a missing object is asked again (a fetch may bring it)."""
        if "\n" in name:
            return None  # the reader takes one name a line
        fixed = _immutable(name)
        if fixed:
            found = self._remembered(name)
            if found is not None:
                return found
        found = self._ask(name) if self._gitpython_loaded else self._ask_plain(name)
        if found is not None:  # by its own id too: HEAD moves, the commit it named does not
            self._remember(name if fixed else found[0], found)
        return found

    def _ask(self, name: str) -> tuple[str, str, bytes] | None:
        """:meth:`_lookup` through GitPython's persistent reader."""
        runner = self._repo.git
        try:
            with _failures(f"git cat-file {name!r}"):
                try:
                    sha, kind, _size, data = runner.get_object_data(name)
                except ValueError as exc:
                    # A name that is not UTF-8 is refused before it is sent, so no such object.
                    if isinstance(exc, UnicodeError) or _UNRESOLVED in str(exc):
                        return None
                    raise
        except BaseException:  # also Ctrl-C or SIGTERM halfway through a reply
            runner.clear_cache()  # the reader may be out of step with its pipe: start anew
            raise
        return _ascii(sha), _ascii(kind), data

    def _ask_plain(self, name: str) -> tuple[str, str, bytes] | None:
        """:meth:`_lookup` from one ``git cat-file --batch`` process (GitPython not loaded).

        A commit is asked for to read a file in it, through its tree: the same process sends
        the tree too, which is remembered by its id (immutable even when ``name`` is not)."""
        names = (name, f"{name}^{{tree}}") if name.endswith(_PEELS[0]) else (name,)
        try:
            request = "".join(f"{asked}\n" for asked in names).encode("utf-8")
        except UnicodeError:  # as GitPython sends a name: one that is not UTF-8 is refused
            return None  # before it is sent, so no such object
        status, out, err = self._run_plain(("cat-file", "--batch"), request)
        if status != 0:
            reason = _one_line(err) or f"exit status {status}"
            raise GitError(f"git cat-file {name!r} failed: {reason}")
        records = _batch_records(out, names)
        if not records:
            raise GitError(f"git cat-file {name!r} failed: git sent no answer")
        tree = records[1] if len(records) > 1 else None
        if records[0] is not None and tree is not None:
            self._remember(tree[0], tree)
        return records[0]

    def _remembered(self, name: str) -> tuple[str, str, bytes] | None:
        """The object ``name`` (see :func:`_immutable`) names, from memory; None if unknown."""
        found = self._objects.get(name)
        if found is not None:
            return found
        for peel in _PEELS:
            if name.endswith(peel):
                known = self._objects.get(name[: -len(peel)])
                break
        else:
            return None
        kind = peel[2:-1]
        if known is None or known[1] == kind:
            return known
        if kind == "tree" and known[1] == "commit" and known[2].startswith(b"tree "):
            return self._objects.get(known[2][5 : known[2].find(b"\n")].decode("ascii"))
        return None

    def _remember(self, name: str, found: tuple[str, str, bytes]) -> None:
        """Keep ``found`` under ``name`` and its own id; the oldest go past the bound."""
        for key in {name, found[0]}:
            if key not in self._objects and len(found[2]) <= _MEMO_BYTES // 4:
                self._objects[key] = found
                self._objects_size += len(found[2])
        while self._objects_size > _MEMO_BYTES or len(self._objects) > _MEMO_NAMES:
            oldest = next(iter(self._objects))
            self._objects_size -= len(self._objects.pop(oldest)[2])

    def _peeled(self, name: str, peel: str) -> tuple[str, str, bytes] | None:
        """:meth:`_lookup` of ``name`` peeled by ``peel`` (``^{commit}``, ``^{tree}``).

        A name with a colon in it runs to its end (``:/text`` searches commit messages for
        the rest, ``REV:path`` names the rest as a path): the peel appended would become part
        of the text or the path. Such a name is resolved first, then its object id peeled."""
        if ":" in name:
            found = self._lookup(name)
            if found is None:
                return None
            name = found[0]
        return self._lookup(f"{name}{peel}")

    def _tree(self, oid: str) -> dict[bytes, tuple[int, str]]:
        """The entries of the tree ``oid``: name -> (mode, object id)."""
        entries = self._trees.get(oid)
        if entries is None:
            found = self._lookup(oid)
            if found is None or found[1] != "tree":
                raise GitError(f"git tree {oid} is missing")
            entries = self._trees[self._keep(found)]
        return entries

    def _keep(self, found: tuple[str, str, bytes]) -> str:
        """Parse and cache the tree ``found`` (as :meth:`_lookup` returned it); its id."""
        oid = found[0]
        if oid not in self._trees:
            self._trees[oid] = _tree_entries(oid, found[2])
        return oid

    def _root(self, ref: str) -> str | None:
        """The tree of the commit ``ref`` names; None when it names no commit."""
        found = self._peeled(ref, "^{commit}")
        if found is None:
            return None
        header = found[2][: found[2].find(b"\n")]  # a commit starts "tree <id>"
        if not header.startswith(b"tree "):
            raise GitError(f"git commit {found[0]} has no tree")
        return header[5:].decode("ascii")

    def _find(self, root: str, path: str) -> tuple[int, str] | None:
        """(mode, object id) at ``path`` in the tree ``root``, every symlink on the way followed
        as ``git cat-file --follow-symlinks`` follows it (so a ``*_mtp.sh`` link reads as the
        script it names, as in a checkout); None when nothing is there, or a link leaves the
        tree, dangles or loops. Like git, ``..`` climbs and ``.`` names nothing."""
        parts = path.encode("utf-8", "surrogateescape").split(b"/")
        trail = [root]  # the trees from the root down to the current directory
        links = 0
        while parts:
            name = parts.pop(0)
            if not name:  # "a//b"
                continue
            if name == b"..":
                if len(trail) == 1:
                    return None
                trail.pop()
                continue
            entry = self._tree(trail[-1]).get(name)
            if entry is None:
                return None
            mode, oid = entry
            if mode & _KIND == _TREE:
                trail.append(oid)
            elif mode & _KIND == _LINK:
                links += 1
                target = self._lookup(oid)
                if links > _MAX_LINKS or target is None or target[2].startswith(b"/"):
                    return None
                parts[:0] = target[2].split(b"/")  # relative to the link's own directory
            elif parts:
                return None  # a file (or a submodule) where the path needs a directory
            else:
                return mode, oid
        return _TREE, trail[-1]

    def rev_parse(self, ref: str) -> str:
        """The commit ``ref`` names; GitError when it names none."""
        found = self._peeled(ref, "^{commit}")
        if found is None:
            raise GitError(f"{ref!r} names no commit in {self.path}")
        return found[0]

    def has_commit(self, ref: str) -> bool:
        """True when ``ref`` names a commit present in the repository."""
        return self._peeled(ref, "^{commit}") is not None

    def try_rev_parse(self, ref: str) -> str | None:
        try:
            return self.rev_parse(ref)
        except GitError:
            return None

    def user_commit(self, ref: str) -> str:
        """The commit a revision the user typed (``--base-ref``, ``--ref``) names.

        A revision that does not exist here is the command line's fault, not git's: a usage
        error (exit 2) with one wording everywhere and a hint, never retried.
        """
        sha = self.try_rev_parse(ref)
        if sha is None:
            raise UsageError(
                f"unknown revision {ref!r} in {self.path}",
                hint="fetch it first (CI checkouts need `fetch-depth: 0`), or check the spelling",
            )
        return sha

    def read_blob(self, ref: str, path: str, *, max_size: int | None = None) -> bytes | None:
        """Exact bytes of ``path`` at ``ref``; None when the path does not exist there.

        With ``max_size``, a larger blob raises :class:`BlobTooLarge` from its size alone,
        before any of it is read (a 300 MB file would otherwise take twice that in memory)."""
        root = self._root(ref)
        if root is None:
            raise GitError(f"unknown git revision {ref!r}")
        found = self._find(root, path)
        if found is None or found[0] & _KIND != _FILE:
            return None  # absent, a directory or a submodule: there is no file of that name
        if max_size is not None:
            return self._read_capped(ref, path, found[1], max_size)
        return self.read_object(found[1])

    def _read_capped(self, ref: str, path: str, oid: str, limit: int) -> bytes:
        """The blob ``oid`` (``path`` at ``ref``) when it is at most ``limit`` bytes, else
        BlobTooLarge. Without GitPython one ``cat-file --batch`` process is read up to the
        header and stopped there when the blob is too large: the same one process a small
        blob costs, not a second one to ask its size first."""
        if self._gitpython_loaded or self._remembered(oid) is not None:
            self._within(ref, path, oid, limit)  # from memory, or the persistent reader
            return self.read_object(oid)
        import subprocess

        try:
            proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                cwd=self.path,
                env=git_environment(self._env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except FileNotFoundError:
            if _no_git():
                raise GitError("git is not installed (no `git` on PATH)") from None
            raise GitError(f"git cat-file {oid} failed: {self.path} is missing") from None
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        try:
            try:
                proc.stdin.write(oid.encode("ascii") + b"\n")
                proc.stdin.close()
            except BrokenPipeError:
                pass  # git stopped at once: its stderr says why, below
            line = proc.stdout.readline()
            header = _header(line.removesuffix(b"\n")) if line else None
            if header is None or header[1] != "blob":
                reason = _one_line(_text(proc.stderr.read())) if not line else ""
                raise GitError(f"git object {oid} is missing" + (f": {reason}" if reason else ""))
            if header[2] > limit:
                raise BlobTooLarge(ref, path, header[2], limit)
            data = proc.stdout.read(header[2])
            if len(data) != header[2]:
                raise GitError(
                    f"git cat-file --batch sent {len(data)} of {header[2]} bytes of {oid}"
                )
        finally:
            if proc.poll() is None:
                proc.kill()  # a blob too large: the rest of it is never sent
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        found = (header[0], "blob", data)
        self._remember(oid, found)
        return data

    def _within(self, ref: str, path: str, oid: str, limit: int) -> int | None:
        """The size of the blob ``oid`` (``path`` at ``ref``); BlobTooLarge past ``limit``."""
        size = self._blob_size(oid)
        if size is not None and size > limit:
            raise BlobTooLarge(ref, path, size, limit)
        return size

    def first_commit(self, names: tuple[str, ...]) -> str | None:
        """The first of ``names`` that names a commit; None when none does.

        Asked of one ``git cat-file --batch-check`` process while GitPython is not loaded
        (see :meth:`_run_plain`), else of its reader, one name after the other.
        """
        if self._gitpython_loaded or any("\n" in name or ":" in name for name in names):
            return next((name for name in names if self.try_rev_parse(name)), None)
        lines = "".join(f"{name}^{{commit}}\n" for name in names)
        status, out, err = self._run_plain(("cat-file", "--batch-check"), lines.encode())
        if status != 0:
            raise GitError(f"git cat-file --batch-check failed: {_one_line(err) or status}")
        answers = out.split(b"\n")
        for name, answer in zip(names, answers, strict=False):
            fields = answer.split(b" ")
            if len(fields) == 3 and fields[1] == b"commit":
                return name
        return None

    def read_blob_once(self, ref: str, path: str) -> bytes | None:
        """:meth:`read_blob`, from one ``git cat-file --batch --follow-symlinks`` process while
        GitPython is not loaded (see :meth:`_run_plain`): for a command that reads one file
        from git. git follows the symlinks on the way as :meth:`read_blob` does; a path that
        is absent, leaves the tree, dangles, loops or is no file reads as None."""
        if self._gitpython_loaded or "\n" in ref or "\n" in path or ":" in ref:
            return self.read_blob(ref, path)  # (a colon: see _peeled)
        request = f"{ref}^{{commit}}\n{ref}:{path}\n".encode("utf-8", "surrogateescape")
        status, out, err = self._run_plain(("cat-file", "--batch", "--follow-symlinks"), request)
        if status != 0:
            raise GitError(f"git cat-file --batch failed: {_one_line(err) or status}")
        records = _batch_records(out, (ref, path))
        if not records or records[0] is None or records[0][1] != "commit":
            raise GitError(f"unknown git revision {ref!r}")
        if len(records) < 2 or records[1] is None or records[1][1] != "blob":
            return None
        return records[1][2]

    def read_blob_from(
        self,
        ref: str,
        path: str,
        known: bytes,
        *,
        worth_from: int = _WORTH_PROVING,
        max_size: int | None = None,
    ) -> bytes | None:
        """:meth:`read_blob`, taken from ``known`` when the blob is ``known`` or its start.

        ``known`` is a copy the caller already holds that the blob is likely to begin (the
        work tree's file for ``HEAD``; a later version of an append-only file for an earlier
        revision). git's own id of that many leading bytes of ``known`` is compared with the
        blob's id, so what is returned is exactly the blob; only its size is asked of git,
        which then need not inflate and send the whole file (most of `check`'s extra time on
        a long history). Anything else, and any ``known`` shorter than ``worth_from`` bytes,
        is read as :meth:`read_blob` reads it, ``max_size`` as there.
        """
        if len(known) < worth_from:
            return self.read_blob(ref, path, max_size=max_size)
        found = self._path_id(ref, path)
        if found is None or found[0] & _KIND != _FILE:
            return None
        oid = found[1]
        size = self._blob_size(oid) if max_size is None else self._within(ref, path, oid, max_size)
        if size is not None and size <= len(known):
            start = memoryview(known)[:size]
            if _object_id(start, len(oid)) == oid:
                return known if size == len(known) else bytes(start)
        return self.read_object(oid)

    def _blob_size(self, oid: str) -> int | None:
        """The size of the blob ``oid`` from its header alone; None when it is no blob."""
        known = self._remembered(oid) if _immutable(oid) else None
        if known is not None:
            return len(known[2]) if known[1] == "blob" else None
        if not self._gitpython_loaded:
            args = ("cat-file", "--batch-check")
            status, out, err = self._run_plain(args, oid.encode("utf-8", "surrogateescape") + b"\n")
            if status != 0:
                reason = _one_line(err) or f"exit status {status}"
                raise GitError(f"git cat-file --batch-check {oid} failed: {reason}")
            header = _header(out[: out.find(b"\n")])
            return header[2] if header is not None and header[1] == "blob" else None
        runner = self._repo.git
        try:
            with _failures(f"git cat-file --batch-check {oid}"):
                try:
                    _sha, kind, size = runner.get_object_header(oid)
                except ValueError as exc:
                    if _UNRESOLVED in str(exc):
                        return None
                    raise
        except BaseException:  # the header reader may be out of step with its pipe
            runner.clear_cache()
            raise
        return size if _ascii(kind) == "blob" else None

    def read_object(self, sha: str) -> bytes:
        """Exact bytes of the blob ``sha``."""
        found = self._lookup(sha)
        if found is None:
            raise GitError(f"git object {sha} is missing")
        return found[2]

    def same_file(self, a: str, b: str, path: str) -> bool:
        """Whether ``path`` is the same regular file (mode and blob) at revisions ``a`` and
        ``b``: then its bytes at one are its bytes at the other, and need not be read twice.
        Answered from the two parent trees (small); False whenever that cannot be told
        cheaply (a symlink, whose target may differ; a missing path or revision)."""
        directory, _, name = path.rpartition("/")
        seen = []
        for rev in (a, b):
            root = self._root(rev)
            parent = self._find(root, directory) if root is not None else None
            if parent is None or parent[0] != _TREE:
                return False
            entry = self._tree(parent[1]).get(name.encode("utf-8", "surrogateescape"))
            if entry is None or entry[0] not in (0o100644, 0o100755):
                return False
            seen.append(entry)
        return seen[0] == seen[1]

    def tree_entries(self, ref: str) -> list[TreeEntry]:
        """Every blob of the tree at ``ref``, recursively (symlinks included, by mode)."""
        out = self.git("ls-tree", "-r", "-z", "--full-tree", ref, strip=False)
        entries = []
        for record in out.split("\0"):
            meta, tab, name = record.partition("\t")
            if tab and meta.split(" ")[1:2] == ["blob"]:
                mode, _kind, sha = meta.split(" ")
                entries.append(TreeEntry(mode, sha, name))
        return entries

    # -- tree diffs ----------------------------------------------------------------------

    def changed_paths(self, a: str, b: str) -> list[str]:
        """Paths whose files differ between the revisions ``a`` and ``b`` (added, deleted or
        modified, renames as both): what ``git diff --name-only --no-renames A B`` lists, in
        its order."""
        trees = []
        for rev in (a, b):
            found = self._peeled(rev, "^{tree}")
            if found is None:
                raise GitError(f"unknown git revision {rev!r}")
            trees.append(self._keep(found))
        return self._changes(trees[0], trees[1])

    def tree_changes(self, a: str, b: str) -> list[str]:
        """Paths whose entries differ between the trees ``a`` and ``b`` name (tree ids or
        ``REV^{tree}``): what ``git diff-tree -r --name-only --no-renames A B`` lists, in its
        order, without a process of its own (the drift guard asks this of a fresh merge tree
        on every reuse)."""
        trees = []
        for name in (a, b):
            found = self._lookup(name)
            if found is None or found[1] != "tree":
                raise GitError(f"{name!r} names no tree in {self.path}")
            trees.append(self._keep(found))
        return self._changes(trees[0], trees[1])

    def _changes(self, a: str, b: str) -> list[str]:
        """The walk behind both diffs. Only subtrees whose ids differ are read. A name is a
        different entry as a file and as a directory (``x`` and ``x/``), as git sorts and
        compares them, so a file replaced by a directory is one deletion and N additions."""
        changed: list[str] = []

        def keyed(oid: str | None) -> dict[bytes, tuple[int, str]]:
            if oid is None:
                return {}
            return {
                name + b"/" if mode & _KIND == _TREE else name: (_canon_mode(mode), sha)
                for name, (mode, sha) in self._tree(oid).items()
            }

        def walk(left: str | None, right: str | None, prefix: bytes) -> None:
            old, new = keyed(left), keyed(right)
            for key in sorted(old.keys() | new.keys()):  # git's order: "a.b" < "a/" < "a0"
                x, y = old.get(key), new.get(key)
                if x == y:
                    continue
                if key.endswith(b"/"):
                    walk(x[1] if x else None, y[1] if y else None, prefix + key)
                else:
                    changed.append(_text(prefix + key))

        walk(a, b, b"")
        return changed

    def _path_id(self, rev: str, path: str) -> tuple[int, str] | None:
        root = self._root(rev)
        if root is None:
            raise GitError(f"unknown git revision {rev!r}")
        return self._find(root, path)

    def tree_of(self, rev: str) -> str:
        """The id of the tree ``rev`` names (``git rev-parse REV^{tree}``); GitError when it
        names none. Two commits with one tree changed no file between them."""
        found = self._peeled(rev, "^{tree}")
        if found is None:
            raise GitError(f"{rev!r} names no tree in {self.path}")
        return found[0]


def _immutable(name: str) -> bool:
    """Whether ``name`` always names the same object: a full object id (40 or 64 lowercase hex
    digits; git reads such a name as an id before any ref), alone or peeled to its commit or
    tree. HEAD, refs and abbreviated ids can come to name another object."""
    oid = name
    for peel in _PEELS:
        if name.endswith(peel):
            oid = name[: -len(peel)]
            break
    return len(oid) in (40, 64) and not oid.strip("0123456789abcdef")
