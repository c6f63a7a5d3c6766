"""Balanced openings from real games: the generator of `benches/data/openings-2300.epd`.

Contract: reads the games of the given PGN files (default: every `*.pgn` in `../shared/data/pgn`,
in name order) and writes an EPD file of the positions that strong players reached and that
Stockfish scores close to level, one position a line, in the order of their source games. A game
gives a position when

1. python-chess reads it without errors (a game it reports errors for is skipped and counted),
   it starts from the standard position, and both `WhiteElo` and `BlackElo` are numbers of at
   least `--min-elo` (2300);
2. its main line has at least `--plies` (8) moves: the position is the one after that many;
3. no earlier game (in file order, then game order) reached the same position (`board.epd()`:
   pieces, side to move, castling rights, en passant): the first game is the source;
4. Stockfish (one thread, the hash cleared before each position, a fixed `--depth`, or `--nodes`
   when given) scores it within `--max-cp` (50) centipawns of zero; a mate score is never kept.

`--limit N` stops after the first N kept positions. Each line carries the opcodes

- `ce`: Stockfish's score in centipawns from the side to move's view; `acd` the depth searched
  (or `acn` the nodes, with `--nodes`);
- `hmvc`, `fmvn`: the move counters after `--plies` plies, so the FEN round-trips;
- `id`: `"FILE game G"` (G counts the file's games from 1);
- `c0`: the source game, `"<Event>, <White>-<Black>, <Date>, round <Round>"`;
- `c1`: the moves that reach the position, in SAN with move numbers.

The file starts with `#` comment lines stating the command's settings and the Stockfish version
(`ferrochess.match`'s EPD reader skips them; strip them for a reader that does not). The
command prints a summary: games read, games with errors, games whose players meet the rating,
games long enough, distinct positions, positions kept within the margin, and their score spread.

    python -m ferrochess_tools.balanced_openings --min-elo 2300 --plies 8 --depth 20 \
        --max-cp 50 --out benches/data/openings-2300.epd
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from ferrochess_tools import REPO_ROOT, print_summary

DEFAULT_PGN = REPO_ROOT.parent / "shared" / "data" / "pgn"
"""Where the default games are: every `*.pgn` there, in name order."""
DEFAULT_STOCKFISH = "/usr/games/stockfish"
MIN_ELO = 2300
"""Both players' least rating (`WhiteElo`, `BlackElo`) for a game to count."""
PLIES = 8
"""The position is the one after this many plies of the game."""
MAX_CP = 50
"""The largest |score| (centipawns, Stockfish's) of a kept position."""
DEPTH = 20
"""Stockfish's search depth per position when no node count is given."""

Evaluate = Callable[[chess.Board], chess.engine.Score]
"""A position's score from the side to move's view (a mate is a `chess.engine.Mate`)."""


@dataclass(frozen=True)
class Candidate:
    """A position reached by a qualifying game: ``board`` (with the game's moves on its stack),
    ``file`` and ``game`` (the game's number in its file, from 1) and the game's ``headers``."""

    board: chess.Board
    file: str
    game: int
    headers: dict[str, str]

    @property
    def source(self) -> str:
        """`"<Event>, <White>-<Black>, <Date>, round <Round>"` from the game's headers."""
        tag = self.headers.get
        return (
            f"{tag('Event', '?')}, {tag('White', '?')}-{tag('Black', '?')}, "
            f"{tag('Date', '?')}, round {tag('Round', '?')}"
        )

    def epd(self, score: int, limit: chess.engine.Limit) -> str:
        """The EPD line of this position scored ``score`` (centipawns, side to move) by a search
        of ``limit`` (its depth, else its nodes)."""
        board = self.board
        moves = chess.Board().variation_san(board.move_stack)
        search = {"acd": limit.depth} if limit.depth is not None else {"acn": limit.nodes}
        return board.epd(
            ce=score,
            **search,
            hmvc=board.halfmove_clock,
            fmvn=board.fullmove_number,
            id=f"{self.file} game {self.game}",
            c0=self.source,
            c1=moves,
        )


