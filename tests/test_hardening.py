"""Issue 15's hardening classes, each pinned through the installed CLI (exit code and line), with
hypothesis generating the digit and YAML 1.1 classes.

Unicode digits, huge integers, YAML 1.1 vs 1.2, quoting kept by canonicalize, amplification caps,
inputs and outputs that are not regular files, linear line patterns, Ctrl-C during start-up and
the workflow that validates main.
"""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from changelog_tools import yamlload
from changelog_tools.commands._common import PR_NUMBER
from changelog_tools.github.reuse import command_runs
from changelog_tools.ledger.document import PR_LINK_LINE_RE, Block, pr_link_lines
from changelog_tools.ledger.links import LinkKind, classify
from changelog_tools.numbers import parse_number
from tests.checkdata import BASE, CONFIG, PULL, REPO, appended, entry
from tests.conftest import REPO_ROOT, run_cli

KEY = "alpha-fp8-gpu-a-vllm"
# An entry appended to BASE starts on line 13; its description item is line 16, pr-link 17.
DESCRIPTION_LINE = 16
LINK_LINE = 17
NON_ASCII_DIGITS = ["²", "٥", "５", "߃", "১", "๓", "𝟓", "¹²"]


def _no_crash(proc: subprocess.CompletedProcess[str]) -> None:
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text and "internal error" not in text, text
    assert proc.returncode != 70


def _project(tmp_path: Path, head: bytes, base: bytes = BASE) -> Path:
    (tmp_path / ".changelog-tools.yaml").write_text(CONFIG)
    (tmp_path / "base.yaml").write_bytes(base)
    (tmp_path / "head.yaml").write_bytes(head)
    return tmp_path


def _check(tmp_path: Path, *mode: str) -> subprocess.CompletedProcess[str]:
    proc = run_cli(
        "check", "--base-file", "base.yaml", "--head-file", "head.yaml", "--no-config-keys",
        "--format", "json", *mode, cwd=tmp_path,
    )  # fmt: skip
    _no_crash(proc)
    return proc


def _found(proc: subprocess.CompletedProcess[str]) -> list[tuple[str, int | None]]:
    return [(d["code"], d["line"]) for d in json.loads(proc.stdout)["diagnostics"]]


def _errors(proc: subprocess.CompletedProcess[str]) -> list[tuple[str, int | None]]:
    return [
        (d["code"], d["line"])
        for d in json.loads(proc.stdout)["diagnostics"]
        if d["severity"] == "error"
    ]


# -- Unicode digits ------------------------------------------------------------------------------


@pytest.mark.parametrize("digit", ["²", "٥", "５"])
def test_a_pr_link_with_a_unicode_digit_is_a_near_miss_on_main_not_pr_5_nor_a_crash(
    tmp_path: Path, digit: str
) -> None:
    _project(tmp_path, appended(entry(KEY, link=f"{PULL}{digit}")))
    proc = _check(tmp_path, "--main")
    assert proc.returncode == 1
    assert _errors(proc) == [("CL203", LINK_LINE)]
    assert "is not a pull-request number" in proc.stdout


def test_canonicalize_and_resolve_refuse_a_unicode_digit_link_instead_of_exit_70(
    tmp_path: Path,
) -> None:
    _project(tmp_path, appended(entry(KEY, link=f"{PULL}²")))
    (tmp_path / "perf-changelog.yaml").write_bytes(appended(entry(KEY, link=f"{PULL}²")))
    proc = run_cli(
        "canonicalize", "--pr", "5", "--base-file", "base.yaml", "perf-changelog.yaml",
        cwd=tmp_path,
    )  # fmt: skip
    _no_crash(proc)
    assert proc.returncode == 1
    assert f"perf-changelog.yaml:{LINK_LINE}:" in proc.stdout + proc.stderr
    assert (tmp_path / "perf-changelog.yaml").read_bytes() == appended(entry(KEY, link=f"{PULL}²"))
    (tmp_path / "main.yaml").write_bytes(appended(entry("beta-fp4-gpu-b-trt", link=f"{PULL}7")))
    proc = run_cli(
        "resolve", "--base-file", "base.yaml", "--pr-file", "head.yaml", "--main-file",
        "main.yaml", "--pr", "5", "-o", "out.yaml", cwd=tmp_path,
    )  # fmt: skip
    _no_crash(proc)
    assert proc.returncode == 1
    assert not (tmp_path / "out.yaml").exists()


