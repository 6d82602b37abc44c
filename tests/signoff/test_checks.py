"""Each sign-off check as a table over in-memory facts: no server, no repository.

The end-to-end tests (test_verify.py) prove the live facts are read right; these prove each
rule decides right from facts, one question at a time.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from changelog_tools.config import Config, defaults
from changelog_tools.github.records import (
    Artifact,
    CommitStatus,
    Edit,
    Job,
    PullCommit,
    PullFile,
    PullRequest,
    Remark,
    WorkflowRun,
)
from changelog_tools.lint.tree import MemoryTree
from changelog_tools.reuse.authorization import find_authorization
from changelog_tools.reuse.inputs import Policy
from changelog_tools.signoff import candidates
from changelog_tools.signoff import checklist as cl
from changelog_tools.signoff.checks import content, evals, recipe, signers, sweeprun
from changelog_tools.signoff.codeowners import parse_codeowners
from changelog_tools.signoff.coverage import Owners
from changelog_tools.signoff.facts import MemoryFacts
from changelog_tools.signoff.trusted import Trusted
from changelog_tools.signoff.verify import evaluate
from tests.signoff.checklists import OWN_V3, signoff_from
from tests.signoff.world import zip_bytes

T0 = datetime(2026, 8, 1, 12, 0, tzinfo=UTC)
HEAD = "h" * 40
OLD = "o" * 40
PR_URL = "https://github.com/owner/repo/pull/7"
WORKFLOW = Policy.from_config(defaults()).workflow_path  # the trusted sweep workflow
CODEOWNERS = "* @org/core\nconfigs/amd.yaml @amd-a @amd-b\nconfigs/nv.yaml @nv-a @org/core\n"


def config(**changes: Any) -> Config:
    return dataclasses.replace(defaults(), **changes)


def trusted(files: dict[str, bytes] | None = None) -> Trusted:
    template = cl.parse_template(OWN_V3)
    assert template is not None
    return Trusted(
        MemoryTree(files or {}), "t" * 40, parse_codeowners(CODEOWNERS), template, versions=()
    )


def pull(**changes: Any) -> PullRequest:
    base = PullRequest(
        number=7,
        state="open",
        draft=False,
        merged=False,
        merged_at=None,
        merge_commit_sha=None,
        title="bump",
        author="writer",
        labels=(),
        head_ref="feature",
        head_sha=HEAD,
        head_repo="owner/repo",
        base_ref="main",
        base_sha="b" * 40,
        base_repo="owner/repo",
        html_url=PR_URL,
    )
    return dataclasses.replace(base, **changes)


def remark(author: str, body: str, *, rid: int = 1, minutes: int = 10, **more: Any) -> Remark:
    fields: dict[str, Any] = {
        "kind": "issue_comment",
        "id": rid,
        "author": author,
        "author_type": "User",
        "association": "MEMBER",
        "body": body,
        "created_at": T0 + timedelta(minutes=minutes),
        "updated_at": T0 + timedelta(minutes=minutes),
        "commit_id": None,
        "html_url": f"{PR_URL}#issuecomment-{rid}",
        "node_id": f"IC_{rid}",
    }
    fields.update(more)
    return Remark(**fields)


def bot_status(minutes: int = 5) -> CommitStatus:
    """The bot's pending status on the head, pointing at this PR: when the head appeared."""
    return CommitStatus(
        "codeowner-signoff-verify", "pending", None, PR_URL + "#c", T0 + timedelta(minutes=minutes)
    )


def run(rid: int = 50, *, sha: str = HEAD, conclusion: str = "success") -> WorkflowRun:
    return WorkflowRun(
        rid, "sweep", "pull_request", "completed", conclusion, sha, "feature", WORKFLOW, 1, 1,
        f"https://github.com/owner/repo/actions/runs/{rid}", T0, 1,
    )  # fmt: skip


GOOD_JOBS = (
    Job(1, "single-node b200", "completed", "success", None),
    Job(2, "gsm8k eval / b200", "completed", "success", None),
)


def facts(
    *remarks: Remark, files: tuple[str, ...] = ("configs/amd.yaml",), **more: Any
) -> MemoryFacts:
    values: dict[str, Any] = {
        "pr": pull(),
        "file_list": tuple(PullFile(f, "modified", None) for f in files),
        "commit_list": (PullCommit(HEAD, "bump", (OLD,)),),
        "remark_list": remarks,
        "statuses": (bot_status(),),
        "permissions": {"amd-a": "write", "amd-b": "read", "nv-a": "admin", "writer": "admin"},
        "teams": {"org/core": frozenset({"lead"})},
    }
    values.update(more)
    return MemoryFacts(**values)


