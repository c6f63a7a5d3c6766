"""The events a running match reports to its observer (``match(..., on_event=callback)``), small
frozen dataclasses a live view can draw from.

Order: :class:`MatchStarted`; for each game :class:`GameStarted`, a :class:`MovePlayed` per
player move, :class:`GameFinished`, then :class:`Progress` (the result so far); last
:class:`MatchFinished`. Games played at once interleave their events; ``game`` (the game's
index) tells them apart.

The callback is called from the match's worker threads (never two calls at once): a view that
must update on its own thread (a Jupyter widget, a GUI) hands the event over to it. An exception
raised by the callback stops the match and propagates out of ``match()``. On Dask, games run on
the workers: only GameFinished, Progress and the match events are reported, as results arrive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

import chess.engine

if TYPE_CHECKING:
    from ferrochess.match.result import GameRecord, MatchResult

__all__ = [
    "Event",
    "EventCallback",
    "GameFinished",
    "GameStarted",
    "MatchFinished",
    "MatchStarted",
    "MovePlayed",
    "Progress",
]


@dataclass(frozen=True)
class MatchStarted:
    """The match begins: ``players`` (names), the ``games`` it plans, and its ``pairings``
    (pairs of player indices, the first player named first)."""

    players: tuple[str, ...]
    games: int
    pairings: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class GameStarted:
    """Game number ``game`` (0-based) begins: ``white`` and ``black`` (names), from ``fen`` (the
    start position; Chess960 when ``chess960``) after the ``opening`` moves (UCI), in
    ``round`` (1-based) of pairing number ``pairing``."""

    game: int
    pairing: int
    round: int
    white: str
    black: str
    fen: str
    opening: tuple[str, ...]
    chess960: bool


@dataclass(frozen=True)
class MovePlayed:
    """A player's move in game ``game``: ``move`` (UCI) and ``san``, ``fen`` the position after
    it, ``ply`` the board's ply number after it (:meth:`chess.Board.ply`, counted from the start
    position's move number: opening moves included);
    ``white_clock``/``black_clock`` the seconds left (None for a side without a clock);
    ``score`` the mover's own evaluation when it reported one (a PovScore: ``score.white()``),
    ``elapsed`` the seconds the move took."""

    game: int
    ply: int
    move: str
    san: str
    fen: str
    white_clock: float | None
    black_clock: float | None
    score: chess.engine.PovScore | None
    elapsed: float


@dataclass(frozen=True)
class GameFinished:
    """A game ended: its :class:`~ferrochess.match.GameRecord`."""

    record: GameRecord


@dataclass(frozen=True)
class Progress:
    """The :class:`~ferrochess.match.MatchResult` so far, after each finished game."""

    result: MatchResult


@dataclass(frozen=True)
class MatchFinished:
    """The match is over (finished, decided by its SPRT, or stopped): its final result, the one
    ``match()`` returns."""

    result: MatchResult


Event = Union[MatchStarted, GameStarted, MovePlayed, GameFinished, Progress, MatchFinished]
"""Any event."""

EventCallback = Callable[[Event], object]
"""An observer: receives each event; its return value is ignored."""
