"""The tool's configuration: every option defined once (default, validation, documentation).

Configuration lives in ``.changelog-tools.yaml`` at the repository root, or in
``[tool.changelog-tools]`` of ``pyproject.toml``; the nearest one found searching upward from the
working directory wins, and ``--config PATH`` overrides the search. With no file at all the
defaults describe InferenceX, so the tool works there unconfigured. A file is checked against
the options' JSON Schema as it is read, and a bad value is reported at its line.

``schemas/config.schema.json`` and ``docs/configuration.md`` are generated from :data:`OPTIONS`
(``python scripts/gendocs.py``); a test keeps them in sync.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from changelog_tools.errors import ConfigError

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from changelog_tools.yamlload import Loaded

CONFIG_FILENAME = ".changelog-tools.yaml"
PYPROJECT_TABLE = "changelog-tools"

_STR_LIST = {"type": "array", "items": {"type": "string", "minLength": 1}}
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


@dataclass(frozen=True, slots=True)
class Option:
    """One configuration option: name, default, JSON Schema and documentation."""

    name: str
    default: Any
    schema: Mapping[str, Any]
    doc: str

    @property
    def attr(self) -> str:
        return self.name.replace("-", "_")


OPTIONS: tuple[Option, ...] = (
    Option(
        "repository",
        "SemiAnalysisAI/InferenceX",
        {"type": "string", "pattern": r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"},
        "GitHub repository `OWNER/NAME`; canonical pr-links are "
        "`https://github.com/{repository}/pull/N`.",
    ),
    Option(
        "changelog",
        "perf-changelog.yaml",
        {"type": "string", "minLength": 1},
        "Path of the changelog, relative to the repository root.",
    ),
    Option(
        "master-configs",
        ["configs/amd-master.yaml", "configs/nvidia-master.yaml"],
        {**_STR_LIST, "minItems": 1},
        "Master config files whose top-level keys changelog `config-keys` select.",
    ),
    Option(
        "main-branch",
        "main",
        {"type": "string", "minLength": 1},
        "The branch pull requests merge into.",
    ),
    Option(
        "remote",
        "origin",
        {"type": "string", "minLength": 1},
        "The git remote that hosts the main branch and pull-request refs.",
    ),
    Option(
        "placeholders",
        ["XXX", "https://github.com/{repo}/pull/XXX"],
        {**_STR_LIST, "minItems": 1},
        "pr-link values that stand for 'this pull request' until it has a number. "
        "`{repo}` is replaced by `repository`.",
    ),
    Option(
        "max-file-size",
        16 * 1024 * 1024,
        {"type": "integer", "minimum": 1},
        "Largest changelog accepted, in bytes.",
    ),
    Option(
        "whitespace-only-separator",
        "error",
        {"enum": ["error", "warning"]},
        "A line of spaces standing in for the one empty line before or between appended entries "
        "(`check` CL108). `error`, as InferenceX's own gate; `warning` accepts it when the empty "
        "line count is still right. TAB/CR/VT/FF lines are always errors.",
    ),
    # Rules a repository adopting the tool may phase in: InferenceX's pull-request gate has not
    # applied these byte rules since its #1853, so its history breaks them often (docs/check.md
    # gives the numbers). `warning` lets such a change pass while `fix` repairs it.
    Option(
        "entry-inserted",
        "error",
        {"enum": ["error", "warning"]},
        "Severity of a new entry inserted among existing ones instead of appended (`check` "
        "CL103). `changelog-tools fix` moves it to the end.",
    ),
    Option(
        "history-bytes-changed",
        "error",
        {"enum": ["error", "warning"]},
        "Severity of an append that also changed bytes (not meaning) of existing entries "
        "(`check` CL105). `changelog-tools fix` restores them from the base.",
    ),
    Option(
        "append-separator",
        "error",
        {"enum": ["error", "warning"]},
        "Severity of appended entries not separated by exactly one empty line (`check` CL108). "
        "`changelog-tools fix` writes the one empty line.",
    ),
    Option(
        "near-miss-link",
        "error",
        {"enum": ["error", "warning"]},
        "Severity of a pr-link that is almost a placeholder or almost canonical (`check` "
        "CL203). `changelog-tools fix` makes it canonical, or the placeholder.",
    ),
    Option(
        "github-api-url",
        None,
        {"type": ["string", "null"]},
        "GitHub API base URL. Unset: `GITHUB_API_URL` from the environment, else the public "
        "API. In GitHub Actions the runner's `GITHUB_API_URL` wins and a value here that "
        "disagrees is refused (a pull request must not redirect the token).",
    ),
    Option(
        "github-retries",
        4,
        {"type": "integer", "minimum": 0, "maximum": 20},
        "Extra attempts for a GitHub read (or idempotent write) after a 5xx answer, a "
        "connection error or a timeout; then the command fails with exit 3.",
    ),
    Option(
        "github-retry-backoff",
        1.0,
        {"type": "number", "minimum": 0, "maximum": 60},
        "Seconds before the first GitHub retry; each further retry waits twice as long "
        "(at most 30 s).",
    ),
    Option(
        "github-rate-limit-wait",
        300,
        {"type": "number", "minimum": 0, "maximum": 86400},
        "Total seconds one command may spend waiting out GitHub rate limits (`Retry-After`, "
        "`X-RateLimit-Reset`); a longer wait fails with exit 3 at once.",
    ),
    Option(
        "github-timeout",
        30,
        {"type": "integer", "minimum": 1, "maximum": 3600},
        "Whole seconds for the connect and for each read of one GitHub API request; the "
        "exchange as a whole (headers and body) gets twice this.",
    ),
    Option(
        "github-write-interval",
        1.0,
        {"type": "number", "minimum": 0, "maximum": 3600},
        "Seconds between two GitHub writes (comments, statuses, merges), as GitHub advises "
        "against secondary rate limits. Reads are not spaced.",
    ),
    Option(
        "sweep-labels",
        [
            "sweep-enabled",
            "full-sweep-enabled",
            "non-canary-full-sweep-enabled",
            "full-sweep-fail-fast",
            "full-sweep-fail-fast-no-canary",
        ],
        _STR_LIST,
        "Primary sweep labels; a pull request carries at most one.",
    ),
    Option(
        "full-sweep-labels",
        [
            "full-sweep-enabled",
            "non-canary-full-sweep-enabled",
            "full-sweep-fail-fast",
            "full-sweep-fail-fast-no-canary",
        ],
        _STR_LIST,
        "Sweep labels whose runs may be reused on main.",
    ),
    Option(
        "reuse-incompatible-labels",
        ["evals-only", "agentx-fast"],
        _STR_LIST,
        "Labels that make a pull request's sweep unusable for reuse.",
    ),
    Option(
        "reuse-command",
        "/reuse-sweep-run",
        {"type": "string", "pattern": "^/"},
        "The comment command that authorizes reuse, optionally followed by a run id.",
    ),
    Option(
        "reuse-allowed-associations",
        ["OWNER", "MEMBER", "COLLABORATOR"],
        {
            "type": "array",
            "items": {
                "enum": [
                    "OWNER",
                    "MEMBER",
                    "COLLABORATOR",
                    "CONTRIBUTOR",
                    "FIRST_TIME_CONTRIBUTOR",
                    "FIRST_TIMER",
                    "MANNEQUIN",
                    "NONE",
                ]
            },
        },
        "Comment author associations whose reuse command counts.",
    ),
    Option(
        "sweep-workflow",
        "run-sweep.yml",
        {"type": "string", "minLength": 1},
        "Workflow file (under `.github/workflows/`) whose pull-request runs are reused.",
    ),
    Option(
        "result-artifacts",
        ["results_bmk", "eval_results_all", "bmk_agentic_*"],
        _STR_LIST,
        "Artifact names (`*` wildcards allowed) that mark a run as having reusable results.",
    ),
    Option(
        "changelog-check-name",
        "check-changelog",
        {"type": "string", "minLength": 1},
        "Name of the check run that validates the changelog on pull requests.",
    ),
    Option(
        "check-timeout",
        900,
        {"type": "integer", "minimum": 0},
        "Seconds the merge flow waits for checks on the pushed commit.",
    ),
    Option(
        "check-poll-interval",
        10,
        {"type": "number", "exclusiveMinimum": 0},
        "Seconds between two looks at the checks while the merge flow waits.",
    ),
    Option(
        "required-checks",
        [],
        _STR_LIST,
        "Check-run names or status contexts the merge flow requires on the pushed commit, "
        "besides `changelog-check-name` (every other reported check must pass too).",
    ),
    Option(
        "drift-paths",
        ["configs/*-master.yaml", "benchmarks/**", "runners/**", "utils/matrix_logic/**"],
        _STR_LIST,
        "gitignore-style patterns of benchmark-affecting paths; a PR that changes them after "
        "its sweep ran cannot reuse that sweep. The PR's changelog entries always count.",
    ),
    Option(
        "sweep-shared-paths",
        ["utils/matrix_logic/**", "benchmarks/benchmark_lib.sh"],
        _STR_LIST,
        "gitignore-style patterns of files every swept config runs (the matrix logic, the "
        "library every benchmark script sources); when main changed one after a pull "
        "request's sweep, that sweep is stale and is not reused.",
    ),
    Option(
        "ingest-timeout",
        1800,
        {"type": "integer", "minimum": 0},
        "Seconds `merge` waits for main's push run of the squash commit to complete (to "
        "report whether it reused the sweep and ingested).",
    ),
    Option(
        "skip-sweep-marker",
        "[skip-sweep]",
        {"type": "string", "minLength": 1},
        "Commit-message marker that tells CI not to sweep a pull-request head commit.",
    ),
    Option(
        "merge-driver-name",
        "perf-changelog",
        {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
        "Name of the git merge driver installed by `install-merge-driver`.",
    ),
    # -- lint (changelog_tools/lint; docs/lint.md) -------------------------------------------
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
        _STR_LIST,
        "`lint`: gitignore-style patterns of the files whose added code `engine-patches` and "
        "`arch-overrides` judge (comments dropped; the changelog is never judged).",
    ),
    Option(
        "lint-harness-paths",
        ["utils/evals/patches/**", "benchmarks/single_node/speedbench/**"],
        _STR_LIST,
        "`engine-patches`: harness paths whose patching is not an engine patch.",
    ),
    Option(
        "lint-scripts",
        ["benchmarks/**/*.sh"],
        _STR_LIST,
        "`lint`: patterns of benchmark scripts.",
    ),
    Option(
        "lint-spec-scripts",
        ["benchmarks/**/*_mtp.sh"],
        _STR_LIST,
        "`chat-template`: patterns of speculative-decoding benchmark scripts.",
    ),
    Option(
        "lint-launchers",
        ["runners/launch_*.sh"],
        _STR_LIST,
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
        _STR_LIST,
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
        _STR_LIST,
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
        {**_STR_LIST, "minItems": 1},
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
        _STR_LIST,
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
        _STR_LIST,
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
        _STR_LIST,
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
        _STR_LIST,
        "`golden-al`: agentic speculative-decoding scripts, which must pin the golden "
        "acceptance length.",
    ),
    Option(
        "lint-agentic-scripts",
        ["benchmarks/single_node/agentic/**", "benchmarks/multi_node/**"],
        _STR_LIST,
        "`golden-al`: where synthetic acceptance may be set (agentic scripts, and multi-node "
        "servers whose recipes pin it); a benchmark script elsewhere that sets it is an error.",
    ),
    # -- signoff verify (changelog_tools/signoff) ------------------------------------------
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
        _STR_LIST,
        "Job-name patterns (`*` wildcards) of the sweep's benchmark jobs; one must succeed.",
    ),
    Option(
        "signoff-eval-jobs",
        ["*eval /*"],
        _STR_LIST,
        "Job-name patterns of the sweep's eval jobs; one must succeed.",
    ),
    Option(
        "signoff-ignored-jobs",
        ["collect-evals*", "collect-results*"],
        _STR_LIST,
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
        _STR_LIST,
        "Regular expressions of upstream recipe links a single-node vLLM/SGLang sign-off must "
        "name; two groups (repository, number) make it a pull request that must be merged.",
    ),
    # -- recover (changelog_tools/flows/recover/flow.py; docs/recover.md) ------------------------
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
        {**_STR_LIST, "minItems": 1},
        "`recover`: job-name patterns of the push run's ingest jobs; a run none of whose "
        "ingest jobs succeeded lost its ingest.",
    ),
    Option(
        "recover-sweep-jobs",
        ["canary *", "single-node *", "multi-node *", "agentic *", "eval *"],
        _STR_LIST,
        "`recover`: job-name patterns of the sweep's benchmark jobs. They are skipped when the "
        "push run reuses a sweep; one that ran and did not succeed means the ingest (if any) "
        "took an incomplete sweep.",
    ),
    Option(
        "recover-required-checks",
        ["reuse-sweep-gate"],
        _STR_LIST,
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


@dataclass(frozen=True, slots=True)
class Config:
    """Resolved configuration. ``root`` is the repository root the relative paths start from."""

    repository: str
    changelog: str
    master_configs: tuple[str, ...]
    main_branch: str
    remote: str
    placeholders: tuple[str, ...]
    max_file_size: int
    whitespace_only_separator: str
    entry_inserted: str
    history_bytes_changed: str
    append_separator: str
    near_miss_link: str
    github_api_url: str | None
    github_retries: int
    github_retry_backoff: float
    github_rate_limit_wait: float
    github_timeout: int
    github_write_interval: float
    sweep_labels: tuple[str, ...]
    full_sweep_labels: tuple[str, ...]
    reuse_incompatible_labels: tuple[str, ...]
    reuse_command: str
    reuse_allowed_associations: tuple[str, ...]
    sweep_workflow: str
    result_artifacts: tuple[str, ...]
    changelog_check_name: str
    check_timeout: int
    check_poll_interval: float
    required_checks: tuple[str, ...]
    drift_paths: tuple[str, ...]
    sweep_shared_paths: tuple[str, ...]
    ingest_timeout: int
    skip_sweep_marker: str
    merge_driver_name: str
    lint_rules: Mapping[str, str]
    lint_allow: tuple[Mapping[str, str], ...]
    lint_code_paths: tuple[str, ...]
    lint_harness_paths: tuple[str, ...]
    lint_scripts: tuple[str, ...]
    lint_spec_scripts: tuple[str, ...]
    lint_launchers: tuple[str, ...]
    lint_benchmark_client: str
    lint_benchmark_library: tuple[str, ...]
    lint_chat_template_flag: str
    lint_chat_template_implied_by: tuple[str, ...]
    lint_spec_flags: str
    lint_spec_suffixes: Mapping[str, str]
    lint_spec_launcher_pattern: str
    lint_script_templates: tuple[str, ...]
    lint_scenario_dirs: Mapping[str, str]
    lint_sku_pattern: str
    lint_established_skus: tuple[str, ...]
    lint_upstream_images: Mapping[str, str]
    lint_engine_first_frameworks: tuple[str, ...]
    lint_waiver_dir: str
    lint_waiver_headings: tuple[str, ...]
    lint_arch_override_pattern: str
    lint_models_file: str
    lint_golden_al_dir: str
    lint_golden_al_scripts: tuple[str, ...]
    lint_agentic_scripts: tuple[str, ...]
    signoff_bot_login: str
    signoff_status_context: str
    signoff_checklist: str
    signoff_checklist_header: str
    signoff_allow_author: bool
    signoff_bench_jobs: tuple[str, ...]
    signoff_eval_jobs: tuple[str, ...]
    signoff_ignored_jobs: tuple[str, ...]
    signoff_eval_artifact: str
    signoff_eval_file: str
    signoff_thresholds: str
    signoff_recipe_links: tuple[str, ...]
    recover_branch_prefix: str
    recover_label: str
    recover_ingest_jobs: tuple[str, ...]
    recover_sweep_jobs: tuple[str, ...]
    recover_required_checks: tuple[str, ...]
    recover_title: str
    recover_bootstrap_message: str
    recover_commit_message: str
    recover_carrier_message: str
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None

    @property
    def changelog_path(self) -> Path:
        return self.root / self.changelog

    @property
    def top(self) -> Path:
        """The top of the git work tree holding ``root`` (``root`` itself outside git): what
        diagnostics and git name paths from, even when the configuration is in a subdirectory."""
        return _repo_root(self.root.resolve())

    def canonical_link(self, pr: int, repository: str | None = None) -> str:
        return f"https://github.com/{repository or self.repository}/pull/{pr}"

    def placeholder_links(self, repository: str | None = None) -> tuple[str, ...]:
        repo = repository or self.repository
        return tuple(p.replace("{repo}", repo) for p in self.placeholders)


def config_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of the configuration file, generated from :data:`OPTIONS`."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://changelog-tools.invalid/schemas/config.schema.json",
        "title": "changelog-tools configuration",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            o.name: {**o.schema, "description": o.doc, "default": o.default} for o in OPTIONS
        },
    }


def defaults(root: Path | None = None) -> Config:
    return _build({}, root or Path.cwd(), None)


def _build(values: Mapping[str, Any], root: Path, source: Path | None) -> Config:
    kwargs: dict[str, Any] = {}
    for option in OPTIONS:
        value = values.get(option.name, option.default)
        if isinstance(value, list):
            value = tuple(value)
        kwargs[option.attr] = value
    return Config(**kwargs, root=root, source=source)


@cache
def _validator() -> Validator:
    """The configuration schema's validator, compiled once for the process (and only when
    there is a configuration file to check)."""
    from changelog_tools.schemaerrors import compile_validator

    return compile_validator(config_schema())


def _surely_valid(values: Any) -> bool:
    """Whether the configuration schema, read directly, surely accepts ``values``."""
    from changelog_tools import schemasubset

    check = schemasubset.compile_schema(config_schema())
    return check is not None and check(values) is True


def _validate(values: Any, source: str, loaded: Loaded | None) -> None:
    """Refuse ``values`` unless every option is known and valid; the error names the first
    problem in the file, at its line when ``loaded`` (a YAML file) has the positions."""
    if not isinstance(values, dict):
        raise ConfigError(f"{source}: configuration must be a mapping of option names to values")
    if _surely_valid(values):  # jsonschema (and its import) only to word a problem
        _check_beyond_schema(values, source, loaded)
        return
    # Here, not at the top: a repository without a configuration file needs no jsonschema.
    from changelog_tools.schemaerrors import Kind, Problem, dotted, position, problems

    found = problems(_validator(), values)
    if not found:
        _check_beyond_schema(values, source, loaded)
        return

    def where(problem: Problem) -> tuple[int, int]:
        line, column = position(problem, loaded) if loaded is not None else (None, None)
        return line or 0, column or 0

    # An unknown option first (a misspelt name makes its value's problems moot), then file order.
    first = min(found, key=lambda p: (p.kind is not Kind.UNKNOWN_FIELD, where(p), dotted(p.path)))
    line, column = where(first)
    at = f"{source}:{line}:{column}" if line else source
    if first.kind is Kind.UNKNOWN_FIELD and len(first.path) == 1:
        hint = first.hint or "see docs/configuration.md"
        raise ConfigError(f"{at}: unknown option '{first.path[0]}'", hint=hint)
    # A field inside an option's value (a `lint-allow` item's) is named from that value.
    subject = first.path[:-1] if first.kind is Kind.UNKNOWN_FIELD else first.path
    raise ConfigError(f"{at}: option {dotted(subject)}: {first.message}", hint=first.hint)


def _check_beyond_schema(values: dict[str, Any], source: str, loaded: Loaded | None) -> None:
    """What JSON Schema cannot say: NaN passes every bound (``.nan`` would switch a budget off),
    and a URL must be one that an HTTP client can open (a host, a port that exists). Refused
    here, at load with the option's name, instead of crashing the first command that uses it."""
    import math
    import urllib.parse

    def fail(option: str, message: str) -> None:
        line, column = (loaded.mark((option,)) or (0, 0)) if loaded is not None else (0, 0)
        at = f"{source}:{line}:{column}" if line else source
        raise ConfigError(f"{at}: option {option}: {message}")

    for option, value in values.items():
        if isinstance(value, float) and not math.isfinite(value):
            fail(option, f"must be a finite number, not {value}")
    url = values.get("github-api-url")
    if isinstance(url, str):
        try:
            parts = urllib.parse.urlsplit(url)
            parts.port  # noqa: B018  (raises for a port past 65535 or not a number)
        except ValueError as exc:
            fail("github-api-url", f"{url!r} is not a URL ({exc})")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            fail("github-api-url", f"{url!r} is not an http(s) URL with a host")


