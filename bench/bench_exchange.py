"""Benchmark: what the bounds on every GitHub exchange cost a request.

Run: python bench/bench_exchange.py [--requests N] [--rounds R]

Each exchange the adapter sends gets a total deadline (a watchdog that shuts the socket) and a
body limit (the answer streamed and counted), in `changelog_tools/github/exchange.py`. This
times ``get_pull`` against the local fake GitHub (loopback, so the fixed cost per request is all
there is to see) with those bounds, and with PyGithub's own connection class in their place,
round by round, and prints the median milliseconds per request of each. Against api.github.com
a request takes tens to hundreds of milliseconds; the difference printed here is what the
bounds add to it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from github.Requester import HTTPRequestsConnectionClass

import changelog_tools.github.requester as requester
from changelog_tools import config as config_mod
from changelog_tools.github.adapter import RetryPolicy, make_github
from changelog_tools.testing.fakegithub import FakeGitHub

TOKEN = "bench-token-0123456789"


def per_request_ms(env: dict[str, str], requests: int) -> float:
    gh = make_github(config_mod.defaults(), env=env, policy=RetryPolicy(retries=0, timeout=5))
    gh.get_pull(1)  # connect first: the pool's connection is reused from here on
    start = time.perf_counter()
    for _ in range(requests):
        gh.get_pull(1)
    return (time.perf_counter() - start) / requests * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    fake = FakeGitHub("o/r", token=TOKEN).start()
    try:
        fake.add_pull(1, "f", head_sha="a" * 40)
        env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": fake.base_url, "GITHUB_REPOSITORY": "o/r"}
        bounded, plain = [], []
        bounded_class = requester.BoundedHTTPConnection
        for _ in range(args.rounds):
            bounded.append(per_request_ms(env, args.requests))
            requester.BoundedHTTPConnection = HTTPRequestsConnectionClass  # type: ignore[misc]
            try:
                plain.append(per_request_ms(env, args.requests))
            finally:
                requester.BoundedHTTPConnection = bounded_class  # type: ignore[misc]
    finally:
        fake.stop()
    print(f"get_pull against the local fake, median of {args.rounds} rounds of {args.requests}:")
    print(f"  with the exchange bounds        {statistics.median(bounded):6.2f} ms/request")
    print(f"  PyGithub's own connection class {statistics.median(plain):6.2f} ms/request")
    return 0


if __name__ == "__main__":
    from _header import print_header  # the date and machine of every figure below

    print_header(__file__)
    raise SystemExit(main())
