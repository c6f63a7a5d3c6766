//! Search tunables, each with its unit. Values measured by matches get their Elo written beside them.

use std::sync::LazyLock;

use crate::score::MAX_PLY;

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

/// MVV-LVA: the victim's value counts this many times...
pub const MVV_WEIGHT: i32 = 10;
/// ...and the attacker's value, divided by this, is taken off (a tie-break among attackers).
pub const LVA_DIVISOR: i32 = 10;

/// Reverse futility pruning (static null move): at a non-PV node no deeper than this (plies)...
pub const REVERSE_FUTILITY_MAX_DEPTH: i32 = 6;
/// ...whose static evaluation beats beta by this many centipawns per ply of depth, the node fails
/// high at once.
pub const REVERSE_FUTILITY_MARGIN_CP: i32 = 75;

/// Null-move pruning from this depth (plies) on...
pub const NULL_MOVE_MIN_DEPTH: i32 = 3;
/// ...with the null move searched this many plies shallower, plus one per
/// [`NULL_MOVE_DEPTH_DIVISOR`] plies of depth.
pub const NULL_MOVE_BASE_REDUCTION: i32 = 3;
pub const NULL_MOVE_DEPTH_DIVISOR: i32 = 4;
/// ...and one more for every this many centipawns the static evaluation stands above beta, up
/// to [`NULL_MOVE_EVAL_MAX_REDUCTION`] (the further above, the shallower a search shows it).
pub const NULL_MOVE_EVAL_DIVISOR_CP: i32 = 200;
pub const NULL_MOVE_EVAL_MAX_REDUCTION: i32 = 3;

/// ProbCut: at a non-PV node at least this deep (plies), a capture whose reduced search
/// [`PROBCUT_REDUCTION`] plies shallower beats beta by [`PROBCUT_MARGIN_CP`] is taken to beat beta
/// at full depth.
pub const PROBCUT_MIN_DEPTH: i32 = 5;
pub const PROBCUT_REDUCTION: i32 = 4;
pub const PROBCUT_MARGIN_CP: i32 = 200;

/// Late move reductions: from this depth (plies) on, quiet moves after the first
/// [`LMR_MIN_MOVES`] are searched `LMR_BASE + ln(depth) * ln(move number) / LMR_DIVISOR` plies
/// shallower first (and again at full depth if they beat alpha); see [`late_move_reduction`].
pub const LMR_MIN_DEPTH: i32 = 3;
pub const LMR_MIN_MOVES: usize = 3;
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;

/// Moves per node the reduction table covers (more than any position has legal moves).
const LMR_TABLE_MOVES: usize = 256;

/// The late move reductions by depth (0 to `MAX_PLY`) and move index, computed once.
static LMR_TABLE: LazyLock<Box<[[u8; LMR_TABLE_MOVES]; MAX_PLY + 1]>> = LazyLock::new(|| {
    let mut table = Box::new([[0; LMR_TABLE_MOVES]; MAX_PLY + 1]);
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (searched, reduction) in row.iter_mut().enumerate() {
            let moves = (searched + 1) as f64;
            *reduction = (LMR_BASE + (depth as f64).ln() * moves.ln() / LMR_DIVISOR) as u8;
        }
    }
    table
});

/// How many plies shallower the `searched`-th move (0-based) is first tried at `depth` (plies).
#[inline]
pub fn late_move_reduction(depth: i32, searched: usize) -> i32 {
    let depth = depth.clamp(0, MAX_PLY as i32) as usize;
    i32::from(LMR_TABLE[depth][searched.min(LMR_TABLE_MOVES - 1)])
}

/// Futility pruning: at a non-PV node no deeper than this (plies), a quiet move that gives no
/// check is skipped when the static evaluation plus [`FUTILITY_MARGIN_CP`] per ply cannot reach
/// alpha.
pub const FUTILITY_MAX_DEPTH: i32 = 3;
pub const FUTILITY_MARGIN_CP: i32 = 100;

/// Late move pruning: at a non-PV node no deeper than this (plies), not in check, quiet moves
/// are no longer searched once `LMP_BASE_MOVES + depth * depth` of them have been.
pub const LMP_MAX_DEPTH: i32 = 8;
pub const LMP_BASE_MOVES: usize = 3;

/// Internal iterative reduction: from this depth (plies) on, a node without a table move is
/// searched one ply shallower.
pub const IIR_MIN_DEPTH: i32 = 4;

/// Aspiration windows: from this iteration depth (plies) on, a single-line search starts with a
/// window of [`ASPIRATION_WINDOW_CP`] centipawns either side of the last iteration's score,
/// doubling the margin on the failing side at each failure; past [`ASPIRATION_MAX_CP`] that side
/// opens fully.
pub const ASPIRATION_MIN_DEPTH: u32 = 5;
pub const ASPIRATION_WINDOW_CP: i32 = 25;
pub const ASPIRATION_MAX_CP: i32 = 800;

