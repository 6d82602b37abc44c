"""Parsing and matching sign-offs against the checklist template, and its git history."""

from __future__ import annotations

from pathlib import Path

import pytest

from changelog_tools.gitrepo import open_repo
from changelog_tools.signoff.checklist import (
    HEADER,
    canon,
    find_signoff,
    match_signoff,
    parse_template,
    word_diff,
)
from changelog_tools.signoff.history import (
    attribute_current,
    attribute_removed,
    identify,
    template_versions,
)
from tests.signoff.checklists import (
    CHECKLIST_PATH,
    build_history_repo,
    real_history,
    signoff_from,
    versions_on_disk,
)

CURRENT = versions_on_disk()[-1][1]
TEMPLATE = parse_template(CURRENT)


def states(body: str, author: str = "nv-a") -> dict[str, str]:
    found = find_signoff(body)
    assert found.checklist is not None and TEMPLATE is not None
    return {
        r.path: r.state for r in match_signoff(TEMPLATE, found.checklist, author=author).results
    }


def test_every_version_has_a_template_with_items() -> None:
    for label, text in versions_on_disk():
        parsed = parse_template(text)
        assert parsed is not None, label
        assert len(parsed.items) >= 3, label
        assert parsed.signed == "`FILL_IN_GITHUB_USERNAME`", label
        assert not any(i.checked for i in parsed.items), label


def test_the_real_current_template_has_fourteen_items_and_a_nested_one() -> None:
    if not real_history():
        pytest.skip("real checklist history absent (the own-history tests cover the grammar)")
    assert TEMPLATE is not None
    assert [i.path for i in TEMPLATE.items] == [
        *[str(n) for n in range(1, 12)],
        "11.1",
        "12",
        "13",
        "14",
    ]
    assert TEMPLATE.item("11.1").depth == 1  # type: ignore[union-attr]
    assert TEMPLATE.detail == "- insert any additional info here"


def test_a_filled_in_copy_of_the_current_template_is_all_ok() -> None:
    assert set(states(signoff_from(CURRENT, "nv-a")).values()) == {"ok"}


@pytest.mark.parametrize(
    "mangle",
    [
        lambda s: s.replace("\n", "\r\n"),
        lambda s: s.replace("- [x]", "* [X]"),
        lambda s: s.replace("- [x]", "+   [x] "),
        lambda s: s.replace("- [x] Verified", "1. [x]  Verified"),
        lambda s: "Thanks, looks good!\n\n" + s,  # a preamble before the header
        lambda s: s.replace("Verified that", "Verified   that"),
    ],
    ids=["crlf", "star-X", "plus-spaces", "numbered", "preamble", "extra-spaces"],
)
def test_formatting_differences_are_tolerated(mangle: object) -> None:
    body = mangle(signoff_from(CURRENT, "nv-a"))  # type: ignore[operator]
    assert set(states(body).values()) == {"ok"}


