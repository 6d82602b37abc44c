"""The GitHub adapter on the network as users run it: an https:// proxy from the environment, a
CA bundle named for requests, a TLS certificate that does not verify, redirects that must not
carry the token anywhere else, and path segments that need percent-encoding. Real TLS and real
sockets on 127.0.0.1 (tests/github/servers.py), the fake GitHub behind them."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from changelog_tools import config as config_mod
from changelog_tools.errors import GitHubError
from changelog_tools.github.adapter import GitHub, RetryPolicy, make_github
from changelog_tools.testing.fakegithub import FakeGitHub, Fault
from tests.fakegithub_fixtures import REPO, TOKEN, Clock
from tests.github.servers import (
    Certificates,
    RawServer,
    TlsConnectProxy,
    TlsFront,
    make_certificates,
    running,
)

SHA = "a" * 40
PROXY_VARIABLES = ("https_proxy", "http_proxy", "all_proxy", "no_proxy")


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("certs"))


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No proxy and no CA bundle from the machine running the tests."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    return monkeypatch


@pytest.fixture
def https_fake(fake: FakeGitHub, certs: Certificates) -> Iterator[str]:
    """The fake GitHub behind HTTPS: the API base URL to use."""
    front = TlsFront(int(fake.root_url.rsplit(":", 1)[1]), certs)
    with running(front):
        yield f"https://127.0.0.1:{front.port}{fake.prefix}"


def adapter(base_url: str, clock: Clock, **policy: float) -> GitHub:
    env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": base_url, "GITHUB_REPOSITORY": REPO}
    options = {"write_interval": 0.0, "timeout": 5.0, **policy}
    return make_github(
        config_mod.defaults(), env=env, policy=RetryPolicy(**options),  # type: ignore[arg-type]
        sleep=clock.sleep, clock=clock.time,
    )  # fmt: skip


# -- proxies and certificates ----------------------------------------------------------------------


def test_an_https_proxy_from_the_environment_carries_the_requests_and_no_proxy_is_honoured(
    fake: FakeGitHub,
    https_fake: str,
    certs: Certificates,
    no_proxy_env: pytest.MonkeyPatch,
    clock: Clock,
) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    proxy = TlsConnectProxy(certs)
    with running(proxy):
        # one CA signed both the proxy's certificate and the API's; requests trusts it
        no_proxy_env.setenv("REQUESTS_CA_BUNDLE", str(certs.ca))
        no_proxy_env.setenv("HTTPS_PROXY", proxy.url)
        assert adapter(https_fake, clock).get_pull(1).number == 1
        api_host = https_fake.split("/")[2]
        assert proxy.tunnels == [f"CONNECT {api_host}"]
        assert fake.count("GET", r"/pulls/1$") == 1
        assert fake.log[0].headers["Authorization"] == f"token {TOKEN}"  # inside the tunnel

        no_proxy_env.setenv("NO_PROXY", "127.0.0.1")
        assert adapter(https_fake, clock).get_pull(1).number == 1
        assert len(proxy.tunnels) == 1 and fake.count("GET", r"/pulls/1$") == 2


def test_a_certificate_that_does_not_verify_fails_at_once_without_retries(
    fake: FakeGitHub, https_fake: str, no_proxy_env: pytest.MonkeyPatch, clock: Clock
) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    # the system's trust store, which does not hold the test CA
    no_proxy_env.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/certs/ca-certificates.crt")
    gh = adapter(https_fake, clock)
    with pytest.raises(GitHubError) as info:
        gh.get_pull(1)
    assert "the TLS certificate of 127.0.0.1 could not be verified" in str(info.value)
    assert "not retried" in str(info.value) and "\n" not in str(info.value)
    assert info.value.hint is not None and "REQUESTS_CA_BUNDLE" in info.value.hint
    assert int(info.value.exit_code) == 3
    assert clock.sleeps == [] and gh.requests == 1 and fake.log == []


def test_the_ca_bundle_named_by_requests_bundle_is_trusted(
    fake: FakeGitHub,
    https_fake: str,
    certs: Certificates,
    no_proxy_env: pytest.MonkeyPatch,
    clock: Clock,
) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    no_proxy_env.setenv("REQUESTS_CA_BUNDLE", str(certs.ca))
    gh = adapter(https_fake, clock)
    assert gh.get_pull(1).number == 1 and gh.get_pull(1).number == 1
    assert clock.sleeps == [] and gh.requests == 2


# -- the token stays on the API origin --------------------------------------------------------


@pytest.fixture
def trap() -> Iterator[RawServer]:
    """A server that must never be asked anything."""

    def answer(head: bytes, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")

    server = RawServer(answer)
    with running(server):
        yield server


@pytest.mark.parametrize("status", [302, 303, 307, 308])
def test_a_redirect_of_an_api_call_to_another_origin_is_not_followed(
    fake: FakeGitHub, gh: GitHub, trap: RawServer, status: int
) -> None:
    where = f"{trap.url}/api/v3/repos/{REPO}/pulls/1"
    fake.fault(Fault("GET", r"/pulls/1$", status, headers={"Location": where}))
    with pytest.raises(GitHubError, match=rf"answered HTTP {status}, a redirect to {where}"):
        gh.get_pull(1)
    assert trap.heads == [] and fake.count() == 1


def test_a_permanent_redirect_to_another_host_is_refused(
    fake: FakeGitHub, gh: GitHub, trap: RawServer
) -> None:
    where = f"{trap.url.replace('127.0.0.1', 'localhost')}/api/v3/repos/{REPO}/pulls/1"
    fake.fault(Fault("GET", r"/pulls/1$", 301, headers={"Location": where}))
    with pytest.raises(GitHubError, match=r"GET /repos/octo/widgets/pulls/1 could not be sent"):
        gh.get_pull(1)
    assert trap.heads == [] and fake.count() == 1


def test_a_renamed_repository_is_followed_on_the_api_origin_only(
    fake: FakeGitHub, trap: RawServer, clock: Clock
) -> None:
    fake.add_pull(1, "feature", head_sha=SHA)
    # a 301 names the new path on another port: the path is followed, on the API's origin
    moved = f"{trap.url}{fake.prefix}/repos/{REPO}/pulls/1"
    fake.fault(Fault("GET", r"/repos/octo/old/pulls/1$", 301, headers={"Location": moved}))
    env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": fake.base_url}
    gh = make_github(
        config_mod.defaults(), env=env, repository="octo/old",
        policy=RetryPolicy(write_interval=0), sleep=clock.sleep, clock=clock.time,
    )  # fmt: skip
    assert gh.get_pull(1).number == 1
    assert [r.path for r in fake.log] == ["/repos/octo/old/pulls/1", f"/repos/{REPO}/pulls/1"]
    assert trap.heads == []


def test_redirects_that_go_round_in_circles_stop(fake: FakeGitHub, gh: GitHub) -> None:
    one, two = (f"{fake.base_url}/repos/{REPO}/pulls/{n}" for n in (1, 2))
    fake.fault(Fault("GET", r"/pulls/1$", 301, times=None, headers={"Location": two}))
    fake.fault(Fault("GET", r"/pulls/2$", 301, times=None, headers={"Location": one}))
    with pytest.raises(GitHubError, match="times without a final answer"):
        gh.get_pull(1)
    assert fake.count() == gh.policy.max_answers + 1


def test_the_artifact_download_goes_to_storage_without_the_token(
    fake: FakeGitHub, gh: GitHub
) -> None:
    def answer(head: bytes, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nPK\x05\x06!")

    storage = RawServer(answer)
    with running(storage):
        run = fake.add_run("run-sweep.yml", SHA, artifacts=["results"])
        signed = f"{storage.url}/blob/results.zip?sig=abc"
        fake.fault(Fault("GET", r"/artifacts/\d+/zip$", 302, headers={"Location": signed}))
        assert gh.download_artifact(run.artifacts[0].id) == b"PK\x05\x06!"
        assert storage.header(0, "Authorization") is None
        assert storage.heads[0].startswith(b"GET /blob/results.zip?sig=abc ")
    (zip_request,) = fake.requests("GET", r"/zip$")
    assert zip_request.headers["Authorization"] == f"token {TOKEN}"


# -- path segments ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["run sweep.yml", "sweep-é.yml", "a#b?c.yml"])
def test_a_workflow_file_name_is_percent_encoded_in_the_path(
    fake: FakeGitHub, gh: GitHub, name: str
) -> None:
    import urllib.parse

    run = fake.add_run(name, SHA, head_branch="feat/x y")
    assert gh.get_workflow(name).path == f".github/workflows/{name}"
    runs = list(gh.iter_workflow_runs(name, event="pull_request", branch="feat/x y"))
    assert [r.id for r in runs] == [run.id]
    encoded = urllib.parse.quote(name, safe="")
    assert [r.path for r in fake.log] == [
        f"/repos/{REPO}/actions/workflows/{encoded}",
        f"/repos/{REPO}/actions/workflows/{encoded}/runs",
    ]
    assert fake.log[1].query["branch"] == "feat/x y"


def test_a_login_with_brackets_is_percent_encoded(
    fake: FakeGitHub, make_gh: Callable[..., GitHub]
) -> None:
    fake.set_permission("renovate[bot]", "write")
    assert make_gh().collaborator_permission("renovate[bot]") == "write"
    assert fake.log[-1].path == f"/repos/{REPO}/collaborators/renovate%5Bbot%5D/permission"


def test_an_unreachable_api_is_one_line_after_the_retries(tmp_path: Path, clock: Clock) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gh = adapter(f"http://127.0.0.1:{port}/api/v3", clock, retries=1)
    with pytest.raises(GitHubError) as info:
        gh.create_issue_comment(1, "never sent")  # a write whose connection never opened
    assert str(info.value) == (
        f"GitHub API POST /repos/{REPO}/issues/1/comments could not connect "
        "(ConnectionRefusedError) after 2 attempts"
    )
    assert clock.sleeps == [1.0]
