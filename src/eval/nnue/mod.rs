//! The neural evaluation (NNUE): a perspective network, (768 -> N) x 2 -> 1, with quantised
//! integer weights and accumulators updated incrementally as the search makes moves.
//!
//! - [`features`]: the 768 inputs (piece, square) seen from each side.
//! - [`network`]: the file format, loading with its checks, and the integer output layer.
//! - [`accumulator`]: the hidden layer kept up to date along the search's line.
//! - [`simd`]: the update and output loops for each instruction set, chosen at run time.
//!
//! The engine plays with the network compiled into it ([`default_network`], chosen by
//! [`Evaluation::default`](crate::eval::Evaluation::default)); another can be loaded from a file.
//! How the network was trained: `docs/nnue.md`.

pub mod accumulator;
pub mod features;
pub mod network;
pub mod simd;
#[cfg(test)]
mod tests;

use std::sync::{Arc, LazyLock};

pub use accumulator::Accumulators;
pub use network::{Activation, Architecture, FORMAT_VERSION, Network};

/// The name of the compiled-in network (`nn-` and its hash's first 12 hex digits), checked by
/// the tests so that the file and its record in `docs/nnue.md` cannot drift apart.
pub const DEFAULT_NETWORK_NAME: &str = "nn-2ce2517c4f46";

/// The network compiled into the engine (see `docs/nnue.md` for its record).
static DEFAULT_NETWORK_BYTES: &[u8] = include_bytes!("default.nnue");

static DEFAULT_NETWORK: LazyLock<Arc<Network>> = LazyLock::new(|| {
    Arc::new(
        Network::from_bytes(DEFAULT_NETWORK_BYTES)
            .expect("the compiled-in network is checked by the tests"),
    )
});

/// The compiled-in network, shared.
pub fn default_network() -> Arc<Network> {
    Arc::clone(&DEFAULT_NETWORK)
}
