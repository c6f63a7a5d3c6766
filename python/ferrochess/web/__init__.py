"""The play page: a Flask app to play ferrochess in the browser (``ferrochess play``).

``create_app(test_config=None)`` is the Flask application factory. Configuration keys (set them in
``test_config`` or on ``app.config`` before the first request):

``FERROCHESS_BOOK``
    The opening book: ``"default"`` (the compiled-in one), a path, or None. Server configuration
    only: no request can name a file.
``FERROCHESS_SYZYGY_PATH``
    Syzygy tablebase directories (a path list); None reads ``FERROCHESS_SYZYGY_PATH`` from the
    environment, ``""`` means none.
``FERROCHESS_ENGINES``
    How many engines search at once (default: the number of CPUs). Each has its own table.
``FERROCHESS_HASH_MB``
    Transposition table of each engine, in MiB (default :data:`ferrochess.DEFAULT_HASH_MB`).
``FERROCHESS_MAX_THINK_SECONDS``
    The longest a request may search; weaker levels stop much sooner.
``FERROCHESS_BUSY_WAIT_SECONDS``
    How long a request waits for a free engine before the answer is 503 with ``Retry-After``.
``FERROCHESS_DEFAULT_LEVEL``
    The level the page starts at (default :data:`ferrochess.DEFAULT_LEVEL`).
``FERROCHESS_NATURAL_DELAY``
    Whether levels below full strength take a natural, short time to reply.
``FERROCHESS_REVIEW_NODES``, ``FERROCHESS_JUDGE_NODES``, ``FERROCHESS_DRAW_NODES``
    Nodes searched per position of a review, per try in "learn from your mistakes" and to decide
    on a draw offer.
``FERROCHESS_ANALYSIS_SECONDS``
    The longest the analysis board's live engine runs on one position (default 60), unless the
    page stops it first.
``FERROCHESS_MAX_PGN_BYTES``
    Largest PGN (or tree) the analysis board may import or export, in bytes (default 4 MiB).
``FERROCHESS_DATABASE``
    The games archive (:mod:`ferrochess.service.archive`): a SQLite file's path, a database URL
    (``sqlite:///...``, ``postgresql://...``), ``"default"`` for the file in the user's data
    directory (what ``ferrochess play`` and ``serve`` use), or None (the default here: no archive;
    the archive's routes answer 404).

The defaults of these service settings are :class:`~ferrochess.service.game.Settings`'s.
``MAX_CONTENT_LENGTH``
    Largest request body in bytes (default 64 KiB); a larger one is refused with 413.

Every error of the JSON API is ``{"error": message, "field": name}`` with status 400 (bad input),
404, 405, 409 (a cancelled search), 413 (a body over its limit, ``field`` "body") or 503 (all
engines busy). The API is written down in
docs/play.md; the requests are answered by :class:`ferrochess.service.game.GameService`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from ferrochess._core import DEFAULT_BOOK, DEFAULT_HASH_MB
from ferrochess.service.analysis_board import DEFAULT_ANALYSIS_SECONDS, AnalysisService
from ferrochess.service.archive import Archive
from ferrochess.service.game import GameService, Settings
from ferrochess.service.pool import EnginePool
from ferrochess.tablebase import SYZYGY_PATH_ENV

__all__ = ["create_app", "EnginePool", "GameService", "Settings"]

_SETTINGS = Settings()
DEFAULTS: dict[str, Any] = {
    "FERROCHESS_BOOK": DEFAULT_BOOK,
    "FERROCHESS_SYZYGY_PATH": None,
    "FERROCHESS_ENGINES": os.cpu_count() or 2,
    "FERROCHESS_HASH_MB": DEFAULT_HASH_MB,
    # The service's own defaults (Settings), not copies of them.
    "FERROCHESS_MAX_THINK_SECONDS": _SETTINGS.max_think_seconds,
    "FERROCHESS_BUSY_WAIT_SECONDS": _SETTINGS.busy_wait_seconds,
    "FERROCHESS_DEFAULT_LEVEL": _SETTINGS.default_level,
    "FERROCHESS_NATURAL_DELAY": _SETTINGS.natural_delay,
    "FERROCHESS_REVIEW_NODES": _SETTINGS.review_nodes,
    "FERROCHESS_JUDGE_NODES": _SETTINGS.judge_nodes,
    "FERROCHESS_DRAW_NODES": _SETTINGS.draw_nodes,
    "FERROCHESS_ANALYSIS_SECONDS": DEFAULT_ANALYSIS_SECONDS,
    "FERROCHESS_MAX_PGN_BYTES": 4 * 1024 * 1024,
    "FERROCHESS_DATABASE": None,
    "MAX_CONTENT_LENGTH": 64 * 1024,
}


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Create the play app: the page at ``/``, the analysis board at ``/analysis``, the JSON API
    under ``/api``, one engine pool, and with a database the games archive (``/games``)."""
    app = Flask(__name__)
    app.config.from_mapping(DEFAULTS)
    if test_config is not None:
        app.config.from_mapping(test_config)
    config = app.config
    pool = EnginePool(
        engines=int(config["FERROCHESS_ENGINES"]),
        hash_mb=int(config["FERROCHESS_HASH_MB"]),
        book=config["FERROCHESS_BOOK"],
        syzygy_path=config["FERROCHESS_SYZYGY_PATH"],
    )
    app.extensions["ferrochess_pool"] = pool
    games = app.extensions["ferrochess_service"] = GameService(
        pool,
        Settings(
            max_think_seconds=float(config["FERROCHESS_MAX_THINK_SECONDS"]),
            busy_wait_seconds=float(config["FERROCHESS_BUSY_WAIT_SECONDS"]),
            default_level=int(config["FERROCHESS_DEFAULT_LEVEL"]),
            natural_delay=bool(config["FERROCHESS_NATURAL_DELAY"]),
            review_nodes=int(config["FERROCHESS_REVIEW_NODES"]),
            judge_nodes=int(config["FERROCHESS_JUDGE_NODES"]),
            draw_nodes=int(config["FERROCHESS_DRAW_NODES"]),
        ),
    )
    syzygy = config["FERROCHESS_SYZYGY_PATH"]
    app.extensions["ferrochess_analysis"] = AnalysisService(
        games,
        book=config["FERROCHESS_BOOK"],
        syzygy_path=(os.environ.get(SYZYGY_PATH_ENV, "") if syzygy is None else os.fspath(syzygy))
        or None,
        seconds=float(config["FERROCHESS_ANALYSIS_SECONDS"]),
    )

    database = config["FERROCHESS_DATABASE"]
    if database is not None and str(database).lower() != "none":
        app.extensions["ferrochess_archive"] = Archive.open(
            None if database == "default" else database
        )

    @app.context_processor
    def archive_flag() -> dict[str, bool]:
        """Whether the pages have an archive to send finished games to (``data-archive``)."""
        return {"has_archive": "ferrochess_archive" in app.extensions}

    from ferrochess.web import games as games_pages
    from ferrochess.web import play, train

    app.register_blueprint(play.bp)
    app.register_blueprint(games_pages.bp)
    app.register_blueprint(train.bp)  # /api/train/*: training from the archived games

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        """Errors of the JSON API are JSON; the page keeps Flask's HTML errors."""
        if not request.path.startswith("/api/"):
            return error
        if isinstance(error, RequestEntityTooLarge):
            limit = request.max_content_length  # the route's own limit, else the app's
            message = f"the request body is larger than {limit} bytes"
            return jsonify(error=message, field="body"), 413
        return jsonify(error=error.description, field=None), error.code

    return app
