"""`changelog-tools new` through the installed console script, on a copy of the example repo."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import changelog_tools
from tests.conftest import git, run_cli

EXAMPLE = Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini"
LINK = "https://github.com/example-org/inferencex-mini/pull/XXX"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "bench"
    shutil.copytree(EXAMPLE, root)
    git(root, "init", "-q", "-b", "main")
    return root


def _changelog(repo: Path) -> bytes:
    return (repo / "perf-changelog.yaml").read_bytes()


def test_new_appends_one_entry_after_one_blank_line_and_validate_passes(repo: Path) -> None:
    before = _changelog(repo)
    proc = run_cli(
        "new",
        "--config-key", "llama70b-fp8-gpu-a-vllm",
        "--config-key", "mixtral-fp4-gpu-b-*",
        "--scenario-type", "fixed-seq-len",
        "--description", "Bump vLLM to 0.11",
        "--description", 'Quote "this" and: that',
        cwd=repo,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    expected = (
        "\n"
        "- config-keys:\n"
        "    - llama70b-fp8-gpu-a-vllm\n"
        "    - mixtral-fp4-gpu-b-*\n"
        "  scenario-type:\n"
        "    - fixed-seq-len\n"
        "  description:\n"
        '    - "Bump vLLM to 0.11"\n'
        '    - "Quote \\"this\\" and: that"\n'
        f"  pr-link: {LINK}\n"
    ).encode()
    assert _changelog(repo) == before + expected  # the old bytes untouched, the entry appended
    assert "new: appended an entry at perf-changelog.yaml:30: OK" in proc.stdout
    assert "mixtral-fp4-gpu-b-* -> mixtral-fp4-gpu-b-trt" in proc.stderr  # the wildcard resolved
    assert run_cli("validate", cwd=repo).returncode == 0


def test_the_result_passes_check_against_the_file_before(repo: Path, tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    base.write_bytes(_changelog(repo))
    proc = run_cli("new", "--config-key", "mixtral-fp4-gpu-b-trt", "--description", "x", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    checked = run_cli(
        "check", "--base-file", str(base), "--head-file", "perf-changelog.yaml",
        "--format", "json", cwd=repo,
    )  # fmt: skip
    doc = json.loads(checked.stdout)
    assert checked.returncode == 0, checked.stdout
    assert doc["ok"] is True
    assert [(e["config-keys"], e["pr-link-kind"]) for e in doc["entries"]] == [
        (["mixtral-fp4-gpu-b-trt"], "placeholder")
    ]


def test_a_typo_in_a_key_gets_a_did_you_mean_and_nothing_is_written(repo: Path) -> None:
    before = _changelog(repo)
    mtime = (repo / "perf-changelog.yaml").stat().st_mtime_ns
    proc = run_cli("new", "--config-key", "llama70b-fp8-gpu-a-vlm", "--description", "x", cwd=repo)
    assert proc.returncode == 1
    assert "CL601" in proc.stdout
    assert "did you mean `llama70b-fp8-gpu-a-vllm`" in proc.stdout
    assert "nothing was written" in proc.stdout
    assert _changelog(repo) == before
    assert (repo / "perf-changelog.yaml").stat().st_mtime_ns == mtime
    assert sorted(p.name for p in repo.iterdir()) == sorted(
        [".git", *(p.name for p in EXAMPLE.iterdir())]
    )  # no temporary file left behind


def test_a_line_break_in_a_description_is_refused_as_json(repo: Path) -> None:
    before = _changelog(repo)
    proc = run_cli(
        "new", "--config-key", "mixtral-fp4-gpu-b-trt", "--description", "two\nlines",
        "--format", "json", cwd=repo,
    )  # fmt: skip
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert [d["code"] for d in doc["diagnostics"]] == ["CL602"]
    assert _changelog(repo) == before


@pytest.mark.parametrize(
    ("tail", "gap"),
    [(b"\n", b"\n"), (b"\n\n", b""), (b"", b"\n\n")],
    ids=["newline", "blank-line", "no-final-newline"],
)
def test_the_separator_adds_only_what_makes_one_blank_line(
    repo: Path, tail: bytes, gap: bytes
) -> None:
    from changelog_tools.ledger.new import separator

    body = _changelog(repo).rstrip(b"\n")
    assert separator(body + tail) == gap


def test_a_file_that_would_not_pass_check_is_refused_and_untouched(repo: Path) -> None:
    path = repo / "perf-changelog.yaml"
    path.write_bytes(_changelog(repo).replace(b"  pr-link", b"\tpr-link", 1))
    before = path.read_bytes()
    proc = run_cli("new", "--config-key", "mixtral-fp4-gpu-b-trt", "--description", "x", cwd=repo)
    assert proc.returncode == 1
    assert "nothing was written" in proc.stdout
    assert path.read_bytes() == before


def test_a_missing_changelog_is_created_with_the_entry_alone(repo: Path) -> None:
    (repo / "perf-changelog.yaml").unlink()
    proc = run_cli("new", "--config-key", "mixtral-fp4-gpu-b-trt", "--description", "x", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert _changelog(repo).startswith(b"- config-keys:\n    - mixtral-fp4-gpu-b-trt\n")
    assert run_cli("validate", cwd=repo).returncode == 0


def _fake_editor(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.sh"
    seen = tmp_path / "template-seen.txt"
    script.write_text(f'#!/bin/sh\ncp "$1" {seen}\ncat > "$1" <<\'EOF\'\n{body}EOF\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_without_a_description_the_editor_writes_it(repo: Path, tmp_path: Path) -> None:
    editor = _fake_editor(tmp_path, "Bump the image\n# a comment is dropped\n\nSecond point\n")
    proc = run_cli(
        "new", "--config-key", "mixtral-fp4-gpu-b-trt", cwd=repo,
        env={"EDITOR": editor, "VISUAL": ""},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    seen = (tmp_path / "template-seen.txt").read_text()
    assert "# config-keys: mixtral-fp4-gpu-b-trt" in seen
    assert seen.startswith("\n# Describe the change")
    assert _changelog(repo).endswith(
        b'  description:\n    - "Bump the image"\n    - "Second point"\n'
        + f"  pr-link: {LINK}\n".encode()
    )


def test_an_empty_edit_aborts_and_writes_nothing(repo: Path, tmp_path: Path) -> None:
    before = _changelog(repo)
    editor = _fake_editor(tmp_path, "# only comments\n\n")
    proc = run_cli(
        "new", "--config-key", "mixtral-fp4-gpu-b-trt", cwd=repo,
        env={"EDITOR": editor, "VISUAL": ""},
    )  # fmt: skip
    assert proc.returncode == 4
    assert "description is empty; nothing was written" in proc.stderr
    assert _changelog(repo) == before


def test_no_description_and_no_editor_outside_a_terminal_is_a_usage_error(repo: Path) -> None:
    proc = run_cli(
        "new", "--config-key", "mixtral-fp4-gpu-b-trt", cwd=repo,
        env={"EDITOR": "", "VISUAL": ""}, input="",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "pass --description TEXT, or set EDITOR" in proc.stderr


def test_a_description_that_is_not_utf8_is_a_usage_error_and_nothing_is_written(
    repo: Path,
) -> None:
    before = _changelog(repo)
    exe = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert exe is not None
    argv = [exe.encode(), b"new", b"--config-key", b"llama70b-fp8-gpu-a-vllm",
            b"--scenario-type", b"fixed-seq-len", b"--description", b"bump \xff"]  # fmt: skip
    proc = subprocess.run(argv, cwd=repo, capture_output=True, check=False)
    assert proc.returncode == 2, proc.stderr
    assert b"--description: the argument is not valid UTF-8 (byte 0xff" in proc.stderr
    assert _changelog(repo) == before


def test_an_editor_that_saves_invalid_utf8_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    before = _changelog(repo)
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "bump \\377\\n" > "$1"\n')
    editor.chmod(0o755)
    proc = run_cli(
        "new", "--config-key", "llama70b-fp8-gpu-a-vllm", "--scenario-type", "fixed-seq-len",
        cwd=repo, env={"EDITOR": str(editor), "VISUAL": ""},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "the editor saved bytes that are not UTF-8 (byte 0xff at offset 5)" in proc.stderr
    assert _changelog(repo) == before


def test_a_changelog_symlinked_to_itself_is_a_usage_error(repo: Path) -> None:
    (repo / "perf-changelog.yaml").unlink()
    (repo / "perf-changelog.yaml").symlink_to("perf-changelog.yaml")
    proc = run_cli(
        "new", "--config-key", "llama70b-fp8-gpu-a-vllm", "--scenario-type", "fixed-seq-len",
        "--description", "x", cwd=repo,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "perf-changelog.yaml" in proc.stderr and "Traceback" not in proc.stderr
    assert (repo / "perf-changelog.yaml").is_symlink()


@pytest.mark.parametrize("output_format", ["text", "json", "github"])
def test_the_key_resolution_lines_are_printed_in_text_format_only(
    repo: Path, output_format: str
) -> None:
    # A JSON or GitHub step has the resolved keys in the report; the `#` lines are for a person.
    proc = run_cli(
        "new",
        "--config-key", "llama70b-fp8-gpu-a-*",
        "--description", "x",
        "--format", output_format,
        cwd=repo,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    resolution = [line for line in proc.stderr.splitlines() if line.startswith("# llama70b")]
    if output_format == "text":
        assert resolution and resolution[0].startswith("# llama70b-fp8-gpu-a-* -> ")
    else:
        assert resolution == []
        assert "# llama70b" not in proc.stdout
    if output_format == "json":
        assert json.loads(proc.stdout)["ok"] is True
