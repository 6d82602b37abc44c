"""Shared fixtures: isolated git, no network but loopback, repository builders."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools.gitrepo import GIT_LOCAL_VARS

# The fake GitHub server and adapters bound to it (fixtures: fake, gh, make_gh, clock), and an
# optional report of its exchanges checked against GitHub's description (tests/contract/report.py).
pytest_plugins = ["tests.fakegithub_fixtures", "tests.contract.report"]

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Real public InferenceX data lives beside the checkout (shared/fixtures); tests that use it are
# skipped when it is absent, and each has a self-written twin that never skips.
INFERENCEX = Path(
    os.environ.get("CHANGELOG_TOOLS_INFERENCEX", REPO_ROOT.parent / "shared/fixtures/inferencex")
)


def pytest_report_header() -> str:
    import changelog_tools

    return f"changelog_tools under test: {Path(changelog_tools.__file__).resolve().parent}"


def pytest_configure(config: pytest.Config) -> None:
    # .ci/run sets this for its run against the installed wheel: the suite must exercise that
    # install (its package data, its console script), not the source tree beside the tests.
    if os.environ.get("CHANGELOG_TOOLS_TEST_INSTALLED"):
        import changelog_tools

        where = Path(changelog_tools.__file__).resolve()
        if where.is_relative_to(REPO_ROOT) or "site-packages" not in where.parts:
            raise pytest.UsageError(f"changelog_tools came from {where}, not an installed wheel")


def inferencex_file(relative: str) -> Path:
    path = INFERENCEX / relative
    if not path.is_file():
        pytest.skip(f"real InferenceX fixture {path} is absent")
    return path


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets an empty HOME, a fixed git identity and no hook-exported git state."""
    home = tmp_path_factory.mktemp("home")
    for name in GIT_LOCAL_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    monkeypatch.setenv("GIT_EDITOR", "true")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Test Author")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "test@example.invalid")
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY",
                 "GITHUB_API_URL", "GITHUB_SHA", "GITHUB_REF", "GITHUB_OUTPUT",
                 "GITHUB_STEP_SUMMARY", "GH_TOKEN", "GITHUB_TOKEN"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)


_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: object) -> None:
    host = address[0] if isinstance(address, tuple) else None
    if self.family in (socket.AF_INET, socket.AF_INET6) and host not in (
        "127.0.0.1",
        "::1",
        "localhost",
    ):
        raise AssertionError(f"test tried to reach {address!r}; only 127.0.0.1 is allowed")
    _real_connect(self, address)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any test that opens a connection to a host other than loopback."""
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


def git(cwd: Path, *args: str) -> str:
    """Run git and fail the test loudly on a non-zero exit."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc.stdout.strip()


def write(root: Path, files: dict[str, bytes | str]) -> None:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode() if isinstance(content, str) else content
        target.write_bytes(data)


def commit_files(repo: Path, files: dict[str, bytes | str], message: str) -> str:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def make_repo(tmp_path: Path) -> Iterator[object]:
    """Factory: ``make_repo(name, files)`` -> path of a new repo on `main` with one commit."""

    def factory(name: str = "repo", files: dict[str, bytes | str] | None = None) -> Path:
        path = tmp_path / name
        path.mkdir()
        git(path, "init", "-q", "-b", "main")
        commit_files(path, files or {"README": "x\n"}, "initial")
        return path

    yield factory


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script in a real subprocess."""
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe, "the changelog-tools console script is not installed next to this Python"
    return subprocess.run(
        [exe, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        input=input,
        check=False,
        timeout=timeout,  # a hang guard for tests against misbehaving servers
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on `main` holding the `check` tests' BASE, CONFIG and master configs."""
    from tests.checkdata import init_repo

    return init_repo(tmp_path / "repo")
