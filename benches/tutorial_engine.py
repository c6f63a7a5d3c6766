"""The engine structure the widely followed python-chess tutorials teach, kept as a benchmark peer.

Contract: `select_move(board, depth)` returns the move chosen by a fixed-depth negamax with
fail-hard alpha-beta (`alphabeta`) whose leaves go to a capture-only quiescence search with stand
pat (`quiesce`), or None when the side to move has no legal move. The caller's board is not
changed.

It follows the shape those tutorials build, on purpose:

* `evaluate_board(board)` first asks python-chess whether the game is over at this position
  (`is_checkmate`, then `is_stalemate` and `is_insufficient_material`), which generates the legal
  moves again at every leaf; then it counts material with `len(board.pieces(piece_type, color))`
  and adds piece-square table values summed over `board.pieces(...)`, Black's squares mirrored with
  `chess.square_mirror`. The score is returned from the side to move's point of view; a side that
  is checkmated scores -9999 (no distance-to-mate adjustment).
* No move ordering anywhere: `alphabeta` walks `board.legal_moves` in python-chess's generation
  order, and `quiesce` walks the same generator and skips non-captures with `board.is_capture`.
* No transposition table, no iterative deepening, no pruning beyond alpha-beta.

The peer in `pure_python_engine.py` runs the same kind of search written with care for speed
(MVV-LVA capture ordering, a bitboard-level evaluation without game-over checks at the leaves) and
is the tougher, fairer comparison. This one is kept because it is what users who learned from those
tutorials actually run, so the gap it shows is the gap they will see. Its cost comes from two
sources: each node is slower (the game-over checks and the `SquareSet` walks in the evaluation),
and, above all, the trees are much larger, because without capture ordering alpha-beta cuts late,
in the quiescence search most of all; in tactical middlegames this grows the node count by orders
of magnitude. Its scores and moves can differ from the optimised peer's in detail (fail-hard
bounds, no endgame king table, a single mate score) but not in kind.

`TutorialEngine.nodes` counts every position the search visited (root, `alphabeta` and `quiesce`
calls alike). `TutorialEngine(deadline=...)` is for benchmark harnesses only (the tutorials have no
such thing): once `time.perf_counter()` passes the deadline, the search raises `SearchAborted`. The
clock is read once every 4096 nodes, so the check costs next to nothing.

Run standalone for a self-check: `python benches/tutorial_engine.py`.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import chess
from _common import TACTICAL_CHECKS, self_test
from pure_python_engine import (
    BISHOP_TABLE,
    KING_MIDDLEGAME_TABLE,
    KNIGHT_TABLE,
    PAWN_TABLE,
    QUEEN_TABLE,
    ROOK_TABLE,
)

MATE_SCORE = 9999
ROOT_WINDOW = 100_000  # wider than any score, for the root's initial alpha and beta


def _indexed_by_square(diagram: tuple[int, ...]) -> tuple[int, ...]:
    """A diagram written rank 8 first, re-indexed so that entry `square` (a1 = 0) is White's value.

    The tutorials write their tables rank 1 first and index them with the square number directly;
    this gives the same layout from the diagrams shared with `pure_python_engine.py`.
    """
    return tuple(diagram[square ^ 56] for square in chess.SQUARES)


# Material values and piece-square tables in the "simplified evaluation function" style. The king
# uses its middlegame table throughout, as in the tutorials.
PIECE_TABLES: tuple[tuple[chess.PieceType, int, tuple[int, ...]], ...] = (
    (chess.PAWN, 100, _indexed_by_square(PAWN_TABLE)),
    (chess.KNIGHT, 320, _indexed_by_square(KNIGHT_TABLE)),
    (chess.BISHOP, 330, _indexed_by_square(BISHOP_TABLE)),
    (chess.ROOK, 500, _indexed_by_square(ROOK_TABLE)),
    (chess.QUEEN, 900, _indexed_by_square(QUEEN_TABLE)),
    (chess.KING, 0, _indexed_by_square(KING_MIDDLEGAME_TABLE)),
)


def evaluate_board(board: chess.Board) -> int:
    """Static score in centipawns for the side to move, game-over checks first."""
    if board.is_checkmate():
        return -MATE_SCORE  # the side to move is mated
    if board.is_stalemate():
        return 0
    if board.is_insufficient_material():
        return 0
    material = 0
    positional = 0
    for piece_type, value, table in PIECE_TABLES:
        white_pieces = board.pieces(piece_type, chess.WHITE)
        black_pieces = board.pieces(piece_type, chess.BLACK)
        material += value * (len(white_pieces) - len(black_pieces))
        positional += sum(table[square] for square in white_pieces)
        positional -= sum(table[chess.square_mirror(square)] for square in black_pieces)
    score = material + positional
    return score if board.turn == chess.WHITE else -score


class SearchAborted(Exception):
    """The search passed its deadline; `nodes` is how many positions it had visited by then."""

    def __init__(self, nodes: int) -> None:
        super().__init__(f"deadline passed after {nodes} nodes")
        self.nodes = nodes


@dataclass
class SearchResult:
    """Outcome of one search: best move (None without legal moves), its score, nodes visited."""

    move: chess.Move | None
    score: int
    nodes: int


class TutorialEngine:
    """Tutorial-shaped negamax, alpha-beta and quiescence; `nodes` counts positions visited."""

    def __init__(self, deadline: float | None = None) -> None:
        self.nodes = 0
        self.deadline = deadline  # a time.perf_counter() value, or None for no limit

    def _check_deadline(self) -> None:
        """Raise SearchAborted if the deadline has passed (called once every 4096 nodes)."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise SearchAborted(self.nodes)

    def quiesce(self, board: chess.Board, alpha: int, beta: int) -> int:
        """Fail-hard capture search: stand pat, then every legal capture in generation order."""
        self.nodes += 1
        if not self.nodes & 4095:
            self._check_deadline()
        stand_pat = evaluate_board(board)
        if stand_pat >= beta:
            return beta
        if alpha < stand_pat:
            alpha = stand_pat
        for move in board.legal_moves:
            if board.is_capture(move):
                board.push(move)
                score = -self.quiesce(board, -beta, -alpha)
                board.pop()
                if score >= beta:
                    return beta
                if score > alpha:
                    alpha = score
        return alpha

    def alphabeta(self, board: chess.Board, alpha: int, beta: int, depthleft: int) -> int:
        """Fail-hard negamax over `board.legal_moves` in generation order, no move ordering."""
        if depthleft == 0:
            return self.quiesce(board, alpha, beta)
        self.nodes += 1
        if not self.nodes & 4095:
            self._check_deadline()
        searched_any = False
        for move in board.legal_moves:
            searched_any = True
            board.push(move)
            score = -self.alphabeta(board, -beta, -alpha, depthleft - 1)
            board.pop()
            if score >= beta:
                return beta
            if score > alpha:
                alpha = score
        if not searched_any:
            # Checkmate or stalemate before the horizon: the evaluation recognises both.
            return max(alpha, min(beta, evaluate_board(board)))
        return alpha

    def search(self, board: chess.Board, depth: int) -> SearchResult:
        """Search the position to `depth` plies (>= 1); the caller's board is left untouched.

        Raises SearchAborted if the engine has a deadline and it passes first.
        """
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth!r}")
        board = board.copy()
        start_nodes = self.nodes
        self.nodes += 1
        best_move: chess.Move | None = None
        best_value = -ROOT_WINDOW
        alpha, beta = -ROOT_WINDOW, ROOT_WINDOW
        for move in board.legal_moves:
            board.push(move)
            value = -self.alphabeta(board, -beta, -alpha, depth - 1)
            board.pop()
            if value > best_value:
                best_value, best_move = value, move
            if value > alpha:
                alpha = value
        if best_move is None:
            best_value = evaluate_board(board)
        return SearchResult(best_move, best_value, self.nodes - start_nodes)


def select_move(board: chess.Board, depth: int) -> chess.Move | None:
    """Best move for the side to move at a fixed depth, or None when there is no legal move."""
    return TutorialEngine().search(board, depth).move


def _self_test() -> int:
    """Mates in 1, a hanging queen, no-move positions and legal self-play; returns an exit code."""
    legal_positions = (
        chess.STARTING_FEN,
        "rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54",
    )
    return self_test(
        lambda board, depth: TutorialEngine().search(board, depth),
        TACTICAL_CHECKS,
        legal_positions,
        self_play_plies=8,
    )


if __name__ == "__main__":
    sys.exit(_self_test())
