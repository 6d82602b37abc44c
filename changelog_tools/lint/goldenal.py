"""`golden-al`: agentic speculative-decoding scripts pin the golden acceptance length.

AgentX compares spec-decode submissions only because every one of them simulates the same
acceptance length (AL): the committed golden value for its model, thinking mode and draft
length (``golden_al_distribution/*.yaml``, read at the base). The pin has one spelling per
engine, all read here:

* SGLang ``SGLANG_SIMULATE_ACC_LEN=<AL>`` (or ``: '<AL>'`` in YAML);
* vLLM ``"synthetic_acceptance_length": <AL | $VAR>``, or a printf ``%.2f`` fed by
  ``SYNTHETIC_ACCEPT_LEN=<AL>``;
* TensorRT-LLM ``TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=<AL - 1>`` (it counts draft tokens);
* ATOM ``--spec-decode-acceptance-length <AL>``, or ``--spec-decode-acceptance-rate`` computed
  from ``SIMULATE_ACC_LEN=<AL>``.

The draft length comes from ``--speculative-num-steps``, ``num_speculative_tokens``,
``NUM_SPEC_TOKENS=``, ``--num-speculative-tokens`` or ``max_draft_len``. A pin must equal a
golden value for one of the script's draft lengths (any length when none is found). Setting
synthetic acceptance in a benchmark script outside the agentic paths is an error: it would
fake a fixed-sequence-length result.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from changelog_tools import diagnostics as dx
from changelog_tools import yamlload
from changelog_tools.lint import codes, shell
from changelog_tools.lint.context import Context
from changelog_tools.lint.paths import matches
from changelog_tools.numbers import finite_float, parse_number

_NUM = r"(\d+(?:\.\d+)?)"
_ASSIGN = re.compile(
    r"(?:^|[\s;(])(?:export\s+)?([A-Z_][A-Z0-9_]*)=[\"']?(?:\$\{[A-Z_][A-Z0-9_]*:-)?" + _NUM
)
_SGLANG = re.compile(r"SGLANG_SIMULATE_ACC_LEN\s*[=:]\s*[\"']?" + _NUM)
_VLLM = re.compile(
    r"""synthetic_acceptance_length\\?["']?\s*:\s*(?:""" + _NUM + r"|\$\{?([A-Z_][A-Z0-9_]*)|(%))"
)
_TRT = re.compile(r"TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS\s*[=:]\s*[\"']?" + _NUM)
_ATOM_LEN = re.compile(
    r"--spec-decode-acceptance-length[\s=]+[\"']?(?:" + _NUM + r"|\$\{?([A-Z_][A-Z0-9_]*))"
)
_ATOM_RATE = re.compile(r"--spec-decode-acceptance-rate\b")
_KNOB = re.compile(
    r"SGLANG_SIMULATE_ACC_LEN|synthetic_acceptance_length|TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS"
    r"|--spec-decode-acceptance-(?:length|rate)"
)
_DRAFT = (
    re.compile(r"--speculative-num-steps[\s=]+[\"']?(\d+)"),
    re.compile(r"num_speculative_tokens\\?[\"']?\s*[:=]\s*(\d+)"),
    re.compile(r"--num-speculative-tokens[\s=]+[\"']?(\d+)"),
    re.compile(r"max_draft_len\s*[:=]\s*(\d+)"),
)
_DRAFT_VARS = ("NUM_SPEC_TOKENS", "SPEC_NUM_TOKENS", "NUM_SPECULATIVE_TOKENS")


@dataclass(frozen=True)
class Pin:
    line: int
    al: float
    spelling: str


def _assignments(lines: list[shell.LogicalLine]) -> dict[str, list[tuple[float, int]]]:
    out: dict[str, list[tuple[float, int]]] = {}
    for line in lines:
        for m in _ASSIGN.finditer(line.text):
            value = finite_float(m.group(2))
            if value is not None:
                out.setdefault(m.group(1), []).append((value, line.line))
    return out