@dataclass
class Counts:
    """What the selection saw, for the summary."""

    games: int = 0
    errors: int = 0
    other_start: int = 0
    rated: int = 0
    long_enough: int = 0
    distinct: int = 0
    evaluated: int = 0
    mates: int = 0
    kept: int = 0
    scores: list[int] = field(default_factory=list)

    def summary(self, min_elo: int, plies: int, max_cp: int) -> dict[str, object]:
        """The counts as the command prints them, with the kept positions' score spread."""
        spread: dict[str, object] = {}
        if self.scores:
            spread = {
                "score min/median/max (cp, side to move)": (
                    f"{min(self.scores)} / {statistics.median(self.scores):g} / {max(self.scores)}"
                ),
                "score mean, mean |score| (cp)": (
                    f"{statistics.fmean(self.scores):.1f}, "
                    f"{statistics.fmean(abs(s) for s in self.scores):.1f}"
                ),
                "scores below 0 / 0 / above 0": (
                    f"{sum(s < 0 for s in self.scores)} / {self.scores.count(0)} / "
                    f"{sum(s > 0 for s in self.scores)}"
                ),
            }
        return {
            "games read": self.games,
            "games skipped for errors": self.errors,
            "games from another start position": self.other_start,
            f"games with both players rated >= {min_elo}": self.rated,
            f"... with at least {plies} plies": self.long_enough,
            "distinct positions": self.distinct,
            "positions evaluated": self.evaluated,
            "mate scores dropped": self.mates,
            f"kept within +-{max_cp} cp": self.kept,
            **spread,
        }


def rating(headers: chess.pgn.Headers, tag: str) -> int | None:
    """The rating in ``tag`` (``WhiteElo``, ``BlackElo``), or None when it is not a number."""
    value = headers.get(tag, "").strip()
    return int(value) if value.isdigit() else None


def both_rated(headers: chess.pgn.Headers, min_elo: int) -> bool:
    """Whether both players' ratings are given and at least ``min_elo``."""
    ratings = [rating(headers, tag) for tag in ("WhiteElo", "BlackElo")]
    return all(value is not None and value >= min_elo for value in ratings)


def read_games(paths: Iterable[Path], counts: Counts) -> Iterator[tuple[Path, int, chess.pgn.Game]]:
    """Each game of ``paths`` that python-chess reads without errors, with its file and number
    in the file (from 1), in order; a game with errors is counted in ``counts.errors``. A missing
    or unreadable file raises OSError naming it."""
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as handle:
            number = 0
            while (game := chess.pgn.read_game(handle)) is not None:
                number += 1
                counts.games += 1
                if game.errors:
                    counts.errors += 1
                    continue
                yield path, number, game


def candidates(paths: Iterable[Path], min_elo: int, plies: int, counts: Counts) -> list[Candidate]:
    """The distinct positions after ``plies`` plies of the games of ``paths`` whose players are
    both rated at least ``min_elo`` (module docs, steps 1-3), in source order; ``counts`` is
    filled in."""
    found: dict[str, Candidate] = {}
    for path, number, game in read_games(paths, counts):
        board = game.board()
        if board.fen() != chess.STARTING_FEN or board.chess960:
            counts.other_start += 1
            continue
        if not both_rated(game.headers, min_elo):
            continue
        counts.rated += 1
        moves = list(game.mainline_moves())
        if len(moves) < plies:
            continue
        counts.long_enough += 1
        for move in moves[:plies]:
            board.push(move)
        key = board.epd()
        if key not in found:
            found[key] = Candidate(board, path.name, number, dict(game.headers))
    counts.distinct = len(found)
    return list(found.values())


def balanced(
    positions: Iterable[Candidate],
    evaluate: Evaluate,
    max_cp: int,
    counts: Counts,
    limit: int | None = None,
) -> list[tuple[Candidate, int]]:
    """The positions that ``evaluate`` scores within ``max_cp`` of zero (a mate never), with
    their scores (centipawns, side to move), in the given order; at most ``limit`` of them
    (evaluation stops there). ``counts`` is filled in."""
    if max_cp < 0:
        raise ValueError(f"max_cp = {max_cp!r}: must be >= 0")
    kept: list[tuple[Candidate, int]] = []
    for candidate in positions:
        if limit is not None and len(kept) >= limit:
            break
        score = evaluate(candidate.board.copy(stack=False))
        counts.evaluated += 1
        if score.is_mate():
            counts.mates += 1
            continue
        centipawns = score.score()
        assert centipawns is not None
        if abs(centipawns) <= max_cp:
            kept.append((candidate, centipawns))
    counts.kept = len(kept)
    counts.scores = [score for _, score in kept]
    return kept


