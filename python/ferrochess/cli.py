"""The ``ferrochess`` command line: ``bestmove``, ``perft`` and ``bench``.

Contract: results go to stdout and the exit status is 0; bad input (a FEN, a move, a depth) prints
one line naming it on stderr and exits with status 2, never with a traceback. An internal engine
error (a bug) exits 1, Ctrl-C exits 130.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ferrochess import _core
from ferrochess.engine import bench, perft, select_move
from ferrochess.exceptions import EngineError, FerrochessError

__all__ = ["main"]

PROG = "ferrochess"
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``ferrochess`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="ferrochess: a chess engine with a Rust core.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_core.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    bestmove = commands.add_parser(
        "bestmove",
        help="print the best move of a position in UCI notation",
        description="Print the best move of FEN in UCI notation, or '(none)' if it has none.",
    )
    bestmove.add_argument("fen", metavar="FEN", help="the position, quoted as one argument")
    bestmove.add_argument(
        "--depth", type=int, default=8, metavar="N", help="search depth in plies (default: 8)"
    )

    perft_parser = commands.add_parser(
        "perft",
        help="count the leaf nodes of the legal move tree",
        description="Print the number of leaf nodes of FEN's legal move tree to DEPTH plies.",
    )
    perft_parser.add_argument("fen", metavar="FEN", help="the position, quoted as one argument")
    perft_parser.add_argument("depth", type=int, metavar="DEPTH", help="depth in plies")

    bench_parser = commands.add_parser(
        "bench",
        help="search the fixed bench positions and print the node-count signature",
        description="Search the bench positions; 'Bench: N' is the signature of the search.",
    )
    bench_parser.add_argument(
        "--depth",
        type=int,
        default=None,
        metavar="N",
        help=f"search depth in plies (default: {_core.BENCH_DEPTH})",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Execute the parsed command, printing its result; return the exit status."""
    if args.command == "bestmove":
        move = select_move(args.fen, args.depth)
        print("(none)" if move is None else move)
    elif args.command == "perft":
        print(perft(args.fen, args.depth))
    elif args.command == "bench":
        result = bench(args.depth)
        print(f"Positions: {result['positions']}")
        print(f"Depth: {result['depth']}")
        print(f"Bench: {result['nodes']}")
        print(f"Time: {result['time']:.3f} s")
        print(f"Nodes/s: {result['nps']}")
    else:  # pragma: no cover - argparse rejects unknown commands
        raise AssertionError(f"unknown command {args.command!r}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return run(args)
    except EngineError as error:
        print(f"{PROG} {args.command}: internal error: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except FerrochessError as error:
        print(f"{PROG} {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
