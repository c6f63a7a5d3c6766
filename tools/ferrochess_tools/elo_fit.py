"""Elo ratings from a set of games, by maximum likelihood, with some players' ratings fixed.

The model is the logistic (Elo) one: a player rated R_a scores against one rated R_b, per game,

    p(a, b) = 1 / (1 + 10 ** ((R_b - R_a) / 400))

in expectation; a draw counts as half a point (the likelihood of a game with score s is
p ** s * (1 - p) ** (1 - s), so every game of a pairing enters through the points it gave). The
anchors' ratings are held at the values given; every other rating maximises the likelihood of all
the games together, found by Newton's method (the log-likelihood is concave in the ratings, so the
maximum is unique once every free player is connected to an anchor by games).

Each rating's 95% interval is the Wald interval, R +- 1.96 standard errors, the standard errors
being the square roots of the diagonal of the inverse observed Fisher information (minus the
Hessian of the log-likelihood at its maximum), which accounts for every game of every player at
once. Treating draws as half a win and half a loss slightly overstates a game's variance when
draws are frequent, so these intervals err on the wide side.

A player who won or lost every game against everyone has no finite maximum-likelihood rating; to
keep every rating finite, each pairing gets `virtual_draws` extra drawn games (1 by default, i.e.
half a point each way). With tens of games per pairing this moves a rating by a few Elo.

Pure Python (no numpy): the systems are as small as the number of players.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

LN10_OVER_400 = math.log(10) / 400
Z_95 = 1.959964


@dataclass(frozen=True)
class Game:
    """One game: `white`'s points are `score` (1, 0.5 or 0); `black` gets the rest."""

    white: str
    black: str
    score: float


@dataclass(frozen=True)
class Rating:
    """A player's fitted rating, its 95% interval, and the games behind it."""

    elo: float
    low: float
    high: float
    games: int
    points: float
    anchored: bool

    @property
    def stderr(self) -> float:
        return (self.high - self.elo) / Z_95


def expected(elo_a: float, elo_b: float) -> float:
    """The score a player rated `elo_a` expects per game against one rated `elo_b`."""
    return 1 / (1 + 10 ** ((elo_b - elo_a) / 400))


def fit(
    games: Iterable[Game],
    anchors: Mapping[str, float],
    virtual_draws: float = 1.0,
    tolerance: float = 1e-6,
    max_iterations: int = 200,
) -> dict[str, Rating]:
    """The maximum-likelihood rating of every player in `games`, `anchors` held fixed.

    Raises ValueError when there is no anchor, or when a free player has no chain of games to
    an anchor (its rating would be undetermined), naming those players.
    """
    if not anchors:
        raise ValueError("no anchor: at least one player's rating must be fixed")
    # Per unordered pairing: games played and the first player's points.
    played: dict[tuple[str, str], float] = defaultdict(float)
    points: dict[tuple[str, str], float] = defaultdict(float)
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for game in games:
        a, b = sorted((game.white, game.black))
        first_points = game.score if a == game.white else 1 - game.score
        played[a, b] += 1
        points[a, b] += first_points
        totals[a][0] += 1
        totals[a][1] += first_points
        totals[b][0] += 1
        totals[b][1] += 1 - first_points
    for pair in played:
        played[pair] += virtual_draws
        points[pair] += virtual_draws / 2
    players = sorted(set(totals) | set(anchors))
    free = [p for p in players if p not in anchors]
    _check_connected(free, anchors, played)
    start = sum(anchors.values()) / len(anchors)
    ratings = {p: anchors.get(p, start) for p in players}
    index = {p: i for i, p in enumerate(free)}

    def log_likelihood(r: Mapping[str, float]) -> float:
        total = 0.0
        for (a, b), n in played.items():
            p = min(max(expected(r[a], r[b]), 1e-300), 1 - 1e-16)
            s = points[a, b]
            total += s * math.log(p) + (n - s) * math.log(1 - p)
        return total

    def derivatives(r: Mapping[str, float]) -> tuple[list[float], list[list[float]]]:
        gradient = [0.0] * len(free)
        hessian = [[0.0] * len(free) for _ in free]
        for (a, b), n in played.items():
            p = expected(r[a], r[b])
            g = LN10_OVER_400 * (points[a, b] - n * p)
            h = LN10_OVER_400**2 * n * p * (1 - p)
            ia, ib = index.get(a), index.get(b)
            if ia is not None:
                gradient[ia] += g
                hessian[ia][ia] -= h
            if ib is not None:
                gradient[ib] -= g
                hessian[ib][ib] -= h
            if ia is not None and ib is not None:
                hessian[ia][ib] += h
                hessian[ib][ia] += h
        return gradient, hessian

    current = log_likelihood(ratings)
    for _ in range(max_iterations):
        gradient, hessian = derivatives(ratings)
        # Newton step: solve (-H) step = g.
        step = _solve([[-h for h in row] for row in hessian], gradient)
        scale = 1.0
        while True:
            trial = dict(ratings)
            for player, i in index.items():
                trial[player] += scale * step[i]
            value = log_likelihood(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        ratings, current = trial, value
        if max((abs(scale * s) for s in step), default=0.0) < tolerance:
            break
    _, hessian = derivatives(ratings)
    covariance = _inverse([[-h for h in row] for row in hessian]) if free else []
    result: dict[str, Rating] = {}
    for player in players:
        n, score = totals.get(player, [0, 0.0])
        if player in anchors:
            elo = anchors[player]
            result[player] = Rating(elo, elo, elo, int(n), score, True)
        else:
            i = index[player]
            margin = Z_95 * math.sqrt(max(covariance[i][i], 0.0))
            elo = ratings[player]
            result[player] = Rating(elo, elo - margin, elo + margin, int(n), score, False)
    return result


def linked(games: Iterable[Game], anchors: Mapping[str, float]) -> set[str]:
    """The players a chain of games links to an anchor (the anchors included)."""
    return _reached(((game.white, game.black) for game in games), anchors)


def _reached(pairs: Iterable[tuple[str, str]], anchors: Mapping[str, float]) -> set[str]:
    neighbours: dict[str, set[str]] = defaultdict(set)
    for a, b in pairs:
        neighbours[a].add(b)
        neighbours[b].add(a)
    reached = set(anchors)
    frontier = list(anchors)
    while frontier:
        player = frontier.pop()
        for other in neighbours[player] - reached:
            reached.add(other)
            frontier.append(other)
    return reached


def _check_connected(
    free: list[str], anchors: Mapping[str, float], played: Mapping[tuple[str, str], float]
) -> None:
    reached = _reached(played, anchors)
    lost = [p for p in free if p not in reached]
    if lost:
        raise ValueError(f"no games link {', '.join(lost)} to an anchor: rating undetermined")


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix x = vector (Gaussian elimination with partial pivoting)."""
    n = len(vector)
    rows = [list(row) + [value] for row, value in zip(matrix, vector)]
    for column in range(n):
        pivot = max(range(column, n), key=lambda r: abs(rows[r][column]))
        if abs(rows[pivot][column]) < 1e-300:
            raise ValueError("singular system: some rating is undetermined")
        rows[column], rows[pivot] = rows[pivot], rows[column]
        for r in range(n):
            if r != column:
                factor = rows[r][column] / rows[column][column]
                if factor:
                    for c in range(column, n + 1):
                        rows[r][c] -= factor * rows[column][c]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [_solve(matrix, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[columns[c][r] for c in range(n)] for r in range(n)]
