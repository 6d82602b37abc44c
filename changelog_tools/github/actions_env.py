"""What a GitHub Actions step hands the tool, and the step files it writes back.

The API base URL, the repository and the token come from configuration and the environment
the runner sets (``GITHUB_API_URL``, ``GITHUB_REPOSITORY``, ``GH_TOKEN``/``GITHUB_TOKEN``);
outputs and the job summary go to the files ``$GITHUB_OUTPUT`` and ``$GITHUB_STEP_SUMMARY``
name. Nothing here talks to the network.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from changelog_tools.errors import ConfigError

if TYPE_CHECKING:
    from changelog_tools.config import Config

PUBLIC_API_URL = "https://api.github.com"
_REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def resolve_api_url(config: Config, env: Mapping[str, str]) -> str:
    """API base URL: configuration, else ``GITHUB_API_URL`` (set by Actions), else public.

    In a workflow (``GITHUB_ACTIONS`` set) the runner's URL wins: the configuration file sits
    in the checked-out tree, which a pull request can change, so a ``github-api-url`` there that
    disagrees would send the workflow's token to a server the PR chose. Such a value is refused
    rather than silently ignored, so a genuine misconfiguration is not hidden either.
    """
    configured = config.github_api_url
    if env.get("GITHUB_ACTIONS"):
        url = _checked_url(env.get("GITHUB_API_URL") or PUBLIC_API_URL)
        if configured and _checked_url(configured) != url:
            source = config.source or "the configuration"
            raise ConfigError(
                f"{source}: github-api-url {configured!r} disagrees with the workflow's "
                f"GITHUB_API_URL {url!r}; in GitHub Actions the token only goes to the runner's API",
                hint="remove github-api-url from the configuration (the runner sets GITHUB_API_URL)",
            )
        return url
    return _checked_url(configured or env.get("GITHUB_API_URL") or PUBLIC_API_URL)


def _checked_url(url: str) -> str:
    split = urllib.parse.urlsplit(url)
    if split.scheme not in ("http", "https") or not split.hostname:
        raise ConfigError(f"GitHub API URL {url!r} is not an http(s) URL")
    return url.rstrip("/")


def resolve_repository(config: Config, env: Mapping[str, str], explicit: str | None) -> str:
    """OWNER/NAME: ``explicit``, else ``GITHUB_REPOSITORY`` (set by Actions), else config."""
    repo = explicit or env.get("GITHUB_REPOSITORY") or config.repository
    if not _REPO_RE.match(repo):
        raise ConfigError(f"repository {repo!r} is not OWNER/NAME")
    return repo


def resolve_token(env: Mapping[str, str]) -> str:
    token = (env.get("GH_TOKEN") or env.get("GITHUB_TOKEN") or "").strip()
    if not token:
        raise ConfigError(
            "GH_TOKEN or GITHUB_TOKEN must hold a GitHub token",
            hint="in a workflow: env: GH_TOKEN: ${{ github.token }}",
        )
    if not all("!" <= ch <= "~" for ch in token):
        # Such a token cannot go into an HTTP header: every request would fail with a
        # misleading transport error. The token itself is never shown.
        name = "GH_TOKEN" if env.get("GH_TOKEN", "").strip() else "GITHUB_TOKEN"
        raise ConfigError(
            f"{name} holds whitespace or non-ASCII characters, so it cannot be a GitHub token",
            hint="check how the variable is set (a pasted line break or quote?)",
        )
    return token


# ----------------------------------------------------------------------------------------------
# GitHub Actions step files


def write_step_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    """Append ``outputs`` to a ``$GITHUB_OUTPUT`` file, each as a heredoc with a random delimiter.

    The delimiter is fresh per value and checked against it, so no value (even a multi-line
    one) can end its block early or inject another output.
    """
    chunks: list[str] = []
    for key, value in outputs.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
            raise ValueError(f"invalid output name {key!r}")
        while True:
            # What secrets.token_hex(16) returns, without importing secrets (with random,
            # hashlib, hmac and base64: 5 ms of every reuse-gate step in a workflow).
            delimiter = f"ghadelimiter_{os.urandom(16).hex()}"
            if delimiter not in value:
                break
        chunks.append(f"{key}<<{delimiter}\n{value}\n{delimiter}\n")
    with path.open("a", encoding="utf-8") as handle:
        handle.write("".join(chunks))


def read_step_outputs(text: str) -> dict[str, str]:
    """Parse a ``$GITHUB_OUTPUT`` file (both ``k=v`` and heredoc forms), as the runner does."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            value: list[str] = []
            while i < len(lines) and lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"output {key!r}: delimiter {delimiter!r} never closes")
            i += 1
            out[key] = "\n".join(value)
        else:
            key, _, val = line.partition("=")
            out[key] = val
    return out


def append_step_summary(path: Path, markdown: str) -> None:
    """Append Markdown to a ``$GITHUB_STEP_SUMMARY`` file."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(markdown if markdown.endswith("\n") else markdown + "\n")
