"""`python -m memtui ...` is the `memtui` command."""

import sys

from memtui.cli import main

if __name__ == "__main__":
    sys.exit(main())
