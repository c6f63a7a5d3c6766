"""Guards the review's sentence on why a move is bad (ferrochess.explain): a move that lets the
opponent mate says "allows mate in N"; a move that lets a fork win a piece names the piece, its
square and the refutation's first move as lichess writes it ("...Nc2+"); a move that leaves a
piece en prise by static exchange says "leaves the bishop on c4 hanging", and a defended piece is
not called hanging; a good move gets no sentence. Positions are hand-built and checked with
python-chess; the refutation is the engine's own line at a small depth, and analyse_game puts the
sentence on its judged moves."""

from __future__ import annotations

import io
from typing import Any

import chess
import chess.engine
import chess.pgn
import pytest
from ferrochess import Engine, analyse_game
from ferrochess.explain import explain, static_exchange
from ferrochess.interop import white_score

LIMIT = chess.engine.Limit(depth=5)
# White: Ke1, Ra1, Bd1 (guarding c2), pawns a2 g2 h2; Black: Kg8, Nd4, pawns g7 h7.
# 1.Bg4?? lets 1...Nc2+ fork the king and the rook on a1.
FORK_FEN = "6k1/6pp/8/8/3n4/8/P5PP/R2BK3 w - - 0 1"


@pytest.fixture(scope="module")
def engine() -> Any:
    with Engine(book=None) as owned:
        yield owned


def explained(engine: Engine, fen: str, san: str) -> str | None:
    """explain() of ``san`` played at ``fen``, with the engine's line after it as the refutation."""
    board = chess.Board(fen)
    move = board.parse_san(san)
    after = board.copy()
    after.push(move)
    info = engine.analyse(after, LIMIT)
    score = white_score(info)
    assert score is not None
    return explain(board, move, score, info.get("pv", []))


def test_a_move_that_lets_the_opponent_mate_says_mate_in_n(engine: Engine) -> None:
    board = chess.Board()
    for san in ("f3", "e5"):
        board.push_san(san)
    assert explained(engine, board.fen(), "g4") == "allows mate in 1"
    # The count is the evaluation's, whatever the line.
    assert explain(chess.Board(), chess.Move.from_uci("f2f3"), {"mate": -2}, []) == (
        "allows mate in 2"
    )


def test_a_fork_along_the_refutation_names_the_piece_its_square_and_the_first_move(
    engine: Engine,
) -> None:
    board = chess.Board(FORK_FEN)
    assert board.is_valid()
    before = board.copy()
    board.push_san("Bg4")
    # Nothing of White's hangs after Bg4: the loss comes only from the fork.
    assert all(
        static_exchange(board, square) <= 0
        for square in chess.SquareSet(board.occupied_co[chess.WHITE])
    )
    assert before.is_legal(before.parse_san("Bg4"))
    assert explained(engine, FORK_FEN, "Bg4") == "loses the rook on a1 after ...Nc2+"


def test_a_hand_written_line_is_walked_too() -> None:
    board = chess.Board(FORK_FEN)
    line = ["Nc2+", "Kd2", "Nxa1", "Bf3"]
    assert explain(board, board.parse_san("Bg4"), {"cp": 100}, line) == (
        "loses the rook on a1 after ...Nc2+"
    )
    # A line whose captures are paid back loses nothing: no sentence.
    board = chess.Board("4k3/8/8/3p4/4P3/2N5/8/4K3 w - - 0 1")
    line = ["dxe4", "Nxe4", "Ke7", "Nc5"]
    assert explain(board, board.parse_san("Ke2"), {"cp": 0}, line) is None


def test_a_move_that_leaves_a_piece_en_prise_says_it_hangs(engine: Engine) -> None:
    board = chess.Board()
    for san in ("e4", "d5"):
        board.push_san(san)
    assert explained(engine, board.fen(), "Bc4") == "leaves the bishop on c4 hanging"
    # A knight defended by a pawn does not hang: a knight takes it evenly, a rook at a loss.
    assert static_exchange(chess.Board("4k3/8/2n5/3N4/4P3/8/8/4K3 b - - 0 1"), chess.D5) == 0
    assert static_exchange(chess.Board("3rk3/8/8/3N4/4P3/8/8/4K3 b - - 0 1"), chess.D5) == -2


def test_a_good_move_gets_no_sentence(engine: Engine) -> None:
    assert explained(engine, chess.STARTING_FEN, "e4") is None
    assert explained(engine, chess.STARTING_FEN, "Nf3") is None


def test_the_review_explains_only_its_judged_moves() -> None:
    game = chess.pgn.read_game(io.StringIO("1. f3 e5 2. g4 Qh4# 0-1"))
    assert game is not None
    review = analyse_game(game, LIMIT)
    moves = review["moves"]
    assert moves[2]["judgement"] == "blunder"
    assert moves[2]["explanation"] == "allows mate in 1"
    assert all(move["explanation"] is None for move in moves if move["judgement"] is None)
