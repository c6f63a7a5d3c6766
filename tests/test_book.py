"""Guards the Polyglot book reader: it agrees with python-chess's chess.polyglot reader (same moves,
weights, learn values and order) on every position of 200 games, for ../shared/data's
performance.bin and Debian's gnuchess book; it never returns an illegal move; and missing,
truncated or unsorted files raise the documented errors naming the path."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import ferrochess
import pytest
from bookfiles import write_entries
from ferrochess import FileError, InvalidBookError, open_book

GNUCHESS_BOOK = Path("/usr/share/games/gnuchess/book.bin")
GAMES = 200


def games(shared_data: Path, count: int) -> Iterator[chess.pgn.Game]:
    """The first `count` games of the PGN files in ../shared/data/pgn, in name order."""
    produced = 0
    for path in sorted((shared_data / "pgn").glob("*.pgn")):
        with path.open(encoding="utf-8", errors="replace") as handle:
            while produced < count:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                produced += 1
                yield game
        if produced >= count:
            return


def assert_agrees_with_python_chess(book_path: Path, shared_data: Path) -> int:
    checked = 0
    with open_book(book_path) as ours, chess.polyglot.open_reader(book_path) as theirs:
        assert len(ours) == len(theirs)
        for game in games(shared_data, GAMES):
            board = game.board()
            for move in game.mainline_moves():
                expected = list(theirs.find_all(board))
                assert list(ours.find_all(board)) == expected, board.fen()
                assert list(ours.find_all(board.fen())) == expected, board.fen()
                if expected:
                    checked += 1
                board.push(move)
    return checked


def test_agrees_with_python_chess_on_performance_bin(shared_data: Path) -> None:
    in_book = assert_agrees_with_python_chess(
        shared_data / "books" / "performance.bin", shared_data
    )
    assert in_book > 1000, "the games should reach many book positions"


def test_agrees_with_python_chess_on_gnuchess_book(shared_data: Path) -> None:
    if not GNUCHESS_BOOK.is_file():
        pytest.skip(f"{GNUCHESS_BOOK} not found (Debian package gnuchess-book)")
    assert assert_agrees_with_python_chess(GNUCHESS_BOOK, shared_data) > 1000


def test_lookups_match_python_chess_helpers(shared_data: Path) -> None:
    path = shared_data / "books" / "performance.bin"
    board = chess.Board()
    with open_book(path) as ours, chess.polyglot.open_reader(path) as theirs:
        assert ours.find(board) == theirs.find(board)
        assert ours.get(board) == theirs.get(board)
        excluded = [ours.find(board).move]
        assert ours.find(board, exclude_moves=excluded) == theirs.find(
            board, exclude_moves=excluded
        )
        seen = {ours.weighted_choice(board, random=random.Random(seed)).move for seed in range(50)}
        assert len(seen) > 1 and seen <= {entry.move for entry in theirs.find_all(board)}
        out_of_book = chess.Board("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")
        assert ours.get(out_of_book) is None
        with pytest.raises(IndexError):
            ours.find(out_of_book)
        with pytest.raises(IndexError):
            ours.weighted_choice(out_of_book)


def test_illegal_book_moves_are_skipped(tmp_path: Path) -> None:
    key = chess.polyglot.zobrist_hash(chess.Board())
    e2e4 = chess.square(4, 1) << 6 | chess.square(4, 3)
    e2e5 = chess.square(4, 1) << 6 | chess.square(4, 4)
    path = write_entries(tmp_path / "book.bin", [(key, e2e5, 50, 0), (key, e2e4, 1, 0)])
    with open_book(path) as book:
        assert [entry.move.uci() for entry in book.find_all(chess.Board())] == ["e2e4"]


def test_missing_file_is_a_file_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "missing.bin"
    with pytest.raises(FileError) as info:
        open_book(missing)
    assert isinstance(info.value, OSError)
    assert str(missing) in str(info.value)


def test_truncated_and_unsorted_books_are_rejected(tmp_path: Path) -> None:
    truncated = tmp_path / "truncated.bin"
    truncated.write_bytes(bytes(20))
    with pytest.raises(InvalidBookError, match="multiple of the 16-byte"):
        open_book(truncated)
    unsorted = write_entries(tmp_path / "unsorted.bin", [(9, 0, 1, 0), (3, 0, 1, 0)])
    with pytest.raises(InvalidBookError, match="not sorted") as info:
        open_book(unsorted)
    assert isinstance(info.value, ValueError) and str(unsorted) in str(info.value)


def test_closed_book_refuses_lookups(tmp_path: Path) -> None:
    path = write_entries(tmp_path / "book.bin", [])
    book = open_book(path)
    assert len(book) == 0
    book.close()
    with pytest.raises(ferrochess.EngineError):
        book.get(chess.Board())


def test_an_impossible_board_is_an_invalid_fen_error_quoting_it(tmp_path: Path) -> None:
    board = chess.Board()
    board.set_piece_at(chess.E4, chess.Piece(chess.KING, chess.WHITE))
    path = write_entries(tmp_path / "book.bin", [])
    with open_book(path) as book, pytest.raises(ferrochess.InvalidFenError) as info:
        list(book.find_all(board))
    assert "4K3" in str(info.value), str(info.value)


def test_variant_boards_are_refused_by_type(tmp_path: Path) -> None:
    import chess.variant

    path = write_entries(tmp_path / "book.bin", [])
    with open_book(path) as book, pytest.raises(TypeError, match="AtomicBoard"):
        list(book.find_all(chess.variant.AtomicBoard()))
