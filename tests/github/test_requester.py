"""github/requester.py: answers that cannot be read and URLs the token must not go to."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from changelog_tools.errors import GitHubError
from changelog_tools.github.adapter import GitHub
from tests.fakegithub_fixtures import REPO, TOKEN
from tests.github.servers import HUGE_INT, adapter_for, answering, running

# -- hostile answers from real local servers ---------------------------------------------------


def test_a_huge_integer_in_a_permission_answer_is_a_github_error_not_a_crash() -> None:
    server = answering("200 OK", b'{"role_name": "write", "id": ' + HUGE_INT + b"}")
    with running(server), pytest.raises(GitHubError) as caught:
        adapter_for(server).collaborator_permission("octocat")
    assert caught.value.message.startswith(
        f"GitHub API GET /repos/{REPO}/collaborators/octocat/permission returned an answer "
        "that cannot be read (Exceeds the limit (4300 digits)"
    )


def test_a_huge_integer_in_a_graphql_answer_is_a_github_error_not_a_crash() -> None:
    server = answering("200 OK", b'{"data": {"nodes": []}, "n": ' + HUGE_INT + b"}")
    with running(server), pytest.raises(GitHubError) as caught:
        adapter_for(server).comment_edits(["IC_1"])
    assert "returned an answer that cannot be read (Exceeds the limit" in caught.value.message


def test_a_refused_lazy_url_carrying_the_token_is_not_printed_and_not_requested() -> None:
    # A listed comment without `body` makes PyGithub complete it from its own `url`, which
    # points off the API origin and carries the token (echoed back by a hostile answer).
    trap = answering("200 OK", b"{}")
    with running(trap):
        items = [{"id": 1, "url": f"{trap.url}/api/v3/{TOKEN}"}]
        server = answering("200 OK", json.dumps(items).encode())
        with running(server), pytest.raises(GitHubError) as caught:
            adapter_for(server).list_issue_comments(1)
    assert "refusing to send the GitHub token" in caught.value.message
    assert TOKEN not in caught.value.message
    assert trap.heads == []  # nothing, so no token, reached the other port


@pytest.mark.parametrize(
    ("location", "why"),
    [("http://[bad", "Invalid IPv6 URL"), ("http://127.0.0.1:99999/zip", "Port out of range")],
)
def test_a_redirect_to_a_malformed_url_is_a_github_error_not_a_crash(
    location: str, why: str
) -> None:
    # requests parses a redirect's Location even when it does not follow it, and raises a bare
    # ValueError: on the artifact download (which reads the Location) and on any other request
    server = answering("302 Found", b"", {"Location": location})
    with running(server):
        calls: list[Callable[[GitHub], object]] = [
            lambda gh: gh.download_artifact(7),
            lambda gh: gh.collaborator_permission("octocat"),
            lambda gh: gh.get_pull(1),
        ]
        for call in calls:
            with pytest.raises(GitHubError) as caught:
                call(adapter_for(server))
            assert f"returned an answer that cannot be read ({why}" in caught.value.message