@pytest.mark.parametrize("value", ["٥", "５", "1_0", " 5", "0"])
def test_pr_options_take_ascii_digits_only(tmp_path: Path, value: str) -> None:
    _project(tmp_path, appended(entry(KEY)))
    proc = run_cli("check", "--pr", value, "--base-file", "base.yaml", "--head-file", "head.yaml",
                   cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2
    assert "is not a pull-request number (ASCII digits 0-9, at least 1)" in proc.stderr


def test_a_reuse_command_with_a_unicode_run_id_is_no_use_of_the_command() -> None:
    assert command_runs("/reuse-sweep-run ٥\n/reuse-sweep-run 12\n", "/reuse-sweep-run") == [12]
    assert command_runs("/reuse-sweep-run ５", "/reuse-sweep-run") == []


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.characters(whitelist_categories=("Nd", "No", "Nl")), min_size=1, max_size=6
    ).filter(lambda s: not s.isascii())
)
def test_no_non_ascii_digit_string_is_ever_a_pr_number(digits: str) -> None:
    found = classify(f"{PULL}{digits}", repository=REPO, placeholders=("XXX",))
    assert found.kind is LinkKind.NEAR_MISS
    assert found.pr is None
    assert parse_number(digits) is None
    with pytest.raises(Exception, match="not a pull-request number"):
        PR_NUMBER.convert(digits, None, None)
    assert command_runs(f"/reuse-sweep-run {digits}", "/reuse-sweep-run") == []


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=10**18))
def test_every_ascii_pr_number_reads_back_as_itself(number: int) -> None:
    found = classify(f"{PULL}{number}", repository=REPO, placeholders=("XXX",))
    assert (found.kind, found.pr) == (LinkKind.CANONICAL, number)
    assert PR_NUMBER.convert(str(number), None, None) == number
    assert command_runs(f"/reuse-sweep-run {number}", "/reuse-sweep-run") == [number]


# -- huge integers -------------------------------------------------------------------------------


@pytest.mark.parametrize("digits", [1001, 4301, 100_000])
def test_a_huge_plain_integer_is_one_error_at_its_line_not_exit_70(
    tmp_path: Path, digits: int
) -> None:
    number = "7" * digits
    head = appended(entry(KEY, description="x").replace(b'    - "x"', f"    - {number}".encode()))
    _project(tmp_path, head)
    (tmp_path / "perf-changelog.yaml").write_bytes(head)
    proc = run_cli("validate", "--format", "json", "perf-changelog.yaml", cwd=tmp_path)
    _no_crash(proc)
    assert proc.returncode == 1
    assert _errors(proc) == [("CL031", DESCRIPTION_LINE)]
    proc = _check(tmp_path)
    assert proc.returncode == 1
    assert ("CL031", DESCRIPTION_LINE) in _errors(proc)
    quoted = head.replace(number.encode(), f'"{number}"'.encode())
    (tmp_path / "perf-changelog.yaml").write_bytes(quoted)
    assert run_cli("validate", "perf-changelog.yaml", cwd=tmp_path).returncode == 0


# -- YAML 1.1 vs 1.2 -----------------------------------------------------------------------------

