"""``python -m agentkit_core``: the command line (see :mod:`._cli`, which a vendored copy may drop)."""

from __future__ import annotations

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
