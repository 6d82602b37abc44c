"""The start-up budget, held by what each command imports (issue 14): nothing is timed here.

Each case runs one command through ``cli.run`` in a fresh interpreter and records the modules
loaded by the time it returns. A heavy module that comes back onto a path that does not need it
(PyGithub or any HTTP client for `check`, jsonschema for valid input, GitPython anywhere, another
command's module) fails the test that names the path. Each "is loaded" case next to a "not
loaded" one proves the probe sees the module when a path does need it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from changelog_tools.cli import COMMANDS, SUMMARIES, cli
from changelog_tools.github.actions_env import read_step_outputs
from changelog_tools.testing.fakegithub import FakeCommit, FakeGitHub
from tests.checkdata import BASE, CONFIG, MASTERS, PULL, appended, entry, init_repo
from tests.conftest import commit_files, git
from tests.fakegithub_fixtures import env_for

# The modules are listed before the probe imports json to write them down, so that json
# itself can be asserted absent.
PROBE = """
import sys
from changelog_tools.cli import run
code = run(sys.argv[2:])
modules = sorted(sys.modules)
import json
with open(sys.argv[1], "w", encoding="utf-8") as handle:
    json.dump({"code": code, "modules": modules}, handle)
"""

# Modules no local command needs: GitHub's client stack, and GitPython (no longer used).
NETWORK = ("github", "requests", "urllib3", "http.client", "ssl", "changelog_tools.github")
GITPYTHON = ("git", "gitdb")
ALWAYS_ABSENT = (*NETWORK, *GITPYTHON, "changelog_tools.flows", "changelog_tools.testing")


def loaded(cwd: Path, *argv: str, env: dict[str, str] | None = None) -> tuple[int, set[str]]:
    """(exit code, modules loaded) of ``changelog-tools ARGV`` run in a fresh interpreter."""
    out = cwd / ".probe.json"
    subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *argv],
        cwd=cwd,
        check=True,
        capture_output=True,
        env=env,
    )
    result = json.loads(out.read_text(encoding="utf-8"))
    out.unlink()
    return int(result["code"]), set(result["modules"])


def present(modules: set[str], *names: str) -> list[str]:
    """Which of ``names`` (a module or any of its submodules) are in ``modules``."""
    return sorted(
        name for name in names if any(m == name or m.startswith(name + ".") for m in modules)
    )


def other_commands(modules: set[str], *own: str) -> list[str]:
    mine = {f"changelog_tools.commands.{name}" for name in own}
    return sorted(m for m in modules if m.startswith("changelog_tools.commands.") and m not in mine)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """A directory (no git) holding a base, a head with one appended entry, and the masters."""
    d = tmp_path / "files"
    (d / "configs").mkdir(parents=True)
    (d / "base.yaml").write_bytes(BASE)
    (d / "head.yaml").write_bytes(appended(entry("alpha-fp8-gpu-a-vllm")))
    (d / "main.yaml").write_bytes(appended(entry("beta-fp4-gpu-b-trt", link=f"{PULL}7")))
    for rel, data in MASTERS.items():
        (d / rel).write_bytes(data)
    (d / ".changelog-tools.yaml").write_text(CONFIG)
    return d


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on branch `pr` that appends one entry to main's changelog."""
    path = init_repo(tmp_path / "repo")
    git(path, "checkout", "-q", "-b", "pr")
    commit_files(path, {"perf-changelog.yaml": appended(entry("alpha-fp8-gpu-a-vllm"))}, "append")
    return path


def test_help_imports_no_command_and_no_ledger_code(tmp_path: Path) -> None:
    code, modules = loaded(tmp_path, "--help")
    assert code == 0
    assert other_commands(modules) == []
    assert present(modules, "changelog_tools.ledger", "ruamel", *ALWAYS_ABSENT) == []


def test_every_command_has_a_summary_that_matches_its_own_help() -> None:
    import click

    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None and command.help is not None
        first = " ".join(command.help.split("\n\n")[0].split())
        assert SUMMARIES.get(name) == first, (
            f"cli.SUMMARIES[{name!r}] must be the first paragraph of its help"
        )


