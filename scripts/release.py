"""Check that a release is consistent, then build its sdist and wheel into dist/.

Run ``python scripts/release.py`` from the repository root (needs `build`: the `dev` extra).
It refuses when CHANGELOG.md has no section for the version or an install line pins another
version; it uploads nothing and tags nothing.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def problems(version: str) -> list[str]:
    out = []
    if f"## {version}\n" not in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"):
        out.append(f"CHANGELOG.md has no '## {version}' section")
    files = [ROOT / "README.md", ROOT / "action.yml", *sorted((ROOT / "docs").glob("*.md"))]
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for pinned in re.findall(r"perf-changelog-tools==([0-9][0-9a-z.]*)", line):
                if pinned != version:
                    out.append(f"{path.relative_to(ROOT)}:{number}: pins {pinned}, not {version}")
    return out


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from changelog_tools import __version__

    found = problems(__version__)
    for problem in found:
        print(f"release: {problem}", file=sys.stderr)
    if found:
        return 1
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(ROOT / "dist"), str(ROOT)],
                   check=True)  # fmt: skip
    print(f"release: built {__version__} into dist/; tag v{__version__} and upload dist/*")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