def test_links_as_plain_text_and_appended_notes_are_the_same_item() -> None:
    body = signoff_from(CURRENT, "nv-a")
    lines = body.splitlines()
    # every markdown link becomes its bare text, and one item gets a run link appended
    import re

    plain = [re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", ln) for ln in lines]
    idx = next(i for i, ln in enumerate(plain) if "passed PR validation" in ln)
    plain[idx] += " https://github.com/o/r/actions/runs/12345"
    assert set(states("\n".join(plain)).values()) == {"ok"}


def test_an_unchecked_item_fails_unless_reasoned_and_the_reasons_item_checked() -> None:
    body = signoff_from(CURRENT, "nv-a")
    lines = body.splitlines()
    idx = next(i for i, ln in enumerate(lines) if "passed PR validation" in ln)
    lines[idx] = lines[idx].replace("[x]", "[ ]")
    path = states("\n".join(lines))
    bad = [p for p, s in path.items() if s == "unchecked"]
    assert len(bad) == 1
    item = TEMPLATE.item(bad[0])  # type: ignore[union-attr]
    assert item is not None and "passed PR validation" in item.text
    reasoned = "\n".join(lines).replace(
        "- insert any additional info here", f"- item {item.path}: the sweep is still running"
    )
    if "Additional detail" not in body:
        pytest.skip("this template version has no detail section")
    assert states(reasoned)[item.path] == "excused"
    reasons = next(p for p in path if "additional reasoning" in TEMPLATE.item(p).key)  # type: ignore[union-attr]
    unreasoned = reasoned.splitlines()
    ridx = next(i for i, ln in enumerate(unreasoned) if "additional reasoning" in ln)
    unreasoned[ridx] = unreasoned[ridx].replace("[x]", "[ ]")
    assert states("\n".join(unreasoned))[item.path] == "unchecked"
    assert states("\n".join(unreasoned))[reasons] == "unchecked"


def test_an_altered_item_is_reported_with_a_word_diff() -> None:
    body = signoff_from(CURRENT, "nv-a").replace(
        "does not make the code quality any worse", "does not make the code quality much worse"
    )
    found = find_signoff(body)
    assert found.checklist is not None and TEMPLATE is not None
    result = match_signoff(TEMPLATE, found.checklist, author="nv-a")
    altered = [r for r in result.results if r.state == "altered"]
    if not altered:  # own history spells the item differently
        body = signoff_from(CURRENT, "nv-a").replace(
            "does not get any worse", "does not get much worse"
        )
        found = find_signoff(body)
        result = match_signoff(TEMPLATE, found.checklist, author="nv-a")  # type: ignore[arg-type]
        altered = [r for r in result.results if r.state == "altered"]
    assert len(altered) == 1 and altered[0].diff is not None
    assert "-[much]" in altered[0].diff and "+[any]" in altered[0].diff
    assert altered[0].similarity is not None and altered[0].similarity > 0.9


def test_reordered_items_still_match_and_are_noted() -> None:
    lines = signoff_from(CURRENT, "nv-a").splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("- [x]"))
    lines[first], lines[first + 1] = lines[first + 1], lines[first]
    found = find_signoff("\n".join(lines))
    result = match_signoff(TEMPLATE, found.checklist, author="nv-a")  # type: ignore[arg-type]
    assert {r.state for r in result.results} == {"ok"}
    assert any("different order" in n for n in result.notes)


def test_signed_must_be_the_author() -> None:
    found = find_signoff(signoff_from(CURRENT, "@NV-A"))
    assert match_signoff(TEMPLATE, found.checklist, author="nv-a").signed_ok  # type: ignore[arg-type]
    wrong = match_signoff(TEMPLATE, found.checklist, author="mallory")  # type: ignore[arg-type]
    assert not wrong.signed_ok and "mallory" in (wrong.signed_problem or "")
    placeholder = find_signoff(signoff_from(CURRENT, "`FILL_IN_GITHUB_USERNAME`"))
    assert not match_signoff(TEMPLATE, placeholder.checklist, author="x").signed_ok  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("wrap", "why"),
    [
        (lambda s: "\n".join("> " + ln for ln in s.splitlines()), "quoted"),
        (lambda s: "```\n" + s + "\n```", "code"),
        (lambda s: "~~~markdown\n" + s + "\n~~~", "code"),
        (lambda s: "<!--\n" + s + "\n-->", "hidden"),
        (lambda s: "<pre>\n" + s + "\n</pre>", "code"),
        (lambda s: "Hi\n\n" + "\n".join("    " + ln for ln in s.splitlines()), "code"),
        # a lazy continuation line of a quote is still the quote (CommonMark)
        (
            lambda s: "> Quoting:\n" + s.split("\n", 1)[0] + "\n\n" + s.split("\n", 1)[1],
            "quoted",
        ),
    ],
)
def test_a_signoff_in_a_quote_or_code_fence_does_not_count(wrap: object, why: str) -> None:
    found = find_signoff(wrap(signoff_from(CURRENT, "nv-a")))  # type: ignore[operator]
    assert found.checklist is None
    assert found.ignored_headers and found.ignored_headers[0][1] == why


def test_a_signoff_that_starts_inside_an_html_comment_does_not_count() -> None:
    assert find_signoff("Note:\n\n<!-- " + signoff_from(CURRENT, "nv-a") + " -->").checklist is None


