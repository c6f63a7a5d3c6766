"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Protocol

import chess


def import_ferrochess() -> ModuleType | None:
    """Return the ferrochess module, or print how to install it and return None."""
    try:
        import ferrochess
    except ImportError as error:
        print(
            f"cannot import ferrochess ({error}); build and install it first: pip install -e .",
            file=sys.stderr,
        )
        return None
    return ferrochess


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """`--json [PATH]`: alone, the results as JSON on stdout instead of the report; with a PATH,
    the results written there as JSON and the report printed as usual (how `make bench` collects
    every benchmark's results for BENCHMARKS.md's summary)."""
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="PATH",
        help="write the results as JSON to PATH (the report is still printed); "
        "without PATH, print JSON instead of the report",
    )


def emit_json(destination: str | None, result: Any) -> bool:
    """Write `result` where `--json` asked (`destination` None: nowhere, "-": stdout, else that
    file, its folder created). True when the human report should still be printed."""
    if destination is None:
        return True
    text = json.dumps(result, indent=2)
    if destination == "-":
        print(text)
        return False
    path = Path(destination)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")
    return True


def not_measured(destination: str | None, reason: str) -> int:
    """A benchmark that cannot run here (a peer or data file absent): say why on stderr, record
    `{"not_measured": reason}` where `--json` asked (so the summary's row gives the reason), and
    return exit status 0: nothing failed, nothing was measured."""
    print(f"not measured: {reason}", file=sys.stderr)
    emit_json(destination, {"not_measured": reason})
    return 0


class SearchOutcome(Protocol):
    """What a peer engine's search returns."""

    move: chess.Move | None
    score: int
    nodes: int


Search = Callable[[chess.Board, int], SearchOutcome]

# (description, FEN, depth, acceptable moves in UCI)
TACTICAL_CHECKS: list[tuple[str, str, int, set[str]]] = [
    ("mate in 1 (back rank)", "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 3, {"d1d8"}),
    (
        "mate in 1 (scholar's)",
        "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 4",
        3,
        {"f3f7"},
    ),
    (
        "mate in 1 for Black (fool's)",
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2",
        3,
        {"d8h4"},
    ),
    (
        "win the hanging queen",
        "rnb1kbnr/pppp1ppp/8/4p1q1/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 3",
        3,
        {"c1g5"},
    ),
]
NO_MOVE_POSITIONS = ("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", "k7/8/1Q6/8/8/8/8/K7 b - - 0 1")


def self_test(
    search: Search,
    checks: list[tuple[str, str, int, set[str]]],
    legal_positions: tuple[str, ...] = (),
    self_play_plies: int = 8,
) -> int:
    """Check a peer engine: expected moves on `checks`, None where there is no legal move, a legal
    move on `legal_positions` at depth 2, and legal self-play at depth 2. Prints one line per check
    and a closing 'N passed, N failed' line; returns a process exit code."""
    failures = 0
    total = 0

    def report(ok: bool, text: str) -> None:
        nonlocal failures, total
        total += 1
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {text}")

    for description, fen, depth, expected in checks:
        board = chess.Board(fen)
        start = time.perf_counter()
        result = search(board, depth)
        elapsed = time.perf_counter() - start
        uci = result.move.uci() if result.move else None
        ok = result.move is not None and uci in expected and board.is_legal(result.move)
        report(
            ok,
            f"{description:28} depth {depth}: {uci} score {result.score} nodes {result.nodes} "
            f"in {elapsed:.2f}s (expected one of {sorted(expected)})",
        )
    for fen in NO_MOVE_POSITIONS:
        move = search(chess.Board(fen), 3).move
        report(move is None, f"no legal move in {fen}: {move}")
    for fen in legal_positions:
        board = chess.Board(fen)
        result = search(board, 2)
        ok = result.move is not None and board.is_legal(result.move)
        report(ok, f"legal move at depth 2: {result.move} nodes {result.nodes}, {fen}")
    board = chess.Board()
    for _ in range(self_play_plies):
        move = search(board, 2).move
        if move is None or move not in board.legal_moves:
            break
        board.push(move)
    played = " ".join(move.uci() for move in board.move_stack)
    report(len(board.move_stack) == self_play_plies, f"legal self-play at depth 2: {played}")
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0
