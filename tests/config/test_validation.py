"""A configuration file checked as it is read: every bad value refused at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools import config
from changelog_tools.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        (
            "repo: a/b\n",
            ".changelog-tools.yaml:1:1: unknown option 'repo'",
            "did you mean 'remote'?",
        ),
        (
            "changelog: x\nmaster-config: [a]\n",
            ".changelog-tools.yaml:2:1: unknown option 'master-config'",
            "did you mean 'master-configs'?",
        ),
        ("zzz: 1\n", "unknown option 'zzz'", "see docs/configuration.md"),
        ("max_file_size: 5\n", "unknown option 'max_file_size'", "did you mean 'max-file-size'?"),
        (
            "max-file-size: -1\n",
            ".changelog-tools.yaml:1:16: option max-file-size: must be at least 1, not -1",
            None,
        ),
        ("master-configs: []\n", ":1:17: option master-configs: must not be empty", None),
        (
            "repository: not a repo\n",
            ":1:13: option repository: must match ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$, "
            "not 'not a repo'",
            None,
        ),
        ("github-retries: many\n", "option github-retries: must be an integer, not 'many'", None),
        ("check-poll-interval: 0\n", "option check-poll-interval: must be greater than 0", None),
        (
            "whitespace-only-separator: warn\n",
            "option whitespace-only-separator: must be one of 'error', 'warning', not 'warn'",
            "did you mean 'warning'?",
        ),
        (
            "lint-rules: {master-schma: off}\n",
            ":1:14: option lint-rules: unknown field 'master-schma'",
            "did you mean 'master-schema'?",
        ),
        (
            "lint-allow:\n  - rule: models\n    reason: retired on purpose\n    paht: x\n",
            ":4:5: option lint-allow[0]: unknown field 'paht'",
            "did you mean 'path'?",
        ),
        (
            "lint-allow:\n  - rule: models\n    reason: short\n",
            ":3:13: option lint-allow[0].reason: must be at least 10 characters long",
            None,
        ),
        (
            "lint-sku-pattern: '(h100'\n",
            ":1:19: option lint-sku-pattern: not a valid regular expression: missing )",
            None,
        ),
        # the first problem in the file is the one named, an unknown option before any
        ("github-retries: -1\nmax-file-size: 0\n", ":1:17: option github-retries:", None),
        ("max-file-size: 0\nremot: x\n", ":2:1: unknown option 'remot'", "did you mean 'remote'?"),
        ("- a\n", "configuration must be a mapping", None),
        ("a: [\n", ".changelog-tools.yaml:2:1: invalid YAML", None),
    ],
)
def test_bad_configuration_is_a_config_error(
    tmp_path: Path, text: str, message: str, hint: str | None
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".changelog-tools.yaml").write_text(text)
    with pytest.raises(ConfigError) as info:
        config.load_config(start=tmp_path)
    assert message in info.value.message
    assert info.value.message.startswith(str(tmp_path.resolve() / ".changelog-tools.yaml"))
    assert info.value.hint == hint


def test_a_bad_pyproject_option_is_named_without_a_line(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text("[tool.changelog-tools]\nmax-file-size = 0\n")
    with pytest.raises(ConfigError) as info:
        config.load_config(start=tmp_path)
    where = tmp_path.resolve() / "pyproject.toml"
    assert info.value.message == f"{where}: option max-file-size: must be at least 1, not 0"


def test_every_option_default_satisfies_its_own_schema() -> None:
    import jsonschema

    defaults = {o.name: o.default for o in config.OPTIONS}
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER  # the defaults' regexes compile
    jsonschema.Draft202012Validator(config.config_schema(), format_checker=checker).validate(
        defaults
    )
    jsonschema.Draft202012Validator.check_schema(config.config_schema())
    assert set(config.field_names()) >= {o.attr for o in config.OPTIONS}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("github-timeout: 1e10", "option github-timeout: must be at most 3600"),
        ("github-rate-limit-wait: .inf", "option github-rate-limit-wait: must be at most 86400"),
        ("github-rate-limit-wait: .nan", "option github-rate-limit-wait: must be a finite number"),
        ("github-write-interval: .nan", "option github-write-interval: must be a finite number"),
        ("github-api-url: 'http://[::1'", "option github-api-url: 'http://[::1' is not a URL"),
        ("github-api-url: 'http://h:99999'", "is not a URL (Port out of range"),
        ("github-api-url: 'ftp://h/api'", "is not an http(s) URL with a host"),
    ],
)
def test_values_that_would_crash_a_later_command_are_refused_at_load(
    tmp_path: Path, line: str, message: str
) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text(line + "\n")
    with pytest.raises(ConfigError) as caught:
        config.load_config(tmp_path / ".changelog-tools.yaml")
    assert message in str(caught.value)
    assert ".changelog-tools.yaml:1:" in str(caught.value)
