"""The configuration as a git revision holds it, validated as the working tree's is."""

from __future__ import annotations

import pytest

from changelog_tools import config
from changelog_tools.errors import ConfigError


def test_a_configuration_at_a_revision_is_validated_with_its_lines() -> None:
    assert config.values_from_text("remote: up\n", name=".changelog-tools.yaml") == {"remote": "up"}
    assert config.values_from_text('[project]\nname = "x"\n', name="pyproject.toml") == {}
    with pytest.raises(ConfigError) as info:
        config.values_from_text(
            "remote: up\ngithub-retries: 99\n", name="sub/.changelog-tools.yaml"
        )
    assert info.value.message == (
        "sub/.changelog-tools.yaml:2:17: option github-retries: must be at most 20, not 99"
    )
