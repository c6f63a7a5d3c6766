"""The ``play`` blueprint: the page, the piece images and the stateless JSON API.

The client keeps the game (start FEN and UCI moves) and sends it whole with every request, so a
game survives a page reload and a server restart. Endpoints:

``GET /``                 the page
``GET /pieces/<code>.svg`` python-chess's artwork for a piece (``wK``, ``bN``, ...)
``GET /api/levels``        the playing levels and the default
``POST /api/state``        ``{fen?, moves}`` -> the position: legal moves, SAN, check, status,
                          opening
``POST /api/move``         ``{fen?, moves, level?, book?}`` -> the engine's move and what it thinks,
                          with the state after it
``POST /api/pgn``          ``{fen?, moves, white?, black?}`` -> ``{pgn, filename}``

Bad input is answered 400 with ``{"error", "field"}`` naming the field; all engines busy, 503 with
``Retry-After``.
"""

from __future__ import annotations

import datetime
from typing import Any

import chess
import chess.engine
import chess.pgn
import chess.svg
from flask import Blueprint, Response, current_app, jsonify, render_template, request

from ferrochess.engine import levels
from ferrochess.exceptions import IllegalMoveError, InvalidFenError
from ferrochess.openings import opening
from ferrochess.web.pool import Busy, EnginePool

# Templates in templates/play/ and static files in static/play/, namespaced by the blueprint.
bp = Blueprint("play", __name__, template_folder="templates", static_folder="static/play",
               static_url_path="/static/play")  # fmt: skip

MAX_MOVES = 2000
"""Longest game accepted, in plies (a real game is far shorter)."""
MAX_NAME_LENGTH = 100
MAX_MOVE_COUNTER = 100_000
"""Largest halfmove clock or move number accepted in a FEN (the engine holds 32 bits; no real game
comes near this)."""
RETRY_AFTER_SECONDS = 1
START_POSITION_CODE = "A00a"
"""Scid's name for the standard start position, which is no opening."""
PIECE_CODES = {f"{color}{letter}" for color in "wb" for letter in "KQRBNP"}
TERMINATIONS = {
    chess.Termination.CHECKMATE: "checkmate",
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.THREEFOLD_REPETITION: "threefold repetition",
    chess.Termination.FIFTY_MOVES: "fifty-move rule",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold repetition",
    chess.Termination.SEVENTYFIVE_MOVES: "seventy-five-move rule",
}


