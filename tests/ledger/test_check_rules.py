"""`check_change`: one test per rule and mode, asserting the exact code and line."""

from __future__ import annotations

import json

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools import reportrender
from changelog_tools.errors import UsageError
from changelog_tools.ledger.check import CheckResult, check_change
from tests.checkdata import (
    BASE,
    MASTER_A,
    MASTER_B,
    MASTERS,
    MASTERS_A,
    MASTERS_B,
    PULL,
    appended,
    config,
    entry,
)

KEY = "alpha-fp8-gpu-a-vllm"


def run(
    head: bytes,
    *,
    base: bytes | None = BASE,
    mode: str = "pr",
    pr: int | None = 7,
    masters_head: dict[str, bytes | None] | None = None,
    masters_base: dict[str, bytes | None] | None = None,
    keys: bool = True,
    strict: bool = False,
) -> CheckResult:
    if keys and masters_head is None:
        masters_head = dict(MASTERS)
    if keys and masters_base is None:
        masters_base = dict(MASTERS)
    return check_change(
        base=base,
        head=head,
        config=config(),
        mode=mode,
        pr=pr if mode == "pr" else None,
        path="perf-changelog.yaml",
        masters_base=masters_base if keys else None,
        masters_head=masters_head if keys else None,
        strict=strict,
    )


def found(result: CheckResult) -> list[tuple[str, str, int | None]]:
    return [(d.code, d.severity.value, d.line) for d in result.report.sorted()]


# -- a clean append, per mode ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "link"),
    [
        ("pr", "XXX"),
        ("pr", f"{PULL}XXX"),
        ("pr", f"{PULL}7"),
        ("main", f"{PULL}7"),
        ("local", "XXX"),
        ("local", f"{PULL}123"),
    ],
)
def test_a_clean_append_passes_in_every_mode_with_an_allowed_link(mode: str, link: str) -> None:
    result = run(appended(entry(KEY, link=link)), mode=mode)
    assert found(result) == []
    assert result.report.ok
    assert result.change.kind.value == "appended"
    assert result.change.fast_path


def test_json_output_carries_each_appended_entry_and_the_classification() -> None:
    head = appended(entry(KEY, "beta-*", link="XXX"), entry("alpha-fp8-gpu-a-sglang"))
    result = run(head)
    doc = json.loads(reportrender.render_json(result.report))
    assert doc["change"]["kind"] == "appended"
    assert doc["mode"] == "pr" and doc["pr"] == 7
    assert [e["index"] for e in doc["entries"]] == [2, 3]
    first = doc["entries"][0]
    assert first["line"] == 13
    assert first["config-keys"] == [KEY, "beta-*"]
    assert first["master-keys"] == [KEY, "beta-fp4-gpu-b-trt", "beta-fp4-gpu-b-vllm"]
    assert first["pr-link"] == "XXX" and first["pr-link-kind"] == "placeholder"
    assert doc["entries"][1]["line"] == 20
    assert doc["master-keys"] == [
        KEY,
        "beta-fp4-gpu-b-trt",
        "beta-fp4-gpu-b-vllm",
        "alpha-fp8-gpu-a-sglang",
    ]


# -- rule 1: the appended entries pass validate's rules ------------------------------------------


def test_an_appended_entry_missing_its_description_is_a_schema_error_at_its_line() -> None:
    head = BASE + b"\n- config-keys:\n    - alpha-fp8-gpu-a-vllm\n  pr-link: XXX\n"
    assert (dx.MISSING_FIELD, "error", 13) in found(run(head))


def test_an_appended_entry_with_a_tab_is_a_byte_error_at_its_line() -> None:
    head = appended(entry(KEY).replace(b"  description:", b"  description:\t"))
    assert found(run(head))[0][0] == dx.TAB
    assert found(run(head))[0][2] == 15


# -- rule 2: no deletion, order kept -------------------------------------------------------------


