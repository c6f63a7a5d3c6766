//! Trains the engine's network (`src/nnue/`) on scored positions, on the CPU, and writes it in
//! the engine's file format.
//!
//! Data: text files, or `.gz` files read through `gzip -dc`, with one position a line,
//! `FEN | score | result`: the score in centipawns and the game's result (1.0, 0.5, 0.0), both
//! from White's side. Each FEN is parsed once into a 32-byte [`Sample`] (20 million positions
//! take 640 MB); a line that does not parse is skipped and counted. One block of 2,000
//! consecutive lines in `--validation` (100) of each file is held out (whole games, mostly:
//! the files hold games in order), the same set whatever the seed.
//!
//! The network is the one `src/nnue/network.rs` reads: the 768 inputs (per king bucket, in the
//! `--king-layout` chosen: plain, mirrored, or mirrored with 4 buckets, see `nnue::features`) seen
//! from the side to move (`us`) and from the other side (`them`), one shared hidden layer `W1`
//! (768 x king buckets rows of N) and `b1`, the activation (SCReLU `clamp(x, 0, 1)^2`
//! or CReLU `clamp(x, 0, 1)`), then for output bucket `k` (`Architecture::bucket`, by the number
//! of pieces) `out = b2[k] + act(us) . w2[k][..N] + act(them) . w2[k][N..]`; the evaluation is
//! `400 * out` centipawns for the side to move.
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
//! +-1/sqrt(2N), biases 0. Each batch is split between `--threads` threads, each with its own
//! gradient buffer; the buffers are summed in a fixed order, so a run is reproducible bit for
//! bit given the data, the seed and the number of threads. Each epoch visits the training
//! positions in an order shuffled from the seed and the epoch's number alone, so a run resumed
//! from a checkpoint goes on exactly as the uninterrupted run would have.
//!
//! After each epoch the network is quantised (`QA` 255, `QB` 128, scale 400), checked by
//! `Network::from_parts` and written to `--output`; with `--checkpoint` the float weights and the
//! optimiser's state are written too, for `--resume`. At the end the validation positions are
//! evaluated by the quantised network (`Network::evaluate`, the engine's integer inference) and
//! compared with the float network, and one record line is printed to paste into the docs.
//!
//!     cargo run --release --example nnue_train -- DATA... --output NET.nnue [--hidden 256]
//!         [--buckets 8] [--king-layout plain|mirrored|mirrored4] [--activation screlu|crelu] [--epochs 20] [--batch 16384] [--lr 0.001]
//!         [--wdl 0.3] [--weight-decay 0.01] [--seed 1] [--threads CORES] [--validation 100]
//!         [--limit LINES] [--checkpoint STATE] [--resume STATE]
//!
//! `RUSTFLAGS="-C target-cpu=native"` lets the inner loops use the machine's widest vectors. The
//! checks of the gradient and of the written file: `cargo test --release --example nnue_train`.

use std::error::Error;
use std::f32::consts::PI;
use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::thread;
use std::time::Instant;

use ferrochess::nnue::features::{KingLayout, View};
use ferrochess::nnue::network::MAX_HIDDEN;
use ferrochess::nnue::{Activation, Architecture, Network};
use ferrochess::position::parse_fen;
use shakmaty::{Chess, Color, Piece, Position as _, Role, Square};

/// The first layer's quantisation scale (the activation clips at `QA`).
const QA: i32 = 255;
/// The output weights' quantisation scale: 128 rather than 64 because trained output weights
/// are small (largest about 0.36 on the first data), so a step of 1/64 cost about 6 cp of
/// rounding on average.
const QB: i32 = 128;
/// Network output 1.0 is this many centipawns; also the score's scale in the target.
const SCALE: f32 = 400.0;
/// Every parameter stays within this: 33 x round(1.98 x 255) = 16,665 fits `i16`.
const WEIGHT_LIMIT: f32 = 1.98;
/// The output weights stay within this: round(0.99 x 128) = 127 is within 32767 / `QA` = 128
/// (the loader's check for the squared activation).
const OUTPUT_WEIGHT_LIMIT: f32 = 0.99;
/// The learning rate at the end of the cosine, as a share of `--lr`.
const FINAL_RATE_SHARE: f32 = 0.01;
const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;
/// Lines parsed together (split between the threads) while loading.
const LINES_PER_CHUNK: usize = 1 << 15;

struct Options {
    paths: Vec<PathBuf>,
    output: Option<PathBuf>,
    shape: Shape,
    epochs: usize,
    batch: usize,
    rate: f32,
    wdl: f32,
    weight_decay: f32,
    seed: u64,
    threads: usize,
    validation_one_in: u64,
    limit: usize,
    checkpoint: Option<PathBuf>,
    resume: Option<PathBuf>,
}

const USAGE: &str = "usage: nnue_train DATA... [--output NET] [--hidden 256] [--buckets 8] \
    [--king-layout plain|mirrored|mirrored4] [--activation screlu|crelu] [--epochs 20] [--batch 16384] [--lr 0.001] [--wdl 0.3] \
    [--weight-decay 0.01] [--seed 1] [--threads N] [--validation 100] [--limit LINES] \
    [--checkpoint STATE] [--resume STATE]";

