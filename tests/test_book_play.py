"""Guards book moves first: select_move and Engine.play take their move from the book (the
compiled-in default one unless told otherwise) without searching, say so in the info, follow the
choice rules (weighted, uniform, best, minimum weight, maximum ply, excluded moves), reproduce a
game from its seed and vary it between seeds; a bad book or book option is refused with an error
naming it."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import chess
import chess.engine
import pytest
from bookfiles import raw_move, write_book, write_entries
from ferrochess import (
    DEFAULT_BOOK,
    Engine,
    FileError,
    InvalidBookError,
    InvalidLimitError,
    open_book,
    select_move,
)
from positions import START_FEN

Limit = chess.engine.Limit
# A limit no test could wait for: a search with it would never end in a test's lifetime, so a
# returned move can only have come from the book. The subprocess guard below bounds a failure.
UNREACHABLE_DEPTH = 64
GUARD_SECONDS = 120.0


def default_book_moves(board: chess.Board) -> set[chess.Move]:
    with open_book(DEFAULT_BOOK) as book:
        return {entry.move for entry in book.find_all(board)}


def self_play(engine: Engine, plies: int) -> list[str]:
    """The first ``plies`` moves of a game the engine plays against itself (searching at depth 2
    once out of book)."""
    board = chess.Board()
    for _ in range(plies):
        result = engine.play(board, Limit(depth=2))
        assert result.move is not None
        board.push(result.move)
    return [move.uci() for move in board.move_stack]


# --- the default book is played first ------------------------------------------------------------


def test_select_move_plays_from_the_default_book_at_once() -> None:
    # In a subprocess with a timeout: without the book, depth 64 would search for ever.
    code = (
        "import chess, ferrochess;"
        f"print(ferrochess.select_move(chess.Board(), {UNREACHABLE_DEPTH}, seed=1))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=GUARD_SECONDS
    )
    assert done.returncode == 0, done.stderr
    move = chess.Move.from_uci(done.stdout.strip())
    assert move in default_book_moves(chess.Board())


def test_engine_play_says_the_move_came_from_the_book() -> None:
    board = chess.Board()
    with Engine(seed=3) as engine:
        assert engine.book == DEFAULT_BOOK
        result = engine.play(board, Limit(depth=UNREACHABLE_DEPTH))
    assert result.move in default_book_moves(board)
    assert result.info["source"] == "book"  # type: ignore[typeddict-item]
    weight = result.info["book_weight"]  # type: ignore[typeddict-item]
    with open_book(DEFAULT_BOOK) as book:
        assert weight == next(e.weight for e in book.find_all(board) if e.move == result.move)
    assert result.info["nodes"] == 0 and result.info["depth"] == 0
    assert result.info["pv"] == [result.move]
    assert "score" not in result.info
    assert result.ponder is None


def test_out_of_book_the_engine_searches() -> None:
    board = chess.Board("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")
    with Engine(seed=1) as engine:
        result = engine.play(board, Limit(depth=3))
    assert result.info["source"] == "search"  # type: ignore[typeddict-item]
    assert "score" in result.info and result.info["depth"] == 3


def test_book_none_searches_from_the_start() -> None:
    with Engine(book=None) as engine:
        assert engine.book is None
        result = engine.play(chess.Board(), Limit(depth=2))
    assert result.info["source"] == "search"  # type: ignore[typeddict-item]
    assert select_move(chess.Board(), 1, book=None) == select_move(START_FEN, 1, book=None)


def test_analyse_searches_and_lists_the_book_moves() -> None:
    board = chess.Board()
    with Engine(seed=1) as engine:
        info = engine.analyse(board, Limit(depth=3))
    assert info["source"] == "search"  # type: ignore[typeddict-item]
    assert "score" in info
    listed = info["book_moves"]  # type: ignore[typeddict-item]
    assert {move for move, _ in listed} == default_book_moves(board)
    weights = [weight for _, weight in listed]
    assert weights == sorted(weights, reverse=True)


def test_an_illegal_limit_is_refused_even_in_book() -> None:
    with Engine() as engine, pytest.raises(InvalidLimitError):
        engine.play(chess.Board(), Limit())


# --- seeds: the same game again, different games between seeds -----------------------------------


def test_the_same_seed_gives_the_same_game() -> None:
    with Engine(seed=2026) as first, Engine(seed=2026) as second:
        assert self_play(first, 14) == self_play(second, 14)
    board = chess.Board()
    board.push_uci("d2d4")
    assert len({select_move(board, 2, seed=9) for _ in range(5)}) == 1


def test_twenty_seeds_give_at_least_five_openings() -> None:
    openings = Counter()
    for seed in range(20):
        with Engine(seed=seed) as engine:
            openings[" ".join(self_play(engine, 6))] += 1
    assert len(openings) >= 5, openings


# --- choice rules, on hand-made books ------------------------------------------------------------


@pytest.fixture
def three_moves(tmp_path: Path) -> Path:
    return write_book(tmp_path / "three.bin", chess.Board(), {"e2e4": 6, "d2d4": 3, "c2c4": 1})


def book_moves_played(book: Path, seeds: range, **options: object) -> Counter[str]:
    played: Counter[str] = Counter()
    for seed in seeds:
        with Engine(seed=seed, book=book, **options) as engine:  # type: ignore[arg-type]
            result = engine.play(chess.Board(), Limit(depth=1))
            assert result.move is not None
            played[result.move.uci()] += 1
    return played


def test_weighted_choice_follows_the_weights(three_moves: Path) -> None:
    played = book_moves_played(three_moves, range(600))
    assert set(played) == {"e2e4", "d2d4", "c2c4"}
    # Expected 360 / 180 / 60; the bands are many standard deviations wide.
    assert played["e2e4"] > played["d2d4"] > played["c2c4"], played
    assert 300 < played["e2e4"] < 420 and 20 < played["c2c4"] < 110, played


def test_uniform_choice_ignores_the_weights(three_moves: Path) -> None:
    played = book_moves_played(three_moves, range(300), book_choice="uniform")
    assert all(60 < played[uci] < 140 for uci in ("e2e4", "d2d4", "c2c4")), played


def test_best_choice_is_always_the_heaviest(three_moves: Path) -> None:
    assert book_moves_played(three_moves, range(20), book_choice="best") == {"e2e4": 20}


def test_minimum_weight_leaves_light_moves_out(three_moves: Path) -> None:
    played = book_moves_played(three_moves, range(100), book_min_weight=3)
    assert set(played) == {"e2e4", "d2d4"}


def test_max_ply_leaves_the_book(tmp_path: Path) -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    book = write_book(tmp_path / "reply.bin", board, {"e7e5": 1})
    with Engine(book=book, book_max_ply=1) as engine:
        assert engine.play(board, Limit(depth=2)).info["source"] == "search"  # type: ignore[typeddict-item]
    with Engine(book=book, book_max_ply=2) as engine:
        result = engine.play(board, Limit(depth=2))
        assert (result.move, result.info["source"]) == (  # type: ignore[typeddict-item]
            chess.Move.from_uci("e7e5"),
            "book",
        )
    with Engine(book_max_ply=0) as engine:
        assert engine.play(chess.Board(), Limit(depth=1)).info["source"] == "search"  # type: ignore[typeddict-item]


def test_excluded_moves_are_never_played(three_moves: Path) -> None:
    excluded = [chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")]
    for seed in range(30):
        with Engine(seed=seed, book=three_moves) as engine:
            result = engine.play(chess.Board(), Limit(depth=1), exclude_moves=excluded)
            assert result.move == chess.Move.from_uci("c2c4")
    everything_in_book = excluded + [chess.Move.from_uci("c2c4")]
    with Engine(book=three_moves) as engine:
        result = engine.play(chess.Board(), Limit(depth=2), exclude_moves=everything_in_book)
    assert result.info["source"] == "search"  # type: ignore[typeddict-item]
    assert result.move not in everything_in_book
    with Engine(book=None) as engine, pytest.raises(InvalidLimitError, match="every legal move"):
        engine.play(chess.Board(), Limit(depth=1), exclude_moves=list(chess.Board().legal_moves))


def test_an_illegal_book_move_is_never_played(tmp_path: Path) -> None:
    key = chess.polyglot.zobrist_hash(chess.Board())
    book = write_entries(tmp_path / "illegal.bin", [(key, raw_move("e2e5"), 100, 0)])
    with Engine(book=book) as engine:
        result = engine.play(chess.Board(), Limit(depth=2))
    assert result.info["source"] == "search"  # type: ignore[typeddict-item]
    assert result.move in chess.Board().legal_moves


# --- bad books and options -----------------------------------------------------------------------


def test_a_missing_book_is_a_file_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.bin"
    for make in (lambda: Engine(book=missing), lambda: select_move(START_FEN, 2, book=missing)):
        with pytest.raises(FileError) as info:
            make()
        assert isinstance(info.value, OSError) and str(missing) in str(info.value)


def test_a_malformed_book_is_refused_when_opened(tmp_path: Path) -> None:
    odd = tmp_path / "odd.bin"
    odd.write_bytes(bytes(17))
    with pytest.raises(InvalidBookError) as info:
        Engine(book=odd)
    assert str(odd) in str(info.value)


@pytest.mark.parametrize(
    ("options", "quoted"),
    [
        ({"book_choice": "random"}, "'random'"),
        ({"book_min_weight": 0}, "book_min_weight 0"),
        ({"book_min_weight": 70000}, "book_min_weight 70000"),
        ({"book_max_ply": -1}, "book_max_ply -1"),
    ],
)
def test_bad_book_options_are_quoted(options: dict[str, object], quoted: str) -> None:
    with pytest.raises(InvalidLimitError) as info:
        Engine(**options)  # type: ignore[arg-type]
    assert quoted in str(info.value)
