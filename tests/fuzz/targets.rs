//! The fuzz targets' bodies, shared by the cargo-fuzz binaries (`tests/fuzz/fuzz_targets/`) and the
//! regression test that replays every saved input (`tests/fuzz_regressions.rs`).
//!
//! Contract of every target: whatever the bytes, the public core API returns a value or an error and
//! never panics, hangs or aborts; where an answer can be checked cheaply it is (a FEN written back
//! reads the same, a book move is legal and in the book, the UCI loop answers every `isready`).

#![allow(dead_code)]

use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};

use ferrochess::book::choice::{BookOptions, Selection};
use ferrochess::book::{Book, ENTRY_BYTES};
use ferrochess::limits::StopFlag;
use ferrochess::position::{Position, START_FEN, polyglot_key};
use ferrochess::random::Random;
use ferrochess::search::{SearchRequest, Searcher, Silent};
use shakmaty::Position as _;

/// A FEN: parsed; if valid, written back and read again (the same position), its moves generated,
/// its Polyglot key, evaluation and term-by-term breakdown taken, and the default book asked for a
/// move under a ply limit.
pub fn fen(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(position) = Position::from_fen(&text) else {
        return;
    };
    let board = position.board().clone();
    let again = Position::from_fen(&position.fen()).expect("a FEN the engine wrote reads back");
    assert_eq!(again.fen(), position.fen(), "{text:?}");
    assert_eq!(polyglot_key(&board), position.key());
    let _ = board.legal_moves();
    let _ = ferrochess::eval::classic::evaluate(&board);
    let _ = ferrochess::eval::classic::breakdown(&board);
    let options = BookOptions {
        max_ply: Some(u32::from(data.first().copied().unwrap_or(0))),
        ..BookOptions::default()
    };
    if let Some(entry) = Book::default_book().choose(&board, &options, &[], &mut Random::seeded(1))
    {
        assert!(board.is_legal(entry.chess_move));
    }
}

/// A game: the first line is a FEN (empty: the start position), the rest UCI moves. Read as a
/// game, and if it is legal searched two plies deep from its last position with its history
/// (repetitions, the 50-move rule); the move found must be legal there.
pub fn moves(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let fen = if first.trim().is_empty() {
        START_FEN
    } else {
        first
    };
    let moves: Vec<&str> = rest.split_whitespace().collect();
    let Ok(mut position) = Position::from_fen_and_moves(fen, &moves) else {
        return;
    };
    let board = position.board().clone();
    let mut searcher = Searcher::new(1).expect("1 MB");
    let info = searcher
        .think(
            &mut position,
            &SearchRequest::depth(2),
            &StopFlag::new(),
            &mut Silent,
        )
        .expect("a legal game can be searched")
        .into_search()
        .expect("no book: a search");
    match info.best_move() {
        Some(best) => assert!(board.is_legal(best)),
        None => assert!(
            board.legal_moves().is_empty(),
            "no move from {fen} {moves:?}"
        ),
    }
}

/// Polyglot book bytes. The first byte chooses: even, the rest is a whole file, opened (or refused)
/// and looked up; odd, the rest is a list of 8-byte entries (move, weight, learn) each filed under
/// one of a few real positions, written as a sorted book, which must open, and whose every answer
/// must be a legal move of the position asked with at least the weight asked.
pub fn book(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let positions: Vec<shakmaty::Chess> = [
        START_FEN,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    ]
    .iter()
    .map(|fen| Position::from_fen(fen).expect("valid").board().clone())
    .collect();
    let book = if mode % 2 == 0 {
        match Book::from_bytes(rest.to_vec(), "fuzzed.bin") {
            Ok(book) => book,
            Err(error) => {
                assert!(error.to_string().contains("fuzzed.bin"), "{error}");
                return;
            }
        }
    } else {
        let mut entries: Vec<[u8; ENTRY_BYTES]> = rest
            .chunks_exact(8)
            .enumerate()
            .map(|(index, chunk)| {
                let key = polyglot_key(&positions[(mode as usize / 2 + index) % positions.len()]);
                let mut entry = [0; ENTRY_BYTES];
                entry[..8].copy_from_slice(&key.to_be_bytes());
                entry[8..].copy_from_slice(chunk);
                entry
            })
            .collect();
        entries.sort_by_key(|entry| u64::from_be_bytes(entry[..8].try_into().expect("8 bytes")));
        Book::from_bytes(entries.concat(), "fuzzed.bin").expect("a sorted book opens")
    };
    let minimum_weight = u16::from(mode >> 1);
    for board in &positions {
        let legal = board.legal_moves();
        let found = book.find_all(board, minimum_weight);
        for entry in &found {
            assert!(legal.contains(&entry.chess_move));
            assert!(entry.weight >= minimum_weight);
        }
        for selection in [Selection::Weighted, Selection::Uniform, Selection::Best] {
            let options = BookOptions {
                selection,
                minimum_weight,
                max_ply: None,
            };
            let mut random = Random::seeded(u64::from(mode));
            if let Some(chosen) = book.choose(board, &options, &[], &mut random) {
                assert!(
                    found
                        .iter()
                        .any(|entry| entry.chess_move == chosen.chess_move)
                );
            }
        }
    }
}

/// Output the UCI loop writes, kept for inspection (the loop needs `Write + Send + 'static`).
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("not poisoned")
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// Everything written so far (the engine writes only whole UTF-8 lines).
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().expect("not poisoned").clone()).expect("UTF-8 output")
    }
}

/// A UCI command stream, as bytes (invalid UTF-8 included), followed by `isready`: the loop must
/// answer every `isready` with `readyok` and end at the end of the input, stopping any search.
/// To keep one input within milliseconds, every `go` gets `movetime 20` appended (so its other
/// limits still parse but none runs long), `bench` and `quit` are dropped, and so are `setoption`s
/// of the hash above 64 MB or of files (books and tablebases from the disk have their own targets).
pub fn uci(data: &[u8]) {
    let mut stream = Vec::with_capacity(data.len() + 16);
    let mut readies = 0;
    for line in data.split(|&byte| byte == b'\n') {
        let text = String::from_utf8_lossy(line);
        let mut words = text.split_whitespace();
        let command = words.next().unwrap_or("");
        let lowered = text.to_ascii_lowercase();
        let skipped = matches!(command, "bench" | "quit")
            || (command == "setoption"
                && (lowered.contains("bookfile")
                    || lowered.contains("syzygypath")
                    || (lowered.contains("hash") && !small_hash(&lowered))));
        if skipped {
            continue;
        }
        stream.extend_from_slice(line);
        if command == "go" {
            stream.extend_from_slice(b" movetime 20");
        }
        stream.push(b'\n');
        readies += usize::from(command == "isready");
    }
    stream.extend_from_slice(b"isready\n");
    readies += 1;
    let output = Captured::default();
    ferrochess::uci::run(Cursor::new(stream), output.clone()).expect("writing to memory works");
    let text = output.text();
    let answered = text.lines().filter(|line| *line == "readyok").count();
    assert_eq!(answered, readies, "{text}");
}

/// A `setoption ... hash ...` line whose every number is at most 64 (MB).
fn small_hash(line: &str) -> bool {
    line.split(|c: char| !c.is_ascii_digit())
        .filter(|digits| !digits.is_empty())
        .all(|digits| digits.len() <= 2 && digits.parse::<u32>().is_ok_and(|n| n <= 64))
}
