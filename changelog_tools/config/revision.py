"""The configuration as it was at another git revision: the commands that judge a change read
the options that can loosen a rule from the base, not from the pull request."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from changelog_tools.config.discovery import (
    CONFIG_FILENAME,
    PYPROJECT_TABLE,
    config_text,
    options_from_text,
)
from changelog_tools.config.model import OPTIONS, Config


def has_options(raw: bytes) -> bool:
    """Whether a ``pyproject.toml``'s bytes hold our table (the upward search skips one that
    does not); a file that cannot be read counts as holding it, so its error is reported."""
    import tomllib

    try:
        table = tomllib.loads(raw.decode("utf-8")).get("tool", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
    return isinstance(table, dict) and PYPROJECT_TABLE in table


def config_file_at_revision(config: Config, repo: Any, rev: str) -> tuple[str, bytes | None] | None:
    """The configuration file the upward search would use at revision ``rev`` and its bytes
    (None: no file there, the options take their defaults); None for a ``config.source``
    outside the repository (`--config /elsewhere`, the caller's own).

    The search runs from the directory of the file in use (the top when there is none) up to
    the top, as :func:`find_config` does: reading only the head's file name at the base let a
    pull request that adds a ``.changelog-tools.yaml`` beside the base's ``pyproject.toml``
    (the search prefers it), or deletes the base's file, be judged by the defaults (review
    finding: `master-configs` silently emptied). A ``--config`` naming a file of another name
    is that file at the base.
    """
    from changelog_tools import gitrepo
    from changelog_tools.errors import UsageError

    searched = (CONFIG_FILENAME, "pyproject.toml")
    own = CONFIG_FILENAME
    if config.source is not None:
        try:
            own = gitrepo.repo_relative(repo, config.source)
        except UsageError:
            return None
    directory, _, name = own.rpartition("/")
    if name not in searched:
        candidates = [own]
    else:
        parts = directory.split("/") if directory else []
        candidates = [
            "/".join([*parts[:depth], file])
            for depth in range(len(parts), -1, -1)
            for file in searched
        ]
    for candidate in candidates:
        raw = repo.read_blob(rev, candidate)
        if raw is None or (candidate.endswith("pyproject.toml") and not has_options(raw)):
            continue  # absent, or a pyproject.toml without our table: the search goes on
        return candidate, raw
    return own, None


def values_from_text(text: str, *, name: str) -> dict[str, Any]:
    """The validated option values of a configuration file's text (``name`` says which kind:
    ``pyproject.toml`` or YAML), for reading a configuration at a git revision."""
    return options_from_text(text, name) or {}


def options_at_revision(
    config: Config, raw: bytes | None, *, name: str, names: Sequence[str], at: str
) -> Config:
    """``config`` with the options ``names`` as configuration file ``raw`` sets them (that file's
    bytes at revision ``at``, ``name`` its path there; None: the file is absent there, and the
    options take their defaults).

    A pull request's own configuration file must not decide how its change is judged: the
    commands that judge a change read the options that can loosen a rule from the base.
    """
    from dataclasses import replace

    from changelog_tools.errors import ConfigError

    try:
        values = values_from_text(config_text(raw, name), name=name) if raw else {}
    except ConfigError as exc:
        # The file in the work tree may well be fine (the pull request fixing it, say): name
        # the revision whose copy is broken, or the author looks for the error in the wrong file.
        exc.add_sentence(
            f"That is the file at {at}: its options judge the change, not the work tree's"
        )
        raise
    defaults = {o.name: o.default for o in OPTIONS}
    changes: dict[str, Any] = {}
    for option in names:
        value = values.get(option, defaults[option])
        changes[option.replace("-", "_")] = tuple(value) if isinstance(value, list) else value
    return replace(config, **changes)
