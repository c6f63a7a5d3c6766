//! `ferrochess._core.ClassicWeights` (the hand-crafted evaluation's numbers, built once and shared
//! by reference), the per-term breakdown of an evaluation, and `texel_tune` (the core's tuner, run
//! with the GIL released, reporting each epoch to a Python callback).

use std::sync::Arc;

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use shakmaty::{Chess, Position as _};

use super::errors::python_exception;
use super::gil::without_gil;
use super::observer::on_main_thread;
use crate::error::Error;
use crate::eval::classic::terms::{Trace, add_terms};
use crate::eval::classic::tune::{Progress, Selection, TuneSettings, Tuner};
use crate::eval::classic::weights::{COUNT, Group, TERMS};
use crate::eval::classic::{ClassicWeights, Tapered};
use crate::limits::StopFlag;
use crate::position::parse_fen;

/// A (middlegame, endgame) pair as Python sees it.
type Pair = (i64, i64);

/// The hand-crafted evaluation's weights, frozen; `ferrochess.ClassicWeights` converts to and
/// from it.
#[pyclass(name = "ClassicWeights", module = "ferrochess._core", frozen)]
pub struct Weights {
    pub weights: Arc<ClassicWeights>,
}

/// `ferrochess.exceptions.InvalidWeightsError(message)`.
fn invalid_weights(py: Python<'_>, message: String) -> PyErr {
    python_exception(
        py,
        "InvalidWeightsError",
        message,
        pyo3::exceptions::PyValueError::new_err,
    )
}

/// `pairs` as exactly `N` tapered values, or an error naming `field`.
fn tapered<const N: usize>(py: Python<'_>, field: &str, pairs: &[Pair]) -> PyResult<[Tapered; N]> {
    if pairs.len() != N {
        return Err(invalid_weights(
            py,
            format!("{field}: {} values, expected {N}", pairs.len()),
        ));
    }
    let narrow = |value: i64| {
        i32::try_from(value)
            .map_err(|_| invalid_weights(py, format!("{field}: {value} is out of range")))
    };
    let mut out = [Tapered::default(); N];
    for (slot, &(middlegame, endgame)) in out.iter_mut().zip(pairs) {
        *slot = Tapered {
            middlegame: narrow(middlegame)?,
            endgame: narrow(endgame)?,
        };
    }
    Ok(out)
}

fn pairs(values: &[Tapered]) -> Vec<(i32, i32)> {
    values.iter().map(|t| (t.middlegame, t.endgame)).collect()
}

#[pymethods]
impl Weights {
    #[new]
    #[pyo3(signature = (material, tables, terms, tempo))]
    fn new(
        py: Python<'_>,
        material: Vec<Pair>,
        tables: Vec<Vec<Pair>>,
        terms: Vec<Pair>,
        tempo: i64,
    ) -> PyResult<Weights> {
        let material = tapered::<6>(py, "material", &material)?;
        if tables.len() != 6 {
            return Err(invalid_weights(
                py,
                format!("tables: {} tables, expected 6", tables.len()),
            ));
        }
        let mut table_values = [[Tapered::default(); 64]; 6];
        for (role, table) in tables.iter().enumerate() {
            table_values[role] = tapered::<64>(py, &format!("tables[{role}]"), table)?;
        }
        let terms = tapered::<COUNT>(py, "terms", &terms)?;
        let tempo = i32::try_from(tempo)
            .map_err(|_| invalid_weights(py, format!("tempo: {tempo} is out of range")))?;
        let weights = ClassicWeights::new(material, table_values, terms, tempo)
            .map_err(|error| invalid_weights(py, error.to_string()))?;
        Ok(Weights {
            weights: Arc::new(weights),
        })
    }

    /// The weights the engine plays with.
    #[staticmethod]
    fn default() -> Weights {
        Weights {
            weights: Arc::new(ClassicWeights::default()),
        }
    }

    /// Material per piece type, pawn..king: (middlegame, endgame).
    #[getter]
    fn material(&self) -> Vec<(i32, i32)> {
        pairs(self.weights.material())
    }

    /// The square tables per piece type, pawn..king, each a1..h8 from White's side.
    #[getter]
    fn tables(&self) -> Vec<Vec<(i32, i32)>> {
        self.weights
            .tables()
            .iter()
            .map(|table| pairs(table))
            .collect()
    }

    /// The positional terms' weights in the order of `CLASSIC_TERMS`.
    #[getter]
    fn terms(&self) -> Vec<(i32, i32)> {
        pairs(self.weights.terms())
    }

    /// The bonus for the side to move.
    #[getter]
    fn tempo(&self) -> i32 {
        self.weights.tempo()
    }

    /// "classic" for the default weights, else "classic-" and 12 hex digits of their hash.
    #[getter]
    fn name(&self) -> String {
        self.weights.name()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Weights>()
            .is_ok_and(|other| other.get().weights == self.weights)
    }

    fn __repr__(&self) -> String {
        format!("<ferrochess._core.ClassicWeights {}>", self.weights.name())
    }
}

/// The snake_case name of each positional term, its number of weights and its group, in order.
pub fn term_names() -> Vec<(String, usize, &'static str)> {
    TERMS
        .iter()
        .filter(|term| term.len > 0)
        .map(|term| (snake_case(term.name), term.len, group_name(term.group)))
        .collect()
}

fn snake_case(name: &str) -> String {
    name.replace([' ', '-'], "_")
}

