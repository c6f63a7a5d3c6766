"""Hand-made Polyglot books for the tests: entries written exactly as given."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.polyglot


def write_entries(path: Path, entries: list[tuple[int, int, int, int]]) -> Path:
    """Write ``(key, raw_move, weight, learn)`` entries, in the given order, as a book."""
    path.write_bytes(
        b"".join(
            key.to_bytes(8, "big")
            + move.to_bytes(2, "big")
            + weight.to_bytes(2, "big")
            + learn.to_bytes(4, "big")
            for key, move, weight, learn in entries
        )
    )
    return path


def raw_move(uci: str) -> int:
    """The Polyglot encoding of a (non-castling) move given in UCI."""
    move = chess.Move.from_uci(uci)
    promotion = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}
    return promotion[move.promotion] << 12 | move.from_square << 6 | move.to_square


def write_book(path: Path, board: chess.Board, weights: dict[str, int]) -> Path:
    """A book whose only position is ``board``, with the given UCI moves and weights, in order."""
    key = chess.polyglot.zobrist_hash(board)
    return write_entries(path, [(key, raw_move(uci), w, 0) for uci, w in weights.items()])