fn parse_options() -> Result<Options, Box<dyn Error>> {
    let mut options = Options {
        paths: Vec::new(),
        output: None,
        shape: Shape {
            king: KingLayout::Plain,
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
        threads: thread::available_parallelism().map_or(1, |cores| cores.get()),
        validation_one_in: 100,
        limit: usize::MAX,
        checkpoint: None,
        resume: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--output" => options.output = Some(value()?.into()),
            "--hidden" => options.shape.hidden = value()?.parse()?,
            "--buckets" => options.shape.buckets = value()?.parse()?,
            "--king-layout" => {
                let name = value()?;
                options.shape.king = KingLayout::from_name(&name).ok_or(format!(
                    "--king-layout {name}: plain, mirrored or mirrored4"
                ))?;
            }
            "--activation" => {
                options.shape.activation = match value()?.as_str() {
                    "screlu" => Activation::SquaredClippedRelu,
                    "crelu" => Activation::ClippedRelu,
                    other => return Err(format!("--activation {other}: screlu or crelu").into()),
                }
            }
            "--epochs" => options.epochs = value()?.parse()?,
            "--batch" => options.batch = value()?.parse()?,
            "--lr" => options.rate = value()?.parse()?,
            "--wdl" => options.wdl = value()?.parse()?,
            "--weight-decay" => options.weight_decay = value()?.parse()?,
            "--seed" => options.seed = value()?.parse()?,
            "--threads" => options.threads = value()?.parse()?,
            "--validation" => options.validation_one_in = value()?.parse()?,
            "--limit" => options.limit = value()?.parse()?,
            "--checkpoint" => options.checkpoint = Some(value()?.into()),
            "--resume" => options.resume = Some(value()?.into()),
            flag if flag.starts_with("--") => return Err(format!("unknown {flag}\n{USAGE}").into()),
            _ => options.paths.push(arg.into()),
        }
    }
    let shape = options.shape;
    let problem = if options.paths.is_empty() {
        Some("no data files".to_string())
    } else if shape.hidden == 0 || shape.hidden > MAX_HIDDEN || !shape.hidden.is_multiple_of(16) {
        Some(format!(
            "--hidden {}: a multiple of 16 up to {MAX_HIDDEN}",
            shape.hidden
        ))
    } else if !(1..=ferrochess::nnue::network::MAX_BUCKETS).contains(&shape.buckets) {
        Some(format!("--buckets {}: 1 to 8", shape.buckets))
    } else if options.epochs == 0 || options.batch == 0 || options.threads == 0 {
        Some("--epochs, --batch and --threads must be positive".to_string())
    } else if !(0.0..=1.0).contains(&options.wdl) {
        Some(format!("--wdl {}: 0 to 1", options.wdl))
    } else if !options.rate.is_finite()
        || options.rate <= 0.0
        || !options.weight_decay.is_finite()
        || options.weight_decay < 0.0
    {
        Some("--lr must be positive and --weight-decay not negative".to_string())
    } else if options.validation_one_in < 2 {
        Some("--validation must be at least 2 (one position in that many is held out)".into())
    } else {
        None
    };
    if let Some(problem) = problem {
        return Err(format!("{problem}\n{USAGE}").into());
    }
    // The engine's loader has the last word on the shape (a network of zeros passes its range
    // checks), so a run never trains a network the engine would refuse.
    let (hidden, buckets) = (shape.hidden, shape.buckets);
    let zeros = |count: usize| vec![0; count];
    Network::from_parts(
        shape.architecture(),
        zeros(shape.king.inputs() * hidden),
        zeros(hidden),
        zeros(buckets * 2 * hidden),
        vec![0; buckets],
    )
    .map_err(|reason| format!("the engine would not load this network: {reason}"))?;
    Ok(options)
}

/// SplitMix64: small, seeded, and good enough to shuffle and initialise.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform in `0..bound`.
    fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next()) * bound as u128) >> 64) as usize
    }

    /// Uniform in `-limit..limit`.
    fn uniform(&mut self, limit: f32) -> f32 {
        let unit = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        (2.0 * unit - 1.0) * limit
    }
}

