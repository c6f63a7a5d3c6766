//! Search tunables, each with its unit. Values measured by matches get their Elo written beside them.

/// Nodes between two looks at the clock and the stop flag.
pub const CHECK_INTERVAL_NODES: u64 = 256;

/// Nodes between two polls of the search's observer (a few milliseconds), a multiple of
/// [`CHECK_INTERVAL_NODES`]. The Python binding checks for Ctrl-C there.
pub const POLL_INTERVAL_NODES: u64 = 16_384;

/// Quiescence: skip a capture whose victim, plus this margin in centipawns, cannot lift the static
/// evaluation to alpha (delta pruning).
pub const DELTA_MARGIN_CP: i32 = 200;

/// Quiescence: when even winning a queen plus this margin (centipawns) cannot reach alpha, return at once.
pub const BIG_DELTA_CP: i32 = 1100;

/// Centipawn value of each role (Pawn..King) for move ordering and delta pruning.
pub const ORDERING_VALUE_CP: [i32; 6] = [100, 320, 330, 500, 900, 20_000];

/// Upper bound of a history score; the update uses "gravity" so values stay within it.
pub const HISTORY_MAX: i32 = 16_384;

/// Transposition table size used by the one-shot `select_move`, in megabytes: 2 MB at depth 3,
/// doubling with each ply up to 16 MB (a shallow search touches few entries, and a large table
/// costs its clearing on every call).
pub fn select_move_hash_mb(depth: u32) -> usize {
    1 << depth.saturating_sub(2).clamp(1, 4)
}

#[cfg(test)]
mod tests {
    #[test]
    fn select_move_table_grows_with_depth() {
        let sizes: Vec<usize> = (1..=8).map(super::select_move_hash_mb).collect();
        assert_eq!(sizes, [2, 2, 2, 4, 8, 16, 16, 16]);
    }
}
