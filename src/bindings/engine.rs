//! `ferrochess._core.Engine`: a long-lived searcher behind a lock, searched with the GIL released.

use std::sync::{Mutex, MutexGuard};
use std::thread::{self, ThreadId};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

use super::convert::{
    BookArguments, LimitArguments, book_move_to_dict, book_moves, castling_mode, info_to_dict,
    open_tablebase, optional_integer, seed_bits, tablebase_move_to_dict,
};
use super::errors::{engine_error, to_python};
use super::gil::without_gil;
use super::observer::{PythonObserver, on_main_thread};
use super::weights::EvaluationChoice;
use crate::error::Error;
use crate::eval::Evaluation;
use crate::level::{Level, Player, Strength};
use crate::limits::StopFlag;
use crate::position::Position;
use crate::search::{
    DEFAULT_HASH_MB, DEFAULT_THREADS, Decision, SearchRequest, SearchSwitches, Searcher,
    check_multipv, check_threads,
};
use crate::transposition::check_hash_mb;

/// Mixed into the seed of the levels' choices, so that they do not follow the book's sequence.
const LEVEL_SEED_SALT: u64 = 0x6c65_7665_6c73;

#[pyclass(name = "Engine", module = "ferrochess._core", frozen)]
pub struct Engine {
    searcher: Mutex<Searcher>,
    /// Plays the levels; locked only while the searcher's lock is held.
    player: Mutex<Player>,
    stop: StopFlag,
    hash_mb: usize,
    threads: usize,
    seed: Option<Py<PyInt>>,
    /// The thread running this engine's search callback, if one is running: a search or new_game
    /// from inside the callback would wait for the lock its own thread holds.
    callback_thread: Mutex<Option<ThreadId>>,
}

impl Engine {
    /// The searcher; a search that panicked left nothing half-written that matters, so a poisoned
    /// lock is recovered.
    fn lock(&self) -> MutexGuard<'_, Searcher> {
        self.searcher
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Refuses a call that would deadlock: one made from this engine's own search callback.
    fn refuse_reentry(&self, py: Python<'_>, method: &str) -> PyResult<()> {
        let running = *self
            .callback_thread
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if running == Some(thread::current().id()) {
            return Err(engine_error(
                py,
                format!(
                    "Engine.{method}() called from the engine's own search callback; it would wait \
                     for the search that is calling it (stop() is allowed there)"
                ),
            ));
        }
        Ok(())
    }
}

