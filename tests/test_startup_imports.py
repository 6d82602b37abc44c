"""What each command imports: a command loads the libraries it uses and no others.

Nothing is timed here (start-up time is measured in bench/, not asserted). Each case runs one
command through ``cli.run`` in a fresh interpreter and records the modules loaded by the time it
returns. The guards are the ones users feel: `validate` (the pre-commit hook) loads neither
PyGithub nor GitPython, `check` and `lint` load no PyGithub and (they ask git through plain
processes) no GitPython, a command that makes no GitHub request loads no HTTP library, and no
command loads another command's module. Each "is loaded" case next to a
"not loaded" one proves the probe sees the module when a path does need it. Which standard-library
modules load is not asserted: that is not something a user of the tool can notice.
"""

from __future__ import annotations

import json
import os
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

PROBE = """
import sys
from changelog_tools.cli import run
code = run(sys.argv[2:])
modules = sorted(sys.modules)
import json
with open(sys.argv[1], "w", encoding="utf-8") as handle:
    json.dump({"code": code, "modules": modules}, handle)
"""

PYGITHUB = ("github", "requests", "urllib3")  # PyGithub and the HTTP stack under it
GITPYTHON = ("git", "gitdb")
# What no local command (one that makes no GitHub request) loads.
LOCAL_ABSENT = (
    *PYGITHUB,
    "changelog_tools.github",
    "changelog_tools.flows",
    "changelog_tools.testing",
)


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
    """Command modules loaded besides ``own``; the shared helpers (``_common``, ``_emit``: a
    leading underscore) are no command."""
    prefix = "changelog_tools.commands."
    mine = {f"{prefix}{name}" for name in own}
    return sorted(
        m
        for m in modules
        if m.startswith(prefix) and m not in mine and not m[len(prefix) :].startswith("_")
    )


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


def test_help_imports_no_command_no_ledger_code_and_no_library_of_a_command(
    tmp_path: Path,
) -> None:
    code, modules = loaded(tmp_path, "--help")
    assert code == 0
    assert other_commands(modules) == []
    assert present(modules, "changelog_tools.ledger", "ruamel", "jsonschema", *GITPYTHON) == []
    assert present(modules, *LOCAL_ABSENT) == []


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


@pytest.mark.parametrize("name", ["head.yaml", "bad.yaml"])
def test_validate_as_the_pre_commit_hook_runs_it_loads_no_pygithub_and_no_gitpython(
    files: Path, name: str
) -> None:
    # The hook runs `changelog-tools validate FILE...` on every commit of the author's.
    (files / "bad.yaml").write_bytes(BASE + b"\n- config-keys: 7\n  pr-link: x\n")
    code, modules = loaded(files, "validate", name)
    assert code == (0 if name == "head.yaml" else 1)
    assert present(modules, *LOCAL_ABSENT, *GITPYTHON) == []
    assert other_commands(modules, "validate", "_common") == []
    assert present(modules, "ruamel") == ["ruamel"]  # the probe sees what validate does use


def test_check_in_file_mode_loads_no_pygithub_and_no_gitpython(files: Path) -> None:
    code, modules = loaded(
        files,
        "check", "--pr", "5", "--base-file", "base.yaml", "--head-file", "head.yaml",
    )  # fmt: skip
    assert code == 0
    assert present(modules, *LOCAL_ABSENT, *GITPYTHON, "changelog_tools.gitrepo") == []
    assert other_commands(modules, "check", "_common") == []


@pytest.mark.parametrize(
    ("argv", "own", "expect"),
    [
        (("check", "--pr", "5"), "check", 0),
        (("canonicalize", "--pr", "5", "--check"), "canonicalize", 1),
        (("lint",), "lint", 0),
    ],
)
def test_git_mode_commands_read_git_and_load_neither_pygithub_nor_gitpython(
    repo: Path, argv: tuple[str, ...], own: str, expect: int
) -> None:
    code, modules = loaded(repo, *argv)
    assert code == expect
    assert present(modules, *LOCAL_ABSENT, *GITPYTHON) == []
    assert present(modules, "changelog_tools.gitrepo") == ["changelog_tools.gitrepo"]
    assert other_commands(modules, own, "_common") == []


