"""Opening the archive's database: which one a name means (:func:`database_url`), and its
SQLAlchemy engine set up the boring way (:func:`connect`).

- SQLite: WAL (readers and one writer at a time), ``synchronous=FULL`` (a committed game survives
  a crash of the process and of the machine), ``busy_timeout=5000`` and ``foreign_keys=ON``, set
  on every connection. Python's ``sqlite3`` (legacy transaction control, before 3.12's
  ``autocommit``) would commit DDL on its own and begin transactions late; here the driver's
  own transaction handling is turned off and each transaction begins with an explicit
  ``BEGIN`` (``BEGIN IMMEDIATE`` on the :func:`writer`, so that writers queue on the busy
  timeout instead of failing), which makes each schema step one transaction.
- PostgreSQL (``postgresql://`` or ``postgresql+psycopg://``, driven by psycopg 3, the
  ``ferrochess[postgresql]`` extra): pooled connections checked before use (``pool_pre_ping``).
- Either way a pooled connection is never used by another process than the one that opened it.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
import weakref
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.engine import Connection, Engine

from ferrochess.exceptions import require_extra
from ferrochess.service.archive.errors import ArchiveError, ArchiveUnavailable

__all__ = ["connect", "database_url", "default_database_path", "writer"]

DATABASE_FILE = "games.sqlite3"
"""The embedded default's file name, in the user's data directory
(:func:`default_database_path`)."""
BUSY_TIMEOUT_MS = 5000
"""How long an SQLite writer waits for another one before the archive is unavailable."""
WAL_RETRY_SECONDS = 0.01
"""How often a new file's switch to WAL is tried again while another connection holds it."""
CONNECT_TIMEOUT_S = 5
"""How long a PostgreSQL connection may take to open (unless the URL says otherwise)."""
MIN_SQLITE = (3, 35, 0)
"""RETURNING, which tells a stored game from one already there, came in SQLite 3.35."""
WRITE_OPTION = "ferrochess_write"
"""Execution option of the writing engine: its SQLite transactions begin IMMEDIATE."""

def writer(engine: Engine) -> Engine:
    """``engine`` for writing: its SQLite transactions begin IMMEDIATE."""
    return engine.execution_options(**{WRITE_OPTION: True})


def connect(url: sa.URL) -> Engine:
    """The engine of ``url`` (:func:`database_url`'s), safe across a fork. ArchiveError for an
    SQLite too old; ArchiveUnavailable when the SQLite file's folder cannot be made;
    MissingExtraError when PostgreSQL's driver is not installed."""
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
    return engine


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
        shown = url.render_as_string(hide_password=True)
        require_extra(f"the games database {shown}", "postgresql", "psycopg")
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
