"""`chat-template`: a speculative-decoding script passes the chat-template flag to every
benchmark call.

Without it the client sends raw prompts, the draft model's acceptance collapses, and the
numbers are silently wrong (InferenceX AGENTS.md: "Every `*_mtp.sh` passes
`--use-chat-template` to `run_benchmark_serving`").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from changelog_tools import diagnostics as dx
from changelog_tools.lint import codes
from changelog_tools.lint.context import Context, compile_option
from changelog_tools.lint.launchers import entry_scripts
from changelog_tools.lint.paths import matches
from changelog_tools.lint.shell import LogicalLine

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


@dataclass(frozen=True, slots=True)
class _Client:
    """The benchmark client the rule looks for, and the flags it reads (from the options)."""

    name: str
    calls: re.Pattern[str]
    flags: tuple[str, ...]  # the chat-template flag and the flags that imply it
    spec_flags: re.Pattern[str]

    def calls_in(self, ctx: Context, path: str) -> list[LogicalLine]:
        """The lines of ``path`` that call the client (its own definition is no call)."""
        return [
            ln
            for ln in ctx.lines(path)
            if self.calls.search(ln.text) and not _definition(ln.text, self.name)
        ]


def check(ctx: Context) -> tuple[bool, list[dx.Diagnostic], list[str]]:
    """Every client call of a speculative-decoding script passes the chat-template flag, and
    a script not named as speculative that uses speculative flags is asked to be."""
    cfg = ctx.config
    client = _Client(
        cfg.lint_benchmark_client,
        _call_regex(cfg.lint_benchmark_client),
        (cfg.lint_chat_template_flag, *cfg.lint_chat_template_implied_by),
        compile_option(cfg, "lint-spec-flags", cfg.lint_spec_flags),
    )
    spec_scripts = set(ctx.files(cfg.lint_spec_scripts))
    spec_scripts.update(p for p in entry_scripts(ctx) if matches(p, cfg.lint_spec_scripts))
    others = [p for p in ctx.files(cfg.lint_scripts) if p not in spec_scripts]
    out: list[dx.Diagnostic] = []
    judged: list[str] = []
    for path in sorted(spec_scripts):
        calls = [] if matches(path, cfg.lint_benchmark_library) else client.calls_in(ctx, path)
        if calls:  # none: no benchmark client call (agentic replay scripts), n/a
            judged.append(path)
            out.extend(_spec_script_calls(ctx, client, path, calls))
    for path in others:
        if matches(path, cfg.lint_benchmark_library):
            continue
        found = _spec_flags_elsewhere(ctx, client, path)
        if found is not None:
            judged.append(path)
            out.extend(found)
    return bool(judged), out, judged


def _spec_script_calls(
    ctx: Context, client: _Client, path: str, calls: list[LogicalLine]
) -> list[dx.Diagnostic]:
    """A speculative-decoding script's client calls: each passes the flag, unconditionally."""
    flag = ctx.config.lint_chat_template_flag
    out: list[dx.Diagnostic] = []
    for call in calls:
        positions = [p for p in (_flag_at(call.text, f) for f in client.flags) if p >= 0]
        if ctx.allowed(RULE, path=path, text=call.text):
            continue
        if not positions:
            out.append(
                dx.error(
                    codes.CHAT_TEMPLATE_MISSING,
                    f"{client.name} is called without {flag} in a "
                    "speculative-decoding script: the draft model sees raw prompts and the "
                    "numbers are wrong",
                    path,
                    call.line,
                    hint=f"add {flag} to this {client.name} call",
                )
            )
        elif all(_conditional(call.text, p) for p in positions):
            out.append(
                dx.warning(
                    codes.CHAT_TEMPLATE_CONDITIONAL,
                    f"{flag} is passed to {client.name} only under a condition",
                    path,
                    call.line_at(positions[0]),
                    hint=f"pass {flag} unconditionally: this script "
                    "always runs speculative decoding",
                )
            )
    return out


def _spec_flags_elsewhere(ctx: Context, client: _Client, path: str) -> list[dx.Diagnostic] | None:
    """A script not named as speculative that calls the client and uses speculative flags:
    a warning unless a call passes the flag. None: the rule does not judge the script."""
    calls = client.calls_in(ctx, path)
    lines = ctx.lines(path)
    spec_match = next((m for ln in lines if (m := client.spec_flags.search(ln.text))), None)
    spec = next((ln for ln in lines if client.spec_flags.search(ln.text)), None)
    if not calls or spec is None or spec_match is None:
        return None
    if any(_flag_at(c.text, f) >= 0 for c in calls for f in client.flags):
        return []
    if ctx.allowed(RULE, path=path, text=spec.text):
        return []
    flag = ctx.config.lint_chat_template_flag
    return [
        dx.warning(
            codes.SPEC_FLAGS_ELSEWHERE,
            f"speculative-decoding flags here ({spec_match.group(0)}), "
            f"but the script is not named as speculative and {client.name} gets no {flag}",
            path,
            spec.line,
            hint=f"name the script *_mtp.sh (what launchers route for spec-decoding) and pass {flag}",
        )
    ]


CHECKS = {RULE: check}
