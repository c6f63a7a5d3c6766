//! Module-level functions of `ferrochess._core`.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

use super::convert::{BookArguments, castling_mode, integer, open_tablebase, seed_bits};
use super::errors::to_python;
use super::gil::without_gil;
use super::observer::{PythonObserver, on_main_thread};
use super::weights::{Weights, term_contributions};
use crate::book::DEFAULT_BOOK_NAME;
use crate::eval::classic;
use crate::position::{Position, move_to_uci_in};

/// The best move in UCI notation at `depth` (from `book` when the position is in it), or None when
/// there is no legal move; with `chess960` the game is Chess960 (castling as king takes rook).
#[pyfunction]
#[pyo3(signature = (
    fen, depth, moves = Vec::new(), book = Some(DEFAULT_BOOK_NAME.to_string()), seed = None,
    syzygy_path = None, chess960 = false
))]
#[allow(clippy::too_many_arguments)]
pub fn select_move(
    py: Python<'_>,
    fen: String,
    depth: &Bound<'_, PyInt>,
    moves: Vec<String>,
    book: Option<String>,
    seed: Option<&Bound<'_, PyInt>>,
    syzygy_path: Option<String>,
    chess960: bool,
) -> PyResult<Option<String>> {
    let mode = castling_mode(chess960);
    let depth = integer("depth", depth).map_err(|e| to_python(py, e))?;
    let seed = seed.map(seed_bits).transpose()?;
    let on_main_thread = on_main_thread(py);
    let (best, interruption) = without_gil(py, move || {
        let mut observer = PythonObserver::new(None, None, on_main_thread, mode);
        let player = BookArguments {
            book,
            choice: "weighted".to_string(),
            minimum_weight: 1,
            max_ply: None,
        }
        .into_player(seed)?;
        let tablebase = open_tablebase(syzygy_path.as_deref())?;
        let decision = crate::search::select_move_observed(
            &fen,
            &moves,
            mode,
            depth,
            player,
            tablebase,
            &mut observer,
        )?;
        let best = decision.best_move().map(|m| move_to_uci_in(m, mode));
        Ok((best, observer.error))
    })?;
    match interruption {
        Some(error) => Err(error),
        None => Ok(best),
    }
}

/// Leaf nodes of the legal move tree `depth` plies below `fen` (a Chess960 FEN with `chess960`).
#[pyfunction]
#[pyo3(signature = (fen, depth, *, chess960 = false))]
pub fn perft(
    py: Python<'_>,
    fen: String,
    depth: &Bound<'_, PyInt>,
    chess960: bool,
) -> PyResult<u64> {
    let depth = integer("depth", depth).map_err(|e| to_python(py, e))?;
    let mode = castling_mode(chess960);
    without_gil(py, move || crate::perft::perft_fen_in(&fen, depth, mode))
}

/// Searches the bench positions to `depth`; returns positions, depth, nodes, time and nps.
#[pyfunction]
#[pyo3(signature = (depth = None))]
pub fn bench<'py>(
    py: Python<'py>,
    depth: Option<&Bound<'py, PyInt>>,
) -> PyResult<Bound<'py, PyDict>> {
    let depth = match depth {
        Some(depth) => integer("depth", depth).map_err(|e| to_python(py, e))?,
        None => crate::bench::BENCH_DEPTH as i64,
    };
    let report = without_gil(py, move || {
        let depth = crate::limits::check_depth(depth)?;
        crate::bench::run(depth, &crate::eval::Evaluation::default())
    })?;
    let dict = PyDict::new(py);
    dict.set_item("positions", report.positions)?;
    dict.set_item("depth", report.depth)?;
    dict.set_item("nodes", report.nodes)?;
    dict.set_item("time", report.elapsed.as_secs_f64())?;
    dict.set_item("nps", report.nps())?;
    Ok(dict)
}