# Plain scalars with their YAML 1.1 reading (PyYAML's), where YAML 1.2 reads another value.
YAML11_DIFFERENT = [
    "yes", "No", "ON", "off", "y", "N", "=", "<<", "1_000", "12:30", "1:30.5", "010", "-017",
    "0o17", "0b101", "-0x1F", "1e3", "1.5e3", "-.5", "08", "2024-01-31", "2001-12-14 21:59:43",
]  # fmt: skip
YAML11_SAME = ["hello", "0", "7", "007", "12", "-3", "1.5", ".5", "0x1F", "true", "null", "~",
               "1.0e+3", ".inf", "-.inf", ".nan", "yEs", "onion", "2024-1-1x", "v1.2.3"]  # fmt: skip


def _one(text: str) -> yamlload.Loaded:
    return yamlload.load(f"- {text}\n")


@pytest.mark.parametrize("text", YAML11_DIFFERENT)
def test_a_scalar_yaml_1_1_reads_differently_is_flagged(text: str) -> None:
    assert [code for code, *_ in _one(text).notes] == ["CL030"]
    assert _one(f'"{text}"').notes == []  # the quoted form passes


@pytest.mark.parametrize("text", YAML11_SAME)
def test_a_scalar_both_versions_read_alike_is_not_flagged(text: str) -> None:
    assert _one(text).notes == []


def test_yaml_1_1_scalars_fail_validate_and_check_at_their_line_and_pass_quoted(
    tmp_path: Path,
) -> None:
    def head(items: list[str]) -> bytes:
        body = "".join(f"    - {i}\n" for i in items)
        return appended(entry(KEY).replace(b'    - "A change"\n', body.encode()))

    plain = head(["yes", "=", "1_000", "12:30"])
    _project(tmp_path, plain)
    (tmp_path / "perf-changelog.yaml").write_bytes(plain)
    proc = run_cli("validate", "--format", "json", "perf-changelog.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert _errors(proc) == [("CL030", DESCRIPTION_LINE + k) for k in range(4)]
    hints = [d["hint"] for d in json.loads(proc.stdout)["diagnostics"]]
    assert hints[0] == 'quote it, `"yes"`, so that both read the same string'
    proc = _check(tmp_path)
    assert proc.returncode == 1
    assert [f for f in _errors(proc) if f[0] == "CL030"] == [
        ("CL030", DESCRIPTION_LINE + k) for k in range(4)
    ]
    quoted = head(['"yes"', '"="', "'1_000'", '"12:30"'])
    _project(tmp_path, quoted)
    (tmp_path / "perf-changelog.yaml").write_bytes(quoted)
    assert run_cli("validate", "perf-changelog.yaml", cwd=tmp_path).returncode == 0
    assert _check(tmp_path).returncode == 0


# Scalars built from the pieces YAML 1.1 and 1.2 resolve differently.
_PIECES = ["0", "1", "7", "8", "9", "_", ":", ".", "e", "E", "+", "-", "x", "o", "b", "a", "f"]
_WORDS = ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "On", "OFF", "true", "null", "=",
          "<<", "~", ".inf", ".nan", "2024-01-31", "1:30", "0o", "0x", "0b"]  # fmt: skip
yaml11_scalars = st.one_of(
    st.sampled_from(_WORDS),
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8).map("".join),
    st.tuples(st.sampled_from(_WORDS), st.lists(st.sampled_from(_PIECES), max_size=3)).map(
        lambda t: t[0] + "".join(t[1])
    ),
)


