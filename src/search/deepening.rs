//! Iterative deepening at the root: one iteration per depth, each starting from an aspiration
//! window around the last score, several lines for MultiPV, and the time spent following the best
//! move's stability.

use shakmaty::{Chess, Move, Position as _};

use super::context::Context;
use super::mate::MateProofs;
use super::ordering::PieceTo;
use super::params::{
    ASPIRATION_MAX_CP, ASPIRATION_MIN_DEPTH, TIME_STABILITY_FACTOR, aspiration_window_cp,
};
use super::report::{Line, SearchInfo};
use crate::limits::{MAX_DEPTH, SearchLimits};
use crate::position::polyglot_key;
use crate::score::{Score, ScoreKind};
use crate::transposition::{Bound, PackedMove};

impl Context<'_> {
    /// The main thread's iterative deepening over `root_moves` within `limits`, `multipv` lines,
    /// reporting each iteration to the observer.
    pub(super) fn iterate(
        &mut self,
        mut root_moves: Vec<Move>,
        limits: &SearchLimits,
        multipv: usize,
    ) -> SearchInfo {
        let context = self;
        let mut info = context.info(0, Vec::new());
        if root_moves.is_empty() {
            return info;
        }
        // A single legal move under a clock needs no thought beyond a score.
        let forced = root_moves.len() == 1 && limits.movetime.is_none() && context.time.is_timed();
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH);
        let lines_wanted = multipv.min(root_moves.len());

        // Iterations in a row that kept the same best move, which sets the time spent (against
        // a fixed share of the clock: +40 Elo, 95% +3..+77; measured as in negamax.rs).
        let mut stable_iterations = 0;
        let mut last_best = None;
        let mut proofs = MateProofs::default();
        for depth in 1..=max_depth {
            // Short mates proven in full width, which the selective search may not see yet (the
            // 368 mates of tests/data/mates.epd all found at depth 2N - 1; +19 Elo, 95% -7..+44,
            // over 300 games at 5 s + 0.05 s: docs/benchmarks-history.md, "Mate proofs").
            context.prove_mates(&mut proofs, depth, &root_moves, lines_wanted);
            if context.stopped {
                break;
            }
            let mut lines: Vec<Line> = Vec::with_capacity(lines_wanted);
            let mut excluded: Vec<Move> = Vec::with_capacity(lines_wanted);
            while lines.len() < lines_wanted {
                // Aspiration: one line, deep enough, starts from a window around the last
                // iteration's score (+21 Elo, 95% -7..+49, over 300 games; measured as in
                // negamax.rs).
                let previous = (lines_wanted == 1 && depth >= ASPIRATION_MIN_DEPTH)
                    .then(|| info.lines.first().map(|line| line.score))
                    .flatten();
                match context.search_root_aspirated(depth as i32, &root_moves, &excluded, previous)
                {
                    Some((score, pv)) if !context.stopped => {
                        excluded.push(pv[0]);
                        let pv = context.complete_line(pv, depth as usize);
                        debug_assert!(
                            is_legal_line(context.position.board(), &pv),
                            "an illegal line {pv:?} at depth {depth}"
                        );
                        debug_assert!(
                            -Score::INFINITE < score && score < Score::INFINITE,
                            "a root score {score:?} outside the score range"
                        );
                        lines.push(Line { score, pv });
                    }
                    _ => break,
                }
            }
            if context.stopped {
                break;
            }
            lines.sort_by_key(|line| std::cmp::Reverse(line.score));
            proofs.merge_into(&mut lines, lines_wanted);
            // Search the best moves first next time.
            let ranked: Vec<Move> = lines.iter().map(|line| line.pv[0]).collect();
            root_moves.sort_by_key(|m| ranked.iter().position(|r| r == m).unwrap_or(usize::MAX));
            info = context.info(depth, lines);
            if !context.observer.on_iteration(&info) {
                break;
            }
            let best_move = info.lines[0].pv[0];
            stable_iterations = if last_best == Some(best_move) {
                stable_iterations + 1
            } else {
                0
            };
            last_best = Some(best_move);
            let time_factor =
                TIME_STABILITY_FACTOR[stable_iterations.min(TIME_STABILITY_FACTOR.len() - 1)];
            let best = info.lines[0].score;
            let mate_found = match (best.kind(), limits.mate) {
                (ScoreKind::Mate(moves), Some(wanted)) => moves > 0 && moves as u32 <= wanted,
                _ => false,
            };
            if mate_found
                || forced
                || context.stop.is_stopped()
                || context.time.soft_limit_reached(time_factor)
                || context.out_of_nodes()
            {
                break;
            }
        }

        if !proofs.lines.is_empty() {
            // Stopped after a proof but before its iteration ended: the proof holds.
            proofs.merge_into(&mut info.lines, lines_wanted);
        }
        if info.lines.is_empty() {
            // Stopped inside the first iteration: the best root move found so far, else the first.
            let (m, score) = context
                .root_best
                .unwrap_or_else(|| (root_moves[0], context.evaluate()));
            info = context.info(0, vec![Line { score, pv: vec![m] }]);
        } else {
            let lines = std::mem::take(&mut info.lines);
            info = context.info(info.depth, lines);
        }
        info
    }

    /// `line` (from the root) lengthened, up to `length` moves, by the moves the transposition
    /// table stores for the positions it reaches: the triangular PV stops where a table hit ended
    /// a node early. Stops at a missing or illegal move, the end of the game or a repetition.
    pub(super) fn complete_line(&self, mut line: Vec<Move>, length: usize) -> Vec<Move> {
        if !self.switches.transposition_table {
            return line;
        }
        let mut board = self.position.board().clone();
        let mut seen = vec![polyglot_key(&board)];
        for &m in &line {
            board.play_unchecked(m);
            seen.push(polyglot_key(&board));
        }
        while line.len() < length {
            let Some(entry) = self.table.probe(*seen.last().expect("not empty")) else {
                break;
            };
            let Some(m) = board
                .legal_moves()
                .into_iter()
                .find(|&m| !entry.best_move.is_none() && PackedMove::new(m) == entry.best_move)
            else {
                break;
            };
            board.play_unchecked(m);
            let key = polyglot_key(&board);
            if seen.contains(&key) {
                break;
            }
            seen.push(key);
            line.push(m);
        }
        line
    }

    /// [`Context::search_root`] with a full window, or, given the last iteration's score, first
    /// with a window of [`aspiration_window_cp`] around it, widened on the failing side (doubling
    /// each time) until the score falls inside.
    pub(super) fn search_root_aspirated(
        &mut self,
        depth: i32,
        root_moves: &[Move],
        excluded: &[Move],
        previous: Option<Score>,
    ) -> Option<(Score, Vec<Move>)> {
        let full = (-Score::INFINITE, Score::INFINITE);
        let Some(previous) = previous
            .filter(|score| self.switches.alpha_beta && !score.is_mate() && !score.is_tablebase())
        else {
            return self.search_root(depth, root_moves, excluded, full);
        };
        let mut delta = aspiration_window_cp();
        let mut alpha = Score::centipawns(previous.value() - delta);
        let mut beta = Score::centipawns(previous.value() + delta);
        loop {
            let result = self.search_root(depth, root_moves, excluded, (alpha, beta));
            if self.stopped {
                return result;
            }
            delta *= 2;
            let widen = |score: i32| {
                if delta > ASPIRATION_MAX_CP {
                    None
                } else {
                    Some(Score::centipawns(score))
                }
            };
            match result {
                // Failed low: every move is at most alpha.
                None => alpha = widen(alpha.value() - delta).unwrap_or(full.0),
                // Failed high: the best move is at least beta.
                Some((score, _)) if score >= beta => {
                    beta = widen(beta.value() + delta).unwrap_or(full.1);
                }
                found => return found,
            }
        }
    }

    /// Searches every root move not in `excluded`, in the given order, within the window
    /// `alpha..beta`. Returns the best score and line when a move scored above `alpha` (a score
    /// at or above `beta` is a lower bound: the search stopped there), or `None` when none did
    /// (every score is an upper bound) or when stopped before the first move finished.
    pub(super) fn search_root(
        &mut self,
        depth: i32,
        root_moves: &[Move],
        excluded: &[Move],
        window: (Score, Score),
    ) -> Option<(Score, Vec<Move>)> {
        let (mut alpha, beta) = window;
        let mut best: Option<(Score, Vec<Move>)> = None;
        self.root_depth = depth;
        self.pv.clear(0);
        for (index, &m) in root_moves
            .iter()
            .filter(|m| !excluded.contains(m))
            .enumerate()
        {
            self.frames[0].moved = Some(PieceTo::new(self.position.board().turn(), m));
            self.position.push(m);
            // Principal variation search: after the first move, a null window shows whether a
            // move beats the best so far; only then is it searched with the full window (with
            // the null windows inside the tree: +168 Elo, see Step 14c).
            let mut score = None;
            if index > 0 && self.switches.alpha_beta {
                let probe = -self.negamax(depth - 1, -alpha - 1, -alpha, true);
                if probe <= alpha || self.stopped {
                    score = Some(probe);
                }
            }
            let score = match score {
                Some(score) => score,
                None => {
                    let (child_alpha, child_beta) = self.child_window(alpha, beta);
                    -self.negamax(depth - 1, child_alpha, child_beta, false)
                }
            };
            self.position.pop();
            if self.stopped {
                break;
            }
            if score > alpha {
                alpha = score;
                self.pv.update(0, m);
                best = Some((score, self.pv.line(0).to_vec()));
                self.root_best = Some((m, score));
                if score >= beta && self.switches.alpha_beta {
                    break;
                }
            }
        }
        if let Some((score, line)) = &best
            && *score < beta
            && excluded.is_empty()
            && !self.root_restricted
            && !self.stopped
            && self.switches.transposition_table
        {
            let key = self.position.key();
            let packed = PackedMove::new(line[0]);
            self.table
                .store(key, packed, score.to_tt(0), depth, Bound::Exact, None);
        }
        best
    }
}

/// Whether every move of `line` is legal, each in the position the ones before it reach.
pub(super) fn is_legal_line(board: &Chess, line: &[Move]) -> bool {
    let mut board = board.clone();
    line.iter().all(|&m| {
        let legal = board.is_legal(m);
        if legal {
            board.play_unchecked(m);
        }
        legal
    })
}
