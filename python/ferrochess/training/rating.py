"""Puzzle ratings by Glicko-2, the ``glicko2`` package, as lichess rates its puzzles.

Each rated attempt is one Glicko-2 rating period for the player and one for the puzzle, played
against each other's rating before the attempt: the player wins when the puzzle is solved, the
puzzle wins when it is not (lichess's ``PuzzleFinisher``: the player as White, the puzzle as
Black). Only a player's first attempt at a puzzle is rated (lichess: replays change nothing); the
service decides that. Both start at 1500, deviation 350, volatility 0.06 (the Glicko-2 paper's
unrated player). After each update the deviation is kept within :data:`MIN_DEVIATION` and
:data:`MAX_DEVIATION`, the rating at least :data:`MIN_RATING`, the volatility at most
:data:`MAX_VOLATILITY` (lichess's bounds). The package's tau (0.5) is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import glicko2  # type: ignore[import-untyped]

__all__ = ["Glicko", "START", "rate"]

MIN_RATING = 400.0
MIN_DEVIATION = 45.0
MAX_DEVIATION = 500.0
MAX_VOLATILITY = 0.1


@dataclass(frozen=True)
class Glicko:
    """A Glicko-2 rating: ``rating``, ``deviation`` (RD) and ``volatility``."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06

    def to_dict(self) -> dict[str, float]:
        """JSON-ready: ``{"rating", "deviation", "volatility"}``."""
        return {"rating": self.rating, "deviation": self.deviation,
                "volatility": self.volatility}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Glicko:
        """The rating of :meth:`to_dict`'s data; ValueError naming the bad field."""
        values = {}
        for name in ("rating", "deviation", "volatility"):
            value = data.get(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"{name} must be a number of at least 0, not {value!r}")
            values[name] = float(value)
        return cls(**values)


START = Glicko()
"""Where a new player and a new puzzle start: 1500, RD 350, volatility 0.06."""


def rate(player: Glicko, puzzle: Glicko, solved: bool) -> tuple[Glicko, Glicko]:
    """The player's and the puzzle's ratings after one attempt (solved or not), each a Glicko-2
    period against the other's rating before it."""
    return (_update(player, puzzle, 1.0 if solved else 0.0),
            _update(puzzle, player, 0.0 if solved else 1.0))  # fmt: skip


def _update(own: Glicko, other: Glicko, outcome: float) -> Glicko:
    rated = glicko2.Player(rating=own.rating, rd=own.deviation, vol=own.volatility)
    rated.update_player([other.rating], [other.deviation], [outcome])
    return Glicko(
        rating=max(MIN_RATING, rated.rating),
        deviation=min(MAX_DEVIATION, max(MIN_DEVIATION, rated.rd)),
        volatility=min(MAX_VOLATILITY, rated.vol),
    )
