"""Forced mates in 1, 2 and 3 moves from real games: the generator of `tests/data/mates.epd`.

Contract: reads the games of the given PGN files and writes one EPD line per kept position, with
the opcodes

- `bm`: every first move (SAN) that forces mate in at most `dm` moves, whatever the defence;
- `dm`: N, the shortest forced mate for the side to move, in moves (1, 2 or 3);
- `hmvc`, `fmvn`: the game's move counters, so the FEN round-trips;
- `id`: the source, `"FILE game G ply P"` (G counts the file's games from 1; P is
  `chess.Board.ply()` of the position, so White is to move when P is even).

The default games are `../shared/data/pgn/twic1599_1000k.pgn` (1,110 games from The Week in Chess,
of which `twic1599_10k.pgn` holds the first) and `lichess_db_1000k.pgn` (438 lichess.org games,
of which `lichess_db_100k.pgn` and `lichess_db_10k.pgn` in `../shared/data/pgn` are the first),
from the benches of the `pgn-reader` crate that ferrochess depends on (`cargo fetch` puts it under
`~/.cargo/registry/src`). The shared files alone hold only about 170 short mates from 100 games.

How a position gets in:

1. Scan: every position of every game (not over, half-move clock <= 90, so no line of the mate
   meets the 50-move rule) is searched by Stockfish (`--scan-depth`, 1 thread); a score of
   Mate(1..3) for the side to move makes it a candidate. Candidates are deduplicated by EPD.
2. Choose: at most `--per-game` positions per game, the longest mates first (Stockfish's
   distance; mates in 1 are the commonest), the earlier position first.
3. Prove, with an exhaustive AND/OR search written here over python-chess (every defence
   answered, stalemate is no mate): `dm` is N when some move forces mate in N and no move forces
   mate in N - 1; `bm` is every legal move after which every defence is mated within N moves
   (every legal move is tried). So `dm` and `bm` rest on the proofs, not on Stockfish.
4. Cross-check: Stockfish's MultiPV over every legal move (`--verify-depth`) must not contradict
   the proof: a position where Stockfish mates sooner than N, or scores as a mate in <= N a move
   the proof does not list, is reported on stderr and left out (the game's next candidate is
   tried); none was. Stockfish at that depth misses some of the proven moves (it scores them as
   longer mates, or not as mates); each is searched again alone at depth 22, and one it still
   misses is reported on stderr but kept: the proof answers every defence.

The position from issue 18 (Black mates in 2 with Qxc2; lichess game 39) is always included and
proven like the others. The script prints the counts per N, the kind of the first mating move
and the time taken. Needs Stockfish (Debian: `apt-get install stockfish`; 15.1 made the committed
file). `tests/data/mates.epd` was written by

    python -m ferrochess_tools.mate_suite --out tests/data/mates.epd

(defaults: `--scan-depth 8 --verify-depth 10 --per-game 2`) in 11 minutes here, 9 of them for
the scan (117,000 positions), on 2 cores shared with other work. It wrote 368 positions from 246
games: 130 mates in 1, 135 in 2 and 103 in 3; 185 with White to move.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import chess.pgn

from ferrochess_tools import REPO_ROOT

SHARED_PGN = REPO_ROOT.parent / "shared" / "data" / "pgn" / "twic1599_1000k.pgn"
CRATE_PGN = "registry/src/*/pgn-reader-0.29.*/benches/lichess_db_1000k.pgn"
"""Where `cargo fetch` puts the lichess games, under CARGO_HOME (default ~/.cargo)."""
MAX_MATE = 3
"""The longest mate kept, in moves."""
MAX_HALFMOVE_CLOCK = 90
"""Positions with a larger half-move clock are skipped: a mate in 3 (5 plies) then ends with the
clock at most 95, short of the 50-move rule's 100, so no engine may score it as a draw."""
CONFIRM_DEPTH = 22
"""The depth of Stockfish's second look at a proven move its MultiPV did not score as a mate."""
ISSUE_FEN = "1r4k1/p4pp1/7p/8/qB1pP3/P2P4/2P2r2/KR6 b - - 4 37"
"""The mate in 2 of issue 18; its id names its game when the scan finds it there."""


# --- The exhaustive prover --------------------------------------------------------------------


def _ordered(board: chess.Board) -> list[chess.Move]:
    """Legal moves, checks first, then captures and promotions: a mate is usually found early.
    The order changes only the time taken, never the answer: every move is still tried."""

    def key(move: chess.Move) -> int:
        if board.gives_check(move):
            return 0
        return 1 if board.is_capture(move) or move.promotion else 2

    return sorted(board.legal_moves, key=key)


def mates_in_one(board: chess.Board) -> list[chess.Move]:
    """Every move that checkmates at once (only a check can mate)."""
    found = []
    for move in board.legal_moves:
        if board.gives_check(move):
            board.push(move)
            if board.is_checkmate():
                found.append(move)
            board.pop()
    return found


