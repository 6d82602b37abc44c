"""The worlds documented examples run in, and the named setups an example can ask for.

``repo``: the bundled example repository (inferencex-mini) as a git repository with a bare
origin; the checkout is on branch ``my-change`` (pull request #12), one commit ahead of main,
appending an entry with the placeholder link ``XXX``.

``sandbox``: what ``changelog-tools demo --keep`` leaves (origin, the clones alice/, bob/,
maintainer/, the fake GitHub's state, PR #5 open and swept), served again by the fake GitHub
and its fake CI for the length of one example; the commands run in ``maintainer/``.

Each example gets its own copy of a template built once per session, so examples that write
(merge, recover, resolve, fix) never see each other's effects.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import changelog_tools

EXAMPLE = Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini"
CHANGELOG = "perf-changelog.yaml"
PR = 12  # the repo world's pull request
LINK = "https://github.com/example-org/inferencex-mini/pull/"
BINDIR = Path(sys.executable).parent
SWEEP_RUN, LOST_RUN, PINNED_RUN = 2001, 2002, 2003


def entry(description: str, link: str = "XXX", key: str = "llama70b-fp8-gpu-a-vllm") -> str:
    return (
        f'- config-keys:\n    - {key}\n  description:\n    - "{description}"\n  pr-link: {link}\n'
    )


def base_env(home: Path) -> dict[str, str]:
    """A private environment: its own HOME, a fixed git identity, no Actions variables, the
    installed tool first on PATH."""
    drop = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "GH_", "RUNNER_")) and k not in drop
    }
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
        GIT_TERMINAL_PROMPT="0",
        GIT_EDITOR="true",
        GIT_AUTHOR_NAME="Doc Author",
        GIT_AUTHOR_EMAIL="author@example.invalid",
        GIT_COMMITTER_NAME="Doc Author",
        GIT_COMMITTER_EMAIL="author@example.invalid",
        PYTHONUNBUFFERED="1",
        PATH=f"{BINDIR}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    env.pop("XDG_CONFIG_HOME", None)
    return env


def run_git(cwd: Path, env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr.strip()}")
    return proc.stdout.strip()


@dataclass
class World:
    """One example's world: where it runs and with which environment."""

    root: Path
    cwd: Path
    env: dict[str, str]
    fake: object = None  # FakeGitHub, in the sandbox
    extra: dict[str, object] = field(default_factory=dict)

    def git(self, *args: str, cwd: Path | None = None) -> str:
        return run_git(cwd or self.cwd, self.env, *args)


# -- the repo world ----------------------------------------------------------------------------


def build_repo_template(root: Path) -> Path:
    """origin.git (main: the example) and repo/ (branch my-change: one appended entry)."""
    home = root / "home"
    home.mkdir(parents=True)
    env = base_env(home)
    origin, repo = root / "origin.git", root / "repo"
    run_git(root, env, "init", "-q", "--bare", "-b", "main", str(origin))
    shutil.copytree(EXAMPLE, repo)
    run_git(repo, env, "init", "-q", "-b", "main")
    run_git(repo, env, "add", "-A")
    run_git(repo, env, "commit", "-q", "-m", "Import the example")
    run_git(repo, env, "remote", "add", "origin", str(origin))
    run_git(repo, env, "push", "-q", "-u", "origin", "main")
    run_git(repo, env, "checkout", "-q", "-b", "my-change")
    with (repo / CHANGELOG).open("a", encoding="utf-8") as handle:
        handle.write("\n" + entry("Bump vLLM to 0.11 on gpu-a"))
    run_git(repo, env, "commit", "-q", "-am", "Bump vLLM on gpu-a")
    return root


def repo_world(template: Path, root: Path) -> World:
    shutil.copytree(template, root, symlinks=True)
    env = base_env(root / "home")
    run_git(root / "repo", env, "remote", "set-url", "origin", str(root / "origin.git"))
    return World(root, root / "repo", env)


# -- the sandbox world -------------------------------------------------------------------------


def kept_sandbox(demo_output: str) -> Path:
    """The directory `demo --keep` says it kept."""
    for line in demo_output.splitlines():
        if line.startswith("kept the sandbox in "):
            return Path(line.removeprefix("kept the sandbox in ").split(" (")[0])
    raise AssertionError(f"`demo --keep` named no sandbox:\n{demo_output}")


