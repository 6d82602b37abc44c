"""The sweep and evals checks: a green run of the trusted sweep workflow on a commit still in
the PR, with benchmark and eval jobs that really ran, and eval scores at their thresholds."""

from __future__ import annotations

import fnmatch
import io
import json
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from changelog_tools.github.adapter import Job, WorkflowRun
from changelog_tools.signoff.verdict import Check

MAX_EVAL_FILE = 64 * 1024 * 1024  # bytes the eval results file may unpack to
MAX_ARTIFACT = 512 * 1024 * 1024  # bytes of artifact zip downloaded at most


@dataclass(frozen=True)
class JobRules:
    bench: tuple[str, ...]  # fnmatch patterns of benchmark job names
    evals: tuple[str, ...]  # fnmatch patterns of eval job names
    ignored: tuple[str, ...]  # aggregators: never count either way


def _any(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def judge_jobs(run: WorkflowRun, jobs: Sequence[Job], rules: JobRules) -> Check:
    """At least one benchmark and one eval job succeeded; none failed; skipped counts nothing."""
    bench_ok: list[str] = []
    eval_ok: list[str] = []
    bad: list[str] = []
    skipped = 0
    for job in jobs:
        if _any(job.name, rules.ignored):
            continue
        is_eval = _any(job.name, rules.evals)
        is_bench = not is_eval and _any(job.name, rules.bench)
        if not (is_eval or is_bench):
            continue
        if job.conclusion == "success":
            (eval_ok if is_eval else bench_ok).append(job.name)
        elif job.conclusion in ("failure", "cancelled", "timed_out", "action_required"):
            bad.append(f"{job.name} ({job.conclusion})")
        else:
            skipped += 1  # skipped, neutral, still running: neither for nor against
    evidence = ({"run": run.id, "url": run.html_url, "head-sha": run.head_sha},)
    if bad:
        return Check(
            "sweep", "fail", f"run {run.id} has failed sweep jobs: {', '.join(bad)}", evidence
        )
    missing = [w for w, got in (("benchmark", bench_ok), ("eval", eval_ok)) if not got]
    if missing:
        extra = f" ({skipped} skipped)" if skipped else ""
        return Check(
            "sweep",
            "fail",
            f"run {run.id} has no successful {' and no successful '.join(missing)} job{extra}",
            evidence,
        )
    return Check(
        "sweep",
        "pass",
        f"run {run.id} on {(run.head_sha or '?')[:7]}: {len(bench_ok)} benchmark and "
        f"{len(eval_ok)} eval job(s) succeeded",
        evidence,
    )


def read_eval_rows(zip_bytes: bytes, member: str) -> list[dict[str, Any]]:
    """The rows of the eval results file inside an artifact zip (a JSON list of objects, or an
    object holding one under ``rows``/``results``)."""
    try:
        with zipfile.ZipFile(io.BytesIO(zip_bytes)) as archive:
            names = archive.namelist()
            wanted = next((n for n in names if n == member or n.endswith("/" + member)), None)
            if wanted is None:
                raise ValueError(f"the artifact holds no {member} (it has {len(names)} files)")
            size = archive.getinfo(wanted).file_size
            if size > MAX_EVAL_FILE:
                # the sweep ran the PR's code, so the artifact is not trusted to be small
                raise ValueError(f"{wanted} unpacks to {size} bytes (at most {MAX_EVAL_FILE})")
            data = json.loads(archive.read(wanted).decode("utf-8"))
    except RecursionError:
        raise ValueError(f"{member} nests deeper than any results file") from None
    # What a hostile archive raises from zipfile: an encrypted member (RuntimeError), an
    # unsupported compression method (NotImplementedError), corrupt deflate data (zlib.error),
    # a truncated member (EOFError), plus the plain format errors.
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        RuntimeError,
        NotImplementedError,
        EOFError,
        OSError,
        zlib.error,
        UnicodeDecodeError,
        json.JSONDecodeError,
    ) as exc:
        raise ValueError(f"the artifact is not a zip of JSON results ({exc})") from None
    if isinstance(data, dict):
        data = data.get("rows", data.get("results"))
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ValueError(f"{member} is not a list of result rows")
    return data


def threshold(thresholds: Mapping[str, Any], prefix: str, task: str) -> float | None:
    models = thresholds.get("models") or {}
    per_model = models.get(prefix) if isinstance(models, dict) else None
    if isinstance(per_model, dict) and isinstance(per_model.get(task), int | float):
        return float(per_model[task])
    default = thresholds.get("default") or {}
    value = default.get(task) if isinstance(default, dict) else None
    return float(value) if isinstance(value, int | float) else None


_FIELDS = (
    ("model-prefix", "model_prefix"),
    ("runner", "hw"),
    ("framework", "framework"),
    ("precision", "precision"),
)


def _row_matches(row: Mapping[str, Any], key: str, entry: Mapping[str, Any]) -> bool:
    if row.get("config_key") == key or row.get("config-key") == key:
        return True
    for entry_field, row_field in _FIELDS:
        want, got = entry.get(entry_field), row.get(row_field)
        if want is None or got is None:
            return False
        if entry_field == "runner":
            if str(got).lower() not in str(want).lower():
                return False
        elif str(got).lower() != str(want).lower():
            return False
    return True


def judge_evals(
    rows: Sequence[Mapping[str, Any]],
    keys: Mapping[str, Mapping[str, Any]],
    thresholds: Mapping[str, Any],
    *,
    run_id: int,
) -> Check:
    """Every selected config key has a result row at or above its threshold."""
    if not keys:
        return Check("evals", "n/a", "the PR's new changelog entries select no config key")
    if not rows:
        return Check("evals", "fail", f"the eval results of run {run_id} are empty")
    problems: list[str] = []
    evidence: list[dict[str, Any]] = []
    for key, entry in keys.items():
        mine = [r for r in rows if _row_matches(r, key, entry)]
        if not mine:
            problems.append(f"{key}: no eval result row")
            continue
        for row in mine:
            task = str(row.get("task", ""))
            score = row.get("score")
            limit = threshold(thresholds, str(entry.get("model-prefix", "")), task)
            evidence.append({"key": key, "task": task, "score": score, "threshold": limit})
            # NaN compares False with everything and a JSON true is an int: neither is a score
            if not isinstance(score, int | float) or isinstance(score, bool) or score != score:
                problems.append(f"{key} {task}: no numeric score")
            elif limit is not None and score < limit:
                problems.append(f"{key} {task}: score {score} < threshold {limit}")
    if problems:
        return Check("evals", "fail", "; ".join(problems[:5]), tuple(evidence))
    return Check(
        "evals",
        "pass",
        f"{len(keys)} config key(s) meet their thresholds (run {run_id})",
        tuple(evidence),
    )
