"""Every file-level byte rule, YAML rule and schema rule: a failing input, its code and its line."""

from __future__ import annotations

import time

import pytest

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.document import parse_ledger

GOOD = (
    b"- config-keys:\n"
    b"    - llama70b-fp8-gpu-a-vllm\n"
    b"  description:\n"
    b'    - "Upgrade vLLM"\n'
    b"  pr-link: https://github.com/example-org/bench/pull/1\n"
    b"\n"
    b"- config-keys:\n"
    b"    - mixtral-*\n"
    b"  scenario-type:\n"
    b"    - agentic-coding\n"
    b"  description:\n"
    b"    - Tune the scheduler\n"
    b"  pr-link: XXX\n"
)


def codes_and_lines(raw: bytes) -> list[tuple[str, int | None]]:
    ledger = parse_ledger(raw, path="perf-changelog.yaml", max_size=10_000)
    return [(d.code, d.line) for d in ledger.diagnostics]


def test_a_well_formed_ledger_has_no_diagnostics_and_two_blocks() -> None:
    ledger = parse_ledger(GOOD, path="p.yaml")
    assert ledger.diagnostics == ()
    assert [b.line for b in ledger.blocks] == [1, 7]
    assert ledger.blocks[0].content(GOOD) == GOOD[: GOOD.index(b"\n\n") + 1]
    assert ledger.blocks[0].separator(GOOD) == b"\n"
    assert ledger.blocks[1].separator(GOOD) == b""
    assert ledger.entries[1]["pr-link"] == "XXX"


BYTE_CASES = [
    pytest.param(GOOD.replace(b"Upgrade", b"Upgr\xffade"), dx.NOT_UTF8, 4, id="not-utf8"),
    pytest.param(GOOD[:-1], dx.NO_FINAL_NEWLINE, 13, id="no-final-newline"),
    pytest.param(
        GOOD.replace(b"  description:\n", b"  description:\r\n", 1), dx.CARRIAGE_RETURN, 3, id="cr"
    ),
    pytest.param(
        GOOD.replace(b'    - "Upgrade vLLM"', b'    - "Upgrade\tvLLM"'), dx.TAB, 4, id="tab"
    ),
    pytest.param(GOOD.replace(b"Tune", b"Tu\x00ne"), dx.NUL, 12, id="nul"),
    pytest.param(GOOD * 400, dx.TOO_LARGE, None, id="too-large"),
    pytest.param(b"", dx.EMPTY_FILE, 1, id="empty"),
]


@pytest.mark.parametrize(("raw", "code", "line"), BYTE_CASES)
def test_byte_rule_reports_its_code_and_line(raw: bytes, code: str, line: int | None) -> None:
    assert (code, line) in codes_and_lines(raw)


YAML_CASES = [
    pytest.param(GOOD + b"- config-keys: [a\n", dx.YAML_SYNTAX, 15, id="syntax"),
    pytest.param(
        GOOD.replace(b"  pr-link: XXX\n", b"  pr-link: XXX\n  pr-link: YYY\n"),
        dx.DUPLICATE_KEY,
        14,
        id="duplicate-top-key",
    ),
    pytest.param(
        b"- config-keys:\n    - a\n  description:\n    - {x: 1, x: 2}\n  pr-link: XXX\n",
        dx.DUPLICATE_KEY,
        4,
        id="duplicate-nested-key",
    ),
    pytest.param(
        GOOD.replace(b"    - mixtral-*", b"    - &k mixtral-*"), dx.ANCHOR_ALIAS, 8, id="anchor"
    ),
    pytest.param(
        GOOD.replace(b"  pr-link: XXX", b"  pr-link: *ref"), dx.ANCHOR_ALIAS, 13, id="alias"
    ),
    pytest.param(
        GOOD.replace(b"  pr-link: XXX", b"  pr-link: !!str XXX"), dx.YAML_TAG, 13, id="tag"
    ),
    pytest.param(b"config-keys: [a]\n", dx.ROOT_NOT_LIST, 1, id="root-mapping"),
    pytest.param(b"# only a comment\n", dx.ROOT_NOT_LIST, 1, id="root-empty"),
    pytest.param(GOOD + b"---\n- x\n", dx.MULTI_DOCUMENT, 14, id="two-documents"),
    pytest.param(
        b"- config-keys: [a]\n  description: [b]\n  pr-link: XXX\n\n"
        b"-   config-keys: [c]\n    description: [d]\n    pr-link: XXX\n",
        dx.ENTRY_START,
        5,
        id="entry-indented",
    ),
    pytest.param(
        b"- description: [x]\n  config-keys: [a]\n  pr-link: XXX\n",
        dx.ENTRY_START,
        1,
        id="entry-first-key-not-config-keys",
    ),
    pytest.param(
        b"- config-keys: [a]\n  description: [b]\n  pr-link: XXX\n  nested:\n- config-keys: [c]\n  description: [d]\n  pr-link: XXX\n",
        dx.UNKNOWN_FIELD,
        4,
        id="nested-field-swallows-nothing",
    ),
    pytest.param(b"- just a string\n", dx.ENTRY_NOT_MAPPING, 1, id="entry-not-mapping"),
]


