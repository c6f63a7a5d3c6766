"""The Rust extension module behind ferrochess (hand-written stub, checked by mypy.stubtest).

Every function takes positions as a FEN plus the UCI moves played from it, so the core sees the game
history and can detect repetitions. Long computations release the GIL. Errors are the classes of
:mod:`ferrochess.exceptions`: bad input raises a ``ValueError`` subclass quoting the input.
Prefer the python-chess-shaped wrappers in :mod:`ferrochess`; this module is their foundation.
"""

import os
from collections.abc import Callable, Sequence
from typing import TypedDict, final

from typing_extensions import NotRequired

__all__ = [
    "__version__",
    "MAX_DEPTH",
    "FIFTY_MOVE_PLIES",
    "MAX_HASH_MB",
    "MAX_THREADS",
    "MAX_MULTIPV",
    "DEFAULT_HASH_MB",
    "DEFAULT_THREADS",
    "DEFAULT_LEVEL",
    "DEFAULT_BUILD_MAX_PLY",
    "DEFAULT_BUILD_MIN_GAMES",
    "BENCH_DEPTH",
    "TABLEBASE_VERDICTS",
    "Engine",
    "Book",
    "select_move",
    "perft",
    "bench",
    "legal_moves",
    "build_book",
    "DEFAULT_BOOK",
    "ECO_LINES_PGN",
    "Tablebase",
    "SYZYGY_PATH_ENV",
    "levels",
    "evaluate",
    "uci",
    "ClassicWeights",
    "CLASSIC_TERMS",
    "CLASSIC_MAX_WEIGHT",
    "texel_tune",
]

__version__: str
"""The version of the ferrochess crate this module was built from."""

MAX_DEPTH: int
"""The deepest search or perft depth accepted, in plies (64)."""

FIFTY_MOVE_PLIES: int
"""Half-moves without a capture or pawn move after which the fifty-move rule draws (100)."""

MAX_HASH_MB: int
"""The largest transposition table accepted, in mebibytes (16384)."""

MAX_THREADS: int
"""The most threads one search may use."""

MAX_MULTIPV: int
"""The most lines (principal variations) one search may report."""

DEFAULT_HASH_MB: int
"""The transposition table's size when none is given, in mebibytes."""

DEFAULT_THREADS: int
"""Threads per search when none is given."""

DEFAULT_LEVEL: int
"""The playing level a game starts at when none is chosen (see :func:`levels`)."""

DEFAULT_BUILD_MAX_PLY: int
""":func:`build_book`'s plies per game when ``max_ply`` is None."""

DEFAULT_BUILD_MIN_GAMES: int
""":func:`build_book`'s games per move when ``min_games`` is None."""

TABLEBASE_VERDICTS: list[str]
"""The words of a tablebase verdict, best first: "win", "cursed win", "draw", "blessed loss",
"loss"."""

BENCH_DEPTH: int
"""The search depth :func:`bench` uses when none is given."""

SYZYGY_PATH_ENV: str
"""``"FERROCHESS_SYZYGY_PATH"``: the environment variable naming the tablebase directories."""

DEFAULT_BOOK: str
"""``"default"``: the name of the compiled-in opening book wherever a book path is accepted."""
ECO_LINES_PGN: str
"""The ECO opening lines of the default book (PGN text), the default openings of matches."""

class _Line(TypedDict):
    """One principal variation of a search result."""

    multipv: int
    """Rank of this line, 1 for the best."""
    score_cp: int | None
    """Centipawns from the side to move's point of view, or None when the score is a mate."""
    score_mate: int | None
    """Moves to mate: > 0 the side to move mates, < 0 it is mated; None for a centipawn score."""
    tablebase: str | None
    """What the Syzygy tables say of the position, from the side to move's point of view:
    ``"win"``, ``"cursed win"``, ``"draw"``, ``"blessed loss"`` or ``"loss"`` (WDL 2 to -2). A
    tablebase move (``source`` ``"tablebase"``) has one of the five; a search's line ``"win"`` or
    ``"loss"`` when its score is the tables' (in the band below the mates), else None; None for
    a book move."""
    pv: list[str]
    """The principal variation in UCI notation, starting with this line's first move."""

