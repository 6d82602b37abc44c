"""Running git: plain values back, one-line GitErrors, a scrubbed environment, GitPython
imported only when a question needs it, and the repository's settings."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from changelog_tools import gitrepo
from changelog_tools.errors import GitError
from changelog_tools.gitrepo.runner import git_environment
from tests.conftest import commit_files, git
from tests.gitrepo.conftest import Opener


def test_git_commands_answer_in_plain_values_and_fail_in_one_line(
    opened: Opener, tmp_path: Path
) -> None:
    path = tmp_path / "run"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"a": "1\n"}, "base")
    repo = opened(path)
    assert repo.git("rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert repo.git("ls-files", "-z", strip=False) == "a\0"
    assert repo.git("cat-file", "-p", "HEAD:a", strip=False) == "1\n"
    assert repo.git_ok("rev-parse", "--verify", "HEAD")
    assert not repo.git_ok("rev-parse", "--verify", "nope")
    status, out, err = gitrepo.git_status(repo, "rev-parse", "--verify", "nope")
    assert (status, out) == (128, "") and err == "fatal: Needed a single revision"
    with pytest.raises(GitError) as caught:
        repo.git("checkout", "no-such-branch")
    assert caught.value.message == (
        "git checkout no-such-branch failed: error: pathspec 'no-such-branch' did not match "
        "any file(s) known to git"
    )
    # every later command sees a variable set for the repository (the reader restarts for it)
    assert repo.read_blob("HEAD", "a") == b"1\n"
    repo.update_environment(
        GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="tool.probe", GIT_CONFIG_VALUE_0="yes"
    )
    assert repo.git("config", "--get", "tool.probe") == "yes"
    assert repo.read_blob("HEAD", "a") == b"1\n"
    repo.close()
    assert repo.rev_parse("HEAD") == git(path, "rev-parse", "HEAD")


def run_python(code: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip


def test_hook_variables_and_gitpythons_executable_never_redirect_the_tool(tmp_path: Path) -> None:
    mine, other = tmp_path / "mine", tmp_path / "other"
    for path, text in ((mine, "mine\n"), (other, "other\n")):
        path.mkdir()
        git(path, "init", "-q", "-b", "main")
        commit_files(path, {"f": text}, "base")
    trap = tmp_path / "fake-git"
    trap.write_text(f"#!/bin/sh\necho ran >> {tmp_path / 'trapped'}\nexit 1\n")
    trap.chmod(0o755)
    env = {
        **os.environ,
        "GIT_DIR": str(other / ".git"),
        "GIT_WORK_TREE": str(other),
        "GIT_INDEX_FILE": str(other / ".git/index"),
        "GIT_PYTHON_GIT_EXECUTABLE": str(trap),
    }
    code = (
        "from changelog_tools.gitrepo import open_repo\n"
        "repo = open_repo('.')\n"
        "print(repo.read_blob('HEAD', 'f').decode(), end='')\n"
        "print(repo.git('show', 'HEAD:f'))\n"
        "print(repo.is_clean(), repo.current_branch())\n"
    )
    proc = run_python(code, mine, env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "mine\nmine\nTrue main\n"
    assert not (tmp_path / "trapped").exists()


def test_gitpython_is_imported_only_when_a_question_needs_it(tmp_path: Path) -> None:
    path = tmp_path / "lazy"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"f": "f\n"}, "base")
    code = (
        "import sys\n"
        "from changelog_tools import gitrepo\n"
        "repo = gitrepo.open_repo('.')\n"
        "gitrepo.operation_in_progress(repo), gitrepo.repo_relative(repo, 'f')\n"
        "print(sorted(m for m in ('git', 'gitdb') if m in sys.modules))\n"
        "repo.rev_parse('HEAD'), repo.read_blob('HEAD', 'f'), repo.merge_base('HEAD', 'HEAD')\n"
        "repo.is_ancestor('HEAD', 'HEAD'), repo.git('log', '-1')\n"
        "print(sorted(m for m in ('git', 'gitdb') if m in sys.modules))\n"
        "repo.current_branch()\n"
        "print(sorted(m for m in ('git', 'gitdb') if m in sys.modules))\n"
    )
    proc = run_python(code, path, dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[]", "[]", "['git', 'gitdb']"]


def test_without_git_every_question_is_one_git_error(tmp_path: Path) -> None:
    path = tmp_path / "nogit"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    commit_files(path, {"f": "f\n"}, "base")
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from changelog_tools.errors import GitError\n"
        "from changelog_tools.gitrepo import GitRepo, open_repo\n"
        "loaded = open_repo('.')\n"
        "loaded._repo  # GitPython opened while git was there\n"
        "os.environ['PATH'] = sys.argv[1]\n"
        "def plain(): return GitRepo(path=Path('.'), git_dir=Path('.git'))\n"
        "for ask in (lambda: open_repo('.'),\n"
        "            lambda: plain().rev_parse('HEAD'),\n"
        "            lambda: plain().merge_base('a', 'b'),\n"
        "            lambda: plain().first_commit(('a',)),\n"
        "            lambda: plain().read_blob_once('a', 'f'),\n"
        "            lambda: plain().git('log'),\n"
        "            lambda: plain().read_blob('HEAD', 'f'),\n"
        "            lambda: loaded.rev_parse('HEAD'),\n"
        "            lambda: loaded.git('log'),\n"
        "            lambda: loaded.merge_base('a', 'b')):\n"
        "    try:\n"
        "        ask()\n"
        "    except GitError as exc:\n"
        "        print(exc.message)\n"
    )
    empty = tmp_path / "empty-path"
    empty.mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", code, str(empty)], cwd=path, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["git is not installed (no `git` on PATH)"] * 10


def test_a_failing_git_command_is_one_line_even_when_git_prints_nothing(
    opened: Opener, repo: Path
) -> None:
    git(repo, "checkout", "-q", "--orphan", "unrelated")
    commit_files(repo, {"x": "y\n"}, "unrelated root")
    handle = opened(repo)
    with pytest.raises(GitError) as caught:
        handle.merge_base("unrelated", "main")
    assert caught.value.message == "unrelated and main have no common ancestor"
    with pytest.raises(GitError) as caught:
        handle.git("merge-base", "unrelated", "main")  # exits 1 and says nothing
    assert caught.value.message == "git merge-base unrelated main failed: exit status 1"
    assert handle.git_status("merge-base", "unrelated", "main") == (1, "", "")
    assert not handle.is_ancestor("unrelated", "main")


def test_git_runs_in_the_environment_gitpythons_runner_gives_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # git prints the environment it runs commands in (an alias runs a shell): the same both
    # ways, the user's locale replaced by C (so git's messages are English), the repository's
    # variables and then the command's on top.
    git(tmp_path, "init", "-q", "-b", "main")
    commit_files(tmp_path, {"a": "1\n"}, "base")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    monkeypatch.setenv("LANGUAGE", "de")
    monkeypatch.setenv("TOOL_PROBE", "process")
    said = []
    for force in (False, True):
        repo = gitrepo.open_repo(tmp_path)
        if force:
            assert repo._repo is not None
        repo.update_environment(TOOL_PROBE="repository", TOOL_REPO="yes")
        out = repo.git("-c", "alias.env=!env", "env", env={"TOOL_COMMAND": "yes"})
        assert repo._gitpython_loaded == force
        said.append(sorted(out.split("\n")))
    assert said[0] == said[1]
    env = dict(line.partition("=")[::2] for line in said[0])
    assert (env["LC_ALL"], env["LANGUAGE"], env["LANG"]) == ("C", "C", "de_DE.UTF-8")
    assert env["TOOL_PROBE"] == "repository" and env["TOOL_REPO"] == env["TOOL_COMMAND"] == "yes"
    assert git_environment({"LC_ALL": "x"}, None)["LC_ALL"] == "x"  # layers go on top of C


def test_a_failure_reads_the_same_whichever_way_git_ran(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    commit_files(tmp_path, {"a": "1\n"}, "base")
    said = []
    for force in (False, True):
        repo = gitrepo.open_repo(tmp_path)
        if force:
            assert repo._repo is not None
        messages = []
        for args in (("checkout", "nope"), ("merge-base", "nope", "HEAD"), ("log", "-1", "x..")):
            with pytest.raises(GitError) as caught:
                repo.git(*args)
            messages.append(caught.value.message)
        messages.append(repo.git_status("rev-parse", "--verify", "nope"))
        said.append(messages)
    assert said[0] == said[1]
    assert said[0][0] == (
        "git checkout nope failed: error: pathspec 'nope' did not match any file(s) known to git"
    )
    assert said[0][3] == (128, "", "fatal: Needed a single revision")


def test_config_get_and_set_and_stage(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    repo = gitrepo.open_repo(tmp_path)
    assert repo.config_get("merge.x.driver") is None
    repo.config_set("merge.x.driver", "tool %O %A %B")
    assert repo.config_get("merge.x.driver") == "tool %O %A %B"
    assert git(tmp_path, "config", "--local", "--get", "merge.x.driver") == "tool %O %A %B"
    (tmp_path / "new.txt").write_text("new\n")
    repo.stage("new.txt")
    assert git(tmp_path, "diff", "--cached", "--name-only") == "new.txt"


def test_a_repository_deleted_mid_run_is_a_git_error_never_another_repositorys_answer(
    opened: Opener, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, elsewhere = tmp_path / "gone", tmp_path / "elsewhere"
    for where in (path, elsewhere):
        where.mkdir()
        git(where, "init", "-q", "-b", "main")
        commit_files(where, {"a": f"{where.name}\n"}, where.name)
    monkeypatch.chdir(elsewhere)  # the process's own directory is another repository
    repo = opened(path)
    assert repo.read_blob("HEAD", "a") == b"gone\n"
    shutil.rmtree(path)
    with pytest.raises(GitError) as caught:
        repo.git("log", "-1", "--format=%s")
    assert caught.value.message == f"git log -1 --format=%s failed: {path} is missing"
    with pytest.raises(GitError):
        repo.rev_parse("main")