def test_deleting_an_existing_entry_is_an_error() -> None:
    head = BASE[: BASE.index(b"\n- config-keys:") + 1]
    assert [c for c, _, _ in found(run(head))] == [dx.ENTRY_DELETED]


def test_inserting_an_entry_before_existing_ones_is_an_error_at_the_inserted_line() -> None:
    first, second = BASE.split(b"\n\n")
    head = first + b"\n\n" + entry(KEY) + b"\n" + second
    assert (dx.ENTRY_INSERTED, "error", 7) in found(run(head))


# -- rule 3: immutability, corrections ----------------------------------------------------------


def test_changing_an_existing_description_is_an_error_at_the_changed_item() -> None:
    head = BASE.replace(b'"Second sweep"', b'"Second sweep, edited"')
    assert found(run(head)) == [(dx.ENTRY_CHANGED, "error", 10)]


def test_reformatting_history_without_changing_meaning_is_an_error() -> None:
    head = BASE.replace(b'    - "First sweep"', b"    - First sweep")
    assert found(run(head)) == [(dx.REFORMATTED, "error", 4)]


def test_a_pr_link_correction_to_a_canonical_link_passes_even_in_pr_mode() -> None:
    head = BASE.replace(b"/pull/2\n", b"/pull/22\n")
    result = run(head)
    assert found(result) == []
    assert result.change.kind.value == "corrected"
    assert json.loads(reportrender.render_json(result.report))["change"]["corrections"] == [
        {"index": 1, "line": 11, "old": f"{PULL}2", "new": f"{PULL}22"}
    ]


@pytest.mark.parametrize("mode", ["pr", "main", "local"])
def test_a_correction_to_a_placeholder_is_a_bad_correction(mode: str) -> None:
    head = BASE.replace(b"https://github.com/example-org/bench/pull/2\n", b"XXX\n")
    assert found(run(head, mode=mode)) == [(dx.BAD_CORRECTION, "error", 11)]


def test_a_correction_to_another_repository_is_a_bad_correction() -> None:
    head = BASE.replace(b"example-org/bench/pull/2\n", b"other/repo/pull/2\n")
    result = run(head)
    assert found(result) == [(dx.BAD_CORRECTION, "error", 11)]
    assert "another repository" in result.report.diagnostics[0].message


def test_mixing_a_correction_with_a_new_entry_is_an_error_at_the_new_entry() -> None:
    head = appended(entry(KEY), base=BASE.replace(b"/pull/2\n", b"/pull/22\n"))
    assert (dx.MIXED_CORRECTION_APPEND, "error", 13) in found(run(head))


# -- rule 4: bytes of an append ------------------------------------------------------------------


def test_appending_without_an_empty_line_is_a_separator_error() -> None:
    assert found(run(BASE + entry(KEY))) == [(dx.APPEND_SEPARATOR, "error", 12)]


def test_appending_after_two_empty_lines_is_a_separator_error() -> None:
    assert found(run(BASE + b"\n\n" + entry(KEY))) == [(dx.APPEND_SEPARATOR, "error", 12)]


def test_two_new_entries_without_an_empty_line_between_them_is_a_separator_error() -> None:
    head = BASE + b"\n" + entry(KEY) + entry(KEY)
    assert (dx.APPEND_SEPARATOR, "error", 18) in found(run(head))


def test_an_extra_newline_at_the_end_is_a_final_newline_error() -> None:
    assert (dx.FINAL_NEWLINES, "error", 18) in found(run(appended(entry(KEY)) + b"\n"))


def test_a_whitespace_only_line_as_the_separator_between_new_entries_is_an_error() -> None:
    # History carries 27 such separators, but the reference gate rejects a new one: so do we.
    head = appended(entry(KEY)) + b"  \n" + entry(KEY)
    result = run(head)
    assert found(result) == [
        (dx.APPEND_SEPARATOR, "error", 18),
        (dx.WHITESPACE_ONLY_LINE, "warning", 18),
    ]
    assert not result.report.ok


