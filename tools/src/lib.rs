//! # ferrochess-tools
//!
//! What makes the engine but is not in it (so neither the engine library nor the wheel holds
//! it): self-play training data ([`datagen`]). Each has a binary in `src/bin/`, a thin command
//! line over the module here: `cargo run --release -p ferrochess-tools --bin NAME -- --help`.

pub mod datagen;