/// SplitMix64's finaliser.
fn mix(mut value: u64) -> u64 {
    value = (value ^ (value >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    value ^ (value >> 31)
}

/// A position as the trainer keeps it.
#[derive(Clone, Copy, Debug)]
struct Sample {
    /// The occupied squares (bit `i` is square `i`, a1 = 0).
    occupancy: u64,
    /// The pieces on the occupied squares in ascending order, two a byte (low half first):
    /// `color * 6 + role - 1`, White 0 and Black 1.
    pieces: [u8; 16],
    /// The score for the side to move, centipawns.
    score: i16,
    /// The result for the side to move in half points: 0, 1 or 2.
    result: u8,
    /// 0 White to move, 1 Black.
    turn: u8,
}

const _: () = assert!(std::mem::size_of::<Sample>() == 32);

impl Sample {
    /// `None` when the board has more than 32 pieces.
    fn new(board: &Chess, white_score: f32, white_result: f32) -> Option<Sample> {
        let occupancy = u64::from(board.board().occupied());
        if occupancy.count_ones() > 32 {
            return None;
        }
        let mut pieces = [0u8; 16];
        let mut bits = occupancy;
        let mut count = 0;
        while bits != 0 {
            let square = Square::new(bits.trailing_zeros());
            bits &= bits - 1;
            let piece = board.board().piece_at(square)?;
            let code = 6 * u8::from(piece.color == Color::Black) + (piece.role as u8 - 1);
            pieces[count / 2] |= code << (4 * (count % 2));
            count += 1;
        }
        let score = white_score.round().clamp(-32767.0, 32767.0) as i16;
        let result = (white_result * 2.0).round() as u8;
        Some(match board.turn() {
            Color::White => Sample {
                occupancy,
                pieces,
                score,
                result,
                turn: 0,
            },
            Color::Black => Sample {
                occupancy,
                pieces,
                score: -score,
                result: 2 - result,
                turn: 1,
            },
        })
    }

    /// What the network learns to predict for this position.
    fn target(&self, wdl: f32) -> f32 {
        wdl * f32::from(self.result) / 2.0 + (1.0 - wdl) * sigmoid(f32::from(self.score) / SCALE)
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// How a sample's pieces become the network's inputs, from both perspectives, as
/// `features::View` numbers them in the network's king layout.
struct Inputs {
    king: KingLayout,
}

impl Inputs {
    fn new(king: KingLayout) -> Inputs {
        Inputs { king }
    }

    /// Fills `us` and `them` with the sample's active inputs; returns how many there are.
    #[inline]
    fn inputs(&self, sample: &Sample, us: &mut [u16; 32], them: &mut [u16; 32]) -> usize {
        let code = |count: usize| (sample.pieces[count / 2] >> (4 * (count % 2))) & 15;
        let turn = if sample.turn == 0 {
            Color::White
        } else {
            Color::Black
        };
        // The kings' squares first (codes 5 and 11), for the views.
        let mut kings = [Square::A1; 2];
        if self.king != KingLayout::Plain {
            let mut bits = sample.occupancy;
            let mut count = 0;
            while bits != 0 {
                let square = bits.trailing_zeros();
                bits &= bits - 1;
                match code(count) {
                    5 => kings[0] = Square::new(square),
                    11 => kings[1] = Square::new(square),
                    _ => {}
                }
                count += 1;
            }
        }
        let view = |color: Color| {
            let king = match color {
                Color::White => kings[0],
                Color::Black => kings[1],
            };
            View::new(self.king, color, king)
        };
        let (ours, theirs) = (view(turn), view(!turn));
        let mut bits = sample.occupancy;
        let mut count = 0;
        while bits != 0 {
            let square = Square::new(bits.trailing_zeros());
            bits &= bits - 1;
            let code = code(count);
            let piece = Piece {
                color: if code < 6 { Color::White } else { Color::Black },
                role: Role::ALL[usize::from(code % 6)],
            };
            us[count] = ours.index(piece, square) as u16;
            them[count] = theirs.index(piece, square) as u16;
            count += 1;
        }
        count
    }
}

/// The lines of a text file, or of a `.gz` file through `gzip -dc`.
struct LineReader {
    path: PathBuf,
    reader: Box<dyn BufRead>,
    gzip: Option<Child>,
}

impl LineReader {
    fn open(path: &Path) -> Result<LineReader, Box<dyn Error>> {
        let file = File::open(path).map_err(|error| format!("{}: {error}", path.display()))?;
        let (reader, gzip): (Box<dyn BufRead>, _) = if path.extension() == Some("gz".as_ref()) {
            let mut child = Command::new("gzip")
                .arg("-dc")
                .arg(path)
                .stdout(Stdio::piped())
                .spawn()
                .map_err(|error| format!("{}: cannot run gzip -dc: {error}", path.display()))?;
            let stdout = child.stdout.take().ok_or("gzip's output was not piped")?;
            (
                Box::new(BufReader::with_capacity(1 << 20, stdout)),
                Some(child),
            )
        } else {
            (Box::new(BufReader::with_capacity(1 << 20, file)), None)
        };
        Ok(LineReader {
            path: path.to_path_buf(),
            reader,
            gzip,
        })
    }

    /// Reads the next line into `line` (without its end); `false` at the end of the file.
    fn read(&mut self, line: &mut Vec<u8>) -> Result<bool, Box<dyn Error>> {
        line.clear();
        let bytes = self
            .reader
            .read_until(b'\n', line)
            .map_err(|error| format!("{}: {error}", self.path.display()))?;
        while line
            .last()
            .is_some_and(|byte| matches!(byte, b'\n' | b'\r'))
        {
            line.pop();
        }
        Ok(bytes > 0)
    }

    /// Stops `gzip` (when `read_all` is false) or checks that it succeeded.
    fn finish(mut self, read_all: bool) -> Result<(), Box<dyn Error>> {
        if let Some(mut child) = self.gzip.take() {
            if !read_all {
                let _ = child.kill();
            }
            let status = child.wait()?;
            if read_all && !status.success() {
                return Err(format!("{}: gzip -dc failed ({status})", self.path.display()).into());
            }
        }
        Ok(())
    }
}

/// A position read from a line, with its board (kept only for the validation set).
struct Parsed {
    sample: Sample,
    board: Chess,
}

/// Lines in one block of the split between training and validation: the positions of a game
/// are consecutive lines (about 70 of them), so whole blocks of some 30 games are held out and a
/// game's positions (which resemble one another) are seldom on both sides. A split by position
/// measured 0.0066 on validation where new games from the same engine gave 0.0138.
const VALIDATION_BLOCK_LINES: usize = 2000;

/// Whether line `number` (from 0) of a file is held out for validation: one block in
/// `one_in`.
fn held_out(number: usize, one_in: u64) -> bool {
    (number / VALIDATION_BLOCK_LINES) as u64 % one_in == one_in / 2
}

/// One line: `FEN | score | result`, both from White's side; `None` for a blank line.
fn parse_line(line: &[u8]) -> Result<Option<Parsed>, String> {
    let line = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_string())?;
    if line.trim().is_empty() {
        return Ok(None);
    }
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [fen, score, result] = fields[..] else {
        return Err(format!(
            "{} fields, expected FEN | score | result",
            fields.len()
        ));
    };
    let score: f32 = score
        .parse()
        .ok()
        .filter(|score: &f32| score.is_finite())
        .ok_or(format!("score {score:?} is not a number"))?;
    let result: f32 = result
        .parse()
        .ok()
        .filter(|result| [0.0, 0.5, 1.0].contains(result))
        .ok_or(format!("result {result:?} is not 1.0, 0.5 or 0.0"))?;
    let board = parse_fen(fen).map_err(|error| error.to_string())?;
    let sample = Sample::new(&board, score, result).ok_or("more than 32 pieces")?;
    Ok(Some(Parsed { sample, board }))
}

/// The positions read, split into training and validation.
#[derive(Default)]
struct Data {
    train: Vec<Sample>,
    validation: Vec<Sample>,
    validation_boards: Vec<Chess>,
    /// Per file: (name, lines read, malformed lines).
    files: Vec<(String, usize, usize)>,
}

/// Reads every file (at most `options.limit` lines in all), parsing in parallel.
fn load(options: &Options) -> Result<Data, Box<dyn Error>> {
    let mut data = Data::default();
    let mut lines = vec![Vec::new(); LINES_PER_CHUNK];
    let mut remaining = options.limit;
    for path in &options.paths {
        let mut reader = LineReader::open(path)?;
        let (mut read, mut malformed) = (0, 0);
        let mut read_all = false;
        while remaining > 0 && !read_all {
            let wanted = LINES_PER_CHUNK.min(remaining);
            let mut filled = 0;
            while filled < wanted {
                if !reader.read(&mut lines[filled])? {
                    read_all = true;
                    break;
                }
                filled += 1;
            }
            let parsed = in_parallel(&lines[..filled], options.threads, |part| {
                part.iter().map(|line| parse_line(line)).collect()
            });
            for (number, outcome) in parsed.into_iter().enumerate() {
                match outcome {
                    Ok(None) => {}
                    Ok(Some(Parsed { sample, board }))
                        if held_out(read + number, options.validation_one_in) =>
                    {
                        data.validation.push(sample);
                        data.validation_boards.push(board);
                    }
                    Ok(Some(Parsed { sample, .. })) => data.train.push(sample),
                    Err(reason) => {
                        if malformed == 0 {
                            let line = read + number + 1;
                            eprintln!("{}:{line}: skipped: {reason}", path.display());
                        }
                        malformed += 1;
                    }
                }
            }
            read += filled;
            remaining -= filled;
        }
        reader.finish(read_all)?;
        let name = path.file_name().map_or(path.display().to_string(), |name| {
            name.to_string_lossy().into_owned()
        });
        eprintln!("{name}: {read} lines, {malformed} malformed (skipped)");
        data.files.push((name, read, malformed));
    }
    if data.train.is_empty() || data.validation.is_empty() {
        return Err(format!(
            "{} training and {} validation positions: need some of each",
            data.train.len(),
            data.validation.len()
        )
        .into());
    }
    if data.train.len() > u32::MAX as usize {
        return Err("more than 2^32 training positions".into());
    }
    Ok(data)
}

/// The network's size and activation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Shape {
    king: KingLayout,
    hidden: usize,
    buckets: usize,
    activation: Activation,
}

impl Shape {
    fn architecture(&self) -> Architecture {
        Architecture {
            king: self.king,
            hidden: self.hidden,
            buckets: self.buckets,
            activation: self.activation,
            qa: QA,
            qb: QB,
            scale: SCALE as i32,
        }
    }

    /// How many floats the parameters take, laid out as `W1 | b1 | w2 | b2`.
    fn parameters(&self) -> usize {
        self.king.inputs() * self.hidden
            + self.hidden
            + self.buckets * 2 * self.hidden
            + self.buckets
    }

    /// The four parts of a parameter (or gradient) vector.
    fn split<'a>(&self, all: &'a [f32]) -> Layers<&'a [f32]> {
        let (feature_weights, rest) = all.split_at(self.king.inputs() * self.hidden);
        let (feature_bias, rest) = rest.split_at(self.hidden);
        let (output_weights, output_bias) = rest.split_at(self.buckets * 2 * self.hidden);
        Layers {
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        }
    }

    fn split_mut<'a>(&self, all: &'a mut [f32]) -> Layers<&'a mut [f32]> {
        let (feature_weights, rest) = all.split_at_mut(self.king.inputs() * self.hidden);
        let (feature_bias, rest) = rest.split_at_mut(self.hidden);
        let (output_weights, output_bias) = rest.split_at_mut(self.buckets * 2 * self.hidden);
        Layers {
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        }
    }

    /// The initial parameters (see the module's documentation).
    fn initial(&self, random: &mut Random) -> Vec<f32> {
        let mut all = vec![0.0; self.parameters()];
        let layers = self.split_mut(&mut all);
        let feature_limit = 1.0 / 32f32.sqrt();
        layers
            .feature_weights
            .iter_mut()
            .for_each(|w| *w = random.uniform(feature_limit));
        let output_limit = 1.0 / (2.0 * self.hidden as f32).sqrt();
        layers
            .output_weights
            .iter_mut()
            .for_each(|w| *w = random.uniform(output_limit));
        all
    }
}

