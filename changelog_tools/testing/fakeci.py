"""A stand-in for CI beside the fake GitHub: reports check runs on every new pull-request head.

With ``on_merge``, the push of each merge commit to main is handed to a callback too (the
recovery tests add the push run of the sweep workflow there).

GitHub runs the workflows when a branch is pushed; here a background thread watches the open
pull requests of a :class:`~changelog_tools.testing.fakegithub.FakeGitHub` tied to a bare git
origin and, for each head SHA it has not seen, adds the check runs ``verdict(pr, sha)`` names.
Used by the merge-flow tests and the demo (where the verdict is the real `check`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Self

from changelog_tools.testing.background import Background
from changelog_tools.testing.fakegithub import FakeGitHub

# check name -> conclusion ("success", "failure", ...; None: still running)
Verdict = Callable[[int, str], Mapping[str, str | None]]
# (merged PR number, its merge commit): what CI does on the push to main (add a push run, say)
OnMerge = Callable[[int, str], None]


def all_green(names: tuple[str, ...] = ("check-changelog",)) -> Verdict:
    return lambda _pr, _sha: dict.fromkeys(names, "success")


class FakeCI(Background):
    """Reports check runs for new PR heads, every ``interval`` seconds, until stopped."""

    def __init__(
        self,
        fake: FakeGitHub,
        verdict: Verdict,
        *,
        interval: float = 0.01,
        on_merge: OnMerge | None = None,
    ) -> None:
        self.fake = fake
        self.verdict = verdict
        self.on_merge = on_merge
        self.interval = interval
        self.seen: set[str] = set()
        self.reported: list[tuple[int, str, str, str | None]] = []  # (pr, sha, name, conclusion)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.paused = False

    def tick(self) -> None:
        """Report checks for every open PR head not seen yet."""
        if self.paused:
            return
        with self.fake._lock:
            heads = [
                (p.number, self.fake.head_sha(p))
                for p in self.fake.pulls.values()
                if p.state == "open"
            ]
            merges = [
                (p.number, p.merge_commit_sha)
                for p in self.fake.pulls.values()
                if p.merged and p.merge_commit_sha
            ]
        if self.on_merge is not None:
            for number, sha in merges:
                if sha and sha not in self.seen:
                    self.seen.add(sha)
                    self.on_merge(number, sha)
        for number, sha in heads:
            if not sha or sha in self.seen:
                continue
            self.seen.add(sha)
            for name, conclusion in self.verdict(number, sha).items():
                with self.fake._lock:
                    self.fake.add_check_run(
                        sha,
                        name,
                        status="completed" if conclusion else "in_progress",
                        conclusion=conclusion,
                    )
                self.reported.append((number, sha, name, conclusion))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.tick()

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._loop, daemon=True, name="fake-ci")
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
