"""The tool's configuration: every option defined once (default, validation, documentation).

Configuration lives in ``.changelog-tools.yaml`` at the repository root, or in
``[tool.changelog-tools]`` of ``pyproject.toml``; the nearest one found searching upward from the
working directory wins, and ``--config PATH`` overrides the search. With no file at all the
defaults describe InferenceX, so the tool works there unconfigured. A file is checked against
the options' JSON Schema as it is read, and a bad value is reported at its line.

``schemas/config.schema.json`` and ``docs/configuration.md`` are generated from :data:`OPTIONS`
(``python scripts/gendocs.py``); a test keeps them in sync.

The rooms: ``option`` (what an option is), ``options_core`` and ``options_commands`` (the option
tables: shared options, and each command's prefixed ones), ``model`` (:class:`Config` built from
them),
``validation`` (the schema and what it cannot say), ``discovery`` (finding and reading the file),
``revision`` (the file as it was at another git revision) and ``docs`` (the generated reference).
"""

from __future__ import annotations

from changelog_tools.config.discovery import (
    CONFIG_FILENAME,
    PYPROJECT_TABLE,
    find_config,
    load_config,
)
from changelog_tools.config.docs import render_docs
from changelog_tools.config.model import OPTIONS, Config, defaults, field_names
from changelog_tools.config.option import Option
from changelog_tools.config.options_commands import LINT_RULE_IDS
from changelog_tools.config.revision import (
    config_file_at_revision,
    has_options,
    options_at_revision,
    values_from_text,
)
from changelog_tools.config.validation import config_schema

__all__ = [
    "CONFIG_FILENAME",
    "LINT_RULE_IDS",
    "OPTIONS",
    "PYPROJECT_TABLE",
    "Config",
    "Option",
    "config_file_at_revision",
    "config_schema",
    "defaults",
    "field_names",
    "find_config",
    "has_options",
    "load_config",
    "options_at_revision",
    "render_docs",
    "values_from_text",
]
