"""Guards thread safety and GIL release: independent Engines and select_move calls run
concurrently and stay correct, one shared Engine serialises its callers, and a search releases the
GIL so that another thread can stop it (proven by the node count, not by timing)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import chess
import chess.engine
from ferrochess import Engine, select_move
from positions import KIWIPETE_FEN, MIDDLEGAME_FEN, START_FEN, assert_legal, assert_legal_move

Limit = chess.engine.Limit
T = TypeVar("T")
GUARD_SECONDS = 120.0  # a failure guard against hangs, never a performance assertion
# Bounds the "long" search so that, were the GIL held, it would end by itself (tens of seconds)
# instead of hanging: the main thread would then only get to run after it, and the search would
# report this many nodes instead of the few it searched before stop().
NODE_BOUND = 100_000_000
FENS = [
    START_FEN,
    KIWIPETE_FEN,
    MIDDLEGAME_FEN,
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
]


def run_together(tasks: list[Callable[[], T]]) -> list[T]:
    """Run the tasks in one thread each, released at once by a barrier; return their results."""
    barrier = threading.Barrier(len(tasks))

    def start(task: Callable[[], T]) -> T:
        barrier.wait(timeout=GUARD_SECONDS)
        return task()

    with ThreadPoolExecutor(max_workers=len(tasks)) as pool:
        futures = [pool.submit(start, task) for task in tasks]
        return [future.result(timeout=GUARD_SECONDS) for future in futures]


def stop_until_done(engine: Engine, search: Callable[[], object]) -> None:
    """Run `search` in a thread and call `engine.stop()` every 50 ms until it returns; fail if it
    is still running after GUARD_SECONDS."""
    worker = threading.Thread(target=search, daemon=True)
    worker.start()
    deadline = time.monotonic() + GUARD_SECONDS
    while worker.is_alive() and time.monotonic() < deadline:
        engine.stop()
        worker.join(0.05)
    assert not worker.is_alive(), "stop() did not end the search"


def test_engines_in_four_threads() -> None:
    def search(fen: str) -> Callable[[], chess.engine.PlayResult]:
        def task() -> chess.engine.PlayResult:
            with Engine(hash_mb=8) as engine:
                return engine.play(chess.Board(fen), Limit(depth=5))

        return task

    results = run_together([search(fen) for fen in FENS])
    for fen, result in zip(FENS, results):
        assert_legal_move(chess.Board(fen), result.move)


def test_select_move_in_four_threads() -> None:
    # No book: the searches themselves are compared.
    expected = [select_move(fen, 4, book=None) for fen in FENS]
    results = run_together(
        [lambda fen=fen: select_move(fen, 4, book=None) for fen in FENS]  # type: ignore[misc]
    )
    for fen, uci in zip(FENS, results):
        assert_legal(chess.Board(fen), uci)
    assert results == expected, "concurrent calls must not disturb each other's searches"


def test_one_engine_shared_by_two_threads() -> None:
    with Engine() as engine:
        fens = [KIWIPETE_FEN, MIDDLEGAME_FEN]
        results = run_together(
            [lambda fen=fen: engine.play(chess.Board(fen), Limit(depth=5)) for fen in fens]  # type: ignore[misc]
        )
        for fen, result in zip(fens, results):
            assert_legal_move(chess.Board(fen), result.move)
            assert result.info["depth"] == 5


def test_search_releases_the_gil_so_stop_works() -> None:
    # No callback: a callback re-acquires the GIL and would let the main thread in even if the
    # search held it. The main thread calls stop() every 50 ms until the search ends. Were the GIL
    # held for the whole search, none of those calls could run before it reached NODE_BOUND.
    board = chess.Board(MIDDLEGAME_FEN)
    outcome: dict[str, object] = {}

    with Engine() as engine:

        def long_search() -> None:
            try:
                limit = Limit(depth=40, nodes=NODE_BOUND)
                outcome["info"] = engine.analyse(board, limit)
            except BaseException as error:  # reported by the main thread
                outcome["error"] = error

        stop_until_done(engine, long_search)

    assert "error" not in outcome, outcome.get("error")
    info = outcome["info"]
    assert isinstance(info, dict)
    assert info["pv"][0] in board.legal_moves
    assert 0 <= info["depth"] < 40  # 0: stopped inside the first iteration
    assert info["nodes"] < NODE_BOUND, "the search ran to its node bound: stop() came too late"


def test_a_multithreaded_search_plays_legal_moves_and_stops() -> None:
    # Lazy SMP: the helper threads share the table; the result is the main thread's, legal, and
    # counts every thread's nodes; stop() ends every thread (the call returns).
    with Engine(threads=2) as engine:
        assert engine.threads == 2
        for fen in FENS:
            board = chess.Board(fen)
            info = engine.analyse(board, Limit(depth=7))
            assert info["depth"] == 7 and info["nodes"] > 0
            for move in info["pv"]:
                assert_legal_move(board, move)
                board.push(move)
        board = chess.Board(MIDDLEGAME_FEN)
        outcome: dict[str, object] = {}
        stop_until_done(engine, lambda: outcome.update(info=engine.analyse(board, Limit(depth=40))))
        info = outcome["info"]
        assert isinstance(info, dict)
        assert info["pv"][0] in board.legal_moves
