"""Lazy SMP: the time one thread and two threads take to reach the same depth, in the same run.

Contract: searches each Bratko-Kopec position (`../shared/data/epd/bratko-kopec.epd`, 24 middlegame
positions) to `--depth` (17) with a fresh `ferrochess.Engine(threads=1)` and then `threads=2` (64 MB
table each, no book), alternating per position so that drift in the machine's load hits both alike.
`--reuse` keeps one engine per thread count instead, cleared with `new_game()` before each position,
as a game reuses its table (a fresh table's first touches cost page faults; BENCHMARKS.md,
"Threads"). Prints each thread count's total seconds and nodes per second, and the time-to-depth
speed-up (seconds with 1 thread / seconds with 2) with the nodes-per-second ratio. The machine has 2
cores: a speed-up near 2 would be ideal; lazy SMP's threads search overlapping trees, so less is
expected. `--json` prints the figures as JSON instead, `--json PATH` writes them to PATH and prints
the report too. Without the EPD file (../shared/data absent) nothing is measured: say so, record why
with `--json`, exit 0.

    python benches/smp_speed.py [--depth 17] [--reuse] [--json [PATH]]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess
import chess.engine
from _common import add_json_option, emit_json, import_ferrochess, not_measured

EPD = Path(__file__).resolve().parent.parent.parent / "shared/data/epd/bratko-kopec.epd"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=17)
    parser.add_argument(
        "--reuse", action="store_true", help="one engine per thread count, cleared per position"
    )
    add_json_option(parser)
    args = parser.parse_args()
    ferrochess = import_ferrochess()
    if ferrochess is None:
        return 1
    if not EPD.is_file():
        return not_measured(
            args.json, f"{EPD} not found (../shared/data is not next to this checkout)"
        )
    boards = [chess.Board(line.split(" bm ")[0] + " 0 1") for line in EPD.read_text().splitlines()]
    limit = chess.engine.Limit(depth=args.depth)
    totals = {threads: {"seconds": 0.0, "nodes": 0} for threads in (1, 2)}
    kept = {t: ferrochess.Engine(hash_mb=64, threads=t, book=None) for t in (1, 2) if args.reuse}
    for board in boards:
        for threads in (1, 2):
            engine = kept.get(threads) or ferrochess.Engine(hash_mb=64, threads=threads, book=None)
            if args.reuse:
                engine.new_game()  # a fresh engine's table is left untouched until it searches
            start = time.perf_counter()
            info = engine.analyse(board, limit)
            totals[threads]["seconds"] += time.perf_counter() - start
            totals[threads]["nodes"] += info["nodes"]
            if not args.reuse:
                engine.close()
    for engine in kept.values():
        engine.close()
    nps = {t: totals[t]["nodes"] / totals[t]["seconds"] for t in totals}
    result = {
        "positions": len(boards),
        "tables": "reused" if args.reuse else "fresh",
        "depth": args.depth,
        "seconds": {t: round(totals[t]["seconds"], 2) for t in totals},
        "nps": {t: round(nps[t]) for t in totals},
        "time_to_depth_speedup": round(totals[1]["seconds"] / totals[2]["seconds"], 3),
        "nps_ratio": round(nps[2] / nps[1], 3),
    }
    if emit_json(args.json, result):
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
