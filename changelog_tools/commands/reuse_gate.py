"""`changelog-tools reuse-gate`: the CI step that decides whether to reuse a PR's sweep."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from changelog_tools.commands._common import PR_NUMBER, config_option
from changelog_tools.config import Config
from changelog_tools.errors import ChangelogToolsError, UsageError
from changelog_tools.reportrender import escape_data
from changelog_tools.reuse.gate import Decision, Event


def _progress(message: str) -> None:
    from changelog_tools.diagnostics import no_commands

    click.echo(no_commands(f"reuse-gate: {message}"), err=True)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def event_from_environment(
    env: Mapping[str, str],
    *,
    name: str | None = None,
    action: str | None = None,
    pr_number: int | None = None,
    sha: str | None = None,
    ref: str | None = None,
    before: str | None = None,
) -> Event:
    """The triggering event: flags first, then the GitHub Actions variables and payload."""
    from changelog_tools.actionsevent import read_event

    actions = read_event(env)
    payload = actions.payload
    name = name or actions.name
    if not name:
        raise UsageError(
            "no event to judge: pass --event-name, or run inside GitHub Actions (GITHUB_EVENT_NAME)"
        )
    if pr_number is None:
        pr_number = actions.pr_number
    if name == "push":
        sha = sha or _text(payload.get("after"))
        before = before or _text(payload.get("before"))
    return Event(
        name=name,
        action=action or actions.action,
        pr_number=pr_number,
        sha=sha or actions.sha,
        ref=ref or actions.ref or actions.text("ref"),
        before=before,
    )


def _changelog_in_checkout(config: Config, checkout: Path) -> str:
    target = (config.root / config.changelog).resolve()
    try:
        return target.relative_to(checkout.resolve()).as_posix()
    except ValueError:
        return config.changelog


def gate(
    config: Config,
    event: Event,
    *,
    env: Mapping[str, str],
    repository: str | None,
    workflow: str | None,
    checkout: Path,
) -> Decision:
    """Decide reuse for ``event`` against GitHub and the local clone (for the drift guard)."""
    from changelog_tools.github.adapter import PullRequest, WorkflowRun, make_github
    from changelog_tools.gitrepo import open_repo
    from changelog_tools.reuse import gate as reuse
    from changelog_tools.reuse.drift import check_drift

    policy = reuse.Policy.from_config(config, workflow=workflow)
    api = make_github(config, env=env, repository=repository, log=_progress)

    def drift(pr: PullRequest, run: WorkflowRun) -> Sequence[str]:
        assert run.head_sha is not None and event.sha is not None  # validated before
        repo = open_repo(checkout)
        report = check_drift(
            repo,
            source=run.head_sha,
            merged=event.sha,
            patterns=config.drift_paths,
            changelog=_changelog_in_checkout(config, repo.path),
            before=event.before,
            pr_number=pr.number,
            remote=config.remote,
        )
        return report.items()

    def stale(pr: PullRequest, run: WorkflowRun) -> Sequence[str]:
        from changelog_tools.reuse.drift import merge_base_before
        from changelog_tools.reuse.staleness import check_staleness

        assert run.head_sha is not None and event.sha is not None  # validated before
        repo = open_repo(checkout)
        report = check_staleness(
            repo,
            source=run.head_sha,
            base=merge_base_before(repo, repo.rev_parse(event.sha), event.before),
            config=config,
            changelog=_changelog_in_checkout(config, repo.path),
        )
        return report.items()

    decision = reuse.decide(event, policy, api, drift_check=drift, stale_check=stale, log=_progress)
    _progress(f"{api.requests} GitHub API request(s)")
    return decision


@click.command("reuse-gate")
@click.option("--event-name", help="pull_request or push  [default: $GITHUB_EVENT_NAME]")
@click.option(
    "--event-action", help="The pull_request action  [default: `action` of the event payload]"
)
@click.option(
    "--pr",
    "--pr-number",
    "pr_number",
    type=PR_NUMBER,
    help="Pull request number  [default: from the event payload]",
)
@click.option(
    "--commit-sha", help="The pushed commit  [default: `after` of a push payload, $GITHUB_SHA]"
)
@click.option("--ref", help="The pushed ref  [default: $GITHUB_REF]")
@click.option(
    "--before", help="Main before the push, for the drift guard  [default: `before` of the payload]"
)
@click.option(
    "--workflow",
    "--workflow-id",
    "workflow",
    help="Sweep workflow file  [default: config `sweep-workflow`]",
)
@click.option(
    "--repo",
    "repository",
    help="OWNER/NAME  [default: $GITHUB_REPOSITORY, else config `repository`]",
)
@click.option(
    "--checkout",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Clone with full history, for the drift guard.",
)
@click.option(
    "--github-output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Step outputs file  [default: $GITHUB_OUTPUT]",
)
@click.option(
    "--step-summary",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Step summary file  [default: $GITHUB_STEP_SUMMARY]",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["json", "text", "github"]),
    default="json",
    show_default=True,
    help="How the decision is printed on stdout: json, one object of the outputs; text, one "
    "`name: value` line each; github, a workflow annotation with the reason.",
)
@config_option
def reuse_gate(
    event_name: str | None,
    event_action: str | None,
    pr_number: int | None,
    commit_sha: str | None,
    ref: str | None,
    before: str | None,
    workflow: str | None,
    repository: str | None,
    checkout: Path,
    github_output: Path | None,
    step_summary: Path | None,
    output_format: str,
    config: Config,
) -> int:
    """Decide whether CI may reuse a pull request's finished sweep instead of sweeping again.

    In a workflow it needs no flags: the event, commit, ref and repository come from the GitHub
    Actions environment, the token from GH_TOKEN or GITHUB_TOKEN, labels, command and artifact
    names from the configuration.

    \b
    pull_request synchronize: skip-pr-sweep=true when the PR carries an authorized
      /reuse-sweep-run comment (newest whole line outside code, from an allowed
      association).
    push to main: reuse-enabled=true when the commit is the merge commit of
      exactly one PR that is authorized, has exactly one full-sweep label and no
      incompatible label, has a source run (the pinned one, or the newest
      successful pull_request run on a commit still in the PR with unexpired
      result artifacts), and did not change benchmark-affecting paths or its
      changelog entries after that run (drift guard; needs a clone with full
      history).

    \b
    Outputs (to $GITHUB_OUTPUT, and on stdout as --format says: one JSON object by
    default): reuse-enabled, skip-pr-sweep, reuse-source-run-id,
    reuse-source-run-attempt, reuse-source-run-url, reuse-source-pr-number,
    reuse-source-head-sha, reuse-reason. A Markdown summary with the source run's
    link goes to $GITHUB_STEP_SUMMARY.

    \b
    Exit status: 0 decided (either way; see reuse-reason), 2 usage or
    configuration error, 3 GitHub or git failed after retries (fail closed: no
    outputs are written).

    \b
    Examples:
      changelog-tools reuse-gate                      # inside GitHub Actions
      changelog-tools reuse-gate --event-name push --ref refs/heads/main \\
          --commit-sha "$(git rev-parse origin/main)" \\
          --repo example-org/inferencex-mini
    """
    env = os.environ
    output_path = github_output or _env_path(env, "GITHUB_OUTPUT")
    summary_path = step_summary or _env_path(env, "GITHUB_STEP_SUMMARY")
    try:
        event = event_from_environment(
            env,
            name=event_name,
            action=event_action,
            pr_number=pr_number,
            sha=commit_sha,
            ref=ref,
            before=before,
        )
        decision = gate(
            config,
            event,
            env=env,
            repository=repository,
            workflow=workflow,
            checkout=checkout,
        )
    except ChangelogToolsError as exc:
        _summarize_failure(summary_path, exc)
        raise
    outputs = _publish(decision, event, output_path, summary_path, env)
    _progress(decision.reason)
    click.echo(render_outputs(outputs, decision, output_format), nl=False)
    return 0


def _summarize_failure(summary_path: Path | None, exc: ChangelogToolsError) -> None:
    """Tell the step summary why no decision was made (the error itself is raised on)."""
    from changelog_tools.github.adapter import append_step_summary
    from changelog_tools.reuse.gate import render_error_summary

    if summary_path is None:
        return
    try:
        append_step_summary(summary_path, render_error_summary(exc.message))
    except OSError as write_error:  # the original error is the one to report
        _progress(f"could not write the step summary {summary_path}: {write_error}")


def _publish(
    decision: Decision,
    event: Event,
    output_path: Path | None,
    summary_path: Path | None,
    env: Mapping[str, str],
) -> Mapping[str, str]:
    """Write the step outputs and the summary; warn the workflow when reuse was refused."""
    from changelog_tools.github.adapter import append_step_summary, write_step_outputs
    from changelog_tools.reuse.gate import render_summary

    outputs = decision.outputs()
    if output_path is not None:
        _write(write_step_outputs, output_path, outputs, "step outputs")
    if summary_path is not None:
        _write(append_step_summary, summary_path, render_summary(decision, event), "step summary")
    if decision.refused and env.get("GITHUB_ACTIONS") == "true":
        click.echo(f"::warning title=reuse refused::{escape_data(decision.reason)}", err=True)
    return outputs


def render_outputs(outputs: Mapping[str, str], decision: Decision, output_format: str) -> str:
    """The decision on stdout: the step outputs as JSON or text, or one annotation."""
    if output_format == "text":
        from changelog_tools.diagnostics import no_commands

        return no_commands("".join(f"{name}: {value}\n" for name, value in outputs.items()))
    if output_format == "github":
        level = "warning" if decision.refused else "notice"
        title = "reuse refused" if decision.refused else "reuse decision"
        return f"::{level} title={title}::{escape_data(decision.reason)}\n"
    from changelog_tools.jsontext import json_text

    return json_text(outputs)


def _write(writer: Callable[[Path, Any], None], path: Path, data: Any, what: str) -> None:
    try:
        writer(path, data)
    except OSError as exc:
        raise UsageError(
            f"cannot write the {what} to {path}: {exc.strerror or exc}",
            hint="--github-output/--step-summary (or $GITHUB_OUTPUT/$GITHUB_STEP_SUMMARY) must "
            "name a writable file",
        ) from None


def _env_path(env: Mapping[str, str], name: str) -> Path | None:
    value = env.get(name)
    return Path(value) if value else None
