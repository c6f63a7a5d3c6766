"""Training from one's own games, as a service (Flask-free: the ``/train`` page's API and the
notebook use it alike).

:class:`TrainingService` ties :mod:`ferrochess.training` (puzzles, opening cards, FSRS, Glicko-2)
to the archive (:attr:`ferrochess.service.archive.Archive.training`). A player is the page's
random player id (``[A-Za-z0-9_-]{1,64}``) that the play page sends with each archived game.

- :meth:`TrainingService.mine`: makes puzzles (:func:`ferrochess.training.puzzles`, kept only
  those that drill the player's own blunders and missed wins) and opening cards
  (:func:`ferrochess.training.opening_cards`) from the player's archived games not mined yet,
  oldest first, at most ``max_games`` a call; each game is mined once. Engine work: seconds a
  game.
- :meth:`TrainingService.next`: the card due longest ago, as ``{"puzzle": Puzzle.to_dict(),
  "card": {due, due_now, state, step, stability, difficulty, last_review}, "rating": {rating,
  deviation}, "counts": {due, total}}``; when no card is due the same with ``"puzzle"`` and
  ``"card"`` null (the rating and the counts still said, as lichess's puzzle page shows them).
- :meth:`TrainingService.attempt`: an attempt, solved or not: the card rescheduled (FSRS:
  failed Again, solved Good, solved within ten seconds Easy), and on the player's first attempt
  at that puzzle both ratings updated (Glicko-2; later attempts are unrated, as lichess's
  replays); all stored, so a reload keeps them.

Bad input raises :class:`~ferrochess.service.reading.BadInput` naming the field.
"""

from __future__ import annotations

import dataclasses
import datetime
import io
import math
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Union

import chess
import chess.pgn

from ferrochess.engine import DEFAULT_BOOK, BookSpec, Engine
from ferrochess.service.archive import Archive, ArchiveMissing
from ferrochess.service.archive.training import AttemptResult, AttemptState
from ferrochess.service.pool import EnginePool
from ferrochess.service.reading import BadInput
from ferrochess.service.submission import read_player, time_text
from ferrochess.training import openings, rating, schedule
from ferrochess.training.puzzles import DEFAULT_NODES, Puzzle, puzzles

__all__ = ["DEFAULT_MAX_GAMES", "TrainingService"]

DEFAULT_MAX_GAMES = 10
"""Games mined at most by one :meth:`TrainingService.mine` call (the page calls again)."""
PUZZLE_ID = re.compile(r"[0-9a-f]{16}")
MAX_SECONDS = 24 * 3600.0

Engines = Union[EnginePool, Callable[[], Engine]]
"""An engine pool to borrow from, or a factory of engines (each closed after use)."""


