"""The fake GitHub held to GitHub's published API description.

The demo's exchanges are checked by the demo's own test (tests/flows/test_demo.py: merge,
reuse-gate, recover, the sign-off bot); here the sign-off verifier's reads (every kind of
remark, edits over GraphQL, teams, permissions, other repositories' PRs, jobs, artifacts) are
driven through a recording fake and checked the same way, and the checker is shown to catch
what it is for. The vendored description is checked against the vendoring script's selection
and the routes the fake serves.
"""

from __future__ import annotations

import importlib.util
import json
import re
import urllib.request
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from types import ModuleType

import pytest
from graphql import parse, validate

from changelog_tools.github.reviewing import _EDITS_QUERY
from changelog_tools.testing.fakegithub import Exchange, FakeGitHub, iter_routes
from tests.contract import checker
from tests.signoff.world import World, authorize, build_world, signoff

ROOT = Path(__file__).resolve().parents[2]
# the installed package's copy: the one the fake answers from
EXAMPLES = resources.files("changelog_tools.testing").joinpath("github_examples.json")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "vendor_github_description", ROOT / "scripts/vendor_github_description.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = build_world(tmp_path)
    w.fake.exchanges = []  # record
    try:
        yield w
    finally:
        w.fake.stop()
    assert not w.fake.unhandled and not w.fake.errors, (w.fake.unhandled, w.fake.errors)


def recorded(w: World) -> list[Exchange]:
    assert w.fake.exchanges is not None
    return list(w.fake.exchanges)


def operations(exchanges: list[Exchange]) -> set[str]:
    return {checker.operation_of(e.method, e.path)[0] or f"{e.method} {e.path}" for e in exchanges}


# -- the sign-off verifier's exchanges ----------------------------------------------------------


def test_a_signoff_verification_with_every_kind_of_remark_keeps_to_the_description(
    world: World,
) -> None:
    head = world.open_pr()
    authorize(world)
    cid = world.comment(signoff("amd-a", check=False), "amd-a")
    world.fake.edit_comment(cid, signoff("amd-a"))  # edited by its author: GraphQL says so
    review = world.fake.add_review(7, login="nv-a", body="LGTM", commit_id=head)
    world.fake.edit_review(review.id, signoff("nv-a"))
    world.fake.add_review_comment(
        7, "nit", login="core-1", commit_id=head, path="perf-changelog.yaml", line=1
    )
    out = world.verify()
    assert out.verdict is not None and out.verdict.verdict == "pass", out.verdict.signoffs
    exchanges = recorded(world)
    assert checker.check(exchanges) == []
    assert {
        "POST /graphql",
        "GET /repos/{owner}/{repo}/commits/{ref}/statuses",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
        "GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",
        "GET /repos/{owner}/{repo}/issues/{issue_number}/timeline",
        "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
        "POST /repos/{owner}/{repo}/statuses/{sha}",
    } <= operations(exchanges)