/// The parts of the network: `W1` (768 rows of N per king bucket), `b1`, `w2` (a row of 2N per
/// output bucket), `b2`.
struct Layers<S> {
    feature_weights: S,
    feature_bias: S,
    output_weights: S,
    output_bias: S,
}

/// A thread's working memory for one position.
struct Scratch {
    us_inputs: [u16; 32],
    them_inputs: [u16; 32],
    /// The accumulators before the activation, then (backward) their gradients.
    us: Vec<f32>,
    them: Vec<f32>,
}

impl Scratch {
    fn new(hidden: usize) -> Scratch {
        Scratch {
            us_inputs: [0; 32],
            them_inputs: [0; 32],
            us: vec![0.0; hidden],
            them: vec![0.0; hidden],
        }
    }
}

/// The hidden layer's activation, in float (1.0 is `QA` in the engine).
#[inline]
fn activate(activation: Activation, x: f32) -> f32 {
    let clipped = x.clamp(0.0, 1.0);
    match activation {
        Activation::ClippedRelu => clipped,
        Activation::SquaredClippedRelu => clipped * clipped,
    }
}

/// The derivative of [`activate`] (0 where it clips).
#[inline]
fn activation_slope(activation: Activation, x: f32) -> f32 {
    let inside = x > 0.0 && x < 1.0;
    match activation {
        Activation::ClippedRelu => f32::from(u8::from(inside)),
        Activation::SquaredClippedRelu => {
            if inside {
                2.0 * x
            } else {
                0.0
            }
        }
    }
}

/// `bias` plus the rows of `weights` named by `inputs`.
#[inline]
fn accumulate(weights: &[f32], bias: &[f32], inputs: &[u16], out: &mut [f32]) {
    let hidden = bias.len();
    out.copy_from_slice(bias);
    for &input in inputs {
        let row = &weights[usize::from(input) * hidden..][..hidden];
        for (value, weight) in out.iter_mut().zip(row) {
            *value += weight;
        }
    }
}

/// `sum(act(values) * weights)`, in 16 lanes so that it vectorises.
#[inline]
fn activated_dot(activation: Activation, values: &[f32], weights: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 16];
    for (values, weights) in values.chunks_exact(16).zip(weights.chunks_exact(16)) {
        for lane in 0..16 {
            lanes[lane] += activate(activation, values[lane]) * weights[lane];
        }
    }
    lanes.iter().sum()
}

/// The float network's output for `sample` (`400 x` this is centipawns); leaves the
/// accumulators and inputs in `scratch`. Returns (output, bucket, active inputs).
fn forward(
    shape: &Shape,
    network: &Layers<&[f32]>,
    table: &Inputs,
    sample: &Sample,
    scratch: &mut Scratch,
) -> (f32, usize, usize) {
    let count = table.inputs(sample, &mut scratch.us_inputs, &mut scratch.them_inputs);
    let (weights, bias) = (network.feature_weights, network.feature_bias);
    accumulate(weights, bias, &scratch.us_inputs[..count], &mut scratch.us);
    accumulate(
        weights,
        bias,
        &scratch.them_inputs[..count],
        &mut scratch.them,
    );
    let bucket = shape.architecture().bucket(count);
    let row = &network.output_weights[bucket * 2 * shape.hidden..][..2 * shape.hidden];
    let (ours, theirs) = row.split_at(shape.hidden);
    let output = network.output_bias[bucket]
        + activated_dot(shape.activation, &scratch.us, ours)
        + activated_dot(shape.activation, &scratch.them, theirs);
    (output, bucket, count)
}