@contextmanager
def sandbox_world(template: Path, root: Path) -> Iterator[World]:
    """A copy of the kept sandbox, its fake GitHub and fake CI running until the block ends."""
    from changelog_tools.flows.demo import _real_check_verdict
    from changelog_tools.flows.demo_sandbox import write_env
    from changelog_tools.testing.fakeci import FakeCI
    from changelog_tools.testing.fakegithub import FakeGitHub
    from changelog_tools.testing.fakesweep import ci_push_runs

    shutil.copytree(template, root, symlinks=True)
    home = root / "home"
    home.mkdir(exist_ok=True)
    env = base_env(home)
    for who in ("alice", "bob", "maintainer"):
        run_git(root / who, env, "remote", "set-url", "origin", str(root / "origin.git"))
    meta = json.loads((root / "sandbox.json").read_text(encoding="utf-8"))
    state = json.loads((root / "github-state.json").read_text(encoding="utf-8"))
    fake = FakeGitHub.from_state(state, git_origin=root / "origin.git", token=meta["token"])
    fake.start(0)
    ci = None
    try:
        verdict = _real_check_verdict(root / "origin.git", root / meta["config"])
        ci = FakeCI(fake, verdict, interval=0.05, on_merge=ci_push_runs(fake))
        ci.seen.update(c.head_sha for c in fake.check_runs)
        ci.start()
        write_env(root, meta, fake.base_url)
        for name in ("start-github.sh", "HOWTO.txt"):  # they name the directory kept
            path = root / name
            text = path.read_text(encoding="utf-8").replace(str(template), str(root))
            path.write_text(text, encoding="utf-8")
        env.update(GH_TOKEN=str(meta["token"]), GITHUB_API_URL=fake.base_url)
        yield World(root, root / "maintainer", env, fake, {"meta": meta})
    finally:
        if ci is not None:
            ci.stop()
        fake.stop()


# -- setups: the state an example starts from --------------------------------------------------


def _append_committed(world: World, text: str, message: str) -> None:
    with (world.cwd / CHANGELOG).open("a", encoding="utf-8") as handle:
        handle.write("\n" + text)
    world.git("commit", "-q", "-am", message)


def setup_wrong_link(world: World) -> None:
    """PR #12's entry links another pull request (a copy-paste from #11)."""
    path = world.cwd / CHANGELOG
    path.write_text(
        path.read_text(encoding="utf-8").replace("pr-link: XXX", f"pr-link: {LINK}11"),
        encoding="utf-8",
    )
    world.git("commit", "-q", "-am", "Link the pull request")


def setup_unswept_key(world: World) -> None:
    """PR #12 also changes a master-config key that no appended entry selects."""
    path = world.cwd / "configs" / "gpu-b-master.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("example/trtllm:1.2.0", "example/trtllm:1.3.0"), encoding="utf-8")
    world.git("commit", "-q", "-am", "Bump the gpu-b image")


def setup_selected_key(world: World) -> None:
    """PR #12 also edits the master-config key its entry selects."""
    path = world.cwd / "configs" / "gpu-a-master.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("example/vllm:", "example/vllm-next:", 1), encoding="utf-8")
    world.git("commit", "-q", "-am", "Try the next vLLM image on gpu-a")


def setup_main_moved(world: World) -> None:
    """Main gained an entry since PR #5 branched off: the PR's changelog conflicts with it."""
    bob = world.root / "bob"
    world.git("fetch", "-q", "origin", cwd=bob)
    world.git("checkout", "-q", "-B", "on-main", "origin/main", cwd=bob)
    with (bob / CHANGELOG).open("a", encoding="utf-8") as handle:
        handle.write("\n" + entry("Pin the gpu-b driver", f"{LINK}4", "mixtral-fp4-gpu-b-trt"))
    world.git("commit", "-q", "-am", "Pin the gpu-b driver", cwd=bob)
    world.git("push", "-q", "origin", "on-main:main", cwd=bob)


def setup_typo(world: World) -> None:
    """The working tree's last entry spells `pr_link` (not committed)."""
    path = world.cwd / CHANGELOG
    text = path.read_text(encoding="utf-8")
    head, _sep, tail = text.rpartition("pr-link:")
    path.write_text(head + "pr_link:" + tail, encoding="utf-8")


def setup_conflict(world: World) -> None:
    """main appended an entry since my-change left it: the changelog conflicts on merge."""
    world.git("checkout", "-q", "main")
    _append_committed(
        world, entry("Raise the mixtral batch size on gpu-a", f"{LINK}11", "mixtral-fp4-gpu-a-sglang"),
        "Raise the mixtral batch size",
    )  # fmt: skip
    world.git("push", "-q", "origin", "main")
    world.git("checkout", "-q", "my-change")