class _SearchStats(TypedDict):
    """Counters of one search, for studying how the search behaves."""

    quiescence_nodes: int
    """Nodes visited by the quiescence search (included in ``nodes``)."""
    cutoffs: int
    """Beta cut-offs in the main search."""
    tt_hits: int
    """Transposition table probes that found the position."""
    evaluations: int
    """Static evaluations computed (by the network or the hand-crafted evaluation); those the
    transposition table remembered are not computed again."""

class _SearchInfo(TypedDict):
    """A search result, also passed to the callback after every completed iteration."""

    move: str | None
    """Best move in UCI (castling as e1g1), None when the side to move has no legal move."""
    ponder: str | None
    """Expected reply (second move of the best line), or None."""
    depth: int
    """Deepest completed iteration, in plies (0 when there is no legal move)."""
    seldepth: int
    """Deepest ply reached, quiescence included."""
    nodes: int
    """Nodes searched."""
    time: float
    """Seconds spent."""
    nps: int
    """Nodes per second."""
    hashfull: int
    """Transposition table usage in permille."""
    tbhits: int
    """Tablebase hits (always 0 for now)."""
    lines: list[_Line]
    """Principal variations, best first; empty when there is no legal move."""
    stats: _SearchStats
    """Search counters."""
    source: str
    """``"search"``, ``"book"`` when the move came from the opening book (no search, no score:
    ``lines`` holds the book move alone, depth and nodes are 0) or ``"tablebase"`` when the
    tablebases chose it (``lines`` holds it alone with its score, depth and nodes are 0)."""
    book_weight: int | None
    """The book move's weight when ``source`` is ``"book"``, else None."""
    wdl: int | None
    """For a tablebase move: the outcome with best play under the position's 50-move clock (2 win,
    1 a win the rule spoils, 0 draw, -1 a loss it saves, -2 loss); else None."""
    dtz: int | None
    """For a tablebase move: plies to the next zeroing move (capture, pawn move, mate) along it,
    signed like ``wdl``; else None."""
    tablebase_error: str | None
    """Why the search stopped probing the tablebases (a table that could not be read), or None."""
    book_moves: list[tuple[str, int]]
    """The engine's book moves of the position as ``(uci, weight)``, heaviest first (empty when
    there is no book or the position is not in it, and in callback results)."""

_BoardState = tuple[
    tuple[int, int, int, int, int, int, int, int], bool, int, int | None, int, int
]
"""A position as python-chess keeps it (``ferrochess.interop.board_state``): the bitboards of
white, black, pawns, knights, bishops, rooks, queens and kings; the turn (True for White); the
squares of the rooks that may castle; the en passant square or None; the halfmove clock; the
fullmove number."""

class _Term(TypedDict):
    """One term of the evaluation, from White's point of view, in centipawns."""

    middlegame: int
    endgame: int
    blended: int
    """The two blended by the game phase."""

class _TermShare(TypedDict):
    """One positional term's share of the evaluation, from White's point of view, in
    centipawns."""

    middlegame: int
    endgame: int
    blended: int
    """The two blended by the game phase."""
    counts: list[int]
    """The features its weights multiply: White's count minus Black's, one per weight."""

class _Evaluation(TypedDict):
    """The static evaluation taken apart (see :func:`evaluate`)."""

    phase: int
    """0 (kings and pawns) to ``max_phase`` (every piece on the board)."""
    max_phase: int
    material: _Term
    """Piece values."""
    placement: _Term
    """Piece-square bonuses."""
    pawn_structure: _Term
    """Doubled, isolated, backward, supported and side-by-side pawns."""
    passed_pawns: _Term
    """Passed pawns by rank, blocked, and each king's distance to the square in front."""
    mobility: _Term
    """Squares the knights, bishops, rooks and queens reach."""
    king_safety: _Term
    """Attacks on the enemy king's neighbourhood, the own king's pawn shelter and open files."""
    pieces: _Term
    """Bishop pair, rooks on open files, pieces attacked by pawns, knight outposts."""
    tempo: int
    """The bonus for having the move, from White's point of view (+ when White is to move)."""
    white: int
    """The evaluation from White's point of view."""
    side_to_move: int
    """The evaluation from the side to move's point of view (what the search uses)."""
    terms: NotRequired[dict[str, _TermShare]]
    """With ``terms=True``: each positional term's share, by its name in :data:`CLASSIC_TERMS`."""

