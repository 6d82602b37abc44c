"""The lint core: rule selection, the off switch, severities, JSON, work in proportion."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools.config import LINT_RULE_IDS, defaults
from changelog_tools.errors import UsageError
from changelog_tools.lint.engine import LintRequest, report, run_lint
from changelog_tools.lint.tree import MemoryTree
from tests.conftest import run_cli
from tests.lint.world import BASE_FILES, MTP_SCRIPT, NOW, change, found, lint_change, make_world

MTP = "benchmarks/single_node/fixed_seq_len/alpha_fp8_h200_mtp.sh"
BROKEN = MTP_SCRIPT.replace("    --use-chat-template \\\n", "")


@dataclass(frozen=True)
class CountingTree:
    """A MemoryTree that records what the rules read."""

    tree: MemoryTree
    reads: list[str] = field(default_factory=list)
    listings: list[str] = field(default_factory=list)

    def read(self, path: str) -> bytes | None:
        self.reads.append(path)
        return self.tree.read(path)

    def paths(self, prefix: str = "") -> tuple[str, ...]:
        self.listings.append(prefix)
        return self.tree.paths(prefix)


def _trees(changes: dict[str, str]) -> tuple[CountingTree, CountingTree]:
    base = {k: v.encode() for k, v in BASE_FILES.items()}
    head = dict(base, **{k: v.encode() for k, v in changes.items()})
    return CountingTree(MemoryTree(base)), CountingTree(MemoryTree(head))


def test_every_rule_is_implemented_and_reports_an_outcome(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    result = lint_change(root, audit=True)
    assert tuple(o.rule for o in result.outcomes) == LINT_RULE_IDS


def test_a_pr_touching_one_script_reads_that_script_and_no_more() -> None:
    base, head = _trees({MTP: BROKEN})
    request = LintRequest(head=head, base=base, changed=(MTP,), pr=7, now=NOW)
    result = run_lint(request, defaults(Path.cwd()))
    assert [(d.code, d.line) for d in result.findings] == [("CL710", 4)]
    masters = {"configs/amd-master.yaml", "configs/nvidia-master.yaml"}
    # The script, and the master configs' bytes (to see that no entry changed); nothing else.
    assert MTP in head.reads and set(head.reads) <= {MTP, *masters}
    assert MTP in base.reads and set(base.reads) <= {MTP, *masters}
    assert head.listings == [] and base.listings == []  # the tree is never listed


def test_a_rule_turned_off_reports_off_and_finds_nothing(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {MTP: BROKEN})
    cfg = replace(defaults(root), lint_rules={"chat-template": "off"})
    result = lint_change(root, config=cfg)
    outcome = result.outcome("chat-template")
    assert outcome is not None and not outcome.enabled and not outcome.applicable
    assert found(result) == []
    assert report(result, subject="x").data["rules"][1]["status"] == "off"


def test_a_rule_set_to_warning_downgrades_its_errors(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {MTP: BROKEN})
    cfg = replace(defaults(root), lint_rules={"chat-template": "warning"})
    result = lint_change(root, config=cfg, rules=("chat-template",))
    assert [d.severity for d in result.findings] == [dx.Severity.WARNING]
    assert result.ok


def test_an_unknown_rule_is_a_usage_error(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    with pytest.raises(UsageError, match="unknown lint rule nope"):
        lint_change(root, rules=("nope",))


def test_json_carries_the_rule_id_and_each_rules_status(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {MTP: BROKEN})
    proc = run_cli("lint", "--base-ref", "main", "--format", "json", cwd=root)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    (d,) = doc["diagnostics"]
    assert (d["code"], d["rule"], d["path"], d["line"]) == ("CL710", "chat-template", MTP, 4)
    status = {r["rule"]: r["status"] for r in doc["rules"]}
    assert status["chat-template"] == "fail" and status["models"] == "n/a"


def test_github_format_annotates_at_the_line(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {MTP: BROKEN})
    proc = run_cli("lint", "--base-ref", "main", "--format", "github", cwd=root)
    assert proc.stdout.startswith(f"::error file={MTP},line=4,title=CL710::")


def test_a_bad_date_and_an_unknown_revision_are_usage_errors(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    bad_date = run_cli("lint", "--now", "yesterday", cwd=root)
    assert bad_date.returncode == 2 and "is not a date" in bad_date.stderr
    bad_ref = run_cli("lint", "--base-ref", "nope", cwd=root)
    assert bad_ref.returncode == 2 and "unknown revision 'nope'" in bad_ref.stderr
    assert "Traceback" not in bad_ref.stderr


def test_the_default_base_is_the_merge_base_with_main(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    change(root, {MTP: BROKEN})
    proc = run_cli("lint", cwd=root)
    assert proc.returncode == 1
    assert "merge-base with main" in proc.stderr
    assert f"{MTP}:4: CL710" in proc.stdout


def test_an_invalid_regex_option_is_a_configuration_error(tmp_path: Path) -> None:
    root = make_world(tmp_path / "r")
    (root / ".changelog-tools.yaml").write_text("lint-spec-flags: '(unclosed'\n")
    proc = run_cli("lint", "--all", cwd=root)
    assert proc.returncode == 2 and "lint-spec-flags: not a valid regular expression" in proc.stderr
