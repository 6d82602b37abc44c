"""ledger/document.py: file-level byte rules, entry blocks and pr-link lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools.ledger.document import Block, pr_link_lines
from tests.checkdata import (
    BASE,
    KEY,
    appended,
    check_files,
    codes_and_lines,
    entry,
    no_crash,
)
from tests.conftest import run_cli

# -- hostile input, pinned through the installed CLI -------------------------------------------


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


# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def test_an_oversized_file_is_reported_from_its_size_alone(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("max-file-size: 100\n")
    big = tmp_path / "perf-changelog.yaml"
    big.write_bytes(BASE * 10)  # 1,020 bytes
    proc = run_cli("validate", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert [(d["code"], d["message"]) for d in doc["diagnostics"]] == [
        ("CL006", f"file is {len(BASE) * 10:,} bytes; the limit is 100 (`max-file-size`)")
    ]
    checked = run_cli("check", "--base-file", str(big), "--head-file", str(big), cwd=tmp_path)
    assert checked.returncode == 1
    assert "the limit is 100" in checked.stderr
    no_crash(checked)


def test_a_byte_order_mark_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "perf-changelog.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + BASE)
    proc = run_cli("validate", str(path), "--format", "json")
    assert proc.returncode == 1
    found = [(d["code"], d["line"], d["column"]) for d in json.loads(proc.stdout)["diagnostics"]]
    assert found[0] == ("CL008", 1, 1)


@pytest.mark.parametrize(
    ("char", "what"),
    [
        ("\u0007", "control character U+0007"),
        ("\u2028", "line separator U+2028"),
        ("\u0085", "line separator U+0085"),
    ],
    ids=["bell", "line-separator", "next-line"],
)
def test_an_invisible_character_is_pointed_at_not_misparsed(
    tmp_path: Path, char: str, what: str
) -> None:
    # Pasted into a description of entry 1 (line 4, column 13); entry 2 must not be blamed.
    data = BASE.replace(b'"First sweep"', f'"First{char} sweep"'.encode())
    path = tmp_path / "perf-changelog.yaml"
    path.write_bytes(data)
    proc = run_cli("validate", str(path), "--format", "json")
    assert proc.returncode == 1
    found = [
        (d["code"], d["line"], d["column"], d["message"])
        for d in json.loads(proc.stdout)["diagnostics"]
    ]
    assert [f[:3] for f in found] == [("CL009", 4, 13)]
    assert what in found[0][3]


def test_an_invisible_character_in_an_appended_entry_fails_check_on_its_line(
    tmp_path: Path,
) -> None:
    proc = check_files(tmp_path, BASE, appended(entry(KEY, description="A\u2028change")))
    found = codes_and_lines(proc)
    assert found == [("CL009", 16)]


def test_an_appended_document_end_marker_fails_before_it_breaks_the_next_append(
    tmp_path: Path,
) -> None:
    # Alone it is valid YAML; but the next pull request's entry (checked on its own, as every
    # append is) would land in a second document and make the whole file invalid.
    with_marker = appended(entry(KEY)) + b"...\n"
    proc = check_files(tmp_path, BASE, with_marker)
    assert proc.returncode == 1
    found = codes_and_lines(proc)
    assert found == [("CL018", 18)]
    validated = run_cli("validate", "head.yaml", "--format", "json", cwd=tmp_path)
    assert validated.returncode == 1
    assert [d["code"] for d in json.loads(validated.stdout)["diagnostics"]] == ["CL018"]
