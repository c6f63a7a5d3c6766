//! How the engine evaluates a position, and which evaluation plays.
//!
//! - [`nnue`]: the neural network that plays by default ([`Evaluation::default`]: the network
//!   compiled into the engine, `src/eval/nnue/default.nnue`); how it was trained: `docs/nnue.md`.
//! - [`classic`]: the hand-crafted evaluation (material, piece-square tables, positional terms),
//!   off by default, kept as [`Evaluation::Classic`] for study and comparison, with its default
//!   weights or any others ([`classic::ClassicWeights`]).
//!
//! The searcher holds one [`Evaluation`]; the UCI options `Evaluation` and `EvalFile`, and the
//! Python `Engine`'s `evaluation` and `eval_file`, choose it.

pub mod classic;
pub mod nnue;

use std::path::Path;
use std::sync::Arc;

use crate::error::Error;
use classic::ClassicWeights;
use nnue::{Network, default_network};

/// How the engine evaluates a position.
#[derive(Clone, Debug)]
pub enum Evaluation {
    /// The hand-crafted evaluation of [`classic`] (material, tables, positional terms) with
    /// these weights ([`Evaluation::classic`]: the default ones).
    Classic(Arc<ClassicWeights>),
    /// A network.
    Network(Arc<Network>),
}

impl Default for Evaluation {
    /// The compiled-in network.
    fn default() -> Evaluation {
        Evaluation::Network(default_network())
    }
}

impl Evaluation {
    /// The hand-crafted evaluation with its default weights.
    pub fn classic() -> Evaluation {
        Evaluation::Classic(Arc::new(ClassicWeights::default()))
    }

    /// The network in the file at `path`; the error names the file and what is wrong with it.
    pub fn from_file(path: &Path) -> Result<Evaluation, Error> {
        Ok(Evaluation::Network(Arc::new(Network::load(path)?)))
    }

    /// `"classic"` (the default weights), `classic-` and 12 hex digits for other weights (see
    /// [`ClassicWeights::name`]), or the network's name (`nn-` and 12 hex digits).
    pub fn name(&self) -> String {
        match self {
            Evaluation::Classic(weights) => weights.name(),
            Evaluation::Network(network) => network.name(),
        }
    }

    /// The network, if this is one.
    pub fn network(&self) -> Option<&Network> {
        match self {
            Evaluation::Classic(_) => None,
            Evaluation::Network(network) => Some(network),
        }
    }

    /// The hand-crafted evaluation's weights, if this is it.
    pub fn classic_weights(&self) -> Option<&ClassicWeights> {
        match self {
            Evaluation::Classic(weights) => Some(weights),
            Evaluation::Network(_) => None,
        }
    }
}