def pins(text: str) -> tuple[list[Pin], set[int]]:
    """The acceptance lengths ``text`` pins, and its draft lengths."""
    lines = shell.logical_lines(text)
    env = _assignments(lines)
    out: list[Pin] = []

    def from_var(name: str, spelling: str, offset: float = 0.0) -> Iterator[Pin]:
        for value, line in env.get(name, []):
            yield Pin(line, round(value + offset, 4), spelling)

    def pin(line: int, text: str, spelling: str, offset: float = 0.0) -> Iterator[Pin]:
        value = finite_float(text)
        if value is not None:  # a number past any real acceptance length pins nothing
            yield Pin(line, round(value + offset, 4), spelling)

    for line in lines:
        t = line.text
        for m in _SGLANG.finditer(t):
            out.extend(pin(line.line, m.group(1), "SGLANG_SIMULATE_ACC_LEN"))
        for m in _VLLM.finditer(t):
            if m.group(1):
                out.extend(pin(line.line, m.group(1), "synthetic_acceptance_length"))
            elif m.group(2):
                out.extend(from_var(m.group(2), "synthetic_acceptance_length"))
            else:
                out.extend(from_var("SYNTHETIC_ACCEPT_LEN", "synthetic_acceptance_length"))
        for m in _TRT.finditer(t):
            out.extend(pin(line.line, m.group(1),
                           "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS (+1)", 1))  # fmt: skip
        for m in _ATOM_LEN.finditer(t):
            if m.group(1):
                out.extend(pin(line.line, m.group(1), "--spec-decode-acceptance-length"))
            else:
                out.extend(from_var(m.group(2), "--spec-decode-acceptance-length"))
        if _ATOM_RATE.search(t):
            out.extend(from_var("SIMULATE_ACC_LEN", "--spec-decode-acceptance-rate"))
    drafts: set[int] = set()
    for line in lines:
        for pattern in _DRAFT:
            drafts.update(n for m in pattern.finditer(line.text) if (n := parse_number(m.group(1))))
    for name in _DRAFT_VARS:
        drafts.update(int(v) for v, _ in env.get(name, []) if v.is_integer())
    drafts.discard(0)
    unique = {(p.line, p.al): p for p in out}
    return sorted(unique.values(), key=lambda p: (p.line, p.al)), drafts


def golden_values(ctx: Context, prefix: str) -> tuple[list[str], dict[int, set[float]]]:
    """Golden files of model ``prefix`` (trusted tree) and their AL values per draft length."""
    directory = ctx.config.lint_golden_al_dir.rstrip("/")
    tree = ctx.base if ctx.base is not None else ctx.head  # trusted: the base when given
    files = [
        p
        for p in tree.paths(directory)
        if p.endswith((".yaml", ".yml"))
        and p.rsplit("/", 1)[-1].startswith((prefix + "_", prefix + "-"))
    ]
    values: dict[int, set[float]] = {}
    for path in files:
        raw = tree.read(path)
        try:
            loaded = yamlload.load(raw.decode("utf-8") if raw else "").value
        except (yamlload.YamlProblem, UnicodeDecodeError):
            continue
        for modes in (loaded or {}).values() if isinstance(loaded, dict) else ():
            for curve in (modes or {}).values() if isinstance(modes, dict) else ():
                for k, v in (curve or {}).items() if isinstance(curve, dict) else ():
                    number = finite_float(v) if isinstance(v, int | float) else None
                    if isinstance(k, int) and number is not None:
                        values.setdefault(k, set()).add(round(number, 4))
    return files, values


