"""Guards interrupting a search: SIGINT (Ctrl-C in a terminal, "interrupt kernel" in Jupyter)
reaches Python while the search runs with the GIL released, and ends it at once with the handler's
exception, for Engine.analyse and select_move alike. The signal is sent once the search is seen
under way (its first iteration's callback; the native call itself, for select_move), never after
a delay. No timing assertion: a search that ignored the signal is ended by a watchdog (or a
subprocess timeout), and the test then fails."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

import chess
import chess.engine
import pytest
from ferrochess import Engine
from positions import MIDDLEGAME_FEN

WATCHDOG_SECONDS = 60.0  # a failure guard, never a performance assertion


class Interrupted(Exception):
    """Raised by the test's SIGINT handler."""


@pytest.fixture
def sigint_raises_interrupted() -> Iterator[None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        raise Interrupted

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupt_during(
    search: Callable[[Callable[[object], None]], object], stop: Callable[[], None]
) -> bool:
    """Run ``search(callback)`` on this (the main) thread; once the search calls ``callback``
    (an iteration is done: the search is under way), another thread sends SIGINT to the process.
    Return whether the watchdog had to ``stop`` the search because the signal did not end it."""
    started = threading.Event()
    finished = threading.Event()
    fired = threading.Event()

    def send() -> None:
        while not started.wait(1.0):
            if finished.is_set():
                return
        os.kill(os.getpid(), signal.SIGINT)

    def watchdog() -> None:
        fired.set()
        stop()

    sender = threading.Thread(target=send, daemon=True)
    guard = threading.Timer(WATCHDOG_SECONDS, watchdog)
    sender.start()
    guard.start()
    try:
        with pytest.raises(Interrupted):
            search(lambda _info: started.set())
    finally:
        finished.set()
        guard.cancel()
        sender.join(WATCHDOG_SECONDS)
    return fired.is_set()


@pytest.mark.usefixtures("sigint_raises_interrupted")
def test_sigint_ends_engine_analyse() -> None:
    with Engine() as engine:
        board = chess.Board(MIDDLEGAME_FEN)
        limit = chess.engine.Limit(depth=60)

        def analyse(callback: Callable[[object], None]) -> object:
            return engine.analyse(board, limit, callback=callback)

        assert not interrupt_during(analyse, engine.stop)
        # The engine is still usable afterwards.
        move = engine.play(board, chess.engine.Limit(depth=2)).move
        assert move is not None and move in board.legal_moves


def test_sigint_ends_select_move_with_keyboard_interrupt() -> None:
    # In a child process with Python's own SIGINT handling, as a user pressing Ctrl-C would have it
    # (installed explicitly: a child started from a background job inherits SIGINT ignored).
    # select_move has no stop(): were the signal ignored, the child would run until the timeout.
    # It has no callback either: the child's profiler says "searching" as the native select_move
    # is called, and the signal is sent then.
    child = (
        "import signal, sys, ferrochess\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "def calls(frame, event, function):\n"
        "    if event == 'c_call' and function is ferrochess._core.select_move:\n"
        "        sys.setprofile(None)\n"
        "        print('searching', flush=True)\n"
        "sys.setprofile(calls)\n"
        "try:\n"
        f"    ferrochess.select_move({MIDDLEGAME_FEN!r}, 60)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "searching"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WATCHDOG_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail("select_move ignored SIGINT until the timeout")
    assert "interrupted" in out, err
