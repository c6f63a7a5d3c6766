//! Lazy SMP: helper threads search the same root as the main thread, each with its own position
//! and history, sharing only the transposition table, until the main thread is done.

use shakmaty::{Color, Move, Position as _};

use super::Searcher;
use super::context::{Context, Scope, Shared};
use super::ordering::History;
use super::params::ASPIRATION_MIN_DEPTH;
use super::report::{SearchInfo, SearchObserver, Silent};
use crate::error::Error;
use crate::eval::classic;
use crate::limits::{MAX_DEPTH, SearchLimits, StopFlag, TimeManager};
use crate::position::Position;

/// Raises its flag when dropped.
struct RaiseOnDrop<'a>(&'a StopFlag);

impl Drop for RaiseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

impl Searcher {
    /// Searches `position` (its current position becomes the root) within `limits`, `multipv`
    /// lines, never trying a root move in `excluded` (excluding every legal move is an error:
    /// there would be nothing to play), on [`Searcher::threads`] threads, reporting to
    /// `observer`, which can also end the search. `stop` may be raised by another thread; the
    /// caller resets it before the search (a flag raised earlier ends this search at once).
    pub(super) fn search_lines(
        &mut self,
        position: &mut Position,
        limits: &SearchLimits,
        multipv: usize,
        excluded: &[Move],
        stop: &StopFlag,
        observer: &mut dyn SearchObserver,
    ) -> Result<SearchInfo, Error> {
        let legal = position.board().legal_moves();
        let root_moves: Vec<Move> = legal
            .iter()
            .filter(|m| !excluded.contains(m))
            .copied()
            .collect();
        if root_moves.is_empty() && !legal.is_empty() {
            let shown: Vec<String> = excluded.iter().map(|m| position.move_to_uci(*m)).collect();
            return Err(Error::argument(
                "exclude_moves",
                shown.join(" "),
                format!("excludes every legal move of '{}'", position.fen()),
            ));
        }
        position.set_root();
        self.table.new_search();
        let root_restricted = root_moves.len() < legal.len();
        let shared = Shared::default();
        let helpers = if root_moves.len() > 1 {
            self.threads - 1
        } else {
            0
        };
        let helper_states: Vec<(Position, History)> = (0..helpers)
            .map(|_| (position.clone(), self.history.clone()))
            .collect();
        let scope = Scope {
            table: &self.table,
            stop,
            shared: &shared,
            tablebase: self.tablebase.as_deref(),
            switches: self.switches,
            network: self.evaluation.network(),
            classic: self
                .evaluation
                .classic_weights()
                .unwrap_or(&classic::DEFAULT_WEIGHTS),
            root_restricted,
            max_nodes: limits.nodes,
        };
        let history = &mut self.history;
        let info = std::thread::scope(|threads| {
            for (index, (mut position, mut history)) in helper_states.into_iter().enumerate() {
                let root_moves = root_moves.clone();
                let max_depth = limits.depth.unwrap_or(MAX_DEPTH);
                threads.spawn(move || {
                    let mut observer = Silent;
                    let untimed = TimeManager::new(&SearchLimits::default(), Color::White);
                    let mut context =
                        Context::new(scope, &mut position, &mut history, untimed, &mut observer);
                    context.helper = true;
                    context.help(root_moves, max_depth, index + 1);
                });
            }
            let time = TimeManager::new(limits, position.board().turn());
            let mut context = Context::new(scope, position, history, time, observer);
            // The helpers stop when the main thread is done, even if it unwinds from a panic
            // (the scope waits for them before passing the panic on).
            let _finish = RaiseOnDrop(&shared.finished);
            context.iterate(root_moves, limits, multipv)
        });
        Ok(info)
    }
}

impl Context<'_> {
    /// A helper thread's iterative deepening: the main thread's, without reports or time limits,
    /// odd helpers one ply deeper (so the threads spread over two depths), until stopped.
    fn help(&mut self, mut root_moves: Vec<Move>, max_depth: u32, index: usize) {
        let mut previous = None;
        for depth in 1 + (index as u32 % 2)..=max_depth {
            let result = self.search_root_aspirated(depth as i32, &root_moves, &[], previous);
            if self.stopped {
                break;
            }
            if let Some((score, pv)) = result {
                previous = (depth >= ASPIRATION_MIN_DEPTH).then_some(score);
                if let Some(position) = root_moves.iter().position(|&m| m == pv[0]) {
                    root_moves[..=position].rotate_right(1);
                }
            }
        }
    }
}
