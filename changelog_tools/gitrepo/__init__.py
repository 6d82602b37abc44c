"""The git adapter: short typed functions over GitPython, handing plain values to the core.

Nothing outside this package sees a GitPython object: callers get ``str``, ``bytes`` and tuples,
and every failure is :class:`~changelog_tools.errors.GitError` with git's own message, made in
one place. Nothing outside it runs git either: each command the tool needs is a named method
of :class:`GitRepo`. The rooms:

- :mod:`.runner`: running git, the scrubbed environment, failures as one-line GitErrors;
- :mod:`.objects`: objects, files at revisions and tree diffs, read through one persistent
  ``cat-file`` reader;
- :mod:`.history`: commits, ancestry, messages, the checkout's state;
- :mod:`.refs`: fetching, listing and deleting refs, pushing;
- :mod:`.merging`: staging, committing, merging, worktrees, commits from plumbing;
- :mod:`.repo`: :class:`GitRepo` itself and :func:`open_repo`;
- :mod:`.bases` (what a change is against) and :mod:`.conflicts` (a merge under way).

GitPython is imported on first use, never at import of this package (see :mod:`.runner`).
"""

from __future__ import annotations

from changelog_tools.gitrepo.bases import default_base, main_ref
from changelog_tools.gitrepo.conflicts import (
    operation_in_progress,
    read_index_stages,
    read_object,
    rebase_onto_commit,
    rebase_stop,
    rebased_branch,
    ref_tip_from_files,
    replayed_commit,
    special_head,
)
from changelog_tools.gitrepo.history import FileVersion
from changelog_tools.gitrepo.merging import merge_file
from changelog_tools.gitrepo.objects import BlobTooLarge, TreeEntry
from changelog_tools.gitrepo.repo import (
    GitRepo,
    git_status,
    open_repo,
    repo_relative,
    working_directory,
)
from changelog_tools.gitrepo.runner import GIT_LOCAL_VARS, GITPYTHON_VARS, scrub_environment

__all__ = [
    "GITPYTHON_VARS",
    "GIT_LOCAL_VARS",
    "BlobTooLarge",
    "FileVersion",
    "GitRepo",
    "TreeEntry",
    "default_base",
    "git_status",
    "main_ref",
    "merge_file",
    "open_repo",
    "operation_in_progress",
    "read_index_stages",
    "read_object",
    "rebase_onto_commit",
    "rebase_stop",
    "rebased_branch",
    "ref_tip_from_files",
    "replayed_commit",
    "repo_relative",
    "scrub_environment",
    "special_head",
    "working_directory",
]
