"""The ``games`` blueprint: the games archive on the web (docs/play.md, "The games archive").

A finished game is submitted once by the page that played it; the archive
(:class:`~ferrochess.service.archive.Archive`, SQLite by default, PostgreSQL for a host that
outgrows one machine) judges it again, stores it under an id nobody can guess, and keeps its
review once one is made. Nothing here deletes or rewrites a stored game.

``POST /api/games``             a finished game -> 201 ``{id, url}``; 200 when it was stored
                                already (a retried submission); 409 when its ``client_id`` names
                                another game
``POST /api/games/<id>/review`` ``{review}`` (api/review's) -> 201 stored, 200 one was there
``GET /api/games/<id>``         the stored game and its review
``GET /games``                  the list, newest first; ``?result=``, ``level=``, ``time_control=``,
                                ``page=``
``GET /game/<id>``              the analysis board on the stored game, with its review
``GET /game/<id>.pgn``          one game as PGN; ``GET /games.pgn?...`` every game listed, streamed
``GET /healthz``                200 ``{"ok": true, "database": "ok"}``, or 503 when the database is
                                unreachable

When the database cannot be reached the answer is 503 with ``Retry-After`` (the page keeps the game
and tries again); without an archive (``FERROCHESS_DATABASE = "none"``) these routes answer 404.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from typing import Any

import chess.pgn
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    render_template,
    request,
    stream_with_context,
    url_for,
)

from ferrochess import pgn_tree
from ferrochess.service.archive import (
    MAX_REVIEW_BYTES,
    Archive,
    ArchiveConflict,
    ArchiveMissing,
    ArchiveUnavailable,
)
from ferrochess.service.reading import BadInput, read_game
from ferrochess.web.play import payload

bp = Blueprint("games", __name__, template_folder="templates")

RETRY_AFTER_SECONDS = 5
"""How long a client waits before submitting again when the database is unreachable."""
PER_PAGE = 20
"""Games per page of the list."""
RESULTS = ("1-0", "0-1", "1/2-1/2")
REVIEW_ENVELOPE_BYTES = 1024
"""Room for ``{"review": ...}`` and the JSON's spacing around a review of the largest size."""


def archive() -> Archive:
    """The app's archive; 404 when the app has none."""
    found: Archive | None = current_app.extensions.get("ferrochess_archive")
    if found is None:
        abort(404, description="this server keeps no games archive")
    return found


@bp.errorhandler(ArchiveUnavailable)
def unavailable(error: ArchiveUnavailable) -> Any:
    response = jsonify(error=f"the games archive cannot be reached: {error}", field=None)
    response.status_code = 503
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


@bp.errorhandler(ArchiveConflict)
def conflict(error: ArchiveConflict) -> Any:
    return jsonify(error=str(error), field="client_id"), 409


@bp.errorhandler(ArchiveMissing)
def missing(error: ArchiveMissing) -> Any:
    return jsonify(error=str(error), field=None), 404


@bp.errorhandler(BadInput)
def bad_input(error: BadInput) -> Any:
    return jsonify(error=error.message, field=error.field), 400


# --- the API --------------------------------------------------------------------------------------


@bp.post("/api/games")
def submit() -> Any:
    """Store a finished game (judged again here); the same submission twice stores it once."""
    ident, created = archive().store_game(payload())
    body = {"id": ident, "url": url_for("games.game_page", ident=ident)}
    return jsonify(body), 201 if created else 200


@bp.post("/api/games/<ident>/review")
def submit_review(ident: str) -> Any:
    """Keep a game's review (api/review's answer), once: a second one is not stored. A review is
    larger than the API's other bodies (about 350 bytes a ply): it may be up to the archive's
    own limit."""
    request.max_content_length = MAX_REVIEW_BYTES + REVIEW_ENVELOPE_BYTES
    data = payload()
    review = data.get("review")
    if not isinstance(review, dict):
        raise BadInput("review", "review must be the object api/review answered")
    stored = archive().store_review(ident, review)
    return jsonify(stored=stored), 201 if stored else 200