def setup_merging(world: World) -> None:
    """`git merge origin/main` has stopped on the changelog conflict (after ``conflict``)."""
    proc = subprocess.run(
        ["git", "merge", "origin/main"], cwd=world.cwd, env=world.env,
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 1 and "CONFLICT" in proc.stdout, proc.stdout + proc.stderr


def setup_inserted(world: World) -> None:
    """PR #12's entry was inserted in the middle of the file instead of appended."""
    world.git("checkout", "-q", "main")
    world.git("checkout", "-q", "-B", "my-change")
    path = world.cwd / CHANGELOG
    blocks = path.read_text(encoding="utf-8").split("\n\n")
    blocks.insert(1, entry("Bump vLLM to 0.11 on gpu-a").rstrip("\n"))
    path.write_text("\n\n".join(blocks), encoding="utf-8")
    world.git("commit", "-q", "-am", "Bump vLLM on gpu-a")


def setup_files(world: World) -> None:
    """Loose copies of the changelog for the file modes: old.yaml/base.yaml/b.yaml (main's),
    changelog.yaml/p.yaml (the PR's), m.yaml (main plus an entry of its own)."""
    main = world.git("show", f"main:{CHANGELOG}") + "\n"
    pr = (world.cwd / CHANGELOG).read_text(encoding="utf-8")
    other = main + "\n" + entry("Raise the mixtral batch size on gpu-a", f"{LINK}11", "mixtral-fp4-gpu-a-sglang")  # fmt: skip
    for name, text in {"old.yaml": main, "base.yaml": main, "b.yaml": main,
                       "changelog.yaml": pr, "p.yaml": pr, "m.yaml": other}.items():  # fmt: skip
        (world.cwd / name).write_text(text, encoding="utf-8")


def setup_tags(world: World) -> None:
    world.git("tag", "v1", "main")
    world.git("tag", "v2", "HEAD")


def setup_merged(world: World) -> None:
    """PR #12, its link filled in, merged: the checkout is main, one commit past origin/main."""
    path = world.cwd / CHANGELOG
    path.write_text(
        path.read_text(encoding="utf-8").replace("pr-link: XXX", f"pr-link: {LINK}{PR}"),
        encoding="utf-8",
    )
    world.git("commit", "-q", "-am", "Link the pull request")
    world.git("checkout", "-q", "main")
    world.git("merge", "-q", "--squash", "my-change")
    world.git("commit", "-q", "-m", f"Bump vLLM on gpu-a (#{PR})")


def setup_merge_driver(world: World) -> None:
    subprocess.run(
        ["changelog-tools", "install-merge-driver"], cwd=world.cwd, env=world.env,
        capture_output=True, check=True,
    )  # fmt: skip


def setup_actions_api_mismatch(world: World) -> None:
    """In GitHub Actions, a configuration that names another API server than the runner's."""
    config = world.cwd / ".changelog-tools.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "github-api-url: http://203.0.113.9/api\n",
        encoding="utf-8",
    )
    world.env.update(
        GITHUB_ACTIONS="true",
        GITHUB_API_URL="https://api.github.com",
        GITHUB_EVENT_NAME="push",
        GITHUB_SHA=world.git("rev-parse", "HEAD"),
        GITHUB_REF="refs/heads/main",
        GITHUB_REPOSITORY="example-org/inferencex-mini",
    )


def _actions(world: World, event_name: str, payload: dict[str, object], **more: str) -> None:
    event = world.root / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    world.env.update(
        GITHUB_ACTIONS="true",
        GITHUB_EVENT_NAME=event_name,
        GITHUB_EVENT_PATH=str(event),
        GITHUB_REPOSITORY="example-org/inferencex-mini",
        GITHUB_OUTPUT=str(world.root / "github-output"),
        GITHUB_STEP_SUMMARY=str(world.root / "step-summary"),
        **more,
    )


def setup_actions_push(world: World) -> None:
    """A push to main in GitHub Actions: main's newest commit (the recovery PR's merge)."""
    sha = world.git("rev-parse", "origin/main")
    _actions(world, "push", {"after": sha, "ref": "refs/heads/main"},
             GITHUB_SHA=sha, GITHUB_REF="refs/heads/main")  # fmt: skip


def setup_actions_pr(world: World) -> None:
    """An issue comment on PR #5 in GitHub Actions (the sign-off workflow's trigger)."""
    _actions(world, "pull_request", {"pull_request": {"number": 5}, "number": 5})


