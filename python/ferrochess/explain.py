"""Why a move is bad, in words: the review's sentence beside "Mistake. Best was Nf3".

:func:`explain` reads a move, the evaluation of the position after it and the engine's best line
there (the refutation), and says, the first that applies:

1. ``"allows mate in 2"``: the evaluation after the move is a mate against the mover (the count
   is the evaluation's, in moves, as python-chess's ``Mate``);
2. ``"leaves the bishop on c4 hanging"``: a piece of the mover (not the king) stands where the
   opponent wins material by taking it (:func:`static_exchange` > 0, the first capture legal), the
   most valuable such piece, whatever the line does;
3. ``"loses the rook on a1 after ...Nc2+"``: walking the refutation (up to
   :data:`WALK_PLIES` plies, while the opponent's moves capture, check or promote; the mover's
   replies are always taken), the mover ends with less material (1/3/3/5/9) than after the move;
   the sentence names the most valuable piece of the mover taken on the way, its square, and the
   refutation's first move in SAN ("...Nc2+" for a Black move, as lichess writes it);
4. otherwise None: a positional mistake gets no sentence (the judgement and the better move
   already say it).

All of it is python-chess over the position; nothing here searches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import chess

__all__ = ["PIECE_VALUES", "WALK_PLIES", "explain", "material", "static_exchange"]

PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9,
                chess.KING: 0}  # fmt: skip
"""Material in pawns; the king counts nothing in a balance."""
KING_IN_EXCHANGE = 100
"""The king's worth as a capturer in an exchange: it may take last, never into a defended square."""
WALK_PLIES = 6
"""The most plies of the refutation walked for material."""


def explain(
    board: chess.Board,
    move: chess.Move,
    score_after: Mapping[str, Any],
    refutation: Sequence[chess.Move | str],
) -> str | None:
    """The sentence for ``move`` played at ``board`` (unchanged), or None (see the module docs).

    ``score_after`` is the evaluation of the position after the move from White's view, as the
    review holds it (``{"cp": n}`` or ``{"mate": n}``); ``refutation`` the engine's best line from
    that position, as moves or SAN; a line that stops being legal is walked up to there.
    """
    mover = board.turn
    mate = score_after.get("mate")
    if mate and (mate > 0) != (mover == chess.WHITE):
        return f"allows mate in {abs(mate)}"
    after = board.copy(stack=False)
    after.push(move)
    hanging = _hanging(after, mover)
    if hanging is not None:
        name = chess.piece_name(after.piece_type_at(hanging) or chess.PAWN)
        return f"leaves the {name} on {chess.square_name(hanging)} hanging"
    return _material_lost(after, mover, refutation)


def material(board: chess.Board, color: chess.Color) -> int:
    """``color``'s material minus the other side's, in pawns (1/3/3/5/9)."""
    total = 0
    for piece_type, value in PIECE_VALUES.items():
        own, other = board.pieces(piece_type, color), board.pieces(piece_type, not color)
        total += value * (len(own) - len(other))
    return total


def static_exchange(board: chess.Board, square: chess.Square) -> int:
    """What the side to move wins, in pawns, by the best legal capture on ``square`` followed by
    the exchange there (each side taking with its least valuable piece, or stopping when that
    pays better); 0 or less when no capture pays. Only the first capture must be legal."""
    target = board.piece_type_at(square)
    if target is None:
        return 0
    best = None
    for capture in board.generate_legal_captures(to_mask=chess.BB_SQUARES[square]):
        if board.is_en_passant(capture):
            continue
        rest = board.copy(stack=False)
        piece = rest.remove_piece_at(capture.from_square)
        rest.set_piece_at(square, piece)
        gain = PIECE_VALUES[target] - _exchange(rest, square, not board.turn)
        best = gain if best is None else max(best, gain)
    return 0 if best is None else best


def _exchange(board: chess.Board, square: chess.Square, side: chess.Color) -> int:
    """What ``side`` gains by going on with the exchange on ``square`` (0 if it had better not)."""
    attackers = board.attackers(side, square)
    if not attackers:
        return 0
    taker = min(attackers, key=lambda at: _worth(board.piece_type_at(at)))
    captured = _worth(board.piece_type_at(square))
    rest = board.copy(stack=False)
    piece = rest.remove_piece_at(taker)
    rest.set_piece_at(square, piece)
    return max(0, captured - _exchange(rest, square, not side))


def _worth(piece_type: chess.PieceType | None) -> int:
    if piece_type == chess.KING:
        return KING_IN_EXCHANGE
    return PIECE_VALUES.get(piece_type or chess.PAWN, 0)


def _hanging(after: chess.Board, mover: chess.Color) -> chess.Square | None:
    """The most valuable piece of ``mover`` the opponent (to move) wins material by taking."""
    found = None
    for square in chess.SquareSet(after.occupied_co[mover] & ~after.kings):
        if static_exchange(after, square) > 0:
            value = PIECE_VALUES[after.piece_type_at(square) or chess.PAWN]
            if found is None or value > found[0]:
                found = (value, square)
    return None if found is None else found[1]


def _material_lost(
    after: chess.Board, mover: chess.Color, refutation: Sequence[chess.Move | str]
) -> str | None:
    walk = after.copy(stack=False)
    start = material(walk, mover)
    first = None
    lost: tuple[int, chess.PieceType, chess.Square] | None = None
    for entry in refutation[:WALK_PLIES]:
        try:
            step = walk.parse_san(entry) if isinstance(entry, str) else entry
        except ValueError:
            break
        if step not in walk.legal_moves:
            break
        refuter = walk.turn != mover
        if refuter and not (
            walk.is_capture(step) or walk.gives_check(step) or step.promotion is not None
        ):
            break
        if first is None:
            first = ("..." if walk.turn == chess.BLACK else "") + walk.san(step)
        if refuter and walk.is_capture(step):
            square = step.to_square
            if walk.is_en_passant(step):
                rank = chess.square_rank(step.from_square)
                square = chess.square(chess.square_file(square), rank)
            taken = walk.piece_type_at(square) or chess.PAWN
            if lost is None or PIECE_VALUES[taken] > lost[0]:
                lost = (PIECE_VALUES[taken], taken, square)
        walk.push(step)
    if first is None or material(walk, mover) >= start:
        return None
    if lost is None:
        return f"loses material after {first}"
    return f"loses the {chess.piece_name(lost[1])} on {chess.square_name(lost[2])} after {first}"
