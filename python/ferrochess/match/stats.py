"""Match statistics computed as fishtest computes them: Elo with its 95% interval, normalized Elo,
the likelihood of superiority, and the generalized SPRT's log-likelihood ratio.

A match is best played in game pairs (one opening, colours swapped) and counted as a
:class:`Pentanomial`: how many pairs scored 0, 0.5, 1, 1.5 and 2 points for the first player.
The opening's bias cancels inside a pair, so the per-pair variance is what the interval and the
SPRT see. Single games (wins, draws, losses) are supported too, as the trinomial ``wdl_*``
functions and :meth:`SPRT.llr_wdl`.

Every estimate follows official-stockfish/fishtest ``server/fishtest/stats/`` (LLRcalc.py,
stat_util.py), with fastchess's tests as the reference values: empty cells are replaced by
``1e-3`` before anything is computed ("regularised"), scores are clamped to ``[0.001, 0.999]``
before they become Elo, and the LLR is the maximum-likelihood ratio of the two hypotheses on the
observed distribution. Pure Python (``math`` only).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "NELO_PER_T",
    "SPRT",
    "Estimate",
    "Pentanomial",
    "elo",
    "los",
    "normalized_elo",
    "score",
    "wdl_elo",
    "wdl_los",
    "wdl_normalized_elo",
]

NELO_PER_T = 800 / math.log(10)
"""Normalized Elo per unit of t-value, ``(mu - 0.5) / sigma`` (347.4356)."""

_Z95 = 1.959963984540054  # the standard normal quantile of 0.975
_REGULARISATION = 1e-3  # fishtest's (and fastchess's) stand-in for an empty cell
_SCORE_CLAMP = 1e-3  # fishtest clamps a score to [0.001, 0.999] before converting it to Elo


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% interval ``[low, high]``; with no games the value is 0 and the
    interval ``(-inf, inf)``."""

    value: float
    low: float
    high: float

    @property
    def margin(self) -> float:
        """Half the interval's width, what fishtest prints after "+-"."""
        return (self.high - self.low) / 2


@dataclass(frozen=True)
class Pentanomial:
    """Game-pair counts for the first player, in fishtest's order ``[LL, LD, WL+DD, WD, WW]``:
    pairs that scored 0, 0.5, 1, 1.5 and 2 points. Counts are non-negative integers."""

    ll: int
    ld: int
    dd_wl: int
    wd: int
    ww: int

    def __post_init__(self) -> None:
        for name in ("ll", "ld", "dd_wl", "wd", "ww"):
            _check_count(name, getattr(self, name))

    @classmethod
    def from_pairs(cls, pair_points: Iterable[float]) -> Pentanomial:
        """Count pair results, each the first player's points in one pair: 0, 0.5, 1, 1.5 or 2.
        Any other value raises :class:`ValueError` naming ``pair_points``."""
        counts = [0] * 5
        for position, points in enumerate(pair_points):
            doubled = points * 2
            if doubled not in (0, 1, 2, 3, 4):
                raise ValueError(
                    f"pair_points[{position}] = {points!r}: a pair scores 0, 0.5, 1, 1.5 or 2"
                )
            counts[int(doubled)] += 1
        return cls(*counts)

    def counts(self) -> tuple[int, int, int, int, int]:
        """The counts in fishtest's order: ``(LL, LD, WL+DD, WD, WW)``."""
        return (self.ll, self.ld, self.dd_wl, self.wd, self.ww)

    @property
    def pairs(self) -> int:
        """The number of game pairs."""
        return sum(self.counts())

    def __add__(self, other: Pentanomial) -> Pentanomial:
        """The counts of both matches together."""
        if not isinstance(other, Pentanomial):
            return NotImplemented
        return Pentanomial(*(a + b for a, b in zip(self.counts(), other.counts())))


def _check_count(name: str, value: int) -> None:
    try:
        count = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} = {value!r}: a count must be an integer") from None
    if count < 0:
        raise ValueError(f"{name} = {value!r}: a count cannot be negative")


def _wdl_counts(wins: int, draws: int, losses: int) -> tuple[int, int, int]:
    """The trinomial counts in ascending score order (losses, draws, wins), checked."""
    for name, value in (("wins", wins), ("draws", draws), ("losses", losses)):
        _check_count(name, value)
    return (losses, draws, wins)


# --- moments -------------------------------------------------------------------------------------


def _distribution(counts: Sequence[int]) -> tuple[float, list[float], list[float]]:
    """``(N, scores, frequencies)`` after regularisation: scores ``a_i = i / (k - 1)`` on 0..1
    (a pair's points / 2, or a game's points), frequencies ``p_i = n_i / N``."""
    cells = [float(n) if n > 0 else _REGULARISATION for n in counts]
    total = sum(cells)
    last = len(cells) - 1
    return total, [i / last for i in range(len(cells))], [n / total for n in cells]


