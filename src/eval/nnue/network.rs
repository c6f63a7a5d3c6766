//! A network file: its header, its quantised weights, and the integer inference.
//!
//! The file (little-endian) is a 48-byte header followed by the weights:
//!
//! | offset | field |
//! |---:|---|
//! | 0 | magic `FCNN` |
//! | 4 | `u32` format version ([`FORMAT_VERSION`]; version 1 files are still read) |
//! | 8 | `u32` inputs per perspective (768 per king bucket, see [`super::features`]) |
//! | 12 | `u32` hidden neurons per perspective, `N` |
//! | 16 | `u32` output buckets, `B` (chosen by the number of pieces on the board) |
//! | 20 | `u32` activation: 1 clipped ReLU, 2 squared clipped ReLU |
//! | 24 | `u32` `QA`, the scale of the first layer (the activation clips at `QA`) |
//! | 28 | `u32` `QB`, the scale of the output weights |
//! | 32 | `u32` the evaluation scale: network output 1.0 is this many centipawns |
//! | 36 | `u32` the king layout ([`KingLayout`]: 0 plain, 1 mirrored, 2 mirrored with 4 buckets); 0 in version 1, where it was reserved |
//! | 40 | `u64` FNV-1a hash of the weights that follow (the network's name is `nn-` and its first 12 hex digits) |
//! | 48 | `i16` feature weights, `inputs x N`, one row of `N` per input |
//! | | `i16` feature biases, `N` |
//! | | `i16` output weights, `B x 2N`: for each bucket, the side to move's half then the other side's |
//! | | `i32` output biases, `B`, in units of `QA x QB` |

use std::path::Path;

use crate::error::Error;
use crate::hash::fnv1a;

use super::features::{INPUTS, KingLayout, View};
use super::simd::{self, Isa, LANES};

/// The version of the file format this engine writes; it reads this one and version 1 (which
/// knew only the plain layout).
pub const FORMAT_VERSION: u32 = 2;

const MAGIC: &[u8; 4] = b"FCNN";
const HEADER_BYTES: usize = 48;
/// The largest hidden layer a file may ask for (a 1.5 MB network in the plain layout, 6 MB with
/// four king buckets), so that a corrupt size is caught before anything is allocated.
pub const MAX_HIDDEN: usize = 1024;
/// The most output buckets (one per 4 pieces on the board).
pub const MAX_BUCKETS: usize = 8;

/// What the hidden layer does to each accumulator value before the output layer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `clamp(x, 0, QA)`.
    ClippedRelu = 1,
    /// `clamp(x, 0, QA)^2`, scaled back by `QA` (SCReLU).
    SquaredClippedRelu = 2,
}

/// The shape and scales of a network, as its header gives them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Architecture {
    /// How the perspective's king shapes the inputs.
    pub king: KingLayout,
    pub hidden: usize,
    pub buckets: usize,
    pub activation: Activation,
    pub qa: i32,
    pub qb: i32,
    pub scale: i32,
}

impl Architecture {
    /// The output bucket of a position with `pieces` pieces on the board (kings included).
    #[inline]
    pub fn bucket(&self, pieces: usize) -> usize {
        let divisor = 32usize.div_ceil(self.buckets);
        (pieces.saturating_sub(2) / divisor).min(self.buckets - 1)
    }

    fn payload_bytes(&self) -> usize {
        2 * (self.inputs() * self.hidden + self.hidden + self.buckets * 2 * self.hidden)
            + 4 * self.buckets
    }

    /// Inputs per perspective (768 per king bucket).
    pub fn inputs(&self) -> usize {
        self.king.inputs()
    }
}

/// A quantised perspective network, (768 x king buckets -> N) x 2 -> B output buckets.
#[derive(Clone, Debug)]
pub struct Network {
    architecture: Architecture,
    /// `architecture.inputs()` rows of `hidden`.
    pub(super) feature_weights: Vec<i16>,
    pub(super) feature_bias: Vec<i16>,
    /// `buckets` rows of `2 * hidden`.
    output_weights: Vec<i16>,
    output_bias: Vec<i32>,
    hash: u64,
    /// The instruction set inference uses: the widest this processor has ([`Isa::detect`]).
    isa: Isa,
    /// [`Architecture::bucket`] of every piece count, 0 to 32, looked up instead of divided.
    buckets_by_pieces: [u8; 33],
}

