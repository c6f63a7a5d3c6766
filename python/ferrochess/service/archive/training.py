"""The archive's training queries: :class:`TrainingQueries` (``archive.training``), every read and
write of the ``training_*`` tables and of the games' ``player`` (schema step 4).

What is stored is made elsewhere and arrives as JSON-ready data: puzzles as
:meth:`ferrochess.training.Puzzle.to_dict`, cards as fsrs's ``Card.to_dict`` (with their due time
as the archive's time text, indexed), ratings as ``{"rating", "deviation", "volatility"}``.
Nothing here knows chess, FSRS or Glicko-2 (:class:`ferrochess.service.training.TrainingService`
does). A game is mined once (``training_mined``); a puzzle is stored once, whoever's game it came
from; a player has one card per puzzle; every attempt is kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from ferrochess.service.archive.errors import ArchiveError, ArchiveMissing
from ferrochess.service.archive.schema import (
    games,
    training_attempts,
    training_cards,
    training_mined,
    training_players,
    training_puzzle_ratings,
    training_puzzles,
)
from ferrochess.service.submission import canonical_json, now_text, row_pgn

if TYPE_CHECKING:
    from ferrochess.service.archive.queries import Archive

__all__ = ["TRAINING_VERSION", "AttemptResult", "AttemptState", "StoredCard", "TrainingQueries"]

TRAINING_VERSION = 4
"""The schema version that has the training tables."""


@dataclass(frozen=True)
class StoredCard:
    """A player's card as stored: the puzzle's data, the card's fsrs data and due time."""

    puzzle: dict[str, Any]
    card: dict[str, Any]
    due: str


@dataclass(frozen=True)
class AttemptState:
    """What an attempt is computed from (read in the attempt's transaction): the card, the
    player's rating (None before their first rated attempt), the puzzle's rating (None before
    its first), and whether this player has tried this puzzle before."""

    card: dict[str, Any]
    player_rating: dict[str, float] | None
    puzzle_rating: dict[str, float] | None
    tried_before: bool


@dataclass(frozen=True)
class AttemptResult:
    """What an attempt stores: the card after it, its due time, and the new ratings (None:
    unchanged, an unrated attempt)."""

    card: dict[str, Any]
    due: str
    player_rating: dict[str, float] | None
    puzzle_rating: dict[str, float] | None


