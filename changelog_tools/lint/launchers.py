"""`spec-launchers` and `config-script`: how a master-config entry reaches its benchmark script.

A launcher (``runners/launch_*.sh``) turns an entry's ``spec-decoding`` value into a script
suffix (InferenceX: ``SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' ...)``)
and names the script from the entry's model prefix, precision, SKU and framework. A value no
launcher maps falls through to the non-speculative script, silently (seed 000's `draft_model`).
"""

from __future__ import annotations

from dataclasses import dataclass

from changelog_tools import diagnostics as dx
from changelog_tools.lint import codes
from changelog_tools.lint.context import Context, Entry, compile_option

NONE = "none"


@dataclass(frozen=True)
class Resolution:
    entry: str
    scenario: str
    spec: str
    candidates: tuple[str, ...]
    found: str | None
    line: int


def _spec_of(row: object) -> str:
    value = row.get("spec-decoding", NONE) if isinstance(row, dict) else NONE
    return str(value)


def resolve_entry(ctx: Context, entry: Entry) -> list[Resolution]:
    """Per scenario and spec value of a single-node entry: the script names tried and the first
    that exists at the head (multi-node entries have no per-entry script)."""
    if entry.multinode:
        return []
    naming = [entry.field(name) for name in ("model-prefix", "precision", "framework", "runner")]
    if any(value is None for value in naming):
        return []  # a name part is missing or not a scalar: master-schema reports that instead
    cfg = ctx.config
    sku = ctx.sku(entry.field("runner")) or str(entry.field("runner"))
    seen: dict[tuple[str, str], int] = {}
    for scenario, g, r, row in entry.rows():
        key = (scenario, _spec_of(row))
        if key not in seen:
            seen[key] = entry.line_of("scenarios", scenario, g, "search-space", r)
    out: list[Resolution] = []
    for (scenario, spec), line in seen.items():
        values = {
            "scenario": cfg.lint_scenario_dirs.get(scenario, scenario),
            "model-prefix": str(entry.field("model-prefix")),
            "precision": str(entry.field("precision")),
            "sku": sku,
            "framework": str(entry.field("framework")),
            "spec-suffix": cfg.lint_spec_suffixes.get(spec, ""),
        }
        names = []
        for template in cfg.lint_script_templates:
            name = template
            for field, value in values.items():
                name = name.replace("{" + field + "}", value)
            names.append(name)
        candidates = tuple(dict.fromkeys(names))
        found = next((c for c in candidates if ctx.exists(c)), None)
        out.append(Resolution(entry.name, scenario, spec, candidates, found, line))
    return out


def entry_scripts(ctx: Context) -> list[str]:
    """Scripts that the entries this run judges resolve to (for the rules about scripts)."""
    out: list[str] = []
    for entry in ctx.judged_entries:
        out.extend(r.found for r in resolve_entry(ctx, entry) if r.found)
    return out


def check_config_script(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    rule = "config-script"
    out: list[dx.Diagnostic] = []
    judged: list[str] = []
    for entry in ctx.judged_entries:
        for res in resolve_entry(ctx, entry):
            judged.append(f"{entry.name} {res.scenario} {res.spec}")
            if res.found is not None:
                continue
            if ctx.allowed(rule, path=entry.path, key=entry.name, text=res.candidates[0]):
                continue
            tried = " or ".join(res.candidates)
            out.append(
                dx.error(
                    codes.CONFIG_SCRIPT_MISSING,
                    f"{entry.name}: {res.scenario} with spec-decoding {res.spec} runs a script "
                    f"that does not exist ({tried})",
                    entry.path,
                    res.line,
                    hint=f"add {res.candidates[-1]}, or fix the entry's model-prefix, "
                    "precision, runner or framework",
                )
            )
    return bool(judged), out, judged


def launcher_maps(ctx: Context, text: str) -> dict[str, int]:
    """The spec values a launcher maps to a suffix, with the line of the first mapping."""
    pattern = compile_option(
        ctx.config, "lint-spec-launcher-pattern", ctx.config.lint_spec_launcher_pattern
    )
    from changelog_tools.lint import shell

    found: dict[str, int] = {}
    for line in shell.logical_lines(text):
        for match in pattern.finditer(line.text):
            value = match.group("value") if "value" in pattern.groupindex else match.group(0)
            found.setdefault(value, line.line)
    return found


def _uses(ctx: Context, entries: list[Entry], values: list[str]) -> dict[str, tuple[str, str, int]]:
    """value -> (entry, path, line) of its first use among ``entries``."""
    used: dict[str, tuple[str, str, int]] = {}
    for entry in entries:
        for scenario, g, r, row in entry.rows():
            spec = _spec_of(row)
            if spec in values and spec not in used:
                line = entry.line_of("scenarios", scenario, g, "search-space", r, "spec-decoding")
                used[spec] = (entry.name, entry.path, line)
    return used


def check_spec_launchers(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    """An audit judges every launcher against every value. A change judges the launchers it
    touches against every value (uses found in all entries), and every launcher against the
    values its changed entries use, so an unrelated pull request is not told about latent gaps.
    """
    from changelog_tools.lint.masterschema import spec_values

    rule = "spec-launchers"
    touched = [p for p in ctx.changed if _is_launcher(ctx, p) and ctx.head.read(p) is not None]
    if not (ctx.audit or touched or ctx.judged_entries):
        return False, [], []
    launchers = [p for p in ctx.head_files if _is_launcher(ctx, p)]
    values = [v for v in spec_values() if v != NONE]
    everywhere = _uses(ctx, ctx.all_entries, values) if ctx.audit or touched else {}
    changed_uses = _uses(ctx, ctx.judged_entries, values) if not ctx.audit else {}
    out: list[dx.Diagnostic] = []
    judged: list[str] = []
    for path in launchers:
        full = ctx.audit or path in touched
        checked = values if full else list(changed_uses)
        if not checked:
            continue
        maps = launcher_maps(ctx, ctx.text(path) or "")
        if not maps:
            continue  # a launcher that maps no value routes no spec script at all
        judged.append(path)
        first = min(maps.values())
        for value in checked:
            if value in maps or ctx.allowed(rule, path=path, text=value):
                continue
            use = changed_uses.get(value) or everywhere.get(value)
            if use is not None:
                name, where, line = use
                out.append(
                    dx.error(
                        codes.SPEC_UNMAPPED_USED,
                        f"spec-decoding {value!r} maps to no script suffix here, so {name} "
                        f"({where}:{line}) runs the non-speculative script",
                        path,
                        first,
                        hint=f"map {value!r} to its script suffix next to "
                        f"{', '.join(sorted(maps))}, or stop using it",
                    )
                )
            else:
                out.append(
                    dx.warning(
                        codes.SPEC_UNMAPPED_LATENT,
                        f"spec-decoding {value!r} is accepted by the master-config schema but "
                        "maps to no script suffix here (no config uses it yet)",
                        path,
                        first,
                        hint=f"map {value!r} to its script suffix, or remove it from the "
                        "schema's spec-decoding values",
                    )
                )
    return bool(judged), out, judged


def _is_launcher(ctx: Context, path: str) -> bool:
    from changelog_tools.lint.paths import matches

    return matches(path, ctx.config.lint_launchers)


CHECKS = {"spec-launchers": check_spec_launchers, "config-script": check_config_script}
