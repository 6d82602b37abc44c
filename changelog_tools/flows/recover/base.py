"""What every part of `recover` shares: its collaborators, its progress lines, the record of
what is already on GitHub, and the recovery an earlier run left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from changelog_tools.config import Config
from changelog_tools.errors import ChangelogToolsError
from changelog_tools.flows.landing.ports import RecoverGitHub
from changelog_tools.flows.landing.progress import Console
from changelog_tools.flows.recover import git as rg
from changelog_tools.flows.recover.plan import RecoverRequest
from changelog_tools.github.adapter import PullRequest
from changelog_tools.gitrepo import GitRepo
from changelog_tools.reuse.gate import Authorization


def fill(template: str, **values: object) -> str:
    """``{name}`` placeholders replaced; anything else in a configured text stays as written
    (``str.format`` would fail on a stray brace in a commit message)."""
    for name, value in values.items():
        template = template.replace(f"{{{name}}}", str(value))
    return template


@dataclass
class Remote:
    """What this run (or an earlier one) has on GitHub, so a failure can say so truthfully."""

    request: RecoverRequest
    branch: str
    done: list[str] = field(default_factory=list)

    def add(self, what: str) -> None:
        self.done.append(what)

    def summary(self) -> str:
        if not self.done:
            return ""
        return (
            f"Already on GitHub: {'; '.join(self.done)}. A re-run of `{self.request.command()}` "
            "resumes from there (it does not open, label, post or push that again)"
        )

    def tell(self, exc: ChangelogToolsError) -> None:
        exc.add_sentence(self.summary())


@dataclass
class Existing:
    """The recovery an earlier run left: branch, open or merged PR, label and authorization."""

    state: rg.BranchState
    pull: PullRequest | None = None
    merged: PullRequest | None = None
    authorization: Authorization | None = None


class FlowBase:
    """The collaborators of one run of `recover` (the flow's fields, declared here for the
    steps) and what every step uses; the steps live in :mod:`.checks` (reads and refusals,
    before any write) and :mod:`.writes`."""

    config: Config
    repo: GitRepo
    github: RecoverGitHub
    sleep: Callable[[float], None]
    clock: Callable[[], float]
    _console: Console

    def say(self, step: str, message: str) -> None:
        self._console.line(f"[{step}] {message}")

    def _bootstrap_message(self, n: int) -> str:
        # Only {pr}: a re-run must recognise the bootstrap whatever source run it settles on.
        return fill(self.config.recover_bootstrap_message, pr=n)

    def _times(self, request: RecoverRequest) -> tuple[float, float]:
        cfg = self.config
        timeout = float(cfg.check_timeout if request.timeout is None else request.timeout)
        interval = float(
            cfg.check_poll_interval if request.poll_interval is None else request.poll_interval
        )
        return timeout, interval
