"""Syzygy endgame tablebases, shaped like python-chess's :mod:`chess.syzygy`.

``open_tablebase(path)`` opens the tables of one directory or several (a path list like ``a:b``)
and returns a :class:`Tablebase`, usable as a context manager. ``probe_wdl``/``probe_dtz`` take a
:class:`chess.Board` (or a FEN) and raise :class:`~ferrochess.MissingTableError` (a
:class:`KeyError`) when the tables do not hold the position; ``get_wdl``/``get_dtz`` return a
default instead. The values are python-chess's: WDL from the side to move, assuming the position
was reached by a capture or pawn move (2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss); DTZ
the plies to the next capture or pawn move with best play, signed like WDL.
"""

from __future__ import annotations

import os
from typing import Literal, TypeVar, Union

import chess

from ferrochess import _core
from ferrochess._closing import Closing
from ferrochess.exceptions import EngineError, MissingTableError
from ferrochess.interop import BoardLike, board_state, to_history

__all__ = ["SYZYGY_PATH_ENV", "Tablebase", "open_tablebase"]

SYZYGY_PATH_ENV = _core.SYZYGY_PATH_ENV
"""``FERROCHESS_SYZYGY_PATH``: the tablebase directories an Engine uses when given none."""

PathLike = Union[str, "os.PathLike[str]"]
T = TypeVar("T")


class Tablebase(Closing):
    """Open Syzygy tables (opened lazily, file by file, on the first probe that needs them)."""

    def __init__(self, path: PathLike) -> None:
        self._tables: _core.Tablebase | None = _core.Tablebase(os.fspath(path))
        self._directories = self._tables.directories
        self._max_pieces = self._tables.max_pieces

    def __repr__(self) -> str:
        state = " closed" if self._tables is None else ""
        return f"<ferrochess.Tablebase {os.pathsep.join(self._directories)!r}{state}>"

    @property
    def directories(self) -> list[str]:
        """The directories the tables were read from."""
        return list(self._directories)

    @property
    def max_pieces(self) -> int:
        """The largest number of pieces (kings included) of a loaded table."""
        return self._max_pieces

    def close(self) -> None:
        """Release the tables; idempotent. Probes afterwards raise EngineError."""
        self._tables = None

    def _probe(self, metric: Literal["wdl", "dtz"], board: BoardLike) -> int | None:
        tables = self._tables
        if tables is None:
            raise EngineError("the tablebase is closed")
        if isinstance(board, str):
            fen, moves = to_history(board)
            return tables.probe_fen(metric, fen, moves)
        return tables.probe_board(metric, board_state(board))

    def probe_wdl(self, board: BoardLike) -> int:
        """WDL of ``board`` (see the module docs); MissingTableError when the tables lack it."""
        return _found(self._probe("wdl", board), "WDL", board)

    def get_wdl(self, board: BoardLike, default: T | None = None) -> int | T | None:
        """Like :meth:`probe_wdl`, but return ``default`` when the tables do not hold ``board``."""
        wdl = self._probe("wdl", board)
        return default if wdl is None else wdl

    def probe_dtz(self, board: BoardLike) -> int:
        """DTZ of ``board`` in plies (see the module docs); MissingTableError when the tables lack
        it."""
        return _found(self._probe("dtz", board), "DTZ", board)

    def get_dtz(self, board: BoardLike, default: T | None = None) -> int | T | None:
        """Like :meth:`probe_dtz`, but return ``default`` when the tables do not hold ``board``."""
        dtz = self._probe("dtz", board)
        return default if dtz is None else dtz


def open_tablebase(path: PathLike) -> Tablebase:
    """Open the Syzygy tables in ``path``: a directory, or several joined like ``PATH`` (``a:b``).

    Raises :class:`~ferrochess.FileError` (an OSError) naming a directory that is missing,
    unreadable or holds no table. A table file found corrupt when probed raises
    :class:`~ferrochess.TablebaseError` (also an OSError) naming it.
    """
    return Tablebase(path)


def _found(value: int | None, metric: str, board: BoardLike) -> int:
    if value is None:
        fen = board.fen() if isinstance(board, chess.Board) else board
        raise MissingTableError(
            f"no {metric} table holds {fen!r} (castling rights, too many pieces or a missing table)"
        )
    return value
