"""The archive's schema and its versions: the tables, the steps that make them, and
:func:`upgrade`, which applies the missing steps to a database.

Schema versions (:data:`STEPS`, :data:`SCHEMA_VERSION`): a ``schema_version`` table holds the
version; :func:`upgrade` applies each missing step in its own transaction together with its
version bump (under a lock, so processes opening one database at once apply it once), and refuses
a database newer than this code with an :class:`~ferrochess.service.archive.errors.ArchiveError`.
Version 1 is the ``games`` table; version 2 adds ``reviews`` and the index the games list is read
by. A released step never changes: a later change of the schema is a new step.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.schema import CreateIndex, CreateTable

from ferrochess.service.archive.database import writer
from ferrochess.service.archive.errors import ArchiveError
from ferrochess.service.reading import MAX_CLIENT_LENGTH

__all__ = ["SCHEMA_VERSION", "STEPS", "games", "read_version", "reviews", "upgrade"]

SCHEMA_VERSION = 2
"""The schema version this code reads and writes (the last of :data:`STEPS`)."""
ADVISORY_LOCK = 0x66657272  # "ferr": PostgreSQL's lock that serialises schema steps

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


def upgrade(engine: Engine, upto: int = SCHEMA_VERSION) -> int:
    """Bring the database of ``engine`` to schema version ``upto`` (each missing step of
    :data:`STEPS` in its own transaction with its version bump) and answer its version.
    ArchiveError when the database is newer than ``upto`` or than this code. A writer at a time:
    SQLite's ``BEGIN IMMEDIATE`` and PostgreSQL's advisory lock keep two processes that open one
    database at once from applying a step twice."""
    if not 0 <= upto <= SCHEMA_VERSION:
        raise ValueError(f"upto must be between 0 and {SCHEMA_VERSION}, not {upto}")
    with engine.connect() as connection:  # the usual case, no lock: already there
        current = read_version(connection)
    check_version(current, upto)
    for version, step in STEPS:
        if version > upto or version <= current:
            continue
        with writer(engine).begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(ADVISORY_LOCK)))
            schema_version.create(connection, checkfirst=True)
            current = read_version(connection)
            check_version(current, upto)
            if current >= version:  # another process applied it meanwhile
                continue
            step(connection)
            connection.execute(schema_version.delete())
            connection.execute(schema_version.insert().values(version=version))
            current = version
    return current


def read_version(connection: Connection) -> int:
    if not sa.inspect(connection).has_table(schema_version.name):
        return 0
    version = connection.execute(sa.select(sa.func.max(schema_version.c.version))).scalar()
    return int(version or 0)


def check_version(current: int, upto: int) -> None:
    if current > SCHEMA_VERSION:
        raise ArchiveError(
            f"the games database has schema version {current}, newer than this ferrochess "
            f"knows ({SCHEMA_VERSION}): upgrade ferrochess to open it"
        )
    if current > upto:
        raise ArchiveError(f"the games database has schema version {current}, not {upto}")
