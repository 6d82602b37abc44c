"""The configuration as a git revision holds it, validated as the working tree's is."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools import config
from changelog_tools.errors import ConfigError
from tests.conftest import commit_files, git, run_cli


def test_a_configuration_at_a_revision_is_validated_with_its_lines() -> None:
    assert config.values_from_text("remote: up\n", name=".changelog-tools.yaml") == {"remote": "up"}
    assert config.values_from_text('[project]\nname = "x"\n', name="pyproject.toml") == {}
    with pytest.raises(ConfigError) as info:
        config.values_from_text(
            "remote: up\ngithub-retries: 99\n", name="sub/.changelog-tools.yaml"
        )
    assert info.value.message == (
        "sub/.changelog-tools.yaml:2:17: option github-retries: must be at most 20, not 99"
    )


def test_a_broken_configuration_at_the_base_names_its_line_and_the_revision(
    tmp_path: Path,
) -> None:
    # The pull request fixes the base's broken pyproject.toml; the base's copy still decides
    # the options that judge it, so the error must say which copy it is about.
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    base = commit_files(
        repo,
        {"pyproject.toml": '[tool.changelog-tools]\nchangelog = = "x"\n', "CHANGES.yaml": ""},
        "initial",
    )
    git(repo, "checkout", "-q", "-b", "pr")
    commit_files(
        repo, {"pyproject.toml": '[tool.changelog-tools]\nchangelog = "CHANGES.yaml"\n'}, "fix"
    )
    for command in ("check", "lint"):
        proc = run_cli(command, "--pr", "5", cwd=repo)
        assert proc.returncode == 2, (command, proc.stderr)
        assert proc.stderr == (
            f"error: pyproject.toml:2:13: invalid value. That is the file at the base "
            f"{base[:12]}: its options judge the change, not the work tree's\n"
        ), command


@pytest.mark.parametrize(
    ("name", "broken", "fixed"),
    [
        (".changelog-tools.yaml", b"changelog: CHANG\xe9S.yaml\n", b"changelog: CHANGES.yaml\n"),
        (
            "pyproject.toml",
            b'[tool.changelog-tools]\nchangelog = "CHANG\xe9S.yaml"\n',
            b'[tool.changelog-tools]\nchangelog = "CHANGES.yaml"\n',
        ),
    ],
    ids=["yaml", "pyproject"],
)
def test_a_base_configuration_that_is_not_utf8_is_refused_as_the_work_tree_s(
    tmp_path: Path, name: str, broken: bytes, fixed: bytes
) -> None:
    """The same bytes are exit 2 at the first bad byte in the work tree; at the base they were
    decoded with replacement characters and their options applied silently."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    base = commit_files(repo, {name: broken, "CHANGES.yaml": b""}, "initial")
    line = broken.count(b"\n", 0, broken.index(b"\xe9")) + 1
    column = broken.index(b"\xe9") - broken.rfind(b"\n", 0, broken.index(b"\xe9"))
    here = run_cli("lint", cwd=repo)
    assert here.returncode == 2
    assert here.stderr.startswith(f"error: {repo / name}:{line}:{column}: invalid UTF-8 byte 0xe9")
    git(repo, "checkout", "-q", "-b", "pr")
    commit_files(repo, {name: fixed}, "fix")
    for command in ("check", "lint"):
        proc = run_cli(command, "--pr", "5", cwd=repo)
        assert proc.returncode == 2, (command, proc.stderr)
        assert proc.stderr == (
            f"error: {name}:{line}:{column}: invalid UTF-8 byte 0xe9. That is the file at the "
            f"base {base[:12]}: its options judge the change, not the work tree's\n"
            "hint: save the file as UTF-8\n"
        ), command
