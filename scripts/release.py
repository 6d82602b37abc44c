"""Check that a release is consistent, then build its sdist and wheel into dist/.

Run ``python scripts/release.py [--tag vX.Y.Z] [--check]`` from the repository root (building
needs `build`: the `dev` extra). The release workflow (.github/workflows/release.yml) runs it
on every pushed ``v*`` tag before anything is published. It refuses (exit 1, one line per
problem) when:

- the tag is not ``v`` followed by ``changelog_tools.__version__``;
- pyproject.toml's ``version`` (what the build writes into the wheel) is another;
- CHANGELOG.md has no section for the version;
- an install line pins another version (``perf-changelog-tools==X``);
- a pinned use of the action names another release (``changelog-tools@<sha> # vX``), or a
  pre-commit ``rev: vX`` does.

With ``--check`` it builds nothing. It uploads nothing and tags nothing.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Where a version is written for users: what each pattern captures must be this release.
PINS = (
    ("pins", re.compile(r"perf-changelog-tools==([0-9][0-9a-z.]*)")),
    ("uses the action at", re.compile(r"changelog-tools@\S+\s+#\s*v([0-9][0-9a-z.]*)")),
    ("has pre-commit rev", re.compile(r"\brev:\s*[\"']?v([0-9][0-9a-z.]*)")),
)


def pinned_files() -> list[Path]:
    """Every file whose version pins users copy: the README, the action, the hooks, the docs,
    the workflows."""
    return [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        ROOT / "action.yml",
        ROOT / ".pre-commit-hooks.yaml",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / ".github" / "workflows").glob("*.y*ml")),
    ]


def problems(version: str, tag: str | None = None) -> list[str]:
    """What stops ``version`` (tagged ``tag``, when given) from being released; empty when
    nothing does."""
    out = []
    if tag is not None and tag != f"v{version}":
        out.append(f"the tag {tag!r} is not v{version} (changelog_tools.__version__)")
    pyproject = ROOT / "pyproject.toml"
    if pyproject.is_file():
        built = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"].get("version")
        if built != version:
            out.append(f"pyproject.toml has version {built}, not {version}")
    if f"## {version}\n" not in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"):
        out.append(f"CHANGELOG.md has no '## {version}' section")
    for path in pinned_files():
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, pattern in PINS:
                for pinned in pattern.findall(line):
                    if pinned != version:
                        out.append(
                            f"{path.relative_to(ROOT)}:{number}: {what} {pinned}, not {version}"
                        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tag", help="the tag being released (vX.Y.Z); must match __version__")
    parser.add_argument("--check", action="store_true", help="check only; build nothing")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from changelog_tools import __version__

    found = problems(__version__, args.tag)
    for problem in found:
        print(f"release: {problem}", file=sys.stderr)
    if found:
        return 1
    if args.check:
        print(f"release: {__version__} is consistent")
        return 0
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(ROOT / "dist"), str(ROOT)],
                   check=True)  # fmt: skip
    print(f"release: built {__version__} into dist/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