def test_a_whitespace_only_line_an_entry_carries_before_the_empty_line_only_warns() -> None:
    head = appended(entry(KEY)) + b"  \n\n" + entry(KEY)
    assert found(run(head)) == [(dx.WHITESPACE_ONLY_LINE, "warning", 18)]


def test_a_whitespace_only_last_line_warns_but_an_empty_one_is_an_error() -> None:
    assert found(run(appended(entry(KEY)) + b"  \n")) == [(dx.WHITESPACE_ONLY_LINE, "warning", 18)]
    assert (dx.FINAL_NEWLINES, "error", 18) in found(run(appended(entry(KEY)) + b"  \n\n"))


@pytest.mark.parametrize(("lead", "ok"), [(b"", False), (b"\n", True), (b"\n\n", False)])
def test_history_ending_in_a_whitespace_only_line_still_needs_the_empty_line(
    lead: bytes, ok: bool
) -> None:
    base = BASE + b"  \n"
    result = run(base + lead + entry(KEY), base=base)
    assert result.report.ok is ok
    if not ok:
        assert (dx.APPEND_SEPARATOR, "error", 13) in found(result)


def test_trailing_spaces_in_a_new_entry_warn_and_pass() -> None:
    head = appended(entry(KEY).replace(b"  description:\n", b"  description:  \n"))
    result = run(head)
    assert found(result) == [(dx.TRAILING_WHITESPACE, "warning", 15)]
    assert result.report.ok


def test_trailing_spaces_fail_with_strict() -> None:
    head = appended(entry(KEY).replace(b"  description:\n", b"  description:  \n"))
    result = run(head, strict=True)
    assert found(result) == [(dx.TRAILING_WHITESPACE, "error", 15)]
    assert not result.report.ok


def test_a_whitespace_only_line_inside_a_new_entry_warns() -> None:
    head = appended(entry(KEY).replace(b"  description:\n", b"  description:\n  \n"))
    assert (dx.WHITESPACE_ONLY_LINE, "warning", 16) in found(run(head))


def test_bytes_added_to_the_last_existing_entry_are_an_error() -> None:
    head = BASE + b"  evals-only: true\n"
    assert found(run(head)) == [(dx.CONTINUES_HISTORY, "error", 12)]


def test_changing_a_history_byte_while_appending_is_an_error_at_that_line() -> None:
    head = appended(entry(KEY), base=BASE.replace(b'    - "First sweep"', b"    - 'First sweep'"))
    assert found(run(head)) == [(dx.HISTORY_BYTES_CHANGED, "error", 4)]


# -- rule 5: pr-links of appended entries ------------------------------------------------------


def test_a_link_to_another_pull_request_names_both_numbers() -> None:
    result = run(appended(entry(KEY, link=f"{PULL}2650")), pr=2651)
    assert found(result) == [(dx.WRONG_PR, "error", 17)]
    message = result.report.diagnostics[0].message
    assert "#2650" in message and "#2651" in message
    assert f"{PULL}2651" in (result.report.diagnostics[0].hint or "")


@pytest.mark.parametrize("link", ["XXX", f"{PULL}XXX"])
def test_a_placeholder_on_main_is_an_error(link: str) -> None:
    assert found(run(appended(entry(KEY, link=link)), mode="main")) == [
        (dx.PLACEHOLDER_ON_MAIN, "error", 17)
    ]


@pytest.mark.parametrize(
    "link",
    [
        "TBD",
        "xxxx",
        "YYYY",
        "PLACEHOLDER",
        f"{PULL}",
        "https://github.com/other/repo/pull/12",
        "http://github.com/example-org/bench/pull/12",
        f"{PULL}12/changes",
    ],
)
@pytest.mark.parametrize("mode", ["pr", "main", "local"])
def test_near_misses_are_errors_with_the_accepted_spelling(link: str, mode: str) -> None:
    result = run(appended(entry(KEY, link=f'"{link}"')), mode=mode, pr=12)
    assert found(result) == [(dx.NEAR_MISS_LINK, "error", 17)]
    hint = result.report.diagnostics[0].hint or ""
    if mode == "pr":
        assert f"`{PULL}12`" in hint and "`XXX`" in hint
    elif mode == "main":
        assert "XXX" not in hint
    else:
        assert "`XXX`" in hint


