//! # ferrochess
//!
//! A chess engine: negamax with alpha-beta and quiescence search over [shakmaty] positions, with a
//! transposition table, iterative deepening and a time manager, evaluating with a neural network
//! ([`eval::nnue`], trained on its own games by the tools crate, `tools/`) or a hand-crafted
//! evaluation ([`eval::classic`]); [`eval`] chooses which plays. This crate is the pure-Rust core;
//! the Python package `ferrochess` wraps it (the `python` feature, built by maturin).
//!
//! ```
//! use ferrochess::position::START_FEN;
//!
//! // The best move at depth 4 from the start position, in UCI notation.
//! let best = ferrochess::search::select_move::<&str>(START_FEN, &[], 4).unwrap();
//! assert!(best.is_some());
//!
//! // Fool's mate: after 1.f3 e5 2.g4 Black mates with Qh4.
//! let moves = ["f2f3", "e7e5", "g2g4"];
//! let best = ferrochess::search::select_move(START_FEN, &moves, 3).unwrap();
//! assert_eq!(best.as_deref(), Some("d8h4"));
//! ```

pub mod bench;
pub mod book;
pub mod error;
pub mod eval;
pub mod hash;
pub mod level;
pub mod limits;
pub mod perft;
pub mod position;
pub mod random;
pub mod score;
pub mod search;
pub mod tablebase;
pub mod transposition;
pub mod uci;

#[cfg(feature = "python")]
mod bindings;

pub use error::Error;
