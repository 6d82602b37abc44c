"""The options of the sign-off verifier (changelog_tools/signoff) and of `recover`
(changelog_tools/flows/recover; docs/recover.md)."""

from __future__ import annotations

from changelog_tools.config.option import STR_LIST, Option

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