/// The key of `group` in `ferrochess.evaluate`'s result.
fn group_name(group: Group) -> &'static str {
    match group {
        Group::PawnStructure => "pawn_structure",
        Group::PassedPawns => "passed_pawns",
        Group::Mobility => "mobility",
        Group::KingSafety => "king_safety",
        Group::Pieces => "pieces",
    }
}

/// Each positional term's contribution to the evaluation of `board` under `weights`, White's
/// point of view: `{name: {"middlegame", "endgame", "blended", "counts"}}`, `counts` the feature
/// counts (White's minus Black's) its weights multiply.
pub fn term_contributions<'py>(
    py: Python<'py>,
    board: &Chess,
    weights: &ClassicWeights,
    phase: i32,
) -> PyResult<Bound<'py, PyDict>> {
    let mut trace = Trace::default();
    add_terms(board.board(), &mut trace);
    let dict = PyDict::new(py);
    for term in TERMS.iter().filter(|term| term.len > 0) {
        let run = term.first..term.first + term.len;
        let total = run
            .clone()
            .map(|index| weights.terms()[index] * trace.0[index])
            .fold(Tapered::default(), |sum, part| sum + part);
        let entry = PyDict::new(py);
        entry.set_item("middlegame", total.middlegame)?;
        entry.set_item("endgame", total.endgame)?;
        entry.set_item("blended", total.blend(phase))?;
        entry.set_item("counts", trace.0[run].to_vec())?;
        dict.set_item(snake_case(term.name), entry)?;
    }
    Ok(dict)
}

/// Fits the weights `tune` names in `weights` to `positions` (FEN, White's score); see
/// `ferrochess.texel_tune`. `callback(epoch, epochs, train_loss, validation_loss)` runs after every
/// epoch and stops the run by returning False; Ctrl-C on the main thread stops it too
/// (`interrupted` in the result). An exception the callback raises is raised here.
#[pyfunction]
#[pyo3(signature = (
    positions, weights, *, epochs, learning_rate, regularize, tune, validation, k = None,
    callback = None
))]
#[allow(clippy::too_many_arguments)]
pub fn texel_tune<'py>(
    py: Python<'py>,
    positions: Vec<(String, f64)>,
    weights: &Bound<'py, Weights>,
    epochs: usize,
    learning_rate: f64,
    regularize: f64,
    tune: Vec<String>,
    validation: f64,
    k: Option<f64>,
    callback: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let start = Arc::clone(&weights.get().weights);
    let on_main_thread = on_main_thread(py);
    let (outcome, error) = without_gil(py, move || {
        let settings = TuneSettings {
            epochs,
            learning_rate,
            regularize,
            selection: Selection::from_names(&tune)?,
            validation,
            k,
        };
        let mut tuner = Tuner::new(&start, settings)?;
        for (fen, result) in &positions {
            let board = parse_fen(fen)?;
            tuner.add(&board, *result).map_err(|error| match error {
                Error::InvalidArgument { name, reason, .. } => Error::InvalidArgument {
                    name,
                    value: format!("{result} of '{fen}'"),
                    reason,
                },
                other => other,
            })?;
        }
        let mut error: Option<PyErr> = None;
        let mut on_epoch = |progress: &Progress| {
            Python::attach(|py| {
                if let Some(callback) = &callback {
                    let arguments = (
                        progress.epoch,
                        progress.epochs,
                        progress.train_loss,
                        progress.validation_loss,
                    );
                    match callback.call1(py, arguments) {
                        Ok(value) => {
                            if let Ok(false) = value.extract::<bool>(py) {
                                return false;
                            }
                        }
                        Err(raised) => {
                            error = Some(raised);
                            return false;
                        }
                    }
                }
                if on_main_thread && let Err(raised) = py.check_signals() {
                    error = Some(raised);
                    return false;
                }
                true
            })
        };
        let outcome = tuner.run(&StopFlag::new(), &mut on_epoch)?;
        Ok((outcome, error))
    })?;
    let interrupted = match error {
        Some(error) if error.is_instance_of::<PyKeyboardInterrupt>(py) => true,
        Some(error) => return Err(error),
        None => false,
    };
    let dict = PyDict::new(py);
    let tuned = Bound::new(
        py,
        Weights {
            weights: Arc::new(outcome.weights),
        },
    )?;
    dict.set_item("weights", tuned)?;
    dict.set_item("k", outcome.k)?;
    dict.set_item("train_positions", outcome.train_positions)?;
    dict.set_item("validation_positions", outcome.validation_positions)?;
    dict.set_item("loss_before", outcome.loss_before)?;
    dict.set_item("loss_after", outcome.loss_after)?;
    dict.set_item("validation_before", outcome.validation_before)?;
    dict.set_item("validation_after", outcome.validation_after)?;
    dict.set_item("epochs_run", outcome.epochs_run)?;
    dict.set_item("cancelled", outcome.cancelled || interrupted)?;
    dict.set_item("interrupted", interrupted)?;
    Ok(dict)
}

/// The `evaluation` argument of `Engine`: a name ("network", "classic") or weights of one's own.
#[derive(FromPyObject)]
pub enum EvaluationChoice {
    Name(String),
    Weights(Py<Weights>),
}

impl EvaluationChoice {
    /// The weights, if these are weights.
    pub fn weights(&self) -> Option<Arc<ClassicWeights>> {
        match self {
            EvaluationChoice::Name(_) => None,
            EvaluationChoice::Weights(weights) => Some(Arc::clone(&weights.get().weights)),
        }
    }
}
