"""Guards the levels' calibration (issue 20): the Elo fit of `ferrochess_tools.elo_fit` recovers
known ratings from synthetic games, keeps the anchors fixed and narrows its intervals as games are
added; the generated table `src/level/table.rs` is exactly what `ferrochess_tools.level_table`
writes (a hand edit fails), the built module reads that table, and the levels sections of
docs/levels.md and BENCHMARKS.md are what the table renders (so they cannot be edited by hand
either: after `make calibrate`, or when the settings or the network change, `python -m
ferrochess_tools.calibrate --render-only` rewrites them); the schedule of
`ferrochess_tools.calibrate` gives every level and every requested Elo at least 60 games and rates
the levels below Stockfish's range through the chain; and its games, played by `ferrochess.match`
a pair at a time, are written one JSON line each and resumed without playing a kept game again."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Callable

import ferrochess
import pytest
from ferrochess_tools import calibrate, elo_fit, level_table


def synthetic_games(truth: dict[str, float], pairs: list[tuple[str, str]], per_pair: int,
                    seed: int, draw_rate: float = 0.3) -> list[elo_fit.Game]:  # fmt: skip
    """Games drawn from the Elo model: per pair, `per_pair` games with colours alternating; a
    draw with probability `draw_rate` scaled down as the gap widens, so the expected score is
    the model's."""
    rng = random.Random(seed)
    games = []
    for a, b in pairs:
        for index in range(per_pair):
            white, black = (a, b) if index % 2 == 0 else (b, a)
            p = elo_fit.expected(truth[white], truth[black])
            draw = min(draw_rate, 2 * min(p, 1 - p))
            roll = rng.random()
            if roll < draw:
                score = 0.5
            elif roll < draw + (p - draw / 2):
                score = 1.0
            else:
                score = 0.0
            games.append(elo_fit.Game(white, black, score))
    return games


TRUTH = {"sf:1400": 1400.0, "sf:1800": 1800.0, "a": 1250.0, "b": 1520.0, "c": 1700.0,
         "low": 900.0}  # fmt: skip
PAIRS = [("a", "sf:1400"), ("b", "sf:1400"), ("b", "sf:1800"), ("c", "sf:1800"),
         ("a", "b"), ("b", "c"), ("low", "a")]  # fmt: skip
ANCHORS = {"sf:1400": 1400.0, "sf:1800": 1800.0}


def test_the_fit_recovers_known_ratings_with_anchors_fixed() -> None:
    games = synthetic_games(TRUTH, PAIRS, per_pair=2000, seed=1)
    ratings = elo_fit.fit(games, ANCHORS, virtual_draws=0)
    for player, rating in ratings.items():
        if player in ANCHORS:
            assert (rating.elo, rating.low, rating.high) == (ANCHORS[player],) * 3
            assert rating.anchored
        else:
            # The truth lies in the 95% interval, which is narrow with 2000 games a pairing.
            assert rating.low <= TRUTH[player] <= rating.high, (player, rating)
            assert rating.high - rating.low < 60, (player, rating)
    # "low" played only "a", yet it is rated through the chain.
    assert ratings["low"].games == 2000 and not ratings["low"].anchored


def test_intervals_narrow_with_more_games() -> None:
    widths = []
    for per_pair in (20, 80, 320):
        ratings = elo_fit.fit(synthetic_games(TRUTH, PAIRS, per_pair, seed=2), ANCHORS)
        widths.append(ratings["b"].high - ratings["b"].low)
    assert widths[0] > widths[1] > widths[2], widths
    # Four times the games, about half the width.
    assert 1.6 < widths[1] / widths[2] < 2.5, widths


