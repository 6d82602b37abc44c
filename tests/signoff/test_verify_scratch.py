from pathlib import Path

from tests.signoff.world import authorize, build_world, signoff


def test_scratch(tmp_path: Path) -> None:
    w = build_world(tmp_path)
    try:
        head = w.open_pr()
        authorize(w)
        w.comment(signoff("amd-a"), "amd-a")
        out = w.verify(dry_run=True, log=print)
        from changelog_tools.signoff.render import render_text
        print(render_text(out.verdict))
        print(w.fake.unhandled, w.fake.errors)
        assert False
    finally:
        w.fake.stop()
