//! The main search: negamax with alpha-beta, a transposition table and a check extension.

use arrayvec::ArrayVec;
use shakmaty::{Move, Position as _};

use super::Context;
use super::ordering::{is_quiet, pick_next, score_moves};
use crate::score::{MAX_PLY, Score};
use crate::tablebase::Wdl;
use crate::transposition::{Bound, PackedMove};

impl Context<'_> {
    /// Searches every root move not in `excluded`, in the given order, with a full window.
    /// Returns the best score and line, or `None` when stopped before the first move finished.
    pub(super) fn search_root(
        &mut self,
        depth: i32,
        root_moves: &[Move],
        excluded: &[Move],
    ) -> Option<(Score, Vec<Move>)> {
        let beta = Score::INFINITE;
        let mut alpha = -Score::INFINITE;
        let mut best: Option<(Score, Vec<Move>)> = None;
        self.pv.clear(0);
        for &m in root_moves.iter().filter(|m| !excluded.contains(m)) {
            self.position.push(m);
            let (child_alpha, child_beta) = self.child_window(alpha, beta);
            let score = -self.negamax(depth - 1, child_alpha, child_beta);
            self.position.pop();
            if self.stopped {
                break;
            }
            if score > alpha {
                alpha = score;
                self.pv.update(0, m);
                best = Some((score, self.pv.line(0).to_vec()));
                self.root_best = Some((m, score));
            }
        }
        if let Some((score, line)) = &best
            && excluded.is_empty()
            && !self.root_restricted
            && !self.stopped
            && self.switches.transposition_table
        {
            let key = self.position.key();
            let packed = PackedMove::new(line[0]);
            self.table
                .store(key, packed, score.to_tt(0), depth, Bound::Exact);
        }
        best
    }

    /// The value of the current position searched `depth` plies deep (plus extensions), within the
    /// window `alpha..beta`, from the side to move's point of view (fail-soft).
    pub(super) fn negamax(&mut self, mut depth: i32, mut alpha: Score, mut beta: Score) -> Score {
        let ply = self.position.ply();
        self.pv.clear(ply);

        // Step 1. Count the node, look at the clock and the stop flag now and then.
        self.nodes += 1;
        if self.should_stop() {
            return Score::DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }

        // Step 2. Draws that need no move generation: repetition and insufficient material.
        if self.position.is_repetition() || self.position.is_insufficient_material() {
            return Score::DRAW;
        }

        // Step 2b. A repetition is in reach: the side to move holds at least a draw, whatever the
        // transposition table (blind to the game's history) says about the moves below.
        if self.switches.alpha_beta
            && ply > 0
            && alpha < Score::DRAW
            && self.position.has_upcoming_repetition()
        {
            alpha = Score::DRAW;
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 3. Mate distance pruning: no line from here beats a mate already found closer to the root.
        if self.switches.alpha_beta {
            alpha = alpha.max(Score::mated_in(ply));
            beta = beta.min(Score::mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 4. Check extension: a side in check is searched one ply deeper, so a check at the horizon
        // is never mistaken for a quiet position.
        let in_check = self.position.board().is_check();
        if in_check {
            depth += 1;
        }

        // Step 5. At the horizon, resolve captures with the quiescence search.
        if depth <= 0 {
            if !self.switches.quiescence {
                return self.evaluate();
            }
            return self.quiescence(alpha, beta);
        }

        // Step 6. Transposition table: a deep enough stored result with a fitting bound ends the node.
        let key = self.position.key();
        let entry = if self.switches.transposition_table {
            self.table.probe(key)
        } else {
            None
        };
        let tt_move = entry.map_or(PackedMove::NONE, |e| e.best_move);
        if let Some(entry) = entry {
            self.stats.tt_hits += 1;
            if entry.depth >= depth {
                let score = entry.score.from_tt(ply);
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }

        // Step 7. Generate moves; none is checkmate or stalemate. Stalemate is a draw, never a loss.
        let mut moves = self.position.board().legal_moves();
        if moves.is_empty() {
            return if in_check {
                Score::mated_in(ply)
            } else {
                Score::DRAW
            };
        }

        // Step 8. Endgame tablebases, right after a capture or pawn move (where WDL is exact under
        // the 50-move rule): a win or loss scores in its band below the mates, cursed wins and
        // blessed losses next to a draw.
        if let Some(score) = self.probe_tablebase(ply) {
            if self.switches.transposition_table {
                self.table
                    .store(key, PackedMove::NONE, score.to_tt(ply), depth, Bound::Exact);
            }
            return score;
        }

        // Step 9. The 50-move rule, once checkmate on the last move has been ruled out.
        if self.position.is_fifty_move_limit() {
            return Score::DRAW;
        }

        // Step 10. Order: TT move, captures by MVV-LVA, killers, history.
        let side = self.position.board().turn();
        let mut scores = score_moves(&moves, tt_move, self.killers.get(ply), self.history, side);

        // Step 11. Search each move; a move that reaches beta cuts the node off.
        let original_alpha = alpha;
        let mut best_score = -Score::INFINITE;
        let mut best_move = None;
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        for index in 0..moves.len() {
            if self.switches.move_ordering {
                pick_next(&mut moves, &mut scores, index);
            }
            let m = moves[index];
            self.position.push(m);
            let (child_alpha, child_beta) = self.child_window(alpha, beta);
            let score = -self.negamax(depth - 1, child_alpha, child_beta);
            self.position.pop();
            if self.stopped {
                return Score::DRAW;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    self.pv.update(ply, m);
                    if score >= beta && self.switches.alpha_beta {
                        self.stats.cutoffs += 1;
                        if is_quiet(m) {
                            // Step 12. Remember the refutation: killer and history bonus, and a
                            // history malus for the quiet moves that did not cut.
                            self.killers.add(ply, m);
                            let bonus = depth * depth;
                            self.history.update(side, m, bonus);
                            for &tried in &quiets_tried {
                                self.history.update(side, tried, -bonus);
                            }
                        }
                        break;
                    }
                }
            }
            if is_quiet(m) {
                // Past 64 quiet moves the malus stops: those moves were tried last anyway.
                let _ = quiets_tried.try_push(m);
            }
        }

        // Step 13. Store the result with its bound.
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if self.switches.transposition_table {
            let packed = best_move.map_or(PackedMove::NONE, PackedMove::new);
            self.table
                .store(key, packed, best_score.to_tt(ply), depth, bound);
        }
        best_score
    }

    /// The tablebase score of the current position when it was just reached by a zeroing move
    /// (not at the root) and the tables cover it. A table that fails to be read stops the probing
    /// for the rest of the search and is reported, never raised.
    fn probe_tablebase(&mut self, ply: usize) -> Option<Score> {
        let tablebase = self.tablebase?;
        let board = self.position.board();
        if ply == 0 || board.halfmoves() != 0 || !tablebase.covers(board) {
            return None;
        }
        match tablebase.wdl(board) {
            Ok(Some(wdl)) => {
                self.tbhits += 1;
                Some(match wdl {
                    Wdl::Win => Score::tb_win_in(ply),
                    Wdl::CursedWin => Score::centipawns(1),
                    Wdl::Draw => Score::DRAW,
                    Wdl::BlessedLoss => Score::centipawns(-1),
                    Wdl::Loss => Score::tb_loss_in(ply),
                })
            }
            Ok(None) => None,
            Err(error) => {
                self.tablebase_error = Some(error.to_string());
                self.tablebase = None;
                None
            }
        }
    }
}