def test_a_link_that_is_not_a_pull_request_is_invalid() -> None:
    result = run(appended(entry(KEY, link="https://example.com/x")), mode="local")
    assert found(result) == [(dx.INVALID_LINK, "error", 17)]


# -- rule 6: config keys against the master configs ----------------------------------------------


def test_an_unknown_config_key_suggests_the_closest_existing_keys() -> None:
    result = run(appended(entry("alpha-fp8-gpu-a-vlm")))
    assert found(result) == [(dx.UNKNOWN_CONFIG_KEY, "error", 14)]
    assert "`alpha-fp8-gpu-a-vllm`" in (result.report.diagnostics[0].hint or "")


def test_a_wildcard_matching_nothing_is_an_error_at_its_line() -> None:
    result = run(appended(entry(KEY, "gamma-*")))
    assert found(result) == [(dx.WILDCARD_NO_MATCH, "error", 15)]


def test_wildcards_are_anchored_and_only_star_is_special() -> None:
    # `*-gpu-a` would match `alpha-fp8-gpu-a-vllm` only if the pattern were unanchored.
    result = run(appended(entry("alpha-fp8-gpu-a-vll?", '"*-sglang"', '"*-gpu-a"')))
    assert found(result) == [
        (dx.UNKNOWN_CONFIG_KEY, "error", 14),
        (dx.WILDCARD_NO_MATCH, "error", 16),
    ]
    assert result.report.data["entries"][0]["master-keys"] == ["alpha-fp8-gpu-a-sglang"]


def test_history_keys_are_not_checked_only_appended_ones() -> None:
    masters = {
        MASTER_A: MASTERS_A.replace(b"alpha-fp8-gpu-a-vllm:", b"alpha-renamed:"),
        MASTER_B: MASTERS_B,
    }
    result = run(appended(entry("alpha-renamed")), masters_head=masters, masters_base=masters)
    assert found(result) == []


def test_a_key_defined_in_two_master_files_is_an_error_in_the_second() -> None:
    masters = {
        MASTER_A: MASTERS_A,
        MASTER_B: MASTERS_B + b"\n" + MASTERS_A[: MASTERS_A.index(b"\n\n") + 1],
    }
    result = run(appended(entry(KEY)), masters_head=masters)
    diag = next(d for d in result.report.diagnostics if d.code == dx.MASTER_DUPLICATE_KEY)
    assert (diag.path, diag.line) == (MASTER_B, 23)
    assert f"{MASTER_A}:1" in diag.message


def test_a_key_defined_twice_in_one_master_file_is_an_error_at_the_second() -> None:
    masters = {MASTER_A: MASTERS_A + b"\nalpha-fp8-gpu-a-vllm:\n  image: x\n", MASTER_B: MASTERS_B}
    result = run(appended(entry(KEY)), masters_head=masters)
    diag = next(d for d in result.report.diagnostics if d.code == dx.MASTER_DUPLICATE_KEY)
    assert (diag.path, diag.line) == (MASTER_A, 27)


def test_a_master_key_containing_a_star_is_an_error() -> None:
    masters = {MASTER_A: MASTERS_A + b'\n"delta-*":\n  image: x\n', MASTER_B: MASTERS_B}
    result = run(appended(entry(KEY, "delta-*")), masters_head=masters)
    diag = next(d for d in result.report.diagnostics if d.code == dx.MASTER_KEY_WILDCARD)
    assert (diag.path, diag.line) == (MASTER_A, 27)