def test_validate_of_valid_input_needs_no_jsonschema(files: Path) -> None:
    code, modules = loaded(files, "validate", "head.yaml")
    assert code == 0
    assert present(modules, "jsonschema", *ALWAYS_ABSENT, "subprocess") == []
    assert other_commands(modules, "validate", "_common") == []


def test_validate_of_invalid_input_loads_jsonschema_to_explain_it(files: Path) -> None:
    (files / "bad.yaml").write_bytes(BASE + b"\n- config-keys: 7\n  pr-link: x\n")
    code, modules = loaded(files, "validate", "bad.yaml")
    assert code == 1
    assert present(modules, "jsonschema") == ["jsonschema"]  # the probe sees it when used


def test_a_valid_config_file_is_read_without_jsonschema(files: Path) -> None:
    assert (files / ".changelog-tools.yaml").is_file()
    code, modules = loaded(files, "keys", "alpha-*")
    assert code == 0
    assert present(modules, "jsonschema") == []


def test_an_invalid_config_file_loads_jsonschema_to_explain_it(files: Path) -> None:
    (files / ".changelog-tools.yaml").write_text("github-retries: -1\n")
    code, modules = loaded(files, "keys", "alpha-*")
    assert code == 2
    assert present(modules, "jsonschema") == ["jsonschema"]


def test_check_in_file_mode_starts_no_git_and_no_network_client(files: Path) -> None:
    code, modules = loaded(
        files,
        "check", "--pr", "5", "--base-file", "base.yaml", "--head-file", "head.yaml",
    )  # fmt: skip
    assert code == 0
    assert present(modules, "jsonschema", *ALWAYS_ABSENT, "changelog_tools.gitrepo") == []
    assert other_commands(modules, "check", "_common") == []


@pytest.mark.parametrize(
    ("argv", "own", "expect"),
    [
        (("check", "--pr", "5"), "check", 0),
        (("canonicalize", "--pr", "5", "--check"), "canonicalize", 1),
        (("lint",), "lint", 0),  # a change to the changelog only: no schema to load
    ],
)
def test_git_mode_commands_run_git_without_gitpython(
    repo: Path, argv: tuple[str, ...], own: str, expect: int
) -> None:
    code, modules = loaded(repo, *argv)
    assert code == expect
    assert present(modules, "jsonschema", *ALWAYS_ABSENT) == []
    assert present(modules, "changelog_tools.gitrepo") == ["changelog_tools.gitrepo"]
    assert other_commands(modules, own, "_common") == []


def test_resolve_and_the_merge_driver_need_no_network_client(files: Path, repo: Path) -> None:
    code, modules = loaded(
        files,
        "resolve", "--pr", "5", "--base-file", "base.yaml", "--pr-file", "head.yaml",
        "--main-file", "main.yaml", "-o", "out.yaml",
    )  # fmt: skip
    assert code == 0
    assert present(modules, "jsonschema", *ALWAYS_ABSENT) == []
    (repo / ".git" / "base.yaml").write_bytes((files / "base.yaml").read_bytes())
    (repo / ".git" / "ours.yaml").write_bytes((files / "main.yaml").read_bytes())
    (repo / ".git" / "theirs.yaml").write_bytes((files / "head.yaml").read_bytes())
    code, modules = loaded(
        repo, "merge-driver", "--pr-side", "theirs",
        ".git/base.yaml", ".git/ours.yaml", ".git/theirs.yaml",
    )  # fmt: skip
    assert code == 0
    assert present(modules, "jsonschema", *ALWAYS_ABSENT) == []


def test_a_reuse_decision_that_asks_nothing_opens_no_http_client(tmp_path: Path) -> None:
    import os

    env = {
        **os.environ,
        "GH_TOKEN": "t",
        # never contacted: a push to another branch is decided without a request
        "GITHUB_API_URL": "http://127.0.0.1:9/api/v3",
        "GITHUB_REPOSITORY": "o/r",
    }
    code, modules = loaded(
        tmp_path,
        "reuse-gate", "--event-name", "push", "--ref", "refs/heads/feature",
        "--commit-sha", "a" * 40,
        env=env,
    )  # fmt: skip
    assert code == 0
    assert present(modules, *NETWORK[:-1], *GITPYTHON) == []  # no client until a request
    assert present(modules, "changelog_tools.github") == ["changelog_tools.github"]


