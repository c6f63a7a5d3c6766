"""The ``play`` blueprint: the page and the stateless JSON API of docs/play.md.

Every request is answered by the app's :class:`~ferrochess.service.game.GameService` (the notebook
board uses the same one over its comm). The client keeps the game (start FEN, UCI moves and how it
ended off the board) and sends it whole with every request, so a game survives a page reload and
a server restart. Endpoints:

``GET /``                  the page
``GET /pieces/<code>.svg`` python-chess's artwork for a piece (``wK``, ``bN``, ...): the icon
``GET /favicon.ico``       the same white knight as an icon file, which browsers ask for themselves
``GET /api/levels``        the playing levels (with their calibration) and the default
``POST /api/state``        a game -> its State: every position, legal moves, status, opening
``POST /api/move``         a game + ``level``, ``book``, ``clock`` -> the engine's move, with the
                           State after it
``POST /api/draw``         a game + ``color`` (who offers) -> whether the engine accepts, and why
``POST /api/review``       a game -> NDJSON: progress lines, then the review (``analyse_game``)
``POST /api/judge``        a game + ``move`` -> how good that try is ("learn from your mistakes")
``POST /api/cancel``       ``{client}`` -> stops that client's search or review
``POST /api/pgn``          a game + ``white``, ``black`` -> ``{pgn, filename}``
``POST /api/chess960``     ``{position}`` (0-959 or "random") -> a Chess960 start: its number,
                           FEN and State; that game's requests then carry ``chess960: true``

The analysis board (:mod:`ferrochess.service.analysis_board`):

``GET /analysis``          the analysis board (``?fen=`` starts it at a position)
``POST /api/position``     a node of the tree (start FEN + moves) -> its State, without positions
``POST /api/analyse``      NDJSON: the live engine's lines at a node, then ``{"done": true}``
``POST /api/explorer``     a node -> the book's moves, the opening, the tablebases' verdicts
``POST /api/import``       a PGN text (its games; one game's tree), a FEN, or a played game with
                           its review -> a tree (larger bodies allowed: FERROCHESS_MAX_PGN_BYTES)
``POST /api/export``       a tree -> ``{pgn, filename}``

Bad input is answered 400 with ``{"error", "field"}`` naming the field; a cancelled search, 409;
all engines busy, 503 with ``Retry-After``.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.svg
from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    send_from_directory,
)

from ferrochess.exceptions import IllegalMoveError, InvalidFenError
from ferrochess.service.analysis_board import Analysis, AnalysisService
from ferrochess.service.game import Busy, Cancelled, GameService, refusal
from ferrochess.service.reading import BadInput, read_game

# Templates in templates/play/ and static files in static/, namespaced by the blueprint.
bp = Blueprint("play", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static")  # fmt: skip

RETRY_AFTER_SECONDS = 1
ICON_MAX_AGE_SECONDS = 86400
"""How long a browser may keep the piece images and the favicon (seconds)."""
ICON_FOLDER = Path(__file__).resolve().parent / "static"
PIECE_CODES = {f"{color}{letter}" for color in "wb" for letter in "KQRBNP"}
TICK_SECONDS = 0.25
"""How often a live analysis's stream says it is still running (``{"tick": seconds}``): the page
shows the time, and a write to a client that went away tells the server to stop the search."""


def service() -> GameService:
    found: GameService = current_app.extensions["ferrochess_service"]
    return found


def analysis_service() -> AnalysisService:
    found: AnalysisService = current_app.extensions["ferrochess_analysis"]
    return found


@bp.errorhandler(BadInput)
@bp.errorhandler(InvalidFenError)
@bp.errorhandler(IllegalMoveError)
@bp.errorhandler(Cancelled)
@bp.errorhandler(Busy)
def refused(error: Exception) -> Any:
    """400 bad input (InvalidFenError and IllegalMoveError guard a game python-chess accepted but
    the engine cannot hold), 409 a cancelled search, 503 with Retry-After when every engine is
    busy: worded by the service, as the notebook widget words them."""
    answer = refusal(error)
    assert answer is not None, error
    status, body = answer
    response = jsonify(body)
    response.status_code = status
    if isinstance(error, Busy):
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


# --- the page -------------------------------------------------------------------------------------


@bp.get("/")
def index() -> str:
    return render_template("play/index.html")  # the page asks /api/levels itself


@bp.get("/analysis")
def analysis() -> str:
    return render_template("play/analysis.html")


@bp.get("/pieces/<code>.svg")
def piece(code: str) -> Response:
    if code not in PIECE_CODES:
        return Response("no such piece", status=404, mimetype="text/plain")
    symbol = code[1] if code[0] == "w" else code[1].lower()
    svg = chess.svg.piece(chess.Piece.from_symbol(symbol), size=90)
    response = Response(svg, mimetype="image/svg+xml")
    response.cache_control.max_age = ICON_MAX_AGE_SECONDS
    response.cache_control.public = True
    return response


@bp.get("/favicon.ico")
def favicon() -> Response:
    """python-chess's white knight (the page's icon) at 16, 32 and 48 pixels, as one ICO file:
    browsers ask for ``/favicon.ico`` themselves, also on pages that name no icon."""
    response = send_from_directory(
        ICON_FOLDER, "favicon.ico", mimetype="image/vnd.microsoft.icon",
        max_age=ICON_MAX_AGE_SECONDS,
    )  # fmt: skip
    response.cache_control.public = True
    return response


# --- the JSON API ---------------------------------------------------------------------------------


@bp.get("/api/levels")
def api_levels() -> Any:
    return jsonify(service().levels())


@bp.post("/api/<any(state, move, draw, judge, cancel, position, explorer, chess960):name>")
def api_request(name: str) -> Any:
    return jsonify(service().request(f"api/{name}", payload()))


@bp.post("/api/<any(import, export):name>")
def api_tree(name: str) -> Any:
    """A PGN or a tree in or out: a body up to FERROCHESS_MAX_PGN_BYTES (the API's other requests
    keep MAX_CONTENT_LENGTH)."""
    request.max_content_length = int(current_app.config["FERROCHESS_MAX_PGN_BYTES"])
    return jsonify(service().request(f"api/{name}", payload()))


@bp.post("/api/analyse")
def api_analyse() -> Response:
    """NDJSON: the live engine's lines at a node as it deepens, a tick every TICK_SECONDS, then
    ``{"done": true, "reason"}``. Bad input (400) and no free engine (503 with Retry-After) are
    answered before the stream starts. The search runs in its own thread from the start, so it
    ends (and gives its engine back) even if the stream is never read; a client that goes away,
    cancels (api/cancel) or starts another search stops it at once."""
    running = analysis_service().start(payload())
    lines: queue.Queue[dict[str, Any] | None] = queue.Queue()

    def work() -> None:
        try:
            running.run(lines.put)
        except Exception as error:  # the stream has begun: its last line says what went wrong
            answer = refusal(error)
            lines.put({"error": answer[1]["error"] if answer else "the analysis failed"})
            if answer is None:  # pragma: no cover - a bug: keep the traceback
                raise
        finally:
            lines.put(None)

    threading.Thread(target=work, name="ferrochess-analysis", daemon=True).start()
    return Response(stream_lines(running, lines), mimetype="application/x-ndjson")


def stream_lines(running: Analysis, lines: queue.Queue[dict[str, Any] | None]) -> Iterator[str]:
    """The analysis's lines as NDJSON, with ticks while it is quiet; stops the analysis when the
    stream is closed before its end (the client went away)."""
    started = time.monotonic()
    finished = False
    try:
        while True:
            try:
                line = lines.get(timeout=TICK_SECONDS)
            except queue.Empty:
                yield json.dumps({"tick": round(time.monotonic() - started, 2)}) + "\n"
                continue
            if line is None:
                break
            yield json.dumps(line) + "\n"
        finished = True
    finally:
        if not finished:
            running.stop()


@bp.post("/api/pgn")
def api_pgn() -> Any:
    return jsonify(service().pgn(payload(), site=request.host))


@bp.post("/api/review")
def api_review() -> Response:
    """NDJSON, streamed as the review goes: progress lines, then the review. Bad input is a 400
    before the stream starts; afterwards an error is the stream's last line. A client that goes
    away mid-review has its review cancelled."""
    data = payload()
    game = read_game(data)  # bad input is a 400 before the stream starts
    the_service = service()
    lines: queue.Queue[dict[str, Any] | None] = queue.Queue()

    def work() -> None:
        try:
            the_service.review_game(game, data, lines.put)
        except Exception as error:  # the stream has begun: its last line says what went wrong
            answer = refusal(error)
            if answer is None:  # pragma: no cover - a bug: say so, keep the traceback
                lines.put({"error": "the review failed on the server"})
                raise
            lines.put({"error": answer[1]["error"]})
        finally:
            lines.put(None)

    def generate() -> Iterator[str]:
        worker = threading.Thread(target=work, name="ferrochess-review", daemon=True)
        worker.start()
        finished = False
        try:
            while (line := lines.get()) is not None:
                yield json.dumps(line) + "\n"
            finished = True
        finally:
            if not finished and isinstance(data.get("client"), str):
                the_service.cancel({"client": data["client"]})

    return Response(generate(), mimetype="application/x-ndjson")


# --- reading requests -----------------------------------------------------------------------------


def payload() -> Any:
    """The request's JSON body; BadInput saying what is wrong with one that is not JSON."""
    raw = request.get_data(cache=True)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInput("body", f"the body is not valid UTF-8 (byte {error.start})") from None
    try:
        data = json.loads(text)
    except RecursionError:  # nested deeper than Python's JSON reader goes (within the size limit)
        raise BadInput("body", "the body's JSON is nested too deeply") from None
    except ValueError as error:
        if "digits" in str(error):  # Python's limit on the length of an integer
            raise BadInput("body", "a number in the body is too large") from None
        raise BadInput("body", f"the body is not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise BadInput("body", "the body must be a JSON object (Content-Type: application/json)")
    return data
