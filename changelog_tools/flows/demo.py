"""`changelog-tools demo`: the whole story on a throwaway repository, with the real commands.

Builds a bare "GitHub" origin from the bundled example repository in a temporary directory,
starts the bundled fake GitHub (tied to that origin) and a fake CI that runs the real `check` on
every pull-request head, opens two pull requests that both append to the changelog, and then
runs the installed commands as a user would, each in its own process:

1. `check` flags PR #1's wrong pr-link; the author fixes it and `check` passes;
2. `merge 1` merges PR #1 with reuse of its sweep;
3. `merge 2`: PR #2 now conflicts with main in the changelog; the flow resolves the conflict,
   canonicalizes the placeholder link and merges;
4. `reuse-gate` on main's new commit reports the reused sweep run.

Everything runs on 127.0.0.1 and in the temporary directory, which is removed at the end
(unless asked to keep it); the server and the CI thread are stopped whatever happens.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from changelog_tools.errors import DataError, ExternalError

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "inferencex-mini"
CHANGELOG = "perf-changelog.yaml"
SWEEP_WORKFLOW = "run-sweep.yml"
# Demo-speed settings appended to the example's configuration (the defaults suit real GitHub).
DEMO_CONFIG = """
# demo speed: the fake GitHub answers at once
github-write-interval: 0
github-retry-backoff: 0.1
check-poll-interval: 0.1
check-timeout: 60
"""


@dataclass(frozen=True)
class Step:
    """One command the demo ran and what came of it."""

    title: str
    argv: tuple[str, ...]
    exit_code: int
    expected: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.exit_code == self.expected


@dataclass
class DemoResult:
    steps: list[Step] = field(default_factory=list)
    seconds: float = 0.0
    workdir: Path | None = None  # set when kept
    final_changelog: bytes = b""
    reuse: Mapping[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.steps)


def _entry(description: str, link: str, key: str) -> str:
    return (
        f'- config-keys:\n    - {key}\n  description:\n    - "{description}"\n  pr-link: {link}\n'
    )


class _Shell:
    """Runs git and the tool with a private, reproducible environment."""

    def __init__(self, root: Path, extra_env: Mapping[str, str]) -> None:
        from changelog_tools.gitrepo import GIT_LOCAL_VARS

        home = root / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in GIT_LOCAL_VARS}
        for name in ("GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_PATH",
                     "GITHUB_EVENT_NAME", "GITHUB_REPOSITORY", "GITHUB_SHA", "GITHUB_REF",
                     "GITHUB_TOKEN", "XDG_CONFIG_HOME"):  # fmt: skip
            env.pop(name, None)
        env.update(
            HOME=str(home),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
            GIT_TERMINAL_PROMPT="0",
            GIT_EDITOR="true",
            GIT_AUTHOR_NAME="Demo Author",
            GIT_AUTHOR_EMAIL="author@example.invalid",
            GIT_COMMITTER_NAME="Demo Author",
            GIT_COMMITTER_EMAIL="author@example.invalid",
            PYTHONUNBUFFERED="1",
        )
        env.update(extra_env)
        self.env = env

    def git(self, cwd: Path, *args: str) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=cwd, env=self.env, capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise ExternalError(f"demo: git {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout.strip()

    def tool(self, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
        # The installed package's own entry point, in a fresh process, as a user runs it.
        return subprocess.run(
            [sys.executable, "-m", "changelog_tools", *args],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )


def _real_check_verdict(
    origin: Path, config_path: Path
) -> Callable[[int, str], dict[str, str | None]]:
    """The fake CI's verdict: the real `check` in PR mode on the head against its merge-base."""
    from changelog_tools.config import load_config
    from changelog_tools.gitrepo import open_repo
    from changelog_tools.ledger.check import check_change

    def verdict(pr: int, sha: str) -> dict[str, str | None]:
        config = load_config(config_path)
        repo = open_repo(origin)
        base = repo.merge_base(sha, f"refs/heads/{config.main_branch}")
        head = repo.read_blob(sha, config.changelog) or b""
        result = check_change(
            base=repo.read_blob(base, config.changelog),
            head=head,
            config=config,
            mode="pr",
            pr=pr,
            masters_base={p: repo.read_blob(base, p) for p in config.master_configs},
            masters_head={p: repo.read_blob(sha, p) for p in config.master_configs},
        )
        return {config.changelog_check_name: "success" if result.report.ok else "failure"}

    return verdict