def judged(f: MemoryFacts, cfg: Config | None = None) -> list[candidates.Candidate]:
    cfg = cfg or config()
    appeared = candidates.head_appeared_here(f, cfg.signoff_status_context)
    cands = candidates.gather(f, cfg, appeared)
    paths = [x.filename for x in f.files()]
    candidates.judge(
        f, cfg, trusted(), cands, Owners(trusted().codeowners, f.is_team_member), paths
    )
    return cands


# --- who signed ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("author", "extra", "counts", "why"),
    [
        ("amd-a", {}, True, None),
        ("amd-b", {}, False, "has read permission"),  # an owner who cannot write
        ("nv-a", {}, False, "not a code owner"),  # owns another file only
        ("writer", {}, False, "the PR's author"),
        ("helper[bot]", {"author_type": "Bot"}, False, "a bot"),
        ("amd-a", {"minutes": 1}, False, "before the head"),  # written before the head appeared
    ],
)
def test_a_signoff_counts_only_from_a_fresh_eligible_owner(
    author: str, extra: dict[str, Any], counts: bool, why: str | None
) -> None:
    f = facts(remark(author, signoff_from(OWN_V3, author), **extra))
    (cand,) = judged(f)
    assert cand.relevant is counts
    assert (why is None) == (not cand.why_not())
    if why:
        assert any(why in w for w in cand.why_not())


def test_a_review_that_requests_changes_is_no_signoff_whatever_it_says() -> None:
    body = signoff_from(OWN_V3, "amd-a")
    review = remark("amd-a", body, kind="review", commit_id=HEAD, state="CHANGES_REQUESTED")
    assert judged(facts(review)) == []


def test_an_authors_latest_signoff_is_the_one_judged() -> None:
    first = remark("amd-a", signoff_from(OWN_V3, "amd-a", check=False), rid=1, minutes=10)
    second = remark("amd-a", signoff_from(OWN_V3, "amd-a"), rid=2, minutes=20)
    (cand,) = judged(facts(first, second))
    assert cand.remark.id == 2 and cand.relevant and not cand.problems


def test_an_edit_by_someone_else_makes_a_signoff_stale() -> None:
    r = remark("amd-a", signoff_from(OWN_V3, "amd-a"), updated_at=T0 + timedelta(minutes=30))
    f = facts(r, edit_of={"IC_1": Edit("mallory", T0 + timedelta(minutes=30))})
    (cand,) = judged(f)
    assert not cand.fresh.fresh and "edited by @mallory" in (cand.fresh.why_not or "")


def test_the_head_appears_with_the_bots_status_for_this_pr_only() -> None:
    other_pr = CommitStatus("codeowner-signoff-verify", "pending", None, PR_URL + "0#c", T0)
    f = facts(statuses=(other_pr,))
    assert candidates.head_appeared_here(f, "codeowner-signoff-verify") is None
    f = facts(statuses=(other_pr, bot_status(8)))
    assert candidates.head_appeared_here(f, "codeowner-signoff-verify") == T0 + timedelta(minutes=8)
    # a force push after that status: the head's current turn has no status yet
    f = facts(statuses=(bot_status(8),), pushes=(T0 + timedelta(minutes=9),))
    assert candidates.head_appeared_here(f, "codeowner-signoff-verify") is None


# --- fresh, codeowners, checklist ------------------------------------------------------------


def test_fresh_fails_naming_the_last_stale_reason() -> None:
    cands = judged(facts(remark("amd-a", signoff_from(OWN_V3, "amd-a"), minutes=1)))
    check = signers.fresh(cands, HEAD)
    assert (
        check.status == "fail" and "1 stale" in check.reason and "before the head" in check.reason
    )
    assert (
        signers.fresh(judged(facts(remark("amd-a", signoff_from(OWN_V3, "amd-a")))), HEAD).status
        == "pass"
    )


