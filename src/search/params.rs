//! Search tunables, each with its unit. Values measured by matches get their Elo written beside them.
//! The pruning and reduction parameters a tuner may change are declared in the `tunables!` block
//! ([`TUNABLES`]): the search reads each through its accessor, a constant in a normal build and a
//! UCI option in a build with the `tune` feature (docs/tuning.md).

#[cfg(not(feature = "tune"))]
use std::sync::LazyLock;

use crate::score::MAX_PLY;

/// The `R_end` of every tunable in OpenBench's SPSA form: the learning rate the schedule ends
/// with (the common choice; docs/tuning.md).
pub const SPSA_R_END: f64 = 0.002;

/// A search parameter a tuner may change: its name (the constant's, and in a `tune` build the
/// UCI option's), default, range and step (OpenBench's `C_end`).
#[derive(Debug)]
pub struct Tunable {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub step: f64,
    #[cfg(feature = "tune")]
    cell: &'static std::sync::atomic::AtomicI32,
}

impl Tunable {
    /// The tunable called `name` (in any case).
    pub fn find(name: &str) -> Option<&'static Tunable> {
        TUNABLES.iter().find(|t| t.name.eq_ignore_ascii_case(name))
    }

    /// The value the search uses: the default, or in a `tune` build the last one set.
    pub fn value(&self) -> i32 {
        #[cfg(feature = "tune")]
        return self.cell.load(std::sync::atomic::Ordering::Relaxed);
        #[cfg(not(feature = "tune"))]
        self.default
    }

    /// Sets the value every search of this process uses from now on (a `tune` build only); a value
    /// outside the range is refused.
    #[cfg(feature = "tune")]
    pub fn set(&self, value: i32) -> Result<(), String> {
        if !(self.min..=self.max).contains(&value) {
            let (name, min, max) = (self.name, self.min, self.max);
            return Err(format!("option {name}: {value} is outside {min}..{max}"));
        }
        self.cell.store(value, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// The line of OpenBench's SPSA input: `name, int, value, min, max, C_end, R_end`.
    pub fn openbench_line(&self) -> String {
        let (name, value, min, max, step) =
            (self.name, self.value(), self.min, self.max, self.step);
        format!("{name}, int, {value}, {min}, {max}, {step}, {SPSA_R_END}")
    }
}

/// Declares the tunables: for each, the constant holding its default, the accessor the search
/// reads and its row of [`TUNABLES`] (see the declarations below).
macro_rules! tunables {
    ($(
        $(#[$meta:meta])*
        $accessor:ident: $name:ident = $default:literal, $min:literal..=$max:literal, step $step:literal;
    )*) => {
        $(
            $(#[$meta])*
            #[doc = ""]
            #[doc = concat!("The default; the search reads [`", stringify!($accessor), "`]. ")]
            #[doc = concat!("Tunable from ", stringify!($min), " to ", stringify!($max), ", step ")]
            #[doc = concat!(stringify!($step), ".")]
            pub const $name: i32 = $default;

            #[doc = concat!("[`", stringify!($name), "`]: the constant (a `tune` build: its UCI option).")]
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub fn $accessor() -> i32 {
                $name
            }

            #[doc = concat!("The value of the UCI option `", stringify!($name), "`.")]
            #[cfg(feature = "tune")]
            #[inline]
            pub fn $accessor() -> i32 {
                tuned::$name.load(std::sync::atomic::Ordering::Relaxed)
            }
        )*

        /// A `tune` build's live values: one process-wide atomic per tunable, which the UCI
        /// options set (the only global state of the engine, and only in that build).
        #[cfg(feature = "tune")]
        mod tuned {
            use std::sync::atomic::AtomicI32;
            $(pub(super) static $name: AtomicI32 = AtomicI32::new(super::$name);)*
        }

        /// Every tunable, in declaration order.
        pub static TUNABLES: &[Tunable] = &[$(
            Tunable {
                name: stringify!($name),
                default: $name,
                min: $min,
                max: $max,
                step: $step,
                #[cfg(feature = "tune")]
                cell: &tuned::$name,
            },
        )*];

        /// What each accessor returns now, in the order of [`TUNABLES`].
        #[cfg(test)]
        fn accessor_values() -> Vec<i32> {
            vec![$($accessor()),*]
        }
    };
}

/// Nodes between two looks at the clock and the stop flag.
pub const CHECK_INTERVAL_NODES: u64 = 256;

/// Nodes between two polls of the search's observer (a few milliseconds), a multiple of
/// [`CHECK_INTERVAL_NODES`]. The Python binding checks for Ctrl-C there.
pub const POLL_INTERVAL_NODES: u64 = 16_384;

/// Quiescence: when even winning a queen plus this margin (centipawns) cannot reach alpha, return at once.
pub const BIG_DELTA_CP: i32 = 1100;

/// Centipawn value of each role (Pawn..King) for move ordering and delta pruning.
pub const ORDERING_VALUE_CP: [i32; 6] = [100, 320, 330, 500, 900, 20_000];

/// MVV-LVA: the victim's value counts this many times...
pub const MVV_WEIGHT: i32 = 10;
/// ...and the attacker's value, divided by this, is taken off (a tie-break among attackers).
pub const LVA_DIVISOR: i32 = 10;

// The search's tunables: each is declared once below, with its default, the range a tuner may
// move it in and its step (the perturbation SPSA ends with, OpenBench's `C_end`). The search
// reads each through its accessor (`reverse_futility_margin_cp()`): in a normal build the
// constant itself, so the search is the same as with plain constants; in a build with the `tune`
// feature a relaxed atomic that the UCI option of the same name sets (`setoption name
// REVERSE_FUTILITY_MARGIN_CP value 80`), and the `tunables` command prints them in OpenBench's
// SPSA form. `python -m ferrochess_tools.spsa apply` rewrites the defaults here
// (docs/tuning.md).
tunables! {
    /// Quiescence: skip a capture whose victim, plus this margin in centipawns, cannot lift the
    /// static evaluation to alpha (delta pruning).
    delta_margin_cp: DELTA_MARGIN_CP = 200, 50..=400, step 15.0;

    /// Reverse futility pruning (static null move): at a non-PV node no deeper than this
    /// (plies)...
    reverse_futility_max_depth: REVERSE_FUTILITY_MAX_DEPTH = 6, 2..=12, step 0.5;
    /// ...whose static evaluation beats beta by this many centipawns per ply of depth, the node
    /// fails high at once.
    reverse_futility_margin_cp: REVERSE_FUTILITY_MARGIN_CP = 75, 20..=200, step 8.0;

    /// Null-move pruning from this depth (plies) on...
    null_move_min_depth: NULL_MOVE_MIN_DEPTH = 3, 2..=6, step 0.5;
    /// ...with the null move searched this many plies shallower, plus one per
    /// [`NULL_MOVE_DEPTH_DIVISOR`] plies of depth...
    null_move_base_reduction: NULL_MOVE_BASE_REDUCTION = 3, 1..=6, step 0.5;
    null_move_depth_divisor: NULL_MOVE_DEPTH_DIVISOR = 4, 2..=8, step 0.5;
    /// ...and one more for every this many centipawns the static evaluation stands above beta,
    /// up to [`NULL_MOVE_EVAL_MAX_REDUCTION`] (the further above, the shallower a search shows
    /// it).
    null_move_eval_divisor_cp: NULL_MOVE_EVAL_DIVISOR_CP = 200, 50..=500, step 20.0;
    null_move_eval_max_reduction: NULL_MOVE_EVAL_MAX_REDUCTION = 3, 0..=6, step 0.5;

    /// ProbCut: at a non-PV node at least this deep (plies), a capture whose reduced search
    /// [`PROBCUT_REDUCTION`] plies shallower beats beta by [`PROBCUT_MARGIN_CP`] is taken to beat
    /// beta at full depth.
    probcut_min_depth: PROBCUT_MIN_DEPTH = 5, 3..=10, step 0.5;
    probcut_reduction: PROBCUT_REDUCTION = 4, 2..=6, step 0.5;
    probcut_margin_cp: PROBCUT_MARGIN_CP = 200, 80..=400, step 15.0;

    /// Late move reductions: from this depth (plies) on, quiet moves after the first
    /// [`LMR_MIN_MOVES`] are searched `LMR_BASE_HUNDREDTHS / 100 + ln(depth) * ln(move number) /
    /// (LMR_DIVISOR_HUNDREDTHS / 100)` plies shallower first (and again at full depth if they
    /// beat alpha); see [`late_move_reduction`].
    lmr_min_depth: LMR_MIN_DEPTH = 3, 2..=6, step 0.5;
    lmr_min_moves: LMR_MIN_MOVES = 3, 1..=8, step 0.5;
    lmr_base_hundredths: LMR_BASE_HUNDREDTHS = 75, 0..=200, step 8.0;
    lmr_divisor_hundredths: LMR_DIVISOR_HUNDREDTHS = 225, 100..=400, step 12.0;
    /// Late move reductions: a quiet move's history (butterfly plus continuation, within
    /// `±3 * HISTORY_MAX`) over this takes a ply off its reduction, or adds one when negative.
    lmr_history_divisor: LMR_HISTORY_DIVISOR = 8_192, 2_048..=32_768, step 512.0;
    /// Late move reductions: plies more at a cut node (a null-window node expected to fail high).
    lmr_cut_node: LMR_CUT_NODE = 1, 0..=3, step 0.5;

    /// History pruning: at a non-PV node no deeper than this (plies), a quiet move after the
    /// first whose history (butterfly plus continuation) is below `-HISTORY_PRUNING_MARGIN` per
    /// ply of depth is skipped.
    history_pruning_max_depth: HISTORY_PRUNING_MAX_DEPTH = 3, 1..=6, step 0.5;
    history_pruning_margin: HISTORY_PRUNING_MARGIN = 2_048, 256..=8_192, step 256.0;

    /// Futility pruning: at a non-PV node no deeper than this (plies), a quiet move that gives
    /// no check is skipped when the static evaluation plus [`FUTILITY_MARGIN_CP`] per ply cannot
    /// reach alpha.
    futility_max_depth: FUTILITY_MAX_DEPTH = 3, 1..=8, step 0.5;
    futility_margin_cp: FUTILITY_MARGIN_CP = 100, 30..=250, step 8.0;

    /// Late move pruning: at a non-PV node no deeper than this (plies), not in check, quiet
    /// moves are no longer searched once `LMP_BASE_MOVES + depth * depth` of them have been.
    lmp_max_depth: LMP_MAX_DEPTH = 8, 2..=12, step 0.5;
    lmp_base_moves: LMP_BASE_MOVES = 3, 0..=10, step 0.5;

    /// Internal iterative reduction: from this depth (plies) on, a node without a table move is
    /// searched one ply shallower.
    iir_min_depth: IIR_MIN_DEPTH = 4, 2..=8, step 0.5;

    /// Aspiration windows: a single-line search from [`ASPIRATION_MIN_DEPTH`] on starts with a
    /// window of this many centipawns either side of the last iteration's score.
    aspiration_window_cp: ASPIRATION_WINDOW_CP = 25, 5..=80, step 3.0;

    /// The largest history bonus (reached from depth 8 on with the default), about 7% of
    /// [`HISTORY_MAX`]; see [`history_bonus`].
    history_bonus_max: HISTORY_BONUS_MAX = 1_200, 400..=4_000, step 100.0;

    /// Static exchange pruning: at a non-PV node no deeper than this (plies), after the first
    /// move, a capture losing more than [`SEE_CAPTURE_MARGIN_CP`] per ply of depth, or a quiet
    /// move that loses more than [`SEE_QUIET_MARGIN_CP`] per squared ply, is skipped.
    see_pruning_max_depth: SEE_PRUNING_MAX_DEPTH = 8, 2..=12, step 0.5;
    see_capture_margin_cp: SEE_CAPTURE_MARGIN_CP = 90, 20..=200, step 8.0;
    see_quiet_margin_cp: SEE_QUIET_MARGIN_CP = 25, 5..=100, step 3.0;

    /// Singular extensions: the shallowest depth that tries one.
    singular_min_depth: SINGULAR_MIN_DEPTH = 7, 4..=12, step 0.5;
    /// How much shallower than the node the table's entry may be for its move to be tried.
    singular_tt_depth_margin: SINGULAR_TT_DEPTH_MARGIN = 3, 1..=6, step 0.5;
    /// The other moves must stay below the table's score less this many centipawns a ply of
    /// depth for its move to be singular.
    singular_margin_cp_per_depth: SINGULAR_MARGIN_CP_PER_DEPTH = 2, 1..=8, step 0.5;
}

/// Moves per node the reduction table covers (more than any position has legal moves).
const LMR_TABLE_MOVES: usize = 256;

/// The late move reduction of the `searched`-th move (0-based) at `depth` plies (at least 1),
/// from the two parameters in hundredths.
fn reduction(depth: usize, searched: usize, base_hundredths: i32, divisor_hundredths: i32) -> u8 {
    let base = f64::from(base_hundredths) / 100.0;
    let divisor = f64::from(divisor_hundredths) / 100.0;
    let moves = (searched + 1) as f64;
    (base + (depth as f64).ln() * moves.ln() / divisor) as u8
}

/// The late move reductions by depth (0 to `MAX_PLY`) and move index, computed once from the
/// defaults (a `tune` build computes each reduction from the options instead).
#[cfg(not(feature = "tune"))]
static LMR_TABLE: LazyLock<Box<[[u8; LMR_TABLE_MOVES]; MAX_PLY + 1]>> = LazyLock::new(|| {
    let mut table = Box::new([[0; LMR_TABLE_MOVES]; MAX_PLY + 1]);
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (searched, entry) in row.iter_mut().enumerate() {
            *entry = reduction(depth, searched, LMR_BASE_HUNDREDTHS, LMR_DIVISOR_HUNDREDTHS);
        }
    }
    table
});

/// How many plies shallower the `searched`-th move (0-based) is first tried at `depth` (plies).
#[inline]
pub fn late_move_reduction(depth: i32, searched: usize) -> i32 {
    let depth = depth.clamp(0, MAX_PLY as i32) as usize;
    let searched = searched.min(LMR_TABLE_MOVES - 1);
    #[cfg(not(feature = "tune"))]
    return i32::from(LMR_TABLE[depth][searched]);
    #[cfg(feature = "tune")]
    return if depth == 0 {
        0
    } else {
        let (base, divisor) = (lmr_base_hundredths(), lmr_divisor_hundredths());
        i32::from(reduction(depth, searched, base, divisor))
    };
}

/// Aspiration windows: from this iteration depth (plies) on, a single-line search starts with a
/// window of [`ASPIRATION_WINDOW_CP`] centipawns either side of the last iteration's score,
/// doubling the margin on the failing side at each failure; past [`ASPIRATION_MAX_CP`] that side
/// opens fully.
pub const ASPIRATION_MIN_DEPTH: u32 = 5;
pub const ASPIRATION_MAX_CP: i32 = 800;

/// Lazy SMP's vote among the threads' results (`smp.rs`): added to each thread's score less the
/// lowest before it is weighted by depth, in centipawns (Stockfish's 14 of its internal units,
/// about 7 cp when the rule came in, Stockfish 10 to 15, whose pawn was about 210 units), so that
/// a thread that saw the lowest score still has a say.
pub const THREAD_VOTE_OFFSET_CP: i32 = 7;

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
/// to [`HISTORY_BONUS_MAX`] (tunable).
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    (16 * depth * depth + 32 * depth + 16).min(history_bonus_max())
}

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

/// Quiet moves per node remembered for the history malus; past them it stops (those moves were
/// tried last anyway).
pub const QUIETS_REMEMBERED: usize = 64;
/// Captures per node remembered for the capture history malus.
pub const CAPTURES_REMEMBERED: usize = 32;

/// Transposition table size used by the one-shot `select_move`, in megabytes: 2 MB at depth 3,
/// doubling with each ply up to 16 MB (a shallow search touches few entries, and a large table
/// costs its clearing on every call).
pub fn select_move_hash_mb(depth: u32) -> usize {
    1 << depth.saturating_sub(2).clamp(1, 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_normal_build_reads_the_defaults() {
        let defaults: Vec<i32> = TUNABLES.iter().map(|t| t.default).collect();
        if cfg!(not(feature = "tune")) {
            assert_eq!(accessor_values(), defaults);
        }
        for tunable in TUNABLES {
            assert!(
                (tunable.min..=tunable.max).contains(&tunable.default),
                "{tunable:?}"
            );
            assert!(tunable.step > 0.0, "{tunable:?}");
            let found = Tunable::find(&tunable.name.to_lowercase());
            assert_eq!(found.map(|t| t.name), Some(tunable.name));
        }
    }

    #[test]
    fn select_move_table_grows_with_depth() {
        let sizes: Vec<usize> = (1..=8).map(super::select_move_hash_mb).collect();
        assert_eq!(sizes, [2, 2, 2, 4, 8, 16, 16, 16]);
    }
}
