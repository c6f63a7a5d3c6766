//! Polyglot opening books: the standard `.bin` format, read through a memory map so a book of any
//! size opens at once and each lookup is a binary search.
//!
//! A book is a sorted array of 16-byte big-endian entries: the position's Polyglot key (`u64`), the
//! move (`u16`: to square in bits 0-5, from square in bits 6-11, promotion in bits 12-14 as
//! 1 knight .. 4 queen; castling written as the king taking its own rook), a weight (`u16`) and a
//! learn value (`u32`). Keys are the Zobrist keys of [`crate::position::polyglot_key`].
//!
//! [`choice`] picks one book move the way a player wants (weighted, uniform or best; a seed makes
//! games reproducible); [`builder`] makes books from PGN games like `polyglot make-book`. The
//! engine's default book, built from the opening lines in `src/book/openings/`, is compiled in:
//! [`Book::default_book`].

pub mod builder;
pub mod choice;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use memmap2::Mmap;
use shakmaty::{Chess, Move, Position as _, Role};

use crate::error::Error;
use crate::position::polyglot_key;

/// The default book's bytes: `openings/eco_lines.pgn` built by [`builder`] (`make book` rebuilds
/// it; a test checks that the two agree).
const DEFAULT_BOOK_BYTES: &[u8] = include_bytes!("default.bin");

/// The ECO opening lines the default book is built from (`openings/eco_lines.pgn`: named lines,
/// each scored within +-0.9 pawns by Stockfish), which `ferrochess.match` plays as its default
/// balanced openings.
pub const ECO_LINES_PGN: &str = include_str!("openings/eco_lines.pgn");
const _: () = assert!(DEFAULT_BOOK_BYTES.len().is_multiple_of(ENTRY_BYTES));

/// The name that stands for the compiled-in default book wherever a book path is accepted.
pub const DEFAULT_BOOK_NAME: &str = "default";

/// Size of one book entry in bytes.
pub const ENTRY_BYTES: usize = 16;

/// One book move for a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    pub key: u64,
    /// The move as stored in the file.
    pub raw_move: u16,
    /// The legal move it stands for in the position looked up.
    pub chess_move: Move,
    pub weight: u16,
    pub learn: u32,
}

/// Where a book's entries live.
enum Storage {
    /// A memory-mapped file; `None` for an empty file (which cannot be mapped).
    Mapped(Option<Mmap>),
    /// Bytes compiled into the program.
    Static(&'static [u8]),
    /// Bytes handed over by the caller ([`Book::from_bytes`]).
    Owned(Vec<u8>),
}

/// An open book.
pub struct Book {
    storage: Storage,
    path: PathBuf,
}

impl Book {
    /// Opens and checks a book: its size must be a multiple of 16 bytes and its keys sorted.
    pub fn open(path: impl AsRef<Path>) -> Result<Book, Error> {
        let path = path.as_ref().to_path_buf();
        let io_error = |error: std::io::Error| Error::File {
            path: path.display().to_string(),
            message: error.to_string(),
        };
        let file = File::open(&path).map_err(io_error)?;
        let length = file.metadata().map_err(io_error)?.len();
        check_size(length).map_err(|reason| invalid_book(&path, reason))?;
        let map = if length == 0 {
            None
        } else {
            // SAFETY: the map is only read. Like every reader of memory-mapped files, it assumes the
            // file is not truncated or rewritten by another process while the book is open.
            Some(unsafe { Mmap::map(&file) }.map_err(io_error)?)
        };
        Book::checked(Storage::Mapped(map), path)
    }

    /// A book from its bytes, checked like [`Book::open`]; `name` stands for a path in messages.
    pub fn from_bytes(bytes: Vec<u8>, name: &str) -> Result<Book, Error> {
        let path = PathBuf::from(name);
        check_size(bytes.len() as u64).map_err(|reason| invalid_book(&path, reason))?;
        Book::checked(Storage::Owned(bytes), path)
    }

    fn checked(storage: Storage, path: PathBuf) -> Result<Book, Error> {
        let book = Book { storage, path };
        book.check_sorted()
            .map_err(|reason| invalid_book(&book.path, reason))?;
        Ok(book)
    }

