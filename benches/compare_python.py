"""Time ferrochess against a pure-Python engine on the same positions, in one run.

Contract: for each of the first N fixed positions (20 by default), time `ferrochess.select_move(fen,
depth)` and the pure-Python engine's search (negamax + alpha-beta + quiescence over python-chess),
one after the other in this process, with no threads; each side's time for a position is the median
of `--repeat` runs (3 by default). Print a table per position, the total time of each side and the
ratio pure-Python time / ferrochess time; `--json` prints a JSON summary instead. The ferrochess
node count shown comes from a separate, untimed `ferrochess.Engine` search of the same depth with a
fresh table. Exit status 1 if ferrochess cannot be imported or returns an illegal move, else 0.

    python benches/compare_python.py [--depth 3] [--positions 20] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from typing import Any, Callable

import chess
import chess.engine
from pure_python_engine import PurePythonEngine

# Hand-picked positions, fixed for comparability between runs: openings, then middlegames (several
# are the well-known perft and engine-bench test positions), then endgames. Never reorder:
# `--positions N` takes the first N.
POSITIONS: list[tuple[str, str]] = [
    # Openings
    ("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("after 1.e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"),
    ("Sicilian Najdorf", "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6"),
    ("Ruy Lopez, 3...", "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"),
    ("King's Indian", "rnbq1rk1/ppp1ppbp/3p1np1/8/2PPP3/2N2N2/PP3PPP/R1BQKB1R w KQ - 1 6"),
    # Middlegames
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("perft position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"),
    (
        "perft position 6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    ),
    (
        "castled kings, queens on",
        "r3k2r/2pb1ppp/2pp1q2/p7/1nP1B3/1P2P3/P2N1PPP/R2QK2R w KQkq a6 0 14",
    ),
    (
        "Black knight on f4",
        "4rrk1/2p1b1p1/p1p3q1/4p3/2P2n1p/1P1NR2P/PB3PP1/3R1QK1 b - - 2 24",
    ),
    (
        "Dutch-style centre",
        "r1bq1rk1/pp2b1pp/n1pp1n2/3P1p2/2P1p3/2N1P2N/PP2BPPP/R1BQ1RK1 b - - 2 10",
    ),
    ("open kings, heavy pieces", "2r4r/1p4k1/1Pnp4/3Qb1pq/8/4BpPp/5P2/2RR1BK1 w - - 0 42"),
    ("sharp, uncastled", "r3kbbr/pp1n1p1P/3ppnp1/q5N1/1P1pP3/P1N1B3/2P1QP2/R3KB1R b KQkq b3 0 17"),
    ("knight outpost on d5", "3r4/ppq1ppkp/4bnp1/2pN4/2P1P3/1P4P1/PQ3PBP/R4K2 b - - 2 20"),
    # Endgames
    ("queen and rooks ending", "6k1/1R3p2/6p1/2Bp3p/3P2q1/P7/1P2rQ1K/5R2 b - - 4 44"),
    ("rooks and bishops ending", "8/6pk/2b1Rp2/3r4/1R1B2PP/P5K1/8/2r5 b - - 16 42"),
    ("perft position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"),
    ("queen against rooks", "8/R7/2q5/8/6k1/8/1P5p/K6R w - - 0 124"),
    ("king and pawns", "8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54"),
    ("pawn race", "8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1"),
]


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--depth", type=int, default=3, help="search depth in plies for both engines (default 3)"
    )
    parser.add_argument(
        "--positions",
        type=int,
        default=len(POSITIONS),
        metavar="N",
        help=f"use the first N of the {len(POSITIONS)} fixed positions (default {len(POSITIONS)})",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per position and side; the median counts (3)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print a JSON summary instead of the table"
    )
    arguments = parser.parse_args(argv)
    if not 1 <= arguments.positions <= len(POSITIONS):
        parser.error(
            f"--positions must be between 1 and {len(POSITIONS)}, got {arguments.positions}"
        )
    if arguments.depth < 1:
        parser.error(f"--depth must be at least 1, got {arguments.depth}")
    if arguments.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {arguments.repeat}")
    return arguments


def median_time(call: Callable[[], Any], repeat: int) -> tuple[Any, float]:
    """(result of the last call, median seconds over `repeat` calls)."""
    durations = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        durations.append(time.perf_counter() - start)
    return result, statistics.median(durations)


def is_legal(board: chess.Board, uci: str | None) -> bool:
    try:
        return uci is not None and board.is_legal(chess.Move.from_uci(uci))
    except ValueError:
        return False


def ferrochess_nodes(ferrochess: Any, board: chess.Board, depth: int) -> int | None:
    """Nodes ferrochess searches at `depth` with a fresh table (untimed; None if unavailable)."""
    try:
        with ferrochess.Engine() as engine:
            info = engine.analyse(board, chess.engine.Limit(depth=depth))
    except Exception as error:  # noqa: BLE001 - informative column only; reported, not fatal
        print(f"warning: ferrochess.Engine().analyse failed: {error!r}", file=sys.stderr)
        return None
    nodes = info.get("nodes")
    return int(nodes) if nodes is not None else None


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    try:
        import ferrochess
    except ImportError as error:
        print(
            f"cannot import ferrochess ({error}); build and install it first: pip install -e .",
            file=sys.stderr,
        )
        return 1
    depth = arguments.depth

    # Warm-up outside the timings: the first call pays for lazy initialisation and allocations.
    ferrochess.select_move(chess.STARTING_FEN, 1)
    PurePythonEngine().search(chess.Board(), 1)

    rows = []
    illegal = []
    for index, (name, fen) in enumerate(POSITIONS[: arguments.positions], start=1):
        board = chess.Board(fen)
        ferro_uci, ferro_seconds = median_time(
            lambda fen=fen: ferrochess.select_move(fen, depth), arguments.repeat
        )
        python_result, python_seconds = median_time(
            lambda board=board: PurePythonEngine().search(board, depth), arguments.repeat
        )
        python_uci = python_result.move.uci() if python_result.move else None
        if not is_legal(board, ferro_uci):
            illegal.append((index, name, fen, ferro_uci))
        rows.append(
            {
                "index": index,
                "name": name,
                "fen": fen,
                "ferrochess_move": ferro_uci,
                "ferrochess_seconds": ferro_seconds,
                "ferrochess_nodes": ferrochess_nodes(ferrochess, board, depth),
                "pure_python_move": python_uci,
                "pure_python_seconds": python_seconds,
                "pure_python_nodes": python_result.nodes,
            }
        )

    ferro_total = sum(row["ferrochess_seconds"] for row in rows)
    python_total = sum(row["pure_python_seconds"] for row in rows)
    python_nodes = sum(row["pure_python_nodes"] for row in rows)
    known_ferro_nodes = [
        row["ferrochess_nodes"] for row in rows if row["ferrochess_nodes"] is not None
    ]
    ferro_nodes = sum(known_ferro_nodes) if len(known_ferro_nodes) == len(rows) else None
    ratio = python_total / ferro_total if ferro_total > 0 else float("inf")
    same_moves = sum(row["ferrochess_move"] == row["pure_python_move"] for row in rows)
    version = getattr(ferrochess, "__version__", None)

    if arguments.json:
        summary = {
            "depth": depth,
            "positions": len(rows),
            "repeat": arguments.repeat,
            "ferrochess_version": version,
            "python_chess_version": chess.__version__,
            "python": platform.python_version(),
            "ferrochess_seconds": ferro_total,
            "ferrochess_nodes": ferro_nodes,
            "pure_python_seconds": python_total,
            "pure_python_nodes": python_nodes,
            "pure_python_nps": int(python_nodes / python_total) if python_total > 0 else None,
            "ratio_pure_python_over_ferrochess": ratio,
            "same_move": same_moves,
            "illegal_ferrochess_moves": [
                {"index": i, "fen": f, "move": m} for i, _, f, m in illegal
            ],
            "per_position": rows,
        }
        print(json.dumps(summary, indent=2))
    else:
        print(
            f"ferrochess {version} vs pure-Python negamax (python-chess {chess.__version__}), "
            f"depth {depth}, {len(rows)} positions, median of {arguments.repeat} runs, "
            f"Python {platform.python_version()}, sequential, one thread"
        )
        print(
            f"{'#':>2}  {'position':26} {'ferrochess':>10} {'ms':>8} {'FC nodes':>8}  "
            f"{'pure Py':>7} {'ms':>8} {'Py nodes':>8}  {'ratio':>7}"
        )
        for row in rows:
            row_ratio = (
                row["pure_python_seconds"] / row["ferrochess_seconds"]
                if row["ferrochess_seconds"] > 0
                else float("inf")
            )
            print(
                f"{row['index']:>2}  {row['name'][:26]:26} {str(row['ferrochess_move']):>10} "
                f"{row['ferrochess_seconds'] * 1000:>8.2f} {str(row['ferrochess_nodes']):>8}  "
                f"{str(row['pure_python_move']):>7} {row['pure_python_seconds'] * 1000:>8.2f} "
                f"{row['pure_python_nodes']:>8}  {row_ratio:>6.1f}x"
            )
        ferro_nodes_text = f", {ferro_nodes} nodes in untimed Engine runs" if ferro_nodes else ""
        print(f"total ferrochess:  {ferro_total:.3f} s{ferro_nodes_text}")
        print(
            f"total pure Python: {python_total:.3f} s ({python_nodes} nodes, "
            f"{python_nodes / python_total:.0f} nodes/s)"
        )
        print(f"ratio pure Python / ferrochess: {ratio:.1f}x")
        print(f"same move chosen in {same_moves} of {len(rows)} positions")
    for index, name, fen, move in illegal:
        print(
            f"ILLEGAL: ferrochess returned {move!r} for position {index} ({name}): {fen}",
            file=sys.stderr,
        )
    return 1 if illegal else 0


if __name__ == "__main__":
    sys.exit(main())
