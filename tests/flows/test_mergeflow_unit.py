"""The merge flow's pure pieces: CI-skip markers, the squash message, authorization decisions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools.flows.merge.flow import (
    CI_SKIP_MARKERS,
    SourceRun,
    flow_commit_message,
    has_ci_skip,
    squash_message,
    strip_ci_skip,
)

RUN = SourceRun(id=77, attempt=1, url="https://ci.invalid/77", head_sha="a" * 40,
                conclusion="success", latest=True)  # fmt: skip


def test_every_ci_skip_marker_is_removed_whatever_its_case() -> None:
    text = "Fix it [SKIP CI] now [ci skip]\n\n[No Ci] ***NO_CI*** [skip-sweep]\nskip-checks: true\n"
    assert strip_ci_skip(text, extra=["[skip-sweep]"]) == "Fix it now\n\n\n"


def test_the_squash_message_leaves_out_the_flows_own_commits_and_every_marker() -> None:
    title, body = squash_message(
        pr=12,
        title="Tune TP [skip ci]",
        commit_messages=[
            "Tune the TP sizes\n\nDetails here [skip-sweep]",
            flow_commit_message("Merge main into #12", pr=12, marker="[skip-sweep]"),
            "Use a placeholder [ci skip]",
        ],
        source=RUN,
        skip_marker="[skip-sweep]",
    )
    assert title == "Tune TP (#12)"
    assert body == (
        "* Tune the TP sizes\n"
        "  \n"
        "  Details here\n"
        "* Use a placeholder\n"
        "\n"
        "Main reuses sweep run 77 of this pull request: https://ci.invalid/77\n"
    ).replace("  \n", "\n")


def test_a_pr_title_made_only_of_a_marker_falls_back_to_the_pr_number() -> None:
    title, _ = squash_message(
        pr=5, title="[skip ci]", commit_messages=[], source=RUN, skip_marker="[skip-sweep]"
    )
    assert title == "PR #5 (#5)"


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(
                st.sampled_from([*CI_SKIP_MARKERS, "[skip-sweep]", "skip-checks: true", "\n"]),
                st.text(alphabet="abc [] *-_:\n", max_size=12),
            ),
            max_size=6,
        ).map("".join),
        max_size=4,
    ),
    st.text(alphabet="abc [skip-sweep]", max_size=20),
)
def test_no_squash_message_ever_carries_a_ci_skip_marker(messages: list[str], title: str) -> None:
    t, body = squash_message(
        pr=3, title=title, commit_messages=messages, source=RUN, skip_marker="[skip-sweep]"
    )
    assert not has_ci_skip(t + "\n" + body, extra=["[skip-sweep]"])


def test_a_marker_hidden_inside_another_marker_is_removed_too() -> None:
    assert strip_ci_skip("a [skip[ci skip] ci] b") == "a b"
    assert not has_ci_skip(
        strip_ci_skip("[skip-[skip-sweep]sweep]", extra=["[skip-sweep]"]), extra=["[skip-sweep]"]
    )
