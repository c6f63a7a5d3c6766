//! # ferrochess-tools
//!
//! What makes the engine but is not in it (so neither the engine library nor the wheel holds
//! it): self-play training data ([`datagen`]), the network trainer ([`train`]), the Texel tuner
//! of the hand-crafted evaluation ([`texel`]) and the networks' test on held-out data
//! ([`test_set`]). They link the engine crate, so the trainer writes the network format the
//! engine reads and the games are the engine's own.
//!
//! Each has a binary in `src/bin/`, a thin command line (clap) over the module here:
//! `cargo run --release -p ferrochess-tools --bin NAME -- --help` for NAME in `datagen`, `train`,
//! `texel-tune` and `nnue-test-set`.

pub mod datagen;
pub mod test_set;
pub mod texel;
pub mod train;

use std::fmt::Display;
use std::process::ExitCode;

/// How a tool's `main` ends: success, or its error on stderr after the tool's name, and failure.
pub fn exit_code(name: &str, outcome: Result<(), impl Display>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{name}: {error}");
            ExitCode::FAILURE
        }
    }
}