def imported(cwd: Path, *argv: str) -> tuple[int, set[str]]:
    """(exit code, every module imported) of ``python -m changelog_tools ARGV`` as a user runs
    it, read from the interpreter's own ``-X importtime`` report (stderr: one line a module)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "changelog_tools", *argv],
        cwd=cwd, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return proc.returncode, import_report(proc.stderr)


def import_report(stderr: str) -> set[str]:
    """The modules ``-X importtime`` reports imported in ``stderr``."""
    return {
        line.rpartition("|")[2].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and not line.endswith("| imported package")
    }


@pytest.mark.parametrize(
    ("argv", "expect"),
    [
        (("check", "--pr", "5"), 0),
        (("check", "--pr", "5", "--format", "github"), 0),
        (("check", "--local"), 0),
        (("check", "--pr", "5", "--main"), 1),  # the placeholder link on main
        (("lint",), 0),
    ],
)
def test_check_and_lint_read_git_without_gitpython(
    repo: Path, argv: tuple[str, ...], expect: int
) -> None:
    # They ask git a dozen questions: plain git processes, not GitPython's import (a third of
    # `check`'s time on a fresh runner).
    code, modules = imported(repo, *argv)
    assert code == expect
    assert "changelog_tools.gitrepo.objects" in modules  # git was read
    assert present(modules, *GITPYTHON) == []


def test_the_import_report_names_gitpython_where_a_question_needs_it(repo: Path) -> None:
    # The probe of the test above sees GitPython when it is imported: HEAD read by its Repo.
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         "from changelog_tools.gitrepo import open_repo; open_repo('.').current_branch()"],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert present(import_report(proc.stderr), *GITPYTHON) == ["git", "gitdb"]


def test_resolve_and_the_merge_driver_load_no_pygithub(files: Path, repo: Path) -> None:
    code, modules = loaded(
        files,
        "resolve", "--pr", "5", "--base-file", "base.yaml", "--pr-file", "head.yaml",
        "--main-file", "main.yaml", "-o", "out.yaml",
    )  # fmt: skip
    assert code == 0
    assert present(modules, *LOCAL_ABSENT, *GITPYTHON) == []  # file mode: no git either
    assert other_commands(modules, "resolve", "_common") == []
    for name, source in (("base", "base.yaml"), ("ours", "main.yaml"), ("theirs", "head.yaml")):
        (repo / ".git" / f"{name}.yaml").write_bytes((files / source).read_bytes())
    code, modules = loaded(
        repo, "merge-driver", "--pr-side", "theirs",
        ".git/base.yaml", ".git/ours.yaml", ".git/theirs.yaml",
    )  # fmt: skip
    assert code == 0
    assert present(modules, *LOCAL_ABSENT) == []
    assert other_commands(modules, "merge_driver", "_common") == []
    assert present(modules, "changelog_tools.ledger.mergedriver") == [
        "changelog_tools.ledger.mergedriver"
    ]


def test_canonicalize_check_in_file_mode_loads_no_git_library(files: Path) -> None:
    code, modules = loaded(
        files, "canonicalize", "--pr", "5", "--base-file", "base.yaml", "--check", "head.yaml"
    )
    assert code == 1  # the placeholder would be replaced
    assert present(modules, *LOCAL_ABSENT, *GITPYTHON) == []
    assert other_commands(modules, "canonicalize", "_common") == []


def test_a_reuse_decision_that_asks_nothing_loads_no_http_library(tmp_path: Path) -> None:
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
    assert present(modules, *PYGITHUB, *GITPYTHON) == []  # no client until a request
    assert present(modules, "changelog_tools.github") == ["changelog_tools.github"]


# What a whole push decision of reuse-gate leaves alone: signing off, merging, the ledger, YAML
# and schemas when the repository has neither a configuration file nor a changelog.
REUSE_GATE_ABSENT = (
    "changelog_tools.signoff", "changelog_tools.flows", "changelog_tools.testing",
    "changelog_tools.ledger", "changelog_tools.yamlload", "ruamel", "jsonschema",
)  # fmt: skip


def test_a_whole_reuse_decision_loads_pygithub_and_no_other_feature(
    tmp_path: Path, fake: FakeGitHub
) -> None:
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
    # the probe sees the libraries the decision does use
    assert present(modules, "github", "changelog_tools.gitrepo") == [
        "changelog_tools.gitrepo", "github",
    ]  # fmt: skip
    assert other_commands(modules, "reuse_gate", "_common") == []


@pytest.mark.parametrize(("body", "html"), [("LGTM", False), ("LGTM <b>x</b>", True)])
def test_signoff_explain_makes_no_request_and_parses_html_only_when_a_body_has_some(
    tmp_path: Path, body: str, html: bool
) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("changelog: perf-changelog.yaml\n")
    (tmp_path / "c.md").write_text(body)
    code, modules = loaded(tmp_path, "signoff", "explain", "c.md")
    assert code == 0
    assert present(modules, *LOCAL_ABSENT) == []
    assert present(modules, "cmarkgfm") == ["cmarkgfm"]
    assert present(modules, "html5lib") == (["html5lib"] if html else [])


@pytest.mark.parametrize(
    ("name", "expect", "jsonschema"),
    [("head.yaml", 0, []), ("bad.yaml", 1, ["jsonschema"])],
)
def test_jsonschema_loads_only_for_an_entry_the_schema_read_directly_cannot_accept(
    files: Path, name: str, expect: int, jsonschema: list[str]
) -> None:
    # A valid changelog is judged without jsonschema (its import costs a short process more than
    # the judging); an entry that breaks the schema is worded by jsonschema, as always.
    (files / "bad.yaml").write_bytes(BASE + b"\n- config-keys: 7\n  pr-link: x\n")
    code, modules = loaded(files, "validate", name)
    assert code == expect
    assert present(modules, "jsonschema") == jsonschema


def test_canonicalize_in_git_mode_runs_git_without_gitpython(repo: Path) -> None:
    code, modules = loaded(repo, "canonicalize", "--pr", "5", "--check")
    assert code == 1  # the placeholder would be replaced: the base was read from git
    assert present(modules, "changelog_tools.gitrepo") == ["changelog_tools.gitrepo"]
    assert present(modules, *LOCAL_ABSENT, *GITPYTHON) == []