def test_an_invalid_master_config_is_reported_at_its_line() -> None:
    masters = {
        MASTER_A: MASTERS_A.replace(b"  model: example/alpha\n", b"  model: [oops\n", 1),
        MASTER_B: MASTERS_B,
    }
    result = run(appended(entry(KEY)), masters_head=masters)
    diag = next(d for d in result.report.diagnostics if d.code == dx.MASTER_INVALID)
    assert diag.path == MASTER_A and diag.line is not None and 3 <= diag.line <= 5


def test_a_missing_master_config_is_an_error() -> None:
    result = run(
        appended(entry("beta-fp4-gpu-b-trt")), masters_head={MASTER_A: MASTERS_A, MASTER_B: None}
    )
    codes = [c for c, _, _ in found(result)]
    assert dx.MASTER_MISSING in codes and dx.UNKNOWN_CONFIG_KEY in codes


def test_no_config_keys_skips_every_key_rule() -> None:
    result = run(appended(entry("nowhere")), keys=False)
    assert found(result) == []
    assert result.report.data["config-keys-checked"] is False
    assert result.report.data["entries"][0]["master-keys"] is None


# -- rule 7: coverage ---------------------------------------------------------------------------


def _touch(master: bytes, key: bytes, old: bytes, new: bytes) -> bytes:
    start = master.index(key + b":\n")
    at = master.index(old, start)
    return master[:at] + new + master[at + len(old) :]


def test_a_modified_master_key_that_no_entry_selects_is_a_warning_at_its_line() -> None:
    head_a = _touch(MASTERS_A, b"alpha-fp8-gpu-a-sglang", b"sglang:1.0", b"sglang:1.1")
    result = run(appended(entry(KEY)), masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B})
    assert found(result) == [(dx.UNCOVERED_CONFIG_CHANGE, "warning", 17)]
    assert result.report.diagnostics[0].path == MASTER_A
    assert result.report.ok


def test_an_uncovered_added_key_is_an_error_with_strict() -> None:
    head_b = MASTERS_B + b"\nbeta-fp4-gpu-b-sglang:\n  image: x\n"
    result = run(
        appended(entry(KEY)), masters_head={MASTER_A: MASTERS_A, MASTER_B: head_b}, strict=True
    )
    assert found(result) == [(dx.UNCOVERED_CONFIG_CHANGE, "error", 23)]
    assert "added" in result.report.diagnostics[0].message


def test_a_changed_key_selected_by_a_wildcard_is_covered() -> None:
    head_b = _touch(MASTERS_B, b"beta-fp4-gpu-b-vllm", b"vllm:1.0", b"vllm:1.1")
    result = run(
        appended(entry("beta-*-vllm")), masters_head={MASTER_A: MASTERS_A, MASTER_B: head_b}
    )
    assert found(result) == []
    assert result.report.data["changed-master-keys"] == [
        {"key": "beta-fp4-gpu-b-vllm", "kind": "modified", "path": MASTER_B}
    ]


def test_a_comment_only_edit_of_a_master_key_is_not_a_modification() -> None:
    head_a = _touch(
        MASTERS_A, b"alpha-fp8-gpu-a-sglang", b"  runner: gpu-a\n", b"  runner: gpu-a  # why\n"
    )
    result = run(appended(entry(KEY)), masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B})
    assert found(result) == []
    assert result.report.data["changed-master-keys"] == []


# -- rule 8: append-only entries -----------------------------------------------------------------

AO = "  append-only: true"
AO_AGENTIC = "  scenario-type:\n    - agentic-coding\n  append-only: true"


def _more_points(master: bytes = MASTERS_A) -> bytes:
    """alpha-fp8-gpu-a-vllm's agentic row gains concurrency 16."""
    return master.replace(b"conc-list: [1, 4, 8] }", b"conc-list: [1, 4, 8, 16] }")