    /// The compiled-in default book (shared; checked once).
    pub fn default_book() -> Arc<Book> {
        static DEFAULT: OnceLock<Arc<Book>> = OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                let book = Book {
                    storage: Storage::Static(DEFAULT_BOOK_BYTES),
                    path: PathBuf::from(DEFAULT_BOOK_NAME),
                };
                debug_assert!(book.check_sorted().is_ok());
                Arc::new(book)
            })
            .clone()
    }

    /// The book named by `name`: [`DEFAULT_BOOK_NAME`] for the compiled-in book, else a path.
    pub fn open_named(name: &str) -> Result<Arc<Book>, Error> {
        if name == DEFAULT_BOOK_NAME {
            Ok(Book::default_book())
        } else {
            Book::open(name).map(Arc::new)
        }
    }

    fn check_sorted(&self) -> Result<(), String> {
        match (1..self.len()).find(|&i| self.key_at(i - 1) > self.key_at(i)) {
            Some(index) => Err(format!(
                "its keys are not sorted (entry {index} has a smaller key than entry {})",
                index - 1
            )),
            None => Ok(()),
        }
    }

    /// The file this book was opened from ([`DEFAULT_BOOK_NAME`] for the default book).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.bytes().len() / ENTRY_BYTES
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Mapped(map) => map.as_deref().unwrap_or_default(),
            Storage::Static(bytes) => bytes,
            Storage::Owned(bytes) => bytes,
        }
    }

    fn entry_bytes(&self, index: usize) -> &[u8; ENTRY_BYTES] {
        let start = index * ENTRY_BYTES;
        self.bytes()[start..start + ENTRY_BYTES]
            .try_into()
            .expect("an entry is 16 bytes")
    }

    fn key_at(&self, index: usize) -> u64 {
        let bytes = self.entry_bytes(index);
        u64::from_be_bytes(bytes[0..8].try_into().expect("8 bytes"))
    }

    /// The raw entries stored for `key`, in file order: (raw move, weight, learn).
    pub fn raw_entries(&self, key: u64) -> impl Iterator<Item = (u16, u16, u32)> + '_ {
        let first = partition_point(self.len(), |i| self.key_at(i) < key);
        (first..self.len())
            .take_while(move |&i| self.key_at(i) == key)
            .map(|i| {
                let bytes = self.entry_bytes(i);
                (
                    u16::from_be_bytes([bytes[8], bytes[9]]),
                    u16::from_be_bytes([bytes[10], bytes[11]]),
                    u32::from_be_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]),
                )
            })
    }

    /// The book moves of `position` with at least `minimum_weight`, in file order. Entries whose move
    /// is not legal in the position (a corrupt book or a key collision) are skipped, never returned.
    pub fn find_all(&self, position: &Chess, minimum_weight: u16) -> Vec<BookEntry> {
        let key = polyglot_key(position);
        let legal = position.legal_moves();
        self.raw_entries(key)
            .filter(|&(_, weight, _)| weight >= minimum_weight)
            .filter_map(|(raw_move, weight, learn)| {
                // Bit 15 is no part of the move: python-chess and Stockfish read bits 0-14 only.
                let chess_move = *legal
                    .iter()
                    .find(|m| encode_move(**m) == raw_move & MOVE_BITS)?;
                Some(BookEntry {
                    key,
                    raw_move,
                    chess_move,
                    weight,
                    learn,
                })
            })
            .collect()
    }
}

/// The bits of an entry's move that hold it (0-14); the 16th is unused by the format.
const MOVE_BITS: u16 = 0x7FFF;

/// A book's size must be a whole number of entries.
fn check_size(length: u64) -> Result<(), String> {
    if length.is_multiple_of(ENTRY_BYTES as u64) {
        Ok(())
    } else {
        Err(format!(
            "its size, {length} bytes, is not a multiple of the 16-byte entry size"
        ))
    }
}

fn invalid_book(path: &Path, reason: String) -> Error {
    Error::InvalidBook {
        path: path.display().to_string(),
        reason,
    }
}

