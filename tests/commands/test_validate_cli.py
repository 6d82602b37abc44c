"""`changelog-tools validate` as a user runs it: installed entry point, formats, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from changelog_tools import cli
from changelog_tools.testing import synth
from tests.conftest import REPO_ROOT, git, inferencex_file, run_cli

EXAMPLE = REPO_ROOT / "changelog_tools" / "examples" / "inferencex-mini"
BAD = (
    b"- config-keys:\n    - a\n  description:\n    - x\n  pr-link: XXX\n  bogus: 1\n\n"
    b"- config-keys: [b]\n  description: []\n  pr-link: XXX\n"
)


def test_the_installed_console_script_validates_the_bundled_example() -> None:
    proc = run_cli("validate", "perf-changelog.yaml", cwd=EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "validate: perf-changelog.yaml (4 entries): OK\n"
    assert proc.stderr == ""


def test_python_dash_m_runs_the_same_cli(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_bytes(BAD)
    proc = subprocess.run(
        [sys.executable, "-m", "changelog_tools", "validate", "c.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "c.yaml:6:3: CL050 entry 1 has unknown field `bogus`",
        "    hint: allowed fields: config-keys, description, pr-link, evals-only, all-evals, "
        "append-only, eval-min-prefill-ep, scenario-type",
        "c.yaml:9:16: CL053 entry 2: `description` must not be empty",
        "validate: c.yaml (2 entries): 2 problems (2 errors, 0 warnings)",
    ]


def test_the_default_path_is_the_configured_changelog(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".changelog-tools.yaml").write_text("changelog: ledger/changes.yaml\n")
    (tmp_path / "ledger").mkdir()
    (tmp_path / "ledger" / "changes.yaml").write_bytes(synth.ledger(3))
    sub = tmp_path / "ledger"
    assert cli.run(["validate"]) == 2  # cwd is not the repo: the default file does not exist
    proc = run_cli("validate", cwd=sub)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "validate: ledger/changes.yaml (3 entries): OK\n"


def test_json_format_prints_one_document_with_diagnostics_and_summary(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_bytes(BAD)
    proc = run_cli("validate", "--format", "json", "c.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["ok"] is False
    assert doc["summary"]["errors"] == 2
    assert doc["entries"] == 2
    assert [(d["code"], d["line"], d["column"]) for d in doc["diagnostics"]] == [
        ("CL050", 6, 3),
        ("CL053", 9, 16),
    ]


def test_github_format_prints_workflow_annotations(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_bytes(BAD)
    proc = run_cli("validate", "--format", "github", "c.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("::error file=c.yaml,line=6,col=3,title=CL050::entry 1 has unknown")
    assert "%0A" in lines[0]  # the hint travels on the same annotation, escaped
    assert (
        lines[1]
        == "::error file=c.yaml,line=9,col=16,title=CL053::entry 2: `description` must not be empty"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["validate", "missing.yaml"], "error: missing.yaml: no such file"),
        (["validate", "--format", "xml", "x.yaml"], "Invalid value for '--format'"),
        (["frobnicate"], "No such command 'frobnicate'"),
    ],
)
def test_usage_errors_exit_2_without_a_traceback(
    tmp_path: Path, args: list[str], message: str
) -> None:
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_a_directory_argument_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("validate", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 2
    assert "is a directory" in proc.stderr


def test_an_unknown_config_option_is_a_usage_error_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".changelog-tools.yaml").write_text("changlog: x.yaml\n")
    proc = run_cli("validate", cwd=tmp_path)
    assert proc.returncode == 2
    assert "unknown option 'changlog'" in proc.stderr
    assert "hint: did you mean 'changelog'?" in proc.stderr


def test_an_internal_error_prints_one_line_and_saves_a_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr("changelog_tools.commands.validate.validate_file", boom)
    (tmp_path / "c.yaml").write_bytes(synth.ledger(1))
    monkeypatch.chdir(tmp_path)
    assert cli.run(["validate", "c.yaml"]) == 70
    err = capsys.readouterr().err
    assert err.startswith("internal error: RuntimeError: simulated bug (details saved to ")
    assert len(err.strip().splitlines()) == 1
    log = Path(err.split("details saved to ")[1].split(";")[0])
    assert "Traceback" in log.read_text()
    assert "simulated bug" in log.read_text()


def test_help_teaches_the_rules_and_exit_codes() -> None:
    proc = run_cli("validate", "--help")
    assert proc.returncode == 0
    assert "Exit status: 0 valid, 1 invalid, 2 usage or configuration error." in proc.stdout
    top = run_cli("--help")
    assert "validate" in top.stdout and "Exit codes:" in top.stdout


def test_the_real_inferencex_changelog_validates_clean() -> None:
    path = inferencex_file("perf-changelog.yaml")
    proc = run_cli("validate", "--format", "json", str(path))
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0, doc["diagnostics"][:3]
    assert doc["entries"] == 772
    assert doc["diagnostics"] == []


def test_a_large_self_written_changelog_validates_clean(tmp_path: Path) -> None:
    """Twin of the InferenceX test that never skips: 800 synthetic entries with odd whitespace."""
    raw = synth.ledger(800, seed=7)
    # History on real repositories carries whitespace-only separators and trailing spaces:
    # validate accepts them (they are check's business, for appended entries only).
    raw = raw.replace(b"\n\n- config-keys:", b"\n  \n- config-keys:", 5)
    raw = raw.replace(b'"\n  pr-link', b'"  \n  pr-link', 5)
    (tmp_path / "perf-changelog.yaml").write_bytes(raw)
    proc = run_cli("validate", "--format", "json", "perf-changelog.yaml", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0, doc["diagnostics"][:3]
    assert doc["entries"] == 800


def test_one_entry_is_counted_as_one_entry(tmp_path: Path) -> None:
    (tmp_path / "one.yaml").write_text(
        "- config-keys:\n    - a-fp8-b-vllm\n  description:\n    - x\n"
        "  pr-link: https://github.com/o/r/pull/1\n"
    )
    proc = run_cli("validate", "one.yaml", cwd=tmp_path)
    assert "one.yaml (1 entry)" in proc.stdout + proc.stderr


def test_a_dash_reads_the_changelog_from_standard_input(tmp_path: Path) -> None:
    good = (
        "- config-keys:\n    - a-fp8-b-vllm\n  description:\n    - x\n"
        "  pr-link: https://github.com/o/r/pull/1\n"
    )
    proc = run_cli("validate", "-", cwd=tmp_path, input=good)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "validate: <stdin> (1 entry): OK\n"
    bad = run_cli("validate", "-", "--format", "json", cwd=tmp_path, input=good + "  pr-link: x\n")
    assert bad.returncode == 1
    assert '"file": "<stdin>"' in bad.stdout


def test_a_duplicate_key_does_not_hide_the_file_s_other_problems(tmp_path: Path) -> None:
    text = (
        "- config-keys:\n    - a-fp8-b-vllm\n  description:\n    - x\n"
        "  description: yes\n  pr-link: https://github.com/o/r/pull/1\n  bogus: 1\n"
    )
    proc = run_cli("validate", "-", "--format", "json", cwd=tmp_path, input=text)
    assert proc.returncode == 1
    found = sorted((d["code"], d["line"]) for d in json.loads(proc.stdout)["diagnostics"])
    assert found == [("CL011", 5), ("CL030", 5), ("CL050", 7), ("CL052", 5)]


def test_format_github_places_annotations_by_repository_relative_path(tmp_path: Path) -> None:
    """Run from a subdirectory with a `../` path: GitHub attaches an annotation only to a path
    relative to the repository's top."""
    repo = tmp_path / "bench"
    (repo / "configs").mkdir(parents=True)
    (repo / "sub").mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "configs" / "bad.yaml").write_text("- config-keys: [x]\n")
    proc = run_cli("validate", "--format", "github", "../configs/bad.yaml", cwd=repo / "sub")
    assert proc.returncode == 1
    annotations = [ln for ln in proc.stdout.splitlines() if ln.startswith("::error ")]
    assert annotations and all("file=configs/bad.yaml," in ln for ln in annotations)