/// Overwrites `gradient` with the gradient of the loss summed over `positions`; returns that
/// summed loss.
fn batch_gradient(
    shape: &Shape,
    parameters: &[f32],
    table: &Inputs,
    positions: impl Iterator<Item = Sample>,
    wdl: f32,
    gradient: &mut [f32],
) -> f64 {
    gradient.fill(0.0);
    let network = shape.split(parameters);
    let gradient = shape.split_mut(gradient);
    let hidden = shape.hidden;
    let mut scratch = Scratch::new(hidden);
    let mut loss = 0.0f64;
    for sample in positions {
        let (output, bucket, count) = forward(shape, &network, table, &sample, &mut scratch);
        let prediction = sigmoid(output);
        let error = prediction - sample.target(wdl);
        loss += f64::from(error * error);
        let slope = 2.0 * error * prediction * (1.0 - prediction);
        gradient.output_bias[bucket] += slope;
        let row = &network.output_weights[bucket * 2 * hidden..][..2 * hidden];
        let row_gradient = &mut gradient.output_weights[bucket * 2 * hidden..][..2 * hidden];
        let (ours, theirs) = row.split_at(hidden);
        let (ours_gradient, theirs_gradient) = row_gradient.split_at_mut(hidden);
        // The accumulators become their own gradients.
        for (values, weights, weights_gradient) in [
            (&mut scratch.us, ours, ours_gradient),
            (&mut scratch.them, theirs, theirs_gradient),
        ] {
            for ((value, weight), weight_gradient) in values
                .iter_mut()
                .zip(weights)
                .zip(weights_gradient.iter_mut())
            {
                *weight_gradient += slope * activate(shape.activation, *value);
                *value = slope * weight * activation_slope(shape.activation, *value);
            }
        }
        for (bias, (us, them)) in gradient
            .feature_bias
            .iter_mut()
            .zip(scratch.us.iter().zip(&scratch.them))
        {
            *bias += us + them;
        }
        for (inputs, values) in [
            (&scratch.us_inputs[..count], &scratch.us),
            (&scratch.them_inputs[..count], &scratch.them),
        ] {
            for &input in inputs {
                let row = &mut gradient.feature_weights[usize::from(input) * hidden..][..hidden];
                for (weight, value) in row.iter_mut().zip(values) {
                    *weight += value;
                }
            }
        }
    }
    loss
}

/// The float network's outputs for `samples` (`400 x` centipawns), computed in parallel.
fn outputs(
    shape: &Shape,
    parameters: &[f32],
    table: &Inputs,
    samples: &[Sample],
    threads: usize,
) -> Vec<f32> {
    let network = shape.split(parameters);
    in_parallel(samples, threads, |part| {
        let mut scratch = Scratch::new(shape.hidden);
        part.iter()
            .map(|sample| forward(shape, &network, table, sample, &mut scratch).0)
            .collect()
    })
}

/// Mean squared difference between `sigmoid(output)` and the targets.
fn mean_loss(outputs: &[f32], samples: &[Sample], wdl: f32) -> f64 {
    let total: f64 = outputs
        .iter()
        .zip(samples)
        .map(|(&output, sample)| f64::from((sigmoid(output) - sample.target(wdl)).powi(2)))
        .sum();
    total / samples.len() as f64
}

/// The parameters, AdamW's moments and how far training has gone.
struct Trainer {
    shape: Shape,
    parameters: Vec<f32>,
    first_moment: Vec<f32>,
    second_moment: Vec<f32>,
    steps: u64,
    epochs_done: usize,
    /// One gradient buffer per thread.
    gradients: Vec<Vec<f32>>,
}

impl Trainer {
    fn new(shape: Shape, seed: u64, threads: usize) -> Trainer {
        let parameters = shape.initial(&mut Random(seed));
        let count = parameters.len();
        Trainer {
            shape,
            parameters,
            first_moment: vec![0.0; count],
            second_moment: vec![0.0; count],
            steps: 0,
            epochs_done: 0,
            gradients: vec![vec![0.0; count]; threads],
        }
    }