def setup_lost_ingest(world: World) -> None:
    """PR #6, swept by a run of its own, merged with GitHub's button with no reuse authorized;
    main's push run swept again, was cancelled, and skipped the ingest."""
    from changelog_tools.testing.fakegithub import FakeGitHub
    from changelog_tools.testing.fakesweep import INGEST_JOB, SWEEP_JOBS, WORKFLOW, merge_now

    fake = world.fake
    assert isinstance(fake, FakeGitHub)
    bob = world.root / "bob"
    world.git("fetch", "-q", "origin", cwd=bob)
    world.git("checkout", "-q", "-B", "gpu-b-concurrency", "origin/main", cwd=bob)
    with (bob / CHANGELOG).open("a", encoding="utf-8") as handle:
        handle.write("\n" + entry("Raise the llama concurrency on gpu-b", f"{LINK}6", "llama70b-fp8-gpu-b-vllm"))  # fmt: skip
    world.git("commit", "-q", "-am", "Raise the llama concurrency on gpu-b", cwd=bob)
    world.git("push", "-q", "origin", "gpu-b-concurrency", cwd=bob)
    head = world.git("rev-parse", "HEAD", cwd=bob)
    fake.add_pull(6, "gpu-b-concurrency", title="Raise the llama concurrency on gpu-b",
                  labels=["full-sweep-enabled"], author="bob")  # fmt: skip
    # fixed run ids, so the docs can name them: the sweep 2001, main's lost push run 2002
    fake.add_run("run-sweep.yml", head, head_branch="gpu-b-concurrency", artifacts=["results_bmk"],
                 id=SWEEP_RUN)  # fmt: skip
    with fake._lock:
        sha = merge_now(fake, 6)
        fake.add_run(
            WORKFLOW, sha, id=LOST_RUN, event="push", head_branch="main", status="completed",
            conclusion="cancelled",
            jobs=[(SWEEP_JOBS[0], "cancelled"), (SWEEP_JOBS[1], "cancelled"), (INGEST_JOB, "skipped")],
        )  # fmt: skip


def setup_pinned_run(world: World) -> None:
    """One more finished sweep of PR #5's head, with a fixed id, for `merge --run`."""
    from changelog_tools.flows.demo_signoff import sweep_evidence
    from changelog_tools.testing.fakegithub import FakeGitHub

    fake = world.fake
    assert isinstance(fake, FakeGitHub)
    head = world.git("rev-parse", "llama-evals", cwd=world.root / "origin.git")
    fake.add_run("run-sweep.yml", head, head_branch="llama-evals", artifacts=["results_bmk"],
                 id=PINNED_RUN, **sweep_evidence("llama70b-fp8-gpu-a-vllm"))  # fmt: skip


SETUPS: dict[str, Callable[[World], None]] = {
    "wrong-link": setup_wrong_link,
    "unswept-key": setup_unswept_key,
    "typo": setup_typo,
    "selected-key": setup_selected_key,
    "main-moved": setup_main_moved,
    "conflict": setup_conflict,
    "merging": setup_merging,
    "inserted": setup_inserted,
    "files": setup_files,
    "tags": setup_tags,
    "merged": setup_merged,
    "merge-driver": setup_merge_driver,
    "actions-api-mismatch": setup_actions_api_mismatch,
    "actions-push": setup_actions_push,
    "actions-pr": setup_actions_pr,
    "lost-ingest": setup_lost_ingest,
    "pinned-run": setup_pinned_run,
}


def setup_signed_off(world: World) -> None:
    """A code owner signed PR #5 off (the checklist copied, ticked) and authorized its sweep."""
    from changelog_tools.flows.demo_signoff import (
        CHECKLIST,
        OWNER,
        bot_saw_head,
        signoff_comment,
    )
    from changelog_tools.testing.fakegithub import FakeGitHub

    fake = world.fake
    assert isinstance(fake, FakeGitHub)
    bot_saw_head(fake, 5)  # the workflow's run on the push: a sign-off counts after it
    checklist = (world.root / "maintainer" / CHECKLIST).read_text(encoding="utf-8")
    fake.add_comment(5, signoff_comment(checklist, OWNER), OWNER, "MEMBER")
    fake.add_comment(5, "/reuse-sweep-run", OWNER, "MEMBER")


def setup_fake_state(world: World) -> None:
    """A state file for the fake GitHub's server: one repository, one open PR."""
    state = {"repository": "octo/widgets", "pulls": [{"number": 7, "head_ref": "feature"}]}
    (world.cwd / "state.json").write_text(json.dumps(state), encoding="utf-8")


SETUPS.update({"signed-off": setup_signed_off, "fake-state": setup_fake_state})
