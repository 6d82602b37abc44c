"""The files generated from the code (config schema and reference, diagnostic codes) kept in
sync with it."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

from changelog_tools import config
from tests.conftest import REPO_ROOT


def _gendocs() -> ModuleType:
    """The maintenance script that writes the derived docs (scripts/ is not part of the package)."""
    path = REPO_ROOT / "scripts" / "gendocs.py"
    spec = importlib.util.spec_from_file_location("gendocs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_config_schema_and_docs_match_the_options() -> None:
    schema_file = REPO_ROOT / "changelog_tools" / "schemas" / "config.schema.json"
    assert json.loads(schema_file.read_text()) == config.config_schema()
    assert (REPO_ROOT / "docs" / "configuration.md").read_text() == config.render_docs()


def test_the_schemas_directory_is_the_one_shipped_in_the_package() -> None:
    from importlib import resources

    shipped = resources.files("changelog_tools").joinpath("schemas", "perf-changelog.schema.json")
    assert (
        shipped.read_text()
        == (REPO_ROOT / "changelog_tools" / "schemas" / "perf-changelog.schema.json").read_text()
    )


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
