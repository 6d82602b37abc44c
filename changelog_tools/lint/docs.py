"""The generated reference of `lint` (docs/lint.md): every rule, its codes and options, and the
master-config fields and allowed values, all read from the code and the schema."""

from __future__ import annotations

import json
from typing import Any

from changelog_tools.config import LINT_RULE_IDS, OPTIONS
from changelog_tools.diagnostics import CODES

# rule id -> (what it checks, the codes it reports). The prose is the rule's contract.
RULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "master-schema": (
        "Every master-config entry the change adds or modifies matches "
        "`changelog_tools/schemas/master-config.schema.json` (InferenceX's "
        "`utils/matrix_logic/validation.py` as JSON Schema): fields, types, enums, required "
        "fields and the cross-field rules, with did-you-mean for typos. The fields and allowed "
        "values are listed below.",
        ("CL700", "CL701", "CL702", "CL703", "CL704", "CL705"),
    ),
    "chat-template": (
        "A speculative-decoding script (`lint-spec-scripts`) passes `--use-chat-template` to "
        "every call of the benchmark client (continuation lines joined, comments dropped); a "
        "flag known to imply it (`--dsv4`) counts, a flag passed only inside `$( ... )` or "
        "`${VAR:+...}` is a warning. Other scripts that use speculative flags and call the "
        "client get a warning. Scripts without a client call (agentic replay) are n/a.",
        ("CL710", "CL711", "CL712"),
    ),
    "spec-launchers": (
        "Every `spec-decoding` value the schema accepts, other than `none`, maps to a script "
        "suffix in every launcher that maps any. A value a config uses is an error; a value "
        "nobody uses a warning (`draft_model`). A change is judged for the launchers it touches "
        "and for the values its changed entries use.",
        ("CL720", "CL721"),
    ),
    "config-script": (
        "Every single-node master-config entry, per scenario and spec value, resolves to a "
        "benchmark script that exists, by the names the launchers try (`lint-script-templates`).",
        ("CL730",),
    ),
    "engine-patches": (
        "Added lines (and added `.patch`/`.diff` files) that patch the serving stack: `git "
        "apply`, `patch -p`, `sed -i` on installed engine sources, heredocs that rewrite engine "
        "modules, `pip install` of engine forks, wheels or pinned engine packages, "
        "`sitecustomize`, `apply_*patch*.sh`, outside `lint-harness-paths`. They need "
        "`docs/waiver/<PR>.md` added in the same pull request with the required headings, or a "
        "waiver that already exists at the base and names the file.",
        ("CL740", "CL741"),
    ),
    "arch-overrides": (
        "Added `--hf-overrides`, `hf_overrides`, `--json-model-override-args` (they change the "
        "model's architecture or FLOPs) are errors, unless allowed with a reason.",
        ("CL750",),
    ),
    "images": (
        "vLLM and SGLang entries on established SKUs use the upstream images "
        "(`lint-upstream-images`; `#` in an image is read as `/`).",
        ("CL760",),
    ),
    "engine-first": (
        "An entry of another framework needs a vLLM- or SGLang-based entry for the same model "
        "prefix and SKU, unless allowed with a reason.",
        ("CL770",),
    ),
    "models": (
        "No entry for a model MODELS.md retired, or a scenario, precision or arm it deprecated "
        "(its support matrix, scenario table and dated notices, effective dates honoured, "
        "`--now` for another date). Tables marked not yet enacted and prose are skipped. Read "
        "at the base.",
        ("CL780", "CL781"),
    ),
    "golden-al": (
        "An agentic speculative-decoding script pins the simulated acceptance length (SGLang "
        "`SGLANG_SIMULATE_ACC_LEN`, vLLM `synthetic_acceptance_length`, TensorRT-LLM "
        "`TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS` = AL - 1, ATOM "
        "`--spec-decode-acceptance-length`/`-rate`) to a value of the golden file for its model "
        "and draft length (read at the base). Multi-node entries that pin through their workers' "
        "`additional-settings` (`SYNTHETIC_ACCEPTANCE_LENGTH=<AL>`) must use a value of the "
        "model's curve; recipes that pin inline are not read. A synthetic-acceptance knob in a "
        "benchmark script outside `lint-agentic-scripts` is an error.",
        ("CL790", "CL791", "CL792", "CL793"),
    ),
}
assert tuple(RULES) == LINT_RULE_IDS


def _options_of(rule: str) -> list[str]:
    return [o.name for o in OPTIONS if o.doc.startswith(f"`{rule}`")]


