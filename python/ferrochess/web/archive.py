"""The games archive: finished games, their reviews and their PGN, in SQLite or PostgreSQL.

This module owns the archive's schema and every query on it (SQLAlchemy Core, no ORM); nothing
else in ferrochess writes SQL. One :class:`Archive` per process, shared by its threads:

    Archive.open()                             # the user's data dir, SQLite
    Archive.open("games.sqlite3")              # that SQLite file
    Archive.open("postgresql://user@host/db")  # PostgreSQL, through psycopg 3

The server judges every game it stores: the moves are replayed with python-chess
(:func:`~ferrochess.web.reading.read_game`), the game must be over, and its result, termination
(:func:`ferrochess.rules.status`), opening (:func:`~ferrochess.web.service.opening_of`) and length
are computed by :mod:`ferrochess.web.submission` (the input and the rows, no SQL), never taken
from the client. Bad input raises
:class:`~ferrochess.web.reading.BadInput` naming the field (HTTP 400).

A game is submitted once: the client makes a ``client_id`` and a retried submission with the same
content answers the game already stored; the same ``client_id`` with other content is an
:class:`ArchiveConflict` (409). The public id is random (``secrets.token_urlsafe(12)``), never
a counter and never the client's id. A review is stored once and never replaced. Nothing here
deletes or rewrites a game.

Storage, the boring way (docs: sqlite.org/wal.html, sqlite.org/pragma.html):

- SQLite: WAL (readers and one writer at a time), ``synchronous=FULL`` (a committed game survives
  a crash of the process and of the machine), ``busy_timeout=5000`` and ``foreign_keys=ON``, set
  on every connection. Python's ``sqlite3`` (legacy transaction control, before 3.12's
  ``autocommit``) would commit DDL on its own and begin transactions late; here the driver's
  own transaction handling is turned off and each transaction begins with an explicit
  ``BEGIN`` (``BEGIN IMMEDIATE`` for a write, so that writers queue on the busy timeout instead
  of failing), which makes each schema step one transaction. Several processes may share a
  file on one machine (not on a network file system).
- PostgreSQL (``postgresql://`` or ``postgresql+psycopg://``, driven by psycopg 3): pooled
  connections checked before use (``pool_pre_ping``); several server processes may share it.
- Every transaction is short: input is checked and PGN written outside them, and
  :meth:`Archive.iter_pgn` reads in batches of :data:`PGN_BATCH` games, each batch its own
  transaction, so a slow download holds no transaction open.

A database that cannot be reached (PostgreSQL down, SQLite locked past its busy timeout, a file
that cannot be opened) raises :class:`ArchiveUnavailable`: the web layer answers 503 with
``Retry-After``, and the browser keeps the game until it can be stored.

Schema versions (:data:`STEPS`, :data:`SCHEMA_VERSION`): a ``schema_version`` table holds the
version; :meth:`Archive.open` applies each missing step in its own transaction together with its
version bump (under a lock, so processes opening one database at once apply it once), and refuses
a database newer than this code with an :class:`ArchiveError`. Version 1 is the ``games`` table;
version 2 adds ``reviews`` and the index the games list is read by. A released step never
changes: a later change of the schema is a new step. ``Archive.open(url, upgrade_to=1)`` (or
:func:`upgrade`) leaves a new database at an older version, as an older release made it (tests).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import sys
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.schema import CreateIndex, CreateTable

from ferrochess.web.reading import (
    MAX_CLIENT_LENGTH,
    BadInput,
)
from ferrochess.web.service import check_level
from ferrochess.web.submission import (
    canonical_json,
    game_record,
    now_text,
    read_control,
    read_submission,
    row_pgn,
    split_moves,
    whole,
)

__all__ = [
    "SCHEMA_VERSION",
    "Archive",
    "ArchiveConflict",
    "ArchiveError",
    "ArchiveMissing",
    "ArchiveUnavailable",
    "default_database_path",
    "database_url",
    "upgrade",
]

SCHEMA_VERSION = 2
"""The schema version this code reads and writes (the last of :data:`STEPS`)."""
DATABASE_FILE = "games.sqlite3"
"""The embedded default's file name, in the user's data directory
(:func:`default_database_path`)."""
PGN_BATCH = 200
"""Games read per query (and per transaction) while PGN is streamed."""
MAX_PER_PAGE = 100
"""Most games on one page of :meth:`Archive.list_games`."""
MAX_REVIEW_BYTES = 4 * 1024 * 1024
"""Largest review stored (its JSON, in bytes)."""
BUSY_TIMEOUT_MS = 5000
"""How long an SQLite writer waits for another one before the archive is unavailable."""
WAL_RETRY_SECONDS = 0.01
"""How often a new file's switch to WAL is tried again while another connection holds it."""
CONNECT_TIMEOUT_S = 5
"""How long a PostgreSQL connection may take to open (unless the URL says otherwise)."""
ID_BYTES = 12
"""Random bytes of a public id: ``secrets.token_urlsafe(12)`` is 16 characters."""
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
RESULTS = ("1-0", "0-1", "1/2-1/2")
MIN_SQLITE = (3, 35, 0)
"""RETURNING, which tells a stored game from one already there, came in SQLite 3.35."""
ADVISORY_LOCK = 0x66657272  # "ferr": PostgreSQL's lock that serialises schema steps
WRITE_OPTION = "ferrochess_write"
"""Execution option of the writing engine: its SQLite transactions begin IMMEDIATE."""


