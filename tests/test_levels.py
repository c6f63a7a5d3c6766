"""Guards the playing levels: ten of them, weakest first, points on one strength curve; Engine.play(
level=N) plays legal moves at each; weak levels vary their moves but only among near-best ones
(never dropping a free queen, always taking one); full strength is the plain search; a seeded
engine repeats its choices; a bad level is refused with an error quoting it. Engine.play(elo=E)
plays a level's own settings at its own Elo and legal moves between, and refuses an Elo out of
range or given together with a level, naming ``elo``."""

from __future__ import annotations

from collections import Counter

import chess
import chess.engine
import pytest
from ferrochess import Engine, InvalidLimitError, levels

Limit = chess.engine.Limit
OPEN_POSITION = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
# White to move takes the undefended queen on d5 with the knight.
FREE_QUEEN = "rnb1kbnr/pppp1ppp/8/3q4/8/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 4"


def test_ten_levels_weakest_first() -> None:
    all_levels = levels()
    assert [level.number for level in all_levels] == list(range(1, 11))
    assert all_levels[0].name == "Beginner" and all_levels[-1].name == "Full strength"
    capped = [level.max_depth for level in all_levels[:-1]]
    assert capped == sorted(capped) and all_levels[-1].max_depth is None
    windows = [level.window for level in all_levels]
    assert windows == sorted(windows, reverse=True)
    nodes = [level.max_nodes for level in all_levels[:-1]]
    assert nodes == sorted(nodes) and all_levels[-1].max_nodes is None
    # Each level's Elo (what elo= and UCI_Elo interpolate between) never falls as the level rises.
    elos = [level.elo for level in all_levels]
    assert elos == sorted(elos) and elos[0] < elos[-1], elos
    # Measured (with these settings and the network) or stale; a measured Elo has its interval.
    for level in all_levels:
        assert level.calibration in ("measured", "stale"), level
        if level.calibration == "measured":
            assert level.elo_low is not None and level.elo_high is not None
            assert level.elo_low <= level.elo <= level.elo_high and level.games > 0


@pytest.mark.parametrize("level", range(1, 11))
def test_every_level_plays_legal_moves(level: int) -> None:
    with Engine(book=None) as engine:
        result = engine.play(OPEN_POSITION, Limit(time=2), level=level)
    assert result.move in chess.Board(OPEN_POSITION).legal_moves
    assert result.info["source"] == "search"  # type: ignore[typeddict-item]


def test_the_beginner_varies_but_takes_a_free_queen() -> None:
    varied: Counter[str] = Counter()
    for seed in range(30):
        with Engine(book=None, seed=seed) as engine:
            move = engine.play(OPEN_POSITION, Limit(depth=8), level=1).move
            assert move is not None
            varied[move.uci()] += 1
            taken = engine.play(FREE_QUEEN, Limit(depth=8), level=1).move
            assert taken == chess.Move.from_uci("c3d5"), seed
    assert len(varied) >= 3, varied


def test_full_strength_is_the_plain_search() -> None:
    with Engine(book=None) as plain, Engine(book=None) as leveled:
        expected = plain.play(OPEN_POSITION, Limit(depth=5)).move
        assert leveled.play(OPEN_POSITION, Limit(depth=5), level=10).move == expected


def test_a_seeded_engine_repeats_its_choices() -> None:
    def moves(seed: int) -> list[chess.Move | None]:
        with Engine(book=None, seed=seed) as engine:
            return [engine.play(OPEN_POSITION, Limit(depth=4), level=2).move for _ in range(8)]

    assert moves(11) == moves(11)


@pytest.mark.parametrize("level", [0, 11, -1])
def test_bad_levels_are_quoted(level: int) -> None:
    with Engine() as engine, pytest.raises(InvalidLimitError, match=f"level {level}"):
        engine.play(chess.Board(), Limit(depth=1), level=level)


def test_a_levels_own_elo_plays_that_level() -> None:
    # A level whose Elo no stronger level shares: elo= gives exactly its settings, so a seeded
    # engine makes the same choices as with level=.
    all_levels = levels()
    unique = [lv for lv in all_levels if [o.elo for o in all_levels].count(lv.elo) == 1]
    # The lowest such level that elo= can ask for (the weakest may be rated below 800).
    level = next(lv for lv in unique if lv.number < 10 and 800 <= lv.elo <= 2800)

    def moves(**strength: int) -> list[chess.Move | None]:
        with Engine(book=None, seed=5) as engine:
            return [engine.play(OPEN_POSITION, Limit(depth=6), **strength).move for _ in range(6)]

    assert moves(elo=level.elo) == moves(level=level.number)


@pytest.mark.parametrize("elo", [800, 1000, 1500, 2000, 2500, 2800])
def test_any_elo_in_range_plays_legal_moves(elo: int) -> None:
    with Engine(book=None, seed=1) as engine:
        result = engine.play(OPEN_POSITION, Limit(time=1), elo=elo)
    assert result.move in chess.Board(OPEN_POSITION).legal_moves


@pytest.mark.parametrize("elo", [799, 2801, -1, 100_000])
def test_an_elo_out_of_range_is_refused_naming_elo(elo: int) -> None:
    with Engine() as engine, pytest.raises(InvalidLimitError, match=f"elo {elo}: must be between"):
        engine.play(chess.Board(), Limit(depth=1), elo=elo)


def test_level_and_elo_together_are_refused() -> None:
    with Engine() as engine, pytest.raises(InvalidLimitError, match="elo 1500.*level 3"):
        engine.play(chess.Board(), Limit(depth=1), level=3, elo=1500)
