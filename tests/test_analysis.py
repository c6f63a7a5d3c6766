"""Guards game review: analyse_game judges a known blunder and scores a mate, and says what the
tables say of their positions; a move's and a side's accuracy are lichess's (hand-computed
examples; a side that loses its queen once scores far below a plain mean); analyse_pgn writes one
record per game as it goes, continues a stopped run without repeating or losing a game (also
after a kill mid-write), refuses an output written with other settings, records broken games,
names a missing file, gives the same records on 1 or 2 workers and on a Dask LocalCluster of 2
workers; the annotated PGN reads back in python-chess with evals and ?! ? ?? marks."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
import pytest
from ferrochess import (
    AnalysisOutputError,
    Engine,
    FileError,
    analyse_game,
    analyse_pgn,
    annotate_pgn,
)
from ferrochess.analysis import game_accuracy, move_accuracy, winning_chances

Limit = chess.engine.Limit
# 3...Nf6?? allows 4.Qxf7#.
SCHOLARS_MATE = "1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0"
BROKEN_GAME = '[Event "broken"]\n\n1. e4 e5 2. Ke3 Nc6 *\n\n'


def game_of(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


def records(path: Path) -> dict[str, dict[str, Any]]:
    """The game and broken records of an analysis file, by key (asserting each key is unique)."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "settings"
    keyed: dict[str, dict[str, Any]] = {}
    for record in lines[1:]:
        assert record["key"] not in keyed, f"{record['key']} written twice"
        keyed[record["key"]] = record
    return keyed


def test_winning_chances() -> None:
    assert winning_chances({"cp": 0}) == 0
    assert 0 < winning_chances({"cp": 100}) < winning_chances({"cp": 300}) < 1
    assert winning_chances({"cp": -200}) == pytest.approx(-winning_chances({"cp": 200}))
    assert winning_chances({"mate": 3}) > 0.99 and winning_chances({"mate": -1}) < -0.99
    assert winning_chances({"mate": 0, "mated": "white"}) == -1.0


def test_a_blunder_is_judged_and_a_mate_scored() -> None:
    review = analyse_game(game_of(SCHOLARS_MATE), Limit(depth=4))
    moves = {move["san"]: move for move in review["moves"]}
    assert [move["san"] for move in review["moves"]] == [
        "e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#",
    ]  # fmt: skip
    blunder = moves["Nf6"]
    assert blunder["judgement"] == "blunder" and blunder["color"] == "black"
    assert blunder["eval_after"] == {"mate": 1}
    assert blunder["best_san"] != "Nf6" and blunder["best_line"][0] == blunder["best_san"]
    assert blunder["win_before"] > blunder["win_after"] and blunder["accuracy"] < 10
    mate = moves["Qxf7#"]
    assert mate["eval_after"] == {"mate": 0, "mated": "black"} and mate["win_after"] == 100
    assert mate["judgement"] is None and mate["accuracy"] > 90
    assert review["judgements"]["black"]["blunder"] == 1
    assert review["accuracy"]["white"] > review["accuracy"]["black"]
    assert review["headers"]["Result"] == "1-0"
    # The engine's own best move is never judged, whatever the search after it says.
    best = [move for move in review["moves"] if move["move"] == move["best_move"]]
    assert best and all(move["judgement"] is None and move["accuracy"] == 100 for move in best)


def test_a_moves_accuracy_is_lichess_curve_of_its_drop() -> None:
    """103.1668100711649 * exp(-0.04354415386753951 * drop) - 3.166924740191411, plus lichess's
    uncertainty bonus of 1, clamped to 0..100; no drop is 100."""
    assert move_accuracy(60, 60) == move_accuracy(50, 60) == 100
    # A drop of 10 points: 103.1668 * exp(-0.435442) - 3.1669 + 1 = 64.5798.
    assert move_accuracy(60, 50) == pytest.approx(64.5798, abs=1e-4)
    assert move_accuracy(50, 35) == pytest.approx(51.5208, abs=1e-4)
    assert move_accuracy(100, 0) == 0


