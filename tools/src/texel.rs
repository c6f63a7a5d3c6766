//! Texel tuning of the positional weights (`src/eval/classic/weights.rs`) on quiet positions
//! labelled with their games' results (`ferrochess_tools.texel_positions` writes them).
//!
//! The evaluation is linear in the weights once the material and piece-square tables are held
//! fixed, so each position is reduced to its fixed part, its phase and its feature counts
//! (`eval::classic::terms::Trace`); the tuner then fits the weights by gradient descent (Adam) on
//! the mean squared error between the result and `1 / (1 + 10^(-K * eval / 400))`, `K` fitted first
//! with the current weights, plus `--regularize LAMBDA` times the squared distance of each weight
//! from its current value (so a weight the positions say little about stays where it was). One
//! block of 500 positions in ten (whole games, mostly) is held out and its error reported before
//! and after, so over-fitting shows. With `--write` the fitted weights replace the tuned block of
//! `src/eval/classic/weights.rs`.
//!
//! ```text
//! cargo run --release -p ferrochess-tools --bin texel-tune -- POSITIONS... [--epochs 3000]
//!     [--regularize 1e-7] [--write]
//! ```

use std::error::Error;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use ferrochess::eval::classic::terms::{Trace, add_terms};
use ferrochess::eval::classic::weights::{COUNT, TERMS, WEIGHTS};
use ferrochess::eval::classic::{TEMPO_CP, material_and_placement, phase, pst::MAX_PHASE};
use ferrochess::position::parse_fen;
use shakmaty::{Color, Position as _};

/// A position reduced to what the evaluation's weights multiply.
struct Sample {
    /// Material and tables, (middlegame, endgame), White's point of view.
    fixed: (f64, f64),
    /// Middlegame share, 0 to 1.
    middlegame_share: f64,
    /// The tempo bonus, White's point of view.
    tempo: f64,
    /// Nonzero feature counts: (weight index, White minus Black).
    features: Vec<(usize, f64)>,
    /// White's score in the game: 1, 0.5 or 0.
    result: f64,
}

fn load(path: &Path, samples: &mut Vec<Sample>) -> Result<(), Box<dyn Error>> {
    for (number, line) in fs::read_to_string(path)?.lines().enumerate() {
        let (fen, result) = line
            .rsplit_once(';')
            .ok_or_else(|| format!("{}:{}: no ';RESULT'", path.display(), number + 1))?;
        let board = parse_fen(fen)?;
        let fixed = material_and_placement(&board);
        let mut trace = Trace::default();
        add_terms(board.board(), &mut trace);
        let share = f64::from(phase(&board).min(MAX_PHASE)) / f64::from(MAX_PHASE);
        samples.push(Sample {
            fixed: (f64::from(fixed.middlegame), f64::from(fixed.endgame)),
            middlegame_share: share,
            tempo: f64::from(match board.turn() {
                Color::White => TEMPO_CP,
                Color::Black => -TEMPO_CP,
            }),
            features: (0..COUNT)
                .filter(|&i| trace.0[i] != 0)
                .map(|i| (i, f64::from(trace.0[i])))
                .collect(),
            result: result.trim().parse()?,
        });
    }
    Ok(())
}

/// Weights as (middlegame, endgame) pairs.
type Weights = Vec<(f64, f64)>;

fn evaluate(sample: &Sample, weights: &Weights) -> f64 {
    let (mut middlegame, mut endgame) = sample.fixed;
    for &(index, count) in &sample.features {
        middlegame += weights[index].0 * count;
        endgame += weights[index].1 * count;
    }
    middlegame * sample.middlegame_share + endgame * (1.0 - sample.middlegame_share) + sample.tempo
}

fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

fn error(samples: &[Sample], weights: &Weights, k: f64) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| (s.result - sigmoid(k, evaluate(s, weights))).powi(2))
        .sum();
    total / samples.len() as f64
}

