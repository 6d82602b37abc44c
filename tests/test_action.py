"""The composite action (action.yml) in a throwaway repository's workflow, run step by step as
the runner would (tests/actionrunner.py), against the fake GitHub where the command needs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from changelog_tools import yamlload
from changelog_tools.testing.fakegithub import FakeGitHub
from tests.actionrunner import StepResult, run_step
from tests.checkdata import BASE
from tests.conftest import REPO_ROOT, commit_files, git
from tests.fakegithub_fixtures import env_for

EXAMPLE_CHANGELOG = (
    Path(__file__).resolve().parent.parent / "changelog_tools/examples/inferencex-mini"
)


def _throwaway(tmp_path: Path) -> Path:
    repo = tmp_path / "bench"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {
        p.relative_to(EXAMPLE_CHANGELOG).as_posix(): p.read_bytes()
        for p in EXAMPLE_CHANGELOG.rglob("*")
        if p.is_file()
    }
    commit_files(repo, files, "initial")
    return repo


def _step(**with_: str) -> dict[str, object]:
    return {"name": "tool", "uses": "./", "with": with_}


def test_validate_through_the_action_on_a_throwaway_repository(tmp_path: Path) -> None:
    repo = _throwaway(tmp_path)
    result = run_step(
        _step(command="validate", format="json", args="perf-changelog.yaml"),
        cwd=repo,
        context={},
        env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ok"] is True
    assert result.outputs["exit-code"] == "0"


def test_reuse_gate_through_the_action_talks_to_the_runner_api(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    repo = _throwaway(tmp_path)
    env = {
        **os.environ,
        **env_for(fake),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_SHA": git(repo, "rev-parse", "HEAD"),
        "GITHUB_REF": "refs/heads/main",
    }
    out = tmp_path / "reuse.json"
    result = run_step(
        _step(command="reuse-gate", **{"output-file": str(out)}), cwd=repo, context={}, env=env
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["reuse-enabled"] == "false"
    assert fake.count() >= 1


@pytest.mark.parametrize(
    ("with_", "message"),
    [
        ({"command": "check; rm -rf /"}, "is not a command name"),
        ({"command": "check", "pr": "10 --main"}, "is not a pull request number"),
    ],
)
def test_malformed_inputs_stop_before_the_tool_runs(
    tmp_path: Path, with_: dict[str, str], message: str
) -> None:
    repo = _throwaway(tmp_path)
    result = run_step(_step(**with_), cwd=repo, context={}, env=dict(os.environ))
    assert result.returncode == 2
    assert message in result.stderr
    assert "changelog-tools check" not in result.stderr  # never started


def test_args_are_split_on_whitespace_and_never_globbed(tmp_path: Path) -> None:
    repo = _throwaway(tmp_path)
    result = run_step(
        _step(command="validate", args="*.yaml"), cwd=repo, context={}, env=dict(os.environ)
    )
    assert result.returncode == 2  # the literal path "*.yaml" does not exist
    assert "*.yaml" in result.stderr


def test_an_input_the_action_does_not_declare_is_an_error() -> None:
    with pytest.raises(ValueError, match="not declared"):
        run_step(_step(command="check", formatx="json"), cwd=Path("."), context={}, env={})


def test_a_later_step_of_the_same_job_reuses_the_installed_tool(tmp_path: Path) -> None:
    """RUNNER_TEMP lives as long as the job; the venv a first step installed there with the same
    version is reused (the real install, twice in one job, runs in .ci/run)."""
    import shutil

    from tests.actionrunner import ROOT

    repo = _throwaway(tmp_path)
    job_temp = tmp_path / "runner-temp"
    venv_bin = job_temp / "changelog-tools-venv" / "bin"
    venv_bin.mkdir(parents=True)
    real = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert real
    tool = venv_bin / "changelog-tools"
    tool.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n')
    tool.chmod(0o755)
    (job_temp / "changelog-tools-venv" / "changelog-tools-spec").write_text(str(ROOT))
    (job_temp / "changelog-tools-venv" / "changelog-tools-deps").write_text("local")
    result = run_step(
        _step(command="validate", args="perf-changelog.yaml"),
        cwd=repo,
        context={},
        env=dict(os.environ),
        install=True,
        runner_temp=job_temp,
    )
    assert result.returncode == 0, result.stderr
    assert "changelog-tools: already installed in this job" in result.stderr
    assert not (venv_bin / "python").exists()  # no venv was created, no pip ran


# -- the shipped workflows: the required check always reports; sign-off through the action -------

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github/workflows"


def _workflow(name: str) -> dict[str, object]:
    from changelog_tools import yamlload

    doc: dict[str, object] = yamlload.load((WORKFLOWS / name).read_text()).value
    return doc


def test_check_changelog_runs_on_every_pull_request_and_gates_its_work_on_the_scope_step() -> None:
    """A required check with a `paths` filter never reports on the pull requests it filters out,
    and GitHub blocks them: the workflow runs on all of them and ends early instead."""
    doc = _workflow("check-changelog.yml")
    on = doc.get("on") or doc[True]  # type: ignore[index]
    assert isinstance(on, dict)
    for event in on.values():
        assert not set(event or {}) & {"paths", "paths-ignore"}, event
    jobs = doc["jobs"]
    assert isinstance(jobs, dict) and set(jobs) == {"check-changelog", "lint"}
    for name, job in jobs.items():
        steps = job["steps"]
        assert steps[0]["uses"].startswith("actions/checkout@"), name
        assert steps[1]["id"] == "scope", name
        for step in steps[2:]:  # nothing is installed or run before the scope says so
            assert "steps.scope.outputs.run == 'true'" in step.get("if", ""), (name, step)


def _run_scope(repo: Path, tmp_path: Path, **env: str) -> tuple[str, str]:

    from tests.actionrunner import evaluate, find_step, load_steps

    step = find_step(load_steps(WORKFLOWS / "check-changelog.yml", "check-changelog"), "In scope?")
    context = {"github": {"event": {"pull_request": {
        "base": {"sha": env.get("base", "")}, "head": {"sha": env.get("head", "")}}}}}  # fmt: skip
    output = tmp_path / "github-output"
    output.write_text("")
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", step["run"]],
        cwd=repo,
        env={
            **os.environ,
            "GITHUB_OUTPUT": str(output),
            **{k: evaluate(v, context) for k, v in step["env"].items()},
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return output.read_text().strip(), proc.stderr


@pytest.mark.parametrize(
    ("changed", "expected"),
    [
        ({"README.md": "docs only\n"}, "run=false"),
        ({"perf-changelog.yaml": None}, "run=true"),
        ({"configs/gpu-a-master.yaml": None}, "run=true"),
        ({"benchmarks/single_node/x.sh": "#!/bin/sh\n"}, "run=true"),
        ({"runners/launch.sh": "#!/bin/sh\n"}, "run=true"),
    ],
)
def test_the_scope_step_ends_a_pull_request_outside_the_gate_early(
    tmp_path: Path, changed: dict[str, str | None], expected: str
) -> None:
    repo = _throwaway(tmp_path)
    git(repo, "checkout", "-qb", "feature")
    files = {
        path: text if text is not None else (repo / path).read_text() + "# touched\n"
        for path, text in changed.items()
    }
    head = commit_files(repo, files, "the pull request")
    # main moves on meanwhile, touching the changelog: the merge-base is what counts
    git(repo, "checkout", "-q", "main")
    commit_files(repo, {"perf-changelog.yaml": (repo / "perf-changelog.yaml").read_text() + "\n"},
                 "main moves on")  # fmt: skip
    outputs, stderr = _run_scope(repo, tmp_path, base=git(repo, "rev-parse", "HEAD"), head=head)
    assert outputs == expected
    assert ("nothing to check" in stderr) is (expected == "run=false")


def test_the_scope_step_runs_everything_outside_a_pull_request_or_when_git_cannot_tell(
    tmp_path: Path,
) -> None:
    repo = _throwaway(tmp_path)
    assert _run_scope(repo, tmp_path)[0] == "run=true"  # push, merge_group: no PR head
    missing = "0" * 40
    assert _run_scope(repo, tmp_path, base=missing, head=missing)[0] == "run=true"


def test_signoff_verify_runs_the_subcommand_with_the_pr_through_the_action(tmp_path: Path) -> None:
    from tests.actionrunner import find_step, load_steps

    repo = _throwaway(tmp_path)
    step = find_step(load_steps(WORKFLOWS / "signoff-verify.yml", "verify"), "Verify the sign-off")
    env = {k: v for k, v in os.environ.items() if k not in ("GH_TOKEN", "GITHUB_TOKEN")}
    result = run_step(step, cwd=repo, context={"inputs": {"pr": "5"}}, env=env)
    assert "changelog-tools signoff verify --pr 5" in result.stderr.splitlines()
    # parsed (`verify` took --pr), then stopped: this environment has no token
    assert result.returncode == 2
    assert "error: GH_TOKEN or GITHUB_TOKEN must hold a GitHub token" in result.stderr


def _action_copy(target: Path) -> Path:
    """What the install reads of the action: action.yml, pyproject.toml, the list of the local
    commands' dependencies and the package."""
    import shutil

    from tests.actionrunner import ROOT

    target.mkdir()
    for name in ("action.yml", "pyproject.toml", "action-requirements.txt"):
        shutil.copy2(ROOT / name, target / name)
    shutil.copytree(
        ROOT / "changelog_tools", target / "changelog_tools",
        ignore=shutil.ignore_patterns("__pycache__"),
    )  # fmt: skip
    return target


