//! Python arguments into core values, core results into Python dicts. Validation itself lives in the
//! core (`limits.rs`); this only moves values across.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList};

use crate::book::choice::{BookOptions, BookPlayer, Selection};
use crate::book::{Book, BookEntry};
use std::sync::Arc;

use crate::error::Error;
use crate::limits::{SearchLimits, check_depth, duration_from_seconds};
use crate::position::{Bitboards, from_bitboards, move_to_uci, move_to_uci_in};
use crate::score::{Score, ScoreKind, TablebaseVerdict};
use crate::search::{BookMove, SearchInfo, TablebaseMove};
use crate::tablebase::Tablebases;
use shakmaty::CastlingMode;

/// A Python int as an `i64`; one beyond that range is a bad argument quoting its value (not the
/// `OverflowError` a plain conversion gives).
pub fn integer(name: &'static str, value: &Bound<'_, PyInt>) -> Result<i64, Error> {
    value
        .extract::<i64>()
        .map_err(|_| Error::argument(name, value, "is out of range"))
}

/// An optional Python int as an optional `i64`, see [`integer`].
pub fn optional_integer(
    name: &'static str,
    value: Option<&Bound<'_, PyInt>>,
) -> Result<Option<i64>, Error> {
    value.map(|v| integer(name, v)).transpose()
}

/// A Python int reduced to 64 bits (two's complement, so negative and huge seeds work too).
pub fn seed_bits(seed: &Bound<'_, PyInt>) -> PyResult<u64> {
    seed.call_method1("__and__", (u64::MAX,))?.extract::<u64>()
}

/// The book arguments, as the binding receives them.
pub struct BookArguments {
    /// `"default"` for the compiled-in book, else a path; `None` for no book.
    pub book: Option<String>,
    pub choice: String,
    pub minimum_weight: i64,
    pub max_ply: Option<i64>,
}

impl BookArguments {
    /// The validated options, then the book opened (an unreadable or malformed file is an error).
    pub fn into_player(self, seed: Option<u64>) -> Result<Option<BookPlayer>, Error> {
        let selection = Selection::parse(&self.choice)?;
        if !(1..=i64::from(u16::MAX)).contains(&self.minimum_weight) {
            return Err(Error::argument(
                "book_min_weight",
                self.minimum_weight,
                "must be between 1 and 65535",
            ));
        }
        let max_ply = match self.max_ply {
            Some(ply) if ply < 0 => {
                return Err(Error::argument("book_max_ply", ply, "must be at least 0"));
            }
            Some(ply) => Some(ply.min(i64::from(u32::MAX)) as u32),
            None => None,
        };
        let options = BookOptions {
            selection,
            minimum_weight: self.minimum_weight as u16,
            max_ply,
        };
        let Some(name) = self.book else {
            return Ok(None);
        };
        let book = Book::open_named(&name)?;
        Ok(Some(BookPlayer::new(book, options, seed)))
    }
}

/// A python-chess board's pieces: occupied by white, by black; pawns, knights, bishops, rooks,
/// queens, kings.
pub type Pieces = (u64, u64, u64, u64, u64, u64, u64, u64);

/// A python-chess board's current position as `interop.board_state` passes it: pieces, turn (True
/// for White), castling rights (rook squares), en passant square or None, halfmove clock,
/// fullmove number.
pub type BoardState = (Pieces, bool, u64, Option<u8>, u32, u32);

/// The position a python-chess board's state describes.
pub fn board_from_state(state: BoardState) -> Result<shakmaty::Chess, Error> {
    let (pieces, turn, castling, ep, halfmoves, fullmoves) = state;
    let (white, black, pawns, knights, bishops, rooks, queens, kings) = pieces;
    from_bitboards(&Bitboards {
        by_color: [white, black],
        by_role: [pawns, knights, bishops, rooks, queens, kings],
        white_to_move: turn,
        castling_rights: castling,
        ep_square: ep,
        halfmoves,
        fullmoves,
    })
}

/// The tablebases named by a path list (`None` or empty: none).
pub fn open_tablebase(path: Option<&str>) -> Result<Option<Arc<Tablebases>>, Error> {
    match path {
        Some(path) if !path.is_empty() => Ok(Some(Arc::new(Tablebases::open(path)?))),
        _ => Ok(None),
    }
}

