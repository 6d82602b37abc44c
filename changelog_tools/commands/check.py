"""`changelog-tools check`: the CI gate on a change to the changelog."""

from __future__ import annotations

import os

import click

from changelog_tools.commands._common import (
    config_option,
    emit,
    format_option,
    pr_option,
    revision_option,
)
from changelog_tools.config import Config


@click.command()
@revision_option("--base-ref", "Git mode: the base revision "
              "(default: merge-base of the head and the main branch).")  # fmt: skip
@revision_option("--head-ref", "Git mode: the head revision (default: HEAD, "
              "or the pull request's head commit in GitHub Actions).")  # fmt: skip
@click.option("--base-file", metavar="PATH", help="File mode: the base changelog file.")
@click.option("--head-file", metavar="PATH", help="File mode: the head changelog file.")
@pr_option("Pull-request mode: new entries link to pull request N or a placeholder "
           "(with --main: the commit lands PR N, so its links must be pull N's).")  # fmt: skip
@click.option("--main", "main_mode", is_flag=True,
              help="Main-branch mode: new entries need canonical pr-links.")  # fmt: skip
@click.option("--local", "local_mode", is_flag=True,
              help="Local mode (canonical or placeholder links), even inside GitHub Actions.")  # fmt: skip
@click.option("--changelog-file", "changelog", metavar="PATH",
              help="Git mode: the changelog's path from the repository root (or absolute; "
              "default: the `changelog` option).")  # fmt: skip
@click.option("--master-config", "master_configs", multiple=True, metavar="PATH",
              help="Master config to resolve config keys against (repeatable; default: the "
              "`master-configs` option). Git mode reads it at both refs.")  # fmt: skip
@click.option("--base-master-config", "base_master_configs", multiple=True, metavar="PATH",
              help="File mode: the base version of each master config, in the same order "
              "(enables coverage and append-only scope rules).")  # fmt: skip
@click.option("--no-config-keys", is_flag=True,
              help="Skip config-key, coverage and append-only scope rules (replaying history).")  # fmt: skip
@click.option("--strict", is_flag=True,
              help="Warnings (trailing spaces, uncovered config changes) become errors.")  # fmt: skip
@click.option("--all-evals", is_flag=True,
              help="Run-wide modifier (InferenceX's `all-evals` label): evals on every point. "
              "Carried into the JSON result's `modifiers` for the sweep-matrix step.")  # fmt: skip
@click.option("--evals-only", is_flag=True,
              help="Run-wide modifier (the `evals-only` label): no throughput benchmarks. "
              "Carried into the JSON result's `modifiers`.")  # fmt: skip
@format_option
@config_option
def check(
    base_ref: str | None,
    head_ref: str | None,
    base_file: str | None,
    head_file: str | None,
    pr: int | None,
    main_mode: bool,
    local_mode: bool,
    changelog: str | None,
    master_configs: tuple[str, ...],
    base_master_configs: tuple[str, ...],
    no_config_keys: bool,
    strict: bool,
    all_evals: bool,
    evals_only: bool,
    output_format: str,
    config: Config,
) -> int:
    """Check a change to the changelog: what CI runs on every pull request and push to main.

    Compares a base and a head version. Git mode (the default) reads the changelog and the
    master configs at two revisions, never the working tree; the base defaults to the
    merge-base of the head and the main branch, so a branch behind main still passes. File mode
    (--base-file/--head-file) needs no git.

    \b
    Rules:
      - both versions pass `validate`'s file and schema rules (for the appended
        entries);
      - no entry deleted or reordered; history is immutable except pr-link-only
        corrections to canonical links, never mixed with new entries;
      - appended entries follow the base bytes exactly; the appended bytes start
        with exactly one empty line (none when history ends with one) and separate
        entries by exactly one empty line: a whitespace-only or TAB/CR/VT/FF line
        is not that line (error); history's own whitespace is never judged again;
        the file ends with one newline (trailing spaces: warnings; errors with
        --strict);
      - pr-links of new entries: --pr N: this PR's link or a placeholder; --main:
        canonical only (and pull N's when the commit names PR N: --main --pr N, a
        merge-queue ref, a squash subject ending in `(#N)`); local: canonical or
        placeholder;
      - config keys of new entries exist in the master configs at the head (`*`
        wildcards must match), and every master key the change adds or modifies is
        selected;
      - `append-only: true` entries: only scoped additions to the configs they
        select;
      - with --pr, a byte-identical changelog: a master-config change passes with
        warnings (changed keys no entry selects; --strict makes them errors),
        anything else has nothing to sweep (error).

    \b
    Mode: --pr N, --main or --local; in GitHub Actions it is read from
    GITHUB_EVENT_NAME and GITHUB_EVENT_PATH (pull_request: the PR number and head
    commit; push to main: the pushed range; merge_group: main mode for the queued
    commit, the PR number from its gh-readonly-queue/<branch>/pr-N-<sha> ref).
    Otherwise local mode.

    \b
    Exit status: 0 ok (warnings allowed), 1 a rule failed, 2 usage or
    configuration error (an unknown revision included), 3 git failed.

    \b
    --all-evals/--evals-only (the flags of InferenceX's
    validate_perf_changelog.py) do not change the verdict; they are recorded under
    `modifiers` in the JSON result so the step that builds the sweep matrix reads
    them from one place.

    \b
    Examples:
      changelog-tools check --pr 12
      changelog-tools check --pr-number 12 --all-evals --format json > check.json
      changelog-tools check --main --base-ref HEAD^ --format github
      changelog-tools check --base-file old.yaml --head-file perf-changelog.yaml \\
          --pr 12
      changelog-tools check --base-ref v1 --head-ref v2 --no-config-keys \\
          --format json
    """
    from changelog_tools.ledger.check import Request, run_check

    request = Request(mode=_mode(main_mode, local_mode, pr), pr=pr, base_ref=base_ref,
                      head_ref=head_ref, base_file=base_file, head_file=head_file,
                      changelog=changelog, master_configs=master_configs,
                      base_master_configs=base_master_configs, config_keys=not no_config_keys,
                      strict=strict)  # fmt: skip
    result = run_check(request, config, env=os.environ, progress=_progress)
    result.report.data["modifiers"] = {"all-evals": all_evals, "evals-only": evals_only}
    return emit(result.report, output_format)


def _progress(message: str) -> None:
    click.echo(message, err=True)


def _mode(main_mode: bool, local_mode: bool, pr: int | None) -> str | None:
    """The mode the flags name (None: read it from GitHub Actions, else local)."""
    from changelog_tools.errors import UsageError

    if main_mode and local_mode:
        raise UsageError("--main and --local are mutually exclusive")
    mode = "main" if main_mode else "local" if local_mode else None
    # --main --pr N is main mode with the landing PR known (a merge queue): its new entries
    # must link pull N. Only local mode takes no number.
    if pr is not None and mode == "local":
        raise UsageError("--pr cannot be combined with --local")
    return mode