def test_a_sides_accuracy_is_lichess_mean_of_the_weighted_and_harmonic_means() -> None:
    """Four moves: window of 2 positions (a tenth of the moves, at least 2), each move weighted by
    the population standard deviation of White's win percent before and after it, within 0.5..12.
    White: accuracies 100 and 80, weights 2.5 (55 -> 60) and 0.5 (45 -> 45, 0 raised to 0.5):
    weighted (250 + 40) / 3 = 96.6667, harmonic 2 / (1/100 + 1/80) = 88.8889, mean 92.7778.
    Black: 50 and 20, weights 7.5 (60 -> 45) and 12 (45 -> 10, 17.5 cut to 12): weighted
    (375 + 240) / 19.5 = 31.5385, harmonic 2 / (1/50 + 1/20) = 28.5714, mean 30.0549."""
    wins, accuracies = [55, 60, 45, 45, 10], [100, 50, 80, 20]
    sides = game_accuracy(wins, accuracies)
    assert sides["white"] == pytest.approx(92.7778, abs=1e-4)
    assert sides["black"] == pytest.approx(30.0549, abs=1e-4)
    # From a position with Black to move, the first move is Black's.
    swapped = game_accuracy(wins, accuracies, chess.BLACK)
    assert (swapped["white"], swapped["black"]) == (sides["black"], sides["white"])
    assert game_accuracy([50], []) == {"white": None, "black": None}
    assert game_accuracy([50, 50], [100]) == {"white": 100, "black": None}
    with pytest.raises(ValueError, match="one more"):
        game_accuracy([50, 50], [100, 100])


def test_the_first_window_weighs_the_first_moves() -> None:
    """30 moves: windows of 3 positions; move 0 is weighed by the first window (positions 0-2),
    move i > 0 by positions i-1..i+1. White's win percent is 50 throughout but 80 after move 15
    (index 14), so the moves of index 14, 15 and 16 weigh 12 (the deviation of 50, 50, 80 is
    14.1) and every other 0.5. White (indices 0, 2, .. 28), all 100 but index 16 at 40: weighted
    (13 * 0.5 * 100 + 12 * 100 + 12 * 40) / 30.5 = 76.3934, harmonic 15 / (14/100 + 1/40) =
    90.9091, mean 83.6513 (a plain mean says 96). Black (1, 3, .. 29), all 100 but index 15 at
    60: weighted (7 * 100 + 12 * 60) / 19 = 74.7368, harmonic 15 / (14/100 + 1/60) = 95.7447,
    mean 85.2408."""
    wins = [50.0] * 31
    wins[15] = 80
    accuracies = [100.0] * 30
    accuracies[16], accuracies[15] = 40, 60
    sides = game_accuracy(wins, accuracies)
    assert sides["white"] == pytest.approx(83.6513, abs=1e-4)
    assert sides["black"] == pytest.approx(85.2408, abs=1e-4)


# White gives its queen for a pawn once (8. Qxh7+?? Kxh7) in an otherwise quiet Queen's Gambit.
QUEEN_BLUNDER = (
    "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 Nbd7 7. Qc2 c5 8. Qxh7+ Kxh7 "
    "9. Bd3+ Kg8 *"
)


def test_one_queen_blunder_drags_a_sides_accuracy_far_below_a_plain_mean() -> None:
    review = analyse_game(game_of(QUEEN_BLUNDER), Limit(depth=5))
    white = [move for move in review["moves"] if move["color"] == "white"]
    blunders = [move["san"] for move in white if move["judgement"] == "blunder"]
    assert blunders == ["Qxh7+"], white
    # The plain mean of White's nine moves is about 89; lichess's formula about 45.
    plain = sum(move["accuracy"] for move in white) / len(white)
    assert review["accuracy"]["white"] < 60 and plain > 85, (review["accuracy"], plain)
    assert review["accuracy"]["black"] > 80