/// Book entries as Python receives them: (UCI move, weight), heaviest first.
pub fn book_moves(entries: &[BookEntry]) -> Vec<(String, u16)> {
    let mut moves: Vec<(String, u16)> = entries
        .iter()
        .map(|e| (move_to_uci(e.chess_move), e.weight))
        .collect();
    moves.sort_by_key(|(_, weight)| std::cmp::Reverse(*weight));
    moves
}

/// The `chess.engine.Limit` fields, as the binding receives them.
#[derive(Default)]
pub struct LimitArguments {
    pub depth: Option<i64>,
    pub nodes: Option<i64>,
    pub time: Option<f64>,
    pub white_clock: Option<f64>,
    pub black_clock: Option<f64>,
    pub white_inc: Option<f64>,
    pub black_inc: Option<f64>,
    pub remaining_moves: Option<i64>,
    pub mate: Option<i64>,
}

fn seconds(name: &'static str, value: Option<f64>) -> Result<Option<std::time::Duration>, Error> {
    value.map(|s| duration_from_seconds(name, s)).transpose()
}

fn positive(name: &'static str, value: Option<i64>) -> Result<Option<u64>, Error> {
    match value {
        Some(v) if v < 1 => Err(Error::argument(name, v, "must be at least 1")),
        Some(v) => Ok(Some(v as u64)),
        None => Ok(None),
    }
}

impl LimitArguments {
    /// Validated core limits; a search with no limit at all is refused (it would never return).
    pub fn into_limits(self) -> Result<SearchLimits, Error> {
        let limits = SearchLimits {
            depth: self.depth.map(check_depth).transpose()?,
            nodes: positive("nodes", self.nodes)?,
            movetime: seconds("time", self.time)?,
            white_clock: seconds("white_clock", self.white_clock)?,
            black_clock: seconds("black_clock", self.black_clock)?,
            white_increment: seconds("white_inc", self.white_inc)?,
            black_increment: seconds("black_inc", self.black_inc)?,
            moves_to_go: positive("remaining_moves", self.remaining_moves)?
                .map(|v| v.min(u32::MAX as u64) as u32),
            mate: positive("mate", self.mate)?.map(|v| v.min(u32::MAX as u64) as u32),
            move_overhead: None,
        };
        if limits.is_infinite() {
            return Err(Error::argument(
                "limit",
                "Limit()",
                "set at least one of depth, nodes, time, white_clock/black_clock or mate",
            ));
        }
        limits.validate()?;
        Ok(limits)
    }
}

/// The castling mode a `chess960` argument asks for.
pub fn castling_mode(chess960: bool) -> CastlingMode {
    CastlingMode::from_chess960(chess960)
}

/// A search's information, after an iteration or at its end, as a dict: see `_core.pyi`. Moves
/// are written in castling `mode` (Chess960: the king takes its own rook, `e1h1`).
pub fn info_to_dict<'py>(
    py: Python<'py>,
    info: &SearchInfo,
    mode: CastlingMode,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("depth", info.depth)?;
    dict.set_item("seldepth", info.seldepth)?;
    dict.set_item("nodes", info.nodes)?;
    dict.set_item("time", info.elapsed.as_secs_f64())?;
    dict.set_item("nps", info.nps())?;
    dict.set_item("hashfull", info.hashfull)?;
    dict.set_item("tbhits", info.tbhits)?;
    let lines = PyList::empty(py);
    for (index, line) in info.lines.iter().enumerate() {
        let entry = PyDict::new(py);
        entry.set_item("multipv", index + 1)?;
        let (cp, mate) = match line.score.kind() {
            ScoreKind::Centipawns(cp) => (Some(cp), None),
            ScoreKind::Mate(moves) => (None, Some(moves)),
        };
        entry.set_item("score_cp", cp)?;
        entry.set_item("score_mate", mate)?;
        let verdict = line.score.tablebase_verdict();
        entry.set_item("tablebase", verdict.map(TablebaseVerdict::name))?;
        let pv: Vec<String> = line.pv.iter().map(|m| move_to_uci_in(*m, mode)).collect();
        entry.set_item("pv", pv)?;
        lines.append(entry)?;
    }
    dict.set_item("lines", lines)?;
    let best_line = info
        .lines
        .first()
        .map(|line| line.pv.as_slice())
        .unwrap_or_default();
    dict.set_item("move", best_line.first().map(|m| move_to_uci_in(*m, mode)))?;
    dict.set_item("ponder", best_line.get(1).map(|m| move_to_uci_in(*m, mode)))?;
    let stats = PyDict::new(py);
    stats.set_item("quiescence_nodes", info.stats.quiescence_nodes)?;
    stats.set_item("cutoffs", info.stats.cutoffs)?;
    stats.set_item("tt_hits", info.stats.tt_hits)?;
    stats.set_item("evaluations", info.stats.evaluations)?;
    dict.set_item("stats", stats)?;
    dict.set_item("source", "search")?;
    dict.set_item("book_weight", None::<u16>)?;
    dict.set_item("book_moves", PyList::empty(py))?;
    dict.set_item("wdl", None::<i32>)?;
    dict.set_item("dtz", None::<i32>)?;
    dict.set_item("tablebase_error", info.tablebase_error.as_deref())?;
    Ok(dict)
}

