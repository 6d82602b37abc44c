"""git's object formats, read without git: the replies of ``cat-file --batch``, tree objects,
blob ids and tree-entry modes. Pure functions of bytes, for :mod:`~changelog_tools.gitrepo.objects`."""

from __future__ import annotations

from changelog_tools.errors import GitError
from changelog_tools.gitrepo.runner import _text

# What `cat-file --batch --follow-symlinks` answers, with a size and a line of text, for a path
# it cannot follow to an object.
_NOT_FOLLOWED = (b"symlink", b"dangling", b"loop", b"notdir")
_KINDS = (b"blob", b"tree", b"commit", b"tag")
_TREE, _LINK, _FILE, _KIND = 0o040000, 0o120000, 0o100000, 0o170000


def _header(line: bytes) -> tuple[str, str, int] | None:
    """(object id, type, size) from a ``cat-file --batch`` header; None for a name git
    answered ``missing`` or ``ambiguous`` to."""
    fields = line.split(b" ")
    if line.endswith((b" missing", b" ambiguous")) or line in (b"missing", b"ambiguous"):
        return None
    if len(fields) != 3 or fields[1] not in _KINDS or not fields[2].isdigit():
        raise GitError(f"git cat-file --batch sent an unreadable header: {_text(line)!r}")
    return fields[0].decode("ascii"), fields[1].decode("ascii"), int(fields[2])


def _batch_records(out: bytes, names: tuple[str, ...]) -> list[tuple[str, str, bytes] | None]:
    """The replies of ``git cat-file --batch`` (``--follow-symlinks`` too) to ``names``, one
    per name answered: (object id, type, bytes), or None for a name that names no object (also
    a path it cannot follow: a symlink out of the tree, dangling or looping, or through a
    file). A reply cut short is a GitError."""
    records: list[tuple[str, str, bytes] | None] = []
    at = 0
    while at < len(out) and len(records) < len(names):
        end = out.find(b"\n", at)
        if end < 0:
            end = len(out)
        line = out[at:end]
        first, _, size = line.partition(b" ")
        if first in _NOT_FOLLOWED and size.isdigit():
            records.append(None)
            at = end + 1 + int(size) + 1  # the path or target git names, then its newline
            continue
        header = _header(line)
        if header is None:
            records.append(None)
            at = end + 1
            continue
        data = out[end + 1 : end + 1 + header[2]]
        if len(data) != header[2]:
            name = names[len(records)]
            raise GitError(f"git cat-file --batch sent {len(data)} of {header[2]} bytes of {name}")
        records.append((header[0], header[1], data))
        at = end + 1 + header[2] + 1  # the bytes, then a newline
    return records


def _tree_entries(oid: str, data: bytes) -> dict[bytes, tuple[int, str]]:
    """The entries of the tree ``oid`` whose bytes are ``data``: name -> (mode, object id).

    A tree is a run of ``MODE SP NAME NUL ID`` records, the id raw (20 bytes for SHA-1, 32 for
    SHA-256: as long as half of ``oid``'s hex). Names stay bytes: git's names are.

    Written here rather than taken from GitPython (``git.objects.fun.tree_entries_from_data``):
    importing that module loads the whole library, which is what reading without GitPython
    avoids, and it assumes 20-byte ids, so it cannot read a SHA-256 repository's trees."""
    width = len(oid) // 2
    entries = {}
    at = 0
    while at < len(data):
        space = data.find(b" ", at)
        nul = data.find(b"\0", space + 1)
        mode = data[at:space]
        if (
            space < 0
            or nul < 0
            or nul + 1 + width > len(data)
            or mode.strip(b"01234567")
            or not mode
        ):
            raise GitError(f"git tree {oid} is damaged")
        name = data[space + 1 : nul]
        if name in entries:
            # git reads the first of two entries of one name, a dict would keep the last: the
            # tree is damaged (git fsck: duplicateEntries), and neither copy is chosen silently.
            raise GitError(f"git tree {oid} is damaged: it names {_text(name)!r} twice")
        entries[name] = (int(mode, 8), data[nul + 1 : nul + 1 + width].hex())
        at = nul + 1 + width
    return entries


def _object_id(data: memoryview, hex_length: int) -> str:
    """git's id of ``data`` as a blob: SHA-1, or SHA-256 in a repository whose ids are 64 hex
    digits long."""
    import hashlib

    digest = hashlib.sha256() if hex_length == 64 else hashlib.sha1()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def _canon_mode(mode: int) -> int:
    """A tree entry's mode as git compares it: a file is 644 or 755 whatever else it says."""
    kind = mode & _KIND
    if kind == _FILE:
        return 0o100755 if mode & 0o100 else 0o100644
    if kind in (_LINK, _TREE):
        return kind
    return 0o160000  # a gitlink (submodule)
