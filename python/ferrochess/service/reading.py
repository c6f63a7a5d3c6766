"""Reading the requests of the play API (docs/play.md): a game (``fen``, ``moves``, ``end``) and
the other fields, each checked with a message that names the field and says what was wrong.

Everything here raises :class:`BadInput` (HTTP 400; a ValueError, so that a caller outside the
web, such as the notebook, raises what python-chess would); nothing searches. python-chess judges
the moves and :mod:`ferrochess.rules` the position (:func:`~ferrochess.rules.position`) and how the
game ended (:func:`~ferrochess.rules.status`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import chess

from ferrochess import rules

__all__ = ["BadInput", "Game", "read_game"]

MAX_MOVES = 2000
"""Longest game accepted, in plies (a real game is far shorter)."""
MAX_NAME_LENGTH = 100
MAX_CLIENT_LENGTH = 64
CLIENT_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_CLIENT_LENGTH}}}")
MAX_CLOCK_MS = 24 * 3600 * 1000
"""Longest clock or increment accepted: a day."""
COLORS = {"white": chess.WHITE, "black": chess.BLACK}


class BadInput(ValueError):
    """A request field is missing, of the wrong type or invalid; answered with 400."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Game:
    """A request's game: the board (with its moves) and how it ended off the board, if it did."""

    board: chess.Board
    end: dict[str, Any] | None


# --- reading requests -----------------------------------------------------------------------------


def as_object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise BadInput("body", "the body must be a JSON object")
    return body


def read_game(body: Any) -> Game:
    """The game of a request: ``fen`` (default the start), the UCI ``moves`` played from it, and
    ``end`` (how it ended off the board); with ``chess960`` (default false) a game of Chess960,
    whose castling moves are the king taking its own rook (``e1h1``; the king's two-square move
    is read as castling too where the king stands on e1 or e8). Moves after the end of the game
    are refused."""
    data = as_object(body)
    chess960 = boolean(data, "chess960", False)
    fen = data.get("fen", chess.STARTING_FEN)
    try:
        board = rules.position(chess.STARTING_FEN if fen is None else fen, chess960)
    except ValueError as error:
        raise BadInput("fen", str(error)) from None
    moves = data.get("moves", [])
    if not isinstance(moves, list):
        raise BadInput("moves", f"moves must be a list of UCI strings, not {type(moves).__name__}")
    if len(moves) > MAX_MOVES:
        raise BadInput("moves", f"at most {MAX_MOVES} moves, got {len(moves)}")
    for index, uci in enumerate(moves):
        field = f"moves[{index}]"
        status = rules.status(board)
        if status["over"]:
            raise BadInput(
                field, f"{field} {uci!r} comes after the game ended ({status['reason']})"
            )
        board.push(read_move({field: uci}, field, board))
    end = read_end(data, board)
    return Game(board, end)


def read_move(data: dict[str, Any], field: str, board: chess.Board) -> chess.Move:
    uci = data.get(field)
    if not isinstance(uci, str):
        raise BadInput(field, f"{field} must be a UCI string, not {type(uci).__name__}")
    try:
        move = chess.Move.from_uci(uci)
    except ValueError:
        raise BadInput(field, f"{field} {uci!r} is not a move in UCI notation") from None
    if board.chess960 and move:
        # python-chess reads castling written either way (e1h1, or e1g1 from e1) as its e1h1.
        try:
            move = board.parse_uci(uci)
        except ValueError:
            pass  # refused below, in the same words as any illegal move
    if move not in board.legal_moves:
        raise BadInput(field, f"{field} {uci!r} is illegal in {board.fen()!r}")
    return move


def read_end(data: dict[str, Any], board: chess.Board) -> dict[str, Any] | None:
    """``end``: ``{"by": "resign"|"flag", "color": ...}`` or ``{"by": "agreement"}``."""
    end = data.get("end")
    if end is None:
        return None
    if not isinstance(end, dict):
        raise BadInput("end", 'end must be an object like {"by": "resign", "color": "white"}')
    by = end.get("by")
    if by not in rules.OFF_BOARD:
        raise BadInput("end", f"end.by must be one of {', '.join(rules.OFF_BOARD)}, not {by!r}")
    status = rules.status(board)
    if status["over"]:
        raise BadInput("end", f"the game had already ended ({status['reason']})")
    if by == "agreement":
        return {"by": by}
    color = end.get("color")
    if color not in COLORS:
        raise BadInput("end", f"end.color must be 'white' or 'black', not {color!r}")
    return {"by": by, "color": color}


def read_clock(data: dict[str, Any]) -> dict[str, float] | None:
    """``clock``: ``{"white": ms, "black": ms, "increment": ms}`` -> seconds; None when absent."""
    clock = data.get("clock")
    if clock is None:
        return None
    if not isinstance(clock, dict):
        raise BadInput("clock", "clock must be an object {white, black, increment} in ms")
    seconds = {}
    for name in ("white", "black", "increment"):
        value = clock.get(name, 0 if name == "increment" else None)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadInput("clock", f"clock.{name} must be a number of milliseconds")
        if not 0 <= value <= MAX_CLOCK_MS:
            raise BadInput("clock", f"clock.{name} must be between 0 and {MAX_CLOCK_MS} ms")
        seconds[name] = value / 1000
    for name in ("white", "black"):
        seconds[name] = max(seconds[name], 0.001)
    return seconds


def bounded(value: object, field: str, low: int, high: int) -> int:
    """``value`` when it is an integer from ``low`` to ``high``; BadInput naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(field, f"{field} must be an integer, not {value!r}")
    if not low <= value <= high:
        raise BadInput(field, f"{field} must be between {low} and {high}, not {value}")
    return value


def boolean(data: dict[str, Any], field: str, default: bool) -> bool:
    value = data.get(field, default)
    if not isinstance(value, bool):
        raise BadInput(field, f"{field} must be true or false, not {value!r}")
    return value


def color_field(data: dict[str, Any], field: str) -> chess.Color:
    value = data.get(field)
    if value not in COLORS:
        raise BadInput(field, f"{field} must be 'white' or 'black', not {value!r}")
    return COLORS[value]


def client_field(data: dict[str, Any]) -> str | None:
    client = data.get("client")
    if client is None:
        return None
    if not isinstance(client, str) or not CLIENT_PATTERN.fullmatch(client):
        raise BadInput(
            "client", f"client must be 1 to {MAX_CLIENT_LENGTH} letters, digits, '-' or '_'"
        )
    return client


def text(data: dict[str, Any], field: str, default: str) -> str:
    value = data.get(field, default)
    if not isinstance(value, str) or len(value) > MAX_NAME_LENGTH:
        raise BadInput(field, f"{field} must be a string of at most {MAX_NAME_LENGTH} characters")
    if any(ord(character) < 32 or ord(character) == 127 for character in value):
        raise BadInput(field, f"{field} must not contain control characters such as a line break")
    return value or default


def pgn_escape(value: str) -> str:
    """A PGN tag value with ``\\`` and ``"`` escaped as the PGN standard says (python-chess's
    writer copies the value as it is)."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


