"""Compare move-generation speed: ferrochess.perft against a python-chess perft, in one run.

Contract: on three standard perft positions (start position, Kiwipete, position 3) count the leaf
nodes at a fixed depth with `ferrochess.perft(fen, depth)` and with the small python-chess perft
below, check both counts against the published ones, and print each side's nodes/s and the ratio
ferrochess / python-chess, per position and overall (total nodes / total time). Both perfts count
the last ply in bulk (the number of legal moves, without making them), the usual perft convention
(shakmaty's perft does the same). Runs sequentially in this process. `--json` prints the figures
as JSON instead, `--json PATH` writes them to PATH and prints the report too. Exit 1 if ferrochess
cannot be imported or a count is wrong.

    python benches/perft_speed.py [--quick] [--json [PATH]]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import chess
from _common import add_json_option, emit_json, import_ferrochess

# (name, FEN, depth, published leaf count at that depth, depth with --quick, published count at that
# depth)
PERFT_POSITIONS = [
    ("start position", chess.STARTING_FEN, 5, 4_865_609, 4, 197_281),
    (
        "Kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
        4_085_603,
        3,
        97_862,
    ),
    ("position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624, 4, 43_238),
]
# ferrochess is fast enough that one run can take milliseconds: repeat it until this much time has
# passed (at most MAX_REPEATS runs) and take the median run.
MIN_FERROCHESS_SECONDS = 1.0
MAX_REPEATS = 200


def python_chess_perft(board: chess.Board, depth: int) -> int:
    """Leaf nodes `depth` plies below `board` (python-chess movegen, last ply counted in bulk)."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def time_ferrochess(perft, fen: str, depth: int) -> tuple[int, float, int]:
    """(leaf count, median seconds per run, runs) of ferrochess's perft, repeated for stability."""
    durations: list[float] = []
    counts: set[int] = set()
    while len(durations) < MAX_REPEATS and sum(durations) < MIN_FERROCHESS_SECONDS:
        start = time.perf_counter()
        counts.add(perft(fen, depth))
        durations.append(time.perf_counter() - start)
    if len(counts) != 1:
        raise RuntimeError(
            f"ferrochess.perft({fen!r}, {depth}) gave different counts across runs: "
            f"{sorted(counts)}"
        )
    return counts.pop(), statistics.median(durations), len(durations)


def time_python_chess(fen: str, depth: int) -> tuple[int, float]:
    """(leaf count, seconds) for one python-chess perft run (long enough on its own to time)."""
    board = chess.Board(fen)
    start = time.perf_counter()
    nodes = python_chess_perft(board, depth)
    return nodes, time.perf_counter() - start


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one ply less per position (start 4, Kiwipete 3, position 3 4)",
    )
    add_json_option(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    ferrochess = import_ferrochess()
    if ferrochess is None:
        return 1
    perft = ferrochess.perft
    perft(chess.STARTING_FEN, 2)  # warm-up outside the timings

    rows = []
    wrong = []
    for name, fen, depth, expected, quick_depth, quick_expected in PERFT_POSITIONS:
        if arguments.quick:
            depth, expected = quick_depth, quick_expected
        ferro_nodes, ferro_seconds, repeats = time_ferrochess(perft, fen, depth)
        python_nodes, python_seconds = time_python_chess(fen, depth)
        for engine, nodes in (("ferrochess", ferro_nodes), ("python-chess", python_nodes)):
            if nodes != expected:
                wrong.append(
                    f"{engine} perft({name}, depth {depth}) = {nodes}, expected {expected}"
                )
        rows.append(
            {
                "name": name,
                "fen": fen,
                "depth": depth,
                "expected": expected,
                "ferrochess_nodes": ferro_nodes,
                "ferrochess_seconds": ferro_seconds,
                "ferrochess_runs": repeats,
                "ferrochess_nps": ferro_nodes / ferro_seconds,
                "python_chess_nodes": python_nodes,
                "python_chess_seconds": python_seconds,
                "python_chess_nps": python_nodes / python_seconds,
                "ratio": (ferro_nodes / ferro_seconds) / (python_nodes / python_seconds),
            }
        )

    ferro_total_seconds = sum(row["ferrochess_seconds"] for row in rows)
    python_total_seconds = sum(row["python_chess_seconds"] for row in rows)
    ferro_nps = sum(row["ferrochess_nodes"] for row in rows) / ferro_total_seconds
    python_nps = sum(row["python_chess_nodes"] for row in rows) / python_total_seconds
    ratio = ferro_nps / python_nps

    summary = {
        "ferrochess_version": getattr(ferrochess, "__version__", None),
        "python_chess_version": chess.__version__,
        "ferrochess_nps": ferro_nps,
        "python_chess_nps": python_nps,
        "ratio_ferrochess_over_python_chess": ratio,
        "wrong_counts": wrong,
        "per_position": rows,
    }
    if emit_json(arguments.json, summary):
        print(
            f"perft: ferrochess {getattr(ferrochess, '__version__', '?')} vs python-chess "
            f"{chess.__version__} (both count the last ply in bulk), sequential, one thread"
        )
        print(
            f"{'position':15} {'depth':>5} {'nodes':>9}  {'ferrochess s':>12} {'runs':>4} "
            f"{'nodes/s':>12}  {'python-chess s':>14} {'nodes/s':>10}  {'ratio':>7}"
        )
        for row in rows:
            print(
                f"{row['name']:15} {row['depth']:>5} {row['ferrochess_nodes']:>9}  "
                f"{row['ferrochess_seconds']:>12.4f} {row['ferrochess_runs']:>4} "
                f"{row['ferrochess_nps']:>12.0f}  {row['python_chess_seconds']:>14.3f} "
                f"{row['python_chess_nps']:>10.0f}  {row['ratio']:>6.1f}x"
            )
        print(f"overall ferrochess:   {ferro_nps:>12.0f} nodes/s")
        print(f"overall python-chess: {python_nps:>12.0f} nodes/s")
        print(f"ratio ferrochess / python-chess nodes/s: {ratio:.1f}x")
    for message in wrong:
        print(f"WRONG COUNT: {message}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