/// The fields a move found without a search shares: no depth, no nodes, one line of one move.
fn unsearched_dict<'py>(
    py: Python<'py>,
    uci: String,
    elapsed: std::time::Duration,
    score: Option<Score>,
    verdict: Option<TablebaseVerdict>,
    source: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for key in ["depth", "seldepth", "nodes", "nps", "hashfull", "tbhits"] {
        dict.set_item(key, 0)?;
    }
    dict.set_item("time", elapsed.as_secs_f64())?;
    let line = PyDict::new(py);
    line.set_item("multipv", 1)?;
    let (cp, mate) = match score.map(|s| s.kind()) {
        Some(ScoreKind::Centipawns(cp)) => (Some(cp), None),
        Some(ScoreKind::Mate(moves)) => (None, Some(moves)),
        None => (None, None),
    };
    line.set_item("score_cp", cp)?;
    line.set_item("score_mate", mate)?;
    line.set_item("tablebase", verdict.map(TablebaseVerdict::name))?;
    line.set_item("pv", vec![uci.clone()])?;
    dict.set_item("lines", PyList::new(py, [line])?)?;
    dict.set_item("move", uci)?;
    dict.set_item("ponder", None::<String>)?;
    let stats = PyDict::new(py);
    for key in ["quiescence_nodes", "cutoffs", "tt_hits", "evaluations"] {
        stats.set_item(key, 0)?;
    }
    dict.set_item("stats", stats)?;
    dict.set_item("source", source)?;
    dict.set_item("book_weight", None::<u16>)?;
    dict.set_item("book_moves", PyList::empty(py))?;
    dict.set_item("wdl", None::<i32>)?;
    dict.set_item("dtz", None::<i32>)?;
    dict.set_item("tablebase_error", None::<String>)?;
    Ok(dict)
}

/// A move chosen by the tablebases at the root, in the shape of [`info_to_dict`] (in castling
/// `mode`).
pub fn tablebase_move_to_dict<'py>(
    py: Python<'py>,
    tablebase: &TablebaseMove,
    mode: CastlingMode,
) -> PyResult<Bound<'py, PyDict>> {
    let root = &tablebase.root;
    let uci = move_to_uci_in(root.chess_move, mode);
    // The verdict from the WDL, which tells cursed wins and blessed losses from draws.
    let verdict = TablebaseVerdict::from_wdl(root.wdl);
    let dict = unsearched_dict(
        py,
        uci,
        tablebase.elapsed,
        Some(root.score),
        verdict,
        "tablebase",
    )?;
    dict.set_item("tbhits", root.probes)?;
    dict.set_item("wdl", root.wdl)?;
    dict.set_item("dtz", root.dtz)?;
    Ok(dict)
}

/// A move played from the book, in the shape of [`info_to_dict`]: no score, no search.
pub fn book_move_to_dict<'py>(py: Python<'py>, book: &BookMove) -> PyResult<Bound<'py, PyDict>> {
    let uci = move_to_uci(book.entry.chess_move);
    let dict = unsearched_dict(py, uci, book.elapsed, None, None, "book")?;
    dict.set_item("book_weight", book.entry.weight)?;
    Ok(dict)
}
