"""Quiet positions from real games with their results, for the Texel tuner (`texel-tune`).

Contract: reads every game with a decisive or drawn result from the given PGN files (default:
`../shared/data/pgn/*.pgn`) and writes one line per kept position, `FEN;RESULT`, RESULT being
White's score (1, 0.5 or 0). A position is kept when it is quiet enough for a static evaluation
to stand for it: past the first `--skip-plies` plies, the side to move not in check, and neither
the move that reached it nor the move played from it a capture or a promotion. Positions are
deduplicated by FEN (without the move counters).

With `--stockfish PATH`, RESULT is instead Stockfish's expected score for White after a search of
`--nodes` nodes, `1 / (1 + 10^(-cp / 400))` (1 or 0 for a mate): a label far less noisy than one
game's result, so fewer positions suffice (measurement by a stronger engine, not by games).

    python -m ferrochess_tools.texel_positions [PGN ...] [--skip-plies 10]
        [--stockfish /usr/games/stockfish --nodes 5000] --out positions.txt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from ferrochess_tools import REPO_ROOT

DEFAULT_PGN = REPO_ROOT.parent / "shared" / "data" / "pgn"
RESULTS = {"1-0": "1", "0-1": "0", "1/2-1/2": "0.5"}


def quiet_positions(game: chess.pgn.Game, skip_plies: int) -> list[str]:
    """The FENs of `game`'s quiet positions past `skip_plies`."""
    board = game.board()
    kept: list[str] = []
    last_noisy = True
    for move in game.mainline_moves():
        noisy = board.is_capture(move) or move.promotion is not None
        if board.ply() >= skip_plies and not last_noisy and not noisy and not board.is_check():
            kept.append(board.fen())
        board.push(move)
        last_noisy = noisy
    return kept


def stockfish_label(engine: chess.engine.SimpleEngine, fen: str, nodes: int) -> str:
    """Stockfish's expected score for White in `fen` after `nodes` nodes."""
    info = engine.analyse(chess.Board(fen), chess.engine.Limit(nodes=nodes))
    score = info["score"].white()
    if score.is_mate():
        return "1" if (score.mate() or 0) > 0 else "0"
    centipawns = score.score() or 0
    return f"{1 / (1 + 10 ** (-centipawns / 400)):.4f}"


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m ferrochess_tools.texel_positions",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="*", type=Path)
    parser.add_argument("--skip-plies", type=int, default=10)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--stockfish", type=Path, default=None)
    parser.add_argument("--nodes", type=int, default=5000)
    args = parser.parse_args()
    files = args.pgn or sorted(DEFAULT_PGN.glob("*.pgn"))
    if not files:
        parser.error(f"no PGN given and none in {DEFAULT_PGN}")
    seen: set[str] = set()
    games = 0
    engine = None if args.stockfish is None else chess.engine.SimpleEngine.popen_uci(args.stockfish)
    with args.out.open("w", encoding="utf-8") as out:
        for path in files:
            with path.open(encoding="utf-8", errors="replace") as handle:
                while (game := chess.pgn.read_game(handle)) is not None:
                    result = RESULTS.get(game.headers.get("Result", "*"))
                    if result is None or game.errors:
                        continue
                    games += 1
                    for fen in quiet_positions(game, args.skip_plies):
                        key = " ".join(fen.split()[:4])
                        if key not in seen:
                            seen.add(key)
                            label = (
                                result
                                if engine is None
                                else stockfish_label(engine, fen, args.nodes)
                            )
                            print(f"{fen};{label}", file=out)
    if engine is not None:
        engine.quit()
    print(f"{len(seen)} positions from {games} games", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
