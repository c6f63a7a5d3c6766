"""Where a match's games start: :class:`Opening` (a start position and the moves played from it)
and :class:`Openings`, a source of them with an order.

Sources: the ECO lines compiled into ferrochess (``ferrochess._core.ECO_LINES_PGN``, each line
balanced within +-0.9 pawns by Stockfish; the default), an EPD file (one position a line), a PGN
file (each game's main line, cut to ``plies``), a Polyglot book walked ``plies`` plies by weighted
random choice, the 960 numbered Chess960 start positions, or a list given in Python. Round ``k`` of
a match plays opening ``k`` twice, colours swapped. Random order shuffles the source with the
match's seed (fastchess's ``order=random``); ``start`` is the 1-based place in the (shuffled)
source of the first opening used; a source shorter than the match is used again from its start.
"""

from __future__ import annotations

import functools
import io
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Union

import chess
import chess.pgn

from ferrochess import _core
from ferrochess.exceptions import FileError
from ferrochess.match._seeds import derive_seed

__all__ = ["DEFAULT_PLIES", "Opening", "Openings", "OpeningsSpec", "as_openings"]

DEFAULT_PLIES = 8
"""Plies of the default openings (the ECO lines cut to 8 plies, as the repository's tools did)."""

Order = Literal["random", "sequential"]
Source = Literal["eco", "epd", "pgn", "book", "chess960", "list"]


@dataclass(frozen=True)
class Opening:
    """A start position (``fen``; Chess960 when ``chess960``) and the ``moves`` (UCI) played from
    it before the players take over; ``name`` says where it came from."""

    fen: str = chess.STARTING_FEN
    moves: tuple[str, ...] = ()
    chess960: bool = False
    name: str = ""

    def start(self) -> chess.Board:
        """The start position, before the opening moves."""
        return chess.Board(self.fen, chess960=self.chess960)

    def board(self) -> chess.Board:
        """The position the players start from: :meth:`start` with the moves played."""
        board = self.start()
        for move in self.moves:
            board.push_uci(move)
        return board

    @classmethod
    def of(cls, value: Opening | str | chess.Board, *, chess960: bool = False) -> Opening:
        """An Opening from an Opening (unchanged), a FEN, or a :class:`chess.Board` (its root and
        move stack). A bad FEN or move raises ValueError quoting it."""
        if isinstance(value, Opening):
            return value
        if isinstance(value, chess.Board):
            root = value.root()
            fen = root.fen(shredder=True) if value.chess960 else root.fen()
            moves = tuple(move.uci() for move in value.move_stack)
            return cls(fen, moves, value.chess960)
        if isinstance(value, str):
            try:
                board = chess.Board(value, chess960=chess960)
            except ValueError as error:
                raise ValueError(f"opening {value!r} is not a FEN: {error}") from None
            return cls(board.fen(shredder=chess960), (), chess960)
        raise ValueError(f"opening {value!r}: expected an Opening, a FEN or a chess.Board")


