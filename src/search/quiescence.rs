//! Quiescence search: at the horizon, play captures and queen promotions until the position is quiet,
//! so the evaluation is never taken in the middle of an exchange. Checkmate is recognised here
//! (every evasion is searched in check); stalemate is not (only captures are generated). Results
//! go to the transposition table at depth 0, and come from it at any depth.

use shakmaty::{Bitboard, Position as _, Rank, Role};

use super::context::Context;
use super::ordering::{loses_material, pick_next, score_captures};
use super::params::{BIG_DELTA_CP, delta_margin_cp};
use super::see::role_value;
use crate::score::{MAX_PLY, Score};
use crate::transposition::{Bound, PackedMove};

impl Context<'_> {
    /// The value of the current position once captures are resolved (fail-soft). In check, every
    /// evasion is searched and checkmate is recognised; stalemate is a draw.
    pub(super) fn quiescence(&mut self, mut alpha: Score, beta: Score) -> Score {
        self.debug_check_node(alpha, beta);
        let ply = self.position.ply();
        self.pv.clear(ply);
        self.nodes += 1;
        self.stats.quiescence_nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.should_stop() {
            return Score::DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }

        let in_check = self.position.board().is_check();
        let alpha_beta = self.switches.alpha_beta;
        let selective = self.switches.selective();

        // A stored result whose bound fits ends the node (any depth is deep enough here).
        let use_table = alpha_beta && self.switches.transposition_table;
        let key = self.position.key();
        let entry = if use_table {
            self.table.probe(key)
        } else {
            None
        };
        if let Some(entry) = entry {
            self.stats.tt_hits += 1;
            let score = entry.score.from_tt(ply);
            if entry.bound.settles(score, alpha, beta) {
                return score;
            }
        }

        // Stand pat: the side to move may decline every capture (not when in check). Deciding this
        // before generating moves saves the generation at most nodes.
        let mut best_score = -Score::INFINITE;
        let mut stand_pat = -Score::INFINITE;
        // The evaluation, undamped, for the table: remembered there or computed here.
        let mut static_value = None;
        if !in_check {
            let value = self.static_value(entry.and_then(|entry| entry.eval));
            static_value = Some(value);
            stand_pat = self.damped(value);
            if selective {
                stand_pat = self.corrected(stand_pat);
            }
            if alpha_beta && stand_pat >= beta {
                return stand_pat;
            }
            let board = self.position.board();
            // Delta pruning, whole node: not even winning a queen would reach alpha.
            let seventh_rank = Bitboard::from_rank(board.turn().relative_rank(Rank::Seventh));
            let promotion_possible = (board.our(Role::Pawn) & seventh_rank).any();
            if alpha_beta && !promotion_possible && stand_pat + BIG_DELTA_CP < alpha {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
        }

        // In check every evasion is searched (none is checkmate); otherwise only captures and
        // queen promotions, generated as such (most nodes here; a stalemate is not recognised).
        let board = self.position.board();
        let mut moves = if in_check {
            let evasions = board.legal_moves();
            if evasions.is_empty() {
                return Score::mated_in(ply);
            }
            evasions
        } else {
            let mut tactical = board.capture_moves();
            tactical.extend(
                board
                    .promotion_moves()
                    .into_iter()
                    .filter(|m| !m.is_capture() && m.promotion() == Some(Role::Queen)),
            );
            tactical
        };

        let mut scores = score_captures(&moves);
        let mut best_move = None;
        for index in 0..moves.len() {
            if self.switches.move_ordering {
                pick_next(&mut moves, &mut scores, index);
            }
            let m = moves[index];
            // Delta pruning, per move: this capture cannot lift the score to alpha.
            if alpha_beta
                && !in_check
                && !m.is_promotion()
                && stand_pat + m.capture().map_or(0, role_value) + delta_margin_cp() < alpha
            {
                continue;
            }
            // A capture that loses material by static exchange cannot raise the score.
            if selective && !in_check && loses_material(self.position.board().board(), m) {
                continue;
            }
            self.position.push(m);
            let (child_alpha, child_beta) = self.child_window(alpha, beta);
            let score = -self.quiescence(child_alpha, child_beta);
            self.position.pop();
            if self.stopped {
                return Score::DRAW;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if alpha_beta && score >= beta {
                        break;
                    }
                }
            }
        }
        if use_table {
            let bound = if best_score >= beta {
                Bound::Lower
            } else {
                Bound::Upper
            };
            let packed = best_move.map_or(PackedMove::NONE, PackedMove::new);
            self.table
                .store(key, packed, best_score.to_tt(ply), 0, bound, static_value);
        }
        best_score
    }
}
