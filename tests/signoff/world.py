"""A world for `signoff verify` tests: a bare origin whose main holds CODEOWNERS, the checklist
(every version committed in order), thresholds and the ledger; a PR branch; the fake GitHub tied
to the origin; and a trusted clone of main the verifier runs in."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from changelog_tools.config import Config, load_config
from changelog_tools.github.adapter import make_github
from changelog_tools.gitrepo import open_repo
from changelog_tools.signoff.verify import Outcome, run_verify
from changelog_tools.testing.fakegithub import FakeGitHub
from tests.checkdata import MASTER_A, MASTER_B, REPO, entry
from tests.conftest import commit_files, git
from tests.signoff.checklists import CHECKLIST_PATH, signoff_from, versions_on_disk

TOKEN = "ghs_signoff_test_token"
BOT = "github-actions[bot]"
CONTEXT = "codeowner-signoff-verify"
CODEOWNERS = f"""\
* @example-org/core

# AMD master config
{MASTER_A} @amd-a @amd-b

# NVIDIA master config
{MASTER_B} @nv-a @example-org/core
"""
THRESHOLDS = "default:\n  gsm8k: 0.90\nmodels:\n  alpha:\n    gsm8k: 0.91\n"
CONFIG = f"""repository: {REPO}
master-configs:
  - {MASTER_A}
  - {MASTER_B}
