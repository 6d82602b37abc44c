"""Master configs: the key scan, wildcard resolution, change detection and append-only rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools import yamlload
from changelog_tools.ledger import masterconfig as mc
from tests.checkdata import (
    MASTER_A,
    MASTER_B,
    MASTERS_A,
    MASTERS_B,
)
from tests.conftest import inferencex_file, run_cli


def _assert_scan_matches_whole_parse(path: str, raw: bytes) -> None:
    scanned = mc.load_master(path, raw)
    whole = mc.load_master(path, raw, full=True)
    assert scanned.scanned and not whole.scanned
    assert scanned.ok and whole.ok
    assert [(k.name, k.line) for k in scanned.keys.values()] == [
        (k.name, k.line) for k in whole.keys.values()
    ]
    reference = yamlload.load(raw.decode()).value
    for name in scanned.keys:
        assert scanned.value(name) == reference[name] == whole.value(name)
    assert scanned.diagnostics == []


def test_the_key_scan_agrees_with_a_whole_parse_on_a_written_master() -> None:
    _assert_scan_matches_whole_parse(MASTER_A, MASTERS_A)
    _assert_scan_matches_whole_parse(MASTER_B, b"# header comment\n\n" + MASTERS_B)


@pytest.mark.parametrize("name", ["amd-master.yaml", "nvidia-master.yaml"])
def test_the_key_scan_agrees_with_a_whole_parse_on_the_real_masters(name: str) -> None:
    path = inferencex_file(f"configs/{name}")
    _assert_scan_matches_whole_parse(name, path.read_bytes())


def test_block_values_carry_their_real_line_numbers() -> None:
    master = mc.load_master(MASTER_A, MASTERS_A)
    assert master.line_of("alpha-fp8-gpu-a-sglang", "scenarios", "fixed-seq-len") == 21
    assert master.line_of("alpha-fp8-gpu-a-vllm", "scenarios", "agentic-coding", 0) == 13


@pytest.mark.parametrize(
    "raw",
    [
        b'"quoted-key":\n  image: x\nplain:\n  image: y\n',
        b"---\nplain:\n  image: y\nother: {image: z}\n",
    ],
)
def test_files_the_scan_does_not_understand_are_parsed_whole(raw: bytes) -> None:
    master = mc.load_master("m.yaml", raw)
    assert not master.scanned
    assert master.ok
    assert "plain" in master.keys
    assert master.value("plain") == {"image": "y"}


def test_a_root_that_is_not_a_mapping_is_invalid() -> None:
    master = mc.load_master("m.yaml", b"- a\n- b\n")
    assert [(d.code, d.line) for d in master.diagnostics] == [(dx.MASTER_INVALID, 1)]


def test_a_broken_block_is_reported_when_its_value_is_needed() -> None:
    raw = MASTERS_A.replace(b"  model: example/alpha\n", b"  model: [oops\n", 1)
    master = mc.load_master(MASTER_A, raw)
    assert master.ok  # the scan alone finds keys, not YAML errors
    assert mc.is_missing(master.value("alpha-fp8-gpu-a-vllm"))
    assert [d.code for d in master.diagnostics] == [dx.MASTER_INVALID]
    assert master.value("alpha-fp8-gpu-a-sglang")["runner"] == "gpu-a"


def test_duplicates_across_files_point_at_the_second_definition() -> None:
    masters = mc.load_masters({MASTER_A: MASTERS_A, MASTER_B: MASTERS_A})
    assert [(d.code, d.path, d.line) for d in masters.diagnostics] == [
        (dx.MASTER_DUPLICATE_KEY, MASTER_B, 1),
        (dx.MASTER_DUPLICATE_KEY, MASTER_B, 16),
    ]
    assert masters.index["alpha-fp8-gpu-a-vllm"].path == MASTER_A


# -- changes ---------------------------------------------------------------------------------


def test_changed_keys_are_added_modified_or_removed_by_value() -> None:
    base = mc.load_masters({MASTER_A: MASTERS_A, MASTER_B: MASTERS_B})
    head_a = MASTERS_A.replace(b"sglang:1.0", b"sglang:1.1").replace(
        b"  runner: gpu-a\n", b"  runner: gpu-a   # comment only\n", 1
    )
    head_b = MASTERS_B[: MASTERS_B.index(b"\nbeta-fp4-gpu-b-vllm")] + b"\nnew-key:\n  image: n\n"
    head = mc.load_masters({MASTER_A: head_a, MASTER_B: head_b})
    assert [(c.name, c.kind, c.line) for c in mc.changed_keys(base, head)] == [
        ("alpha-fp8-gpu-a-sglang", "modified", 17),  # the changed line, inside the key
        ("new-key", "added", 12),
        ("beta-fp4-gpu-b-vllm", "removed", 12),
    ]


def test_changed_keys_also_work_when_a_file_is_parsed_whole() -> None:
    base = mc.load_masters({"m.yaml": b'"k":\n  a: 1\n"j":\n  a: 1\n'})
    head = mc.load_masters({"m.yaml": b'"k":\n  a: 2\n"j":\n  a: 1\n'})
    assert [(c.name, c.kind) for c in mc.changed_keys(base, head)] == [("k", "modified")]


# -- hostile and odd inputs to the ledger commands ---------------------------------------------


def test_a_pathological_wildcard_is_answered_without_backtracking(tmp_path: Path) -> None:
    # With the regex this took longer than any CI timeout; an appended entry could hang check.
    (tmp_path / "m.yaml").write_text("a" * 40 + ":\n  x: 1\n")
    proc = run_cli("keys", "--master-config", "m.yaml", "*a" * 11 + "*c", cwd=tmp_path)
    assert proc.returncode == 1
    assert "CL302 wildcard" in proc.stdout
