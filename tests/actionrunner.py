"""Run a workflow step that uses this repository's composite action (action.yml) as the Actions
runner would: inputs from `with:` (defaults from action.yml), `${{ ... }}` expressions replaced
from a context, every `run:` step of the action in bash with its `env:`, step outputs through a
real `$GITHUB_OUTPUT` file.

`uses:` steps inside the action (setup-python, setup-uv, the cache) are skipped: the Python
running the tests stands in for setup-python, and whatever `uv` is on PATH for setup-uv; a
caller may pass ``stand_ins`` for any of them (the benchmark models the cache so). The install
step runs for real only when ``install=True`` (it builds and installs the checkout, which needs
the package index); otherwise its output `bin` is the directory of the console script installed
beside this Python, which is what it would install.

``python -m tests.actionrunner WORKFLOW JOB STEP-NAME [KEY=VALUE...]`` runs one step with the
real install, from the current directory (what .ci/run does).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from changelog_tools import yamlload

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
SELF_REFERENCES = ("./",)
_EXPR = re.compile(r"\$\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}")


@dataclass(frozen=True)
class StepResult:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    # wall seconds of each `run:` step of the action that ran, by its id (for the benchmark)
    seconds: dict[str, float] = field(default_factory=dict)


def load_steps(workflow: Path, job: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = yamlload.load(workflow.read_text()).value["jobs"][job]["steps"]
    return steps


def find_step(steps: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(s for s in steps if s.get("name") == name)


def _lookup(context: Mapping[str, Any], dotted: str) -> str:
    value: Any = context
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return ""  # as in Actions: a missing property is empty
        value = value[part]
    return "" if value is None else str(value)


def evaluate(text: str, context: Mapping[str, Any]) -> str:
    return _EXPR.sub(lambda m: _lookup(context, m.group(1)), str(text))


# A stand-in for a `uses:` step of the action: (its `with:` evaluated, the steps context so far)
# -> its outputs.
StandIn = Callable[[Mapping[str, str], Mapping[str, Any]], Mapping[str, str]]


def run_step(
    step: Mapping[str, Any],
    *,
    cwd: Path,
    context: Mapping[str, Any],
    env: Mapping[str, str],
    install: bool = False,
    runner_temp: Path | None = None,
    action_path: Path = ROOT,
    stand_ins: Mapping[str, StandIn] | None = None,
) -> StepResult:
    """Run ``step`` (a step that uses this repository's action) in ``cwd``.

    ``runner_temp`` is the job's RUNNER_TEMP, shared by the steps of one job (a fresh one per
    step when not given). ``action_path`` is the action's checkout (GITHUB_ACTION_PATH);
    ``stand_ins`` maps an action (``owner/name[/path]`` without the ref) used inside the action
    to a function run in its place."""
    if step.get("uses") not in SELF_REFERENCES:
        raise ValueError(f"step {step.get('name')!r} does not use this repository's action")
    action = yamlload.load((action_path / "action.yml").read_text()).value
    given = {k: evaluate(v, context) for k, v in (step.get("with") or {}).items()}
    unknown = set(given) - set(action["inputs"])
    if unknown:
        raise ValueError(f"inputs not declared in action.yml: {sorted(unknown)}")
    inputs = {
        name: given.get(name, str(spec.get("default", "")))
        for name, spec in action["inputs"].items()
    }
    missing = [n for n, spec in action["inputs"].items() if spec.get("required") and not inputs[n]]
    if missing:
        raise ValueError(f"required inputs missing: {missing}")
    steps_ctx: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    stdout = stderr = ""
    with tempfile.TemporaryDirectory() as scratch:
        runner_temp = runner_temp or Path(scratch)
        for inner in action["runs"]["steps"]:
            inner_id = inner.get("id", "")
            if "uses" in inner:
                # setup-python: the test's own Python stands in; setup-uv: `uv` on PATH, if any
                stand_in = (stand_ins or {}).get(str(inner["uses"]).split("@")[0])
                if stand_in is not None:
                    local = {**context, "inputs": inputs, "steps": steps_ctx}
                    with_ = {k: evaluate(v, local) for k, v in (inner.get("with") or {}).items()}
                    steps_ctx[inner_id] = {"outputs": dict(stand_in(with_, steps_ctx))}
                continue
            if inner_id == "install" and not install:
                steps_ctx["install"] = {"outputs": {"bin": str(Path(sys.executable).parent)}}
                continue
            local = {**context, "inputs": inputs, "steps": steps_ctx}
            output_file = runner_temp / f"output-{inner_id or 'step'}"
            output_file.write_text("")
            step_env = {
                "RUNNER_OS": "Linux",  # what a runner sets; a caller's env may say otherwise
                **env,
                "GITHUB_OUTPUT": str(output_file),
                "GITHUB_ACTION_PATH": str(action_path),
                "RUNNER_TEMP": str(runner_temp),
                **{k: evaluate(v, local) for k, v in (inner.get("env") or {}).items()},
            }
            began = time.perf_counter()
            proc = subprocess.run(
                ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", inner["run"]],
                cwd=cwd,
                env=step_env,
                capture_output=True,
                text=True,
                check=False,
            )
            seconds[inner_id or "step"] = time.perf_counter() - began
            stdout, stderr = stdout + proc.stdout, stderr + proc.stderr
            outputs = dict(
                line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line
            )
            steps_ctx[inner_id] = {"outputs": outputs}
            if proc.returncode != 0:
                return StepResult(proc.returncode, stdout, stderr, outputs, seconds)
    return StepResult(0, stdout, stderr, steps_ctx.get("run", {}).get("outputs", {}), seconds)


def main(argv: list[str]) -> int:
    workflow, job, name, *pairs = argv
    context: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        node = context
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    step = find_step(load_steps(Path(workflow), job), name)
    temp = os.environ.get("RUNNER_TEMP")
    result = run_step(
        step,
        cwd=Path.cwd(),
        context=context,
        env=dict(os.environ),
        install=True,
        runner_temp=Path(temp) if temp else None,
    )
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
