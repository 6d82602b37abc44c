"""``python -m changelog_tools.testing.fakegithub --state FILE``: serve a state file."""

from __future__ import annotations

import sys

from changelog_tools.testing.fakegithub import main

if __name__ == "__main__":
    sys.exit(main())
