"""A stateful fake of the GitHub REST API, served over real HTTP on 127.0.0.1.

Tests (and the demo) set up plain Python objects (pull requests, comments, workflow runs,
artifacts, check runs, statuses) and point the tool at :attr:`FakeGitHub.base_url`. The fake
answers the routes the tool uses the way GitHub does, with the details clients depend on:

- every ``url``/``*_url`` field and every ``Link`` header is built from the one ``base_url``
  (PyGithub refuses absolute URLs whose host, port or path prefix differ);
- lists are paginated with ``page``/``per_page`` and exact ``Link: <...>; rel="next"`` headers;
- every request is logged (:attr:`FakeGitHub.log`) so tests can count them, and a request no
  route answers is a 404 recorded in :attr:`FakeGitHub.unhandled`;
- faults can be injected per route: 5xx n times (optionally after applying the request, as a
  lost response), primary/secondary rate limits with their headers, and stalls.

Tied to a bare git repository (``git_origin``), pull-request head SHAs, commit lists and
mergeability come from real refs, and ``PUT /pulls/N/merge`` squashes for real with
``git merge-tree --write-tree``, ``commit-tree`` and a compare-and-swap ``update-ref``. Like
GitHub, that merge ignores merge drivers named in ``.gitattributes``.

Command line (for the demo): ``python -m changelog_tools.testing.fakegithub --state FILE``
serves the JSON state file and prints its base URL on the first line of stdout.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from changelog_tools.testing.fakegithub.actions import ActionRoutes
from changelog_tools.testing.fakegithub.checks import CheckRoutes
from changelog_tools.testing.fakegithub.commits import CommitRoutes
from changelog_tools.testing.fakegithub.examples import EXAMPLES
from changelog_tools.testing.fakegithub.gitdata import GitOrigin
from changelog_tools.testing.fakegithub.graphql import GraphQLRoutes
from changelog_tools.testing.fakegithub.issues import IssueRoutes
from changelog_tools.testing.fakegithub.people import PeopleRoutes
from changelog_tools.testing.fakegithub.pulls import PullRoutes
from changelog_tools.testing.fakegithub.server import _R, _ROUTES, COMMENT_LIMIT, route

# The records a test sets up are all in .state; these are the ones tests import from here.
from changelog_tools.testing.fakegithub.state import (
    RECORD_ENV,
    Exchange,
    FakeCommit,
    FakeJob,
    FakePull,
    FakeRun,
    Fault,
    Request,
    fake_sha,
    stamp,
)


class FakeGitHub(
    PullRoutes,
    IssueRoutes,
    ActionRoutes,
    CheckRoutes,
    CommitRoutes,
    PeopleRoutes,
    GraphQLRoutes,
):
    """The fake server and its state. Use as a context manager, or call start()/stop()."""

    @classmethod
    def from_state(cls, state: dict[str, Any], **options: Any) -> FakeGitHub:
        """Build a fake from a JSON-style dict (the ``--state`` file format; see docs/github.md)."""
        if not isinstance(state, dict):
            raise ValueError(f"the state must be a JSON object, not {type(state).__name__}")
        state = dict(state)
        options.setdefault("repository", state.pop("repository", "octo/widgets"))
        for key in ("actor", "actor_association"):
            if key in state:
                options.setdefault(key, state.pop(key))
        fake = cls(**options)
        fake.load(state)
        return fake

    def snapshot(self) -> dict[str, Any]:
        """The current state as plain data (pulls, comments, runs, statuses, ...)."""
        with self._lock:
            return {
                "repository": self.repository,
                "pulls": [dataclasses.asdict(p) for p in self.pulls.values()],
                "comments": [dataclasses.asdict(c) for c in self.comments.values()],
                "workflows": [dataclasses.asdict(w) for w in self.workflows.values()],
                "runs": [dataclasses.asdict(r) for r in self.runs.values()],
                "check_runs": [dataclasses.asdict(c) for c in self.check_runs],
                "statuses": [dataclasses.asdict(s) for s in self.statuses],
                "commit_pulls": dict(self.commit_pulls),
                "reviews": [dataclasses.asdict(r) for r in self.reviews],
                "review_comments": [dataclasses.asdict(c) for c in self.review_comments],
            }


# ----------------------------------------------------------------------------------------------
# command line


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m changelog_tools.testing.fakegithub",
        description="Serve a fake GitHub REST API from a JSON state file on 127.0.0.1 and print "
        "its base URL (the first line of stdout). Stop it with Ctrl-C or SIGTERM.",
    )
    parser.add_argument("--state", required=True, type=Path, help="JSON state file")
    parser.add_argument("--port", type=int, default=0, help="port (default: any free port)")
    parser.add_argument("--prefix", default="/api/v3", help="API path prefix (default /api/v3)")
    parser.add_argument("--git-origin", type=Path, help="bare repository backing PRs and merges")
    parser.add_argument("--token", help="require this token on every request")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Serve ``--state`` until interrupted; print the base URL first."""
    args = _parse_args(argv)
    if args.git_origin is not None and GitOrigin(args.git_origin).git("rev-parse").returncode:
        # a typo here would only show later, as a 500 on every pull-request read
        print(f"error: --git-origin {args.git_origin}: not a git repository", file=sys.stderr)
        return 2
    try:
        state = json.loads(args.state.read_text(encoding="utf-8"))
        fake = FakeGitHub.from_state(
            state, prefix=args.prefix, git_origin=args.git_origin, token=args.token
        )
    except (OSError, ValueError, TypeError) as exc:  # TypeError: a list where an object goes
        print(f"error: {args.state}: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def _stop(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    fake.start(args.port)
    print(fake.base_url, flush=True)
    try:
        while not stop.wait(0.2):
            pass
    finally:
        fake.stop()
    return 0


def iter_routes() -> Iterator[tuple[str, str]]:
    """(method, path pattern) of every route the fake answers, for documentation."""
    for method, pattern, _name in _ROUTES:
        yield method, pattern.pattern.replace(_R, "/repos/{owner}/{repo}")


__all__ = [
    "COMMENT_LIMIT",
    "EXAMPLES",
    "RECORD_ENV",
    "Exchange",
    "FakeCommit",
    "FakeGitHub",
    "FakeJob",
    "FakePull",
    "FakeRun",
    "Fault",
    "GitOrigin",
    "Request",
    "fake_sha",
    "iter_routes",
    "main",
    "route",
    "stamp",
]