def has_mate(board: chess.Board, moves: int) -> bool:
    """Whether the side to move forces mate within `moves` moves, whatever the defence."""
    if moves <= 0:
        return False
    if moves == 1:
        return bool(mates_in_one(board))
    return any(forces_mate(board, move, moves) for move in _ordered(board))


def forces_mate(board: chess.Board, move: chess.Move, moves: int) -> bool:
    """Whether `move` mates now or leaves every defence mated within `moves` moves in all
    (`move` counted). Stalemate, or a defence with no mate after it, refutes."""
    board.push(move)
    try:
        if board.is_checkmate():
            return True
        if moves <= 1:
            return False
        defences = list(board.legal_moves)
        if not defences:
            return False
        for defence in defences:
            board.push(defence)
            mated = has_mate(board, moves - 1)
            board.pop()
            if not mated:
                return False
        return True
    finally:
        board.pop()


@dataclass(frozen=True)
class Proof:
    """The proven facts of a position: the shortest mate and every first move that forces it."""

    mate_in: int
    moves: list[chess.Move]


def prove(board: chess.Board, limit: int = MAX_MATE) -> Proof | None:
    """The shortest forced mate of `board` within `limit` moves and every first move forcing mate
    within that many moves, by exhaustive search; None when there is none within `limit`."""
    board = board.copy(stack=False)
    for mate_in in range(1, limit + 1):
        moves = [move for move in _ordered(board) if forces_mate(board, move, mate_in)]
        if moves:
            return Proof(mate_in, sorted(moves, key=board.san))
    return None


# --- Scanning the games -----------------------------------------------------------------------


@dataclass
class Candidate:
    """A game position Stockfish scored as a short mate for the side to move."""

    fen: str
    source: str
    game: tuple[str, int]
    stockfish_mate: int


def games(paths: list[Path]) -> Iterator[tuple[str, int, chess.pgn.Game]]:
    """(file name, game number from 1, game) for every game of `paths`, in order."""
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            number = 0
            while (game := chess.pgn.read_game(handle)) is not None:
                number += 1
                yield path.name, number, game


def relative_mate(info: chess.engine.InfoDict) -> int | None:
    """The mate distance in moves for the side to move in `info`'s score, if it is a mate."""
    score = info.get("score")
    return None if score is None else score.relative.mate()


def scan(
    engine: chess.engine.SimpleEngine, paths: list[Path], depth: int
) -> tuple[list[Candidate], int]:
    """The candidates of every game in `paths` and the number of positions searched."""
    candidates: list[Candidate] = []
    seen: set[str] = set()
    searched = 0
    for name, number, game in games(paths):
        board = game.board()
        for move in [None, *game.mainline_moves()]:
            if move is not None:
                board.push(move)
            if board.is_game_over() or board.halfmove_clock > MAX_HALFMOVE_CLOCK:
                continue
            epd = board.epd()
            if epd in seen:
                continue
            seen.add(epd)
            searched += 1
            mate = relative_mate(engine.analyse(board, chess.engine.Limit(depth=depth)))
            if mate is not None and 0 < mate <= MAX_MATE:
                source = f"{name} game {number} ply {board.ply()}"
                candidates.append(Candidate(board.fen(), source, (name, number), mate))
    return candidates, searched


def choose(candidates: list[Candidate], first_fen: str) -> list[list[Candidate]]:
    """For each game, its candidates in the order to try: the longest mates first (games end in
    mates in 1 far more often than they pass a mate in 3), the earlier position first; the game
    holding `first_fen` tries it first, and that game comes first."""
    first_epd = chess.Board(first_fen).epd()
    by_game: dict[tuple[str, int], list[Candidate]] = {}
    for candidate in candidates:
        by_game.setdefault(candidate.game, []).append(candidate)
    if not any(chess.Board(c.fen).epd() == first_epd for c in candidates):
        by_game[("issue 18", 0)] = [Candidate(first_fen, "issue 18", ("issue 18", 0), 0)]
    ordered = []
    for group in by_game.values():
        ordered.append(
            sorted(
                group,
                key=lambda c: (chess.Board(c.fen).epd() != first_epd, -c.stockfish_mate),
            )
        )
    ordered.sort(key=lambda group: chess.Board(group[0].fen).epd() != first_epd)
    return ordered


# --- Checking against Stockfish and writing -------------------------------------------------------


@dataclass
class Entry:
    """A proven position, ready to write."""

    board: chess.Board
    source: str
    proof: Proof

    def epd(self) -> str:
        return self.board.epd(
            bm=self.proof.moves,
            dm=self.proof.mate_in,
            hmvc=self.board.halfmove_clock,
            fmvn=self.board.fullmove_number,
            id=self.source,
        )


