//! How well networks (and the hand-crafted evaluation) predict a test set of training lines that
//! none of them was trained on (docs/nnue.md, "The third round").
//!
//! ```text
//! cargo run --release -p ferrochess-tools --bin nnue-test-set -- FILE... [--network NET.nnue]...
//!     [--limit N]
//! ```
//!
//! FILE holds `FEN | White's score in cp | White's result (1.0/0.5/0.0)` lines, as
//! [`crate::datagen`] writes them (make a test set with a seed no training run used, e.g.
//! `datagen --output target/test-set --seed 99 --positions 40000`). For the compiled-in
//! network, each `--network` file and the hand-crafted evaluation it prints one line: the mean
//! distance of the evaluation from the search's score, the mean squared error of its win
//! probability (`1 / (1 + exp(-eval / 400))`) against the game's result, its mean absolute
//! value, and the slope of the least-squares line through the origin of score on evaluation
//! (positions with a score within 1,000 cp), which says whether its scale is the score's.

use std::error::Error;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use ferrochess::eval::nnue::{Network, default_network};
use ferrochess::position::parse_fen;
use shakmaty::{Chess, Color, Position as _};

/// Centipawns at which the win probability's logistic has slope 1/4 per unit (the trainer's
/// scale, [`crate::train`]).
const SCALE: f64 = 400.0;
/// Only positions whose score is within this many centipawns enter the slope.
const SLOPE_WINDOW_CP: f64 = 1_000.0;

struct Sample {
    board: Chess,
    /// The search's score and the game's result, from the side to move's view.
    score: f64,
    result: f64,
}

#[derive(Default)]
struct Totals {
    positions: f64,
    distance: f64,
    result_error: f64,
    magnitude: f64,
    product: f64,
    square: f64,
}

impl Totals {
    fn add(&mut self, evaluation: f64, sample: &Sample) {
        let probability = 1.0 / (1.0 + (-evaluation / SCALE).exp());
        self.positions += 1.0;
        self.distance += (evaluation - sample.score).abs();
        self.result_error += (probability - sample.result).powi(2);
        self.magnitude += evaluation.abs();
        if sample.score.abs() < SLOPE_WINDOW_CP {
            self.product += evaluation * sample.score;
            self.square += evaluation * evaluation;
        }
    }

    fn report(&self, name: &str) {
        let n = self.positions.max(1.0);
        println!(
            "{name}: {:.0} positions, distance from the score {:.1} cp, result error {:.5}, \
             mean |evaluation| {:.1} cp, slope of score on evaluation {:.3}",
            self.positions,
            self.distance / n,
            self.result_error / n,
            self.magnitude / n,
            self.product / self.square.max(f64::MIN_POSITIVE),
        );
    }
}

fn read(path: &Path, limit: usize, samples: &mut Vec<Sample>) -> Result<(), Box<dyn Error>> {
    let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    for (number, line) in BufReader::new(file).lines().enumerate() {
        if samples.len() >= limit {
            break;
        }
        let line = line?;
        let bad = |why: &str| format!("{}:{}: {why}: {line}", path.display(), number + 1);
        let parts: Vec<&str> = line.split('|').map(str::trim).collect();
        let [fen, score, result] = parts[..] else {
            return Err(bad("not 'FEN | score | result'").into());
        };
        let board = parse_fen(fen).map_err(|e| bad(&e.to_string()))?;
        let white_score: f64 = score.parse().map_err(|_| bad("bad score"))?;
        let white_result: f64 = result.parse().map_err(|_| bad("bad result"))?;
        let (score, result) = match board.turn() {
            Color::White => (white_score, white_result),
            Color::Black => (-white_score, 1.0 - white_result),
        };
        samples.push(Sample {
            board,
            score,
            result,
        });
    }
    Ok(())
}

/// What to measure on which positions.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Files of `FEN | score | result` lines.
    pub files: Vec<PathBuf>,
    /// Networks measured beside the compiled-in one and the hand-crafted evaluation.
    pub networks: Vec<PathBuf>,
    /// Positions read at most, over all the files.
    pub limit: usize,
}

/// Reads the positions and prints one line for each evaluation.
pub fn run(settings: &Settings) -> Result<(), Box<dyn Error>> {
    let mut networks = vec![("compiled-in".to_string(), default_network())];
    for path in &settings.networks {
        let network = Network::load(path)?;
        networks.push((format!("{}", path.display()), network.into()));
    }
    let (files, limit) = (&settings.files, settings.limit);
    if files.is_empty() {
        return Err("no test file given".into());
    }
    let mut samples = Vec::new();
    for file in files {
        read(file, limit, &mut samples)?;
    }
    for (name, network) in &networks {
        let mut totals = Totals::default();
        for sample in &samples {
            totals.add(f64::from(network.evaluate(&sample.board)), sample);
        }
        totals.report(&format!("{} ({name})", network.name()));
    }
    let mut classic = Totals::default();
    for sample in &samples {
        classic.add(
            f64::from(ferrochess::eval::classic::evaluate(&sample.board).value()),
            sample,
        );
    }
    classic.report("hand-crafted");
    Ok(())
}
