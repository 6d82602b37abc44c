"""`chat-template`: a speculative-decoding script passes the chat-template flag to every
benchmark call.

Without it the client sends raw prompts, the draft model's acceptance collapses, and the
numbers are silently wrong (InferenceX AGENTS.md: "Every `*_mtp.sh` passes
`--use-chat-template` to `run_benchmark_serving`").
"""

from __future__ import annotations

import re

from changelog_tools import diagnostics as dx
from changelog_tools.lint import codes
from changelog_tools.lint.context import Context, compile_option
from changelog_tools.lint.launchers import entry_scripts
from changelog_tools.lint.paths import matches

RULE = "chat-template"


def _call_regex(client: str) -> re.Pattern[str]:
    return re.compile(rf"(?:^|[\s;&|(]){re.escape(client)}(?=\s|$|;)")


def _definition(text: str, client: str) -> bool:
    return bool(re.match(rf"(?:function\s+)?{re.escape(client)}\s*\(\s*\)", text))


def _flag_at(text: str, flag: str) -> int:
    found = re.search(rf"(?:^|[\s\"'(=]){re.escape(flag)}(?=[\s\"')=]|$)", text)
    return -1 if found is None else found.start()


def _conditional(text: str, at: int) -> bool:
    """Whether position ``at`` sits inside ``$( ... )`` or ``${VAR:+...}`` (passed only when a
    condition holds)."""
    stack: list[str] = []
    for match in re.finditer(r"\$\(|\$\{[^}$]*:\+|\$\{|\)|\}", text[:at]):
        token = match.group(0)
        if token == "$(":
            stack.append("(")
        elif token.endswith(":+"):
            stack.append("+")
        elif token == "${":
            stack.append("{")
        elif stack and (token == ")") == (stack[-1] == "("):
            stack.pop()
    return "(" in stack or "+" in stack


def check(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    cfg = ctx.config
    client = cfg.lint_benchmark_client
    calls_re = _call_regex(client)
    flags = (cfg.lint_chat_template_flag, *cfg.lint_chat_template_implied_by)
    spec_flags = compile_option(cfg, "lint-spec-flags", cfg.lint_spec_flags)
    spec_scripts = set(ctx.files(cfg.lint_spec_scripts))
    spec_scripts.update(p for p in entry_scripts(ctx) if matches(p, cfg.lint_spec_scripts))
    others = [p for p in ctx.files(cfg.lint_scripts) if p not in spec_scripts]
    out: list[dx.Diagnostic] = []
    judged: list[str] = []
    for path in sorted(spec_scripts):
        if matches(path, cfg.lint_benchmark_library):
            continue
        lines = ctx.lines(path)
        calls = [
            ln for ln in lines if calls_re.search(ln.text) and not _definition(ln.text, client)
        ]
        if not calls:
            continue  # no benchmark client call (agentic replay scripts): n/a
        judged.append(path)
        for call in calls:
            positions = [p for p in (_flag_at(call.text, f) for f in flags) if p >= 0]
            if ctx.allowed(RULE, path=path, text=call.text):
                continue
            if not positions:
                out.append(
                    dx.error(
                        codes.CHAT_TEMPLATE_MISSING,
                        f"{client} is called without {cfg.lint_chat_template_flag} in a "
                        "speculative-decoding script: the draft model sees raw prompts and the "
                        "numbers are wrong",
                        path,
                        call.line,
                        hint=f"add {cfg.lint_chat_template_flag} to this {client} call",
                    )
                )
            elif all(_conditional(call.text, p) for p in positions):
                out.append(
                    dx.warning(
                        codes.CHAT_TEMPLATE_CONDITIONAL,
                        f"{cfg.lint_chat_template_flag} is passed to {client} only under a "
                        "condition",
                        path,
                        call.line_at(positions[0]),
                        hint=f"pass {cfg.lint_chat_template_flag} unconditionally: this script "
                        "always runs speculative decoding",
                    )
                )
    for path in others:
        if matches(path, cfg.lint_benchmark_library):
            continue
        lines = ctx.lines(path)
        calls = [
            ln for ln in lines if calls_re.search(ln.text) and not _definition(ln.text, client)
        ]
        spec_match = next((m for ln in lines if (m := spec_flags.search(ln.text))), None)
        spec = next((ln for ln in lines if spec_flags.search(ln.text)), None)
        if not calls or spec is None or spec_match is None:
            continue
        judged.append(path)
        if any(_flag_at(c.text, f) >= 0 for c in calls for f in flags):
            continue
        if ctx.allowed(RULE, path=path, text=spec.text):
            continue
        out.append(
            dx.warning(
                codes.SPEC_FLAGS_ELSEWHERE,
                f"speculative-decoding flags here ({spec_match.group(0)}), "
                f"but the script is not named as speculative and {client} gets no "
                f"{cfg.lint_chat_template_flag}",
                path,
                spec.line,
                hint="name the script *_mtp.sh (what launchers route for spec-decoding) and pass "
                f"{cfg.lint_chat_template_flag}",
            )
        )
    return bool(judged), out, judged


CHECKS = {RULE: check}
