"""Every command the docs and `--help` show runs here, in a built world, with the exit status
and the output shown. The convention is in CONTRIBUTING.md ("Documented examples") and in
tests/docs/collect.py; the worlds and setups in tests/docs/worlds.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from changelog_tools.cli import COMMANDS, HELP, cli
from tests.docs.collect import (
    OUTPUT_LANGS,
    RUN_LANGS,
    WORLD_DIR,
    Example,
    doc_examples,
    doc_files,
    fences,
    help_examples,
    json_in,
    key_paths,
    output_matches,
    top_level_examples,
)
from tests.docs.runner import run_commands, wanted_exits, world_for
from tests.docs.worlds import BINDIR, base_env, build_repo_template, kept_sandbox

# How each `--help` example runs (the help text is what users read, so the annotations live
# here). Keyed by the command as the help shows it; a help example missing here fails.
SANDBOX = {"world": "sandbox"}
HELP_SPECS: dict[str, dict[str, str]] = {
    # validate
    "changelog-tools validate --format github perf-changelog.yaml": {},
    "git show main:perf-changelog.yaml | changelog-tools validate -": {},
    "changelog-tools validate perf-changelog.yaml": {},
    # new
    "changelog-tools new --config-key 'llama70b-fp8-gpu-b-*' \\\n--description \"Bump vLLM to 0.11.1\"": {},
    "changelog-tools new --config-key llama70b-fp8-gpu-a-vllm \\\n--scenario-type agentic-coding \\\n"
    '--description "Add the agentic-coding scenario"': {},
    "changelog-tools new --config-key 'llama70b-fp8-gpu-a-*' --description 'Bump vLLM'": {},
    # keys
    "changelog-tools keys 'mixtral-fp4-*'": {},
    "changelog-tools keys --ref origin/main llama70b-fp8-gpu-b-vllm": {},
    "changelog-tools keys --format json": {},
    "changelog-tools keys 'llama70b-*'": {},
    # check
    "changelog-tools check --pr 12": {},
    "changelog-tools check --pr 12 --format github": {},
    "changelog-tools check --pr-number 12 --all-evals --format json > check.json": {},
    "changelog-tools check --main --base-ref HEAD^ --format github": {"setup": "merged"},
    "changelog-tools check --base-file old.yaml --head-file perf-changelog.yaml \\\n--pr 12": {
        "setup": "files"
    },
    "changelog-tools check --base-ref v1 --head-ref v2 --no-config-keys \\\n--format json": {
        "setup": "tags"
    },
    # replay
    "changelog-tools replay --last 200": {},
    "changelog-tools replay --last 50 --no-config-keys \\\n--format json > blast-radius.json": {},
    # lint
    "changelog-tools lint": {},
    "changelog-tools lint --pr 12 --format github": {},
    "changelog-tools lint --base-ref origin/main --head-ref HEAD": {},
    "changelog-tools lint --all --now 2026-08-22": {"exit": "1"},
    # fix
    "changelog-tools fix                      # against the merge-base with main": {
        "setup": "inserted"
    },
    "changelog-tools fix --dry-run --diff": {"setup": "inserted", "exit": "1"},
    "changelog-tools fix --pr 12 --format json": {"setup": "inserted"},
    # canonicalize
    "changelog-tools canonicalize --pr 12": {},
    "changelog-tools canonicalize --pr 12 --check": {"exit": "1"},
    "changelog-tools canonicalize --pr 12 --base-ref origin/main \\\n--fix-near-misses": {},
    "changelog-tools canonicalize --pr 7 --base-file base.yaml \\\n"
    "--repo acme/bench changelog.yaml": {
        "setup": "files"
    },
    "changelog-tools canonicalize --fix-placement": {"setup": "inserted"},
    # resolve, the merge driver
    "git merge origin/main; changelog-tools resolve --pr 12 --add": {"setup": "conflict"},
    "changelog-tools resolve --pr 12 --add": {"setup": "conflict,merging"},
    "changelog-tools resolve --pr-side ours": {"setup": "conflict,merging"},
    "changelog-tools resolve --base-file b.yaml --pr-file p.yaml \\\n--main-file m.yaml -o -": {
        "setup": "files"
    },
    "changelog-tools install-merge-driver": {},
    "git merge origin/main  # git runs it once installed": {"setup": "conflict,merge-driver"},
    # GitHub: the kept demo sandbox
    "changelog-tools reuse-gate                      # inside GitHub Actions": {
        **SANDBOX, "setup": "actions-push"
    },
    "changelog-tools reuse-gate": {**SANDBOX, "setup": "actions-push"},
    'changelog-tools reuse-gate --event-name push --ref refs/heads/main \\\n'
    '--commit-sha "$(git rev-parse origin/main)" \\\n--repo example-org/inferencex-mini': SANDBOX,
    "changelog-tools signoff verify                       # inside GitHub Actions": {
        **SANDBOX, "setup": "actions-pr"
    },
    "changelog-tools signoff verify --pr 5 --dry-run --format json": SANDBOX,
    "changelog-tools signoff --help": {},
    "changelog-tools merge 5 --dry-run": SANDBOX,
    "changelog-tools merge 5": SANDBOX,
    "changelog-tools merge 5 --run 2003 --format json": {**SANDBOX, "setup": "pinned-run"},
    "changelog-tools recover --dry-run \\\n"
    "https://github.com/example-org/inferencex-mini/actions/runs/2002": {
        **SANDBOX, "setup": "lost-ingest"
    },
    "changelog-tools recover --pr 6 --dry-run": {**SANDBOX, "setup": "lost-ingest"},
    "changelog-tools recover --pr 6 --yes": {**SANDBOX, "setup": "lost-ingest"},
    "changelog-tools recover --pr 6 --source-run 2001 --yes --format json": {
        **SANDBOX, "setup": "lost-ingest"
    },
    # the demo
    "changelog-tools demo": {},
    "changelog-tools demo --keep": {"world": "demo-keep"},
    f"changelog-tools demo --serve {WORLD_DIR}": {**SANDBOX, "stop-when": "Ctrl-C stops it"},
    'cp -r "$(changelog-tools demo --example-path)" my-bench  # to try by hand': {},
}  # fmt: skip


def _help_text(*argv: str) -> str:
    result = CliRunner().invoke(cli, [*argv, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


def all_help_examples() -> list[Example]:
    found = top_level_examples(HELP)
    for name in sorted(COMMANDS):
        found += help_examples(name, _help_text(name))
    found += help_examples("signoff verify", _help_text("signoff", "verify"))
    return found


def _options(example: Example) -> Mapping[str, str]:
    if example.source.startswith("help: "):
        return HELP_SPECS[example.commands[0].line]
    return example.options


def _unique(examples: list[Example]) -> list[Example]:
    """One run per distinct command: the top-level help repeats some commands' own examples."""
    seen: set[tuple[str, ...]] = set()
    kept = []
    for example in examples:
        key = (*(c.line for c in example.commands), repr(example.commands))
        if example.source.startswith("help: ") and key in seen:
            continue
        seen.add(key)
        kept.append(example)
    return kept


