"""Guards the match runner's Chess960 mode (`python -m ferrochess_tools.match --chess960`): the
start positions are the numbered ones, drawn by the seed and shared by each pair of games; games
start from them on a Chess960 board, so both engines are told `UCI_Chess960` and castle as the
king taking its rook, with no illegal move or forfeit (the native `ferrochess-uci` against
itself)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import chess
import chess.engine
import pytest
from ferrochess_tools.match import chess960_starts, play_game

REPO_ROOT = Path(__file__).resolve().parent.parent
NATIVE = REPO_ROOT / "target" / "release" / "ferrochess-uci"


def needs_native() -> None:
    if not NATIVE.exists():
        pytest.skip(f"{NATIVE} not built (cargo build --release --bin ferrochess-uci)")


def test_chess960_starts_are_seeded_distinct_numbers() -> None:
    starts = chess960_starts(50, seed=1)
    assert starts == chess960_starts(50, seed=1)
    assert starts != chess960_starts(50, seed=2)
    assert len(set(starts)) == 50 and all(0 <= n < 960 for n in starts)
    assert sorted(chess960_starts(960, seed=3)) == list(range(960))


def test_a_chess960_game_is_played_from_its_start_position() -> None:
    needs_native()
    start = chess.Board.from_chess960_pos(chess960_starts(1, seed=1)[0])
    assert start.chess960
    white = chess.engine.SimpleEngine.popen_uci([str(NATIVE)], timeout=60)
    black = chess.engine.SimpleEngine.popen_uci([str(NATIVE)], timeout=60)
    try:
        game, outcome = play_game(white, black, [], 1.0, 0.01, 24, start=start)
        assert white.protocol.config.get("UCI_Chess960") is True
        assert black.protocol.config.get("UCI_Chess960") is True
    finally:
        white.quit()
        black.quit()
    assert outcome.forfeit is None, outcome
    assert game.headers["Variant"] == "Chess960", game.headers
    assert game.headers["FEN"] == start.fen(), game.headers
    assert len(list(game.mainline_moves())) == 24 or game.end().board().is_game_over()


def test_the_command_line_plays_chess960_pairs() -> None:
    needs_native()
    spec = f"{NATIVE};OwnBook=false"
    result = subprocess.run(
        [sys.executable, "-m", "ferrochess_tools.match", "--engine", spec, "--engine", spec,
         "--games", "2", "--tc", "1+0.01", "--max-plies", "16", "--chess960", "--seed", "5",
         "--json"],
        capture_output=True, text=True, timeout=120, check=False, cwd=REPO_ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["chess960"] is True
    assert summary["games"] == 2 and summary["forfeits"] == [], summary