def test_an_append_only_entry_that_adds_concurrencies_passes() -> None:
    result = run(
        appended(entry(KEY, extra=AO_AGENTIC)),
        masters_head={MASTER_A: _more_points(), MASTER_B: MASTERS_B},
    )
    assert found(result) == []
    assert result.report.data["entries"][0]["append-only"] is True


def test_an_append_only_entry_may_widen_a_conc_range_and_add_rows() -> None:
    head_a = MASTERS_A.replace(
        b"      - { tp: 4, conc-start: 4, conc-end: 64 }\n",
        b"      - { tp: 4, conc-start: 2, conc-end: 128 }\n      - { tp: 2, conc-list: [1] }\n",
    )
    result = run(
        appended(entry(KEY, extra=AO)), masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B}
    )
    assert found(result) == []


def test_append_only_and_regular_entries_cannot_share_a_change() -> None:
    head = appended(entry(KEY, extra=AO_AGENTIC), entry("beta-fp4-gpu-b-trt"))
    result = run(head, masters_head={MASTER_A: _more_points(), MASTER_B: MASTERS_B})
    assert found(result) == [(dx.APPEND_ONLY_MIXED, "error", 13)]
    assert "entry 4, line 22" in result.report.diagnostics[0].message


def test_append_only_cannot_select_a_config_missing_at_the_base() -> None:
    head_a = MASTERS_A + b"\nalpha-fp8-gpu-a-trt:\n  image: x\n"
    result = run(
        appended(entry("alpha-fp8-gpu-a-trt", extra=AO)),
        masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B},
    )
    diag = next(d for d in result.report.diagnostics if d.code == dx.APPEND_ONLY_NEW_CONFIG)
    assert (diag.path, diag.line) == (MASTER_A, 27)


def test_append_only_may_not_change_an_unselected_config() -> None:
    head_a = _touch(_more_points(), b"alpha-fp8-gpu-a-sglang", b"sglang:1.0", b"sglang:1.1")
    result = run(
        appended(entry(KEY, extra=AO_AGENTIC)), masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B}
    )
    diag = next(d for d in result.report.diagnostics if d.code == dx.APPEND_ONLY_UNSELECTED_CHANGED)
    assert (diag.path, diag.line) == (MASTER_A, 17)


def test_append_only_may_not_add_a_scenario() -> None:
    head_a = MASTERS_A.replace(
        b"alpha-fp8-gpu-a-sglang:\n  image: example/sglang:1.0\n  model: example/alpha\n"
        b"  runner: gpu-a\n  scenarios:\n",
        b"alpha-fp8-gpu-a-sglang:\n  image: example/sglang:1.0\n  model: example/alpha\n"
        b"  runner: gpu-a\n  scenarios:\n    agentic-coding:\n    - search-space:\n"
        b"      - { tp: 8, conc-list: [1] }\n",
    )
    result = run(
        appended(entry("alpha-fp8-gpu-a-sglang", extra=AO)),
        masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B},
    )
    diag = next(d for d in result.report.diagnostics if d.code == dx.APPEND_ONLY_SCENARIO_SET)
    assert (diag.path, diag.line) == (MASTER_A, 20)
    assert "adds agentic-coding" in diag.message


def test_append_only_may_not_touch_a_scenario_outside_its_scenario_type() -> None:
    head_a = _more_points().replace(b"conc-list: [4, 8] }", b"conc-list: [4, 8, 16] }")
    result = run(
        appended(entry(KEY, extra=AO_AGENTIC)), masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B}
    )
    assert found(result) == [(dx.APPEND_ONLY_OUT_OF_SCOPE, "error", 6)]


def test_append_only_may_not_change_config_wide_fields_when_scenarios_are_unselected() -> None:
    head_a = _more_points().replace(b"vllm:1.0", b"vllm:1.1", 1)
    result = run(
        appended(entry(KEY, extra=AO_AGENTIC)), masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B}
    )
    assert found(result) == [(dx.APPEND_ONLY_CONFIG_WIDE, "error", 2)]


