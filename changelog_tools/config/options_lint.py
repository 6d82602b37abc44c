"""The options of `lint` (changelog_tools/lint; docs/lint.md), and its rule ids."""

from __future__ import annotations

from changelog_tools.config.option import STR_LIST, Option

# The rule ids of `lint` (changelog_tools/lint), in the order the docs list them.
LINT_RULE_IDS = (
    "master-schema",
    "chat-template",
    "spec-launchers",
    "config-script",
    "engine-patches",
    "arch-overrides",
    "images",
    "engine-first",
    "models",
    "golden-al",
)


LINT_OPTIONS: tuple[Option, ...] = (
    Option(
        "lint-rules",
        {},
        {
            "type": "object",
            "propertyNames": {"enum": list(LINT_RULE_IDS)},
            "additionalProperties": {"enum": ["on", "warning", "error", "off"]},
        },
        "`lint`: per rule id, `on` (its own severities), `warning` (every finding a warning), "
        "`error` (every finding an error) or `off`. Rules not named are `on`.",
    ),
    Option(
        "lint-allow",
        [],
        {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["rule", "reason"],
                "properties": {
                    "rule": {"enum": list(LINT_RULE_IDS)},
                    "path": {"type": "string", "minLength": 1},
                    "config-key": {"type": "string", "minLength": 1},
                    "match": {"type": "string", "minLength": 1},
                    "reason": {"type": "string", "minLength": 10},
                },
            },
        },
        "`lint`: findings to accept, each with a written `reason`: `rule` plus any of `path` "
        "(glob), `config-key` (glob) and `match` (text the finding quotes). Read from the base "
        "revision's configuration when the command reads one.",
    ),
    Option(
        "lint-code-paths",
        ["benchmarks/**", "runners/**", "configs/**"],
        STR_LIST,
        "`lint`: gitignore-style patterns of the files whose added code `engine-patches` and "
        "`arch-overrides` judge (comments dropped; the changelog is never judged).",
    ),
    Option(
        "lint-harness-paths",
        ["utils/evals/patches/**", "benchmarks/single_node/speedbench/**"],
        STR_LIST,
        "`engine-patches`: harness paths whose patching is not an engine patch.",
    ),
    Option(
        "lint-scripts",
        ["benchmarks/**/*.sh"],
        STR_LIST,
        "`lint`: patterns of benchmark scripts.",
    ),
    Option(
        "lint-spec-scripts",
        ["benchmarks/**/*_mtp.sh"],
        STR_LIST,
        "`chat-template`: patterns of speculative-decoding benchmark scripts.",
    ),
    Option(
        "lint-launchers",
        ["runners/launch_*.sh"],
        STR_LIST,
        "`spec-launchers`: patterns of the launchers that route a config to its script.",
    ),
    Option(
        "lint-benchmark-client",
        "run_benchmark_serving",
        {"type": "string", "minLength": 1},
        "`chat-template`: the shell function that runs the benchmark client.",
    ),
    Option(
        "lint-benchmark-library",
        ["benchmarks/benchmark_lib.sh"],
        STR_LIST,
        "`chat-template`: files that define the benchmark client (their calls are not judged).",
    ),
    Option(
        "lint-chat-template-flag",
        "--use-chat-template",
        {"type": "string", "minLength": 1},
        "`chat-template`: the flag every benchmark call of a spec-decoding script passes.",
    ),
    Option(
        "lint-chat-template-implied-by",
        ["--dsv4"],
        STR_LIST,
        "`chat-template`: flags known to imply the chat-template flag.",
    ),
    Option(
        "lint-spec-flags",
        r"--speculative-config|--speculative-algorithm|num_speculative_tokens",
        {"type": "string", "minLength": 1, "format": "regex"},
        "`chat-template`: regex of speculative-decoding flags; a script outside "
        "`lint-spec-scripts` that uses them and calls the client gets a warning.",
    ),
    Option(
        "lint-spec-suffixes",
        {"mtp": "_mtp"},
        {"type": "object", "additionalProperties": {"type": "string"}},
        "`config-script`: the script-name suffix of each `spec-decoding` value (others: none).",
    ),
    Option(
        "lint-spec-launcher-pattern",
        r"""SPEC_DECODING[^=!\n]*==\s*["']?(?P<value>[A-Za-z0-9_-]+)""",
        {"type": "string", "minLength": 1, "format": "regex"},
        "`spec-launchers`: regex (group `value`) of a launcher line that maps a "
        "`spec-decoding` value to a script suffix.",
    ),
    Option(
        "lint-script-templates",
        [
            "benchmarks/single_node/{scenario}/{model-prefix}_{precision}_{sku}_{framework}"
            "{spec-suffix}.sh",
            "benchmarks/single_node/{scenario}/{model-prefix}_{precision}_{sku}{spec-suffix}.sh",
        ],
        {**STR_LIST, "minItems": 1},
        "`config-script`: the script names a launcher tries for a single-node entry, in order.",
    ),
    Option(
        "lint-scenario-dirs",
        {"fixed-seq-len": "fixed_seq_len", "agentic-coding": "agentic"},
        {"type": "object", "additionalProperties": {"type": "string"}},
        "`config-script`: the `{scenario}` directory of each scenario type.",
    ),
    Option(
        "lint-sku-pattern",
        r"(gb200|gb300|b200|b300|h100|h200|mi300x|mi325x|mi355x|rtx6000pro)",
        {"type": "string", "minLength": 1, "format": "regex"},
        "`lint`: regex whose first match in a config's `runner` is its SKU.",
    ),
    Option(
        "lint-established-skus",
        ["h100", "h200", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x"],
        STR_LIST,
        "`images`: SKUs whose vLLM and SGLang entries must use the upstream images.",
    ),
    Option(
        "lint-upstream-images",
        {
            "vllm": r"^(docker\.io/)?vllm/vllm-openai(-rocm)?[:@]",
            "sglang": r"^(docker\.io/)?lmsysorg/sglang(-rocm)?[:@]",
        },
        {"type": "object", "additionalProperties": {"type": "string", "format": "regex"}},
        "`images`: per framework, the regex its image must match (`#` in an image is read as `/`).",
    ),
    Option(
        "lint-engine-first-frameworks",
        ["vllm", "sglang", "dynamo-vllm", "dynamo-sglang", "sglang-disagg"],
        STR_LIST,
        "`engine-first`: frameworks that count as vLLM or SGLang; an entry of any other "
        "framework needs one of these for the same model prefix and SKU.",
    ),
    Option(
        "lint-waiver-dir",
        "docs/waiver",
        {"type": "string", "minLength": 1},
        "`engine-patches`: directory of waivers, `<PR>.md`.",
    ),
    Option(
        "lint-waiver-headings",
        [
            "What is patched",
            "Why the unmodified upstream image cannot run",
            "Upstream PR/issue",
            "Removal plan",
        ],
        STR_LIST,
        "`engine-patches`: headings a new waiver must have.",
    ),
    Option(
        "lint-arch-override-pattern",
        r"--hf[-_]overrides|\bhf_overrides\b|--json-model-override-args|"
        r"\bjson_model_override_args\b",
        {"type": "string", "minLength": 1, "format": "regex"},
        "`arch-overrides`: regex of flags that change a model's architecture or FLOPs.",
    ),
    Option(
        "lint-models-file",
        "MODELS.md",
        {"type": "string", "minLength": 1},
        "`models`: the file whose tables retire models and deprecate scenarios (read at the base).",
    ),
    Option(
        "lint-golden-al-dir",
        "golden_al_distribution",
        {"type": "string", "minLength": 1},
        "`golden-al`: directory of golden acceptance-length files, `<model-prefix>_*.yaml` or "
        "`<model-prefix>-*.yaml` (read at the base).",
    ),
    Option(
        "lint-golden-al-scripts",
        ["benchmarks/single_node/agentic/*_mtp.sh"],
        STR_LIST,
        "`golden-al`: agentic speculative-decoding scripts, which must pin the golden "
        "acceptance length.",
    ),
    Option(
        "lint-agentic-scripts",
        ["benchmarks/single_node/agentic/**", "benchmarks/multi_node/**"],
        STR_LIST,
        "`golden-al`: where synthetic acceptance may be set (agentic scripts, and multi-node "
        "servers whose recipes pin it); a benchmark script elsewhere that sets it is an error.",
    ),
)
