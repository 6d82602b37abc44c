"""github/actions_env.py: the token and settings read from the Actions environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools.errors import ConfigError
from changelog_tools.github.adapter import resolve_token
from changelog_tools.testing.fakegithub import FakeGitHub
from tests.conftest import run_cli
from tests.fakegithub_fixtures import (
    gate_env,
)

# -- hostile and failing GitHub-side situations ------------------------------------------------


@pytest.mark.parametrize("token", ["ghp_abc\ndef_SECRET", "ghp_令牌_SECRET", "ghp abc SECRET"])
def test_a_token_that_cannot_be_a_header_is_a_configuration_error_that_never_shows_it(
    fake: FakeGitHub, tmp_path: Path, token: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_token({"GH_TOKEN": token})
    assert "SECRET" not in caught.value.message + (caught.value.hint or "")
    env = gate_env(fake, tmp_path, GH_TOKEN=token)
    proc = run_cli("reuse-gate", cwd=tmp_path, env=env)
    assert proc.returncode == 2
    assert "error: GH_TOKEN holds whitespace or non-ASCII characters" in proc.stderr
    assert "SECRET" not in proc.stdout + proc.stderr
    assert fake.count() == 0  # before the fix: three doomed requests, "could not connect"
