"""The tool's configuration: every option defined once (default, validation, documentation).

Configuration lives in ``.changelog-tools.yaml`` at the repository root, or in
``[tool.changelog-tools]`` of ``pyproject.toml``; the nearest one found searching upward from the
working directory wins, and ``--config PATH`` overrides the search. With no file at all the
defaults describe InferenceX, so the tool works there unconfigured.

``schemas/config.schema.json`` and ``docs/configuration.md`` are generated from :data:`OPTIONS`
(``python scripts/gendocs.py``); a test keeps them in sync.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from changelog_tools.errors import ConfigError

CONFIG_FILENAME = ".changelog-tools.yaml"
PYPROJECT_TABLE = "changelog-tools"

_STR_LIST = {"type": "array", "items": {"type": "string", "minLength": 1}}


@dataclass(frozen=True)
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
        "github-api-url",
        None,
        {"type": ["string", "null"]},
        "GitHub API base URL. Unset: `GITHUB_API_URL` from the environment, else the public API.",
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
        {"type": "number", "minimum": 0},
        "Total seconds one command may spend waiting out GitHub rate limits (`Retry-After`, "
        "`X-RateLimit-Reset`); a longer wait fails with exit 3 at once.",
    ),
    Option(
        "github-timeout",
        30,
        {"type": "integer", "minimum": 1},
        "Whole seconds one GitHub API request may take (connect and each read).",
    ),
    Option(
        "github-write-interval",
        1.0,
        {"type": "number", "minimum": 0},
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

_BY_NAME = {o.name: o for o in OPTIONS}


@dataclass(frozen=True)
class Config:
    """Resolved configuration. ``root`` is the repository root the relative paths start from."""

    repository: str
    changelog: str
    master_configs: tuple[str, ...]
    main_branch: str
    remote: str
    placeholders: tuple[str, ...]
    max_file_size: int
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
    skip_sweep_marker: str
    merge_driver_name: str
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


def _validate(values: Any, source: Path) -> None:
    if not isinstance(values, dict):
        raise ConfigError(f"{source}: configuration must be a mapping of option names to values")
    for key in values:
        if key not in _BY_NAME:
            import difflib  # an unknown option is rare: pay for the import then

            close = difflib.get_close_matches(str(key), list(_BY_NAME), n=1)
            hint = f"did you mean '{close[0]}'?" if close else "see docs/configuration.md"
            raise ConfigError(f"{source}: unknown option '{key}'", hint=hint)
    from changelog_tools.quickschema import quick_valid

    # Almost every configuration is valid: the quick interpreter says so without importing
    # jsonschema (which costs more than the command); jsonschema explains the rest.
    if quick_valid(config_schema(), values) is True:
        return
    import jsonschema

    validator = jsonschema.Draft202012Validator(config_schema())
    problems = sorted(validator.iter_errors(values), key=lambda e: list(e.absolute_path))
    if problems:
        first = problems[0]
        where = ".".join(str(p) for p in first.absolute_path) or "(root)"
        raise ConfigError(f"{source}: option {where}: {first.message}")


def _read_yaml_config(path: Path) -> Any:
    from changelog_tools import yamlload

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc}") from None
    try:
        loaded = yamlload.load(text)
    except yamlload.YamlProblem as exc:
        raise ConfigError(f"{path}:{exc.line}:{exc.column}: {exc.message}") from None
    return {} if loaded.value is None else loaded.value


def _read_pyproject(path: Path) -> Any | None:
    import tomllib  # only a repository with a pyproject.toml pays for it

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    return data.get("tool", {}).get(PYPROJECT_TABLE)


def find_config(start: Path) -> tuple[Path, Any] | None:
    """Search upward from ``start`` for a config file; return its path and raw values."""
    for directory in [start, *start.parents]:
        candidate = directory / CONFIG_FILENAME
        if candidate.is_file():
            return candidate, _read_yaml_config(candidate)
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            table = _read_pyproject(pyproject)
            if table is not None:
                return pyproject, table
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
        if explicit.name == "pyproject.toml":
            values = _read_pyproject(explicit)
            if values is None:
                raise ConfigError(f"{explicit} has no [tool.{PYPROJECT_TABLE}] table")
        else:
            values = _read_yaml_config(explicit)
        _validate(values, explicit)
        return _build(values, explicit.parent, explicit)
    found = find_config(start)
    if found is None:
        return _build({}, _repo_root(start), None)
    path, values = found
    _validate(values, path)
    return _build(values, path.parent, path)


def _repo_root(start: Path) -> Path:
    for directory in [start, *start.parents]:
        if (directory / ".git").exists():
            return directory
    return start


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
        "`--config PATH` names one explicitly. Unknown options are errors.",
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
