"""Reading an engine line: what it wins, trades taken out (:func:`read_line`), and the plain
material facts the explanations stand on (:func:`material`, :func:`static_exchange`,
:func:`settle`). Nothing here names a motif; :mod:`ferrochess.explain.motifs` does."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess

__all__ = [
    "LINE_PLIES",
    "PIECE_VALUES",
    "Line",
    "Reading",
    "Walk",
    "captured",
    "material",
    "parse",
    "read_line",
    "san",
    "settle",
    "square_at",
    "static_exchange",
    "walk",
    "worth",
]

PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9,
                chess.KING: 0}  # fmt: skip
"""Material in pawns; the king counts nothing in a balance."""
KING_IN_EXCHANGE = 100
"""The king's worth as a capturer in an exchange: it may take last, never into a defended square."""
LINE_PLIES = 10
"""The most plies of an engine line walked before its last position is settled."""
SETTLE_PLIES = 6
"""The deepest capture sequence :func:`settle` looks at."""
Line = Sequence["chess.Move | str"]

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


def settle(board: chess.Board, plies: int = SETTLE_PLIES) -> list[chess.Move]:
    """The captures (and promotions) that best end ``board``'s pending exchanges, for the side to
    move and then each side in turn: a capture-only search over material where either side may
    stop (stand pat) instead; [] when standing pat is best. At most ``plies`` deep."""
    _, line = _quiesce(board, -10_000, 10_000, plies)
    return line


@dataclass
class Walk:
    """A line played from its start: ``boards[i]`` is the position before ``plies[i]``, the last
    board the position after the whole line."""

    boards: list[chess.Board]
    plies: list[chess.Move]


@dataclass
class Reading:
    """What a line wins for the side to move at its start (the winner) from the loser."""

    walk: Walk
    winner: chess.Color
    net: int
    """The loser's material drop over the line, settled (pawns, > 0)."""
    won: list[int]
    """Ply indexes of the winner's captures that stand, trades taken out."""
    returned: list[chess.PieceType]
    """The winner's pieces the loser took back and that no capture of equal worth pays for."""
    primary: int | None
    """The ply index of the capture of the most valuable piece won (None: won by promotion)."""
    promotion: int | None = None
    """The ply index of the winner's first promotion, if any."""


def read_line(
    board: chess.Board, line: Line, *, credit: chess.PieceType | None = None
) -> Reading | None:
    """What ``line`` (the side to move's best line at ``board``) wins, or None when the side not
    to move ends less than a pawn down. ``credit`` is what the loser's move just before ``board``
    took, if it took something: it counts as taken back (a capture answered by a recapture is a
    trade, not a loss)."""
    walked = walk(board, line[:LINE_PLIES])
    for move in settle(walked.boards[-1]):
        push(walked, move)
    winner = board.turn
    paid = 0 if credit is None else PIECE_VALUES[credit]
    net = material(walked.boards[-1], winner) - material(board, winner) - paid
    if net < 1:
        return None
    taken: list[int] = []
    back: list[chess.PieceType] = [] if credit is None else [credit]
    for index, move in enumerate(walked.plies):
        position = walked.boards[index]
        if not position.is_capture(move):
            continue
        if position.turn == winner:
            taken.append(index)
        else:
            back.append(captured(walked, index)[0])
    won = list(taken)
    returned: list[chess.PieceType] = []
    # A piece taken back for one of equal worth is a trade; the latest such capture of the
    # winner's cancels, so the line's first win is what it names.
    for piece in back:
        value = PIECE_VALUES[piece]
        match = next(
            (w for w in reversed(won) if PIECE_VALUES[captured(walked, w)[0]] == value), None
        )
        if match is None:
            returned.append(piece)
        else:
            won.remove(match)
    promotion = next(
        (i for i, move in enumerate(walked.plies)
         if move.promotion and walked.boards[i].turn == winner),
        None,
    )  # fmt: skip
    if not won and promotion is None:
        return None
    primary = None
    if won:
        # The first piece won that is worth more than half the line's gain: the later a line's
        # move, the less sure it is, so a line that wins a bishop at once and a rook later
        # names the bishop (when the rook is not most of the gain); a pawn taken on the way to
        # a rook does not count.
        primary = next(
            (i for i in won if 2 * PIECE_VALUES[captured(walked, i)[0]] > net),
            max(won, key=lambda i: (PIECE_VALUES[captured(walked, i)[0]], -i)),
        )
    return Reading(walked, winner, net, won, returned, primary, promotion)