/// Mate proofs (`mate.rs`): iterations up to this depth (plies, odd) also look for every mate
/// within their depth by a full-width search, so a mate in up to 3 moves is found by the
/// iteration of depth `2N - 1` whatever the selective steps.
pub const MATE_PROOF_MAX_PLIES: i32 = 5;

/// Time management: time kept back on the clock for the GUI, the pipe or the web round trip, in
/// milliseconds, unless the caller says otherwise ([`SearchLimits::move_overhead`], UCI's
/// `Move Overhead`)...
///
/// [`SearchLimits::move_overhead`]: crate::limits::SearchLimits::move_overhead
pub const DEFAULT_MOVE_OVERHEAD_MS: u64 = 30;
/// ...at most this much (milliseconds).
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5_000;

/// Time management: moves assumed to remain until the next time control when the clock does not
/// say...
pub const DEFAULT_MOVES_TO_GO: u32 = 30;
/// ...and at most this many when it does (a long way to the control plans as a sudden death).
pub const MAX_MOVES_TO_GO_PLANNED: u32 = 50;

/// Time management: the planned share of a move is the clock (less the overhead) over the moves
/// to go plus this fraction of the increment...
pub const INCREMENT_USED: f64 = 0.75;
/// ...never more than this fraction of the clock.
pub const MAX_CLOCK_FRACTION: f64 = 0.8;
/// An iteration in progress may run on to this many shares...
pub const HARD_LIMIT_SHARES: u32 = 3;
/// ...but never past this fraction of the clock.
pub const HARD_LIMIT_CLOCK_FRACTION: f64 = 0.5;
/// A fixed move time is ended this many milliseconds early, so the move is sent within it.
pub const MOVETIME_MARGIN_MS: u64 = 1;

/// Time management: the share of the clock planned for a move is scaled by this factor, indexed
/// by the number of iterations in a row (0 to 4 and more) whose best move did not change, before
/// deciding not to start another iteration.
pub const TIME_STABILITY_FACTOR: [f64; 5] = [1.6, 1.25, 1.0, 0.85, 0.7];

/// Upper bound of a history score; the update uses "gravity" so values stay within it.
pub const HISTORY_MAX: i32 = 16_384;

/// The history bonus of a quiet move that cut off at `depth` plies (and the malus of the quiet
/// moves tried before it): growing with the square of the depth, so deep cut-offs weigh most, up
/// to [`HISTORY_BONUS_MAX`].
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    (16 * depth * depth + 32 * depth + 16).min(HISTORY_BONUS_MAX)
}
/// The largest history bonus (reached from depth 8 on), about 7% of [`HISTORY_MAX`].
pub const HISTORY_BONUS_MAX: i32 = 1_200;

/// Late move reductions: a quiet move's history (butterfly plus continuation, within
/// `±3 * HISTORY_MAX`) over this takes a ply off its reduction, or adds one when negative.
pub const LMR_HISTORY_DIVISOR: i32 = 8_192;

/// Static exchange pruning: at a non-PV node no deeper than this (plies), after the first move,
/// a capture losing more than [`SEE_CAPTURE_MARGIN_CP`] per ply of depth, or a quiet move that
/// loses more than [`SEE_QUIET_MARGIN_CP`] per squared ply, is skipped.
pub const SEE_PRUNING_MAX_DEPTH: i32 = 8;
pub const SEE_CAPTURE_MARGIN_CP: i32 = 90;
pub const SEE_QUIET_MARGIN_CP: i32 = 25;

/// Correction history: pawn structures remembered per side (a hash's slots)...
pub const CORRECTION_SLOTS: usize = 16_384;
/// ...each correction kept in 1/this centipawns...
pub const CORRECTION_GRAIN: i32 = 256;
/// ...a search of depth d weighing d + 1 (at most this) against 256 for the average so far...
pub const CORRECTION_WEIGHT_MAX: i32 = 16;
/// ...and no correction beyond this many centipawns either way.
pub const CORRECTION_MAX_CP: i32 = 96;

/// The static evaluation is multiplied by `(FIFTY_MOVE_DAMPING_PLIES - halfmove clock) /
/// FIFTY_MOVE_DAMPING_PLIES`, the clock counted up to 100: half its value when the 50-move rule
/// draws.
pub const FIFTY_MOVE_DAMPING_PLIES: i32 = 200;

/// Singular extensions: the shallowest depth that tries one.
pub const SINGULAR_MIN_DEPTH: i32 = 7;
/// How much shallower than the node the table's entry may be for its move to be tried.
pub const SINGULAR_TT_DEPTH_MARGIN: i32 = 3;
/// The other moves must stay below the table's score less this many centipawns a ply of depth
/// for its move to be singular.
pub const SINGULAR_MARGIN_CP_PER_DEPTH: i32 = 2;

/// Quiet moves per node remembered for the history malus; past them it stops (those moves were
/// tried last anyway).
pub const QUIETS_REMEMBERED: usize = 64;

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