class TrainingQueries:
    """The training tables of one :class:`~ferrochess.service.archive.Archive`."""

    def __init__(self, archive: Archive) -> None:
        if archive.version < TRAINING_VERSION:
            raise ArchiveError(
                f"the games database has schema version {archive.version}: training needs "
                f"{TRAINING_VERSION} (open it without upgrade_to)"
            )
        self.archive = archive

    # --- games ----------------------------------------------------------------------------------

    def player_games(self, player: str, *, mined: bool | None = None) -> list[dict[str, Any]]:
        """The player's stored games, oldest first (finished_at, then id): ``id``, ``pgn``
        (:func:`~ferrochess.service.submission.row_pgn`'s), ``human`` ("white"/"black": the
        player's side), ``mined`` (bool). ``mined``: None every game, False those not yet mined,
        True those mined."""
        statement = (
            sa.select(games, training_mined.c.game_id.label("mined_id"))
            .select_from(games.outerjoin(training_mined, training_mined.c.game_id == games.c.id))
            .where(games.c.player == player)
            .order_by(games.c.finished_at, games.c.id)
        )
        if mined is True:
            statement = statement.where(training_mined.c.game_id.is_not(None))
        elif mined is False:
            statement = statement.where(training_mined.c.game_id.is_(None))
        with self.archive._guard(), self.archive.engine.begin() as connection:
            rows = [row._mapping for row in connection.execute(statement).all()]
        return [
            {"id": row["id"], "pgn": row_pgn(row), "human": row["human"],
             "mined": row["mined_id"] is not None}
            for row in rows
        ]  # fmt: skip

    # --- mining ---------------------------------------------------------------------------------

    def store_mined(
        self,
        player: str,
        game_id: str,
        cards: Iterable[tuple[Mapping[str, Any], Mapping[str, Any], str]],
        start_rating: Mapping[str, float],
    ) -> int:
        """Store what was mined from game ``game_id`` of ``player`` in one transaction: each
        ``(puzzle, card, due)`` (the puzzle kept once whoever found it, with ``start_rating`` as
        its rating; the player's card of it unless they have one), and the game as mined. Answers
        how many cards were new; 0 when the game was mined already (nothing is stored twice)."""
        now = now_text()
        archive = self.archive
        with archive._guard(), archive._writer.begin() as connection:
            owner = connection.execute(
                sa.select(games.c.player).where(games.c.id == game_id)
            ).first()
            if owner is None:
                raise ArchiveMissing(f"no game {game_id!r}")
            if owner.player != player:
                raise ArchiveMissing(f"no game {game_id!r} of this player")
            marked = connection.execute(
                archive._insert(training_mined)
                .values(game_id=game_id, player=player, cards=0, mined_at=now)
                .on_conflict_do_nothing()
                .returning(training_mined.c.game_id)
            ).first()
            if marked is None:
                return 0
            made = 0
            for puzzle, card, due in cards:
                connection.execute(
                    archive._insert(training_puzzles)
                    .values(id=puzzle["id"], kind=puzzle["kind"],
                            puzzle_json=canonical_json(dict(puzzle)), created_at=now)
                    .on_conflict_do_nothing()
                )  # fmt: skip
                connection.execute(
                    archive._insert(training_puzzle_ratings)
                    .values(puzzle_id=puzzle["id"], attempts=0, updated_at=now, **start_rating)
                    .on_conflict_do_nothing()
                )
                stored = connection.execute(
                    archive._insert(training_cards)
                    .values(player=player, puzzle_id=puzzle["id"], game_id=game_id,
                            card_json=canonical_json(dict(card)), due=due, created_at=now)
                    .on_conflict_do_nothing()
                    .returning(training_cards.c.puzzle_id)
                ).first()  # fmt: skip
                made += stored is not None
            connection.execute(
                training_mined.update()
                .where(training_mined.c.game_id == game_id)
                .values(cards=made)
            )
        return made

    # --- reading --------------------------------------------------------------------------------

    def next_card(self, player: str, now: str) -> StoredCard | None:
        """The player's card due longest ago at ``now`` (time text; ties by puzzle id), or None
        when none is due."""
        return self._first_card(
            (training_cards.c.player == player, training_cards.c.due <= now),
            (training_cards.c.due, training_cards.c.puzzle_id),
        )

    def counts(self, player: str, now: str) -> dict[str, int]:
        """``{"due", "total"}``: the player's cards due at ``now`` and all their cards."""
        cards = training_cards
        with self.archive._guard(), self.archive.engine.begin() as connection:
            total = connection.execute(
                sa.select(sa.func.count()).select_from(cards).where(cards.c.player == player)
            ).scalar()
            due = connection.execute(
                sa.select(sa.func.count()).select_from(cards)
                .where(cards.c.player == player, cards.c.due <= now)
            ).scalar()  # fmt: skip
        return {"due": int(due or 0), "total": int(total or 0)}

    def card(self, player: str, puzzle_id: str) -> StoredCard | None:
        """The player's card of ``puzzle_id``, or None."""
        return self._first_card(
            (training_cards.c.player == player, training_cards.c.puzzle_id == puzzle_id), ()
        )

    def _first_card(self, where: tuple[Any, ...], order: tuple[Any, ...]) -> StoredCard | None:
        """The first card (with its puzzle) where all of ``where`` hold, in ``order``."""
        statement = (
            sa.select(training_cards.c.card_json, training_cards.c.due,
                      training_puzzles.c.puzzle_json)
            .select_from(training_cards.join(
                training_puzzles, training_puzzles.c.id == training_cards.c.puzzle_id))
            .where(*where)
            .order_by(*order)
            .limit(1)
        )  # fmt: skip
        with self.archive._guard(), self.archive.engine.begin() as connection:
            row = connection.execute(statement).first()
        if row is None:
            return None
        return StoredCard(json.loads(row.puzzle_json), json.loads(row.card_json), row.due)

    def player_rating(self, player: str) -> dict[str, float] | None:
        """The player's rating ``{"rating", "deviation", "volatility"}``, or None before their
        first rated attempt."""
        with self.archive._guard(), self.archive.engine.begin() as connection:
            row = connection.execute(
                sa.select(training_players).where(training_players.c.player == player)
            ).first()
        return None if row is None else _rating(row._mapping)

    def puzzle_rating(self, puzzle_id: str) -> dict[str, Any] | None:
        """The puzzle's rating with its ``attempts`` (rated ones), or None for no such puzzle."""
        with self.archive._guard(), self.archive.engine.begin() as connection:
            row = connection.execute(
                sa.select(training_puzzle_ratings)
                .where(training_puzzle_ratings.c.puzzle_id == puzzle_id)
            ).first()  # fmt: skip
        if row is None:
            return None
        return {**_rating(row._mapping), "attempts": int(row.attempts)}

    def attempts(self, player: str, puzzle_id: str | None = None) -> list[dict[str, Any]]:
        """The player's attempts (of ``puzzle_id``, else of every puzzle), oldest first:
        ``puzzle``, ``solved``, ``seconds``, ``rated``, ``at``."""
        statement = sa.select(training_attempts).where(training_attempts.c.player == player)
        if puzzle_id is not None:
            statement = statement.where(training_attempts.c.puzzle_id == puzzle_id)
        with self.archive._guard(), self.archive.engine.begin() as connection:
            rows = connection.execute(statement.order_by(training_attempts.c.id)).all()
        return [
            {"puzzle": row.puzzle_id, "solved": bool(row.solved), "seconds": row.seconds,
             "rated": bool(row.rated), "at": row.at}
            for row in rows
        ]  # fmt: skip

    # --- an attempt -----------------------------------------------------------------------------

    def attempt(
        self,
        player: str,
        puzzle_id: str,
        solved: bool,
        seconds: float | None,
        compute: Callable[[AttemptState], AttemptResult],
    ) -> AttemptResult:
        """Record an attempt of ``player`` at ``puzzle_id``: in one writing transaction, read the
        card and the ratings, ``compute`` what follows, and store the card, the ratings (where
        ``compute`` gives them: a rated attempt) and the attempt. ArchiveMissing when the player
        has no card of that puzzle."""
        now = now_text()
        archive = self.archive
        with archive._guard(), archive._writer.begin() as connection:
            card_query = sa.select(training_cards.c.card_json).where(
                training_cards.c.player == player, training_cards.c.puzzle_id == puzzle_id
            )
            if archive.dialect == "postgresql":  # SQLite's BEGIN IMMEDIATE locks already
                card_query = card_query.with_for_update()
            card_row = connection.execute(card_query).first()
            if card_row is None:
                raise ArchiveMissing(f"player has no puzzle {puzzle_id!r}")
            player_row = connection.execute(
                sa.select(training_players).where(training_players.c.player == player)
            ).first()
            puzzle_row = connection.execute(
                sa.select(training_puzzle_ratings)
                .where(training_puzzle_ratings.c.puzzle_id == puzzle_id)
            ).first()  # fmt: skip
            tried = connection.execute(
                sa.select(training_attempts.c.id).where(
                    training_attempts.c.player == player,
                    training_attempts.c.puzzle_id == puzzle_id,
                ).limit(1)
            ).first() is not None
            result = compute(AttemptState(
                card=json.loads(card_row.card_json),
                player_rating=None if player_row is None else _rating(player_row._mapping),
                puzzle_rating=None if puzzle_row is None else _rating(puzzle_row._mapping),
                tried_before=tried,
            ))  # fmt: skip
            connection.execute(
                training_cards.update()
                .where(training_cards.c.player == player,
                       training_cards.c.puzzle_id == puzzle_id)
                .values(card_json=canonical_json(result.card), due=result.due)
            )  # fmt: skip
            rated = result.player_rating is not None
            if result.player_rating is not None:
                values = {**_rating(result.player_rating), "updated_at": now}
                if player_row is None:
                    connection.execute(training_players.insert().values(player=player, **values))
                else:
                    connection.execute(
                        training_players.update()
                        .where(training_players.c.player == player).values(**values)
                    )  # fmt: skip
            if result.puzzle_rating is not None:
                values = {**_rating(result.puzzle_rating), "updated_at": now}
                if puzzle_row is None:
                    connection.execute(training_puzzle_ratings.insert().values(
                        puzzle_id=puzzle_id, attempts=1, **values))
                else:
                    connection.execute(
                        training_puzzle_ratings.update()
                        .where(training_puzzle_ratings.c.puzzle_id == puzzle_id)
                        .values(attempts=training_puzzle_ratings.c.attempts + 1, **values)
                    )  # fmt: skip
            connection.execute(training_attempts.insert().values(
                player=player, puzzle_id=puzzle_id, solved=bool(solved), seconds=seconds,
                rated=rated, at=now))  # fmt: skip
        return result


def _rating(row: Mapping[Any, Any]) -> dict[str, float]:
    return {name: float(row[name]) for name in ("rating", "deviation", "volatility")}