def _plain_ours(text: str) -> yamlload.Loaded | None:
    try:
        loaded = yamlload.load(f"- {text}\n")
    except yamlload.YamlProblem:
        return None
    # Only single plain scalars ("- -1" is a nested list, "- a: b" a mapping).
    if not (isinstance(loaded.value, list) and len(loaded.value) == 1):
        return None
    if isinstance(loaded.value[0], (list, dict)):
        return None
    return loaded


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(yaml11_scalars)
def test_the_yaml_1_1_rule_agrees_with_pyyaml(text: str) -> None:
    """Compared with PyYAML's real YAML 1.1 resolver: every scalar it reads differently from us
    is flagged, and every flagged one it reads differently (except y/n, which PyYAML leaves out
    of the 1.1 booleans and other 1.1 readers do not)."""
    yaml = pytest.importorskip("yaml", reason="PyYAML is a test extra: pip install -e '.[test]'")
    ours = _plain_ours(text)
    if ours is None:
        return
    ours_value = ours.value[0]
    try:
        theirs: Any = yaml.safe_load(f"- {text}\n")[0]
        same = type(theirs) is type(ours_value) and (
            theirs == ours_value or (theirs != theirs and ours_value != ours_value)  # NaN
        )
    except (yaml.YAMLError, ValueError, TypeError):
        same = False  # `=`, `<<` and impossible dates: PyYAML cannot read them at all
    if ours_value == "" and theirs is None:
        same = True  # "no value" either way; the schema rules judge an empty field
    flagged = [c for c, *_ in ours.notes if c == "CL030"] != []
    if text in ("y", "Y", "n", "N"):
        assert flagged
        return
    assert flagged == (not same), (text, ours_value, theirs if "theirs" in dir() else None)


# -- quoting kept by canonicalize ----------------------------------------------------------------


@pytest.mark.parametrize("quote", ['"', "'"])
def test_canonicalize_keeps_the_quotes_around_a_placeholder(tmp_path: Path, quote: str) -> None:
    head = appended(entry(KEY, link=f"{quote}XXX{quote}  # filled at merge"))
    _project(tmp_path, head)
    (tmp_path / "perf-changelog.yaml").write_bytes(head)
    proc = run_cli(
        "canonicalize", "--pr", "5", "--base-file", "base.yaml", "perf-changelog.yaml",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "perf-changelog.yaml").read_bytes() == appended(
        entry(KEY, link=f"{quote}{PULL}5{quote}  # filled at merge")
    )


# -- amplification -------------------------------------------------------------------------------


def test_a_run_of_whitespace_only_lines_is_one_finding(tmp_path: Path) -> None:
    head = appended(entry(KEY).replace(b"  description:", b"  \n" * 5000 + b"  description:"))
    _project(tmp_path, head)
    proc = _check(tmp_path)
    assert proc.returncode == 0  # a warning
    doc = json.loads(proc.stdout)
    assert [(d["code"], d["line"], d["message"]) for d in doc["diagnostics"]] == [
        ("CL111", 15, "5,000 whitespace-only lines inside a new entry (lines 15-5014)")
    ]