def test_json_is_loaded_only_to_print_json(tmp_path: Path) -> None:
    code, modules = loaded(tmp_path, "check", "--help")  # loads the diagnostics module
    assert code == 0
    assert present(modules, "changelog_tools.diagnostics") == ["changelog_tools.diagnostics"]
    assert present(modules, "json") == []
    code, modules = loaded(tmp_path, "no-such-command", "--format", "json")
    assert code == 2  # the usage error is printed as one JSON object
    assert present(modules, "json") == ["json"]


# ----------------------------------------------------------------------------------------------
# reuse-gate's request path (issue 14, githubfast): what a whole push decision loads

# What the GitHub session no longer imports: http.client (it loads the email package to parse
# headers, ~20 ms), urllib.request, and ssl for an http API; nor anything of signing off,
# merging, the ledger or YAML when the repository has neither a configuration file nor a
# changelog, nor pathspec when no path differs after the source run, nor secrets (with random,
# hashlib, hmac) for the step outputs' delimiters.
REUSE_GATE_ABSENT = (
    "http.client", "email", "urllib.request", "ssl", "github", "requests", "urllib3",
    *GITPYTHON, "changelog_tools.signoff", "changelog_tools.flows", "changelog_tools.testing",
    "changelog_tools.ledger", "changelog_tools.yamlload", "ruamel", "pathspec", "jsonschema",
    "secrets", "hashlib",
    # its JSON comes from jsontext: the diagnostic catalogue is for commands that report findings
    "changelog_tools.diagnostics",
)  # fmt: skip