def walk(board: chess.Board, line: Line) -> Walk:
    walked = Walk([board.copy(stack=False)], [])
    for entry in line:
        move = parse(walked.boards[-1], entry)
        if move is None:
            break
        push(walked, move)
    return walked


def push(walked: Walk, move: chess.Move) -> None:
    following = walked.boards[-1].copy(stack=False)
    following.push(move)
    walked.plies.append(move)
    walked.boards.append(following)


def parse(board: chess.Board, entry: chess.Move | str) -> chess.Move | None:
    try:
        move = board.parse_san(entry) if isinstance(entry, str) else entry
    except ValueError:
        return None
    return move if move in board.legal_moves else None


def captured(walked: Walk, index: int) -> tuple[chess.PieceType, chess.Square]:
    """The piece a capture takes and the square it stood on."""
    board, move = walked.boards[index], walked.plies[index]
    if board.is_en_passant(move):
        return chess.PAWN, chess.square(
            chess.square_file(move.to_square), chess.square_rank(move.from_square)
        )
    return board.piece_type_at(move.to_square) or chess.PAWN, move.to_square


def san(walked: Walk, index: int) -> str:
    board = walked.boards[index]
    return ("..." if board.turn == chess.BLACK else "") + board.san(walked.plies[index])


def square_at(walked: Walk, square: chess.Square, index: int, then: int) -> chess.Square | None:
    """Where the piece standing on ``square`` before ply ``index`` stood before ply ``then``
    (``then`` <= ``index``), following its own moves back; None if it was not on the board."""
    for back in range(index - 1, then - 1, -1):
        move = walked.plies[back]
        if move.to_square == square:
            if walked.boards[back].is_castling(move):
                return None
            square = move.from_square
        elif move.from_square == square:
            return None
    return square


def worth(piece_type: chess.PieceType | None) -> int:
    if piece_type == chess.KING:
        return KING_IN_EXCHANGE
    return PIECE_VALUES.get(piece_type or chess.PAWN, 0)


def _exchange(board: chess.Board, square: chess.Square, side: chess.Color) -> int:
    """What ``side`` gains by going on with the exchange on ``square`` (0 if it had better not)."""
    attackers = board.attackers(side, square)
    if not attackers:
        return 0
    taker = min(attackers, key=lambda at: worth(board.piece_type_at(at)))
    captured = worth(board.piece_type_at(square))
    rest = board.copy(stack=False)
    piece = rest.remove_piece_at(taker)
    rest.set_piece_at(square, piece)
    return max(0, captured - _exchange(rest, square, not side))


def _quiesce(board: chess.Board, alpha: int, beta: int, plies: int) -> tuple[int, list[chess.Move]]:
    """Material for the side to move after the best captures (fail-hard, stand pat)."""
    if board.is_checkmate():
        return -1000, []
    stand = material(board, board.turn)
    if plies == 0 or stand >= beta:
        return stand, []
    best_line: list[chess.Move] = []
    alpha = max(alpha, stand)
    moves = [m for m in board.legal_moves if board.is_capture(m) or m.promotion == chess.QUEEN]
    moves.sort(key=lambda m: -worth(board.piece_type_at(m.to_square)) * 10
               + worth(board.piece_type_at(m.from_square)))  # fmt: skip
    for move in moves:
        board.push(move)
        score, line = _quiesce(board, -beta, -alpha, plies - 1)
        board.pop()
        score = -score
        if score >= beta:
            return beta, []
        if score > alpha:
            alpha, best_line = score, [move, *line]
    return alpha, best_line
