"""Answers GitHub (or whatever answers in its place) should never give: a body declared at 100 GB,
JSON nested a hundred thousand deep, fields of the wrong type, an artifact larger than allowed
or whose length lies. Each is a one-line GitHubError (exit 3), never a traceback (exit 70), and
an artifact is cut off at the limit by the bytes actually read."""

from __future__ import annotations

import gzip
import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from changelog_tools.errors import GitHubError
from changelog_tools.github.adapter import GitHub
from changelog_tools.testing.fakegithub import FakeGitHub, Fault
from tests.conftest import run_cli
from tests.fakegithub_fixtures import REPO, TOKEN
from tests.github.servers import RawServer, running

SHA = "a" * 40
MERGE = "b" * 40


def _answer(status: str, headers: dict[str, str], body: bytes) -> bytes:
    lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def serving(payload: bytes) -> RawServer:
    """A server that answers every request with ``payload`` and closes the connection."""

    def answer(head: bytes, conn: socket.socket) -> None:
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)

    return RawServer(answer)


def gate(
    server: RawServer, tmp_path: Path, config: str = "github-retries: 0\n"
) -> tuple[int, str, str]:
    """`reuse-gate` for a push to main, against ``server`` as the API."""
    (tmp_path / ".changelog-tools.yaml").write_text(config)
    env = {
        "GH_TOKEN": TOKEN,
        "GITHUB_API_URL": f"{server.url}/api/v3",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_ACTIONS": "",
        "GITHUB_EVENT_PATH": "",
        "GITHUB_OUTPUT": "",
        "GITHUB_STEP_SUMMARY": "",
    }
    args = ["--event-name", "push", "--ref", "refs/heads/main", "--commit-sha", MERGE]
    # the timeout is a hang guard for servers that misbehave, not a speed assertion
    proc = run_cli("reuse-gate", *args, cwd=tmp_path, env=env, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


# -- answers that are not what they say ------------------------------------------------------------


def test_an_answer_declaring_a_100_gb_body_is_exit_3_not_a_crash(tmp_path: Path) -> None:
    huge = _answer(
        "200 OK", {"Content-Type": "application/json", "Content-Length": str(100 * 2**30)}, b"[]"
    )
    server = serving(huge)
    with running(server):
        code, out, err = gate(server, tmp_path)
    assert code == 3, err
    assert "Traceback" not in err and out == ""
    # refused on the declared length, before a byte of the body is read
    assert err.splitlines()[-1] == (
        f"error: GitHub API GET /repos/{REPO}/commits/{MERGE}/pulls failed: the answer declares "
        f"{100 * 2**30} bytes, more than the {32 * 2**20} allowed"
    )


def test_json_nested_a_hundred_thousand_deep_is_exit_3_not_a_crash(tmp_path: Path) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    server = serving(_answer("200 OK", {"Content-Length": str(len(deep))}, deep))
    with running(server):
        code, out, err = gate(server, tmp_path)
    assert code == 3, err
    assert "Traceback" not in err and out == ""
    assert err.splitlines()[-1] == (
        f"error: GitHub API GET /repos/{REPO}/commits/{MERGE}/pulls returned JSON nested too "
        "deeply to read"
    )


def test_a_body_that_breaks_off_is_one_line() -> None:
    server = serving(_answer("200 OK", {"Content-Length": "100"}, b'{"number": 1'))
    with running(server), pytest.raises(GitHubError) as info:
        _adapter_for(server).get_pull(1)
    assert str(info.value) == (
        f"GitHub API GET /repos/{REPO}/pulls/1 failed while reading the answer (IncompleteRead)"
    )


def _adapter_for(server: RawServer) -> GitHub:
    from changelog_tools import config as config_mod
    from changelog_tools.github.adapter import RetryPolicy, make_github

    env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": f"{server.url}/api/v3", "GITHUB_REPOSITORY": REPO}
    return make_github(config_mod.defaults(), env=env, policy=RetryPolicy(retries=0, timeout=5))


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"number": "seven"}, "BadAttributeException"),
        ({"number": 7, "state": "open", "head": "main", "base": {}}, "unexpected GitHub answer"),
        ([1, 2, 3], r"field '\w+' is missing"),
        ("a text", "unexpected GitHub answer"),
    ],
)
def test_a_pull_request_of_the_wrong_shape_is_one_line(
    fake: FakeGitHub, gh: GitHub, body: object, reason: str
) -> None:
    fake.fault(Fault("GET", r"/pulls/1$", 200, body=body))
    with pytest.raises(GitHubError, match=reason) as info:
        gh.get_pull(1)
    assert "\n" not in str(info.value) and int(info.value.exit_code) == 3


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"not": "a list"}, "returned no list"),
        ([{"id": 1, "body": "x"}, "stray"], "a list holding a non-object"),
        ([{"id": "one", "body": "x"}], "unexpected GitHub answer for"),
    ],
)
def test_a_list_page_of_the_wrong_shape_is_one_line(
    fake: FakeGitHub, gh: GitHub, body: object, reason: str
) -> None:
    fake.fault(Fault("GET", r"/issues/7/comments$", 200, body=body))
    with pytest.raises(GitHubError, match=reason):
        gh.list_issue_comments(7)