def test_a_whole_reuse_decision_loads_no_http_library_and_no_other_feature(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    import os

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit_files(repo, {"benchmarks/run.sh": "echo v1\n"}, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    swept = commit_files(repo, {"notes.txt": "pr\n"}, "pr")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--squash", "feature")
    git(repo, "commit", "-q", "-m", "pr (#7)")
    merged = git(repo, "rev-parse", "HEAD")
    fake.add_pull(
        7, "feature", head_sha=swept, state="closed", merged=True,
        merged_at="2024-02-01T00:00:00Z", merge_commit_sha=merged,
        labels=["full-sweep-enabled"], commits=[FakeCommit(swept)],
    )  # fmt: skip
    fake.add_comment(7, "/reuse-sweep-run", "bob", "MEMBER")
    fake.add_run("run-sweep.yml", swept, head_branch="feature", artifacts=["results_bmk"])
    outputs, summary = tmp_path / "outputs", tmp_path / "summary.md"
    env = {**os.environ, **env_for(fake)}
    env.update(GITHUB_OUTPUT=str(outputs), GITHUB_STEP_SUMMARY=str(summary))
    for name in ("GITHUB_EVENT_PATH", "GITHUB_ACTIONS"):
        env.pop(name, None)
    code, modules = loaded(
        repo,
        "reuse-gate", "--event-name", "push", "--ref", "refs/heads/main", "--commit-sha", merged,
        env=env,
    )  # fmt: skip
    assert code == 0
    assert read_step_outputs(outputs.read_text())["reuse-enabled"] == "true"  # as a step does
    assert "Source run" in summary.read_text()
    assert fake.count() == 5  # the decision was made over HTTP: pulls, comments, commits, ...
    assert len(fake.requests(pattern="/artifacts")) == 1  # ... down to the chosen run's artifacts
    assert present(modules, *REUSE_GATE_ABSENT) == []
    # the probe sees the modules the decision does use
    assert present(modules, "socket", "changelog_tools.github.client", "changelog_tools.gitrepo") == [
        "changelog_tools.github.client", "changelog_tools.gitrepo", "socket",
    ]  # fmt: skip
    assert other_commands(modules, "reuse_gate", "_common") == []


# -- validate, resolve, canonicalize, merge-driver (helper ledgerfast) ---------------------------
# What each of these keeps off its path: `validate` reads one whole file and needs none of the
# append-only machinery; the file modes start no git process; a read-only `canonicalize --check`
# opens no temporary file; none of them needs the placement fixer unless asked.

APPEND_ONLY = (
    "changelog_tools.ledger.check",
    "changelog_tools.ledger.appendonly",
    "changelog_tools.ledger.masterconfig",
    "changelog_tools.ledger.guard",
    "changelog_tools.ledger.canonicalize",
    "changelog_tools.ledger.resolve",
)
GIT = ("subprocess", "changelog_tools.gitrepo", "changelog_tools.ledger.mergedriver")


def test_validate_loads_no_append_only_machinery_and_no_git(files: Path) -> None:
    code, modules = loaded(files, "validate", "head.yaml")
    assert code == 0
    assert present(modules, *APPEND_ONLY, *GIT, "changelog_tools.ledger.placement") == []
    assert present(modules, "changelog_tools.ledger.document") == [
        "changelog_tools.ledger.document"
    ]


def test_resolve_in_file_mode_starts_no_git(files: Path) -> None:
    code, modules = loaded(
        files,
        "resolve", "--pr", "5", "--base-file", "base.yaml", "--pr-file", "head.yaml",
        "--main-file", "main.yaml", "--output", "out.yaml",
    )  # fmt: skip
    assert code == 0
    assert present(modules, *GIT, "changelog_tools.ledger.placement") == []
    # the write guard checks the result with `check`'s rules but no config keys
    assert present(modules, "changelog_tools.ledger.masterconfig") == []
    assert other_commands(modules, "resolve", "_common") == []
    assert present(modules, "changelog_tools.ledger.resolve", "tempfile") == [
        "changelog_tools.ledger.resolve",
        "tempfile",  # it writes: the atomic write needs it, and the probe sees it
    ]


def test_canonicalize_check_in_file_mode_starts_no_git_and_opens_no_temporary_file(
    files: Path,
) -> None:
    code, modules = loaded(
        files, "canonicalize", "--pr", "5", "--base-file", "base.yaml", "--check", "head.yaml"
    )
    assert code == 1  # the placeholder would be replaced
    assert present(modules, *GIT, "tempfile", "changelog_tools.ledger.placement") == []
    assert other_commands(modules, "canonicalize", "_common") == []


def test_the_merge_driver_loads_no_other_command_and_no_placement_fixer(
    files: Path, repo: Path
) -> None:
    for name, source in (("base", "base.yaml"), ("ours", "main.yaml"), ("theirs", "head.yaml")):
        (repo / ".git" / f"{name}.yaml").write_bytes((files / source).read_bytes())
    code, modules = loaded(
        repo, "merge-driver", "--pr-side", "theirs",
        ".git/base.yaml", ".git/ours.yaml", ".git/theirs.yaml",
    )  # fmt: skip
    assert code == 0
    assert present(modules, "changelog_tools.ledger.placement") == []
    assert other_commands(modules, "merge_driver", "_common") == []
    assert present(modules, "changelog_tools.ledger.mergedriver") == [
        "changelog_tools.ledger.mergedriver"
    ]


def test_a_usual_appended_entry_is_checked_without_the_yaml_parser(files: Path) -> None:
    argv = ("check", "--pr", "5", "--base-file", "base.yaml", "--head-file", "head.yaml")
    code, modules = loaded(files, *argv)
    assert code == 0
    assert present(modules, "ruamel", "_ruamel_yaml") == []
    # an entry in a shape the simple reader leaves to the parser (a flow list) loads it
    head = (files / "head.yaml").read_bytes()
    (files / "head.yaml").write_bytes(
        head.replace(b"description:\n", b"evals: [a]\n  description:\n", 1)
    )
    code, modules = loaded(files, *argv)
    assert present(modules, "ruamel") == ["ruamel"]