class _BenchResult(TypedDict):
    """The signature of a :func:`bench` run."""

    positions: int
    """Number of bench positions searched."""
    depth: int
    """Search depth used for each position."""
    nodes: int
    """Total nodes over all positions: the bench signature."""
    time: float
    """Wall-clock seconds."""
    nps: int
    """Nodes per second."""

class _BuildReport(TypedDict):
    """What :func:`build_book` did."""

    games: int
    """Games read, broken ones included."""
    broken_games: int
    """Games skipped: an illegal or unreadable move, a bad FEN tag or a chess variant."""
    problems: list[str]
    """Descriptions of the first broken games."""
    positions: int
    """Distinct positions in the book."""
    entries: int
    """Entries written."""
    bytes: int
    """Bytes of PGN read."""

def select_move(
    fen: str,
    depth: int,
    moves: Sequence[str] = ...,
    book: str | None = ...,
    seed: int | None = None,
    syzygy_path: str | None = None,
    chess960: bool = False,
) -> str | None:
    """Return the move to play, or None when there is no legal move.

    The position is ``fen`` followed by ``moves`` (UCI, default none), so repetitions in the
    history count. When the position is in ``book`` (``"default"``: the compiled-in book; a path;
    None: no book) a book move is chosen at random by weight (``seed`` makes it reproducible);
    otherwise, when the Syzygy tables in ``syzygy_path`` (a path list; None: none) cover the
    position, their move; otherwise the search goes ``depth`` plies deep with a fresh
    transposition table sized to the depth, the GIL released. The move is in UCI notation with
    castling as e1g1; with ``chess960`` the game is Chess960 (``fen`` as Shredder-FEN or X-FEN,
    castling read and written as the king taking its own rook, e1h1) and the book is not used.

    Raises InvalidFenError for a bad FEN, IllegalMoveError for a bad move in ``moves``,
    InvalidLimitError unless 1 <= depth <= MAX_DEPTH, FileError and InvalidBookError for a bad book.
    """

def build_book(
    inputs: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    max_ply: int | None = None,
    min_games: int | None = None,
    progress: Callable[[int, int, int], object] | None = None,
) -> _BuildReport | None:
    """Build a Polyglot book at ``output`` from the PGN files ``inputs``, as ``polyglot make-book``.

    The first ``max_ply`` moves of every game count; a move scores 2 per win and 1 per draw or
    unknown result for the side that played it; moves seen in fewer than ``min_games`` games, or
    scoring nothing, are left out. Broken games are skipped and counted. ``progress(bytes_read,
    total_bytes, games)`` is called now and then; an exception it raises (or Ctrl-C) stops the
    build, writes nothing and propagates. The file is written whole or not at all.

    Raises FileError naming an unreadable input or unwritable output, InvalidLimitError for
    max_ply < 0 or min_games < 1 or no input.
    """

def evaluate(
    fen: str,
    moves: Sequence[str] = ...,
    *,
    chess960: bool = False,
    weights: ClassicWeights | None = None,
    terms: bool = False,
) -> _Evaluation:
    """The static evaluation of ``fen`` after ``moves``, term by term (``chess960``: the game is
    Chess960, its castling moves the king taking its own rook), under ``weights`` (None: the
    default ones); with ``terms``, each positional term's share too."""

CLASSIC_TERMS: list[tuple[str, int, str]]
"""The hand-crafted evaluation's positional terms in order: (name, how many weights, the group of
:func:`evaluate` it counts in)."""

CLASSIC_MAX_WEIGHT: int
"""The largest magnitude of any classical weight, in centipawns (10000)."""

