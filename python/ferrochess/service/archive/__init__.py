"""The games archive: finished games, their reviews and their PGN, in SQLite or PostgreSQL.

This package owns the archive's schema and every query on it (SQLAlchemy Core, no ORM); nothing
else in ferrochess writes SQL. One :class:`Archive` per process, shared by its threads:

    Archive.open()                             # the user's data dir, SQLite
    Archive.open("games.sqlite3")              # that SQLite file
    Archive.open("postgresql://user@host/db")  # PostgreSQL: pip install "ferrochess[postgresql]"

Its jobs, one module each:

- :mod:`~ferrochess.service.archive.database`: which database a name means and its engine set up
  (SQLite in WAL mode with ``synchronous=FULL``, PostgreSQL through psycopg 3, fork safety);
- :mod:`~ferrochess.service.archive.schema`: the tables and the steps between schema versions;
- :mod:`~ferrochess.service.archive.queries`: :class:`Archive`, every read and write of games;
- :mod:`~ferrochess.service.archive.errors`: its errors, and which database errors mean that the
  database cannot be reached now.

The server judges every game it stores: the moves are replayed with python-chess
(:func:`~ferrochess.service.reading.read_game`), the game must be over, and its result,
termination (:func:`ferrochess.rules.status`), opening (:func:`~ferrochess.service.game.opening_of`)
and length are computed by :mod:`ferrochess.service.submission` (the input and the rows, no SQL),
never taken from the client. Bad input raises :class:`~ferrochess.service.reading.BadInput` naming
the field (HTTP 400).

A game is submitted once: the client makes a ``client_id`` and a retried submission with the same
content answers the game already stored; the same ``client_id`` with other content is an
:class:`ArchiveConflict` (409). The public id is random (``secrets.token_urlsafe(12)``), never
a counter and never the client's id. A review is stored once and never replaced. Nothing here
deletes or rewrites a game.

A database that cannot be reached (PostgreSQL down, SQLite locked past its busy timeout, a file
that cannot be opened) raises :class:`ArchiveUnavailable`: the web layer answers 503 with
``Retry-After``, and the browser keeps the game until it can be stored. :meth:`Archive.open`
brings the schema to :data:`SCHEMA_VERSION` and refuses a database newer than this code with an
:class:`ArchiveError`; ``Archive.open(url, upgrade_to=1)`` (or :func:`upgrade`) leaves a new
database at an older version, as an older release made it (tests).
"""

from __future__ import annotations

from ferrochess.service.archive.database import database_url, default_database_path
from ferrochess.service.archive.errors import (
    ArchiveConflict,
    ArchiveError,
    ArchiveMissing,
    ArchiveUnavailable,
)
from ferrochess.service.archive.queries import MAX_REVIEW_BYTES, Archive
from ferrochess.service.archive.schema import SCHEMA_VERSION, upgrade

__all__ = [
    "MAX_REVIEW_BYTES",
    "SCHEMA_VERSION",
    "Archive",
    "ArchiveConflict",
    "ArchiveError",
    "ArchiveMissing",
    "ArchiveUnavailable",
    "database_url",
    "default_database_path",
    "upgrade",
]
