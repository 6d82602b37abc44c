"""Allow ``python -m changelog_tools``."""

from __future__ import annotations

from changelog_tools.cli import main

if __name__ == "__main__":
    main()
