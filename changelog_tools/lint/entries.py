"""`images` and `engine-first`: rules about the master-config entries a change adds or modifies.

* `images`: vLLM and SGLang entries on established SKUs run the upstream images, so results
  describe what users can pull (`#` in an image is read as `/`, as InferenceX's launchers do).
* `engine-first`: a model lands on vLLM or SGLang before other engines: an entry of another
  framework needs a vLLM- or SGLang-based entry for the same model prefix and SKU.
"""

from __future__ import annotations

from changelog_tools import diagnostics as dx
from changelog_tools.lint import codes
from changelog_tools.lint.context import Context, compile_option


def check_images(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    rule = "images"
    cfg = ctx.config
    patterns = {
        fw: compile_option(cfg, f"lint-upstream-images.{fw}", p)
        for fw, p in cfg.lint_upstream_images.items()
    }
    out: list[dx.Diagnostic] = []
    judged: list[str] = []
    for entry in ctx.judged_entries:
        framework = entry.field("framework")
        sku = ctx.sku(entry.field("runner"))
        if framework not in patterns or sku not in cfg.lint_established_skus:
            continue
        judged.append(entry.name)
        image = entry.field("image")
        if isinstance(image, str) and patterns[str(framework)].search(image.replace("#", "/")):
            continue
        if ctx.allowed(rule, path=entry.path, key=entry.name, text=str(image)):
            continue
        out.append(
            dx.error(
                codes.NON_UPSTREAM_IMAGE,
                f"{entry.name}: {framework} on {sku} must use the upstream image, not {image!r}",
                entry.path,
                entry.line_of("image"),
                hint=f"use an image matching {cfg.lint_upstream_images[str(framework)]}, or "
                "allow the exception with a reason in the `lint-allow` option (rule images)",
            )
        )
    return bool(judged), out, judged


def check_engine_first(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    rule = "engine-first"
    cfg = ctx.config
    first = set(cfg.lint_engine_first_frameworks)
    # An entry without a scalar framework or model prefix is master-schema's finding, not this one.
    candidates = [
        e
        for e in ctx.judged_entries
        if e.field("framework") not in first
        and e.field("framework") is not None
        and e.field("model-prefix") is not None
    ]
    if not candidates:
        return False, [], []
    have = {
        (e.field("model-prefix"), ctx.sku(e.field("runner")))
        for e in ctx.all_entries
        if e.field("framework") in first
    }
    out: list[dx.Diagnostic] = []
    for entry in candidates:
        key = (entry.field("model-prefix"), ctx.sku(entry.field("runner")))
        if key in have or ctx.allowed(rule, path=entry.path, key=entry.name):
            continue
        prefix, sku = key
        out.append(
            dx.error(
                codes.ENGINE_FIRST,
                f"{entry.name}: no vLLM or SGLang entry benchmarks {prefix} on {sku}, so "
                f"{entry.field('framework')} cannot land first",
                entry.path,
                entry.line_of("framework"),
                hint=f"add a {' or '.join(sorted(first))} entry for model-prefix {prefix} on "
                f"{sku} first, or allow it with a reason in `lint-allow` (rule engine-first; "
                "new hardware or a new architecture)",
            )
        )
    return True, out, [e.name for e in candidates]


CHECKS = {"images": check_images, "engine-first": check_engine_first}
