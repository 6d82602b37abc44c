"""`changelog-tools demo` runs the whole story with the real commands and leaves nothing behind."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import threading
from pathlib import Path

import pytest

from changelog_tools.errors import DataError
from changelog_tools.flows.demo import run_demo
from changelog_tools.testing.fakegithub import RECORD_ENV
from tests.conftest import run_cli
from tests.contract import checker as contract

LINK = "https://github.com/example-org/inferencex-mini/pull/"
RECOVERED = (
    b"- config-keys:\n    - mixtral-fp4-gpu-a-sglang\n  description:\n"
    b'    - "Raise the mixtral concurrency on gpu-a to 64"\n'
    b"  pr-link: " + LINK.encode() + b"PR\n"
)


def test_the_demo_walks_every_step_with_the_expected_exit_codes_and_cleans_up(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines: list[str] = []
    threads = set(threading.enumerate())
    # every exchange of the demo with its fake GitHub is checked against GitHub's description
    recorded = tmp_path_factory.mktemp("exchanges")
    monkeypatch.setenv(RECORD_ENV, str(recorded))

    result = run_demo(say=lines.append, workdir=tmp_path)

    assert [(s.argv[0], s.exit_code) for s in result.steps] == [
        ("check", 1),
        ("fix", 0),
        ("check", 0),
        ("signoff", 0),
        ("signoff", 0),
        ("signoff", 0),
        ("merge", 0),
        ("merge", 0),
        ("merge", 0),
        ("reuse-gate", 0),
        ("recover", 0),
        ("recover", 0),
    ]
    assert "CL203" in result.steps[0].stdout  # the pr-link, flagged by the real check
    assert "`changelog-tools fix` does it" in result.steps[0].stdout  # the hint names `fix`
    # `fix` repairs it in the author's checkout, and says what it did
    assert f"made `{LINK}1`" in result.steps[1].stderr + result.steps[1].stdout
    assert "fix: perf-changelog.yaml: OK" in result.steps[1].stdout + result.steps[1].stderr
    # the sign-off bot, on the bundled example's CODEOWNERS and checklist: three verdicts
    verdicts = [s.stdout.splitlines()[0].split(": ")[2].split(" ")[0] for s in result.steps[3:6]]
    assert verdicts == ["PENDING", "REJECTED", "PASS"]
    assert "reuse-authorization  no authorized `/reuse-sweep-run`" in result.steps[4].stdout
    assert "sign-off issue_comment" in result.steps[5].stdout and "maintainer: valid" in (
        result.steps[5].stdout
    )
    assert "dry run: nothing was posted, pushed or merged" in result.steps[6].stdout
    assert "perf-changelog.yaml conflict resolved" in result.steps[8].stderr
    assert result.reuse["reuse-enabled"] == "true"
    assert result.reuse["reuse-source-pr-number"] == "2"
    assert result.final_changelog.endswith(
        b"  pr-link: " + LINK.encode() + b"1\n\n"
        b"- config-keys:\n    - mixtral-fp4-gpu-b-trt\n  description:\n"
        b'    - "Upgrade the gpu-b TensorRT image to 1.3.0"\n'
        b"  pr-link: "
        + LINK.encode()
        + b"2\n\n"
        + RECOVERED.replace(b"PR", b"3")
        + b"\n"
        + RECOVERED.replace(b"PR", b"4")
    )
    # the recovery: planned without a write, then done, reusing PR #3's sweep
    assert "dry run: nothing was pushed, opened" in result.steps[10].stdout
    assert "recovery PR #4 merged as" in result.steps[11].stdout
    assert "trigger-ingest dispatched the ingest with source run" in result.steps[11].stdout
    assert result.ok and result.workdir is None
    assert list(tmp_path.iterdir()) == []  # the throwaway repositories are gone
    assert set(threading.enumerate()) <= threads  # the fake GitHub and the CI thread stopped
    assert any(line.startswith("fake GitHub for example-org/inferencex-mini") for line in lines)
    exchanges = contract.load(recorded)
    assert len(exchanges) > 80
    assert contract.check(exchanges) == []


def stop(server: subprocess.Popen[str]) -> str:
    """SIGTERM ``server`` and return the rest of its output; killed if it does not stop, so a
    failing test leaves nothing running either."""
    server.send_signal(signal.SIGTERM)
    try:
        return server.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        server.kill()
        server.communicate()
        raise


def test_demo_keep_leaves_a_sandbox_whose_printed_commands_work_as_written(
    tmp_path: Path,
) -> None:
    """Follow only what `demo --keep` prints: serve the sandbox again, merge PR #5 with
    --dry-run and for real, run reuse-gate on main; stop the server; nothing keeps running."""
    proc = run_cli("demo", "--keep", "--workdir", str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "12 commands, all as expected" in proc.stdout
    (root,) = tmp_path.iterdir()
    assert f"kept the sandbox in {root} (see {root}/HOWTO.txt)" in proc.stdout
    text = proc.stdout.splitlines()
    start_line = text[
        text.index(
            "   1. Start the fake GitHub and its CI again (it serves until "
            "Ctrl-C, then saves its state):"
        )
        + 1
    ].strip()
    first = text.index("   2. In another terminal:") + 1
    last = text.index("   3. When done: Ctrl-C in the first terminal, then")
    commands = [line.strip() for line in text[first:last] if not line.strip().startswith("(")]
    assert start_line == f"sh {root / 'start-github.sh'}"
    assert commands[2:] == [
        "changelog-tools signoff verify --pr 5 --dry-run",
        "changelog-tools merge 5 --dry-run",
        "changelog-tools merge 5",
        "git pull -q --ff-only",
        "changelog-tools reuse-gate --event-name push --ref refs/heads/main "
        '--commit-sha "$(git rev-parse HEAD)"',
    ]
    assert (root / "HOWTO.txt").read_text().splitlines()[0] == f"Your sandbox: {root}"
    # nothing runs after the demo: the port the sandbox recorded is free again
    port = json.loads((root / "sandbox.json").read_text())["port"]
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GH_", "GITHUB_"))}
    server = subprocess.Popen(
        shlex.split(start_line),  # `sh start-github.sh` execs the server: one pid to signal
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert server.stdout is not None
        banner = server.stdout.readline()
        assert banner.startswith("fake GitHub for example-org/inferencex-mini listening on "), (
            banner + server.stdout.read()
        )
        script = "set -e\n" + "\n".join(
            f"echo '$ {c}'\n{c}" for c in commands
        )  # every printed command, in one shell, as written
        run = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env)
        assert run.returncode == 0, run.stdout + run.stderr
    finally:
        rest = stop(server)
    assert server.returncode == 0, rest
    assert "dry run: nothing was posted, pushed or merged" in run.stdout
    assert "merged as " in run.stdout and "[wait] all checks passed on " in run.stderr
    gate = json.loads(run.stdout[run.stdout.rindex("{") :])
    assert gate["reuse-enabled"] == "true" and gate["reuse-source-pr-number"] == "5"
    assert (
        (root / "maintainer" / "perf-changelog.yaml")
        .read_bytes()
        .endswith(b"  pr-link: " + LINK.encode() + b"5\n")
    )
    assert f"state saved to {root / 'github-state.json'}" in rest
    state = json.loads((root / "github-state.json").read_text())
    assert [(p["number"], p["merged"]) for p in state["pulls"]] == [
        (n, True) for n in (1, 2, 3, 4, 5)
    ]
    with socket.socket() as probe:  # and the server is gone again
        assert probe.connect_ex(("127.0.0.1", port)) != 0

    # Served again while something else holds its port: another port, and env.sh follows it.
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
        again = subprocess.Popen(
            shlex.split(start_line), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, env=env,
        )  # fmt: skip
        try:
            assert again.stdout is not None
            notice, banner = again.stdout.readline(), again.stdout.readline()
        finally:
            rest = stop(again)
    assert again.returncode == 0, notice + banner + rest
    moved = json.loads((root / "sandbox.json").read_text())["port"]
    assert moved != port
    assert notice == f"port {port} is taken; listening on another: source env.sh again\n"
    assert banner.endswith(f"listening on http://127.0.0.1:{moved}/api/v3\n")
    assert f"export GITHUB_API_URL=http://127.0.0.1:{moved}/api/v3\n" in (
        (root / "env.sh").read_text()
    )


def test_serve_refuses_a_directory_that_is_not_a_kept_sandbox(tmp_path: Path) -> None:
    proc = run_cli("demo", "--serve", str(tmp_path))
    assert proc.returncode == 1
    assert f"error: {tmp_path}: not a sandbox kept by `changelog-tools demo --keep`" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_example_path_prints_the_bundled_example_from_the_installed_package() -> None:
    proc = run_cli("demo", "--example-path")
    assert proc.returncode == 0, proc.stderr
    where = Path(proc.stdout.strip())
    assert (where / ".changelog-tools.yaml").is_file() and (where / "perf-changelog.yaml").is_file()
    assert where.parts[-2:] == ("examples", "inferencex-mini")
    refused = run_cli("demo", "--example-path", "--keep")
    assert refused.returncode == 2 and "--example-path takes no other option" in refused.stderr


# -- hostile and failing GitHub-side situations ------------------------------------------------


def test_a_demo_kept_with_keep_says_where_even_when_a_step_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from changelog_tools.flows import demo

    def failing_story(*_args: object) -> None:
        raise DataError("demo step 'x' exited 3, expected 0")

    monkeypatch.setattr(demo, "_story", failing_story)
    lines: list[str] = []
    with pytest.raises(DataError):
        demo.run_demo(say=lines.append, keep=True, workdir=tmp_path)
    kept = list(tmp_path.iterdir())
    assert len(kept) == 1 and (kept[0] / "origin.git").is_dir()
    assert lines[-1] == f"kept the repositories in {kept[0]}"
