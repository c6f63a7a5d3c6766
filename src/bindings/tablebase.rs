//! `ferrochess._core.Tablebase`: Syzygy tables probed for WDL and DTZ.

use std::sync::Arc;

use pyo3::prelude::*;

use super::convert::{BoardState, board_from_state};
use super::errors::to_python;
use super::gil::without_gil;
use crate::position::Position;
use crate::tablebase::Tablebases;

#[pyclass(name = "Tablebase", module = "ferrochess._core", frozen)]
pub struct Tablebase {
    tables: Arc<Tablebases>,
}

/// Which value to probe.
#[derive(Copy, Clone)]
enum Metric {
    Wdl,
    Dtz,
}

impl Tablebase {
    fn probe(
        &self,
        position: &shakmaty::Chess,
        metric: Metric,
    ) -> Result<Option<i32>, crate::Error> {
        match metric {
            Metric::Wdl => Ok(self.tables.wdl(position)?.map(|wdl| wdl as i32)),
            Metric::Dtz => self.tables.dtz(position),
        }
    }
}

#[pymethods]
impl Tablebase {
    /// Opens the tables of the directories in `path` (a path list like `a:b`).
    #[new]
    fn new(py: Python<'_>, path: String) -> PyResult<Tablebase> {
        let tables = without_gil(py, move || Tablebases::open(&path))?;
        Ok(Tablebase {
            tables: Arc::new(tables),
        })
    }

    /// The directories the tables were read from.
    #[getter]
    fn directories(&self) -> Vec<String> {
        let directories = self.tables.directories().iter();
        directories.map(|d| d.display().to_string()).collect()
    }

    /// The largest piece count of a loaded table.
    #[getter]
    fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// WDL (`metric` "wdl") or DTZ ("dtz") of the last position of `fen` + `moves`; None when
    /// the tables do not hold it.
    #[pyo3(signature = (metric, fen, moves = Vec::new()))]
    fn probe_fen(
        &self,
        py: Python<'_>,
        metric: &str,
        fen: String,
        moves: Vec<String>,
    ) -> PyResult<Option<i32>> {
        let metric = parse_metric(metric)?;
        without_gil(py, || {
            let position = Position::from_fen_and_moves(&fen, &moves)?;
            self.probe(position.board(), metric)
        })
    }

    /// Like `probe_fen` for a position given as python-chess keeps it (see `Book.find_all_board`).
    fn probe_board(
        &self,
        py: Python<'_>,
        metric: &str,
        state: BoardState,
    ) -> PyResult<Option<i32>> {
        let metric = parse_metric(metric)?;
        let position = board_from_state(state).map_err(|e| to_python(py, e))?;
        without_gil(py, || self.probe(&position, metric))
    }

    fn __repr__(&self) -> String {
        format!(
            "<ferrochess._core.Tablebase directories={:?} max_pieces={}>",
            self.directories(),
            self.tables.max_pieces()
        )
    }
}

fn parse_metric(metric: &str) -> PyResult<Metric> {
    match metric {
        "wdl" => Ok(Metric::Wdl),
        "dtz" => Ok(Metric::Dtz),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "metric must be 'wdl' or 'dtz', not '{metric}'"
        ))),
    }
}
