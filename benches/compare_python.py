"""Time ferrochess against two pure-Python engines on the same positions, in one run.

Contract: for each of the first N fixed positions (20 by default), time `ferrochess.select_move(fen,
depth, book=None)` (a search: the opening book is off) once (the median of `--repeat` runs, 3 by
default), then each chosen pure-Python peer's search at the same depth, one after the other in
this process, with no threads. The peers (`--peer`, both by default) are two negamax +
alpha-beta + quiescence searches over python-chess:

* optimized (`pure_python_engine.py`): written for speed, MVV-LVA capture ordering; timed as the
  median of `--repeat` runs.
* tutorial (`tutorial_engine.py`): the structure the python-chess engine tutorials teach, with no
  move ordering and game-over checks in every evaluation; timed once per position by default
  (`--tutorial-repeat`), because it needs minutes on the tactical middlegames. A run that passes
  `--tutorial-budget` seconds is stopped; the position stays in the totals with the time and nodes
  spent until then, and the totals and ratio are then printed as lower bounds (">=").

Print a table per position, each side's total time, each peer's nodes and nodes/s and the ratio peer
time / ferrochess time; `--json` prints a JSON summary instead, `--json PATH` writes it to PATH
and prints the report too. The ferrochess node count shown comes from a separate, untimed
`ferrochess.Engine` search of the same depth with a fresh table. Exit status 1 if ferrochess cannot
be imported or returns an illegal move, else 0.

    python benches/compare_python.py [--depth 3] [--positions 20] [--repeat 3]
        [--peer {optimized,tutorial,both}] [--tutorial-repeat 1] [--tutorial-budget 600]
        [--json [PATH]]
"""

from __future__ import annotations

import argparse
import functools
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable

import chess
import chess.engine
from _common import add_json_option, emit_json, import_ferrochess
from pure_python_engine import PurePythonEngine
from tutorial_engine import SearchAborted, TutorialEngine

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


PEERS = ("optimized", "tutorial")
PEER_LABELS = {"optimized": "optimized peer", "tutorial": "tutorial peer"}
DEFAULT_TUTORIAL_BUDGET = 600.0


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--depth", type=int, default=3, help="search depth in plies for all engines (default 3)"
    )
    parser.add_argument(
        "--positions",
        type=int,
        default=len(POSITIONS),
        metavar="N",
        help=f"use the first N of the {len(POSITIONS)} fixed positions (default {len(POSITIONS)})",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per position for ferrochess and the optimized peer; the median counts (3)",
    )
    parser.add_argument(
        "--peer",
        choices=("optimized", "tutorial", "both"),
        default="both",
        help="which pure-Python peer(s) to time against ferrochess (default both)",
    )
    parser.add_argument(
        "--tutorial-repeat",
        type=int,
        default=1,
        help="runs per position for the tutorial peer; the median counts (default 1)",
    )
    parser.add_argument(
        "--tutorial-budget",
        type=float,
        default=DEFAULT_TUTORIAL_BUDGET,
        metavar="SECONDS",
        help="stop a tutorial-peer search after this many seconds and report the position as "
        "unfinished, its figures as lower bounds; 0 = no limit "
        f"(default {DEFAULT_TUTORIAL_BUDGET:g})",
    )
    add_json_option(parser)
    arguments = parser.parse_args(argv)
    if not 1 <= arguments.positions <= len(POSITIONS):
        parser.error(
            f"--positions must be between 1 and {len(POSITIONS)}, got {arguments.positions}"
        )
    if arguments.depth < 1:
        parser.error(f"--depth must be at least 1, got {arguments.depth}")
    if arguments.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {arguments.repeat}")
    if arguments.tutorial_repeat < 1:
        parser.error(f"--tutorial-repeat must be at least 1, got {arguments.tutorial_repeat}")
    if arguments.tutorial_budget < 0:
        parser.error(f"--tutorial-budget must be >= 0, got {arguments.tutorial_budget}")
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


@dataclass
class PeerRun:
    """One peer's figures on one position; `finished` is False if its budget stopped it."""

    move: str | None
    seconds: float
    nodes: int
    finished: bool = True


def time_optimized(board: chess.Board, depth: int, repeat: int) -> PeerRun:
    result, seconds = median_time(lambda: PurePythonEngine().search(board, depth), repeat)
    return PeerRun(result.move.uci() if result.move else None, seconds, result.nodes)


def time_tutorial(board: chess.Board, depth: int, repeat: int, budget: float) -> PeerRun:
    """Median of `repeat` tutorial-peer runs; a run stopped by the budget ends the repeats."""
    durations = []
    move: str | None = None
    nodes = 0
    for _ in range(repeat):
        start = time.perf_counter()
        engine = TutorialEngine(deadline=start + budget if budget > 0 else None)
        try:
            result = engine.search(board, depth)
        except SearchAborted as aborted:
            # Repeating would only hit the budget again: report this run as a lower bound.
            return PeerRun(None, time.perf_counter() - start, aborted.nodes, finished=False)
        durations.append(time.perf_counter() - start)
        move, nodes = (result.move.uci() if result.move else None), result.nodes
    return PeerRun(move, statistics.median(durations), nodes)


