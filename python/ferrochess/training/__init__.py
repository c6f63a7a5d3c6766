"""Training from one's own games: puzzles, opening drills, spaced repetition and a puzzle rating.

Flask-free and SQL-free: the archive stores what these make
(:class:`ferrochess.service.training.TrainingService` ties them to it).

- :mod:`~ferrochess.training.puzzles`: :func:`puzzles` makes :class:`Puzzle` cards from games,
  the way ornicar/lichess-puzzler's generator does (multi-PV, the solver's move the only good one);
- :mod:`~ferrochess.training.openings`: :func:`opening_cards`, where a player left their usual
  line or the book and it went wrong;
- :mod:`~ferrochess.training.schedule`: when a card comes back (FSRS, the ``fsrs`` package);
- :mod:`~ferrochess.training.rating`: the player's and each puzzle's Glicko-2 rating (the
  ``glicko2`` package).
"""

from __future__ import annotations

from ferrochess.training.openings import opening_cards
from ferrochess.training.puzzles import KINDS, Puzzle, only_good, puzzles, win_chances
from ferrochess.training.rating import START, Glicko, rate
from ferrochess.training.schedule import (
    card_from_dict,
    card_summary,
    card_to_dict,
    grade,
    new_card,
    review,
)

__all__ = [
    "KINDS",
    "START",
    "Glicko",
    "Puzzle",
    "card_from_dict",
    "card_summary",
    "card_to_dict",
    "grade",
    "new_card",
    "only_good",
    "opening_cards",
    "puzzles",
    "rate",
    "review",
    "win_chances",
]
