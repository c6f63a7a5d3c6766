//! `ferrochess._core.Book`: a Polyglot book opened through a memory map.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::convert::{BoardState, board_from_state};
use super::errors::to_python;
use super::gil::without_gil;
use crate::book::Book as CoreBook;
use crate::book::builder::{
    BuildOptions, DEFAULT_BUILD_MAX_PLY, DEFAULT_BUILD_MIN_GAMES, Progress, build_book as build,
};
use crate::error::Error;
use crate::position::{Position, move_to_uci};
use shakmaty::CastlingMode;
use shakmaty::uci::UciMove;

/// A found entry as Python receives it: (key, raw move, weight, learn, move in UCI).
type EntryTuple = (u64, u16, u16, u32, String);

/// A found entry for the fast path: (key, raw move, weight, learn, from square, to square,
/// promotion piece type or None), squares and piece types numbered as python-chess numbers them.
type FastEntryTuple = (u64, u16, u16, u32, u8, u8, Option<u8>);

#[pyclass(name = "Book", module = "ferrochess._core", frozen)]
pub struct Book {
    book: Arc<CoreBook>,
}

#[pymethods]
impl Book {
    /// Opens the book at `path`; `"default"` is the compiled-in book.
    #[new]
    fn new(py: Python<'_>, path: String) -> PyResult<Book> {
        let book = without_gil(py, move || CoreBook::open_named(&path))?;
        Ok(Book { book })
    }

    /// The path the book was opened from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.book.path().to_path_buf()
    }

    fn __len__(&self) -> usize {
        self.book.len()
    }

    /// The legal book moves of the last position of `fen` + `moves`, in file order.
    #[pyo3(signature = (fen, moves = Vec::new(), minimum_weight = 1))]
    fn find_all(
        &self,
        py: Python<'_>,
        fen: String,
        moves: Vec<String>,
        minimum_weight: u16,
    ) -> PyResult<Vec<EntryTuple>> {
        without_gil(py, || {
            let position = Position::from_fen_and_moves(&fen, &moves)?;
            Ok(self
                .book
                .find_all(position.board(), minimum_weight)
                .into_iter()
                .map(|e| {
                    (
                        e.key,
                        e.raw_move,
                        e.weight,
                        e.learn,
                        move_to_uci(e.chess_move),
                    )
                })
                .collect())
        })
    }

    /// The legal book moves of a position given as python-chess's board state (`BoardState`),
    /// in file order: the fast path, with no FEN to write or parse.
    #[pyo3(signature = (state, minimum_weight = 1))]
    fn find_all_board(
        &self,
        py: Python<'_>,
        state: BoardState,
        minimum_weight: u16,
    ) -> PyResult<Vec<FastEntryTuple>> {
        // Too short a call to gain from releasing the GIL.
        let position = board_from_state(state).map_err(|e| to_python(py, e))?;
        Ok(self
            .book
            .find_all(&position, minimum_weight)
            .into_iter()
            .filter_map(|e| match e.chess_move.to_uci(CastlingMode::Standard) {
                UciMove::Normal {
                    from,
                    to,
                    promotion,
                } => Some((
                    e.key,
                    e.raw_move,
                    e.weight,
                    e.learn,
                    from as u8,
                    to as u8,
                    promotion.map(|role| role as u8),
                )),
                _ => None,
            })
            .collect())
    }

    fn __repr__(&self) -> String {
        format!(
            "<ferrochess._core.Book path={:?} entries={}>",
            self.book.path().display().to_string(),
            self.book.len()
        )
    }
}

/// Builds a Polyglot book from PGN files; see `_core.pyi`.
#[pyfunction]
#[pyo3(signature = (inputs, output, max_ply = None, min_games = None, progress = None))]
pub fn build_book<'py>(
    py: Python<'py>,
    inputs: Vec<PathBuf>,
    output: PathBuf,
    max_ply: Option<i64>,
    min_games: Option<i64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let max_ply = max_ply.unwrap_or(i64::from(DEFAULT_BUILD_MAX_PLY));
    let min_games = min_games.unwrap_or(i64::from(DEFAULT_BUILD_MIN_GAMES));
    let on_main_thread = super::observer::on_main_thread(py);
    let (report, error) = without_gil(py, move || {
        if !(0..=i64::from(u32::MAX)).contains(&max_ply) {
            return Err(Error::argument("max_ply", max_ply, "must be at least 0"));
        }
        if !(1..=i64::from(u32::MAX)).contains(&min_games) {
            return Err(Error::argument(
                "min_games",
                min_games,
                "must be at least 1",
            ));
        }
        let options = BuildOptions {
            max_ply: max_ply as u32,
            min_games: min_games as u32,
        };
        let mut error: Option<PyErr> = None;
        let mut report_progress = |now: Progress| -> bool {
            Python::attach(|py| {
                let outcome = match &progress {
                    Some(callback) => callback
                        .call1(py, (now.bytes_read, now.total_bytes, now.games))
                        .map(|_| ()),
                    None => Ok(()),
                };
                let outcome = outcome.and_then(|()| {
                    if on_main_thread {
                        py.check_signals()
                    } else {
                        Ok(())
                    }
                });
                match outcome {
                    Ok(()) => true,
                    Err(e) => {
                        error = Some(e);
                        false
                    }
                }
            })
        };
        let report = build(&inputs, &output, options, &mut report_progress)?;
        Ok((report, error))
    })?;
    if let Some(error) = error {
        return Err(error);
    }
    let Some(report) = report else {
        return Ok(None);
    };
    let dict = PyDict::new(py);
    dict.set_item("games", report.games)?;
    dict.set_item("broken_games", report.broken_games)?;
    dict.set_item("problems", report.problems)?;
    dict.set_item("positions", report.positions)?;
    dict.set_item("entries", report.entries)?;
    dict.set_item("bytes", report.bytes)?;
    Ok(Some(dict))
}
