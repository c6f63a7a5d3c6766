"""Property-based tests (hypothesis) of the public Python API on generated input: random legal
games, mangled FENs and move lists, random engine settings and limits, random book bytes, and
corrupted Syzygy tables. Whatever the input, a call returns a correct answer (a legal move, a
book move of the position) or raises a ferrochess error whose message names the bad input; it
never crashes the interpreter or raises anything else.

`HYPOTHESIS_PROFILE=long` runs many more examples (RELIABILITY.md gives the figures)."""

from __future__ import annotations

import os
import struct
import warnings
from pathlib import Path

import chess
import chess.engine
import chess.polyglot
import pytest
from ferrochess import (
    Engine,
    FerrochessError,
    FileError,
    IllegalMoveError,
    InvalidBookError,
    InvalidFenError,
    InvalidLimitError,
    MissingTableError,
    TablebaseError,
    open_book,
    open_tablebase,
    select_move,
)
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "long", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

START_FEN = chess.STARTING_FEN


@st.composite
def games(draw: st.DrawFn, max_plies: int = 80) -> chess.Board:
    """A legal game from the start position: each ply picks one of the legal moves."""
    board = chess.Board()
    for choice in draw(st.lists(st.integers(0, 10_000), max_size=max_plies)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[choice % len(moves)])
    return board


@st.composite
def mangled_fens(draw: st.DrawFn) -> str:
    """A real FEN with characters replaced, inserted or deleted, or plain random text."""
    fen = draw(games(max_plies=30)).fen()
    if draw(st.booleans()):
        return draw(st.text(max_size=90))
    alphabet = "pnbrqkPNBRQK12345678/ wb-KQkqa-h0123456789 \t\n\x00é"
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(fen)))
        action = draw(st.sampled_from(["replace", "insert", "delete"]))
        char = draw(st.sampled_from(alphabet))
        if action == "replace":
            fen = fen[:index] + char + fen[index + 1 :]
        elif action == "insert":
            fen = fen[:index] + char + fen[index:]
        else:
            fen = fen[:index] + fen[index + 1 :]
    return fen


def assert_move_for(board: chess.Board, move: str | None) -> None:
    if move is None:
        assert board.is_game_over() or not any(board.legal_moves), board.fen()
    else:
        assert chess.Move.from_uci(move) in board.legal_moves, (board.fen(), move)


@given(board=games(), depth=st.integers(1, 3), book=st.sampled_from([None, "default"]),
       seed=st.integers(0, 2**64 - 1))  # fmt: skip
def test_select_move_on_random_games_is_legal(
    board: chess.Board, depth: int, book: str | None, seed: int
) -> None:
    assert_move_for(board, select_move(board, depth, book=book, seed=seed))
    assert_move_for(board, select_move(board.fen(), depth, book=None))


@given(fen=mangled_fens())
# Found by this test: Black's castling rights before White's were accepted.
@example(fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kQkq - 0 1")
def test_any_fen_gives_a_move_or_an_error_quoting_it(fen: str) -> None:
    try:
        expected = chess.Board(fen)
    except ValueError:
        expected = None
    try:
        move = select_move(fen, 1, book=None)
    except InvalidFenError as error:
        assert fen.strip()[:20] in str(error) or repr(fen)[1:21] in str(error), (fen, str(error))
        return
    # Accepted: python-chess reads it as the same position, and the move is legal there.
    assert expected is not None, fen
    assert expected.is_valid(), fen
    assert_move_for(expected, move)


@given(board=games(max_plies=20), source=st.integers(0, 63), target=st.integers(0, 63),
       promotion=st.sampled_from([None, chess.QUEEN, chess.KNIGHT, chess.KING]))  # fmt: skip
def test_an_illegal_move_in_the_history_is_named(
    board: chess.Board, source: int, target: int, promotion: chess.PieceType | None
) -> None:
    """A Board can hold a move it never checked (``push`` does not validate); the engine refuses
    it, naming it, and answers normally once it is taken back."""
    move = chess.Move(source, target, promotion)
    assume(not board.is_legal(move) and board.piece_at(source) is not None)
    try:
        board.push(move)
    except (AssertionError, ValueError, KeyError):
        assume(False)
    # As the history holds it: python-chess's push turns a king's two-square move into castling,
    # dropping a promotion given with it (e8g8q is pushed as e8g8).
    pushed = board.peek()
    with pytest.raises(IllegalMoveError, match=pushed.uci()):
        select_move(board, 1, book=None)
    board.pop()
    assert_move_for(board, select_move(board, 1, book=None))


@given(
    hash_mb=st.integers(-5, 40),
    seed=st.one_of(st.none(), st.integers(-5, 2**64)),
    choice=st.sampled_from(["weighted", "uniform", "best", "random", ""]),
    min_weight=st.integers(-3, 70_000),
    max_ply=st.one_of(st.none(), st.integers(-3, 300)),
)
def test_engine_settings_work_or_are_refused_by_name(
    hash_mb: int, seed: int | None, choice: str, min_weight: int, max_ply: int | None
) -> None:
    try:
        engine = Engine(hash_mb, seed, book_choice=choice, book_min_weight=min_weight,  # type: ignore[arg-type]
                        book_max_ply=max_ply)  # fmt: skip
    except FerrochessError as error:
        named = ("hash_mb", "seed", "book_choice", "book_min_weight", "book_max_ply")
        assert any(f"invalid {name} " in str(error) for name in named), str(error)
        return
    with engine:
        result = engine.play(chess.Board(), chess.engine.Limit(depth=1))
        assert result.move in chess.Board().legal_moves


@given(
    board=games(max_plies=40),
    depth=st.one_of(st.none(), st.integers(-2, 4)),
    nodes=st.one_of(st.none(), st.integers(-10, 3000)),
    time=st.one_of(st.none(), st.floats(-1, 0.05), st.just(float("nan")), st.just(float("inf"))),
    multipv=st.integers(-1, 4),
)
def test_any_limit_gives_a_legal_move_or_a_limit_error(
    board: chess.Board, depth: int | None, nodes: int | None, time: float | None, multipv: int
) -> None:
    limit = chess.engine.Limit(depth=depth, nodes=nodes, time=time)
    with Engine(1, book=None) as engine:
        try:
            infos = engine.analyse(board, limit, multipv=multipv)
        except InvalidLimitError:
            return
        if not any(board.legal_moves):
            return
        assert infos and all(info["pv"][0] in board.legal_moves for info in infos)


ENTRY = struct.Struct(">QHHI")


@given(data=st.binary(max_size=400))
def test_any_file_opens_as_a_book_or_is_refused_naming_it(tmp_path_factory: pytest.TempPathFactory,
                                                          data: bytes) -> None:  # fmt: skip
    path = tmp_path_factory.mktemp("book") / "random.bin"
    path.write_bytes(data)
    try:
        book = open_book(path)
    except InvalidBookError as error:
        assert str(path) in str(error)
        return
    with book:
        for entry in book.find_all(chess.Board()):
            assert entry.move in chess.Board().legal_moves


@given(boards=st.lists(games(max_plies=12), min_size=1, max_size=4),
       raw=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 0xFFFF), st.integers(0, 0xFFFF)),
                    max_size=40),
       minimum=st.integers(0, 20))  # fmt: skip
