"""`engine-patches` and `arch-overrides`: rules about code the change adds.

Both read the added lines of the files under `lint-code-paths` (comments dropped; a line counts
when any physical line of it was added), never removed lines: a pull request that deletes a
patch is not flagged.

* `engine-patches`: the pinned image must run as shipped. Patching the engine (patch files,
  `git apply`, in-place edits of installed sources, heredocs that rewrite engine modules, forked
  wheels, `sitecustomize`) needs `docs/waiver/<PR>.md` added in the same pull request, with its
  required headings, or a waiver that already exists at the base and names the file.
* `arch-overrides`: `--hf-overrides` and its relatives change the model's architecture or FLOPs
  (InferenceX removed the DSV4 indexer skip for exactly that); allowed only by `lint-allow`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from changelog_tools import diagnostics as dx
from changelog_tools.lint import codes, shell
from changelog_tools.lint.context import Context, compile_option
from changelog_tools.lint.paths import matches

PATCH_SUFFIXES = (".patch", ".diff")
_ENGINES = r"vllm|sglang|tensorrt_llm|aiter|atom"
_SED_ENGINE = re.compile(
    r"\bsed\s+(?:-[a-zA-Z]*\s+)*-i\b.*(?:site-packages|dist-packages|/sgl-workspace|"
    r"/vllm-workspace|find_spec|__file__)"
)
# Options may come before the verb (`git -C DIR apply`, `patch -d DIR -p1`): the usual way to
# patch an installed engine from outside its directory.
_GIT_APPLY = re.compile(
    r"\bgit\s+(?:(?:-[Cc]|--git-dir|--work-tree)(?:=|\s+)(?!-)\S+\s+|--?[\w-]+\s+)*apply\b"
)
_PATCH_CMD = re.compile(
    r"(?:^|[\s;&|(])patch\s+(?:(?:-d|--directory)\s+(?!-)\S+\s+|-[A-Za-z]+\s+|--[\w-]+(?:=\S+)?\s+)*"
    r"(?:-p\s*\d|-N\b|-i\b|<|--strip|--forward)"
)
_PIP = re.compile(r"\bpip3?\s+install\b|\buv\s+pip\s+install\b")
_PIP_ENGINE = re.compile(
    r"git\+|\.whl\b|(?:^|[\s\"'])(?:vllm|sglang|flashinfer(?:-python)?|aiter|amd-aiter|"
    r"tensorrt[-_]llm|sgl[-_]kernel|deep[-_]gemm|triton|transformers)\s*(?:==|@|>=)"
)
_HARNESS_PACKAGES = re.compile(r"lm[-_]eval|lm-evaluation-harness|aiperf")
_SITECUSTOMIZE = re.compile(r"\bsitecustomize\b")
_SITECUSTOMIZE_HARNESS = re.compile(r"lm_eval|_eval_patches_dir|utils/evals/patches")
_APPLY_PATCH_SCRIPT = re.compile(r"\bapply_\w*patch\w*\.sh\b")
_HEREDOC_TARGET = re.compile(rf"find_spec|site-packages|dist-packages|\bimport\s+(?:{_ENGINES})\b|"
                             rf"\bfrom\s+(?:{_ENGINES})\b")  # fmt: skip
_HEREDOC_WRITE = re.compile(r"write_text|\.write\(|open\([^)]*['\"][wa]\+?['\"]|\.replace\(")
_HEREDOC_HARNESS = re.compile(r"vllm\.benchmarks")
# Keys InferenceX named when it removed architecture overrides (their FAIL message names them).
ARCH_KEYS = ("use_index_cache", "index_topk_freq", "num_hidden_layers", "num_experts_per_tok",
             "n_routed_experts", "first_k_dense_replace")  # fmt: skip


@dataclass(frozen=True)
class Patch:
    path: str
    line: int
    what: str  # short description, quoted in the finding


def _code_files(ctx: Context) -> list[str]:
    cfg = ctx.config
    return [
        p
        for p in ctx.files(cfg.lint_code_paths)
        if not matches(p, (cfg.changelog,)) and not p.endswith(PATCH_SUFFIXES)
    ]


def find_patches(ctx: Context, path: str) -> list[Patch]:
    """Engine patching in the added lines of ``path``."""
    text = ctx.text(path) or ""
    added = ctx.added(path)
    out: list[Patch] = []
    for line in ctx.touched(path):
        t = line.text
        what = None
        if _GIT_APPLY.search(t):
            what = "git apply"
        elif _PATCH_CMD.search(t):
            what = "patch"
        elif _SED_ENGINE.search(t):
            what = "sed -i on installed engine sources"
        elif _PIP.search(t) and _PIP_ENGINE.search(t) and not _HARNESS_PACKAGES.search(t):
            what = "pip install of an engine fork, wheel or pinned engine package"
        elif _SITECUSTOMIZE.search(t) and not _SITECUSTOMIZE_HARNESS.search(t):
            what = "sitecustomize"
        elif script := _APPLY_PATCH_SCRIPT.search(t):
            what = f"a patch script ({script.group(0)})"
        if what:
            out.append(Patch(path, line.line, what))
    for first, last, body in shell.heredocs(text, ctx.stripped(path)):
        if not any(n in added for n in range(first, last + 1)):
            continue
        if (
            _HEREDOC_TARGET.search(body)
            and _HEREDOC_WRITE.search(body)
            and not _HEREDOC_HARNESS.search(body)
        ):
            out.append(Patch(path, first, "a heredoc that rewrites installed engine modules"))
    return out


def _headings(text: str) -> list[str]:
    return [_norm(m.group(1)) for m in re.finditer(r"(?m)^#{1,6}\s+(.+?)\s*$", text)]


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def check_engine_patches(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    rule = "engine-patches"
    cfg = ctx.config
    files = _code_files(ctx)
    patches: list[Patch] = []
    harness = cfg.lint_harness_paths
    for path in ctx.files(["**/*" + s for s in PATCH_SUFFIXES]):
        if not matches(path, harness):
            patches.append(Patch(path, 1, f"a {path.rsplit('.', 1)[-1]} file"))
    for path in files:
        if not matches(path, harness):
            patches.extend(find_patches(ctx, path))
    out: list[dx.Diagnostic] = []
    waiver_dir = cfg.lint_waiver_dir.rstrip("/")
    own = _own_waiver(ctx, waiver_dir)
    if own is not None and not patches and not ctx.audit and own not in ctx.changed:
        own = None  # nothing to cover and no new waiver to judge: do not read it
    own_text = ctx.text(own) if own is not None else None
    own_is_new = (
        own is not None
        and own_text is not None
        and (ctx.audit or ctx.base is None or ctx.text(own, base=True) is None)
    )
    if own is not None and own_text is not None and own_is_new:
        have = _headings(own_text)
        for heading in cfg.lint_waiver_headings:
            if not any(h.startswith(_norm(heading)) for h in have):
                out.append(
                    dx.error(
                        codes.WAIVER_INCOMPLETE,
                        f"the waiver has no {heading!r} section",
                        own,
                        1,
                        hint=f"add a heading `## {heading}`; a waiver states: "
                        + "; ".join(cfg.lint_waiver_headings),
                    )
                )
    trusted = _existing_waivers(ctx, waiver_dir) if patches and not own_is_new else {}
    for patch in patches:
        if own_is_new:
            continue  # this pull request files its waiver (its headings are checked above)
        name = patch.path.rsplit("/", 1)[-1]
        covering = [w for w, text in trusted.items() if patch.path in text or name in text]
        if covering or ctx.allowed(rule, path=patch.path, text=patch.what):
            continue
        waiver = own or f"{waiver_dir}/<PR>.md"
        out.append(
            dx.error(
                codes.ENGINE_PATCH,
                f"{patch.what} patches the serving stack, and no waiver covers it",
                patch.path,
                patch.line,
                hint=f"run the pinned image as shipped, or add {waiver} in this pull request "
                f"({'; '.join(cfg.lint_waiver_headings)})",
            )
        )
    judged = sorted({p.path for p in patches} | set(files))
    return bool(judged), out, judged


def _own_waiver(ctx: Context, waiver_dir: str) -> str | None:
    """This pull request's waiver: `<dir>/<PR>.md`; without a PR number, a waiver the change
    adds (a local run before the pull request exists)."""
    if ctx.request.pr is not None:
        return f"{waiver_dir}/{ctx.request.pr}.md"
    if ctx.audit:
        return None
    added = [p for p in ctx.files([f"{waiver_dir}/*.md"]) if ctx.text(p, base=True) is None]
    return added[0] if len(added) == 1 else None


def _existing_waivers(ctx: Context, waiver_dir: str) -> dict[str, str]:
    """Waivers that already exist: at the base (at the head in an audit without one)."""
    tree = ctx.base if ctx.base is not None else ctx.head
    out: dict[str, str] = {}
    for path in tree.paths(waiver_dir):
        if path.endswith(".md"):
            raw = tree.read(path)
            out[path] = raw.decode("utf-8", errors="replace") if raw else ""
    return out


def check_arch_overrides(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    rule = "arch-overrides"
    cfg = ctx.config
    pattern = compile_option(cfg, "lint-arch-override-pattern", cfg.lint_arch_override_pattern)
    files = _code_files(ctx)
    out: list[dx.Diagnostic] = []
    for path in files:
        for line in ctx.touched(path):
            found = pattern.search(line.text)
            if found is None:
                continue
            at = line.line_at(found.start())
            if ctx.allowed(rule, path=path, text=line.text):
                continue
            keys = [k for k in ARCH_KEYS if k in line.text]
            named = f" (it sets {', '.join(keys)})" if keys else ""
            out.append(
                dx.error(
                    codes.ARCH_OVERRIDE,
                    f"{found.group(0)} changes the model's architecture or FLOPs{named}; "
                    "benchmarks run the model as published",
                    path,
                    at,
                    hint="remove the override; if it does not change architecture or FLOPs, "
                    "allow it with a reason in the `lint-allow` option (rule arch-overrides)",
                )
            )
    return bool(files), out, files


CHECKS = {"engine-patches": check_engine_patches, "arch-overrides": check_arch_overrides}