@pytest.mark.parametrize(("raw", "code", "line"), YAML_CASES)
def test_yaml_rule_reports_its_code_and_line(raw: bytes, code: str, line: int) -> None:
    assert (code, line) in codes_and_lines(raw)


def test_a_config_keys_line_that_is_not_a_top_level_entry_is_reported() -> None:
    raw = (
        b"- config-keys: [a]\n  description: [b]\n  pr-link: XXX\n  notes:\n  - config-keys: [c]\n"
    )
    # Nested at column 2 it does not match `^- config-keys:`; at column 0 inside a block scalar it
    # would. A literal block keeps the text, so the line count no longer matches the entries.
    raw2 = b"- config-keys: [a]\n  description:\n    - |\n      x\n- config-keys: [b]\n  description: [c]\n  pr-link: XXX\n"
    assert (dx.UNKNOWN_FIELD, 4) in codes_and_lines(raw)
    found = codes_and_lines(raw2)
    assert (dx.MISSING_FIELD, 1) in found


SCHEMA_CASES = [
    pytest.param(
        GOOD.replace(b"  pr-link: XXX\n", b"  pr-link: XXX\n  bogus: 1\n"),
        dx.UNKNOWN_FIELD,
        14,
        id="unknown",
    ),
    pytest.param(GOOD.replace(b"  pr-link: XXX\n", b""), dx.MISSING_FIELD, 7, id="missing-pr-link"),
    pytest.param(
        GOOD.replace(b"  pr-link: XXX", b"  pr-link: 42"), dx.WRONG_TYPE, 13, id="pr-link-int"
    ),
    pytest.param(
        GOOD.replace(b"  pr-link: XXX", b"  pr-link: XXX\n  evals-only: yes"),
        dx.WRONG_TYPE,
        14,
        id="bool-yes",
    ),
    pytest.param(
        GOOD.replace(b"    - Tune the scheduler", b"    - 7"),
        dx.WRONG_TYPE,
        12,
        id="description-int",
    ),
    pytest.param(
        GOOD.replace(b"  description:\n    - Tune the scheduler\n", b"  description: []\n"),
        dx.EMPTY_VALUE,
        11,
        id="description-empty",
    ),
    pytest.param(
        GOOD.replace(b"    - mixtral-*", b'    - ""'), dx.EMPTY_VALUE, 8, id="config-key-empty"
    ),
    pytest.param(
        GOOD.replace(b"    - agentic-coding", b"    - agentic"),
        dx.BAD_VALUE,
        10,
        id="scenario-enum",
    ),
    pytest.param(
        GOOD.replace(b"  pr-link: XXX", b"  pr-link: XXX\n  eval-min-prefill-ep: 0"),
        dx.BAD_VALUE,
        14,
        id="ep-minimum",
    ),
    pytest.param(
        GOOD.replace(b"  pr-link: XXX", b"  pr-link: XXX\n  append-only: true\n  evals-only: true"),
        dx.APPEND_ONLY_COMBINATION,
        14,
        id="append-only-evals-only",
    ),
    pytest.param(
        GOOD.replace(
            b"  pr-link: XXX", b"  pr-link: XXX\n  append-only: true\n  eval-min-prefill-ep: 2"
        ),
        dx.APPEND_ONLY_COMBINATION,
        14,
        id="append-only-min-ep",
    ),
    pytest.param(
        GOOD.replace(b"  pr-link: XXX", b"  pr-link: XXX\n  append-only: true\n  all-evals: true"),
        dx.APPEND_ONLY_COMBINATION,
        14,
        id="append-only-all-evals",
    ),
]


