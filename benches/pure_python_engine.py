"""A pure-Python chess engine of the kind chess tutorials build, used as a peer in benchmarks.

Contract: `select_move(board, depth)` returns the move a fixed-depth negamax with alpha-beta pruning
and a capture-only quiescence search (stand pat) chooses, or None when the side to move has no legal
move. The evaluation is material plus piece-square tables, scored from the side to move. Captures
are ordered most-valuable-victim / least-valuable-attacker (MVV-LVA). There is no transposition
table, no iterative deepening and no pruning beyond alpha-beta: the usual tutorial engine, written
with care but without tricks.

`PurePythonEngine.nodes` counts every position the search visited (negamax and quiescence nodes
alike).

Run standalone for a smoke test: `python benches/pure_python_engine.py`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import chess
from _common import TACTICAL_CHECKS, self_test

# Scores are in centipawns. A mate found `ply` half-moves from the root scores MATE_SCORE - ply.
MATE_SCORE = 100_000
INFINITY = 1_000_000

PIECE_VALUES = {
    chess.PAWN: 100,
    chess.KNIGHT: 320,
    chess.BISHOP: 330,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}

# Piece-square tables in the style of the widely published "simplified evaluation function": written
# as a board diagram from White's side (first row = rank 8, last row = rank 1), values in
# centipawns.
# fmt: off
PAWN_TABLE = (
      0,   0,   0,   0,   0,   0,   0,   0,
     50,  50,  50,  50,  50,  50,  50,  50,
     10,  10,  20,  30,  30,  20,  10,  10,
      5,   5,  10,  25,  25,  10,   5,   5,
      0,   0,   0,  20,  20,   0,   0,   0,
      5,  -5, -10,   0,   0, -10,  -5,   5,
      5,  10,  10, -20, -20,  10,  10,   5,
      0,   0,   0,   0,   0,   0,   0,   0,
)
KNIGHT_TABLE = (
    -50, -40, -30, -30, -30, -30, -40, -50,
    -40, -20,   0,   0,   0,   0, -20, -40,
    -30,   0,  10,  15,  15,  10,   0, -30,
    -30,   5,  15,  20,  20,  15,   5, -30,
    -30,   0,  15,  20,  20,  15,   0, -30,
    -30,   5,  10,  15,  15,  10,   5, -30,
    -40, -20,   0,   5,   5,   0, -20, -40,
    -50, -40, -30, -30, -30, -30, -40, -50,
)
BISHOP_TABLE = (
    -20, -10, -10, -10, -10, -10, -10, -20,
    -10,   0,   0,   0,   0,   0,   0, -10,
    -10,   0,   5,  10,  10,   5,   0, -10,
    -10,   5,   5,  10,  10,   5,   5, -10,
    -10,   0,  10,  10,  10,  10,   0, -10,
    -10,  10,  10,  10,  10,  10,  10, -10,
    -10,   5,   0,   0,   0,   0,   5, -10,
    -20, -10, -10, -10, -10, -10, -10, -20,
)
ROOK_TABLE = (
      0,   0,   0,   0,   0,   0,   0,   0,
      5,  10,  10,  10,  10,  10,  10,   5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
     -5,   0,   0,   0,   0,   0,   0,  -5,
      0,   0,   0,   5,   5,   0,   0,   0,
)
QUEEN_TABLE = (
    -20, -10, -10,  -5,  -5, -10, -10, -20,
    -10,   0,   0,   0,   0,   0,   0, -10,
    -10,   0,   5,   5,   5,   5,   0, -10,
     -5,   0,   5,   5,   5,   5,   0,  -5,
      0,   0,   5,   5,   5,   5,   0,  -5,
    -10,   5,   5,   5,   5,   5,   0, -10,
    -10,   0,   5,   0,   0,   0,   0, -10,
    -20, -10, -10,  -5,  -5, -10, -10, -20,
)
KING_MIDDLEGAME_TABLE = (
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -30, -40, -40, -50, -50, -40, -40, -30,
    -20, -30, -30, -40, -40, -30, -30, -20,
    -10, -20, -20, -20, -20, -20, -20, -10,
     20,  20,   0,   0,   0,   0,  20,  20,
     20,  30,  10,   0,   0,  10,  30,  20,
)
KING_ENDGAME_TABLE = (
    -50, -40, -30, -20, -20, -30, -40, -50,
    -30, -20, -10,   0,   0, -10, -20, -30,
    -30, -10,  20,  30,  30,  20, -10, -30,
    -30, -10,  30,  40,  40,  30, -10, -30,
    -30, -10,  30,  40,  40,  30, -10, -30,
    -30, -10,  20,  30,  30,  20, -10, -30,
    -30, -30,   0,   0,   0,   0, -30, -30,
    -50, -30, -30, -30, -30, -30, -30, -50,
)
# fmt: on


def _square_values(
    piece_type: chess.PieceType, diagram: tuple[int, ...]
) -> dict[chess.Color, list[int]]:
    """Material plus table bonus for a piece of each colour, indexed by square (a1 = 0)."""
    value = PIECE_VALUES[piece_type]
    # The diagram's first row is rank 8, so White's square s sits at diagram index s ^ 56; Black's
    # square s is White's square s ^ 56 seen in a mirror, which lands back on diagram index s.
    return {
        chess.WHITE: [value + diagram[square ^ 56] for square in chess.SQUARES],
        chess.BLACK: [value + diagram[square] for square in chess.SQUARES],
    }


_MIDDLEGAME = {
    chess.PAWN: _square_values(chess.PAWN, PAWN_TABLE),
    chess.KNIGHT: _square_values(chess.KNIGHT, KNIGHT_TABLE),
    chess.BISHOP: _square_values(chess.BISHOP, BISHOP_TABLE),
    chess.ROOK: _square_values(chess.ROOK, ROOK_TABLE),
    chess.QUEEN: _square_values(chess.QUEEN, QUEEN_TABLE),
    chess.KING: _square_values(chess.KING, KING_MIDDLEGAME_TABLE),
}
_ENDGAME_KING = _square_values(chess.KING, KING_ENDGAME_TABLE)


def evaluate(board: chess.Board) -> int:
    """Static evaluation in centipawns from the side to move's point of view.

    Material plus piece-square tables; the king uses its endgame table once the queens are off.
    """
    white = board.occupied_co[chess.WHITE]
    black = board.occupied_co[chess.BLACK]
    score = 0
    for piece_type, pieces in (
        (chess.PAWN, board.pawns),
        (chess.KNIGHT, board.knights),
        (chess.BISHOP, board.bishops),
        (chess.ROOK, board.rooks),
        (chess.QUEEN, board.queens),
    ):
        tables = _MIDDLEGAME[piece_type]
        white_table = tables[chess.WHITE]
        black_table = tables[chess.BLACK]
        for square in chess.scan_forward(pieces & white):
            score += white_table[square]
        for square in chess.scan_forward(pieces & black):
            score -= black_table[square]
    king_tables = _ENDGAME_KING if not board.queens else _MIDDLEGAME[chess.KING]
    score += king_tables[chess.WHITE][chess.msb(board.kings & white)]
    score -= king_tables[chess.BLACK][chess.msb(board.kings & black)]
    return score if board.turn == chess.WHITE else -score


def _mvv_lva(board: chess.Board, move: chess.Move) -> int:
    """Ordering key for a capture: most valuable victim first, then least valuable attacker."""
    victim = board.piece_type_at(move.to_square)
    victim_value = (
        PIECE_VALUES[victim] if victim is not None else PIECE_VALUES[chess.PAWN]
    )  # en passant
    attacker_value = PIECE_VALUES[board.piece_type_at(move.from_square) or chess.PAWN]
    return 10 * victim_value - attacker_value


@dataclass
class SearchResult:
    """Outcome of one search: best move (None without legal moves), its score, nodes visited."""

    move: chess.Move | None
    score: int
    nodes: int


class PurePythonEngine:
    """Fixed-depth negamax, alpha-beta and quiescence; `nodes` counts positions visited so far."""

    def __init__(self) -> None:
        self.nodes = 0

    def ordered_moves(self, board: chess.Board) -> list[chess.Move]:
        """All legal moves: captures by MVV-LVA, then promotions, then quiet moves as generated."""
        captures: list[tuple[int, chess.Move]] = []
        promotions: list[chess.Move] = []
        quiet: list[chess.Move] = []
        for move in board.legal_moves:
            if board.is_capture(move):
                captures.append((_mvv_lva(board, move), move))
            elif move.promotion:
                promotions.append(move)
            else:
                quiet.append(move)
        captures.sort(key=lambda scored: scored[0], reverse=True)
        return [move for _, move in captures] + promotions + quiet

    def quiescence(self, board: chess.Board, alpha: int, beta: int) -> int:
        """Captures only, with the static evaluation as a stand-pat lower bound."""
        self.nodes += 1
        stand_pat = evaluate(board)
        if stand_pat >= beta:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        captures = [(_mvv_lva(board, move), move) for move in board.generate_legal_captures()]
        captures.sort(key=lambda scored: scored[0], reverse=True)
        best = stand_pat
        for _, move in captures:
            board.push(move)
            score = -self.quiescence(board, -beta, -alpha)
            board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    def negamax(self, board: chess.Board, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Score of `board` searched `depth` plies deep, for the side to move (fail-soft)."""
        if depth <= 0:
            return self.quiescence(board, alpha, beta)
        self.nodes += 1
        if board.halfmove_clock >= 100:
            return 0
        moves = self.ordered_moves(board)
        if not moves:
            return -(MATE_SCORE - ply) if board.is_check() else 0
        best = -INFINITY
        for move in moves:
            board.push(move)
            score = -self.negamax(board, depth - 1, -beta, -alpha, ply + 1)
            board.pop()
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best

    def search(self, board: chess.Board, depth: int) -> SearchResult:
        """Search the position to `depth` plies (>= 1); the caller's board is left untouched."""
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth!r}")
        board = board.copy()
        start_nodes = self.nodes
        self.nodes += 1
        best_move: chess.Move | None = None
        best_score = -INFINITY
        alpha, beta = -INFINITY, INFINITY
        for move in self.ordered_moves(board):
            board.push(move)
            score = -self.negamax(board, depth - 1, -beta, -alpha, 1)
            board.pop()
            if score > best_score:
                best_score, best_move = score, move
                alpha = max(alpha, score)
        if best_move is None:
            best_score = -MATE_SCORE if board.is_check() else 0
        return SearchResult(best_move, best_score, self.nodes - start_nodes)


def select_move(board: chess.Board, depth: int) -> chess.Move | None:
    """Best move for the side to move at a fixed depth, or None when there is no legal move."""
    return PurePythonEngine().search(board, depth).move


def _self_test() -> int:
    """Tactical sanity checks and legal self-play; returns a process exit code."""
    mate_in_two = (
        "mate in 2 (rook roller)",
        "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1",
        4,
        {"b1b7", "a2a7"},
    )
    return self_test(
        lambda board, depth: PurePythonEngine().search(board, depth),
        [*TACTICAL_CHECKS, mate_in_two],
        self_play_plies=12,
    )


if __name__ == "__main__":
    sys.exit(_self_test())
