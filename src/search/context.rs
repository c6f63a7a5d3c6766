//! The per-call state of one search ([`Context`]): everything that lives only as long as one
//! search, on one thread, and the checks every node makes (limits, the stop flag).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Line;
use super::ordering::{Continuation, History, Killers, PieceTo};
use super::params::{CHECK_INTERVAL_NODES, FIFTY_MOVE_DAMPING_PLIES, POLL_INTERVAL_NODES};
use super::pv::PvTable;
use super::report::{SearchInfo, SearchObserver, SearchStats};
use super::switches::SearchSwitches;
use crate::eval::classic::{self, ClassicWeights};
use crate::eval::nnue::{Accumulators, Network};
use crate::limits::{StopFlag, TimeManager};
use crate::position::{FIFTY_MOVE_PLIES, Position};
use crate::score::{MAX_PLY, Score};
use crate::tablebase::Tablebases;
use crate::transposition::TranspositionTable;
use shakmaty::{Move, Position as _};

/// The largest evaluation a network (or a hand-crafted evaluation with weights of one's own) may
/// give, in centipawns: well inside the ordinary scores (tablebase wins start at 20,000 less the
/// longest line).
pub(super) const MAX_NETWORK_CP: i32 = 15_000;

/// What the threads of one search share besides the transposition table.
#[derive(Default)]
pub(super) struct Shared {
    /// Raised when the main thread is done: the helpers stop.
    pub(super) finished: StopFlag,
    /// Nodes searched by the helpers so far (added in batches of
    /// [`CHECK_INTERVAL_NODES`](super::params::CHECK_INTERVAL_NODES)).
    pub(super) helper_nodes: AtomicU64,
    /// Each helper's last completed iteration, its depth, selective depth and best line, by
    /// helper number less one (one entry per helper, `None` until it completes one), for the
    /// choice among the threads' results.
    pub(super) completed: Mutex<Vec<Option<(u32, u32, Line)>>>,
}

/// What every thread of one search shares and reads: the table, the flags, the tables of
/// endgames, the switches and the limits that are not about time.
#[derive(Clone, Copy)]
pub(super) struct Scope<'a> {
    pub(super) table: &'a TranspositionTable,
    pub(super) stop: &'a StopFlag,
    pub(super) shared: &'a Shared,
    pub(super) tablebase: Option<&'a Tablebases>,
    pub(super) switches: SearchSwitches,
    /// The network that evaluates positions; `None`: the hand-crafted evaluation.
    pub(super) network: Option<&'a Network>,
    /// The hand-crafted evaluation's weights, read when `network` is `None`.
    pub(super) classic: &'a ClassicWeights,
    /// Some legal root moves are left out, so the root's result is not the position's value.
    pub(super) root_restricted: bool,
    pub(super) max_nodes: Option<u64>,
}

/// What the search remembers of each ply of the line it is on.
#[derive(Copy, Clone, Default)]
pub(super) struct Frame {
    /// The move played from this ply (`None`: a null move, or none yet).
    pub(super) moved: Option<PieceTo>,
    /// The node's static evaluation, corrected (`None`: in check, or not evaluated).
    pub(super) eval: Option<Score>,
    /// The move left out while a singular extension's search looks at this ply's other moves.
    pub(super) excluded: Option<Move>,
}

/// Everything one search owns while it runs.
pub(super) struct Context<'a> {
    pub(super) position: &'a mut Position,
    pub(super) table: &'a TranspositionTable,
    pub(super) history: &'a mut History,
    pub(super) killers: Killers,
    /// One frame per ply of the line searched.
    pub(super) frames: Vec<Frame>,
    pub(super) pv: PvTable,
    pub(super) stop: &'a StopFlag,
    pub(super) shared: &'a Shared,
    /// A helper thread of a lazy SMP search (see [`Context::help`]).
    pub(super) helper: bool,
    pub(super) time: TimeManager,
    pub(super) max_nodes: Option<u64>,
    pub(super) nodes: u64,
    pub(super) seldepth: usize,
    /// The nominal depth of the iteration in progress, which bounds the extensions.
    pub(super) root_depth: i32,
    /// Set once a limit is hit; every node then returns at once and its score is ignored.
    pub(super) stopped: bool,
    /// Some legal root moves are left out, so the root's result is not the position's value.
    pub(super) root_restricted: bool,
    /// Probed after zeroing moves; `None` without tables, or once a table failed to be read.
    pub(super) tablebase: Option<&'a Tablebases>,
    pub(super) switches: SearchSwitches,
    /// The network and this thread's accumulators along the line searched.
    pub(super) network: Option<(&'a Network, Accumulators)>,
    /// The hand-crafted evaluation's weights, read without a network.
    pub(super) classic: &'a ClassicWeights,
    pub(super) tbhits: u64,
    pub(super) tablebase_error: Option<String>,
    /// Best root move of the iteration in progress, for a search stopped during its first iteration.
    pub(super) root_best: Option<(Move, Score)>,
    pub(super) stats: SearchStats,
    pub(super) observer: &'a mut dyn SearchObserver,
}

impl<'a> Context<'a> {
    /// The state of one thread's search of `position` (its current position is the root).
    pub(super) fn new(
        scope: Scope<'a>,
        position: &'a mut Position,
        history: &'a mut History,
        time: TimeManager,
        observer: &'a mut dyn SearchObserver,
    ) -> Context<'a> {
        Context {
            position,
            table: scope.table,
            history,
            killers: Killers::default(),
            frames: vec![Frame::default(); MAX_PLY + 1],
            pv: PvTable::default(),
            stop: scope.stop,
            shared: scope.shared,
            helper: false,
            time,
            max_nodes: scope.max_nodes,
            nodes: 0,
            seldepth: 0,
            root_depth: 0,
            stopped: false,
            tablebase: scope.tablebase,
            switches: scope.switches,
            network: scope
                .network
                .map(|network| (network, Accumulators::new(network))),
            classic: scope.classic,
            tbhits: 0,
            tablebase_error: None,
            root_restricted: scope.root_restricted,
            root_best: None,
            stats: SearchStats::default(),
            observer,
        }
    }
}

