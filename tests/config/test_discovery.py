"""Finding the configuration: the upward search, pyproject tables, --config, and a
configuration in a subdirectory of the repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from changelog_tools import config
from tests.checkdata import (
    BASE,
    CONFIG,
    KEY,
    MASTER_A,
    MASTER_B,
    MASTERS_A,
    MASTERS_B,
    PULL,
    appended,
    entry,
)
from tests.conftest import commit_files, git, run_cli


def test_config_is_found_by_searching_upward_to_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".changelog-tools.yaml").write_text("repository: acme/bench\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    cfg = config.load_config(start=deep)
    assert cfg.repository == "acme/bench"
    assert cfg.root == tmp_path.resolve()
    assert cfg.changelog_path == tmp_path.resolve() / "perf-changelog.yaml"


def test_the_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("repository: outer/repo\n")
    inner = tmp_path / "inner"
    (inner / ".git").mkdir(parents=True)
    assert config.load_config(start=inner).repository == "SemiAnalysisAI/InferenceX"


def test_pyproject_table_is_read(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.changelog-tools]\nchangelog = "CHANGES.yaml"\n'
        'placeholders = ["TBD-LINK"]\n'
    )
    cfg = config.load_config(start=tmp_path)
    assert cfg.changelog == "CHANGES.yaml"
    assert cfg.placeholders == ("TBD-LINK",)


def test_pyproject_without_our_table_is_skipped(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert config.load_config(start=tmp_path).source is None


def test_explicit_config_overrides_discovery(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("repository: found/by-search\n")
    other = tmp_path / "other.yaml"
    other.write_text("repository: named/explicitly\n")
    assert config.load_config(other, start=tmp_path).repository == "named/explicitly"


SUB = "bench dir"  # a space, too


@pytest.fixture
def subrepo(tmp_path: Path) -> Path:
    """A repository whose changelog, master configs and configuration live in `bench dir/`."""
    path = tmp_path / "mono"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(
        path,
        {
            f"{SUB}/.changelog-tools.yaml": CONFIG + "placeholders: [TBD]\n",
            f"{SUB}/perf-changelog.yaml": BASE,
            f"{SUB}/{MASTER_A}": MASTERS_A,
            f"{SUB}/{MASTER_B}": MASTERS_B,
        },
        "initial",
    )
    return path


def test_a_configuration_in_a_subdirectory_names_the_same_files_in_every_mode(
    subrepo: Path,
) -> None:
    cwd = subrepo / SUB
    git(subrepo, "checkout", "-q", "-b", "feature")
    commit_files(
        subrepo, {f"{SUB}/perf-changelog.yaml": appended(entry(KEY, link=f"{PULL}2557"))}, "pr"
    )
    checked = run_cli("check", "--pr", "2607", "--format", "json", cwd=cwd)
    assert checked.returncode == 1, checked.stderr
    found = [(d["path"], d["line"], d["code"]) for d in json.loads(checked.stdout)["diagnostics"]]
    assert found == [(f"{SUB}/perf-changelog.yaml", 17, "CL201")]

    (cwd / "perf-changelog.yaml").write_bytes(b"\xef\xbb\xbf" + BASE)
    validated = run_cli("validate", "--format", "json", cwd=cwd)
    first = json.loads(validated.stdout)["diagnostics"][0]
    assert (first["path"], first["code"]) == (f"{SUB}/perf-changelog.yaml", "CL008")

    keys = run_cli("keys", "--ref", "HEAD", KEY, cwd=cwd)
    assert keys.returncode == 0, keys.stderr
    assert keys.stdout == f"{KEY}\t{KEY}\t{SUB}/{MASTER_A}:1\n"


def test_the_merge_driver_of_a_subdirectory_changelog_uses_that_configuration(
    subrepo: Path,
) -> None:
    cwd = subrepo / SUB
    installed = run_cli("install-merge-driver", cwd=cwd)
    assert installed.returncode == 0, installed.stderr
    line = f'"/{SUB}/perf-changelog.yaml" merge=perf-changelog'
    assert (subrepo / ".gitattributes").read_text().splitlines() == [line]
    commit_files(subrepo, {}, "attributes")
    changelog = f"{SUB}/perf-changelog.yaml"
    git(subrepo, "checkout", "-q", "-b", "feature")
    # `TBD` is a placeholder only by the subdirectory's configuration.
    pr_entry = entry(KEY, link="TBD", description="PR")
    commit_files(subrepo, {changelog: appended(pr_entry)}, "pr")
    git(subrepo, "checkout", "-q", "main")
    main_entry = entry("beta-fp4-gpu-b-trt", link=f"{PULL}5", description="main")
    commit_files(subrepo, {changelog: appended(main_entry)}, "main")
    git(subrepo, "checkout", "-q", "feature")
    git(subrepo, "merge", "-q", "main", "-m", "merge main")
    assert (subrepo / changelog).read_bytes() == appended(main_entry, pr_entry)


@pytest.mark.parametrize("name", [".changelog-tools.yaml", "pyproject.toml"])
def test_a_configuration_that_is_not_utf8_names_the_line_and_column(
    tmp_path: Path, name: str
) -> None:
    first = "max-file-size: 100000\n" if name.endswith(".yaml") else "[tool.changelog-tools]\n"
    (tmp_path / name).write_bytes(first.encode() + b"# caf\xc3\xa9 \xff and more\n")
    proc = run_cli("validate", cwd=tmp_path)
    assert proc.returncode == 2
    where = tmp_path / name
    # the column counts characters (the two-byte `é` is one), as an editor does
    assert proc.stderr == (
        f"error: {where}:2:8: invalid UTF-8 byte 0xff\nhint: save the file as UTF-8\n"
    )


BROKEN_TOML = '[tool.changelog-tools]\nchangelog = = "x"\n'


def test_a_pyproject_that_is_not_toml_names_the_line_and_column(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "pyproject.toml").write_text(BROKEN_TOML)
    where = tmp_path / "pyproject.toml"
    text = run_cli("validate", cwd=tmp_path)
    assert (text.returncode, text.stdout) == (2, "")
    # FILE:LINE:COL as a broken YAML file or a bad option value is told, not the parser's words
    assert text.stderr == f"error: {where}:2:13: invalid value\n"
    github = run_cli("validate", "--format", "github", cwd=tmp_path)
    assert (github.returncode, github.stderr) == (2, text.stderr)
    as_json = run_cli("validate", "--format", "json", cwd=tmp_path)
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout)["error"] == {
        "code": "config",
        "exit-code": 2,
        "message": f"{where}:2:13: invalid value",
    }


def test_a_pyproject_cut_short_names_where_it_ends(tmp_path: Path) -> None:
    # The parser places this one "at end of document", not at a line and column.
    git(tmp_path, "init", "-q")
    (tmp_path / "pyproject.toml").write_text('[tool.changelog-tools]\nchangelog = ["a",')
    proc = run_cli("validate", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == f"error: {tmp_path / 'pyproject.toml'}:2:18: invalid value\n"


def test_a_toml_error_without_a_position_keeps_its_whole_message() -> None:
    from changelog_tools.config.discovery import toml_error

    error = toml_error(ValueError("Nothing to place"), "x = 1\n", "pyproject.toml")
    assert error.message == "pyproject.toml: nothing to place"
