//! Texel tuning of the positional weights (`src/eval/classic/weights.rs`) on quiet positions
//! labelled with their games' results (`ferrochess_tools.texel_positions` writes them), the
//! command line's side of the engine's tuner, `ferrochess::eval::classic::tune`.
//!
//! The tuner fits the weights by gradient descent (Adam) on the mean squared error between the
//! label and `1 / (1 + 10^(-K * eval / 400))`, `K` fitted first with the current weights, plus
//! `--regularize LAMBDA` times the squared distance of each weight from its current value (so a
//! weight the positions say little about stays where it was), with the material and piece-square
//! tables held fixed. One game in ten (a run of positions with rising move numbers and one result)
//! is held out and its error reported before and after, so over-fitting shows. With `--write` the fitted
//! weights replace the tuned block of `src/eval/classic/weights.rs`.
//!
//! Files hold `FEN;RESULT` lines (`texel_positions`) or `FEN | score | result` lines (the self-play
//! data of `datagen`), plain or gzipped (`.gz`).
//!
//! ```text
//! cargo run --release -p ferrochess-tools --bin texel-tune -- POSITIONS... [--epochs 3000]
//!     [--regularize 1e-7] [--write]
//! ```

use std::error::Error;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use ferrochess::eval::classic::tune::{Progress, TuneSettings, Tuner, parse_line};
use ferrochess::eval::classic::weights::TERMS;
use ferrochess::eval::classic::{ClassicWeights, DEFAULT_WEIGHTS};
use ferrochess::limits::StopFlag;
use ferrochess::position::parse_fen;
use flate2::read::MultiGzDecoder;

/// Adds the positions of the file at `path` to `tuner`; the error names the file and line.
fn load(path: &Path, tuner: &mut Tuner) -> Result<(), Box<dyn Error>> {
    let file = File::open(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|extension| extension == "gz") {
        Box::new(MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    for (number, line) in BufReader::new(reader).lines().enumerate() {
        let at =
            |error: &dyn std::fmt::Display| format!("{}:{}: {error}", path.display(), number + 1);
        let line = line.map_err(|error| at(&error))?;
        let Some((fen, result)) = parse_line(&line).map_err(|error| at(&error))? else {
            continue;
        };
        let board = parse_fen(fen).map_err(|error| at(&error))?;
        tuner.add(&board, result).map_err(|error| at(&error))?;
    }
    Ok(())
}

/// The tuned block of `weights.rs`: one line per term, with its name.
fn render(weights: &ClassicWeights) -> String {
    let mut out = String::new();
    for term in TERMS.iter().filter(|term| term.len > 0) {
        out.push_str("    ");
        for weight in &weights.terms()[term.first..term.first + term.len] {
            let _ = write!(out, "t({}, {}), ", weight.middlegame, weight.endgame);
        }
        let _ = writeln!(out, "// {}", term.name);
    }
    out
}

/// What a tuning run is asked for.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Files of `FEN;RESULT` or `FEN | score | result` lines (White's result: 1, 0.5 or 0).
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

/// Fits the positional weights on the positions of `settings.paths`, reporting on stderr;
/// prints the tuned block or writes it into [`weights_file`].
pub fn run(settings: &Settings) -> Result<(), Box<dyn Error>> {
    if settings.paths.is_empty() {
        return Err("no positions file given".into());
    }
    let mut tuner = Tuner::new(
        &DEFAULT_WEIGHTS,
        TuneSettings {
            epochs: settings.epochs,
            regularize: settings.regularize,
            ..TuneSettings::default()
        },
    )?;
    for path in &settings.paths {
        load(path, &mut tuner)?;
    }
    let mut report = |progress: &Progress| {
        if progress.epoch.is_multiple_of(500) {
            eprintln!("epoch {}: error {:.6}", progress.epoch, progress.train_loss);
        }
        true
    };
    let outcome = tuner.run(&StopFlag::new(), &mut report)?;
    eprintln!(
        "{} training, {} held-out positions; K = {:.3}",
        outcome.train_positions, outcome.validation_positions, outcome.k
    );
    let held_out = |loss: Option<f64>| loss.map_or("-".to_string(), |loss| format!("{loss:.6}"));
    eprintln!(
        "error: training {:.6} -> {:.6}, held out {} -> {}",
        outcome.loss_before,
        outcome.loss_after,
        held_out(outcome.validation_before),
        held_out(outcome.validation_after)
    );
    let block = render(&outcome.weights);
    if settings.write {
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

    #[test]
    fn the_rendered_block_is_the_one_in_the_weights_file() {
        let source = fs::read_to_string(weights_file()).unwrap();
        let normalised = |text: &str| text.replace("-0)", "0)").replace(' ', "");
        assert!(
            normalised(&source).contains(&normalised(&render(&DEFAULT_WEIGHTS))),
            "{}",
            render(&DEFAULT_WEIGHTS)
        );
    }
}
