"""Entries the entry schema already accepted, remembered between runs under an exact key.

The merge driver runs once per replayed commit of a rebase, and each run validates the whole
result: every entry of history again, although the run before accepted the very same entries
(its result is this run's main side). jsonschema's verdict on an entry is a pure function of
the entry's value, the schema and the validator, so a verdict may be reused for an entry whose
value is identical, under a key that pins everything else the verdict depends on:

* the entry schema's bytes (a PR that edits the schema validates everything again);
* this tool's version and the installed jsonschema's version (a new release may judge
  differently), and ruamel.yaml's with its C parser's (the parser decides what value an entry
  has: a verdict must not outlive an upgrade of it);
* the options that change validation: none does today (the configuration does not touch the
  entry schema; byte rules, YAML rules and the file's structure are checked on every run and
  never remembered). A schema that uses ``format`` would make the verdict depend on which
  optional format checkers are installed, so such a schema turns the memory off.

The same holds for a whole file: the driver's result passed `validate` as a whole, and the next
run's main side is that file, byte for byte, with the next entry appended after it. Its digest
(with the file-size limit, the one option of whole-file validation) is kept too, and a file
that begins with those exact bytes has only its part from their last entry on parsed again
(:func:`changelog_tools.ledger.guard.require_whole_valid`).

Only "valid" verdicts are kept, each as the SHA-256 of the entry's canonical JSON. A file whose
first line is not exactly the current key is ignored whole, and any line that is not a digest
is skipped, so a stale, truncated or edited file can only cost a validation, never spare one:
an entry is trusted only if its own canonical form hashes to a stored digest. (Whoever can
write the repository's git directory also chooses the command git runs as the driver, so the
file needs no more protection than the git config beside it; CI validates from a fresh
checkout and never reads it.)
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from changelog_tools import __version__

if TYPE_CHECKING:
    from _hashlib import HASH

# json and the hash are imported where digests are made: every command that validates entries
# imports this module (to ask whether verdicts are remembered), only the merge driver digests.

_HEADER = "changelog-tools entry verdicts v1 "
_DIGEST_RE = re.compile(r"[0-9a-f]{64}")
_WHOLE_RE = re.compile(r"whole ([1-9][0-9]{0,11}) ([0-9a-f]{64})")
# Past this many remembered entries the file is not read (a file of that size is not ours).
MAX_REMEMBERED = 1_000_000


def _release(module: str, *distributions: str) -> str | None:
    """The installed version of the distribution providing ``module``, from its dist-info
    directory's name beside it (importing the module or importlib.metadata would cost more than
    the validation saved); None when it cannot be told."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        return None
    # The module's file is one directory deep per dotted part, below site-packages.
    origin = Path(spec.origin)
    site = origin.parents[module.count(".") + (1 if origin.name == "__init__.py" else 0)]
    try:
        names = os.listdir(site)
    except OSError:
        return None
    found = [
        n.removeprefix(f"{d}-").removesuffix(".dist-info")
        for n in names
        if n.endswith(".dist-info")
        for d in distributions
        if n.startswith(f"{d}-")
    ]
    if len(found) != 1:
        return None  # none, or several: which one is loaded cannot be told from the name
    return found[0]


def _jsonschema_release() -> str | None:
    """The installed jsonschema's version."""
    return _release("jsonschema", "jsonschema")


def _yaml_release() -> str | None:
    """The installed ruamel.yaml's version and its C parser's (or ``pure`` without it): the
    parser decides what an entry's value is, so a verdict is on the value it produced."""
    yaml = _release("ruamel.yaml", "ruamel.yaml", "ruamel_yaml")
    import importlib.util

    if yaml is None or importlib.util.find_spec("_ruamel_yaml") is None:
        return None if yaml is None else f"{yaml} pure"
    clib = _release("_ruamel_yaml", "ruamel.yaml.clib", "ruamel_yaml_clib")
    return None if clib is None else f"{yaml} clib {clib}"


def verdict_key(
    schema_text: bytes,
    *,
    tool_version: str,
    jsonschema_version: str | None,
    yaml_version: str | None,
) -> str | None:
    """The key verdicts are valid under, or None when no verdict may be reused."""
    if jsonschema_version is None or yaml_version is None or b'"format"' in schema_text:
        return None
    digest = sha256()
    for part in (
        b"entry-schema",
        schema_text,
        tool_version.encode(),
        jsonschema_version.encode(),
        yaml_version.encode(),
    ):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def current_key(schema_text: bytes) -> str | None:
    """:func:`verdict_key` for ``schema_text`` and this process's tool, jsonschema and YAML
    parser."""
    return verdict_key(
        schema_text,
        tool_version=__version__,
        jsonschema_version=_jsonschema_release(),
        yaml_version=_yaml_release(),
    )


