"""The archive's schema and its versions: the tables, the steps that make them, and
:func:`upgrade`, which applies the missing steps to a database.

Schema versions (:data:`STEPS`, :data:`SCHEMA_VERSION`): a ``schema_version`` table holds the
version; :func:`upgrade` applies each missing step in its own transaction together with its
version bump (under a lock, so processes opening one database at once apply it once), and refuses
a database newer than this code with an :class:`~ferrochess.service.archive.errors.ArchiveError`.
Version 1 is the ``games`` table; version 2 adds ``reviews`` and the index the games list is read
by; version 3 adds the games' ``variant`` ("standard" or "chess960", "standard" for the rows
before it); version 4 adds the games' ``player`` (the page's player id, null before) and the
training tables (``training_*``: puzzles, mined games, cards, attempts, player and puzzle
ratings). A released step never changes: a later change of the schema is a new step (a column
a later step adds is left out of the table an earlier step creates: :data:`ADDED_BY_STEP`).
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

__all__ = [
    "SCHEMA_VERSION", "STEPS", "VARIANTS", "games", "read_version", "reviews", "upgrade",
    "training_attempts", "training_cards", "training_mined", "training_players",
    "training_puzzle_ratings", "training_puzzles",
]

SCHEMA_VERSION = 4
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
    # added by step 3: "standard" or "chess960" (the start's castling rules)
    sa.Column("variant", sa.String(16), nullable=False, server_default="standard"),
    # added by step 4: the page's player id (a random id kept in the browser), or null
    sa.Column("player", sa.String(MAX_CLIENT_LENGTH), nullable=True),
)

VARIANTS = ("standard", "chess960")
"""The values of ``games.variant``."""
ADDED_BY_STEP: dict[str, int] = {"variant": 3, "player": 4}
"""The columns of ``games`` that a later step adds (name: the step), left out of step 1's table."""

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

# --- training (step 4): puzzles from a player's games, their cards, attempts and ratings ---------
PLAYER_TEXT = MAX_CLIENT_LENGTH

training_puzzles = sa.Table(
    "training_puzzles",
    metadata,
    sa.Column("id", ordered_text(16), primary_key=True),  # Puzzle.id
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("puzzle_json", sa.Text, nullable=False),  # Puzzle.to_dict()
    sa.Column("created_at", sa.String(40), nullable=False),
)

training_mined = sa.Table(  # each game is mined once
    "training_mined",
    metadata,
    sa.Column("game_id", ordered_text(32), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("player", sa.String(PLAYER_TEXT), nullable=False),
    sa.Column("cards", sa.Integer, nullable=False),  # cards made from it
    sa.Column("mined_at", sa.String(40), nullable=False),
)

training_cards = sa.Table(  # a player's card of a puzzle: its FSRS state
    "training_cards",
    metadata,
    sa.Column("player", ordered_text(PLAYER_TEXT), primary_key=True),
    sa.Column("puzzle_id", ordered_text(16), sa.ForeignKey("training_puzzles.id"),
              primary_key=True),
    sa.Column("game_id", ordered_text(32), nullable=True),
    sa.Column("card_json", sa.Text, nullable=False),  # fsrs Card.to_dict()
    sa.Column("due", ordered_text(40), nullable=False),  # the card's due time, as time_text
    sa.Column("created_at", sa.String(40), nullable=False),
)

training_attempts = sa.Table(
    "training_attempts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("player", ordered_text(PLAYER_TEXT), nullable=False),
    sa.Column("puzzle_id", ordered_text(16), sa.ForeignKey("training_puzzles.id"),
              nullable=False),
    sa.Column("solved", sa.Boolean, nullable=False),
    sa.Column("seconds", sa.Float, nullable=True),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("at", sa.String(40), nullable=False),
)

training_players = sa.Table(  # a player's puzzle rating (Glicko-2)
    "training_players",
    metadata,
    sa.Column("player", ordered_text(PLAYER_TEXT), primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("deviation", sa.Float, nullable=False),
    sa.Column("volatility", sa.Float, nullable=False),
    sa.Column("updated_at", sa.String(40), nullable=False),
)

training_puzzle_ratings = sa.Table(  # a puzzle's own rating (Glicko-2)
    "training_puzzle_ratings",
    metadata,
    sa.Column("puzzle_id", ordered_text(16), sa.ForeignKey("training_puzzles.id"),
              primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("deviation", sa.Float, nullable=False),
    sa.Column("volatility", sa.Float, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.String(40), nullable=False),
)

TRAINING_TABLES = (training_puzzles, training_mined, training_cards, training_attempts,
                   training_players, training_puzzle_ratings)
games_by_player = sa.Index(None, games.c.player, games.c.finished_at)
cards_due = sa.Index(None, training_cards.c.player, training_cards.c.due)
attempts_by_puzzle = sa.Index(None, training_attempts.c.player, training_attempts.c.puzzle_id)


def _games_as_created() -> sa.Table:
    """``games`` as step 1 creates it: without the columns later steps add."""
    table = sa.Table(games.name, sa.MetaData(naming_convention=metadata.naming_convention))
    for column in games.columns:
        if column.name not in ADDED_BY_STEP:
            table.append_column(column._copy())
    return table


def _step_1(connection: Connection) -> None:
    """Version 1: the games."""
    connection.execute(CreateTable(_games_as_created()))


def _step_2(connection: Connection) -> None:
    """Version 2: the reviews, and the index of the games list."""
    connection.execute(CreateTable(reviews))
    connection.execute(CreateIndex(games_order))


def _step_3(connection: Connection) -> None:
    """Version 3: each game's variant, "standard" for the games stored before."""
    column = games.c.variant
    kind = column.type.compile(dialect=connection.dialect)
    connection.execute(
        sa.text(
            f"ALTER TABLE {games.name} ADD COLUMN {column.name} {kind} "
            "DEFAULT 'standard' NOT NULL"
        )
    )


def _step_4(connection: Connection) -> None:
    """Version 4: each game's player (null for the games stored before), and training."""
    column = games.c.player
    kind = column.type.compile(dialect=connection.dialect)
    connection.execute(sa.text(f"ALTER TABLE {games.name} ADD COLUMN {column.name} {kind}"))
    connection.execute(CreateIndex(games_by_player))
    for table in TRAINING_TABLES:
        connection.execute(CreateTable(table))
    connection.execute(CreateIndex(cards_due))
    connection.execute(CreateIndex(attempts_by_puzzle))


STEPS: list[tuple[int, Callable[[Connection], None]]] = [
    (1, _step_1),
    (2, _step_2),
    (3, _step_3),
    (4, _step_4),
]
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