@pytest.mark.parametrize(
    ("files", "signer", "teams", "status", "reason"),
    [
        (("configs/amd.yaml",), "amd-a", {"org/core": frozenset()}, "pass", "covered by amd-a"),
        (
            ("configs/amd.yaml", "configs/nv.yaml"),
            "amd-a",
            {"org/core": frozenset()},
            "fail",
            "configs/nv.yaml",
        ),
        (
            ("configs/nv.yaml",),
            "lead",
            {"org/core": frozenset({"lead"})},
            "pass",
            "covered by lead",
        ),
        (("configs/nv.yaml",), "lead", {}, "error", "cannot be read"),
    ],
)
def test_codeowners_needs_every_changed_path_covered_by_an_owner(
    files: tuple[str, ...], signer: str, teams: dict[str, frozenset[str]], status: str, reason: str
) -> None:
    f = facts(files=files, teams=teams)
    owners = Owners(trusted().codeowners, f.is_team_member)
    cand = candidates.Candidate(
        remark(signer, ""), cl.Checklist.__new__(cl.Checklist), candidates.Freshness(True, T0)
    )
    check, details = signers.codeowners(owners, trusted(), list(files), [cand])
    assert check.status == status and reason in check.reason
    if status != "error":
        assert [row["path"] for row in details["coverage"]] == list(files)


def test_codeowners_is_an_error_when_a_list_was_capped() -> None:
    owners = Owners(trusted().codeowners, facts().is_team_member)
    check, _ = signers.codeowners(owners, trusted(), ["a"], [], capped=["3000 files"])
    assert (check.status, check.reason) == ("error", "list cap hit: 3000 files")


def test_an_unchecked_item_fails_the_checklist_check_naming_the_signer() -> None:
    cands = judged(facts(remark("amd-a", signoff_from(OWN_V3, "amd-a", check=False))))
    relevant = [c for c in cands if c.relevant]
    check = signers.checklist(relevant, trusted())
    assert check.status == "fail" and check.reason.startswith("@amd-a: ")
    assert signers.checklist([], trusted()).status == "n/a"
    report = signers.checklist_report(
        relevant, trusted(), checklist_path="docs/C.md", repository="o/r"
    )
    assert any("UNCHECKED" in line for line in report) and "docs/C.md" in report[-1]


# --- reuse authorization and the sweep ------------------------------------------------------


def policy() -> Policy:
    return Policy.from_config(config())


def authorization(body: str) -> Any:
    comments = sweeprun.conversation((remark("core-1", body, association="MEMBER"),))
    return find_authorization(
        comments, command=policy().command, allowed=policy().allowed_associations
    )


def test_reuse_authorization_needs_an_authorized_command() -> None:
    assert sweeprun.reuse_authorization(policy(), None).status == "fail"
    auth = authorization(f"{policy().command} 50")
    check = sweeprun.reuse_authorization(policy(), auth)
    assert check.status == "pass" and "pinning run 50" in check.reason


@pytest.mark.parametrize(
    ("runs", "paths", "pinned", "status", "reason"),
    [
        ((run(),), ("configs/amd.yaml",), False, "pass", "run 50 on hhhhhhh"),
        ((run(sha=OLD),), ("configs/amd.yaml",), False, "fail", "no successful"),
        ((run(conclusion="failure"),), ("configs/amd.yaml",), False, "fail", "1 other completed"),
        ((run(),), (WORKFLOW,), False, "fail", "changes the sweep workflow"),
        ((), ("configs/amd.yaml",), True, "fail", "pinned run 50 does not exist"),
        ((run(sha=OLD),), ("configs/amd.yaml",), True, "fail", "pinned run 50 ran on"),
    ],
)
def test_the_sweep_is_a_green_trusted_run_on_a_commit_of_the_pr(
    runs: tuple[WorkflowRun, ...], paths: tuple[str, ...], pinned: bool, status: str, reason: str
) -> None:
    f = facts(runs=runs, jobs={50: GOOD_JOBS})
    auth = authorization(f"{policy().command} 50") if pinned else None
    check, chosen = sweeprun.sweep(f, config(), policy(), auth, list(paths))
    assert check.status == status and reason in check.reason
    assert (chosen is not None) == (status == "pass")


def test_a_sweep_without_an_eval_job_fails() -> None:
    f = facts(runs=(run(),), jobs={50: GOOD_JOBS[:1]})
    check, _ = sweeprun.sweep(f, config(), policy(), None, ["configs/amd.yaml"])
    assert check.status == "fail" and "no successful eval job" in check.reason


# --- evals and recipe -----------------------------------------------------------------------

KEY = {
    "alpha-fp8-b200-vllm": {
        "model-prefix": "alpha",
        "runner": "b200",
        "framework": "vllm",
        "precision": "fp8",
    }
}
ROWS = '[{"config_key": "alpha-fp8-b200-vllm", "task": "gsm8k", "score": %s}]'


