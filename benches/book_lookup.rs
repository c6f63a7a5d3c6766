//! `cargo bench --bench book_lookup -- BOOK FENS`: Polyglot book lookups per second in the Rust core.
//!
//! Reads the positions (one FEN per line) from the file FENS, opens BOOK, and times
//! `Book::find_all(position, 1)` on every position in turn, over and over for at least a second:
//! each lookup computes the position's Polyglot key, binary-searches the memory-mapped book and
//! turns the raw entries into legal moves, which is what python-chess's `find_all(board)` does.
//! Prints `lookups N seconds S entries E` (E: entries found per pass, a check that the work is
//! done) for `benches/book_speed.py`, which puts it beside python-chess's reader.

use std::hint::black_box;
use std::time::{Duration, Instant};

use ferrochess::book::Book;
use ferrochess::position::parse_fen;

const MIN_DURATION: Duration = Duration::from_secs(1);

fn main() {
    // cargo bench passes `--bench` first; the paths are the last two arguments.
    let arguments: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let [book_path, fens_path] = arguments.as_slice() else {
        eprintln!("usage: cargo bench --bench book_lookup -- BOOK FENS");
        std::process::exit(2);
    };
    let book = Book::open(book_path).unwrap_or_else(|error| panic!("{error}"));
    let text = std::fs::read_to_string(fens_path).expect("readable FEN file");
    let positions: Vec<_> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|fen| parse_fen(fen).unwrap_or_else(|error| panic!("{error}")))
        .collect();
    assert!(!positions.is_empty(), "no positions in {fens_path}");
    let entries_per_pass: usize = positions.iter().map(|p| book.find_all(p, 1).len()).sum();
    let start = Instant::now();
    let mut lookups = 0u64;
    while start.elapsed() < MIN_DURATION {
        for position in &positions {
            black_box(book.find_all(black_box(position), 1));
        }
        lookups += positions.len() as u64;
    }
    let seconds = start.elapsed().as_secs_f64();
    println!("lookups {lookups} seconds {seconds:.6} entries {entries_per_pass}");
}
