"""Game review on one and on two workers: the same games, one run, the ratio of the times.

Contract: reviews every game of `../shared/data/pgn/lichess_db_100k.pgn` (or `--pgn`) at a fixed
`--depth` (5) with `ferrochess.analyse_pgn(..., workers=1)` and then `workers=2`, each into a fresh
temporary JSON-lines file, in this process, one after the other. Prints the games, positions and
seconds of each run and the speed-up (time with 1 worker / time with 2), and checks the two runs
wrote the same records (exit 1 otherwise). The machine has 2 cores: the ideal speed-up is 2.
`--json` prints the figures as JSON instead, `--json PATH` writes them to PATH and prints the report
too. Without the PGN (../shared/data absent) nothing is measured: say so, record why with
`--json`, exit 0.

    python benches/analyse_speed.py [--pgn FILE] [--depth N] [--json [PATH]]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import chess.engine
from _common import add_json_option, emit_json, import_ferrochess, not_measured

DEFAULT_PGN = Path(__file__).resolve().parent.parent.parent / "shared/data/pgn/lichess_db_100k.pgn"


def records(path: Path) -> dict[str, Any]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    return {record["key"]: record for record in lines}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pgn", type=Path, default=DEFAULT_PGN)
    parser.add_argument("--depth", type=int, default=5)
    add_json_option(parser)
    args = parser.parse_args()
    ferrochess = import_ferrochess()
    if ferrochess is None:
        return 1
    if not args.pgn.is_file():
        return not_measured(args.json, f"{args.pgn} not found")
    limit = chess.engine.Limit(depth=args.depth)
    runs: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as directory:
        for workers in (1, 2):
            out = Path(directory) / f"workers{workers}.jsonl"
            start = time.perf_counter()
            summary = ferrochess.analyse_pgn(args.pgn, out, limit, workers=workers, progress=False)
            seconds = time.perf_counter() - start
            done = records(out)
            runs[workers] = {
                "games": summary.analysed,
                "positions": sum(len(r.get("moves", [])) + 1 for r in done.values()),
                "seconds": round(seconds, 2),
                "records": done,
            }
    same = runs[1]["records"] == runs[2]["records"]
    result = {
        "pgn": str(args.pgn),
        "depth": args.depth,
        **{
            f"workers_{w}": {k: v for k, v in run.items() if k != "records"}
            for w, run in runs.items()
        },
        "speedup": round(runs[1]["seconds"] / runs[2]["seconds"], 2),
        "same_records": same,
    }
    if emit_json(args.json, result):
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
