"""`python -m tasklife.cli`: the `tasklife` command."""

import sys

from tasklife.cli.app import main

if __name__ == "__main__":
    sys.exit(main())
