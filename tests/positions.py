"""Well-known positions the tests share (hand-typed facts, checked with python-chess)."""

from __future__ import annotations

import chess

START_FEN = chess.STARTING_FEN
KIWIPETE_FEN = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
MIDDLEGAME_FEN = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 8"
# White to move mates with Ra8#.
MATE_IN_ONE_FEN = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
# Black to move: Kb8 is forced and Rh8# follows, so Black is mated in one.
MATED_IN_ONE_FEN = "k7/8/1K6/8/8/8/8/7R b - - 0 1"
# Fool's mate: White is checkmated.
CHECKMATED_FEN = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
# Black to move, stalemated.
STALEMATE_FEN = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"

# White to move; O-O is the only mate (the rook on f1 checks along the first rank once the king
# has left e1, and pawns on d2-f2 stop the king's other discovered checks).
CASTLING_MATE_FEN = "8/8/8/8/8/B1N5/3PPP2/k3K2R w K - 0 1"
# From this root the moves below leave Black (two rooks down) to move, and Nf6-g8 would repeat
# the root position for the third time: a draw that only the game history reveals.
REPETITION_ROOT_FEN = "4k1n1/8/8/8/8/8/8/R3K2R w - - 0 1"
REPETITION_MOVES = ["a1b1", "g8f6", "b1a1", "f6g8", "a1b1", "g8f6", "b1a1"]
REPETITION_DRAWING_MOVE = "f6g8"


def board_with_history(root_fen: str, moves: list[str]) -> chess.Board:
    """Return a Board set up at ``root_fen`` with ``moves`` (UCI) pushed, checked legal."""
    board = chess.Board(root_fen)
    for uci in moves:
        board.push_uci(uci)
    return board


def assert_legal(board: chess.Board, uci: str | None) -> chess.Move:
    """Assert ``uci`` is a legal move on ``board`` in python-chess's UCI notation; return it."""
    assert isinstance(uci, str), f"expected a UCI string, got {uci!r}"
    move = chess.Move.from_uci(uci)
    assert move in board.legal_moves, f"{uci} is not legal in {board.fen()}"
    return move


def assert_legal_move(board: chess.Board, move: chess.Move | None) -> chess.Move:
    """Assert ``move`` is not None and is legal on ``board``; return it."""
    assert move is not None, f"no move returned for {board.fen()}"
    assert move in board.legal_moves, f"{move} is not legal in {board.fen()}"
    return move


def assert_pv_legal(board: chess.Board, pv: list[chess.Move]) -> None:
    """Assert ``pv`` is a non-empty sequence of moves, each legal after the previous ones."""
    assert pv, "empty principal variation"
    copy = board.copy()
    for move in pv:
        assert isinstance(move, chess.Move)
        assert move in copy.legal_moves, f"{move} in pv {pv} is not legal in {copy.fen()}"
        copy.push(move)
