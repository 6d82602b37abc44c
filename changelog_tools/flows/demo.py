"""`changelog-tools demo`: the whole story on a throwaway repository, with the real commands.

Builds a bare "GitHub" origin from the bundled example repository in a temporary directory,
starts the bundled fake GitHub (tied to that origin) and a fake CI that runs the real `check` on
every pull-request head, opens two pull requests that both append to the changelog, and then
runs the installed commands as a user would, each in its own process:

1. `check` flags PR #1's pr-link (copied from the browser: the PR's files tab); the author runs
   `fix`, which makes it canonical, pushes, and `check` passes;
2. `merge 1` merges PR #1 with reuse of its sweep;
3. `merge 2`: PR #2 now conflicts with main in the changelog; the flow resolves the conflict,
   canonicalizes the placeholder link and merges;
4. `reuse-gate` on main's new commit reports the reused sweep run.

Everything runs on 127.0.0.1 and in the temporary directory, which is removed at the end
(unless asked to keep it); the server and the CI thread are stopped whatever happens.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from changelog_tools.errors import DataError, ExternalError
from changelog_tools.flows.demo_sandbox import (
    HOWTO_FILE,
    SANDBOX_FILE,
    SANDBOX_PR,
    START_FILE,
    STATE_FILE,
    announce,
    howto,
    port_of,
    save_json,
    tool_command,
    write_env,
)

if TYPE_CHECKING:
    from changelog_tools.testing.fakegithub import FakeGitHub

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
ingest-timeout: 60
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
        # the PR workflow's reuse gate job runs on every push to a full-sweep PR and passes
        # (it only decides whether the PR sweep is skipped)
        return {
            config.changelog_check_name: "success" if result.report.ok else "failure",
            "reuse-sweep-gate": "success",
        }

    return verdict


@dataclass(frozen=True)
class _World:
    shell: _Shell
    paths: dict[str, Path]
    fake: object  # FakeGitHub (typed loosely: `testing` is imported lazily)
    token: str
    config: Path  # the configuration the fake CI's `check` reads


@contextmanager
def _world(root: Path, say: Callable[[str], None]) -> Iterator[_World]:
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
        from changelog_tools.testing.fakesweep import ci_push_runs

        # each merge to main gets the push run the reuse gate's rules give it
        ci = FakeCI(
            fake,
            _real_check_verdict(origin, config),
            interval=0.05,
            on_merge=ci_push_runs(fake),
        ).start()
        yield _World(shell, paths, fake, token, config)
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
        with _world(root, say) as world:
            _story(world.shell, world.paths, world.fake, result, say)
            if keep:
                _leave_sandbox(world, root, say)
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


def _open_pr(
    shell: _Shell,
    fake: FakeGitHub,
    who: Path,
    number: int,
    branch: str,
    title: str,
    text: str,
    *,
    start: str = "HEAD",
) -> str:
    """Branch off ``start``, append ``text`` to the changelog, push, open PR ``number``."""
    shell.git(who, "checkout", "-q", "-b", branch, start)
    with (who / CHANGELOG).open("a", encoding="utf-8") as handle:
        handle.write("\n" + text)
    shell.git(who, "commit", "-q", "-am", title)
    shell.git(who, "push", "-q", "origin", branch)
    head = shell.git(who, "rev-parse", "HEAD")
    fake.add_pull(number, branch, title=title, labels=["full-sweep-enabled"], author=who.name)
    return head


def _sweep(fake: FakeGitHub, branch: str, head: str, key: str | None = None) -> int:
    """A finished PR sweep with result artifacts on ``head`` (what CI would leave behind); with
    ``key``, also its jobs and eval results, which the sign-off bot reads."""
    from changelog_tools.flows.demo_signoff import sweep_evidence

    evidence = sweep_evidence(key) if key else {}
    run = fake.add_run(
        SWEEP_WORKFLOW, head, head_branch=branch, artifacts=["results_bmk"], **evidence
    )
    return run.id


def _story(
    shell: _Shell,
    paths: dict[str, Path],
    fake: object,
    result: DemoResult,
    say: Callable[[str], None],
) -> None:
    """The demo's story, chapter by chapter (each command's exit code checked)."""
    from changelog_tools.testing.fakegithub import FakeGitHub

    assert isinstance(fake, FakeGitHub)
    story = _Story(shell, paths, fake, result, say)
    story.two_pull_requests()
    story.fix_and_sign_off()
    story.merge_both()
    story.reuse_on_main()
    story.recover_a_lost_ingest()
    story.the_end()


_LINK = "https://github.com/example-org/inferencex-mini/pull/"


@dataclass
class _Story:
    """The chapters of the demo over one world; ``step`` runs a command as a user would."""

    shell: _Shell
    paths: dict[str, Path]
    fake: FakeGitHub
    result: DemoResult
    say: Callable[[str], None]

    def step(self, title: str, who: Path, argv: Sequence[str], expected: int) -> Step:
        say = self.say
        say("")
        say(f"== {title}")
        say(f"   {who.name}$ changelog-tools {' '.join(argv)}")
        proc = self.shell.tool(who, *argv)
        for line in (proc.stderr + proc.stdout).splitlines():
            say(f"   | {line}")
        done = Step(title, tuple(argv), proc.returncode, expected, proc.stdout, proc.stderr)
        mark = "as expected" if done.ok else f"UNEXPECTED (wanted {expected})"
        say(f"   exit {proc.returncode} ({mark})")
        self.result.steps.append(done)
        if not done.ok:
            raise DataError(f"demo step {title!r} exited {proc.returncode}, expected {expected}")
        return done

    def two_pull_requests(self) -> None:
        """0. alice's and bob's pull requests, both appending to the changelog, both swept."""
        say, fake = self.say, self.fake
        say("")
        say("== 0. two pull requests, both appending to perf-changelog.yaml")
        head_a = _open_pr(
            self.shell, fake, self.paths["alice"], 1, "tune-llama",
            "Tune llama 70B TP sizes on gpu-a",
            _entry("Tune the TP sizes for llama 70B on gpu-a", f"{_LINK}1/files",
                   "llama70b-fp8-gpu-a-vllm"),
        )  # fmt: skip
        run_a = _sweep(fake, "tune-llama", head_a)
        head_b = _open_pr(
            self.shell, fake, self.paths["bob"], 2, "mixtral-image",
            "Upgrade the gpu-b TensorRT image",
            _entry("Upgrade the gpu-b TensorRT image to 1.3.0", "XXX", "mixtral-fp4-gpu-b-trt"),
        )  # fmt: skip
        run_b = _sweep(fake, "mixtral-image", head_b)
        say(
            "   PR #1 (alice, tune-llama) appends an entry whose pr-link is .../pull/1/files; "
            f"swept by run {run_a}"
        )
        say(
            f"   PR #2 (bob, mixtral-image) appends an entry with pr-link XXX; swept by run {run_b}"
        )

    def fix_and_sign_off(self) -> None:
        """1-3. `check` flags PR #1, `fix` repairs it, `check` passes; then the sign-off bot."""
        shell, alice, step = self.shell, self.paths["alice"], self.step
        step("1. CI's `check` flags PR #1's pr-link", alice, ["check", "--pr", "1"], 1)
        step("2. alice lets `fix` repair it (the hint names it), then commits and pushes", alice,
             ["fix"], 0)  # fmt: skip
        shell.git(alice, "commit", "-q", "-am", "Canonical pr-link")
        shell.git(alice, "push", "-q", "origin", "tune-llama")
        head_a = shell.git(alice, "rev-parse", "HEAD")
        run_a = _sweep(self.fake, "tune-llama", head_a, "llama70b-fp8-gpu-a-vllm")
        self.say(f"   pushed {head_a[:12]}; the sweep ran again as run {run_a}")
        step("3. `check` passes now", alice, ["check", "--pr", "1"], 0)
        from changelog_tools.flows.demo_signoff import signoff_story

        signoff_story(step, self.fake, self.paths["maintainer"], pr=1, say=self.say)

    def merge_both(self) -> None:
        """4-6. a dry run, then `merge` of PR #1, then of PR #2 (which now conflicts)."""
        maintainer, step = self.paths["maintainer"], self.step
        step(
            "4. a maintainer looks before leaping (--dry-run changes nothing)",
            maintainer,
            ["merge", "1", "--dry-run"],
            0,
        )
        step("5. ... and merges PR #1, reusing its sweep", maintainer, ["merge", "1"], 0)
        step(
            "6. PR #2 now conflicts with main in the changelog: merge resolves it and fills in "
            "its link",
            maintainer, ["merge", "2"], 0,
        )  # fmt: skip

    def reuse_on_main(self) -> None:
        """7. `reuse-gate` on main's new commit reuses PR #2's sweep."""
        maintainer = self.paths["maintainer"]
        self.shell.git(maintainer, "pull", "-q", "--ff-only")
        main_sha = self.shell.git(maintainer, "rev-parse", "HEAD")
        gate = self.step(
            "7. on main, CI's `reuse-gate` reuses PR #2's sweep instead of sweeping again",
            maintainer,
            ["reuse-gate", "--event-name", "push", "--ref", "refs/heads/main",
             "--commit-sha", main_sha],
            0,
        )  # fmt: skip
        try:
            outputs = json.loads(gate.stdout)
        except ValueError:
            outputs = {}
        reuse = {str(k): str(v) for k, v in outputs.items()}
        self.result.reuse = reuse
        if reuse.get("reuse-enabled") != "true":
            raise DataError(f"demo: reuse-gate did not reuse a run: {reuse.get('reuse-reason')}")

    def recover_a_lost_ingest(self) -> None:
        """A merge whose ingest is lost, and `recover` bringing it back."""
        from changelog_tools.flows.demo_recover import LOST_PR, recover_story

        shell, fake, bob = self.shell, self.fake, self.paths["bob"]

        def open_lost() -> str:
            shell.git(bob, "fetch", "-q", "origin")
            return _open_pr(
                shell, fake, bob, LOST_PR, "mixtral-gpu-a", "Raise mixtral concurrency on gpu-a",
                _entry("Raise the mixtral concurrency on gpu-a to 64", f"{_LINK}{LOST_PR}",
                       "mixtral-fp4-gpu-a-sglang"),
                start="origin/main",
            )  # fmt: skip

        recover_story(
            self.step,
            fake,
            open_pr=open_lost,
            sweep=lambda head: _sweep(fake, "mixtral-gpu-a", head),
            maintainer=self.paths["maintainer"],
            say=self.say,
        )

    def the_end(self) -> None:
        """The end of main's changelog: every entry with its canonical link."""
        maintainer, say = self.paths["maintainer"], self.say
        self.shell.git(maintainer, "pull", "-q", "--ff-only")
        self.result.final_changelog = (maintainer / CHANGELOG).read_bytes()
        say("")
        say("== the end of main's perf-changelog.yaml: every entry with its canonical link")
        tail = self.result.final_changelog.decode("utf-8").split("\n\n")[-4:]
        for line in "\n\n".join(tail).rstrip("\n").splitlines():
            say(f"   | {line}".rstrip())


