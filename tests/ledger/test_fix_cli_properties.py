"""`fix` as a command, over generated base/head pairs shaped like the real ledger.

Each example writes a base and a head file, runs ``fix HEAD --base-file BASE`` through the
command line (in process, through click, as the console script does: a subprocess per
example would cost the suite minutes; the defects each have a console-script test in
test_fix_cli.py), then judges the file it left:

* a refusal, or "nothing to repair", leaves the file byte for byte;
* what `fix` writes starts with the base's bytes exactly, and keeps every line of every entry
  the change added (a near-miss pr-link line is the one it may rewrite);
* "OK" means `check` passes on the file as written, and `validate` too when the base did;
* a second run has nothing to repair.

Heads are built from the base the ways pull requests break it: entries inserted, appended,
reordered or duplicated; separators and final newlines of every width, whitespace-only lines;
CRLF; a byte-order mark; history trimmed or re-spaced; duplicate keys and anchors in a new
entry; near-miss pr-links. Entries are the bundled example repository's, renumbered.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import click
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from changelog_tools import cli
from changelog_tools.errors import ChangelogToolsError

# Examples per run: 80 in CI (a few seconds); a deeper search sets the variable.
EXAMPLES = int(os.environ.get("CHANGELOG_TOOLS_FIX_EXAMPLES", "80"))
REPOSITORY = "example-org/inferencex-mini"
PULL = f"https://github.com/{REPOSITORY}/pull/"
CONFIG = f"repository: {REPOSITORY}\n"

# The shapes of the bundled example's entries: {n} makes each one's meaning distinct.
SHAPES = (
    "- config-keys:\n    - llama70b-fp8-gpu-a-vllm\n    - llama70b-fp8-gpu-b-vllm\n"
    '  description:\n    - "Sweep {n} on both vendors"\n  pr-link: {link}\n',
    "- config-keys:\n    - mixtral-fp4-gpu-b-*\n  description:\n"
    '    - "Upgrade the image, step {n}"\n    - "Set the KV cache dtype to fp8"\n'
    "  pr-link: {link}\n",
    "- config-keys:\n    - llama70b-fp8-gpu-a-vllm\n  scenario-type:\n    - agentic-coding\n"
    '  description:\n    - "Agentic coding, take {n}"\n  pr-link: {link}\n',
    "- config-keys:\n    - mixtral-fp4-gpu-b-trt\n  evals-only: true\n  description:\n"
    '    - "Re-run evals {n}"\n  pr-link: {link}\n',
)
# What a new entry's pr-link may be: canonical, placeholders, and near misses of both.
LINKS = (
    "XXX",
    f"{PULL}XXX",
    f"{PULL}{{pr}}",
    "TBD",
    f"http://github.com/{REPOSITORY}/pull/{{pr}}",
    f"{PULL}{{pr}}/",
    "https://github.com/Example-Org/inferencex-mini/pull/{pr}",
    f"{PULL}77",  # another pull request: left for a human
)
SEPARATORS = (b"\n", b"\n\n", b"", b"  \n", b"\n\n\n", b"\n \n")
TAILS = (b"", b"\n", b"\n\n")


def shaped(shape: int, n: int, link: str) -> bytes:
    return SHAPES[shape % len(SHAPES)].format(n=n, link=link).encode()


@dataclass(frozen=True)
class Case:
    base: bytes
    head: bytes
    pr: int | None
    new: tuple[bytes, ...]  # the entries the change added, as written in the head


@st.composite
def cases(draw: st.DrawFn) -> Case:
    n_base = draw(st.integers(1, 5))
    shapes = draw(st.lists(st.integers(0, 3), min_size=n_base, max_size=n_base))
    old = [shaped(s, i, f"{PULL}{i + 1}") for i, s in enumerate(shapes)]
    inner = [draw(st.sampled_from((b"\n", b"\n", b"\n\n", b"  \n"))) for _ in old[1:]]
    base = old[0] + b"".join(sep + e for sep, e in zip(inner, old[1:], strict=True))
    base += draw(st.sampled_from(TAILS))  # the base's own empty lines at its end
    if draw(st.integers(0, 14)) == 0:
        base = b"\xef\xbb\xbf" + base  # a byte-order mark on the base
    pr = draw(st.one_of(st.none(), st.integers(100, 105)))
    number = pr or 100
    new: list[bytes] = []
    for k in range(draw(st.sampled_from((0, 1, 1, 1, 2, 2, 3)))):
        link = draw(st.sampled_from(LINKS)).replace("{pr}", str(number))
        block = shaped(draw(st.integers(0, 3)), 50 + k, link)
        variant = draw(st.integers(0, 14))
        if variant == 0:  # a duplicate key in the new entry
            block = block.replace(b"  description:", b"  description: []\n  description:", 1)
        elif variant == 1:  # an anchor and an alias
            block = block.replace(b"  description:", b"  description: &d", 1)
            block = block.rstrip(b"\n") + b"\n  extra: *d\n"
        elif variant == 2:  # CRLF line endings in the new entry
            block = block.replace(b"\n", b"\r\n")
        elif variant == 3:  # a copy of an existing entry's meaning
            block = old[draw(st.integers(0, n_base - 1))]
        new.append(block)
    edit = draw(st.integers(0, 14))
    head = base
    if edit == 0:  # trailing spaces on a history line (meaning kept)
        head = base.replace(b'"\n  pr-link', b'"   \n  pr-link', 1)
    # Where the new entries go: appended (with any separator), or inserted before an entry.
    for block in new:
        where = draw(st.integers(0, n_base + 1))
        if where >= n_base:
            sep = draw(st.sampled_from(SEPARATORS))
            head = head.rstrip(b"\n") + b"\n" + sep + block if head else block
        else:
            start = _entry_start(head, where)
            head = head[:start] + block + b"\n" + head[start:]
    if edit == 1:  # the base's empty lines at its end trimmed
        if new and head.startswith(base):
            head = base.rstrip(b"\n") + b"\n" + head[len(base) :].lstrip(b"\n")
    elif edit == 2 and n_base > 1:  # two existing entries swapped
        a, b = _entry_start(head, 0), _entry_start(head, 1)
        head = head[b:].rstrip(b"\n") + b"\n\n" + head[a:b].rstrip(b"\n") + b"\n"
    elif edit == 3:  # the whole file in CRLF
        head = head.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    elif edit == 4:  # a byte-order mark added or removed
        head = head[3:] if head.startswith(b"\xef\xbb\xbf") else b"\xef\xbb\xbf" + head
    tail = draw(st.sampled_from(TAILS))
    head = head.rstrip(b"\n") + b"\n" + tail if head.strip() else head
    return Case(base, head, pr, tuple(new))


def _entry_start(raw: bytes, index: int) -> int:
    starts = [m.start() for m in re.finditer(rb"(?m)^(?:\xef\xbb\xbf)?- config-keys:", raw)]
    return starts[min(index, len(starts) - 1)] if starts else 0


# -- running the commands ----------------------------------------------------------------------


def _runner() -> CliRunner:
    """A runner whose ``stdout`` is standard output alone: click before 8.2 mixes standard error
    into it unless told not to, and 8.2 keeps them apart and has no such parameter."""
    import inspect

    if "mix_stderr" in inspect.signature(CliRunner.__init__).parameters:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    return CliRunner()


def run(*args: str) -> tuple[int, str]:
    """The command line in process: the exit status `changelog-tools` would have, and stdout."""
    result = _runner().invoke(cli.cli, list(args), standalone_mode=False)
    exc = result.exception
    if isinstance(exc, ChangelogToolsError):
        return int(exc.exit_code), result.stdout
    if isinstance(exc, click.ClickException):
        return 2, result.stdout
    if exc is not None and not isinstance(exc, SystemExit):
        raise exc
    code = result.return_value if isinstance(result.return_value, int) else result.exit_code
    return code, result.stdout


def _pr_args(pr: int | None) -> list[str]:
    return ["--pr", str(pr)] if pr is not None else []


def _lines(raw: bytes) -> Counter[bytes]:
    """Non-blank lines, without their line ending (CRLF or LF) or trailing blanks, counted.

    Trailing blanks do not count: when a new entry copies an existing one's meaning and the
    history was re-spaced too, which copy is "the new one" cannot be told, and `fix` keeps
    the head's other copy (the same line, but for trailing spaces).
    """
    return Counter(
        line.rstrip(b" \r") for line in raw.split(b"\n") if line.strip(b" \r\xef\xbb\xbf")
    )


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=cases())
def test_fix_never_loses_a_byte_and_its_ok_is_checks(case: Case) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".changelog-tools.yaml").write_text(CONFIG)
        config = str(root / ".changelog-tools.yaml")
        base, head = root / "base.yaml", root / "perf-changelog.yaml"
        base.write_bytes(case.base)
        head.write_bytes(case.head)
        fix = ("fix", str(head), "--base-file", str(base), "--config", config)
        code, out = run(*fix, *_pr_args(case.pr), "--format", "json")
        doc = json.loads(out)
        written = head.read_bytes()
        assert code in (0, 1), out
        refused = any(d["code"] in ("CL506", "CL520") for d in doc["diagnostics"])
        event(
            f"fix: exit {code}, {'written' if doc['written'] else 'refused' if refused else 'not written'}"
        )
        event("repairs " + " ".join(sorted({r["code"] for r in doc["repairs"]})))
        if not doc["written"]:
            # a refusal, "nothing to repair" or problems left: the file as it was
            assert written == case.head
            return
        # the base's bytes, exactly, first
        assert written.startswith(case.base)
        # every line of every entry the change added (a pr-link line may be made canonical)
        added = Counter[bytes]()
        for block in case.new:
            added += Counter(
                line for line in _lines(block).elements() if not line.startswith(b"  pr-link:")
            )
        assert not (_lines(case.base) + added) - _lines(written), "a line was dropped"
        if code == 0:
            # "OK" is check's verdict on the file as written
            check = ("check", "--base-file", str(base), "--head-file", str(head))
            checked, report = run(*check, "--no-config-keys", "--config", config,
                                  *_pr_args(case.pr))  # fmt: skip
            assert checked == 0, report
            if run("validate", str(base), "--config", config)[0] == 0:
                assert run("validate", str(head), "--config", config)[0] == 0
        # idempotent: nothing more to repair
        _, out2 = run(*fix, *_pr_args(case.pr), "--format", "json")
        assert json.loads(out2)["written"] is False, out2
        assert head.read_bytes() == written
