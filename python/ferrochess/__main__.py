"""``python -m ferrochess``: the same command line as the ``ferrochess`` script."""

from __future__ import annotations

from ferrochess.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