/// The evaluation `name` ("network" or "classic") asks for; with "network", `eval_file` names a
/// network file to load instead of the compiled-in one; `weights`, the hand-crafted evaluation
/// with those weights.
fn choose_evaluation(
    name: &str,
    weights: Option<std::sync::Arc<crate::eval::classic::ClassicWeights>>,
    eval_file: Option<&str>,
) -> Result<Evaluation, Error> {
    if let Some(weights) = weights {
        return match eval_file {
            None => Ok(Evaluation::Classic(weights)),
            Some(path) => Err(Error::argument(
                "eval_file",
                format!("'{path}'"),
                "a network file needs evaluation=\"network\"",
            )),
        };
    }
    match (name, eval_file) {
        ("network", None) => Ok(Evaluation::default()),
        ("network", Some(path)) => Evaluation::from_file(std::path::Path::new(path)),
        ("classic", None) => Ok(Evaluation::classic()),
        ("classic", Some(path)) => Err(Error::argument(
            "eval_file",
            format!("'{path}'"),
            "a network file needs evaluation=\"network\"",
        )),
        (other, _) => Err(Error::argument(
            "evaluation",
            format!("'{other}'"),
            "must be \"network\" or \"classic\"",
        )),
    }
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (
        hash_mb = None, seed = None, book = None, book_choice = "weighted".to_string(),
        book_min_weight = None, book_max_ply = None, syzygy_path = None, alpha_beta = true,
        quiescence = true, move_ordering = true, transposition_table = true, threads = None,
        pruning = true, evaluation = EvaluationChoice::Name("network".to_string()),
        eval_file = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        hash_mb: Option<&Bound<'_, PyInt>>,
        seed: Option<Bound<'_, PyInt>>,
        book: Option<String>,
        book_choice: String,
        book_min_weight: Option<&Bound<'_, PyInt>>,
        book_max_ply: Option<&Bound<'_, PyInt>>,
        syzygy_path: Option<String>,
        alpha_beta: bool,
        quiescence: bool,
        move_ordering: bool,
        transposition_table: bool,
        threads: Option<&Bound<'_, PyInt>>,
        pruning: bool,
        evaluation: EvaluationChoice,
        eval_file: Option<String>,
    ) -> PyResult<Engine> {
        let weights = evaluation.weights();
        let evaluation = match evaluation {
            EvaluationChoice::Name(name) => name,
            EvaluationChoice::Weights(_) => "classic".to_string(),
        };
        let integers = || -> Result<(usize, usize, BookArguments), Error> {
            let hash_mb = match optional_integer("hash_mb", hash_mb)? {
                Some(megabytes) => check_hash_mb(megabytes)?,
                None => DEFAULT_HASH_MB,
            };
            let threads = match optional_integer("threads", threads)? {
                Some(threads) => check_threads(threads)?,
                None => DEFAULT_THREADS,
            };
            let book = BookArguments {
                book,
                choice: book_choice,
                minimum_weight: optional_integer("book_min_weight", book_min_weight)?.unwrap_or(1),
                max_ply: optional_integer("book_max_ply", book_max_ply)?,
            };
            Ok((hash_mb, threads, book))
        };
        let (size, thread_count, book) = integers().map_err(|e| to_python(py, e))?;
        let seed_value = seed.as_ref().map(seed_bits).transpose()?;
        let searcher = without_gil(py, move || {
            let evaluation = choose_evaluation(&evaluation, weights, eval_file.as_deref())?;
            let player = book.into_player(seed_value)?;
            let tablebase = open_tablebase(syzygy_path.as_deref())?;
            let mut searcher = Searcher::new(size)?;
            searcher.set_threads(thread_count)?;
            searcher.set_evaluation(evaluation);
            searcher.set_book(player);
            searcher.set_tablebase(tablebase);
            searcher.set_switches(SearchSwitches {
                alpha_beta,
                quiescence,
                move_ordering,
                transposition_table,
                pruning,
            });
            Ok(searcher)
        })?;
        Ok(Engine {
            searcher: Mutex::new(searcher),
            player: Mutex::new(Player::new(seed_value.map(|seed| seed ^ LEVEL_SEED_SALT))),
            stop: StopFlag::new(),
            hash_mb: size,
            threads: thread_count,
            seed: seed.map(Bound::unbind),
            callback_thread: Mutex::new(None),
        })
    }

    /// Transposition table size in megabytes.
    #[getter]
    fn hash_mb(&self) -> usize {
        self.hash_mb
    }

    /// How the engine evaluates positions: "classic" (default weights), "classic-" and 12 hex
    /// digits (other weights), or the network's name ("nn-" and 12 hex digits of its hash).
    #[getter]
    fn evaluation(&self, py: Python<'_>) -> String {
        py.detach(|| self.lock().evaluation().name())
    }

    /// Threads per search.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// The seed given at creation (for the engine's random choices), or None.
    #[getter]
    fn seed(&self, py: Python<'_>) -> Option<Py<PyInt>> {
        self.seed.as_ref().map(|seed| seed.clone_ref(py))
    }

    /// The path of the book this engine plays from ("default" for the compiled-in one), or None.
    #[getter]
    fn book(&self, py: Python<'_>) -> Option<String> {
        py.detach(|| {
            self.lock()
                .book()
                .map(|player| player.book().path().display().to_string())
        })
    }

    /// The directories of the tablebases this engine probes, or None.
    #[getter]
    fn syzygy_path(&self, py: Python<'_>) -> Option<String> {
        py.detach(|| {
            self.lock().tablebase().map(|tables| {
                std::env::join_paths(tables.directories())
                    .map(|joined| joined.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
        })
    }

    /// The search switches: (alpha_beta, quiescence, move_ordering, transposition_table, pruning).
    #[getter]
    fn switches(&self, py: Python<'_>) -> (bool, bool, bool, bool, bool) {
        let s = py.detach(|| self.lock().switches());
        (
            s.alpha_beta,
            s.quiescence,
            s.move_ordering,
            s.transposition_table,
            s.pruning,
        )
    }

    /// The largest piece count the engine's tablebases cover (0 without tablebases).
    #[getter]
    fn syzygy_max_pieces(&self, py: Python<'_>) -> usize {
        py.detach(|| self.lock().tablebase().map_or(0, |t| t.max_pieces()))
    }

    #[pyo3(signature = (
        fen, moves = Vec::new(), *, depth = None, nodes = None, time = None, white_clock = None,
        black_clock = None, white_inc = None, black_inc = None, remaining_moves = None, mate = None,
        multipv = None, exclude_moves = Vec::new(), use_book = false, level = None, elo = None,
        callback = None, chess960 = false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &self,
        py: Python<'py>,
        fen: String,
        moves: Vec<String>,
        depth: Option<Bound<'py, PyInt>>,
        nodes: Option<Bound<'py, PyInt>>,
        time: Option<f64>,
        white_clock: Option<f64>,
        black_clock: Option<f64>,
        white_inc: Option<f64>,
        black_inc: Option<f64>,
        remaining_moves: Option<Bound<'py, PyInt>>,
        mate: Option<Bound<'py, PyInt>>,
        multipv: Option<Bound<'py, PyInt>>,
        exclude_moves: Vec<String>,
        use_book: bool,
        level: Option<Bound<'py, PyInt>>,
        elo: Option<Bound<'py, PyInt>>,
        callback: Option<Py<PyAny>>,
        chess960: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mode = castling_mode(chess960);
        let integers = || -> Result<(LimitArguments, usize, Option<Strength>), Error> {
            let arguments = LimitArguments {
                depth: optional_integer("depth", depth.as_ref())?,
                nodes: optional_integer("nodes", nodes.as_ref())?,
                time,
                white_clock,
                black_clock,
                white_inc,
                black_inc,
                remaining_moves: optional_integer("remaining_moves", remaining_moves.as_ref())?,
                mate: optional_integer("mate", mate.as_ref())?,
            };
            let level = optional_integer("level", level.as_ref())?;
            let elo = optional_integer("elo", elo.as_ref())?;
            let strength = match (level, elo) {
                (Some(level), Some(elo)) => {
                    return Err(Error::argument(
                        "elo",
                        elo,
                        format!("cannot be given together with level {level}"),
                    ));
                }
                (Some(level), None) => Some(Level::get(level)?.strength),
                (None, Some(elo)) => Some(Level::for_elo(elo)?),
                (None, None) => None,
            };
            let multipv = match optional_integer("multipv", multipv.as_ref())? {
                Some(multipv) => check_multipv(multipv)?,
                None => 1,
            };
            Ok((arguments, multipv, strength))
        };
        self.refuse_reentry(py, "search")?;
        let (arguments, multipv, strength) = integers().map_err(|e| to_python(py, e))?;
        // An exception raised by the callback, or Ctrl-C, ends the search and is raised here.
        let on_main_thread = on_main_thread(py);
        let result = without_gil(py, || {
            let limits = arguments.into_limits()?;
            let mut position = Position::from_fen_and_moves_in(&fen, &moves, mode)?;
            let excluded = exclude_moves
                .iter()
                .map(|uci| position.parse_uci(uci))
                .collect::<Result<Vec<_>, Error>>()?;
            let mut observer = PythonObserver::new(
                callback.as_ref(),
                Some(&self.callback_thread),
                on_main_thread,
                mode,
            );
            let mut searcher = self.lock();
            self.stop.reset();
            let request = SearchRequest {
                limits,
                multipv,
                excluded,
                use_book,
                ..SearchRequest::default()
            };
            let mut player = self
                .player
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let decision = player.think(
                &mut searcher,
                &mut position,
                &request,
                strength.as_ref(),
                &self.stop,
                &mut observer,
            )?;
            drop(player);
            // Polyglot books hold standard chess only.
            let candidates = searcher
                .book()
                .filter(|_| !chess960)
                .map(|player| book_moves(&player.candidates(position.board())))
                .unwrap_or_default();
            Ok((decision, candidates, observer.error))
        })?;
        let (decision, candidates, interruption) = result;
        if let Some(error) = interruption {
            return Err(error);
        }
        let dict = match &decision {
            Decision::Book(book) => book_move_to_dict(py, book)?,
            Decision::Tablebase(tablebase) => tablebase_move_to_dict(py, tablebase, mode)?,
            Decision::Search(info) => info_to_dict(py, info, mode)?,
        };
        dict.set_item("book_moves", candidates)?;
        Ok(dict)
    }

    /// Makes a running search return its best move so far. Safe from any thread; does nothing when
    /// no search runs.
    fn stop(&self) {
        self.stop.stop();
    }

    /// Clears the transposition table and histories (waits for a running search to finish).
    fn new_game(&self, py: Python<'_>) -> PyResult<()> {
        self.refuse_reentry(py, "new_game")?;
        without_gil(py, || {
            self.lock().new_game();
            Ok(())
        })
    }

    fn __repr__(&self) -> String {
        format!(
            "<ferrochess._core.Engine hash_mb={} seed={:?}>",
            self.hash_mb, self.seed
        )
    }
}
