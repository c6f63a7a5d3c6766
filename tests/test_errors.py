"""Guards error reporting: every bad input raises a ferrochess exception that is also a ValueError
and whose message quotes the bad input; a non-position raises TypeError naming its type; and after
any error the interpreter and the library keep working (no panic, no poisoned state)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import chess
import chess.engine
import ferrochess
import pytest
from ferrochess import (
    Engine,
    EngineError,
    FerrochessError,
    IllegalMoveError,
    InvalidFenError,
    InvalidLimitError,
    _core,
    perft,
    select_move,
)
from positions import START_FEN, assert_legal, assert_legal_move

Limit = chess.engine.Limit


@pytest.fixture(autouse=True)
def library_still_works() -> Iterator[None]:
    """After every test, a following search must still succeed."""
    yield
    assert_legal(chess.Board(), select_move(START_FEN, 2))
    with Engine() as engine:
        assert_legal_move(chess.Board(), engine.play(chess.Board(), Limit(depth=2)).move)


def assert_quotes(error: BaseException, *fragments: str) -> None:
    message = str(error)
    for fragment in fragments:
        assert fragment.lower() in message.lower(), f"{fragment!r} not quoted in {message!r}"


# --- the exception hierarchy ----------------------------------------------------------------


@pytest.mark.parametrize("cls", [InvalidFenError, IllegalMoveError, InvalidLimitError])
def test_input_errors_are_value_errors(cls: type[Exception]) -> None:
    assert issubclass(cls, FerrochessError)
    assert issubclass(cls, ValueError)


def test_engine_error_is_runtime_error() -> None:
    assert issubclass(EngineError, FerrochessError)
    assert issubclass(EngineError, RuntimeError)
    assert not issubclass(EngineError, ValueError)


# --- bad FENs -------------------------------------------------------------------------------

BAD_FENS = {
    "garbage": "this is not a fen",
    "empty": "",
    "three fields": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
    "seven fields": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
    "seven ranks": "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "nine files": "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "bad piece letter": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
    "bad side to move": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    "bad castling": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1",
    "bad en passant": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
    "en passant not a square": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq zz 0 1",
    "bad halfmove clock": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
    "no kings": "8/8/8/8/8/8/8/8 w - - 0 1",
    "no white king": "4k3/8/8/8/8/8/8/8 w - - 0 1",
    "two white kings": "4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
    "side not to move in check": "4k3/8/8/8/8/8/8/4RK2 w - - 0 1",
    "white pawn on last rank": "4k2P/8/8/8/8/8/8/4K3 w - - 0 1",
    "black pawn on first rank": "4k3/8/8/8/8/8/8/p3K3 w - - 0 1",
}

ENTRY_POINTS: dict[str, Callable[[str], Any]] = {
    "select_move": lambda fen: select_move(fen, 1),
    "perft": lambda fen: perft(fen, 1),
    "Engine.play": lambda fen: Engine().play(fen, Limit(depth=1)),
    "Engine.analyse": lambda fen: Engine().analyse(fen, Limit(depth=1), multipv=2),
    "_core.legal_moves": lambda fen: _core.legal_moves(fen),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@pytest.mark.parametrize("fen", list(BAD_FENS.values()), ids=list(BAD_FENS))
def test_bad_fen_raises_invalid_fen_quoting_it(fen: str, entry: str) -> None:
    with pytest.raises(InvalidFenError) as info:
        ENTRY_POINTS[entry](fen)
    assert isinstance(info.value, ValueError)
    assert_quotes(info.value, fen)


def test_python_chess_agrees_the_bad_fens_are_bad() -> None:
    """Guards the test data: python-chess rejects or flags every one of BAD_FENS, except the
    three-field FEN (python-chess fills in missing fields; ferrochess requires at least four)."""
    for name, fen in BAD_FENS.items():
        if name == "three fields":
            continue
        try:
            board = chess.Board(fen)
        except ValueError:
            continue
        assert not board.is_valid(), name


# --- bad moves in the history ---------------------------------------------------------------


def test_illegal_first_move_in_board_history() -> None:
    board = chess.Board()
    board.push(chess.Move.from_uci("e2e5"))  # push does not check legality
    for call in (
        lambda: select_move(board, 2),
        lambda: Engine().play(board, Limit(depth=2)),
        lambda: Engine().analyse(board, Limit(depth=2)),
    ):
        with pytest.raises(IllegalMoveError) as info:
            call()
        assert isinstance(info.value, ValueError)
        assert_quotes(info.value, "e2e5", START_FEN.split()[0])


def test_illegal_later_move_in_board_history() -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    board.push(chess.Move.from_uci("e1e2"))  # White moves again: illegal for Black to move
    with pytest.raises(IllegalMoveError) as info:
        select_move(board, 2)
    assert_quotes(info.value, "e1e2")


@pytest.mark.parametrize("move", ["zz", "e2e9", "e2", "", "e7e8x"])
def test_malformed_move_in_history(move: str) -> None:
    with pytest.raises(IllegalMoveError) as info:
        _core.select_move(START_FEN, 2, ["e2e4", move])
    if move:
        assert_quotes(info.value, move)


# --- bad depths, limits and settings --------------------------------------------------------

HUGE = 2**70  # beyond any machine integer: must still be a clean InvalidLimitError
BAD_SEARCH_DEPTHS = [0, -1, ferrochess.MAX_DEPTH + 1, HUGE]


@pytest.mark.parametrize("depth", BAD_SEARCH_DEPTHS)
def test_select_move_bad_depth(depth: int) -> None:
    with pytest.raises(InvalidLimitError) as info:
        select_move(START_FEN, depth)
    assert_quotes(info.value, str(depth))


@pytest.mark.parametrize("depth", [-1, ferrochess.MAX_DEPTH + 1, HUGE])
def test_perft_bad_depth(depth: int) -> None:
    with pytest.raises(InvalidLimitError) as info:
        perft(START_FEN, depth)
    assert_quotes(info.value, str(depth))


@pytest.mark.parametrize("depth", BAD_SEARCH_DEPTHS)
def test_bench_bad_depth(depth: int) -> None:
    with pytest.raises(InvalidLimitError) as info:
        ferrochess.bench(depth)
    assert_quotes(info.value, str(depth))


BAD_LIMITS = {
    "depth 0": (Limit(depth=0), "0"),
    "depth -1": (Limit(depth=-1), "-1"),
    "depth MAX+1": (Limit(depth=ferrochess.MAX_DEPTH + 1), str(ferrochess.MAX_DEPTH + 1)),
    "negative time": (Limit(time=-1.5), "-1.5"),
    "nan time": (Limit(time=math.nan), "nan"),
    "inf time": (Limit(time=math.inf), "inf"),
    "depth huge": (Limit(depth=HUGE), str(HUGE)),
    "negative nodes": (Limit(nodes=-5), "-5"),
    "huge nodes": (Limit(nodes=HUGE), str(HUGE)),
    "nan black clock": (Limit(white_clock=1.0, black_clock=math.nan), "nan"),
    "inf white clock": (Limit(white_clock=math.inf, black_clock=1.0), "inf"),
}


@pytest.mark.parametrize(("limit", "quoted"), list(BAD_LIMITS.values()), ids=list(BAD_LIMITS))
def test_bad_limit(limit: chess.engine.Limit, quoted: str) -> None:
    with Engine() as engine:
        with pytest.raises(InvalidLimitError) as info:
            engine.play(chess.Board(), limit)
        assert isinstance(info.value, ValueError)
        assert_quotes(info.value, quoted)
        with pytest.raises(InvalidLimitError):
            engine.analyse(chess.Board(), limit)


def test_empty_limit_is_rejected() -> None:
    with Engine() as engine:
        for call in (
            lambda: engine.play(chess.Board(), Limit()),
            lambda: engine.analyse(chess.Board(), Limit(), multipv=2),
        ):
            with pytest.raises(InvalidLimitError) as info:
                call()
            assert_quotes(info.value, "Limit(")


def test_core_search_without_limit_is_rejected() -> None:
    with pytest.raises(InvalidLimitError):
        _core.Engine().search(START_FEN, [])


@pytest.mark.parametrize("hash_mb", [0, -1, ferrochess.MAX_HASH_MB + 1, 10**7, HUGE])
def test_bad_hash_size(hash_mb: int) -> None:
    with pytest.raises(InvalidLimitError) as info:
        Engine(hash_mb=hash_mb)
    assert isinstance(info.value, ValueError)
    assert_quotes(info.value, str(hash_mb))


@pytest.mark.parametrize("threads", [0, -1, ferrochess.MAX_THREADS + 1, HUGE])
def test_bad_thread_count(threads: int) -> None:
    with pytest.raises(InvalidLimitError) as info:
        Engine(threads=threads)
    assert_quotes(info.value, "threads", str(threads))


@pytest.mark.parametrize("multipv", [0, -1])
def test_bad_multipv(multipv: int) -> None:
    with Engine() as engine, pytest.raises(InvalidLimitError) as info:
        engine.analyse(chess.Board(), Limit(depth=2), multipv=multipv)
    assert_quotes(info.value, "multipv", str(multipv))


# --- wrong types ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "type_name"),
    [(42, "int"), (None, "NoneType"), (["e2e4"], "list"), (b"8/8 w", "bytes")],
)
def test_non_position_raises_type_error_naming_type(value: object, type_name: str) -> None:
    for call in (
        lambda: select_move(value, 1),  # type: ignore[arg-type]
        lambda: perft(value, 1),  # type: ignore[arg-type]
        lambda: Engine().play(value, Limit(depth=1)),  # type: ignore[arg-type]
        lambda: Engine().analyse(value, Limit(depth=1)),  # type: ignore[call-overload]
    ):
        with pytest.raises(TypeError) as info:
            call()
        assert_quotes(info.value, type_name)


def test_non_limit_raises_type_error() -> None:
    with Engine() as engine, pytest.raises(TypeError) as info:
        engine.play(chess.Board(), 5)  # type: ignore[arg-type]
    assert_quotes(info.value, "int")


def test_variant_board_rejected() -> None:
    import chess.variant

    with pytest.raises(TypeError) as info:
        select_move(chess.variant.AtomicBoard(), 1)
    assert_quotes(info.value, "AtomicBoard")


def test_a_chess960_flag_that_contradicts_the_board_is_rejected() -> None:
    """A Chess960 board is played (tests/test_chess960.py); a ``chess960`` that says otherwise
    than the board is an error naming it."""
    with pytest.raises(ValueError, match="chess960=False contradicts"):
        select_move(chess.Board.from_chess960_pos(0), 1, chess960=False)
    with pytest.raises(ValueError, match="chess960=True contradicts"):
        select_move(chess.Board(), 1, chess960=True)


# --- many errors in a row -------------------------------------------------------------------


def test_interleaved_errors_and_searches() -> None:
    for fen in BAD_FENS.values():
        with pytest.raises(InvalidFenError):
            select_move(fen, 2)
        assert_legal(chess.Board(), select_move(START_FEN, 1))
