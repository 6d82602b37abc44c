"""The options without a command prefix, shared by several commands: the ledger itself, the
GitHub client, and the merge and reuse flows (in the order the generated docs list them)."""

from __future__ import annotations

from changelog_tools.config.option import STR_LIST, Option

CORE_OPTIONS: tuple[Option, ...] = (
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
        {**STR_LIST, "minItems": 1},
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
        {**STR_LIST, "minItems": 1},
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
        STR_LIST,
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
        STR_LIST,
        "Sweep labels whose runs may be reused on main.",
    ),
    Option(
        "reuse-incompatible-labels",
        ["evals-only", "agentx-fast"],
        STR_LIST,
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
        STR_LIST,
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
        STR_LIST,
        "Check-run names or status contexts the merge flow requires on the pushed commit, "
        "besides `changelog-check-name` (every other reported check must pass too).",
    ),
    Option(
        "drift-paths",
        ["configs/*-master.yaml", "benchmarks/**", "runners/**", "utils/matrix_logic/**"],
        STR_LIST,
        "gitignore-style patterns of benchmark-affecting paths; a PR that changes them after "
        "its sweep ran cannot reuse that sweep. The PR's changelog entries always count.",
    ),
    Option(
        "sweep-shared-paths",
        ["utils/matrix_logic/**", "benchmarks/benchmark_lib.sh"],
        STR_LIST,
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
)