def _type(schema: Any, defs: dict[str, Any]) -> str:
    if "$ref" in schema:
        return (
            f"[{schema['$ref'].rsplit('/', 1)[-1]}](#{schema['$ref'].rsplit('/', 1)[-1].lower()})"
        )
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    kind = schema.get("type", "any")
    kinds = [kind] if isinstance(kind, str) else list(kind)
    text = " or ".join(kinds)
    if "array" in kinds and "items" in schema:
        inner = _type(schema["items"], defs)
        text += f" of ({inner})" if "," in inner else f" of {inner}"
    for word, key in (("min", "minimum"), ("min length", "minLength"), ("> ", "exclusiveMinimum"),
                      ("max", "maximum"), ("min items", "minItems")):  # fmt: skip
        if key in schema:
            text += f", {word}{'' if word.endswith(' ') else ' '}{schema[key]}"
    return text


def _schema_tables() -> list[str]:
    from changelog_tools.lint.masterschema import master_schema

    schema = master_schema()
    defs: dict[str, Any] = schema["$defs"]
    out: list[str] = []
    for name, node in defs.items():
        props = node.get("properties")
        if not props:
            items = [s for s in node.get("allOf", []) if "$ref" in s]
            if not items:
                continue
        out += [
            f"### {name}",
            "",
            "| field | required | type or allowed values |",
            "| --- | --- | --- |",
        ]
        required = set(node.get("required", ()))
        for field, sub in (props or {}).items():
            out.append(f"| `{field}` | {'yes' if field in required else ''} | {_type(sub, defs)} |")
        rules: list[str] = []
        for sub in [*node.get("allOf", []), node]:
            for branch in (sub.get("then", {}), sub.get("else", {})):
                message = branch.get("x-message")
                if message and message not in rules:
                    rules.append(message)
        if rules:
            out += ["", "Rules across fields: " + "; ".join(rules) + "."]
        out.append("")
    return out


def render_lint_docs() -> str:
    out = [
        "# `changelog-tools lint`",
        "",
        "<!-- generated by `python scripts/gendocs.py` from changelog_tools/lint and "
        "schemas/master-config.schema.json; do not edit -->",
        "",
        "`lint` runs the benchmark-recipe and master-config rules InferenceX reviewers check by "
        "hand. `changelog-tools lint` judges what a change adds or modifies (refs read through "
        "git, never the working tree; the base defaults to the merge-base with main); "
        "`changelog-tools lint --all` audits the whole tree at the head ref. Trusted inputs "
        "(MODELS.md, golden AL files, existing waivers, every `lint-*` option, `master-configs` and `changelog`) "
        "come from the base. A file is judged under the name the configuration and the rules "
        "give it even when the change edits it through a symlink (a linked master config or "
        "script, or a file in a linked directory: git lists only the target's name). Links "
        "are followed as a checkout follows them, except that a link found inside a linked "
        "directory is not followed again (two directories linking to each other would name "
        "their files endlessly). "
        "Exit 0 without error findings, 1 with any, 2 usage, 3 git.",
        "",
        "Every rule can be turned off or have its severities changed (`lint-rules`: `on`, "
        "`warning`, `error`, `off`), and findings can be accepted with a written reason "
        "(`lint-allow`: `rule`, optional `path`/`config-key` globs and `match` text, `reason`). "
        "In JSON output each diagnostic carries its `rule` id, and `rules` lists each rule's "
        "status (pass, fail, n/a, off).",
        "",
        "| rule | codes | options |",
        "| --- | --- | --- |",
    ]
    for rule, (_text, codes) in RULES.items():
        opts = ", ".join(f"`{o}`" for o in _options_of(rule)) or "-"
        out.append(f"| [`{rule}`](#{rule}) | {', '.join(codes)} | {opts} |")
    out.append("")
    for rule, (text, codes) in RULES.items():
        out += [f"## {rule}", "", text, ""]
        for code in codes:
            entry = CODES[code]
            out.append(f"- {code} `{entry.name}`: {entry.summary}")
        for name in _options_of(rule):
            option = next(o for o in OPTIONS if o.name == name)
            out.append(f"- option `{name}` (default `{json.dumps(option.default)}`): "
                       f"{option.doc.split(': ', 1)[-1]}")  # fmt: skip
        out.append("")
    general = [o for o in OPTIONS if o.doc.startswith("`lint`")]
    out += ["## Options every rule uses", ""]
    for option in general:
        out.append(f"- `{option.name}` (default `{json.dumps(option.default)}`): "
                   f"{option.doc.split(': ', 1)[-1]}")  # fmt: skip
    out += ["", "## Master-config fields and allowed values", "",
            "Generated from `changelog_tools/schemas/master-config.schema.json`; an entry with "
            "`multinode: true` is a multiNodeEntry, any other a singleNodeEntry.", ""]  # fmt: skip
    out += _schema_tables()
    return "\n".join(out).rstrip("\n") + "\n"
