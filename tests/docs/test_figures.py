"""Figures (timings, counts, ratios) live in docs/benchmarks.md, each beside the script that
prints it and the date it was measured; the other pages link there instead of quoting them, so
two pages cannot state different figures for the same case."""

from __future__ import annotations

import re
from pathlib import Path

from tests.docs.collect import ROOT, doc_files, fences

BENCHMARKS = ROOT / "docs" / "benchmarks.md"
# generated from the code: option defaults and rule settings, not measurements
GENERATED = {"configuration.md", "diagnostics.md", "lint.md"}
# What a measured figure looks like in prose: a time with decimals, a range of times, an
# approximate time, "N of M" counts.
MEASURED = re.compile(
    r"\b\d+\.\d+ ?(?:s|ms|seconds)\b"
    r"|\b\d+(?:\.\d+)? ?[–-] ?\d+(?:\.\d+)? ?(?:s|ms|seconds|minutes|min)\b"
    r"|(?:~|about |around )\d+(?:\.\d+)? ?(?:s|ms|seconds|minutes|min)\b"
    r"|\b\d{2,} of \d{2,}\b"
)
# Durations that are settings or other programs' behaviour, not measurements of this tool.
NOT_MEASURED = ("PyGithub's default of 0.25 s",)
SCRIPT = re.compile(r"\b(?:bench/|scripts/)?(?:bench|measure)_\w+\.py\b")
DATED = re.compile(r"measured (?:on )?\d{4}-\d{2}-\d{2}", re.I)


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The lines of ``path`` outside fenced blocks (a fenced block's output is an example's,
    and tests/docs/test_doc_examples.py compares it with what the command prints)."""
    text = path.read_text(encoding="utf-8")
    fenced: set[int] = set()
    for fence in fences(path):
        fenced.update(range(fence.line - 1, fence.end))
    return [(n + 1, line) for n, line in enumerate(text.splitlines()) if n not in fenced]


def test_no_page_but_benchmarks_quotes_a_measured_figure() -> None:
    found = []
    for path in doc_files():
        if path == BENCHMARKS or path.name in GENERATED:
            continue
        for number, line in prose_lines(path):
            if any(allowed in line for allowed in NOT_MEASURED):
                continue
            for match in MEASURED.finditer(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    assert found == [], "move these to docs/benchmarks.md and link to it:\n" + "\n".join(found)


def sections(path: Path) -> dict[str, str]:
    """Each heading of ``path`` with the text up to the next heading."""
    parts: dict[str, str] = {}
    title = "(top)"
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        if line.startswith("#") and not fenced:
            title = line.strip()
            parts[title] = ""
        else:
            parts[title] = parts.get(title, "") + line
    return parts


def _has_figures(text: str) -> bool:
    rows = [line for line in text.splitlines() if line.startswith("|") and "---" not in line]
    return any(re.search(r"\d", row) for row in rows[1:]) or "```text" in text


def test_every_figure_in_benchmarks_names_its_script_and_date() -> None:
    with_figures = {t: s for t, s in sections(BENCHMARKS).items() if _has_figures(s)}
    assert len(with_figures) >= 5  # the tables are found
    for title, text in with_figures.items():
        scripts = set(SCRIPT.findall(text))
        assert scripts, f"{title}: name the script that prints these figures"
        if title != "## What each one prints":  # what each bench prints, not a run of it
            assert DATED.search(text), f"{title}: say when the figures were measured"
        for script in scripts:
            name = script.rsplit("/", 1)[-1]
            folder = "bench" if name.startswith("bench_") else "scripts"
            source = (ROOT / folder / name).read_text(encoding="utf-8")
            # every bench and measure script prints the date and machine before its figures
            assert "print_header(__file__)" in source, f"{script} prints no date and machine"


def test_the_quoted_demo_run_is_what_the_bench_prints() -> None:
    demo = sections(BENCHMARKS)["### The demo"]
    block = demo.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[0].startswith("# bench_demo.py: measured 20"), block
    assert re.fullmatch(
        r"changelog-tools demo \(wall, \d+ runs\)   min [\d.]+ s   median [\d.]+ s   max [\d.]+ s"
        r"   CPU \(median, with its processes\) [\d.]+ s",
        block[1],
    ), block[1]


def test_every_bench_and_measure_script_prints_its_date_and_machine() -> None:
    scripts = sorted((ROOT / "bench").glob("bench_*.py")) + sorted(
        (ROOT / "scripts").glob("measure_*.py")
    )
    assert scripts
    for script in scripts:
        assert "print_header(__file__)" in script.read_text(encoding="utf-8"), script.name
