"""ferrochess's Python tools: what makes the engine but is neither the product nor a benchmark.

Installed editable from the checkout (`pip install -e tools`, part of `make dev`); each module runs
as `python -m ferrochess_tools.NAME --help`:

- `calibrate`: measures the playing levels in games and writes `src/level/table.rs`, the levels
  sections of docs/levels.md and BENCHMARKS.md and `docs/levels.png` (`make calibrate`); its Elo
  fit is `elo_fit`, the table and its rendering `level_table`. Its games, and `spsa`'s, are
  played by the package's match runner, `ferrochess.match` (docs/match.md; `ferrochess match` on
  the command line).
- `spsa`: tunes the search's tunables (`src/search/params.rs`) by SPSA in games of a `tune`
  build (`make spsa`, docs/tuning.md).
- `mate_suite`: writes `tests/data/mates.epd`, forced mates from real games, each proven;
  `mate_depth`: how many of them a UCI engine finds at depth 2N - 1.
- `texel_positions`: quiet positions with their results or Stockfish labels, for the Texel tuner.
- `reliability`: the stress and resource runs of RELIABILITY.md (`make reliability`).
- `bench_summary`: rewrites BENCHMARKS.md's summary from what `make bench` measured.
- `module_graph`: the import graphs of the crates and the Python packages, and their circles
  (there must be none).

The tools read and write the checkout they live in (`REPO_ROOT`), so they are installed editable,
never as a wheel.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ferrochess.match import GameRecord

REPO_ROOT = Path(__file__).resolve().parents[2]
"""The checkout holding this package (tools/ferrochess_tools/ lies two folders below it)."""
FAULTS = ("time forfeit", "rules infraction", "abandoned")
"""The PGN Terminations of a game lost by a player's fault (`ferrochess.match.GameRecord`)."""


def print_summary(summary: Mapping[str, Any], as_json: bool) -> None:
    """Prints a tool's closing summary: as indented JSON, or a `key: value` line each."""
    if as_json:
        print(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            print(f"{key}: {value}")


def faulty_player(record: GameRecord) -> int | None:
    """The index (in the match's players) of the player whose fault ended a `ferrochess.match`
    game: a loss on time, an illegal or missing move, a crash or a stall; None for any other end.
    Such a reason names the side at fault first ("Black loses on time (35 ms over)", "White
    disconnects"), which matters when a loss on time is a draw (the opponent cannot mate)."""
    if record.termination not in FAULTS:
        return None
    return record.white_player if record.reason.startswith("White") else record.black_player
