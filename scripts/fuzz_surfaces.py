"""Fuzz the surfaces a pull request or a setup file controls: no traceback, no hang.

Run: python scripts/fuzz_surfaces.py [--inputs 2000] [--seed 21] [--timeout 10] [--only NAME]

Surfaces, each fed ``--inputs`` generated inputs (deterministic for a seed):

* ``lint``: master configs and benchmark scripts of a small tree (the bundled example's master
  configs and scripts written here), mutated at the byte level and in their YAML shapes (a list
  or a mapping where a scalar belongs, huge numbers, dates that do not exist), through every
  lint rule (:func:`changelog_tools.lint.engine.run_lint` over in-memory trees);
* ``signoff``: review comments built from a checklist template (the real InferenceX one when
  ``../shared/fixtures`` is there, else a small one written here), wrapped in quotes, code,
  HTML comments and ``<pre>``, mutated, and grown to GitHub's comment limit, through
  :func:`find_signoff` and :func:`match_signoff`;
* ``codeowners``: CODEOWNERS files of generated patterns and owners (``**`` runs, brackets,
  escapes, form feeds, logins with ``_``) matched against generated paths up to 4,096 bytes;
* ``config``: `.changelog-tools.yaml` files with values of every wrong kind (huge and
  non-finite numbers, malformed URLs, lists for scalars), loaded as the CLI loads them, then
  used the way the commands use them;
* ``http``: the GitHub adapter's calls answered by a local hostile server: fields of the wrong
  type or missing, huge numbers, JSON nested 100,000 deep, HTML and truncated bodies, a 100 GB
  declared length, redirects to malformed or foreign URLs, foreign next-page links, rate limits
  that reset in the far future; and, from a socket-level server, answers no HTTP library
  produces: headers dripped a line at a time, ``100 Continue`` without end, a body that never
  ends or trickles, garbage bytes, a connection cut mid-header, "202, ask again" for ever (these
  run with a 0.5 s timeout, so the total deadline of one exchange is 1 s).

An input fails when it raises anything but the tool's own errors (which the CLI maps to exit
codes 1-4) or runs past ``--timeout`` seconds. Counts per surface are printed; the exit status is
1 when any count is non-zero. Failing inputs are written under ``--out`` for replay.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from changelog_tools.errors import ChangelogToolsError  # noqa: E402

EXAMPLE = ROOT / "changelog_tools/examples/inferencex-mini"
CHECKLISTS = ROOT.parent / "shared/fixtures/inferencex/checklist-history"

ATOMS = [
    "\t", "\r", "\x0b", "\x0c", "\x00", "\x85", "\u2028", "\ufeff", "²", "٥", "５", "yes", "on",
    "~", "null", "[x]", "{a: 1}", "9" * 5000, "9" * 400, "1e400", ".inf", ".nan", "-.inf",
    "2026-02-30", '"', "'", "#", ": ", "- ", "&a ", "*a", "!!str ", "|\n", "`", "```", "~~~",
    "<!--", "-->", "<pre>", "</pre>", "</details>", "> ", "    ", "\\", "@", "::", "%",
    "\u200b", "../", "/", "**/", "[", "]", "!", "\n", "\n\n",
]  # fmt: skip


class Hang(Exception):
    pass


def _alarm(_signum: int, _frame: object) -> None:
    raise Hang


def mutate_text(text: str, rng: random.Random, rounds: int = 4) -> str:
    out = text
    for _ in range(rng.randint(0, rounds)):
        pos = rng.randrange(len(out) + 1)
        roll = rng.random()
        if roll < 0.5:
            out = out[:pos] + rng.choice(ATOMS) + out[pos:]
        elif roll < 0.65:
            out = out[:pos] + out[pos + rng.randint(1, 12) :]
        elif roll < 0.8:
            lines = out.split("\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            out = "\n".join(lines)
        elif roll < 0.9:
            lines = out.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            out = "\n".join(lines)
        else:
            out = out[:pos]
    return out


# -- lint ---------------------------------------------------------------------------------------

SCRIPT = """#!/usr/bin/env bash
# golden-al: golden_al_distribution/llama70b_mtp.yaml llama70b thinking_on 3
export NUM_SPEC_TOKENS=3
SGLANG_SIMULATE_ACC_LEN=2.50
python -m sglang.launch_server --speculative-num-steps 3 --chat-template x.jinja
"""
SHAPES = [
    ("framework: ", ["[vllm]", "{a: 1}", "9" * 400, "null", "''"]),
    ("model-prefix: ", ["[x]", "{b: 2}", "1e400"]),
    ("precision: ", ["[fp8]", "yes"]),
    ("runner: ", ["[h200]", "{x: y}"]),
    ("image: ", ["[a]", "{c: d}", "::error::x"]),
    ("isl: ", ["9" * 5000, "-1", "[1]"]),
    ("conc-list: ", ["[" + "9" * 400 + "]", "{}", "x"]),
]


def lint_case(rng: random.Random) -> Callable[[], object]:
    from changelog_tools.config import load_config
    from changelog_tools.lint.engine import LintRequest, run_lint
    from changelog_tools.lint.tree import MemoryTree

    base: dict[str, bytes] = {
        f"configs/{p.name}": p.read_bytes() for p in sorted((EXAMPLE / "configs").iterdir())
    }
    base["benchmarks/single_node/agentic/llama70b_fp8_gpu-a_mtp.sh"] = SCRIPT.encode()
    base["MODELS.md"] = (
        b"# Models\n\n## Model support matrix\n\n| prefix | active |\n| --- | --- |\n"
    )
    head = dict(base)
    for path in rng.sample(sorted(head), rng.randint(1, 2)):
        text = head[path].decode("utf-8")
        if path.endswith(".yaml") and rng.random() < 0.6:
            field, values = rng.choice(SHAPES)
            if field in text:
                at = text.index(field) + len(field)
                end = text.index("\n", at)
                text = text[:at] + rng.choice(values) + text[end:]
        head[path] = mutate_text(text, rng).encode("utf-8", "surrogatepass")
    if rng.random() < 0.3:
        base["MODELS.md"] += b"| `llama70b` | None (retired 2026-02-30) |\n"
    changed = tuple(sorted(p for p in head if head[p] != base.get(p)))
    request = LintRequest(
        head=MemoryTree(head),
        base=MemoryTree(base),
        changed=changed,
        pr=7,
        now=datetime.date(2026, 12, 1),
    )
    config = load_config(EXAMPLE / ".changelog-tools.yaml")
    return lambda: run_lint(request, config)


# -- sign-off comments ----------------------------------------------------------------------------

OWN_TEMPLATE = """## Template

