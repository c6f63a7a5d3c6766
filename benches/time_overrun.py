"""How far a timed search runs past its budget: `Engine.play` with `Limit(time=T)` on several
positions and budgets, measured from Python (wall clock around the call, binding included),
reporting the overrun (elapsed - T) as median, p99 and max in milliseconds. `--json` prints the
figures as JSON instead, `--json PATH` writes them to PATH and prints the report too.

Usage: python benches/time_overrun.py [--repeats 10] [--json [PATH]]
"""

from __future__ import annotations

import argparse
import statistics
import time

import chess
import chess.engine
import ferrochess
from _common import add_json_option, emit_json

POSITIONS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
]
BUDGETS = [0.01, 0.05, 0.1, 0.5]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    add_json_option(parser)
    args = parser.parse_args()
    overruns: dict[float, list[float]] = {budget: [] for budget in BUDGETS}
    with ferrochess.Engine(book=None) as engine:
        for budget in BUDGETS:
            for _ in range(args.repeats):
                for fen in POSITIONS:
                    board = chess.Board(fen)
                    start = time.perf_counter()
                    result = engine.play(board, chess.engine.Limit(time=budget))
                    elapsed = time.perf_counter() - start
                    assert result.move in board.legal_moves
                    overruns[budget].append((elapsed - budget) * 1000)
    summary = {}
    for budget, values in overruns.items():
        values.sort()
        summary[budget] = {
            "searches": len(values),
            "median_ms": round(statistics.median(values), 2),
            "p99_ms": round(values[min(len(values) - 1, int(len(values) * 0.99))], 2),
            "max_ms": round(values[-1], 2),
        }
    if not emit_json(args.json, summary):
        return
    print(f"{'budget':>8} {'searches':>9} {'median':>9} {'p99':>9} {'max':>9}  (overrun, ms)")
    for budget, row in summary.items():
        print(
            f"{budget * 1000:>6.0f}ms {row['searches']:>9} {row['median_ms']:>9.2f}"
            f" {row['p99_ms']:>9.2f} {row['max_ms']:>9.2f}"
        )


if __name__ == "__main__":
    main()