@bp.get("/api/games/<ident>")
def game_record(ident: str) -> Any:
    """The stored game (:func:`ferrochess.service.archive.game_record`), its review, and ``tree``:
    the analysis board's tree of it (:mod:`ferrochess.pgn_tree`), the review on its moves."""
    found = archive()
    game = found.get_game(ident)
    if game is None:
        raise ArchiveMissing(f"no game {ident!r}")
    pgn = found.game_pgn(ident, base_url=request.host_url + "game/")
    return jsonify({**game, "tree": tree_of(game, pgn)})


def tree_of(game: dict[str, Any], pgn: str) -> dict[str, Any]:
    """The analysis board's tree of a stored game: its moves with their clocks, its review's
    evaluations, lines and verdicts on the moves, and as headers those of its PGN (``pgn``, the
    archive's: players, result, date, time control, opening), not the review's own (api/review
    is sent the moves only, so its headers are python-chess's "?" and "*")."""
    chess960 = game.get("variant") == "chess960"
    board = read_game({"fen": game["fen"], "moves": game["moves"], "chess960": chess960}).board
    headers = chess.pgn.read_headers(io.StringIO(pgn))
    tree = pgn_tree.tree_from_review(board, dict(headers or {}), game["review"])
    for node, seconds in zip(tree["moves"], game["clocks"]):
        node["clock"] = seconds
    return tree


@bp.get("/healthz")
def health() -> Any:
    """Whether the server answers and its archive can be reached (for a load balancer)."""
    found: Archive | None = current_app.extensions.get("ferrochess_archive")
    if found is None:
        return jsonify(ok=True, database=None)
    try:
        found.ping()
    except ArchiveUnavailable as error:
        return jsonify(ok=False, database=str(error)), 503
    return jsonify(ok=True, database="ok")


# --- the pages ------------------------------------------------------------------------------------


def filters() -> dict[str, Any]:
    """The list's filters from the query (``result``, ``level``, ``time_control``); unknown
    values are a 400 naming the parameter."""
    chosen: dict[str, Any] = {}
    result = request.args.get("result", "")
    if result:
        if result not in RESULTS:
            raise BadInput("result", f"result must be one of {', '.join(RESULTS)}")
        chosen["result"] = result
    level = request.args.get("level", "")
    if level:
        if not level.isdigit():
            raise BadInput("level", f"level must be a number, not {level!r}")
        chosen["level"] = int(level)
    control = request.args.get("time_control", "")
    if control:
        chosen["time_control"] = control
    return chosen


def page_number() -> int:
    text = request.args.get("page", "1")
    if not text.isdigit() or int(text) < 1:
        raise BadInput("page", f"page must be a number from 1, not {text!r}")
    return int(text)


@bp.get("/games")
def games_page() -> Any:
    """The list page; a bad filter is this page again, answered 400, saying which and why."""
    found = archive()
    try:
        chosen = filters()
        page = page_number()
        games, total = found.list_games(**chosen, page=page, per_page=PER_PAGE)
    except BadInput as error:
        page_of_error = render_template(
            "games/list.html", games=[], total=0, page=1, pages=1, chosen={}, results=RESULTS,
            error=error,
        )  # fmt: skip
        return page_of_error, 400
    pages = max(1, math.ceil(total / PER_PAGE))
    return render_template(
        "games/list.html", games=games, total=total, page=page, pages=pages, chosen=chosen,
        results=RESULTS, error=None,
    )  # fmt: skip


@bp.get("/game/<ident>")
def game_page(ident: str) -> str:
    if archive().get_game(ident) is None:
        abort(404, description=f"no game {ident}")
    return render_template("play/analysis.html", game_id=ident)


@bp.get("/game/<ident>.pgn")
def game_pgn(ident: str) -> Response:
    text = archive().game_pgn(ident, base_url=request.host_url + "game/") + "\n"  # a text file
    response = Response(text, mimetype="application/x-chess-pgn")
    response.headers["Content-Disposition"] = f'attachment; filename="ferrochess-{ident}.pgn"'
    return response


@bp.get("/games.pgn")
def games_pgn() -> Response:
    """Every game of the list's filters as one PGN file, streamed game by game."""
    chosen = filters()
    found = archive()

    pgn = found.iter_pgn(**chosen, base_url=request.host_url + "game/")  # filters checked now

    def generate() -> Iterator[str]:
        yield from pgn

    response = Response(stream_with_context(generate()), mimetype="application/x-chess-pgn")
    response.headers["Content-Disposition"] = 'attachment; filename="ferrochess-games.pgn"'
    return response