def test_invalid_json_is_one_line() -> None:
    server = serving(_answer("200 OK", {"Content-Length": "9"}, b'{"number"'))
    with running(server), pytest.raises(GitHubError, match="returned invalid JSON"):
        _adapter_for(server).get_pull(1)


# -- artifact downloads ----------------------------------------------------------------------------

LIMIT = 64 * 1024


@pytest.fixture
def storage_for(fake: FakeGitHub) -> Iterator[Callable[[RawServer], int]]:
    """Point an artifact's download at ``server``; the artifact's id."""
    started: list[RawServer] = []

    def point(server: RawServer) -> int:
        started.append(server)
        run = fake.add_run("run-sweep.yml", SHA, artifacts=["results"])
        where = f"{server.url}/blob/results.zip"
        fake.fault(Fault("GET", r"/artifacts/\d+/zip$", 302, headers={"Location": where}))
        return run.artifacts[0].id

    yield point
    for server in started:
        server.stop()


class Firehose:
    """Streams chunked data without end; remembers how much it got out."""

    def __init__(self) -> None:
        self.sent = 0
        self.stopped = False

    def __call__(self, head: bytes, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (16384, b"z" * 16384)
        began = time.monotonic()
        try:
            while time.monotonic() - began < 20:
                conn.sendall(chunk)
                self.sent += 16384
        except OSError:
            self.stopped = True  # the client hung up


def test_an_artifact_streaming_past_the_limit_is_cut_off_there(
    gh: GitHub, storage_for: Callable[[RawServer], int]
) -> None:
    firehose = Firehose()
    artifact = storage_for(RawServer(firehose))
    with pytest.raises(GitHubError) as info:
        gh.download_artifact(artifact, max_bytes=LIMIT)
    assert str(info.value) == (
        f"downloading artifact {artifact} failed: it holds more than the {LIMIT} bytes "
        "allowed; stopped reading"
    )
    assert int(info.value.exit_code) == 3
    deadline = time.monotonic() + 10
    while not firehose.stopped and time.monotonic() < deadline:
        time.sleep(0.05)
    assert firehose.stopped  # the connection was dropped, not drained
    assert firehose.sent < 200 * LIMIT  # socket buffers aside, nothing like "everything"


def test_an_artifact_declaring_more_than_the_limit_is_refused_before_reading(
    gh: GitHub, storage_for: Callable[[RawServer], int]
) -> None:
    server = serving(_answer("200 OK", {"Content-Length": str(100 * 2**30)}, b"PK"))
    artifact = storage_for(server)
    with pytest.raises(
        GitHubError, match=f"it declares {100 * 2**30} bytes, more than the {LIMIT}"
    ):
        gh.download_artifact(artifact, max_bytes=LIMIT)


def test_an_artifact_whose_length_lies_is_bounded_by_the_bytes_read(
    gh: GitHub, storage_for: Callable[[RawServer], int]
) -> None:
    # 2 MB of zeros gzip to a few kB: the declared length is small, the body is not
    bomb = gzip.compress(b"\0" * (2 * 2**20))
    headers = {"Content-Length": str(len(bomb)), "Content-Encoding": "gzip"}
    artifact = storage_for(serving(_answer("200 OK", headers, bomb)))
    assert len(bomb) < LIMIT
    with pytest.raises(GitHubError, match="holds more than the 65536 bytes allowed"):
        gh.download_artifact(artifact, max_bytes=LIMIT)


def test_an_artifact_shorter_than_it_says_is_one_line(
    gh: GitHub, storage_for: Callable[[RawServer], int]
) -> None:
    artifact = storage_for(serving(_answer("200 OK", {"Content-Length": "1000"}, b"PK")))
    with pytest.raises(GitHubError, match=f"downloading artifact {artifact} failed: the "):
        gh.download_artifact(artifact, max_bytes=LIMIT)


def test_an_artifact_within_the_limit_is_read_whole(
    gh: GitHub, storage_for: Callable[[RawServer], int]
) -> None:
    data = json.dumps({"rows": list(range(1000))}).encode()
    artifact = storage_for(serving(_answer("200 OK", {"Content-Length": str(len(data))}, data)))
    assert gh.download_artifact(artifact, max_bytes=LIMIT) == data


def test_an_artifact_trickling_for_ever_stops_at_the_download_deadline(
    make_gh: Callable[..., GitHub], storage_for: Callable[[RawServer], int]
) -> None:
    """Each byte arrives well within the read timeout, so only the download's total deadline
    (twice the timeout plus a second per MiB allowed) ends it."""

    def trickle(head: bytes, conn: socket.socket) -> None:
        try:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            while True:
                time.sleep(0.1)
                conn.sendall(b"z")
        except OSError:
            return

    artifact = storage_for(RawServer(trickle))
    gh = make_gh(retries=0, timeout=0.5)
    with pytest.raises(GitHubError) as info:
        gh.download_artifact(artifact, max_bytes=LIMIT)
    assert str(info.value) == (
        f"downloading artifact {artifact} failed: not complete within {1 + LIMIT / 2**20:g}s"
    )
