"""`changelog-tools lint`: the benchmark-recipe and master-config rules."""

from __future__ import annotations

import datetime
import os

import click

from changelog_tools.commands._common import config_option, emit, format_option, revision_option
from changelog_tools.config import LINT_RULE_IDS, Config


def _date(_ctx: click.Context, _param: click.Parameter, value: str | None) -> datetime.date | None:
    if value is None:
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date (YYYY-MM-DD)") from None


@click.command()
@revision_option("--base-ref", "The base revision (default: the merge-base of "
              "the head and the main branch). Trusted inputs (MODELS.md, golden AL files, "
              "existing waivers) are read here.")  # fmt: skip
@revision_option("--head-ref", "The head revision (default: HEAD, or the pull "
              "request's head commit in GitHub Actions).")  # fmt: skip
@click.option("--all", "audit", is_flag=True, help="Audit the whole tree at the head ref instead "
              "of what the change adds or modifies.")  # fmt: skip
@click.option("--pr", "pr", type=click.IntRange(min=1), metavar="N",
              help="The pull request (its waiver is docs/waiver/N.md).")  # fmt: skip
@click.option("--now", callback=_date, metavar="DATE",
              help="Review date for MODELS.md's effective dates (default: today, UTC).")  # fmt: skip
@click.option("--rule", "rules", multiple=True, type=click.Choice(LINT_RULE_IDS), metavar="ID",
              help="Run only this rule (repeatable).")  # fmt: skip
@format_option
@config_option
def lint(
    base_ref: str | None,
    head_ref: str | None,
    audit: bool,
    pr: int | None,
    now: datetime.date | None,
    rules: tuple[str, ...],
    output_format: str,
    config: Config,
) -> int:
    """Lint benchmark scripts, launchers and master configs: the rules reviewers check by hand.

    Reads both revisions through git, never the working tree. By default it judges what the
    change adds or modifies: added lines for the rules about added code, changed master-config
    entries, and the scripts the change touches or its changed entries run. --all audits the
    whole tree at the head ref.

    \b
    Rules (ids for --rule and options `lint-rules`, `lint-allow`; docs/lint.md):
      master-schema   master-config entries match
                      schemas/master-config.schema.json
      chat-template   spec-decoding scripts pass --use-chat-template to every
                      benchmark call
      spec-launchers  every spec-decoding value maps to a script suffix in every
                      launcher
      config-script   every single-node entry resolves to a benchmark script that
                      exists
      engine-patches  engine patches need docs/waiver/<PR>.md
      arch-overrides  no --hf-overrides / --json-model-override-args
      images          vLLM/SGLang entries on established SKUs use upstream images
      engine-first    other frameworks need a vLLM/SGLang entry for the same model
                      and SKU
      models          no entry for a model or scenario MODELS.md retired
      golden-al       agentic spec-decoding scripts pin the golden acceptance
                      length

    \b
    Exit status: 0 no errors (warnings allowed), 1 an error finding, 2 usage or
    configuration error, 3 git failed.

    \b
    Examples:
      changelog-tools lint --pr 12 --format github
      changelog-tools lint --base-ref origin/main --head-ref HEAD
      changelog-tools lint --all --now 2026-08-22
    """
    from changelog_tools.lint.engine import report
    from changelog_tools.lint.gitmode import lint_git

    outcome = lint_git(
        config,
        base_ref=base_ref,
        head_ref=head_ref,
        audit=audit,
        pr=pr,
        now=now,
        rules=rules or None,
        env=os.environ,
        say=lambda msg: click.echo(msg, err=True),
    )
    return emit(report(outcome.result, subject=outcome.subject), output_format)
