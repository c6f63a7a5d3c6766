"""Engine matches as an engine tester plays them: game pairs from balanced openings, clocks,
adjudication, and the statistics fishtest computes (pentanomial, Elo and normalized Elo with
their 95% intervals, LOS, SPRT).

>>> from ferrochess.match import Ferrochess, Limit, match
>>> result = match([Ferrochess(level=8), Ferrochess(level=2)], games=40,
...                limit=Limit(nodes=3000), concurrency=2)  # doctest: +SKIP
>>> print(result)  # doctest: +SKIP

Players are :class:`Ferrochess` (in this process), :class:`Uci` (any UCI or XBoard engine) and
:class:`Function` (a Python function); openings come from :class:`Openings`; moves are limited by
a :class:`Limit` (a :class:`TimeControl`, nodes, depth, movetime); :class:`Adjudication` ends
decided games early; :class:`SPRT` stops a test once it decides. :func:`match` returns a
:class:`MatchResult`; :class:`Match` runs one in the background and can be stopped. Live views
observe the events of :mod:`ferrochess.match.events`. The command line is ``ferrochess match``
(docs/match.md).
"""

from __future__ import annotations

from ferrochess.match.adjudication import Adjudication, DrawRule, ResignRule
from ferrochess.match.events import (
    Event,
    EventCallback,
    GameFinished,
    GameStarted,
    MatchFinished,
    MatchStarted,
    MovePlayed,
    Progress,
)
from ferrochess.match.limits import Limit, LimitSpec, TimeControl, as_limit
from ferrochess.match.openings import Opening, Openings, OpeningsSpec
from ferrochess.match.players import Ferrochess, Function, Player, PlayerError, Uci
from ferrochess.match.result import GameRecord, MatchResult, OpeningResult, PairingResult
from ferrochess.match.runner import Match, Tournament, match
from ferrochess.match.stats import SPRT, Estimate, Pentanomial

__all__ = [
    "SPRT",
    "Adjudication",
    "DrawRule",
    "Estimate",
    "Event",
    "EventCallback",
    "Ferrochess",
    "Function",
    "GameFinished",
    "GameRecord",
    "GameStarted",
    "Limit",
    "LimitSpec",
    "Match",
    "MatchFinished",
    "MatchResult",
    "MatchStarted",
    "MovePlayed",
    "Opening",
    "OpeningResult",
    "Openings",
    "OpeningsSpec",
    "PairingResult",
    "Pentanomial",
    "Player",
    "PlayerError",
    "Progress",
    "ResignRule",
    "TimeControl",
    "Tournament",
    "Uci",
    "as_limit",
    "match",
]
