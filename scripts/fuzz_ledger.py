"""Fuzz the ledger commands with mutated changelogs: no crash, no hang, no lost entry.

Run: python scripts/fuzz_ledger.py [--inputs 1500] [--seed 15] [--budget 900] [--subprocess 40]

Each input is a base changelog (synthetic, or the repository's example) and a head: the base
with appended entries, mutated at the byte level (control characters, Unicode digits, YAML 1.1
words, quotes, runs of spaces and digits, entry starts, anchors, tags, truncation, swapped or
duplicated lines). Every input goes through `validate`, `check` (local, --main, --pr 5),
`canonicalize --pr 5` and `resolve` (file mode, against a main side with one more entry), by the
CLI's own entry point in this process (its exit-code mapping included) with a per-run alarm;
every ``--subprocess``-th input also runs through the installed console script. It counts:

* exit 70 (internal error) and any exit code outside 0/1/2;
* hangs (a run past ``--timeout`` seconds);
* lost entries: canonicalize or resolve exiting 0 with an output lacking an entry of its input
  (compared by config keys and description), or with a different number of entries;
* invalid writes: an output written on exit 0 that `validate` rejects.

Failing inputs are saved under ``--out`` for replay. The exit status is 1 when any count is
non-zero. The run is deterministic for a given seed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from changelog_tools.cli import run
from changelog_tools.ledger.document import parse_ledger
from changelog_tools.testing import synth

REPO = "example-org/bench"
PULL = f"https://github.com/{REPO}/pull/"
ROOT = Path(__file__).resolve().parent.parent

# Byte strings that have found bugs in YAML tools and in this one.
ATOMS = [
    b"\t", b"\r", b"\x0b", b"\x0c", b"\x00", b"\x1b", b"\xc2\x85", b"\xe2\x80\xa8", b"\xef\xbb\xbf",
    b"\xff", "²".encode(), "٥".encode(), "５".encode(), b"yes", b"no", b"on", b"off", b"y", b"n",
    b"=", b"<<", b"1_000", b"12:30", b"010", b"0o7", b"1e3", b"2024-01-31", b"~", b"null",
    b'"', b"'", b"#", b": ", b"- ", b"? ", b"&a ", b"*a", b"!!str ", b"---\n", b"...\n", b"|\n",
    b">-\n", b"{", b"}", b"[", b"]", b",", b"\n", b"\n\n", b"  \n", b" " * 200, b"9" * 5000,
    b"- config-keys:\n", b"  pr-link: XXX\n", b"  pr-link: " + PULL.encode() + b"5\n",
    PULL.encode() + b"XXX", b"\\", b"%", b"@", b"`", b"\xe2\x80\x8b",
]  # fmt: skip
SEPARATORS = [b"\t", b"\r", b"\x0b", b"\x0c", b" ", b"  ", b"\xc2\x85", b"\x00", b" \t"]
LINKS = [
    "XXX", f"{PULL}XXX", f"{PULL}5", f"{PULL}7", f"{PULL}²", f"{PULL}٥", f"{PULL}５", "TBD",
    f'"{PULL}XXX"', "'XXX'", f"{PULL}5 # note", f"{PULL}{'1' * 40}", f"{PULL}5{' ' * 3000}x",
    f"http://github.com/{REPO}/pull/5", "", "yes", f"{PULL}0", f"{PULL}-1", f"{PULL}1_0",
]  # fmt: skip


def base_ledger(rng: random.Random) -> bytes:
    example = ROOT / "changelog_tools/examples/inferencex-mini/perf-changelog.yaml"
    if rng.random() < 0.3 and example.is_file():
        return example.read_bytes()
    return synth.ledger_of_size(
        rng.randint(300, 4000), seed=rng.randrange(1 << 30), repository=REPO
    )


def new_entry(rng: random.Random, n: int) -> bytes:
    entry = synth.make_entry(rng, n, REPO)
    text = entry.render()
    link = rng.choice(LINKS)
    return text.replace(f"  pr-link: {entry.pr_link}\n".encode(), f"  pr-link: {link}\n".encode())


def mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice([0, 1, 1, 2, 3, 5])):
        if not out:
            break
        pos = rng.randrange(len(out) + 1)
        roll = rng.random()
        if roll < 0.45:
            out[pos:pos] = rng.choice(ATOMS)
        elif roll < 0.6:
            del out[pos : pos + rng.randint(1, 8)]
        elif roll < 0.7:
            out[pos : pos + 1] = bytes([rng.randrange(256)])
        elif roll < 0.8:
            lines = bytes(out).split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            out = bytearray(b"\n".join(lines))
        elif roll < 0.85:
            lines = bytes(out).split(b"\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            out = bytearray(b"\n".join(lines))
        elif roll < 0.92:
            # A separator line (empty or blank) that holds whitespace or a control character.
            lines = bytes(out).split(b"\n")
            blank = [k for k, line in enumerate(lines) if not line.strip()] or [0]
            lines[rng.choice(blank)] = rng.choice(SEPARATORS)
            out = bytearray(b"\n".join(lines))
        else:
            del out[pos:]
    return bytes(out)


def make_case(rng: random.Random) -> tuple[bytes, bytes]:
    base = base_ledger(rng)
    entries = [new_entry(rng, i) for i in range(rng.randint(1, 3))]
    head = base + b"".join(b"\n" + e for e in entries)
    split = len(base)
    # Mostly the appended part is mutated, sometimes the history too.
    mutated = head[:split] + mutate(head[split:], rng) if rng.random() < 0.8 else mutate(head, rng)
    return base, mutated


class Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


def cli(argv: list[str], timeout: int) -> int | str:
    """Exit code of one in-process run, or "hang"."""
    sink = io.StringIO()
    signal.alarm(timeout)
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            return run(argv)
    except Hang:
        return "hang"
    finally:
        signal.alarm(0)


def entries(data: bytes) -> list[tuple[Any, Any]] | None:
    ledger = parse_ledger(data, path="x")
    if ledger.loaded is None or not isinstance(ledger.loaded.value, list):
        return None
    return [
        (repr(e.get("config-keys")), repr(e.get("description"))) if isinstance(e, dict) else repr(e)
        for e in ledger.loaded.value
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--inputs", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--budget", type=float, default=900, help="stop after this many seconds")
    parser.add_argument("--timeout", type=int, default=20, help="seconds per run = a hang")
    parser.add_argument("--subprocess", type=int, default=40, help="every Nth input also via exe")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    signal.signal(signal.SIGALRM, _alarm)
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    counts = {"inputs": 0, "runs": 0, "exit-70": 0, "other-exit": 0, "hangs": 0,
              "lost-entries": 0, "invalid-writes": 0, "subprocess-runs": 0}  # fmt: skip
    exits: dict[int | str, int] = {}
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="fuzz-ledger-"))
    os.environ["XDG_CACHE_HOME"] = str(work / "cache")  # crash logs stay in the scratch dir
    (work / ".changelog-tools.yaml").write_text(f"repository: {REPO}\n")
    os.chdir(work)

    def fail(kind: str, label: str, base: bytes, head: bytes) -> None:
        counts[kind] += 1
        folder = args.out.resolve() / f"{kind}-{counts['inputs']:05d}-{label}"
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("base.yaml", "head.yaml", "main.yaml", "out.yaml"):
            if (work / name).is_file():
                shutil.copyfile(work / name, folder / name)

    try:
        for n in range(args.inputs):
            if time.monotonic() - started > args.budget:
                break
            base, head = make_case(rng)
            counts["inputs"] += 1
            (work / "base.yaml").write_bytes(base)
            (work / "head.yaml").write_bytes(head)
            # Main's side: the base plus one valid entry that landed since (PR 7).
            landed = synth.make_entry(rng, 99, REPO)
            main_side = (
                base
                + b"\n"
                + synth.SynthEntry(landed.config_keys, landed.description, f"{PULL}7").render()
            )
            (work / "main.yaml").write_bytes(main_side)
            shutil.copyfile(work / "head.yaml", work / "perf-changelog.yaml")
            check = ["check", "--base-file", "base.yaml", "--head-file", "head.yaml",
                     "--no-config-keys"]  # fmt: skip
            runs = {
                "validate": ["validate", "head.yaml"],
                "check": check,
                "check-main": [*check, "--main"],
                "check-pr": [*check, "--pr", "5"],
                "canonicalize": [
                    "canonicalize",
                    "--pr",
                    "5",
                    "--base-file",
                    "base.yaml",
                    "--fix-near-misses",
                    "perf-changelog.yaml",
                ],
                "resolve": [
                    "resolve",
                    "--base-file",
                    "base.yaml",
                    "--pr-file",
                    "head.yaml",
                    "--main-file",
                    "main.yaml",
                    "--pr",
                    "5",
                    "-o",
                    "out.yaml",
                ],
            }
            with contextlib.suppress(FileNotFoundError):
                (work / "out.yaml").unlink()
            for label, argv in runs.items():
                code = cli(argv, args.timeout)
                counts["runs"] += 1
                exits[code] = exits.get(code, 0) + 1
                if code == "hang":
                    fail("hangs", label, base, head)
                elif code == 70:
                    fail("exit-70", label, base, head)
                elif code not in (0, 1, 2):
                    fail("other-exit", label, base, head)
                if code != 0 or label not in ("canonicalize", "resolve"):
                    continue
                written = work / ("perf-changelog.yaml" if label == "canonicalize" else "out.yaml")
                result = written.read_bytes()
                if cli(["validate", str(written)], args.timeout) != 0:
                    fail("invalid-writes", label, base, head)
                before = entries(head)
                after = entries(result)
                if before is None or after is None:
                    continue
                if label == "resolve":
                    main_entries = entries(main_side) or []
                    missing = [e for e in main_entries + before if e not in after]
                    if missing:
                        fail("lost-entries", label, base, head)
                elif after != before:
                    fail("lost-entries", label, base, head)
            if exe and args.subprocess and n % args.subprocess == 0:
                for label in ("validate", "check", "canonicalize"):
                    shutil.copyfile(work / "head.yaml", work / "perf-changelog.yaml")
                    try:
                        proc = subprocess.run([exe, *runs[label]], cwd=work, capture_output=True,
                                              timeout=args.timeout * 3, check=False)  # fmt: skip
                        code = proc.returncode
                    except subprocess.TimeoutExpired:
                        code = -1
                    counts["subprocess-runs"] += 1
                    if code == -1:
                        fail("hangs", f"exe-{label}", base, head)
                    elif code == 70:
                        fail("exit-70", f"exe-{label}", base, head)
                    elif code not in (0, 1, 2):
                        fail("other-exit", f"exe-{label}", base, head)
    finally:
        os.chdir(ROOT)
        shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - started
    print(f"seed {args.seed}: {counts['inputs']} inputs, {counts['runs']} in-process runs, "
          f"{counts['subprocess-runs']} console-script runs in {elapsed:.0f} s")  # fmt: skip
    print("exit codes: " + ", ".join(f"{k}: {v}" for k, v in sorted(exits.items(), key=str)))
    for key in ("exit-70", "other-exit", "hangs", "lost-entries", "invalid-writes"):
        print(f"{key}: {counts[key]}")
    bad = sum(
        counts[k] for k in ("exit-70", "other-exit", "hangs", "lost-entries", "invalid-writes")
    )
    if bad:
        print(f"failing inputs saved under {args.out.resolve()}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
