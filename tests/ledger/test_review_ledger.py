"""Adversarial review of the ledger-side commands: each test pins one finding that was fixed.

Everything runs the installed CLI in real temporary git repositories or on real files.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools import fsutil, gitrepo
from changelog_tools.errors import UsageError
from tests.checkdata import (
    BASE,
    CONFIG,
    MASTER_A,
    MASTER_B,
    MASTERS_A,
    MASTERS_B,
    PULL,
    appended,
    entry,
    init_repo,
)
from tests.conftest import commit_files, git, inferencex_file, run_cli

KEY = "alpha-fp8-gpu-a-vllm"


def _no_crash(proc: object) -> None:
    text = getattr(proc, "stdout", "") + getattr(proc, "stderr", "")
    assert "Traceback" not in text and "internal error" not in text, text


def check_files(tmp_path: Path, base: bytes, head: bytes) -> subprocess.CompletedProcess[str]:
    """`check` in file mode with JSON output, through the installed console script."""
    (tmp_path / "base.yaml").write_bytes(base)
    (tmp_path / "head.yaml").write_bytes(head)
    return run_cli(
        "check", "--base-file", "base.yaml", "--head-file", "head.yaml", "--no-config-keys",
        "--format", "json", cwd=tmp_path,
    )  # fmt: skip


def codes_and_lines(proc: subprocess.CompletedProcess[str]) -> list[tuple[str, int | None]]:
    return [(d["code"], d["line"]) for d in json.loads(proc.stdout)["diagnostics"]]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on `main` holding BASE and the master configs."""
    return init_repo(tmp_path / "repo")


def _feature(repo: Path, data: bytes) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    commit_files(repo, {"perf-changelog.yaml": data}, "feature")


def _three_sides(tmp_path: Path) -> list[str]:
    sides = {
        "base.yaml": BASE,
        "pr.yaml": appended(entry(KEY)),
        "main.yaml": appended(entry("beta-fp4-gpu-b-trt", link=f"{PULL}5")),
    }
    for name, data in sides.items():
        (tmp_path / name).write_bytes(data)
    return [
        *("--base-file", str(tmp_path / "base.yaml")),
        *("--pr-file", str(tmp_path / "pr.yaml")),
        *("--main-file", str(tmp_path / "main.yaml")),
    ]


# -- writes: an OS error is one line, never a traceback, never a half-written file -------------


def test_resolve_into_a_missing_directory_is_a_one_line_usage_error(tmp_path: Path) -> None:
    proc = run_cli("resolve", *_three_sides(tmp_path), "-o", str(tmp_path / "no" / "out.yaml"))
    _no_crash(proc)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"error: {tmp_path / 'no' / 'out.yaml'}: cannot write: No such file or directory"
    ]


def test_resolve_onto_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    proc = run_cli("resolve", *_three_sides(tmp_path), "-o", str(tmp_path / "out"))
    _no_crash(proc)
    assert proc.returncode == 2
    assert "is a directory, not a file" in proc.stderr