@final
class ClassicWeights:
    """The hand-crafted evaluation's weights, frozen (``ferrochess.ClassicWeights`` is the
    Python-side, editable form)."""

    def __new__(
        cls,
        material: Sequence[tuple[int, int]],
        tables: Sequence[Sequence[tuple[int, int]]],
        terms: Sequence[tuple[int, int]],
        tempo: int,
    ) -> ClassicWeights:
        """Weights from (middlegame, endgame) pairs: ``material`` and ``tables`` per piece type
        pawn..king, each table a1..h8 from White's side; ``terms`` in the order of
        :data:`CLASSIC_TERMS`. Raises InvalidWeightsError for a wrong length or a value beyond
        :data:`CLASSIC_MAX_WEIGHT`."""

    @staticmethod
    def default() -> ClassicWeights:
        """The weights the engine plays with."""

    @property
    def material(self) -> list[tuple[int, int]]:
        """Material per piece type, pawn..king."""

    @property
    def tables(self) -> list[list[tuple[int, int]]]:
        """The piece-square tables per piece type, each a1..h8 from White's side."""

    @property
    def terms(self) -> list[tuple[int, int]]:
        """The positional terms' weights in the order of :data:`CLASSIC_TERMS`."""

    @property
    def tempo(self) -> int:
        """The bonus for the side to move."""

    @property
    def name(self) -> str:
        """``"classic"`` for the default weights, else ``"classic-"`` and 12 hex digits of a
        hash of every value."""

    def __eq__(self, value: object, /) -> bool: ...

class _TuneOutcome(TypedDict):
    """What :func:`texel_tune` returns."""

    weights: ClassicWeights
    k: float
    train_positions: int
    validation_positions: int
    loss_before: float
    loss_after: float
    validation_before: float | None
    validation_after: float | None
    epochs_run: int
    cancelled: bool
    interrupted: bool
    """Ctrl-C stopped it (``cancelled`` is then True too)."""

def texel_tune(
    positions: Sequence[tuple[str, float]],
    weights: ClassicWeights,
    *,
    epochs: int,
    learning_rate: float,
    regularize: float,
    tune: Sequence[str],
    validation: float,
    k: float | None = None,
    callback: Callable[[int, int, float, float | None], object] | None = None,
) -> _TuneOutcome:
    """Fits the weights ``tune`` names to ``positions`` (FEN, White's score 0..1) by Texel's
    method, with the GIL released. ``callback(epoch, epochs, train_loss, validation_loss)`` runs
    after every epoch; returning False stops the run, an exception it raises is raised here.
    Ctrl-C on the main thread stops the run (``interrupted``). Raises InvalidFenError for a bad
    FEN and InvalidLimitError for a setting out of range or an unknown name in ``tune``."""

def uci() -> None:
    """Speak UCI on the process's stdin and stdout until ``quit`` or the end of input (the GIL is
    released meanwhile). Used by ``ferrochess uci``."""

def levels() -> list[
    tuple[int, str, int | None, int | None, int, int, int, int, str, int | None, int | None, int]
]:
    """The playing levels, weakest first: ``(number, name, max_depth, max_nodes, candidates,
    window, temperature, elo, calibration, elo_low, elo_high, games)``. A level caps the search
    at ``max_depth`` plies and ``max_nodes`` nodes (None: no cap), searches ``candidates`` lines
    and plays one of those within ``window`` centipawns of the best, a line ``temperature``
    centipawns worse being e times less likely.
    ``elo`` is its strength on Stockfish 15.1's ``UCI_Elo`` scale at 10 s + 0.1 s from the
    generated calibration table, ``elo_low``..``elo_high`` its 95% interval (None: none in the
    table) and ``games`` the games behind it; ``calibration`` is ``"measured"`` (with these
    settings and the current network) or ``"stale"`` (other settings or another evaluation)."""

def perft(fen: str, depth: int, *, chess960: bool = False) -> int:
    """Count the leaf nodes of the legal move tree of ``fen`` to ``depth`` plies (depth 0 gives 1).

    With ``chess960`` the FEN is read as Chess960 (Shredder-FEN or X-FEN castling rights) and
    Chess960's castling moves are counted.

    Raises InvalidFenError for a bad FEN and InvalidLimitError unless 0 <= depth <= MAX_DEPTH.
    """

def bench(depth: int | None = None) -> _BenchResult:
    """Search the fixed bench positions to ``depth`` (default BENCH_DEPTH) with a fresh engine.

    The total node count is deterministic for a given build of the search: it is the signature
    quoted as ``Bench: N``. Raises InvalidLimitError for a depth outside 1..=MAX_DEPTH.
    """

