"""ferrochess: a chess engine with a Rust core, shaped like python-chess.

>>> import chess, chess.engine, ferrochess
>>> ferrochess.select_move(chess.Board(), depth=3)  # doctest: +SKIP
'e2e4'
>>> with ferrochess.Engine() as engine:  # doctest: +SKIP
...     result = engine.play(chess.Board(), chess.engine.Limit(depth=6))

Positions are a :class:`chess.Board` (with its history) or a FEN string; limits are
:class:`chess.engine.Limit`; results are python-chess objects. Bad input raises a
:class:`ValueError` subclass from :mod:`ferrochess.exceptions` whose message quotes the input.
"""

from __future__ import annotations

from ferrochess._core import (
    BENCH_DEPTH,
    DEFAULT_HASH_MB,
    DEFAULT_LEVEL,
    DEFAULT_THREADS,
    MAX_DEPTH,
    MAX_HASH_MB,
    MAX_MULTIPV,
    MAX_THREADS,
    __version__,
)
from ferrochess.analysis import AnalysisSummary, analyse_game, analyse_pgn, annotate_pgn
from ferrochess.book import Book, BuildReport, build_book, open_book
from ferrochess.engine import (
    DEFAULT_BOOK,
    Engine,
    Level,
    SearchOptions,
    bench,
    evaluate,
    levels,
    perft,
    select_move,
)
from ferrochess.exceptions import (
    AnalysisOutputError,
    EngineError,
    FerrochessError,
    FileError,
    IllegalMoveError,
    InvalidBookError,
    InvalidFenError,
    InvalidLimitError,
    InvalidNetworkError,
    InvalidPositionsError,
    InvalidWeightsError,
    MissingExtraError,
    MissingTableError,
    TablebaseError,
)
from ferrochess.openings import Opening, opening
from ferrochess.tablebase import SYZYGY_PATH_ENV, Tablebase, open_tablebase
from ferrochess.texel import TuneProgress, TuneResult, texel_tune
from ferrochess.weights import ClassicWeights, Tapered

__all__ = [
    "BENCH_DEPTH",
    "DEFAULT_BOOK",
    "DEFAULT_HASH_MB",
    "DEFAULT_LEVEL",
    "DEFAULT_THREADS",
    "MAX_DEPTH",
    "MAX_HASH_MB",
    "MAX_MULTIPV",
    "MAX_THREADS",
    "SYZYGY_PATH_ENV",
    "AnalysisOutputError",
    "AnalysisSummary",
    "Book",
    "BuildReport",
    "ClassicWeights",
    "Engine",
    "EngineError",
    "FerrochessError",
    "FileError",
    "IllegalMoveError",
    "InvalidBookError",
    "InvalidFenError",
    "InvalidLimitError",
    "InvalidNetworkError",
    "InvalidPositionsError",
    "InvalidWeightsError",
    "Level",
    "MissingExtraError",
    "MissingTableError",
    "Opening",
    "SearchOptions",
    "Tablebase",
    "TablebaseError",
    "Tapered",
    "TuneProgress",
    "TuneResult",
    "__version__",
    "analyse_game",
    "analyse_pgn",
    "annotate_pgn",
    "bench",
    "build_book",
    "evaluate",
    "levels",
    "open_book",
    "open_tablebase",
    "opening",
    "perft",
    "select_move",
    "texel_tune",
]