def test_draws_count_half_and_a_clean_sweep_stays_finite() -> None:
    even = [elo_fit.Game("x", "sf:1500", 0.5)] * 10
    assert elo_fit.fit(even, {"sf:1500": 1500})["x"].elo == pytest.approx(1500, abs=1e-3)
    half = [elo_fit.Game("x", "sf:1500", 1.0), elo_fit.Game("sf:1500", "x", 1.0)] * 10
    assert elo_fit.fit(half, {"sf:1500": 1500})["x"].elo == pytest.approx(1500, abs=1e-3)
    # 3 points of 4 is 191 Elo above the opponent (1 / (1 + 10 ** (-191 / 400)) = 0.75).
    three = [elo_fit.Game("x", "sf:1500", s) for s in (1, 1, 0.5, 0.5)]
    assert elo_fit.fit(three, {"sf:1500": 1500}, virtual_draws=0)["x"].elo == pytest.approx(
        1500 + 400 * __import__("math").log10(3), abs=0.01
    )
    sweep = [elo_fit.Game("x", "sf:1500", 1.0)] * 20
    rating = elo_fit.fit(sweep, {"sf:1500": 1500})["x"]
    assert 1500 + 400 < rating.elo < 1500 + 1000 and rating.low < rating.elo < rating.high


def test_unlinked_players_and_no_anchor_are_refused() -> None:
    games = [elo_fit.Game("x", "sf:1500", 1.0), elo_fit.Game("y", "z", 0.5)]
    with pytest.raises(ValueError, match="y, z"):
        elo_fit.fit(games, {"sf:1500": 1500})
    assert elo_fit.linked(games, {"sf:1500": 1500}) == {"x", "sf:1500"}
    with pytest.raises(ValueError, match="no anchor"):
        elo_fit.fit(games, {})


# --- the table and the docs ------------------------------------------------------------------


@pytest.fixture(scope="module")
def table() -> level_table.Table:
    return level_table.parse_table_rs(level_table.TABLE.read_text(encoding="utf-8"))


def levels_now() -> list[level_table.LevelNow]:
    """The levels as the built module plays them, in the shape the binary's `levels` gives."""
    return [
        level_table.LevelNow(level.number, level.name, level.elo, level.calibration, 0,
                             level.max_depth, level.max_nodes, level.candidates, level.window,
                             level.temperature)  # fmt: skip
        for level in ferrochess.levels()
    ]


def test_the_table_is_generated_and_a_hand_edit_is_refused(table: level_table.Table) -> None:
    text = level_table.TABLE.read_text(encoding="utf-8")
    assert text.startswith("//! @generated by benches/calibrate.py")
    assert level_table.render_table_rs(table) == text
    edited = text.replace(f"elo: {table.rows[4].elo},", f"elo: {table.rows[4].elo + 1},", 1)
    assert level_table.parse_table_rs(edited).rows[4].elo == table.rows[4].elo + 1  # well formed
    with pytest.raises(ValueError, match="edited by hand"):
        level_table.parse_table_rs(edited.replace("pub const", "// a note\npub const", 1))
    assert [row.number for row in table.rows] == list(range(1, 11))


def test_the_built_module_reads_the_table(table: level_table.Table) -> None:
    for level, row in zip(ferrochess.levels(), table.rows):
        built = (level.number, level.name, level.elo, level.elo_low, level.elo_high, level.games)
        written = (row.number, row.name, row.elo, row.low, row.high, row.games)
        assert built == written, "rebuild the module (make dev) after the table changed"
        assert level.calibration in ("measured", "stale")
        if level.calibration == "measured":
            assert row.fingerprint != 0 and level.elo_low is not None


@pytest.mark.parametrize(
    ("path", "markers", "render"),
    [
        (level_table.LEVELS_DOC, level_table.LEVELS_MARKERS, level_table.render_levels),
        (level_table.BENCHMARKS, level_table.BENCHMARKS_MARKERS, level_table.render_benchmarks),
    ],
    ids=["levels", "BENCHMARKS"],
)
def test_the_docs_show_what_the_table_renders(
    table: level_table.Table, path: Path, markers: tuple[str, str], render: Callable[..., str]
) -> None:
    levels = levels_now()
    expected = render(table, [level.calibration for level in levels], levels)
    written = level_table.section(path.read_text(encoding="utf-8"), markers)
    assert written == expected, (
        f"{path.name}'s levels section is not what src/level/table.rs renders: run "
        "python -m ferrochess_tools.calibrate --render-only (never edit it by hand)"
    )


