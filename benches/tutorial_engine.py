"""The engine structure the widely followed python-chess tutorials teach, kept as a benchmark peer.

Contract: `select_move(board, depth)` returns the move chosen by a fixed-depth negamax with fail-hard
alpha-beta (`alphabeta`) whose leaves go to a capture-only quiescence search with stand pat
(`quiesce`), or None when the side to move has no legal move. The caller's board is not changed.

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

The peer in `pure_python_engine.py` is the same algorithm written for speed (MVV-LVA capture
ordering, an incremental-free but bitboard-level evaluation, no game-over checks at the leaves); it
is the tougher comparison. This one is kept because it is what users who learned from those
tutorials actually run, so the gap it shows is the gap they will see. Its move choices are ordinary
for a depth-limited material-and-tables search; the differences from the optimised peer are in cost,
not in what it computes (both are alpha-beta over the same kind of evaluation; their scores and
hence sometimes their moves differ in detail).

`TutorialEngine.nodes` counts every position the search visited (root, `alphabeta` and `quiesce`
calls alike).

Run standalone for a self-check: `python benches/tutorial_engine.py`.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import chess
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


@dataclass
class SearchResult:
    """Outcome of one search: best move (None without legal moves), its score, nodes visited."""

    move: chess.Move | None
    score: int
    nodes: int


class TutorialEngine:
    """Tutorial-shaped negamax, alpha-beta and quiescence; `nodes` counts positions visited."""

    def __init__(self) -> None:
        self.nodes = 0

    def quiesce(self, board: chess.Board, alpha: int, beta: int) -> int:
        """Fail-hard capture search: stand pat, then every legal capture in generation order."""
        self.nodes += 1
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
        """Search the position to `depth` plies (>= 1); the caller's board is left untouched."""
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
    failures = 0
    checks = [
        # (description, FEN, depth, acceptable moves in UCI)
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
    for description, fen, depth, expected in checks:
        board = chess.Board(fen)
        start = time.perf_counter()
        result = TutorialEngine().search(board, depth)
        elapsed = time.perf_counter() - start
        uci = result.move.uci() if result.move else None
        ok = result.move is not None and uci in expected and board.is_legal(result.move)
        failures += not ok
        print(
            f"{'ok  ' if ok else 'FAIL'} {description:28} depth {depth}: {uci} "
            f"score {result.score} nodes {result.nodes} in {elapsed:.2f}s "
            f"(expected one of {sorted(expected)})"
        )
    no_move_positions = ("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", "k7/8/1Q6/8/8/8/8/K7 b - - 0 1")
    for fen in no_move_positions:
        move = select_move(chess.Board(fen), 3)
        ok = move is None
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} no legal move in {fen}: {move}")
    legal_positions = (
        chess.STARTING_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "8/8/1p2k1p1/3p3p/1p1P1P1P/1P2PK2/8/8 w - - 3 54",
    )
    for fen in legal_positions:
        board = chess.Board(fen)
        start = time.perf_counter()
        result = TutorialEngine().search(board, 2)
        elapsed = time.perf_counter() - start
        ok = result.move is not None and board.is_legal(result.move)
        failures += not ok
        print(
            f"{'ok  ' if ok else 'FAIL'} legal move at depth 2: {result.move} "
            f"nodes {result.nodes} in {elapsed:.2f}s, {fen}"
        )
    board = chess.Board()
    for ply in range(8):  # self-play: every returned move must be legal
        move = select_move(board, 2)
        if move is None or move not in board.legal_moves:
            print(f"FAIL self-play ply {ply}: illegal move {move} in {board.fen()}")
            failures += 1
            break
        board.push(move)
    else:
        print(
            "ok   8 plies of legal self-play at depth 2: "
            + " ".join(move.uci() for move in board.move_stack)
        )
    total = len(checks) + len(no_move_positions) + len(legal_positions) + 1
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(_self_test())
