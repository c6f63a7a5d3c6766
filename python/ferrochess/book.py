"""Polyglot opening books, shaped like python-chess's :mod:`chess.polyglot` reader.

``open_book(path)`` returns a :class:`Book`, usable as a context manager, whose lookups take a
:class:`chess.Board` (or a FEN) and give :class:`chess.polyglot.Entry` tuples, so code written for
``chess.polyglot.open_reader`` works unchanged. The file is memory-mapped by the Rust core: a book
of any size opens at once and each lookup is a binary search. ``find``, ``weighted_choice`` and
``choice`` raise :class:`IndexError` when the position is not in the book; ``get`` returns a
default.
"""

from __future__ import annotations

import os
import random as random_module
from collections.abc import Container, Iterator
from typing import Union

import chess
import chess.polyglot

from ferrochess import _core
from ferrochess._closing import Closing
from ferrochess.exceptions import EngineError
from ferrochess.interop import BoardLike, to_history

__all__ = ["Book", "open_book"]

PathLike = Union[str, "os.PathLike[str]"]


class Book(Closing):
    """An open Polyglot book. Entries whose move is illegal in the position are never returned."""

    def __init__(self, path: PathLike) -> None:
        self._book: _core.Book | None = _core.Book(os.fspath(path))
        self._path = os.fspath(path)

    def __repr__(self) -> str:
        state = "closed" if self._book is None else f"{len(self._book)} entries"
        return f"<ferrochess.Book {self._path!r} {state}>"

    def __len__(self) -> int:
        return len(self._opened())

    @property
    def path(self) -> str:
        """The path the book was opened from."""
        return self._path

    def close(self) -> None:
        """Release the file; idempotent. Lookups afterwards raise EngineError."""
        self._book = None

    def _opened(self) -> _core.Book:
        if self._book is None:
            raise EngineError(f"the book {self._path!r} is closed")
        return self._book

    def find_all(
        self,
        board: BoardLike,
        *,
        minimum_weight: int = 1,
        exclude_moves: Container[chess.Move] = (),
    ) -> Iterator[chess.polyglot.Entry]:
        """Yield the book entries of ``board`` in file order, as :class:`chess.polyglot.Entry`.

        Entries below ``minimum_weight`` or whose move is in ``exclude_moves`` are left out, and so
        are entries whose move is illegal in the position.
        """
        fen, moves = to_history(board)
        for key, raw_move, weight, learn, uci in self._opened().find_all(
            fen, moves, max(0, min(minimum_weight, 0xFFFF))
        ):
            move = chess.Move.from_uci(uci)
            if move not in exclude_moves:
                yield chess.polyglot.Entry(key, raw_move, weight, learn, move)

    def find(
        self,
        board: BoardLike,
        *,
        minimum_weight: int = 1,
        exclude_moves: Container[chess.Move] = (),
    ) -> chess.polyglot.Entry:
        """The entry with the highest weight (the first of equals); IndexError if there is none."""
        best = None
        for entry in self.find_all(
            board, minimum_weight=minimum_weight, exclude_moves=exclude_moves
        ):
            if best is None or entry.weight > best.weight:
                best = entry
        if best is None:
            raise IndexError(f"no book move for {_describe(board)}")
        return best

    def get(
        self,
        board: BoardLike,
        default: chess.polyglot.Entry | None = None,
        *,
        minimum_weight: int = 1,
        exclude_moves: Container[chess.Move] = (),
    ) -> chess.polyglot.Entry | None:
        """Like :meth:`find`, but return ``default`` when the position is not in the book."""
        try:
            return self.find(board, minimum_weight=minimum_weight, exclude_moves=exclude_moves)
        except IndexError:
            return default

    def choice(
        self,
        board: BoardLike,
        *,
        minimum_weight: int = 1,
        exclude_moves: Container[chess.Move] = (),
        random: random_module.Random | None = None,
    ) -> chess.polyglot.Entry:
        """A uniformly random entry; IndexError if there is none."""
        entries = list(
            self.find_all(board, minimum_weight=minimum_weight, exclude_moves=exclude_moves)
        )
        if not entries:
            raise IndexError(f"no book move for {_describe(board)}")
        return (random or random_module).choice(entries)

    def weighted_choice(
        self,
        board: BoardLike,
        *,
        exclude_moves: Container[chess.Move] = (),
        random: random_module.Random | None = None,
    ) -> chess.polyglot.Entry:
        """A random entry chosen in proportion to its weight; IndexError if there is none."""
        entries = list(self.find_all(board, minimum_weight=1, exclude_moves=exclude_moves))
        if not entries:
            raise IndexError(f"no book move for {_describe(board)}")
        weights = [entry.weight for entry in entries]
        return (random or random_module).choices(entries, weights=weights)[0]


def open_book(path: PathLike) -> Book:
    """Open a Polyglot ``.bin`` book.

    Raises :class:`~ferrochess.FileError` (an OSError) naming the path when the file is missing or
    unreadable, and :class:`~ferrochess.InvalidBookError` (a ValueError) when its size is not a
    multiple of 16 bytes or its keys are not sorted.
    """
    return Book(path)


def _describe(board: BoardLike) -> str:
    return repr(board.fen()) if isinstance(board, chess.Board) else repr(board)
