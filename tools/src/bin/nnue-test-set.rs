//! `nnue-test-set`: how well networks and the hand-crafted evaluation predict positions none of
//! them was trained on, the command line over [`ferrochess_tools::test_set`].

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use ferrochess_tools::exit_code;
use ferrochess_tools::test_set::{Settings, run};

/// How well the compiled-in network, each --network and the hand-crafted evaluation predict a
/// test set of 'FEN | score | result' lines.
#[derive(Parser, Debug)]
#[command(name = "nnue-test-set")]
struct Arguments {
    /// The test set: 'FEN | score | result' lines, as datagen writes them
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// A network file to measure too (repeatable)
    #[arg(long = "network", value_name = "NET")]
    networks: Vec<PathBuf>,
    /// Positions read at most, over all the files
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

fn main() -> ExitCode {
    let arguments = Arguments::parse();
    let settings = Settings {
        files: arguments.files,
        networks: arguments.networks,
        limit: arguments.limit.unwrap_or(usize::MAX),
    };
    exit_code("nnue-test-set", run(&settings))
}
