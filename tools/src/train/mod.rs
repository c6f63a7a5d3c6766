//! Trains the engine's network (`src/eval/nnue/`) on scored positions, on the CPU, and writes it in
//! the engine's file format.
//!
//! Data: text files, or `.gz` files, with one position a line,
//! `FEN | score | result`: the score in centipawns and the game's result (1.0, 0.5, 0.0), both
//! from White's side. Each FEN is parsed once into a 32-byte [`Sample`] (20 million positions
//! take 640 MB); a line that does not parse is skipped and counted. One block of 2,000
//! consecutive lines in `--validation` (100) of each file is held out (whole games, mostly:
//! the files hold games in order), the same set whatever the seed.
//!
//! The network is the one `src/eval/nnue/network.rs` reads: the 768 inputs (per king bucket, in the
//! `--king-layout` chosen: plain, mirrored, or mirrored with 4 buckets, see `eval::nnue::features`)
//! seen from the side to move (`us`) and from the other side (`them`), one shared hidden layer `W1`
//! (768 x king buckets rows of N) and `b1`, the activation (SCReLU `clamp(x, 0, 1)^2` or CReLU
//! `clamp(x, 0, 1)`), then for output bucket `k` (`Architecture::bucket`, by the number of pieces)
//! `out = b2[k] + act(us) . w2[k][..N] + act(them) . w2[k][N..]`; the evaluation is `400 * out`
//! centipawns for the side to move.
//!
//! Training, all from the side to move's view: the target is
//! `wdl * result + (1 - wdl) * sigmoid(score / 400)`, the prediction `sigmoid(out)`, the loss
//! their mean squared difference. AdamW (beta 0.9 and 0.999, decoupled weight decay
//! `--weight-decay`) on batches of `--batch` positions, the rate falling from `--lr` to 1% of it
//! along a cosine over the whole run, every parameter clipped to +-1.98 after each step and the output weights to
//! +-0.99 (so the quantised accumulators fit 16 bits and `QA * |w2|` fits 16 bits, which the
//! loader checks).
//! Initial weights: `W1` uniform in +-1/sqrt(32) (32 active inputs at most, so an accumulator
//! starts with a spread of about 0.6, inside the activation's range), `w2` uniform in
//! +-1/sqrt(2N), biases 0; or, with `--init NET`, a network file's weights (its integers over
//! their scales), with a fresh optimiser. Each batch is split between `--threads` threads, each
//! with its own gradient buffer (rayon's threads run them); the buffers are summed in a fixed
//! order, so a run is reproducible bit for bit given the data, the seed and the number of
//! threads. Each epoch visits the training positions in an order shuffled from the seed and the
//! epoch's number alone, so a run resumed from a checkpoint goes on exactly as the uninterrupted
//! run would have.
//!
//! After each epoch the network is quantised (`QA` 255, `QB` 128, scale 400), checked by
//! `Network::from_parts` and written to `--output`; with `--checkpoint` the float weights and the
//! optimiser's state are written too, for `--resume`. At the end the validation positions are
//! evaluated by the quantised network (`Network::evaluate`, the engine's integer inference) and
//! compared with the float network, and one record line is printed to paste into the docs.
//!
//! The command line is the `train` binary (`tools/src/bin/train.rs`); its `--help` lists the
//! options and their defaults:
//!
//! ```text
//! cargo run --release -p ferrochess-tools --bin train -- DATA... --output NET.nnue [OPTIONS]
//! ```
//!
//! `RUSTFLAGS="-C target-cpu=native"` lets the inner loops use the machine's widest vectors. The
//! checks of the gradient and of the written file: `cargo test --release -p ferrochess-tools`.

mod checkpoint;
mod data;
mod network;
mod optimizer;
mod options;
mod quantisation;
mod shape;

use std::time::Instant;

use ferrochess::eval::nnue::{Activation, Network};
use rayon::prelude::*;

pub use options::{Failure, Options};
pub use shape::Shape;

