"""Every exchange with the API has a total deadline and a body limit, whatever the server does.

A real local server misbehaves at the socket level: it drips its headers a line at a time, sends
``100 Continue`` without end, streams a body that never ends, or keeps answering "202, ask
again". Each per-read timeout is met by every drip, so only a deadline over the whole exchange
(twice ``github-timeout``) or a limit on the body stops them; each ends as one line, exit 3.
The subprocess timeouts below are hang guards, not speed assertions.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from changelog_tools.errors import GitHubError
from changelog_tools.github.adapter import GitHub
from changelog_tools.github.exchange import MAX_ANSWER, Watchdog, read_body
from tests.conftest import run_cli
from tests.fakegithub_fixtures import REPO, TOKEN
from tests.github.servers import RawServer, running
from tests.github.test_hostile_answers import gate

MERGE = "b" * 40
PULLS = f"/repos/{REPO}/commits/{MERGE}/pulls"


def _dripping(first: bytes, drip: bytes, every: float) -> RawServer:
    """Sends ``first``, then ``drip`` every ``every`` seconds until the client hangs up."""

    def answer(head: bytes, conn: socket.socket) -> None:
        try:
            conn.sendall(first)
            while True:
                time.sleep(every)
                conn.sendall(drip)
        except OSError:
            return

    return RawServer(answer)


ONE_SECOND = "github-timeout: 1\ngithub-retries: 0\n"


def test_headers_dripped_a_line_a_tenth_of_a_second_stop_at_the_deadline(tmp_path: Path) -> None:
    server = _dripping(b"HTTP/1.1 200 OK\r\n", b"X-Drip: 1\r\n", 0.1)
    with running(server):
        code, out, err = gate(server, tmp_path, ONE_SECOND)
    assert code == 3, err
    assert "Traceback" not in err and out == ""
    assert err.splitlines()[-1] == (
        f"error: GitHub API GET {PULLS} timed out: no complete answer within 2s "
        "(the total deadline, twice `github-timeout`)"
    )


def test_an_endless_stream_of_100_continue_stops_at_the_deadline(tmp_path: Path) -> None:
    server = _dripping(b"", b"HTTP/1.1 100 Continue\r\n\r\n", 0.05)
    with running(server):
        code, out, err = gate(server, tmp_path, ONE_SECOND)
    assert code == 3, err
    assert out == ""
    assert "no complete answer within 2s" in err.splitlines()[-1]


def test_a_body_trickling_for_ever_stops_at_the_deadline(tmp_path: Path) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n["
    server = _dripping(head, b" ", 0.1)
    with running(server):
        code, out, err = gate(server, tmp_path, ONE_SECOND)
    assert code == 3, err
    assert out == ""
    assert "timed out: no complete answer within 2s" in err.splitlines()[-1]


def test_an_endless_body_is_cut_at_the_limit_without_a_declared_length(tmp_path: Path) -> None:
    chunk = b"%x\r\n%s\r\n" % (1 << 20, b" " * (1 << 20))
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    server = _dripping(head, chunk, 0)
    with running(server):
        code, out, err = gate(server, tmp_path, "github-timeout: 30\ngithub-retries: 0\n")
    assert code == 3, err
    assert out == ""
    assert err.splitlines()[-1] == (
        f"error: GitHub API GET {PULLS} failed: the answer holds more than the {MAX_ANSWER} "
        "bytes allowed; stopped reading"
    )


def test_a_write_past_the_deadline_is_reported_as_maybe_applied(tmp_path: Path) -> None:
    """The deadline cuts a comment post whose answer never completes: the tool cannot know
    whether GitHub applied it, and says so instead of claiming it failed."""
    from changelog_tools.github.failures import AmbiguousWriteError

    server = _dripping(b"HTTP/1.1 201 Created\r\n", b"X-Drip: 1\r\n", 0.1)
    with running(server), pytest.raises(AmbiguousWriteError) as info:
        _adapter(server, timeout=0.5, retries=3).create_issue_comment(1, "hello")
    assert str(info.value).endswith(
        "timed out: no complete answer within 1s (the total deadline, twice `github-timeout`); "
        "the write may or may not have been applied"
    )
    assert len(server.heads) == 1  # never repeated


def _adapter(server: RawServer, *, timeout: float, retries: int, backoff: float = 0.0) -> GitHub:
    from changelog_tools import config as config_mod
    from changelog_tools.github.adapter import RetryPolicy, make_github

    env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": f"{server.url}/api/v3", "GITHUB_REPOSITORY": REPO}
    policy = RetryPolicy(retries=retries, timeout=timeout, backoff=backoff)
    return make_github(config_mod.defaults(), env=env, policy=policy)


def _sequence(*answers: bytes) -> RawServer:
    """Answers the n-th request with ``answers[n]`` (the last one for any later request)."""
    count = iter(range(10**6))

    def answer(head: bytes, conn: socket.socket) -> None:
        conn.sendall(answers[min(next(count), len(answers) - 1)])

    return RawServer(answer)


ACCEPTED = b"HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
PULL = (
    b'{"number": 1, "state": "open", "title": "t", "html_url": "https://x/pull/1", '
    b'"head": {"sha": "' + b"a" * 40 + b'", "ref": "b"}, "base": {"sha": "' + b"c" * 40 + b'", '
    b'"ref": "main"}, "merged": false, "user": {"login": "u"}}'
)
OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
    len(PULL),
    PULL,
)


def test_202_is_asked_again_within_the_retry_budget_then_given_up(tmp_path: Path) -> None:
    server = _sequence(ACCEPTED)
    with running(server), pytest.raises(GitHubError) as info:
        _adapter(server, timeout=5, retries=2).get_pull(1)
    assert len(server.heads) == 3  # the first ask and two retries, no more
    assert 'still answered HTTP 202 ("ask again") after 3 attempts' in str(info.value)


def test_202_then_an_answer_is_read(tmp_path: Path) -> None:
    server = _sequence(ACCEPTED, ACCEPTED, OK)
    with running(server):
        pull = _adapter(server, timeout=5, retries=4).get_pull(1)
    assert pull.number == 1 and len(server.heads) == 3


def test_the_watchdog_shuts_only_while_armed() -> None:
    """A deadline that passes after the exchange ended touches nothing."""
    left, right = socket.socketpair()
    with left, right:

        class Conn:
            sock = left

        with Watchdog(0.05) as watchdog:
            watchdog.track(Conn())  # type: ignore[arg-type]
        time.sleep(0.2)
        assert not watchdog.fired
        right.sendall(b"x")
        assert left.recv(1) == b"x"  # still open

        with Watchdog(0.05) as watchdog:
            watchdog.track(Conn())  # type: ignore[arg-type]
            done = threading.Event()
            threading.Thread(target=lambda: (left.recv(1), done.set()), daemon=True).start()
            assert done.wait(5)  # the blocked read ended when the socket was shut
        assert watchdog.fired


class _Response:
    def __init__(self, headers: dict[str, str], chunks: list[bytes]) -> None:
        self.headers = headers
        self._chunks = chunks

    def iter_content(self, size: int) -> list[bytes]:
        return self._chunks


def test_read_body_refuses_a_declared_length_before_reading() -> None:
    from changelog_tools.github.exchange import AnswerTooLarge

    never = _Response({"Content-Length": "11"}, [])
    with pytest.raises(AnswerTooLarge, match="declares 11 bytes, more than the 10 allowed"):
        read_body(never, 10, "the answer")  # type: ignore[arg-type]
    assert read_body(_Response({}, [b"12345", b"67890"]), 10, "x") == b"1234567890"  # type: ignore[arg-type]
    with pytest.raises(AnswerTooLarge, match="holds more than the 10 bytes"):
        read_body(_Response({}, [b"123456", b"789012"]), 10, "x")  # type: ignore[arg-type]


def test_the_deadline_holds_through_an_http_proxy(tmp_path: Path) -> None:
    """Behind HTTP_PROXY (as on many CI runners) requests uses a pool manager of the proxy's
    own; its connections must report to the watchdog as well. The "proxy" here answers
    `100 Continue` for ever, which no read timeout and no header limit ends."""
    proxy = _dripping(b"", b"HTTP/1.1 100 Continue\r\n\r\n", 0.05)
    env = {
        "GH_TOKEN": TOKEN,
        "GITHUB_API_URL": "http://api.example.invalid/api/v3",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_ACTIONS": "",
        "HTTP_PROXY": proxy.url,
        "http_proxy": proxy.url,
        "NO_PROXY": "",
        "no_proxy": "",
    }
    (tmp_path / ".changelog-tools.yaml").write_text(ONE_SECOND)
    args = ["--event-name", "push", "--ref", "refs/heads/main", "--commit-sha", MERGE]
    with running(proxy):
        # the timeout is the hang guard: without the watchdog on the proxy's pool this never ends
        proc = run_cli("reuse-gate", *args, cwd=tmp_path, env=env, timeout=60)
    assert proxy.heads and proxy.heads[0].startswith(b"GET http://api.example.invalid:80/")
    assert proc.returncode == 3, proc.stderr
    assert "no complete answer within 2s" in proc.stderr.splitlines()[-1]
