"""Players at work: a :class:`Seat` is a player opened for one game slot (an Engine, an engine
process, a function) that thinks on a board under a limit and never blocks its caller past a
deadline or a cancel.

Every ``think`` waits for the move while polling the cancel event and the deadline; past the
deadline the search is stopped (ferrochess), cancelled and the process restarted (UCI), or
abandoned (a function), and the :class:`Thought` says ``"expired"``. Failures are reported, not
raised, except a player that cannot start (:class:`~ferrochess.match.PlayerError`) and errors in
ferrochess's own settings (they would fail every game).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

import chess
import chess.engine

from ferrochess.engine import Engine
from ferrochess.match.players import Ferrochess, Function, Player, PlayerError, Uci

__all__ = ["Failure", "Seat", "Thought", "open_seat"]

POLL_SECONDS = 0.05
"""How often a waiting seat looks at the cancel event."""
STOP_GRACE_SECONDS = 10.0
"""How long a stopped ferrochess search may take to return."""
QUIT_SECONDS = 2.0
"""How long an engine process gets to quit before it is killed."""

Failure = Literal["expired", "crashed", "illegal", "no move", "raised", "cancelled"]
T = TypeVar("T")


@dataclass
class Thought:
    """What a seat answered: a ``move`` (not yet checked for legality) with the mover's own
    ``score`` and search ``info``, the ``elapsed`` seconds, or a ``failure`` with its
    ``detail``."""

    move: chess.Move | None = None
    score: chess.engine.Score | None = None
    info: dict[str, Any] = field(default_factory=dict)
    elapsed: float = 0.0
    failure: Failure | None = None
    detail: str = ""


class Seat(Protocol):
    """A player opened for one game slot."""

    def new_game(self, seed: int) -> None:
        """Prepare a new game (``seed``: the game's own seed)."""

    def think(self, board: chess.Board, limit: chess.engine.Limit, wait: float | None,
              cancel: threading.Event) -> Thought:  # fmt: skip
        """The move for ``board`` within ``limit``; gives up after ``wait`` seconds (None:
        never) or when ``cancel`` is set."""

    def close(self) -> None:
        """Release what the seat holds; idempotent."""


def open_seat(player: Player) -> Seat:
    """A seat for ``player`` (nothing starts until its first game)."""
    if isinstance(player, Ferrochess):
        return FerrochessSeat(player)
    if isinstance(player, Uci):
        return UciSeat(player)
    return FunctionSeat(player)


class _Timed(concurrent.futures.Future):  # type: ignore[type-arg]
    """A future that notes when it completed (``perf_counter`` seconds)."""

    finished_at: float | None = None

    def set_result(self, result: Any) -> None:
        self.finished_at = time.perf_counter()
        super().set_result(result)

    def set_exception(self, exception: BaseException | None) -> None:
        self.finished_at = time.perf_counter()
        super().set_exception(exception)


def _in_thread(function: Callable[[], Any], name: str) -> _Timed:
    """Run ``function`` in a daemon thread of its own (abandoned if it never returns)."""
    future = _Timed()

    def run() -> None:
        try:
            result = function()
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread
            future.set_exception(error)
        else:
            future.set_result(result)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


def _wait(future: concurrent.futures.Future[Any], started: float, wait: float | None,
          cancel: threading.Event) -> Literal["done", "expired", "cancelled"]:  # fmt: skip
    while True:
        if wait is None:
            step = POLL_SECONDS
        else:
            step = min(POLL_SECONDS, max(0.0, started + wait - time.perf_counter()))
        done, _ = concurrent.futures.wait([future], timeout=step)
        if done:
            return "done"
        if cancel.is_set():
            return "cancelled"
        if wait is not None and time.perf_counter() >= started + wait:
            return "expired"


def _elapsed(future: concurrent.futures.Future[Any], started: float) -> float:
    finished = getattr(future, "finished_at", None)
    return (finished if finished is not None else time.perf_counter()) - started


def _relative(info: dict[str, Any]) -> chess.engine.Score | None:
    score = info.get("score")
    return score.relative if isinstance(score, chess.engine.PovScore) else None


class FerrochessSeat:
    """One :class:`ferrochess.Engine` per game, searching in a daemon thread."""

    def __init__(self, player: Ferrochess) -> None:
        self.player = player
        self.engine: Engine | None = None

    def new_game(self, seed: int) -> None:
        self.close()
        player = self.player
        self.engine = Engine(
            player.hash_mb, seed, book=None, syzygy_path=player.syzygy_path,
            search_options=player.search_options, threads=player.threads,
            evaluation=player.evaluation, eval_file=player.eval_file,
        )  # fmt: skip

    def think(self, board: chess.Board, limit: chess.engine.Limit, wait: float | None,
              cancel: threading.Event) -> Thought:  # fmt: skip
        engine = self.engine
        assert engine is not None, "new_game first"
        player = self.player

        def play() -> chess.engine.PlayResult:
            return engine.play(board, limit, level=player.level, elo=player.elo, use_book=False)

        started = time.perf_counter()
        future = _in_thread(play, "ferrochess-match-search")
        status = _wait(future, started, wait, cancel)
        if status != "done":
            engine.stop()
            concurrent.futures.wait([future], timeout=STOP_GRACE_SECONDS)
            if status == "cancelled":
                return Thought(failure="cancelled")
        result: chess.engine.PlayResult = future.result(timeout=0)  # settings errors propagate
        info = dict(result.info)
        return Thought(result.move, _relative(info), info, _elapsed(future, started),
                       "expired" if status == "expired" else None)  # fmt: skip

    def close(self) -> None:
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.close()


class UciSeat:
    """One engine process, started at the first game and restarted after it crashed or
    stalled."""

    def __init__(self, player: Uci) -> None:
        self.player = player
        self.engine: chess.engine.SimpleEngine | None = None
        self.game: object = None

    def _start(self) -> chess.engine.SimpleEngine:
        player = self.player
        opener = (chess.engine.SimpleEngine.popen_xboard if player.protocol == "xboard"
                  else chess.engine.SimpleEngine.popen_uci)  # fmt: skip
        popen_args: dict[str, Any] = {} if player.cwd is None else {"cwd": player.cwd}
        try:
            engine = opener(list(player.command), timeout=player.timeout, **popen_args)
        except (OSError, chess.engine.EngineError, asyncio.TimeoutError) as error:
            raise PlayerError(
                f"{player.name}: cannot start {' '.join(player.command)!r}: {error or 'timeout'}"
            ) from None
        try:
            if player.options:
                engine.configure(player.options)
        except (chess.engine.EngineError, asyncio.TimeoutError) as error:
            engine.close()
            raise PlayerError(f"{player.name}: rejects its options: {error}") from None
        return engine

    def new_game(self, seed: int) -> None:
        if self.engine is None:
            self.engine = self._start()
        self.game = object()  # python-chess sends ucinewgame when the game key changes

    def think(self, board: chess.Board, limit: chess.engine.Limit, wait: float | None,
              cancel: threading.Event) -> Thought:  # fmt: skip
        engine = self.engine
        if engine is None:
            return Thought(failure="crashed", detail="the engine is not running")
        coroutine = engine.protocol.play(
            board, limit, game=self.game, info=chess.engine.INFO_BASIC | chess.engine.INFO_SCORE
        )
        started = time.perf_counter()
        future = asyncio.run_coroutine_threadsafe(coroutine, engine.protocol.loop)
        finished: list[float] = []
        future.add_done_callback(lambda _: finished.append(time.perf_counter()))
        status = _wait(future, started, self.player.timeout if wait is None else wait, cancel)
        if status != "done":
            future.cancel()  # python-chess sends "stop"
            if status == "cancelled":
                return Thought(failure="cancelled")
            self._discard()  # it may never answer again: restart it for the next game
            return Thought(failure="expired", elapsed=time.perf_counter() - started)
        elapsed = (finished[0] if finished else time.perf_counter()) - started
        try:
            result = future.result()
        except chess.engine.EngineTerminatedError as error:
            self._discard()
            return Thought(failure="crashed", detail=str(error), elapsed=elapsed)
        except chess.engine.EngineError as error:
            return Thought(failure="illegal", detail=str(error), elapsed=elapsed)
        info = dict(result.info)
        if result.move is None:
            return Thought(failure="no move", info=info, elapsed=elapsed)
        return Thought(result.move, _relative(info), info, elapsed)

    def _discard(self) -> None:
        engine, self.engine = self.engine, None
        if engine is not None:
            engine.close()

    def close(self) -> None:
        engine, self.engine = self.engine, None
        if engine is None:
            return
        try:
            quit_ = asyncio.wait_for(engine.protocol.quit(), QUIT_SECONDS)
            asyncio.run_coroutine_threadsafe(quit_, engine.protocol.loop).result(QUIT_SECONDS + 1)
        except Exception:  # noqa: BLE001 - a dead or hung engine is killed below
            pass
        finally:
            engine.close()


class FunctionSeat:
    """A Python function called in a daemon thread of its own on a copy of the board."""

    def __init__(self, player: Function) -> None:
        self.player = player

    def new_game(self, seed: int) -> None:
        pass

    def think(self, board: chess.Board, limit: chess.engine.Limit, wait: float | None,
              cancel: threading.Event) -> Thought:  # fmt: skip
        function, copy = self.player.function, board.copy()
        started = time.perf_counter()
        future = _in_thread(lambda: function(copy), "ferrochess-match-function")
        status = _wait(future, started, wait, cancel)
        if status != "done":
            return Thought(failure=status, elapsed=time.perf_counter() - started)
        elapsed = _elapsed(future, started)
        try:
            answer = future.result(timeout=0)
        except Exception as error:  # noqa: BLE001 - the function's bug loses its game
            return Thought(failure="raised", detail=repr(error), elapsed=elapsed)
        if answer is None:
            return Thought(failure="no move", elapsed=elapsed)
        if isinstance(answer, str):
            try:
                answer = chess.Move.from_uci(answer)
            except ValueError:
                return Thought(failure="illegal", detail=repr(answer), elapsed=elapsed)
        if not isinstance(answer, chess.Move):
            return Thought(failure="illegal", detail=repr(answer), elapsed=elapsed)
        return Thought(answer, elapsed=elapsed)

    def close(self) -> None:
        pass
