"""How hard the GitHub adapter tries, and which requests it may send twice.

A CI gate must fail closed and explain itself, so every limit here is explicit, comes from the
configuration and is tested with an injected clock; :mod:`~changelog_tools.github.retry` applies
it to each request PyGithub sends.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from changelog_tools.config import Config

DEFAULT_PAGE_SIZE = 100  # GitHub's maximum; fewer pages means fewer requests
# Pause after a secondary rate limit that names no time (GitHub asks for "at least a minute").
SECONDARY_RATE_LIMIT_WAIT = 60.0
# However short the waits a server asks for, stop after this many rate-limit answers in a row.
MAX_RATE_LIMIT_RETRIES = 6
# Pages one list may take (100 items each): far beyond any list the tool reads (a PR lists at
# most 250 commits), so only a server that never stops paginating reaches it.
MAX_PAGES = 1000
# Redirects PyGithub may follow for one request (it follows a 301 on the API's own host).
MAX_REDIRECTS = 5


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard the adapter tries before it gives up with exit 3."""

    retries: int = 4  # extra attempts after a 5xx, a connection error or a timeout
    backoff: float = 1.0  # first pause in seconds; doubles with every attempt
    max_backoff: float = 30.0
    rate_limit_wait: float = 300.0  # total seconds this process may spend waiting out rate limits
    timeout: float = 30.0  # seconds per connect and per read of one HTTP request
    write_interval: float = 1.0  # the pause between two writes (GitHub's advice)

    @classmethod
    def from_config(cls, config: Config) -> RetryPolicy:
        return cls(
            retries=config.github_retries,
            backoff=float(config.github_retry_backoff),
            rate_limit_wait=float(config.github_rate_limit_wait),
            timeout=float(config.github_timeout),
            write_interval=float(config.github_write_interval),
        )

    def pause(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        return float(min(self.backoff * 2 ** (attempt - 1), self.max_backoff))

    @property
    def max_answers(self) -> int:
        """Answers one request may get (retries, rate limits, redirects, GitHub's "202, ask
        again"): past this the server is going round in circles."""
        return 1 + self.retries + MAX_RATE_LIMIT_RETRIES + MAX_REDIRECTS


class Mode(enum.Enum):
    """How a request may be repeated when its answer is lost or is a server error."""

    READ = "read"  # safe to repeat
    IDEMPOTENT = "idempotent"  # a write whose repetition changes nothing (PATCH body, status)
    ONCE = "once"  # a write that must not be repeated blindly (POST comment, PUT merge)

    @property
    def repeatable(self) -> bool:
        return self is not Mode.ONCE
