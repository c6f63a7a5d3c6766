//! `texel-tune`: fits the hand-crafted evaluation's positional weights to games' results, the
//! command line over [`ferrochess_tools::texel`].

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use ferrochess_tools::exit_code;
use ferrochess_tools::texel::{Settings, run};

/// Texel tuning of the positional weights (src/eval/classic/weights.rs) on quiet positions
/// labelled with their games' results.
#[derive(Parser, Debug)]
#[command(name = "texel-tune")]
struct Arguments {
    /// Files of 'FEN;RESULT' or 'FEN | score | result' lines (White's result: 1, 0.5 or 0),
    /// plain or gzipped (.gz)
    #[arg(required = true, value_name = "POSITIONS")]
    paths: Vec<PathBuf>,
    /// Adam's steps over all the positions
    #[arg(long, default_value_t = 3000)]
    epochs: usize,
    /// Pull of each weight towards its current value (LAMBDA times the squared distance)
    #[arg(long, value_name = "LAMBDA", default_value_t = 0.0)]
    regularize: f64,
    /// Rewrite the tuned block of the engine's src/eval/classic/weights.rs (else print it)
    #[arg(long)]
    write: bool,
}

fn main() -> ExitCode {
    let arguments = Arguments::parse();
    let settings = Settings {
        paths: arguments.paths,
        epochs: arguments.epochs,
        regularize: arguments.regularize,
        write: arguments.write,
    };
    exit_code("texel-tune", run(&settings))
}
