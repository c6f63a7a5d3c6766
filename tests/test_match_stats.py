"""Guards the match statistics (`ferrochess.match.stats`) against the reference: every test vector
of fastchess's own tests (app/tests/elo_test.cpp, sprt_test.cpp; research note testing.md section
4), for Elo, normalized Elo and their intervals, LOS, and the SPRT's LLR in both models on game
pairs and single games, with regularised empty cells; the LLR against the closed-form
approximations fishtest documents; pair counting; the SPRT's bounds and decisions; empty and
invalid input; and, by a seeded simulation, that an SPRT(0, 10) run pair by pair on a change
worth 0 Elo accepts H1 no more often than alpha allows."""

from __future__ import annotations

import math
import random

import pytest
from ferrochess.match.stats import (
    NELO_PER_T,
    SPRT,
    Estimate,
    Pentanomial,
    elo,
    los,
    normalized_elo,
    score,
    wdl_elo,
    wdl_los,
    wdl_normalized_elo,
)

# (counts [LL, LD, WL+DD, WD, WW], score, Elo, margin, nElo, margin, LOS): fastchess's
# EloPentanomial tests (its Stats(LL, LD, WL, DD, WD, WW) with WL and DD merged); LOS as printed.
PENTANOMIAL_ELO = [
    ((34, 54, 63, 64, 75), 0.579, 55.58, 27.65, 57.94, 28.28, 1.0000),
    ((332, 433, 498, 333, 334), 0.488, -8.64, 10.33, -9.17, 10.96, 0.0505),
    ((7895, 8757, 5685, 568, 9999), 0.470, -21.04, 2.95, -19.01, 2.65, 0.0000),
]


@pytest.mark.parametrize(("counts", "mean", "value", "margin", "nvalue", "nmargin", "superior"),
                         PENTANOMIAL_ELO)  # fmt: skip
def test_pentanomial_elo_matches_fastchess(
    counts: tuple[int, int, int, int, int],
    mean: float,
    value: float,
    margin: float,
    nvalue: float,
    nmargin: float,
    superior: float,
) -> None:
    p = Pentanomial(*counts)
    assert score(p) == pytest.approx(mean, abs=5e-4)
    assert elo(p).value == pytest.approx(value, abs=0.01)
    assert elo(p).margin == pytest.approx(margin, abs=0.01)
    assert normalized_elo(p).value == pytest.approx(nvalue, abs=0.01)
    assert normalized_elo(p).margin == pytest.approx(nmargin, abs=0.01)
    assert los(p) == pytest.approx(superior, abs=5e-5)
    # The interval brackets the value; nElo's is symmetric (a linear map of the score's).
    assert elo(p).low < elo(p).value < elo(p).high
    n = normalized_elo(p)
    assert n.value - n.low == pytest.approx(n.high - n.value)


# (wins, draws, losses, Elo, margin or None, nElo, margin, LOS or None): fastchess's EloWDL tests.
TRINOMIAL_ELO = [
    (136, 111, 96, 40.70, 30.43, 49.77, 36.77, 0.9960),
    (76, 123, 89, None, None, -20.76, 40.13, 0.1553),
    (34, 0, 356, None, None, -508.44, 34.48, None),
]


@pytest.mark.parametrize(
    ("wins", "draws", "losses", "value", "margin", "nvalue", "nmargin", "superior"), TRINOMIAL_ELO
)
def test_trinomial_elo_matches_fastchess(
    wins: int,
    draws: int,
    losses: int,
    value: float | None,
    margin: float | None,
    nvalue: float,
    nmargin: float,
    superior: float | None,
) -> None:
    if value is not None:
        assert wdl_elo(wins, draws, losses).value == pytest.approx(value, abs=0.01)
        assert wdl_elo(wins, draws, losses).margin == pytest.approx(margin, abs=0.01)
    assert wdl_normalized_elo(wins, draws, losses).value == pytest.approx(nvalue, abs=0.01)
    assert wdl_normalized_elo(wins, draws, losses).margin == pytest.approx(nmargin, abs=0.01)
    if superior is not None:
        assert wdl_los(wins, draws, losses) == pytest.approx(superior, abs=5e-5)


