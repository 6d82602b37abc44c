"""`changelog-tools replay`: what `check` and `fix` would have said on the merged history."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from changelog_tools.commands._common import config_option
from changelog_tools.config import Config

if TYPE_CHECKING:
    from changelog_tools.ledger.replay import Replay


@click.command()
@click.option("--last", "limit", type=click.IntRange(min=1), default=100, show_default=True,
              metavar="N", help="How many merged changes of the changelog to replay, newest "
              "first.")  # fmt: skip
@click.option("--branch", metavar="REF", help="The branch whose first-parent history is "
              "replayed (default: the `main-branch` option, or its remote copy).")  # fmt: skip
@click.option("--changelog-file", "changelog", metavar="PATH",
              help="The changelog's path from the repository root (default: the `changelog` "
              "option).")  # fmt: skip
@click.option("--no-config-keys", is_flag=True,
              help="Skip config-key, coverage and append-only scope rules, as `check "
              "--no-config-keys` does.")  # fmt: skip
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="json: the counts and every replayed change as one JSON "
              "document.")  # fmt: skip
@config_option
def replay(
    limit: int,
    branch: str | None,
    changelog: str | None,
    no_config_keys: bool,
    output_format: str,
    config: Config,
) -> int:
    """Replay the last N merged pull requests through `check` and `fix`: the gate's blast radius.

    Before making `check` a required status, see what it would have said on the pull
    requests that already landed. Each commit on the main branch's first-parent history that
    changed the changelog is one merged change (a squash merge, a merge commit or a direct
    push): its parent's changelog is the base and its own the head, checked as `check` checks
    a pull request (pull-request mode with N from a subject ending in `(#N)` or starting
    `Merge pull request #N`; main mode when the subject names no pull request), with the
    configuration in force here. A failing change goes through `fix` in memory and is checked
    again. Nothing is written: not the changelog, not git.

    Prints how many changes fail and with which codes, and how many `fix` repairs (`check`
    passes on its output), leaves failing, or refuses. One progress line per change on stderr.

    \b
    Exit status: 0 replayed (failures are the result, not an error), 2 usage or
    configuration error, 3 git failed.

    \b
    Examples:
      changelog-tools replay --last 200
      changelog-tools replay --last 50 --no-config-keys \\
          --format json > blast-radius.json
    """
    from changelog_tools import gitrepo
    from changelog_tools.diagnostics import no_commands, visible
    from changelog_tools.ledger.replay import replay_history

    repo = gitrepo.open_repo(config.root)
    result = replay_history(
        repo,
        config,
        limit=limit,
        branch=branch,
        changelog=changelog,
        config_keys=not no_config_keys,
        progress=lambda msg: click.echo(visible(msg), err=True),
    )
    if output_format == "json":
        from changelog_tools.jsontext import json_text

        click.echo(json_text(result.to_json()), nl=False)
    else:
        click.echo(no_commands(visible(render_text(result))), nl=False)
    return 0


def render_text(result: Replay) -> str:
    """The replay's counts as text: totals, then by code, then `fix`, then the failing changes."""
    from changelog_tools import diagnostics as dx
    from changelog_tools.ledger.replay import REFUSED, REPAIRED, STILL_FAILS

    failing = result.failing
    rules = "" if result.config_keys else "; config-key rules skipped"
    lines = [
        f"replayed {dx.counted(len(result.changes), 'merged change', 'merged changes')} of "
        f"{result.changelog} on "
        f"{result.branch} (newest first{rules})",
        f"  pass `check`: {len(result.changes) - len(failing)}",
        f"  fail `check`: {len(failing)}",
    ]
    by_code = result.by_code()
    if by_code:
        lines.append("failing, by code (a change can fail with several):")
        for code, counts in by_code.items():
            name = dx.CODES[code].name if code in dx.CODES else ""
            lines.append(
                f"  {code:<6} {name:<26} {dx.counted(counts['failing'], 'change', 'changes')}; "
                f"gone after `fix` in {counts['gone']}"
            )
        fix = result.fix_counts()
        refused = ", ".join(f"{code} {n}" for code, n in result.refusals().items())
        lines.append(
            f"`fix` (in memory): repairs {fix[REPAIRED]} of {len(failing)}; "
            f"{fix[STILL_FAILS]} still {'fails' if fix[STILL_FAILS] == 1 else 'fail'} after it; "
            f"refuses {fix[REFUSED]}" + (f" ({refused})" if refused else "")
        )
        lines.append("failing changes:")
        for one in failing:
            # without a pull request number, the subject is what tells a reader which change
            who = f"#{one.pr}" if one.pr is not None else f'(main mode: "{one.subject}")'
            outcome = {
                REPAIRED: "`fix` repairs it",
                STILL_FAILS: f"still {', '.join(one.after)} after `fix`",
                REFUSED: f"`fix` refuses ({', '.join(one.after)})",
            }[one.fix or REFUSED]
            lines.append(f"  {one.commit[:12]} {who}: {', '.join(one.codes)}; {outcome}")
    return "\n".join(lines) + "\n"