def _options_from_text(text: str, name: str) -> dict[str, Any] | None:
    """The validated options of a configuration file's text (``name`` says which kind:
    ``pyproject.toml`` or YAML); None for a ``pyproject.toml`` without our table."""
    if Path(name).name == "pyproject.toml":
        import tomllib  # only a repository with a pyproject.toml pays for it

        try:
            table = tomllib.loads(text).get("tool", {}).get(PYPROJECT_TABLE)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"cannot read {name}: {exc}") from None
        if table is None:
            return None
        _validate(table, name, None)  # TOML parsers keep no positions: the option names it
        return dict(table)
    from changelog_tools import yamlload

    try:
        loaded = yamlload.load(text)
    except yamlload.YamlProblem as exc:
        raise ConfigError(f"{name}:{exc.line}:{exc.column}: {exc.message}") from None
    values = {} if loaded.value is None else loaded.value
    _validate(values, name, loaded)
    return dict(values)


def _read_options(path: Path) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc}") from None
    return _options_from_text(text, str(path))


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """Search upward from ``start`` for a config file; return its path and validated values."""
    for directory in [start, *start.parents]:
        for candidate in (directory / CONFIG_FILENAME, directory / "pyproject.toml"):
            if candidate.is_file():
                values = _read_options(candidate)
                if values is not None:
                    return candidate, values
        if (directory / ".git").exists():
            break  # the repository root bounds the search
    return None


