//! Search tunables, each with its unit. Values measured by matches get their Elo written beside them.

/// Nodes between two looks at the clock and the stop flag.
pub const CHECK_INTERVAL_NODES: u64 = 256;

/// Quiescence: skip a capture whose victim, plus this margin in centipawns, cannot lift the static
/// evaluation to alpha (delta pruning).
pub const DELTA_MARGIN_CP: i32 = 200;

/// Quiescence: when even winning a queen plus this margin (centipawns) cannot reach alpha, return at once.
pub const BIG_DELTA_CP: i32 = 1100;

/// Centipawn value of each role (Pawn..King) for move ordering and delta pruning.
pub const ORDERING_VALUE_CP: [i32; 6] = [100, 320, 330, 500, 900, 20_000];

/// Upper bound of a history score; the update uses "gravity" so values stay within it.
pub const HISTORY_MAX: i32 = 16_384;

/// Transposition table size used by the one-shot `select_move`, in megabytes.
pub const SELECT_MOVE_HASH_MB: usize = 16;