def stockfish(engine: chess.engine.SimpleEngine, limit: chess.engine.Limit) -> Evaluate:
    """An :data:`Evaluate` that searches each position with ``engine`` to ``limit``, after a
    `ucinewgame` (a cleared hash), so a score does not depend on the positions before it."""

    def evaluate(board: chess.Board) -> chess.engine.Score:
        info = engine.analyse(board, limit, game=object())
        return info["score"].pov(board.turn)

    return evaluate


def write_epd(
    path: Path, kept: Iterable[tuple[Candidate, int]], limit: chess.engine.Limit, header: list[str]
) -> None:
    """Writes ``kept`` to ``path`` as EPD (module docs), after ``header``'s lines as comments."""
    lines = [f"# {line}".rstrip() for line in header]
    lines += [candidate.epd(score, limit) for candidate, score in kept]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def default_pgn() -> list[Path]:
    """Every `*.pgn` of `../shared/data/pgn`, in name order."""
    return sorted(DEFAULT_PGN.glob("*.pgn"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ferrochess_tools.balanced_openings", description=__doc__.splitlines()[0]
    )
    parser.add_argument("pgn", nargs="*", type=Path, help=f"default: every *.pgn in {DEFAULT_PGN}")
    parser.add_argument("--out", type=Path, required=True, help="the EPD file to write")
    parser.add_argument("--min-elo", type=int, default=MIN_ELO, help="both players' least rating")
    parser.add_argument("--plies", type=int, default=PLIES, help="the position after this many")
    parser.add_argument("--max-cp", type=int, default=MAX_CP, help="the largest |score| kept")
    parser.add_argument("--depth", type=int, default=DEPTH, help="Stockfish's depth")
    parser.add_argument("--nodes", type=int, default=None, help="Stockfish's nodes (not depth)")
    parser.add_argument("--hash", type=int, default=64, help="Stockfish's hash, MB")
    parser.add_argument("--limit", type=int, default=None, help="keep at most this many")
    parser.add_argument("--stockfish", default=DEFAULT_STOCKFISH)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    for name in ("plies", "max_cp", "depth", "nodes", "limit"):
        value = getattr(args, name)
        if value is not None and (value < 0 or (value == 0 and name in ("depth", "nodes"))):
            parser.error(f"--{name.replace('_', '-')} {value}: must be positive")
    paths = args.pgn or default_pgn()
    if not paths:
        parser.error(f"no PGN given and no *.pgn in {DEFAULT_PGN}")
    for path in paths:
        if not path.is_file():
            parser.error(f"PGN file {str(path)!r} does not exist")
    limit = (
        chess.engine.Limit(nodes=args.nodes)
        if args.nodes is not None
        else chess.engine.Limit(depth=args.depth)
    )

    counts = Counts()
    positions = candidates(paths, args.min_elo, args.plies, counts)
    try:
        engine = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    except OSError as error:
        parser.error(f"cannot start Stockfish {args.stockfish!r}: {error}")
    with engine:
        engine.configure({"Threads": 1, "Hash": args.hash})
        version = engine.id.get("name", args.stockfish)
        kept = balanced(positions, stockfish(engine, limit), args.max_cp, counts, args.limit)

    search = f"depth {limit.depth}" if limit.depth is not None else f"{limit.nodes} nodes"
    options = [
        f"--min-elo {args.min_elo} --plies {args.plies} --max-cp {args.max_cp}",
        f"--depth {limit.depth}" if limit.depth is not None else f"--nodes {limit.nodes}",
        f"--hash {args.hash}",
        *([f"--limit {args.limit}"] if args.limit is not None else []),
        *(str(path) for path in args.pgn),
        f"--out {args.out}",
    ]
    header = [
        f"{len(kept)} balanced openings: the position after {args.plies} plies of games whose",
        f"players are both rated >= {args.min_elo}, scored within +-{args.max_cp} cp by {version}",
        f"(1 thread, hash {args.hash} MB cleared before each, {search}); ce is that score",
        "from the side to move's view, c0 the source game, c1 the moves. Games from",
        ", ".join(path.name for path in paths) + ". Made by",
        "python -m ferrochess_tools.balanced_openings " + " ".join(options),
    ]
    write_epd(args.out, kept, limit, header)
    print(f"wrote {len(kept)} positions to {args.out} ({version}, {search})")
    print_summary(counts.summary(args.min_elo, args.plies, args.max_cp), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
