"""Configuration: discovery, pyproject tables, validation, and generated files kept in sync."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from changelog_tools import config
from changelog_tools.errors import ConfigError
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
from tests.conftest import REPO_ROOT, commit_files, git, run_cli


def _gendocs() -> ModuleType:
    """The maintenance script that writes the derived docs (scripts/ is not part of the package)."""
    path = REPO_ROOT / "scripts" / "gendocs.py"
    spec = importlib.util.spec_from_file_location("gendocs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_defaults_describe_inferencex(tmp_path: Path) -> None:
    cfg = config.load_config(start=tmp_path)
    assert cfg.changelog == "perf-changelog.yaml"
    assert cfg.master_configs == ("configs/amd-master.yaml", "configs/nvidia-master.yaml")
    assert cfg.repository == "SemiAnalysisAI/InferenceX"
    assert cfg.placeholder_links() == (
        "XXX",
        "https://github.com/SemiAnalysisAI/InferenceX/pull/XXX",
    )
    assert cfg.canonical_link(7) == "https://github.com/SemiAnalysisAI/InferenceX/pull/7"


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


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        (
            "repo: a/b\n",
            ".changelog-tools.yaml:1:1: unknown option 'repo'",
            "did you mean 'remote'?",
        ),
        (
            "changelog: x\nmaster-config: [a]\n",
            ".changelog-tools.yaml:2:1: unknown option 'master-config'",
            "did you mean 'master-configs'?",
        ),
        ("zzz: 1\n", "unknown option 'zzz'", "see docs/configuration.md"),
        ("max_file_size: 5\n", "unknown option 'max_file_size'", "did you mean 'max-file-size'?"),
        (
            "max-file-size: -1\n",
            ".changelog-tools.yaml:1:16: option max-file-size: must be at least 1, not -1",
            None,
        ),
        ("master-configs: []\n", ":1:17: option master-configs: must not be empty", None),
        (
            "repository: not a repo\n",
            ":1:13: option repository: must match ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$, "
            "not 'not a repo'",
            None,
        ),
        ("github-retries: many\n", "option github-retries: must be an integer, not 'many'", None),
        ("check-poll-interval: 0\n", "option check-poll-interval: must be greater than 0", None),
        (
            "whitespace-only-separator: warn\n",
            "option whitespace-only-separator: must be one of 'error', 'warning', not 'warn'",
            "did you mean 'warning'?",
        ),
        (
            "lint-rules: {master-schma: off}\n",
            ":1:14: option lint-rules: unknown field 'master-schma'",
            "did you mean 'master-schema'?",
        ),
        (
            "lint-allow:\n  - rule: models\n    reason: retired on purpose\n    paht: x\n",
            ":4:5: option lint-allow[0]: unknown field 'paht'",
            "did you mean 'path'?",
        ),
        (
            "lint-allow:\n  - rule: models\n    reason: short\n",
            ":3:13: option lint-allow[0].reason: must be at least 10 characters long",
            None,
        ),
        (
            "lint-sku-pattern: '(h100'\n",
            ":1:19: option lint-sku-pattern: not a valid regular expression: missing )",
            None,
        ),
        # the first problem in the file is the one named, an unknown option before any
        ("github-retries: -1\nmax-file-size: 0\n", ":1:17: option github-retries:", None),
        ("max-file-size: 0\nremot: x\n", ":2:1: unknown option 'remot'", "did you mean 'remote'?"),
        ("- a\n", "configuration must be a mapping", None),
        ("a: [\n", ".changelog-tools.yaml:2:1: invalid YAML", None),
    ],
)
def test_bad_configuration_is_a_config_error(
    tmp_path: Path, text: str, message: str, hint: str | None
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".changelog-tools.yaml").write_text(text)
    with pytest.raises(ConfigError) as info:
        config.load_config(start=tmp_path)
    assert message in info.value.message
    assert info.value.message.startswith(str(tmp_path.resolve() / ".changelog-tools.yaml"))
    assert info.value.hint == hint


def test_a_bad_pyproject_option_is_named_without_a_line(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text("[tool.changelog-tools]\nmax-file-size = 0\n")
    with pytest.raises(ConfigError) as info:
        config.load_config(start=tmp_path)
    where = tmp_path.resolve() / "pyproject.toml"
    assert info.value.message == f"{where}: option max-file-size: must be at least 1, not 0"


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


def test_the_committed_config_schema_and_docs_match_the_options() -> None:
    schema_file = REPO_ROOT / "schemas" / "config.schema.json"
    assert json.loads(schema_file.read_text()) == config.config_schema()
    assert (REPO_ROOT / "docs" / "configuration.md").read_text() == config.render_docs()


def test_every_option_default_satisfies_its_own_schema() -> None:
    import jsonschema

    defaults = {o.name: o.default for o in config.OPTIONS}
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER  # the defaults' regexes compile
    jsonschema.Draft202012Validator(config.config_schema(), format_checker=checker).validate(
        defaults
    )
    jsonschema.Draft202012Validator.check_schema(config.config_schema())
    assert set(config.field_names()) >= {o.attr for o in config.OPTIONS}


def test_the_schemas_directory_is_the_one_shipped_in_the_package() -> None:
    from importlib import resources

    shipped = resources.files("changelog_tools").joinpath("schemas", "perf-changelog.schema.json")
    assert shipped.read_text() == (REPO_ROOT / "schemas" / "perf-changelog.schema.json").read_text()


def test_every_generated_file_matches_the_code() -> None:
    """`python scripts/gendocs.py` output is committed: options and codes cannot drift."""
    gendocs = _gendocs()

    for path, text in gendocs.outputs().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run python scripts/gendocs.py"
        )


def test_every_registered_code_is_unique_and_named() -> None:
    gendocs = _gendocs()
    from changelog_tools.diagnostics import CODES

    gendocs.render_codes()  # imports every module, registering every code
    assert len({c.name for c in CODES.values()}) == len(CODES)
    assert all(c.code.startswith("CL") and c.summary.endswith(".") for c in CODES.values())


def test_config_is_a_frozen_slotted_dataclass_of_every_option(tmp_path: Path) -> None:
    import dataclasses

    a = config.defaults(tmp_path)
    b = config.defaults(tmp_path)
    names = [f.name for f in dataclasses.fields(config.Config)]
    assert names == [o.attr for o in config.OPTIONS] + ["root", "source"]
    assert a == b and a is not b
    assert not hasattr(a, "__dict__")  # slots: 75 fields, no per-instance dict
    changed = dataclasses.replace(a, repository="octo/widgets")
    assert changed != a and changed.repository == "octo/widgets"
    assert changed.changelog == a.changelog and changed.root == tmp_path
    assert a != dataclasses.replace(a, source=tmp_path / "x.yaml")  # the last field counts too
    assert repr(a).startswith("Config(repository='SemiAnalysisAI/InferenceX', changelog=")
    assert repr(a).endswith(f"root={tmp_path!r}, source=None)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.repository = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(a)  # its mapping fields are unhashable
    values = {f.name: getattr(a, f.name) for f in dataclasses.fields(a)}
    assert config.Config(**values) == a
    del values["repository"]
    with pytest.raises(TypeError, match="repository"):
        config.Config(**values)
    with pytest.raises(TypeError, match="bogus"):
        config.Config(**values, repository="o/r", bogus=1)
    # root defaults to the working directory, source to None, as their field defaults say
    del values["root"], values["source"]
    made = config.Config(**values, repository="o/r")
    assert made.source is None and made.root == Path.cwd()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("github-timeout: 1e10", "option github-timeout: must be at most 3600"),
        ("github-rate-limit-wait: .inf", "option github-rate-limit-wait: must be at most 86400"),
        ("github-rate-limit-wait: .nan", "option github-rate-limit-wait: must be a finite number"),
        ("github-write-interval: .nan", "option github-write-interval: must be a finite number"),
        ("github-api-url: 'http://[::1'", "option github-api-url: 'http://[::1' is not a URL"),
        ("github-api-url: 'http://h:99999'", "is not a URL (Port out of range"),
        ("github-api-url: 'ftp://h/api'", "is not an http(s) URL with a host"),
    ],
)
def test_values_that_would_crash_a_later_command_are_refused_at_load(
    tmp_path: Path, line: str, message: str
) -> None:
    (tmp_path / ".changelog-tools.yaml").write_text(line + "\n")
    with pytest.raises(ConfigError) as caught:
        config.load_config(tmp_path / ".changelog-tools.yaml")
    assert message in str(caught.value)
    assert ".changelog-tools.yaml:1:" in str(caught.value)


# -- hostile input, pinned through the installed CLI -------------------------------------------


def test_the_default_recipe_link_patterns_take_ascii_digits_only() -> None:
    from changelog_tools.config import OPTIONS

    patterns = next(o.default for o in OPTIONS if o.name == "signoff-recipe-links")
    pull = re.compile(patterns[0])
    assert pull.search("https://github.com/vllm-project/recipes/pull/12")
    assert not pull.search("https://github.com/vllm-project/recipes/pull/٥")


# -- a configuration in a subdirectory ---------------------------------------------------------


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