use checkpoint::{read_checkpoint, write_checkpoint, write_file};
use data::{Data, load};
use network::{Inputs, mean_loss, outputs};
use optimizer::{FINAL_RATE_SHARE, Trainer, epoch_order, learning_rate};
use quantisation::SCALE;

/// Trains a network by `options` on rayon's `options.threads` threads, writing it (and the
/// checkpoint) after each epoch, with progress on stderr; returns the record line.
pub fn train(options: &Options) -> Result<String, Failure> {
    options.check()?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()?
        .install(|| train_on_this_pool(options))
}

fn train_on_this_pool(options: &Options) -> Result<String, Failure> {
    let started = Instant::now();
    // The network to start from is read first, so a wrong one is refused before the data loads.
    let initial = match &options.init {
        Some(path) => {
            let network = Network::load(path)?;
            let trainer = Trainer::from_network(options.shape, &network, options.threads)
                .map_err(|reason| format!("--init {}: {reason}", path.display()))?;
            eprintln!("starting from {} ({})", path.display(), network.name());
            Some((trainer, network.name()))
        }
        None => None,
    };
    let data = load(options)?;
    let (train, validation) = (&data.train, &data.validation);
    eprintln!(
        "{} training, {} validation positions ({:.1} s to load)",
        train.len(),
        validation.len(),
        started.elapsed().as_secs_f64()
    );
    let table = Inputs::new(options.shape.king);
    let (mut trainer, started_from) = match initial {
        Some((trainer, name)) => (trainer, format!(", from {name}")),
        None => (
            Trainer::new(options.shape, options.seed, options.threads),
            String::new(),
        ),
    };
    if let Some(path) = &options.resume {
        read_checkpoint(&mut trainer, path)?;
        eprintln!(
            "resumed from {} after epoch {}",
            path.display(),
            trainer.epochs_done
        );
    }
    let validation_loss = |trainer: &Trainer| {
        let outputs = outputs(&trainer.shape, &trainer.parameters, &table, validation);
        mean_loss(&outputs, validation, options.wdl)
    };
    eprintln!(
        "epoch {}: validation loss {:.6}",
        trainer.epochs_done,
        validation_loss(&trainer)
    );
    let mut train_loss = f64::NAN;
    for epoch in trainer.epochs_done + 1..=options.epochs {
        let epoch_started = Instant::now();
        let order = epoch_order(train.len(), options.seed, epoch);
        let mut total = 0.0;
        for batch in order.chunks(options.batch) {
            total += trainer.step(batch, train, &table, options);
        }
        let seconds = epoch_started.elapsed().as_secs_f64();
        train_loss = total / train.len() as f64;
        trainer.epochs_done = epoch;
        eprintln!(
            "epoch {epoch}: train loss {train_loss:.6}, validation loss {:.6}, rate {:.2e}, \
             {:.0} positions/s ({seconds:.1} s)",
            validation_loss(&trainer),
            learning_rate(options, trainer.steps, train.len()),
            train.len() as f64 / seconds,
        );
        if let Some(path) = &options.output {
            write_file(path, &trainer.quantised()?.to_bytes())?;
        }
        if let Some(path) = &options.checkpoint {
            write_checkpoint(&trainer, path)?;
        }
    }
    let network = trainer.quantised()?;
    if let Some(path) = &options.output {
        write_file(path, &network.to_bytes())?;
        let loaded = Network::load(path)?;
        eprintln!("wrote {} ({})", path.display(), loaded.name());
    }
    let float_outputs = outputs(&trainer.shape, &trainer.parameters, &table, validation);
    let float_loss = mean_loss(&float_outputs, validation, options.wdl);
    let (quantised_loss, mean_difference, largest_difference) =
        compare_quantised(&network, &data, &float_outputs, options);
    eprintln!(
        "validation: float loss {float_loss:.6}, quantised loss {quantised_loss:.6}; \
         |float - quantised| {mean_difference:.2} cp on average, {largest_difference:.0} cp at most"
    );
    let files: Vec<String> = data
        .files
        .iter()
        .map(|(name, read, malformed)| format!("{name} {read} lines ({malformed} malformed)"))
        .collect();
    let shape = options.shape;
    Ok(format!(
        "{} | data: {} | {} train, {} validation positions | hidden {}, buckets {}, {} | \
         epochs {}{started_from}, wdl {}, lr {} (cosine to {}%), batch {}, weight decay {}, seed {}, \
         threads {} | \
         loss: train {train_loss:.6}, validation {float_loss:.6} (quantised {quantised_loss:.6}, \
         {mean_difference:.2} cp mean difference) | {:.1} s",
        network.name(),
        files.join(", "),
        train.len(),
        validation.len(),
        shape.hidden,
        shape.buckets,
        match shape.activation {
            Activation::ClippedRelu => "crelu",
            Activation::SquaredClippedRelu => "screlu",
        },
        options.epochs,
        options.wdl,
        options.rate,
        FINAL_RATE_SHARE * 100.0,
        options.batch,
        options.weight_decay,
        options.seed,
        options.threads,
        started.elapsed().as_secs_f64(),
    ))
}

