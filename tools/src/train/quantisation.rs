//! The scales between the float network the trainer fits and the integers of the engine's
//! network file, and the limits that keep every quantised weight in range.

/// The first layer's quantisation scale (the activation clips at `QA`).
pub(crate) const QA: i32 = 255;
/// The output weights' quantisation scale: 128 rather than 64 because trained output weights
/// are small (largest about 0.36 on the first data), so a step of 1/64 cost about 6 cp of
/// rounding on average.
pub(crate) const QB: i32 = 128;
/// Network output 1.0 is this many centipawns; also the score's scale in the target.
pub(crate) const SCALE: f32 = 400.0;
/// Every parameter stays within this: 33 x round(1.98 x 255) = 16,665 fits `i16`.
pub(crate) const WEIGHT_LIMIT: f32 = 1.98;
/// The output weights stay within this: round(0.99 x 128) = 127 is within 32767 / `QA` = 128
/// (the loader's check for the squared activation).
pub(crate) const OUTPUT_WEIGHT_LIMIT: f32 = 0.99;