def load_config(explicit: Path | None = None, *, start: Path | None = None) -> Config:
    """Load the configuration from ``explicit`` or by searching upward from ``start``."""
    start = (start or Path.cwd()).resolve()
    if explicit is not None:
        explicit = explicit.resolve()
        if not explicit.is_file():
            raise ConfigError(f"configuration file {explicit} does not exist")
        values = _read_options(explicit)
        if values is None:
            raise ConfigError(f"{explicit} has no [tool.{PYPROJECT_TABLE}] table")
        root = explicit.parent
        here = _git_top(start)
        if here is not None and _git_top(root) is None:
            # A file outside any repository (a workflow's own, in a temporary directory) is
            # the caller's: its paths name files of the repository the command runs in, from
            # its top, as the options document; its own directory is no work tree at all.
            root = here
        return _build(values, root, explicit)
    found = find_config(start)
    if found is None:
        return _build({}, _repo_root(start), None)
    path, values = found
    return _build(values, path.parent, path)


def has_options(raw: bytes) -> bool:
    """Whether a ``pyproject.toml``'s bytes hold our table (the upward search skips one that
    does not); a file that cannot be read counts as holding it, so its error is reported."""
    import tomllib

    try:
        table = tomllib.loads(raw.decode("utf-8", errors="replace")).get("tool", {})
    except tomllib.TOMLDecodeError:
        return True
    return isinstance(table, dict) and PYPROJECT_TABLE in table


