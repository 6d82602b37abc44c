"""The ingest verdict of a push run's jobs, and the `recover` command a lost one is given."""

from __future__ import annotations

from changelog_tools import config as config_mod
from changelog_tools.flows.landing.ingest import ingest_state, recover_command
from changelog_tools.github.records import Job

CONFIG = config_mod.defaults()


def jobs(*pairs: tuple[str, str | None]) -> list[Job]:
    return [Job(i, name, "completed", c, None) for i, (name, c) in enumerate(pairs)]


def test_a_skipped_or_failed_ingest_is_lost() -> None:
    skipped = ingest_state(
        jobs(("single-node 1k1k / a", "cancelled"), ("trigger-ingest", "skipped")), CONFIG
    )
    assert skipped.lost and "no ingest job succeeded (trigger-ingest skipped)" in skipped.why
    failed = ingest_state(
        jobs(("trigger-ingest", "failure"), ("trigger-agentic-ingest", "skipped")), CONFIG
    )
    assert failed.lost and "trigger-agentic-ingest skipped" in failed.why
    none = ingest_state(jobs(("setup", "success")), CONFIG)
    assert none.lost and "no ingest job (trigger-ingest, trigger-agentic-ingest)" in none.why


def test_an_ingest_after_a_cancelled_sweep_is_a_bogus_ingest() -> None:
    state = ingest_state(
        jobs(
            ("single-node 1k1k / a", "cancelled"),
            ("eval / a", "success"),
            ("trigger-ingest", "success"),
        ),
        CONFIG,
    )
    assert (
        state.lost
        and "a bogus ingest" in state.why
        and "single-node 1k1k / a cancelled" in state.why
    )
    assert not state.reuse_enabled


def test_an_ingest_that_reused_or_followed_a_complete_sweep_is_not_lost() -> None:
    reused = ingest_state(
        jobs(("single-node 1k1k / a", "skipped"), ("trigger-ingest", "success")), CONFIG
    )
    assert not reused.lost and reused.reuse_enabled and reused.why.endswith("reusing a sweep")
    swept = ingest_state(
        jobs(("single-node 1k1k / a", "success"), ("trigger-ingest", "success")), CONFIG
    )
    assert (
        not swept.lost and not swept.reuse_enabled and swept.why.endswith("after a complete sweep")
    )
    assert swept.ingest_succeeded() == ("trigger-ingest",)


def test_the_recover_command_names_the_run_or_the_pull_request_and_quotes_for_a_shell() -> None:
    assert recover_command(pr=3) == "changelog-tools recover --pr 3"
    assert recover_command(pr=3, source_run=9) == "changelog-tools recover --pr 3 --source-run 9"
    url = "https://github.com/o/r/actions/runs/5?x=1&y=2"
    assert recover_command(target=url, pr=3) == f"changelog-tools recover '{url}'"
