"""What the GitHub adapter has sent and waited, shared by its requester and its retry policy.

PyGithub sends the requests and urllib3 repeats them; this is the state both report to, so the
rules of :class:`~changelog_tools.github.policy.RetryPolicy` hold across them: one retry budget
per request, one rate-limit budget for the whole process, every pause through an injectable
sleep (tests use a fake clock), every message through one log with the token redacted.
Nothing here imports PyGithub.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from changelog_tools.github.failures import GaveUp
from changelog_tools.github.policy import MAX_RATE_LIMIT_RETRIES, Mode, RetryPolicy


@dataclass(frozen=True, slots=True)
class RateLimit:
    """The wait a rate-limit answer asks for, and what said so."""

    wait: float
    what: str


class Traffic:
    """The requests one adapter sent, the waits it spent, and the request under way."""

    def __init__(
        self,
        policy: RetryPolicy,
        *,
        secret: str = "",
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.policy = policy
        self.clock = clock
        self._secret = secret
        self._sleep = sleep
        self._log = log
        self.requests = 0  # HTTP requests sent, retries included
        self.rate_limit_waited = 0.0
        # the request under way (the tool sends one at a time)
        self.verb = "GET"
        self.shown = ""
        self.mode = Mode.READ
        self.retried = 0  # retries after server errors and lost connections
        self.limited = 0  # rate-limit answers in a row
        self.answers = 0  # answers received, redirects and "202, ask again" included
        self.failure: BaseException | None = None  # the last failure without an answer

    def __repr__(self) -> str:  # never shows the token
        return f"Traffic(requests={self.requests})"

    def begin(self, verb: str, shown: str, mode: Mode) -> None:
        """A new request (not a retry of the last one) is about to be sent."""
        self.verb, self.shown, self.mode = verb, shown, mode
        self.retried = self.limited = self.answers = 0
        self.failure = None

    @property
    def attempts(self) -> int:
        return self.retried + 1

    # -- what happened to the request under way -----------------------------------------------

    def answered(self) -> None:
        """An answer came back; a request answered without end (redirects, "202, ask again")
        is stopped."""
        self.requests += 1
        self.answers += 1
        if self.answers > self.policy.max_answers:
            raise GaveUp(
                f"was answered {self.answers - 1} times without a final answer (redirects or "
                '"202, ask again"); stopped'
            )

    def failed(self, error: BaseException) -> None:
        """The request got no answer (refused, reset, timed out)."""
        self.requests += 1
        self.failure = error

    def next_pause(self, detail: str) -> float | None:
        """The pause before one more attempt after ``detail``, or None when the retries are
        spent."""
        if self.retried >= self.policy.retries:
            return None
        self.retried += 1
        pause = self.policy.pause(self.retried)
        self.say(
            f"GitHub API {self.verb} {self.shown}: {detail}; retry "
            f"{self.retried}/{self.policy.retries} in {pause:g}s"
        )
        return pause

    def admit(self, limit: RateLimit, detail: str) -> float:
        """Count one rate-limit answer and return its wait; GaveUp when the process's budget or
        the answers in a row are spent."""
        self.limited += 1
        budget = self.policy.rate_limit_wait - self.rate_limit_waited
        if self.limited > MAX_RATE_LIMIT_RETRIES or limit.wait > budget:
            why = (
                f"still rate limited after {self.limited - 1} waits"
                if self.limited > MAX_RATE_LIMIT_RETRIES
                else f"{limit.what} asks for a {limit.wait:.0f}s wait but only {budget:.0f}s of "
                f"the {self.policy.rate_limit_wait:.0f}s budget is left"
            )
            raise GaveUp(
                f"is rate limited ({detail}): {why}",
                hint="retry later, or raise `github-rate-limit-wait` in the configuration",
            )
        self.say(
            f"GitHub API {self.verb} {self.shown}: rate limited ({limit.what}); "
            f"waiting {limit.wait:g}s"
        )
        self.rate_limit_waited += limit.wait
        return limit.wait

    # -- pauses and messages --------------------------------------------------------------------

    def sleep(self, seconds: float) -> None:
        self._sleep(seconds)

    def pause(self, verb: str, shown: str, detail: str, attempt: int) -> None:
        """Wait before the adapter's own attempt number ``attempt`` at a write whose outcome it
        had to check first (a lost merge or comment answer)."""
        pause = self.policy.pause(attempt)
        self.say(
            f"GitHub API {verb} {shown}: {detail}; retry {attempt}/{self.policy.retries} in {pause:g}s"
        )
        self._sleep(pause)

    def say(self, message: str) -> None:
        """Progress for the user (token redacted), when a log was given."""
        if self._log is not None:
            from changelog_tools.diagnostics import no_commands

            self._log(no_commands(self.redact(message)))

    def redact(self, text: str) -> str:
        # Case-insensitively: a server (or a proxy's error page) that echoes the token upper- or
        # lower-cased must not get most of it printed; GitHub Actions masks only the exact value.
        if not self._secret:
            return text
        return re.sub(re.escape(self._secret), "***", text, flags=re.IGNORECASE)
