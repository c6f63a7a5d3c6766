"""Polyglot opening books, shaped like python-chess's :mod:`chess.polyglot` reader, and a builder.

``open_book(path)`` returns a :class:`Book`, usable as a context manager, whose lookups take a
:class:`chess.Board` (or a FEN) and give :class:`chess.polyglot.Entry` tuples, so code written for
``chess.polyglot.open_reader`` works unchanged. The file is memory-mapped by the Rust core: a book
of any size opens at once and each lookup is a binary search. ``find``, ``weighted_choice`` and
``choice`` raise :class:`IndexError` when the position is not in the book; ``get`` returns a
default. ``open_book("default")`` opens the book compiled into ferrochess.

:func:`build_book` makes a book from PGN files the way ``polyglot make-book`` does.
"""

from __future__ import annotations

import os
import random as random_module
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from typing import Union

import chess
import chess.polyglot

from ferrochess import _core
from ferrochess._closing import Closing
from ferrochess.exceptions import EngineError
from ferrochess.interop import BoardLike, board_state, to_history

__all__ = ["Book", "BuildProgress", "BuildReport", "build_book", "open_book"]

PathLike = Union[str, "os.PathLike[str]"]

BuildProgress = Callable[[int, int, int], object]
"""A build progress callback: ``progress(bytes_read, total_bytes, games)``."""


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
        weight = max(0, min(minimum_weight, 0xFFFF))
        book = self._opened()
        if isinstance(board, str):
            fen, moves = to_history(board)
            for key, raw_move, weight_, learn, uci in book.find_all(fen, moves, weight):
                move = chess.Move.from_uci(uci)
                if move not in exclude_moves:
                    yield chess.polyglot.Entry(key, raw_move, weight_, learn, move)
            return
        # A board is passed as bitboards: no FEN to write, no history to replay.
        for key, raw_move, weight_, learn, from_square, to_square, promotion in (
            book.find_all_board(board_state(board), weight)
        ):
            move = chess.Move(from_square, to_square, promotion)
            if move not in exclude_moves:
                yield chess.polyglot.Entry(key, raw_move, weight_, learn, move)

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
    """Open a Polyglot ``.bin`` book; ``"default"`` opens the book compiled into ferrochess.

    Raises :class:`~ferrochess.FileError` (an OSError) naming the path when the file is missing or
    unreadable, and :class:`~ferrochess.InvalidBookError` (a ValueError) when its size is not a
    multiple of 16 bytes or its keys are not sorted.
    """
    return Book(path)


@dataclass(frozen=True)
class BuildReport:
    """What :func:`build_book` did."""

    games: int
    """Games read, broken ones included."""
    broken_games: int
    """Games skipped: an illegal or unreadable move among the plies used, a bad FEN tag, or a
    chess variant."""
    problems: list[str]
    """What was wrong with the first broken games (at most 20)."""
    positions: int
    """Distinct positions in the book."""
    entries: int
    """Entries written (positions times their moves)."""
    bytes: int
    """Bytes of PGN read."""


def build_book(
    pgn: PathLike | Iterable[PathLike],
    output: PathLike,
    *,
    max_ply: int = _core.DEFAULT_BUILD_MAX_PLY,
    min_games: int = _core.DEFAULT_BUILD_MIN_GAMES,
    progress: BuildProgress | None = None,
) -> BuildReport:
    """Build a Polyglot book at ``output`` from one PGN file or several, as ``polyglot make-book``.

    Each game counts for its first ``max_ply`` moves: a move scores 2 for a win and 1 for a draw
    (or an unknown result, ``*``) of the side that played it, and its weight in the book is that
    score summed over the games. Moves played in fewer than ``min_games`` games, or never scoring,
    are left out. PGN is read by a real parser: comments, variations and NAGs are skipped, a game
    with an illegal move (among the plies used) or a bad FEN tag is skipped and counted, and the
    build goes on. ``progress(bytes_read, total_bytes, games)`` is called now and then; an
    exception it raises, or Ctrl-C, stops the build and propagates, and nothing is written. The
    book is written to a temporary file renamed into place, so ``output`` is never half-written.

    Raises :class:`~ferrochess.FileError` naming an unreadable input or unwritable output and
    :class:`~ferrochess.InvalidLimitError` for ``max_ply < 0``, ``min_games < 1`` or no input.
    """
    paths = [os.fspath(pgn)] if isinstance(pgn, (str, os.PathLike)) else [
        os.fspath(path) for path in pgn
    ]
    report = _core.build_book(paths, os.fspath(output), max_ply, min_games, progress)
    if report is None:  # pragma: no cover - only when a callback stops without raising
        raise EngineError("the book build stopped without a reason")
    return BuildReport(**report)


def _describe(board: BoardLike) -> str:
    return repr(board.fen()) if isinstance(board, chess.Board) else repr(board)