@contextmanager
def _world(
    root: Path, say: Callable[[str], None]
) -> Iterator[tuple[_Shell, dict[str, Path], object, object]]:
    from changelog_tools.testing.fakeci import FakeCI
    from changelog_tools.testing.fakegithub import FakeGitHub

    token = "demo-" + secrets.token_hex(8)
    origin = root / "origin.git"
    paths = {
        "origin": origin,
        "alice": root / "alice",
        "bob": root / "bob",
        "maintainer": root / "maintainer",
    }
    fake = FakeGitHub("example-org/inferencex-mini", git_origin=origin, token=token).start()
    ci = None
    try:
        shell = _Shell(root, {"GH_TOKEN": token, "GITHUB_API_URL": fake.base_url})
        shell.git(root, "init", "-q", "--bare", "-b", "main", str(origin))
        seed = root / "seed"
        shell.git(root, "clone", "-q", str(origin), str(seed))
        shutil.copytree(EXAMPLE, seed, dirs_exist_ok=True)
        config = seed / ".changelog-tools.yaml"
        config.write_text(config.read_text(encoding="utf-8") + DEMO_CONFIG, encoding="utf-8")
        shell.git(seed, "add", "-A")
        shell.git(seed, "commit", "-q", "-m", "Import inferencex-mini")
        shell.git(seed, "push", "-q", "origin", "HEAD:refs/heads/main")
        for who in ("alice", "bob", "maintainer"):
            shell.git(root, "clone", "-q", str(origin), str(paths[who]))
        say(
            f"built a throwaway repository in {root} (origin: {origin.name}, clones: alice, bob, maintainer)"
        )
        say(f"fake GitHub for example-org/inferencex-mini listening on {fake.base_url}")
        ci = FakeCI(fake, _real_check_verdict(origin, config), interval=0.05).start()
        yield shell, paths, fake, ci
    finally:
        if ci is not None:
            ci.stop()
        fake.stop()


def run_demo(
    *, say: Callable[[str], None], keep: bool = False, workdir: Path | None = None
) -> DemoResult:
    """Run the story; ``say`` receives every line to show. Leaves nothing running."""
    started = time.monotonic()
    result = DemoResult()
    root = Path(tempfile.mkdtemp(prefix="changelog-tools-demo-", dir=workdir))
    try:
        with _world(root, say) as (shell, paths, fake, _ci):
            _story(shell, paths, fake, result, say)
    except BaseException:
        if keep:  # the caller never sees `result` now; say where to look
            say(f"kept the repositories in {root}")
        raise
    finally:
        if keep:
            result.workdir = root
        else:
            shutil.rmtree(root, ignore_errors=True)
    result.seconds = time.monotonic() - started
    return result