def legal_moves(fen: str, moves: Sequence[str] = ..., *, chess960: bool = False) -> list[str]:
    """Return the legal moves (UCI, castling as e1g1) of ``fen`` after ``moves`` (default none).

    With ``chess960`` the game is Chess960: castling is read and written as the king taking its
    own rook (e1h1).

    Raises InvalidFenError for a bad FEN and IllegalMoveError for a bad move in ``moves``.
    """

@final
class Engine:
    """A searcher that keeps its transposition table and histories between searches.

    One Engine may be shared between threads: concurrent calls are serialised by an internal lock
    taken with the GIL released. :meth:`stop` may be called from any thread at any time.
    """

    def __new__(
        cls,
        hash_mb: int | None = None,
        seed: int | None = None,
        book: str | None = None,
        book_choice: str = ...,
        book_min_weight: int | None = None,
        book_max_ply: int | None = None,
        syzygy_path: str | None = None,
        alpha_beta: bool = True,
        quiescence: bool = True,
        move_ordering: bool = True,
        transposition_table: bool = True,
        threads: int | None = None,
        pruning: bool = True,
        evaluation: str | ClassicWeights = ...,
        eval_file: str | None = None,
    ) -> Engine:
        """Create an engine with a ``hash_mb`` mebibyte transposition table (None: 16).

        ``book`` (``"default"``, a path, or None) is consulted by searches with ``use_book``:
        ``book_choice`` is ``"weighted"``, ``"uniform"`` or ``"best"``; entries lighter than
        ``book_min_weight`` (None: 1) are ignored; the book is left after ``book_max_ply`` plies.
        ``seed`` makes the book choices reproducible (None: a fresh random seed). ``syzygy_path``
        (a path list like ``a:b``; None: none) names Syzygy tables probed at the root and in the
        search; a missing directory raises FileError. ``alpha_beta``, ``quiescence``,
        ``move_ordering`` and ``transposition_table`` switch those parts of the search off when
        False (for study; all on plays best), and ``pruning`` the selective search (null-move,
        futility and late move pruning, reductions). ``threads`` (None: 1) searches with that many
        threads sharing the table (lazy SMP). ``evaluation`` is ``"network"`` (the compiled-in
        network, or the network file ``eval_file``), ``"classic"`` (the hand-crafted one) or
        :class:`ClassicWeights` (the hand-crafted one with those weights).
        Raises InvalidLimitError for an out-of-range value (hash_mb outside 1..MAX_HASH_MB,
        threads outside 1..MAX_THREADS, a bad choice or evaluation name), FileError for a missing
        file, InvalidBookError for a bad book and InvalidNetworkError for a file that is not a
        usable network.
        """

    def search(
        self,
        fen: str,
        moves: Sequence[str] = ...,
        *,
        depth: int | None = None,
        nodes: int | None = None,
        time: float | None = None,
        white_clock: float | None = None,
        black_clock: float | None = None,
        white_inc: float | None = None,
        black_inc: float | None = None,
        remaining_moves: int | None = None,
        mate: int | None = None,
        multipv: int | None = None,
        exclude_moves: Sequence[str] = ...,
        use_book: bool = False,
        level: int | None = None,
        elo: int | None = None,
        callback: Callable[[_SearchInfo], object] | None = None,
        chess960: bool = False,
    ) -> _SearchInfo:
        """Search ``fen`` after ``moves`` (UCI, default none) within the limits; return the result.

        Limits mirror chess.engine.Limit (times in seconds; ``time`` is a fixed move time); the
        search ends at the first one reached, or when :meth:`stop` is called. ``multipv`` is the
        number of best lines returned (None: 1). Root moves in ``exclude_moves`` (UCI) are never
        searched nor played. With ``use_book`` (only for multipv 1) a book move is returned without
        a search when the engine's book has one. With multipv 1, a position the tablebases cover
        is answered by them. ``level`` (1..10, see :func:`levels`) caps the search and chooses the
        line played among near-best ones; that line comes first in ``lines``. ``elo``
        (800..2800, not with ``level``) does the same at settings interpolated between the two
        levels rated around it (clamped to level 1 and full strength). ``callback`` gets
        the result so far after every completed iteration (with the GIL held); an exception it
        raises stops the search and propagates. With ``chess960`` the game is Chess960: ``fen``
        is read as Shredder-FEN or X-FEN, castling moves (in ``moves``, ``exclude_moves`` and the
        result) are the king taking its own rook (e1h1), and the book is neither played nor
        listed in ``book_moves``.

        Raises InvalidFenError, IllegalMoveError, and InvalidLimitError for an out-of-range value or
        when no limit is given at all (the search would never end); EngineError when called from
        this engine's own callback (it would wait for itself; ``stop()`` is allowed there).
        """

    def stop(self) -> None:
        """Make a running search return its best move so far; harmless when none is running."""

    def new_game(self) -> None:
        """Forget everything learnt: clear the transposition table and move-ordering histories.

        Waits for a running search; raises EngineError when called from this engine's own callback.
        """

    @property
    def hash_mb(self) -> int:
        """Size of the transposition table in mebibytes."""

    @property
    def evaluation(self) -> str:
        """``"classic"`` (default weights), ``"classic-"`` and 12 hex digits (other weights), or
        the network's name (``nn-`` and 12 hex digits)."""

    @property
    def threads(self) -> int:
        """Threads per search."""

    @property
    def seed(self) -> int | None:
        """The seed given at construction, or None."""

    @property
    def book(self) -> str | None:
        """The book's path (``"default"`` for the compiled-in one), or None."""

    @property
    def syzygy_path(self) -> str | None:
        """The tablebase directories, joined like ``PATH``, or None."""

    @property
    def syzygy_max_pieces(self) -> int:
        """The largest piece count the tablebases cover (0 without tablebases)."""

    @property
    def switches(self) -> tuple[bool, bool, bool, bool, bool]:
        """``(alpha_beta, quiescence, move_ordering, transposition_table, pruning)``."""

