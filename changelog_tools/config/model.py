"""The resolved configuration (:class:`Config`) and the option table it is built from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from changelog_tools.config.option import Option
from changelog_tools.config.options_commands import (
    LINT_OPTIONS,
    RECOVER_OPTIONS,
    SIGNOFF_OPTIONS,
)
from changelog_tools.config.options_core import CORE_OPTIONS

# Every option, in the order the generated docs and schema list them.
OPTIONS: tuple[Option, ...] = (*CORE_OPTIONS, *LINT_OPTIONS, *SIGNOFF_OPTIONS, *RECOVER_OPTIONS)


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
        return repo_root(self.root.resolve())

    def canonical_link(self, pr: int, repository: str | None = None) -> str:
        return f"https://github.com/{repository or self.repository}/pull/{pr}"

    def placeholder_links(self, repository: str | None = None) -> tuple[str, ...]:
        repo = repository or self.repository
        return tuple(p.replace("{repo}", repo) for p in self.placeholders)


def defaults(root: Path | None = None) -> Config:
    """The configuration with every option at its default, rooted at ``root`` (the cwd)."""
    return build({}, root or Path.cwd(), None)


def build(values: Mapping[str, Any], root: Path, source: Path | None) -> Config:
    """The :class:`Config` of already validated option ``values`` (absent ones take defaults)."""
    kwargs: dict[str, Any] = {}
    for option in OPTIONS:
        value = values.get(option.name, option.default)
        if isinstance(value, list):
            value = tuple(value)
        kwargs[option.attr] = value
    return Config(**kwargs, root=root, source=source)


def field_names() -> Sequence[str]:
    """The names of :class:`Config`'s fields, in declaration order."""
    return [f.name for f in fields(Config)]


def repo_root(start: Path) -> Path:
    """The top of the git work tree holding ``start``; ``start`` itself outside one."""
    return git_top(start) or start


def git_top(start: Path) -> Path | None:
    """The top of the git work tree holding ``start``; None outside one."""
    for directory in [start, *start.parents]:
        if (directory / ".git").exists():
            return directory
    return None
