"""`signoff verify` end to end: real git (bare origin, PR refs, a trusted clone) and real HTTP
to the fake GitHub tied to that origin."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools.errors import GitHubError
from changelog_tools.signoff.markers import marker
from tests.conftest import commit_files, git
from tests.signoff.world import (
    MASTER_A,
    MASTER_B,
    MASTERS_B,
    RECIPE,
    World,
    authorize,
    build_world,
    signoff,
)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = build_world(tmp_path)
    try:
        yield w
    finally:
        w.fake.stop()
    assert not w.fake.unhandled, w.fake.unhandled
    assert not w.fake.errors, w.fake.errors


def writes(w: World) -> int:
    return w.fake.count("POST", r"/(comments|statuses)") + w.fake.count("PATCH")


def checks(outcome: object) -> dict[str, str]:
    verdict = outcome.verdict  # type: ignore[attr-defined]
    return {c.id: c.status for c in verdict.checks}


def test_a_correct_signoff_passes_and_publishes_one_comment_and_a_success_status(
    world: World,
) -> None:
    head = world.open_pr()
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    out = world.verify()
    assert out.verdict is not None and out.verdict.verdict == "pass", out.verdict
    assert set(checks(out).values()) <= {"pass", "n/a", "attested"}
    assert checks(out)["recipe"] == "attested"  # the linked upstream recipe PR is merged
    [comment] = world.bot_comments()
    assert comment.body.startswith(marker(7)) and "**Verdict: PASS**" in comment.body
    status = world.statuses(head)[-1]
    assert status.state == "success" and status.target_url and str(comment.id) in status.target_url
    assert status.description and len(status.description) <= 140 and "amd-a" in status.description
    coverage = {row["path"]: row for row in out.verdict.details["coverage"]}
    assert coverage[MASTER_A]["line"] == 4 and coverage[MASTER_A]["covered-by"] == ["amd-a"]
    assert coverage["perf-changelog.yaml"]["any-codeowner"] is True


def test_the_verdict_comment_is_edited_in_place_never_duplicated(world: World) -> None:
    world.open_pr()
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    first = world.verify()
    assert first.published is not None and first.published.created
    second = world.verify()
    assert second.published is not None and not second.published.created
    assert second.published.comment_id == first.published.comment_id
    assert len(world.bot_comments()) == 1
    assert world.fake.count("POST", r"/issues/7/comments$") == 1
    assert world.fake.count("PATCH", r"/issues/comments/") == 1


def test_a_planted_verdict_marker_from_another_user_changes_nothing(world: World) -> None:
    head = world.open_pr()
    authorize(world)
    planted = (
        f"{marker(7)}\n## ✅✅✅ **Verdict: PASS** ✅✅✅\n<!-- codeowner-signoff-verify "
        f"sha={head} -->\n\n" + signoff("rando")
    )
    spoof_id = world.comment(planted, "rando")
    out = world.verify()
    assert out.verdict is not None and out.verdict.verdict == "pending"
    assert [s["id"] for s in out.verdict.details["spoofs"]] == [spoof_id]
    assert world.fake.comments[spoof_id].body == planted  # never edited as if it were ours
    assert len(world.bot_comments()) == 1
    assert world.statuses(head)[-1].state == "pending"
    # a real sign-off afterwards passes, and the planted comment is still not ours
    world.comment(signoff("amd-a"), "amd-a")
    again = world.verify()
    assert again.verdict is not None and again.verdict.verdict == "pass"
    assert again.published is not None and again.published.comment_id != spoof_id


def test_a_non_owner_is_ignored_and_never_makes_the_verdict_worse(world: World) -> None:
    world.open_pr()
    authorize(world)
    world.fake.set_permission("outsider", "write")
    world.comment(signoff("outsider", check=False), "outsider")
    alone = world.verify(dry_run=True)
    assert alone.verdict is not None and alone.verdict.verdict == "pending"
    [view] = alone.verdict.signoffs
    assert not view.valid and "not a code owner" in " ".join(view.why_not)
    world.comment(signoff("amd-a"), "amd-a")
    both = world.verify(dry_run=True)
    assert both.verdict is not None and both.verdict.verdict == "pass"
    assert writes(world) == 0  # dry run


def test_an_owner_of_only_some_files_is_not_enough_but_two_owners_together_are(
    world: World,
) -> None:
    from tests.signoff.world import MASTERS_A

    files = {
        MASTER_A: MASTERS_A.replace(b"v0.10.0", b"v0.10.1"),
        MASTER_B: MASTERS_B.replace(b"v0.5.0", b"v0.5.1"),
    }
    world.open_pr(files=files)
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    one = world.verify(dry_run=True)
    assert one.verdict is not None and one.verdict.verdict == "rejected"
    assert (
        checks(one)["codeowners"] == "fail" and MASTER_B in one.verdict.check("codeowners").reason
    )
    world.comment(signoff("nv-a"), "nv-a")
    two = world.verify(dry_run=True)
    assert checks(two)["codeowners"] == "pass", two.verdict.check("codeowners")  # type: ignore[union-attr]
    cover = {r["path"]: r["covered-by"] for r in two.verdict.details["coverage"]}  # type: ignore[union-attr]
    assert cover[MASTER_A] == ["amd-a"] and cover[MASTER_B] == ["nv-a"]


def test_a_team_owner_counts_through_the_memberships_api(world: World) -> None:
    world.open_pr(files={MASTER_B: MASTERS_B.replace(b"v0.5.0", b"v0.5.1")})
    authorize(world)
    world.comment(signoff("core-1"), "core-1")
    out = world.verify(dry_run=True)
    assert checks(out)["codeowners"] == "pass"
    assert world.fake.count("GET", r"/orgs/example-org/teams/core/memberships/core-1") >= 1


def test_an_unreadable_team_membership_is_an_error_never_a_silent_no(world: World) -> None:
    head = world.open_pr(files={MASTER_B: MASTERS_B.replace(b"v0.5.0", b"v0.5.1")})
    authorize(world)
    world.comment(signoff("core-2"), "core-2")
    world.fake.fail(
        "GET",
        r"/orgs/.*/memberships/",
        403,
        times=None,
        message="Resource not accessible by integration",
    )
    out = world.verify()
    assert out.verdict is not None and out.verdict.verdict == "error"
    assert checks(out)["codeowners"] == "error"
    assert "unreadable" in out.verdict.check("codeowners").reason
    assert world.statuses(head)[-1].state == "error"


def test_a_push_after_the_signoff_makes_the_new_head_pending_and_leaves_the_old_one(
    world: World,
) -> None:
    old = world.open_pr()
    authorize(world)
    cid = world.comment(signoff("amd-a"), "amd-a")
    assert world.verify().verdict.verdict == "pass"  # type: ignore[union-attr]
    new = world.push(7, {"notes.txt": "more\n"}, "another commit")
    out = world.verify()
    assert out.verdict is not None and out.verdict.verdict == "pending"
    assert out.verdict.head_sha == new
    assert world.statuses(old)[-1].state == "success"  # the old head keeps its status
    assert world.statuses(new)[-1].state == "pending"
    assert "before the head" in " ".join(out.verdict.signoffs[0].why_not)
    # the author edits the sign-off after the push: that re-signs for the new head
    world.fake.edit_comment(cid, signoff("amd-a") + "\n\nRe-checked after the push.")
    edited = world.verify()
    assert edited.verdict is not None and edited.verdict.verdict == "pass", edited.verdict
    assert world.statuses(new)[-1].state == "success"


def test_an_edit_by_someone_else_does_not_count(world: World) -> None:
    world.open_pr()
    authorize(world)
    cid = world.comment(signoff("amd-a", check=False), "amd-a")
    world.fake.edit_comment(cid, signoff("amd-a"), editor="core-1")
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "pending"
    assert "edited by @core-1" in " ".join(out.verdict.signoffs[0].why_not)


def test_an_edit_by_someone_else_never_counts_even_after_the_author_edits_again(
    world: World,
) -> None:
    # Only the last editor used to be read: the author's edit after a maintainer's "fix"
    # counted again. The edit history is read whole (GraphQL userContentEdits).
    world.open_pr()
    authorize(world)
    cid = world.comment(signoff("amd-a", check=False), "amd-a")
    world.fake.edit_comment(cid, signoff("amd-a"), editor="core-1")
    world.fake.edit_comment(cid, signoff("amd-a") + "\n\nChecked again.")  # by amd-a
    assert world.fake.comments[cid].editor == "amd-a"
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "pending", out.verdict.summary
    why = " ".join(out.verdict.signoffs[0].why_not)
    assert "edited by @core-1" in why and "never counts" in why
    assert len(world.fake.requests("POST", r"graphql")) == 1  # still one query


def test_an_edit_that_unchecks_an_item_rejects(world: World) -> None:
    world.open_pr()
    authorize(world)
    cid = world.comment(signoff("amd-a"), "amd-a")
    assert world.verify().verdict.verdict == "pass"  # type: ignore[union-attr]
    body = world.fake.comments[cid].body
    line = next(ln for ln in body.splitlines() if "passed PR validation" in ln)
    world.fake.edit_comment(cid, body.replace(line, line.replace("[x]", "[ ]")))
    out = world.verify()
    assert out.verdict is not None and out.verdict.verdict == "rejected"
    assert "unchecked" in out.verdict.check("checklist").reason
    assert "UNCHECKED item" in "\n".join(out.verdict.details["checklist-report"])
    assert (
        "**REJECTED**" in world.bot_comments()[0].body and "@amd-a" in world.bot_comments()[0].body
    )


def test_an_outdated_checklist_names_its_version_and_attributes_the_missing_items(
    world: World,
) -> None:
    from tests.signoff.checklists import real_history, signoff_from, versions_on_disk

    world.open_pr()
    authorize(world)
    label = "5c0a32297" if real_history() else "own-v2"
    old_text = dict(versions_on_disk())[label]
    body = signoff_from(old_text, "amd-a") + f"\n{RECIPE}\n"
    world.comment(body, "amd-a")
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "rejected"
    report = "\n".join(out.verdict.details["checklist-report"])
    sha = git(world.trusted, "log", "--format=%H", f"--grep=checklist {label}$", "main")
    assert f"matches version {sha[:9]}" in report and "exactly" in report
    assert "MISSING item" in report and "added by" in report
    assert f"/blob/{out.verdict.details['trusted-sha']}/docs/PR_REVIEW_CHECKLIST.md" in report
    if real_history():
        added = git(
            world.trusted, "log", "--format=%h", "--abbrev=9", "--grep=checklist b4be78a29$", "main"
        )
        assert "MISSING item 7: " in report and f"added by {added}" in report
        assert "ALTERED item 11" in report


@pytest.mark.parametrize(
    ("mangle", "verdict"),
    [
        (lambda s: s.replace("\n", "\r\n").replace("- [x]", "* [X]"), "pass"),  # reformatted
        (lambda s: _swap_first_items(s), "pass"),  # reordered
        (lambda s: s.replace("Verified that", "Verified that surely", 1), "rejected"),  # altered
    ],
    ids=["reformatted", "reordered", "altered"],
)
def test_reformatted_and_reordered_items_pass_and_altered_ones_reject(
    world: World, mangle: object, verdict: str
) -> None:
    world.open_pr()
    authorize(world)
    world.comment(mangle(signoff("amd-a")), "amd-a")  # type: ignore[operator]
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == verdict, out.verdict.summary
    if verdict == "rejected":
        # the word diff says what to change: drop the signer's word to get the template's
        assert "ALTERED item 1 " in "\n".join(out.verdict.details["checklist-report"])
        assert "-[surely]" in "\n".join(out.verdict.details["checklist-report"])


def _swap_first_items(body: str) -> str:
    lines = body.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("- [x]"))
    lines[first], lines[first + 1] = lines[first + 1], lines[first]
    return "\n".join(lines)


@pytest.mark.parametrize(
    "wrap",
    [lambda s: "```\n" + s + "\n```", lambda s: "\n".join("> " + ln for ln in s.splitlines())],
    ids=["code-fence", "quote"],
)
def test_a_signoff_in_a_code_fence_or_quote_counts_for_nothing(world: World, wrap: object) -> None:
    world.open_pr()
    authorize(world)
    cid = world.comment(wrap(signoff("amd-a")), "amd-a")  # type: ignore[operator]
    event = {
        "action": "created",
        "issue": {"number": 7, "pull_request": {"url": "x"}},
        "comment": {"id": cid},
    }
    skipped = world.verify(None, event_name="issue_comment", event=event)
    assert skipped.skip is not None and "no sign-off" in skipped.skip.reason
    assert writes(world) == 0
    out = world.verify(dry_run=True)  # a full evaluation finds no sign-off either
    assert out.verdict is not None and out.verdict.verdict == "pending"


def _edit_event(cid: int, old: str, new: str) -> dict[str, object]:
    return {
        "action": "edited",
        "issue": {"number": 7, "pull_request": {"url": "x"}},
        "comment": {"id": cid, "body": new},
        "changes": {"body": {"from": old}},
    }


def test_a_hundred_edits_of_a_comment_without_a_signoff_cost_no_request(world: World) -> None:
    # Anyone can edit their own comment: each edit used to run the whole verification (17-18
    # requests), so about 55 edits spent the repository's hourly API budget.
    world.open_pr()
    authorize(world)
    quoted = "\n".join("> " + ln for ln in signoff("amd-a").splitlines())
    cid = world.comment("Looks good, one question.", "contrib")
    old = "Looks good, one question."
    before = len(world.fake.log)
    for n in range(100):
        # a quoted, fenced or struck sign-off is no sign-off either
        new = [
            f"Looks good, one question (edit {n}).",
            f"{quoted}\n\nAgreed ({n}).",
            f"Copy this ({n}):\n\n```\n{signoff('amd-a')}\n```",
        ][n % 3]
        world.fake.edit_comment(cid, new, editor="contrib")
        out = world.verify(None, event_name="issue_comment", event=_edit_event(cid, old, new))
        assert out.skip is not None and "held no sign-off" in out.skip.reason, n
        old = new
    deleted = {
        "action": "deleted",
        "issue": {"number": 7, "pull_request": {"url": "x"}},
        "comment": {"id": cid, "body": old},
    }
    assert world.verify(None, event_name="issue_comment", event=deleted).skip is not None
    review = {
        "action": "edited",
        "review": {"id": 1, "body": "nit fixed"},
        "pull_request": {"number": 7},
        "changes": {"body": {"from": "nit"}},
    }
    assert world.verify(None, event_name="pull_request_review", event=review).skip is not None
    assert len(world.fake.log) == before  # not one request
    assert writes(world) == 0


@pytest.mark.parametrize("action", ["edited", "deleted"])
def test_an_edit_or_deletion_that_removes_a_signoff_still_runs_in_full(
    world: World, action: str
) -> None:
    head = world.open_pr()
    authorize(world)
    body = signoff("amd-a")
    cid = world.comment(body, "amd-a")
    assert world.verify().verdict.verdict == "pass"  # type: ignore[union-attr]
    if action == "edited":
        world.fake.edit_comment(cid, "Withdrawn: I need to look again.")
        event = _edit_event(cid, body, "Withdrawn: I need to look again.")
    else:
        world.fake.comments.pop(cid)
        event = {
            "action": "deleted",
            "issue": {"number": 7, "pull_request": {"url": "x"}},
            "comment": {"id": cid, "body": body},
        }
    before = len(world.fake.log)
    out = world.verify(None, event_name="issue_comment", event=event)
    assert out.skip is None and out.verdict is not None
    assert out.verdict.verdict == "pending", out.verdict.summary
    assert world.statuses(head)[-1].state == "pending"
    spent = len(world.fake.log) - before
    again = len(world.fake.log)
    assert world.verify().verdict.verdict == "pending"  # type: ignore[union-attr]
    assert spent == len(world.fake.log) - again >= 15  # the same as a run for the PR itself


def test_an_edit_that_adds_a_signoff_runs_in_full(world: World) -> None:
    world.open_pr()
    authorize(world)
    cid = world.comment("LGTM", "amd-a")
    world.fake.edit_comment(cid, signoff("amd-a"))
    out = world.verify(
        None, event_name="issue_comment", event=_edit_event(cid, "LGTM", signoff("amd-a"))
    )
    assert out.skip is None and out.verdict is not None and out.verdict.verdict == "pass"


def test_a_green_sweep_only_on_a_force_pushed_out_commit_does_not_count(world: World) -> None:
    world.open_pr()
    authorize(world)
    # force-push the same change as a fresh commit: the swept commit leaves the PR
    from tests.checkdata import entry
    from tests.signoff.world import BASE, HEAD_KEY, MASTERS_A

    git(world.author, "reset", "-q", "--hard", "origin/main")
    world.push(
        7,
        {
            MASTER_A: MASTERS_A.replace(b"v0.10.0", b"v0.10.2"),
            "perf-changelog.yaml": BASE + b"\n" + entry(HEAD_KEY, description="again"),
        },
        "rewritten",
    )
    world.comment(signoff("amd-a"), "amd-a")
    out = world.verify(dry_run=True)
    assert checks(out)["sweep"] == "fail"
    assert "no successful run-sweep.yml run on a commit still in PR #7" in (
        out.verdict.check("sweep").reason  # type: ignore[union-attr]
    )
    assert out.verdict.verdict == "rejected"  # type: ignore[union-attr]


def test_skipped_jobs_count_for_nothing(world: World) -> None:
    world.open_pr(
        jobs=[
            ("single-node 1k1k / bench", "success"),
            ("eval / gsm8k", "skipped"),
            ("collect-evals", "success"),
        ]
    )
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    out = world.verify(dry_run=True)
    assert checks(out)["sweep"] == "fail"
    assert "no successful eval job (1 skipped)" in out.verdict.check("sweep").reason  # type: ignore[union-attr]


def test_check_runs_from_a_pr_added_workflow_never_count(world: World) -> None:
    head = world.open_pr(
        jobs=[("single-node 1k1k / bench", "success"), ("eval / gsm8k", "skipped")]
    )
    authorize(world)
    # the PR adds its own workflow whose jobs are named like the sweep's, and they are green
    world.fake.add_run(
        "evil.yml",
        head,
        head_branch="pr-7",
        jobs=[("eval / gsm8k", "success"), ("single-node x /", "success")],
    )
    world.fake.add_check_run(head, "eval / gsm8k", app="github-actions")
    world.comment(signoff("amd-a"), "amd-a")
    out = world.verify(dry_run=True)
    assert checks(out)["sweep"] == "fail"


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        ([], "empty"),
        (
            [{"config_key": "alpha-fp8-b200-vllm", "task": "gsm8k", "score": 0.5}],
            "score 0.5 < threshold 0.91",
        ),
        # json writes NaN for a failed computation; NaN < threshold is False, never a pass
        (
            [{"config_key": "alpha-fp8-b200-vllm", "task": "gsm8k", "score": float("nan")}],
            "no numeric score",
        ),
        (
            [{"config_key": "alpha-fp8-b200-vllm", "task": "gsm8k", "score": True}],
            "no numeric score",
        ),
    ],
    ids=["empty", "failing", "nan", "bool"],
)
def test_an_empty_or_failing_eval_artifact_rejects(world: World, rows: list, reason: str) -> None:  # type: ignore[type-arg]
    world.open_pr(rows=rows)
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    out = world.verify(dry_run=True)
    assert checks(out)["evals"] == "fail" and reason in out.verdict.check("evals").reason  # type: ignore[union-attr]
    # the artifact was really downloaded as a zip through the 302 redirect, without the token
    blob = world.fake.requests("GET", r"^/_blobs/")
    assert blob and not any(k.lower() == "authorization" for k in blob[0].headers)


def test_an_unmerged_recipe_pr_rejects(world: World) -> None:
    world.open_pr()
    authorize(world)
    world.comment(
        signoff("amd-a", detail="- recipe: https://github.com/vllm-project/recipes/pull/43"),
        "amd-a",
    )
    out = world.verify(dry_run=True)
    assert checks(out)["recipe"] == "fail" and "not merged" in out.verdict.check("recipe").reason  # type: ignore[union-attr]


def test_no_reuse_authorization_rejects(world: World) -> None:
    world.open_pr()
    world.comment(signoff("amd-a"), "amd-a")
    out = world.verify(dry_run=True)
    assert checks(out)["reuse-authorization"] == "fail"


@pytest.mark.parametrize("kind", ["draft", "closed", "plain-issue"])
def test_draft_closed_and_plain_issue_events_are_skipped_without_writes(
    world: World, kind: str
) -> None:
    world.open_pr()
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    if kind == "draft":
        world.fake.pulls[7].draft = True
    if kind == "closed":
        world.fake.pulls[7].state = "closed"
    event = {
        "action": "created",
        "issue": {"number": 7, "pull_request": {"url": "x"}},
        "comment": {"id": 1},
    }
    if kind == "plain-issue":
        event["issue"] = {"number": 7}
        before = len(world.fake.log)
        out = world.verify(None, event_name="issue_comment", event=event)
        assert out.skip is not None and "not a pull request" in out.skip.reason
        assert len(world.fake.log) == before  # not even a read
        return
    out = world.verify(7)
    assert out.skip is not None and kind in out.skip.reason
    assert writes(world) == 0


def test_reviews_count_only_on_the_head_commit(world: World) -> None:
    head = world.open_pr()
    authorize(world)
    world.fake.add_review(7, login="amd-a", body=signoff("amd-a"), commit_id="0" * 40)
    stale = world.verify(dry_run=True)
    assert stale.verdict is not None and stale.verdict.verdict == "pending"
    world.fake.add_review(7, login="amd-a", body=signoff("amd-a"), commit_id=head, state="APPROVED")
    fresh = world.verify(dry_run=True)
    assert fresh.verdict is not None and fresh.verdict.verdict == "pass"
    world.fake.reviews[-1].state = "DISMISSED"  # a dismissed review is withdrawn
    dismissed = world.verify(dry_run=True)
    assert dismissed.verdict is not None and dismissed.verdict.verdict == "pending"


def test_a_checklist_in_a_review_that_requests_changes_does_not_count(world: World) -> None:
    head = world.open_pr()
    authorize(world)
    world.fake.add_review(
        7, login="amd-a", body=signoff("amd-a"), commit_id=head, state="CHANGES_REQUESTED"
    )
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "pending"
    world.fake.reviews[-1].state = "COMMENTED"  # the same text in a plain review counts
    counted = world.verify(dry_run=True)
    assert counted.verdict is not None and counted.verdict.verdict == "pass"


def test_the_pr_author_and_bots_never_count(world: World) -> None:
    world.open_pr(author="amd-a")
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    world.comment(signoff("dependabot[bot]"), "dependabot[bot]")
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "pending"
    reasons = {s.author: " ".join(s.why_not) for s in out.verdict.signoffs}
    assert "author" in reasons["amd-a"] and "bot" in reasons["dependabot[bot]"]


def test_a_github_failure_posts_error_and_raises(world: World) -> None:
    head = world.open_pr()
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    world.fake.fail("GET", r"/pulls/7/files", 500, times=None)
    with pytest.raises(GitHubError):
        world.verify()
    assert world.statuses(head)[-1].state == "error"


def test_the_comment_author_must_have_write_permission(world: World) -> None:
    world.open_pr()
    authorize(world)
    world.fake.set_permission("amd-b", "read")
    world.comment(signoff("amd-b"), "amd-b")
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "pending"
    assert "read permission" in " ".join(out.verdict.signoffs[0].why_not)


def test_the_pr_head_is_read_as_data_never_checked_out(world: World) -> None:
    world.open_pr(files={"benchmarks/run.sh": "touch /tmp/pwned\n"})
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    before = git(world.trusted, "rev-parse", "HEAD")
    world.verify(dry_run=True)
    assert git(world.trusted, "rev-parse", "HEAD") == before
    assert git(world.trusted, "status", "--porcelain") == ""
    assert not (world.trusted / "benchmarks").exists()
    # the head was fetched into a private ref to be read, and the ref is gone after the run
    assert git(world.trusted, "for-each-ref", "refs/changelog-tools/") == ""
    assert git(world.trusted, "cat-file", "-t", world.heads[7]) == "commit"


def test_the_templates_own_recipe_links_are_no_evidence(world: World) -> None:
    world.open_pr()
    authorize(world)
    world.comment(signoff("amd-a", detail="- nothing to add"), "amd-a")
    out = world.verify(dry_run=True)
    assert out.verdict is not None and checks(out)["recipe"] == "fail"
    assert "no sign-off links an upstream recipe" in out.verdict.check("recipe").reason


def test_a_review_comment_binds_to_the_commit_it_was_written_on(world: World) -> None:
    old = world.open_pr()
    authorize(world)
    rc = world.fake.add_review_comment(
        7, signoff("amd-a"), login="amd-a", commit_id=old, path="perf-changelog.yaml", line=1
    )
    assert world.verify(dry_run=True).verdict.verdict == "pass"  # type: ignore[union-attr]
    new = world.push(7, {"notes.txt": "x\n"}, "push")
    # GitHub moves `commit_id` to the new head while the line is unchanged
    rc.original_commit_id, rc.commit_id = old, new
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.head_sha == new
    assert out.verdict.verdict == "pending"
    assert "not on the head" in " ".join(out.verdict.signoffs[0].why_not)


def test_a_checkout_that_is_not_the_default_branch_is_refused(world: World) -> None:
    from changelog_tools.errors import UsageError

    world.open_pr()
    git(world.trusted, "fetch", "-q", "origin", "refs/heads/pr-7:refs/heads/pr-7")
    git(world.trusted, "checkout", "-q", "pr-7")  # a PR's CODEOWNERS must never be trusted
    with pytest.raises(UsageError, match="trusts only the default branch"):
        world.verify(dry_run=True)
    assert writes(world) == 0


def test_a_force_push_back_to_an_earlier_head_needs_a_new_signoff(world: World) -> None:
    # The earliest status on a commit says when it first appeared anywhere, not when it last
    # became this PR's head: a force push back to an older head must not revive a sign-off
    # written for the head in between.
    first = world.open_pr()
    authorize(world)
    second = world.push(7, {"notes.txt": "benign\n"}, "the commit the owner reviews")
    world.comment(signoff("amd-a"), "amd-a")
    assert world.verify(dry_run=True).verdict.verdict == "pass"  # type: ignore[union-attr]
    git(world.author, "reset", "-q", "--hard", first)
    git(world.author, "push", "-q", "--force", "origin", "HEAD:refs/heads/pr-7")
    world.fake.add_force_push(7, before=second, after=first)
    world.bot_pending(7, first)
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.head_sha == first
    assert out.verdict.verdict == "pending", out.verdict.summary
    assert "before the head" in " ".join(out.verdict.signoffs[0].why_not)


@pytest.mark.parametrize("kind", ["review", "review_comment"])
def test_a_review_edited_by_someone_else_does_not_count(world: World, kind: str) -> None:
    # Anyone with write access can edit another user's review or review comment: a non-owner
    # turning an owner's "LGTM" on the head into a full sign-off signs nothing for the owner.
    head = world.open_pr()
    authorize(world)
    if kind == "review":
        item = world.fake.add_review(7, login="amd-a", body="LGTM", commit_id=head)
        world.fake.edit_review(item.id, signoff("amd-a"), editor="contrib")
    else:
        rc = world.fake.add_review_comment(
            7, "nit", login="amd-a", commit_id=head, path="perf-changelog.yaml", line=1
        )
        world.fake.edit_review_comment(rc.id, signoff("amd-a"), editor="contrib")
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "pending", out.verdict.summary
    assert "edited by @contrib" in " ".join(out.verdict.signoffs[0].why_not)


def test_a_review_edited_by_its_own_author_still_counts(world: World) -> None:
    head = world.open_pr()
    authorize(world)
    review = world.fake.add_review(7, login="amd-a", body="LGTM", commit_id=head)
    world.fake.edit_review(review.id, signoff("amd-a"))
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "pass", out.verdict.summary


def test_a_reuse_command_posted_after_the_signoff_is_evaluated_not_skipped(world: World) -> None:
    # The reuse authorization is one of the checks: the comment that grants it holds no
    # sign-off, but skipping it would leave the head's status REJECTED until some other event.
    head = world.open_pr()
    world.comment(signoff("amd-a"), "amd-a")
    first = world.verify()
    assert first.verdict is not None and first.verdict.verdict == "rejected"
    cid = world.comment("/reuse-sweep-run", "core-1")
    event = {
        "action": "created",
        "issue": {"number": 7, "pull_request": {"url": "x"}},
        "comment": {"id": cid, "body": "/reuse-sweep-run"},
    }
    out = world.verify(None, event_name="issue_comment", event=event)
    assert out.skip is None, out.skip
    assert out.verdict is not None and out.verdict.verdict == "pass", out.verdict.summary
    assert world.statuses(head)[-1].state == "success"


def test_a_pr_with_many_files_still_gets_its_verdict_comment_and_status(world: World) -> None:
    # GitHub refuses a comment body over 65536 characters; a coverage table of a few hundred
    # paths used to exceed it, so nothing was published and the required status never came.
    files: dict[str, str | bytes] = {
        f"benchmarks/single_node/generated/config_{i:04d}_with_a_fairly_long_name.yaml": "x\n"
        for i in range(400)
    }
    head = world.open_pr(files=files)
    authorize(world)
    world.comment(signoff("core-1"), "core-1")
    out = world.verify()
    assert out.verdict is not None and out.published is not None
    [comment] = world.bot_comments()
    assert len(comment.body) <= 65536 and "signoff verify --pr 7" in comment.body
    assert world.statuses(head)[-1].state == {"pass": "success", "rejected": "failure"}.get(
        out.verdict.verdict, out.verdict.verdict
    )


def test_a_run_of_a_sweep_workflow_the_pr_rewrites_never_counts(world: World) -> None:
    # A pull_request run uses the PR's own copy of the workflow file: when the PR changes the
    # sweep workflow, its green run (same path, same job names) ran whatever the PR wrote.
    from tests.checkdata import entry
    from tests.signoff.world import BASE, HEAD_KEY, MASTERS_A

    world.open_pr(
        files={
            MASTER_A: MASTERS_A.replace(b"v0.10.0", b"v0.10.1"),
            "perf-changelog.yaml": BASE + b"\n" + entry(HEAD_KEY, description="bump"),
            ".github/workflows/run-sweep.yml": "on: pull_request\njobs: {}\n",
        }
    )
    authorize(world)
    world.comment(signoff("amd-a"), "amd-a")
    world.comment(signoff("core-1"), "core-1")
    out = world.verify(dry_run=True)
    assert out.verdict is not None and checks(out)["sweep"] == "fail", out.verdict.summary
    assert "changes the sweep workflow" in out.verdict.check("sweep").reason
    assert out.verdict.verdict == "rejected"


def test_statuses_a_commit_got_as_another_prs_head_do_not_date_its_push_here(world: World) -> None:
    # The author opens a second PR whose head H builds on this PR's head; H gets statuses there
    # (CI, the bot's own pending for that PR). An owner then signs this PR off, and the author
    # fast-forwards this PR to H: the sign-off was written before H became this PR's head.
    world.open_pr()
    authorize(world)
    later = world.push(8, {"notes.txt": "what the owner never saw\n"}, "prepared elsewhere")
    world.fake.add_pull(8, "pr-8", author="contrib", title="PR 8")
    world.fake.add_check_suite(later)
    world.comment(signoff("amd-a"), "amd-a")
    assert world.verify(dry_run=True).verdict.verdict == "pass"  # type: ignore[union-attr]
    git(world.author, "push", "-q", "origin", f"{later}:refs/heads/pr-7")
    world.bot_pending(7, later)  # the synchronize run on this PR
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.head_sha == later
    assert out.verdict.verdict == "pending", out.verdict.summary


def test_a_head_that_returns_by_fast_forward_after_a_force_push_needs_a_new_signoff(
    world: World,
) -> None:
    # H is pushed (the bot marks it), the author force-pushes back to its ancestor G, an owner
    # signs G off, and the author fast-forwards to H again: the sign-off never saw H.
    base = world.open_pr()
    authorize(world)
    later = world.push(7, {"notes.txt": "what the owner never saw\n"}, "first try")
    git(world.author, "reset", "-q", "--hard", base)
    git(world.author, "push", "-q", "--force", "origin", "HEAD:refs/heads/pr-7")
    world.fake.add_force_push(7, before=later, after=base)
    world.bot_pending(7, base)
    world.comment(signoff("amd-a"), "amd-a")
    assert world.verify(dry_run=True).verdict.verdict == "pass"  # type: ignore[union-attr]
    git(world.author, "push", "-q", "origin", f"{later}:refs/heads/pr-7")
    world.bot_pending(7, later)
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.head_sha == later
    assert out.verdict.verdict == "pending", out.verdict.summary


def test_a_checklist_fault_fails_the_checklist_check_only(world: World) -> None:
    """`codeowners` judges who signed and what they own; the checklist check judges the
    checklist, naming the version copied and the commits that added the missing items."""
    from tests.signoff.checklists import signoff_from, versions_on_disk

    world.open_pr()
    authorize(world)
    label, old_text = versions_on_disk()[0]
    world.comment(signoff_from(old_text, "amd-a") + f"\n{RECIPE}\n", "amd-a")
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "rejected"
    assert out.verdict.check("codeowners").status == "pass"
    assert "amd-a" in out.verdict.check("codeowners").reason
    reason = out.verdict.check("checklist").reason
    assert out.verdict.check("checklist").status == "fail"
    copied = git(world.trusted, "log", "--format=%h", "--abbrev=9", f"--grep=checklist {label}$",
                 "main")  # fmt: skip
    assert f"(copied from version {copied}" in reason
    assert "missing items added by " in reason


def test_a_missing_codeowners_file_names_the_branch_and_the_places_looked(world: World) -> None:
    from changelog_tools.errors import UsageError

    commit_files(world.author, {".github/CODEOWNERS": ""}, "x")
    git(world.author, "rm", "-q", ".github/CODEOWNERS")
    git(world.author, "commit", "-qm", "no owners")
    git(world.author, "push", "-q", "origin", "main")
    git(world.trusted, "pull", "-q", "--ff-only")
    world.open_pr()
    with pytest.raises(UsageError) as caught:
        world.verify(dry_run=True)
    text = str(caught.value)
    assert "no CODEOWNERS file on main at " in text and ".github/CODEOWNERS" in text
    assert "checkout of the default branch" not in text


def test_the_checklist_header_is_an_option(world: World) -> None:
    from changelog_tools.errors import UsageError
    from changelog_tools.signoff.checklist import HEADER

    text = (world.trusted / "docs/PR_REVIEW_CHECKLIST.md").read_text()
    ours = "Reviewed, and I confirm:"
    commit_files(world.author, {"docs/PR_REVIEW_CHECKLIST.md": text.replace(HEADER, ours)},
                 "our own header")  # fmt: skip
    git(world.author, "push", "-q", "origin", "main")
    git(world.trusted, "pull", "-q", "--ff-only")
    world.open_pr()
    authorize(world)
    with pytest.raises(UsageError) as caught:
        world.verify(dry_run=True)
    assert f"has no line {HEADER!r}" in str(caught.value)
    assert "signoff-checklist-header" in (caught.value.hint or "")
    config = (world.trusted / ".changelog-tools.yaml").read_text()
    (world.trusted / ".changelog-tools.yaml").write_text(
        config + f"signoff-checklist-header: '{ours}'\n"
    )
    world.comment(signoff("amd-a").replace(HEADER, ours), "amd-a")
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.check("checklist").status == "pass"