# ----------------------------------------------------------------------------------------------
# the kept sandbox (`demo --keep`) and serving it again (`demo --serve DIR`)


def _leave_sandbox(world: _World, root: Path, say: Callable[[str], None]) -> None:
    """Open one more PR for the user, then save what `demo --serve` needs to serve it all again."""
    from changelog_tools.testing.fakegithub import FakeGitHub

    fake, shell, alice = world.fake, world.shell, world.paths["alice"]
    assert isinstance(fake, FakeGitHub)
    branch = "llama-evals"
    shell.git(alice, "fetch", "-q", "origin")
    head = _open_pr(
        shell, fake, alice, SANDBOX_PR, branch, "Add the llama 70B evals on gpu-a",
        _entry("Add the llama 70B evals on gpu-a", "XXX", "llama70b-fp8-gpu-a-vllm"),
        start="origin/main",
    )  # fmt: skip
    run = _sweep(fake, branch, head, "llama70b-fp8-gpu-a-vllm")
    from changelog_tools.flows.demo_signoff import bot_saw_head

    bot_saw_head(fake, SANDBOX_PR)
    for who in ("alice", "bob", "maintainer"):
        # The user's own shell has no demo identity in its environment: commit as these.
        shell.git(world.paths[who], "config", "user.name", f"Demo {who.capitalize()}")
        shell.git(world.paths[who], "config", "user.email", f"{who}@example.invalid")
    meta = {
        "repository": fake.repository,
        "token": world.token,
        "port": port_of(fake.base_url),
        "config": str(world.config.relative_to(root)),
        "pr": SANDBOX_PR,
        "branch": branch,
        "run": run,
    }
    save_json(root / SANDBOX_FILE, meta)
    fake.pull_json(fake.pulls[SANDBOX_PR])  # settle the head the fake derives from git
    save_json(root / STATE_FILE, fake.snapshot())
    write_env(root, meta, fake.base_url)
    tool, _bindir = tool_command()
    (root / START_FILE).write_text(
        f"#!/bin/sh\n# Serve the sandbox's fake GitHub again (until Ctrl-C).\n"
        f'exec {tool} demo --serve {shlex.quote(str(root))} "$@"\n',
        encoding="utf-8",
    )
    (root / START_FILE).chmod(0o755)
    lines = howto(root, meta)
    (root / HOWTO_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    say("")
    say(f"== kept: PR #{SANDBOX_PR} is open for you to merge (swept by run {run})")
    for line in lines:
        say(f"   {line}".rstrip())


def serve_sandbox(
    root: Path,
    *,
    say: Callable[[str], None],
    port: int | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Serve a kept sandbox's fake GitHub and fake CI until Ctrl-C, SIGTERM or ``stop``.

    Listens on the port the sandbox recorded (so a sourced env.sh stays right) unless ``port``
    says otherwise or it is taken; the state is saved back on the way out, so the next start
    continues where this one ended.
    """
    from changelog_tools.flows.merge.git import sigterm_as_interrupt
    from changelog_tools.testing.fakeci import FakeCI
    from changelog_tools.testing.fakegithub import FakeGitHub

    root = root.resolve()
    try:
        meta = json.loads((root / SANDBOX_FILE).read_text(encoding="utf-8"))
        state = json.loads((root / STATE_FILE).read_text(encoding="utf-8"))
        fake = FakeGitHub.from_state(state, git_origin=root / "origin.git", token=meta["token"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(
            f"{root}: not a sandbox kept by `changelog-tools demo --keep` ({exc})",
            hint="run `changelog-tools demo --keep` and pass the directory it prints",
        ) from None
    wanted = int(meta["port"]) if port is None else port
    stop = stop or threading.Event()
    # SIGTERM is Ctrl-C from here on: whenever it comes, the state is saved and nothing is
    # left running.
    with sigterm_as_interrupt():
        try:
            fake.start(wanted)
        except OSError as exc:
            if port is not None:
                raise ExternalError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None
            fake.start(0)  # the recorded port is taken: any free one, and a new env.sh
        try:
            verdict = _real_check_verdict(root / "origin.git", root / meta["config"])
            from changelog_tools.testing.fakesweep import ci_push_runs

            # each merge to main gets the push run the reuse gate's rules give it (a merge
            # before the restart already has one: it is not given a second)
            ci = FakeCI(fake, verdict, interval=0.05, on_merge=ci_push_runs(fake))
            ci.seen.update(c.head_sha for c in fake.check_runs)  # reported before the restart
            ci.start()
            try:
                with contextlib.suppress(KeyboardInterrupt):  # the way to stop it: exit 0
                    announce(root, meta, fake.base_url, wanted, say)
                    while not stop.wait(0.2):
                        pass
            finally:
                ci.stop()
        finally:
            fake.stop()
            save_json(root / STATE_FILE, fake.snapshot())
    say(f"stopped after {len(fake.log)} requests; state saved to {root / STATE_FILE}")
