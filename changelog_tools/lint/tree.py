"""What the rules read: a tree of files at one revision, never the working tree.

A :class:`TreeView` answers two questions, the bytes of a path and the paths under a prefix.
:class:`GitTree` answers them from a commit through :mod:`changelog_tools.gitrepo`;
:class:`MemoryTree` from a dict (callers that already hold the bytes, such as `signoff verify`
reading a pull request through the API, and tests).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from changelog_tools.gitrepo import GitRepo, read_object


class TreeView(Protocol):
    def read(self, path: str) -> bytes | None:
        """The exact bytes of ``path``; None when there is no such file in this tree."""
        ...

    def paths(self, prefix: str = "") -> tuple[str, ...]:
        """Every file path under ``prefix`` (a directory path or ""), sorted."""
        ...


def _under(path: str, prefix: str) -> bool:
    if not prefix:
        return True
    directory = prefix.rstrip("/")
    return path == directory or path.startswith(directory + "/")


_SYMLINK = "symlink"  # in a listing instead of the object id: the link's bytes are a name


@dataclass(frozen=True)
class GitTree:
    """A :class:`TreeView` over the commit ``ref`` of ``repo`` (bytes read from git objects)."""

    repo: GitRepo
    ref: str
    # Caches: a rule may ask twice for the same file; listing the tree is one git call, and
    # once it is listed a file is read by its object id (no tree walk per path).
    _blobs: dict[str, bytes | None] = field(default_factory=dict, compare=False, repr=False)
    _listing: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    _listed: list[bool] = field(default_factory=list, compare=False, repr=False)
    _links: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def read(self, path: str) -> bytes | None:
        if path not in self._blobs:
            if self._listed and self._listing.get(path) != _SYMLINK:
                sha = self._listing.get(path)
                self._blobs[path] = read_object(self.repo, sha) if sha else None
            else:  # a symlink reads as its target (the blob reader follows it), as checked out
                self._blobs[path] = self.repo.read_blob(self.ref, path)
        return self._blobs[path]

    def paths(self, prefix: str = "") -> tuple[str, ...]:
        if not self._listed:
            for entry in self.repo.tree_entries(self.ref):
                self._listing[entry.path] = _SYMLINK if entry.is_symlink else entry.sha
                if entry.is_symlink:
                    self._links[entry.path] = entry.sha
            self._listed.append(True)
        return tuple(sorted(p for p in self._listing if _under(p, prefix)))

    def link_target(self, path: str) -> str | None:
        """The file of this tree the symlink ``path`` points at; None when ``path`` is no
        symlink, or points outside the tree or at another symlink."""
        self.paths()
        sha = self._links.get(path)
        return self._target(path, sha) if sha else None

    def _target(self, name: str, sha: str) -> str | None:
        """The file of this tree the symlink ``name`` (object ``sha``) points at, or None."""
        import posixpath

        target = read_object(self.repo, sha).decode("utf-8", "replace")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
        regular = self._listing.get(resolved)
        return resolved if regular is not None and regular != _SYMLINK else None


@dataclass(frozen=True)
class MemoryTree:
    """A :class:`TreeView` over ``files`` (path -> bytes)."""

    files: Mapping[str, bytes]

    def read(self, path: str) -> bytes | None:
        return self.files.get(path)

    def paths(self, prefix: str = "") -> tuple[str, ...]:
        return tuple(sorted(p for p in self.files if _under(p, prefix)))


def changed_paths(base: TreeView | None, head: TreeView, *, repo: GitRepo | None = None,
                  base_ref: str | None = None, head_ref: str | None = None) -> tuple[str, ...]:  # fmt: skip
    """Paths that differ between ``base`` and ``head`` (added, modified or deleted).

    With a repository and both refs this is one `git diff`; otherwise the two listings are
    compared file by file (MemoryTree callers hold few files).
    """
    if repo is not None and base_ref is not None and head_ref is not None:
        return tuple(repo.changed_paths(base_ref, head_ref))
    head_paths = set(head.paths())
    if base is None:
        return tuple(sorted(head_paths))
    base_paths = set(base.paths())
    out = {p for p in head_paths ^ base_paths}
    out.update(p for p in head_paths & base_paths if head.read(p) != base.read(p))
    return tuple(sorted(out))
