"""Deterministic synthetic changelogs, for tests, benchmarks and the demo.

Entries look like InferenceX's (one to three config keys, a few description lines, an optional
scenario-type or evals-only flag) but every word is generated here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MODELS = ("llama70b", "mixtral", "dsr1", "gptoss", "qwen3", "kimik2")
PRECISIONS = ("fp4", "fp8", "bf16")
RUNNERS = ("gpu-a", "gpu-b", "gpu-c", "gpu-d")
FRAMEWORKS = ("vllm", "sglang", "trt")
VERBS = ("Upgrade", "Tune", "Extend", "Fix", "Add", "Remove", "Re-run")
NOUNS = ("image", "concurrency sweep", "KV cache dtype", "scheduler", "eval set", "TP sizes")


@dataclass(frozen=True)
class SynthEntry:
    config_keys: tuple[str, ...]
    description: tuple[str, ...]
    pr_link: str
    scenario_type: tuple[str, ...] = ()
    evals_only: bool = False

    def render(self) -> bytes:
        """The entry as ledger bytes (two-space indentation, ending with one newline)."""
        lines = ["- config-keys:"]
        lines += [f"    - {k}" for k in self.config_keys]
        if self.scenario_type:
            lines.append("  scenario-type:")
            lines += [f"    - {s}" for s in self.scenario_type]
        if self.evals_only:
            lines.append("  evals-only: true")
        lines.append("  description:")
        lines += [f'    - "{d}"' for d in self.description]
        lines.append(f"  pr-link: {self.pr_link}")
        return ("\n".join(lines) + "\n").encode()


def config_key(rng: random.Random) -> str:
    return "-".join(
        (rng.choice(MODELS), rng.choice(PRECISIONS), rng.choice(RUNNERS), rng.choice(FRAMEWORKS))
    )


def make_entry(rng: random.Random, number: int, repository: str) -> SynthEntry:
    keys = tuple(dict.fromkeys(config_key(rng) for _ in range(rng.randint(1, 3))))
    description = tuple(
        f"{rng.choice(VERBS)} the {rng.choice(NOUNS)} for {keys[0]} (change {number}.{i})"
        for i in range(rng.randint(1, 4))
    )
    scenario: tuple[str, ...] = ()
    roll = rng.random()
    if roll < 0.1:
        scenario = ("agentic-coding",)
    elif roll < 0.15:
        scenario = ("fixed-seq-len",)
    return SynthEntry(
        config_keys=keys,
        description=description,
        pr_link=f"https://github.com/{repository}/pull/{number}",
        scenario_type=scenario,
        evals_only=rng.random() < 0.03,
    )


def ledger(
    entries: int, *, seed: int = 0, repository: str = "example-org/bench", first_pr: int = 1
) -> bytes:
    """A valid ledger of ``entries`` synthetic entries separated by one empty line."""
    rng = random.Random(seed)
    blocks = [make_entry(rng, first_pr + i, repository).render() for i in range(entries)]
    return b"\n".join(blocks)


def ledger_of_size(size: int, *, seed: int = 0, repository: str = "example-org/bench") -> bytes:
    """A valid synthetic ledger of at least ``size`` bytes."""
    rng = random.Random(seed)
    blocks: list[bytes] = []
    total = 0
    number = 1
    while total < size:
        block = make_entry(rng, number, repository).render()
        blocks.append(block)
        total += len(block) + 1
        number += 1
    return b"\n".join(blocks)


def master_config(keys: list[str]) -> bytes:
    """A master config file defining ``keys`` with a minimal InferenceX-like body."""
    out = []
    for key in keys:
        parts = key.replace("*", "x").split("-")
        model, precision, framework = parts[0], (parts[1:2] or ["fp8"])[0], parts[-1]
        runner = "-".join(parts[2:-1]) or "gpu"
        out.append(
            f"{key}:\n"
            f"  image: example/{framework}:1.0\n"
            f"  model: example/{model}-{precision}\n"
            f"  model-prefix: {model}\n"
            f"  runner: {runner}\n"
            f"  precision: {precision}\n"
            f"  framework: {framework}\n"
            "  multinode: false\n"
            "  scenarios:\n"
            "    fixed-seq-len:\n"
            "    - isl: 1024\n"
            "      osl: 1024\n"
            "      search-space:\n"
            "      - { tp: 8, conc-start: 4, conc-end: 64 }\n"
        )
    return "\n".join(out).encode()