def is_legal(board: chess.Board, uci: str | None) -> bool:
    try:
        return uci is not None and board.is_legal(chess.Move.from_uci(uci))
    except ValueError:
        return False


def ferrochess_nodes(ferrochess: Any, board: chess.Board, depth: int) -> int | None:
    """Nodes ferrochess searches at `depth` with a fresh table (untimed; None if unavailable)."""
    try:
        with ferrochess.Engine(book=None) as engine:
            info = engine.analyse(board, chess.engine.Limit(depth=depth))
    except Exception as error:  # noqa: BLE001 - informative column only; reported, not fatal
        print(f"warning: ferrochess.Engine().analyse failed: {error!r}", file=sys.stderr)
        return None
    nodes = info.get("nodes")
    return int(nodes) if nodes is not None else None


def peer_summary(rows: list[dict[str, Any]], peer: str, ferro_total: float) -> dict[str, Any]:
    """Totals for one peer over all rows, and over the rows it finished."""
    runs = [row[peer] for row in rows]
    seconds = sum(run["seconds"] for run in runs)
    nodes = sum(run["nodes"] for run in runs)
    finished_rows = [row for row in rows if row[peer]["finished"]]
    finished_seconds = sum(row[peer]["seconds"] for row in finished_rows)
    finished_ferro = sum(row["ferrochess_seconds"] for row in finished_rows)
    return {
        "seconds": seconds,
        "nodes": nodes,
        "nps": int(nodes / seconds) if seconds > 0 else None,
        "ratio_over_ferrochess": seconds / ferro_total if ferro_total > 0 else float("inf"),
        # True when some positions were stopped by the budget: then seconds, nodes and the ratio
        # are lower bounds of what the full searches would take.
        "lower_bound": len(finished_rows) < len(rows),
        "finished_positions": len(finished_rows),
        "finished_seconds": finished_seconds,
        "finished_ferrochess_seconds": finished_ferro,
        "finished_ratio_over_ferrochess": (
            finished_seconds / finished_ferro if finished_ferro > 0 else float("inf")
        ),
        "same_move_as_ferrochess": sum(
            row[peer]["finished"] and row[peer]["move"] == row["ferrochess_move"] for row in rows
        ),
    }


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    ferrochess = import_ferrochess()
    if ferrochess is None:
        return 1
    depth = arguments.depth
    peers = PEERS if arguments.peer == "both" else (arguments.peer,)
    budget = arguments.tutorial_budget

    # Warm-up outside the timings: the first call pays for lazy initialisation and allocations.
    ferrochess.select_move(chess.STARTING_FEN, 1, book=None)
    PurePythonEngine().search(chess.Board(), 1)
    TutorialEngine().search(chess.Board(), 1)

    rows: list[dict[str, Any]] = []
    illegal = []
    for index, (name, fen) in enumerate(POSITIONS[: arguments.positions], start=1):
        board = chess.Board(fen)
        ferro_uci, ferro_seconds = median_time(
            functools.partial(ferrochess.select_move, fen, depth, book=None), arguments.repeat
        )
        if not is_legal(board, ferro_uci):
            illegal.append((index, name, fen, ferro_uci))
        row: dict[str, Any] = {
            "index": index,
            "name": name,
            "fen": fen,
            "ferrochess_move": ferro_uci,
            "ferrochess_seconds": ferro_seconds,
            "ferrochess_nodes": ferrochess_nodes(ferrochess, board, depth),
        }
        if "optimized" in peers:
            row["optimized"] = asdict(time_optimized(board, depth, arguments.repeat))
        if "tutorial" in peers:
            row["tutorial"] = asdict(time_tutorial(board, depth, arguments.tutorial_repeat, budget))
        rows.append(row)
        if arguments.json != "-":
            # Progress on stderr: the tutorial peer can spend minutes on one position.
            spent = ", ".join(
                f"{peer} {row[peer]['seconds']:.1f} s"
                + ("" if row[peer]["finished"] else " (stopped at budget)")
                for peer in peers
            )
            print(f"[{index}/{arguments.positions}] {name}: {spent}", file=sys.stderr, flush=True)

    ferro_total = sum(row["ferrochess_seconds"] for row in rows)
    known_ferro_nodes = [
        row["ferrochess_nodes"] for row in rows if row["ferrochess_nodes"] is not None
    ]
    ferro_nodes = sum(known_ferro_nodes) if len(known_ferro_nodes) == len(rows) else None
    summaries = {peer: peer_summary(rows, peer, ferro_total) for peer in peers}
    version = getattr(ferrochess, "__version__", None)

    summary = {
        "depth": depth,
        "positions": len(rows),
        "repeat": arguments.repeat,
        "tutorial_repeat": arguments.tutorial_repeat if "tutorial" in peers else None,
        "tutorial_budget_seconds": (budget or None) if "tutorial" in peers else None,
        "ferrochess_version": version,
        "python_chess_version": chess.__version__,
        "python": platform.python_version(),
        "ferrochess_seconds": ferro_total,
        "ferrochess_nodes": ferro_nodes,
        "peers": summaries,
        "illegal_ferrochess_moves": [{"index": i, "fen": f, "move": m} for i, _, f, m in illegal],
        "per_position": rows,
    }
    if emit_json(arguments.json, summary):
        print_report(arguments, rows, peers, summaries, ferro_total, ferro_nodes, version)
    for index, name, fen, move in illegal:
        print(
            f"ILLEGAL: ferrochess returned {move!r} for position {index} ({name}): {fen}",
            file=sys.stderr,
        )
    return 1 if illegal else 0


