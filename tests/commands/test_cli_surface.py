"""What every command shares at the surface: errors as JSON, `schema-version`, help grouped by
who runs each command, shell completion. Through the installed console script."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

import changelog_tools
from changelog_tools.cli import COMMANDS, HELP, ROLES
from tests.conftest import git, run_cli

EXAMPLE = Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini"


def _error_doc(stdout: str) -> dict[str, object]:
    doc = json.loads(stdout)  # exactly one JSON document, nothing else on stdout
    assert doc["schema-version"] == 1
    assert doc["ok"] is False
    error = doc["error"]
    assert isinstance(error, dict)
    return error


def test_a_usage_error_with_format_json_is_one_json_object(tmp_path: Path) -> None:
    proc = run_cli("check", "--format", "json", "--no-such-flag", cwd=tmp_path)
    assert proc.returncode == 2
    error = _error_doc(proc.stdout)
    assert error["code"] == "usage" and error["exit-code"] == 2
    assert "--no-such-flag" in str(error["message"])
    assert "No such option" in proc.stderr  # the person reading the log still sees it


def test_a_configuration_error_names_its_code_and_hint(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".changelog-tools.yaml").write_text("changelgo: x.yaml\n")
    proc = run_cli("validate", "--format=json", cwd=tmp_path)
    assert proc.returncode == 2
    error = _error_doc(proc.stdout)
    assert error["code"] == "config"
    assert "unknown option 'changelgo'" in str(error["message"])
    assert error["hint"] == "did you mean 'changelog'?"


def test_a_github_failure_is_exit_3_and_json(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nothing listens on: connection refused at once
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    origin, clone = tmp_path / "origin.git", tmp_path / "clone"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    git(tmp_path, "init", "-q", "-b", "main", str(clone))
    git(clone, "commit", "-q", "--allow-empty", "-m", "initial")
    git(clone, "remote", "add", "origin", str(origin))
    git(clone, "push", "-q", "origin", "main")
    (clone / ".changelog-tools.yaml").write_text("github-retries: 0\n")
    token = "ghs_surface_test_token_0123456789"
    env = {
        "GH_TOKEN": token,
        "GITHUB_API_URL": f"http://127.0.0.1:{port}",
        "GITHUB_REPOSITORY": "octo/widgets",
    }
    proc = run_cli("merge", "7", "--dry-run", "--format", "json", cwd=clone, env=env)
    assert proc.returncode == 3, proc.stderr
    error = _error_doc(proc.stdout)
    assert error["code"] == "github"
    assert "/repos/octo/widgets/pulls/7" in str(error["message"])
    assert token not in proc.stdout + proc.stderr


def test_without_format_json_errors_stay_on_stderr_only(tmp_path: Path) -> None:
    proc = run_cli("validate", "missing.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: missing.yaml")


def test_an_option_value_that_merely_says_json_is_not_format_json(tmp_path: Path) -> None:
    proc = run_cli("validate", "--", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""


def test_every_json_report_carries_the_schema_version() -> None:
    for args in (
        ("validate", "--format", "json"),
        ("keys", "--format", "json"),
        ("check", "--base-file", "perf-changelog.yaml", "--head-file", "perf-changelog.yaml",
         "--format", "json"),
    ):  # fmt: skip
        proc = run_cli(*args, cwd=EXAMPLE)
        doc = json.loads(proc.stdout)
        assert doc["schema-version"] == 1, args
        assert next(iter(doc)) == "schema-version"


def test_check_carries_the_reference_modifiers_into_its_json() -> None:
    proc = run_cli(
        "check", "--base-file", "perf-changelog.yaml", "--head-file", "perf-changelog.yaml",
        "--all-evals", "--format", "json", cwd=EXAMPLE,
    )  # fmt: skip
    assert json.loads(proc.stdout)["modifiers"] == {"all-evals": True, "evals-only": False}


def test_reuse_gate_accepts_the_reference_flag_names() -> None:
    proc = run_cli("reuse-gate", "--help")
    assert "--pr, --pr-number" in proc.stdout
    assert "--workflow, --workflow-id" in proc.stdout


def test_help_groups_every_command_by_who_runs_it_with_an_example() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    out = proc.stdout
    headings = [
        "For authors of a change:",
        "For CI (workflow steps):",
        "For maintainers:",
        "For git (hooks and drivers):",
    ]
    positions = [out.index(h) for h in headings]
    assert positions == sorted(positions)
    assert "Other commands" not in out  # every command has its role
    for name in COMMANDS:
        role, _example = HELP[name]
        assert role in ROLES
        assert f"  {name} " in out
    assert out.count("e.g. ") == len(COMMANDS)
    authors = out[positions[0] : positions[1]]
    assert "  new " in authors and "  validate " in authors
    assert "  merge-driver " in out[positions[3] :]


@pytest.mark.parametrize("prefix", ["re", "me"])
def test_shell_completion_completes_command_names(prefix: str) -> None:
    proc = run_cli(
        env={
            "_CHANGELOG_TOOLS_COMPLETE": "bash_complete",
            "COMP_WORDS": f"changelog-tools {prefix}",
            "COMP_CWORD": "1",
        }
    )
    assert proc.returncode == 0
    names = {line.split(",", 1)[1] for line in proc.stdout.splitlines()}
    assert names == {n for n in COMMANDS if n.startswith(prefix)}


def test_the_bash_completion_script_is_printed() -> None:
    proc = run_cli(env={"_CHANGELOG_TOOLS_COMPLETE": "bash_source"})
    assert proc.returncode == 0
    assert "complete -o nosort -F" in proc.stdout and "changelog-tools" in proc.stdout


def test_a_message_line_that_starts_with_two_colons_is_no_workflow_command(
    tmp_path: Path,
) -> None:
    # Messages carry text from elsewhere; here a file name. In a CI log a line that starts
    # with `::` would be read by the runner as a workflow command (`::add-mask::`, ...).
    name = "x\n::add-mask::secret\n  ::stop-commands::abc"
    proc = run_cli("validate", name, cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert not any(line.lstrip().startswith("::") for line in lines), lines
    assert "\u200b::add-mask::secret" in proc.stderr


def test_the_token_is_redacted_from_messages_in_any_case_spelling(tmp_path: Path) -> None:
    token = "ghp_SecretToken0123456789"
    proc = run_cli(
        "validate", f"a-{token.upper()}-b-{token.lower()}.yaml", cwd=tmp_path,
        env={"GH_TOKEN": token},
    )  # fmt: skip
    assert proc.returncode == 2
    assert token.lower() not in proc.stderr.lower()
    assert "a-***-b-***.yaml" in proc.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "--base-ref", "no-such-ref"),
        ("lint", "--base-ref", "no-such-ref"),
        ("keys", "--ref", "no-such-ref"),
        ("fix", "--base-ref", "no-such-ref"),
        ("replay", "--branch", "no-such-ref", "--last", "2"),
        ("canonicalize", "--pr", "12", "--base-ref", "no-such-ref"),
        ("canonicalize", "--pr", "12", "--base-ref", "no-such-ref", "--check"),
        ("canonicalize", "--fix-placement", "--base-ref", "no-such-ref"),
    ],
)
def test_an_unknown_revision_is_a_usage_error_with_one_wording(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    import shutil

    root = tmp_path / "bench"
    shutil.copytree(Path(changelog_tools.__file__).parent / "examples" / "inferencex-mini", root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "i")
    proc = run_cli(*argv, cwd=root)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[-2].startswith("error: unknown revision 'no-such-ref' in "), proc.stderr
    assert lines[-1] == (
        "hint: fetch it first (CI checkouts need `fetch-depth: 0`), or check the spelling"
    )


def test_an_api_host_that_does_not_resolve_fails_at_once_not_after_the_retries(
    tmp_path: Path,
) -> None:
    env = {
        "GH_TOKEN": "t0ken-for-a-test",
        "GITHUB_API_URL": "http://no-such-host.invalid/api/v3",
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_ACTIONS": "",
    }
    args = ["--event-name", "push", "--ref", "refs/heads/main", "--commit-sha", "b" * 40]
    proc = run_cli("reuse-gate", *args, cwd=tmp_path, env=env)
    assert proc.returncode == 3, proc.stderr
    assert "could not resolve the host name (not retried)" in proc.stderr
    assert "retry 1/" not in proc.stderr  # no progress line of a retry: nothing was retried


def _every_command_path() -> list[tuple[str, ...]]:
    """The group, every command, and every subcommand of a command group (`signoff verify`)."""
    import click

    from changelog_tools.cli import cli

    paths: list[tuple[str, ...]] = [()]
    for name in COMMANDS:
        command = cli.get_command(click.Context(cli), name)
        assert command is not None, name
        paths.append((name,))
        if isinstance(command, click.Group):
            paths += [(name, sub) for sub in command.list_commands(click.Context(command))]
    return paths


EVERY_COMMAND = _every_command_path()


def test_the_help_walk_covers_every_command_and_the_signoff_subcommands() -> None:
    assert {("signoff", "verify"), ("signoff", "explain")} <= set(EVERY_COMMAND)
    assert {p[0] for p in EVERY_COMMAND if p} == set(COMMANDS)


@pytest.mark.parametrize("columns", ["80", "200"])
@pytest.mark.parametrize("path", EVERY_COMMAND, ids=[" ".join(p) or "-" for p in EVERY_COMMAND])
def test_every_help_fits_80_columns_with_a_blank_line_before_its_examples(
    path: tuple[str, ...], columns: str
) -> None:
    from click.testing import CliRunner

    from changelog_tools.cli import cli

    # COLUMNS is what a terminal tells click; a wide one must not widen the help past 80.
    result = CliRunner().invoke(cli, [*path, "--help"], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    assert "\b" not in result.output  # a `\b` marker click did not consume is printed raw
    headings = [
        i for i, line in enumerate(lines) if line.strip().startswith(("Example:", "Examples:"))
    ]
    for index in headings:
        assert lines[index - 1] == "", (lines[index - 1], lines[index])
