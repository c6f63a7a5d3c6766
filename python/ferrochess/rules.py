"""The one judge of a game: how it ends, as lichess applies the rules, in one set of words, and what
is wrong with a position.

:func:`outcome` is the one judge of a finished game for the play page, its API, the notebook
controller and :func:`ferrochess.analyse_game`; :func:`status` says how a game stands (over or not,
result, winner, and the reason in the words of :data:`TERMINATIONS` and :data:`OFF_BOARD`), for the
play API, the notebook and the PGN export alike. Checkmate, stalemate, insufficient material,
fivefold repetition and the seventy-five-move rule end the game as in python-chess's
``outcome()``; on top of those, the game ends by **threefold repetition when the position has
occurred the third time** and by the **fifty-move rule when the hundredth half-move without a
capture or pawn move has been played** (lichess draws both at once, without a claim). Never a move
earlier: python-chess's ``outcome(claim_draw=True)`` also counts a draw the side to move *could*
claim by announcing its next move, which would take that choice away from the player.

:func:`flag_winner` says who wins when a flag falls (nobody when the other side could never mate),
:func:`fen_problems` words python-chess's :class:`chess.Status` flags for people, and
:func:`position` reads a FEN into a board to play from, refusing one that is no legal position.
"""

from __future__ import annotations

from typing import Any

import chess

from ferrochess import _core
from ferrochess.exceptions import InvalidFenError

__all__ = [
    "FIFTY_MOVE_PLIES",
    "MAX_MOVE_COUNTER",
    "OFF_BOARD",
    "REPETITIONS",
    "TERMINATIONS",
    "fen_problems",
    "flag_winner",
    "outcome",
    "position",
    "status",
]

REPETITIONS = 3
"""Occurrences of one position that end the game in a draw."""
FIFTY_MOVE_PLIES = _core.FIFTY_MOVE_PLIES
"""Half-moves without a capture or pawn move that end the game in a draw (the core's rule, which
its search draws by)."""

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
(``"Draw by threefold repetition"``; the notebook's ``"Threefold repetition: 1/2-1/2"``)."""

OFF_BOARD: dict[str, str] = {
    "resign": "{loser} resigned",
    "flag": "{loser}'s time ran out",
    "agreement": "agreement",
}
"""Each way a game ends off the board (the ``end`` of a play request, ``{"by": ...}``), by its name
in the play API, and its reason in words (``{loser}`` is ``White`` or ``Black``)."""
FLAG_WITHOUT_MATE = ", but the opponent cannot mate"
"""Added to the reason of a flag against a side whose opponent could never mate (a draw)."""

MAX_MOVE_COUNTER = 100_000
"""Largest halfmove clock or move number accepted in a FEN (the engine holds 32 bits; no real game
comes near this)."""

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


def status(board: chess.Board, end: dict[str, Any] | None = None) -> dict[str, Any]:
    """How the game on ``board`` stands: ``{over, result, reason, winner, termination}`` (the
    ``status`` of docs/play.md). ``end`` is how it ended off the board, if it did:
    ``{"by": "resign"|"flag", "color": loser}`` or ``{"by": "agreement"}``; otherwise
    :func:`outcome` decides. ``winner`` and ``color`` are ``"white"``/``"black"``; ``termination``
    a name of :data:`TERMINATIONS` or :data:`OFF_BOARD`, ``reason`` its words."""
    if end is not None:
        by = end["by"]
        if by == "agreement":
            return _ended("1/2-1/2", by, OFF_BOARD[by], None)
        loser = end["color"] == chess.COLOR_NAMES[chess.WHITE]
        reason = OFF_BOARD[by].format(loser=chess.COLOR_NAMES[loser].capitalize())
        winner = not loser if by == "resign" else flag_winner(board, loser)
        if winner is None:
            return _ended("1/2-1/2", by, reason + FLAG_WITHOUT_MATE, None)
        return _ended(_result(winner), by, reason, winner)
    ended = outcome(board)
    if ended is None:
        return {"over": False, "result": "*", "reason": None, "winner": None, "termination": None}
    name, reason = TERMINATIONS[ended.termination]
    return _ended(ended.result(), name, reason, ended.winner)


def position(fen: str, chess960: bool = False) -> chess.Board:
    """The position of ``fen``, to play from (a Chess960 board with ``chess960``, its castling
    field Shredder-FEN or X-FEN). InvalidFenError (a ValueError) quoting ``fen`` when it is no
    FEN, an impossible position (what is wrong, in words) or has move counters above
    :data:`MAX_MOVE_COUNTER`."""
    if not isinstance(fen, str):
        raise InvalidFenError(f"fen must be a string, not {type(fen).__name__}")
    try:
        board = chess.Board(fen, chess960=chess960)
    except ValueError as error:
        raise InvalidFenError(f"invalid FEN {fen!r}: {error}") from None
    problems = fen_problems(board.status())
    if problems:
        raise InvalidFenError(f"impossible position {fen!r}: {problems}")
    if board.halfmove_clock > MAX_MOVE_COUNTER or board.fullmove_number > MAX_MOVE_COUNTER:
        raise InvalidFenError(f"move counters above {MAX_MOVE_COUNTER} in {fen!r}")
    return board


def _result(winner: chess.Color) -> str:
    return "1-0" if winner == chess.WHITE else "0-1"


def _ended(
    result: str, termination: str, reason: str, winner: chess.Color | None
) -> dict[str, Any]:
    return {
        "over": True,
        "result": result,
        "reason": reason,
        "winner": None if winner is None else chess.COLOR_NAMES[winner],
        "termination": termination,
    }


def fen_problems(status: chess.Status) -> str:
    """What is wrong with a position, in words (``"White has no king; Black has no king"``);
    ``""`` for a valid one."""
    problems = [words for flag, words in STATUS_WORDS if status & flag]
    if status and not problems:  # a flag python-chess added after this table was written
        problems.append(f"python-chess reports {int(status)}")
    return "; ".join(problems)