def test_the_binary_lists_the_levels_the_module_plays(repo_root: Path) -> None:
    binary = repo_root / "target" / "release" / "ferrochess-uci"
    if not binary.exists():
        pytest.skip(f"{binary} not built")
    network, bench, levels = level_table.engine_facts(str(binary), bench=False)
    assert network and bench is None
    module = ferrochess.levels()
    assert [(lv.number, lv.name, lv.depth, lv.nodes, lv.candidates, lv.window, lv.temperature)
            for lv in levels] == [(lv.number, lv.name, lv.max_depth, lv.max_nodes, lv.candidates,
                                   lv.window, lv.temperature) for lv in module]  # fmt: skip


# --- the schedule ----------------------------------------------------------------------------


def arguments(**overrides: object) -> argparse.Namespace:
    defaults = {"games": 60, "chain_games": 20, "min_anchor_games": 40, "anchor_spread": 100,
                "max_anchor_gap": 350, "cross_check": ["phalanx", "glaurung"],
                "cross_check_games": 20, "check_games": 60}  # fmt: skip
    defaults.update(overrides)
    return argparse.Namespace(**defaults)


def games_of(player: str, pairings: list[calibrate.Pairing]) -> int:
    return sum(p.games for p in pairings if player in (p.first, p.second))


def test_every_level_gets_60_games_and_anchors_near_it() -> None:
    expected = {n: 800 + 170 * (n - 1) for n in range(1, 11)}
    first = calibrate.level_schedule(expected, arguments(), "1")
    second = calibrate.level_schedule(expected, arguments(), "2")
    assert {p.stage for p in first} == {"1"} and {p.stage for p in second} == {"2"}
    # Stage 2 replays no opening of stage 1, and plays only anchors, as many games as stage 1.
    assert all(p.opening_offset >= 30 for p in second)
    assert all(p.second.startswith("sf:") for p in second)
    anchor_games = [sum(p.games for p in stage if p.second.startswith("sf:"))
                    for stage in (first, second)]  # fmt: skip
    assert anchor_games[0] == anchor_games[1]
    pairings = first + second
    for number, elo in expected.items():
        assert games_of(f"level:{number}", pairings) >= 60, number
        anchors = [int(p.second[3:]) for p in pairings
                   if p.first == f"level:{number}" and p.second.startswith("sf:")]  # fmt: skip
        assert all(1350 <= a <= 2850 and a - elo <= 350 for a in anchors), (number, anchors)
        if elo >= 1350:
            assert anchors and min(abs(a - elo) for a in anchors) <= 150, (number, anchors)
    # Level 1 (800) has no anchor in reach: it is rated through level 2.
    assert not any(p.first == "level:1" and p.second.startswith("sf:") for p in pairings)
    assert all(p.games % 2 == 0 for p in pairings)  # colours swapped on every opening
    assert {p.second for p in pairings if p.first == "level:10"} >= {"phalanx", "glaurung"}


