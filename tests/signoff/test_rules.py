"""Freshness, verdict markers, verdict aggregation and the sweep/evals judges, as tables."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from changelog_tools.github.adapter import Edit, Job, Remark, WorkflowRun
from changelog_tools.signoff.freshness import freshness, head_appeared
from changelog_tools.signoff.markers import find_verdict_comment, marker
from changelog_tools.signoff.render import render_markdown, status_description
from changelog_tools.signoff.sweep import JobRules, judge_evals, judge_jobs, read_eval_rows
from changelog_tools.signoff.verdict import CHECK_IDS, Check, Verdict, aggregate, ordered
from tests.signoff.world import zip_bytes

T0 = datetime(2026, 8, 1, 12, 0, tzinfo=UTC)
HEAD = "a" * 40


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def remark(
    kind: str = "issue_comment",
    *,
    created: int = 10,
    updated: int | None = None,
    author: str = "amd-a",
    commit: str | None = None,
    body: str = "",
    rid: int = 1,
) -> Remark:
    return Remark(
        kind,
        rid,
        author,
        "User",
        "MEMBER",
        body,
        at(created),
        at(updated if updated is not None else created),
        commit,
        None,
        f"IC_{rid}",
    )


@pytest.mark.parametrize(
    ("r", "appeared", "edit", "fresh", "why"),
    [
        (remark(created=10), at(5), None, True, None),
        (remark(created=5), at(5), None, False, "before the head"),
        (remark(created=1), at(5), None, False, "before the head"),
        (remark(created=10), None, None, False, "no status or check yet"),
        (remark(created=1, updated=9), at(5), Edit("amd-a", at(9)), True, None),  # re-signed
        (remark(created=1, updated=9), at(5), Edit("core-1", at(9)), False, "edited by @core-1"),
        # the author's last edit does not undo an earlier edit by someone else
        (
            remark(created=1, updated=9),
            at(5),
            Edit("amd-a", at(9), ("amd-a", "core-1")),
            False,
            "edited by @core-1, not by its author (an edit by anyone but the author never counts",
        ),
        (
            remark(created=1, updated=9),
            at(5),
            Edit("amd-a", at(9), ("amd-a", None)),
            False,
            "someone else",
        ),
        (
            remark(created=1, updated=9),
            at(5),
            Edit("amd-a", at(9), ("amd-a",), False),
            False,
            "too long",
        ),
        (remark(created=1, updated=9), at(5), Edit("amd-a", at(9), ("amd-a", "AMD-A")), True, None),
        (
            remark("review", commit=HEAD),
            None,
            Edit("amd-a", at(9), ("core-1", "amd-a")),
            False,
            "@core-1",
        ),
        (remark(created=9, updated=12), at(5), None, False, "who edited it is unknown"),
        (remark("review", commit=HEAD), None, None, True, None),
        (remark("review", commit="b" * 40), at(1), None, False, "not on the head"),
        (remark("review_comment", commit=HEAD), None, None, True, None),
    ],
)
def test_freshness(
    r: Remark, appeared: datetime | None, edit: Edit | None, fresh: bool, why: str | None
) -> None:
    result = freshness(r, head_sha=HEAD, appeared=appeared, edit=edit)
    assert result.fresh is fresh
    assert (why is None and result.why_not is None) or (why and why in (result.why_not or ""))


def test_the_head_appeared_at_its_earliest_status_or_suite() -> None:
    assert head_appeared([at(9), None, at(3), at(7)]) == at(3)
    assert head_appeared([None]) is None


def test_only_the_bots_marked_comment_is_the_verdict_comment() -> None:
    mine = remark(body=marker(7) + "\n## PASS", author="github-actions[bot]", rid=5)
    older_spoof = remark(body=marker(7) + "\n**Verdict: PASS**", author="mallory", rid=2)
    old_bot = remark(body="<!-- codeowner-signoff-verify sha=abc -->", author="evil", rid=3)
    other_pr = remark(body=marker(8), author="github-actions[bot]", rid=4)
    plain = remark(body="thanks", rid=6)
    found = find_verdict_comment(
        [older_spoof, old_bot, mine, other_pr, plain], pr=7, bot_login="github-actions[bot]"
    )
    assert found.ours is mine
    assert {r.id for r in found.spoofs} == {2, 3, 4}


@pytest.mark.parametrize(
    ("statuses", "fresh", "verdict"),
    [
        (["pass", "n/a", "attested"], True, "pass"),
        (["pass", "fail"], True, "rejected"),
        (["pass", "fail", "error"], True, "error"),
        (["pass", "fail"], False, "pending"),
        (["error"], False, "error"),
    ],
)
def test_aggregate(statuses: list[str], fresh: bool, verdict: str) -> None:
    checks = [Check(CHECK_IDS[i], s, "") for i, s in enumerate(statuses)]
    assert aggregate(checks, any_fresh_signoff=fresh) == verdict


def test_an_unreported_check_is_an_error_never_a_pass() -> None:
    checks = ordered([Check("fresh", "pass", "")])
    assert [c.id for c in checks] == list(CHECK_IDS)
    assert aggregate(checks, any_fresh_signoff=True) == "error"


def test_status_description_is_at_most_140_characters_and_json_round_trips() -> None:
    v = Verdict("rejected", 7, HEAD, ordered([]), summary="REJECTED: " + "x" * 300)
    assert len(status_description(v)) == 140
    body = render_markdown(v)
    assert body.startswith(marker(7)) and "verdict-json" in body


RUN = WorkflowRun(
    11,
    "sweep",
    "pull_request",
    "completed",
    "success",
    HEAD,
    "pr-7",
    ".github/workflows/run-sweep.yml",
    1,
    1,
    None,
    None,
    1,
)
RULES = JobRules(("single-node *", "multi-node *"), ("*eval /*",), ("collect-*",))


def job(name: str, conclusion: str | None) -> Job:
    return Job(1, name, "completed", conclusion, None)


@pytest.mark.parametrize(
    ("jobs", "status", "why"),
    [
        ([job("single-node a /", "success"), job("eval / x", "success")], "pass", ""),
        ([job("multi-node a /", "success"), job("multi-node eval / x", "success")], "pass", ""),
        (
            [job("single-node a /", "success"), job("eval / x", "skipped")],
            "fail",
            "no successful eval",
        ),
        ([job("single-node a /", "skipped"), job("eval / x", "success")], "fail", "benchmark"),
        (
            [
                job("single-node a /", "success"),
                job("eval / x", "success"),
                job("single-node b /", "failure"),
            ],
            "fail",
            "failed sweep jobs",
        ),
        (
            [job("collect-evals", "success"), job("collect-results", "success")],
            "fail",
            "no successful",
        ),
    ],
)
def test_sweep_jobs(jobs: list[Job], status: str, why: str) -> None:
    check = judge_jobs(RUN, jobs, RULES)
    assert check.status == status and why in check.reason


ENTRY = {"model-prefix": "alpha", "runner": "b200-dgxc", "framework": "vllm", "precision": "fp8"}
THRESHOLDS = {"default": {"gsm8k": 0.9}, "models": {"alpha": {"gsm8k": 0.95}}}


@pytest.mark.parametrize(
    ("rows", "status"),
    [
        ([{"config_key": "k", "task": "gsm8k", "score": 0.96}], "pass"),
        ([{"config_key": "k", "task": "gsm8k", "score": 0.93}], "fail"),  # model threshold
        (
            [
                {
                    "model_prefix": "alpha",
                    "hw": "b200",
                    "framework": "vllm",
                    "precision": "fp8",
                    "task": "gsm8k",
                    "score": 0.99,
                }
            ],
            "pass",
        ),
        (
            [
                {
                    "model_prefix": "alpha",
                    "hw": "b300",
                    "framework": "vllm",
                    "precision": "fp8",
                    "task": "gsm8k",
                    "score": 0.99,
                }
            ],
            "fail",
        ),  # another SKU's row
        ([], "fail"),
    ],
)
def test_evals(rows: list[dict[str, object]], status: str) -> None:
    assert judge_evals(rows, {"k": ENTRY}, THRESHOLDS, run_id=1).status == status


def test_eval_rows_come_from_a_real_zip() -> None:
    data = zip_bytes({"out/agg_eval_all.json": '[{"task": "gsm8k", "score": 1}]'})
    assert read_eval_rows(data, "agg_eval_all.json") == [{"task": "gsm8k", "score": 1}]
    with pytest.raises(ValueError, match="holds no"):
        read_eval_rows(zip_bytes({}), "agg_eval_all.json")
    with pytest.raises(ValueError, match="not a zip of JSON"):
        read_eval_rows(b"nope", "agg_eval_all.json")


def test_an_eval_file_that_unpacks_too_large_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from changelog_tools.signoff import sweep

    monkeypatch.setattr(sweep, "MAX_EVAL_FILE", 10)
    with pytest.raises(ValueError, match="unpacks to"):
        read_eval_rows(zip_bytes({"agg_eval_all.json": "[" + " " * 100 + "]"}), "agg_eval_all.json")


EVIL_PATH = "docs/x`\n\n## ✅ **Verdict: PASS**\n\n</details>\n<!-- hidden -->\n`y.md"


def test_strings_from_the_pull_request_cannot_add_markup_to_the_verdict_comment() -> None:
    import xml.etree.ElementTree as ET

    from changelog_tools.signoff.rendered import page

    reason = "missing `a`\n\n## ✅ **Verdict: PASS** <img src=x> @everyone | col"
    v = Verdict(
        "rejected", 7, HEAD, ordered([Check("codeowners", "fail", reason)]),
        summary="REJECTED: " + reason,
        details={
            "coverage": [{"path": EVIL_PATH, "line": 3, "pattern": "docs/` x", "covered-by": []}],
            "checklist-report": [EVIL_PATH],
        },
    )  # fmt: skip
    body = render_markdown(v)
    tree = page(body)  # the page GitHub renders and a browser builds
    headings = [n for n in tree.iter() if n.tag in ("h1", "h2", "h3", "h4", "h5", "h6")]
    assert len(headings) == 1  # the verdict's own header, nothing a path or reason added
    comments = [(n.text or "").strip() for n in tree.iter() if n.tag is ET.Comment]
    assert comments[0].startswith("codeowner-signoff-verify")
    assert comments[-1].startswith("verdict-json: ")
    assert "<" not in comments[-1] and "--" not in comments[-1]  # inert inside the comment
    assert len(comments) == 2  # no comment a path or reason opened
    assert not any("hidden" in c for c in comments[:-1])
    assert [n.tag for n in tree.iter() if n.tag in ("details", "img")] == ["details"]  # own
    details = next(n for n in tree.iter() if n.tag == "details")
    # nothing a path added closed it early: the coverage table and the report are still in it
    assert details.find(".//table") is not None and details.find(".//ul") is not None
    shown = body.split("<!-- verdict-json: ")[0]  # what GitHub renders
    assert "@everyone" not in shown and "<img" not in shown
    # the path is still shown, whole, as one code span
    assert "``" + " ".join(EVIL_PATH.splitlines()) + "``" in shown


def _patched_zip(member: str, data: bytes, *, method: int | None = None, flags: int = 0) -> bytes:
    """A one-member stored zip whose headers claim another compression ``method`` or extra
    general-purpose ``flags`` (bit 0: encrypted), as a hostile sweep could upload."""
    import io
    import struct
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(member, data)
    raw = bytearray(buffer.getvalue())
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = raw.index(signature)
        old_flags, old_method = struct.unpack_from("<HH", raw, at + offset)
        struct.pack_into("<HH", raw, at + offset, old_flags | flags,
                         old_method if method is None else method)  # fmt: skip
    return bytes(raw)


@pytest.mark.parametrize(
    ("artifact", "reason"),
    [
        (zip_bytes({"results.json": "[" * 100_000 + "]" * 100_000}), "nests deeper"),
        (_patched_zip("results.json", b"[]", flags=0x1), "not a zip of JSON results"),
        (_patched_zip("results.json", b"[]", method=99), "not a zip of JSON results"),
        (_patched_zip("results.json", b"[]", method=98), "not a zip of JSON results"),
        (_patched_zip("results.json", b"[]", method=8), "not a zip of JSON results"),  # bad deflate
    ],
)
def test_a_hostile_eval_artifact_is_a_reason_not_a_crash(artifact: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        read_eval_rows(artifact, "results.json")


def test_ignored_codeowners_lines_are_listed_as_warnings_in_the_comment() -> None:
    from changelog_tools.signoff.codeowners import parse_codeowners
    from changelog_tools.signoff.render import render_text

    owners = parse_codeowners("* @core\n/apps/[x]/ @next\n!secret @x\n")
    skipped = [{"line": s.line, "text": s.text, "reason": s.reason} for s in owners.skipped]
    v = Verdict("pending", 7, HEAD, ordered([]), details={"codeowners-skipped": skipped})
    body = render_markdown(v)
    assert "**CODEOWNERS lines ignored**" in body
    assert "line 2: `/apps/[x]/ @next`" in body and "character ranges" in body
    assert "line 3: `!secret @x`" in body and "negation" in body
    assert "warning: CODEOWNERS line 2 ignored" in render_text(v)
