"""The ``evals`` check: the sweep run's eval artifact has a result at its threshold for every
config key the PR's new changelog entries select."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from changelog_tools.config import Config
from changelog_tools.github.records import WorkflowRun
from changelog_tools.signoff.facts import PullFacts
from changelog_tools.signoff.sweep import MAX_ARTIFACT, judge_evals, read_eval_rows
from changelog_tools.signoff.trusted import Trusted
from changelog_tools.signoff.verdict import Check


def evals(
    facts: PullFacts,
    config: Config,
    trusted: Trusted,
    run: WorkflowRun | None,
    keys: Mapping[str, Any],
) -> Check:
    """Read the thresholds (trusted) and the run's eval artifact, and judge every key."""
    from changelog_tools import yamlload

    if run is None:
        return Check("evals", "fail", "no sweep run to read eval results from")
    if not keys:
        return Check("evals", "n/a", "the PR's new changelog entries select no config key")
    raw = trusted.read(config.signoff_thresholds)
    thresholds: Any = {}
    if raw is not None:
        try:
            thresholds = yamlload.load(raw.decode("utf-8")).value or {}
        except (yamlload.YamlProblem, UnicodeDecodeError) as exc:
            return Check("evals", "error", f"{config.signoff_thresholds}: {exc}")
    artifact = next(
        (a for a in facts.run_artifacts(run.id) if a.name == config.signoff_eval_artifact), None
    )
    if artifact is None or artifact.expired:
        state = "expired" if artifact is not None else "missing"
        return Check(
            "evals", "fail", f"run {run.id}: artifact {config.signoff_eval_artifact} {state}"
        )
    if (artifact.size_in_bytes or 0) > MAX_ARTIFACT:
        return Check(
            "evals",
            "fail",
            f"run {run.id}: artifact {artifact.name} is "
            f"{artifact.size_in_bytes} bytes (at most {MAX_ARTIFACT})",
        )
    data = facts.artifact_bytes(artifact.id, max_bytes=MAX_ARTIFACT)
    try:
        rows = read_eval_rows(data, config.signoff_eval_file)
    except ValueError as exc:
        return Check("evals", "fail", f"run {run.id} artifact {artifact.name}: {exc}")
    return judge_evals(
        rows, keys, thresholds if isinstance(thresholds, dict) else {}, run_id=run.id
    )