def config_file_at_revision(config: Config, repo: Any, rev: str) -> tuple[str, bytes | None] | None:
    """The configuration file the upward search would use at revision ``rev`` and its bytes
    (None: no file there, the options take their defaults); None for a ``config.source``
    outside the repository (`--config /elsewhere`, the caller's own).

    The search runs from the directory of the file in use (the top when there is none) up to
    the top, as :func:`find_config` does: reading only the head's file name at the base let a
    pull request that adds a ``.changelog-tools.yaml`` beside the base's ``pyproject.toml``
    (the search prefers it), or deletes the base's file, be judged by the defaults (review
    finding: `master-configs` silently emptied). A ``--config`` naming a file of another name
    is that file at the base.
    """
    from changelog_tools import gitrepo
    from changelog_tools.errors import UsageError

    searched = (CONFIG_FILENAME, "pyproject.toml")
    own = CONFIG_FILENAME
    if config.source is not None:
        try:
            own = gitrepo.repo_relative(repo, config.source)
        except UsageError:
            return None
    directory, _, name = own.rpartition("/")
    if name not in searched:
        candidates = [own]
    else:
        parts = directory.split("/") if directory else []
        candidates = [
            "/".join([*parts[:depth], file])
            for depth in range(len(parts), -1, -1)
            for file in searched
        ]
    for candidate in candidates:
        raw = repo.read_blob(rev, candidate)
        if raw is None or (candidate.endswith("pyproject.toml") and not has_options(raw)):
            continue  # absent, or a pyproject.toml without our table: the search goes on
        return candidate, raw
    return own, None


