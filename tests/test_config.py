"""Configuration: discovery, pyproject tables, validation, and generated files kept in sync."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from changelog_tools import config
from changelog_tools.errors import ConfigError
from tests.conftest import REPO_ROOT


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
        ("repo: a/b\n", "unknown option 'repo'", "did you mean 'remote'?"),
        (
            "master-config: [a]\n",
            "unknown option 'master-config'",
            "did you mean 'master-configs'?",
        ),
        ("max-file-size: -1\n", "option max-file-size: -1 is less than the minimum of 1", None),
        ("master-configs: []\n", "option master-configs: [] should be non-empty", None),
        ("repository: not a repo\n", "option repository:", None),
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
    assert info.value.hint == hint


def test_the_committed_config_schema_and_docs_match_the_options() -> None:
    schema_file = REPO_ROOT / "schemas" / "config.schema.json"
    assert json.loads(schema_file.read_text()) == config.config_schema()
    assert (REPO_ROOT / "docs" / "configuration.md").read_text() == config.render_docs()


def test_every_option_default_satisfies_its_own_schema() -> None:
    import jsonschema

    defaults = {o.name: o.default for o in config.OPTIONS}
    jsonschema.Draft202012Validator(config.config_schema()).validate(defaults)
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


def test_config_behaves_as_the_frozen_dataclass_it_declares(tmp_path: Path) -> None:
    """Config's __init__, __eq__ and __repr__ are written out (start-up cost, issue 14); they
    must still be what @dataclass(frozen=True) would generate."""
    import dataclasses

    a = config.defaults(tmp_path)
    b = config.defaults(tmp_path)
    assert dataclasses.is_dataclass(a)
    names = [f.name for f in dataclasses.fields(config.Config)]
    assert names == [o.attr for o in config.OPTIONS] + ["root", "source"]
    assert a == b and a is not b
    changed = dataclasses.replace(a, repository="octo/widgets")
    assert changed != a and changed.repository == "octo/widgets"
    assert changed.changelog == a.changelog and changed.root == tmp_path
    assert a != dataclasses.replace(a, source=tmp_path / "x.yaml")  # the last field counts too
    assert a.__eq__(object()) is NotImplemented
    nan = dataclasses.replace(a, github_retry_backoff=float("nan"))
    assert nan == nan  # compared as tuples, identity first, as the generated __eq__
    assert repr(a).startswith("Config(repository='SemiAnalysisAI/InferenceX', changelog=")
    assert repr(a).endswith(f"root={tmp_path!r}, source=None)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.repository = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(a)  # as the generated __hash__: its mapping fields are unhashable
    values = {f.name: getattr(a, f.name) for f in dataclasses.fields(a)}
    assert config.Config(**values) == a
    del values["repository"]
    with pytest.raises(TypeError, match="missing fields \\['repository'\\]"):
        config.Config(**values)
    with pytest.raises(TypeError, match="unknown fields \\['bogus'\\]"):
        config.Config(**values, repository="o/r", bogus=1)
    # root defaults to the working directory, source to None, as their field defaults say
    del values["root"], values["source"]
    assert config.Config(**values, repository="o/r").source is None
