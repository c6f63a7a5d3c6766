"""Translation between python-chess objects and the plain values the Rust core speaks.

The core takes a position as a root FEN plus the UCI moves played from it (so repetitions in the
game history count) and returns plain dicts; this module turns python-chess objects into the
former and the latter into :class:`chess.Move`, :class:`chess.engine.PovScore` and
:class:`chess.engine.InfoDict`. Positions, moves and limit values are validated by the core alone,
so every such error is raised, and worded, in one place.

The other way, :func:`white_score` and :func:`san_line` turn an InfoDict's score and line into the
plain values of the play API and the game review (a score from White's point of view, SAN), and
:data:`MATE_CP` is what a mate is worth where a score must be one number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Union, cast

import chess
import chess.engine

from ferrochess import _core
from ferrochess.exceptions import InvalidFenError, InvalidLimitError

if TYPE_CHECKING:
    from ferrochess._core import _Line, _SearchInfo

__all__ = [
    "BoardLike",
    "BoardState",
    "board_state",
    "check_standard",
    "game_of",
    "LIMIT_FIELDS",
    "MATE_CP",
    "info_dicts",
    "limit_to_kwargs",
    "move_or_none",
    "pov_score",
    "san_line",
    "TABLEBASE_VERDICTS",
    "tablebase_pov",
    "to_history",
    "turn_of",
    "white_score",
]

BoardLike = Union[chess.Board, str]
"""What every public call accepts as a position: a :class:`chess.Board` or a FEN string."""

LIMIT_FIELDS = (
    "depth",
    "nodes",
    "time",
    "white_clock",
    "black_clock",
    "white_inc",
    "black_inc",
    "remaining_moves",
    "mate",
)
"""The :class:`chess.engine.Limit` fields the engine honours, by their keyword names."""


def to_history(board: BoardLike) -> tuple[str, list[str]]:
    """Return ``(root_fen, uci_moves)`` describing ``board`` with its whole move history.

    A :class:`chess.Board` gives the FEN of its root position and the UCI of every move in its
    move stack (unchecked: the core rejects illegal moves); a FEN string gives ``(fen, [])``.
    The board is not modified. Anything else, including variant boards, raises :class:`TypeError`
    naming the type; a Chess960 board raises :class:`~ferrochess.InvalidFenError` (the books and
    tablebase wrappers use this; the engine's calls read Chess960 too, with :func:`game_of`).
    """
    if isinstance(board, str):
        return board, []
    check_standard(board)
    return board.root().fen(), [move.uci() for move in board.move_stack]


def game_of(board: BoardLike, chess960: bool | None = None) -> tuple[str, list[str], bool]:
    """Return ``(root_fen, uci_moves, chess960)``: the game of ``board`` as the core takes it, and
    whether it is a game of Chess960.

    A :class:`chess.Board` is Chess960 when ``board.chess960`` is: its root is written as a
    Shredder-FEN (the castling rooks by file) and its castling moves as python-chess keeps them on
    such a board, the king taking its own rook (``e1h1``). A FEN string is standard chess unless
    ``chess960=True``, as with ``chess.Board(fen, chess960=True)``. A ``chess960`` that contradicts
    the board's own raises ValueError naming it; anything else as :func:`to_history`.
    """
    if chess960 is not None and not isinstance(chess960, bool):
        raise TypeError(f"chess960 must be True, False or None, not {short_repr(chess960)}")
    if isinstance(board, str):
        return board, [], bool(chess960)
    check_board(board)
    if chess960 is not None and chess960 != board.chess960:
        raise ValueError(
            f"chess960={chess960} contradicts the board's own chess960={board.chess960}; "
            "leave chess960 out for a chess.Board (it follows board.chess960)"
        )
    root = board.root()
    fen = root.fen(shredder=True) if board.chess960 else root.fen()
    return fen, [move.uci() for move in board.move_stack], board.chess960


def check_board(board: object) -> None:
    """Raise unless ``board`` is a :class:`chess.Board` of standard chess or Chess960:
    :class:`TypeError` naming the type for anything else (variant boards included)."""
    if not isinstance(board, chess.Board):
        raise TypeError(
            f"expected a chess.Board or a FEN string, got {type(board).__module__}."
            f"{type(board).__qualname__}: {short_repr(board)}"
        )
    if type(board).uci_variant != chess.Board.uci_variant:
        raise TypeError(
            f"expected a standard chess.Board or a FEN string, got "
            f"{type(board).__module__}.{type(board).__qualname__} "
            f"(variant {board.uci_variant!r})"
        )


def check_standard(board: object) -> None:
    """Raise unless ``board`` is a standard, non-Chess960 :class:`chess.Board`: :class:`TypeError`
    naming the type for anything else (variant boards included), InvalidFenError for Chess960
    (what the books and the tablebase wrappers take; the engine takes Chess960: :func:`game_of`)."""
    check_board(board)
    assert isinstance(board, chess.Board)
    if board.chess960:
        raise InvalidFenError(
            f"Chess960 boards are not supported: {board.root().fen()!r} (chess960=True)"
        )


BoardState = tuple[
    tuple[int, int, int, int, int, int, int, int], bool, int, Union[int, None], int, int
]
"""A board's current position as the core's fast paths take it: pieces (white, black, pawns,
knights, bishops, rooks, queens, kings), turn, castling rights, en passant square, halfmove clock,
fullmove number."""


def board_state(board: chess.Board) -> BoardState:
    """Return the current position of a standard ``board`` as bitboards (no FEN written)."""
    check_standard(board)
    pieces = (
        board.occupied_co[chess.WHITE],
        board.occupied_co[chess.BLACK],
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
        board.kings,
    )
    return (
        pieces,
        board.turn,
        board.castling_rights,
        board.ep_square,
        board.halfmove_clock,
        board.fullmove_number,
    )


def short_repr(value: object, limit: int = 80) -> str:
    """Return ``repr(value)``, cut to about ``limit`` characters for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def turn_of(root_fen: str, moves: list[str]) -> chess.Color:
    """Return the side to move after ``moves`` are played from ``root_fen``.

    Only meaningful once the core has accepted the FEN and moves (it reads the side-to-move field).
    """
    fields = root_fen.split()
    root_turn = len(fields) < 2 or fields[1] != "b"
    return root_turn if len(moves) % 2 == 0 else not root_turn


def limit_to_kwargs(limit: chess.engine.Limit) -> dict[str, Any]:
    """Return the keyword arguments of ``Engine.search`` that ``limit`` sets (None fields omitted).

    Raises :class:`TypeError` when ``limit`` is not a :class:`chess.engine.Limit` and
    :class:`~ferrochess.InvalidLimitError` when it sets no limit at all, since such a search would
    never end. Values are passed on unchanged; the core checks their ranges.
    """
    if not isinstance(limit, chess.engine.Limit):
        raise TypeError(
            f"expected a chess.engine.Limit, got {type(limit).__module__}."
            f"{type(limit).__qualname__}: {short_repr(limit)}"
        )
    kwargs = {
        name: getattr(limit, name) for name in LIMIT_FIELDS if getattr(limit, name) is not None
    }
    if not kwargs:
        raise InvalidLimitError(
            f"{limit!r} sets no limit (depth, nodes, time, clocks or mate); "
            "the search would never end"
        )
    return kwargs


def move_or_none(uci: str | None) -> chess.Move | None:
    """Return ``chess.Move.from_uci(uci)``, or None for None."""
    return None if uci is None else chess.Move.from_uci(uci)


def pov_score(line: _Line, turn: chess.Color) -> chess.engine.PovScore:
    """Return the line's score as a :class:`chess.engine.PovScore` from ``turn``'s point of view.

    ``score_mate`` N becomes ``Mate(N)`` (positive: ``turn`` mates in N moves), otherwise
    ``score_cp`` N becomes ``Cp(N)``.
    """
    mate = line["score_mate"]
    if mate is not None:
        return chess.engine.PovScore(chess.engine.Mate(mate), turn)
    cp = line["score_cp"]
    if cp is None:
        raise ValueError(f"core returned a line with neither score_cp nor score_mate: {line!r}")
    return chess.engine.PovScore(chess.engine.Cp(cp), turn)


MATE_CP = 100_000
"""A mate's worth in centipawns wherever a score must be one number: as python-chess's
``Score.score(mate_score=MATE_CP)`` when a score is compared with a bound (the play API's draw
offer), and as the centipawns of a mate in the winning-chance formula
(:func:`ferrochess.analysis.winning_chances`, where it counts as certain: chances of exactly ±1).
Above every centipawn score the core returns, its tablebase band (up to 20,000) included, so a
mate outranks them all."""


TABLEBASE_VERDICTS: tuple[str, ...] = tuple(_core.TABLEBASE_VERDICTS)
"""The values of an InfoDict's ``"tablebase"``, best first: what the Syzygy tables say of the
position from the side to move's point of view, counting the 50-move rule (``chess.syzygy``'s WDL
2, 1, 0, -1, -2: a cursed win is a win the rule turns into a draw, a blessed loss a loss it
saves)."""


def tablebase_pov(verdict: str, turn: chess.Color, color: chess.Color) -> str:
    """Return ``verdict``, said from ``turn``'s point of view, from ``color``'s (as
    :meth:`chess.engine.PovScore.pov` does for a score): the other side's win is a loss, its
    cursed win a blessed loss, a draw a draw. Raises ValueError for a word not in
    :data:`TABLEBASE_VERDICTS`."""
    if verdict not in TABLEBASE_VERDICTS:
        raise ValueError(
            f"not a tablebase verdict: {verdict!r} (expected one of {TABLEBASE_VERDICTS})"
        )
    if turn == color:
        return verdict
    return TABLEBASE_VERDICTS[-1 - TABLEBASE_VERDICTS.index(verdict)]


def white_score(info: Mapping[str, Any]) -> dict[str, Any] | None:
    """An InfoDict's score from White's point of view: ``{"cp": n}`` or ``{"mate": n}``, with
    ``"tablebase"`` (the tables' verdict, White's view too: "win", "cursed win", "draw",
    "blessed loss" or "loss") when the InfoDict has one; None when it has no score."""
    score: chess.engine.PovScore | None = info.get("score")
    if score is None:
        return None
    white = score.white()
    mate = white.mate()
    answer: dict[str, Any] = {"mate": mate} if mate is not None else {"cp": white.score() or 0}
    verdict = info.get("tablebase")
    if verdict is not None:
        answer["tablebase"] = tablebase_pov(verdict, score.turn, chess.WHITE)
    return answer


def san_line(board: chess.Board, moves: Iterable[chess.Move]) -> list[str]:
    """``moves`` played from ``board`` (unchanged) in SAN, up to the first that is not legal."""
    line = []
    replay = board.copy(stack=False)
    for move in moves:
        if move not in replay.legal_moves:
            break
        line.append(replay.san(move))
        replay.push(move)
    return line


def info_dicts(result: _SearchInfo, turn: chess.Color) -> list[chess.engine.InfoDict]:
    """Convert a core search result into one :class:`chess.engine.InfoDict` per line, best first.

    Each holds ``score`` (PovScore), ``pv`` (list of chess.Move), ``multipv``, ``depth``,
    ``seldepth``, ``nodes``, ``nps``, ``time``, ``hashfull``, ``tbhits`` and ``source``
    (``"search"``, ``"book"`` or ``"tablebase"``). A book move has no ``score``, has
    ``book_weight``, and has depth and nodes 0; a tablebase move has ``wdl`` and ``dtz``.
    ``tablebase`` is what the Syzygy tables say of the position, from ``turn``'s point of view
    (one of :data:`TABLEBASE_VERDICTS`), present only when known: always for a tablebase move,
    ``"win"`` or ``"loss"`` for a search's line the tables scored.
    ``stats`` holds the search's counters (``quiescence_nodes``, ``cutoffs``, ``tt_hits``,
    ``evaluations``).
    ``book_moves`` lists the position's book moves as ``(chess.Move, weight)`` when the engine has
    a book that knows the position. A result without lines (no legal move) gives a single
    InfoDict without score, pv and multipv.
    """
    common: dict[str, Any] = {
        "depth": result["depth"],
        "seldepth": result["seldepth"],
        "nodes": result["nodes"],
        "nps": result["nps"],
        "time": result["time"],
        "hashfull": result["hashfull"],
        "tbhits": result["tbhits"],
        "source": result["source"],
        "stats": dict(result["stats"]),
    }
    if result["book_weight"] is not None:
        common["book_weight"] = result["book_weight"]
    if result["wdl"] is not None:
        common["wdl"] = result["wdl"]
        common["dtz"] = result["dtz"]
    if result["book_moves"]:
        common["book_moves"] = [
            (chess.Move.from_uci(uci), weight) for uci, weight in result["book_moves"]
        ]
    if not result["lines"]:
        return [cast(chess.engine.InfoDict, common)]
    infos = []
    for line in result["lines"]:
        info: dict[str, Any] = {
            "pv": [chess.Move.from_uci(uci) for uci in line["pv"]],
            "multipv": line["multipv"],
            **common,
        }
        if result["source"] != "book":
            info["score"] = pov_score(line, turn)
        if line["tablebase"] is not None:
            info["tablebase"] = line["tablebase"]
        infos.append(cast(chess.engine.InfoDict, info))
    return infos