def values_from_text(text: str, *, name: str) -> dict[str, Any]:
    """The validated option values of a configuration file's text (``name`` says which kind:
    ``pyproject.toml`` or YAML), for reading a configuration at a git revision."""
    return _options_from_text(text, name) or {}


def options_at_revision(
    config: Config, raw: bytes | None, *, name: str, names: Sequence[str]
) -> Config:
    """``config`` with the options ``names`` as configuration file ``raw`` sets them (that file's
    bytes at another revision, ``name`` its path there; None: the file is absent there, and the
    options take their defaults).

    A pull request's own configuration file must not decide how its change is judged: the
    commands that judge a change read the options that can loosen a rule from the base.
    """
    from dataclasses import replace

    values = values_from_text(raw.decode("utf-8", errors="replace"), name=name) if raw else {}
    defaults = {o.name: o.default for o in OPTIONS}
    changes: dict[str, Any] = {}
    for option in names:
        value = values.get(option, defaults[option])
        changes[option.replace("-", "_")] = tuple(value) if isinstance(value, list) else value
    return replace(config, **changes)


def _repo_root(start: Path) -> Path:
    return _git_top(start) or start


def _git_top(start: Path) -> Path | None:
    """The top of the git work tree holding ``start``; None outside one."""
    for directory in [start, *start.parents]:
        if (directory / ".git").exists():
            return directory
    return None


def render_docs() -> str:
    """Markdown reference of every option (docs/configuration.md)."""
    import json

    out = [
        "# Configuration reference",
        "",
        "<!-- generated by `python scripts/gendocs.py`; do not edit -->",
        "",
        f"Put options in `{CONFIG_FILENAME}` at the repository root, or in "
        f"`[tool.{PYPROJECT_TABLE}]` of `pyproject.toml`. The nearest file found searching "
        "upward from the working directory (stopping at the repository root) is used; "
        "`--config PATH` names one explicitly (a file outside the repository is the "
        "caller's own: its paths still name files from the repository's top). Unknown "
        "options are errors, and every value "
        "is checked against the option's JSON Schema when the file is read: an error names "
        "the file, line and column (in `pyproject.toml`, the option).",
        "",
        "| option | default | meaning |",
        "| --- | --- | --- |",
    ]
    for o in OPTIONS:
        default = json.dumps(o.default)
        out.append(f"| `{o.name}` | `{default}` | {o.doc} |")
    out.append("")
    return "\n".join(out)


def field_names() -> Sequence[str]:
    return [f.name for f in fields(Config)]
