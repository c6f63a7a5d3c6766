"""How a game ends, as lichess applies the rules, and what is wrong with a position, in words.

:func:`outcome` is the one judge of a finished game for the play page, its API, the notebook
controller and :func:`ferrochess.analyse_game`. Checkmate, stalemate, insufficient material,
fivefold repetition and the seventy-five-move rule end the game as in python-chess's
``outcome()``; on top of those, the game ends by **threefold repetition when the position has
occurred the third time** and by the **fifty-move rule when the hundredth half-move without a
capture or pawn move has been played** (lichess draws both at once, without a claim). Never a move
earlier: python-chess's ``outcome(claim_draw=True)`` also counts a draw the side to move *could*
claim by announcing its next move, which would take that choice away from the player.

:func:`flag_winner` says who wins when a flag falls (nobody when the other side could never mate),
and :func:`fen_problems` words python-chess's :class:`chess.Status` flags for people.
"""

from __future__ import annotations

import chess

__all__ = [
    "FIFTY_MOVE_PLIES",
    "REPETITIONS",
    "TERMINATIONS",
    "fen_problems",
    "flag_winner",
    "outcome",
]

REPETITIONS = 3
"""Occurrences of one position that end the game in a draw."""
FIFTY_MOVE_PLIES = 100
"""Half-moves without a capture or pawn move that end the game in a draw."""

TERMINATIONS: dict[chess.Termination, tuple[str, str]] = {
    chess.Termination.CHECKMATE: ("checkmate", "checkmate"),
    chess.Termination.STALEMATE: ("stalemate", "stalemate"),
    chess.Termination.INSUFFICIENT_MATERIAL: ("insufficient_material", "insufficient material"),
    chess.Termination.THREEFOLD_REPETITION: ("threefold_repetition", "threefold repetition"),
    chess.Termination.FIFTY_MOVES: ("fifty_moves", "the fifty-move rule"),
    chess.Termination.FIVEFOLD_REPETITION: ("fivefold_repetition", "fivefold repetition"),
    chess.Termination.SEVENTYFIVE_MOVES: ("seventyfive_moves", "the seventy-five-move rule"),
}
"""Each way :func:`outcome` can end a game: its name in the play API and its reason in words
(``"Draw by threefold repetition"``)."""

STATUS_WORDS: tuple[tuple[chess.Status, str], ...] = (
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_NO_WHITE_KING, "White has no king"),
    (chess.STATUS_NO_BLACK_KING, "Black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "a side has more than one king"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "White has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "Black has more than 8 pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn stands on the first or last rank"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "White has more than 16 pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "Black has more than 16 pieces"),
    (chess.STATUS_BAD_CASTLING_RIGHTS,
     "a castling right is given to a king or rook that is not on its starting square"),
    (chess.STATUS_INVALID_EP_SQUARE,
     "the en-passant square is not behind a pawn that has just moved two squares"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_TOO_MANY_CHECKERS, "the king is checked by more pieces than any move can do"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "the king is checked in a way no move can have made"),
)  # fmt: skip


def outcome(board: chess.Board) -> chess.Outcome | None:
    """How the game on ``board`` (with its move stack) has ended, or None while it goes on."""
    ended = board.outcome(claim_draw=False)
    if ended is not None:
        return ended
    if board.is_repetition(REPETITIONS):
        return chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
    if board.halfmove_clock >= FIFTY_MOVE_PLIES:
        return chess.Outcome(chess.Termination.FIFTY_MOVES, None)
    return None


def flag_winner(board: chess.Board, flagged: chess.Color) -> chess.Color | None:
    """The winner when ``flagged``'s clock runs out on ``board``: the other side, unless it has
    too little material ever to mate, which makes the game a draw (None)."""
    opponent = not flagged
    return None if board.has_insufficient_material(opponent) else opponent


def fen_problems(status: chess.Status) -> str:
    """What is wrong with a position, in words (``"White has no king; Black has no king"``);
    ``""`` for a valid one."""
    problems = [words for flag, words in STATUS_WORDS if status & flag]
    if status and not problems:  # a flag python-chess added after this table was written
        problems.append(f"python-chess reports {int(status)}")
    return "; ".join(problems)
