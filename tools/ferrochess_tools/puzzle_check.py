"""Check the puzzles ferrochess makes from games against an independent search.

Runs :func:`ferrochess.training.puzzles` over the first ``--games`` games of PGN files (read in
order; with ``--max-elo``, only games whose players are both rated below it; a game met twice, by
its Site and players, counts once), then
searches each puzzle's start position with Stockfish (python-chess's ``chess.engine``, multipv 2,
a fixed ``--depth``) and counts the puzzle as passed when Stockfish's best move is the puzzle's
first move and is the only good one: at least 200 centipawns better than Stockfish's second best,
or a mate where the second best is not a mate (or the only legal move). Prints the counts (games,
puzzles, passed, failed) and one line per failure; exit 1 when a puzzle failed.

    python -m ferrochess_tools.puzzle_check ../shared/data/pgn/lichess_db_100k.pgn \
        ../shared/data/pgn/twic1599_1000k.pgn --max-elo 2200 --games 100 --depth 14
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from collections.abc import Sequence

import chess
import chess.engine
import chess.pgn

UNIQUE_CP = 200
"""The least lead of the first move over the second best (centipawns)."""
MATE_AS_CP = 100_000


def verdict(infos: Sequence[chess.engine.InfoDict], first: chess.Move, turn: chess.Color) -> str:
    """``"passed"`` or why not, from Stockfish's multipv lines of the puzzle's start."""
    if not infos or not infos[0].get("pv"):
        return "no line"
    if infos[0]["pv"][0] != first:
        return f"Stockfish prefers {infos[0]['pv'][0].uci()}"
    if len(infos) < 2:
        return "passed"
    best = infos[0]["score"].pov(turn)
    second = infos[1]["score"].pov(turn)
    if best.is_mate() and (best.mate() or 0) > 0:
        if second.is_mate() and (second.mate() or 0) > 0:
            return f"two mates ({best}, {second})"
        return "passed"
    lead = best.score(mate_score=MATE_AS_CP) - second.score(mate_score=MATE_AS_CP)
    return "passed" if lead >= UNIQUE_CP else f"second best only {lead} cp worse ({best}, {second})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", help="the PGN files")
    parser.add_argument("--max-elo", type=int, default=None,
                        help="only games whose players are both rated below this")
    parser.add_argument("--games", type=int, default=100, help="games read from its start")
    parser.add_argument("--nodes", type=int, default=None,
                        help="ferrochess's nodes per position (default: training's)")
    parser.add_argument("--depth", type=int, default=14, help="Stockfish's depth")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    args = parser.parse_args(argv)

    from ferrochess.training import puzzles
    from ferrochess.training.puzzles import DEFAULT_NODES

    games: list[chess.pgn.Game] = []
    seen: set[tuple[str, ...]] = set()
    for path in args.pgn:
        with open(path, encoding="utf-8", errors="replace") as stream:
            while len(games) < args.games and (game := chess.pgn.read_game(stream)) is not None:
                tags = ("Site", "White", "Black", "Round")
                key = tuple(game.headers.get(tag, "?") for tag in tags)
                elos = [game.headers.get(tag, "") for tag in ("WhiteElo", "BlackElo")]
                rated_above = args.max_elo is not None and any(
                    elo.isdigit() and int(elo) >= args.max_elo for elo in elos
                )
                if key in seen or rated_above:
                    continue
                seen.add(key)
                games.append(game)
    started = time.monotonic()

    def progress(done: int, found: int) -> None:
        print(f"  {done}/{len(games)} games, {found} puzzles, "
              f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)

    made = []
    for game in games:
        made.extend(puzzles(game, nodes=args.nodes or DEFAULT_NODES))
        progress(games.index(game) + 1, len(made))
    passed = 0
    failures = []
    kinds: collections.Counter[str] = collections.Counter()
    with chess.engine.SimpleEngine.popen_uci(args.stockfish) as stockfish:
        stockfish.configure({"Threads": 1})
        for puzzle in made:
            kinds[puzzle.kind] += 1
            board = puzzle.board()
            first = chess.Move.from_uci(puzzle.moves[0])
            infos = stockfish.analyse(board, chess.engine.Limit(depth=args.depth), multipv=2)
            said = verdict(infos, first, board.turn)
            if said == "passed":
                passed += 1
            else:
                failures.append((puzzle, said))
    for puzzle, said in failures:
        print(f"FAILED {puzzle.id} {puzzle.fen} {' '.join(puzzle.moves)}: {said}")
    print(f"games {len(games)}, puzzles {len(made)} ({dict(kinds)}), passed {passed}, "
          f"failed {len(failures)}; ferrochess nodes {args.nodes or DEFAULT_NODES}, "
          f"Stockfish depth {args.depth}, {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