def test_a_signoff_deleted_between_the_listing_and_the_graphql_query_is_gone(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GitHub answers a node id that names nothing with a null node and a NOT_FOUND error: the
    # verifier must read that as "deleted", neither failing nor counting the sign-off
    head = world.open_pr()
    authorize(world)
    review = world.fake.add_review(7, login="amd-a", body=signoff("amd-a"), commit_id=head)
    answer_graphql = world.fake._graphql

    def delete_first(request: object) -> object:
        world.fake.reviews.remove(review)
        return answer_graphql(request)  # type: ignore[arg-type]

    monkeypatch.setattr(world.fake, "_graphql", delete_first)
    out = world.verify(dry_run=True)
    assert out.verdict is not None and out.verdict.verdict == "pending", out.verdict.summary
    [graphql] = [e for e in recorded(world) if e.path == "/graphql"]
    assert graphql.response["data"]["nodes"] == [None]
    assert [e["type"] for e in graphql.response["errors"]] == ["NOT_FOUND"]
    assert checker.check(recorded(world)) == []


def test_a_deleted_fork_a_foreign_pr_and_a_paged_combined_status_keep_to_the_description(
    fake: FakeGitHub,
) -> None:
    fake.exchanges = []
    fake.add_pull(3, "topic", head_sha="a" * 40, head_repo="someone/fork", fork_deleted=True)
    fake.add_foreign_pull("other/repo", 9, state="open")
    from changelog_tools import config as config_mod
    from changelog_tools.github.adapter import make_github
    from tests.fakegithub_fixtures import env_for

    gh = make_github(config_mod.defaults(), env=env_for(fake), repository="octo/widgets")
    pr = gh.get_pull(3)
    assert pr.head_repo is None and pr.mergeable is True and pr.mergeable_state == "clean"
    foreign = gh.get_foreign_pull("other/repo", 9)
    assert foreign.mergeable is True and foreign.base_repo == "other/repo"
    fake.add_force_push(3, before="0" * 40, after="a" * 40)
    assert len(gh.force_push_times(3)) == 1
    # the combined status is paged by number (GitHub documents no Link header for it)
    paged = make_github(
        config_mod.defaults(), env=env_for(fake), repository="octo/widgets", page_size=2
    )
    for context in ("a", "b", "c"):
        fake.add_status("a" * 40, "success", context)
    assert len(paged.get_combined_status("a" * 40).statuses) == 3
    assert fake.count("GET", r"/status$") == 2
    with urllib.request.urlopen(fake.api("/repos/octo/widgets")) as answer:
        assert json.load(answer)["full_name"] == "octo/widgets"
    assert checker.check(fake.exchanges) == []


def test_the_edit_query_is_valid_against_githubs_schema() -> None:
    assert validate(checker.graphql_schema(), parse(_EDITS_QUERY)) == []


# -- the checker catches what it is for ---------------------------------------------------------


def _exchange(method: str, path: str, **fields: object) -> Exchange:
    values: dict[str, object] = {
        "query": {},
        "body": None,
        "status": 200,
        "headers": {},
        "response": None,
    }
    values.update(fields)
    return Exchange(method, path, **values)  # type: ignore[arg-type]


def test_an_answer_missing_a_field_the_client_reads_is_caught(fake: FakeGitHub) -> None:
    fake.add_pull(3, "topic", head_sha="a" * 40)
    answer = fake.pull_json(fake.pulls[3])
    path = "/repos/octo/widgets/pulls/3"
    assert checker.check([_exchange("GET", path, response=answer)]) == []
    del answer["mergeable_state"]
    answer["head"]["sha"] = None
    found = [str(f) for f in checker.check([_exchange("GET", path, response=answer)])]
    assert any("'mergeable_state' is a required property" in f for f in found), found
    assert any("head/sha: None is not of type 'string'" in f for f in found), found


def test_an_undocumented_route_and_method_are_caught() -> None:
    found = checker.check(
        [
            _exchange("GET", "/repos/o/r/statuses/" + "a" * 40, response=[]),  # POST only
            _exchange("GET", "/repos/o/r/pulls/1/everything", response={}),
        ]
    )
    assert [(f.side, f.what) for f in found] == [("request", "undocumented route")] * 2


def test_an_invalid_body_or_parameter_is_caught() -> None:
    labels = "/repos/o/r/issues/1/labels"
    found = checker.check(
        [
            _exchange("POST", labels, body=[1, 2], response=[]),
            _exchange("PUT", "/repos/o/r/pulls/1/merge", body={"merge_method": "octopus"}),
            _exchange("GET", "/repos/o/r/pulls", query={"state": "merged", "colour": "red"}),
        ]
    )
    whats = [f"{f.side} {f.what}" for f in found]
    assert any(w.startswith("request body (top)") for w in whats), whats
    assert any("body merge_method: 'octopus' is not one of" in w for w in whats), whats
    assert "request undocumented query parameter 'colour'" in whats
    assert any(w.startswith("request query parameter state: (top): 'merged' is not") for w in whats)


def test_an_undocumented_status_body_or_link_header_is_caught() -> None:
    found = checker.check(
        [
            _exchange("GET", "/repos/o/r/pulls/1", status=418, response={"message": "x"}),
            _exchange("GET", "/repos/o/r/actions/runs/1", headers={"Link": '<x>; rel="next"'}),
            _exchange("DELETE", "/repos/o/r/issues/comments/1", status=204, response={}),
        ]
    )
    whats = [f.what for f in found]
    assert "status 418 is not documented" in whats
    assert "status 200: a Link header where none is documented" in whats
    assert "status 204: a body where none is documented" in whats


def test_a_graphql_query_outside_the_schema_is_caught() -> None:
    bad = _exchange(
        "POST",
        "/graphql",
        body={"query": 'query { nodes(ids: ["x"]) { ... on IssueComment { bodyHTML } } }'},
        response={"data": {"nodes": []}, "extra": 1},
    )
    whats = [f"{f.side} {f.what}" for f in checker.check([bad])]
    assert any("Cannot query field 'bodyHTML'" in w for w in whats), whats
    assert any(w.startswith("answer (top): Additional properties") for w in whats), whats


# -- the vendored description and the fake ------------------------------------------------------


def _normal(path: str) -> str:
    return re.sub(r"\{\w+\}", "{}", path)


def test_every_route_the_fake_serves_is_a_vendored_operation() -> None:
    vendored = {_normal(k) for k in checker.description()["operations"]}
    served = set()
    for method, pattern in iter_routes():
        template = re.sub(r"\(\?P<\w+>[^)]*\)", "{}", pattern)
        served.add(_normal(f"{method} {template}"))
    artifact = "GET /repos/{}/{}/actions/artifacts/{}/zip"  # {archive_format} is only `zip`
    assert served - {artifact} - vendored == set()
    assert "GET /repos/{}/{}/actions/artifacts/{}/{}" in vendored


def test_the_vendored_files_hold_the_scripts_selection_from_one_release() -> None:
    script = _script()
    rest = checker.description()
    selected = {f"{m} {p}" for m, p in script.OPERATIONS}
    assert set(rest["operations"]) == selected, "stale: run scripts/vendor_github_description.py"
    examples = json.loads(EXAMPLES.read_text(encoding="utf-8"))
    assert set(examples) - {"source"} <= selected
    assert examples["source"] == rest["source"]
    assert rest["source"]["package"] == "@octokit/openapi"
    assert rest["source"]["license"] == "MIT"
    sdl = checker.GRAPHQL.read_text(encoding="utf-8")
    assert "@octokit/graphql-schema" in sdl.splitlines()[0] and "MIT" in sdl.splitlines()[0]
    for name in script.GRAPHQL_TYPES:
        assert checker.graphql_schema().get_type(name) is not None
