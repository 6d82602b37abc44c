"""`changelog-tools keys [PATTERN...]`: resolve config keys against the master configs."""

from __future__ import annotations

from pathlib import Path

import click

from changelog_tools.commands._common import config_option, emit, format_option, revision_option
from changelog_tools.config import Config


@click.command()
@click.argument("patterns", nargs=-1)
@revision_option("--ref", "Read the master configs at this git revision "
              "instead of the working tree.")  # fmt: skip
@click.option("--master-config", "master_configs", multiple=True, metavar="PATH",
              help="Master config file (repeatable; default: the `master-configs` option).")  # fmt: skip
@format_option
@config_option
def keys(
    patterns: tuple[str, ...],
    ref: str | None,
    master_configs: tuple[str, ...],
    output_format: str,
    config: Config,
) -> int:
    """Show which master-config keys changelog `config-keys` select.

    Each PATTERN is a config key or a `*` wildcard, resolved exactly as `check` resolves the
    config keys of an appended entry: `*` matches any run of characters, anchored at both ends;
    `?` and `[` are literal. With no PATTERN, every key is listed. Unknown keys get a "did you
    mean" hint.

    \b
    Exit status: 0 every pattern matched, 1 one did not (or a master config is
    invalid), 2 usage or configuration error, 3 git failed.

    \b
    Examples:
      changelog-tools keys 'mixtral-fp4-*'
      changelog-tools keys --ref origin/main llama70b-fp8-gpu-b-vllm
      changelog-tools keys --format json
    """
    from changelog_tools import diagnostics as dx
    from changelog_tools.errors import UsageError
    from changelog_tools.ledger import masterconfig as mc
    from changelog_tools.ledger.check import display_path

    paths = list(master_configs or config.master_configs)
    sources: dict[str, bytes | None] = {}
    if ref is not None:
        from changelog_tools import gitrepo

        repo = gitrepo.open_repo(config.root)
        sha = repo.user_commit(ref)
        start = None if master_configs else config.root
        names = [gitrepo.repo_relative(repo, p, start=start) for p in paths]
        sources = {name: repo.read_blob(sha, name) for name in names}
    else:
        for p in paths:
            target = Path(p) if master_configs else config.root / p
            try:
                sources[display_path(target, config)] = target.read_bytes()
            except FileNotFoundError:
                sources[display_path(target, config)] = None
            except OSError as exc:
                raise UsageError(f"{target}: cannot read: {exc.strerror}") from None
    report = mc.resolve_report(list(patterns), mc.load_masters(sources))
    if output_format == "text":
        for row in report.data["patterns"]:
            for m in row["matches"]:
                # Keys and patterns are a pull request's text: shown, never obeyed.
                prefix = f"{dx.visible(row['pattern'])}\t" if patterns else ""
                click.echo(f"{prefix}{dx.visible(m['key'])}\t{dx.visible(m['path'])}:{m['line']}")
        if report.ok:
            return 0
    return emit(report, output_format)