def _mean_variance(scores: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mu = sum(p * a for a, p in zip(scores, probs))
    return mu, sum(p * (a - mu) ** 2 for a, p in zip(scores, probs))


def _logistic_elo(score: float) -> float:
    """The logistic Elo difference that expects ``score`` (clamped to [0.001, 0.999])."""
    score = min(max(score, _SCORE_CLAMP), 1 - _SCORE_CLAMP)
    return -400 * math.log10(1 / score - 1)


def _score_of_elo(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return 1 / (1 + 10 ** min(-elo / 400, 300))


def _phi(q: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-q / math.sqrt(2))


_NO_GAMES = Estimate(0.0, -math.inf, math.inf)


def _estimates(counts: Sequence[int], games_per_sample: int) -> tuple[Estimate, Estimate, float]:
    """Logistic Elo, normalized Elo and LOS of a pentanomial (``games_per_sample`` 2) or a
    trinomial (1). The interval maps ``mu +- 1.96 * sqrt(var / N)`` through each scale."""
    if sum(counts) == 0:
        return _NO_GAMES, _NO_GAMES, 0.5
    n, scores, probs = _distribution(counts)
    mu, var = _mean_variance(scores, probs)
    error = math.sqrt(var / n)
    low, high = mu - _Z95 * error, mu + _Z95 * error
    sigma = math.sqrt(games_per_sample * var)  # a single game's standard deviation

    def nelo(s: float) -> float:
        return (s - 0.5) / sigma * NELO_PER_T

    logistic = Estimate(_logistic_elo(mu), _logistic_elo(low), _logistic_elo(high))
    return logistic, Estimate(nelo(mu), nelo(low), nelo(high)), _phi((mu - 0.5) / error)


def score(p: Pentanomial) -> float:
    """The first player's mean score per game, 0..1, from the raw counts (0.5 with no pairs)."""
    if p.pairs == 0:
        return 0.5
    return sum(i * n for i, n in enumerate(p.counts())) / (4 * p.pairs)


def elo(p: Pentanomial) -> Estimate:
    """The logistic Elo difference ``-400 * log10(1/mu - 1)`` of the mean score ``mu``, with the
    95% interval of ``mu`` (normal, from the per-pair variance) mapped through the same curve, so
    it is not symmetric about the value. Empty cells are regularised and scores clamped to
    [0.001, 0.999]: all wins give +1199.9 with a finite interval, never infinity."""
    return _estimates(p.counts(), 2)[0]


def normalized_elo(p: Pentanomial) -> Estimate:
    """Normalized Elo: ``(mu - 0.5) / sigma * 800 / ln 10`` with ``sigma`` a game's standard
    deviation (``sqrt(2 * var)`` of a pair's score / 2). It measures the difference in units of
    the match's own noise, so it sets how many games a test needs (games ~ 1 / nElo^2)."""
    return _estimates(p.counts(), 2)[1]


def los(p: Pentanomial) -> float:
    """Likelihood of superiority, 0..1: the normal probability that the first player's true
    score is above 0.5, ``Phi((mu - 0.5) / se)``. 0.5 with no pairs."""
    return _estimates(p.counts(), 2)[2]


def wdl_elo(wins: int, draws: int, losses: int) -> Estimate:
    """:func:`elo` of single games (trinomial), their variance taken game by game."""
    return _estimates(_wdl_counts(wins, draws, losses), 1)[0]


def wdl_normalized_elo(wins: int, draws: int, losses: int) -> Estimate:
    """:func:`normalized_elo` of single games, ``sigma`` the standard deviation of a game."""
    return _estimates(_wdl_counts(wins, draws, losses), 1)[1]


def wdl_los(wins: int, draws: int, losses: int) -> float:
    """:func:`los` of single games."""
    return _estimates(_wdl_counts(wins, draws, losses), 1)[2]


# --- the generalized SPRT ------------------------------------------------------------------------


def _secular(probs: Sequence[float], shifts: Sequence[float]) -> float:
    """The root ``x`` of ``sum p_i d_i / (1 + x d_i)`` on ``(-1/max d, -1/min d)``, where it
    falls strictly (safeguarded Newton). Needs ``min d < 0 < max d``."""
    if not min(shifts) < 0 < max(shifts):
        raise ValueError("elo0 or elo1 is out of reach of the model: no distribution meets it")
    lo, hi = -1 / max(shifts), -1 / min(shifts)
    x = 0.0
    for _ in range(200):
        value = slope = 0.0
        for p, d in zip(probs, shifts):
            q = d / (1 + x * d)
            value += p * q
            slope -= p * q * q
        if value == 0:
            return x
        if value > 0:
            lo = x
        else:
            hi = x
        step = x - value / slope
        if not lo < step < hi:
            step = (lo + hi) / 2
        if abs(step - x) <= 1e-15 * max(1.0, abs(x)):
            return step
        x = step
    return x


def _mle_mean(scores: list[float], probs: list[float], s: float) -> list[float]:
    """The distribution on ``scores`` with mean ``s`` most likely to give ``probs``:
    ``p_i / (1 + x (a_i - s))`` (van den Bergh, "support_MLE_multinomial", Proposition 1.1)."""
    shifts = [a - s for a in scores]
    x = _secular(probs, shifts)
    return [p / (1 + x * d) for p, d in zip(probs, shifts)]


def _mle_t_value(scores: list[float], probs: list[float], t: float) -> list[float]:
    """The distribution with ``(mu - 0.5) / sigma = t`` most likely to give ``probs``, by
    iterating a shifted secular equation from the uniform distribution (van den Bergh,
    "normalized_elo_practical", section 4.1)."""
    mle = [1 / len(scores)] * len(scores)
    for _ in range(100):
        mu, var = _mean_variance(scores, mle)
        sigma = math.sqrt(var)
        shifts = [a - 0.5 - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2 for a in scores]
        x = _secular(probs, shifts)
        previous, mle = mle, [p / (1 + x * d) for p, d in zip(probs, shifts)]
        if max(abs(a - b) for a, b in zip(previous, mle)) < 1e-12:
            break
    return mle


NORMALIZED_BOUND_LIMIT = 230.0
"""The widest normalized-Elo bound an SPRT accepts. The normalized LLR's maximum-likelihood
search starts from the uniform distribution of pair scores, which reaches a t-value of at most
2 d s / (s^2 + d^2) = 0.943 (s its standard deviation, d = 1/4 or 1/2 the distance of a score
from 1/2), 231.6 nElo on pairs: a bound beyond it has no solution."""


@dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test of H0 (Elo = ``elo0``) against H1 (Elo = ``elo1``),
    with error rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (the reverse).

    ``model`` "normalized" (fishtest's default) reads the bounds as normalized Elo, "logistic" as
    logistic Elo. The LLR is fishtest's generalized one: for each hypothesis the distribution of
    results most likely to give the observed counts under that hypothesis's constraint, then
    ``N * sum p_i * ln(p1_i / p0_i)``. fishtest's dynamic overshoot correction is left out (as
    fastchess does). Bad arguments raise :class:`ValueError` naming them.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Literal["normalized", "logistic"] = "normalized"

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{name} = {value!r}: must be a finite number")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"{name} = {getattr(self, name)!r}: must lie in (0, 1)")
        if self.alpha + self.beta >= 1:
            raise ValueError(f"alpha + beta = {self.alpha + self.beta!r}: must be below 1")
        if self.elo0 >= self.elo1:
            raise ValueError(f"elo0 = {self.elo0!r} must be below elo1 = {self.elo1!r}")
        if self.model not in ("normalized", "logistic"):
            raise ValueError(f"model = {self.model!r}: must be 'normalized' or 'logistic'")
        if self.model == "normalized":
            for name in ("elo0", "elo1"):
                if abs(getattr(self, name)) > NORMALIZED_BOUND_LIMIT:
                    raise ValueError(
                        f"{name} = {getattr(self, name)!r}: the normalized model tests bounds "
                        f"within +-{NORMALIZED_BOUND_LIMIT:.0f} nElo (fishtest's are a few nElo "
                        "wide); use smaller bounds or model='logistic'"
                    )

    @property
    def bounds(self) -> tuple[float, float]:
        """``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``: the LLR accepts H0 at or below
        the first, H1 at or above the second (+-2.944 for alpha = beta = 0.05)."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, p: Pentanomial) -> float:
        """The log-likelihood ratio of H1 against H0 on game pairs; 0 with no pairs."""
        return self._llr(p.counts(), 2)

    def llr_wdl(self, wins: int, draws: int, losses: int) -> float:
        """The log-likelihood ratio on single games (trinomial); 0 with no games."""
        return self._llr(_wdl_counts(wins, draws, losses), 1)

    def decision(self, llr: float) -> Literal["H0", "H1"] | None:
        """The decision at ``llr``: "H1" at or above the upper bound, "H0" at or below the lower
        one, None in between (play on)."""
        if math.isnan(llr):
            raise ValueError("llr = nan: not a log-likelihood ratio")
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None

    def _llr(self, counts: Sequence[int], games_per_sample: int) -> float:
        if sum(counts) == 0:
            return 0.0
        n, scores, probs = _distribution(counts)
        if self.model == "logistic":
            p0 = _mle_mean(scores, probs, _score_of_elo(self.elo0))
            p1 = _mle_mean(scores, probs, _score_of_elo(self.elo1))
        else:
            # A sample's t-value is sqrt(games_per_sample) times a game's (sigma of a pair's
            # mean score is sigma_game / sqrt(2)).
            scale = math.sqrt(games_per_sample) / NELO_PER_T
            p0 = _mle_t_value(scores, probs, self.elo0 * scale)
            p1 = _mle_t_value(scores, probs, self.elo1 * scale)
        return n * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1))
