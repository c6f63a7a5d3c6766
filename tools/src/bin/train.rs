//! `train`: trains the engine's network on scored positions, the command line over
//! [`ferrochess_tools::train`] (whose documentation describes the network and the training).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};
use ferrochess::eval::nnue::Activation;
use ferrochess::eval::nnue::features::KingLayout;
use ferrochess_tools::exit_code;
use ferrochess_tools::train::{Options, Shape, train};

const NAME: &str = "train";

/// Trains the engine's network on `FEN | score | result` lines (plain or .gz) and writes it in
/// the engine's file format.
#[derive(Parser, Debug)]
#[command(name = NAME)]
struct Arguments {
    /// The data files
    #[arg(required = true, value_name = "DATA")]
    paths: Vec<PathBuf>,
    /// Where the network goes (written after each epoch)
    #[arg(long, value_name = "NET")]
    output: Option<PathBuf>,
    /// Neurons of the hidden layer, a multiple of 16
    #[arg(long, default_value_t = 256)]
    hidden: usize,
    /// Output buckets, by the number of pieces
    #[arg(long, default_value_t = 8)]
    buckets: usize,
    /// How the inputs depend on the king's square
    #[arg(long, value_enum, default_value_t = King::Plain)]
    king_layout: King,
    #[arg(long, value_enum, default_value_t = ActivationName::Screlu)]
    activation: ActivationName,
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    /// Positions in each optimiser step
    #[arg(long, default_value_t = 16384)]
    batch: usize,
    /// The learning rate at the start of the cosine (down to 1% of it)
    #[arg(long = "lr", value_name = "LR", default_value_t = 0.001)]
    rate: f32,
    /// The result's share in the target (the score's is 1 - WDL)
    #[arg(long, default_value_t = 0.3)]
    wdl: f32,
    /// AdamW's decoupled weight decay
    #[arg(long, default_value_t = 0.01)]
    weight_decay: f32,
    /// Seed of the initial weights and of each epoch's shuffle
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads, and the parts each batch is split into (a run is reproducible for the same
    /// number) [default: all cores]
    #[arg(long)]
    threads: Option<usize>,
    /// One block of 2,000 lines in this many of each file is held out for validation
    #[arg(long = "validation", value_name = "ONE_IN", default_value_t = 100)]
    validation_one_in: u64,
    /// Lines read at most, over all the files
    #[arg(long, value_name = "LINES")]
    limit: Option<usize>,
    /// Where the float state goes after each epoch, to --resume from
    #[arg(long, value_name = "STATE")]
    checkpoint: Option<PathBuf>,
    /// Go on from a checkpoint of the same network shape
    #[arg(long, value_name = "STATE")]
    resume: Option<PathBuf>,
    /// Start from the weights of this network file (of the shape asked for) instead of random
    /// ones, with a fresh optimiser: to go on training a network on new data
    #[arg(long, value_name = "NET")]
    init: Option<PathBuf>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum King {
    Plain,
    Mirrored,
    Mirrored4,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum ActivationName {
    /// Squared clipped ReLU, clamp(x, 0, 1)^2
    Screlu,
    /// Clipped ReLU, clamp(x, 0, 1)
    Crelu,
}

impl Arguments {
    fn options(self) -> Options {
        let defaults = Options::new(self.paths);
        Options {
            output: self.output,
            shape: Shape {
                king: match self.king_layout {
                    King::Plain => KingLayout::Plain,
                    King::Mirrored => KingLayout::Mirrored,
                    King::Mirrored4 => KingLayout::Mirrored4,
                },
                hidden: self.hidden,
                buckets: self.buckets,
                activation: match self.activation {
                    ActivationName::Screlu => Activation::SquaredClippedRelu,
                    ActivationName::Crelu => Activation::ClippedRelu,
                },
            },
            epochs: self.epochs,
            batch: self.batch,
            rate: self.rate,
            wdl: self.wdl,
            weight_decay: self.weight_decay,
            seed: self.seed,
            threads: self.threads.unwrap_or(defaults.threads),
            validation_one_in: self.validation_one_in,
            limit: self.limit.unwrap_or(defaults.limit),
            checkpoint: self.checkpoint,
            resume: self.resume,
            init: self.init,
            ..defaults
        }
    }
}

fn main() -> ExitCode {
    let options = Arguments::parse().options();
    if let Err(problem) = options.check() {
        Arguments::command()
            .error(ErrorKind::ValueValidation, problem)
            .exit();
    }
    exit_code(NAME, train(&options).map(|record| println!("{record}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_library_s() {
        Arguments::command().debug_assert();
        let options = Arguments::parse_from([NAME, "data.txt"]).options();
        let defaults = Options::new(vec![PathBuf::from("data.txt")]);
        assert_eq!(format!("{options:?}"), format!("{defaults:?}"));
    }
}