As a PR reviewer and CODEOWNER, I have reviewed this and have:

- [ ] Verified that the code quality does not get any worse.
- [ ] Verified that this PR has passed PR validation. Please link to the workflow run.
  - [ ] Verified the evals.
- [ ] If any of the above criteria cannot reasonably be satisfied, I have provided additional reasoning below.

### Additional detail section:
- insert any additional info here

Signed: `FILL_IN_GITHUB_USERNAME`
"""


def _template_text() -> str:
    versions = sorted(p for p in CHECKLISTS.glob("*.md") if p.name != "README.md")
    return versions[-1].read_text(encoding="utf-8") if versions else OWN_TEMPLATE


WRAPS: list[Callable[[str], str]] = [
    lambda s: s,
    lambda s: "\n".join("> " + line for line in s.splitlines()),
    lambda s: "```\n" + s + "\n```",
    lambda s: "<!--\n" + s + "\n-->",
    lambda s: "<pre>\n" + s + "\n</pre>",
    lambda s: "\n".join("    " + line for line in s.splitlines()),
    lambda s: "LGTM\n\n" + s,
    lambda s: s + "\n" + "- [x] padding\n" * 3000,
    lambda s: s.replace("\n", "\r\n"),
]


def signoff_case(rng: random.Random) -> Callable[[], object]:
    from changelog_tools.signoff.checklist import find_signoff, match_signoff, parse_template

    template_text = _template_text()
    template = parse_template(template_text)
    assert template is not None
    body = template_text.split("As a PR reviewer", 1)[-1]
    body = "As a PR reviewer" + body.replace("[ ]", "[x]").replace(
        "FILL_IN_GITHUB_USERNAME", "nv-a"
    )
    body = mutate_text(rng.choice(WRAPS)(body), rng, rounds=6)[:70_000]

    def run() -> object:
        found = find_signoff(body)
        if found.checklist is not None:
            return match_signoff(template, found.checklist, author="nv-a")
        return found

    return run


# -- CODEOWNERS -----------------------------------------------------------------------------------

SEGMENTS = ["a", "b", "docs", "*", "**", "?", "*.md", "a*b", "[x]", "\\#x", "x\\ y", "é", "."]
OWNERS = ["@alice", "@alice_contoso", "@org/team", "@org/team_x", "x@example.com", "bad", "@", "#c"]


def codeowners_case(rng: random.Random) -> Callable[[], object]:
    from changelog_tools.signoff.codeowners import parse_codeowners

    lines = []
    for _ in range(rng.randint(1, 30)):
        pattern = "/".join(rng.choice(SEGMENTS) for _ in range(rng.randint(1, 9)))
        if rng.random() < 0.3:
            pattern = "/" + pattern
        if rng.random() < 0.2:
            pattern += "/"
        owners = " ".join(rng.choice(OWNERS) for _ in range(rng.randint(0, 3)))
        lines.append(f"{pattern} {owners}")
    text = mutate_text("\n".join(lines), rng, rounds=3)
    paths = [
        "/".join(
            rng.choice(["a", "b", "x" * rng.randint(1, 60), "docs", "é"])
            for _ in range(rng.randint(1, 70))
        )[:4096]
        for _ in range(20)
    ]

    def run() -> object:
        owners = parse_codeowners(text)
        return [owners.decide(p) for p in paths]

    return run


# -- configuration --------------------------------------------------------------------------------

CONFIG_VALUES = [
    "1e10", "1e400", ".inf", ".nan", "-1", "0", "9" * 400, "'http://[::1'", "http://h:99999",
    "ftp://x", "''", "[a]", "{a: 1}", "yes", "~", "'a\\nb'", "'::add-mask::x'", "-.inf",
]  # fmt: skip


def config_case(rng: random.Random) -> Callable[[], object]:
    from changelog_tools.config import OPTIONS, load_config

    directory = Path(tempfile.mkdtemp(prefix="fuzz-config-"))
    lines = []
    for option in rng.sample(list(OPTIONS), rng.randint(1, 4)):
        lines.append(f"{option.name}: {rng.choice(CONFIG_VALUES)}")
    text = mutate_text("\n".join(lines) + "\n", rng, rounds=2)
    path = directory / ".changelog-tools.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")

    def run() -> object:
        config = load_config(path)
        # used as the commands use them: every derived value read once
        for name in dir(config):
            if not name.startswith("_"):
                value = getattr(config, name)
                if callable(value):
                    continue
        return config

    return run


# -- HTTP answers ---------------------------------------------------------------------------------

_PULL = {
    "number": 7, "state": "open", "title": "t", "user": {"login": "a", "type": "User"},
    "head": {"sha": "a" * 40, "ref": "pr-7", "repo": {"full_name": "o/r"}},
    "base": {"ref": "main", "sha": "b" * 40}, "merged": False, "draft": False,
    "labels": [], "html_url": "http://x/pull/7", "url": "{base}/repos/o/r/pulls/7",
    "merge_commit_sha": None, "merged_at": None, "node_id": "N",
}  # fmt: skip
_COMMENT = {
    "id": 1, "body": "hi", "user": {"login": "a", "type": "User"}, "author_association": "MEMBER",
    "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z",
    "html_url": "http://x/c/1", "url": "{base}/repos/o/r/issues/comments/1", "node_id": "C",
}  # fmt: skip
_HOSTILE_VALUES: list[object] = [
    None, 0, -1, 10**30, 1e308, "", "x" * 10_000, [], {}, [1, 2], {"a": None}, True, "::error::x",
    "http://other.invalid/x", "2024-13-45T99:99:99Z",
]  # fmt: skip


def _hostile_json(rng: random.Random, base: str) -> bytes:
    shape = rng.random()
    doc: object
    if shape < 0.45:
        doc = json.loads(json.dumps(rng.choice([_PULL, _COMMENT])).replace("{base}", base))
        assert isinstance(doc, dict)
        for key in rng.sample(sorted(doc), rng.randint(1, 3)):
            if rng.random() < 0.3:
                del doc[key]
            else:
                doc[key] = rng.choice(_HOSTILE_VALUES)
        if rng.random() < 0.4:
            doc = [doc] * rng.randint(0, 3)
    elif shape < 0.55:
        depth = rng.choice([100, 5_000, 100_000])
        return b"[" * depth + b"]" * depth
    elif shape < 0.65:
        return rng.choice([b"", b"<html>502</html>", b"{", b"\xff\xfe", b"null", b"1" * 5000])
    else:
        doc = rng.choice(_HOSTILE_VALUES)
    return json.dumps(doc).encode()


class _HostileServer:
    """A local HTTP server that answers each request with the next generated response."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.answers: list[tuple[int, dict[str, str], bytes]] = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                status, headers, body = (
                    owner.answers.pop(0) if owner.answers else (404, {}, b'{"message":"Not Found"}')
                )
                self.send_response(status)
                headers = {"Content-Type": "application/json", **headers}
                headers.setdefault("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)
                if headers["Content-Length"] != str(len(body)):
                    self.close_connection = True

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _answer

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client that hangs up on a hostile answer is the expected case

        self.server = Server(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


_SERVER: _HostileServer | None = None


def http_case(rng: random.Random) -> Callable[[], object]:
    from changelog_tools.config import defaults
    from changelog_tools.github.adapter import make_github

    global _SERVER
    if _SERVER is None:
        _SERVER = _HostileServer()
    server = _SERVER
    answers = []
    for _ in range(rng.randint(1, 4)):
        status = rng.choice([200, 200, 200, 201, 204, 301, 302, 401, 403, 404, 422, 500, 502])
        headers: dict[str, str] = {}
        if status in (301, 302):
            headers["Location"] = rng.choice(["http://[bad", "http://other.invalid/x", "/x"])
        if rng.random() < 0.1:
            headers["Content-Length"] = str(100 * 2**30)
        if rng.random() < 0.1:
            target = rng.choice(["http://other.invalid/p", server.base + "/p"])
            headers["Link"] = f'<{target}>; rel="next"'
        if status == 403 and rng.random() < 0.5:
            headers.update({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "99999999999"})
        answers.append((status, headers, _hostile_json(rng, server.base)))
    env = {
        "GH_TOKEN": "fuzz-token-0123456789",
        "GITHUB_API_URL": server.base,
        "GITHUB_REPOSITORY": "o/r",
    }
    call = rng.choice(["get_pull", "list_issue_comments", "list_pull_files", "create_issue_comment",
                       "get_combined_status", "list_run_artifacts"])  # fmt: skip

    def run() -> object:
        server.answers[:] = answers
        gh = make_github(defaults(Path(tempfile.gettempdir())), env=env, sleep=lambda _s: None)
        if call == "create_issue_comment":
            return gh.create_issue_comment(7, "body")
        if call == "get_combined_status":
            return gh.get_combined_status("a" * 40)
        return getattr(gh, call)(7)

    return run


class _WireServer:
    """A socket-level server: each connection gets the behaviour set for the current case."""

    BEHAVIOURS = (
        "drip-headers", "continue-flood", "endless-body", "trickle-body", "garbage",
        "cut-mid-header", "huge-header", "accepted-forever",
    )  # fmt: skip

    def __init__(self) -> None:
        import socket
        import threading

        self.behaviour = "garbage"
        self.seed = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import threading

        while True:
            conn, _ = self.sock.accept()
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: object) -> None:
        import socket

        assert isinstance(conn, socket.socket)
        rng = random.Random(self.seed)
        with conn:
            try:
                conn.settimeout(30)
                head = b""
                while b"\r\n\r\n" not in head:
                    data = conn.recv(65536)
                    if not data:
                        return
                    head += data
                self._misbehave(conn, rng)
            except OSError:
                return  # the client hung up: what the bounds are for

    def _misbehave(self, conn: object, rng: random.Random) -> None:
        import socket

        assert isinstance(conn, socket.socket)
        ok = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        kind = self.behaviour
        if kind == "drip-headers":
            conn.sendall(ok)
            while True:
                time.sleep(0.05)
                conn.sendall(b"X-Drip: %d\r\n" % rng.randint(0, 9))
        elif kind == "continue-flood":
            while True:
                conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                time.sleep(0.005)
        elif kind == "endless-body":
            conn.sendall(ok + b"Transfer-Encoding: chunked\r\n\r\n")
            chunk = b"%x\r\n%s\r\n" % (1 << 20, b" " * (1 << 20))
            while True:
                conn.sendall(chunk)
        elif kind == "trickle-body":
            conn.sendall(ok + b"Content-Length: 1000000\r\n\r\n[")
            while True:
                time.sleep(0.05)
                conn.sendall(b" ")
        elif kind == "garbage":
            conn.sendall(rng.randbytes(rng.randint(1, 4096)))
        elif kind == "cut-mid-header":
            conn.sendall(ok[: rng.randint(1, len(ok))])
        elif kind == "huge-header":
            conn.sendall(ok + b"X-Big: " + b"a" * rng.choice([70_000, 1_000_000]) + b"\r\n\r\n")
        else:  # accepted-forever: a well-formed "202, ask again" on every request
            while True:
                conn.sendall(b"HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\n{}")
                more = conn.recv(65536)
                if not more:
                    return


_WIRE: _WireServer | None = None


def wire_case(rng: random.Random) -> Callable[[], object]:
    from changelog_tools.config import defaults
    from changelog_tools.github.adapter import make_github
    from changelog_tools.github.policy import RetryPolicy

    global _WIRE
    if _WIRE is None:
        _WIRE = _WireServer()
    server = _WIRE
    behaviour = rng.choice(_WireServer.BEHAVIOURS)
    seed = rng.randrange(2**32)
    env = {"GH_TOKEN": "fuzz-token-0123456789", "GITHUB_API_URL": server.base,
           "GITHUB_REPOSITORY": "o/r"}  # fmt: skip
    call = rng.choice(["get_pull", "list_issue_comments", "create_issue_comment"])
    policy = RetryPolicy(retries=rng.randint(0, 2), backoff=0.0, timeout=0.5)

    def run() -> object:
        server.behaviour, server.seed = behaviour, seed
        gh = make_github(
            defaults(Path(tempfile.gettempdir())), env=env, policy=policy, sleep=lambda _s: None
        )
        if call == "create_issue_comment":
            return gh.create_issue_comment(7, "body")
        return getattr(gh, call)(7)

    return run


def any_http_case(rng: random.Random) -> Callable[[], object]:
    """Mostly hostile JSON from a well-behaved server, a third of the time a hostile wire."""
    return wire_case(rng) if rng.random() < 1 / 3 else http_case(rng)


SURFACES: dict[str, Callable[[random.Random], Callable[[], object]]] = {
    "lint": lint_case,
    "signoff": signoff_case,
    "codeowners": codeowners_case,
    "config": config_case,
    "http": any_http_case,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--timeout", type=int, default=10)
    parser.add_argument("--only", choices=sorted(SURFACES))
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "fuzz-surfaces")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    failed_total = 0
    for name, make in SURFACES.items():
        if args.only and name != args.only:
            continue
        rng = random.Random(f"{args.seed}-{name}")
        counts = {"inputs": 0, "tool errors": 0, "tracebacks": 0, "hangs": 0}
        slowest = 0.0
        started = time.perf_counter()
        for index in range(args.inputs):
            case = make(rng)
            counts["inputs"] += 1
            begin = time.perf_counter()
            signal.alarm(args.timeout)
            try:
                case()
            except ChangelogToolsError:
                counts["tool errors"] += 1
            except Hang:
                counts["hangs"] += 1
                _save(args.out, name, index, "hang")
            except Exception:
                counts["tracebacks"] += 1
                _save(args.out, name, index, traceback.format_exc())
            finally:
                signal.alarm(0)
            slowest = max(slowest, time.perf_counter() - begin)
        failed = counts["tracebacks"] + counts["hangs"]
        failed_total += failed
        print(
            f"{name:<11} {json.dumps(counts)}  slowest {slowest:.2f} s  "
            f"total {time.perf_counter() - started:.1f} s"
        )
    return 1 if failed_total else 0


def _save(out: Path, surface: str, index: int, text: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{surface}-{index}.txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