def print_report(
    arguments: argparse.Namespace,
    rows: list[dict[str, Any]],
    peers: tuple[str, ...],
    summaries: dict[str, dict[str, Any]],
    ferro_total: float,
    ferro_nodes: int | None,
    version: str | None,
) -> None:
    """The human-readable table and closing summary."""

    def runs(count: int) -> str:
        return f"median of {count} runs" if count > 1 else "one run"

    timing = f"ferrochess {runs(arguments.repeat)}"
    if "optimized" in peers:
        timing += f", optimized peer {runs(arguments.repeat)}"
    if "tutorial" in peers:
        budget = arguments.tutorial_budget
        timing += f", tutorial peer {runs(arguments.tutorial_repeat)} "
        timing += f"(budget {budget:g} s per position)" if budget > 0 else "(no budget)"
    print(
        f"ferrochess {version} vs pure-Python negamax (python-chess {chess.__version__}), "
        f"depth {arguments.depth}, {len(rows)} positions, {timing}, "
        f"Python {platform.python_version()}, sequential, one thread"
    )
    header = f"{'#':>2}  {'position':26} {'ferrochess':>10} {'ms':>8} {'FC nodes':>8}"
    for peer in peers:
        header += f"  {peer:>9} {'ms':>10} {'nodes':>9} {'ratio':>9}"
    print(header)
    for row in rows:
        line = (
            f"{row['index']:>2}  {row['name'][:26]:26} {str(row['ferrochess_move']):>10} "
            f"{row['ferrochess_seconds'] * 1000:>8.2f} {str(row['ferrochess_nodes']):>8}"
        )
        for peer in peers:
            run = row[peer]
            bound = "" if run["finished"] else ">="
            row_ratio = (
                run["seconds"] / row["ferrochess_seconds"]
                if row["ferrochess_seconds"] > 0
                else float("inf")
            )
            move = str(run["move"]) if run["finished"] else "stopped"
            line += (
                f"  {move:>9} {bound + format(run['seconds'] * 1000, '.1f'):>10} "
                f"{bound + str(run['nodes']):>9} {bound + format(row_ratio, '.0f') + 'x':>9}"
            )
        print(line)
    ferro_nodes_text = f", {ferro_nodes} nodes in untimed Engine runs" if ferro_nodes else ""
    print(f"total ferrochess: {ferro_total:.3f} s{ferro_nodes_text}")
    for peer in peers:
        figures = summaries[peer]
        bound = ">= " if figures["lower_bound"] else ""
        print(
            f"total {PEER_LABELS[peer]}: {bound}{figures['seconds']:.3f} s, "
            f"{bound}{figures['nodes']} nodes, {figures['nps']} nodes/s"
        )
        print(f"ratio {peer} / ferrochess: {bound}{figures['ratio_over_ferrochess']:.1f}x")
        if figures["lower_bound"]:
            stopped = len(rows) - figures["finished_positions"]
            print(
                f"  {stopped} of {len(rows)} positions stopped at the "
                f"{arguments.tutorial_budget:g} s budget (counted with the time and nodes spent "
                f"until then); on the "
                f"{figures['finished_positions']} finished positions: {peer} "
                f"{figures['finished_seconds']:.3f} s, ferrochess "
                f"{figures['finished_ferrochess_seconds']:.3f} s, ratio "
                f"{figures['finished_ratio_over_ferrochess']:.1f}x"
            )
        print(
            f"  same move as ferrochess in {figures['same_move_as_ferrochess']} of "
            f"{figures['finished_positions']} positions"
        )


if __name__ == "__main__":
    sys.exit(main())