class BadInput(Exception):
    """A request field is missing, of the wrong type or invalid; answered with 400."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@bp.errorhandler(BadInput)
def bad_input(error: BadInput) -> Any:
    return jsonify(error=error.message, field=error.field), 400


@bp.errorhandler(InvalidFenError)
@bp.errorhandler(IllegalMoveError)
def refused_by_the_engine(error: InvalidFenError | IllegalMoveError) -> Any:
    """A game python-chess accepted but the engine cannot hold (a guard: game_from checks first)."""
    field = "fen" if isinstance(error, InvalidFenError) else "moves"
    return jsonify(error=str(error), field=field), 400


@bp.errorhandler(Busy)
def busy(_error: Busy) -> Any:
    response = jsonify(error="every engine is busy; try again in a moment", field=None)
    response.status_code = 503
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


# --- the page -------------------------------------------------------------------------------------


@bp.get("/")
def index() -> str:
    return render_template(
        "play/index.html",
        levels=levels(),
        default_level=current_app.config["FERROCHESS_DEFAULT_LEVEL"],
    )


@bp.get("/pieces/<code>.svg")
def piece(code: str) -> Response:
    if code not in PIECE_CODES:
        return Response("no such piece", status=404, mimetype="text/plain")
    symbol = code[1] if code[0] == "w" else code[1].lower()
    svg = chess.svg.piece(chess.Piece.from_symbol(symbol), size=90)
    response = Response(svg, mimetype="image/svg+xml")
    response.cache_control.max_age = 86400
    response.cache_control.public = True
    return response


# --- the JSON API ---------------------------------------------------------------------------------


@bp.get("/api/levels")
def api_levels() -> Any:
    return jsonify(
        levels=[level._asdict() for level in levels()],
        default=current_app.config["FERROCHESS_DEFAULT_LEVEL"],
    )


@bp.post("/api/state")
def api_state() -> Any:
    return jsonify(state(game_from(payload())))


@bp.post("/api/move")
def api_move() -> Any:
    data = payload()
    board = game_from(data)
    level = integer(data, "level", current_app.config["FERROCHESS_DEFAULT_LEVEL"], 1, 10)
    use_book = boolean(data, "book", True)
    if board.outcome(claim_draw=True) is not None:
        raise BadInput("moves", f"the game is over ({status(board)['reason']})")
    pool: EnginePool = current_app.extensions["ferrochess_pool"]
    limit = chess.engine.Limit(time=float(current_app.config["FERROCHESS_MAX_THINK_SECONDS"]))
    with pool.engine(float(current_app.config["FERROCHESS_BUSY_WAIT_SECONDS"])) as engine:
        result = engine.play(board, limit, level=level, use_book=use_book)
    move = result.move
    if move is None:  # pragma: no cover - ruled out by the game-over check above
        raise BadInput("moves", "there is no legal move")
    info: dict[str, Any] = dict(result.info)
    answer: dict[str, Any] = {
        "move": move.uci(),
        "san": board.san(move),
        "score": white_score(info.get("score")),
        "pv": san_line(board, info.get("pv", [move])),
        "depth": info.get("depth", 0),
        "nodes": info.get("nodes", 0),
        "time_ms": round(1000 * info.get("time", 0.0), 1),
        "source": info.get("source", "search"),
        "level": level,
    }
    for key in ("book_weight", "wdl", "dtz"):
        if key in info:
            answer[key] = info[key]
    board.push(move)
    answer["state"] = state(board)
    return jsonify(answer)


@bp.post("/api/pgn")
def api_pgn() -> Any:
    data = payload()
    board = game_from(data)
    white = text(data, "white", "White")
    black = text(data, "black", "Black")
    game = chess.pgn.Game.from_board(board)
    today = datetime.date.today()
    game.headers["Event"] = "ferrochess play"
    game.headers["Site"] = request.host
    game.headers["Date"] = today.strftime("%Y.%m.%d")
    game.headers["White"] = white
    game.headers["Black"] = black
    game.headers["Result"] = status(board)["result"]
    named = opening_of(board)
    if named is not None:
        game.headers["ECO"] = named["eco"]
        game.headers["Opening"] = named["name"]
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=False)
    return jsonify(pgn=game.accept(exporter), filename=f"ferrochess-{today:%Y%m%d}.pgn")


# --- reading requests -----------------------------------------------------------------------------


def payload() -> dict[str, Any]:
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # nested deeper than Python's JSON reader goes (within the size limit)
        raise BadInput("body", "the body's JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise BadInput("body", "the body must be a JSON object (Content-Type: application/json)")
    return data


def game_from(data: dict[str, Any]) -> chess.Board:
    """The game of a request: ``fen`` (default the start) and the UCI ``moves`` played from it."""
    fen = data.get("fen", chess.STARTING_FEN)
    if fen is None:
        fen = chess.STARTING_FEN
    if not isinstance(fen, str):
        raise BadInput("fen", f"fen must be a string, not {type(fen).__name__}")
    try:
        board = chess.Board(fen)
    except ValueError as error:
        raise BadInput("fen", f"invalid FEN {fen!r}: {error}") from None
    if not board.is_valid():
        raise BadInput("fen", f"impossible position {fen!r}: {board.status()!r}")
    if board.halfmove_clock > MAX_MOVE_COUNTER or board.fullmove_number > MAX_MOVE_COUNTER:
        raise BadInput("fen", f"move counters above {MAX_MOVE_COUNTER} in {fen!r}")
    moves = data.get("moves", [])
    if not isinstance(moves, list):
        raise BadInput("moves", f"moves must be a list of UCI strings, not {type(moves).__name__}")
    if len(moves) > MAX_MOVES:
        raise BadInput("moves", f"at most {MAX_MOVES} moves, got {len(moves)}")
    for index, uci in enumerate(moves):
        field = f"moves[{index}]"
        if not isinstance(uci, str):
            raise BadInput(field, f"{field} must be a UCI string, not {type(uci).__name__}")
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            raise BadInput(field, f"{field} {uci!r} is not a move in UCI notation") from None
        if move not in board.legal_moves:
            raise BadInput(field, f"{field} {uci!r} is illegal in {board.fen()!r}")
        board.push(move)
    return board


def integer(data: dict[str, Any], field: str, default: int, low: int, high: int) -> int:
    value = data.get(field, default)
    if value is None:
        return default
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


def text(data: dict[str, Any], field: str, default: str) -> str:
    value = data.get(field, default)
    if not isinstance(value, str) or len(value) > MAX_NAME_LENGTH:
        raise BadInput(field, f"{field} must be a string of at most {MAX_NAME_LENGTH} characters")
    return value or default


# --- describing positions -------------------------------------------------------------------------


def state(board: chess.Board) -> dict[str, Any]:
    """What the page needs to draw a position and the game so far."""
    root = board.root()
    replay = root.copy()
    sans = []
    for move in board.move_stack:
        sans.append(replay.san(move))
        replay.push(move)
    king = board.king(board.turn) if board.is_check() else None
    return {
        "fen": board.fen(),
        "start_fen": root.fen(),
        "moves": [move.uci() for move in board.move_stack],
        "san": sans,
        "turn": "white" if board.turn == chess.WHITE else "black",
        "fullmove": board.fullmove_number,
        "legal_moves": [move.uci() for move in board.legal_moves],
        "last_move": board.move_stack[-1].uci() if board.move_stack else None,
        "check": chess.square_name(king) if king is not None else None,
        "status": status(board),
        "opening": opening_of(board),
    }


def status(board: chess.Board) -> dict[str, Any]:
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        return {"over": False, "result": "*", "reason": None, "winner": None}
    winner = None if outcome.winner is None else ("white" if outcome.winner else "black")
    return {
        "over": True,
        "result": outcome.result(),
        "reason": TERMINATIONS.get(outcome.termination, outcome.termination.name.lower()),
        "winner": winner,
    }


def white_score(score: chess.engine.PovScore | None) -> dict[str, int] | None:
    """The score from White's point of view: ``{"cp": n}`` or ``{"mate": n}``; None for none."""
    if score is None:
        return None
    white = score.white()
    mate = white.mate()
    if mate is not None:
        return {"mate": mate}
    return {"cp": white.score(mate_score=100_000) or 0}


def san_line(board: chess.Board, moves: list[chess.Move]) -> list[str]:
    line = []
    replay = board.copy(stack=False)
    for move in moves:
        if move not in replay.legal_moves:
            break
        line.append(replay.san(move))
        replay.push(move)
    return line


def opening_of(board: chess.Board) -> dict[str, str] | None:
    """The opening the game is in; None before it has one (the start position is not one)."""
    named = opening(board)
    if named is None or named.code == START_POSITION_CODE:
        return None
    return {"eco": named.eco, "code": named.code, "name": named.name}
