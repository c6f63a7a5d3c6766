"""Guards the Syzygy tablebases: open_tablebase's WDL and DTZ agree with python-chess's chess.syzygy
on every covered row of the shared reference files; probe_* raise MissingTableError (a KeyError)
and get_* return a default for positions the tables lack; missing, empty, truncated and corrupt
tables give errors naming them (or, inside a search, a warning and a plain search); Engine and
select_move take the tables' move with WDL, DTZ and the tables' verdict in the info (a search's
lines carry the verdict when the tables scored them), find the tables through
syzygy_path or FERROCHESS_SYZYGY_PATH, and work as before without tables."""

from __future__ import annotations

import csv
import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import chess.syzygy
import pytest
from ferrochess import (
    SYZYGY_PATH_ENV,
    Engine,
    FileError,
    MissingTableError,
    TablebaseError,
    open_tablebase,
    select_move,
)
from ferrochess.interop import TABLEBASE_VERDICTS

Limit = chess.engine.Limit
KQK_WHITE_TO_MOVE = "8/8/8/8/8/8/3QK3/k7 w - - 0 1"  # SOURCES.md: wdl +2, dtz +5
KRK = "8/8/8/4k3/8/8/8/4KR2 w - - 0 1"


def reference_positions(shared_data: Path) -> Iterator[tuple[chess.Board, tuple[int, int] | None]]:
    """Each reference position with the (WDL, DTZ) its file states (None when it states none)."""
    with (shared_data / "csv" / "syzygy-chess.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            yield chess.Board(row["epd"]), (int(row["wdl"]), int(row["dtz"]))
    with (shared_data / "epd" / "endgame.epd").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                board, operations = chess.Board.from_epd(line)
                yield board, (int(operations["wdl"]), int(operations["dtz"]))  # type: ignore[arg-type]


def test_wdl_and_dtz_agree_with_python_chess(shared_data: Path, syzygy: Path) -> None:
    covered = 0
    with open_tablebase(syzygy) as ours, chess.syzygy.open_tablebase(str(syzygy)) as theirs:
        for board, stated in reference_positions(shared_data):
            expected = (theirs.get_wdl(board), theirs.get_dtz(board))
            found = (ours.get_wdl(board), ours.get_dtz(board))
            assert (ours.get_wdl(board.fen()), ours.get_dtz(board.fen())) == found
            if expected[0] is None:
                # python-chess gives up on a few five-piece rows that resolve, by an en passant
                # capture, into the tables; ferrochess may answer them, and then as the file does.
                assert found in {(None, None), stated}, board.fen()
                continue
            covered += 1
            assert found == expected, board.fen()
            assert (ours.probe_wdl(board), ours.probe_dtz(board)) == expected
    assert covered >= 380, "the 3-4-piece set covers about 400 of the reference rows"


def test_facts_from_the_data_notes(syzygy: Path) -> None:
    with open_tablebase(syzygy) as tables:
        assert tables.max_pieces == 4 and tables.directories == [str(syzygy)]
        assert (tables.probe_wdl(KQK_WHITE_TO_MOVE), tables.probe_dtz(KQK_WHITE_TO_MOVE)) == (2, 5)
        black = "8/8/8/8/8/8/3QK3/k7 b - - 0 1"
        assert (tables.probe_wdl(black), tables.probe_dtz(black)) == (-2, -6)


@pytest.mark.parametrize(
    "fen",
    [
        chess.STARTING_FEN,
        "r3k3/8/8/8/8/8/8/4K3 b q - 0 1",  # castling rights
        "8/8/3pk3/8/8/3PK3/2P5/8 w - - 0 1",  # six pieces
    ],
)
def test_positions_the_tables_lack(syzygy: Path, fen: str) -> None:
    with open_tablebase(syzygy) as tables:
        assert tables.get_wdl(fen) is None and tables.get_dtz(chess.Board(fen), -99) == -99
        with pytest.raises(MissingTableError) as info:
            tables.probe_wdl(chess.Board(fen))
        assert isinstance(info.value, KeyError) and fen in str(info.value)
        with pytest.raises(KeyError):
            tables.probe_dtz(fen)


def test_bad_directories_are_named(tmp_path: Path, syzygy: Path) -> None:
    missing = tmp_path / "missing"
    for make in (
        lambda: open_tablebase(missing),
        lambda: Engine(syzygy_path=missing),
        lambda: select_move(KRK, 2, syzygy_path=str(missing)),
        lambda: open_tablebase(f"{syzygy}:{missing}"),
    ):
        with pytest.raises(FileError) as info:
            make()
        assert isinstance(info.value, OSError) and str(missing) in str(info.value)
    with pytest.raises(FileError, match="no Syzygy tables"):
        open_tablebase(tmp_path)


def copy_tables(syzygy: Path, target: Path, names: list[str]) -> Path:
    target.mkdir()
    for name in names:
        shutil.copy(syzygy / name, target / name)
    return target


def test_truncated_and_corrupt_tables(tmp_path: Path, syzygy: Path) -> None:
    truncated = copy_tables(syzygy, tmp_path / "truncated", ["KQvK.rtbw"])
    (truncated / "KRvK.rtbw").write_bytes(b"x" * 100)
    with pytest.raises(TablebaseError, match="KRvK.rtbw") as info:
        open_tablebase(truncated)
    assert isinstance(info.value, OSError)

    corrupt = copy_tables(syzygy, tmp_path / "corrupt", ["KQvK.rtbw", "KQvK.rtbz"])
    data = bytearray((corrupt / "KQvK.rtbw").read_bytes())
    data[:4] = bytes(4)
    (corrupt / "KQvK.rtbw").write_bytes(bytes(data))
    with open_tablebase(corrupt) as tables, pytest.raises(TablebaseError, match="KQvK"):
        tables.probe_wdl(KQK_WHITE_TO_MOVE)
    # An engine falls back to its search, and says so.
    with Engine(book=None, syzygy_path=corrupt) as engine:
        with pytest.warns(RuntimeWarning, match="KQvK"):
            result = engine.play(KQK_WHITE_TO_MOVE, Limit(depth=3))
    assert result.info["source"] == "search"  # type: ignore[typeddict-item]
    assert result.move in chess.Board(KQK_WHITE_TO_MOVE).legal_moves


def test_engine_plays_the_tables_move(syzygy: Path) -> None:
    board = chess.Board(KQK_WHITE_TO_MOVE)
    with Engine(syzygy_path=syzygy) as engine:
        assert engine.syzygy_max_pieces == 4 and engine.syzygy_path == str(syzygy)
        result = engine.play(board, Limit(depth=30))
        info = result.info
        assert info["source"] == "tablebase"  # type: ignore[typeddict-item]
        assert (info["wdl"], info["dtz"]) == (2, 5)  # type: ignore[typeddict-item]
        assert info["score"] == chess.engine.PovScore(chess.engine.Cp(20000 - 5), chess.WHITE)
        assert info["nodes"] == 0 and info["tbhits"] > 0
        # The move keeps the win and shortens the way to mate.
        assert result.move is not None
        board.push(result.move)
        with chess.syzygy.open_tablebase(str(syzygy)) as reference:
            assert reference.probe_wdl(board) == -2 and reference.probe_dtz(board) == -4
        analysed = engine.analyse(KRK, Limit(depth=30))
        assert analysed["source"] == "tablebase" and analysed["wdl"] == 2  # type: ignore[typeddict-item]
    assert select_move(KQK_WHITE_TO_MOVE, 64, syzygy_path=str(syzygy)) == result.move.uci()


def test_mate_in_one_is_taken_and_scored_as_mate(syzygy: Path) -> None:
    with Engine(syzygy_path=syzygy) as engine:
        result = engine.play("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1", Limit(depth=2))
    assert result.move == chess.Move.from_uci("c1c8")
    assert result.info["score"].relative == chess.engine.Mate(1)


def test_the_fifty_move_clock_counts(syzygy: Path) -> None:
    # KRvK with the clock at 90: zeroing (mate) is 29 plies away, too late; the tables call it
    # a win the 50-move rule spoils.
    with Engine(syzygy_path=syzygy) as engine:
        info = engine.analyse("8/8/8/4k3/8/8/8/4KR2 w - - 90 80", Limit(depth=2))
    assert (info["source"], info["wdl"]) == ("tablebase", 1)  # type: ignore[typeddict-item]
    assert info["score"].relative == chess.engine.Cp(0)


def test_the_tables_move_carries_their_verdict(syzygy: Path) -> None:
    """The root's answer names all five verdicts, from the side to move, from the WDL: a draw and
    a cursed win both score Cp(0), and only the field tells them apart."""
    positions = {
        KQK_WHITE_TO_MOVE: "win",
        "8/8/8/8/8/8/3QK3/k7 w - - 97 80": "cursed win",  # dtz 5 with the clock at 97
        "8/4k3/8/4K3/4P3/8/8/8 w - - 0 1": "draw",
        "8/8/8/8/8/8/3QK3/k7 b - - 97 80": "blessed loss",
        "8/8/8/8/8/8/3QK3/k7 b - - 0 1": "loss",
    }
    with Engine(book=None, syzygy_path=syzygy) as engine:
        for fen, verdict in positions.items():
            info = engine.analyse(fen, Limit(depth=2))
            assert info["source"] == "tablebase", fen  # type: ignore[typeddict-item]
            assert info["tablebase"] == verdict, fen  # type: ignore[typeddict-item]
            assert TABLEBASE_VERDICTS.index(verdict) == 2 - info["wdl"]  # type: ignore[typeddict-item]
            played = engine.play(fen, Limit(depth=2)).info
            assert played["tablebase"] == verdict, fen  # type: ignore[typeddict-item]


def test_search_lines_carry_the_verdict_of_their_tablebase_scores(syzygy: Path) -> None:
    """Lines the tables scored say "win" or "loss" (the side to move's view); lines they did not
    score, and every line of an engine without tables, have no verdict."""
    fen = "8/8/8/4k3/8/8/3q4/3QK3 w - - 0 1"  # Qxd2 and Kxd2 win; Kf1 drops the queen: Qxd1+
    with Engine(book=None, syzygy_path=syzygy) as engine:
        lines = engine.analyse(fen, Limit(depth=4), multipv=3)
        verdicts = {line["pv"][0].uci(): line.get("tablebase") for line in lines}
        assert [line["source"] for line in lines] == ["search"] * 3  # type: ignore[typeddict-item]
        assert verdicts == {"d1d2": "win", "e1d2": "win", "e1f1": "loss"}
        # Five pieces, Black to move: its only move takes the queen into a lost KR v KP.
        (only,) = engine.analyse("k7/1Q6/8/8/7p/7K/8/7R b - - 0 1", Limit(depth=3), multipv=1)
        assert only["source"] == "search" and only["tablebase"] == "loss"  # type: ignore[typeddict-item]
        opening = engine.analyse(chess.Board(), Limit(depth=3))
        assert "tablebase" not in opening
    with Engine(book=None, syzygy_path="") as engine:
        for line in engine.analyse(fen, Limit(depth=4), multipv=3):
            assert "tablebase" not in line


def test_the_search_probes_after_captures(syzygy: Path) -> None:
    # Five pieces: out of the tables at the root; after Rxd3 or Nf2-style captures, in them.
    with Engine(book=None, syzygy_path=syzygy) as engine:
        lines = engine.analyse("8/8/8/4k3/8/3q4/8/4KR1N w - - 0 1", Limit(depth=6), multipv=2)
    assert lines[0]["source"] == "search" and lines[0]["tbhits"] > 0  # type: ignore[typeddict-item]


def test_environment_variable_names_the_tables(
    syzygy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SYZYGY_PATH_ENV, str(syzygy))
    with Engine() as engine:
        assert engine.syzygy_path == str(syzygy)
        assert engine.play(KRK, Limit(depth=2)).info["source"] == "tablebase"  # type: ignore[typeddict-item]
    with Engine(syzygy_path="") as engine:
        assert engine.syzygy_path is None


def test_without_tables_everything_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SYZYGY_PATH_ENV, raising=False)
    with Engine() as engine:
        assert engine.syzygy_path is None and engine.syzygy_max_pieces == 0
        result = engine.play(KQK_WHITE_TO_MOVE, Limit(depth=4))
        info = engine.analyse(KRK, Limit(depth=4))
    assert result.info["source"] == "search" and result.info["tbhits"] == 0  # type: ignore[typeddict-item]
    assert "wdl" not in result.info
    assert info["source"] == "search" and "score" in info  # type: ignore[typeddict-item]
    legal = {move.uci() for move in chess.Board(KQK_WHITE_TO_MOVE).legal_moves}
    assert select_move(KQK_WHITE_TO_MOVE, 3) in legal


def test_closed_tablebase_refuses_probes(syzygy: Path) -> None:
    tables = open_tablebase(syzygy)
    tables.close()
    with pytest.raises(Exception, match="closed"):
        tables.get_wdl(KRK)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tables.close()


def test_cli_takes_a_syzygy_path(syzygy: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    def bestmove(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "ferrochess", "bestmove", KQK_WHITE_TO_MOVE, *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    with Engine(syzygy_path=syzygy) as engine:
        expected = engine.play(KQK_WHITE_TO_MOVE, Limit(depth=1)).move
    assert expected is not None
    done = bestmove("--depth", "64", "--syzygy-path", str(syzygy))
    assert done.returncode == 0 and done.stdout.strip() == expected.uci(), done.stderr
    missing = tmp_path / "none"
    failed = bestmove("--syzygy-path", str(missing))
    assert failed.returncode == 2 and str(missing) in failed.stderr
