"""The resolved configuration: InferenceX by default, a frozen value of every option."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from changelog_tools import config


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


def test_the_default_recipe_link_patterns_take_ascii_digits_only() -> None:
    from changelog_tools.config import OPTIONS

    patterns = next(o.default for o in OPTIONS if o.name == "signoff-recipe-links")
    pull = re.compile(patterns[0])
    assert pull.search("https://github.com/vllm-project/recipes/pull/12")
    assert not pull.search("https://github.com/vllm-project/recipes/pull/٥")
