"""The game services: what the play page, the analysis board, the notebook widgets and
:class:`~ferrochess.notebook_game.NotebookGame` all ask of the engine, with no web framework.

- :mod:`~ferrochess.service.game`: :class:`~ferrochess.service.game.GameService`, a game's
  requests (the engine's move, legal moves, takebacks, draw offers, the review and its
  "learn from your mistakes", the PGN) and their :class:`~ferrochess.service.game.Settings`;
- :mod:`~ferrochess.service.analysis_board`: the analysis board's live engine, explorer and PGN;
- :mod:`~ferrochess.service.pool`: the engines a service shares, one search each at a time;
- :mod:`~ferrochess.service.reading`: a request's fields read and checked (:class:`BadInput`);
- :mod:`~ferrochess.service.time_control`: the one shape of a time control and of its clocks;
- :mod:`~ferrochess.service.submission` and :mod:`~ferrochess.service.game_pgn`: a finished
  game as the archive keeps it, and the PGN of a played game;
- :mod:`~ferrochess.service.archive`: the games archive (SQLAlchemy; SQLite or PostgreSQL), the
  one module that writes SQL. Only the web app imports it: the notebook needs no database.

:mod:`ferrochess.web` is the Flask app over these; importing this package loads neither Flask
nor SQLAlchemy (``tests/test_house.py`` checks that).
"""
