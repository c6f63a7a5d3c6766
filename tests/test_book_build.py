"""Guards the book builder and the default book: build_book weighs moves exactly as the reference
`polyglot make-book` does (checked against Debian's polyglot when installed, and always against a
python-chess re-implementation of its rules), reads PGN tolerantly (comments, variations, NAGs,
FEN tags; broken games skipped and counted), reports progress, writes nothing when stopped, and
names bad paths; the compiled-in default book is exactly what its opening lines build, covers ECO
volumes A to E from 8 to 12 plies, and the `book` commands of the CLI work."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest
from ferrochess import (
    DEFAULT_BOOK,
    FileError,
    InvalidLimitError,
    build_book,
    open_book,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
OPENING_LINES = REPO_ROOT / "src" / "book" / "openings" / "eco_lines.pgn"
DEFAULT_BOOK_FILE = REPO_ROOT / "src" / "book" / "default.bin"
# How the default book is built (Makefile target `book`).
DEFAULT_MAX_PLY = 12
DEFAULT_MIN_GAMES = 1

Entries = list[tuple[int, int, int]]


def read_entries(path: Path) -> Entries:
    """(key, raw move, weight) of every entry, in file order."""
    data = path.read_bytes()
    return [
        (
            int.from_bytes(data[i : i + 8], "big"),
            int.from_bytes(data[i + 8 : i + 10], "big"),
            int.from_bytes(data[i + 10 : i + 12], "big"),
        )
        for i in range(0, len(data), 16)
    ]


def assert_is_a_sorted_book(entries: Entries) -> None:
    """Keys ascending; within a key, weights descending (heaviest first, as polyglot writes)."""
    for (key_a, _, weight_a), (key_b, _, weight_b) in zip(entries, entries[1:]):
        assert key_a < key_b or (key_a == key_b and weight_a >= weight_b)


def games_of(path: Path) -> Iterator[chess.pgn.Game]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            yield game


def polyglot_rules(path: Path, max_ply: int, min_games: int) -> Entries:
    """polyglot make-book's weighting, re-implemented with python-chess (no halving: the files
    used here never count a move 16384 times)."""
    games: dict[tuple[int, int], int] = defaultdict(int)
    scores: dict[tuple[int, int], int] = defaultdict(int)
    for game in games_of(path):
        winner = {"1-0": chess.WHITE, "0-1": chess.BLACK}.get(game.headers.get("Result", "*"))
        board = game.board()
        for move in list(game.mainline_moves())[:max_ply]:
            entry = chess.polyglot.zobrist_hash(board), polyglot_move(board, move)
            games[entry] += 1
            scores[entry] += 1 if winner is None else 2 * (winner == board.turn)
            board.push(move)
    kept = [
        (key, move, scores[key, move])
        for (key, move), count in games.items()
        if count >= min_games and scores[key, move] > 0
    ]
    return sorted(kept)


def polyglot_move(board: chess.Board, move: chess.Move) -> int:
    """Polyglot's move encoding: castling as the king taking its rook."""
    to_square = move.to_square
    if board.is_castling(move):
        rook_file = 7 if board.is_kingside_castling(move) else 0
        to_square = chess.square(rook_file, chess.square_rank(to_square))
    promotion = move.promotion - 1 if move.promotion else 0
    return promotion << 12 | move.from_square << 6 | to_square


def polyglot_binary() -> str | None:
    return shutil.which("polyglot") or shutil.which("polyglot", path="/usr/games")


# --- agreement with polyglot make-book ------------------------------------------------------------


