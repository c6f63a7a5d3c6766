"""The python-chess-shaped face of the engine: :class:`Engine` and the one-shot functions.

Positions are a :class:`chess.Board` (its move history is passed on, so repetitions count) or a FEN
string; a board with ``chess960=True`` is a game of Chess960, and so is a FEN string given with
``chess960=True`` (as ``chess.Board(fen, chess960=True)`` reads it); limits are
:class:`chess.engine.Limit`; results are :class:`chess.engine.PlayResult` and
:class:`chess.engine.InfoDict`, so code written for ``chess.engine.SimpleEngine`` carries over.
All searching happens in the Rust core with the GIL released.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Union, overload

import chess
import chess.engine

from ferrochess import _core
from ferrochess._closing import Closing
from ferrochess.exceptions import EngineError
from ferrochess.interop import (
    BoardLike,
    game_of,
    info_dicts,
    limit_to_kwargs,
    move_or_none,
    turn_of,
)
from ferrochess.weights import ClassicWeights

if TYPE_CHECKING:
    from ferrochess._core import _BenchResult, _Evaluation, _SearchInfo

__all__ = [
    "DEFAULT_BOOK",
    "BookChoice",
    "BookSpec",
    "Engine",
    "InfoCallback",
    "Level",
    "SearchOptions",
    "bench",
    "evaluate",
    "levels",
    "perft",
    "select_move",
]

InfoCallback = Callable[[chess.engine.InfoDict], object]
"""A search callback: receives an InfoDict after each completed iteration; its result is ignored."""

DEFAULT_BOOK = _core.DEFAULT_BOOK
"""``"default"``: names the opening book compiled into ferrochess wherever a book is accepted."""

BookSpec = Union[str, "os.PathLike[str]", None]
"""A book argument: ``"default"`` (the compiled-in book), the path of a Polyglot file, or None."""

BookChoice = Literal["weighted", "uniform", "best"]
EvaluationName = Literal["network", "classic"]
"""How a book move is picked: by weight at random, uniformly at random, or the heaviest."""


PathSpec = Union[str, "os.PathLike[str]", None]
"""A tablebase argument: a directory or a path list (``a:b``); None for the environment variable
``FERROCHESS_SYZYGY_PATH``; ``""`` for no tablebases."""


@dataclass(frozen=True)
class SearchOptions:
    """Parts of the search to switch off, to see what each is worth (all on plays best).

    ``SearchOptions(alpha_beta=False, quiescence=False, move_ordering=False,
    transposition_table=False)`` is the plain minimax of the textbooks; the search statistics in
    ``info["stats"]`` and ``info["nodes"]`` show the difference each part makes. Alpha-beta
    without ``pruning`` (and without quiescence) returns exactly the minimax score; the selective
    search gives that up for depth.
    """

    alpha_beta: bool = True
    """Alpha-beta pruning. Off: every move is searched with a full window and nothing is cut off
    (mate distance pruning, stand-pat cut-offs and delta pruning go too)."""
    quiescence: bool = True
    """The quiescence search at the horizon. Off: the static evaluation is taken there, even in the
    middle of an exchange (the horizon effect)."""
    move_ordering: bool = True
    """Ordering moves (table move, captures by MVV-LVA, killers, history). Off: moves are searched
    in the order they are generated."""
    transposition_table: bool = True
    """The transposition table. Off: never probed nor written."""
    pruning: bool = True
    """The selective search on top of alpha-beta: null-move, ProbCut, reverse futility,
    futility, late move, history and static-exchange pruning, late move and internal iterative
    reductions, singular extensions, the correction history's correction of the static
    evaluation and its shrinking as the 50-move rule nears, static-exchange pruning in the
    quiescence search. Off: alpha-beta without quiescence returns exactly the minimax score,
    only slower (the quiescence search's delta pruning belongs to alpha-beta)."""


def evaluate(
    board: BoardLike,
    *,
    chess960: bool | None = None,
    weights: ClassicWeights | None = None,
    terms: bool = False,
) -> _Evaluation:
    """The static evaluation of ``board`` term by term, in centipawns (``chess960``: a FEN
    string of Chess960, see :func:`ferrochess.interop.game_of`), under the classical
    ``weights`` (a :class:`~ferrochess.ClassicWeights`; None: the ones the engine plays with).

    Returns ``{"phase", "max_phase", "material", "placement", "pawn_structure", "passed_pawns",
    "mobility", "king_safety", "pieces", "tempo", "white", "side_to_move"}``: ``phase`` runs
    from 0 (kings and pawns only) to ``max_phase`` (24, every piece); ``material``,
    ``placement`` (piece-square bonuses) and the positional terms are each ``{"middlegame",
    "endgame", "blended"}`` from White's point of view, blended by the phase; ``tempo`` is the
    bonus for having the move (White's view); ``white`` is the total (White's view) and
    ``side_to_move`` the same for the side to move, which is what the search uses at its leaves.

    With ``terms=True`` the result has ``"terms"`` too: each positional term's share by its name
    (:data:`ferrochess.weights.TERMS`, the attributes of ClassicWeights), ``{"middlegame",
    "endgame", "blended", "counts"}``, ``counts`` the features its weights multiply (White's
    count minus Black's, one per weight: 8 by rank for ``passed_pawn``, 4 by piece for
    ``mobility``). Raises InvalidWeightsError naming a malformed field of ``weights``.
    """
    root_fen, moves, is_960 = game_of(board, chess960)
    core_weights = None if weights is None else weights._to_core()
    return _core.evaluate(root_fen, moves, chess960=is_960, weights=core_weights, terms=terms)


class Level(NamedTuple):
    """A playing level (see :func:`levels`)."""

    number: int
    """1 (weakest) to 10 (full strength)."""
    name: str
    max_depth: int | None
    """Deepest search in plies (None: no cap)."""
    max_nodes: int | None
    """Most nodes searched per move (None: no cap)."""
    candidates: int
    """Moves searched to choose from."""
    window: int
    """Only moves within this many centipawns of the best are played."""
    temperature: int
    """A move this many centipawns worse than the best is played e (2.718) times less often."""
    elo: int
    """About how strongly it plays: Elo on Stockfish 15.1's ``UCI_Elo`` scale at 10 s + 0.1 s a
    game, fitted from games against Stockfish and the neighbouring levels by ``make calibrate``
    (the generated table ``src/level/table.rs``; docs/benchmarks-history.md, "Level
    calibration"). What ``Engine.play(elo=...)`` and ``UCI_Elo`` interpolate between."""
    calibration: str
    """``"measured"``: ``elo`` was measured with these settings and the current network;
    ``"stale"``: with other settings or another evaluation, so the level may play stronger or
    weaker than ``elo`` says."""
    elo_low: int | None
    """Lower end of ``elo``'s 95% interval (None when the table has no interval)."""
    elo_high: int | None
    """Upper end of ``elo``'s 95% interval (None when the table has no interval)."""
    games: int
    """Games behind ``elo``."""


def levels() -> list[Level]:
    """The playing levels for :meth:`Engine.play`, weakest first.

    A weaker level looks less far ahead and chooses among the few moves its search rates close to
    the best, so it plays natural moves and misses deeper tactics rather than blundering at
    random. Level 10 is the full search. The ten levels are points on one strength curve, and
    each level's ``elo`` comes from the generated calibration table (games against Stockfish
    15.1 at 10 s + 0.1 s, BENCHMARKS.md); at longer time controls the stronger levels, whose caps
    bind less, gain more than the weaker ones.
    """
    return [Level(*level) for level in _core.levels()]


def _book_name(book: BookSpec) -> str | None:
    return None if book is None else os.fspath(book)


def _syzygy_path(path: PathSpec) -> str | None:
    """The tablebase path list to open: ``path``, else the environment variable; None for none."""
    if path is None:
        path = os.environ.get(_core.SYZYGY_PATH_ENV, "")
    return os.fspath(path) or None


def _warn_tablebase_error(result: _SearchInfo) -> None:
    error = result.get("tablebase_error")
    if error:
        warnings.warn(
            f"tablebases not used for the rest of this search: {error}",
            RuntimeWarning,
            stacklevel=3,
        )


def select_move(
    board: BoardLike,
    depth: int,
    *,
    book: BookSpec = DEFAULT_BOOK,
    seed: int | None = None,
    syzygy_path: PathSpec = None,
    chess960: bool | None = None,
) -> str | None:
    """Return the move to play for the side to move in UCI notation, or None when it has none.

    ``board`` is a :class:`chess.Board` (its history counts for repetitions; it is not modified) or
    a FEN string. When the position is in ``book`` (the compiled-in default book unless another
    path, or None for no book, is given), a book move is returned at once, chosen at random in
    proportion to its weight; ``seed`` makes that choice reproducible. Otherwise, when the Syzygy
    tables in ``syzygy_path`` (default: the ``FERROCHESS_SYZYGY_PATH`` environment variable; ``""``
    for none) cover the position, their best move is returned. Otherwise the search goes ``depth``
    plies deep (1..MAX_DEPTH) with a fresh table sized to the depth, probing the tables. Castling
    is written king-to-destination (e1g1), as :meth:`chess.Move.from_uci` expects; in Chess960
    (a board with ``chess960=True``, or a FEN string with ``chess960=True``) it is the king taking
    its own rook (``e1h1``), as python-chess keeps it on a Chess960 board, and the book is never
    consulted (it holds standard chess).

    Raises InvalidFenError, IllegalMoveError (a bad move in the history), InvalidLimitError (depth
    out of range), FileError/InvalidBookError (an unreadable or malformed book, a missing
    tablebase directory) and TypeError (``board`` neither a Board nor a str).
    """
    root_fen, moves, is_960 = game_of(board, chess960)
    return _core.select_move(
        root_fen, depth, moves, _book_name(book), seed, _syzygy_path(syzygy_path), is_960
    )


def perft(board: BoardLike, depth: int, *, chess960: bool | None = None) -> int:
    """Return the number of leaf nodes of the legal move tree of ``board`` to ``depth`` plies.

    Counts from the current position (the history does not change the count); depth 0 gives 1.
    A Chess960 board (or a FEN string with ``chess960=True``) counts Chess960's castling moves.
    Raises InvalidFenError, InvalidLimitError (depth outside 0..MAX_DEPTH) and TypeError.
    """
    root_fen, _moves, is_960 = game_of(board, chess960)
    if isinstance(board, chess.Board):
        root_fen = board.fen(shredder=True) if is_960 else board.fen()
    return _core.perft(root_fen, depth, chess960=is_960)


def bench(depth: int | None = None) -> _BenchResult:
    """Search the fixed bench positions and return their signature.

    Returns ``{"positions", "depth", "nodes", "time", "nps"}``; ``nodes`` is deterministic for a
    given search and is what a commit message quotes as ``Bench: N``. ``depth`` defaults to
    BENCH_DEPTH. Raises InvalidLimitError for a depth out of range.
    """
    return _core.bench() if depth is None else _core.bench(depth)


class Engine(Closing):
    """A long-lived searcher with its own transposition table and opening book, shaped like
    python-chess engines.

    ``hash_mb`` is the table size in mebibytes (1..MAX_HASH_MB, else InvalidLimitError). ``seed``
    makes the engine's random choices (its book moves) reproducible: two Engines with the same
    seed play the same game; None draws a fresh seed. The table persists between searches until
    :meth:`new_game`.

    :meth:`play` takes its move from ``book`` when the position is in it: ``"default"`` (the
    compiled-in book of opening theory), the path of a Polyglot ``.bin`` file, or None for no
    book. ``book_choice`` picks among the book moves: ``"weighted"`` (at random, in proportion to
    weight, as Polyglot does), ``"uniform"`` or ``"best"`` (the heaviest, always the same);
    entries lighter than ``book_min_weight`` are ignored; once the game is ``book_max_ply`` plies
    old (counted from the FEN's move number) the book is left. A missing or malformed book raises
    FileError or InvalidBookError here, not at the first move.

    ``syzygy_path`` names Syzygy endgame tables: a directory or a path list (``a:b``); None reads
    the ``FERROCHESS_SYZYGY_PATH`` environment variable, ``""`` means none. When they cover a
    position (no castling rights, few enough pieces) :meth:`play` and :meth:`analyse` take the
    tables' move, which keeps the result under the 50-move rule (the quickest win, a held draw,
    the slowest loss), and the search scores positions after captures and pawn moves from them.
    A missing directory raises FileError here.

    ``search_options`` (a :class:`SearchOptions`) switches parts of the search off, for study.

    ``evaluation`` is ``"network"`` (the default: a neural network, NNUE, compiled into the
    package; ``eval_file`` loads another network file instead, and a file that is not one raises
    InvalidNetworkError naming it), ``"classic"``, the hand-crafted evaluation that
    :func:`ferrochess.evaluate` takes apart term by term, or a :class:`~ferrochess.ClassicWeights`:
    the hand-crafted evaluation with those weights (copied: changing them later changes nothing
    here). :attr:`evaluation` says which plays.

    ``threads`` (1..MAX_THREADS, else InvalidLimitError) searches with that many threads sharing
    the transposition table (lazy SMP): on two cores two threads reach a given depth sooner (see
    BENCHMARKS.md, "Threads"); the search is then no longer reproducible node for node. A search
    for one line under a clock, a time or a node limit (``play``, or ``analyse`` with
    ``multipv=1``) plays the move the threads' last completed iterations vote for, weighted by
    depth and score as Stockfish chooses (a mate or a tablebase win is kept); its ``depth``,
    ``seldepth`` and ``pv`` are then the chosen thread's, so the depth can be below the last one
    an ``info`` callback saw. A fixed-depth, mate or MultiPV search, and a ``level`` or ``elo``
    below full strength (which caps the depth), answer with the main thread's lines.

    One Engine may be used from several threads: searches are serialised, and :meth:`stop` works
    from any thread. Use it as a context manager or call :meth:`close` when done; a closed Engine
    raises EngineError.
    """

    def __init__(
        self,
        hash_mb: int = _core.DEFAULT_HASH_MB,
        seed: int | None = None,
        *,
        book: BookSpec = DEFAULT_BOOK,
        book_choice: BookChoice = "weighted",
        book_min_weight: int = 1,
        book_max_ply: int | None = None,
        syzygy_path: PathSpec = None,
        search_options: SearchOptions | None = None,
        threads: int = _core.DEFAULT_THREADS,
        evaluation: EvaluationName | ClassicWeights = "network",
        eval_file: PathSpec = None,
    ) -> None:
        options = search_options or SearchOptions()
        chosen = evaluation._to_core() if isinstance(evaluation, ClassicWeights) else evaluation
        self._core: _core.Engine | None = _core.Engine(
            hash_mb,
            seed,
            _book_name(book),
            book_choice,
            book_min_weight,
            book_max_ply,
            _syzygy_path(syzygy_path),
            options.alpha_beta,
            options.quiescence,
            options.move_ordering,
            options.transposition_table,
            threads,
            options.pruning,
            chosen,
            None if eval_file is None else os.fspath(eval_file),
        )
        self._search_options = options
        self._evaluation = self._core.evaluation
        self._hash_mb = self._core.hash_mb
        self._threads = self._core.threads
        self._seed = self._core.seed
        self._book = self._core.book
        self._syzygy_path = self._core.syzygy_path
        self._syzygy_max_pieces = self._core.syzygy_max_pieces
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        state = " closed" if self._core is None else ""
        return (
            f"<ferrochess.Engine hash_mb={self._hash_mb} threads={self._threads} seed={self._seed} "
            f"book={self._book!r}{state}>"
        )

    @property
    def book(self) -> str | None:
        """The book :meth:`play` consults (``"default"`` or a path), or None."""
        return self._book

    @property
    def evaluation(self) -> str:
        """How positions are evaluated: ``"classic"`` (the default classical weights),
        ``"classic-"`` and 12 hex digits for other :class:`~ferrochess.ClassicWeights` (their
        :attr:`~ferrochess.ClassicWeights.name`), or the network's name (``nn-`` and the first
        12 hex digits of its weights' hash)."""
        return self._evaluation

    @property
    def search_options(self) -> SearchOptions:
        """The parts of the search switched on or off (see :class:`SearchOptions`)."""
        return self._search_options

    @property
    def syzygy_path(self) -> str | None:
        """The tablebase directories probed, joined like ``PATH``, or None."""
        return self._syzygy_path

    @property
    def syzygy_max_pieces(self) -> int:
        """The largest piece count the tablebases cover (0 without tablebases)."""
        return self._syzygy_max_pieces

    @property
    def hash_mb(self) -> int:
        """Size of the transposition table in mebibytes."""
        return self._hash_mb

    @property
    def threads(self) -> int:
        """Threads per search."""
        return self._threads

    @property
    def seed(self) -> int | None:
        """The seed given at construction, or None."""
        return self._seed

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._core is None

    def _engine(self) -> _core.Engine:
        engine = self._core
        if engine is None:
            raise EngineError("the Engine is closed")
        return engine

    def _search(
        self,
        board: BoardLike,
        limit: chess.engine.Limit,
        multipv: int,
        callback: InfoCallback | None,
        exclude_moves: Iterable[chess.Move],
        use_book: bool,
        level: int | None = None,
        elo: int | None = None,
        chess960: bool | None = None,
    ) -> tuple[_SearchInfo, chess.Color]:
        root_fen, moves, is_960 = game_of(board, chess960)
        excluded = [move.uci() for move in exclude_moves]
        kwargs = limit_to_kwargs(limit)
        engine = self._engine()
        turn = board.turn if isinstance(board, chess.Board) else turn_of(root_fen, moves)
        core_callback: Callable[[_SearchInfo], object] | None = None
        if callback is not None:
            user_callback = callback

            def forward(result: _SearchInfo) -> None:
                for info in info_dicts(result, turn):
                    user_callback(info)

            core_callback = forward
        result = engine.search(
            root_fen,
            moves,
            multipv=multipv,
            exclude_moves=excluded,
            use_book=use_book,
            level=level,
            elo=elo,
            callback=core_callback,
            chess960=is_960,
            **kwargs,
        )
        _warn_tablebase_error(result)
        return result, turn

    def play(
        self,
        board: BoardLike,
        limit: chess.engine.Limit,
        *,
        level: int | None = None,
        elo: int | None = None,
        use_book: bool = True,
        exclude_moves: Iterable[chess.Move] = (),
        callback: InfoCallback | None = None,
        chess960: bool | None = None,
    ) -> chess.engine.PlayResult:
        """Return the move to play in ``board``: from the book when it has one, else from the
        tablebases when they cover the position, else by a search within ``limit``.

        ``board`` is a :class:`chess.Board` (history counts, board unmodified) or a FEN string.
        Any of the Limit's depth, nodes, time, clocks, increments, remaining_moves and mate may be
        set; a Limit with none set raises InvalidLimitError (even when a book move is found).
        The result's ``move`` is None only when the side to move has no legal move, ``ponder`` is
        the expected reply (or None), and ``info`` says how the move was found: for a book move
        ``info["source"] == "book"`` and ``info["book_weight"]`` is its weight (there is no score
        and ``depth`` and ``nodes`` are 0); for a tablebase move ``info["source"] ==
        "tablebase"`` with ``wdl``, ``dtz`` and ``tablebase`` (see :meth:`analyse`); for a search
        ``info["source"] == "search"`` and ``info`` is the InfoDict of the best line. The engine
        never plays a move in ``exclude_moves``, from the book, the tables or the search
        (excluding every legal move raises InvalidLimitError). ``level`` (a number of
        :func:`ferrochess.levels`) plays weaker: a shallower search choosing among near-best
        moves; None is full strength. ``elo`` (800 to 2800) plays at about that Elo instead: the
        settings between the two levels whose ``elo`` is around it, interpolated along the
        levels' strength curve (at a level's own ``elo``, exactly that level); below level 1's
        ``elo`` it plays level 1, above full strength's it plays full strength. Giving both
        ``level`` and ``elo``, or an ``elo`` outside 800..2800, raises InvalidLimitError naming
        ``elo``. ``use_book=False`` skips the book for this move.
        ``callback`` receives an InfoDict after each completed iteration; an exception it raises
        stops the search and propagates. Inside the callback this Engine's ``stop()`` may be
        called, but not its ``play``/``analyse``/``new_game`` (EngineError: the call would wait
        for itself). A board with ``chess960=True`` (or a FEN string with ``chess960=True``) is
        a game of Chess960: its moves, castling included, come back as python-chess keeps them on
        such a board (the king takes its own rook) and the book is skipped.
        """
        result, turn = self._search(
            board, limit, 1, callback, exclude_moves, use_book, level, elo, chess960
        )
        return chess.engine.PlayResult(
            move_or_none(result["move"]),
            move_or_none(result["ponder"]),
            info_dicts(result, turn)[0],
        )

    @overload
    def analyse(
        self,
        board: BoardLike,
        limit: chess.engine.Limit,
        multipv: None = None,
        *,
        exclude_moves: Iterable[chess.Move] = (),
        callback: InfoCallback | None = None,
        chess960: bool | None = None,
    ) -> chess.engine.InfoDict: ...

    @overload
    def analyse(
        self,
        board: BoardLike,
        limit: chess.engine.Limit,
        multipv: int,
        *,
        exclude_moves: Iterable[chess.Move] = (),
        callback: InfoCallback | None = None,
        chess960: bool | None = None,
    ) -> list[chess.engine.InfoDict]: ...

    def analyse(
        self,
        board: BoardLike,
        limit: chess.engine.Limit,
        multipv: int | None = None,
        *,
        exclude_moves: Iterable[chess.Move] = (),
        callback: InfoCallback | None = None,
        chess960: bool | None = None,
    ) -> Any:
        """Search ``board`` within ``limit`` and return what the engine thinks of it.

        An analysis never plays from the book, since it is asked for a score; when the position is
        in the engine's book, each InfoDict also holds ``book_moves``: the book's moves there as
        ``(chess.Move, weight)`` pairs, heaviest first. When the engine's tablebases cover the
        position and one line is asked for, the tables answer: ``source`` is ``"tablebase"``,
        ``pv`` holds their move, ``wdl`` the outcome with best play counting the position's
        50-move clock (2 win, 1 a win the 50-move rule spoils, 0 draw, -1 a loss it saves, -2
        loss), ``dtz`` the plies to the next capture or pawn move along that move, and ``score``
        is ``Mate(1)``, a win or loss of ``Cp(±(20000 - dtz))``, or ``Cp(0)``; ``depth`` and
        ``nodes`` are 0. A search's scores use the same band (``Cp(±(20000 - plies))``) for
        positions the tables decide, and ``tbhits`` counts its probes. A table that cannot be read
        gives a RuntimeWarning and the search goes on without the tables. Read the tables' verdict
        from ``info["tablebase"]``, never from the band: ``"win"``, ``"cursed win"``,
        ``"draw"``, ``"blessed loss"`` or ``"loss"`` from the side to move's point of view
        (:data:`ferrochess.interop.TABLEBASE_VERDICTS`; turn it to another side's with
        :func:`ferrochess.interop.tablebase_pov`). A tablebase move always has it (from ``wdl``);
        a search's line has ``"win"`` or ``"loss"`` when its score came from the tables, and no
        ``tablebase`` key otherwise (a search cannot tell a cursed win from a small edge).

        Returns an InfoDict when ``multipv`` is None, else a list of ``multipv`` InfoDicts (fewer
        if there are fewer legal moves), best first, with distinct first moves: python-chess's
        convention. Each InfoDict holds ``score`` (:class:`chess.engine.PovScore` of Cp or Mate,
        from the side to move), ``pv`` (list of :class:`chess.Move`), ``multipv``, ``depth``,
        ``seldepth``, ``nodes``, ``nps``, ``time`` (seconds), ``hashfull`` (permille), ``tbhits``
        and ``source`` (``"search"``). With no legal move there is a single InfoDict without score
        and pv (an empty list when ``multipv`` is given). Root moves in ``exclude_moves`` are not
        searched. ``callback`` receives an InfoDict per line after each completed iteration.
        multipv < 1 raises InvalidLimitError; other errors as in :meth:`play`. Chess960 (and
        ``chess960``) as in :meth:`play`.
        """
        lines = 1 if multipv is None else multipv
        result, turn = self._search(
            board, limit, lines, callback, exclude_moves, False, chess960=chess960
        )
        infos = info_dicts(result, turn)
        if multipv is None:
            return infos[0]
        return infos if result["lines"] else []

    def stop(self) -> None:
        """Make a running search (in another thread) return its best move so far.

        Harmless when no search is running or the Engine is closed.
        """
        engine = self._core
        if engine is not None:
            engine.stop()

    def new_game(self) -> None:
        """Clear the transposition table and histories, so earlier searches have no influence.

        The book's random choices go on from where they were: a seeded Engine plays a different
        game after ``new_game``, but the same sequence of games every time it is run.
        """
        self._engine().new_game()

    def close(self) -> None:
        """Stop any running search and release the transposition table; idempotent."""
        with self._lock:
            engine, self._core = self._core, None
        if engine is not None:
            engine.stop()