def stockfish_contradicts(
    engine: chess.engine.SimpleEngine, board: chess.Board, proof: Proof, depth: int
) -> str | None:
    """Why Stockfish contradicts `proof`, or None.

    Stockfish's MultiPV over every legal move (`depth`) contradicts the proof when it scores a
    move as a mate in fewer than `proof.mate_in` moves, or a move the proof does not list as a
    mate in at most that many: the proof says no such mate exists, so one of the two is wrong.
    A listed move that Stockfish does not score as such a mate is searched again alone, deeper
    (CONFIRM_DEPTH); a move it still misses is printed on stderr but stays listed, since the
    proof answers every defence and Stockfish's search prunes (it does miss a few)."""
    lines = engine.analyse(
        board, chess.engine.Limit(depth=depth), multipv=board.legal_moves.count()
    )
    mates = {info["pv"][0]: relative_mate(info) for info in lines if info.get("pv")}
    shorter = sorted(board.san(move) for move, m in mates.items() if m and 0 < m < proof.mate_in)
    if shorter:
        return f"Stockfish mates sooner than the proof allows with {', '.join(shorter)}"
    listed = {move for move, m in mates.items() if m and 0 < m <= proof.mate_in}
    if listed - set(proof.moves):
        sans = sorted(board.san(move) for move in listed - set(proof.moves))
        return f"Stockfish mates in {proof.mate_in} with {', '.join(sans)}, the proof does not"
    for move in set(proof.moves) - listed:
        limit = chess.engine.Limit(depth=CONFIRM_DEPTH)
        mate = relative_mate(engine.analyse(board, limit, root_moves=[move]))
        if not mate or not 0 < mate <= proof.mate_in:
            print(
                f"proven, but Stockfish at depth {CONFIRM_DEPTH} gives mate {mate} after "
                f"{board.san(move)} (kept): {board.fen()}",
                file=sys.stderr,
            )
    return None


def kind(board: chess.Board, move: chess.Move) -> str:
    """A rough label of a mating first move, for the summary."""
    if move.promotion:
        return "promotion"
    if board.gives_check(move):
        return "capture with check" if board.is_capture(move) else "check"
    return "capture" if board.is_capture(move) else "quiet"


def prove_and_check(
    engine: chess.engine.SimpleEngine, fen: str, source: str, depth: int
) -> Entry | None:
    """The entry for `fen`, or None (with a line on stderr) if it fails a check."""
    board = chess.Board(fen)
    proof = prove(board)
    if proof is None:
        print(f"no mate in <= {MAX_MATE} proven: {source}: {fen}", file=sys.stderr)
        return None
    why = stockfish_contradicts(engine, board, proof, depth)
    if why is not None:
        print(f"left out ({why}): {source}: {fen}", file=sys.stderr)
        return None
    return Entry(board, source, proof)


def default_pgn() -> list[Path]:
    """The shared TWIC games and the lichess games of the pgn-reader crate's benches."""
    cargo_home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    found = sorted(cargo_home.glob(CRATE_PGN))
    if not found:
        raise SystemExit(f"no {CRATE_PGN} under {cargo_home}: run `cargo fetch` first")
    return [SHARED_PGN, found[-1]]


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m ferrochess_tools.mate_suite",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="*", type=Path, help="default: see the module docstring")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--scan-depth", type=int, default=8)
    parser.add_argument("--verify-depth", type=int, default=10)
    parser.add_argument("--per-game", type=int, default=2)
    args = parser.parse_args()

    start = time.monotonic()
    entries: list[Entry] = []
    with chess.engine.SimpleEngine.popen_uci(args.stockfish) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        candidates, searched = scan(engine, args.pgn or default_pgn(), args.scan_depth)
        print(
            f"scanned {searched} positions in {time.monotonic() - start:.0f} s: "
            f"{len(candidates)} candidates",
            file=sys.stderr,
        )
        for group in choose(candidates, ISSUE_FEN):
            kept = 0
            for candidate in group:
                if kept == args.per_game:
                    break
                entry = prove_and_check(engine, candidate.fen, candidate.source, args.verify_depth)
                if entry is not None:
                    entries.append(entry)
                    kept += 1
    if not entries or entries[0].board.epd() != chess.Board(ISSUE_FEN).epd():
        raise SystemExit("the position of issue 18 failed its checks")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(entry.epd() + "\n" for entry in entries), encoding="utf-8")

    per_n = Counter(entry.proof.mate_in for entry in entries)
    colours = Counter("white" if entry.board.turn else "black" for entry in entries)
    kinds = Counter(kind(entry.board, entry.proof.moves[0]) for entry in entries)
    pieces = Counter(
        chess.piece_name(entry.board.piece_type_at(entry.proof.moves[0].from_square) or 0)
        for entry in entries
    )
    games = {entry.source.rsplit(" ply", 1)[0] for entry in entries}
    print(f"wrote {len(entries)} positions from {len(games)} games to {args.out}")
    print("per mate distance: " + ", ".join(f"{n}: {per_n[n]}" for n in sorted(per_n)))
    print(f"side to move: white {colours['white']}, black {colours['black']}")
    print("first bm move: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print("first bm piece: " + ", ".join(f"{k} {v}" for k, v in pieces.most_common()))
    print(f"took {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
