"""The files of a kept demo sandbox (`demo --keep`) and the instructions it prints: what
`demo --serve DIR` reads to serve it again, the `env.sh` a user sources, and the HOWTO."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import Path

SANDBOX_FILE = "sandbox.json"  # what `--serve` needs: repository, token, port, paths
STATE_FILE = "github-state.json"  # the fake GitHub's state (FakeGitHub.snapshot)
ENV_FILE = "env.sh"  # `. env.sh`: the fake's URL and token, the tool on PATH
START_FILE = "start-github.sh"  # starts the fake GitHub (and its CI) again
HOWTO_FILE = "HOWTO.txt"  # the instructions the demo printed
SANDBOX_PR = 5  # left open, swept and unmerged, for the user to merge


def tool_command() -> tuple[str, Path | None]:
    """How to run this installation of the tool: the console script beside this Python
    (and its directory, for PATH), else `python -m changelog_tools`."""
    bindir = Path(sys.executable).parent
    script = shutil.which("changelog-tools", path=str(bindir))
    if script:
        return shlex.quote(script), Path(script).parent
    return f"{shlex.quote(sys.executable)} -m changelog_tools", None


def write_env(root: Path, meta: Mapping[str, object], base_url: str) -> None:
    _tool, bindir = tool_command()
    lines = [
        "# The kept changelog-tools demo sandbox: source it (`. env.sh`) in the shell you run",
        "# the commands from. It points the tool at the sandbox's fake GitHub on 127.0.0.1.",
        f"export GH_TOKEN={shlex.quote(str(meta['token']))}",
        f"export GITHUB_API_URL={shlex.quote(base_url)}",
        "unset GITHUB_ACTIONS  # outside a workflow: the tool reads no Actions environment",
    ]
    if bindir is not None:
        lines.append(f'export PATH={shlex.quote(str(bindir))}:"$PATH"')
    (root / ENV_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")


def howto(root: Path, meta: Mapping[str, object]) -> list[str]:
    """The instructions: start the fake again, then merge PR #3 and run the gate on main."""
    tool, bindir = tool_command()
    q = shlex.quote
    pr = meta["pr"]
    cli = "changelog-tools" if bindir is not None else tool  # env.sh puts bindir on PATH
    return [
        f"Your sandbox: {root}",
        f'  origin.git (the "GitHub" repository), clones alice/ bob/ maintainer/, {STATE_FILE}',
        f"  (the fake GitHub's state), {ENV_FILE}, {START_FILE}. Nothing is running now.",
        f"  PR #{pr} ({meta['branch']}, by alice) is open and swept, with a placeholder pr-link:",
        "  merge it yourself.",
        "",
        "1. Start the fake GitHub and its CI again (it serves until Ctrl-C, then saves its state):",
        f"     sh {q(str(root / START_FILE))}",
        f"   (which runs: {tool} demo --serve {q(str(root))})",
        "2. In another terminal:",
        f"     . {q(str(root / ENV_FILE))}",
        f"     cd {q(str(root / 'maintainer'))}",
        f"     {cli} signoff verify --pr {pr} --dry-run",
        f"     {cli} merge {pr} --dry-run",
        f"     {cli} merge {pr}",
        "     git pull -q --ff-only",
        f"     {cli} reuse-gate --event-name push --ref refs/heads/main "
        '--commit-sha "$(git rev-parse HEAD)"',
        "   (signoff verify: the sign-off bot's verdict, pending until a code owner signs off)",
        "3. When done: Ctrl-C in the first terminal, then",
        f"     rm -rf {q(str(root))}",
    ]


def port_of(url: str) -> int:
    return urllib.parse.urlsplit(url).port or 0


def save_json(path: Path, data: object) -> None:
    from changelog_tools.fsutil import atomic_write

    atomic_write(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def announce(
    root: Path, meta: dict[str, object], base_url: str, wanted: int, say: Callable[[str], None]
) -> None:
    """Record the port actually used (env.sh follows it) and say how to use the server."""
    if port_of(base_url) != meta["port"]:
        meta["port"] = port_of(base_url)
        save_json(root / SANDBOX_FILE, meta)
        say(f"port {wanted} is taken; listening on another: source {ENV_FILE} again")
    write_env(root, meta, base_url)
    say(f"fake GitHub for {meta['repository']} listening on {base_url}")
    say(f"(and a fake CI running the real `check`); state from {root / STATE_FILE}")
    say(f"in another terminal: . {shlex.quote(str(root / ENV_FILE))}; see {HOWTO_FILE}")
    say("Ctrl-C stops it and saves the state")