def test_config_wide_fields_may_change_when_every_scenario_is_selected() -> None:
    head_a = _more_points().replace(b"vllm:1.0", b"vllm:1.1", 1)
    result = run(
        appended(entry(KEY, extra=AO)), masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B}
    )
    assert found(result) == []


def test_append_only_may_not_remove_a_concurrency_of_an_existing_row() -> None:
    head_a = MASTERS_A.replace(b"conc-list: [1, 4, 8] }", b"conc-list: [1, 8, 16] }")
    result = run(
        appended(entry(KEY, extra=AO_AGENTIC)), masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B}
    )
    assert found(result) == [(dx.APPEND_ONLY_ROW_REMOVED, "error", 13)]


def test_append_only_may_not_modify_the_recipe_of_an_existing_row() -> None:
    head_a = MASTERS_A.replace(
        b"{ tp: 4, conc-start: 4, conc-end: 64 }", b"{ tp: 4, ep: 4, conc-start: 4, conc-end: 64 }"
    )
    result = run(
        appended(entry(KEY, extra=AO)), masters_head={MASTER_A: head_a, MASTER_B: MASTERS_B}
    )
    assert found(result) == [(dx.APPEND_ONLY_ROW_REMOVED, "error", 7)]
    assert "tp: 4, conc-start: 4, conc-end: 64" in result.report.diagnostics[0].message


def test_an_append_only_entry_whose_configs_did_not_change_adds_nothing() -> None:
    result = run(appended(entry(KEY, extra=AO)))
    assert found(result) == [(dx.APPEND_ONLY_NOTHING_ADDED, "error", 13)]


def test_append_only_scope_is_skipped_without_base_master_configs() -> None:
    result = check_change(
        base=BASE,
        head=appended(entry(KEY, extra=AO)),
        config=config(),
        mode="local",
        masters_head=dict(MASTERS),
    )
    assert found(result) == []
    assert result.report.data["changed-master-keys"] is None


# -- rule 9: nothing to sweep --------------------------------------------------------------------


def test_an_unchanged_changelog_and_master_configs_have_nothing_to_sweep_in_pr_mode() -> None:
    result = run(BASE)
    assert found(result) == [(dx.NOTHING_TO_SWEEP, "error", 11)]
    assert result.change.kind.value == "none"
    assert found(run(BASE, keys=False)) == [(dx.NOTHING_TO_SWEEP, "error", 11)]


def test_a_config_only_pr_with_a_byte_identical_changelog_passes_with_coverage_warnings() -> None:
    # Real InferenceX PRs change master configs without a changelog entry; the shipped
    # workflow runs on them too. Nothing in the changelog to check: say what goes unswept.
    head = {**MASTERS, MASTER_A: MASTERS_A.replace(b"conc-list: [4, 8]", b"conc-list: [4, 8, 16]")}
    result = run(BASE, masters_head=head)
    assert [(c, s) for c, s, _ in found(result)] == [(dx.UNCOVERED_CONFIG_CHANGE, "warning")]
    assert result.report.ok
    strict = run(BASE, masters_head=head, strict=True)
    assert [(c, s) for c, s, _ in found(strict)] == [(dx.UNCOVERED_CONFIG_CHANGE, "error")]
    assert not strict.report.ok


@pytest.mark.parametrize("mode", ["main", "local"])
def test_an_unchanged_changelog_passes_outside_pr_mode(mode: str) -> None:
    assert found(run(BASE, mode=mode)) == []


def test_a_new_changelog_file_is_all_appended() -> None:
    result = run(entry(KEY), base=None)
    assert found(result) == []
    assert result.report.data["entries"][0]["index"] == 0


# -- arguments -----------------------------------------------------------------------------------


def test_pr_mode_without_a_number_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        check_change(base=BASE, head=BASE, config=config(), mode="pr")


def test_an_unknown_mode_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        check_change(base=BASE, head=BASE, config=config(), mode="merge")