DOC_EXAMPLES = doc_examples()
HELP_EXAMPLES = all_help_examples()
RUN = [e for e in _unique(DOC_EXAMPLES + HELP_EXAMPLES) if e.prose is None]


@pytest.fixture(scope="session")
def repo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_repo_template(tmp_path_factory.mktemp("doc-repo"))


@pytest.fixture(scope="session")
def demo_keep(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[subprocess.CompletedProcess[str]]:
    """`changelog-tools demo --keep`, run once as documented; its sandbox is the template of
    the examples that need GitHub."""
    home = tmp_path_factory.mktemp("doc-demo-home")
    workdir = tmp_path_factory.mktemp("doc-demo")
    env = {**base_env(home), "TMPDIR": str(workdir)}
    proc = subprocess.run(
        ["changelog-tools", "demo", "--keep"],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )
    yield proc


@pytest.mark.parametrize("example", RUN, ids=[e.id for e in RUN])
def test_documented_example_runs_as_shown(
    example: Example, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    options = _options(example)
    wanted = wanted_exits(example, options)
    if options.get("world") == "demo-keep":
        proc = request.getfixturevalue("demo_keep")
        assert proc.returncode == wanted[0], proc.stdout
        kept_sandbox(proc.stdout)  # it says where the sandbox is
        return
    templates = {"repo": request.getfixturevalue("repo_template")}
    if options.get("world") == "sandbox":
        templates["sandbox"] = kept_sandbox(request.getfixturevalue("demo_keep").stdout)
    with world_for(options, templates, tmp_path / "world") as world:
        ran = run_commands(example, world, options)
    report = "\n".join(f"$ {r.line}\n(exit {r.exit_code})\n" + "\n".join(r.output) for r in ran)
    assert [r.exit_code for r in ran] == wanted, report
    if example.shown_json is not None:
        shown = key_paths(json.loads(example.shown_json))
        printed = key_paths(json_in(ran[0].output))
        assert sorted(shown - printed) == [], f"{example.source}: keys the docs show, not printed"
    for command, result in zip(example.commands, ran, strict=True):
        if command.output is not None:
            assert output_matches(command.output, result.output), (
                f"{example.source}: `{command.line}` printed\n"
                + "\n".join(result.output)
                + "\n--- but the docs show ---\n"
                + "\n".join(command.output)
            )


def test_every_help_example_has_a_spec_and_every_spec_an_example() -> None:
    shown = {e.commands[0].line for e in HELP_EXAMPLES}
    assert sorted(shown - set(HELP_SPECS)) == []
    assert sorted(set(HELP_SPECS) - shown) == []


def test_every_fence_names_its_language_and_prose_says_why() -> None:
    for path in doc_files():
        for fence in fences(path):
            where = f"{path.name}:{fence.line}"
            assert fence.lang, f"{where}: a fence names its language (text for plain output)"
            if fence.annotation is not None and fence.lang not in (*RUN_LANGS, *OUTPUT_LANGS):
                pytest.fail(f"{where}: an example annotation on a {fence.lang} block runs nothing")
        # an annotation that is not right before a fence would be ignored: none may be
        annotated = sum(f.annotation is not None for f in fences(path))
        written = re.findall(r"^<!-- example:", path.read_text(encoding="utf-8"), re.M)
        assert len(written) == annotated, path.name


def test_the_collector_finds_the_examples() -> None:
    # the collector's own honesty: the sources hold examples, and a console block's output is
    # seen as output (not as commands)
    assert len(DOC_EXAMPLES) >= 30
    assert len(HELP_EXAMPLES) >= 40
    validate = next(
        e for e in DOC_EXAMPLES if e.commands[0].line.startswith("changelog-tools validate")
    )
    assert validate.commands[0].output is not None


def test_output_matching_rules() -> None:
    assert output_matches(["a ... c", "..."], ["a b c", "x", "y"])
    assert output_matches(
        ["commit 1a2b3c4d is on 127.0.0.1:80"], ["commit 99ffee00aa is on 127.0.0.1:4321"]
    )
    assert not output_matches(["a", "b"], ["a", "c"])
    assert not output_matches(["a"], ["a", "extra"])
    assert output_matches(["..."], [])
    assert key_paths({"a": [{"b": 1}], "...": 2}) == {"a", "a[].b"}
    assert key_paths({"a": {"b": 1}}) - key_paths({"a": {"c": 1}}) == {"a.b"}


def test_the_tool_the_examples_run_is_the_one_beside_this_python() -> None:
    # `changelog-tools` in the examples resolves to the console script beside this Python
    exe = subprocess.run(
        ["sh", "-c", "command -v changelog-tools"],
        env={**os.environ, "PATH": f"{BINDIR}{os.pathsep}{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(exe).parent == BINDIR
