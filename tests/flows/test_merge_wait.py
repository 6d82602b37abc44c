"""flows/landing/wait.py: waiting for the pull request's checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mergeworld import World, build_world, entry, merge

# -- hostile and failing GitHub-side situations ------------------------------------------------


def test_the_wait_reads_every_page_of_check_runs_and_finds_the_changelog_check_on_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    worlds: list[World] = []

    def report_all_at_once(_pr: int, sha: str) -> dict[str, str | None]:
        # 151 check runs in one step (the flow sees none or all), check-changelog the oldest
        fake = worlds[0].fake
        with fake._lock:
            for name in ("check-changelog", *(f"matrix-{i:03}" for i in range(150))):
                fake.add_check_run(sha, name)
        return {}

    for w in build_world(tmp_path, report_all_at_once):
        worlds.append(w)
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        w.open_pr(1, "feat-a", {}, title="Tune", append=entry("Tune the TP sizes"))

        assert merge("1") == 0

        assert w.fake.pulls[1].merged
        pages = [r.query.get("page", "1") for r in w.fake.requests("GET", r"/check-runs$")]
        assert pages[-2:] == ["1", "2"]  # the last look read both pages (100 a page)
