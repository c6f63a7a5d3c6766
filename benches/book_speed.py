"""Polyglot book lookups per second: ferrochess against python-chess's reader, in one run.

Contract: collects the positions of the first 200 games of ../shared/data/pgn (or, without it, of
the default book's opening lines), then for each book (Debian's gnuchess book, ../shared/data's
performance.bin, ferrochess's default book; those present) measures, one after the other:

* Rust core: `cargo bench --bench book_lookup -- BOOK FENS` (`Book::find_all`: Polyglot key,
  binary search over the memory map, raw moves turned into legal moves), at least one second;
* python-chess: `list(chess.polyglot.open_reader(BOOK).find_all(board))` over the same positions,
  at least one second;
* ferrochess from Python: `list(ferrochess.open_book(BOOK).find_all(board))`, the same way.

Prints lookups per second of each and the ratios to python-chess, and checks that all three find the
same number of entries; without `cargo` on PATH the Rust core is left out (its figures null).
`--json` prints the figures as JSON instead, `--json PATH` writes them to PATH and prints the
report too. Exit 1 if they disagree or ferrochess cannot be imported.

    python benches/book_speed.py [--games N] [--json [PATH]]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
from _common import add_json_option, emit_json, import_ferrochess

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
BOOKS = [
    ("gnuchess book.bin", Path("/usr/share/games/gnuchess/book.bin")),
    ("performance.bin", SHARED_DATA / "books" / "performance.bin"),
    ("ferrochess default", REPO_ROOT / "src" / "book" / "default.bin"),
]
MIN_SECONDS = 1.0


def positions(games: int) -> list[chess.Board]:
    """Every position (before each move) of the first `games` games."""
    sources = sorted((SHARED_DATA / "pgn").glob("*.pgn")) or [
        REPO_ROOT / "src" / "book" / "openings" / "eco_lines.pgn"
    ]
    boards: list[chess.Board] = []
    read = 0
    for path in sources:
        with path.open(encoding="utf-8", errors="replace") as handle:
            while read < games and (game := chess.pgn.read_game(handle)) is not None:
                read += 1
                board = game.board()
                for move in game.mainline_moves():
                    boards.append(board.copy(stack=False))
                    board.push(move)
    return boards


def rate(lookup: Callable[[chess.Board], int], boards: list[chess.Board]) -> tuple[float, int]:
    """(lookups per second over at least MIN_SECONDS, entries found in one pass)."""
    found = sum(lookup(board) for board in boards)
    count = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < MIN_SECONDS:
        for board in boards:
            lookup(board)
        count += len(boards)
    return count / elapsed, found


def rust_rate(book: Path, fens: Path) -> tuple[float, int]:
    done = subprocess.run(
        ["cargo", "bench", "--quiet", "--bench", "book_lookup", "--", str(book), str(fens)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    fields = done.stdout.split()
    values = dict(zip(fields[::2], fields[1::2]))
    return int(values["lookups"]) / float(values["seconds"]), int(values["entries"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    add_json_option(parser)
    args = parser.parse_args()
    ferrochess = import_ferrochess()
    if ferrochess is None:
        return 1
    boards = positions(args.games)
    cargo = shutil.which("cargo")
    if cargo is None:
        print("cargo not found: the Rust core's lookups are not measured", file=sys.stderr)
    results = []
    with tempfile.TemporaryDirectory() as directory:
        fens = Path(directory) / "positions.fen"
        fens.write_text("".join(board.fen() + "\n" for board in boards), encoding="utf-8")
        for name, path in BOOKS:
            if not path.is_file():
                print(f"skipped {name}: {path} not found", file=sys.stderr)
                continue
            rust, rust_found = rust_rate(path, fens) if cargo else (None, None)
            with chess.polyglot.open_reader(path) as reader:
                theirs, their_found = rate(lambda b: len(list(reader.find_all(b))), boards)
            with ferrochess.open_book(path) as book:
                ours, our_found = rate(lambda b: len(list(book.find_all(b))), boards)
            if their_found != our_found or rust_found not in (None, their_found):
                print(f"{name}: entries differ: {rust_found} {their_found} {our_found}")
                return 1
            results.append(
                {
                    "book": name,
                    "positions": len(boards),
                    "entries_found": their_found,
                    "rust_per_s": rust,
                    "python_chess_per_s": theirs,
                    "ferrochess_python_per_s": ours,
                }
            )
    if not emit_json(args.json, results):
        return 0
    print(f"{len(boards)} positions; lookups per second (ratio to python-chess)")
    print(f"{'book':<20} {'Rust core':>18} {'ferrochess (Py)':>18} {'python-chess':>13}")
    for r in results:
        base = r["python_chess_per_s"]
        rust = r["rust_per_s"]
        rust_text = f"{rust:>10,.0f} ({rust / base:4.0f}x)" if rust else f"{'(no cargo)':>18}"
        print(
            f"{r['book']:<20} {rust_text} "
            f"{r['ferrochess_python_per_s']:>10,.0f} ({r['ferrochess_python_per_s'] / base:4.1f}x) "
            f"{base:>13,.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