class ArchiveError(Exception):
    """Something the archive cannot do (the base of its errors); also a database of a newer
    schema than this code, or a database URL it does not support."""


class ArchiveConflict(ArchiveError):
    """A game with this ``client_id`` is stored with other content (HTTP 409)."""


class ArchiveMissing(ArchiveError, KeyError):
    """No stored game has this id (HTTP 404)."""

    def __str__(self) -> str:  # KeyError's str() would quote the message
        return str(self.args[0]) if self.args else ""


class ArchiveUnavailable(ArchiveError):
    """The database cannot be reached or is too busy to answer now (HTTP 503 + Retry-After)."""


# --- the schema -----------------------------------------------------------------------------------

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
    }
)

schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("version", sa.Integer, nullable=False),
)



def ordered_text(length: int) -> sa.types.TypeEngine[str]:
    """Text that sorts byte by byte on both databases: SQLite's default (BINARY), and
    PostgreSQL's "C" collation (the database's own, such as en_US, would sort ``a`` before ``B``
    and skip punctuation), so that the list's order and its keyset paging are the same on both."""
    return sa.String(length).with_variant(pg_dialect.VARCHAR(length, collation="C"), "postgresql")


# Times are UTC ISO-8601 text of one format (``2024-05-01T12:00:00.000000+00:00``), which sorts
# as time does.
games = sa.Table(
    "games",
    metadata,
    sa.Column("id", ordered_text(32), primary_key=True),
    sa.Column("client_id", sa.String(MAX_CLIENT_LENGTH), nullable=False, unique=True),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("finished_at", ordered_text(40), nullable=False),
    sa.Column("start_fen", sa.Text, nullable=False),
    sa.Column("moves", sa.Text, nullable=False),  # UCI, space-separated
    sa.Column("plies", sa.Integer, nullable=False),
    sa.Column("result", sa.String(7), nullable=False),
    sa.Column("termination", sa.String(32), nullable=False),  # rules.status's name
    sa.Column("end_json", sa.Text, nullable=True),  # how it ended off the board, or null
    sa.Column("human", sa.String(5), nullable=False),
    sa.Column("level", sa.Integer, nullable=False),
    sa.Column("white", sa.Text, nullable=False),
    sa.Column("black", sa.Text, nullable=False),
    sa.Column("time_control", sa.String(32), nullable=True),  # "initial+increment" seconds
    sa.Column("clocks_json", sa.Text, nullable=False),  # [seconds | null, ...]
    sa.Column("opening_eco", sa.String(8), nullable=True),
    sa.Column("opening_name", sa.Text, nullable=True),
    sa.Column("started_at", sa.String(40), nullable=True),
)