def test_a_failed_atomic_write_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "perf-changelog.yaml"
    target.write_bytes(BASE)

    def disk_full(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(UsageError, match="cannot write: No space left on device"):
        fsutil.atomic_write(target, b"new bytes\n")
    assert target.read_bytes() == BASE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["perf-changelog.yaml"]


def test_resolve_to_stdout_refuses_github_annotations_that_would_mix_into_the_file(
    tmp_path: Path,
) -> None:
    proc = run_cli("resolve", *_three_sides(tmp_path), "-o", "-", "--format", "github")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "--output - and --format github both want stdout" in proc.stderr


# -- inputs: sizes and bytes ---------------------------------------------------------------------


def test_an_oversized_file_is_reported_from_its_size_alone(tmp_path: Path) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text("max-file-size: 100\n")
    big = tmp_path / "perf-changelog.yaml"
    big.write_bytes(BASE * 10)  # 1,020 bytes
    proc = run_cli("validate", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert [(d["code"], d["message"]) for d in doc["diagnostics"]] == [
        ("CL006", f"file is {len(BASE) * 10:,} bytes; the limit is 100 (`max-file-size`)")
    ]
    checked = run_cli("check", "--base-file", str(big), "--head-file", str(big), cwd=tmp_path)
    assert checked.returncode == 1
    assert "the limit is 100" in checked.stderr
    _no_crash(checked)


def test_read_input_refuses_an_oversized_file_before_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:  # sparse: 2 GiB on paper, nothing on disk
        handle.truncate(2 << 30)
    with pytest.raises(fsutil.TooLarge) as caught:
        fsutil.read_input(path, "big.yaml", max_size=1 << 20)
    assert caught.value.size == 2 << 30
    assert caught.value.exit_code == 1


def test_a_byte_order_mark_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "perf-changelog.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + BASE)
    proc = run_cli("validate", str(path), "--format", "json")
    assert proc.returncode == 1
    found = [(d["code"], d["line"], d["column"]) for d in json.loads(proc.stdout)["diagnostics"]]
    assert found[0] == ("CL008", 1, 1)


def test_a_nan_pr_link_still_gives_strict_json(tmp_path: Path) -> None:
    proc = check_files(tmp_path, BASE, appended(entry(KEY, link=".nan")))
    assert proc.returncode == 1

    def reject(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    doc = json.loads(proc.stdout, parse_constant=reject)
    assert doc["entries"][0]["pr-link"] == "nan"


# -- diagnostics point at the changed line -----------------------------------------------------


def test_a_changed_description_item_is_reported_on_its_own_line(tmp_path: Path) -> None:
    head = BASE.replace(b'"First sweep"', b'"First sweep, edited"')
    proc = check_files(tmp_path, BASE, head)
    found = codes_and_lines(proc)
    assert found == [("CL102", 4)]  # the item, not the `description:` key on line 3


def test_a_config_key_added_to_history_is_reported_on_the_new_key(tmp_path: Path) -> None:
    head = BASE.replace(b"    - beta-fp4-gpu-b-*\n", b"    - beta-fp4-gpu-b-*\n    - extra\n")
    proc = check_files(tmp_path, BASE, head)
    found = codes_and_lines(proc)
    assert found == [("CL102", 9)]


def test_deleting_an_entry_and_appending_one_is_reported_as_a_deletion(tmp_path: Path) -> None:
    _first, second = BASE.split(b"\n\n")
    proc = check_files(tmp_path, BASE, second + b"\n" + entry(KEY))  # same entry count
    found = codes_and_lines(proc)
    assert found == [("CL101", 1)]


# -- git mode: paths, trees, odd repositories --------------------------------------------------


def test_a_directory_is_not_a_changelog_in_git_mode(repo: Path) -> None:
    proc = run_cli("check", "--changelog-file", "configs", cwd=repo)
    assert proc.returncode == 2, proc.stdout
    assert "configs does not exist at HEAD" in proc.stderr
    assert gitrepo.open_repo(repo).read_blob("HEAD", "configs") is None


def test_git_mode_accepts_dot_slash_and_absolute_paths(repo: Path) -> None:
    _feature(repo, appended(entry(KEY, link=f"{PULL}2557")))
    expected = "perf-changelog.yaml:17:3: CL201 entry 3: pr-link points at pull request #2557"
    for spelling in ("./perf-changelog.yaml", str(repo / "perf-changelog.yaml")):
        proc = run_cli(
            "check", "--pr", "2607", "--changelog-file", spelling,
            "--master-config", f"./{MASTER_A}", "--master-config", str(repo / MASTER_B),
            cwd=repo,
        )  # fmt: skip
        assert proc.returncode == 1, proc.stderr
        assert proc.stdout.startswith(expected + ", but this is pull request #2607\n")


def test_a_path_outside_the_repository_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.yaml"
    outside.write_bytes(BASE)
    proc = run_cli("check", "--changelog-file", str(outside), cwd=repo)
    assert proc.returncode == 2
    assert f"{outside} is outside the repository" in proc.stderr


def test_a_repository_without_commits_says_so(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    proc = run_cli("check", cwd=tmp_path)
    assert proc.returncode == 3
    assert "has no commits yet" in proc.stderr
    assert "fetch" not in proc.stderr


def test_a_push_of_a_root_commit_checks_every_entry_as_new(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    root = commit_files(
        tmp_path,
        {
            ".changelog-tools.yaml": CONFIG,
            "perf-changelog.yaml": appended(entry(KEY)),  # a placeholder on main
            MASTER_A: MASTERS_A,
            MASTER_B: MASTERS_B,
        },
        "root",
    )
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main", "before": "0" * 40, "after": root}))
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}
    proc = run_cli("check", "--format", "json", cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert [(d["code"], d["line"]) for d in doc["diagnostics"]] == [("CL202", 17)]
    assert "root commit" in proc.stderr


# -- a configuration in a subdirectory -------------------------------------------------------


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


# -- seed 004 on the real history ------------------------------------------------------------


def test_seed_004_names_both_pull_requests_on_the_real_changelog(tmp_path: Path) -> None:
    real = inferencex_file("perf-changelog.yaml")
    repo = tmp_path / "inferencex"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shutil.copy(real, repo / "perf-changelog.yaml")
    shutil.copytree(real.parent / "configs", repo / "configs")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "history")
    history_lines = real.read_bytes().count(b"\n")
    added = entry("qwen3.5-fp8-mi355x-sglang-disagg", link=f"{PULL}2557").replace(
        b"example-org/bench", b"SemiAnalysisAI/InferenceX"
    )
    _feature(repo, appended(added, base=real.read_bytes()))
    proc = run_cli("check", "--pr", "2607", "--format", "github", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    # One empty line, then the entry: its pr-link is the sixth line after the history.
    link_line = history_lines + 6
    assert proc.stdout.splitlines()[0] == (
        f"::error file=perf-changelog.yaml,line={link_line},col=3,title=CL201::entry 773: "
        "pr-link points at pull request #2557, but this is pull request #2607%0Awrite "
        "`https://github.com/SemiAnalysisAI/InferenceX/pull/2607` or `XXX` or "
        "`https://github.com/SemiAnalysisAI/InferenceX/pull/XXX`"
    )


# -- invisible characters ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("char", "what"),
    [
        ("\u0007", "control character U+0007"),
        ("\u2028", "line separator U+2028"),
        ("\u0085", "line separator U+0085"),
    ],
    ids=["bell", "line-separator", "next-line"],
)
def test_an_invisible_character_is_pointed_at_not_misparsed(
    tmp_path: Path, char: str, what: str
) -> None:
    # Pasted into a description of entry 1 (line 4, column 13); entry 2 must not be blamed.
    data = BASE.replace(b'"First sweep"', f'"First{char} sweep"'.encode())
    path = tmp_path / "perf-changelog.yaml"
    path.write_bytes(data)
    proc = run_cli("validate", str(path), "--format", "json")
    assert proc.returncode == 1
    found = [
        (d["code"], d["line"], d["column"], d["message"])
        for d in json.loads(proc.stdout)["diagnostics"]
    ]
    assert [f[:3] for f in found] == [("CL009", 4, 13)]
    assert what in found[0][3]


def test_an_invisible_character_in_an_appended_entry_fails_check_on_its_line(
    tmp_path: Path,
) -> None:
    proc = check_files(tmp_path, BASE, appended(entry(KEY, description="A\u2028change")))
    found = codes_and_lines(proc)
    assert found == [("CL009", 16)]


def test_a_control_character_in_a_master_config_is_one_line_with_its_position() -> None:
    from changelog_tools import yamlload

    with pytest.raises(yamlload.YamlProblem) as caught:
        yamlload.load('a-key:\n  image: "x\x07"\n', line_offset=10)
    problem = caught.value
    assert (problem.line, problem.column) == (12, 12)
    assert problem.message == (
        "invalid YAML: unacceptable character U+0007 (control characters are not allowed)"
    )


# -- refusals that must say the right thing --------------------------------------------------


def test_a_pull_request_deleting_the_changelog_fails_the_rule_not_the_usage(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "rm", "-q", "perf-changelog.yaml")
    git(repo, "commit", "-q", "-m", "delete the ledger")
    proc = run_cli("check", "--pr", "7", "--format", "json", cwd=repo)
    assert proc.returncode == 1, proc.stderr
    [found] = json.loads(proc.stdout)["diagnostics"]
    assert found["code"] == "CL101"
    assert found["message"].startswith("the change deletes the changelog and its 2 entries")


def test_resolve_add_with_output_is_refused_instead_of_silently_not_staging(
    tmp_path: Path,
) -> None:
    proc = run_cli("resolve", "--add", "-o", "out.yaml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--add stages the conflicted file itself" in proc.stderr
    assert not (tmp_path / "out.yaml").exists()


def test_a_blank_reflog_action_is_a_refusal_not_an_internal_error(repo: Path) -> None:
    from changelog_tools.config import defaults
    from changelog_tools.ledger.guard import Refusal
    from changelog_tools.ledger.mergedriver import detect_sides

    with pytest.raises(Refusal, match="no merge, rebase or cherry-pick"):
        detect_sides(gitrepo.open_repo(repo), config=defaults(repo), reflog_action="  ")


# -- canonicalize: values as YAML writes them --------------------------------------------------


def _canon_entry(link_line: str) -> bytes:
    return f'- config-keys:\n    - {KEY}\n  description:\n    - "New"\n{link_line}\n'.encode()


def test_a_near_miss_with_a_hash_inside_the_url_is_fixed_keeping_the_comment() -> None:
    from changelog_tools.ledger.canonicalize import canonicalize
    from tests.checkdata import config

    head = appended(_canon_entry(f"  pr-link: {PULL}XXX#frag  # mine"))
    result = canonicalize(BASE, head, pr=42, config=config(), fix_near_misses=True)
    assert result.data == appended(_canon_entry(f"  pr-link: {PULL}42  # mine"))
    assert [(s.line, s.old) for s in result.substitutions] == [(17, f"{PULL}XXX#frag")]


def test_a_pr_link_under_a_quoted_key_is_refused_on_the_keys_line() -> None:
    from changelog_tools.ledger.canonicalize import canonicalize
    from changelog_tools.ledger.guard import Refusal
    from tests.checkdata import config

    head = appended(_canon_entry('  "pr-link": XXX'))
    with pytest.raises(Refusal) as caught:
        canonicalize(BASE, head, pr=42, config=config())
    assert [(d.code, d.line) for d in caught.value.diagnostics] == [("CL504", 17), ("CL504", 17)]


def test_an_appended_document_end_marker_fails_before_it_breaks_the_next_append(
    tmp_path: Path,
) -> None:
    # Alone it is valid YAML; but the next pull request's entry (checked on its own, as every
    # append is) would land in a second document and make the whole file invalid.
    with_marker = appended(entry(KEY)) + b"...\n"
    proc = check_files(tmp_path, BASE, with_marker)
    assert proc.returncode == 1
    found = codes_and_lines(proc)
    assert found == [("CL018", 18)]
    validated = run_cli("validate", "head.yaml", "--format", "json", cwd=tmp_path)
    assert validated.returncode == 1
    assert [d["code"] for d in json.loads(validated.stdout)["diagnostics"]] == ["CL018"]


def test_a_shallow_ci_checkout_says_to_fetch_the_history(repo: Path, tmp_path: Path) -> None:
    _feature(repo, appended(entry(KEY)))
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{repo}", "shallow")
    git(clone, "fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main")
    proc = run_cli("check", "--pr", "7", cwd=clone)
    assert proc.returncode == 3
    assert proc.stderr.splitlines() == [
        f"error: {git(clone, 'rev-parse', 'HEAD')[:12]} and refs/remotes/origin/main have no "
        "common ancestor in this shallow clone",
        "hint: fetch the whole history (actions/checkout: `fetch-depth: 0`) or pass --base-ref",
    ]


def test_a_failing_git_command_is_one_line_even_when_git_prints_nothing(repo: Path) -> None:
    from changelog_tools.errors import GitError

    git(repo, "checkout", "-q", "--orphan", "unrelated")
    commit_files(repo, {"x": "y\n"}, "unrelated root")
    handle = gitrepo.open_repo(repo)
    with pytest.raises(GitError) as caught:
        handle.git("merge-base", "unrelated", "main")  # exits 1 and says nothing
    assert caught.value.message == "git merge-base unrelated main failed: exit status 1"
    with pytest.raises(GitError) as caught:
        handle.merge_base("unrelated", "main")
    assert caught.value.message == "unrelated and main have no common ancestor"


def test_a_deleted_last_entry_is_reported_on_the_files_last_line_not_after_it(
    tmp_path: Path,
) -> None:
    first = BASE[: BASE.index(b"\n- config-keys:") + 1].rstrip(b"\n") + b"\n"  # lines 1-5
    proc = check_files(tmp_path, BASE, first)
    found = codes_and_lines(proc)
    assert found == [("CL101", 5)]


# -- wildcards: no catastrophic backtracking ---------------------------------------------------


def test_a_pathological_wildcard_is_answered_without_backtracking(tmp_path: Path) -> None:
    # With the regex this took longer than any CI timeout; an appended entry could hang check.
    (tmp_path / "m.yaml").write_text("a" * 40 + ":\n  x: 1\n")
    proc = run_cli("keys", "--master-config", "m.yaml", "*a" * 11 + "*c", cwd=tmp_path)
    assert proc.returncode == 1
    assert "CL302 wildcard" in proc.stdout


_WILD = st.text(alphabet="ab-*", max_size=8)


@settings(max_examples=300, deadline=None)
@given(pattern=_WILD, name=st.text(alphabet="ab-", max_size=10))
def test_wildcard_matching_agrees_with_the_anchored_regex(pattern: str, name: str) -> None:
    from changelog_tools.ledger import masterconfig as mc

    expected = mc.wildcard_regex(pattern).match(name) is not None
    assert mc.wildcard_match(pattern, name) is expected


_OLD_VALUE_RE = re.compile(  # the regex _value_core replaced (quadratic on long lines)
    r"""^(?P<core>"[^"\\]*"|'[^']*'|[^\s#'"](?:[^#]|(?<=\S)\#)*?|)(?P<rest>\s+#.*)?$"""
)


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet="Xa\"'# \\", max_size=10).filter(lambda t: t == t.strip(" ")))
def test_the_pr_link_value_scan_agrees_with_the_regex_it_replaced(text: str) -> None:
    # pr_link_lines never hands over leading or trailing spaces, hence the filter.
    from changelog_tools.ledger.canonicalize import _value_core

    old = _OLD_VALUE_RE.match(text)
    assert _value_core(text) == (old["core"] if old else None)
