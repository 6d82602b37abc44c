"""`check` on the real InferenceX changelog and master configs, and a self-written twin.

The real files are read from shared fixtures (skipped when absent); every test here has a twin on
hand-written data that never skips.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools.config import Config, defaults
from changelog_tools.ledger.check import CheckResult, check_change
from tests.checkdata import BASE, MASTERS, PULL, appended, config, entry
from tests.conftest import inferencex_file

REAL_MASTERS = ("configs/amd-master.yaml", "configs/nvidia-master.yaml")


def _real() -> tuple[bytes, dict[str, bytes | None], Config]:
    changelog = inferencex_file("perf-changelog.yaml").read_bytes()
    root = inferencex_file(REAL_MASTERS[0]).parent.parent
    masters: dict[str, bytes | None] = {m: (root / m).read_bytes() for m in REAL_MASTERS}
    return changelog, masters, defaults(Path.cwd())


def _split_last(raw: bytes) -> tuple[bytes, bytes]:
    """(history before the last entry, whole file): the last merge replayed as a change."""
    last = [m.start() for m in re.finditer(rb"^- config-keys:", raw, re.MULTILINE)][-1]
    return raw[:last], raw


def _run(
    base: bytes,
    head: bytes,
    masters: dict[str, bytes | None],
    cfg: Config,
    mode: str,
    pr: int | None,
) -> CheckResult:
    return check_change(
        base=base,
        head=head,
        config=cfg,
        mode=mode,
        pr=pr,
        path="perf-changelog.yaml",
        masters_base=masters,
        masters_head=masters,
    )


def _codes(result: CheckResult) -> list[tuple[str, int | None]]:
    return [(d.code, d.line) for d in result.report.sorted()]


@pytest.mark.parametrize(("mode", "pr"), [("pr", 2707), ("main", None), ("local", None)])
def test_the_last_real_merge_replays_cleanly_in_every_mode(mode: str, pr: int | None) -> None:
    raw, masters, cfg = _real()
    base, head = _split_last(raw)
    result = _run(base, head, masters, cfg, mode, pr)
    assert _codes(result) == []
    (only,) = result.report.data["entries"]
    assert (only["index"], only["line"]) == (771, 6373)
    assert only["master-keys"] == ["dsv4-fp4-b200-vllm-agentic-mtp"]


def test_twin_the_last_merge_replays_cleanly_in_every_mode() -> None:
    head = appended(entry("alpha-fp8-gpu-a-vllm", link=f"{PULL}3"))
    for mode, pr in (("pr", 3), ("main", None), ("local", None)):
        result = _run(BASE, head, dict(MASTERS), config(), mode, pr)
        assert _codes(result) == []
        assert result.report.data["entries"][0]["index"] == 2


def test_the_last_real_merge_with_another_pr_number_is_caught_at_its_link() -> None:
    raw, masters, cfg = _real()
    base, head = _split_last(raw)
    result = _run(base, head, masters, cfg, "pr", 2708)
    assert _codes(result) == [(dx.WRONG_PR, 6380)]


def test_twin_a_merge_with_another_pr_number_is_caught_at_its_link() -> None:
    head = appended(entry("alpha-fp8-gpu-a-vllm", link=f"{PULL}3"))
    assert _codes(_run(BASE, head, dict(MASTERS), config(), "pr", 4)) == [(dx.WRONG_PR, 17)]


def test_appending_to_the_real_file_takes_the_fast_path_and_checks_real_keys() -> None:
    raw, masters, cfg = _real()
    new = entry("dsr1-fp4-mi355x-sglang", "dsr1-fp4-mi355x-sglng", '"dsr1-fp4-*-nope"')
    head = (
        raw + b"\n" + new.replace(b"XXX", b"https://github.com/SemiAnalysisAI/InferenceX/pull/XXX")
    )
    result = _run(raw, head, masters, cfg, "pr", 2999)
    assert result.change.fast_path
    first = raw.count(b"\n") + 2
    assert _codes(result) == [(dx.UNKNOWN_CONFIG_KEY, first + 2), (dx.WILDCARD_NO_MATCH, first + 3)]
    hint = result.report.sorted()[0].hint or ""
    assert "`dsr1-fp4-mi355x-sglang`" in hint


def test_twin_appending_takes_the_fast_path_and_checks_keys() -> None:
    new = entry("alpha-fp8-gpu-a-vllm", "alpha-fp8-gpu-a-vlm", '"alpha-*-nope"')
    result = _run(BASE, appended(new), dict(MASTERS), config(), "pr", 5)
    assert result.change.fast_path
    assert _codes(result) == [(dx.UNKNOWN_CONFIG_KEY, 15), (dx.WILDCARD_NO_MATCH, 16)]


def test_old_real_history_needs_no_config_keys_to_replay() -> None:
    raw, _masters, cfg = _real()
    starts = [m.start() for m in re.finditer(rb"^- config-keys:", raw, re.MULTILINE)]
    base, head = raw[: starts[100]], raw[: starts[110]]
    result = check_change(base=base, head=head, config=cfg, mode="local", masters_head=None)
    assert [d for d in result.report.errors if d.code.startswith("CL3")] == []
    assert len(result.report.data["entries"]) == 10
