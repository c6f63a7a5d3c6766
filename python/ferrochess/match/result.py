"""What a match gives back: a :class:`GameRecord` per game and the :class:`MatchResult` that
counts them (W/D/L, pentanomial, Elo and normalized Elo with their 95% intervals, LOS, the SPRT's
LLR and decision, the crosstable, results per opening), and the :class:`Tally` that builds results
game by game.

Everything is counted for the first player of each pairing: in a two-player match the first
player given; the crosstable has one :class:`PairingResult` per pairing. A pair counts in the
pentanomial once both its games are finished.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from ferrochess.match.openings import Opening
from ferrochess.match.stats import (
    SPRT,
    Estimate,
    Pentanomial,
    elo,
    los,
    normalized_elo,
)

__all__ = ["GameRecord", "MatchResult", "OpeningResult", "PairingResult", "Tally"]

POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


@dataclass(frozen=True)
class GameRecord:
    """One finished game.

    ``index`` is the game's number in the match (0-based; games ``2k`` and ``2k + 1`` of a
    pairing's round share an opening, colours swapped); ``pairing`` the index of its pairing in
    :attr:`MatchResult.pairings`; ``round`` its round (1-based, the PGN Round tag); ``pair`` its
    pair's number in the match (``index // 2``); ``opening`` the :class:`Opening` and
    ``opening_index`` its 0-based number (the round's). ``white``/``black`` are player names,
    ``white_player``/``black_player`` their indices in the match's players. ``result`` is
    ``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``; ``termination`` the PGN Termination tag
    (``"normal"``, ``"adjudication"``, ``"time forfeit"``, ``"rules infraction"``,
    ``"abandoned"``) and ``reason`` the end in words ("White mates", "Black loses on time"...).
    ``moves`` are the players' moves in UCI after the opening; ``pgn`` the whole game.
    """

    index: int
    pairing: int
    round: int
    pair: int
    opening_index: int
    opening: Opening
    white: str
    black: str
    white_player: int
    black_player: int
    result: str
    termination: str
    reason: str
    moves: tuple[str, ...]
    pgn: str

    def points(self, player: int) -> float:
        """The points player number ``player`` scored in this game (0, 0.5 or 1)."""
        white = POINTS[self.result]
        if player == self.white_player:
            return white
        if player == self.black_player:
            return 1.0 - white
        raise ValueError(f"player {player} did not play game {self.index}")


@dataclass(frozen=True)
class PairingResult:
    """The games of one pairing, from ``first``'s side: wins, draws, losses, and the pentanomial
    of its finished pairs."""

    first: str
    second: str
    first_player: int
    second_player: int
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pentanomial: Pentanomial = field(default_factory=lambda: Pentanomial(0, 0, 0, 0, 0))

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """``first``'s points."""
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        """``first``'s points per game (0.5 before any game)."""
        return self.points / self.games if self.games else 0.5

    @property
    def elo(self) -> Estimate:
        """Logistic Elo of ``first`` over ``second`` from the pairs, with its 95% interval."""
        return elo(self.pentanomial)

    @property
    def nelo(self) -> Estimate:
        """Normalized Elo from the pairs, with its 95% interval."""
        return normalized_elo(self.pentanomial)

    @property
    def los(self) -> float:
        """Likelihood that ``first`` is the stronger, from the pairs (0..1)."""
        return los(self.pentanomial)

    @property
    def draw_ratio(self) -> float:
        return self.draws / self.games if self.games else 0.0


@dataclass(frozen=True)
class OpeningResult:
    """The games of one opening: ``white_points`` scored by White, and from the first player of
    each pairing's side ``wins``, ``draws``, ``losses``."""

    index: int
    opening: Opening
    games: int
    white_points: float
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True)
class MatchResult:
    """A match's games and their statistics (a snapshot while the match runs).

    ``players`` are the players' names; ``games`` the finished games in the order they
    finished; ``pairings`` one :class:`PairingResult` per pairing (one in a two-player match).
    ``planned_games`` is how many games the match was to play; ``cancelled`` says it was
    stopped early by its cancel event, ``Match.stop()``, or an exception; ``sprt``, ``llr``
    and ``decision`` ("H0", "H1" or None) are the SPRT's. The W/D/L, pentanomial and Elo
    properties are the first player's over its pairings.
    """

    players: tuple[str, ...]
    games: tuple[GameRecord, ...]
    pairings: tuple[PairingResult, ...]
    planned_games: int
    time_control: str = "-"
    sprt: SPRT | None = None
    llr: float | None = None
    decision: Literal["H0", "H1"] | None = None
    cancelled: bool = False

    def _first(self) -> list[PairingResult]:
        return [p for p in self.pairings if p.first_player == 0] or list(self.pairings[:1])

    @property
    def wins(self) -> int:
        return sum(p.wins for p in self._first())

    @property
    def draws(self) -> int:
        return sum(p.draws for p in self._first())

    @property
    def losses(self) -> int:
        return sum(p.losses for p in self._first())

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        """The first player's points per game (0.5 before any game)."""
        games = self.wins + self.draws + self.losses
        return self.points / games if games else 0.5

    @property
    def pentanomial(self) -> Pentanomial:
        total = Pentanomial(0, 0, 0, 0, 0)
        for pairing in self._first():
            total = total + pairing.pentanomial
        return total

    @property
    def elo(self) -> Estimate:
        """The first player's logistic Elo from its pairs, with the 95% interval (infinite
        before a pair is finished)."""
        return elo(self.pentanomial)

    @property
    def nelo(self) -> Estimate:
        return normalized_elo(self.pentanomial)

    @property
    def los(self) -> float:
        return los(self.pentanomial)

    @property
    def crosstable(self) -> dict[tuple[str, str], PairingResult]:
        """The pairings by ``(first, second)`` name."""
        return {(p.first, p.second): p for p in self.pairings}

    def standings(self) -> list[tuple[str, float, int]]:
        """``(name, points, games)`` of every player, most points first."""
        points = dict.fromkeys(range(len(self.players)), 0.0)
        played = dict.fromkeys(range(len(self.players)), 0)
        for game in self.games:
            for player in (game.white_player, game.black_player):
                points[player] += game.points(player)
                played[player] += 1
        order = sorted(points, key=lambda p: (-points[p], p))
        return [(self.players[p], points[p], played[p]) for p in order]

    def per_opening(self) -> list[OpeningResult]:
        """The results by opening, in opening order."""
        found: dict[int, list[GameRecord]] = {}
        for game in sorted(self.games, key=lambda g: g.index):
            found.setdefault(game.opening_index, []).append(game)
        results = []
        for index, games in sorted(found.items()):
            firsts = [g.points(self.pairings[g.pairing].first_player) for g in games]
            results.append(OpeningResult(
                index, games[0].opening, len(games), sum(POINTS[g.result] for g in games),
                firsts.count(1.0), firsts.count(0.5), firsts.count(0.0),
            ))  # fmt: skip
        return results

    def pgn(self) -> str:
        """Every game as PGN, in game order."""
        return "".join(game.pgn + "\n\n" for game in sorted(self.games, key=lambda g: g.index))

    def __str__(self) -> str:
        line = "-" * 60
        parts = [line]
        for pairing in self.pairings:
            parts.append(_pairing_summary(pairing, self.time_control))
            if self.sprt is not None and self.llr is not None:
                parts.append(_sprt_line(self.sprt, self.llr, self.decision))
            parts.append(line)
        if len(self.pairings) > 1:
            parts.append("Standings:")
            for rank, (name, points, games) in enumerate(self.standings(), 1):
                parts.append(f"{rank:3}. {name:30} {points:6.1f} / {games}")
            parts.append(line)
        if self.cancelled:
            parts.append(f"Stopped early: {len(self.games)} of {self.planned_games} games played.")
        return "\n".join(parts)