fn read_u32(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(bytes[offset..offset + 4].try_into().expect("4 bytes"))
}

impl Network {
    /// Reads a network file; an error names `path` and says what is wrong with it.
    pub fn load(path: &Path) -> Result<Network, Error> {
        let bytes = std::fs::read(path).map_err(|error| Error::File {
            path: path.display().to_string(),
            message: error.to_string(),
        })?;
        Network::from_bytes(&bytes).map_err(|reason| Error::InvalidNetwork {
            path: path.display().to_string(),
            reason,
        })
    }

    /// Reads a network from the bytes of a file; the error says what is wrong with them.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        if bytes.len() < HEADER_BYTES {
            return Err(format!(
                "{} bytes, shorter than the {HEADER_BYTES}-byte header",
                bytes.len()
            ));
        }
        if &bytes[..4] != MAGIC {
            return Err("not a ferrochess network (it does not start with FCNN)".to_string());
        }
        let version = read_u32(bytes, 4);
        if version != 1 && version != FORMAT_VERSION {
            return Err(format!(
                "format version {version}, this engine reads versions 1 and {FORMAT_VERSION}"
            ));
        }
        let king = match (version, read_u32(bytes, 36)) {
            (1, 0) => KingLayout::Plain,
            (1, other) => return Err(format!("reserved word {other}, 0 in format version 1")),
            (_, number) => KingLayout::from_number(number)
                .ok_or_else(|| format!("unknown king layout {number}"))?,
        };
        let inputs = read_u32(bytes, 8) as usize;
        if inputs != king.inputs() {
            return Err(format!(
                "{inputs} inputs, expected {} for the {} king layout",
                king.inputs(),
                king.name()
            ));
        }
        let hidden = read_u32(bytes, 12) as usize;
        if hidden == 0 || hidden > MAX_HIDDEN || !hidden.is_multiple_of(LANES) {
            return Err(format!(
                "hidden layer of {hidden}: must be a multiple of {LANES} up to {MAX_HIDDEN}"
            ));
        }
        let buckets = read_u32(bytes, 16) as usize;
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(format!(
                "{buckets} output buckets: must be 1 to {MAX_BUCKETS}"
            ));
        }
        let activation = match read_u32(bytes, 20) {
            1 => Activation::ClippedRelu,
            2 => Activation::SquaredClippedRelu,
            other => return Err(format!("unknown activation {other}")),
        };
        let (qa, qb, scale) = (
            read_u32(bytes, 24),
            read_u32(bytes, 28),
            read_u32(bytes, 32),
        );
        if !(1..=1024).contains(&qa) || !(1..=1024).contains(&qb) || !(1..=10_000).contains(&scale)
        {
            return Err(format!(
                "scales out of range: QA {qa}, QB {qb}, scale {scale}"
            ));
        }
        let architecture = Architecture {
            king,
            hidden,
            buckets,
            activation,
            qa: qa as i32,
            qb: qb as i32,
            scale: scale as i32,
        };
        let expected = HEADER_BYTES + architecture.payload_bytes();
        if bytes.len() != expected {
            return Err(format!(
                "{} bytes, expected {expected} for {hidden} hidden neurons and {buckets} buckets{}",
                bytes.len(),
                if bytes.len() < expected {
                    " (truncated)"
                } else {
                    ""
                }
            ));
        }
        let hash = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes"));
        let payload = &bytes[HEADER_BYTES..];
        let computed = fnv1a(payload);
        if computed != hash {
            return Err(format!(
                "the weights' hash is {computed:016x}, the header says {hash:016x} (corrupt)"
            ));
        }
        let mut words = payload
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]));
        let mut take = |count: usize| words.by_ref().take(count).collect::<Vec<i16>>();
        let feature_weights = take(inputs * hidden);
        let feature_bias = take(hidden);
        let output_weights = take(buckets * 2 * hidden);
        let output_bias = payload[payload.len() - 4 * buckets..]
            .chunks_exact(4)
            .map(|word| i32::from_le_bytes(word.try_into().expect("4 bytes")))
            .collect();
        let network = Network {
            architecture,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            hash,
            isa: Isa::detect(),
            buckets_by_pieces: std::array::from_fn(|pieces| architecture.bucket(pieces) as u8),
        };
        network.check_range()?;
        Ok(network)
    }

    /// The accumulators cannot overflow `i16` with at most 32 active inputs (all in one king
    /// bucket's 768), and for the squared
    /// activation `QA` times an output weight fits 16 bits (see [`simd::dot`]).
    fn check_range(&self) -> Result<(), String> {
        let hidden = self.architecture.hidden;
        if self.architecture.activation == Activation::SquaredClippedRelu {
            let limit = i32::from(i16::MAX) / self.architecture.qa;
            if let Some(weight) = self
                .output_weights
                .iter()
                .find(|weight| i32::from(**weight).abs() > limit)
            {
                return Err(format!(
                    "output weight {weight} is beyond {limit}, too large for QA {}",
                    self.architecture.qa
                ));
            }
        }
        for bucket in 0..self.architecture.king.buckets() {
            for neuron in 0..hidden {
                let mut largest = i64::from(self.feature_bias[neuron]).abs();
                let mut column: Vec<i64> = (bucket * INPUTS..(bucket + 1) * INPUTS)
                    .map(|input| i64::from(self.feature_weights[input * hidden + neuron]).abs())
                    .collect();
                column.sort_unstable_by(|a, b| b.cmp(a));
                largest += column.iter().take(32).sum::<i64>();
                if largest > i64::from(i16::MAX) {
                    return Err(format!(
                        "hidden neuron {neuron} can reach {largest}, beyond 16 bits"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The file's bytes, header included (what [`Network::from_bytes`] reads).
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len());
        bytes.extend_from_slice(MAGIC);
        let a = &self.architecture;
        for word in [
            FORMAT_VERSION,
            a.inputs() as u32,
            a.hidden as u32,
            a.buckets as u32,
            a.activation as u32,
            a.qa as u32,
            a.qb as u32,
            a.scale as u32,
            a.king as u32,
        ] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        bytes.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        bytes
    }

    fn payload(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(self.architecture.payload_bytes());
        for word in self
            .feature_weights
            .iter()
            .chain(&self.feature_bias)
            .chain(&self.output_weights)
        {
            payload.extend_from_slice(&word.to_le_bytes());
        }
        for word in &self.output_bias {
            payload.extend_from_slice(&word.to_le_bytes());
        }
        payload
    }

    /// A network from its quantised parts (what a trainer writes): the lengths must fit
    /// `architecture`, and the result passes the same checks as a file.
    pub fn from_parts(
        architecture: Architecture,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: Vec<i32>,
    ) -> Result<Network, String> {
        let hidden = architecture.hidden;
        if feature_weights.len() != architecture.inputs() * hidden
            || feature_bias.len() != hidden
            || output_weights.len() != architecture.buckets * 2 * hidden
            || output_bias.len() != architecture.buckets
        {
            return Err("the parts' lengths do not fit the architecture".to_string());
        }
        let network = Network {
            architecture,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            hash: 0,
            isa: Isa::Portable,
            buckets_by_pieces: [0; 33],
        };
        // One path for every check: through the bytes.
        Network::from_bytes(&network.to_bytes())
    }

    /// The quantised parts, as [`Network::from_parts`] takes them: the feature weights
    /// (`architecture().inputs()` rows of `hidden`), the feature biases, the output weights
    /// (`buckets` rows of `2 x hidden`) and the output biases (what a trainer starts from).
    pub fn parts(&self) -> (&[i16], &[i16], &[i16], &[i32]) {
        (
            &self.feature_weights,
            &self.feature_bias,
            &self.output_weights,
            &self.output_bias,
        )
    }

    /// Bucket `bucket`'s output weights (`2N`: the side to move's half, then the other's) and
    /// bias (in units of `QA x QB`).
    pub fn output_layer(&self, bucket: usize) -> (&[i16], i32) {
        let width = 2 * self.architecture.hidden;
        (
            &self.output_weights[bucket * width..(bucket + 1) * width],
            self.output_bias[bucket],
        )
    }

    pub fn architecture(&self) -> Architecture {
        self.architecture
    }

    /// The hash of the weights, as written in the header.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// `nn-` and the first 12 hex digits of the hash: the network's name.
    pub fn name(&self) -> String {
        format!("nn-{:012x}", self.hash >> 16)
    }

    /// The instruction set inference uses.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The same network, its inference done with `isa`, which this processor must support.
    pub fn with_isa(mut self, isa: Isa) -> Network {
        assert!(
            Isa::available().contains(&isa),
            "{isa:?} is not supported here"
        );
        self.isa = isa;
        self
    }

    /// The output for the accumulators of the side to move (`us`) and the other side (`them`),
    /// in centipawns for the side to move, in output bucket `bucket`.
    #[inline]
    pub fn output(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let a = &self.architecture;
        let hidden = a.hidden;
        let weights = &self.output_weights[bucket * 2 * hidden..(bucket + 1) * 2 * hidden];
        let (ours, theirs) = weights.split_at(hidden);
        let qa = a.qa as i16;
        let activation = match a.activation {
            Activation::ClippedRelu => simd::Activation::Clipped,
            Activation::SquaredClippedRelu => simd::Activation::SquaredClipped,
        };
        // The output layer's sum over both halves of the hidden layer: in units of `QA x QB`,
        // or of `QA x QA x QB` for the squared activation, divided by `QA` once here.
        let dots = simd::dot(self.isa, activation, us, ours, qa)
            + simd::dot(self.isa, activation, them, theirs, qa);
        let bias = i64::from(self.output_bias[bucket]);
        // The usual scales as constants, so that the divisions compile to multiplications; the
        // same integer arithmetic either way.
        match (a.activation, a.qa, a.qb, a.scale) {
            (Activation::SquaredClippedRelu, 255, 128, 400) => {
                ((dots / 255 + bias) * 400 / (255 * 128)) as i32
            }
            (Activation::SquaredClippedRelu, ..) => {
                ((dots / i64::from(a.qa) + bias) * i64::from(a.scale) / i64::from(a.qa * a.qb))
                    as i32
            }
            (Activation::ClippedRelu, ..) => {
                ((dots + bias) * i64::from(a.scale) / i64::from(a.qa * a.qb)) as i32
            }
        }
    }

    /// The output bucket of a position with `pieces` pieces on the board (kings included): the
    /// architecture's [`Architecture::bucket`], looked up.
    #[inline]
    pub fn bucket(&self, pieces: usize) -> usize {
        usize::from(self.buckets_by_pieces[pieces.min(32)])
    }
}

impl Network {
    /// The evaluation of `board` for the side to move, in centipawns, computed from scratch
    /// (the search updates its accumulators instead: [`super::Accumulators`]).
    pub fn evaluate(&self, board: &shakmaty::Chess) -> i32 {
        use shakmaty::Position as _;
        let hidden = self.architecture.hidden;
        let turn = board.turn();
        let king = self.architecture.king;
        let mut us = self.feature_bias.clone();
        let mut them = self.feature_bias.clone();
        let views = [
            View::of(king, turn, board.board()),
            View::of(king, !turn, board.board()),
        ];
        for (square, piece) in board.board() {
            for (view, entry) in views.iter().zip([&mut us, &mut them]) {
                let input = view.index(piece, square);
                let row = &self.feature_weights[input * hidden..(input + 1) * hidden];
                for (value, weight) in entry.iter_mut().zip(row) {
                    *value = value.wrapping_add(*weight);
                }
            }
        }
        let bucket = self.architecture.bucket(board.board().occupied().count());
        self.output(&us, &them, bucket)
    }
}