/// The first index in `0..len` for which `is_before` is false (`is_before` must be monotone).
fn partition_point(len: usize, is_before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        if is_before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// A move in Polyglot's 16-bit encoding (castling as king takes rook).
pub fn encode_move(m: Move) -> u16 {
    let (from, to) = match m {
        Move::Castle { king, rook } => (king, rook),
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Put { to, .. } => (to, to),
    };
    let promotion = match m.promotion() {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    to as u16 | (from as u16) << 6 | promotion << 12
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{START_FEN, parse_fen};
    use std::io::Write;

    fn write_book(name: &str, entries: &[(u64, u16, u16, u32)]) -> PathBuf {
        let path =
            std::env::temp_dir().join(format!("ferrochess-{}-{name}.bin", std::process::id()));
        let mut file = File::create(&path).unwrap();
        for (key, m, weight, learn) in entries {
            file.write_all(&key.to_be_bytes()).unwrap();
            file.write_all(&m.to_be_bytes()).unwrap();
            file.write_all(&weight.to_be_bytes()).unwrap();
            file.write_all(&learn.to_be_bytes()).unwrap();
        }
        path
    }

    #[test]
    fn finds_legal_moves_and_skips_illegal_ones() {
        let start = parse_fen(START_FEN).unwrap();
        let key = polyglot_key(&start);
        let e2e4 = (12 << 6 | 28) as u16; // e2 = 12, e4 = 28
        let e2e5 = (12 << 6 | 36) as u16; // illegal
        let path = write_book(
            "find",
            &[(key - 1, 0, 1, 0), (key, e2e4, 7, 3), (key, e2e5, 9, 0)],
        );
        let book = Book::open(&path).unwrap();
        assert_eq!(book.len(), 3);
        let entries = book.find_all(&start, 1);
        assert_eq!(entries.len(), 1);
        assert_eq!(crate::position::move_to_uci(entries[0].chess_move), "e2e4");
        assert_eq!((entries[0].weight, entries[0].learn), (7, 3));
        assert!(book.find_all(&start, 8).is_empty());
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn the_unused_top_bit_of_a_move_is_ignored_as_python_chess_does() {
        let start = parse_fen(START_FEN).unwrap();
        let key = polyglot_key(&start);
        let e2e4_high = 0x8000 | (12 << 6 | 28) as u16;
        let path = write_book("high-bit", &[(key, e2e4_high, 0, 0)]);
        let book = Book::open(&path).unwrap();
        let entries = book.find_all(&start, 0);
        assert_eq!(entries.len(), 1);
        assert_eq!(crate::position::move_to_uci(entries[0].chess_move), "e2e4");
        assert_eq!(entries[0].raw_move, e2e4_high);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn castling_is_king_takes_rook() {
        let position = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let encoded: Vec<u16> = position
            .legal_moves()
            .into_iter()
            .filter(|m| m.is_castle())
            .map(encode_move)
            .collect();
        // e1h1 and e1a1
        assert!(encoded.contains(&(4 << 6 | 7)));
        assert!(encoded.contains(&(4 << 6)));
    }

    #[test]
    fn malformed_books_are_rejected_with_their_path() {
        let path = std::env::temp_dir().join(format!("ferrochess-{}-odd.bin", std::process::id()));
        std::fs::write(&path, [0u8; 17]).unwrap();
        let error = Book::open(&path).err().unwrap();
        assert!(matches!(error, Error::InvalidBook { .. }), "{error}");
        assert!(error.to_string().contains(&path.display().to_string()));
        std::fs::remove_file(&path).unwrap();
        let unsorted = write_book("unsorted", &[(5, 0, 1, 0), (4, 0, 1, 0)]);
        assert!(matches!(
            Book::open(&unsorted),
            Err(Error::InvalidBook { .. })
        ));
        std::fs::remove_file(unsorted).unwrap();
        let missing = Book::open("/nonexistent/book.bin").err().unwrap();
        assert!(matches!(missing, Error::File { .. }));
        assert!(missing.to_string().contains("/nonexistent/book.bin"));
        let empty = write_book("empty", &[]);
        assert!(Book::open(&empty).unwrap().is_empty());
        std::fs::remove_file(empty).unwrap();
    }
}