def _percent(value: float) -> str:
    return f"{100 * value:.2f} %"


def _interval(estimate: Estimate) -> str:
    margin = estimate.margin
    return f"{estimate.value:.2f} +/- {margin:.2f}" if math.isfinite(margin) else "-"


def _pairing_summary(p: PairingResult, time_control: str) -> str:
    penta = p.pentanomial
    won, lost = penta.wd + penta.ww, penta.ll + penta.ld
    pairs_ratio = f"{won / lost:.2f}" if lost else ("inf" if won else "-")
    return "\n".join([
        f"Results of {p.first} vs {p.second} ({time_control}):",
        f"Elo: {_interval(p.elo)}, nElo: {_interval(p.nelo)}",
        f"LOS: {_percent(p.los)}, DrawRatio: {_percent(p.draw_ratio)}, "
        f"PairsRatio: {pairs_ratio}",
        f"Games: {p.games}, Wins: {p.wins}, Losses: {p.losses}, Draws: {p.draws}, "
        f"Points: {p.points:.1f} ({_percent(p.score)})",
        f"Ptnml(0-2): [{', '.join(str(n) for n in penta.counts())}]",
    ])  # fmt: skip


def _sprt_line(sprt: SPRT, llr: float, decision: str | None) -> str:
    low, high = sprt.bounds
    verdict = {"H0": " - H0 accepted", "H1": " - H1 accepted"}.get(decision or "", "")
    return (f"LLR: {llr:.2f} ({low:.2f}, {high:.2f}) [{sprt.elo0:.2f}, {sprt.elo1:.2f}] "
            f"{sprt.model}{verdict}")  # fmt: skip


