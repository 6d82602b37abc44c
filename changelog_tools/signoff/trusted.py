"""The trusted side of a sign-off: CODEOWNERS, the checklist and its versions, read from the
default branch's checkout, never from the pull request."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from changelog_tools.config import Config
from changelog_tools.errors import UsageError
from changelog_tools.gitrepo import GitRepo
from changelog_tools.lint.tree import GitTree, TreeView
from changelog_tools.signoff import checklist as cl
from changelog_tools.signoff import history
from changelog_tools.signoff.codeowners import CODEOWNERS_LOCATIONS, CodeOwners, parse_codeowners


@dataclass(frozen=True)
class Trusted:
    """The default branch's files at ``sha`` and what the bot reads from them once."""

    files: TreeView
    sha: str
    codeowners: CodeOwners
    template: cl.Checklist
    versions: tuple[history.Version, ...]

    def read(self, path: str) -> bytes | None:
        return self.files.read(path)


def load_trusted(repo: GitRepo, config: Config) -> Trusted:
    sha = repo.rev_parse("HEAD")
    tip = repo.try_rev_parse(f"refs/remotes/{config.remote}/{config.main_branch}")
    if tip is not None and tip != sha:
        # CODEOWNERS and the checklist must come from the default branch, never from a branch
        raise UsageError(
            f"the checkout is at {sha[:7]}, not at {config.remote}/{config.main_branch} "
            f"({tip[:7]}): signoff verify trusts only the default branch's files",
            hint="check out the default branch (actions/checkout with ref: the default branch)",
        )
    owners: CodeOwners | None = None
    for location in CODEOWNERS_LOCATIONS:
        raw = repo.read_blob(sha, location)
        if raw is not None:
            owners = parse_codeowners(raw.decode("utf-8", errors="replace"), source=location)
            break
    where = f"{config.main_branch} at {sha[:12]}"
    if owners is None:
        raise UsageError(
            f"no CODEOWNERS file on {where} (looked for {', '.join(CODEOWNERS_LOCATIONS)}): "
            "sign-offs are judged against the default branch's code owners",
            hint="add a CODEOWNERS file to the default branch (GitHub reads the same three places)",
        )
    header = config.signoff_checklist_header
    raw = repo.read_blob(sha, config.signoff_checklist)
    if raw is None:
        raise UsageError(
            f"the review checklist {config.signoff_checklist} does not exist on {where}",
            hint="add it to the default branch, or set `signoff-checklist` to its path",
        )
    template = cl.parse_template(raw.decode("utf-8", errors="replace"), header=header)
    if template is None:
        raise UsageError(
            f"{config.signoff_checklist} on {where} has no line {header!r}, which starts the "
            "checklist a sign-off copies",
            hint="set `signoff-checklist-header` to the checklist's first line, as reviewers "
            "copy it",
        )
    versions = history.template_versions(repo, config.signoff_checklist, ref=sha, header=header)
    return Trusted(GitTree(repo, sha), sha, owners, template, versions)


@dataclass(frozen=True)
class ChecklistSource:
    """The checklist a comment is compared with, its versions, and where it was read."""

    template: cl.Checklist
    versions: tuple[history.Version, ...]
    where: str


def load_checklist(checkout: Path, config: Config) -> ChecklistSource:
    """The review checklist for ``signoff explain``: from the default branch of the repository
    at ``checkout`` (with its versions), as ``signoff verify`` reads it; else, when ``checkout``
    is not the top of a repository holding it, from the file in ``checkout`` (one version).

    Raises :class:`UsageError` saying why no checklist is available.
    """
    from changelog_tools.errors import GitError
    from changelog_tools.gitrepo import open_repo

    path, header = config.signoff_checklist, config.signoff_checklist_header
    try:
        repo = open_repo(checkout)
    except (UsageError, GitError):
        repo = None
    if repo is not None and repo.path.resolve() == checkout.resolve():
        for ref in (
            f"refs/remotes/{config.remote}/{config.main_branch}",
            f"refs/heads/{config.main_branch}",
            "HEAD",
        ):
            sha = repo.try_rev_parse(ref)
            raw = repo.read_blob(sha, path) if sha else None
            if sha is None or raw is None:
                continue
            template = cl.parse_template(raw.decode("utf-8", errors="replace"), header=header)
            if template is None:
                raise UsageError(f"{path} at {ref} ({sha[:9]}) has no line {header!r}")
            versions = history.template_versions(repo, path, ref=sha, header=header)
            name = ref.removeprefix("refs/remotes/").removeprefix("refs/heads/")
            return ChecklistSource(template, versions, f"{path} on {name} at {sha[:9]}")
    file = checkout / path
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        raise UsageError(
            f"no review checklist: {path} is neither on the default branch nor in {checkout}"
        ) from None
    template = cl.parse_template(text, header=header)
    if template is None:
        raise UsageError(f"{file} has no line {header!r}")
    return ChecklistSource(template, (), f"{path} in the working tree (not from git: no versions)")