def test_tablebase_positions_carry_the_tables_verdict(syzygy: Path) -> None:
    """The review's evaluations say what the tables said, from White's side, beside the score."""
    game = game_of('[FEN "8/8/8/8/8/8/3QK3/k7 b - - 0 1"]\n[SetUp "1"]\n\n1... Kb1 *')
    with Engine(book=None, syzygy_path=syzygy) as engine:
        (move,) = analyse_game(game, Limit(depth=2), engine=engine)["moves"]
    assert move["eval_before"]["tablebase"] == "win" and move["eval_after"]["tablebase"] == "win"
    (plain,) = analyse_game(game, Limit(depth=2))["moves"]
    assert "tablebase" not in plain["eval_before"]


def test_progress_is_reported_and_can_end_a_review() -> None:
    seen: list[tuple[int, int]] = []
    analyse_game(game_of(SCHOLARS_MATE), Limit(depth=2), progress=lambda *at: seen.append(at))
    assert seen == [(done, 8) for done in range(9)]  # 7 moves: 8 positions

    class Stop(Exception):
        pass

    def stop_after_two(done: int, _total: int) -> None:
        if done == 2:
            raise Stop

    with pytest.raises(Stop):
        analyse_game(game_of(SCHOLARS_MATE), Limit(depth=2), progress=stop_after_two)


def test_a_threefold_repetition_is_scored_as_the_draw_it_is() -> None:
    """The position that occurs the third time ends the game (lichess's rule, ferrochess.rules):
    scored 0 without a search, like any finished game; the one before it is searched."""
    knights = game_of("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2")
    review = analyse_game(knights, Limit(depth=3))
    last = review["moves"][-1]
    assert last["eval_after"] == {"cp": 0}
    assert review["moves"][-2]["best_san"] is not None


def test_analyse_pgn_records_continues_and_refuses_other_settings(
    shared_data: Path, tmp_path: Path
) -> None:
    pgn = shared_data / "pgn" / "lichess_db_10k.pgn"
    out = tmp_path / "review.jsonl"
    first = analyse_pgn(pgn, out, Limit(depth=3), workers=2, progress=False)
    assert (first.analysed, first.skipped_done, first.broken) == (5, 0, 0)
    done = records(out)
    assert len(done) == 5 and all(record["type"] == "game" for record in done.values())
    again = analyse_pgn(pgn, out, Limit(depth=3), progress=False)
    assert (again.analysed, again.skipped_done) == (0, 5)
    assert records(out) == done
    with pytest.raises(AnalysisOutputError, match="other settings") as info:
        analyse_pgn(pgn, out, Limit(depth=4), progress=False)
    assert str(out) in str(info.value)
    not_ours = tmp_path / "notes.jsonl"
    not_ours.write_text('{"hello": 1}\n', encoding="utf-8")
    with pytest.raises(AnalysisOutputError, match="not a ferrochess analysis"):
        analyse_pgn(pgn, not_ours, Limit(depth=3), progress=False)


def test_one_and_two_workers_give_the_same_records(shared_data: Path, tmp_path: Path) -> None:
    pgn = shared_data / "pgn" / "lichess_db_10k.pgn"
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    analyse_pgn(pgn, one, Limit(depth=4), workers=1, progress=False)
    analyse_pgn(pgn, two, Limit(depth=4), workers=2, progress=False)
    assert records(one) == records(two)


def test_broken_games_and_missing_files(tmp_path: Path) -> None:
    pgn = tmp_path / "mixed.pgn"
    pgn.write_text(SCHOLARS_MATE + "\n\n" + BROKEN_GAME, encoding="utf-8")
    out = tmp_path / "mixed.jsonl"
    summary = analyse_pgn(pgn, out, Limit(depth=2), progress=False)
    assert (summary.analysed, summary.broken) == (1, 1)
    kinds = sorted(record["type"] for record in records(out).values())
    assert kinds == ["broken", "game"]
    broken = next(r for r in records(out).values() if r["type"] == "broken")
    assert broken["errors"] and "Ke3" in " ".join(broken["errors"])
    missing = tmp_path / "missing.pgn"
    with pytest.raises(FileError) as info:
        analyse_pgn([pgn, missing], tmp_path / "x.jsonl", Limit(depth=2), progress=False)
    assert isinstance(info.value, OSError) and str(missing) in str(info.value)