impl Context<'_> {
    /// Whether the search must end now: stop flag, node limit, hard time limit or the observer.
    #[inline]
    pub(super) fn should_stop(&mut self) -> bool {
        let checkpoint = self.nodes.is_multiple_of(CHECK_INTERVAL_NODES);
        if self.helper && checkpoint {
            self.shared
                .helper_nodes
                .fetch_add(CHECK_INTERVAL_NODES, Ordering::Relaxed);
        }
        if !self.stopped
            && (self.out_of_nodes()
                || (checkpoint
                    && (self.stop.is_stopped()
                        || self.shared.finished.is_stopped()
                        || self.time.hard_limit_reached()
                        || (self.nodes.is_multiple_of(POLL_INTERVAL_NODES)
                            && self.observer.interrupted()))))
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// What every node assumes, checked in debug builds (`cargo test`): a window with room in it,
    /// inside the score range, and a ply inside the stacks (PV, killers).
    #[inline]
    pub(super) fn debug_check_node(&self, alpha: Score, beta: Score) {
        debug_assert!(alpha < beta, "empty window {alpha:?}..{beta:?}");
        debug_assert!(
            -Score::INFINITE <= alpha && beta <= Score::INFINITE,
            "window {alpha:?}..{beta:?} outside the score range"
        );
        debug_assert!(
            self.position.ply() < MAX_PLY,
            "ply {} beyond the stacks",
            self.position.ply()
        );
    }

    #[inline]
    pub(super) fn out_of_nodes(&self) -> bool {
        self.max_nodes.is_some_and(|max| self.total_nodes() >= max)
    }

    /// Nodes searched by all threads: this one's exactly, the helpers' to a batch.
    #[inline]
    fn total_nodes(&self) -> u64 {
        if self.helper {
            self.nodes
        } else {
            self.nodes + self.shared.helper_nodes.load(Ordering::Relaxed)
        }
    }

    /// The window to search a child with: the negated `alpha..beta`, or the full window when
    /// alpha-beta is off (then nothing is ever cut off).
    #[inline]
    pub(super) fn child_window(&self, alpha: Score, beta: Score) -> (Score, Score) {
        if self.switches.alpha_beta {
            (-beta, -alpha)
        } else {
            (-Score::INFINITE, Score::INFINITE)
        }
    }

    /// The static evaluation of the current position for the side to move: the network's (kept
    /// within the ordinary scores, below tablebase wins and mates) or the hand-crafted one. With
    /// the selective search on, it is shrunk towards a draw as the 50-move rule nears (by half at
    /// its 100th half-move), so the search prefers progress to shuffling in a won position.
    #[inline]
    pub(super) fn evaluate(&mut self) -> Score {
        let value = self.static_value(None);
        self.damped(value)
    }

    /// The evaluation before the 50-move damping, in centipawns: `cached` when the table
    /// remembers it for this position (the same value: the position is the same), else computed.
    #[inline]
    pub(super) fn static_value(&mut self, cached: Option<i32>) -> i32 {
        if let Some(value) = cached {
            return value;
        }
        self.stats.evaluations += 1;
        match &mut self.network {
            Some((network, accumulators)) => accumulators
                .evaluate(network, self.position)
                .clamp(-MAX_NETWORK_CP, MAX_NETWORK_CP),
            None => classic::evaluate_with(self.position.board(), self.classic)
                .value()
                .clamp(-MAX_NETWORK_CP, MAX_NETWORK_CP),
        }
    }

    /// `value` shrunk as the 50-move rule nears (with the selective search on), as a score.
    #[inline]
    pub(super) fn damped(&self, value: i32) -> Score {
        if !self.switches.selective() {
            return Score::centipawns(value);
        }
        // The clock is clamped before it becomes an i32: a FEN may give any u32.
        let clock = self.position.board().halfmoves();
        let halfmoves = clock.min(FIFTY_MOVE_PLIES) as i32;
        Score::centipawns(value * (FIFTY_MOVE_DAMPING_PLIES - halfmoves) / FIFTY_MOVE_DAMPING_PLIES)
    }

    /// The static evaluation with the correction history's correction for its pawn structure,
    /// kept within the ordinary scores.
    #[inline]
    pub(super) fn corrected(&self, raw: Score) -> Score {
        let board = self.position.board();
        let correction = self.history.correct(board.board(), board.turn());
        Score::centipawns((raw.value() + correction).clamp(-MAX_NETWORK_CP, MAX_NETWORK_CP))
    }

    /// The moves played one and two plies before `ply` on this line.
    #[inline]
    pub(super) fn previous_moves(&self, ply: usize) -> Continuation {
        let before = |back: usize| ply.checked_sub(back).and_then(|p| self.frames[p].moved);
        [before(1), before(2)]
    }

    pub(super) fn info(&self, depth: u32, lines: Vec<Line>) -> SearchInfo {
        SearchInfo {
            depth,
            seldepth: self.seldepth.max(depth as usize) as u32,
            nodes: self.total_nodes(),
            elapsed: self.time.elapsed(),
            hashfull: self.table.hashfull(),
            tbhits: self.tbhits,
            lines,
            stats: self.stats.clone(),
            tablebase_error: self.tablebase_error.clone(),
        }
    }
}
