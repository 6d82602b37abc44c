"""Run one documented example in its world, as a user would type it into a shell."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.docs.collect import WORLD_DIR, Example
from tests.docs.worlds import SETUPS, World, repo_world, sandbox_world

TIMEOUT = 240
_MARK = re.compile(r"\n@@doc-example-exit (\d+)@@\n")


@dataclass(frozen=True)
class Ran:
    """What one command of an example did."""

    line: str
    exit_code: int
    output: tuple[str, ...]


def wanted_exits(example: Example, options: Mapping[str, str]) -> list[int]:
    """The exit status each command of ``example`` must end with (0 unless ``exit=`` says)."""
    text = options.get("exit", "0")
    values = [int(v) for v in text.split(",")]
    if len(values) == 1:
        return values * len(example.commands)
    if len(values) != len(example.commands):
        raise ValueError(
            f"{example.source}: exit={text} names {len(values)} statuses for "
            f"{len(example.commands)} commands"
        )
    return values


@contextmanager
def world_for(
    options: Mapping[str, str], templates: Mapping[str, Path], root: Path
) -> Iterator[World]:
    """The example's world, set up as its options say."""
    kind = options.get("world", "repo")
    if kind == "repo":
        world = repo_world(templates["repo"], root)
        yield from _prepared(world, options)
    elif kind == "sandbox":
        with sandbox_world(templates["sandbox"], root) as world:
            yield from _prepared(world, options)
    else:
        raise ValueError(f"unknown world {kind!r}")


def _prepared(world: World, options: Mapping[str, str]) -> Iterator[World]:
    for name in filter(None, options.get("setup", "").split(",")):
        SETUPS[name](world)
    if "cwd" in options:
        world.cwd = world.root / options["cwd"]
    yield world


def _lines(text: str, world: World) -> tuple[str, ...]:
    text = text.replace(str(world.root), WORLD_DIR)
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return tuple(lines)


def run_commands(example: Example, world: World, options: Mapping[str, str]) -> list[Ran]:
    """Run the example's commands one after another in one shell (so `cd` and `. env.sh`
    carry over), each one's exit status and output recorded apart."""
    lines = [c.line.replace(WORLD_DIR, str(world.root)) for c in example.commands]
    stop_when = options.get("stop-when")
    if stop_when is not None:
        return [_run_until(lines[0], world, stop_when)]
    script = ["exec 2>&1 </dev/null"]
    for line in lines:
        script += [line, '__s=$?; printf "\\n@@doc-example-exit %s@@\\n" "$__s"']
    proc = subprocess.run(
        ["sh", "-c", "\n".join(script)],
        cwd=world.cwd,
        env=world.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    parts = _MARK.split(proc.stdout)
    ran: list[Ran] = []
    for index, line in enumerate(lines):
        if 2 * index + 1 >= len(parts):
            # the shell ended early (an `exit`, a fatal error): the rest did not run
            tail = parts[-1] if len(parts) % 2 == 1 else ""
            ran.append(Ran(line, proc.returncode if proc.returncode else -1, _lines(tail, world)))
            break
        ran.append(Ran(line, int(parts[2 * index + 1]), _lines(parts[2 * index], world)))
    return ran


def _run_until(line: str, world: World, stop_when: str) -> Ran:
    """Run a server until it prints ``stop_when``, then press Ctrl-C (SIGINT to its group)."""
    # `exec`: the server is the shell's foreground job, as at a terminal, where Ctrl-C reaches
    # it and not the interactive shell
    proc = subprocess.Popen(
        ["sh", "-c", f"exec {line}"],
        cwd=world.cwd,
        env=world.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        for out in proc.stdout:
            seen.append(out)
            if stop_when in out:
                os.killpg(proc.pid, signal.SIGINT)
                break
        rest, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return Ran(line, proc.returncode, _lines("".join(seen) + rest, world))