/// The quantised network against the float one on the validation set: (its loss, the mean
/// absolute difference in centipawns, the largest).
fn compare_quantised(
    network: &Network,
    data: &Data,
    float_outputs: &[f32],
    options: &Options,
) -> (f64, f64, f32) {
    let evaluations: Vec<i32> = data
        .validation_boards
        .par_iter()
        .map(|board| network.evaluate(board))
        .collect();
    let quantised_outputs: Vec<f32> = evaluations.iter().map(|&cp| cp as f32 / SCALE).collect();
    let loss = mean_loss(&quantised_outputs, &data.validation, options.wdl);
    let differences: Vec<f32> = float_outputs
        .iter()
        .zip(&evaluations)
        .map(|(&output, &cp)| (output * SCALE - cp as f32).abs())
        .collect();
    let mean = differences.iter().map(|&d| f64::from(d)).sum::<f64>() / differences.len() as f64;
    let largest = differences.iter().copied().fold(0.0, f32::max);
    (loss, mean, largest)
}

#[cfg(test)]
mod testing {
    //! What the trainer's tests share. They check what it must get right before a long run: that
    //! a sample's inputs are the engine's (`network.rs`), that the gradient is the loss's slope
    //! (`network.rs`), and that the file the engine loads evaluates as the float network does
    //! (`optimizer.rs`). Run with `cargo test --release -p ferrochess-tools`.

    use ferrochess::position::parse_fen;
    use ferrochess::random::Random;
    use shakmaty::Chess;

    use super::data::Sample;
    use ferrochess::eval::nnue::Activation;
    use ferrochess::eval::nnue::features::KingLayout;

    use super::optimizer::Trainer;
    use super::shape::Shape;

