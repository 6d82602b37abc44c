"""Adversarial review of the PyGithub-based adapter: hostile answers from real local servers.

Each test was written failing against the first PyGithub port: a bare ValueError (exit 70) where
the requester is used without PyGithub's objects, the token printed when a server echoed it in
another case or inside a URL the adapter refused, and a malformed redirect of an artifact
download escaping as a traceback."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable

import pytest

from changelog_tools import config as config_mod
from changelog_tools.errors import GitHubError
from changelog_tools.github.adapter import GitHub, RetryPolicy, make_github
from tests.fakegithub_fixtures import REPO, TOKEN
from tests.github.servers import RawServer, running

HUGE_INT = b"1" * 5000  # json.loads refuses integers of more than 4300 digits (ValueError)


def answering(status: str, body: bytes, headers: dict[str, str] | None = None) -> RawServer:
    """A keep-alive server that gives every request the same answer."""
    fields = {
        "Content-Type": "application/json",
        "Content-Length": str(len(body)),
        **(headers or {}),
    }

    def answer(head: bytes, conn: socket.socket) -> None:
        lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in fields.items())]
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)

    return RawServer(answer)


def adapter_for(server: RawServer) -> GitHub:
    env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": f"{server.url}/api/v3", "GITHUB_REPOSITORY": REPO}
    return make_github(config_mod.defaults(), env=env, policy=RetryPolicy(retries=0, timeout=5))


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


@pytest.mark.parametrize("echo", [TOKEN.upper(), TOKEN.title()])
def test_a_token_echoed_in_another_case_is_redacted(echo: str) -> None:
    body = json.dumps({"message": f"Bad credentials: {echo}"}).encode()
    server = answering("401 Unauthorized", body)
    with running(server), pytest.raises(GitHubError) as caught:
        adapter_for(server).get_pull(1)
    assert "Bad credentials: ***" in caught.value.message
    assert TOKEN.lower() not in caught.value.message.lower()


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


def test_a_storage_redirect_to_a_malformed_url_is_a_github_error_not_a_crash() -> None:
    storage = answering("302 Found", b"", {"Location": "http://[bad/zip"})
    with running(storage):
        server = answering("302 Found", b"", {"Location": f"{storage.url}/signed?sig=1"})
        with running(server), pytest.raises(GitHubError) as caught:
            adapter_for(server).download_artifact(7)
    assert caught.value.message == (
        "downloading artifact 7 failed: it was redirected to a malformed URL"
    )
    assert storage.header(0, "Authorization") is None