@final
class Book:
    """A Polyglot opening book, memory-mapped: opening is instant, lookups binary searches."""

    def __new__(cls, path: str) -> Book:
        """Open and check the book at ``path`` (``"default"``: the compiled-in book).

        Raises FileError (an OSError) naming the path when it cannot be read, and InvalidBookError
        when its size is not a multiple of 16 bytes or its keys are not sorted.
        """

    @property
    def path(self) -> str:
        """The path the book was opened from."""

    def __len__(self) -> int:
        """Number of entries in the file."""

    def find_all(
        self, fen: str, moves: Sequence[str] = ..., minimum_weight: int = 1
    ) -> list[tuple[int, int, int, int, str]]:
        """Return ``(key, raw_move, weight, learn, uci)`` for each legal book move of ``fen`` after
        ``moves``, in file order, leaving out weights below ``minimum_weight``.

        Raises InvalidFenError and IllegalMoveError for a bad position.
        """

    def find_all_board(
        self, state: _BoardState, minimum_weight: int = 1
    ) -> list[tuple[int, int, int, int, int, int, int | None]]:
        """Like :meth:`find_all` for a position given as python-chess keeps it (``state``: see
        ``_BoardState``). Returns
        ``(key, raw_move, weight, learn, from_square, to_square, promotion)`` with python-chess's
        square and piece type numbers (castling as the king's move, e1g1). Raises
        InvalidFenError, quoting the position's FEN, when it is not a legal position.
        """

@final
class Tablebase:
    """Syzygy tables, opened lazily file by file."""

    def __new__(cls, path: str) -> Tablebase:
        """Open the tables of the directories in ``path`` (a path list like ``a:b``).

        Raises FileError naming a directory that is missing, unreadable or without tables, and
        InvalidLimitError when ``path`` names no directory.
        """

    @property
    def directories(self) -> list[str]:
        """The directories the tables were read from."""

    @property
    def max_pieces(self) -> int:
        """The largest piece count of a loaded table."""

    def probe_fen(self, metric: str, fen: str, moves: Sequence[str] = ...) -> int | None:
        """WDL (``metric`` ``"wdl"``) or DTZ (``"dtz"``) of ``fen`` after ``moves``, or None when
        the tables do not hold it. Raises TablebaseError for an unreadable table."""

    def probe_board(self, metric: str, state: _BoardState) -> int | None:
        """Like :meth:`probe_fen` for a position given as python-chess keeps it (``state``: see
        ``_BoardState``)."""