    pub(crate) const FENS: [&str; 4] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r1b1k1nr/pppp1pp1/2n1pq1p/P1b5/8/1PN2P2/2PPP1PP/R1BQKBNR b KQkq - 2 5",
        "8/8/4k3/8/2K5/8/3P4/8 b - - 0 1",
    ];

    pub(crate) fn boards_and_samples() -> Vec<(Chess, Sample)> {
        FENS.iter()
            .enumerate()
            .map(|(index, fen)| {
                let board = parse_fen(fen).unwrap();
                let sample = Sample::new(&board, 150.0 - 100.0 * index as f32, 1.0).unwrap();
                (board, sample)
            })
            .collect()
    }

    /// A test network's shape: `king` layout, `hidden` neurons, 8 output buckets, `activation`.
    pub(crate) fn shape(king: KingLayout, activation: Activation, hidden: usize) -> Shape {
        Shape {
            king,
            hidden,
            buckets: 8,
            activation,
        }
    }

    /// A network away from its initial state: biases and output weights spread out.
    pub(crate) fn trained_looking(shape: Shape, seed: u64) -> Trainer {
        let mut trainer = Trainer::new(shape, seed, 1);
        let mut random = Random::seeded(seed + 1);
        let layers = shape.split_mut(&mut trainer.parameters);
        layers
            .feature_bias
            .iter_mut()
            .for_each(|b| *b = 0.3 + random.uniform(0.3));
        layers
            .output_weights
            .iter_mut()
            .for_each(|w| *w = random.uniform(1.0));
        layers
            .output_bias
            .iter_mut()
            .for_each(|b| *b = random.uniform(0.5));
        trainer
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use ferrochess::eval::nnue::Activation;
    use ferrochess::eval::nnue::features::KingLayout;
    use ferrochess::position::parse_fen;

    use super::testing::{FENS, shape, trained_looking};
    use super::*;

    /// A file in the temporary directory, named for this test and process, removed when dropped.
    struct Temporary(PathBuf);

    impl Temporary {
        fn new(name: &str) -> Temporary {
            Temporary(
                std::env::temp_dir()
                    .join(format!("ferrochess_train_{name}_{}", std::process::id())),
            )
        }
    }

    impl Drop for Temporary {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// 4,000 lines (two validation blocks, the second held out with `--validation 2`).
    fn data_file(name: &str) -> Temporary {
        let file = Temporary::new(name);
        let lines: String = (0..4000)
            .map(|line| format!("{} | {} | 0.5\n", FENS[line % FENS.len()], line % 7 * 10))
            .collect();
        std::fs::write(&file.0, lines).unwrap();
        file
    }

    #[test]
    fn a_run_started_from_a_network_goes_on_from_its_weights() {
        let shape = shape(KingLayout::Mirrored, Activation::SquaredClippedRelu, 32);
        let start = trained_looking(shape, 7).quantised().unwrap();
        let (initial, data, output) = (
            Temporary::new("init.nnue"),
            data_file("init.txt"),
            Temporary::new("init_out.nnue"),
        );
        std::fs::write(&initial.0, start.to_bytes()).unwrap();
        let options = Options {
            output: Some(output.0.clone()),
            shape,
            epochs: 1,
            batch: 1000,
            rate: 1e-6,
            threads: 1,
            validation_one_in: 2,
            init: Some(initial.0.clone()),
            ..Options::new(vec![data.0.clone()])
        };
        let record = train(&options).unwrap();
        assert!(
            record.contains(&format!("epochs 1, from {},", start.name())),
            "{record}"
        );
        // Two steps at a rate of 1e-6 leave the network where it started, within rounding; a
        // run from random weights (the same seed) lands far from it.
        let trained = Network::load(&output.0).unwrap();
        let from_scratch = train(&Options {
            init: None,
            ..options.clone()
        })
        .unwrap();
        assert!(!from_scratch.contains("from nn-"), "{from_scratch}");
        let scratch = Network::load(&output.0).unwrap();
        for fen in FENS {
            let board = parse_fen(fen).unwrap();
            let (before, after) = (start.evaluate(&board), trained.evaluate(&board));
            assert!((before - after).abs() <= 2, "{fen}: {before} then {after}");
            assert!((before - scratch.evaluate(&board)).abs() > 2, "{fen}");
        }
    }

    #[test]
    fn a_network_to_start_from_of_another_shape_or_with_a_checkpoint_is_refused() {
        let theirs = shape(KingLayout::Mirrored, Activation::SquaredClippedRelu, 32);
        let (initial, data) = (Temporary::new("wrong.nnue"), data_file("wrong.txt"));
        let network = trained_looking(theirs, 7).quantised().unwrap();
        std::fs::write(&initial.0, network.to_bytes()).unwrap();
        let options = Options {
            shape: Shape {
                hidden: 64,
                ..theirs
            },
            epochs: 1,
            threads: 1,
            validation_one_in: 2,
            init: Some(initial.0.clone()),
            ..Options::new(vec![data.0.clone()])
        };
        let error = train(&options).unwrap_err().to_string();
        let expected = format!(
            "--init {}: {} is 32 wide",
            initial.0.display(),
            network.name()
        );
        assert!(error.starts_with(&expected), "{error}");
        let both = Options {
            resume: Some(PathBuf::from("state")),
            ..options
        };
        assert_eq!(
            both.check().unwrap_err(),
            "--init and --resume: a run starts from one or the other"
        );
    }
}