def sha256(data: bytes = b"") -> HASH:
    """A SHA-256 hash of ``data`` (update it for more): the interpreter's own implementation
    when it has one, else hashlib's. Importing hashlib loads OpenSSL, about 2 ms that the merge
    driver would pay on every commit a rebase replays; the digest is the same either way."""
    import importlib
    import sys

    # The standard library's own module, named by version (3.12 merged _sha256 into _sha2).
    own = "_sha256" if sys.version_info < (3, 12) else "_sha2"
    try:
        new = importlib.import_module(own).sha256
    except ImportError:  # an interpreter built without its own hashes
        from hashlib import sha256 as new
    digest: HASH = new(data)
    return digest


_PLAIN = (str, int, float, bool, type(None))


def _plain(value: Any, depth: int = 0) -> bool:
    # Exact types only: JSON would write the int key 1 and the string key "1" alike, and a
    # subclass could compare or serialize unlike what jsonschema sees.
    if type(value) in _PLAIN:
        return True
    if depth > 64:
        return False
    if type(value) is list:
        return all(_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    return False


def entry_digest(entry: Any) -> str | None:
    """SHA-256 of ``entry``'s canonical JSON; None for a value JSON cannot tell apart exactly."""
    if type(entry) is not dict or not _plain(entry):
        return None
    import json

    text = json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def whole_digest(data: bytes, max_size: int | None) -> str:
    """SHA-256 of a whole file together with the size limit it was validated under."""
    digest = sha256(f"max-size {max_size}\n".encode())
    digest.update(data)
    return digest.hexdigest()


@dataclass
class KnownValid:
    """The digests of entries the schema accepted under ``key``, and which were used now;
    the whole files (length, :func:`whole_digest`) that passed `validate`."""

    key: str
    valid: set[str] = field(default_factory=set)
    used: set[str] = field(default_factory=set)
    whole: set[tuple[int, str]] = field(default_factory=set)
    whole_now: set[tuple[int, str]] = field(default_factory=set)

    def knows(self, digest: str | None) -> bool:
        if digest is not None and digest in self.valid:
            self.used.add(digest)
            return True
        return False

    def accept(self, digest: str | None) -> None:
        if digest is not None:
            self.valid.add(digest)
            self.used.add(digest)

    def valid_prefix(self, data: bytes, max_size: int | None) -> int:
        """The length of the longest start of ``data`` known to pass `validate` whole (0: none)."""
        for length, digest in sorted(self.whole, reverse=True):
            if length <= len(data) and whole_digest(data[:length], max_size) == digest:
                return length
        return 0

    def accept_whole(self, data: bytes, max_size: int | None) -> None:
        self.whole_now.add((len(data), whole_digest(data, max_size)))


_active: KnownValid | None = None


def active() -> KnownValid | None:
    """The verdicts in use (inside :func:`remembering`), or None."""
    return _active


@contextmanager
def remembering(known: KnownValid | None) -> Iterator[None]:
    """Within the block, an entry whose exact value ``known`` holds as valid is not validated
    again, nor the start of a file known valid whole; what passes now is added to ``known``."""
    global _active
    previous, _active = _active, known
    try:
        yield
    finally:
        _active = previous


def load(path: Path, key: str) -> KnownValid:
    """The verdicts stored at ``path`` under ``key``; none when the file is missing, unreadable,
    not a regular file (a FIFO, a device) or written under another key."""
    known = KnownValid(key)
    try:
        # Not blocking on the open, and only a regular file: a FIFO put there would make the
        # driver (and the rebase running it) wait forever, a device feed it without end.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return known
        with open(fd, encoding="ascii", errors="replace") as handle:
            if handle.readline() != _HEADER + key + "\n":
                return known
            for count, line in enumerate(handle):
                if count >= MAX_REMEMBERED:
                    return KnownValid(key)
                digest = line.rstrip("\n")
                if _DIGEST_RE.fullmatch(digest):
                    known.valid.add(digest)
                elif whole := _WHOLE_RE.fullmatch(digest):
                    known.whole.add((int(whole[1]), whole[2]))
    except OSError:
        return KnownValid(key)
    return known


def save(path: Path, known: KnownValid) -> None:
    """Store the verdicts used in this run (the entries of the file just written, so the file
    stays the size of one ledger's entries); failures are ignored: it is only a memory.

    Written through a temporary file and a rename, so a reader sees the old file or the new
    one, but not synced to disk: after a crash the file may be cut short or empty, which
    :func:`load` reads as fewer verdicts (a line is used only whole), never as more.
    """
    text = (
        _HEADER
        + known.key
        + "\n"
        + "".join(f"whole {n} {d}\n" for n, d in sorted(known.whole_now))
        + "".join(d + "\n" for d in sorted(known.used))
    )
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(text.encode("ascii"))
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