def test_findings_past_the_cap_are_counted_not_printed(tmp_path: Path) -> None:
    typo = "  evals_onyl: true"
    head = appended(*(entry(f"k{i}-x", extra=typo) for i in range(150)))
    _project(tmp_path, head)
    proc = run_cli("check", "--base-file", "base.yaml", "--head-file", "head.yaml",
                   "--no-config-keys", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert sum(" CL050 " in line for line in lines) == 100
    # The first entry's typo is on line 15 (after its config key).
    assert lines[0] == "head.yaml:15:3: CL050 entry 3 has unknown field `evals_onyl`"
    assert "CL050: 50 more unknown-field findings not shown (the first 100 are)" in lines
    assert lines[-1].endswith(": 150 problems (150 errors, 0 warnings)")
    json_proc = _check(tmp_path)
    doc = json.loads(json_proc.stdout)
    assert doc["hidden"] == {"CL050": {"errors": 50, "warnings": 0}}
    assert doc["summary"]["errors"] == 150


def test_schema_errors_are_itemized_for_the_first_200_invalid_entries_only(
    tmp_path: Path,
) -> None:
    head = BASE + b"\n" + b"- config-keys:\n" * 250
    (tmp_path / "perf-changelog.yaml").write_bytes(head)
    proc = run_cli("validate", "--format", "json", "perf-changelog.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    rest = [d for d in doc["diagnostics"] if d["code"] == "CL059"]
    # Entries 3-202 are itemized; entry 203 (line 213) is the first only counted.
    assert [(d["line"], d["message"]) for d in rest] == [
        (213, "50 more entries (the first is entry 203) do not match the entry schema; only "
              "the first 200 invalid entries are itemized")
    ]  # fmt: skip


# -- inputs and outputs that are not regular files -----------------------------------------------


def test_an_endless_device_is_stopped_at_the_size_limit(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("max-file-size: 1000\n")
    proc = run_cli("validate", "/dev/zero", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == (
        "/dev/zero: CL006 input is more than 1,000 bytes; the limit is 1,000 (`max-file-size`)"
    )


def test_a_pipe_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("max-file-size: 1000\n")
    proc = run_cli("validate", "/dev/stdin", cwd=tmp_path, input=(BASE * 20).decode())
    assert proc.returncode == 1
    assert "CL006 input is more than 1,000 bytes" in proc.stdout
    small = run_cli("validate", "/dev/stdin", cwd=tmp_path, input=BASE.decode())
    assert small.returncode == 0, small.stdout


def _three_sides(tmp_path: Path) -> list[str]:
    _project(tmp_path, appended(entry(KEY)))
    (tmp_path / "main.yaml").write_bytes(appended(entry("beta-fp4-gpu-b-trt", link=f"{PULL}5")))
    return ["resolve", "--base-file", "base.yaml", "--pr-file", "head.yaml",
            "--main-file", "main.yaml"]  # fmt: skip


def test_resolve_refuses_to_replace_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    proc = run_cli(*_three_sides(tmp_path), "-o", str(fifo), cwd=tmp_path)
    _no_crash(proc)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"error: {fifo}: is not a regular file (a pipe, device or socket); write to a regular "
        "file, or to `-` for stdout where the command offers it"
    ]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out")) == []


def test_a_symlinked_changelog_is_written_through_to_its_target(tmp_path: Path) -> None:
    head = appended(entry(KEY))
    _project(tmp_path, head)
    real = tmp_path / "data" / "perf-changelog.yaml"
    real.parent.mkdir()
    real.write_bytes(head)
    real.chmod(0o640)
    (tmp_path / "perf-changelog.yaml").symlink_to("data/perf-changelog.yaml")
    proc = run_cli("canonicalize", "--pr", "5", "--base-file", "base.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    link = tmp_path / "perf-changelog.yaml"
    assert link.is_symlink() and os.readlink(link) == "data/perf-changelog.yaml"
    assert real.read_bytes() == appended(entry(KEY, link=f"{PULL}5"))
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_new_output_gets_the_umask_mode(tmp_path: Path, umask: int, mode: int) -> None:
    args = _three_sides(tmp_path)
    exe = Path(sys.executable).parent / "changelog-tools"
    proc = subprocess.run(
        ["sh", "-c", f'umask {umask:03o}; exec "$0" "$@"', str(exe), *args, "-o", "new.yaml"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE((tmp_path / "new.yaml").stat().st_mode) == mode


# -- linear line patterns ------------------------------------------------------------------------


def test_a_history_link_corrected_to_a_long_run_of_spaces_is_judged_at_its_line(
    tmp_path: Path,
) -> None:
    # Quadratic before: 100,000 spaces took `check` 47 s. The test asserts the outcome only.
    base = BASE.replace(f"{PULL}2".encode(), b"XXX")
    head = BASE.replace(f"{PULL}2".encode(), f"{PULL}2{' ' * 100_000}x".encode())
    _project(tmp_path, head, base=base)
    proc = _check(tmp_path, "--pr", "2")
    assert proc.returncode == 1
    assert _errors(proc) == [("CL205", 11)]  # a bad correction, at the history line


_LAZY_REFERENCE = re.compile(rb"^  pr-link:[ ]*(?P<value>[^\n]*?)[ ]*$", re.MULTILINE)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([b" ", b"x", b"#", b"\n", b"  pr-link:", b"'", b"\t"]),
                max_size=30).map(b"".join))  # fmt: skip
def test_the_greedy_pr_link_pattern_finds_what_the_lazy_one_did(body: bytes) -> None:
    raw = b"- config-keys:\n" + body + b"\n"
    block = Block(index=0, start=0, content_end=len(raw), end=len(raw), line=1, data=None)
    got = [(x.line_start, x.value_start, x.value_end) for x in pr_link_lines(raw, block)]
    want = [(m.start(), m.start("value"), m.end("value")) for m in _LAZY_REFERENCE.finditer(raw)]
    assert got == want


# A structural bound on backtracking, instead of timing: in no pattern may an unbounded repeat be
# followed (past only optional items) by another unbounded repeat that can start with one of its
# characters. That pair is what makes a backtracking engine try every split of a long run
# (quadratic, or worse when nested); without it the work per start position is linear.
try:
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as _c
    import sre_parse as _p

_ALL = frozenset(range(256))
_CATEGORIES = {
    _c.CATEGORY_DIGIT: frozenset(b"0123456789"),
    _c.CATEGORY_SPACE: frozenset(b" \t\n\r\f\v"),
    _c.CATEGORY_WORD: frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"),
}


def _class_chars(items: list[tuple[Any, Any]]) -> frozenset[int]:
    out: set[int] = set()
    negate = False
    for op, av in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            out.add(av)
        elif op is _c.RANGE:
            out.update(range(av[0], min(av[1], 255) + 1))
        elif op is _c.CATEGORY:
            name = str(av)
            base = next(
                (v for k, v in _CATEGORIES.items() if str(k) in name.replace("NOT_", "")), None
            )
            chars = base or _ALL
            out.update(_ALL - chars if "NOT_" in name else chars)
        else:
            out.update(_ALL)
    return frozenset(_ALL - out) if negate else frozenset(out)


def _chars(op: Any, av: Any) -> frozenset[int]:
    """Every character one item can consume (over-approximated for the rare cases)."""
    if op is _c.LITERAL:
        return frozenset({av}) if av < 256 else frozenset()
    if op is _c.NOT_LITERAL or op is _c.ANY:
        return _ALL
    if op is _c.IN:
        return _class_chars(av)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        return _seq_chars(av[2])
    if op is _c.SUBPATTERN:
        return _seq_chars(av[-1])
    if op is _c.BRANCH:
        return frozenset().union(*(_seq_chars(b) for b in av[1]))
    if op is _c.CATEGORY:
        return _class_chars([(op, av)])
    return frozenset()  # anchors and lookarounds consume nothing


def _seq_chars(seq: Any) -> frozenset[int]:
    return frozenset().union(*(_chars(op, av) for op, av in seq))


def _nullable(op: Any, av: Any) -> bool:
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return True
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        return bool(av[0] == 0) or all(_nullable(o, a) for o, a in av[2])
    if op is _c.SUBPATTERN:
        return all(_nullable(o, a) for o, a in av[-1])
    if op is _c.BRANCH:
        return any(all(_nullable(o, a) for o, a in b) for b in av[1])
    return False


def _leading_unbounded(seq: Any) -> frozenset[int]:
    """First characters of the unbounded repeats the sequence can start with."""
    out: set[int] = set()
    for op, av in seq:
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[1] == _c.MAXREPEAT:
            out |= _first(av[2])
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            out |= _leading_unbounded(av[2])
        elif op is _c.SUBPATTERN:
            out |= _leading_unbounded(av[-1])
        elif op is _c.BRANCH:
            for b in av[1]:
                out |= _leading_unbounded(b)
        if not _nullable(op, av):
            break
    return frozenset(out)


def _first(seq: Any) -> frozenset[int]:
    out: set[int] = set()
    for op, av in seq:
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            out |= _first(av[2])
        elif op is _c.SUBPATTERN:
            out |= _first(av[-1])
        elif op is _c.BRANCH:
            for b in av[1]:
                out |= _first(b)
        else:
            out |= _chars(op, av)
        if not _nullable(op, av):
            break
    return frozenset(out)


def _always_matches(op: Any, av: Any) -> bool:
    """True when the item cannot fail wherever it is tried (it may match nothing)."""
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        return bool(av[0] == 0)
    if op is _c.SUBPATTERN:
        return all(_always_matches(o, a) for o, a in av[-1])
    if op is _c.BRANCH:
        return any(all(_always_matches(o, a) for o, a in b) for b in av[1])
    return False


def _trailing_unbounded(op: Any, av: Any) -> frozenset[int]:
    """Characters of the unbounded repeats the item can end with."""
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[1] == _c.MAXREPEAT:
        return _seq_chars(av[2])
    children: list[Any] = []
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        children = [av[2]]
    elif op is _c.SUBPATTERN:
        children = [av[-1]]
    elif op is _c.BRANCH:
        children = list(av[1])
    out: set[int] = set()
    for child in children:
        for o, a in reversed(list(child)):
            out |= _trailing_unbounded(o, a)
            if not _nullable(o, a):
                break
    return frozenset(out)


def overlapping_repeats(seq: Any, tail_can_fail: bool = True) -> list[str]:
    """Pairs of unbounded repeats that can split one run of characters between them, followed
    by something that can fail (so the engine would try every split)."""
    found: list[str] = []
    items = list(seq)
    for i, (op, av) in enumerate(items):
        mine = _trailing_unbounded(op, av)
        if mine:
            for j in range(i + 1, len(items)):
                op2, av2 = items[j]
                after_fails = tail_can_fail or not all(
                    _always_matches(o, a) for o, a in items[j + 1 :]
                )
                if after_fails and _leading_unbounded([(op2, av2)]) & mine:
                    found.append(f"item #{i} is followed by an overlapping unbounded repeat")
                if not _nullable(op2, av2):
                    break
        rest_fails = tail_can_fail or not all(_always_matches(o, a) for o, a in items[i + 1 :])
        children: list[Any] = []
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            children = [av[2]]
        elif op is _c.SUBPATTERN:
            children = [av[-1]]
        elif op is _c.BRANCH:
            children = list(av[1])
        for child in children:
            found += overlapping_repeats(child, rest_fails)
    return found


def _module_patterns() -> list[tuple[str, re.Pattern[Any]]]:
    import importlib
    import pkgutil

    import changelog_tools

    out = []
    for info in pkgutil.walk_packages(changelog_tools.__path__, "changelog_tools."):
        if info.name.startswith("changelog_tools.testing"):
            continue  # the fake GitHub's routes are not on any user's path
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                out.append((f"{info.name}.{name}", value))
    return out


def test_the_structural_check_catches_the_patterns_that_were_quadratic() -> None:
    for old in (rb"^  pr-link:[ ]*(?P<value>[^\n]*?)[ ]*$", r"(?P<num>[^/?#\s]*)(?P<rest>.*)$",
                r"a[ ]*(?:[ ]+b)?x", r"\s+\s*x"):  # fmt: skip
        assert overlapping_repeats(_p.parse(old), False), old
    for fine in (rb"^  pr-link:(?P<value>[^\n]*)", r"remote:[ \t]*([^\n]*)", r"[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
                 r"[A-Za-z0-9_.\-]*[ ]*:[ ]*(?:#[^\n]*)?\Z", r"[-+]?[0-9]+\Z"):  # fmt: skip
        assert not overlapping_repeats(_p.parse(fine), False), fine


def test_no_pattern_in_the_package_has_overlapping_unbounded_repeats() -> None:
    patterns = _module_patterns()
    assert any(name.endswith("PR_LINK_LINE_RE") for name, _ in patterns)
    assert PR_LINK_LINE_RE.pattern == rb"^  pr-link:(?P<value>[^\n]*)"
    bad = {
        name: found
        for name, pattern in patterns
        if (found := overlapping_repeats(_p.parse(pattern.pattern, pattern.flags), False))
    }
    assert bad == {}


# -- Ctrl-C during start-up ----------------------------------------------------------------------


def test_ctrl_c_while_the_cli_loads_exits_130_without_a_traceback(tmp_path: Path) -> None:
    # A real SIGINT, delivered while the CLI's own imports run (a module they import sends it).
    (tmp_path / "click.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGINT)\n")
    proc = run_cli("--version", env={"PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 130
    assert proc.stderr == "interrupted\n"
    assert proc.stdout == ""


def test_ctrl_c_in_a_running_command_exits_130(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("max-file-size: 100000000\n")
    exe = Path(sys.executable).parent / "changelog-tools"
    # Standard input that never ends: the command waits for more bytes (a named pipe would be
    # refused before it is opened).
    proc = subprocess.Popen(
        [str(exe), "validate", "-"], cwd=tmp_path, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert proc.stdin is not None
        proc.stdin.write(b"- config-keys:\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and "pipe" not in _wait_channel(proc.pid):
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _out, err_bytes = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = err_bytes.decode()
    assert proc.returncode == 130
    assert err.splitlines()[-1] == "interrupted"
    assert "Traceback" not in err


def _wait_channel(pid: int) -> str:
    """What the kernel says process ``pid`` waits on ("" where /proc does not say)."""
    try:
        return Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return ""


# -- the workflow validates main -----------------------------------------------------------------


def test_the_workflow_validates_the_whole_file_on_every_push_to_main(tmp_path: Path) -> None:
    workflow = yamlload.load((REPO_ROOT / ".github/workflows/check-changelog.yml").read_text())
    doc = workflow.value
    assert "paths" not in doc["on"]["push"]  # every push, changelog touched or not
    step = next(
        s for s in doc["jobs"]["check-changelog"]["steps"]
        if s.get("name") == "Validate the whole changelog (main)"
    )  # fmt: skip
    assert step["if"] == "always() && github.event_name == 'push'"
    # A main an old bug left invalid (a tab in entry 1's history) turns red and names the line.
    broken = BASE.replace(b'    - "First sweep"', b'    - "First\tsweep"')
    (tmp_path / "perf-changelog.yaml").write_bytes(broken)
    # the step runs through the composite action, as the runner runs it
    from tests.actionrunner import run_step

    proc = run_step(step, cwd=tmp_path, context={}, env=dict(os.environ))
    assert proc.returncode == 1
    assert proc.stdout.startswith("::error file=perf-changelog.yaml,line=4,")


# -- PR numbers in the sign-off bot (merged after the rest; the same rule) ----------------------


@pytest.mark.parametrize("text", ["٥", "５", "1_0", "²", "9" * 5000])
def test_a_dispatch_input_that_is_not_ascii_digits_names_no_pull_request(text: str) -> None:
    from changelog_tools.errors import UsageError
    from changelog_tools.signoff.verify import pr_from_event

    with pytest.raises(UsageError, match="names no pull request number"):
        pr_from_event("workflow_dispatch", {"inputs": {"pr": text}})
    assert pr_from_event("workflow_dispatch", {"inputs": {"pr": " 42 "}}) == 42


def test_the_default_recipe_link_patterns_take_ascii_digits_only() -> None:
    from changelog_tools.config import OPTIONS

    patterns = next(o.default for o in OPTIONS if o.name == "signoff-recipe-links")
    pull = re.compile(patterns[0])
    assert pull.search("https://github.com/vllm-project/recipes/pull/12")
    assert not pull.search("https://github.com/vllm-project/recipes/pull/٥")