class TrainingService:
    """Training on ``archive`` (schema version 4 or later), searching with ``engines``: an
    :class:`~ferrochess.service.pool.EnginePool` (an engine borrowed a game at a time, waiting
    up to ``busy_wait_seconds``: :class:`~ferrochess.service.pool.Busy` otherwise) or a callable
    making an :class:`~ferrochess.Engine` (closed after each :meth:`mine`). ``nodes``: nodes
    per position of a puzzle's line; ``book``: the opening book of the opening cards;
    ``scheduler``: an ``fsrs.Scheduler`` (default: the package's defaults, fuzzing on);
    ``clock``: what "now" is (UTC-aware; tests)."""

    def __init__(
        self,
        archive: Archive,
        engines: Engines,
        *,
        nodes: int = DEFAULT_NODES,
        book: BookSpec = DEFAULT_BOOK,
        busy_wait_seconds: float = 5.0,
        scheduler: Any = None,
        clock: Callable[[], datetime.datetime] | None = None,
    ) -> None:
        self.archive = archive
        self.training = archive.training  # ArchiveError at once for an archive too old
        self.engines = engines
        self.nodes = nodes
        self.book = book
        self.busy_wait_seconds = busy_wait_seconds
        self.scheduler = scheduler
        self.clock = clock or schedule.now_utc

    # --- mining ---------------------------------------------------------------------------------

    def mine(
        self,
        player: object,
        *,
        max_games: int = DEFAULT_MAX_GAMES,
        progress: Callable[[int, int], object] | None = None,
    ) -> dict[str, int]:
        """Mine the player's archived games not mined yet (oldest first, at most ``max_games``)
        and answer ``{"games": mined now, "cards": new cards, "left": games still to mine}``.
        ``progress(done, of)`` after each game."""
        name = read_player(player)
        assert name is not None
        every = self.training.player_games(name)
        todo = [game for game in every if not game["mined"]][:max_games]
        if not todo:
            return {"games": 0, "cards": 0, "left": 0}
        wanted = {game["id"] for game in todo}
        earlier: list[tuple[chess.pgn.Game, chess.Color]] = []
        made = 0
        mined = 0
        with self._engines() as borrow:
            for record in every:
                game = chess.pgn.read_game(io.StringIO(record["pgn"]))
                if game is None:  # pragma: no cover - the archive wrote it
                    continue
                color = record["human"] == "white"
                if record["id"] in wanted:
                    with borrow() as engine:  # a pool's engine is lent a game at a time
                        cards = self._cards(record["id"], game, color, earlier, engine)
                    made += self.training.store_mined(
                        name, record["id"], cards, rating.START.to_dict()
                    )
                    mined += 1
                    if progress is not None:
                        progress(mined, len(todo))
                earlier.append((game, color))
                if mined == len(todo):
                    break
        left = sum(1 for game in every if not game["mined"]) - mined
        return {"games": mined, "cards": made, "left": left}

    def _cards(
        self,
        game_id: str,
        game: chess.pgn.Game,
        color: chess.Color,
        earlier: list[tuple[chess.pgn.Game, chess.Color]],
        engine: Engine,
    ) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
        found = puzzles(game, engine=engine, nodes=self.nodes, player_color=color)
        found += openings.opening_cards(
            [(game, color)], earlier=earlier, book=self.book, engine=engine, nodes=self.nodes
        )
        now = self.clock()
        cards = []
        for puzzle in found:
            sourced = dataclasses.replace(puzzle, source={**puzzle.source, "game_id": game_id})
            card = schedule.new_card(now)
            cards.append((sourced.to_dict(), schedule.card_to_dict(card), time_text(card.due)))
        return cards

    @contextmanager
    def _engines(self) -> Iterator[Callable[[], AbstractContextManager[Engine]]]:
        """For one :meth:`mine`: a way to get an engine for one game. A pool lends one a game at
        a time (Busy when none comes free within the wait); a factory's engine serves the whole
        call and is closed after it."""
        if isinstance(self.engines, EnginePool):
            pool = self.engines
            yield lambda: pool.engine(self.busy_wait_seconds)
            return
        made = self.engines()
        try:
            yield lambda: nullcontext(made)
        finally:
            made.close()

    # --- drilling -------------------------------------------------------------------------------

    def next(self, player: object) -> dict[str, Any]:
        """The card due longest ago (see the module's docstring); ``puzzle`` and ``card`` null
        when none is due."""
        name = read_player(player)
        assert name is not None
        now = self.clock()
        stored = self.training.next_card(name, time_text(now))
        if stored is None:
            return {"puzzle": None, "card": None, "rating": self._rating(name),
                    "counts": self.training.counts(name, time_text(now))}  # fmt: skip
        card = schedule.card_from_dict(stored.card)
        return {
            "puzzle": Puzzle.from_dict(stored.puzzle).to_dict(),
            "card": schedule.card_summary(card, now),
            "rating": self._rating(name),
            "counts": self.training.counts(name, time_text(now)),
        }

    def attempt(
        self, player: object, puzzle_id: object, solved: object, seconds: object = None
    ) -> dict[str, Any]:
        """Record an attempt (see the module's docstring) and answer ``{"card": {...},
        "rating": {rating, deviation}, "puzzle_rating": {rating, deviation}, "rated": bool,
        "counts": {due, total}}``. BadInput naming ``player``, ``puzzle`` (not a puzzle id, or
        not one of this player's), ``solved`` (not true/false) or ``seconds`` (not a number of
        seconds, or null)."""
        name = read_player(player)
        assert name is not None
        if not isinstance(puzzle_id, str) or not PUZZLE_ID.fullmatch(puzzle_id):
            raise BadInput("puzzle", "puzzle must be a puzzle's id: 16 hex digits")
        if not isinstance(solved, bool):
            raise BadInput("solved", f"solved must be true or false, not {solved!r}"[:120])
        if seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, (int, float))
            or not math.isfinite(seconds) or not 0 <= seconds <= MAX_SECONDS
        ):
            raise BadInput("seconds", f"seconds must be a number from 0 to {MAX_SECONDS:.0f}, "
                           "or null")  # fmt: skip
        now = self.clock()
        took = None if seconds is None else float(seconds)

        def compute(state: AttemptState) -> AttemptResult:
            card = schedule.review(
                schedule.card_from_dict(state.card), solved, seconds=took, now=now,
                using=self.scheduler,
            )
            new_player = new_puzzle = None
            if not state.tried_before:
                before_player = rating.Glicko.from_dict(state.player_rating or rating.START
                                                        .to_dict())
                before_puzzle = rating.Glicko.from_dict(state.puzzle_rating or rating.START
                                                        .to_dict())
                after_player, after_puzzle = rating.rate(before_player, before_puzzle, solved)
                new_player, new_puzzle = after_player.to_dict(), after_puzzle.to_dict()
            return AttemptResult(
                card=schedule.card_to_dict(card), due=time_text(card.due),
                player_rating=new_player, puzzle_rating=new_puzzle,
            )

        try:
            result = self.training.attempt(name, puzzle_id, solved, took, compute)
        except ArchiveMissing:
            raise BadInput("puzzle", f"puzzle {puzzle_id} is not one of this player's") from None
        puzzle_rating = self.training.puzzle_rating(puzzle_id) or rating.START.to_dict()
        return {
            "card": schedule.card_summary(schedule.card_from_dict(result.card), now),
            "rating": self._rating(name),
            "puzzle_rating": {"rating": puzzle_rating["rating"],
                              "deviation": puzzle_rating["deviation"]},
            "rated": result.player_rating is not None,
            "counts": self.training.counts(name, time_text(now)),
        }

    def _rating(self, player: str) -> dict[str, float]:
        stored = self.training.player_rating(player) or rating.START.to_dict()
        return {"rating": stored["rating"], "deviation": stored["deviation"]}