def _story(
    shell: _Shell,
    paths: dict[str, Path],
    fake: object,
    result: DemoResult,
    say: Callable[[str], None],
) -> None:
    from changelog_tools.testing.fakegithub import FakeGitHub

    assert isinstance(fake, FakeGitHub)
    link = "https://github.com/example-org/inferencex-mini/pull/"
    alice, bob, maintainer = paths["alice"], paths["bob"], paths["maintainer"]

    def open_pr(who: Path, number: int, branch: str, title: str, text: str) -> str:
        shell.git(who, "checkout", "-q", "-b", branch)
        with (who / CHANGELOG).open("a", encoding="utf-8") as handle:
            handle.write("\n" + text)
        shell.git(who, "commit", "-q", "-am", title)
        shell.git(who, "push", "-q", "origin", branch)
        head = shell.git(who, "rev-parse", "HEAD")
        fake.add_pull(number, branch, title=title, labels=["full-sweep-enabled"], author=who.name)
        return head

    def sweep(branch: str, head: str) -> int:
        run = fake.add_run(SWEEP_WORKFLOW, head, head_branch=branch, artifacts=["results_bmk"])
        return run.id

    def step(title: str, who: Path, argv: Sequence[str], expected: int) -> Step:
        say("")
        say(f"== {title}")
        say(f"   {who.name}$ changelog-tools {' '.join(argv)}")
        proc = shell.tool(who, *argv)
        for line in (proc.stderr + proc.stdout).splitlines():
            say(f"   | {line}")
        done = Step(title, tuple(argv), proc.returncode, expected, proc.stdout, proc.stderr)
        mark = "as expected" if done.ok else f"UNEXPECTED (wanted {expected})"
        say(f"   exit {proc.returncode} ({mark})")
        result.steps.append(done)
        if not done.ok:
            raise DataError(f"demo step {title!r} exited {proc.returncode}, expected {expected}")
        return done

    say("")
    say("== 0. two pull requests, both appending to perf-changelog.yaml")
    head_a = open_pr(
        alice, 1, "tune-llama", "Tune llama 70B TP sizes on gpu-a",
        _entry("Tune the TP sizes for llama 70B on gpu-a", f"{link}2", "llama70b-fp8-gpu-a-vllm"),
    )  # fmt: skip
    run_a = sweep("tune-llama", head_a)
    head_b = open_pr(
        bob, 2, "mixtral-image", "Upgrade the gpu-b TensorRT image",
        _entry("Upgrade the gpu-b TensorRT image to 1.3.0", "XXX", "mixtral-fp4-gpu-b-trt"),
    )  # fmt: skip
    run_b = sweep("mixtral-image", head_b)
    say(
        f"   PR #1 (alice, tune-llama) appends an entry whose pr-link says .../pull/2; swept by run {run_a}"
    )
    say(f"   PR #2 (bob, mixtral-image) appends an entry with pr-link XXX; swept by run {run_b}")

    step("1. CI's `check` flags PR #1's wrong pr-link", alice, ["check", "--pr", "1"], 1)

    say("")
    say("== 2. alice fixes the link (a placeholder is fine: merge fills it in) and pushes")
    text = (
        (alice / CHANGELOG).read_text(encoding="utf-8").replace(f"pr-link: {link}2", "pr-link: XXX")
    )
    (alice / CHANGELOG).write_text(text, encoding="utf-8")
    shell.git(alice, "commit", "-q", "-am", "Use a placeholder pr-link")
    shell.git(alice, "push", "-q", "origin", "tune-llama")
    head_a = shell.git(alice, "rev-parse", "HEAD")
    run_a = sweep("tune-llama", head_a)
    say(f"   pushed {head_a[:12]}; the sweep ran again as run {run_a}")
    step("3. `check` passes now", alice, ["check", "--pr", "1"], 0)

    step(
        "4. a maintainer looks before leaping (--dry-run changes nothing)",
        maintainer,
        ["merge", "1", "--dry-run"],
        0,
    )
    step("5. ... and merges PR #1, reusing its sweep", maintainer, ["merge", "1"], 0)
    step(
        "6. PR #2 now conflicts with main in the changelog: merge resolves it and fills in its link",
        maintainer, ["merge", "2"], 0,
    )  # fmt: skip
    shell.git(maintainer, "pull", "-q", "--ff-only")
    main_sha = shell.git(maintainer, "rev-parse", "HEAD")
    gate = step(
        "7. on main, CI's `reuse-gate` reuses PR #2's sweep instead of sweeping again",
        maintainer,
        [
            "reuse-gate",
            "--event-name",
            "push",
            "--ref",
            "refs/heads/main",
            "--commit-sha",
            main_sha,
        ],
        0,
    )
    try:
        outputs = json.loads(gate.stdout)
    except ValueError:
        outputs = {}
    result.reuse = {str(k): str(v) for k, v in outputs.items()}
    if result.reuse.get("reuse-enabled") != "true":
        raise DataError(f"demo: reuse-gate did not reuse a run: {result.reuse.get('reuse-reason')}")
    result.final_changelog = (maintainer / CHANGELOG).read_bytes()
    say("")
    say("== the end of main's perf-changelog.yaml: both entries, canonical links")
    tail = result.final_changelog.decode("utf-8").split("\n\n")[-2:]
    for line in "\n\n".join(tail).rstrip("\n").splitlines():
        say(f"   | {line}".rstrip())