def test_trinomial_score_four_matches_the_note() -> None:
    # testing.md row 4: score 0.558 for W 136, L 96, D 111 (the Elo's centre maps back to it).
    centre = wdl_elo(136, 111, 96).value
    assert 1 / (1 + 10 ** (-centre / 400)) == pytest.approx(0.558, abs=5e-4)


# (counts, model, elo0, elo1, LLR, absolute tolerance): fastchess's SPRT tests.
PENTANOMIAL_LLR = [
    ((365, 16618, 36229, 16974, 390), "normalized", 0, 2, 2.25, 0.01),
    ((127, 4883, 10712, 5150, 104), "normalized", -1.75, 0.25, 3.01, 0.01),
    ((223, 9863, 21279, 10037, 246), "logistic", 0.5, 2.5, -3.07, 0.01),
    ((871, 26175, 55983, 26678, 821), "logistic", 0, 2, -4.98, 0.01),
    # Four empty cells, regularised to 1e-3. fastchess finds its root to 1e-7 on a bracket whose
    # root lies 7e-7 from its end, so its 111.82 is good to its own 1% tolerance; fishtest's
    # algorithm (Brent to 2e-12, as here) gives 111.798.
    ((0, 0, 0, 0, 5550), "normalized", 0, 5, 111.82, 0.01 * 111.82),
]


@pytest.mark.parametrize(("counts", "model", "elo0", "elo1", "expected", "tolerance"),
                         PENTANOMIAL_LLR)  # fmt: skip
def test_pentanomial_llr_matches_fastchess(
    counts: tuple[int, int, int, int, int],
    model: str,
    elo0: float,
    elo1: float,
    expected: float,
    tolerance: float,
) -> None:
    sprt = SPRT(elo0, elo1, model=model)  # type: ignore[arg-type]
    assert sprt.llr(Pentanomial(*counts)) == pytest.approx(expected, abs=tolerance)


# (wins, draws, losses, model, elo0, elo1, LLR, absolute tolerance).
TRINOMIAL_LLR = [
    (36433, 68692, 36027, "normalized", 0, 2, 0.92, 0.01),
    (10871, 20431, 10650, "normalized", -1.75, 0.25, 2.30, 0.01),
    (21404, 40708, 21184, "logistic", 0.5, 2.5, -1.57, 0.01),
    (57433, 106593, 57030, "logistic", 0, 2, -2.59, 0.01),
    # Draws and losses regularised; fastchess's 120.56 to its 1% (fishtest's algorithm: 120.548).
    (4250, 0, 0, "normalized", 0, 10, 120.56, 0.01 * 120.56),
]


@pytest.mark.parametrize(("wins", "draws", "losses", "model", "elo0", "elo1", "expected",
                          "tolerance"), TRINOMIAL_LLR)  # fmt: skip
def test_trinomial_llr_matches_fastchess(
    wins: int,
    draws: int,
    losses: int,
    model: str,
    elo0: float,
    elo1: float,
    expected: float,
    tolerance: float,
) -> None:
    sprt = SPRT(elo0, elo1, model=model)  # type: ignore[arg-type]
    assert sprt.llr_wdl(wins, draws, losses) == pytest.approx(expected, abs=tolerance)