def test_a_quoted_signoff_followed_by_a_real_one_uses_the_real_one() -> None:
    real = signoff_from(CURRENT, "nv-a")
    body = "\n".join("> " + ln for ln in real.splitlines()) + "\n\nMine:\n\n" + real
    found = find_signoff(body)
    assert found.checklist is not None and found.checklist.header_line > len(real.splitlines())


def test_canon_ignores_links_emphasis_dashes_and_case() -> None:
    assert canon("Verified **that** the [MODELS.md](http://x) \u2014 ok.") == canon(
        "verified that the MODELS.md - OK"
    )


def test_word_diff_shape() -> None:
    assert word_diff("a much worse b", "a any worse b") == "-[much] +[any]"


# -- history ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple, dict[str, str]]:  # type: ignore[type-arg]
    path = tmp_path_factory.mktemp("checklist-history")
    import os

    env = {
        k: os.environ.get(k)
        for k in (
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "GIT_COMMITTER_NAME",
            "GIT_COMMITTER_EMAIL",
        )
    }
    for k in env:
        os.environ.setdefault(k, "Test")
    shas = build_history_repo(path)
    return template_versions(open_repo(path), CHECKLIST_PATH), shas


def test_versions_come_from_the_files_git_history(history: tuple) -> None:  # type: ignore[type-arg]
    versions, shas = history
    assert [v.commit for v in versions] == list(shas.values())
    assert len(versions) == (21 if real_history() else 3)


def test_the_current_template_identifies_as_the_earliest_equivalent_version(history: tuple) -> None:  # type: ignore[type-arg]
    versions, shas = history
    found = find_signoff(signoff_from(CURRENT, "nv-a"))
    ident = identify(found.checklist, versions)  # type: ignore[arg-type]
    assert ident is not None and ident.exact
    assert ident.version.commit == list(shas.values())[-1]


def test_an_outdated_signoff_names_its_version_and_attributes_missing_items(history: tuple) -> None:  # type: ignore[type-arg]
    versions, shas = history
    label = "5c0a32297" if real_history() else "own-v2"
    old_text = dict(versions_on_disk())[label]
    found = find_signoff(signoff_from(old_text, "nv-a"))
    assert found.checklist is not None and TEMPLATE is not None
    ident = identify(found.checklist, versions)
    assert ident is not None and ident.exact and ident.version.commit == shas[label]
    result = match_signoff(TEMPLATE, found.checklist, author="nv-a")
    missing = {r.path: r for r in result.results if r.state == "missing"}
    failed = {r.path: r.state for r in result.failed}
    assert failed, "an outdated copy must fail"
    by_path = {i.path: i for i in TEMPLATE.items}
    if real_history():
        assert "7" in missing and "13" in missing
        assert attribute_current(by_path["7"], versions).version.commit == shas["b4be78a29"]  # type: ignore[union-attr]
        assert attribute_current(by_path["13"], versions).version.commit == shas["35d731a9e"]  # type: ignore[union-attr]
        assert failed["11"] == "altered"
        changed = attribute_current(by_path["11"], versions)
        assert changed is not None and changed.verb == "changed"
        assert changed.version.commit == shas["9aeaa75d8"]
        obsolete = [r for r in result.results if r.state == "obsolete"]
        gone = [attribute_removed(canon(r.signoff_text), versions) for r in obsolete]
        assert all(g is not None and g.version.commit == shas["9aeaa75d8"] for g in gone)
    else:
        added = attribute_current(by_path[next(iter(missing))], versions)
        assert added is not None and added.version.commit == shas["own-v3"]


def test_the_first_version_is_unfenced_and_identifies_itself(history: tuple) -> None:  # type: ignore[type-arg]
    versions, shas = history
    label, text = versions_on_disk()[0]
    found = find_signoff(signoff_from(text, "nv-a"))
    ident = identify(found.checklist, versions)  # type: ignore[arg-type]
    assert ident is not None and ident.version.commit == shas[label] and ident.exact