def _cache_key(repo: Path, action: Path, command: str = "validate", **with_: str) -> str:
    """The key the action hands to the cache's restore step (the install itself not run)."""
    seen: dict[str, str] = {}

    def restore(given, _steps):  # type: ignore[no-untyped-def]
        seen.update(given)
        return {"cache-hit": "false"}

    result = run_step(
        _step(command=command, args="--help", **with_),
        cwd=repo,
        context={},
        env=dict(os.environ),
        action_path=action,
        stand_ins={"actions/cache/restore": restore},
    )
    assert result.returncode == 0, result.stderr
    return seen.get("key", "")


def test_the_cache_key_names_the_tools_files_the_installer_and_the_release(
    tmp_path: Path,
) -> None:
    repo = _throwaway(tmp_path)
    action = _action_copy(tmp_path / "action")
    key = _cache_key(repo, action)
    assert key.startswith("changelog-tools-venv-v2-Linux-")
    assert _cache_key(repo, action) == key
    assert _cache_key(repo, action, installer="pip") != key
    assert _cache_key(repo, action, version="0.1.0") != key
    assert _cache_key(repo, action, version="0.1.0").endswith("-0.1.0")
    assert _cache_key(repo, action, cache="false") == ""
    # A local command's environment (without the GitHub-only dependencies) is not one that a
    # GitHub command may restore, and a release from the index always gets all of its own.
    assert "-uv-local-" in key
    assert _cache_key(repo, action, command="check") == key
    everything = _cache_key(repo, action, command="reuse-gate")
    assert "-uv-all-" in everything
    assert everything.replace("-all-", "-local-") == key
    assert "-uv-all-0.1.0" in _cache_key(repo, action, version="0.1.0")
    # The list of the local commands' dependencies is part of what the key digests.
    listed = action / "action-requirements.txt"
    original = listed.read_bytes()
    listed.write_bytes(original + b"pathspec>=0.12\n")
    assert _cache_key(repo, action) != key
    listed.write_bytes(original)
    assert _cache_key(repo, action) == key
    # Any change to what the install builds from (one byte of one module) is another key.
    module = action / "changelog_tools" / "numbers.py"
    module.write_bytes(module.read_bytes() + b"\n")
    changed = _cache_key(repo, action)
    assert changed != key
    # So is a file added (even an empty one) or renamed: names are part of the digest.
    (action / "changelog_tools" / "empty.txt").write_bytes(b"")
    assert _cache_key(repo, action) not in (key, changed)


