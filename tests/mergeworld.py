"""A small world for merge-flow tests: a bare origin, an author's clone, a maintainer's clone,
the fake GitHub tied to the origin, and a fake CI reporting checks on every new PR head."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import changelog_tools
from changelog_tools.testing.fakeci import FakeCI, Verdict, all_green
from changelog_tools.testing.fakegithub import FakeGitHub
from changelog_tools.testing.fakesweep import ci_push_runs
from tests.conftest import commit_files, git

REPOSITORY = "example-org/inferencex-mini"
EXAMPLE = Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini"
CHANGELOG = "perf-changelog.yaml"
TOKEN = "test-token-123"
# Test-speed settings, committed with the example configuration.
FAST_CONFIG = """
github-retries: 2
github-retry-backoff: 0
github-write-interval: 0
check-poll-interval: 0.02
check-timeout: 20
ingest-timeout: 20
"""


def entry(description: str, link: str = "XXX", key: str = "llama70b-fp8-gpu-a-vllm") -> str:
    return (
        f'- config-keys:\n    - {key}\n  description:\n    - "{description}"\n  pr-link: {link}\n'
    )


@dataclass
class World:
    root: Path
    origin: Path
    author: Path  # where PR branches are written
    clone: Path  # the maintainer's checkout the tool runs in
    fake: FakeGitHub
    ci: FakeCI
    env: dict[str, str] = field(default_factory=dict)

    def origin_sha(self, ref: str) -> str:
        return git(self.origin, "rev-parse", ref)

    def origin_refs(self) -> str:
        # refs/pull/* is GitHub's bookkeeping (the fake updates it when it reads a PR)
        return git(self.origin, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads")

    def origin_file(self, ref: str, path: str = CHANGELOG) -> bytes:
        return subprocess.run(
            ["git", "--git-dir", str(self.origin), "show", f"{ref}:{path}"],
            capture_output=True,
            check=True,
        ).stdout

    def open_pr(
        self,
        number: int,
        branch: str,
        files: dict[str, str | bytes],
        *,
        title: str,
        labels: tuple[str, ...] = ("full-sweep-enabled",),
        sweep: bool = True,
        append: str | None = None,
        **fields: object,
    ) -> str:
        """Commit ``files`` (and ``append`` to the changelog) on a new branch from main; push;
        open PR ``number``; add a successful sweep run on its head. Returns the head SHA."""
        git(self.author, "fetch", "-q", "origin")
        git(self.author, "checkout", "-q", "-B", branch, "origin/main")
        files = dict(files)
        if append is not None:
            current = (self.author / CHANGELOG).read_text()
            files[CHANGELOG] = current + "\n" + append
        sha = commit_files(self.author, files, title)
        git(self.author, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
        self.fake.add_pull(number, branch, title=title, labels=list(labels), **fields)
        if not sweep:
            self.fake.add_workflow("run-sweep.yml")
        else:
            self.fake.add_run("run-sweep.yml", sha, head_branch=branch, artifacts=["results_bmk"])
        return sha

    def push_main(
        self, files: dict[str, str | bytes], message: str, append: str | None = None
    ) -> str:
        git(self.author, "fetch", "-q", "origin")
        git(self.author, "checkout", "-q", "-B", "main-update", "origin/main")
        files = dict(files)
        if append is not None:
            files[CHANGELOG] = (self.author / CHANGELOG).read_text() + "\n" + append
        sha = commit_files(self.author, files, message)
        git(self.author, "push", "-q", "origin", "HEAD:refs/heads/main")
        return sha

    def push_branch(self, branch: str, files: dict[str, str | bytes], message: str) -> str:
        """Add a commit on top of ``branch`` as it is on the origin (someone else pushing)."""
        git(self.author, "fetch", "-q", "origin")
        git(self.author, "checkout", "-q", "-B", f"{branch}-other", f"origin/{branch}")
        sha = commit_files(self.author, files, message)
        git(self.author, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
        return sha

    def leftovers(self) -> tuple[list[str], list[str]]:
        """(temporary branches, extra worktrees) the flow left in the maintainer's clone."""
        branches = git(
            self.clone,
            "for-each-ref",
            "--format=%(refname)",
            "refs/heads/changelog-tools",
            "refs/changelog-tools",
        )
        worktrees = [
            line
            for line in git(self.clone, "worktree", "list", "--porcelain").splitlines()
            if line.startswith("worktree ")
        ]
        return [b for b in branches.splitlines() if b], worktrees[1:]


def build_world(tmp: Path, verdict: Verdict | None = None) -> Iterator[World]:
    origin = tmp / "origin.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(origin))
    author = tmp / "author"
    git(tmp, "clone", "-q", str(origin), str(author))
    shutil.copytree(EXAMPLE, author, dirs_exist_ok=True)
    cfg = author / ".changelog-tools.yaml"
    cfg.write_text(cfg.read_text() + FAST_CONFIG)
    git(author, "add", "-A")
    git(author, "commit", "-q", "-m", "Import the example repository")
    git(author, "push", "-q", "origin", "HEAD:refs/heads/main")
    clone = tmp / "clone"
    git(tmp, "clone", "-q", str(origin), str(clone))
    fake = FakeGitHub(REPOSITORY, git_origin=origin, token=TOKEN).start()
    # CI: each merge to main gets the push run the reuse gate's first rules give it
    ci = FakeCI(fake, verdict or all_green(), on_merge=ci_push_runs(fake)).start()
    world = World(tmp, origin, author, clone, fake, ci)
    world.env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": fake.base_url}
    try:
        yield world
    finally:
        ci.stop()
        fake.stop()


def merge(*args: str) -> int:
    """`changelog-tools merge ARGS` in-process, as the maintainer runs it."""
    from changelog_tools import cli

    return cli.run(["merge", *args])


def comment_bodies(w: World) -> list[str]:
    """The bodies of every comment on the fake GitHub."""
    return [c.body for c in w.fake.comments.values()]
