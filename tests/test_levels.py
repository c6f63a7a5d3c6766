"""Guards the playing levels: ten of them, weakest first; Engine.play(level=N) plays legal moves at
each; weak levels vary their moves but only among near-best ones (never dropping a free queen,
always taking one); full strength is the plain search; a seeded engine repeats its choices; a bad
level is refused with an error quoting it."""

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
    # Each level's measured Elo (what UCI_Elo maps onto) never falls as the level rises (levels
    # that measured alike share a value).
    elos = [level.elo for level in all_levels]
    assert elos == sorted(elos) and elos[0] < elos[-1], elos
    # Every level was measured with an older search or evaluation than the network (say so).
    assert [level.calibration for level in all_levels] == ["stale"] * 10


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
