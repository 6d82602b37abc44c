"""Commands exactly as docs/check.md, docs/recover.md, docs/signoff.md and `--help` give them,
run through the installed console script: what a user types must do what the docs say."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools import diagnostics as dx
from tests.checkdata import BASE, PULL, entry, init_repo
from tests.conftest import commit_files, git, run_cli

KEY = "alpha-fp8-gpu-a-vllm"
CHANGELOG = "perf-changelog.yaml"
REPO_ROOT = Path(__file__).resolve().parents[2]


def console_script() -> str:
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe
    return exe


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = init_repo(tmp_path / "bench")
    git(root, "checkout", "-q", "-b", "pr")
    return root


# -- check --main --pr N (a merge queue: main mode, the landing PR known) ----------------------


def test_check_main_with_the_landing_pull_request_is_accepted(repo: Path) -> None:
    commit_files(repo, {CHANGELOG: BASE + b"\n" + entry(KEY, link=f"{PULL}7")}, "PR 7")
    ok = run_cli("check", "--main", "--pr", "7", "--no-config-keys", cwd=repo)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "main branch, landing pull request #7" in ok.stderr
    # main mode with PR 8 landing: the entry links another pull request
    other = run_cli("check", "--main", "--pr", "8", "--no-config-keys", cwd=repo)
    assert other.returncode == 1 and "CL201" in other.stdout
    # main mode still wants a canonical link: a placeholder does not land
    commit_files(repo, {CHANGELOG: BASE + b"\n" + entry(KEY, link="XXX")}, "placeholder")
    placeholder = run_cli("check", "--main", "--pr", "7", "--no-config-keys", cwd=repo)
    assert placeholder.returncode == 1
    # --local takes no number, as before
    local = run_cli("check", "--local", "--pr", "7", cwd=repo)
    assert local.returncode == 2 and "--pr cannot be combined with --local" in local.stderr


# -- an unknown revision: exit 2 (usage) in code, --help and docs ------------------------------


def test_an_unknown_revision_is_a_usage_error_everywhere_it_is_described(repo: Path) -> None:
    proc = run_cli("check", "--base-ref", "no-such-rev", "--format", "json", cwd=repo)
    assert proc.returncode == 2
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "usage" and error["exit-code"] == 2
    assert error["message"].startswith("unknown revision 'no-such-rev'")
    helped = " ".join(run_cli("check", "--help").stdout.split())
    assert "2 usage or configuration error (an unknown revision included), 3 git failed" in helped
    doc = " ".join((REPO_ROOT / "docs" / "check.md").read_text().split())
    assert "3 git failed (unknown revision" not in doc
    assert "is a usage error, exit 2" in doc


# -- --config FILE outside the repository: the caller's own -----------------------------------


def test_check_with_a_configuration_file_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "workflow" / "trusted.yaml"
    outside.parent.mkdir()
    shutil.copy(repo / ".changelog-tools.yaml", outside)
    commit_files(repo, {CHANGELOG: BASE + b"\n" + entry(KEY, link=f"{PULL}7")}, "PR 7")
    proc = run_cli("check", "--config", str(outside), "--pr", "7", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # from a subdirectory too: the paths in the file name files of this repository
    sub = run_cli("check", "--config", str(outside), "--pr", "7", cwd=repo / "configs")
    assert sub.returncode == 0, sub.stdout + sub.stderr
    # and the file's options are the ones used: a changelog path it names is read
    outside.write_text(outside.read_text() + "changelog: missing.yaml\n")
    missing = run_cli("check", "--config", str(outside), "--pr", "7", cwd=repo)
    assert missing.returncode == 2 and "missing.yaml does not exist" in missing.stderr


# -- validate: a FIFO, an unreadable file --------------------------------------------------------


def test_validate_of_a_named_pipe_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "changelog.fifo"
    os.mkfifo(fifo)
    proc = run_cli("validate", str(fifo), timeout=60)  # a hang fails here, not forever
    assert proc.returncode == 2
    assert proc.stderr == f"error: {fifo}: is a named pipe (FIFO), not a file; pipe its contents to `-` instead\n"  # fmt: skip
    # what the shell hands over for `<(...)` and /dev/stdin is still read
    piped = subprocess.run(
        [console_script(), "validate", "/dev/stdin"],
        input=BASE,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert piped.returncode == 0, piped.stderr


def _without_file_permission_override() -> None:
    """Run the child as root would run without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH: file
    permissions then apply to it, as they do to every other user (CI runners are not root)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop, cap_dac_override, cap_dac_read_search = 24, 1, 2
    for cap in (cap_dac_override, cap_dac_read_search):
        if libc.prctl(pr_capbset_drop, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_an_unreadable_file_gets_the_same_one_line_error_as_a_missing_one(tmp_path: Path) -> None:
    target = tmp_path / "perf-changelog.yaml"
    target.write_bytes(BASE)
    target.chmod(0)
    try:
        proc = subprocess.run(
            [console_script(), "validate", str(target)],
            capture_output=True,
            text=True,
            check=False,
            preexec_fn=_without_file_permission_override if os.geteuid() == 0 else None,
        )
    finally:
        target.chmod(0o644)
    assert proc.returncode == 2
    assert proc.stderr == f"error: {target}: cannot read: Permission denied\n"
    missing = run_cli("validate", str(tmp_path / "absent.yaml"))
    assert missing.returncode == 2
    assert missing.stderr == f"error: {tmp_path / 'absent.yaml'}: no such file\n"


# -- Ctrl-C with --format json -------------------------------------------------------------------


def _waiting_on_stdin(pid: int) -> bool:
    try:
        return "pipe" in Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False


def test_an_interrupted_command_still_prints_its_json_error(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [console_script(), "validate", "-", "--format", "json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # wait until it reads standard input (the kernel names the wait), not while Python
        # is still importing
        deadline = time.monotonic() + 60
        while not _waiting_on_stdin(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not _waiting_on_stdin(proc.pid):
            time.sleep(5)  # no /proc wait channel here: give it time to reach the read
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert err.split() == ["interrupted"]  # click's own newline, then the one line
    doc = json.loads(out)
    assert doc["ok"] is False and doc["command"] == "validate"
    assert doc["error"] == {"code": "interrupted", "exit-code": 130, "message": "interrupted"}


# -- help texts ----------------------------------------------------------------------------------


def test_the_top_level_help_lists_exit_130() -> None:
    helped = run_cli("--help").stdout
    assert "130 interrupted (Ctrl-C, SIGINT)" in helped


def test_signoff_help_shows_verifys_whole_summary() -> None:
    helped = run_cli("signoff", "--help").stdout
    assert "rejected,..." not in helped
    assert (
        "verify Decide one verdict for a pull request's head: pass, rejected, pending or error."
        in " ".join(helped.split())
    )


# -- validate on a CRLF file: the count after the lines it counts --------------------------------


def test_the_more_lines_summary_follows_the_lines_it_summarises(tmp_path: Path) -> None:
    target = tmp_path / "crlf.yaml"
    target.write_bytes(BASE.replace(b"\n", b"\r\n"))
    proc = run_cli("validate", str(target))
    assert proc.returncode == 1
    lines = [line for line in proc.stdout.splitlines() if f" {dx.CARRIAGE_RETURN} " in line]
    assert len(lines) == 11
    assert lines[-1] == f"{target}:11: {dx.CARRIAGE_RETURN} carriage return (CR) on 1 more lines (from line 11)"  # fmt: skip
    assert [int(line.split(":")[1]) for line in lines] == list(range(1, 12))


# -- signoff verify: coverage in words -----------------------------------------------------------


@pytest.fixture
def signoff_world(tmp_path: Path) -> Iterator[object]:
    from tests.signoff.world import build_world

    world = build_world(tmp_path)
    try:
        yield world
    finally:
        world.fake.stop()


def test_the_signoff_report_says_in_words_who_covers_each_path(signoff_world: object) -> None:
    from tests.signoff.world import MASTER_A, World

    assert isinstance(signoff_world, World)
    signoff_world.open_pr()  # changes MASTER_A and the changelog; no sign-off yet
    proc = run_cli(
        "signoff",
        "verify",
        "--pr",
        "7",
        "--dry-run",
        cwd=signoff_world.trusted,
        env=signoff_world.env,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "NOBODY" not in proc.stdout and " -> " not in proc.stdout
    assert (
        f"  path {MASTER_A}: CODEOWNERS line 4 (`{MASTER_A}` @amd-a @amd-b); NOT COVERED: no "
        "valid sign-off by one of @amd-a @amd-b" in proc.stdout
    )
    assert (
        f"  path {CHANGELOG}: CODEOWNERS line 1 (`*`); NOT COVERED: no valid sign-off by any "
        "code owner" in proc.stdout
    )


# -- recover: --config outside the repository; --dry-run after a finished recovery -------------


@pytest.fixture
def lost(tmp_path: Path) -> Iterator[tuple[object, object]]:
    from tests.recoverworld import lost_world

    yield from lost_world(tmp_path)


def test_recover_with_an_outside_configuration_and_a_dry_run_after_it_finished(
    lost: tuple[object, object], tmp_path: Path
) -> None:
    from tests.mergeworld import World

    w, _ = lost
    assert isinstance(w, World)
    outside = tmp_path / "workflow" / "recover.yaml"
    outside.parent.mkdir()
    shutil.copy(w.clone / ".changelog-tools.yaml", outside)
    args = ("recover", "--pr", "1", "--config", str(outside))
    planned = run_cli(*args, "--dry-run", cwd=w.clone, env=w.env, timeout=300)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    appended = planned.stdout.split("  appended to the changelog:\n", 1)[1]
    assert appended.lstrip().startswith("- config-keys:")
    done = run_cli(*args, "--yes", cwd=w.clone, env=w.env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "recovery PR #2 merged as" in done.stdout
    again = run_cli(*args, "--dry-run", cwd=w.clone, env=w.env, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "appended to the changelog:\n" not in again.stdout  # no heading over nothing
    assert "  appended to the changelog: nothing (already on main)\n" in again.stdout


def test_keys_shows_a_hostile_master_config_key_without_obeying_it(repo: Path) -> None:
    # An OSC 8 hyperlink as a master-config key (YAML escapes, no raw byte in the file).
    hostile = '"\\e]8;;https://evil.example/\\e\\\\k\\e]8;;\\e\\\\":\n  image: x\n'
    master = repo / "configs" / "a-master.yaml"
    master.write_text(master.read_text() + hostile)
    proc = run_cli("keys", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout
    assert "\\x1b]8;;https://evil.example/\\x1b\\k" in proc.stdout
