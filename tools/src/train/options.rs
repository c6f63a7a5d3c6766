//! The settings of a training run ([`Options`], with their defaults and checks) and what a run
//! fails with ([`Failure`]).

use std::error::Error;
use std::path::PathBuf;

use ferrochess::eval::nnue::network::{MAX_BUCKETS, MAX_HIDDEN};
use ferrochess::eval::nnue::{Activation, Network};

use super::shape::Shape;

/// What a training run fails with: a message naming the file or the setting.
pub type Failure = Box<dyn Error + Send + Sync>;

/// The settings of a run; [`Options::new`] gives the defaults.
#[derive(Clone, Debug)]
pub struct Options {
    /// The data files: `FEN | score | result` lines, plain or gzip (`.gz`).
    pub paths: Vec<PathBuf>,
    /// Where the network goes (after each epoch); none to write no network.
    pub output: Option<PathBuf>,
    pub shape: Shape,
    pub epochs: usize,
    /// Positions in each optimiser step.
    pub batch: usize,
    /// The learning rate at the start of the cosine.
    pub rate: f32,
    /// The result's share in the target (the score's is `1 - wdl`).
    pub wdl: f32,
    /// AdamW's decoupled weight decay.
    pub weight_decay: f32,
    pub seed: u64,
    /// Threads, and the parts each batch is split into (a run is reproducible for the same
    /// number).
    pub threads: usize,
    /// One block of lines in this many is held out for validation.
    pub validation_one_in: u64,
    /// Lines read at most, over all the files.
    pub limit: usize,
    /// Where the float state goes after each epoch, to `resume` from.
    pub checkpoint: Option<PathBuf>,
    pub resume: Option<PathBuf>,
    /// A network file of the same shape to start from instead of random weights (the optimiser
    /// starts afresh): to go on training a network, the default say, on new data.
    pub init: Option<PathBuf>,
}

impl Options {
    /// The defaults on `paths`, on every core.
    pub fn new(paths: Vec<PathBuf>) -> Options {
        Options {
            paths,
            output: None,
            shape: Shape {
                king: ferrochess::eval::nnue::features::KingLayout::Plain,
                hidden: 256,
                buckets: 8,
                activation: Activation::SquaredClippedRelu,
            },
            epochs: 20,
            batch: 16384,
            rate: 0.001,
            wdl: 0.3,
            weight_decay: 0.01,
            seed: 1,
            threads: std::thread::available_parallelism().map_or(1, |cores| cores.get()),
            validation_one_in: 100,
            limit: usize::MAX,
            checkpoint: None,
            resume: None,
            init: None,
        }
    }

    /// Checks the settings; the message names the one that is wrong.
    pub fn check(&self) -> Result<(), String> {
        let shape = self.shape;
        let problem = if self.paths.is_empty() {
            Some("no data files".to_string())
        } else if shape.hidden == 0 || shape.hidden > MAX_HIDDEN || !shape.hidden.is_multiple_of(16)
        {
            Some(format!(
                "--hidden {}: a multiple of 16 up to {MAX_HIDDEN}",
                shape.hidden
            ))
        } else if !(1..=MAX_BUCKETS).contains(&shape.buckets) {
            Some(format!("--buckets {}: 1 to {MAX_BUCKETS}", shape.buckets))
        } else if self.epochs == 0 || self.batch == 0 || self.threads == 0 {
            Some("--epochs, --batch and --threads must be positive".to_string())
        } else if !(0.0..=1.0).contains(&self.wdl) {
            Some(format!("--wdl {}: 0 to 1", self.wdl))
        } else if !self.rate.is_finite()
            || self.rate <= 0.0
            || !self.weight_decay.is_finite()
            || self.weight_decay < 0.0
        {
            Some("--lr must be positive and --weight-decay not negative".to_string())
        } else if self.init.is_some() && self.resume.is_some() {
            Some("--init and --resume: a run starts from one or the other".to_string())
        } else if self.validation_one_in < 2 {
            Some("--validation must be at least 2 (one position in that many is held out)".into())
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(problem);
        }
        // The engine's loader has the last word on the shape (a network of zeros passes its
        // range checks), so a run never trains a network the engine would refuse.
        let (hidden, buckets) = (shape.hidden, shape.buckets);
        let zeros = |count: usize| vec![0; count];
        Network::from_parts(
            shape.architecture(),
            zeros(shape.king.inputs() * hidden),
            zeros(hidden),
            zeros(buckets * 2 * hidden),
            vec![0; buckets],
        )
        .map(|_| ())
        .map_err(|reason| format!("the engine would not load this network: {reason}"))
    }
}
