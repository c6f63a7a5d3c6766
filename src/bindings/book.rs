//! `ferrochess._core.Book`: a Polyglot book opened through a memory map.

use std::path::PathBuf;

use pyo3::prelude::*;

use super::gil::without_gil;
use crate::book::Book as CoreBook;
use crate::position::{Position, move_to_uci};

/// A found entry as Python receives it: (key, raw move, weight, learn, move in UCI).
type EntryTuple = (u64, u16, u16, u32, String);

#[pyclass(name = "Book", module = "ferrochess._core", frozen)]
pub struct Book {
    book: CoreBook,
}

#[pymethods]
impl Book {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Book> {
        let book = without_gil(py, move || CoreBook::open(path))?;
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

    fn __repr__(&self) -> String {
        format!(
            "<ferrochess._core.Book path={:?} entries={}>",
            self.book.path().display().to_string(),
            self.book.len()
        )
    }
}
