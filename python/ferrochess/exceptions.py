"""The exceptions every ferrochess call may raise.

The Rust core imports this module and raises these classes by name, so the whole library maps its
errors in one place. Bad input (a FEN, a move, a limit) raises a :class:`ValueError` subclass whose
message quotes the offending value; :class:`EngineError` means a bug inside ferrochess.
"""

from __future__ import annotations

__all__ = [
    "AnalysisOutputError",
    "EngineError",
    "FerrochessError",
    "FileError",
    "IllegalMoveError",
    "InvalidBookError",
    "InvalidNetworkError",
    "InvalidFenError",
    "InvalidLimitError",
    "InvalidPositionsError",
    "InvalidWeightsError",
    "MissingExtraError",
    "MissingTableError",
    "TablebaseError",
]


class FerrochessError(Exception):
    """Base class of every error raised by ferrochess; catch this to catch them all."""


class InvalidFenError(FerrochessError, ValueError):
    """A FEN could not be parsed or describes an impossible position.

    Raised for a malformed FEN (wrong field count, bad piece placement, castling or en passant
    field) and for positions that cannot occur (no king, two kings of one colour, the side not to
    move in check, pawns on the first or last rank). The message quotes the FEN.
    """


class IllegalMoveError(FerrochessError, ValueError):
    """A move in a game history is malformed or illegal in the position it is played from.

    The message quotes the move and the FEN of the position it was tried in.
    """


class InvalidLimitError(FerrochessError, ValueError):
    """A search limit or engine setting is out of range.

    Covers depth, nodes, time and clock values, hash size and multipv, as well as a search with no
    limit at all (which would never end). The message quotes the offending value.
    """


class FileError(FerrochessError, OSError):
    """A file or directory (an opening book, a tablebase folder) is missing or unreadable.

    The message names the path and the operating system's reason.
    """


class InvalidBookError(FerrochessError, ValueError):
    """A Polyglot book file is malformed: its size is not a multiple of 16 bytes, or its keys are
    not sorted. The message names the path."""


class InvalidNetworkError(FerrochessError, ValueError):
    """A network file (``eval_file``) is not one the engine can use: not a ferrochess network,
    another format version, truncated or too long for its sizes, or its weights do not match the
    hash in its header. The message names the path and what is wrong."""


class InvalidWeightsError(FerrochessError, ValueError):
    """Weights of the hand-crafted evaluation (:class:`ferrochess.ClassicWeights`) are malformed:
    a JSON file that is not weights, a field missing or unknown, an array of the wrong length, a
    value that is not a whole number of centipawns or lies beyond ``CLASSIC_MAX_WEIGHT``. The
    message names the field (and the file)."""


class InvalidPositionsError(FerrochessError, ValueError):
    """Positions given to :func:`ferrochess.texel_tune` are malformed: a line that is neither
    ``FEN | score | result`` nor ``FEN;RESULT``, or a result that is not White's score from 0 to 1
    (``1-0``, ``1/2-1/2`` and ``0-1`` are read too). The message names the file and line, or the
    position's index."""


class TablebaseError(FerrochessError, OSError):
    """A Syzygy table file could not be read or is corrupt. The message names the table."""


class MissingTableError(FerrochessError, KeyError):
    """The tablebases do not hold the position: no table for its material, castling rights, or more
    pieces than the largest table. A :class:`KeyError`, like python-chess's
    ``chess.syzygy.MissingTableError``; the ``get_*`` lookups return a default instead."""


class AnalysisOutputError(FerrochessError, ValueError):
    """An analysis output file cannot be continued: it is not an analysis file, or it was written
    with other settings (a different limit). The message names the file and both settings."""


class MissingExtraError(FerrochessError, ImportError):
    """What was asked needs an optional part of ferrochess that is not installed (``ferrochess
    serve`` needs the ``serve`` extra, a PostgreSQL archive the ``postgresql`` one). The message
    names what needs it and the exact ``pip install`` line; :attr:`extra` is the extra's name and
    :attr:`install` that line. The command line exits 2 with the message, never a traceback."""

    def __init__(self, what: str, extra: str, missing: str) -> None:
        self.extra = extra
        self.install = install_line(extra)
        super().__init__(
            f"{what} needs {missing}, which is not installed: {self.install}", name=missing
        )


def install_line(extra: str) -> str:
    """The command that installs the extra ``extra``: ``pip install "ferrochess[serve]"``."""
    return f'pip install "ferrochess[{extra}]"'


def require_extra(what: str, extra: str, *modules: str) -> None:
    """Nothing when every one of ``modules`` can be imported; else :class:`MissingExtraError`
    naming ``what`` needs them and the ``pip install`` line of ``extra``. Finds the modules
    without importing them."""
    import importlib.util

    for module in modules:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise MissingExtraError(what, extra, module)


class EngineError(FerrochessError, RuntimeError):
    """An internal failure of the engine (for example a caught Rust panic).

    This should never happen; if it does, it is a bug in ferrochess, not in the caller's input.
    Also raised when an :class:`~ferrochess.Engine` is used after :meth:`~ferrochess.Engine.close`.
    """
