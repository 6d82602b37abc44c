"""Review findings: a sign-off line GitHub never shows as the author's prose was counted."""

from __future__ import annotations

import pytest

from changelog_tools.signoff.checklist import HEADER, find_signoff

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