class Tally:
    """Counts finished games into pairings as they arrive (any order), and makes
    :class:`MatchResult` snapshots; the SPRT reads the pairs finished in pair order."""

    def __init__(self, players: tuple[str, ...], pairings: list[tuple[int, int]],
                 planned_games: int, time_control: str, sprt: SPRT | None) -> None:  # fmt: skip
        self.players = players
        self.pairings = pairings
        self.planned_games = planned_games
        self.time_control = time_control
        self.sprt = sprt
        self.games: list[GameRecord] = []
        self.wdl = [[0, 0, 0] for _ in pairings]
        self.penta = [[0] * 5 for _ in pairings]
        self.halves: dict[tuple[int, int], float] = {}  # (pairing, round): first's points
        self.pairs: dict[tuple[int, int], float] = {}  # finished pairs: first's pair points
        self.prefix = [0] * len(pairings)  # rounds finished in order, per pairing
        self.prefix_penta = [[0] * 5 for _ in pairings]

    def add(self, game: GameRecord) -> None:
        """Count ``game``."""
        self.games.append(game)
        first = self.pairings[game.pairing][0]
        points = game.points(first)
        self.wdl[game.pairing][{1.0: 0, 0.5: 1, 0.0: 2}[points]] += 1
        key = (game.pairing, game.round)
        if key in self.halves:
            total = self.halves.pop(key) + points
            self.pairs[key] = total
            self.penta[game.pairing][int(total * 2)] += 1
            self._advance(game.pairing)
        else:
            self.halves[key] = points

    def _advance(self, pairing: int) -> None:
        while (pairing, self.prefix[pairing] + 1) in self.pairs:
            self.prefix[pairing] += 1
            self.prefix_penta[pairing][int(self.pairs[pairing, self.prefix[pairing]] * 2)] += 1

    def ordered_pentanomial(self, pairing: int = 0) -> Pentanomial:
        """The pentanomial of the pairs finished in order (rounds 1..n all finished)."""
        return Pentanomial(*self.prefix_penta[pairing])

    def result(self, *, llr: float | None = None, decision: Literal["H0", "H1"] | None = None,
               cancelled: bool = False) -> MatchResult:  # fmt: skip
        """A snapshot of the games counted so far."""
        pairings = tuple(
            PairingResult(self.players[a], self.players[b], a, b, self.wdl[i][0], self.wdl[i][1],
                          self.wdl[i][2], Pentanomial(*self.penta[i]))  # fmt: skip
            for i, (a, b) in enumerate(self.pairings)
        )
        return MatchResult(self.players, tuple(self.games), pairings, self.planned_games,
                           self.time_control, self.sprt, llr, decision, cancelled)  # fmt: skip

    @classmethod
    def of(cls, games: Iterable[GameRecord], *args: object, **kwargs: object) -> Tally:
        """A tally of ``games`` (other arguments as the constructor's)."""
        tally = cls(*args, **kwargs)  # type: ignore[arg-type]
        for game in games:
            tally.add(game)
        return tally