/// The `K` that minimises the error with the given weights (a scan refined three times).
fn fit_k(samples: &[Sample], weights: &Weights) -> f64 {
    let (mut low, mut high, mut best) = (0.1, 3.0, 1.0);
    for _ in 0..4 {
        let step = (high - low) / 20.0;
        best = (0..=20)
            .map(|i| low + step * f64::from(i))
            .map(|k| (k, error(samples, weights, k)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(best, |(k, _)| k);
        (low, high) = ((best - step).max(0.01), best + step);
    }
    best
}

/// Adam on the full batch; returns the fitted weights.
fn tune(samples: &[Sample], start: &Weights, k: f64, epochs: usize, lambda: f64) -> Weights {
    let (rate, beta1, beta2) = (1.0, 0.9, 0.999);
    let mut weights = start.clone();
    // Adam's moment estimates, per (middlegame, endgame) weight.
    let mut first = vec![(0.0, 0.0); COUNT];
    let mut second = vec![(0.0, 0.0); COUNT];
    let ln10 = std::f64::consts::LN_10;
    for epoch in 1..=epochs {
        let mut gradient = vec![(0.0, 0.0); COUNT];
        for s in samples {
            let p = sigmoid(k, evaluate(s, &weights));
            // d(error)/d(eval) for one sample, up to the constant factor 2/N.
            let slope = (p - s.result) * p * (1.0 - p) * k * ln10 / 400.0;
            for &(index, count) in &s.features {
                gradient[index].0 += slope * count * s.middlegame_share;
                gradient[index].1 += slope * count * (1.0 - s.middlegame_share);
            }
        }
        let scale = 2.0 / samples.len() as f64;
        let step = |g: f64, m: &mut f64, v: &mut f64| -> f64 {
            *m = beta1 * *m + (1.0 - beta1) * g;
            *v = beta2 * *v + (1.0 - beta2) * g * g;
            let m_hat = *m / (1.0 - beta1.powi(epoch as i32));
            let v_hat = *v / (1.0 - beta2.powi(epoch as i32));
            rate * m_hat / (v_hat.sqrt() + 1e-12)
        };
        for i in 0..COUNT {
            let pull = (
                2.0 * lambda * (weights[i].0 - start[i].0),
                2.0 * lambda * (weights[i].1 - start[i].1),
            );
            let g = (
                gradient[i].0 * scale + pull.0,
                gradient[i].1 * scale + pull.1,
            );
            weights[i].0 -= step(g.0, &mut first[i].0, &mut second[i].0);
            weights[i].1 -= step(g.1, &mut first[i].1, &mut second[i].1);
        }
        if epoch % 500 == 0 {
            eprintln!("epoch {epoch}: error {:.6}", error(samples, &weights, k));
        }
    }
    weights
}

/// The tuned block of `weights.rs`: one line per term, with its name.
fn render(weights: &Weights) -> String {
    let mut out = String::new();
    for term in TERMS.iter().filter(|term| term.len > 0) {
        out.push_str("    ");
        for (middlegame, endgame) in &weights[term.first..term.first + term.len] {
            let _ = write!(out, "t({}, {}), ", middlegame.round(), endgame.round());
        }
        let _ = writeln!(out, "// {}", term.name);
    }
    out
}

/// What a tuning run is asked for.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Files of `FEN;RESULT` lines (White's result: 1, 0.5 or 0).
    pub paths: Vec<PathBuf>,
    /// Adam's steps over all the positions.
    pub epochs: usize,
    /// `LAMBDA`: the pull of each weight towards its current value.
    pub regularize: f64,
    /// Rewrite the tuned block of `src/eval/classic/weights.rs` (else print it).
    pub write: bool,
}

/// The engine's `src/eval/classic/weights.rs`, which [`Settings::write`] rewrites.
pub fn weights_file() -> PathBuf {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR"));
    tools
        .parent()
        .unwrap_or(tools)
        .join("src/eval/classic/weights.rs")
}

/// Fits the weights on the positions of `settings.paths`, reporting on stderr; prints the tuned
/// block or writes it into [`weights_file`].
pub fn run(settings: &Settings) -> Result<(), Box<dyn Error>> {
    let (paths, epochs, lambda, write) = (
        &settings.paths,
        settings.epochs,
        settings.regularize,
        settings.write,
    );
    if paths.is_empty() {
        return Err("no positions file given".into());
    }
    let mut samples = Vec::new();
    for path in paths {
        load(path, &mut samples)?;
    }
    // One block of 500 positions in ten is held out to show over-fitting.
    let (mut train, mut held_out) = (Vec::new(), Vec::new());
    for (index, sample) in samples.into_iter().enumerate() {
        if (index / 500) % 10 == 9 {
            held_out.push(sample);
        } else {
            train.push(sample);
        }
    }
    let start: Weights = WEIGHTS
        .iter()
        .map(|w| (f64::from(w.middlegame), f64::from(w.endgame)))
        .collect();
    let k = fit_k(&train, &start);
    eprintln!(
        "{} training, {} held-out positions; K = {k:.3}",
        train.len(),
        held_out.len()
    );
    let before = (error(&train, &start, k), error(&held_out, &start, k));
    let tuned = tune(&train, &start, k, epochs, lambda);
    let after = (error(&train, &tuned, k), error(&held_out, &tuned, k));
    eprintln!(
        "error: training {:.6} -> {:.6}, held out {:.6} -> {:.6}",
        before.0, after.0, before.1, after.1
    );
    let block = render(&tuned);
    if write {
        let path = weights_file();
        let source = fs::read_to_string(&path)?;
        let begin = source
            .find("// tuned: begin\n")
            .ok_or("no '// tuned: begin'")?
            + 16;
        let end = source
            .find("    // tuned: end")
            .ok_or("no '// tuned: end'")?;
        fs::write(
            &path,
            format!("{}{}{}", &source[..begin], block, &source[end..]),
        )?;
        eprintln!("wrote {}", path.display());
    } else {
        print!("{block}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weights_file_is_the_engine_s_with_its_tuned_block() {
        let source = fs::read_to_string(weights_file()).unwrap();
        assert!(source.contains("// tuned: begin\n") && source.contains("    // tuned: end"));
    }
}