def check(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    """The rule over the run: each agentic script pins a golden AL, each multi-node entry's
    setting is on its model's curve, and no other benchmark script sets synthetic acceptance."""
    rule = "golden-al"
    cfg = ctx.config
    from changelog_tools.lint.launchers import entry_scripts

    judged = sorted(
        set(ctx.files(cfg.lint_golden_al_scripts))
        | {p for p in entry_scripts(ctx) if matches(p, cfg.lint_golden_al_scripts)}
    )
    out: list[dx.Diagnostic] = []
    for path in judged:
        out.extend(_script_pins(ctx, rule, path))
    pinned_entries, found_multi = _multinode_pins(ctx, rule)
    out.extend(found_multi)
    judged = judged + pinned_entries
    out.extend(_knobs_outside_agentic(ctx, rule))
    return bool(judged) or bool(out), out, judged


def _script_pins(ctx: Context, rule: str, path: str) -> list[dx.Diagnostic]:
    """An agentic script's pins: present, with a golden file for its model, and each equal to
    a golden value for one of the script's draft lengths."""
    cfg = ctx.config
    found, drafts = pins(ctx.text(path) or "")
    prefix = path.rsplit("/", 1)[-1].split("_", 1)[0]
    if not found:
        if ctx.allowed(rule, path=path, text="unpinned"):
            return []
        return [
            dx.error(
                codes.GOLDEN_AL_UNPINNED,
                "this agentic speculative-decoding script does not pin the simulated "
                "acceptance length, so its results are not comparable",
                path,
                1,
                hint="set the engine's synthetic-acceptance knob (SGLANG_SIMULATE_ACC_LEN, "
                "synthetic_acceptance_length, TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS, "
                f"--spec-decode-acceptance-length) to the value in {cfg.lint_golden_al_dir}/",
            )
        ]
    files, values = golden_values(ctx, prefix)
    if not files:
        first = found[0]
        if ctx.allowed(rule, path=path, text=str(first.al)):
            return []
        return [
            dx.error(
                codes.GOLDEN_AL_NO_FILE,
                f"{first.spelling} pins AL {first.al:g}, but {cfg.lint_golden_al_dir}/ has "
                f"no golden file for {prefix}",
                path,
                first.line,
                hint=f"commit {cfg.lint_golden_al_dir}/{prefix}_<method>.yaml (speedbench-al.yml) "
                "first, or allow it with the AL source as the reason in `lint-allow`",
            )
        ]
    lengths = sorted(k for k in drafts if k in values) or sorted(values)
    allowed_values = set().union(*(values[k] for k in lengths)) if lengths else set()
    golden = "; ".join(
        f"{k} draft tokens: {', '.join(f'{v:g}' for v in sorted(values[k]))}" for k in lengths
    )
    at_draft = f" at draft length {', '.join(map(str, sorted(drafts)))}" if drafts else ""
    return [
        dx.error(
            codes.GOLDEN_AL_MISMATCH,
            f"{pin.spelling} pins AL {pin.al:g}, which is not a golden value for {prefix}"
            + at_draft,
            path,
            pin.line,
            hint=f"use the value from {', '.join(files)} ({golden})",
        )
        for pin in found
        if pin.al not in allowed_values and not ctx.allowed(rule, path=path, text=str(pin.al))
    ]


def _knobs_outside_agentic(ctx: Context, rule: str) -> list[dx.Diagnostic]:
    """A benchmark script outside the agentic paths whose added lines set synthetic acceptance
    (the first such line of each file)."""
    cfg = ctx.config
    out: list[dx.Diagnostic] = []
    knob_files = [
        p
        for p in ctx.files(cfg.lint_scripts)
        if not matches(p, cfg.lint_agentic_scripts) and not matches(p, cfg.lint_harness_paths)
    ]
    for path in knob_files:
        for line in ctx.touched(path):
            m = _KNOB.search(line.text)
            if m is None:
                continue
            if ctx.allowed(rule, path=path, text=line.text):
                continue
            out.append(
                dx.error(
                    codes.SYNTHETIC_OUTSIDE_AGENTIC,
                    f"{m.group(0)} sets synthetic acceptance outside the agentic scripts: the "
                    "result would not measure real speculative decoding",
                    path,
                    line.line,
                    hint="remove it; synthetic acceptance belongs only to agentic scripts "
                    "(`lint-agentic-scripts`), pinned to the golden AL",
                )
            )
            break
    return out


_SETTING = re.compile(r"^SYNTHETIC_ACCEPTANCE_LENGTH=" + _NUM + r"$")


def _multinode_pins(ctx: Context, rule: str) -> tuple[list[str], list[dx.Diagnostic]]:
    """Multi-node entries the run judges that pin the AL through their workers'
    ``additional-settings`` (``SYNTHETIC_ACCEPTANCE_LENGTH=<AL>``, injected into the recipe by
    InferenceX's runners): the value must be on the model's golden curve (any draft length:
    the recipe file, not the entry, names it). Recipes that pin inline are not read here."""
    out: list[dx.Diagnostic] = []
    judged: list[str] = []
    curves: dict[str, tuple[list[str], set[float]]] = {}
    for entry in ctx.judged_entries:
        if not entry.multinode:
            continue
        prefix = str(entry.field("model-prefix"))
        for scenario, g, r, row in entry.rows():
            for worker in ("prefill", "decode"):
                settings = (
                    row.get(worker, {}).get("additional-settings")
                    if isinstance(row.get(worker), dict)
                    else None
                )
                for k, setting in enumerate(settings if isinstance(settings, list) else []):
                    m = _SETTING.match(str(setting))
                    if m is None:
                        continue
                    al = finite_float(m.group(1))
                    if al is None:
                        continue
                    if entry.name not in judged:
                        judged.append(entry.name)
                    if prefix not in curves:
                        files, values = golden_values(ctx, prefix)
                        curves[prefix] = (files, set().union(*values.values()) if values else set())
                    files, known = curves[prefix]
                    if al in known or ctx.allowed(
                        rule, path=entry.path, key=entry.name, text=str(setting)
                    ):
                        continue
                    line = entry.line_of("scenarios", scenario, g, "search-space", r, worker,
                                         "additional-settings", k)  # fmt: skip
                    where = (
                        f"the golden values of {', '.join(files)}"
                        if files
                        else (f"a golden file for {prefix} (there is none)")
                    )
                    out.append(
                        dx.error(
                            codes.GOLDEN_AL_NO_FILE if not files else codes.GOLDEN_AL_MISMATCH,
                            f"{entry.name}: {worker} pins AL {al:g} through additional-settings, "
                            f"which is not a golden value for {prefix}",
                            entry.path,
                            line,
                            hint=f"use one of {where}",
                        )
                    )
    return judged, out


CHECKS = {"golden-al": check}
