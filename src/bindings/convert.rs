//! Python arguments into core values, core results into Python dicts. Validation itself lives in the
//! core (`limits.rs`); this only moves values across.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList};

use crate::error::Error;
use crate::limits::{SearchLimits, check_depth, duration_from_seconds};
use crate::position::move_to_uci;
use crate::score::ScoreKind;
use crate::search::SearchInfo;

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

/// A search's information, after an iteration or at its end, as a dict: see `_core.pyi`.
pub fn info_to_dict<'py>(py: Python<'py>, info: &SearchInfo) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("depth", info.depth)?;
    dict.set_item("seldepth", info.seldepth)?;
    dict.set_item("nodes", info.nodes)?;
    dict.set_item("time", info.elapsed.as_secs_f64())?;
    dict.set_item("nps", info.nps())?;
    dict.set_item("hashfull", info.hashfull)?;
    dict.set_item("tbhits", 0)?;
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
        let pv: Vec<String> = line.pv.iter().map(|m| move_to_uci(*m)).collect();
        entry.set_item("pv", pv)?;
        lines.append(entry)?;
    }
    dict.set_item("lines", lines)?;
    let best_line = info
        .lines
        .first()
        .map(|line| line.pv.as_slice())
        .unwrap_or_default();
    dict.set_item("move", best_line.first().map(|m| move_to_uci(*m)))?;
    dict.set_item("ponder", best_line.get(1).map(|m| move_to_uci(*m)))?;
    let stats = PyDict::new(py);
    stats.set_item("quiescence_nodes", info.stats.quiescence_nodes)?;
    stats.set_item("cutoffs", info.stats.cutoffs)?;
    stats.set_item("tt_hits", info.stats.tt_hits)?;
    dict.set_item("stats", stats)?;
    Ok(dict)
}
