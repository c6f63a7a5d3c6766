"""The ``train`` blueprint's JSON API: training from one's own archived games (issue 51), answered
by :class:`ferrochess.service.training.TrainingService`. ``player`` is the page's random player id
(``[A-Za-z0-9_-]{1,64}``, kept in localStorage, sent with each archived game).

``GET /train``
    The training page (templates/train/index.html, static/train/): the puzzles due, solved on the
    board, as this browser's player (static/ui/player.js).
``GET /api/train/next?player=ID``
    200 ``{"puzzle": {id, fen, moves, themes, kind, source, chess960, accept}, "card": {due,
    due_now, state, step, stability, difficulty, last_review}, "rating": {rating, deviation},
    "counts": {due, total}}``; when no card is due, ``puzzle`` and ``card`` are null (the rating
    and the counts are still there). ``fen`` has the solver to move;
    ``moves`` is the solution in UCI (the solver's moves at even indexes, the opponent's replies
    at odd ones); ``accept`` the first moves taken as right; ``kind`` "blunder", "missed_win" or
    "opening".
``POST /api/train/attempt {player, puzzle, solved, seconds?}``
    ``puzzle`` the puzzle's id, ``solved`` true/false (a wrong move or the solution shown is
    false), ``seconds`` (optional) how long it took. 200 ``{"card": {...}, "rating": {rating,
    deviation}, "puzzle_rating": {rating, deviation}, "rated": bool, "counts": {due, total}}``
    (only the first attempt at a puzzle is rated).
``POST /api/train/mine {player, max_games?}``
    Makes puzzles and opening cards from the player's archived games not mined yet, oldest first,
    at most ``max_games`` (1 to 50, default 5) a request, searching on the app's engine pool
    (seconds a game). 200 ``{"games": mined now, "cards": new cards, "left": games still to
    mine}``: the page asks again while ``left`` > 0.

Errors are JSON ``{"error": message, "field": name}``: 400 naming the bad field (``player``,
``puzzle``, ``solved``, ``seconds``, ``max_games``, ``body``), 404 without an archive
(``FERROCHESS_DATABASE``), 503 with ``Retry-After`` when every engine is busy or the database
cannot be reached, 501 where training cannot run (fsrs, which needs Python 3.10, is missing).
Config: ``FERROCHESS_TRAIN_NODES`` (nodes per position of a puzzle's line,
default :data:`ferrochess.training.puzzles.DEFAULT_NODES`).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from flask import Blueprint, abort, current_app, jsonify, render_template, request

from ferrochess.service.archive import Archive, ArchiveUnavailable
from ferrochess.service.pool import Busy, EnginePool
from ferrochess.service.reading import BadInput
from ferrochess.service.submission import whole
from ferrochess.web.play import payload

if TYPE_CHECKING:
    from ferrochess.service.training import TrainingService

__all__ = ["bp"]

bp = Blueprint("train", __name__)

RETRY_AFTER_SECONDS = 5
MINE_GAMES = 5
"""Games mined by one request unless it asks for another number."""
MAX_MINE_GAMES = 50
_made = threading.Lock()


def training() -> TrainingService:
    """The app's training service, made on first use; 404 when the app has no archive."""
    app = current_app
    found: TrainingService | None = app.extensions.get("ferrochess_training")
    if found is not None:
        return found
    archive: Archive | None = app.extensions.get("ferrochess_archive")
    if archive is None:
        abort(404, description="this server keeps no games archive, so no training")
    try:  # imported here: the play page needs none of it, and fsrs needs Python 3.10
        from ferrochess.service.training import TrainingService
        from ferrochess.training.puzzles import DEFAULT_NODES
    except ImportError as error:
        abort(501, description=f"training is not available on this server: {error}")
    with _made:
        found = app.extensions.get("ferrochess_training")
        if found is None:
            pool: EnginePool = app.extensions["ferrochess_pool"]
            found = TrainingService(
                archive, pool,
                nodes=int(app.config.get("FERROCHESS_TRAIN_NODES", DEFAULT_NODES)),
                book=app.config.get("FERROCHESS_BOOK"),
                busy_wait_seconds=float(app.config.get("FERROCHESS_BUSY_WAIT_SECONDS", 5.0)),
            )  # fmt: skip
            app.extensions["ferrochess_training"] = found
    return found


@bp.errorhandler(BadInput)
def bad_input(error: BadInput) -> Any:
    return jsonify(error=error.message, field=error.field), 400


@bp.errorhandler(Busy)
@bp.errorhandler(ArchiveUnavailable)
def unavailable(error: Exception) -> Any:
    if isinstance(error, Busy):
        message = "every engine is busy: try again shortly"
    else:
        message = f"the games archive cannot be reached: {error}"
    response = jsonify(error=message, field=None)
    response.status_code = 503
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


@bp.get("/train")
def train_page() -> str:
    """The training page (templates/train/index.html, static/train/): it asks the API itself,
    as this browser's player (static/ui/player.js)."""
    return render_template("train/index.html")


@bp.get("/api/train/next")
def api_next() -> Any:
    return jsonify(training().next(request.args.get("player")))


@bp.post("/api/train/attempt")
def api_attempt() -> Any:
    data = payload()
    service = training()
    return jsonify(service.attempt(
        data.get("player"), data.get("puzzle"), data.get("solved"), data.get("seconds")
    ))  # fmt: skip


@bp.post("/api/train/mine")
def api_mine() -> Any:
    data = payload()
    service = training()
    games = data.get("max_games", MINE_GAMES)
    max_games = whole(games, "max_games", 1, MAX_MINE_GAMES)
    return jsonify(service.mine(data.get("player"), max_games=max_games))
