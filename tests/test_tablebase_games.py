"""Guards perfect endgames in real games: from 20 random won positions each of KQ v K, KR v K,
KBN v K and KP v K, ferrochess with the Syzygy tables mates Stockfish 15.1 (defending by search)
in every game before the 50-move rule could be claimed; from random drawn KP v K and KR v KR
positions, defending against Stockfish, it never loses. Skips without Stockfish or the tables."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import chess.syzygy
import pytest
from ferrochess import Engine

pytestmark = pytest.mark.games

GAMES_PER_ENDGAME = 20
DRAWN_GAMES = 10
# Stockfish defends (or attacks, in the drawn positions) with this search per move.
STOCKFISH_LIMIT = chess.engine.Limit(depth=10)
FERROCHESS_LIMIT = chess.engine.Limit(depth=6)
MAX_PLIES = 300  # a guard: a game this long has failed anyway (the 50-move rule ends it sooner)

# White's pieces besides the king, and Black's, for each endgame.
WON = {"KQvK": ("Q", ""), "KRvK": ("R", ""), "KBNvK": ("BN", ""), "KPvK": ("P", "")}
DRAWN = {"KPvK": ("P", ""), "KRvKR": ("R", "r")}


@pytest.fixture(scope="module")
def stockfish() -> Iterator[chess.engine.SimpleEngine]:
    path = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
    if path is None:
        pytest.skip("Stockfish is not installed (Debian package stockfish)")
    engine = chess.engine.SimpleEngine.popen_uci(path)
    engine.configure({"Threads": 1, "Hash": 16})
    yield engine
    engine.quit()


@pytest.fixture(scope="module")
def syzygy(shared_data: Path) -> Path:
    return shared_data / "syzygy"


def random_positions(
    white: str, black: str, wanted_wdl: int, count: int, tables: chess.syzygy.Tablebase, seed: int
) -> list[chess.Board]:
    """`count` distinct legal positions, White to move, with the given pieces and the given WDL
    for White (by python-chess's tables), the 50-move clock at zero."""
    rng = random.Random(seed)
    found: list[chess.Board] = []
    while len(found) < count:
        board = chess.Board(None)
        pieces = "K" + white + "k" + black
        squares = rng.sample(chess.SQUARES, len(pieces))
        for symbol, square in zip(pieces, squares):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.turn = chess.WHITE
        if not board.is_valid() or board.is_game_over():
            continue
        if any(p.piece_type == chess.PAWN and chess.square_rank(s) in (0, 7)
               for s, p in board.piece_map().items()):  # fmt: skip
            continue
        if tables.get_wdl(board) == wanted_wdl and board.fen() not in {b.fen() for b in found}:
            found.append(board)
    return found


def play_out(
    board: chess.Board, ferrochess_color: chess.Color, ours: Engine,
    stockfish: chess.engine.SimpleEngine,
) -> chess.Board:  # fmt: skip
    """Play the game to its end (mate, stalemate, insufficient material, a claimable 50-move or
    threefold draw) or MAX_PLIES; return the final board."""
    board = board.copy()
    ours.new_game()
    while not board.is_game_over(claim_draw=True) and board.ply() < MAX_PLIES:
        if board.turn == ferrochess_color:
            move = ours.play(board, FERROCHESS_LIMIT).move
        else:
            move = stockfish.play(board, STOCKFISH_LIMIT).move
        assert move is not None and move in board.legal_moves
        board.push(move)
    return board


@pytest.mark.parametrize("endgame", sorted(WON))
def test_won_endgames_are_mated_within_the_fifty_move_rule(
    endgame: str, syzygy: Path, stockfish: chess.engine.SimpleEngine
) -> None:
    white, black = WON[endgame]
    with chess.syzygy.open_tablebase(str(syzygy)) as tables:
        starts = random_positions(white, black, 2, GAMES_PER_ENDGAME, tables, seed=len(endgame))
    failures = []
    with Engine(book=None, syzygy_path=syzygy) as ours:
        for start in starts:
            end = play_out(start, chess.WHITE, ours, stockfish)
            if not (end.is_checkmate() and end.turn == chess.BLACK):
                failures.append(f"{start.fen()}: {end.result(claim_draw=True)} {end.fen()}")
    assert not failures, failures


@pytest.mark.parametrize("endgame", sorted(DRAWN))
def test_drawn_endgames_are_held(
    endgame: str, syzygy: Path, stockfish: chess.engine.SimpleEngine
) -> None:
    white, black = DRAWN[endgame]
    with chess.syzygy.open_tablebase(str(syzygy)) as tables:
        starts = random_positions(white, black, 0, DRAWN_GAMES, tables, seed=7)
    with Engine(book=None, syzygy_path=syzygy) as ours:
        for start in starts:
            # ferrochess defends: Black, the side without the pawn (or either rook side).
            end = play_out(start, chess.BLACK, ours, stockfish)
            assert end.result(claim_draw=True) != "1-0", f"{start.fen()} lost: {end.fen()}"