def test_llr_agrees_with_fishtests_closed_forms() -> None:
    # LLR_normalized_alt: (games / 2) * ln((1 + (nt - nt0)^2) / (1 + (nt - nt1)^2)); fishtest's
    # LLR_alt2 for the logistic model: N * (s1 - s0) * (2 mu - s0 - s1) / (2 var).
    counts = (365, 16618, 36229, 16974, 390)
    pairs = sum(counts)
    mu = sum(i / 4 * n for i, n in enumerate(counts)) / pairs
    var = sum(n * (i / 4 - mu) ** 2 for i, n in enumerate(counts)) / pairs
    nt = (mu - 0.5) / math.sqrt(2 * var)
    nt0, nt1 = 0 / NELO_PER_T, 2 / NELO_PER_T
    approx = pairs * math.log((1 + (nt - nt0) ** 2) / (1 + (nt - nt1) ** 2))
    assert approx == pytest.approx(2.2504, abs=1e-4)
    assert SPRT(0, 2).llr(Pentanomial(*counts)) == pytest.approx(approx, abs=0.005)

    counts = (871, 26175, 55983, 26678, 821)
    pairs = sum(counts)
    mu = sum(i / 4 * n for i, n in enumerate(counts)) / pairs
    var = sum(n * (i / 4 - mu) ** 2 for i, n in enumerate(counts)) / pairs
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (0.0, 2.0))
    alt2 = pairs * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert SPRT(0, 2, model="logistic").llr(Pentanomial(*counts)) == pytest.approx(alt2, abs=0.01)


def test_from_pairs_counts_each_pair_score() -> None:
    p = Pentanomial.from_pairs([0, 0.5, 1, 1, 1.5, 2, 2, 2, 1.0, 0.5])
    assert p.counts() == (1, 2, 3, 1, 3)
    assert p == Pentanomial(ll=1, ld=2, dd_wl=3, wd=1, ww=3)
    assert p.pairs == 10
    assert Pentanomial.from_pairs([]).pairs == 0
    assert (p + p).counts() == (2, 4, 6, 2, 6)
    assert score(Pentanomial.from_pairs([2, 1])) == 0.75


@pytest.mark.parametrize("bad", [0.25, 2.5, -0.5, math.nan, "1"])
def test_from_pairs_refuses_an_impossible_pair_score(bad: object) -> None:
    with pytest.raises(ValueError, match=r"pair_points\[1\]"):
        Pentanomial.from_pairs([1, bad])  # type: ignore[list-item]


def test_bounds_and_decisions() -> None:
    sprt = SPRT(0, 2)
    lower, upper = sprt.bounds
    assert lower == pytest.approx(-2.944, abs=5e-4)
    assert upper == pytest.approx(2.944, abs=5e-4)
    assert sprt.decision(2.95) == "H1"
    assert sprt.decision(upper) == "H1"
    assert sprt.decision(-2.95) == "H0"
    assert sprt.decision(0.0) is None
    assert SPRT(0, 2, alpha=0.1, beta=0.2).bounds == pytest.approx(
        (math.log(0.2 / 0.9), math.log(0.8 / 0.1))
    )
    # The counts of rows 6 and 8 decide; a strong result with regularised zeros decides H1.
    assert SPRT(-1.75, 0.25).decision(
        SPRT(-1.75, 0.25).llr(Pentanomial(127, 4883, 10712, 5150, 104))
    ) == "H1"  # fmt: skip
    logistic = SPRT(0, 2, model="logistic")
    assert logistic.decision(logistic.llr(Pentanomial(871, 26175, 55983, 26678, 821))) == "H0"
    assert SPRT(0, 5).decision(SPRT(0, 5).llr(Pentanomial(0, 0, 0, 0, 200))) == "H1"


def test_no_games_gives_no_information() -> None:
    empty = Pentanomial(0, 0, 0, 0, 0)
    for estimate in (elo(empty), normalized_elo(empty), wdl_elo(0, 0, 0)):
        assert estimate == Estimate(0.0, -math.inf, math.inf)
        assert estimate.margin == math.inf
    assert los(empty) == 0.5
    assert wdl_los(0, 0, 0) == 0.5
    assert score(empty) == 0.5
    assert SPRT(0, 2).llr(empty) == 0.0
    assert SPRT(0, 2, model="logistic").llr_wdl(0, 0, 0) == 0.0


