"""github/traffic.py: what the adapter shows of the traffic (the token never)."""

from __future__ import annotations

import json

import pytest

from changelog_tools.errors import GitHubError
from tests.fakegithub_fixtures import TOKEN
from tests.github.servers import adapter_for, answering, running

# -- hostile answers from real local servers ---------------------------------------------------


@pytest.mark.parametrize("echo", [TOKEN.upper(), TOKEN.title()])
def test_a_token_echoed_in_another_case_is_redacted(echo: str) -> None:
    body = json.dumps({"message": f"Bad credentials: {echo}"}).encode()
    server = answering("401 Unauthorized", body)
    with running(server), pytest.raises(GitHubError) as caught:
        adapter_for(server).get_pull(1)
    assert "Bad credentials: ***" in caught.value.message
    assert TOKEN.lower() not in caught.value.message.lower()