github-retries: 1
github-retry-backoff: 0
github-write-interval: 0
"""
CURRENT = versions_on_disk()[-1][1]
HEAD_KEY = "alpha-fp8-b200-vllm"


def master(
    key: str,
    *,
    image: str,
    prefix: str,
    runner: str,
    precision: str,
    framework: str,
    multinode: bool = False,
) -> bytes:
    return (
        f"{key}:\n  image: {image}\n  model: example/{prefix}\n  model-prefix: {prefix}\n"
        f"  runner: {runner}\n  precision: {precision}\n  framework: {framework}\n"
        f"  multinode: {str(multinode).lower()}\n  scenarios:\n    fixed-seq-len:\n"
        "    - isl: 1024\n      osl: 1024\n      search-space:\n"
        "      - { tp: 4, conc-start: 4, conc-end: 64 }\n"
    ).encode()


MASTERS_A = master(
    HEAD_KEY,
    image="vllm/vllm-openai:v0.10.0",
    prefix="alpha",
    runner="b200",
    precision="fp8",
    framework="vllm",
)
MASTERS_B = master(
    "beta-fp4-b300-sglang",
    image="lmsysorg/sglang:v0.5.0",
    prefix="beta",
    runner="b300",
    precision="fp4",
    framework="sglang",
)
BASE = entry(HEAD_KEY, link="https://github.com/example-org/bench/pull/1", description="first")
BASE += b"\n" + entry(
    "beta-fp4-b300-sglang", link="https://github.com/example-org/bench/pull/2", description="second"
)
RECIPE = "https://github.com/vllm-project/recipes/pull/42"
GOOD_ROWS = [
    {"config_key": HEAD_KEY, "task": "gsm8k", "score": 0.95},
]
BENCH_JOBS = [
    ("single-node 1k1k / bench alpha", "success"),
    ("eval / gsm8k alpha", "success"),
    ("collect-evals", "success"),
    ("collect-results", "success"),
]


def eval_zip(rows: list[dict[str, Any]]) -> dict[str, str]:
    return {"agg_eval_all.json": json.dumps(rows)}


def zip_bytes(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def signoff(login: str, *, detail: str | None = f"- recipe: {RECIPE}", check: bool = True) -> str:
    body = signoff_from(CURRENT, login, check=check)
    if detail is not None:
        if "insert any additional info here" in body:
            body = body.replace("- insert any additional info here", detail)
        else:  # a template version without a detail section
            body = body.replace("Signed:", f"{detail}\n\nSigned:")
    return "Looks good to me.\n\n" + body


@dataclass
class World:
    root: Path
    origin: Path
    author: Path
    trusted: Path
    fake: FakeGitHub
    heads: dict[int, str] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        return {"GH_TOKEN": TOKEN, "GITHUB_API_URL": self.fake.base_url, "GITHUB_REPOSITORY": REPO}

    def config(self) -> Config:
        return load_config(self.trusted / ".changelog-tools.yaml")

    def push(self, number: int, files: dict[str, str | bytes], message: str) -> str:
        """Commit ``files`` on PR ``number``'s branch and push; a new head appears (the bot
        posts `pending` on it, as the shipped workflow does on `synchronize`)."""
        sha = commit_files(self.author, files, message)
        git(self.author, "push", "-q", "--force", "origin", f"HEAD:refs/heads/pr-{number}")
        self.heads[number] = sha
        self.bot_pending(number, sha)
        return sha

    def bot_pending(self, number: int, sha: str) -> None:
        """The status the shipped workflow's `synchronize` run posts on PR ``number``'s new
        head: the bot's context, pointing at that PR's verdict comment."""
        self.fake.add_status(
            sha,
            "pending",
            CONTEXT,
            description="awaiting sign-off",
            target_url=self.fake.html(f"/pull/{number}#issuecomment-1"),
        )

    def open_pr(
        self,
        number: int = 7,
        files: dict[str, str | bytes] | None = None,
        *,
        author: str = "contrib",
        sweep: bool = True,
        rows: list[dict[str, Any]] | None = None,
        jobs: list[tuple[str, str | None]] | None = None,
    ) -> str:
        git(self.author, "checkout", "-q", "-B", f"pr-{number}", "origin/main")
        if files is None:
            files = {
                MASTER_A: MASTERS_A.replace(b"v0.10.0", b"v0.10.1"),
                "perf-changelog.yaml": BASE + b"\n" + entry(HEAD_KEY, description="bump"),
            }
        sha = self.push(number, files, f"PR {number}")
        self.fake.add_pull(number, f"pr-{number}", author=author, title=f"PR {number}")
        if sweep:
            self.add_sweep(sha, number, rows=GOOD_ROWS if rows is None else rows, jobs=jobs)
        return sha

    def add_sweep(
        self,
        sha: str,
        number: int = 7,
        *,
        rows: list[dict[str, Any]] | None = None,
        jobs: list[tuple[str, str | None]] | None = None,
        conclusion: str = "success",
    ) -> int:
        run = self.fake.add_run(
            "run-sweep.yml",
            sha,
            head_branch=f"pr-{number}",
            conclusion=conclusion,
            artifacts=["results_bmk"],
            artifact_files={"eval_results_all": eval_zip(GOOD_ROWS if rows is None else rows)},
            jobs=BENCH_JOBS if jobs is None else jobs,
        )
        return run.id

    def comment(self, body: str, login: str, number: int = 7, association: str = "MEMBER") -> int:
        return self.fake.add_comment(number, body, login, association).id

    def verify(
        self,
        number: int | None = 7,
        *,
        dry_run: bool = False,
        event_name: str | None = None,
        event: dict[str, Any] | None = None,
        config: Config | None = None,
        log: Callable[[str], None] | None = None,
    ) -> Outcome:
        cfg = config or self.config()
        return run_verify(
            gh_factory=lambda: make_github(cfg, env=self.env, repository=REPO),
            config=cfg,
            repo=open_repo(self.trusted),
            pr_number=number,
            event_name=event_name,
            event=event or {},
            dry_run=dry_run,
            now=datetime(2026, 8, 20, 13, 0, tzinfo=UTC),
            log=log or (lambda _m: None),
        )

    def bot_comments(self, number: int = 7) -> list[Any]:
        return [c for c in self.fake.comments.values() if c.login == BOT and c.issue == number]

    def statuses(self, sha: str) -> list[Any]:
        return [s for s in self.fake.statuses if s.sha == sha and s.context == CONTEXT]


def build_world(root: Path, *, authorize_reuse: bool = True) -> World:
    origin = root / "origin.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(origin))
    author = root / "author"
    git(root, "clone", "-q", str(origin), str(author))
    git(author, "checkout", "-q", "-b", "main")
    for label, text in versions_on_disk():
        commit_files(author, {CHECKLIST_PATH: text}, f"checklist {label}")
    commit_files(
        author,
        {
            ".changelog-tools.yaml": CONFIG,
            ".github/CODEOWNERS": CODEOWNERS,
            "utils/evals/thresholds.yaml": THRESHOLDS,
            "perf-changelog.yaml": BASE,
            MASTER_A: MASTERS_A,
            MASTER_B: MASTERS_B,
        },
        "repository files",
    )
    git(author, "push", "-q", "origin", "main")
    trusted = root / "trusted"
    git(root, "clone", "-q", str(origin), str(trusted))
    fake = FakeGitHub(REPO, git_origin=origin, token=TOKEN, actor=BOT, actor_association="NONE")
    fake.start()
    fake.add_team("example-org/core", ["core-1", "core-2"])
    fake.add_foreign_pull(
        "vllm-project/recipes", 42, state="closed", merged=True, merged_at="2026-08-01T00:00:00Z"
    )
    fake.add_foreign_pull("vllm-project/recipes", 43, state="open")
    for login, permission in {
        "amd-a": "write",
        "amd-b": "write",
        "nv-a": "maintain",
        "core-1": "admin",
        "core-2": "write",
        "rando": "read",
        "contrib": "write",
    }.items():
        fake.set_permission(login, permission)
    world = World(root, origin, author, trusted, fake)
    return world


def authorize(world: World, number: int = 7, run_id: int | None = None) -> None:
    text = "/reuse-sweep-run" + (f" {run_id}" if run_id else "")
    world.comment(text, "core-1", number)
