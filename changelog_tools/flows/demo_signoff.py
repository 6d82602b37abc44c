"""The demo's sign-off chapter: the bot's three verdicts on one pull request.

`signoff verify` runs in the maintainer's checkout of main (the trusted files: CODEOWNERS, the
review checklist, the eval thresholds of the bundled example) against the fake GitHub, three
times: no sign-off yet (pending); the maintainer's sign-off, but reuse of the sweep not yet
authorized (rejected, and the comment says why); authorized (pass). `--dry-run`: the verdicts
are printed, nothing is posted, so the merge that follows starts from a clean conversation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from changelog_tools.errors import DataError

if TYPE_CHECKING:
    from changelog_tools.testing.fakegithub import FakeGitHub

CHECKLIST = "docs/PR_REVIEW_CHECKLIST.md"
# What the demo's sweep runs leave behind for the sign-off's sweep and evals checks.
SWEEP_JOBS = [
    ("single-node 1k1k / bench llama70b", "success"),
    ("eval / gsm8k llama70b", "success"),
]
EVAL_ARTIFACT = "eval_results_all"
OWNER = "maintainer"
RECIPE = "https://recipes.vllm.ai/meta-llama/Llama-3.3-70B-Instruct"  # a page: no API call
STATUS_CONTEXT = "codeowner-signoff-verify"  # the `signoff-status-context` default


def sweep_evidence(key: str) -> dict[str, Any]:
    """The jobs and eval artifact a demo sweep of ``key`` reports (a passing gsm8k score)."""
    rows = [{"config_key": key, "task": "gsm8k", "score": 0.95}]
    return {
        "jobs": SWEEP_JOBS,
        "artifact_files": {EVAL_ARTIFACT: {"agg_eval_all.json": json.dumps(rows)}},
    }


def signoff_comment(checklist_text: str, login: str) -> str:
    """A code owner's sign-off: the template block copied, every box ticked, signed."""
    found = re.search(r"```\n(.*?)```", checklist_text, re.DOTALL)
    block = found.group(1) if found else checklist_text
    block = block.replace("- [ ]", "- [x]").replace("`FILL_IN_GITHUB_USERNAME`", login)
    # a single-node vLLM change: the sign-off names the upstream recipe it follows
    block = block.replace("- insert any additional info here", f"- recipe: {RECIPE}")
    return "Looks good to me.\n\n" + block


def bot_saw_head(fake: FakeGitHub, pr: int) -> None:
    """What the shipped workflow's run on a push leaves on the PR's head: the bot's pending
    status, pointing at the PR (a sign-off counts only if written after it, for this head)."""
    fake.set_permission(OWNER, "write")
    fake.pull_json(fake.pulls[pr])  # settle the head the fake derives from git
    fake.add_status(fake.pulls[pr].head_sha, "pending", STATUS_CONTEXT,
                    description="awaiting sign-off", target_url=fake.html(f"/pull/{pr}"))  # fmt: skip


def signoff_story(
    step: Callable[[str, Path, Sequence[str], int], Any],
    fake: FakeGitHub,
    trusted: Path,
    *,
    pr: int,
    say: Callable[[str], None],
) -> None:
    """Verify PR ``pr`` three times; each verdict must be the one the story expects."""
    argv = ["signoff", "verify", "--pr", str(pr), "--dry-run", "--format", "text"]
    bot_saw_head(fake, pr)

    def verdict(title: str, wanted: str) -> None:
        done = step(title, trusted, argv, 0)
        # the first line: "signoff verify: PR #1 at <sha>: PASS — ..."
        found = re.match(r"signoff verify: PR #\d+ at \w+: (\w+)", done.stdout)
        got = found.group(1).lower() if found else None
        if got != wanted:
            raise DataError(f"demo: signoff verify said {got!r}, expected {wanted!r}")

    verdict(f"3a. the sign-off bot on PR #{pr}: no code owner has signed off yet", "pending")
    body = signoff_comment((trusted / CHECKLIST).read_text(encoding="utf-8"), OWNER)
    fake.add_comment(pr, body, OWNER, "MEMBER")
    say("")
    say(f"== the maintainer (a code owner) copies {CHECKLIST} into a comment, ticked and signed")
    verdict("3b. signed off, but reuse of the sweep is not authorized yet: rejected", "rejected")
    fake.add_comment(pr, "/reuse-sweep-run", OWNER, "MEMBER")
    say("")
    say("== the maintainer authorizes reuse of the PR's sweep: /reuse-sweep-run")
    verdict("3c. signed off, swept, evals above threshold, reuse authorized: pass", "pass")