@pytest.mark.parametrize(
    ("the_run", "keys", "artifacts", "status", "reason"),
    [
        (None, KEY, (), "fail", "no sweep run"),
        (run(), {}, (), "n/a", "select no config key"),
        (run(), KEY, (), "fail", "eval_results_all missing"),
        (run(), KEY, (Artifact(9, "eval_results_all", True, 10),), "fail", "expired"),
        (
            run(),
            KEY,
            (Artifact(9, "eval_results_all", False, 10),),
            "pass",
            "meet their thresholds",
        ),
    ],
)
def test_evals_read_the_runs_artifact_against_trusted_thresholds(
    the_run: WorkflowRun | None,
    keys: dict[str, Any],
    artifacts: tuple[Artifact, ...],
    status: str,
    reason: str,
) -> None:
    data = zip_bytes({"agg_eval_all.json": ROWS % "0.95"})
    f = facts(artifacts={50: artifacts}, artifact_data={9: data})
    thresholds = {"utils/evals/thresholds.yaml": b"default:\n  gsm8k: 0.9\n"}
    check = evals.evals(f, config(), trusted(thresholds), the_run, keys)
    assert check.status == status and reason in check.reason


def test_a_score_under_the_trusted_threshold_fails() -> None:
    data = zip_bytes({"agg_eval_all.json": ROWS % "0.5"})
    f = facts(
        artifacts={50: (Artifact(9, "eval_results_all", False, 10),)}, artifact_data={9: data}
    )
    thresholds = {"utils/evals/thresholds.yaml": b"default:\n  gsm8k: 0.9\n"}
    check = evals.evals(f, config(), trusted(thresholds), run(), KEY)
    assert check.status == "fail" and "score 0.5 < threshold 0.9" in check.reason


RECIPE = "https://github.com/vllm-project/recipes/pull/42"


@pytest.mark.parametrize(
    ("paths", "detail", "upstream", "status", "reason"),
    [
        (("configs/amd.yaml",), "", None, "n/a", "no single-node"),
        (("benchmarks/single_node/a.sh",), "", None, "fail", "no sign-off links"),
        (("benchmarks/single_node/a.sh",), RECIPE, None, "fail", "does not exist"),
        (
            ("benchmarks/single_node/a.sh",),
            RECIPE,
            pull(merged=False, state="open"),
            "fail",
            "not merged (open)",
        ),
        (
            ("benchmarks/single_node/a.sh",),
            RECIPE,
            pull(merged=True, merged_at=T0),
            "attested",
            "1 upstream link",
        ),
    ],
)
def test_a_single_node_change_needs_a_merged_upstream_recipe(
    paths: tuple[str, ...], detail: str, upstream: PullRequest | None, status: str, reason: str
) -> None:
    body = signoff_from(OWN_V3, "amd-a").replace("- insert any additional info here", f"- {detail}")
    foreign = {("vllm-project/recipes", 42): upstream} if upstream else {}
    f = facts(remark("amd-a", body), foreign=foreign)
    valid = [c for c in judged(f) if c.relevant]
    check = recipe.recipe(f, config(), list(paths), {}, valid)
    assert check.status == status and reason in check.reason


def test_unreadable_pr_files_error_every_check_that_reads_them() -> None:
    ids = {c.id for c in content.unreadable("gone")}
    assert {"evals", "recipe", "append-only", "images", "golden-al"} <= ids
    assert all(c.status == "error" for c in content.unreadable("gone"))


# --- the whole evaluation, still without a server -------------------------------------------


def test_evaluate_over_memory_facts_is_pending_without_a_signoff_and_never_a_pass() -> None:
    f = facts(head_tree=MemoryTree({}), base_tree=MemoryTree({}))
    verdict = evaluate(f, config(), trusted(), now=T0, log=lambda _m: None)
    assert verdict.verdict == "pending"
    assert verdict.check("fresh").status == "fail"
    assert verdict.check("append-only").status == "n/a"


def test_evaluate_is_an_error_verdict_when_the_pr_files_cannot_be_read() -> None:
    f = facts(remark("amd-a", signoff_from(OWN_V3, "amd-a")))  # no trees
    verdict = evaluate(f, config(), trusted(), now=T0, log=lambda _m: None)
    assert verdict.verdict == "error"
    assert "could not read the PR's files" in verdict.check("evals").reason