@pytest.mark.parametrize(("raw", "code", "line"), SCHEMA_CASES)
def test_schema_rule_reports_its_code_and_line(raw: bytes, code: str, line: int) -> None:
    assert (code, line) in codes_and_lines(raw)


def test_append_only_with_false_eval_flags_is_allowed() -> None:
    raw = GOOD.replace(
        b"  pr-link: XXX", b"  pr-link: XXX\n  append-only: true\n  evals-only: false"
    )
    assert codes_and_lines(raw) == []


def test_python_style_field_names_are_rejected_with_a_did_you_mean_hint() -> None:
    raw = GOOD.replace(b"  pr-link: XXX", b"  pr_link: XXX")
    ledger = parse_ledger(raw, path="p.yaml")
    unknown = [d for d in ledger.diagnostics if d.code == dx.UNKNOWN_FIELD]
    assert [(d.line, d.hint) for d in unknown] == [(13, "did you mean `pr-link`?")]


def test_every_problem_is_reported_not_just_the_first() -> None:
    raw = GOOD.replace(b"Tune", b"Tu\tne").replace(b"  pr-link: XXX", b"  pr-link: 1\n  extra: x")
    codes = {code for code, _ in codes_and_lines(raw)}
    assert {dx.TAB, dx.WRONG_TYPE, dx.UNKNOWN_FIELD} <= codes


def test_many_occurrences_of_one_byte_rule_are_capped_with_a_count() -> None:
    raw = GOOD.replace(b"\n", b"\r\n")
    crs = [d for d in parse_ledger(raw, path="p.yaml").diagnostics if d.code == dx.CARRIAGE_RETURN]
    assert len(crs) == 11
    assert crs[-1].message == "carriage return (CR) on 3 more lines (from line 11)"
    assert crs[-1].line == 11  # sorted after the ten lines it follows


def test_an_alias_bomb_is_rejected_at_the_first_anchor_quickly() -> None:
    lines = [b"a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 30):
        prev = b"*a%d" % (i - 1)
        lines.append(b"a%d: &a%d [" % (i, i) + b", ".join([prev] * 10) + b"]")
    raw = b"\n".join(lines) + b"\n"
    started = time.perf_counter()
    ledger = parse_ledger(raw, path="bomb.yaml")
    elapsed = time.perf_counter() - started
    assert [(d.code, d.line) for d in ledger.diagnostics] == [(dx.ANCHOR_ALIAS, 1)]
    # Not a timing assertion on speed, a bound that only an exponential expansion could break.
    assert elapsed < 30


def test_a_20000_deep_nested_list_is_rejected_with_a_clean_error() -> None:
    raw = b"[" * 20000 + b"]" * 20000 + b"\n"
    ledger = parse_ledger(raw, path="deep.yaml")
    assert [(d.code, d.line) for d in ledger.diagnostics] == [(dx.TOO_DEEP, 1)]


def test_a_2000_deep_block_list_is_rejected_with_a_clean_error() -> None:
    raw = b"".join(b"  " * i + b"-\n" for i in range(2000))
    ledger = parse_ledger(raw, path="deep.yaml")
    assert [d.code for d in ledger.diagnostics] == [dx.TOO_DEEP]


def test_plain_scalars_follow_yaml_1_2_so_yes_is_a_string() -> None:
    from changelog_tools.yamlload import load

    value = load("a: yes\nb: true\nc: 0x10\nd: '1'\ne: ~\nf: 1.5\ng: 0o17\nh: 12\n").value
    assert value == {
        "a": "yes",
        "b": True,
        "c": 16,
        "d": "1",
        "e": None,
        "f": 1.5,
        "g": 15,
        "h": 12,
    }


def test_line_offset_shifts_every_reported_line() -> None:
    raw = b"- config-keys: [a]\n  description: [b]\n  pr-link: 1\n"
    ledger = parse_ledger(raw, path="p.yaml", line_offset=100)
    assert [(d.code, d.line) for d in ledger.diagnostics] == [(dx.WRONG_TYPE, 103)]
    assert ledger.blocks[0].line == 101
