"""The options of one command each, named with its prefix: `lint-*` (changelog_tools/lint;
docs/lint.md), `signoff-*` (changelog_tools/signoff) and `recover-*` (changelog_tools/flows/recover;
docs/recover.md). The options without a prefix, shared by several commands, are in options_core."""

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


SIGNOFF_OPTIONS: tuple[Option, ...] = (
    Option(
        "signoff-bot-login",
        "github-actions[bot]",
        {"type": "string", "minLength": 1},
        "Login the sign-off verifier posts as; only its own comment with the verdict marker is "
        "the verdict comment (a marker in anyone else's comment is a spoof attempt).",
    ),
    Option(
        "signoff-status-context",
        "codeowner-signoff-verify",
        {"type": "string", "minLength": 1},
        "Commit status context `signoff verify` sets on the pull request's head.",
    ),
    Option(
        "signoff-checklist",
        "docs/PR_REVIEW_CHECKLIST.md",
        {"type": "string", "minLength": 1},
        "The sign-off checklist template on the default branch; its git history names the "
        "version a sign-off was copied from.",
    ),
    Option(
        "signoff-checklist-header",
        "As a PR reviewer and CODEOWNER, I have reviewed this and have:",
        {"type": "string", "minLength": 1},
        "The line that starts the checklist, in the template and in every sign-off that copies "
        "it (compared ignoring case, spacing and Markdown markers such as `#`, `>` or `**`).",
    ),
    Option(
        "signoff-allow-author",
        False,
        {"type": "boolean"},
        "Whether the pull request's author may sign it off.",
    ),
    Option(
        "signoff-bench-jobs",
        ["single-node *", "multi-node *", "agentic /*", "canary /*"],
        STR_LIST,
        "Job-name patterns (`*` wildcards) of the sweep's benchmark jobs; one must succeed.",
    ),
    Option(
        "signoff-eval-jobs",
        ["*eval /*"],
        STR_LIST,
        "Job-name patterns of the sweep's eval jobs; one must succeed.",
    ),
    Option(
        "signoff-ignored-jobs",
        ["collect-evals*", "collect-results*"],
        STR_LIST,
        "Aggregator job-name patterns that count neither for nor against the sweep.",
    ),
    Option(
        "signoff-eval-artifact",
        "eval_results_all",
        {"type": "string", "minLength": 1},
        "Artifact of the sweep run that holds the eval results.",
    ),
    Option(
        "signoff-eval-file",
        "agg_eval_all.json",
        {"type": "string", "minLength": 1},
        "File inside the eval artifact: a JSON list of rows (`config_key` or `model_prefix`, "
        "`hw`, `framework`, `precision`; `task`, `score`).",
    ),
    Option(
        "signoff-thresholds",
        "utils/evals/thresholds.yaml",
        {"type": "string", "minLength": 1},
        "Eval thresholds on the default branch (`default.<task>`, `models.<prefix>.<task>`).",
    ),
    Option(
        "signoff-recipe-links",
        [
            r"https://github\.com/(vllm-project/recipes)/pull/([0-9]+)",
            r"https://github\.com/(sgl-project/sglang)/pull/([0-9]+)",
            r"https://recipes\.vllm\.ai/\S+",
            r"https://docs\.sglang\.io/cookbook/\S+",
        ],
        STR_LIST,
        "Regular expressions of upstream recipe links a single-node vLLM/SGLang sign-off must "
        "name; two groups (repository, number) make it a pull request that must be merged.",
    ),
)

RECOVER_OPTIONS: tuple[Option, ...] = (
    Option(
        "recover-branch-prefix",
        "recovery/reuse-pr-",
        {"type": "string", "minLength": 1, "pattern": r"^[A-Za-z0-9._/-]+$"},
        "`recover`: the recovery branch is this prefix followed by the original PR's number.",
    ),
    Option(
        "recover-label",
        "full-sweep-enabled",
        {"type": "string", "minLength": 1},
        "`recover`: the one sweep label the recovery PR gets (one of `full-sweep-labels`).",
    ),
    Option(
        "recover-ingest-jobs",
        ["trigger-ingest", "trigger-agentic-ingest"],
        {**STR_LIST, "minItems": 1},
        "`recover`: job-name patterns of the push run's ingest jobs; a run none of whose "
        "ingest jobs succeeded lost its ingest.",
    ),
    Option(
        "recover-sweep-jobs",
        ["canary *", "single-node *", "multi-node *", "agentic *", "eval *"],
        STR_LIST,
        "`recover`: job-name patterns of the sweep's benchmark jobs. They are skipped when the "
        "push run reuses a sweep; one that ran and did not succeed means the ingest (if any) "
        "took an incomplete sweep.",
    ),
    Option(
        "recover-required-checks",
        ["reuse-sweep-gate"],
        STR_LIST,
        "`recover`: checks the recovery PR needs besides `changelog-check-name` before it is "
        "merged (every other reported check must pass too).",
    ),
    Option(
        "recover-title",
        "Recover the ingest of #{pr}",
        {"type": "string", "minLength": 1},
        "`recover`: title of the recovery PR (`{pr}`: the original PR's number; `{run}`: the "
        "source run).",
    ),
    Option(
        "recover-bootstrap-message",
        "Open the recovery of #{pr}",
        {"type": "string", "minLength": 1},
        "`recover`: message of the empty commit the recovery branch starts with (`{pr}` only).",
    ),
    Option(
        "recover-commit-message",
        "Re-append the changelog entries of #{pr}",
        {"type": "string", "minLength": 1},
        "`recover`: message of the commit that appends the recovery entries.",
    ),
    Option(
        "recover-carrier-message",
        "Carry source run {run} ({sha}) into the recovery of #{pr}",
        {"type": "string", "minLength": 1},
        "`recover`: message of the tree-preserving commit whose second parent is the source "
        "run's commit (`{sha}`), so that commit is among the recovery PR's commits.",
    ),
)
