"""What the rules read: a tree of files at one revision, never the working tree.

A :class:`TreeView` answers two questions, the bytes of a path and the paths under a prefix.
:class:`GitTree` answers them from a commit through :mod:`changelog_tools.gitrepo`;
:class:`MemoryTree` from a dict (callers that already hold the bytes, such as `signoff verify`
reading a pull request through the API, and tests).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
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


# How many links deep a change is followed (git's own limit on a chain of links is 40; a
# real tree chains two or three).
_LINK_CHAIN = 40
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
    # Files under a symlinked directory (git lists the link, never what is under it), as a
    # checkout has them: each path and the listed path it reads as.
    _through: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def read(self, path: str) -> bytes | None:
        if path not in self._blobs:
            sha = self._listing.get(path)
            if self._listed and sha != _SYMLINK and (sha or not self._behind_link(path)):
                self._blobs[path] = read_object(self.repo, sha) if sha else None
            else:  # a symlink reads as its target (the blob reader follows it), as checked out,
                # and so does a file under a symlinked directory the listing did not reach
                self._blobs[path] = self.repo.read_blob(self.ref, path)
        return self._blobs[path]

    def _behind_link(self, path: str) -> bool:
        """Whether a directory on the way to ``path`` is a symlink of the listing."""
        parts = path.split("/")
        return any("/".join(parts[:n]) in self._links for n in range(1, len(parts)))

    def paths(self, prefix: str = "") -> tuple[str, ...]:
        if not self._listed:
            for entry in self.repo.tree_entries(self.ref):
                self._listing[entry.path] = _SYMLINK if entry.is_symlink else entry.sha
                if entry.is_symlink:
                    self._links[entry.path] = entry.sha
            self._list_linked_directories()
            self._listed.append(True)
        return tuple(sorted(p for p in self._listing if _under(p, prefix)))

    def _list_linked_directories(self) -> None:
        """Add the files under each symlinked directory to the listing, under the link's name
        (a link whose target is reached through other links too, up to git's depth).

        Only git's own paths are copied under a link's name, never paths that were themselves
        reached through a link: two directories linking to each other would otherwise double
        the listing on every pass (a pull request could make `lint` exhaust the runner). A link
        inside a linked directory is listed as the link it is."""
        own = list(self._listing.items())
        found: dict[str, str] = {}
        for name, real in _followed(self._link_paths()).items():
            prefix = real + "/"
            for path, sha in own:
                if path.startswith(prefix):
                    reached = name + path[len(real) :]
                    if reached not in self._listing and reached not in found:
                        found[reached] = sha
                        self._through[reached] = path
        self._listing.update(found)

    def link_target(self, path: str) -> str | None:
        """The file of this tree the symlink ``path`` (or a file under a symlinked directory)
        points at; None when ``path`` is neither, or points outside the tree or at another
        symlink."""
        self.paths()
        through = self._through.get(path)
        if through is not None:
            return through if self._listing.get(through) not in (None, _SYMLINK) else None
        sha = self._links.get(path)
        return self._target(path, sha) if sha else None

    def links(self) -> dict[str, str]:
        """Every symlink of this tree and the path inside the tree it names (a file or a
        directory; normalised, not followed further). Links out of the tree are left out."""
        self.paths()
        return self._link_paths()

    def _link_paths(self) -> dict[str, str]:
        out = {}
        for name, sha in self._links.items():
            resolved = self._resolve(name, sha)
            if resolved is not None:
                out[name] = resolved
        return out

    def _resolve(self, name: str, sha: str) -> str | None:
        """The path the symlink ``name`` (object ``sha``) names inside this tree, or None."""
        import posixpath

        target = read_object(self.repo, sha).decode("utf-8", "replace")
        if target.startswith("/"):
            return None
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
        return None if resolved == ".." or resolved.startswith("../") else resolved

    def _target(self, name: str, sha: str) -> str | None:
        """The file of this tree the symlink ``name`` (object ``sha``) points at, or None."""
        resolved = self._resolve(name, sha)
        regular = self._listing.get(resolved) if resolved is not None else None
        return resolved if regular is not None and regular != _SYMLINK else None


@dataclass(frozen=True)
class MemoryTree:
    """A :class:`TreeView` over ``files`` (path -> bytes)."""

    files: Mapping[str, bytes]

    def read(self, path: str) -> bytes | None:
        return self.files.get(path)

    def paths(self, prefix: str = "") -> tuple[str, ...]:
        return tuple(sorted(p for p in self.files if _under(p, prefix)))


def same_file(base: TreeView, head: TreeView, path: str) -> bool:
    """Whether ``path`` reads the same at ``base`` and ``head``, symlinks on the way followed
    (as `check` compares the master configs): a path that is the same regular file in both
    trees is answered from two small tree reads, any other by reading both revisions' bytes.
    """
    if (
        isinstance(base, GitTree)
        and isinstance(head, GitTree)
        and base.repo is head.repo
        and head.repo.same_file(base.ref, head.ref, path)
    ):
        return True
    return base.read(path) == head.read(path)


def reached_through_links(head: TreeView, changed: Collection[str]) -> frozenset[str]:
    """Paths of ``head`` whose bytes ``changed`` through a symlink: a link to a changed file,
    and a file under a symlinked directory whose counterpart in the link's target changed.

    git lists a change under the target's name only; a rule that picks its files by name
    (or a master config configured under the link's name) must see the link's name too.
    """
    links_of = getattr(head, "links", None)
    if links_of is None or not changed:
        return frozenset()
    found: set[str] = set()
    for link, real in _followed(links_of()).items():
        if real in changed:
            found.add(link)
        prefix = real + "/"
        found.update(link + p[len(real) :] for p in changed if p.startswith(prefix))
    return frozenset(found - set(changed))


def _followed(links: Mapping[str, str]) -> dict[str, str]:
    """Each link and the path of git's own tree it leads to once every link on the way is
    followed (a link to a link, a link into a linked directory). Left out: chains longer than
    git follows or that loop, and a directory linked to itself or one of its ancestors (it
    names its own files endlessly)."""
    out = {}
    for name, target in links.items():
        real = _real_path(target, links)
        if real is None or real == "." or name == real or name.startswith(real + "/"):
            continue
        out[name] = real
    return out


def _real_path(path: str, links: Mapping[str, str]) -> str | None:
    """``path`` with the links on its way replaced by what they name; None for a loop."""
    import posixpath

    for _ in range(_LINK_CHAIN):
        parts = path.split("/")
        for n in range(1, len(parts) + 1):
            hop = links.get("/".join(parts[:n]))
            if hop is not None:
                path = posixpath.normpath("/".join([hop, *parts[n:]]))
                break
        else:
            return path
    return None


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