def test_carried_rows_keep_the_table_they_were_measured_in(table: level_table.Table) -> None:
    # `make calibrate --levels 9` fits twice (the levels, then the checks): the second fit must
    # not claim the other rows came from the first fit's table.
    def refit(old: level_table.Table, level: int, date: str) -> level_table.Table:
        rating = elo_fit.Rating(2100.0, 2000.0, 2200.0, 100, 50.0, True)
        new = calibrate.new_table(old, {f"level:{level}": rating}, 100, "nn-x", 1, levels_now(),
                                  arguments(tc="10+0.1", results=Path("/nonexistent")))  # fmt: skip
        new.record.update(date=date, commit=date[-2:])
        return new

    cross = ("Cross-check, fitted unanchored on this scale from games against full strength "
             "(compare with their CCRL ratings): Glaurung 2.2 2248 (2068 to 2428, 20 games).")
    first = level_table.Table(dict(table.record, date="2026-01-01", commit="01", note=cross,
                                   time_control="10+0.1"), [], table.rows)  # fmt: skip
    levels_then = "Levels 1, 2, 3, 4, 5, 6, 7, 8, 10 not in this fit: carried over from the"
    second = refit(first, 9, "2026-02-02")
    # Full strength carried over, and with it the cross-check of its games.
    assert second.record["note"] == (f"{levels_then} table of 2026-01-01 (commit 01, 10+0.1). "
                                     f"{cross}")  # fmt: skip
    assert refit(second, 9, "2026-03-03").record["note"] == second.record["note"]
    note = refit(second, 1, "2026-04-04").record["note"]
    assert "Level 9 not in this fit: carried over from the table of 2026-02-02 (commit 02," in note
    assert "Levels 2, 3, 4, 5, 6, 7, 8, 10 not in this fit: carried over from the table of " \
           "2026-01-01 (commit 01, 10+0.1)." in note
    assert note.endswith(cross) and note.count("Cross-check") == 1
    assert "Cross-check" not in refit(second, 10, "2026-05-05").record["note"]


def test_requested_elos_get_60_games_each() -> None:
    pairings = calibrate.check_schedule([1500, 2000], arguments())
    for elo in (1500, 2000):
        assert games_of(f"elo:{elo}", pairings) >= 60
        opponents = {p.second for p in pairings if p.first == f"elo:{elo}"}
        assert opponents == {f"sf:{elo - 100}", f"sf:{elo}", f"sf:{elo + 100}"}


def test_the_time_estimate_spends_both_clocks_whole() -> None:
    # 10 s + 60 moves x 0.1 s a side, two sides, two games at a time.
    assert calibrate.estimate_hours(100, "10+0.1", 2) == pytest.approx(100 * 32 / 2 / 3600)


def test_games_are_played_in_pairs_written_and_resumed(repo_root: Path, tmp_path: Path) -> None:
    binary = repo_root / "target" / "release" / "ferrochess-uci"
    if not binary.exists():
        pytest.skip(f"{binary} not built (cargo build --release --bin ferrochess-uci)")
    args = argparse.Namespace(results=tmp_path, engine=str(binary), stockfish="unused",
                              tc="2+0.02", time_margin=200, max_plies=20, opening_plies=8,
                              seed=4, concurrency=2)  # fmt: skip
    pairing = calibrate.Pairing("level:1", "level:2", 4)
    assert calibrate.play([pairing], args) == 4
    path = tmp_path / "games.jsonl"
    games = {game["key"]: game for game in calibrate.read_games(path)}
    assert sorted(games) == [pairing.key(index) for index in range(4)]
    for index, game in enumerate(games[pairing.key(i)] for i in range(4)):
        # The first player has White in even games; each pair shares its opening.
        assert (game["white"], game["black"]) == (("level:1", "level:2") if index % 2 == 0
                                                  else ("level:2", "level:1"))  # fmt: skip
        assert game["result"] in ("1-0", "0-1", "1/2-1/2") and game["forfeit"] is None, game
        assert len(game["opening"].split()) == 8 and game["tc"] == "2+0.02"
    for pair in (0, 1):
        assert games[pairing.key(2 * pair)]["opening"] == games[pairing.key(2 * pair + 1)][
            "opening"]
    assert games[pairing.key(0)]["opening"] != games[pairing.key(2)]["opening"]
    # Nothing left to play; then a pair cut short by an interruption (its second game lost) is
    # played again, and only its missing game is kept.
    assert calibrate.play([pairing], args) == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(line for line in lines
                              if json.loads(line)["key"] != pairing.key(3)) + "\n")  # fmt: skip
    assert calibrate.play([pairing], args) == 1
    again = [game["key"] for game in calibrate.read_games(path)]
    assert sorted(again) == sorted(games) and len(again) == 4
    sessions = (tmp_path / "sessions.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["games"] for line in sessions] == [4, 0, 1]