def test_a_line_cut_by_a_kill_is_dropped_and_redone(tmp_path: Path) -> None:
    pgn = tmp_path / "two.pgn"
    pgn.write_text(SCHOLARS_MATE + "\n\n" + "1. d4 d5 2. c4 e6 *\n\n", encoding="utf-8")
    out = tmp_path / "two.jsonl"
    analyse_pgn(pgn, out, Limit(depth=2), progress=False)
    complete = out.read_text(encoding="utf-8")
    lines = complete.splitlines(keepends=True)
    out.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2], encoding="utf-8")
    summary = analyse_pgn(pgn, out, Limit(depth=2), progress=False)
    assert (summary.analysed, summary.skipped_done) == (1, 1)
    assert records(out).keys() == {json.loads(line)["key"] for line in lines[1:]}


def test_killing_a_run_and_rerunning_finishes_every_game_once(
    shared_data: Path, tmp_path: Path
) -> None:
    pgn = shared_data / "pgn" / "lichess_db_100k.pgn"
    out = tmp_path / "killed.jsonl"
    command = [sys.executable, "-m", "ferrochess", "analyse", str(pgn), "-o", str(out),
               "--depth", "4", "--workers", "2"]  # fmt: skip
    # Killed once its progress bar (on stderr, updated after each record is written and
    # flushed) says three games are done; a run stuck for 120 s is killed, which ends the wait.
    run = subprocess.Popen(
        [*command, "--progress"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert run.stderr is not None
    watchdog = threading.Timer(120, run.kill)
    watchdog.start()
    said, done_so_far = b"", 0
    try:
        while done_so_far < 3:
            chunk = run.stderr.read1(4096)
            assert chunk, f"the run ended before it could be killed: {said[-500:]!r}"
            said += chunk
            counts = re.findall(rb"analysing: (\d+) ?game", said)
            done_so_far = int(counts[-1]) if counts else 0
    finally:
        watchdog.cancel()
    os.kill(run.pid, signal.SIGKILL)
    run.wait(30)
    partial = out.read_text(encoding="utf-8").count("\n") - 1
    assert 3 <= partial < 47
    rerun = subprocess.run(
        [*command, "--no-progress"], capture_output=True, text=True, timeout=600
    )
    assert rerun.returncode == 0, rerun.stderr
    assert f"{47 - partial} games analysed, {partial} already done" in rerun.stdout
    done = records(out)
    assert len(done) == 47, "every game exactly once"


def test_dask_local_cluster_gives_the_same_records(shared_data: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    pgn = shared_data / "pgn" / "lichess_db_10k.pgn"
    local, dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    analyse_pgn(pgn, local, Limit(depth=4), workers=2, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        summary = analyse_pgn(pgn, dask, Limit(depth=4), client=client, progress=False)
    assert summary.analysed == 5
    assert records(dask) == records(local)


def test_annotated_pgn_reads_back(tmp_path: Path) -> None:
    pgn = tmp_path / "one.pgn"
    pgn.write_text(SCHOLARS_MATE + "\n", encoding="utf-8")
    out = tmp_path / "one.jsonl"
    analyse_pgn(pgn, out, Limit(depth=4), progress=False)
    annotated = tmp_path / "annotated.pgn"
    assert annotate_pgn(pgn, out, annotated) == 1
    game = chess.pgn.read_game(io.StringIO(annotated.read_text(encoding="utf-8")))
    assert game is not None
    nodes = list(game.mainline())
    by_san = {node.san(): node for node in nodes}
    assert chess.pgn.NAG_BLUNDER in by_san["Nf6"].nags
    assert by_san["Nf6"].eval() == chess.engine.PovScore(chess.engine.Mate(1), chess.WHITE)
    assert by_san["e4"].eval() is not None
    assert "[%eval" in annotated.read_text(encoding="utf-8")