@pytest.mark.parametrize(("max_ply", "min_games"), [(16, 3), (30, 1), (8, 2)])
def test_builder_matches_debian_polyglot(
    shared_data: Path, tmp_path: Path, max_ply: int, min_games: int
) -> None:
    polyglot = polyglot_binary()
    if polyglot is None:
        pytest.skip("polyglot is not installed (Debian package polyglot)")
    pgn = shared_data / "pgn" / "twic1599_1000k.pgn"
    reference = tmp_path / "polyglot.bin"
    subprocess.run(
        [polyglot, "make-book", "-pgn", str(pgn), "-bin", str(reference),
         "-max-ply", str(max_ply), "-min-game", str(min_games)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    ours = tmp_path / "ours.bin"
    report = build_book(pgn, ours, max_ply=max_ply, min_games=min_games)
    assert report.games == 1110 and report.broken_games == 0
    theirs = read_entries(reference)
    mine = read_entries(ours)
    assert_is_a_sorted_book(mine)
    # Equal as sets of (key, move, weight); polyglot orders moves of equal weight arbitrarily.
    assert sorted(mine) == sorted(theirs)
    assert report.entries == len(mine) and report.positions == len({key for key, _, _ in mine})


def test_builder_follows_polyglot_rules(shared_data: Path, tmp_path: Path) -> None:
    for name in ("twic1599_1000k.pgn", "lichess_db_100k.pgn"):
        pgn = shared_data / "pgn" / name
        for max_ply, min_games in ((16, 3), (40, 1)):
            out = tmp_path / f"{name}-{max_ply}.bin"
            build_book(pgn, out, max_ply=max_ply, min_games=min_games)
            assert sorted(read_entries(out)) == polyglot_rules(pgn, max_ply, min_games), name


# --- tolerant PGN, counts, progress --------------------------------------------------------------

MESSY_PGN = """
[Event "comments, variations and NAGs"]
[Result "1-0"]

1. e4 {best by test} e5 $1 (1... c5 2. Nf3 (2. c3) d6) 2. Nf3 !? Nc6 3. Bb5 a6 1-0

[Event "illegal move"]
[Result "0-1"]

1. e4 e5 2. Ke3 Nc6 0-1

[Event "bad FEN"]
[FEN "not a fen"]
[Result "1/2-1/2"]

1. e4 e5 1/2-1/2

[Event "from a FEN"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]
[Result "1/2-1/2"]

1. e4 Kd7 1/2-1/2

[Event "no result tag, movetext says draw"]

1. e4 e5 2. Nf3 1/2-1/2

[Event "unknown result"]
[Result "*"]

1. d4 *
"""


def test_messy_pgn_is_read_and_broken_games_counted(tmp_path: Path) -> None:
    pgn = tmp_path / "messy.pgn"
    pgn.write_text(MESSY_PGN, encoding="utf-8")
    out = tmp_path / "messy.bin"
    report = build_book(pgn, out, max_ply=16, min_games=1)
    assert (report.games, report.broken_games) == (6, 2)
    assert any("Ke3" in problem for problem in report.problems), report.problems
    assert any("not a fen" in problem for problem in report.problems), report.problems
    start = chess.Board()
    with open_book(out) as book:
        first = {entry.move.uci(): entry.weight for entry in book.find_all(start)}
        # e4: a White win (2) and a draw (1); d4: an unknown result, counted as a draw (1).
        assert first == {"e2e4": 3, "d2d4": 1}
        after_e4 = chess.Board()
        after_e4.push_uci("e2e4")
        # e5 lost once (0) and drew once (1); the variation 1...c5 is not counted.
        assert {e.move.uci(): e.weight for e in book.find_all(after_e4)} == {"e7e5": 1}
        fen_game = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
        assert [e.move.uci() for e in book.find_all(fen_game)] == ["e2e4"]


def test_moves_beyond_max_ply_are_not_counted_or_checked(tmp_path: Path) -> None:
    pgn = tmp_path / "late.pgn"
    pgn.write_text('[Result "1/2-1/2"]\n\n1. e4 e5 2. Ke3 Nc6 1/2-1/2\n', encoding="utf-8")
    out = tmp_path / "late.bin"
    report = build_book(pgn, out, max_ply=2, min_games=1)
    assert report.broken_games == 0
    assert len(read_entries(out)) == 2


def test_progress_is_reported_and_can_stop_the_build(shared_data: Path, tmp_path: Path) -> None:
    pgn = shared_data / "pgn" / "twic1599_1000k.pgn"
    calls: list[tuple[int, int, int]] = []
    build_book(pgn, tmp_path / "a.bin", progress=lambda *now: calls.append(now))
    size = pgn.stat().st_size
    assert len(calls) >= 2
    assert all(total == size for _, total, _ in calls)
    assert [done for done, _, _ in calls] == sorted(done for done, _, _ in calls)
    assert calls[-1][0] == size and calls[-1][2] == 1110

    class Stop(Exception):
        pass

    def stop(*_now: int) -> None:
        raise Stop

    out = tmp_path / "stopped.bin"
    with pytest.raises(Stop):
        build_book(pgn, out, progress=stop)
    assert not out.exists() and list(tmp_path.glob("stopped.bin*")) == []


def test_bad_paths_and_options_are_named(tmp_path: Path) -> None:
    pgn = tmp_path / "one.pgn"
    pgn.write_text("1. e4 *\n", encoding="utf-8")
    missing = tmp_path / "missing.pgn"
    with pytest.raises(FileError) as info:
        build_book([pgn, missing], tmp_path / "out.bin")
    assert str(missing) in str(info.value)
    unwritable = tmp_path / "no-such-dir" / "out.bin"
    with pytest.raises(FileError) as info:
        build_book(pgn, unwritable)
    assert str(unwritable) in str(info.value)
    with pytest.raises(InvalidLimitError, match="min_games 0"):
        build_book(pgn, tmp_path / "out.bin", min_games=0)
    with pytest.raises(InvalidLimitError, match="max_ply -1"):
        build_book(pgn, tmp_path / "out.bin", max_ply=-1)
    with pytest.raises(InvalidLimitError):
        build_book([], tmp_path / "out.bin")


# --- the default book ---------------------------------------------------------------------------


def test_default_book_is_built_from_its_opening_lines(tmp_path: Path) -> None:
    rebuilt = tmp_path / "default.bin"
    report = build_book(
        OPENING_LINES, rebuilt, max_ply=DEFAULT_MAX_PLY, min_games=DEFAULT_MIN_GAMES
    )
    assert report.broken_games == 0, report.problems
    assert rebuilt.read_bytes() == DEFAULT_BOOK_FILE.read_bytes(), "run `make book`"
    # The compiled-in book is that file: same size, same answers along every line.
    with open_book(DEFAULT_BOOK) as compiled, chess.polyglot.open_reader(rebuilt) as reference:
        assert len(compiled) == len(reference)
        for game in games_of(OPENING_LINES):
            board = game.board()
            for move in game.mainline_moves():
                assert list(compiled.find_all(board)) == list(reference.find_all(board))
                board.push(move)


def test_default_book_covers_eco_volumes_a_to_e() -> None:
    depth_by_volume: dict[str, list[int]] = defaultdict(list)
    with open_book(DEFAULT_BOOK) as book:
        for game in games_of(OPENING_LINES):
            moves = list(game.mainline_moves())
            assert 8 <= len(moves) <= 12, game.headers
            board = game.board()
            for move in moves:
                assert move in {entry.move for entry in book.find_all(board)}, board.fen()
                board.push(move)
            assert book.get(board) is None or len(moves) < DEFAULT_MAX_PLY
            depth_by_volume[game.headers["ECO"][0]].append(len(moves))
    assert sorted(depth_by_volume) == ["A", "B", "C", "D", "E"]
    for volume, depths in depth_by_volume.items():
        assert len(depths) >= 50 and max(depths) == 12, volume


# --- the command line ---------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ferrochess", *args], capture_output=True, text=True, timeout=300
    )


def test_cli_builds_a_book_with_a_progress_bar(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli.bin"
    pgn = shared_data / "pgn" / "twic1599_1000k.pgn"
    done = run_cli(
        "book", "build", str(pgn), "-o", str(out), "--max-ply", "16", "--min-games", "3",
        "--progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "1110 games read, 0 broken" in done.stdout and "811 entries" in done.stdout
    assert "100.0%" in done.stderr and "[#" in done.stderr
    assert len(read_entries(out)) == 811


def test_cli_reports_a_missing_pgn_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pgn"
    done = run_cli("book", "build", str(missing), "-o", str(tmp_path / "x.bin"))
    assert done.returncode == 2
    assert str(missing) in done.stderr and "Traceback" not in done.stderr


def test_cli_shows_book_moves() -> None:
    done = run_cli("book", "show", chess.STARTING_FEN)
    assert done.returncode == 0, done.stderr
    shown = [line.split()[0] for line in done.stdout.splitlines()]
    with open_book(DEFAULT_BOOK) as book:
        assert set(shown) == {entry.move.uci() for entry in book.find_all(chess.Board())}
    lone_kings = run_cli("book", "show", "8/8/8/4k3/8/8/8/4K3 w - - 0 1")
    assert lone_kings.returncode == 0 and "not in the book" in lone_kings.stdout