def test_one_sided_results_are_regularised_not_infinite() -> None:
    all_wins = Pentanomial(0, 0, 0, 0, 50)
    e = elo(all_wins)
    # The score is clamped to 0.999 before it becomes Elo: 400 * log10(999) = 1199.9.
    assert e.value == pytest.approx(400 * math.log10(999))
    assert all(math.isfinite(x) for x in (e.low, e.high, normalized_elo(all_wins).value))
    assert los(all_wins) == pytest.approx(1.0)
    assert wdl_elo(0, 0, 20).value == pytest.approx(-400 * math.log10(999))
    for model in ("normalized", "logistic"):
        llr = SPRT(0, 5, model=model).llr(all_wins)
        assert math.isfinite(llr) and llr > 0
        assert SPRT(0, 5, model=model).llr_wdl(0, 37, 0) < 0


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"elo0": 2, "elo1": 2}, "elo0"),
        ({"elo0": 3, "elo1": 2}, "elo0"),
        ({"elo0": 0, "elo1": 2, "alpha": 0}, "alpha"),
        ({"elo0": 0, "elo1": 2, "alpha": 1.5}, "alpha"),
        ({"elo0": 0, "elo1": 2, "beta": 1}, "beta"),
        ({"elo0": 0, "elo1": 2, "alpha": 0.6, "beta": 0.5}, "alpha \\+ beta"),
        ({"elo0": 0, "elo1": math.inf}, "elo1"),
        ({"elo0": 0, "elo1": 2, "model": "bayesian"}, "model"),
    ],
)
def test_invalid_sprt_arguments_raise(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        SPRT(**kwargs)  # type: ignore[arg-type]


def test_invalid_counts_raise() -> None:
    with pytest.raises(ValueError, match="dd_wl"):
        Pentanomial(1, 2, -1, 0, 0)
    with pytest.raises(ValueError, match="ww"):
        Pentanomial(1, 2, 3, 4, 1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="losses"):
        wdl_elo(1, 2, -3)
    with pytest.raises(ValueError, match="draws"):
        SPRT(0, 2).llr_wdl(1, -2, 3)
    with pytest.raises(ValueError, match="llr"):
        SPRT(0, 2).decision(math.nan)


def test_sprt_at_elo0_accepts_h1_at_most_alpha_of_the_time() -> None:
    # A balanced book's pair distribution, symmetric, so the true Elo (and nElo) is exactly 0 =
    # elo0. Each run draws pairs one by one and updates the SPRT after every batch of 16 (as
    # fishtest's workers report in batches; the LLR costs ~0.1 ms, and a run averages ~3200
    # pairs). Checking less often can only lower the false-H1 rate a little; a wrong LLR scale
    # or sign raises it far above the allowance (halved bounds alone give ~20%).
    weights = [0.05, 0.25, 0.40, 0.25, 0.05]
    sprt = SPRT(0, 10)
    runs, batch, cap = 200, 16, 20_000
    outcomes: list[str | None] = []
    for seed in range(runs):
        rng = random.Random(seed)
        counts = [0] * 5
        decision = None
        for _ in range(cap // batch):
            for cell in rng.choices(range(5), weights, k=batch):
                counts[cell] += 1
            decision = sprt.decision(sprt.llr(Pentanomial(*counts)))
            if decision is not None:
                break
        outcomes.append(decision)
    accepted_h1 = outcomes.count("H1") / runs
    allowance = 3 * math.sqrt(sprt.alpha * (1 - sprt.alpha) / runs)  # three binomial sd
    assert accepted_h1 <= sprt.alpha + allowance, outcomes
    # Nearly every run ends, and in H0: an SPRT that never decided would pass the line above.
    assert outcomes.count("H0") / runs >= 1 - sprt.alpha - allowance


def test_normalized_bounds_beyond_the_models_reach_are_refused() -> None:
    # 231.6 nElo on pairs is the most the normalized LLR can reach from its uniform start.
    with pytest.raises(ValueError, match="elo1 = 300"):
        SPRT(0, 300)
    assert SPRT(0, 300, model="logistic").llr(Pentanomial(0, 1, 2, 3, 4)) > 0
    assert SPRT(-220, 220).llr(Pentanomial(0, 0, 0, 0, 5)) != 0