def test_a_restored_environment_is_used_only_for_the_same_install_spec(tmp_path: Path) -> None:
    import shutil
    import sys

    repo = _throwaway(tmp_path)
    action = _action_copy(tmp_path / "action")
    job_temp = tmp_path / "runner-temp"
    job_temp.mkdir()
    real = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert real

    def restore_with(spec: str):  # type: ignore[no-untyped-def]
        def restore(given, _steps):  # type: ignore[no-untyped-def]
            venv = Path(given["path"])
            (venv / "bin").mkdir(parents=True)
            (venv / "bin" / "changelog-tools").write_text(f'#!/bin/sh\nexec "{real}" "$@"\n')
            (venv / "bin" / "changelog-tools").chmod(0o755)
            (venv / "changelog-tools-spec").write_text(spec)
            (venv / "changelog-tools-deps").write_text("local")
            return {"cache-hit": "true"}

        return restore

    result = run_step(
        _step(command="validate", args="perf-changelog.yaml"),
        cwd=repo, context={}, env=dict(os.environ), install=True, runner_temp=job_temp,
        action_path=action, stand_ins={"actions/cache/restore": restore_with(str(action))},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "changelog-tools: restored from the cache" in result.stderr
    assert result.outputs["exit-code"] == "0"
    # A restored environment that names another spec is not taken: the step installs (here
    # with no uv and a python3 that cannot make a venv, so it fails where it installs).
    shutil.rmtree(job_temp)
    job_temp.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bash").symlink_to(shutil.which("bash") or "/bin/bash")
    (bin_dir / "python3").write_text(
        '#!/bin/sh\nif [ "$1 $2" = "-m venv" ]; then echo "no venv here" >&2; exit 97; fi\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    (bin_dir / "python3").chmod(0o755)
    result = run_step(
        _step(command="validate", args="perf-changelog.yaml"),
        cwd=repo, context={}, env={**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"},
        install=True, runner_temp=job_temp, action_path=action,
        stand_ins={"actions/cache/restore": restore_with("perf-changelog-tools==0.0.1")},
    )  # fmt: skip
    assert result.returncode == 97
    assert "no venv here" in result.stderr
    assert "restored from the cache" not in result.stderr


def test_an_installer_other_than_uv_or_pip_stops_before_anything_is_installed(
    tmp_path: Path,
) -> None:
    repo = _throwaway(tmp_path)
    temp = tmp_path / "t"
    temp.mkdir()
    result = run_step(
        _step(command="validate", installer="conda"),
        cwd=repo, context={}, env=dict(os.environ), install=True, runner_temp=temp,
    )  # fmt: skip
    assert result.returncode == 2
    assert "installer 'conda' is neither uv nor pip" in result.stderr
    assert not (temp / "changelog-tools-venv").exists()


# -- hostile input, pinned through the installed CLI -------------------------------------------


def test_the_workflow_validates_the_whole_file_on_every_push_to_main(tmp_path: Path) -> None:
    workflow = yamlload.load((REPO_ROOT / ".github/workflows/check-changelog.yml").read_text())
    doc = workflow.value
    assert "paths" not in doc["on"]["push"]  # every push, changelog touched or not
    step = next(
        s for s in doc["jobs"]["check-changelog"]["steps"]
        if s.get("name") == "Validate the whole changelog (main)"
    )  # fmt: skip
    # the scope step says `run=true` for anything but a pull request (test_action.py runs it)
    assert (
        step["if"] == "always() && steps.scope.outputs.run == 'true' && github.event_name == 'push'"
    )
    # A main an old bug left invalid (a tab in entry 1's history) turns red and names the line.
    broken = BASE.replace(b'    - "First sweep"', b'    - "First\tsweep"')
    (tmp_path / "perf-changelog.yaml").write_bytes(broken)
    # the step runs through the composite action, as the runner runs it
    from tests.actionrunner import run_step

    proc = run_step(step, cwd=tmp_path, context={}, env=dict(os.environ))
    assert proc.returncode == 1
    assert proc.stdout.startswith("::error file=perf-changelog.yaml,line=4,")


# -- which dependencies the install brings: the local commands' list, or everything ------------


def _recording_uv(tmp_path: Path) -> tuple[Path, Path]:
    """(a PATH directory whose `uv` logs each call and makes a venv running this checkout's tool
    instead of installing, the log)."""
    import shutil

    real = shutil.which("changelog-tools", path=str(Path(sys.executable).parent))
    assert real
    bin_dir, log = tmp_path / "uv-bin", tmp_path / "uv.log"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text(
        "#!/bin/bash\n"
        f'echo "$*" >> "{log}"\n'
        'if [ "$1" = venv ]; then\n'
        '  venv="${*: -1}"; mkdir -p "$venv/bin"\n'
        f'  printf \'#!/bin/sh\\nexec "%s" "$@"\\n\' "{real}" > "$venv/bin/changelog-tools"\n'
        '  chmod +x "$venv/bin/changelog-tools"\n'
        "fi\n"
    )
    (bin_dir / "uv").chmod(0o755)
    return bin_dir, log


def test_a_local_command_installs_the_tool_without_its_github_dependencies(
    tmp_path: Path,
) -> None:
    repo = _throwaway(tmp_path)
    action = _action_copy(tmp_path / "action")
    bin_dir, log = _recording_uv(tmp_path)
    job_temp = tmp_path / "runner-temp"
    job_temp.mkdir()
    venv = job_temp / "changelog-tools-venv"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}

    def step(command: str, args: str) -> tuple[StepResult, list[str]]:
        before = log.read_text().splitlines() if log.exists() else []
        result = run_step(
            _step(command=command, args=args), cwd=repo, context={}, env=env, install=True,
            runner_temp=job_temp, action_path=action,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        calls = log.read_text().splitlines()[len(before) :] if log.exists() else []
        return result, calls

    # check, validate, lint ...: the tool with --no-deps, then the listed dependencies
    _, calls = step("validate", "perf-changelog.yaml")
    py = f"--python {venv}/bin/python"
    assert calls[1:] == [
        f"pip install --quiet {py} --no-deps {action}",
        f"pip install --quiet {py} --requirement {action}/action-requirements.txt",
    ]
    assert (venv / "changelog-tools-deps").read_text() == "local"
    # A later step of the job that talks to GitHub does not take that venv: it installs all.
    result, calls = step("reuse-gate", "--help")
    assert "already installed in this job" not in result.stderr
    assert calls[1:] == [f"pip install --quiet {py} {action}"]
    assert (venv / "changelog-tools-deps").read_text() == "all"
    # ... and a local command after it reuses the full one.
    result, calls = step("check", "--help")
    assert "already installed in this job" in result.stderr
    assert calls == []


def test_a_release_from_the_index_gets_all_its_dependencies_whatever_the_command(
    tmp_path: Path,
) -> None:
    repo = _throwaway(tmp_path)
    action = _action_copy(tmp_path / "action")
    bin_dir, log = _recording_uv(tmp_path)
    job_temp = tmp_path / "runner-temp"
    job_temp.mkdir()
    result = run_step(
        _step(command="validate", args="--help", version="0.1.0"), cwd=repo, context={},
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}, install=True,
        runner_temp=job_temp, action_path=action,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    calls = log.read_text().splitlines()
    venv = job_temp / "changelog-tools-venv"
    # the list is this commit's: a release declares its own dependencies
    assert calls[1:] == [
        f"pip install --quiet --python {venv}/bin/python perf-changelog-tools==0.1.0"
    ]
    assert (venv / "changelog-tools-deps").read_text() == "all"


def test_a_python_that_cannot_digest_the_tool_stops_before_the_cache_is_asked(
    tmp_path: Path,
) -> None:
    """The cache key is never made of empty parts: a failed digest fails the step."""
    import shutil

    repo = _throwaway(tmp_path)
    action = _action_copy(tmp_path / "action")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bash").symlink_to(shutil.which("bash") or "/bin/bash")
    (bin_dir / "python3").write_text('#!/bin/sh\necho "broken python" >&2\nexit 3\n')
    (bin_dir / "python3").chmod(0o755)
    asked: list[str] = []

    def restore(given, _steps):  # type: ignore[no-untyped-def]
        asked.append(given["key"])
        return {"cache-hit": "false"}

    result = run_step(
        _step(command="validate"), cwd=repo, context={},
        env={**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}, action_path=action,
        stand_ins={"actions/cache/restore": restore},
    )  # fmt: skip
    assert result.returncode == 3
    assert "broken python" in result.stderr
    assert asked == []


def test_only_a_whole_local_command_name_gets_the_local_install(tmp_path: Path) -> None:
    repo = _throwaway(tmp_path)
    action = _action_copy(tmp_path / "action")
    keys: list[str] = []

    def restore(given, _steps):  # type: ignore[no-untyped-def]
        keys.append(given["key"])
        return {"cache-hit": "false"}

    for command in ("keys lint", "chec", "check-x", "lint"):
        result = run_step(
            _step(command=command, args="--help"), cwd=repo, context={}, env=dict(os.environ),
            action_path=action, stand_ins={"actions/cache/restore": restore},
        )  # fmt: skip
        assert result.returncode == (0 if command == "lint" else 2), result.stderr
    # two words that are local names side by side, a prefix, a longer name: all dependencies
    assert ["-uv-local-" in k for k in keys] == [False, False, False, True]