    /// One optimiser step on the positions `batch` names; returns their summed loss.
    fn step(
        &mut self,
        batch: &[u32],
        samples: &[Sample],
        table: &Inputs,
        options: &Options,
    ) -> f64 {
        let per_thread = batch.len().div_ceil(self.gradients.len());
        let (shape, parameters) = (&self.shape, &self.parameters);
        let losses: Vec<f64> = thread::scope(|scope| {
            let workers: Vec<_> = batch
                .chunks(per_thread)
                .zip(self.gradients.iter_mut())
                .map(|(part, gradient)| {
                    scope.spawn(move || {
                        let positions = part.iter().map(|&index| samples[index as usize]);
                        batch_gradient(shape, parameters, table, positions, options.wdl, gradient)
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.join().expect("a worker panicked"))
                .collect()
        });
        self.steps += 1;
        let rate = learning_rate(options, self.steps, samples.len());
        self.apply_gradient(
            losses.len(),
            1.0 / batch.len() as f32,
            rate,
            options.weight_decay,
        );
        for weight in self.shape.split_mut(&mut self.parameters).output_weights {
            *weight = weight.clamp(-OUTPUT_WEIGHT_LIMIT, OUTPUT_WEIGHT_LIMIT);
        }
        losses.iter().sum()
    }

    /// AdamW with the sum of the first `used` gradient buffers times `scale`, then the clip;
    /// the parameters are split between the threads.
    fn apply_gradient(&mut self, used: usize, scale: f32, rate: f32, weight_decay: f32) {
        let threads = self.gradients.len();
        let chunk = self.parameters.len().div_ceil(threads).next_multiple_of(16);
        let steps = i32::try_from(self.steps).unwrap_or(i32::MAX);
        let corrections = (
            1.0 / (1.0 - BETA1.powi(steps)),
            1.0 / (1.0 - BETA2.powi(steps)),
        );
        let (summed, others) = self.gradients.split_at_mut(1);
        let mut others: Vec<_> = others[..used - 1]
            .iter()
            .map(|other| other.chunks(chunk))
            .collect();
        thread::scope(|scope| {
            for (((parameters, first), second), gradient) in self
                .parameters
                .chunks_mut(chunk)
                .zip(self.first_moment.chunks_mut(chunk))
                .zip(self.second_moment.chunks_mut(chunk))
                .zip(summed[0].chunks_mut(chunk))
            {
                let others: Vec<&[f32]> = others.iter_mut().filter_map(Iterator::next).collect();
                scope.spawn(move || {
                    for other in others {
                        for (sum, value) in gradient.iter_mut().zip(other) {
                            *sum += value;
                        }
                    }
                    let decay = 1.0 - rate * weight_decay;
                    for (((parameter, first), second), gradient) in parameters
                        .iter_mut()
                        .zip(first.iter_mut())
                        .zip(second.iter_mut())
                        .zip(gradient.iter())
                    {
                        let gradient = gradient * scale;
                        *first = BETA1 * *first + (1.0 - BETA1) * gradient;
                        *second = BETA2 * *second + (1.0 - BETA2) * gradient * gradient;
                        let step =
                            *first * corrections.0 / ((*second * corrections.1).sqrt() + EPSILON);
                        *parameter =
                            (*parameter * decay - rate * step).clamp(-WEIGHT_LIMIT, WEIGHT_LIMIT);
                    }
                });
            }
        });
    }

    /// The network quantised as the engine reads it.
    fn quantised(&self) -> Result<Network, String> {
        let layers = self.shape.split(&self.parameters);
        let scaled = |weights: &[f32], scale: i32| -> Vec<i16> {
            weights
                .iter()
                .map(|w| (w * scale as f32).round() as i16)
                .collect()
        };
        Network::from_parts(
            self.shape.architecture(),
            scaled(layers.feature_weights, QA),
            scaled(layers.feature_bias, QA),
            scaled(layers.output_weights, QB),
            layers
                .output_bias
                .iter()
                .map(|b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
        )
    }
}

/// The rate for step `step` (from 1): a cosine from `--lr` down to `FINAL_RATE_SHARE` of it.
fn learning_rate(options: &Options, step: u64, positions: usize) -> f32 {
    let total = (options.epochs * positions.div_ceil(options.batch)) as f32;
    let progress = ((step - 1) as f32 / total).min(1.0);
    let share = FINAL_RATE_SHARE + (1.0 - FINAL_RATE_SHARE) * 0.5 * (1.0 + (PI * progress).cos());
    options.rate * share
}

/// The training positions' order in epoch `epoch`: a shuffle that depends on nothing else.
fn epoch_order(count: usize, seed: u64, epoch: usize) -> Vec<u32> {
    let mut random = Random(mix(seed ^ mix(epoch as u64)));
    let mut order: Vec<u32> = (0..count as u32).collect();
    for last in (1..count).rev() {
        order.swap(last, random.below(last + 1));
    }
    order
}

/// Writes through a temporary file, so an interrupted write leaves the previous file.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Box<dyn Error>> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    fs::write(&temporary, bytes).map_err(|error| format!("{}: {error}", path.display()))?;
    fs::rename(&temporary, path).map_err(|error| format!("{}: {error}", path.display()))?;
    Ok(())
}

const CHECKPOINT_MAGIC: &[u8; 8] = b"FCTRAIN2";

/// The float state: magic, hidden, buckets, activation, king layout, epochs done, steps (u64
/// each), then the
/// parameters and both moments as `f32`, little-endian.
fn write_checkpoint(trainer: &Trainer, path: &Path) -> Result<(), Box<dyn Error>> {
    let shape = trainer.shape;
    let mut bytes = CHECKPOINT_MAGIC.to_vec();
    for word in [
        shape.hidden as u64,
        shape.buckets as u64,
        shape.activation as u64,
        shape.king as u64,
        trainer.epochs_done as u64,
        trainer.steps,
    ] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    for values in [
        &trainer.parameters,
        &trainer.first_moment,
        &trainer.second_moment,
    ] {
        bytes.extend(values.iter().flat_map(|value| value.to_le_bytes()));
    }
    write_file(path, &bytes)
}

/// Restores a checkpoint written for the same shape.
fn read_checkpoint(trainer: &mut Trainer, path: &Path) -> Result<(), Box<dyn Error>> {
    let bytes = fs::read(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let shape = trainer.shape;
    let count = shape.parameters();
    let header = 8 + 6 * 8;
    let word = |index: usize| {
        let start = 8 + 8 * index;
        u64::from_le_bytes(bytes[start..start + 8].try_into().expect("8 bytes"))
    };
    if bytes.len() != header + 3 * 4 * count
        || &bytes[..8] != CHECKPOINT_MAGIC
        || word(0) != shape.hidden as u64
        || word(1) != shape.buckets as u64
        || word(2) != shape.activation as u64
        || word(3) != shape.king as u64
    {
        return Err(format!(
            "{}: not a checkpoint of a network with {} hidden, {} buckets, {:?}, king layout {}",
            path.display(),
            shape.hidden,
            shape.buckets,
            shape.activation,
            shape.king.name()
        )
        .into());
    }
    trainer.epochs_done = word(4) as usize;
    trainer.steps = word(5);
    let mut floats = bytes[header..]
        .chunks_exact(4)
        .map(|word| f32::from_le_bytes(word.try_into().expect("4 bytes")));
    for values in [
        &mut trainer.parameters,
        &mut trainer.first_moment,
        &mut trainer.second_moment,
    ] {
        values
            .iter_mut()
            .zip(floats.by_ref())
            .for_each(|(value, read)| *value = read);
    }
    Ok(())
}

/// The quantised network's evaluations (centipawns, side to move) of `boards`, in parallel.
fn quantised_evaluations(network: &Network, boards: &[Chess], threads: usize) -> Vec<i32> {
    in_parallel(boards, threads, |part| {
        part.iter().map(|board| network.evaluate(board)).collect()
    })
}

/// `work` done on `items` cut into `threads` runs of neighbours, in parallel; the results in
/// the items' order.
fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let per_thread = items.len().div_ceil(threads).max(1);
    let work = &work;
    thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(per_thread)
            .map(|part| scope.spawn(move || work(part)))
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a worker panicked"))
            .collect()
    })
}

/// The quantised network against the float one on the validation set: (its loss, the mean
/// absolute difference in centipawns, the largest).
fn compare_quantised(
    network: &Network,
    data: &Data,
    float_outputs: &[f32],
    options: &Options,
) -> (f64, f64, f32) {
    let evaluations = quantised_evaluations(network, &data.validation_boards, options.threads);
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

fn main() -> ExitCode {
    match train() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("nnue_train: {error}");
            ExitCode::FAILURE
        }
    }
}

