"""The CODEOWNERS matcher against GitHub's documented examples and a public pattern corpus."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from changelog_tools.signoff.codeowners import compile_pattern, parse_codeowners
from tests.conftest import INFERENCEX

# The pattern cases of hmarr/codeowners testdata/patterns.json (a public corpus of GitHub
# CODEOWNERS behaviour), as (pattern, path, matches) rows.
CORPUS = {
    "foo": {
        "foo": 1,
        "foo.txt": 0,
        "foo/bar": 1,
        "bar/foo": 1,
        "bar/foo.txt": 0,
        "bar/baz": 0,
        "bar/foo/baz": 1,
    },
    "/foo": {
        "foo": 1,
        "fool.txt": 0,
        "foo/bar": 1,
        "bar/foo": 0,
        "bar/baz": 0,
        "foo/bar/baz": 1,
        "bar/foo/baz": 0,
    },
    "foo/": {
        "foo": 0,
        "foo/bar": 1,
        "foo/bar/baz": 1,
        "bar/foo": 0,
        "bar/baz": 0,
        "bar/foo/baz": 1,
        "bar/foo/baz/qux": 1,
    },
    "/foo/": {
        "foo": 0,
        "foo/bar": 1,
        "foo/bar/baz": 1,
        "bar/foo": 0,
        "bar/baz": 0,
        "bar/foo/baz": 0,
        "bar/foo/baz/qux": 0,
    },
    "foo/bar": {
        "foo/bar": 1,
        "foo/bart": 0,
        "foo/bar/baz": 1,
        "baz/foo/bar": 0,
        "baz/foo/bar/qux": 0,
    },
    "/foo/bar": {
        "foo/bar": 1,
        "foo/bart": 0,
        "foo/bar/baz": 1,
        "baz/foo/bar": 0,
        "baz/foo/bar/qux": 0,
    },
    "foo/bar/": {
        "foo/bar": 0,
        "foo/bart": 0,
        "foo/bar/baz": 1,
        "baz/foo/bar": 0,
        "baz/foo/bar/qux": 0,
    },
    "/foo/bar/": {
        "foo/bar": 0,
        "foo/bart": 0,
        "foo/bar/baz": 1,
        "foo/bar/baz/qux": 1,
        "baz/foo/bar": 0,
        "baz/foo/bar/qux": 0,
    },
    "*": {"foo": 1, "foo/bar": 1, "bar/foo": 1, "bar/foo/baz": 1, "bar/baz": 1, "xfoo": 1},
    "f*": {
        "foo": 1,
        "foo/bar": 1,
        "foo/bar/baz": 1,
        "bar/foo": 1,
        "bar/foo/baz": 1,
        "bar/baz": 0,
        "xfoo": 0,
    },
    "/*": {"foo": 1, "bar": 1, "foo/bar": 0, "foo/bar/baz": 0},
    "/f*": {
        "foo": 1,
        "foo/bar": 1,
        "foo/bar/baz": 1,
        "bar/foo": 0,
        "bar/foo/baz": 0,
        "bar/baz": 0,
        "xfoo": 0,
    },
    "f*/": {"foo": 0, "foo/bar": 1, "bar/foo": 0, "bar/foo/baz": 1, "bar/baz": 0, "xfoo": 0},
    "/*/": {"foo": 0, "foo/bar": 1, "bar/foo": 1, "bar/foo/baz": 1},
    "/f*/": {"foo": 0, "foo/bar": 1, "bar/foo": 0, "bar/foo/baz": 0, "bar/baz": 0, "xfoo": 0},
    "f\\*o": {"foo": 0, "f*o": 1},
    "foo/*": {
        "foo": 0,
        "foo/bar": 1,
        "foo/bar/baz": 0,
        "bar/foo": 0,
        "bar/foo/baz": 0,
        "bar/baz": 0,
        "xfoo": 0,
    },
    "foo/*.txt": {
        "foo": 0,
        "foo/bar.txt": 1,
        "foo/bar/baz.txt": 0,
        "qux/foo/bar.txt": 0,
        "qux/foo/bar/baz.txt": 0,
    },
    "foo/*/baz": {"foo": 0, "foo/bar": 0, "foo/baz": 0, "foo/bar/baz": 1, "foo/bar/baz/qux": 1},
    "f?o": {"foo": 1, "fo": 0, "fooo": 0},
    "f\\?o": {"foo": 0, "f?o": 1},
    "**/foo/bar": {
        "foo/bar": 1,
        "qux/foo/bar": 1,
        "qux/foo/bar/baz": 1,
        "foo/baz/bar": 0,
        "qux/foo/baz/bar": 0,
    },
    "**/*bar*": {"bar": 1, "foo/bar": 1, "foo/rebar": 1, "foo/barrio": 1, "foo/qux/bar": 1},
    "foo/bar/**": {
        "foo/bar": 0,
        "foo/bar/baz": 1,
        "foo/bar/baz/qux": 1,
        "qux/foo/bar": 0,
        "qux/foo/bar/baz": 0,
    },
    "foo/**/bar": {
        "foo/bar": 1,
        "foo/bar/baz": 1,
        "foo/qux/bar/baz": 1,
        "foo/qux/quux/bar/baz": 1,
        "foo/bar/baz/qux": 1,
        "qux/foo/bar": 0,
        "qux/foo/bar/baz": 0,
    },
    "foo/**/": {"foo": 0, "foo/bar": 1, "foo/bar/": 1, "foo/bar/baz": 1},
    "foo/**/bar/b*": {
        "foo/bar": 0,
        "foo/bar/baz": 1,
        "foo/bar/qux": 0,
        "foo/qux/bar": 0,
        "foo/qux/bar/baz": 1,
        "foo/qux/bar/qux": 0,
    },
    # matching is case-sensitive
    "/Docs/": {"Docs/a.md": 1, "docs/a.md": 0},
}

ROWS = [(p, path, bool(m)) for p, paths in CORPUS.items() for path, m in paths.items()]


@pytest.mark.parametrize(("pattern", "path", "expected"), ROWS)
def test_pattern_matches_like_github(pattern: str, path: str, expected: bool) -> None:
    assert compile_pattern(pattern).matches(path) is expected


# The example file of GitHub's "About code owners" page, and what the page says each line does.
GITHUB_EXAMPLE = """\
# This is a comment.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
"""


@pytest.mark.parametrize(
    ("path", "line", "owners"),
    [
        ("README.md", 2, ("@global-owner1", "@global-owner2")),
        ("src/app.js", 3, ("@js-owner",)),  # the inline comment is not an owner
        ("main.go", 4, ("docs@example.com",)),
        ("notes.txt", 5, ("@octo-org/octocats",)),
        ("build/logs/x.log", 11, ("@octocat",)),  # **/logs is later and wins
        ("docs/getting-started.md", 9, ("@doctocat",)),
        ("docs/build-app/troubleshooting.md", 9, ("@doctocat",)),
        ("scripts/logs/a", 11, ("@octocat",)),
        ("deeply/nested/logs/a", 11, ("@octocat",)),
        ("apps/github/x.rb", 13, ()),  # an owner-less line makes the path unowned
        ("apps/other.rb", 12, ("@octocat",)),
        ("x/apps/y", 8, ("@octocat",)),  # apps/ anywhere
    ],
)
def test_githubs_documented_example(path: str, line: int, owners: tuple[str, ...]) -> None:
    rule = parse_codeowners(GITHUB_EXAMPLE).decide(path)
    assert rule is not None
    assert (rule.line, rule.owners) == (line, owners)


def test_docs_star_does_not_match_nested_files_without_a_later_rule() -> None:
    owners = parse_codeowners("* @all\ndocs/* @docs\n")
    assert owners.decide("docs/getting-started.md").owners == ("@docs",)  # type: ignore[union-attr]
    assert owners.decide("docs/build-app/troubleshooting.md").owners == ("@all",)  # type: ignore[union-attr]


def test_last_match_wins_and_owners_do_not_accumulate() -> None:
    owners = parse_codeowners("* @core\nconfigs/a.yaml @amd1 @amd2\n")
    rule = owners.decide("configs/a.yaml")
    assert rule is not None and rule.owners == ("@amd1", "@amd2") and not rule.catch_all
    catch = owners.decide("utils/x.py")
    assert catch is not None and catch.catch_all


def test_an_owner_after_a_hash_is_never_an_owner() -> None:
    owners = parse_codeowners("foo.txt @b # trailing comment @evil\n")
    assert owners.decide("foo.txt").owners == ("@b",)  # type: ignore[union-attr]
    assert "@evil" not in owners.everyone()


def test_negation_and_bad_owners_are_skipped_lines() -> None:
    owners = parse_codeowners("* @core\n!secret.txt @x\nlib/ not-an-owner\n")
    assert [s.line for s in owners.skipped] == [2, 3]
    assert owners.decide("secret.txt").owners == ("@core",)  # type: ignore[union-attr]
    assert owners.decide("lib/a").owners == ("@core",)  # type: ignore[union-attr]


def test_lines_github_reports_as_errors_are_skipped() -> None:
    owners = parse_codeowners("* @core\nlib/ @ghost\n", invalid_lines=frozenset({2}))
    assert owners.decide("lib/a").owners == ("@core",)  # type: ignore[union-attr]
    assert owners.skipped[0].reason == "GitHub reports this line as an error"


def test_no_rule_means_no_owner() -> None:
    assert parse_codeowners("docs/ @d\n").decide("src/a.py") is None


def test_the_real_inferencex_codeowners() -> None:
    path = INFERENCEX / ".github/CODEOWNERS"
    if not path.is_file():
        text = "* @InferenceX/core\nconfigs/amd-master.yaml @a1 @a2\n"
    else:
        text = path.read_text(encoding="utf-8")
    owners = parse_codeowners(text)
    amd = owners.decide("configs/amd-master.yaml")
    assert amd is not None and "@InferenceX/core" not in amd.owners and not amd.catch_all
    catch = owners.decide("perf-changelog.yaml")
    assert catch is not None and catch.catch_all and catch.owners == ("@InferenceX/core",)


def test_root_star_owns_root_files_and_is_no_catch_all() -> None:
    # `/*` matches root files only, so it names their owners; it is not the fallback line
    # whose paths any listed owner may cover.
    from changelog_tools.signoff.coverage import Owners

    owners = parse_codeowners("* @core\ndocs/ @writer\n/* @root-owner\n")
    rule = owners.decide("setup.py")
    assert rule is not None and rule.owners == ("@root-owner",) and not rule.catch_all
    assert owners.decide("src/a.py").catch_all  # type: ignore[union-attr]
    cover = Owners(owners, lambda team, login: False)
    assert not cover.covers("writer", "setup.py")
    assert cover.covers("root-owner", "setup.py")
    assert cover.covers("writer", "src/a.py")  # decided by `*`: any listed owner


def test_an_enterprise_managed_user_login_with_an_underscore_is_an_owner() -> None:
    owners = parse_codeowners("configs/ @alice_contoso @octo-org/core_team\n")
    assert owners.skipped == ()
    assert owners.decide("configs/a.yaml").owners == ("@alice_contoso", "@octo-org/core_team")  # type: ignore[union-attr]


def test_a_backslash_does_not_escape_a_hash() -> None:
    # GitHub: escaping a pattern starting with # using \ does not work; the line is a comment
    # from the #, so `\#notes` leaves the pattern `\` and no owner after it counts.
    owners = parse_codeowners("* @core\nfoo\\#bar @evil\n")
    assert "@evil" not in owners.everyone()
    assert owners.decide("foo#bar").owners == ("@core",)  # type: ignore[union-attr]


@pytest.mark.parametrize("separator", ["\f", "\u2028", "\x1c", "\x85"])
def test_lines_end_at_line_feed_only(separator: str) -> None:
    owners = parse_codeowners(f"* @core\ndocs/ @writer{separator}secret/ @evil\n")
    assert "@evil" not in owners.everyone()
    assert owners.decide("secret/a").owners == ("@core",)  # type: ignore[union-attr]


def test_a_pattern_with_brackets_is_reported_and_skipped() -> None:
    owners = parse_codeowners("* @core\n/apps/[param]/file.ts @next\n")
    assert [(s.line, s.reason) for s in owners.skipped] == [
        (2, "character ranges ([ ]) are not supported by GitHub")
    ]
    assert owners.decide("apps/[param]/file.ts").owners == ("@core",)  # type: ignore[union-attr]


def test_many_double_stars_against_a_long_path_give_the_right_answer() -> None:
    pattern = compile_pattern("a/**/**/**/**/**/**/b")
    deep = "a/" + "x/" * 80 + "c"
    assert not pattern.matches(deep)
    assert pattern.matches(deep[:-1] + "b")
    star = compile_pattern("*a*a*a*a*a*b")
    assert not star.matches("a" * 5000)
    assert star.matches("a" * 5000 + "b")


def regex_oracle(pattern: str) -> re.Pattern[str]:
    """GitHub's rules written as one regular expression (exponential on hostile input, fine
    on the small texts below): the definition the segment walker must agree with."""
    anchored = pattern.startswith("/")
    body = pattern.lstrip("/") if anchored else pattern
    directory_only = body.endswith("/") and body != ""
    body = body.rstrip("/")
    anchored = anchored or "/" in body
    if body in ("", "**"):
        return re.compile(".+")
    segments = body.split("/")
    parts = []
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == "**":
            parts.append(".+" if last else "(?:.*/)?")
            continue
        text = "".join(
            "[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch)
            for ch in re.sub(r"\*+", "*", segment)
        )
        parts.append(text if last else text + "/")
    prefix = "" if anchored or segments[0] == "**" else "(?:.*/)?"
    if segments[-1] == "**":
        suffix = ""
    elif directory_only:
        suffix = "/.+"
    elif segments[-1] == "*" and anchored:
        suffix = ""
    else:
        suffix = "(?:/.*)?"
    return re.compile(prefix + "".join(parts) + suffix)


_SEGMENT = st.text(alphabet="ab*?", min_size=1, max_size=4)
_PATTERNS = st.builds(
    lambda lead, segs, trail: lead + "/".join(segs) + trail,
    st.sampled_from(["", "/"]),
    st.lists(st.one_of(_SEGMENT, st.just("**")), min_size=1, max_size=4),
    st.sampled_from(["", "/"]),
)
_PATHS = st.lists(st.text(alphabet="ab", min_size=1, max_size=4), min_size=1, max_size=5).map(
    "/".join
)


@settings(max_examples=3000, deadline=None)
@given(_PATTERNS, _PATHS)
def test_the_segment_walker_agrees_with_the_regular_expression(pattern: str, path: str) -> None:
    assert compile_pattern(pattern).matches(path) is bool(regex_oracle(pattern).fullmatch(path))
