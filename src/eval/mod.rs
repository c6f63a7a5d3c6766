//! How the engine evaluates a position, and which evaluation plays.
//!
//! - [`nnue`]: the neural network that plays by default ([`Evaluation::default`]: the network
//!   compiled into the engine, `src/eval/nnue/default.nnue`); how it was trained: `docs/nnue.md`.
//! - [`classic`]: the hand-crafted evaluation (material, piece-square tables, positional terms),
//!   off by default, kept as [`Evaluation::Classic`] for study and comparison.
//!
//! The searcher holds one [`Evaluation`]; the UCI options `Evaluation` and `EvalFile`, and the
//! Python `Engine`'s `evaluation` and `eval_file`, choose it.

pub mod classic;
pub mod nnue;

use std::path::Path;
use std::sync::Arc;

use crate::error::Error;
use nnue::{Network, default_network};

/// How the engine evaluates a position.
#[derive(Clone, Debug)]
pub enum Evaluation {
    /// The hand-crafted evaluation of [`classic`] (material, tables, positional terms).
    Classic,
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
    /// The network in the file at `path`; the error names the file and what is wrong with it.
    pub fn from_file(path: &Path) -> Result<Evaluation, Error> {
        Ok(Evaluation::Network(Arc::new(Network::load(path)?)))
    }

    /// `"classic"` or the network's name (`nn-` and 12 hex digits).
    pub fn name(&self) -> String {
        match self {
            Evaluation::Classic => "classic".to_string(),
            Evaluation::Network(network) => network.name(),
        }
    }

    /// The network, if this is one.
    pub fn network(&self) -> Option<&Network> {
        match self {
            Evaluation::Classic => None,
            Evaluation::Network(network) => Some(network),
        }
    }
}
