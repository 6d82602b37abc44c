"""Allow ``python -m changelog_tools``."""

from __future__ import annotations

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["merge-driver"]:
        # git's merge driver, once per replayed commit: its installed command line is read
        # without the CLI framework (changelog_tools/ledger/driverentry.py).
        try:
            from changelog_tools.ledger.driverentry import run

            code = run(sys.argv[2:])
        except KeyboardInterrupt:
            sys.stderr.write("interrupted\n")
            sys.exit(130)
        if code is not None:
            sys.exit(code)
    from changelog_tools.cli import main

    main()
