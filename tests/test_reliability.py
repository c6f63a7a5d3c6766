"""Guards reliability under load, at a length CI affords (`ferrochess_tools.reliability` runs the
full version for RELIABILITY.md): eight threads mixing searches, stops, new games and book
lookups on shared Engines end without a failure or a hang, every move legal and every stop()
answered; and memory stays flat over a thousand calls. No timing is asserted: latencies are
reported, not checked (the machine is shared)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from ferrochess_tools import reliability

STRESS_SECONDS = float(os.environ.get("FERROCHESS_STRESS_SECONDS", "10"))


def test_eight_threads_mixing_calls_on_shared_engines() -> None:
    report = reliability.stress(STRESS_SECONDS, threads=8)
    summary = report.summary()
    print(summary)
    assert not report.failures, "\n".join(report.failures[:5])
    assert report.hung_threads == 0
    # Every kind of call ran, and stop() was measured at least once.
    kinds = {"select_move", "play", "analyse", "stop", "new_game", "book", "play_level"}
    assert kinds <= set(summary["calls"]), summary["calls"]
    assert summary["stops_measured"] >= 1


def test_a_broken_answer_is_reported() -> None:
    """The stress run's move check can fail: an illegal move is reported, not passed over."""
    import chess

    with pytest.raises(AssertionError, match="illegal move"):
        reliability.check_move(chess.Board(), chess.Move.from_uci("e2e5"))
    with pytest.raises(AssertionError, match="no move returned"):
        reliability.check_move(chess.Board(), None)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="RSS is read from /proc")
def test_memory_stays_flat_over_repeated_calls() -> None:
    import chess
    import chess.engine
    import ferrochess

    boards = reliability.random_boards(50, seed=2)
    with ferrochess.Engine(16) as engine:
        # Warm up: the table's pages and the book are touched, Python's caches filled.
        for board in boards:
            if any(board.legal_moves):
                engine.play(board, chess.engine.Limit(depth=3))
        first = reliability.rss_mb()
        for index in range(1000):
            board = boards[index % len(boards)]
            ferrochess.select_move(board, 2)
            if any(board.legal_moves):
                engine.play(board, chess.engine.Limit(depth=2))
        last = reliability.rss_mb()
    # A leak of even 1 KB per call would show as 2 MB here; allocator noise is far smaller.
    assert last - first < 8, (first, last)
