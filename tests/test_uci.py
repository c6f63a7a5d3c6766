"""Guards the UCI engine as GUIs and match tools meet it, through python-chess's own client:
`ferrochess uci` (and the native `ferrochess-uci` binary when cargo has built it) handshake,
take options, play a game on a clock, analyse with multi-PV, stop an infinite analysis, and quit
cleanly; the native binary also plays Chess960 as python-chess asks for it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
NATIVE = REPO_ROOT / "target" / "release" / "ferrochess-uci"
COMMANDS = {"python": [sys.executable, "-m", "ferrochess", "uci"], "native": [str(NATIVE)]}


@pytest.fixture(params=sorted(COMMANDS))
def engine(request: pytest.FixtureRequest) -> Iterator[chess.engine.SimpleEngine]:
    command = COMMANDS[request.param]
    if request.param == "native" and not NATIVE.exists():
        pytest.skip(f"{NATIVE} not built (cargo build --release --bin ferrochess-uci)")
    uci = chess.engine.SimpleEngine.popen_uci(command, timeout=60)
    yield uci
    uci.quit()


def test_handshake_and_options(engine: chess.engine.SimpleEngine) -> None:
    assert engine.id["name"].startswith("ferrochess")
    for name in ("Hash", "MultiPV", "OwnBook", "BookFile", "SyzygyPath", "Move Overhead",
                 "UCI_LimitStrength", "UCI_Elo"):  # fmt: skip
        assert name in engine.options, name
    engine.configure({"Hash": 32, "Move Overhead": 40})


def test_a_game_on_the_clock(engine: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    clock = {chess.WHITE: 5.0, chess.BLACK: 5.0}
    for _ in range(12):
        limit = chess.engine.Limit(
            white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
            white_inc=0.05, black_inc=0.05,
        )  # fmt: skip
        result = engine.play(board, limit)
        assert result.move in board.legal_moves
        board.push(result.move)
        if board.is_game_over():
            break
    assert len(board.move_stack) >= 12 or board.is_game_over()


def test_analysis_multipv_and_stop(engine: chess.engine.SimpleEngine) -> None:
    engine.configure({"OwnBook": False})
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    lines = engine.analyse(board, chess.engine.Limit(depth=5), multipv=3)
    assert len(lines) == 3
    assert len({info["pv"][0] for info in lines}) == 3
    assert all(info["depth"] >= 5 and "score" in info for info in lines)
    with engine.analysis(board) as analysis:
        for info in analysis:
            if info.get("depth", 0) >= 4:
                break
    best = analysis.wait()
    assert best.move in board.legal_moves


def test_analysis_of_a_book_position_searches_with_the_default_options(
    engine: chess.engine.SimpleEngine,
) -> None:
    """OwnBook is on by default, yet an analysis (depth, no clock) of the start position gets
    three searched lines, each with a score and a line: only a game's `go` plays from the book."""
    lines = engine.analyse(chess.Board(), chess.engine.Limit(depth=8), multipv=3)
    assert len(lines) == 3
    assert all("score" in info and len(info.get("pv", [])) >= 2 for info in lines)
    assert len({info["pv"][0] for info in lines}) == 3


def test_mate_is_reported_as_mate(engine: chess.engine.SimpleEngine) -> None:
    info = engine.analyse(
        chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"), chess.engine.Limit(depth=3)
    )
    assert info["score"].relative == chess.engine.Mate(1)
    assert info["pv"][0] == chess.Move.from_uci("a1a8")


def test_limited_strength_plays_legal_moves(engine: chess.engine.SimpleEngine) -> None:
    engine.configure({"UCI_LimitStrength": True, "UCI_Elo": 1000, "OwnBook": False})
    board = chess.Board()
    for _ in range(6):
        move = engine.play(board, chess.engine.Limit(time=0.2)).move
        assert move in board.legal_moves
        board.push(move)


def test_the_native_engine_plays_chess960_through_python_chess() -> None:
    """python-chess sets `UCI_Chess960` for a Chess960 board and reads castling as the king
    taking its rook: the only mate here is castling (king f1, rook h1)."""
    if not NATIVE.exists():
        pytest.skip(f"{NATIVE} not built (cargo build --release --bin ferrochess-uci)")
    uci = chess.engine.SimpleEngine.popen_uci([str(NATIVE)], timeout=60)
    try:
        assert "UCI_Chess960" in uci.options
        board = chess.Board("4rkr1/4p1p1/8/8/8/8/8/5K1R w H - 0 1", chess960=True)
        move = uci.play(board, chess.engine.Limit(depth=3)).move
        assert move is not None and board.is_castling(move), move
        board.push(move)
        assert board.is_checkmate()
        board = chess.Board.from_chess960_pos(0)
        for _ in range(12):
            move = uci.play(board, chess.engine.Limit(nodes=2000)).move
            assert move in board.legal_moves, move
            board.push(move)
    finally:
        uci.quit()
