"""Installing the merge driver: the ``.gitattributes`` line and the git config whose command
git runs on every conflicting commit (:mod:`.mergedriver` is what that command does).

Kept apart from the driver itself, which git starts once per replayed commit of a rebase and
which never installs anything.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from changelog_tools import __version__
from changelog_tools.config import Config
from changelog_tools.errors import GitError
from changelog_tools.fsutil import atomic_write
from changelog_tools.gitrepo import GitRepo, repo_relative


def gone_message(python: str) -> str:
    return (
        f"the Python it was installed with ({python}) is gone (was its virtualenv removed?), or "
        "changelog-tools was uninstalled from it, so "
        "the file was not resolved; git's conflict markers are in it. Reinstall: `pip install "
        f"perf-changelog-tools=={__version__}`, run `changelog-tools install-merge-driver`, then "
        "`changelog-tools resolve` (or resolve by hand)."
    )


def driver_command(executable: str | None = None, *, package_main: str | None = None) -> str:
    """The shell command git runs: this Python, by absolute path, so PATH does not matter.

    When that Python is gone (a removed virtualenv), or the package is (`pip uninstall` keeps
    the Python, and `python -m` would fail before writing any marker), the command says so and
    how to reinstall, and leaves git's conflict markers (``git merge-file``) instead of a file
    that looks untouched. (git substitutes %O %A %B %L %P, the path shell-quoted, and runs it
    with sh.)
    """
    python = shlex.quote(executable or sys.executable)
    main = shlex.quote(package_main or str(Path(__file__).resolve().parent.parent / "__main__.py"))
    message = shlex.quote(gone_message(executable or sys.executable))
    return (
        f"[ -x {python} ] && [ -f {main} ] || "
        f"{{ echo changelog-tools merge-driver: %P: {message} >&2; "
        "git merge-file -L ours -L merge-base -L theirs --marker-size=%L %A %O %B; exit 1; }; "
        f"exec {python} -m changelog_tools merge-driver --marker-size %L %O %A %B %P"
    )


def attributes_line(changelog: str, name: str) -> str:
    pattern = "/" + changelog.lstrip("/")
    if any(c.isspace() for c in pattern) or '"' in pattern:
        pattern = '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{pattern} merge={name}"


@dataclass(frozen=True)
class Installed:
    """What :func:`install` changed (False: it was already so)."""

    attributes_file: Path
    attributes_line: str
    attributes_changed: bool
    config_scope: str
    config: dict[str, str]
    config_changed: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "attributes-file": str(self.attributes_file),
            "attributes-line": self.attributes_line,
            "attributes-changed": self.attributes_changed,
            "config-scope": self.config_scope,
            "config": self.config,
            "config-changed": self.config_changed,
        }


def install(
    repo: GitRepo, *, config: Config, global_: bool = False, executable: str | None = None
) -> Installed:
    """Write the ``.gitattributes`` line and the ``merge.<name>.*`` git config (idempotent)."""
    name = config.merge_driver_name
    # `.gitattributes` at the top names paths from there, wherever the configuration lives.
    line = attributes_line(repo_relative(repo, config.changelog, start=config.root), name)
    attributes = repo.path / ".gitattributes"
    try:
        existing = attributes.read_bytes()
    except FileNotFoundError:
        existing = b""
    except OSError as exc:
        raise GitError(f"cannot read {attributes}: {exc.strerror}") from None
    present = line.encode() in (ln.strip() for ln in existing.splitlines())
    if not present:
        glue = b"" if not existing or existing.endswith(b"\n") else b"\n"
        atomic_write(attributes, existing + glue + line.encode() + b"\n")
    scope = "global" if global_ else "local"
    wanted = {
        f"merge.{name}.name": f"{config.changelog} resolver (changelog-tools)",
        f"merge.{name}.driver": driver_command(executable),
        # For the virtual merge-base of a criss-cross merge, take one side's file as is instead
        # of running the resolver on bases that are not a PR and main.
        f"merge.{name}.recursive": "binary",
    }
    changed = False
    for key, value in wanted.items():
        if repo.config_get(key, scope=scope) != value:
            repo.config_set(key, value, scope=scope)
            changed = True
    return Installed(attributes, line, not present, scope, wanted, changed)
