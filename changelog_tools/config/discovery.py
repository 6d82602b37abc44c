"""Finding and reading the configuration file: ``.changelog-tools.yaml`` or the
``[tool.changelog-tools]`` table of ``pyproject.toml``, searched upward to the repository root."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from changelog_tools.config.model import Config, build, git_top, repo_root
from changelog_tools.config.validation import validate
from changelog_tools.errors import ConfigError

CONFIG_FILENAME = ".changelog-tools.yaml"
PYPROJECT_TABLE = "changelog-tools"


def toml_error(exc: ValueError, text: str, name: str) -> ConfigError:
    """The configuration error for ``text`` (the file ``name``) failing to parse as TOML as
    ``exc`` says: ``FILE:LINE:COL: message``, the shape of every other configuration error."""
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    message = getattr(exc, "msg", None)
    if not (isinstance(line, int) and isinstance(column, int) and isinstance(message, str)):
        # Python 3.14 gives the parser's position as attributes; 3.11-3.13 only put it at the
        # end of the message, "(at line L, column C)" or "(at end of document)". Anything else
        # (a parser that words it otherwise) keeps its whole message, unplaced.
        import re

        message = str(exc)
        found = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", message, re.DOTALL)
        if found:
            message, line, column = found[1], int(found[2]), int(found[3])
        elif message.endswith(" (at end of document)"):
            message = message.removesuffix(" (at end of document)")
            line = text.count("\n") + 1
            column = len(text) - (text.rfind("\n") + 1) + 1
        else:
            return ConfigError(f"{name}: {message[:1].lower()}{message[1:]}")
    return ConfigError(f"{name}:{line}:{column}: {message[:1].lower()}{message[1:]}")


def options_from_text(text: str, name: str) -> dict[str, Any] | None:
    """The validated options of a configuration file's text (``name`` says which kind:
    ``pyproject.toml`` or YAML); None for a ``pyproject.toml`` without our table."""
    if Path(name).name == "pyproject.toml":
        import tomllib  # only a repository with a pyproject.toml pays for it

        try:
            table = tomllib.loads(text).get("tool", {}).get(PYPROJECT_TABLE)
        except tomllib.TOMLDecodeError as exc:
            raise toml_error(exc, text, name) from None
        if table is None:
            return None
        validate(table, name, None)  # TOML parsers keep no positions: the option names it
        return dict(table)
    from changelog_tools import yamlload

    try:
        loaded = yamlload.load(text)
    except yamlload.YamlProblem as exc:
        raise ConfigError(f"{name}:{exc.line}:{exc.column}: {exc.message}") from None
    values = {} if loaded.value is None else loaded.value
    validate(values, name, loaded)
    return dict(values)


def read_options(path: Path) -> dict[str, Any] | None:
    """The validated options of the configuration file at ``path`` (None as for
    :func:`options_from_text`); a file that cannot be read is a configuration error."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc}") from None
    return options_from_text(config_text(raw, str(path)), str(path))


def config_text(raw: bytes, name: str) -> str:
    """A configuration file's bytes as text; bytes that are not UTF-8 are a configuration
    error at the first bad byte (``name:LINE:COL``), never replaced and read on."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        from changelog_tools.utf8 import not_utf8

        # Where the bad byte is, in the words the changelog's own check uses for one.
        bad = not_utf8(raw, exc, name)
        raise ConfigError(f"{name}:{bad.line}:{bad.column}: {bad.message}", hint=bad.hint) from None


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """Search upward from ``start`` for a config file; return its path and validated values."""
    for directory in [start, *start.parents]:
        for candidate in (directory / CONFIG_FILENAME, directory / "pyproject.toml"):
            if candidate.is_file():
                values = read_options(candidate)
                if values is not None:
                    return candidate, values
        if (directory / ".git").exists():
            break  # the repository root bounds the search
    return None


def load_config(explicit: Path | None = None, *, start: Path | None = None) -> Config:
    """Load the configuration from ``explicit`` or by searching upward from ``start``."""
    start = (start or Path.cwd()).resolve()
    if explicit is not None:
        explicit = explicit.resolve()
        if not explicit.is_file():
            raise ConfigError(f"configuration file {explicit} does not exist")
        values = read_options(explicit)
        if values is None:
            raise ConfigError(f"{explicit} has no [tool.{PYPROJECT_TABLE}] table")
        root = explicit.parent
        here = git_top(start)
        if here is not None and git_top(root) is None:
            # A file outside any repository (a workflow's own, in a temporary directory) is
            # the caller's: its paths name files of the repository the command runs in, from
            # its top, as the options document; its own directory is no work tree at all.
            root = here
        return build(values, root, explicit)
    found = find_config(start)
    if found is None:
        return build({}, repo_root(start), None)
    path, values = found
    return build(values, path.parent, path)