fn train() -> Result<(), Box<dyn Error>> {
    let started = Instant::now();
    let options = parse_options()?;
    let data = load(&options)?;
    let (train, validation) = (&data.train, &data.validation);
    eprintln!(
        "{} training, {} validation positions ({:.1} s to load)",
        train.len(),
        validation.len(),
        started.elapsed().as_secs_f64()
    );
    let table = Inputs::new(options.shape.king);
    let mut trainer = Trainer::new(options.shape, options.seed, options.threads);
    if let Some(path) = &options.resume {
        read_checkpoint(&mut trainer, path)?;
        eprintln!(
            "resumed from {} after epoch {}",
            path.display(),
            trainer.epochs_done
        );
    }
    let validation_loss = |trainer: &Trainer| {
        let outputs = outputs(
            &trainer.shape,
            &trainer.parameters,
            &table,
            validation,
            options.threads,
        );
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
            total += trainer.step(batch, train, &table, &options);
        }
        let seconds = epoch_started.elapsed().as_secs_f64();
        train_loss = total / train.len() as f64;
        trainer.epochs_done = epoch;
        eprintln!(
            "epoch {epoch}: train loss {train_loss:.6}, validation loss {:.6}, rate {:.2e}, \
             {:.0} positions/s ({seconds:.1} s)",
            validation_loss(&trainer),
            learning_rate(&options, trainer.steps, train.len()),
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
    let float_outputs = outputs(
        &trainer.shape,
        &trainer.parameters,
        &table,
        validation,
        options.threads,
    );
    let float_loss = mean_loss(&float_outputs, validation, options.wdl);
    let (quantised_loss, mean_difference, largest_difference) =
        compare_quantised(&network, &data, &float_outputs, &options);
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
    println!(
        "{} | data: {} | {} train, {} validation positions | hidden {}, buckets {}, {} | \
         epochs {}, wdl {}, lr {} (cosine to {}%), batch {}, weight decay {}, seed {}, threads {} | \
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
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    //! What the trainer must get right before a long run: that a sample's inputs are the
    //! engine's, that the gradient is the loss's slope, and that the file the engine loads
    //! evaluates as the float network does. Run with `cargo test --release --example nnue_train`.

    use super::*;
    use ferrochess::nnue::features;

    const FENS: [&str; 4] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r1b1k1nr/pppp1pp1/2n1pq1p/P1b5/8/1PN2P2/2PPP1PP/R1BQKBNR b KQkq - 2 5",
        "8/8/4k3/8/2K5/8/3P4/8 b - - 0 1",
    ];

    fn boards_and_samples() -> Vec<(Chess, Sample)> {
        FENS.iter()
            .enumerate()
            .map(|(index, fen)| {
                let board = parse_fen(fen).unwrap();
                let sample = Sample::new(&board, 150.0 - 100.0 * index as f32, 1.0).unwrap();
                (board, sample)
            })
            .collect()
    }

    /// A network away from its initial state: biases and output weights spread out.
    fn trained_looking(shape: Shape, seed: u64) -> Trainer {
        let mut trainer = Trainer::new(shape, seed, 1);
        let mut random = Random(seed + 1);
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

    #[test]
    fn a_sample_has_the_inputs_of_its_board_from_each_side_and_the_side_to_move_s_labels() {
        for king in KingLayout::ALL {
            let table = Inputs::new(king);
            for (board, sample) in boards_and_samples() {
                let (mut us, mut them) = ([0; 32], [0; 32]);
                let count = table.inputs(&sample, &mut us, &mut them);
                for (inputs, perspective) in [(&mut us, board.turn()), (&mut them, !board.turn())] {
                    let mut expected: Vec<u16> = features::active(board.board(), king, perspective)
                        .map(|input| input as u16)
                        .collect();
                    expected.sort_unstable();
                    inputs[..count].sort_unstable();
                    assert_eq!(inputs[..count], expected[..], "{king:?}");
                }
            }
        }
        let samples = boards_and_samples();
        assert_eq!((samples[0].1.score, samples[0].1.result), (150, 2));
        assert_eq!((samples[2].1.score, samples[2].1.result), (50, 0));
    }

    #[test]
    fn the_gradient_is_the_slope_of_the_summed_loss() {
        for (activation, king) in [
            (Activation::SquaredClippedRelu, KingLayout::Plain),
            (Activation::ClippedRelu, KingLayout::Plain),
            (Activation::SquaredClippedRelu, KingLayout::Mirrored4),
            (Activation::ClippedRelu, KingLayout::Mirrored4),
        ] {
            let shape = Shape {
                king,
                hidden: 16,
                buckets: 8,
                activation,
            };
            let trainer = trained_looking(shape, 7);
            let table = Inputs::new(shape.king);
            let samples: Vec<Sample> = boards_and_samples().into_iter().map(|(_, s)| s).collect();
            let loss = |parameters: &[f32]| {
                let mut scratch = vec![0.0; shape.parameters()];
                let positions = samples.iter().copied();
                batch_gradient(&shape, parameters, &table, positions, 0.3, &mut scratch)
            };
            let mut gradient = vec![0.0; shape.parameters()];
            let positions = samples.iter().copied();
            batch_gradient(
                &shape,
                &trainer.parameters,
                &table,
                positions,
                0.3,
                &mut gradient,
            );
            let (mut checked, mut kinks) = (0, 0);
            let here = loss(&trainer.parameters);
            for index in (0..shape.parameters()).filter(|&index| gradient[index] != 0.0) {
                let step = 1e-3;
                let mut moved = trainer.parameters.clone();
                moved[index] += step;
                let above = loss(&moved);
                moved[index] -= 2.0 * step;
                let below = loss(&moved);
                let slope = ((above - below) / (2.0 * f64::from(step))) as f32;
                // Where a step crosses the activation's clip (an accumulator within the step of
                // 0 or 1), the loss has a kink: the slopes on either side differ and neither is
                // the gradient's. Those parameters are counted, not checked.
                let right = ((above - here) / f64::from(step)) as f32;
                let left = ((here - below) / f64::from(step)) as f32;
                if (right - left).abs() > 1e-3 + 0.05 * slope.abs() {
                    kinks += 1;
                    continue;
                }
                assert!(
                    (slope - gradient[index]).abs() <= 1e-3 + 0.02 * slope.abs(),
                    "{activation:?} {king:?} parameter {index}: gradient {}, slope {slope}",
                    gradient[index]
                );
                checked += 1;
            }
            assert!(checked > 500, "only {checked} parameters have a gradient");
            assert!(
                kinks * 50 < checked,
                "{kinks} kinks in {checked} parameters"
            );
        }
    }

    /// The parameters rounded to what the quantised network holds, back in float.
    fn dequantised(shape: Shape, parameters: &[f32]) -> Vec<f32> {
        let mut rounded = parameters.to_vec();
        let layers = shape.split_mut(&mut rounded);
        let scales = [QA, QA, QB, QA * QB].map(|scale| scale as f32);
        for (part, scale) in [
            layers.feature_weights,
            layers.feature_bias,
            layers.output_weights,
            layers.output_bias,
        ]
        .into_iter()
        .zip(scales)
        {
            part.iter_mut()
                .for_each(|w| *w = (*w * scale).round() / scale);
        }
        rounded
    }

    #[test]
    fn the_engine_evaluates_the_written_network_as_the_float_one_with_its_rounded_weights() {
        for (activation, king) in [
            (Activation::SquaredClippedRelu, KingLayout::Plain),
            (Activation::ClippedRelu, KingLayout::Mirrored4),
        ] {
            let shape = Shape {
                king,
                hidden: 64,
                buckets: 8,
                activation,
            };
            let trainer = trained_looking(shape, 11);
            let network = Network::from_bytes(&trainer.quantised().unwrap().to_bytes()).unwrap();
            let table = Inputs::new(shape.king);
            let rounded = dequantised(shape, &trainer.parameters);
            let (exact, rounded) = (shape.split(&trainer.parameters), shape.split(&rounded));
            let mut scratch = Scratch::new(shape.hidden);
            for (board, sample) in boards_and_samples() {
                let mut centipawns =
                    |layers| forward(&shape, layers, &table, &sample, &mut scratch).0 * SCALE;
                let (float, rounded) = (centipawns(&exact), centipawns(&rounded));
                let quantised = network.evaluate(&board) as f32;
                // The integer inference truncates twice, each time by less than a centipawn.
                assert!(
                    (rounded - quantised).abs() < 2.0,
                    "{activation:?}: rounded weights {rounded}, quantised {quantised}"
                );
                // Output weights as large as +-1 make rounding cost tens of centipawns at most.
                assert!(
                    (float - quantised).abs() < 60.0,
                    "{activation:?}: {float}, {quantised}"
                );
            }
        }
    }

    #[test]
    fn weights_at_the_clip_still_load() {
        let shape = Shape {
            king: KingLayout::Mirrored4,
            hidden: 32,
            buckets: 8,
            activation: Activation::SquaredClippedRelu,
        };
        let mut trainer = Trainer::new(shape, 3, 1);
        trainer.parameters.fill(-WEIGHT_LIMIT);
        for weight in shape.split_mut(&mut trainer.parameters).output_weights {
            *weight = -OUTPUT_WEIGHT_LIMIT;
        }
        assert!(trainer.quantised().is_ok());
        trainer.parameters.fill(WEIGHT_LIMIT);
        for weight in shape.split_mut(&mut trainer.parameters).output_weights {
            *weight = OUTPUT_WEIGHT_LIMIT;
        }
        assert!(trainer.quantised().is_ok());
    }

    #[test]
    fn a_checkpoint_restores_the_trainer() {
        let shape = Shape {
            king: KingLayout::Plain,
            hidden: 16,
            buckets: 2,
            activation: Activation::ClippedRelu,
        };
        let mut trainer = trained_looking(shape, 5);
        trainer.first_moment.fill(0.25);
        trainer.second_moment.fill(0.5);
        (trainer.steps, trainer.epochs_done) = (42, 3);
        let path =
            std::env::temp_dir().join(format!("nnue_train_test_{}.state", std::process::id()));
        write_checkpoint(&trainer, &path).unwrap();
        let mut restored = Trainer::new(shape, 9, 1);
        read_checkpoint(&mut restored, &path).unwrap();
        fs::remove_file(&path).unwrap();
        assert_eq!(restored.parameters, trainer.parameters);
        assert_eq!(restored.first_moment, trainer.first_moment);
        assert_eq!(restored.second_moment, trainer.second_moment);
        assert_eq!((restored.steps, restored.epochs_done), (42, 3));
        let other = Shape {
            hidden: 32,
            ..shape
        };
        let path =
            std::env::temp_dir().join(format!("nnue_train_test_{}.other", std::process::id()));
        write_checkpoint(&trainer, &path).unwrap();
        assert!(read_checkpoint(&mut Trainer::new(other, 9, 1), &path).is_err());
        // The same number of parameters in another king layout is another network.
        let mirrored = Shape {
            king: KingLayout::Mirrored,
            ..shape
        };
        assert!(read_checkpoint(&mut Trainer::new(mirrored, 9, 1), &path).is_err());
        fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_malformed_line_is_a_reason_and_a_blank_one_nothing() {
        let fen = FENS[0];
        for line in [String::new(), "   ".to_string()] {
            assert!(matches!(parse_line(line.as_bytes()), Ok(None)));
        }
        for line in [
            format!("{fen} | 12"),
            format!("{fen} | x | 1.0"),
            format!("{fen} | 12 | 0.7"),
            format!("{fen} | inf | 1.0"),
            "8/8/8 w - - 0 1 | 0 | 0.5".to_string(),
            format!("{fen} | 1 | 1.0 | 2"),
        ] {
            assert!(parse_line(line.as_bytes()).is_err(), "{line}");
        }
        assert!(parse_line(&[0xff, b'|', b'|']).is_err());
        assert!(matches!(
            parse_line(format!("{fen} | -30 | 0.5").as_bytes()),
            Ok(Some(_))
        ));
    }

    #[test]
    fn an_epoch_s_order_is_a_permutation_fixed_by_the_seed_and_the_epoch() {
        let order = epoch_order(1000, 1, 4);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<u32>>());
        assert_eq!(order, epoch_order(1000, 1, 4));
        assert_ne!(order, epoch_order(1000, 1, 5));
        assert_ne!(order, epoch_order(1000, 2, 4));
    }
}