# a7a6 with the move's unused top bit set, which python-chess ignores (found by this test)
@example(boards=[chess.Board("rnbqkbnr/pppppppp/8/8/8/7N/PPPPPPPP/RNBQKB1R b KQkq - 1 1")],
         raw=[(0, 0x8000 | 48 << 6 | 40, 0)], minimum=0)  # fmt: skip
def test_book_answers_are_legal_moves_of_the_position(
    tmp_path_factory: pytest.TempPathFactory,
    boards: list[chess.Board], raw: list[tuple[int, int, int]], minimum: int,
) -> None:  # fmt: skip
    """Entries with arbitrary moves filed under real positions' keys: every answer is legal there,
    at least as heavy as asked, and agrees with python-chess's reader."""
    keys = [chess.polyglot.zobrist_hash(board) for board in boards]
    entries = sorted((keys[index % len(keys)], move, weight) for index, move, weight in raw)
    path = tmp_path_factory.mktemp("book") / "made.bin"
    path.write_bytes(b"".join(ENTRY.pack(key, move, weight, 0) for key, move, weight in entries))
    with open_book(path) as book, chess.polyglot.open_reader(path) as reference:
        for board in boards:
            ours = [(e.move, e.weight) for e in book.find_all(board, minimum_weight=minimum)]
            theirs = [(e.move, e.weight) for e in reference.find_all(board, minimum_weight=minimum)]
            assert ours == theirs
            assert all(move in board.legal_moves and weight >= minimum for move, weight in ours)


def test_a_missing_tablebase_directory_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(FileError, match="nowhere"):
        open_tablebase(missing)


ENDGAMES = [
    chess.Board("8/8/8/4k3/8/8/3QK3/8 w - - 0 1"),
    chess.Board("8/8/8/4k3/8/8/3RK3/8 b - - 0 1"),
    chess.Board("8/8/3k4/8/8/8/3PK3/8 w - - 0 1"),
    chess.Board("8/8/8/4k3/8/8/2BNK3/8 w - - 0 1"),
]


@given(flips=st.lists(st.tuples(st.integers(0, 10**9), st.integers(1, 255)), min_size=1,
                      max_size=12),
       table=st.sampled_from(["KQvK", "KRvK", "KPvK", "KBNvK"]))  # fmt: skip
def test_corrupted_tables_give_an_answer_or_a_tablebase_error(
    shared_data: Path, tmp_path_factory: pytest.TempPathFactory,
    flips: list[tuple[int, int]], table: str,
) -> None:  # fmt: skip
    """Real Syzygy tables with bytes flipped past their header: opening, probing and playing with
    them answers or raises TablebaseError naming the file; the interpreter survives."""
    directory = tmp_path_factory.mktemp("syzygy")
    for suffix in (".rtbw", ".rtbz"):
        data = bytearray((shared_data / "syzygy" / f"{table}{suffix}").read_bytes())
        for offset, xor in flips:
            position = 16 + offset % max(1, len(data) - 16)
            data[position] ^= xor
        (directory / f"{table}{suffix}").write_bytes(bytes(data))
    try:
        tables = open_tablebase(directory)
    except (TablebaseError, FileError) as error:
        assert table in str(error) or str(directory) in str(error)
        return
    with tables:
        for board in ENDGAMES:
            for probe in (tables.probe_wdl, tables.probe_dtz):
                try:
                    value = probe(board)
                except MissingTableError:
                    continue
                except TablebaseError as error:
                    assert table in str(error), str(error)
                    continue
                assert isinstance(value, int)
    # A table found corrupt during a search is a RuntimeWarning; the search goes on without it.
    with warnings.catch_warnings(), Engine(1, book=None, syzygy_path=str(directory)) as engine:
        warnings.simplefilter("ignore", RuntimeWarning)
        for board in ENDGAMES:
            result = engine.play(board, chess.engine.Limit(depth=3))
            assert result.move in board.legal_moves