reviews = sa.Table(
    "reviews",
    metadata,
    sa.Column("game_id", ordered_text(32), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("review_json", sa.Text, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
)

games_order = sa.Index(None, games.c.finished_at, games.c.id)
"""The games list's order (newest first: finished_at, then id). Created by step 2, not with the
table (CreateTable leaves indexes out)."""


def _step_1(connection: Connection) -> None:
    """Version 1: the games."""
    connection.execute(CreateTable(games))


def _step_2(connection: Connection) -> None:
    """Version 2: the reviews, and the index of the games list."""
    connection.execute(CreateTable(reviews))
    connection.execute(CreateIndex(games_order))


STEPS: list[tuple[int, Callable[[Connection], None]]] = [(1, _step_1), (2, _step_2)]
"""The schema's steps in order: ``(version, step)``; each runs in one transaction with its
version bump. Never change a released step; add one."""


# --- opening a database ---------------------------------------------------------------------------


def default_database_path() -> Path:
    """The embedded default: ``games.sqlite3`` in ferrochess's folder of the user's data
    directory (``%LOCALAPPDATA%`` on Windows, else ``$XDG_DATA_HOME`` or ``~/.local/share``)."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    elif os.environ.get("XDG_DATA_HOME"):
        base = Path(os.environ["XDG_DATA_HOME"])
    else:
        base = Path.home() / ".local" / "share"
    return base / "ferrochess" / DATABASE_FILE


def database_url(database: str | os.PathLike[str] | None) -> sa.URL:
    """The SQLAlchemy URL of ``database``: None, the default file; a path, that SQLite file;
    ``sqlite:///...``, ``postgresql://...`` (driven by psycopg 3) or ``postgresql+psycopg://...``
    as they are. ArchiveError for another kind of database or an in-memory SQLite one (which
    could not be shared by the server's connections)."""
    if database is None:
        return sa.URL.create("sqlite", database=str(default_database_path()))
    if isinstance(database, os.PathLike) or "://" not in database:
        path = os.fspath(database)
        if path in ("", ":memory:"):
            raise ArchiveError("the games archive needs a database file, not an in-memory one")
        return sa.URL.create("sqlite", database=path)
    try:
        url = sa.make_url(database)
    except exc.ArgumentError as error:
        raise ArchiveError(f"not a database URL: {error}") from None
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        if url.drivername.partition("+")[2] not in ("", "psycopg"):
            raise ArchiveError(f"PostgreSQL is driven by psycopg 3 here, not {url.drivername!r}")
        return url.set(drivername="postgresql+psycopg")
    if backend == "sqlite":
        if not url.database or url.database == ":memory:":
            raise ArchiveError("the games archive needs a database file, not an in-memory one")
        return url.set(drivername="sqlite")
    raise ArchiveError(
        f"unsupported database {url.drivername!r}: give a file path, sqlite:///PATH "
        "or postgresql://..."
    )


def _sqlite_engine(url: sa.URL) -> Engine:
    if sqlite3.sqlite_version_info < MIN_SQLITE:
        raise ArchiveError(
            f"SQLite {sqlite3.sqlite_version} is too old for the archive (it needs "
            f"{'.'.join(map(str, MIN_SQLITE))} or later)"
        )
    assert url.database is not None
    Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(url.set(database=str(Path(url.database).expanduser())))

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # The driver's own transaction handling off: it would commit before DDL and begin only
        # before DML. "begin" below begins every transaction instead.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _set_wal(cursor)
            cursor.execute("PRAGMA synchronous = FULL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Connection) -> None:
        write = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _set_wal(cursor: Any) -> None:
    """Put the database in WAL mode (it stays so, in the file). Switching a new file's journal
    needs the database to itself, and SQLite answers "database is locked" at once, without its
    busy timeout, when another connection (a second server process opening the same new file)
    holds it: try again for up to the busy timeout, as the timeout would."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(WAL_RETRY_SECONDS)


def _postgresql_engine(url: sa.URL) -> Engine:
    connect_args: dict[str, Any] = {}
    if "connect_timeout" not in url.query:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
    return sa.create_engine(url, pool_pre_ping=True, connect_args=connect_args)


def _fork_safe(engine: Engine) -> None:
    """A pooled connection is never used by another process than the one that opened it (a
    server that forks its workers after opening the archive), as SQLAlchemy's pooling.rst says
    ("Using Connection Pools with Multiprocessing or os.fork()"): a forked child starts with a
    pool of its own (``dispose(close=False)``: the parent's connections are left to it, not
    closed), before anything can use them; and a connection checked out in another process
    than the one that opened it is dropped (a fork that the first misses)."""
    if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
        weak = weakref.ref(engine)

        def after_fork_in_child() -> None:
            alive = weak()
            if alive is not None:
                alive.dispose(close=False)

        os.register_at_fork(after_in_child=after_fork_in_child)

    @event.listens_for(engine, "connect")
    def remember_pid(_dbapi_connection: Any, record: Any) -> None:
        record.info["pid"] = os.getpid()

    @event.listens_for(engine, "checkout")
    def check_pid(_dbapi_connection: Any, record: Any, proxy: Any) -> None:
        if record.info.get("pid") != os.getpid():
            record.dbapi_connection = proxy.dbapi_connection = None
            raise exc.DisconnectionError("connection opened by another process")


def upgrade(engine: Engine, upto: int = SCHEMA_VERSION) -> int:
    """Bring the database of ``engine`` to schema version ``upto`` (each missing step of
    :data:`STEPS` in its own transaction with its version bump) and answer its version.
    ArchiveError when the database is newer than ``upto`` or than this code. A writer at a time:
    SQLite's ``BEGIN IMMEDIATE`` and PostgreSQL's advisory lock keep two processes that open one
    database at once from applying a step twice."""
    if not 0 <= upto <= SCHEMA_VERSION:
        raise ValueError(f"upto must be between 0 and {SCHEMA_VERSION}, not {upto}")
    writer = engine.execution_options(**{WRITE_OPTION: True})
    with engine.connect() as connection:  # the usual case, no lock: already there
        current = _read_version(connection)
    _check_version(current, upto)
    for version, step in STEPS:
        if version > upto or version <= current:
            continue
        with writer.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(ADVISORY_LOCK)))
            schema_version.create(connection, checkfirst=True)
            current = _read_version(connection)
            _check_version(current, upto)
            if current >= version:  # another process applied it meanwhile
                continue
            step(connection)
            connection.execute(schema_version.delete())
            connection.execute(schema_version.insert().values(version=version))
            current = version
    return current


def _read_version(connection: Connection) -> int:
    if not sa.inspect(connection).has_table(schema_version.name):
        return 0
    version = connection.execute(sa.select(sa.func.max(schema_version.c.version))).scalar()
    return int(version or 0)


def _check_version(current: int, upto: int) -> None:
    if current > SCHEMA_VERSION:
        raise ArchiveError(
            f"the games database has schema version {current}, newer than this ferrochess "
            f"knows ({SCHEMA_VERSION}): upgrade ferrochess to open it"
        )
    if current > upto:
        raise ArchiveError(f"the games database has schema version {current}, not {upto}")


# --- the archive ----------------------------------------------------------------------------------


class Archive:
    """The games archive of one database, shared by a process's threads (see the module's
    docstring). Open it with :meth:`open`; :meth:`close` it at the end."""

    def __init__(self, engine: Engine, version: int = SCHEMA_VERSION) -> None:
        self.engine = engine
        """The SQLAlchemy engine (its pool)."""
        self.dialect: str = engine.dialect.name
        """``"sqlite"`` or ``"postgresql"``."""
        self.name: str = engine.url.render_as_string(hide_password=True)
        """The database's URL, without its password: for messages."""
        self.version = version
        """The database's schema version (:data:`SCHEMA_VERSION` unless opened older)."""
        self._writer = engine.execution_options(**{WRITE_OPTION: True})

    @classmethod
    def open(
        cls, database: str | os.PathLike[str] | None = None, *, upgrade_to: int | None = None
    ) -> Archive:
        """The archive of ``database`` (:func:`database_url`: None for the default file), its
        schema created or upgraded to :data:`SCHEMA_VERSION` (``upgrade_to``: an older version,
        to make a database as an older release did; such an archive can only store games).
        ArchiveError for a newer database or an unsupported URL; ArchiveUnavailable when the
        database cannot be reached."""
        url = database_url(database)
        if url.get_backend_name() == "sqlite":
            try:
                engine = _sqlite_engine(url)
            except OSError as error:
                raise ArchiveUnavailable(
                    f"the games database {url.database} cannot be made: {error}"
                ) from error
        else:
            engine = _postgresql_engine(url)
        _fork_safe(engine)
        archive = cls(engine)
        try:
            with archive._guard():
                target = SCHEMA_VERSION if upgrade_to is None else upgrade_to
                archive.version = upgrade(engine, target)
        except BaseException:
            engine.dispose()
            raise
        return archive

    def close(self) -> None:
        """Close the pool's connections (the archive is not used afterwards)."""
        self.engine.dispose()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Archive {self.name} version {self.version}>"

    # --- writing --------------------------------------------------------------------------------

    def store_game(self, game: Mapping[str, Any]) -> tuple[str, bool]:
        """Store a finished game (see :func:`read_submission` for its fields) and answer its
        public id and whether it was stored now (True) or already there (False: the same
        ``client_id`` with the same content). ArchiveConflict for the same ``client_id`` with
        other content; BadInput naming the field for a bad one, and naming ``moves`` for a game
        that is not over."""
        row = read_submission(game)
        with self._guard():
            for _ in range(3):  # a new id again on the (astronomically rare) clash of two ids
                row["id"] = secrets.token_urlsafe(ID_BYTES)
                row["created_at"] = now_text()
                with self._writer.begin() as connection:
                    statement = (
                        self._insert(games)
                        .values(**row)
                        .on_conflict_do_nothing()
                        .returning(games.c.id)
                    )
                    if connection.execute(statement).first() is not None:
                        return row["id"], True
                    stored = connection.execute(
                        sa.select(games.c.id, games.c.content_hash).where(
                            games.c.client_id == row["client_id"]
                        )
                    ).first()
                if stored is None:
                    continue
                if stored.content_hash != row["content_hash"]:
                    raise ArchiveConflict(
                        f"a game with client_id {row['client_id']!r} is stored already, "
                        "with other content"
                    )
                return str(stored.id), False
        raise ArchiveError("no free game id after 3 tries")  # pragma: no cover

    def store_review(self, public_id: str, review: Mapping[str, Any]) -> bool:
        """Store the review of game ``public_id``: True when stored now, False when the game had
        one already (never replaced). ArchiveMissing for no such game; BadInput naming
        ``review`` when it is not a review of this game's moves (``review["moves"][i]["move"]``
        must be the game's moves, in UCI) or too large."""
        if not isinstance(review, Mapping):
            raise BadInput("review", "review must be an object (the review of api/review)")
        reviewed = review.get("moves")
        if not isinstance(reviewed, list) or not all(
            isinstance(entry, Mapping) and isinstance(entry.get("move"), str) for entry in reviewed
        ):
            raise BadInput("review", "review.moves must be a list of {move, ...}, one per move")
        try:
            review_json = canonical_json(review)
        except (TypeError, ValueError) as error:
            raise BadInput("review", f"review must be JSON: {error}") from None
        if len(review_json.encode()) > MAX_REVIEW_BYTES:
            raise BadInput("review", f"review is larger than {MAX_REVIEW_BYTES} bytes")
        if not isinstance(public_id, str) or not ID_PATTERN.fullmatch(public_id):
            raise ArchiveMissing(f"no game {public_id!r}")
        with self._guard(), self._writer.begin() as connection:
            moves = connection.execute(
                sa.select(games.c.moves).where(games.c.id == public_id)
            ).scalar()
            if moves is None:
                raise ArchiveMissing(f"no game {public_id!r}")
            if [entry["move"] for entry in reviewed] != split_moves(moves):
                raise BadInput("review", "review.moves are not the moves of this game")
            statement = (
                self._insert(reviews)
                .values(game_id=public_id, review_json=review_json, created_at=now_text())
                .on_conflict_do_nothing()
                .returning(reviews.c.game_id)
            )
            return connection.execute(statement).first() is not None

    # --- reading --------------------------------------------------------------------------------

    def get_game(self, public_id: str) -> dict[str, Any] | None:
        """The stored game ``public_id`` (:func:`game_record`) with its ``review`` (None until
        one is stored); None for no such game."""
        if not isinstance(public_id, str) or not ID_PATTERN.fullmatch(public_id):
            return None
        statement = (
            sa.select(games, reviews.c.review_json)
            .select_from(games.outerjoin(reviews, reviews.c.game_id == games.c.id))
            .where(games.c.id == public_id)
        )
        with self._guard(), self.engine.begin() as connection:
            row = connection.execute(statement).first()
        if row is None:
            return None
        record = game_record(row._mapping, full=True)
        review_json = row._mapping["review_json"]
        record["review"] = None if review_json is None else json.loads(review_json)
        return record

    def list_games(
        self,
        *,
        result: str | None = None,
        level: int | str | None = None,
        time_control: str | Sequence[int] | None = None,
        page: int | str = 1,
        per_page: int | str = 20,
    ) -> tuple[list[dict[str, Any]], int]:
        """One page of the stored games, newest first (finished_at, then id), and how many
        match in all. Filters (None: any): ``result`` ("1-0", "0-1", "1/2-1/2"), ``level``, and
        ``time_control`` ("300+3", [300, 3], or "-" for untimed games); ``page`` from 1,
        ``per_page`` 1 to :data:`MAX_PER_PAGE`. Numbers may come as decimal text (a query
        string's). Each game is :func:`game_record`'s summary (no moves, clocks or review).
        BadInput naming the filter when one is invalid."""
        where = filters(result=result, level=level, time_control=time_control)
        page = whole(page, "page", 1, 1_000_000)
        per_page = whole(per_page, "per_page", 1, MAX_PER_PAGE)
        statement = (
            sa.select(games)
            .where(*where)
            .order_by(games.c.finished_at.desc(), games.c.id.desc())
            .limit(per_page)
            .offset((page - 1) * per_page)
        )
        count = sa.select(sa.func.count()).select_from(games).where(*where)
        with self._guard(), self.engine.begin() as connection:
            rows = connection.execute(statement).all()
            total = int(connection.execute(count).scalar() or 0)
        return [game_record(row._mapping, full=False) for row in rows], total

    def iter_pgn(
        self,
        *,
        base_url: str | None = None,
        result: str | None = None,
        level: int | str | None = None,
        time_control: str | Sequence[int] | None = None,
    ) -> Iterator[str]:
        """Every game matching the filters (those of :meth:`list_games`), newest first, as
        PGN, one game a string ending in a blank line (joined, they are one PGN file). Read
        :data:`PGN_BATCH` games at a time, each batch in its own short transaction, so that
        thousands of games stream in bounded memory. ``base_url``: each game's Site tag is
        ``base_url + id`` (the game's page), else "ferrochess". The filters are checked before
        the first game (BadInput)."""
        where = filters(result=result, level=level, time_control=time_control)
        return self._pgn_batches(where, base_url)

    def _pgn_batches(self, where: list[Any], base_url: str | None) -> Iterator[str]:
        after: tuple[str, str] | None = None
        while True:
            statement = sa.select(games).where(*where)
            if after is not None:  # keyset paging: stable while games are added
                finished, last = after
                statement = statement.where(
                    sa.or_(
                        games.c.finished_at < finished,
                        sa.and_(games.c.finished_at == finished, games.c.id < last),
                    )
                )
            statement = statement.order_by(
                games.c.finished_at.desc(), games.c.id.desc()
            ).limit(PGN_BATCH)
            with self._guard(), self.engine.begin() as connection:
                rows = [row._mapping for row in connection.execute(statement).all()]
            for row in rows:
                yield row_pgn(row, base_url) + "\n\n"
            if len(rows) < PGN_BATCH:
                return
            after = (rows[-1]["finished_at"], rows[-1]["id"])

    def game_pgn(self, public_id: str, *, base_url: str | None = None) -> str:
        """The stored game ``public_id`` as PGN (:meth:`iter_pgn`'s, without the blank line
        after it); ArchiveMissing for no such game."""
        if not isinstance(public_id, str) or not ID_PATTERN.fullmatch(public_id):
            raise ArchiveMissing(f"no game {public_id!r}")
        with self._guard(), self.engine.begin() as connection:
            row = connection.execute(sa.select(games).where(games.c.id == public_id)).first()
        if row is None:
            raise ArchiveMissing(f"no game {public_id!r}")
        return row_pgn(row._mapping, base_url)

    # --- health ---------------------------------------------------------------------------------

    def ping(self) -> None:
        """Nothing when the database answers; ArchiveUnavailable otherwise (``/healthz``)."""
        with self._guard(), self.engine.connect() as connection:
            connection.execute(sa.select(sa.literal(1)))

    def integrity_check(self) -> list[str]:
        """``["ok"]`` when the database is sound, else its problems in words. SQLite: ``PRAGMA
        integrity_check`` and ``PRAGMA foreign_key_check``; both: the schema version is this
        code's, no review without its game, no client_id stored twice."""
        problems: list[str] = []
        with self._guard(), self.engine.connect() as connection:
            if self.dialect == "sqlite":
                checked = [str(row[0]) for row in connection.exec_driver_sql(
                    "PRAGMA integrity_check"
                )]
                if checked != ["ok"]:
                    problems.extend(checked)
                for row in connection.exec_driver_sql("PRAGMA foreign_key_check"):
                    problems.append(f"foreign key: row {row[1]} of {row[0]} has no {row[2]}")
            version = _read_version(connection)
            if version != self.version:
                problems.append(f"schema version {version}, expected {self.version}")
            twice = connection.execute(
                sa.select(games.c.client_id)
                .group_by(games.c.client_id)
                .having(sa.func.count() > 1)
            ).all()
            problems.extend(f"client_id {row[0]!r} stored twice" for row in twice)
            if version >= 2:
                orphans = connection.execute(
                    sa.select(reviews.c.game_id)
                    .select_from(reviews.outerjoin(games, games.c.id == reviews.c.game_id))
                    .where(games.c.id.is_(None))
                ).all()
                problems.extend(f"review of missing game {row[0]!r}" for row in orphans)
            connection.rollback()
        return problems or ["ok"]

    # --- helpers --------------------------------------------------------------------------------

    def _insert(self, table: sa.Table) -> Any:
        """The dialect's INSERT (the one with ON CONFLICT)."""
        if self.dialect == "postgresql":
            return pg_dialect.insert(table)
        return sqlite_dialect.insert(table)

    def _guard(self) -> _Guard:
        return _Guard(self.name, self.dialect)


class _Guard:
    """Turns the errors of a database that cannot be reached (or is locked past its busy
    timeout) into ArchiveUnavailable naming the database; others pass through."""

    def __init__(self, name: str, dialect: str) -> None:
        self.name = name
        self.dialect = dialect

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _tb: Any
    ) -> None:
        if error is None or not unavailable(error, self.dialect):
            return
        cause = error.orig if isinstance(error, exc.DBAPIError) else error
        reason = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
        raise ArchiveUnavailable(
            f"the games database ({self.name}) cannot be reached: {reason}"
        ) from error


SQLITE_UNAVAILABLE = {
    5: "SQLITE_BUSY",
    6: "SQLITE_LOCKED",
    8: "SQLITE_READONLY",
    10: "SQLITE_IOERR",
    13: "SQLITE_FULL",
    14: "SQLITE_CANTOPEN",
    15: "SQLITE_PROTOCOL",
}
"""SQLite's primary result codes that mean the file cannot be used now (not a bug of ours)."""
SQLITE_UNAVAILABLE_WORDS = (
    "database is locked",
    "unable to open",
    "disk i/o error",
    "disk is full",
    "readonly",
)
"""The same in the words of Python before 3.11 (no ``sqlite_errorcode``)."""


def unavailable(error: BaseException, dialect: str) -> bool:
    """Whether ``error`` says the database cannot be reached or used now."""
    if isinstance(error, (exc.TimeoutError, exc.DisconnectionError)):
        return True
    if not isinstance(error, exc.DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    if dialect == "sqlite":
        code = getattr(error.orig, "sqlite_errorcode", None)
        if isinstance(code, int):
            return code & 0xFF in SQLITE_UNAVAILABLE
        words = str(error.orig).lower()
        return any(phrase in words for phrase in SQLITE_UNAVAILABLE_WORDS)
    return isinstance(error, (exc.OperationalError, exc.InterfaceError))


def filters(
    *, result: object = None, level: object = None, time_control: object = None
) -> list[Any]:
    """The WHERE clauses of the list's filters (see :meth:`Archive.list_games`)."""
    where: list[Any] = []
    if result is not None:
        if result not in RESULTS:
            raise BadInput("result", f"result must be one of {', '.join(RESULTS)}, not {result!r}")
        where.append(games.c.result == result)
    if level is not None:
        if isinstance(level, str):
            level = whole(level, "level", -1_000_000, 1_000_000)
        where.append(games.c.level == check_level(level))
    if time_control is not None:
        if time_control == "-":
            where.append(games.c.time_control.is_(None))
        else:
            if isinstance(time_control, str):
                parts = time_control.split("+")
                if len(parts) != 2:
                    raise BadInput(
                        "time_control", "time_control must be like 300+3 (seconds), or - for none"
                    )
                time_control = parts
            control = read_control(time_control)
            assert control is not None
            where.append(games.c.time_control == "{}+{}".format(*control))
    return where