def test_a_shallow_history_has_only_the_current_version(tmp_path: Path) -> None:
    build_history_repo(tmp_path / "full")
    import subprocess

    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            f"file://{tmp_path / 'full'}",
            str(tmp_path / "shallow"),
        ],
        check=True,
    )
    versions = template_versions(open_repo(tmp_path / "shallow"), CHECKLIST_PATH)
    assert len(versions) == 1


@pytest.mark.parametrize("closing", ["```  ", "  ```", "```\t", "````"])
def test_a_closing_fence_with_spaces_around_it_closes_the_fence(closing: str) -> None:
    # CommonMark allows up to three spaces before and any spaces after a closing fence; an
    # unrecognized close made everything after it "fenced" and the real sign-off was lost.
    real = signoff_from(CURRENT, "nv-a")
    body = f"Log:\n\n```\nerror: x\n{closing}\n\n{real}"
    found = find_signoff(body)
    assert found.checklist is not None and found.checklist.signed == "nv-a"


def test_items_past_the_budget_are_obsolete_without_being_compared() -> None:
    from changelog_tools.signoff.checklist import item_budget

    real = signoff_from(CURRENT, "nv-a")
    detail = real.rindex("\n", 0, real.lower().rindex("additional detail section")) + 1
    padding = "".join(f"- [x] padding item number {i}\n" for i in range(1000))
    found = find_signoff(real[:detail] + padding + real[detail:])
    assert found.checklist is not None
    result = match_signoff(TEMPLATE, found.checklist, author="nv-a")
    budget = item_budget(TEMPLATE)
    obsolete = [r for r in result.results if r.state == "obsolete"]
    assert len(obsolete) == len(found.checklist.items) - len(TEMPLATE.items)
    # the template's items came first and all matched; nothing past the budget was paired
    assert all(r.state == "ok" for r in result.results if r.state != "obsolete")
    assert len(found.checklist.items) > budget


def test_a_comment_is_read_up_to_github_s_limit_only() -> None:
    from changelog_tools.signoff.checklist import MAX_COMMENT_CHARS

    real = signoff_from(CURRENT, "nv-a")
    assert find_signoff("x" * MAX_COMMENT_CHARS + "\n\n" + real).checklist is None
    assert find_signoff(real + "\n" + "y" * MAX_COMMENT_CHARS).checklist is not None


# -- a header GitHub never shows as prose starts no sign-off -----------------------------------


ITEMS = "\n- [x] one\n- [x] two\n\nSigned: bob\n"


@pytest.mark.parametrize(
    "body",
    [
        # the header inside an inline HTML comment (a paragraph's, not an HTML block)
        f"ok <!--\n{HEADER}\n-->\n{ITEMS}",
        # inside a code span over three lines
        f"see `\n{HEADER}\n`\n{ITEMS}",
        # inside a link's title, and an image's text
        f'[a](/u "\n{HEADER}\n")\n{ITEMS}',
        f"![\n{HEADER}\n](/i.png)\n{ITEMS}",
        # inside a link reference definition's title: no output at all
        f"[foo]: /url\n'\n{HEADER}\n'\n{ITEMS}",
    ],
)
def test_a_header_github_does_not_show_as_prose_starts_no_signoff(body: str) -> None:
    assert find_signoff(body).checklist is None


@pytest.mark.parametrize(
    "body",
    [
        f"{HEADER}\n{ITEMS}",
        f"LGTM, thanks!\n{HEADER}\n{ITEMS}",  # a preamble in the same paragraph
        f"ok <!-- a note -->\n{HEADER}\n{ITEMS}",  # a one-line comment before it
        f"Checked `x.sh` and [the docs](/d).\n{HEADER}\n{ITEMS}",
        f"{HEADER}\n===\n{ITEMS}",  # a setext heading
        f"[ref]: /url\n\n{HEADER}\n{ITEMS}",  # a reference definition elsewhere
        f"ok <!--\n{HEADER}\n{ITEMS}",  # an unclosed comment is text: the header shows
    ],
)
def test_a_header_shown_as_prose_still_starts_the_signoff(body: str) -> None:
    found = find_signoff(body).checklist
    assert found is not None
    assert [(i.text, i.checked) for i in found.items] == [("one", True), ("two", True)]
    assert found.signed == "bob"