/// The legal moves, in UCI notation, of the last position of the game `fen` + `moves` (a game of
/// Chess960 with `chess960`, castling written as the king taking its rook).
#[pyfunction]
#[pyo3(signature = (fen, moves = Vec::new(), *, chess960 = false))]
pub fn legal_moves(
    py: Python<'_>,
    fen: String,
    moves: Vec<String>,
    chess960: bool,
) -> PyResult<Vec<String>> {
    let mode = castling_mode(chess960);
    without_gil(py, move || {
        use shakmaty::Position as _;
        let position = Position::from_fen_and_moves_in(&fen, &moves, mode)?;
        Ok(position
            .board()
            .legal_moves()
            .into_iter()
            .map(|m| move_to_uci_in(m, mode))
            .collect())
    })
}

/// The playing levels, weakest first: (number, name, max depth or None, max nodes or None,
/// candidates, window in centipawns, temperature in centipawns, Elo, calibration, the Elo's 95%
/// interval low and high or None, games).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn levels() -> Vec<(
    u8,
    &'static str,
    Option<u32>,
    Option<u64>,
    usize,
    i32,
    i32,
    i32,
    &'static str,
    Option<i32>,
    Option<i32>,
    u32,
)> {
    crate::level::LEVELS
        .iter()
        .map(|l| {
            let s = &l.strength;
            (
                l.number,
                l.name,
                s.max_depth,
                s.max_nodes,
                s.candidates,
                s.window,
                s.temperature,
                l.elo,
                l.calibration.name(),
                l.elo_low,
                l.elo_high,
                l.games,
            )
        })
        .collect()
}

/// The static evaluation of the last position of `fen` + `moves` (Chess960 with `chess960`), term
/// by term, under `weights` (the default ones when None), with each positional term's share when
/// `terms`; see `_core.pyi`.
#[pyfunction]
#[pyo3(signature = (fen, moves = Vec::new(), *, chess960 = false, weights = None, terms = false))]
pub fn evaluate<'py>(
    py: Python<'py>,
    fen: String,
    moves: Vec<String>,
    chess960: bool,
    weights: Option<&Bound<'py, Weights>>,
    terms: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let mode = castling_mode(chess960);
    let weights = weights.map_or_else(
        || Arc::new(classic::ClassicWeights::default()),
        |weights| Arc::clone(&weights.get().weights),
    );
    let shared = Arc::clone(&weights);
    let (parts, white_to_move, board) = without_gil(py, move || {
        use shakmaty::Position as _;
        let position = Position::from_fen_and_moves_in(&fen, &moves, mode)?;
        let board = position.board();
        Ok((
            classic::breakdown_with(board, &shared),
            board.turn().is_white(),
            board.clone(),
        ))
    })?;
    let term = |tapered: classic::Tapered| -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("middlegame", tapered.middlegame)?;
        dict.set_item("endgame", tapered.endgame)?;
        dict.set_item("blended", tapered.blend(parts.phase))?;
        Ok(dict)
    };
    let dict = PyDict::new(py);
    dict.set_item("phase", parts.phase)?;
    dict.set_item("max_phase", classic::pst::MAX_PHASE)?;
    dict.set_item("material", term(parts.material)?)?;
    dict.set_item("placement", term(parts.placement)?)?;
    dict.set_item("pawn_structure", term(parts.pawn_structure)?)?;
    dict.set_item("passed_pawns", term(parts.passed_pawns)?)?;
    dict.set_item("mobility", term(parts.mobility)?)?;
    dict.set_item("king_safety", term(parts.king_safety)?)?;
    dict.set_item("pieces", term(parts.pieces)?)?;
    dict.set_item("tempo", parts.tempo)?;
    let white = parts.white();
    dict.set_item("white", white)?;
    dict.set_item("side_to_move", if white_to_move { white } else { -white })?;
    if terms {
        let contributions = term_contributions(py, &board, &weights, parts.phase)?;
        dict.set_item("terms", contributions)?;
    }
    Ok(dict)
}

/// Runs the UCI protocol on the process's stdin and stdout until `quit` (see `crate::uci`).
#[pyfunction]
pub fn uci(py: Python<'_>) -> PyResult<()> {
    without_gil(py, || {
        let stdin = std::io::stdin();
        crate::uci::run(stdin.lock(), std::io::stdout()).map_err(|error| crate::Error::File {
            path: "<stdin>".to_string(),
            message: error.to_string(),
        })
    })
}
