"""The archive's queries: :class:`Archive`, the one class that reads and writes its games and
reviews (the SQL of the schema's steps is in :mod:`~ferrochess.service.archive.schema`). Every
transaction is short: input is checked and PGN written outside them, and :meth:`Archive.iter_pgn`
reads in batches of :data:`PGN_BATCH` games, each batch its own transaction, so a slow download
holds no transaction open."""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import Engine

from ferrochess.service.archive.database import connect, database_url, writer
from ferrochess.service.archive.errors import (
    ArchiveConflict,
    ArchiveError,
    ArchiveMissing,
    Guard,
)
from ferrochess.service.archive.schema import (
    SCHEMA_VERSION,
    games,
    read_version,
    reviews,
    upgrade,
)
from ferrochess.service.game import check_level
from ferrochess.service.reading import BadInput
from ferrochess.service.submission import (
    canonical_json,
    game_record,
    now_text,
    read_submission,
    row_pgn,
    split_moves,
    whole,
)
from ferrochess.service.time_control import UNTIMED, read_time_control

if TYPE_CHECKING:
    from ferrochess.service.archive.training import TrainingQueries

__all__ = ["MAX_PER_PAGE", "MAX_REVIEW_BYTES", "PGN_BATCH", "Archive", "filters"]

PGN_BATCH = 200
"""Games read per query (and per transaction) while PGN is streamed."""
MAX_PER_PAGE = 100
"""Most games on one page of :meth:`Archive.list_games`."""
MAX_REVIEW_BYTES = 4 * 1024 * 1024
"""Largest review stored (its JSON, in bytes)."""
ID_BYTES = 12
"""Random bytes of a public id: ``secrets.token_urlsafe(12)`` is 16 characters."""
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
RESULTS = ("1-0", "0-1", "1/2-1/2")
VARIANT_VERSION = 3
"""The schema version that added ``games.variant`` (:mod:`~ferrochess.service.archive.schema`)."""


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
        self._writer = writer(engine)

    @classmethod
    def open(
        cls, database: str | os.PathLike[str] | None = None, *, upgrade_to: int | None = None
    ) -> Archive:
        """The archive of ``database`` (:func:`database_url`: None for the default file), its
        schema created or upgraded to :data:`SCHEMA_VERSION` (``upgrade_to``: an older version,
        to make a database as an older release did; such an archive can only store games).
        ArchiveError for a newer database or an unsupported URL; ArchiveUnavailable when the
        database cannot be reached."""
        engine = connect(database_url(database))
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

    @property
    def training(self) -> TrainingQueries:
        """The training tables' queries (:mod:`~ferrochess.service.archive.training`);
        ArchiveError for an archive opened at a schema version without them."""
        from ferrochess.service.archive.training import TrainingQueries

        return TrainingQueries(self)

    # --- writing --------------------------------------------------------------------------------

    def store_game(self, game: Mapping[str, Any]) -> tuple[str, bool]:
        """Store a finished game (see :func:`read_submission` for its fields) and answer its
        public id and whether it was stored now (True) or already there (False: the same
        ``client_id`` with the same content). ArchiveConflict for the same ``client_id`` with
        other content; BadInput naming the field for a bad one, and naming ``moves`` for a game
        that is not over. An archive opened at a schema version before 3 (``upgrade_to``) has no
        ``variant`` column: it stores standard games only (ArchiveError for Chess960)."""
        row = read_submission(game)
        if self.version < VARIANT_VERSION:
            if row.pop("variant") != "standard":
                raise ArchiveError(
                    f"the games database has schema version {self.version}, which stores no "
                    f"Chess960 game (version {VARIANT_VERSION} does)"
                )
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
        ``time_control`` ("300+3", or "-" for untimed games); ``page`` from 1,
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
            version = read_version(connection)
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

    def _guard(self) -> Guard:
        return Guard(self.name, self.dialect)


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
        control = read_time_control(time_control, untimed=UNTIMED)
        where.append(
            games.c.time_control.is_(None)
            if control is None
            else games.c.time_control == control.tag()
        )
    return where
