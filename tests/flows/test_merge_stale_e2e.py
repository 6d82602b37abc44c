"""`merge` refuses to reuse a sweep main made stale, end to end: a real bare origin, the fake
GitHub tied to it, main moving after the PR's sweep (in parts that merge without conflict)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from changelog_tools import cli
from tests.conftest import git
from tests.mergeworld import World, build_world, entry

MASTER = "configs/gpu-a-master.yaml"
KEY = "llama70b-fp8-gpu-a-vllm"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    for w in build_world(tmp_path):
        for key, value in w.env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(w.clone)
        yield w


def writes(w: World) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in w.fake.log if r.method != "GET"]


def test_main_changed_the_image_of_a_swept_config_so_reuse_is_refused(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    text = (w.author / MASTER).read_text()
    moved = w.push_main(
        {MASTER: text.replace("example/vllm:0.11.0", "example/vllm:0.11.1")}, "Bump vLLM"
    )
    refs = w.origin_refs()

    assert cli.run(["merge", "1"]) == 1

    err = capsys.readouterr().err
    assert f"{KEY}: {MASTER} (main {moved[:12]})" in err
    assert "a new sweep is needed" in err
    assert w.origin_refs() == refs and writes(w) == [] and not w.fake.pulls[1].merged
    assert git(w.clone, "status", "--porcelain") == ""


def test_main_changed_an_unrelated_config_and_reuse_still_happens(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    w.open_pr(1, "feat-a", {}, title="Tune llama", append=entry("Tune llama", key=KEY))
    text = (w.author / MASTER).read_text()
    w.push_main(
        {MASTER: text.replace("example/sglang:0.5.5", "example/sglang:0.5.6")}, "Bump SGLang"
    )

    assert cli.run(["merge", "1"]) == 0

    pull = w.fake.pulls[1]
    assert pull.merged
    source = next(r for r in w.fake.runs.values() if r.event == "pull_request")
    push = next(r for r in w.fake.runs.values() if r.head_sha == pull.merge_commit_sha)
    out = capsys.readouterr().out
    assert f"main's push run {push.id}" in out and f"reused sweep run {source.id}" in out