@dataclass(frozen=True)
class Openings:
    """A source of openings and the order they are played in (see the module docs). Build one
    with the class methods; ``select`` gives the openings a match plays."""

    source: Source = "eco"
    path: str | None = None
    plies: int | None = DEFAULT_PLIES
    order: Order = "random"
    start: int = 1
    positions: tuple[Opening, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        if self.order not in ("random", "sequential"):
            raise ValueError(f"order = {self.order!r}: must be 'random' or 'sequential'")
        if not isinstance(self.start, int) or self.start < 1:
            raise ValueError(f"start = {self.start!r}: must be a whole number >= 1")
        if self.plies is not None and (not isinstance(self.plies, int) or self.plies < 0):
            raise ValueError(f"plies = {self.plies!r}: must be a whole number >= 0")
        if self.source in ("epd", "pgn", "book") and not self.path:
            raise ValueError(f"a {self.source} source needs a path")
        if self.source == "list" and not self.positions:
            raise ValueError("openings: the list of positions is empty")

    @classmethod
    def eco(cls, plies: int = DEFAULT_PLIES, *, order: Order = "random", start: int = 1
            ) -> Openings:  # fmt: skip
        """ferrochess's ECO lines, each cut to ``plies`` plies (lines equal after the cut count
        once); the default openings."""
        return cls("eco", None, plies, order, start)

    @classmethod
    def epd(cls, path: str | os.PathLike[str], *, order: Order = "random", start: int = 1
            ) -> Openings:  # fmt: skip
        """The positions of an EPD file, one a line (``#`` starts a comment line)."""
        return cls("epd", os.fspath(path), None, order, start)

    @classmethod
    def pgn(cls, path: str | os.PathLike[str], *, plies: int | None = None,
            order: Order = "random", start: int = 1) -> Openings:  # fmt: skip
        """The games of a PGN file: each from its start position (its FEN tag, Chess960 when its
        Variant tag says so), its main line cut to ``plies`` plies (None: the whole line)."""
        return cls("pgn", os.fspath(path), plies, order, start)

    @classmethod
    def book(cls, path: str | os.PathLike[str] = "default", *, plies: int = DEFAULT_PLIES,
             order: Order = "random", start: int = 1) -> Openings:  # fmt: skip
        """Lines walked through a Polyglot book (``"default"``: ferrochess's own): ``plies``
        moves each chosen at random in proportion to its weight, seeded by the match's seed and
        the opening's number; a line ends early where the book has no move. ``order`` does not
        apply (every line is drawn at random)."""
        return cls("book", os.fspath(path), plies, order, start)

    @classmethod
    def chess960(cls, *, order: Order = "random", start: int = 1) -> Openings:
        """The 960 numbered Chess960 start positions (python-chess's
        ``chess.Board.from_chess960_pos``), sequential order from number ``start - 1``."""
        return cls("chess960", None, None, order, start)

    @classmethod
    def of(cls, positions: Iterable[Opening | str | chess.Board], *, order: Order = "sequential",
           start: int = 1, chess960: bool = False) -> Openings:  # fmt: skip
        """The given openings: Opening objects, FENs (of Chess960 with ``chess960``) or boards
        (see :meth:`Opening.of`)."""
        openings = tuple(Opening.of(p, chess960=chess960) for p in positions)
        return cls("list", None, None, order, start, openings)

    def select(self, count: int, seed: int, *, chess960: bool = False) -> list[Opening]:
        """The ``count`` openings of a match seeded ``seed``: opening ``k`` is round ``k``'s.
        ``chess960`` reads FENs (EPD, list) as Chess960 positions. A missing file raises
        :class:`~ferrochess.FileError`; a file without a usable opening, ValueError naming it."""
        if count <= 0:
            return []
        if self.source == "book":
            return [self._walk(seed, index) for index in range(count)]
        pool = self._pool(chess960)
        if not pool:
            raise ValueError(f"openings {self.path or self.source!r}: no opening found")
        if self.order == "random":
            pool = list(pool)
            random.Random(derive_seed(seed, "openings")).shuffle(pool)
        return [pool[(self.start - 1 + index) % len(pool)] for index in range(count)]

    def _pool(self, chess960: bool) -> Sequence[Opening]:
        if self.source == "eco":
            return _eco_lines(self.plies)
        if self.source == "chess960":
            return _chess960_positions()
        if self.source == "list":
            return self.positions
        assert self.path is not None
        text = _read(self.path)
        if self.source == "epd":
            return _epd_positions(text, self.path, chess960)
        return _pgn_lines(text, self.plies)

    def _walk(self, seed: int, index: int) -> Opening:
        from ferrochess.book import open_book

        assert self.path is not None
        rng = random.Random(derive_seed(seed, "book", index))
        board = chess.Board()
        with open_book(self.path) as book:
            for _ in range(self.plies or 0):
                try:
                    board.push(book.weighted_choice(board, random=rng).move)
                except IndexError:  # out of the book
                    break
        name = f"{Path(self.path).name} line {index + 1}"
        return Opening(chess.STARTING_FEN, tuple(m.uci() for m in board.move_stack), False, name)


OpeningsSpec = Union[Openings, str, "os.PathLike[str]", Sequence[Union[Opening, str, chess.Board]]]
"""What ``openings=`` accepts: :class:`Openings`, the path of an ``.epd``, ``.pgn`` or ``.bin``
file (read with the defaults of :meth:`Openings.epd`, :meth:`~Openings.pgn`,
:meth:`~Openings.book`), or a list of openings, FENs or boards (played in order)."""


def as_openings(value: OpeningsSpec | None, *, chess960: bool = False) -> Openings:
    """``value`` as :class:`Openings`; None gives the ECO lines, or with ``chess960`` the
    numbered Chess960 positions. An unknown file extension raises ValueError naming the path."""
    if value is None:
        return Openings.chess960() if chess960 else Openings.eco()
    if isinstance(value, Openings):
        return value
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        suffix = Path(path).suffix.lower()
        if suffix == ".epd":
            return Openings.epd(path)
        if suffix == ".pgn":
            return Openings.pgn(path)
        if suffix == ".bin" or path == "default":
            return Openings.book(path)
        raise ValueError(
            f"openings {path!r}: cannot tell the format from the extension (.epd, .pgn, .bin); "
            "use Openings.epd/pgn/book"
        )
    return Openings.of(value, chess960=chess960)


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise FileError(f"cannot read openings {path!r}: {error.strerror or error}") from None


@functools.lru_cache(maxsize=8)
def _eco_lines(plies: int | None) -> tuple[Opening, ...]:
    """The distinct ECO lines cut to ``plies``, sorted by their moves (a fixed order to shuffle)."""
    lines: dict[tuple[str, ...], Opening] = {}
    for opening in _pgn_lines(_core.ECO_LINES_PGN, plies):
        lines.setdefault(opening.moves, opening)
    return tuple(lines[key] for key in sorted(lines))


@functools.lru_cache(maxsize=1)
def _chess960_positions() -> tuple[Opening, ...]:
    def position(number: int) -> Opening:
        board = chess.Board.from_chess960_pos(number)
        return Opening(board.fen(shredder=True), (), True, f"Chess960 #{number}")

    return tuple(position(number) for number in range(960))


def _epd_positions(text: str, path: str, chess960: bool) -> list[Opening]:
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        board = chess.Board(chess960=chess960)
        try:
            operations = board.set_epd(line)
        except ValueError as error:
            raise ValueError(f"{path!r} line {number}: not an EPD position ({error})") from None
        name = operations.get("id")
        fen = board.fen(shredder=chess960)
        openings.append(Opening(fen, (), chess960, str(name) if name else f"{path}:{number}"))
    return openings


def _pgn_lines(text: str, plies: int | None) -> list[Opening]:
    openings = []
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None:
        board = game.board()
        moves = [move.uci() for move in game.mainline_moves()]
        if plies is not None:
            moves = moves[:plies]
        fen = board.fen(shredder=board.chess960)
        name = game.headers.get("Opening") or game.headers.get("Event", "")
        openings.append(Opening(fen, tuple(moves), board.chess960, name if name != "?" else ""))
    return openings
