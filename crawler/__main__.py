"""``python -m crawler``: the operator commands (see :mod:`crawler.ops.cli`)."""

from __future__ import annotations

import sys

from crawler.ops.cli import main

if __name__ == "__main__":
    sys.exit(main())
