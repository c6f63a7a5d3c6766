"""A fixed pool of engines shared by the requests of the play app.

Each request borrows an engine for one search and gives it back; when none comes free within the
configured wait, :class:`Busy` is raised (the app answers 503 with ``Retry-After``), so load never
builds an unbounded queue. Searches release the GIL, so the server keeps answering meanwhile.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from contextlib import contextmanager

from ferrochess.engine import BookSpec, Engine, PathSpec

__all__ = ["Busy", "EnginePool"]


class Busy(Exception):
    """Every engine of the pool stayed busy for the whole wait."""


class EnginePool:
    """``engines`` Engines (at least 1) with the given book and tablebases."""

    def __init__(
        self, engines: int, hash_mb: int, book: BookSpec, syzygy_path: PathSpec
    ) -> None:
        if engines < 1:
            raise ValueError(f"FERROCHESS_ENGINES must be at least 1, not {engines}")
        self._lend([Engine(hash_mb, book=book, syzygy_path=syzygy_path) for _ in range(engines)])
        self._owned = True

    @classmethod
    def lending(cls, engine: Engine, *, owned: bool) -> EnginePool:
        """A pool of the one ``engine`` given (a notebook widget's); :meth:`close` closes it only
        when ``owned``."""
        pool = cls.__new__(cls)
        pool._lend([engine])
        pool._owned = owned
        return pool

    def _lend(self, engines: list[Engine]) -> None:
        self._free: queue.Queue[Engine] = queue.Queue()
        self.size = len(engines)
        for engine in engines:
            self._free.put(engine)

    @contextmanager
    def engine(self, wait_seconds: float) -> Iterator[Engine]:
        """Borrow an engine for the ``with`` block; Busy when none is free within the wait."""
        try:
            engine = self._free.get(timeout=max(wait_seconds, 0.001))
        except queue.Empty:
            raise Busy from None
        try:
            yield engine
        finally:
            self._free.put(engine)

    def free(self) -> int:
        """How many engines are free now (a snapshot)."""
        return self._free.qsize()

    def close(self) -> None:
        """Close the engines that are free now, if the pool owns them (an engine in use is closed
        when garbage)."""
        while True:
            try:
                engine = self._free.get_nowait()
            except queue.Empty:
                return
            if self._owned:
                engine.close()
