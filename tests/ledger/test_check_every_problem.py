"""One run of `check` reports every problem it can, numbered one way.

An author fixes a pull request from one CI run: a history edit must not hide the appended
entry's own problems, and every finding about the head's entries numbers them as the head does.
"""

from __future__ import annotations

from changelog_tools import diagnostics as dx
from changelog_tools.ledger.check import check_change
from tests.checkdata import BASE, PULL, config, entry
from tests.ledger.test_placement import insert

KEY = "alpha-fp8-gpu-a-vllm"


def findings(head: bytes, *, pr: int) -> list[dx.Diagnostic]:
    result = check_change(base=BASE, head=head, config=config(), mode="pr", pr=pr, path="p")
    return result.report.sorted()


def test_a_history_edit_does_not_hide_the_appended_entrys_wrong_link() -> None:
    edited = BASE.replace(b"First sweep", b"First sweep, edited")
    head = edited + b"\n" + entry(KEY, description="New", link=f"{PULL}5")
    found = findings(head, pr=7)
    assert [d.code for d in found] == [dx.ENTRY_CHANGED, dx.WRONG_PR]
    assert "entry 3: pr-link points at pull request #5, but this is pull request #7" in (
        found[1].message
    )


def test_one_numbering_the_heads_for_an_inserted_entry_and_its_link() -> None:
    head = insert(BASE, 1, entry(KEY, description="Inserted", link="TBD"))
    found = findings(head, pr=7)
    assert [d.code for d in found] == [dx.ENTRY_INSERTED, dx.NEAR_MISS_LINK]
    assert found[0].message.startswith("new entry 2 was inserted before existing entry 3")
    assert found[1].message.startswith("entry 2: pr-link 'TBD'")
